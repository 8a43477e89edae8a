/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sources.c - where settings come from: files, a directory of drop-ins, the kernel
 * command line, the keys baked into an initramfs; each value goes to keys_set(). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "creds.h"
#include "file.h"
#include "keyname.h"
#include "keys.h"
#include "parse.h"
#include "path.h"
#include "settings.h"
#include "values.h"

#define BOM "\xef\xbb\xbf" /* U+FEFF in UTF-8 */

/* Read a whole settings file: regular files only, opened without blocking (a FIFO
 * would hang the boot), at most HP_MAX_FILE bytes. */
static int read_settings_file(struct hp_settings *s, const char *file,
			      const char *shown_as, char **text, size_t *len)
{
	const char *kind = NULL;
	int rc = file_read_regular(file, HP_MAX_FILE, text, len, &kind);

	if (rc == -ENOENT && kind)
		settings_problem(s, shown_as, "", "",
				 "a symbolic link to nothing: not read");
	else if (rc == -EINVAL && kind)
		settings_problem(s, shown_as, "", "", "%s, not a regular file: not read",
				 kind);
	else if (rc == -EFBIG)
		settings_problem(s, shown_as, "", "", "larger than %llu bytes: not read",
				 (unsigned long long)HP_MAX_FILE);
	else if (rc && rc != -ENOENT)
		settings_problem(s, shown_as, "", "", "cannot read: %s", strerror(-rc));
	return rc;
}

/* A line without '=': "pages: 2M:50%" and "pages 2M:50%" are answered with the
 * line to write. */
static void no_equals(struct hp_settings *s, const char *l, const char *origin)
{
	size_t n = strcspn(l, ": \t");
	const char *v = l + n + strspn(l + n, ": \t");
	char key[32];

	if (n < sizeof(key) && *v && snprintf(key, sizeof(key), "%.*s", (int)n, l) &&
	    keys_known(key))
		settings_problem(s, origin, l, "",
				 "expected KEY = VALUE: write '%s = %.*s'", key,
				 HP_SHOW_VALUE, v);
	else
		settings_problem(s, origin, l, "", "expected KEY = VALUE");
}

static void config_line(struct hp_settings *s, char *l, const char *origin)
{
	char *eq, *hash = strchr(l, '#');

	if (hash)
		*hash = '\0';
	l = parse_trim(l);
	if (!*l)
		return;
	eq = strchr(l, '=');
	if (!eq) {
		no_equals(s, l, origin);
		return;
	}
	*eq = '\0';
	keys_set(s, parse_trim(l), parse_trim(eq + 1), origin, false);
}

/* The lines of a settings file's text, named NAME:LINE. */
static void load_lines(struct hp_settings *s, const char *name, char *text, size_t len)
{
	char *line, origin[4200];
	unsigned lineno = 0;

	settings_add_source(s, name);
	for (line = text; line < text + len;) {
		char *nl = memchr(line, '\n', text + len - line),
		     *end = nl ? nl : text + len;

		*end = '\0';
		if (!strncmp(line, BOM, 3))
			line += 3; /* an editor's byte-order mark, which says nothing */
		lineno++;
		snprintf(origin, sizeof(origin), "%s:%u", name, lineno);
		if (strlen(line) != (size_t)(end - line))
			settings_problem(s, origin, "", "",
					 "a NUL byte in the line: not read");
		else
			config_line(s, line, origin);
		line = end + 1;
	}
}

void sources_load_text(struct hp_settings *s, const char *name, char *text, size_t len)
{
	/* the name as read, and the bytes: the initramfs holds the same files */
	s->digest = file_hash64(s->digest, name, strlen(name) + 1);
	s->digest = file_hash64(s->digest, text, len);
	load_lines(s, name, text, len);
}

/* Whether a credential's name is this one's mistyped: another case or a slip
 * ("hugepar.config", "Hugepar.conf"), or this one's start ("hugepar", "hugepar.cfg"). */
