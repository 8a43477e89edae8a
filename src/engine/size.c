/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * size.c - one page size's work, in the order it is done: shrink (exact mode) with
 * per-node writes, choose serial or parallel, grow, reconcile. The parallel path
 * itself is parallel.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "clock.h"
#include "fault.h"
#include "hugetlb.h"
#include "parallel.h"
#include "macros.h"
#include "parse.h"
#include "probe.h"
#include "size.h"
#include "stop.h"
#include "sys.h"

/* After a node's shrink: pages the kernel could not free but kept as surplus, free
 * (Linux 6.1, an optimized page without memory on its node to rebuild its
 * descriptors: doc/kernel-notes.md), become pool pages again, as they were: a write
 * of the node's count does it, allocating nothing. Pages in use that the shrink made
 * surplus are not free: they stay so, and go when they are freed. The free surplus
 * is at least the free pages beyond the persistent ones. */
static void shrink_kept(struct size_job *j, unsigned n)
{
	uint64_t before = j->t->nodes[n].pool[j->z].surplus, kept;
	struct hp_pool p;

	if (hugetlb_node(j->t->nodes[n].id, j->kb, &p) || p.surplus <= before ||
	    p.free <= pool_persistent(&p))
		return;
	kept = MIN(p.surplus - before, p.free - pool_persistent(&p));
	if (hugetlb_set_node(j->t->nodes[n].id, j->kb, pool_persistent(&p) + kept) == 0)
		job_note(j, n, "the kernel kept %llu pages it could not free (no memory "
			       "on the node to rebuild their page descriptors): left in the pool",
			 (unsigned long long)kept);
}

/* Per-node writes of the targets, one node after the other: the shrinks (exact
 * mode) or the growth. have: each node's persistent count, where the caller has just
 * read it (UINT64_MAX where it could not), kept true after each write; NULL: each
 * node is read here. Returns the pages the writes added to nodes whose count the
 * caller knew. */
static uint64_t run_serial(struct size_job *j, bool shrink, uint64_t *have)
{
	uint64_t added = 0;

	for (unsigned n = 0; n < j->t->nnodes; n++) {
		const struct hp_cell *c = plan_cell(j->p, n, j->z);
		bool known = have && have[n] != UINT64_MAX;
		uint64_t now;
		int rc = 0;

		if (shrink ? c->target >= c->current : c->target <= c->current)
			continue;
		if (known)
			now = have[n];
		else
			rc = job_node_now(j, n, &now);
		if (rc) {
			job_note(j, n, "cannot read the node's pool: %s", strerror(-rc));
			continue;
		}
		if (shrink ? now <= c->target : now >= c->target)
			continue;
		if (job_out_of_time(j)) {
			job_note_stopped(j, n);
			continue;
		}
		rc = job_node_write(j, n, c->target, j->deadline);
		if (!rc && shrink)
			shrink_kept(j, n);
		if (rc)
			job_note(j, n, "nr_hugepages write failed: %s", strerror(-rc));
		else if (job_out_of_time(j))
			job_note_stopped(j, n);
		if (!have)
			continue;
		if (job_node_now(j, n, &have[n]))
			have[n] = UINT64_MAX;
		else if (known && have[n] > now)
			added += have[n] - now;
	}
	return added;
}

/* Trim nodes that got pages meant for others; top up short nodes exactly. Each node
 * is read once, and again only where it was written: have (per node) ends with their
 * counts, UINT64_MAX where a node could not be read. */
static void reconcile(struct size_job *j, uint64_t *have)
{
	const struct hp_topology *t = j->t;

	fault_at("reconcile");
	for (unsigned n = 0; n < t->nnodes; n++) {
		const struct hp_cell *c = plan_cell(j->p, n, j->z);

		if (job_node_now(j, n, &have[n])) {
			have[n] = UINT64_MAX;
			continue;
		}
		if (have[n] > c->target && c->target >= c->current) {
			/* Giving back is quick and must happen even past the deadline. */
			job_node_write(j, n, c->target, clock_now_ms() + 10000);
			j->rep.sr.trimmed += have[n] - c->target;
			if (job_node_now(j, n, &have[n]))
				have[n] = UINT64_MAX;
		}
	}
	j->rep.sr.topped_up += run_serial(j, false, have);
}

bool size_grows(const struct hp_plan *p, unsigned z)
{
	for (unsigned n = 0; n < p->nnodes; n++)
		if (plan_cell(p, n, z)->target > plan_cell(p, n, z)->current)
			return true;
	return false;
}

static void set_method(struct size_job *j, enum hp_method m, const char *why)
{
	j->rep.sr.method = m;
	if (why)
		snprintf(j->rep.sr.method_note, sizeof(j->rep.sr.method_note), "%s", why);
}

/* Workers that could reserve pages of this size at once: on each node that grows, its
 * workers or its pages to go, whichever is fewer. */
static uint64_t workers_at_once(const struct size_job *j)
{
	uint64_t k = 0;

	for (unsigned n = 0; n < j->t->nnodes; n++) {
		const struct hp_cell *c = plan_cell(j->p, n, j->z);

		if (c->target > c->current)
			k += MIN((uint64_t)c->workers, c->target - c->current);
	}
	return k;
}

/* The auto probe (a fork timed, a write that changes nothing, a page) keeps every
 * other CPU waiting for about two of the coordinator's forks and a page. Where the
 * parallel path would start two workers, one on each of two nodes (each node's count
 * settled from the start: nothing to measure), the probe costs what going parallel
 * could lose at worst: the second fork. */
