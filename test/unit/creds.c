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
	static const char strs[] = "vendor: something\0"
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

	CHECK(creds_cmdline("quiet systemd.set_credential=hugepar.conf:pages=2M:1 "
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
	for (slash = strchr(p + strlen(dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
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

UNIT_TEST(find, "systemd's, then fw_cfg, then SMBIOS, then the command line; a CVM's firmware")
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
	put(dir, "sys/firmware/qemu_fw_cfg/by_name/opt/io.systemd.credentials/hugepar.conf/raw",
	    "from fw_cfg", 11);
	snprintf(creds, sizeof(creds), "%s/creds", dir);
	put(dir, "creds/hugepar.conf", "from systemd", 12);
	snprintf(cmd, sizeof(cmd), "systemd.set_credential=hugepar.conf:from cmdline");
	path_set_root(dir);
	setenv("CREDENTIALS_DIRECTORY", creds, 1);
	CHECK(creds_find(HP_CRED_NAME, cmd, &l) == 0 && l.n == 5);
	CHECK(is(&l, 0, CRED_SYSTEMD, "from systemd") && is(&l, 1, CRED_FW_CFG, "from fw_cfg"));
	CHECK(is(&l, 2, CRED_SMBIOS, "from smbios") && is(&l, 3, CRED_SMBIOS, "from smbios"));
	CHECK(is(&l, 4, CRED_CMDLINE, "from") && !l.v[1].untrusted);
	CHECK(l.confidential[0] == '\0');
	creds_free(&l);
	unsetenv("CREDENTIALS_DIRECTORY");
	/* an SEV guest: the firmware's are read, and marked */
	put(dir, "proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu hypervisor sev sev_es\n", 48);
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