static bool name_near(const char *name)
{
	static const char *const ours[] = {HP_CRED_NAME};
	const char *meant = keyname_meant(name, ours, 1);

	/* (keyname_meant() may answer with another key of its own for a word) */
	return strcmp(name, HP_CRED_NAME) && ((meant && !strcmp(meant, HP_CRED_NAME)) ||
					      !strncasecmp(name, "hugepar", 7));
}

/* What a credential that may be this one mistyped (creds.h) was meant to be, or NULL:
 * systemd's form of it ("io.systemd.credential:hugepar.conf="), in want. */
static const char *miss_meant(const struct cred_miss *m, char *want, size_t len)
{
	static const char *const prefixes[] = {CRED_SMBIOS_PREFIX, CRED_SMBIOS_BINARY};
	static const char *const keys[] = {CRED_CMDLINE_KEY, CRED_CMDLINE_BINARY};
	char head[64];
	const char *name, *meant;
	size_t n;

	if (m->source == CRED_FW_CFG) {
		snprintf(want, len, "it as opt/io.systemd.credentials/%s", HP_CRED_NAME);
		return name_near(m->written) ? want : NULL;
	}
	n = strcspn(m->written, m->source == CRED_SMBIOS ? ":" : "=");
	name = m->written[n] ? m->written + n + 1 : "";
	snprintf(head, sizeof(head), "%.*s", (int)n + (m->source == CRED_SMBIOS),
		 m->written);
	meant = keyname_meant(head, m->source == CRED_SMBIOS ? prefixes : keys, 2);
	if (meant && strncmp(meant, m->source == CRED_SMBIOS ? "io." : "systemd.", 3))
		meant = NULL;
	if (!meant || (strcmp(name, HP_CRED_NAME) && !name_near(name)))
		return NULL; /* another's credential, or not systemd's at all */
	if (!strcmp(meant, head) && !name_near(name))
		return NULL;
	snprintf(want, len, m->source == CRED_SMBIOS ? "%s%s=..." : "%s=%s:...", meant,
		 HP_CRED_NAME);
	return want;
}

/* A credential that names this one mistyped: not read, and what to write said. */
static void near_miss(struct hp_settings *s, const struct cred_miss *m)
{
	char origin[96], want[96];

	if (!miss_meant(m, want, sizeof(want)))
		return;
	snprintf(origin, sizeof(origin), "credential %s (%s)", HP_CRED_NAME,
		 creds_source_name(m->source));
	settings_problem(s, origin, m->written, "", "not read: write %s", want);
}

/* A credential of one line with "\n" in it, where a line break was meant: how to
 * give it lines. */
static bool one_line(struct hp_settings *s, const struct cred *c, const char *origin)
{
	static const char *const binary[] = {
	    [CRED_SYSTEMD] = "write the lines on lines of their own",
	    [CRED_FW_CFG] = "give a file of the lines (-fw_cfg name=...,file=FILE)",
	    [CRED_SMBIOS] =
		"give the lines in the binary form, " CRED_SMBIOS_BINARY HP_CRED_NAME
		"=BASE64 (base64 -w0 of the file)",
	    [CRED_CMDLINE] = "give the lines in the binary form, " CRED_CMDLINE_BINARY
			     "=" HP_CRED_NAME ":BASE64 (base64 -w0 of the file)",
	};

	if (memchr(c->data, '\n', c->len) || !strstr(c->data, "\\n"))
		return false;
	settings_problem(
	    s, origin, "", "",
	    "one line with '\\n' in it, which is no line break: %s: not read",
	    binary[c->source]);
	return true;
}

/* One credential of the list: its text read as a settings file's (not in the files'
 * digest: it is no file the initramfs copies), or why not, or why not this one. */
