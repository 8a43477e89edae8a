/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * probe.c - method=auto: is the parallel path worth its fixed cost here? Time a
 * per-node write that changes nothing (the fixed cost of a write), reserve the first
 * pages of the first node that gives any with an exact per-node write (useful work in
 * any case), time a fork, and let result_auto_estimate() compare. The other nodes are
 * taken to cost the same per page, as the nodes of one machine do: probing each
 * would reserve their first pages one node after the other, while the rest of the
 * machine waits. doc/threads.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "fault.h"
#include "macros.h"
#include "probe.h"
#include "sys.h"

#define PROBE_MIN 4
#define PROBE_MAX 32

/* Probe node n: from its pool of from pages, write probe more with an exact per-node
 * write, less the cost of a write that changes nothing. Returns the pages it gave
 * and their time beyond that cost. */
static uint64_t probe_node(struct size_job *j, unsigned n, uint64_t from, uint64_t probe,
			   uint64_t *us)
{
	uint64_t have = from, dt, dt0, t0;

	t0 = clock_now_us();
	job_node_write(j, n, from, j->deadline);
	dt0 = clock_now_us() - t0;
	t0 = clock_now_us();
	job_node_write(j, n, from + probe, j->deadline);
	dt = clock_now_us() - t0;
	job_node_now(j, n, &have);
	*us = dt > dt0 ? dt - dt0 : 0;
	return have > from ? have - from : 0;
}

/* What is left of each node with work, at the cost per page measured. */
static unsigned auto_nodes(struct size_job *j, uint64_t page_ns, struct auto_node *an)
{
	unsigned k = 0;

	for (unsigned n = 0; n < j->t->nnodes; n++) {
		const struct hp_cell *c = plan_cell(j->p, n, j->z);

		if (c->target <= c->current)
			continue;
		an[k++] = (struct auto_node){.page_ns = page_ns,
					     .rest = job_node_lack(j, n),
					     .workers = c->workers};
	}
	return k;
}

/*
 * method=auto: whether workers pay. The first node with work that gives pages is
 * probed with one page, then, unless the choice is already clear (the same at half
 * and twice that page's cost), with its 1% (PROBE_MIN to PROBE_MAX pages) in all.
 * Every node is taken to cost the same per page. A fork is timed meanwhile: its
 * child exits on another CPU while the probe writes, so that only the parent's part
 * of it (what the coordinator pays for each worker) stays in the way of the work.
 */
bool probe_run(struct size_job *j)
{
	const struct hp_topology *t = j->t;
	struct auto_node *an = calloc(t->nnodes, sizeof(*an));
	struct auto_estimate e = {0};
	uint64_t t0, fork_us, page_ns = 0, got = 0, us = 0;
	unsigned k = 0;
	pid_t pid;

	fault_at("probe");
	t0 = clock_now_us();
	pid = clock_fork(0);
	if (pid == 0)
		clock_exit(0);
	fork_us = clock_now_us() - t0;
	for (unsigned n = 0; an && n < t->nnodes && !page_ns; n++) {
		const struct hp_cell *c = plan_cell(j->p, n, j->z);
		uint64_t need = c->target > c->current ? c->target - c->current : 0;
		uint64_t full = MIN(MIN(need, MAX(PROBE_MIN, need / 100)), PROBE_MAX);
		uint64_t more_us;

		if (!need || job_out_of_time(j))
			continue;
		got = probe_node(j, n, c->current, 1, &us);
		if (!got)
			continue; /* the node gives nothing: reconcile will say so */
		page_ns = MAX(us * 1000 / got, UINT64_C(1));
		k = auto_nodes(j, page_ns, an);
		if (result_auto_clear(an, k, fork_us) || full <= got ||
		    job_out_of_time(j))
			break;
		got += probe_node(j, n, c->current + got, full - got, &more_us);
		us += more_us;
		page_ns = MAX(us * 1000 / got, UINT64_C(1));
		k = auto_nodes(j, page_ns, an); /* the probed node lacks less now */
	}
	fault_at("estimate");
	if (pid > 0) {
		t0 = clock_now_us();
		while (clock_waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		fork_us += clock_now_us() - t0;
	}
	j->probe_ns = page_ns;
	if (page_ns)
		result_auto_estimate(an, k, fork_us, &e);
	free(an);
	snprintf(j->rep.sr.method_note, sizeof(j->rep.sr.method_note),
		 "auto: serial %llu ms, parallel %llu ms estimated",
		 (unsigned long long)e.serial_us / 1000,
		 (unsigned long long)e.parallel_us / 1000);
	return e.parallel;
}
