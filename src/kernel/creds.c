/* SPDX-License-Identifier: GPL-2.0-or-later */
/* creds.c - a systemd credential of a name, where the platform gives it (creds.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base64.h"
#include "creds.h"
#include "file.h"
#include "parse.h"
#include "path.h"

#define SMBIOS_PREFIX CRED_SMBIOS_PREFIX
#define SMBIOS_BINARY CRED_SMBIOS_BINARY
#define FW_CFG_DIR    CRED_FW_CFG_DIR

const char *creds_source_name(enum cred_source s)
{
	static const char *const names[] = {
	    [CRED_SYSTEMD] = "systemd",
	    [CRED_FW_CFG] = "fw_cfg",
	    [CRED_SMBIOS] = "smbios",
	    [CRED_CMDLINE] = "kernel command line",
	};

	return (unsigned)s < sizeof(names) / sizeof(*names) ? names[s] : "?";
}

void creds_free(struct cred_list *l)
{
	for (unsigned i = 0; i < l->n; i++)
		free(l->v[i].data);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* One more entry, for a credential that cannot be read: why. */
static int bad(struct cred_list *l, enum cred_source src, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(struct cred_list *l, enum cred_source src, const char *fmt, ...)
{
	struct cred *nv = realloc(l->v, (l->n + 1) * sizeof(*l->v));
	va_list ap;

	if (!nv)
		return -ENOMEM;
	l->v = nv;
	memset(&l->v[l->n], 0, sizeof(*l->v));
	l->v[l->n].source = src;
	va_start(ap, fmt);
	vsnprintf(l->v[l->n].why, sizeof(l->v[0].why), fmt, ap);
	va_end(ap);
	l->n++;
	return 0;
}

/* A credential that may be this one mistyped, kept as written (n bytes), once. */
static void missed(struct cred_list *l, enum cred_source src, const char *w, size_t n)
{
	struct cred_miss *m = &l->miss[l->nmiss];

	if (l->nmiss == HP_CRED_MISSES)
		return;
	m->source = src;
	snprintf(m->written, sizeof(m->written), "%.*s", (int)n, w);
	for (unsigned i = 0; i < l->nmiss; i++)
		if (!strcmp(l->miss[i].written, m->written))
			return;
	l->nmiss++;
}

/* Whether the n bytes at w hold "hugepar", in any case. */
static bool names_us(const char *w, size_t n)
{
	for (size_t i = 0; i + 7 <= n; i++)
		if (!strncasecmp(w + i, "hugepar", 7))
			return true;
	return false;
}

/* One more credential: its bytes (decoded from base64 when binary), or why not. */
static int add(struct cred_list *l, enum cred_source src, const char *data, size_t len,
	       bool binary)
{
	struct cred *c, *nv = realloc(l->v, (l->n + 1) * sizeof(*l->v));
	int rc = 0;

	if (!nv)
		return -ENOMEM;
	l->v = nv;
	c = memset(&l->v[l->n++], 0, sizeof(*c));
	c->source = src;
	if (binary)
		rc = base64_decode(data, len, &c->data, &c->len);
	else if ((c->data = malloc(len + 1))) {
		memcpy(c->data, data, len);
		c->data[len] = '\0';
		c->len = len;
	}
	if (rc == -EINVAL)
		snprintf(c->why, sizeof(c->why), "its binary form is not base64");
	else if (rc || !c->data)
		return -ENOMEM;
	if (c->data && c->len > HP_CRED_MAX) {
		free(c->data);
		c->data = NULL;
		snprintf(c->why, sizeof(c->why), "larger than %u bytes", HP_CRED_MAX);
	}
	return 0;
}

/* A string of an SMBIOS type 11 entry, or a credential word of the command line
 * after its key: "NAME=VALUE" (sep '=') or "NAME:VALUE" (sep ':'). */
static int one(struct cred_list *l, enum cred_source src, const char *s, size_t len,
	       const char *name, char sep, bool binary)
{
	size_t n = strlen(name);

	if (len < n || memcmp(s, name, n) || (len > n && s[n] != sep))
		return 0; /* another credential's */
	if (len == n)
		return bad(l, src, "no '%c' and value after its name", sep);
	return add(l, src, s + n + 1, len - n - 1, binary);
}

int creds_smbios_entry(const char *raw, size_t len, const char *name,
		       struct cred_list *out)
{
	const char *p = raw + 5, *end = raw + len;

	/* the header: type 11, its length 5, a handle, the count of strings */
	if (len < 5 || (unsigned char)raw[0] != 11 || raw[1] != 5)
		return 0;
	while (p < end) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));
		size_t n = nul ? (size_t)(nul - p) : (size_t)(end - p), k;
		unsigned before = out->n;
		const char *eq;
		int rc = 0;

		if (n > strlen(SMBIOS_BINARY) &&
		    !memcmp(p, SMBIOS_BINARY, strlen(SMBIOS_BINARY)))
			rc = one(out, CRED_SMBIOS, p + strlen(SMBIOS_BINARY),
				 n - strlen(SMBIOS_BINARY), name, '=', true);
		else if (n > strlen(SMBIOS_PREFIX) &&
			 !memcmp(p, SMBIOS_PREFIX, strlen(SMBIOS_PREFIX)))
			rc = one(out, CRED_SMBIOS, p + strlen(SMBIOS_PREFIX),
				 n - strlen(SMBIOS_PREFIX), name, '=', false);
		if (rc)
			return rc;
		/* not this credential, but perhaps meant to be: systemd's prefix or
		 * this name, for the settings to judge */
		eq = memchr(p, '=', n);
		k = eq ? (size_t)(eq - p) : n;
		if (out->n == before &&
		    ((n >= 10 && !strncasecmp(p, "io.systemd", 10)) || names_us(p, k)))
			missed(out, CRED_SMBIOS, p, k);
		p += n + 1;
	}
	return 0;
}