static void load_credential(struct hp_settings *s, struct cred *c, const char *taken,
			    const char *confidential)
{
	char origin[96];

	snprintf(origin, sizeof(origin), "credential %s (%s)", HP_CRED_NAME,
		 creds_source_name(c->source));
	if (!c->data && c->denied) {
		settings_notice(s, origin, "", "", "%s: not read", c->why);
		s->creds_denied++;
	} else if (!c->data)
		settings_problem(s, origin, "", "", "%s: not read", c->why);
	else if (c->untrusted)
		settings_notice(s, origin, "", "",
				"not read: this is %s, and its firmware is the host's, "
				"which it does not trust (as systemd does not)",
				confidential);
	else if (taken)
		settings_notice(s, origin, "", "",
				"not read: the one from %s comes first, as systemd takes "
				"it",
				taken);
	else if (!one_line(s, c, origin))
		load_lines(s, origin, c->data, c->len);
}

void sources_load_credentials(struct hp_settings *s, const char *cmdline)
{
	struct cred_list l;
	const char *taken = NULL;

	if (creds_find(HP_CRED_NAME, cmdline, &l)) {
		s->failed = true;
		creds_free(&l);
		return;
	}
	for (unsigned i = 0; i < l.n; i++) {
		load_credential(s, &l.v[i], taken, l.confidential);
		if (!taken && l.v[i].data && !l.v[i].untrusted)
			taken = creds_source_name(l.v[i].source);
	}
	for (unsigned i = 0; i < l.nmiss; i++)
		near_miss(s, &l.miss[i]);
	creds_free(&l);
}

static int conf_filter(const struct dirent *de)
{
	size_t n = strlen(de->d_name);

	return de->d_name[0] != '.' && n > 5 && strcmp(de->d_name + n - 5, ".conf") == 0;
}

/* A settings file at root+name, known by its name. */
static int load_file_at(struct hp_settings *s, const char *root, const char *name)
{
	char *text, *path = NULL;
	size_t len;
	int rc;

	if (asprintf(&path, "%s%s", root, name) < 0)
		return -ENOMEM;
	rc = read_settings_file(s, path, name, &text, &len);
	free(path);
	if (rc)
		return rc;
	sources_load_text(s, name, text, len);
	free(text);
	return 0;
}

int sources_load_file(struct hp_settings *s, const char *file)
{
	return load_file_at(s, "", file);
}

int sources_load_config_at(struct hp_settings *s, const char *root, const char *file,
			   bool required)
{
	struct dirent **list;
	char *dir, *at;
	int n, rc;

	free(s->config);
	s->config = strdup(file);
	rc = load_file_at(s, root, file);
	if (rc == -ENOENT && required)
		return rc;
	if (asprintf(&dir, "%s.d", file) < 0)
		return -ENOMEM;
	if (asprintf(&at, "%s%s", root, dir) < 0) {
		free(dir);
		return -ENOMEM;
	}
	n = scandir(at, &list, conf_filter, alphasort);
	for (int i = 0; i < n; i++) {
		char *p;

		if (asprintf(&p, "%s/%s", dir, list[i]->d_name) >= 0) {
			load_file_at(s, root, p);
			free(p);
		}
		free(list[i]);
	}
	if (n >= 0)
		free(list);
	else if (errno != ENOENT)
		settings_problem(s, dir, "", "", "cannot read the directory: %s",
				 strerror(errno));
	free(at);
	free(dir);
	return 0;
}

int sources_load_config(struct hp_settings *s, const char *file, bool required)
{
	return sources_load_config_at(s, "", file, required);
}

/*
 * The value of rd.hugepar.pages=, in list, and the words after it that continue it:
 * the kernel ends a value at a space, where a file does not ("rd.hugepar.pages=2M:512,
 * 1G:4"). A word without '=' that starts an entry, or any such word after a comma,
 * joins the list (with its space, which the list's grammar reads as a file's), and
 * how to write it is said. *p moves past the words taken.
 */
