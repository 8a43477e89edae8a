/* SPDX-License-Identifier: GPL-2.0-or-later */
/* setters.h - pure: what the other setters of the pools (sysctl, the kernel command
 * line, dpdk.service) will do to hugepar's pools, in words (setters.c). */
#ifndef HUGEPAR_SETTERS_H
#define HUGEPAR_SETTERS_H

#include <stdbool.h>
#include <stdint.h>

#include "setfiles.h"

#define HP_SETTERS_MAX 40

/* One setter: where, what it says, what it will do. */
struct hp_setter {
	char origin[288];  /* "/etc/sysctl.d/90-hp.conf:1", "kernel command line" */
	char setting[160]; /* "vm.nr_hugepages = 1024", "hugepagesz=1G hugepages=16" */
	char effect[512];  /* what it will do to the pools, in words */
	bool in_force;	   /* it will change or replace pools (not overridden, masked,
			    * unread or the same as hugepar's) */
};

struct hp_setters {
	unsigned n;
	bool more; /* more than HP_SETTERS_MAX: the rest left out */
	struct hp_setter s[HP_SETTERS_MAX];
};

/* The most nodes whose boot-time pools are compared with hugepar's requests. */
#define HP_MAX_BOOT_NODES 1024
/* A cell no entry asks for. */
#define HP_NOT_ASKED UINT64_MAX

/* hugepar's pools as its run leaves them (a plan's targets, a record's achieved). */
struct setters_pools {
	unsigned nnodes, nsizes;
	const unsigned *ids;   /* node ids */
	const uint64_t *kb;    /* page sizes, ascending */
	const uint64_t *pages; /* [node * nsizes + size] */
	/* what hugepar's entries ask, as pages: HP_NOT_ASKED for none; NULL: unknown */
	const uint64_t *asked;
	uint64_t default_kb; /* the size vm.nr_hugepages counts; 0: 2M */
	bool exact;	     /* mode = exact (else grow) */
};

/* The setters among files (setfiles_read()) and the kernel command line cmdline (NULL
 * or "": none), and what each will do to the pools p. */
void setters_judge(const struct setfiles *files, const char *cmdline,
		   const struct setters_pools *p, struct hp_setters *out);
/* How many are in force. */
unsigned setters_in_force(const struct hp_setters *st);

#endif
