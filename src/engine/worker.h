/* SPDX-License-Identifier: GPL-2.0-or-later */
/* worker.h - a worker process: reserve one node's pages of one size, and hold them. */
#ifndef HUGEPAR_WORKER_H
#define HUGEPAR_WORKER_H

#include <stdint.h>

#include "idset.h"

/* A node's work, shared by its coordinator and its workers (MAP_SHARED memory made
 * before they are forked): workers claim pages from it until none are left, so that
 * workers can be added or retired while the node is at work. */
struct node_work {
	int64_t remaining; /* pages not yet claimed (atomic) */
	uint64_t done;	   /* pages reserved (atomic) */
	uint64_t claim;	   /* pages a claim has, at least (atomic) */
	uint32_t split;	   /* 0 while the workers are measured: claims of claim pages;
			    * else a claim is remaining / split pages (atomic) */
	uint32_t pad;
};

/* One worker's slot in the same memory. */
struct worker_slot {
	uint32_t stop;	  /* set by the coordinator: claim no more (atomic) */
	uint32_t started; /* claims begun, and ended (atomic): which ones a measure */
	uint32_t ended;	  /* may count (control.c) */
	uint32_t pad;
	uint64_t held;	  /* pages it holds (atomic) */
	uint64_t busy_us; /* time its reservations took, those that held (atomic) */
};

struct worker_report {
	int32_t err;	  /* why it stopped short, or 0 */
	int32_t bind_err; /* why it could not bind itself to its node, or 0 */
	uint64_t held;	  /* pages it holds */
	uint64_t chunks;  /* reservation calls made */
	uint64_t refused;
	uint64_t ms;
};

struct worker_job {
	unsigned node; /* the node to reserve on */
	const struct hp_idset *cpus;
	uint64_t kb, deadline;
	struct node_work *work;
	struct worker_slot *slot;
};

/* The body of a worker (a child_fn): bind, claim and reserve, report once, hold until
 * let go. */
void worker_main(void *job, int report_fd, int release_fd) __attribute__((noreturn));

#endif
