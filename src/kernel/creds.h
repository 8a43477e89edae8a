/* SPDX-License-Identifier: GPL-2.0-or-later */
/* creds.h - a systemd credential of a name (systemd.system-credentials(7)), where the
 * platform gives it before the root switch, read by systemd's own rules. */
#ifndef HUGEPAR_CREDS_H
#define HUGEPAR_CREDS_H

#include <stdbool.h>
#include <stddef.h>

/* The credential hugepar reads: a settings file's text (hugepar.conf(5)). */
#define HP_CRED_NAME "hugepar.conf"
/* Larger credentials are not read: systemd's limit on one (CREDENTIAL_SIZE_MAX). */
#define HP_CRED_MAX (1024u * 1024u)
/* SMBIOS type 11 entries looked at, at most (a machine has a few). */
#define HP_SMBIOS11_MAX 64

enum cred_source { CRED_SYSTEMD, CRED_FW_CFG, CRED_SMBIOS, CRED_CMDLINE };

/* One credential of the name, or one that names it but cannot be read. */
struct cred {
	enum cred_source source;
	char *data; /* its bytes and a NUL (malloc'd); NULL: not read, why says */
	size_t len;
	bool untrusted; /* from firmware in a confidential VM: read, not to be taken */
	bool denied;	/* the firmware's files are root's: not readable by this user */
	char why[320];
};

/* A credential that may be this one mistyped: another name, or a prefix or key that
 * is not systemd's (which to judge is the settings' business). */
struct cred_miss {
	enum cred_source source;
	char written[64]; /* "PREFIX:NAME" (SMBIOS), "KEY=NAME" (command line), NAME */
};

/* Misses kept, at most. */
#define HP_CRED_MISSES 16

struct cred_list {
	struct cred *v;
	unsigned n;
	struct cred_miss miss[HP_CRED_MISSES];
	unsigned nmiss;
	char confidential[96]; /* why this is a confidential VM, or "" */
};

/* systemd's forms of a credential where the platform gives it. */
#define CRED_SMBIOS_PREFIX  "io.systemd.credential:"
#define CRED_SMBIOS_BINARY  "io.systemd.credential.binary:"
#define CRED_CMDLINE_KEY    "systemd.set_credential"
#define CRED_CMDLINE_BINARY "systemd.set_credential_binary"
#define CRED_FW_CFG_DIR	    "/sys/firmware/qemu_fw_cfg/by_name/opt/io.systemd.credentials"

/* "systemd", "fw_cfg", "smbios", "kernel command line". */
const char *creds_source_name(enum cred_source s);

/* Every credential of the name, in systemd's order, from the path layer's tree and
 * the kernel command line given (doc/credentials.md): the credential systemd passed
 * the unit ($CREDENTIALS_DIRECTORY), QEMU's fw_cfg, SMBIOS type 11 OEM strings, and
 * systemd.set_credential= or systemd.set_credential_binary= on the kernel command
 * line; the first wins, as systemd takes the first. Firmware's two are not taken in
 * a confidential VM, whose firmware the host controls. 0, or -ENOMEM. */
int creds_find(const char *name, const char *cmdline, struct cred_list *out);
void creds_free(struct cred_list *l);

/* The parsers behind it, for the tests and the fuzz targets: an SMBIOS type 11
 * entry's raw bytes (its header, then its strings, NUL-terminated), and a kernel
 * command line; each adds what names the credential to out. 0, or -ENOMEM. */
int creds_smbios_entry(const char *raw, size_t len, const char *name,
		       struct cred_list *out);
int creds_cmdline(const char *cmdline, const char *name, struct cred_list *out);
/* Whether this is a confidential VM (AMD SEV, Intel TDX, s390x protected
 * virtualization, Arm CCA), as the kernel shows it, and how it is known. */
bool creds_confidential(char *why, size_t len);

#endif