static bool probe_pays(const struct size_job *j)
{
	unsigned nodes = 0;

	for (unsigned n = 0; n < j->t->nnodes; n++) {
		const struct hp_cell *c = plan_cell(j->p, n, j->z);

		if (c->target <= c->current || !c->workers)
			continue;
		if (c->workers > 1)
			return true;
		nodes++;
	}
	return nodes != 2;
}

/* Which way this size goes. */
static enum hp_method choose(struct size_job *j)
{
	char sz[16], why[96];

	text_size_kb(j->kb, sz, sizeof(sz));
	if (!size_grows(j->p, j->z))
		set_method(j, HP_METHOD_SERIAL, "only shrinking: writes are the way");
	else if (j->method == HP_METHOD_SERIAL)
		set_method(j, HP_METHOD_SERIAL, "--method=serial was asked");
	else if (!j->p->parallel[j->z]) {
		snprintf(why, sizeof(why),
			 "%s pages cannot be overcommitted before Linux 6.19", sz);
		set_method(j, HP_METHOD_SERIAL, why);
	} else if (j->method == HP_METHOD_AUTO && j->p->vmemmap.on &&
		   j->p->vmemmap.saving_kb[j->z] && !topology_gigantic(j->t, j->kb) &&
		   vmemmap_rcu_per_page(j->t->release)) {
		/* From Linux 6.10 to 7.0 the kernel optimizes a write's pages together,
		 * behind one RCU grace period, and a worker's pages one by one, a grace
		 * period each: 8 ms a page against 20 us on a 6.18 VM, 571 times the
		 * page's cost on 6.12 (doc/kernel-notes.md). */
		set_method(j, HP_METHOD_SERIAL,
			   "auto: vmemmap optimization on: a write optimizes pages "
			   "together, a worker one by one");
	} else if (j->method == HP_METHOD_AUTO && topology_gigantic(j->t, j->kb) &&
		   workers_at_once(j) >= 2) {
		/* A gigantic page is a contiguous range the allocator must find and
		 * isolate, far dearer than a fork (doc/threads.md has the measures).
		 * Where two workers or more can take pages at once, they pay, and a
		 * probe would keep them all waiting for its one page. */
		snprintf(why, sizeof(why),
			 "auto: %s pages, %llu workers at once: no probe", sz,
			 (unsigned long long)workers_at_once(j));
		set_method(j, HP_METHOD_PARALLEL, why);
	} else if (j->method == HP_METHOD_AUTO && !probe_pays(j)) {
		set_method(j, HP_METHOD_PARALLEL,
			   "auto: a worker on each of two nodes: no probe");
	} else if (j->method == HP_METHOD_AUTO && !probe_run(j))
		set_method(j, HP_METHOD_SERIAL, NULL);
	else
		set_method(j, HP_METHOD_PARALLEL, NULL);
	return j->rep.sr.method;
}

/* The record says which method did the work: when per-node writes (the probe's,
 * the top-up's) did most of it, the size was done serially, whatever was tried. */
static void method_by_work(struct size_job *j, const uint64_t *have)
{
	uint64_t gained = 0;

	for (unsigned n = 0; n < j->t->nnodes; n++) {
		const struct hp_cell *c = plan_cell(j->p, n, j->z);

		if (have[n] != UINT64_MAX && have[n] > c->current)
			gained += have[n] - c->current;
	}
	if (!gained || j->rep.sr.pages_by_workers * 2 >= gained)
		return;
	snprintf(j->rep.sr.method_note, sizeof(j->rep.sr.method_note),
		 "workers reserved %llu of %llu pages; per-node writes did the rest",
		 (unsigned long long)j->rep.sr.pages_by_workers,
		 (unsigned long long)gained);
	j->rep.sr.method = HP_METHOD_SERIAL;
}

void size_run(struct size_job *j)
{
	struct hp_global g;
	char sz[16], why[96];
	uint64_t t0 = clock_now_ms();
	int rc;

	j->rep.sr.start_ms = t0 > j->run_start ? t0 - j->run_start : 0;
	text_size_kb(j->kb, sz, sizeof(sz));
	if (hugetlb_global(j->kb, &g) == 0) {
		j->rep.sr.overcommit_before = g.overcommit;
		j->rep.sr.surplus_before = g.pool.surplus;
	}
	/* Exact mode: shrink first, so the memory serves the growth of other sizes. */
	run_serial(j, true, NULL);
	if (choose(j) == HP_METHOD_PARALLEL) {
		rc = parallel_run(j);
		if (rc == -ENODEV)
			set_method(j, HP_METHOD_SERIAL,
				   "no node with work has CPUs for workers");
		else if (rc == -EINVAL)
			snprintf(why, sizeof(why),
				 "kernel refuses overcommit of %s pages", sz);
		else if (rc == -EEXIST)
			snprintf(why, sizeof(why),
				 "an earlier run's restore note is kept: per-node "
				 "writes");
		else if (rc)
			snprintf(why, sizeof(why),
				 "parallel path failed (%s); finished serially",
				 strerror(-rc));
		if (rc && rc != -ENODEV)
			set_method(j, HP_METHOD_SERIAL, why);
	}
	if (j->rep.sr.method == HP_METHOD_PARALLEL) {
		uint64_t *have = calloc(j->t->nnodes, sizeof(*have));

		if (have) {
			reconcile(j, have);
			method_by_work(j, have);
		} else {
			run_serial(j, false, NULL);
		}
		free(have);
	} else {
		run_serial(j, false, NULL);
	}
	if (hugetlb_global(j->kb, &g) == 0) {
		j->rep.sr.overcommit_after = g.overcommit;
		j->rep.sr.surplus_after = g.pool.surplus;
	}
	j->rep.sr.ms = clock_now_ms() - t0;
}
