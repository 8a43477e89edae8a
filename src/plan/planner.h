/* SPDX-License-Identifier: GPL-2.0-or-later */
/* planner.h - pure: settings and topology in, per-node targets and thread counts out. */
#ifndef HUGEPAR_PLAN_H
#define HUGEPAR_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "settings.h"
#include "topology.h"
#include "vmemmap.h"

enum hp_cut {
	HP_CUT_NONE,
	HP_CUT_KEEP_FREE, /* would eat into the memory the node keeps free */
	HP_CUT_MEMORY,	  /* the node's free memory is not there */
	HP_CUT_GROW,	  /* grow mode keeps the pages of a pool it did not reserve */
	HP_CUT_NO_MEMORY, /* the node has no memory */
};

struct hp_cell {
	bool requested_set;	/* an entry names this node and size */
	struct hp_amount asked; /* what that entry asks, as written */
	uint64_t current;	/* persistent pages now (nr - surplus) */
	uint64_t own;		/* of those, hugepar's own from this boot (hp_node.own) */
	uint64_t requested;
	uint64_t target;
	enum hp_cut cut;
	unsigned workers;     /* concurrent workers for this node and size */
	uint64_t granularity; /* pages: the step the share or cap was rounded down to */
	uint64_t unrounded;   /* the share or cap before rounding */
	bool rounded;	      /* requested or target came from rounding */
};

struct hp_plan {
	unsigned nnodes, nsizes;
	struct hp_cell *cells; /* [node * nsizes + size], indexes as in the topology */
	uint64_t *keep_free;   /* per node, bytes kept free */
	uint64_t *work;	       /* per node, bytes the workers allocate (parallel sizes) */
	unsigned *workers;     /* per node */
	/* per node, the node whose CPUs its workers run on: itself, or for a node
	 * without CPUs the one it shares (plan_hosts()) */
	unsigned *host;
	unsigned workers_total;
	bool workers_auto;
	bool parallel[HP_MAX_SIZES]; /* the kernel lets this size be overcommitted */
	struct hp_vmemmap_plan vmemmap;
};

/* Bytes of work one auto worker should have at least (see doc/threads.md). */
#define HP_AUTO_BYTES_PER_WORKER (UINT64_C(256) << 20)

/*
 * Gigantic pages (topology_gigantic(): above the buddy allocator's largest block)
 * can only be overcommitted, and so reserved by workers, from Linux 6.19 on; before,
 * they are done with per-node writes. The engine still falls back when the kernel
 * refuses, so a wrong guess costs only the plan's worker counts.
 */
bool plan_size_parallel(const struct hp_topology *t, uint64_t kb);

/* The step, in pages, a share or a cap of 'count' pages is rounded down to on this
 * node (at least 1): with granularity = auto, the largest power of two not above 1%
 * of the count (HP_AUTO_STEP_PER), so that rounding never cuts 1% of it. */
uint64_t plan_granularity(const struct hp_settings *s, const struct hp_node *nd,
			  uint64_t page_bytes, uint64_t count);

/* Bytes the node keeps free (keep_free): 0 on a node without memory. */
uint64_t plan_keep_free(const struct hp_settings *s, const struct hp_node *nd);

/* Drop entries whose size the kernel does not offer or whose nodes do not exist,
 * with a problem for each; name a keep_free that leaves a node no room at all. */
void plan_check_settings(struct hp_settings *s, const struct hp_topology *t);

int plan_make(const struct hp_settings *s, const struct hp_topology *t,
	      struct hp_plan *p);
void plan_free(struct hp_plan *p);

static inline struct hp_cell *plan_cell(const struct hp_plan *p, unsigned node,
					unsigned size)
{
	return &p->cells[node * p->nsizes + size];
}

/* threads = auto: the most workers a node may have, its online CPUs and one per
 * HP_AUTO_BYTES_PER_WORKER of work; the engine starts with about a quarter of them
 * and finds the knee while the node works (adapt.h, doc/threads.md). */
unsigned plan_auto_workers(unsigned ncpus, uint64_t work_bytes);

#endif
