/* SPDX-License-Identifier: GPL-2.0-or-later */
/* creds.c - unit tests: the credential readers: SMBIOS type 11 entries, fw_cfg, the
 * kernel command line, systemd's directory, a confidential VM, and their order. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "creds.h"
#include "path.h"
#include "unit.h"

/* An SMBIOS type 11 entry of strings (each NUL-terminated in s, n bytes in all). */
static size_t entry(char *buf, const char *s, size_t n)
{
	memcpy(buf, "\x0b\x05\x00\x00\x02", 5);
	memcpy(buf + 5, s, n);
	buf[5 + n] = '\0';
	return 5 + n + 1;
}

static bool is(const struct cred_list *l, unsigned i, enum cred_source src,
	       const char *data)
{
	return i < l->n && l->v[i].source == src && l->v[i].data &&
	       strcmp(l->v[i].data, data) == 0 && l->v[i].len == strlen(data);
}

static bool bad(const struct cred_list *l, unsigned i, const char *why)
{
	return i < l->n && !l->v[i].data && strcmp(l->v[i].why, why) == 0;
}

UNIT_TEST(smbios, "several strings, the binary form, another's, truncated, not type 11")
{
	static const char strs[] =
	    "vendor: something\0"
	    "io.systemd.credential:hostname=a\0"
	    "io.systemd.credential:hugepar.conf=pages = 2M:100\0"
	    "io.systemd.credential.binary:hugepar.conf=cGFnZXMgPSAxRzox\0"
	    "io.systemd.credential.binary:hugepar.conf=*\0"
	    "io.systemd.credential:hugepar.conf\0"
	    "io.systemd.credential:hugepar.confx=no\0";
	char raw[512];
	size_t n = entry(raw, strs, sizeof(strs) - 1);
	struct cred_list l = {0};

	CHECK(creds_smbios_entry(raw, n, HP_CRED_NAME, &l) == 0);
	CHECK(l.n == 4);
	CHECK(is(&l, 0, CRED_SMBIOS, "pages = 2M:100"));
	CHECK(is(&l, 1, CRED_SMBIOS, "pages = 1G:1"));
	CHECK(bad(&l, 2, "its binary form is not base64"));
	CHECK(bad(&l, 3, "no '=' and value after its name"));
	creds_free(&l);
	/* cut anywhere: what is there is read, a cut string as what it then says */
	for (size_t cut = 0; cut < n; cut++) {
		CHECK(creds_smbios_entry(raw, cut, HP_CRED_NAME, &l) == 0);
		CHECK(l.n <= 5);
		creds_free(&l);
	}
	raw[0] = 12; /* not type 11 */
	CHECK(creds_smbios_entry(raw, n, HP_CRED_NAME, &l) == 0 && l.n == 0);
	raw[0] = 11;
	raw[1] = 6; /* a header of another length */
	CHECK(creds_smbios_entry(raw, n, HP_CRED_NAME, &l) == 0 && l.n == 0);
}

UNIT_TEST(cmdline, "systemd.set_credential= and its binary form, quoted, '-' for '_'")
{
	struct cred_list l = {0};

	CHECK(creds_cmdline(
		  "quiet systemd.set_credential=hugepar.conf:pages=2M:1 "
		  "\"systemd.set_credential=hugepar.conf:pages = 2M:2\" "
		  "systemd.set-credential=hugepar.conf:threads=3 "
		  "systemd.set_credential_binary=hugepar.conf:cGFnZXM9Mk06NA== "
		  "systemd.set_credential=other:x systemd.set_credential=hugepar.conf "
		  "systemd.set_credentialx=hugepar.conf:no -- "
		  "systemd.set_credential=hugepar.conf:after",
		  HP_CRED_NAME, &l) == 0);
	CHECK(l.n == 5);
	CHECK(is(&l, 0, CRED_CMDLINE, "pages=2M:1"));
	CHECK(is(&l, 1, CRED_CMDLINE, "pages = 2M:2"));
	CHECK(is(&l, 2, CRED_CMDLINE, "threads=3"));
	CHECK(is(&l, 3, CRED_CMDLINE, "pages=2M:4"));
	CHECK(bad(&l, 4, "no ':' and value after its name"));
	creds_free(&l);
	CHECK(creds_cmdline("", HP_CRED_NAME, &l) == 0 && l.n == 0);
}

