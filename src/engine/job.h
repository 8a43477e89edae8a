/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * job.h - one page size's job: what the size's coordinator knows and hands back, and
 * the per-node steps every way of doing the work shares (job.c). The engine's bottom
 * layer: size.c, parallel.c and probe.c build on it.
 */
#ifndef HUGEPAR_JOB_H
#define HUGEPAR_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "planner.h"
#include "result.h"
#include "topology.h"

/* Past the deadline, workers and coordinators are told to stop, then killed. */
#define HP_GRACE_MS 5000

/* What a size's coordinator hands back. */
struct size_report {
	struct hp_size_result sr;
	uint32_t timed_out, interrupted;
};

struct size_job {
	const struct hp_topology *t;
	const struct hp_plan *p;
	unsigned z;
	uint64_t kb;
	enum hp_method method;
	uint64_t deadline;
	uint64_t run_start;	 /* when the run began (clock_now_ms()) */
	struct cell_note *notes; /* per node */
	struct size_report rep;
	uint64_t probe_ns; /* method=auto: a page's cost to one writer; 0: not probed */
};

/* What stopped this node, for its reason. */
void job_note(struct size_job *j, unsigned n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The deadline or a stop: true, and the report says which. */
bool job_out_of_time(struct size_job *j);
/* One node to 'target' with a per-node write, cut short at the deadline. */
int job_node_write(struct size_job *j, unsigned n, uint64_t target, uint64_t deadline);
int job_node_now(struct size_job *j, unsigned n, uint64_t *have);
/* What node n still lacks of its target: 0 when the plan asks no growth there, else
 * read from the node now (the plan's count when it cannot be read). */
uint64_t job_node_lack(struct size_job *j, unsigned n);
/* A note on node n: the cause of the cell (kernel_error; deadline or interrupted,
 * once job_out_of_time() said so, from job_note_stopped()) and its words. */
void job_note_stopped(struct size_job *j, unsigned n);

#endif
