/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kparams.h - pure: pools as the kernel's own boot parameters (kparams.c). */
#ifndef HUGEPAR_KPARAMS_H
#define HUGEPAR_KPARAMS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "planner.h"
#include "result.h"
#include "topology.h"

/* One size's pools, per node. */
struct kparams_row {
	uint64_t kb;
	unsigned n;
	unsigned ids[HP_MAX_NODES];
	uint64_t pages[HP_MAX_NODES];
};

/* One node's cells, as the kernel's boot-time allocation is to get them. */
struct kparams_node {
	uint64_t mem_total; /* bytes (MemTotal) */
	uint64_t keep_free; /* bytes the node keeps free */
	unsigned nsizes;
	const uint64_t *kb; /* each size's page size, ascending */
	const bool *asked;  /* an entry names this node and size */
	const uint64_t *requested, *target;
};

/* The pages the kernel is to reserve at boot for each size of one node, in out[]:
 * the target; but where the plan capped a cell below its request (free memory or
 * keep_free at the run), the request, within the node's installed memory less
 * keep_free, largest size first: the kernel reserves before memory is handed out,
 * so the free memory of a run does not bound it. */
void kparams_boot_counts(const struct kparams_node *nd, uint64_t *out);

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

/* The kernel's reading of its own words. A page size as memparse() takes it ("2M",
 * "1g", "2097152"), in kB; 0 when it is not one. */
uint64_t kparams_read_size(const char *v);
/* A count as the kernel reads a write of a pool's sysctl (proc_doulongvec_minmax():
 * base 0, so 0x10 is 16 and 010 is 8; a blank ends it, what follows is not looked
 * at): 0, or -EINVAL where it refuses it (nothing, a sign, another character after
 * the digits, more than 2^64 - 1). doc/kernel-notes.md. */
int kparams_read_count(const char *v, uint64_t *out);
/* hugepages=V as the kernel takes it: per node (0:512,1:512) into kern[], indexed as
 * ids[] (nnodes of them), or a total, spread evenly over them (as the kernel spreads
 * it over the nodes with memory); the total in *total. -EINVAL where the kernel
 * cannot read it. */
int kparams_read_pages(const char *v, const unsigned *ids, unsigned nnodes,
		       uint64_t *kern, uint64_t *total);

#endif