/* A file of text under dir, its folders made. */
static void put(const char *dir, const char *rel, const char *text, size_t n)
{
	char p[512], *slash;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	for (slash = strchr(p + strlen(dir) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(p, 0755);
		*slash = '/';
	}
	f = fopen(p, "w");
	if (f) {
		fwrite(text, 1, n, f);
		fclose(f);
	}
}

UNIT_TEST(find,
	  "systemd's, then fw_cfg, then SMBIOS, then the command line; a CVM's firmware")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", creds[64], raw[256], cmd[256];
	static const char s[] = "io.systemd.credential:hugepar.conf=from smbios";
	struct cred_list l = {0};
	size_t n = entry(raw, s, sizeof(s));

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	put(dir, "sys/firmware/dmi/entries/11-0/raw", raw, n);
	put(dir, "sys/firmware/dmi/entries/11-1/raw", raw, n);
	put(dir,
	    "sys/firmware/qemu_fw_cfg/by_name/opt/io.systemd.credentials/hugepar.conf/raw",
	    "from fw_cfg", 11);
	snprintf(creds, sizeof(creds), "%s/creds", dir);
	put(dir, "creds/hugepar.conf", "from systemd", 12);
	snprintf(cmd, sizeof(cmd), "systemd.set_credential=hugepar.conf:from cmdline");
	path_set_root(dir);
	setenv("CREDENTIALS_DIRECTORY", creds, 1);
	CHECK(creds_find(HP_CRED_NAME, cmd, &l) == 0 && l.n == 5);
	CHECK(is(&l, 0, CRED_SYSTEMD, "from systemd") &&
	      is(&l, 1, CRED_FW_CFG, "from fw_cfg"));
	CHECK(is(&l, 2, CRED_SMBIOS, "from smbios") &&
	      is(&l, 3, CRED_SMBIOS, "from smbios"));
	CHECK(is(&l, 4, CRED_CMDLINE, "from") && !l.v[1].untrusted);
	CHECK(l.confidential[0] == '\0');
	creds_free(&l);
	unsetenv("CREDENTIALS_DIRECTORY");
	/* an SEV guest: the firmware's are read, and marked */
	put(dir, "proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu hypervisor sev sev_es\n",
	    48);
	CHECK(creds_find(HP_CRED_NAME, NULL, &l) == 0 && l.n == 3);
	CHECK(l.v[0].untrusted && l.v[2].untrusted);
	CHECK(strcmp(l.confidential, "an AMD SEV guest (sev)") == 0);
	creds_free(&l);
	/* a host with SEV, not a guest; a TDX guest */
	put(dir, "proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu sev sev_es\n", 38);
	CHECK(creds_find(HP_CRED_NAME, NULL, &l) == 0 && !l.v[0].untrusted);
	creds_free(&l);
	put(dir, "proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu tdx_guest\n", 36);
	CHECK(creds_confidential(cmd, sizeof(cmd)) && strstr(cmd, "TDX"));
	path_set_root(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

/* Strings that may be this credential mistyped are kept for the settings to judge:
 * systemd's prefix one letter off, another name, any that names hugepar; others'
 * credentials too (judged there), each once; one that names neither is not kept. */
UNIT_TEST(misses,
	  "a prefix or a name one letter off, kept as written, once, to be judged")
{
	static const char strs[] = "vendor: hugepar-less\0"
				   "io.systemd.credentials:hugepar.conf=pages = 2M:1\0"
				   "io.systemd.credential:hugepar=pages = 2M:1\0"
				   "io.systemd.credential:hugepar=pages = 2M:1\0"
				   "IO.SYSTEMD.CREDENTIAL:x=1\0"
				   "hugepar.conf=pages = 2M:1\0"
				   "something else\0"
				   "io.systemd.credential:hugepar.conf=pages = 2M:2\0";
	char raw[512];
	size_t n = entry(raw, strs, sizeof(strs) - 1);
	struct cred_list l = {0};

	CHECK(creds_smbios_entry(raw, n, HP_CRED_NAME, &l) == 0);
	CHECK(l.n == 1 && is(&l, 0, CRED_SMBIOS, "pages = 2M:2"));
	CHECK(l.nmiss == 5);
	CHECK(l.nmiss == 5 && strcmp(l.miss[0].written, "vendor: hugepar-less") == 0 &&
	      strcmp(l.miss[1].written, "io.systemd.credentials:hugepar.conf") == 0 &&
	      strcmp(l.miss[2].written, "io.systemd.credential:hugepar") == 0 &&
	      strcmp(l.miss[3].written, "IO.SYSTEMD.CREDENTIAL:x") == 0 &&
	      strcmp(l.miss[4].written, "hugepar.conf") == 0 &&
	      l.miss[4].source == CRED_SMBIOS);
	creds_free(&l);
	CHECK(
	    creds_cmdline(
		"systemd.set_credentials=hugepar.conf:a=1 systemd.set_credential=hugepar:b=2 "
		"systemd.set-credential=other:c systemd.setcred=hugepar.conf:x "
		"systemd.unit=x.target",
		HP_CRED_NAME, &l) == 0);
	CHECK(l.n == 0 && l.nmiss == 4);
	CHECK(l.nmiss == 4 &&
	      strcmp(l.miss[0].written, "systemd.set_credentials=hugepar.conf") == 0 &&
	      strcmp(l.miss[1].written, "systemd.set_credential=hugepar") == 0 &&
	      strcmp(l.miss[2].written, "systemd.set-credential=other") == 0 &&
	      strcmp(l.miss[3].written, "systemd.setcred=hugepar.conf") == 0);
	creds_free(&l);
	/* at most HP_CRED_MISSES kept: what a fuzzer gives does not grow the list */
	for (unsigned i = 0; i < 40; i++) {
		char w[64];

		snprintf(w, sizeof(w), "systemd.set_credential=x%u:1", i);
		CHECK(creds_cmdline(w, HP_CRED_NAME, &l) == 0);
	}
	CHECK(l.nmiss == HP_CRED_MISSES);
	creds_free(&l);
}

/* The kernel ends a word at a space: an unquoted credential whose text goes on in
 * the words after it is not taken (systemd would take its first word alone), and why
 * says the whole word to quote. */
UNIT_TEST(split,
	  "systemd.set_credential= split at a space: not taken, the whole word said")
{
	static const char *const split[] = {
	    "systemd.set_credential=hugepar.conf:pages = 2M:50% quiet",
	    "systemd.set_credential=hugepar.conf:pages= 2M:50%",
	    "systemd.set_credential=hugepar.conf:pages =2M:50%",
	    "systemd.set_credential=hugepar.conf:pages=2M:50% 1G:4@1",
	    "systemd.set_credential=hugepar.conf:pages=2M:50%, 1G:4",
	};
	struct cred_list l = {0};

	for (size_t i = 0; i < sizeof(split) / sizeof(*split); i++) {
		CHECK(creds_cmdline(split[i], HP_CRED_NAME, &l) == 0);
		CHECK(l.n == 1 && !l.v[0].data &&
		      strstr(l.v[0].why,
			     "the kernel ended it at a space: put the whole word "
			     "in double quotes, \"systemd.set_credential="));
		creds_free(&l);
	}
	CHECK(creds_cmdline(split[0], HP_CRED_NAME, &l) == 0 && l.n == 1 &&
	      strcmp(l.v[0].why,
		     "the kernel ended it at a space: put the whole word in "
		     "double quotes, \"systemd.set_credential=hugepar.conf:pages = "
		     "2M:50%\", or write it without spaces") == 0);
	creds_free(&l);
	/* whole words, quoted or not, and what follows them is another's */
	CHECK(creds_cmdline(
		  "systemd.set_credential=hugepar.conf:pages=2M:50% quiet 1 "
		  "\"systemd.set_credential=hugepar.conf:pages = 2M:1\" root=/dev/sda "
		  "systemd.set_credential_binary=hugepar.conf:cGFnZXM9Mk06NA== = x",
		  HP_CRED_NAME, &l) == 0);
	CHECK(l.n == 3 && is(&l, 0, CRED_CMDLINE, "pages=2M:50%") &&
	      is(&l, 1, CRED_CMDLINE, "pages = 2M:1") &&
	      is(&l, 2, CRED_CMDLINE, "pages=2M:4"));
	creds_free(&l);
}
