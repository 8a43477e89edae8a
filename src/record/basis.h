/* SPDX-License-Identifier: GPL-2.0-or-later */
/* basis.h - what a plan starts from: this boot's free memory and pools, and the pages
 * hugepar reserved itself in this boot, from the record of this boot's run. */
#ifndef HUGEPAR_BASIS_H
#define HUGEPAR_BASIS_H

#include <stdbool.h>
#include <stdint.h>

#include "topology.h"

/* Where a plan's free memory and pools come from: as this boot's initramfs found
 * them (its record), or as they are now. */
struct record_basis {
	bool boot;	  /* from the record of this boot's initramfs run */
	bool now_asked;	  /* plan --now */
	const char *dir;  /* the record directory */
	uint64_t boot_ms; /* when that run started, ms after boot */
};

/* For a plan of the next boot (plan, cmdline): the free memory and pools of this
 * boot's initramfs run into t, from its record in dir, where there is one of this
 * boot (boot_id) and of every node; else those now (b says which; now: plan --now). */
void basis_read(struct record_basis *b, struct hp_topology *t, const char *dir, bool now);
/* For a run now (apply; plan and cmdline without the boot's basis): the pages of each
 * pool that hugepar reserved itself in this boot, from the record of this boot, less
 * any the pool has lost since (the rest being someone else's), into t. */
void basis_own_read(struct hp_topology *t, const char *dir);

#endif
