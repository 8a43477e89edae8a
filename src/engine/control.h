/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * control.h - the coordinator's state of the parallel path (parallel.c), and its
 * control of each node's workers (control.c).
 */
#ifndef HUGEPAR_CONTROL_H
#define HUGEPAR_CONTROL_H

#include <stdbool.h>
#include <stdint.h>

#include "adapt.h"
#include "children.h"
#include "hugetlb.h"
#include "macros.h"
#include "job.h"
#include "worker.h"

/* The parallel path's state in the coordinator. */
struct node_run {
	uint64_t need;	  /* pages the node lacked when the workers started */
	struct adapt ad;  /* how many workers */
	unsigned *active; /* the slots of its workers claiming now, newest last */
	uint64_t *mark_held, *mark_busy; /* per active worker, when the measure began */
	uint32_t *mark_started;
	unsigned nactive;
	unsigned started, cap; /* workers started, and at most */
	unsigned peak;	       /* the most at work at once (nactive) */
	/* when the current measure (or the warm-up) began; when the count changed */
	uint64_t mark_ms, change_ms;
	bool warm; /* the workers started last have made a claim each */
	/* settled, its rate looked at while enough of its work is left (watch()) */
	bool watching;
	double rate_seen; /* pages/s, the last measure's */
};

struct shared {
	struct node_work *work;	  /* per node */
	struct worker_slot *slot; /* per worker */
};

struct parallel {
	struct size_job *j;
	struct children kids;
	void *mem;
	size_t memlen;
	struct shared sh;
	struct worker_job *jobs; /* per slot */
	struct worker_report *reps;
	unsigned cap, used;	/* slots */
	unsigned at_work, peak; /* workers claiming now, all nodes; the most at once */
	struct node_run *nodes;
	double *ends; /* per node: room for median_left_s() */
	uint64_t before, raised;
	struct hugetlb_resv hold; /* the pool's free pages, held while the workers work */
};

/* Once the count is settled, a claim is the left work over SPLIT per worker. */
#define SPLIT 4
/* The workers a node may start in all with threads = auto (a ceiling of c). */
#define NODE_SLOTS(c) ((2 + ADAPT_MAX_REOPEN) * (c) + 2)

/* Pages a claim has while the workers are measured, and at least after: small enough
 * that a node's work splits into many claims per worker (so that workers can be
 * added and measured quickly), large enough to stay far from vm.max_map_count. */
static inline uint64_t claim_size(uint64_t need, unsigned ceiling)
{
	return MAX(need / (64 * (uint64_t)MAX(ceiling, 1u)), UINT64_C(1));
}

/* Node n to k workers at work: start more, or let the newest stop claiming. */
void control_set_workers(struct parallel *pa, unsigned n, unsigned k);
/* Start a measure of node nr: each active worker's pages and time so far. */
void control_mark(struct parallel *pa, struct node_run *nr);
/* The collect tick: measure each node, let the controller choose its workers, watch
 * the settled ones. Returns whether a node is still measured or watched. */
bool control_tick(void *arg);

#endif
