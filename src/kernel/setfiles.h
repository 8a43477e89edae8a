/* SPDX-License-Identifier: GPL-2.0-or-later */
/* setfiles.h - the files by which other programs set the pools after the root switch:
 * vm.nr_hugepages in sysctl.d (systemd-sysctl), dpdk.service's dpdk.conf. */
#ifndef HUGEPAR_SETFILES_H
#define HUGEPAR_SETFILES_H

#include <stdbool.h>

/* The folders systemd-sysctl reads, earlier first: a file of a name masks those of
 * the same name in the later ones (sysctl.d(5); /lib/sysctl.d where /usr is split). */
#define SETFILES_SYSCTL_DIRS                                                             \
	"/etc/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d",                     \
	    "/usr/lib/sysctl.d", "/lib/sysctl.d"
#define SETFILES_MAX 32

enum setfile_kind {
	SETFILE_SYSCTL, /* a line of a sysctl file that names the pools */
	SETFILE_UNREAD, /* a sysctl.d file that could not be read: value says why */
	SETFILE_DPDK,	/* NR_<SIZE>_PAGES in dpdk.service's /etc/dpdk/dpdk.conf */
};

struct setfile {
	enum setfile_kind kind;
	char path[256]; /* as the root names it: /etc/sysctl.d/90-hp.conf */
	unsigned line;
	char key[64];	     /* as written, without '-': vm.nr_hugepages, vm/nr_hugepages,
			 * vm.nr_huge*, NR_2M_PAGES */
	char name[64];	     /* the key in systemd's slash form (vm/nr_hugepages); "" for
			 * dpdk */
	char value[64];	     /* trimmed, its quotes (dpdk) taken off; cut at 63 bytes */
	bool has_value;	     /* "-KEY" alone (no '='): excluded from globs */
	bool ignore_failure; /* the '-' prefix */
	bool glob;	     /* the key is a pattern that matches a pool's name */
	/* systemd-sysctl does not read it: a file of the same name in an earlier
	 * folder (which may be empty or /dev/null: masked), or /etc/sysctl.conf
	 * without a link to it in /etc/sysctl.d; the path that says why, or "" */
	char unread_by[256];
	bool masked;	    /* unread_by is empty or /dev/null */
	bool conf_unlinked; /* /etc/sysctl.conf, which no sysctl.d link names */
	bool enabled;	    /* dpdk: dpdk.service is enabled */
};

struct setfiles {
	unsigned n;
	bool more; /* more than SETFILES_MAX: the rest left out */
	struct setfile f[SETFILES_MAX];
};

/* Every line of systemd-sysctl's files that names vm.nr_hugepages or
 * vm.nr_hugepages_mempolicy (or a glob matching them), in the order it parses them
 * (files by name, the earliest folder's of each name), those it does not read after
 * them; a sysctl.d file that could not be read; dpdk.conf's NR_*_PAGES where
 * dpdk.service is installed. Under base (a root to be), or under the sysroot when
 * base is NULL, through the path layer; what is missing is no error. 0 or -ENOMEM. */
int setfiles_read(struct setfiles *s, const char *base);

#endif