/* Whether a command line word's key is key, '-' and '_' alike (as systemd reads
 * its keys); its value after the '='. */
static const char *key_is(const char *word, const char *key)
{
	for (; *key; word++, key++)
		if (*word != *key &&
		    !((*word == '-' || *word == '_') && (*key == '-' || *key == '_')))
			return NULL;
	return *word == '=' ? word + 1 : NULL;
}

/* Whether the word next goes on with a credential's text that the kernel ended at
 * a space: "pages" "=" "2M:50%", "pages=" "2M:50%", "pages=2M:50%" "1G:4@1". */
static bool goes_on(const char *text, const char *next)
{
	size_t n = strlen(text);

	if (*next == '=' || *next == '@' || *next == ':')
		return true;
	if (n && strchr("=,@:", text[n - 1]))
		return !strchr(next, '=');
	/* an entry: a digit, a ':', no '=' */
	return isdigit((unsigned char)*next) && strchr(next, ':') && !strchr(next, '=');
}

/* An unquoted systemd.set_credential= that the kernel split at a space (the words
 * after word that go on with c's text, at rest): not taken, as systemd would take the
 * first word alone, and the whole word said with how to write it. */
static int split_check(struct cred *c, const char *word, const char *rest)
{
	size_t cap = strlen(word) + strlen(rest) + 2;
	char *all = malloc(cap), *next = malloc(cap);
	const char *q = rest;
	bool split = false;

	if (!all || !next) {
		free(all);
		free(next);
		return -ENOMEM;
	}
	strcpy(all, word);
	while (parse_cmdline_word(&q, next) && strcmp(next, "--") &&
	       goes_on(strchr(all, ':') + 1, next)) {
		strcat(strcat(all, " "), next);
		split = true;
	}
	if (split) {
		free(c->data);
		c->data = NULL;
		c->len = 0;
		snprintf(c->why, sizeof(c->why),
			 "the kernel ended it at a space: put the whole word in double "
			 "quotes, \"%.200s\", or write it without spaces",
			 all);
	}
	free(all);
	free(next);
	return 0;
}

/* A command line word that may be the credential mistyped: systemd's key with
 * another name, or a key like it ("systemd.set_credentials="). */
static void cmdline_miss(struct cred_list *out, const char *word, bool ours)
{
	const char *eq = strchr(word, '='), *colon = eq ? strchr(eq, ':') : NULL;

	if (!eq || (!ours && (strncasecmp(word, "systemd.", 8) || !strstr(word, "cred") ||
			      eq < word + 8)))
		return;
	missed(out, CRED_CMDLINE, word, colon ? (size_t)(colon - word) : strlen(word));
}

int creds_cmdline(const char *cmdline, const char *name, struct cred_list *out)
{
	const char *p = cmdline;
	char *word = malloc(strlen(cmdline) + 1);
	int rc = 0;

	if (!word)
		return -ENOMEM;
	while (!rc && parse_cmdline_word(&p, word) && strcmp(word, "--")) {
		const char *v = key_is(word, CRED_CMDLINE_KEY);
		bool binary = !v && (v = key_is(word, CRED_CMDLINE_BINARY));
		unsigned before = out->n;

		if (v)
			rc = one(out, CRED_CMDLINE, v, strlen(v), name, ':', binary);
		if (!rc && out->n > before && !binary && out->v[before].data)
			rc = split_check(&out->v[before], word, p);
		else if (!rc && out->n == before)
			cmdline_miss(out, word, v != NULL);
	}
	free(word);
	return rc;
}

/* A whole file of the path layer's tree: 0, or -errno (-ENOENT: none). */
static int slurp(const char *fmt, const char *arg, char **text, size_t *len)
{
	char p[4096];
	const char *kind = NULL;

	if (path_build(p, sizeof(p), fmt, arg))
		return -ENAMETOOLONG;
	return file_read_regular(p, HP_CRED_MAX + 8192, text, len, &kind);
}

/* One word of /proc/cpuinfo's first "flags" line, as a word. */
static bool has_flag(const char *info, const char *flag)
{
	const char *line = strstr(info, "\nflags");
	size_t n = strlen(flag);

	if (!line)
		return false;
	for (const char *w = strchr(line, ':'); w && *w && *w != '\n';) {
		w += strspn(w, ": \t");
		if (!strncmp(w, flag, n) && (w[n] == ' ' || w[n] == '\n' || !w[n]))
			return true;
		w += strcspn(w, " \n");
	}
	return false;
}

