/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kparams.h - pure: pools as the kernel's own boot parameters (kparams.c). */
#ifndef HUGEPAR_KPARAMS_H
#define HUGEPAR_KPARAMS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "plan.h"
#include "result.h"
#include "topology.h"

/* One size's pools, per node. */
struct kparams_row {
	uint64_t kb;
	unsigned n;
	unsigned ids[HP_MAX_NODES];
	uint64_t pages[HP_MAX_NODES];
};

/* One size: "hugepagesz=2M hugepages=0:512,1:512" (no node form with one node or
 * without NUMA), after a space unless *first; nothing for empty pools. */
void kparams_put(FILE *f, const struct kparams_row *r, bool numa, bool *first);
/* For a gigantic size (1G) some node of which fell short: the kernel's own boot-time
 * allocation of the planned pools, per node ("hugepagesz=1G hugepages=0:16,1:16"),
 * as a string to free; NULL when the size is not gigantic or no node is short. The
 * kernel allocates those from memblock before memory fragments; a runtime allocation
 * needs a free 1G range on each node. */
char *kparams_boot_route(const struct hp_topology *t, const struct hp_plan *p,
			 const struct hp_result *res, unsigned z);

#endif