static void pages_words(struct hp_settings *s, const char **p, char *list, char *word,
			const char *origin)
{
	bool joined = false;

	for (;;) {
		const char *q = *p;
		size_t n = strlen(list);

		if (!parse_cmdline_word(&q, word) || strchr(word, '=') ||
		    !strcmp(word, "--") ||
		    !(values_starts_entry(word) || (n && list[n - 1] == ',') ||
		      values_continues(list, n, word) != VALUE_JOIN_NONE))
			break;
		list[n] = ' ';
		strcpy(list + n + 1, word);
		*p = q;
		joined = true;
	}
	keys_set(s, "rd.hugepar.pages", list, origin, true);
	if (joined)
		settings_notice(
		    s, origin, "rd.hugepar.pages", list,
		    "taken as one list: the kernel ends a value at a space, so "
		    "write the list with commas only, or in double quotes");
}

/* "hugepar.pages=..." without dracut's "rd.": not read, and said. */
static void no_rd(struct hp_settings *s, char *word, const char *origin)
{
	char *eq = strchr(word, '=');

	if (eq)
		*eq = '\0';
	settings_notice(s, origin, word, eq ? eq + 1 : "",
			"not read: write rd.%s%s%.*s (hugepar's keys on the kernel "
			"command line start with rd.)",
			word, eq ? "=" : "", HP_SHOW_VALUE, eq ? eq + 1 : "");
	if (eq)
		*eq = '=';
}

void sources_load_cmdline_from(struct hp_settings *s, const char *cmdline,
			       const char *origin)
{
	const char *p = cmdline;
	size_t cap = strlen(cmdline) + 2;
	char *word = malloc(cap), *list = malloc(cap);

	if (!word || !list) {
		free(word);
		free(list);
		s->failed = true;
		return;
	}
	while (parse_cmdline_word(&p, word)) {
		char *eq;

		if (strcmp(word, "--") == 0)
			break; /* the rest is for init */
		if (!strncmp(word, "hugepar", 7) && (word[7] == '.' || word[7] == '='))
			no_rd(s, word, origin);
		if (strncmp(word, "rd.hugepar", 10) ||
		    (word[10] && word[10] != '.' && word[10] != '='))
			continue;
		settings_add_source(s, origin);
		eq = strchr(word, '=');
		if (eq && strncmp(word, "rd.hugepar.pages=", 17) == 0) {
			strcpy(list, eq + 1);
			pages_words(s, &p, list, word, origin);
		} else if (eq) {
			*eq = '\0';
			keys_set(s, word, eq + 1, origin, true);
		} else if (strcmp(word, "rd.hugepar") == 0) {
			keys_set(s, word, "1", origin, true); /* as getargbool reads it */
		} else {
			settings_problem(s, origin, word, "", "expected %s=VALUE", word);
		}
	}
	free(word);
	free(list);
}

void sources_load_cmdline(struct hp_settings *s, const char *cmdline)
{
	sources_load_cmdline_from(s, cmdline, "kernel command line");
}

static void load_baked_file(struct hp_settings *s, const char *rel)
{
	char p[4096], *text;
	size_t len;

	if (path_build(p, sizeof(p), "%s", rel) ||
	    read_settings_file(s, p, rel, &text, &len))
		return;
	if (strlen(text) != len)
		settings_problem(s, rel, "", "", "a NUL byte in the file: not read");
	else
		sources_load_cmdline_from(s, text + (strncmp(text, BOM, 3) ? 0 : 3), rel);
	free(text);
}

void sources_load_baked(struct hp_settings *s)
{
	struct dirent **list;
	char dir[4096];
	int n;

	load_baked_file(s, "/etc/cmdline");
	if (path_build(dir, sizeof(dir), "/etc/cmdline.d"))
		return;
	n = scandir(dir, &list, conf_filter, alphasort);
	for (int i = 0; i < n; i++) {
		char rel[512];

		snprintf(rel, sizeof(rel), "/etc/cmdline.d/%s", list[i]->d_name);
		load_baked_file(s, rel);
		free(list[i]);
	}
	if (n >= 0)
		free(list);
}