bool creds_confidential(char *why, size_t len)
{
	char *text = NULL;
	size_t n;
	bool cvm = false;

	if (slurp("%s", "/proc/cpuinfo", &text, &n) == 0) {
		if (has_flag(text, "tdx_guest"))
			cvm = snprintf(why, len, "an Intel TDX guest (tdx_guest)") > 0;
		else if (has_flag(text, "hypervisor") &&
			 (has_flag(text, "sev") || has_flag(text, "sev_es") ||
			  has_flag(text, "sev_snp")))
			cvm = snprintf(why, len, "an AMD SEV guest (sev)") > 0;
		free(text);
	}
	if (!cvm && slurp("%s", "/sys/firmware/uv/prot_virt_guest", &text, &n) == 0) {
		if (text[0] == '1')
			cvm = snprintf(why, len,
				       "an s390x protected virtualization guest") > 0;
		free(text);
	}
	if (!cvm && path_exists("/sys/devices/platform/arm-cca-dev"))
		cvm = snprintf(why, len, "an Arm CCA realm") > 0;
	return cvm;
}

/* The credential systemd passed the unit, if it did. */
static int from_systemd(const char *name, struct cred_list *out)
{
	const char *dir = getenv("CREDENTIALS_DIRECTORY"), *kind = NULL;
	char p[4096], *text;
	size_t len;
	int rc;

	if (!dir || !*dir || snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p))
		return 0;
	rc = file_read_regular(p, HP_CRED_MAX, &text, &len, &kind);
	if (rc == -ENOENT && !kind)
		return 0;
	if (rc == -EFBIG)
		return bad(out, CRED_SYSTEMD, "larger than %u bytes", HP_CRED_MAX);
	if (rc)
		return bad(out, CRED_SYSTEMD, "%s: %s", p, kind ? kind : strerror(-rc));
	rc = add(out, CRED_SYSTEMD, text, len, false);
	free(text);
	return rc;
}

/* A firmware file that this user may not read (they are root's): said, for a plan
 * without it may lack the machine's intent. */
static int denied(struct cred_list *out, enum cred_source src, const char *fmt,
		  const char *arg, int rc)
{
	char file[160];

	snprintf(file, sizeof(file), fmt, arg);
	rc = bad(out, src, "%s: %s (root's only: run hugepar as root to read it)", file,
		 strerror(-rc));
	if (!rc)
		out->v[out->n - 1].denied = true;
	return rc;
}

/* fw_cfg's credentials of other names, which may be this one's mistyped. */
static void fw_cfg_misses(const char *name, struct cred_list *out)
{
	char dir[4096];
	struct dirent *de;
	DIR *d;

	if (path_build(dir, sizeof(dir), "%s", FW_CFG_DIR) || !(d = opendir(dir)))
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && strcmp(de->d_name, name))
			missed(out, CRED_FW_CFG, de->d_name, strlen(de->d_name));
	closedir(d);
}

/* The firmware's: fw_cfg's file of the name, then each SMBIOS type 11 entry. */
static int from_firmware(const char *name, struct cred_list *out)
{
	char *text, entry[32];
	size_t len;
	int rc = 0;

	rc = slurp(FW_CFG_DIR "/%s/raw", name, &text, &len);
	if (rc == 0) {
		rc = add(out, CRED_FW_CFG, text, len, false);
		free(text);
	} else if (rc == -EACCES || rc == -EPERM) {
		rc = denied(out, CRED_FW_CFG, FW_CFG_DIR "/%s/raw", name, rc);
	} else {
		rc = rc == -EFBIG
			 ? bad(out, CRED_FW_CFG, "larger than %u bytes", HP_CRED_MAX)
			 : 0;
	}
	fw_cfg_misses(name, out);
	for (unsigned i = 0; !rc && i < HP_SMBIOS11_MAX; i++) {
		int r;

		snprintf(entry, sizeof(entry), "%u", i);
		r = slurp("/sys/firmware/dmi/entries/11-%s/raw", entry, &text, &len);
		if (r == -EACCES || r == -EPERM)
			rc = denied(out, CRED_SMBIOS,
				    "/sys/firmware/dmi/entries/11-%s/raw", entry, r);
		if (r)
			break;
		rc = creds_smbios_entry(text, len, name, out);
		free(text);
	}
	return rc;
}

int creds_find(const char *name, const char *cmdline, struct cred_list *out)
{
	unsigned firm;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = from_systemd(name, out)))
		return rc;
	firm = out->n;
	if ((rc = from_firmware(name, out)))
		return rc;
	if (creds_confidential(out->confidential, sizeof(out->confidential)))
		for (unsigned i = firm; i < out->n; i++)
			out->v[i].untrusted = true;
	return cmdline ? creds_cmdline(cmdline, name, out) : 0;
}
