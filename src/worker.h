/* SPDX-License-Identifier: GPL-2.0-or-later */
/* worker.h - a worker process: reserve one node's pages of one size, and hold them. */
#ifndef HUGEPAR_WORKER_H
#define HUGEPAR_WORKER_H

#include <stdint.h>

#include "util.h"

struct worker_report {
	int32_t err; /* why it stopped short, or 0 */
	uint32_t pad;
	uint64_t held;	 /* pages it holds */
	uint64_t chunks; /* reservation calls made */
	uint64_t refused;
	uint64_t ms;
};

struct worker_job {
	unsigned node; /* the node to reserve on */
	const struct hp_idset *cpus;
	uint64_t kb, quota, deadline;
};

/* The body of a worker (a child_fn): bind, reserve, report once, hold until let go. */
void worker_main(void *job, int report_fd, int release_fd) __attribute__((noreturn));

#endif
