/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parallel.c - the parallel path of one page size: raise nr_overcommit_hugepages
 * (its old value noted in the journal first), start the workers, collect them, turn
 * the surplus they hold into pool pages with one global write, put the overcommit
 * value back, let the workers go. And method=auto's probe, which decides whether
 * this pays.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fault.h"
#include "hugetlb.h"
#include "journal.h"
#include "proc.h"
#include "size.h"
#include "stop.h"
#include "worker.h"

struct parallel {
	struct children kids;
	struct worker_job *jobs;
	struct worker_report *reps;
	uint64_t before, raised;
};

/* What each node still lacks (the auto probe may have added some); the workers. */
static unsigned plan_workers(struct size_job *j, struct parallel *pa, uint64_t *deficit,
			     bool *lacking)
{
	unsigned nw = 0;

	*deficit = 0;
	*lacking = false;
	for (unsigned n = 0; n < j->t->nnodes; n++) {
		const struct hp_cell *c = plan_cell(j->p, n, j->z);
		uint64_t have = c->current, need;

		if (c->target <= c->current)
			continue;
		if (size_node_now(j, n, &have))
			have = c->current;
		if (c->target <= have)
			continue;
		*lacking = true;
		if (!c->workers)
			continue; /* a node without CPUs: per-node writes serve it */
		need = c->target - have;
		*deficit += need;
		for (unsigned k = 0; k < c->workers; k++) {
			uint64_t quota = need / c->workers + (k < need % c->workers);
			unsigned on = fault_flag("misplace") ? (n + 1) % j->t->nnodes : n;

			if (!quota)
				continue;
			if (pa) {
				pa->jobs[nw] =
				    (struct worker_job){.node = j->t->nodes[on].id,
							.cpus = j->t->nodes[on].cpus,
							.kb = j->kb,
							.quota = quota,
							.deadline = j->deadline};
			}
			nw++;
		}
	}
	return nw;
}

/* Raise the overcommit by the deficit, with the value to put back noted first. */
static int raise_overcommit(struct size_job *j, struct parallel *pa, uint64_t deficit)
{
	struct hp_global g;
	int rc = fault_at("raise");

	if (!rc)
		rc = hugetlb_global(j->kb, &g);
	if (rc)
		return rc;
	pa->before = g.overcommit;
	pa->raised = MAX(g.overcommit, g.pool.surplus) + deficit;
	j->rep.sr.overcommit_before = g.overcommit;
	rc = journal_save(j->kb, pa->before, pa->raised);
	if (rc)
		return rc;
	rc = hugetlb_set_overcommit(j->kb, pa->raised);
	if (rc)
		journal_clear(j->kb);
	return rc;
}

/* Put the overcommit value back; only then is the journal's note dropped. */
static void restore_overcommit(struct size_job *j, struct parallel *pa)
{
	struct hp_global g;
	int rc = fault_at("restore");

	if (!rc)
		rc = hugetlb_set_overcommit(j->kb, pa->before);
	if (!rc && !hugetlb_global(j->kb, &g) && g.overcommit != pa->before)
		rc = -EIO;
	if (rc) {
		j->rep.sr.restore_failed = true;
		snprintf(j->rep.sr.failure, sizeof(j->rep.sr.failure),
			 "could not put nr_overcommit_hugepages back to %llu: %s",
			 (unsigned long long)pa->before, strerror(-rc));
		return;
	}
	journal_clear(j->kb);
}

/* Turn the surplus the workers hold into pool pages: one global write. */
static int commit(struct size_job *j, uint64_t held)
{
	struct hp_global g;
	int rc = fault_at("commit");

	if (!rc)
		rc = hugetlb_global(j->kb, &g);
	if (!rc && held)
		rc = hugetlb_set_global(j->kb, pool_persistent(&g.pool) +
						   MIN(held, g.pool.surplus));
	return rc;
}

static void spawn_workers(struct size_job *j, struct parallel *pa, unsigned nw)
{
	fault_at("spawn");
	for (unsigned i = 0; i < nw && !size_out_of_time(j); i++) {
		struct spawn sp = {.tag = i,
				   .report = &pa->reps[i],
				   .len = sizeof(pa->reps[i]),
				   .hold = true,
				   .pdeathsig = SIGKILL};

		if (children_spawn(&pa->kids, &sp, worker_main, &pa->jobs[i]) < 0)
			break;
	}
	j->rep.sr.workers = pa->kids.n;
}

static uint64_t collect_workers(struct size_job *j, struct parallel *pa)
{
	struct collect_policy cp = {
	    .tell_at = j->deadline, .sig = SIGUSR1, .kill_after = HP_GRACE_MS};
	uint64_t held = 0;

	fault_at("collect");
	children_collect(&pa->kids, &cp);
	for (unsigned i = 0; i < pa->kids.n; i++) {
		const struct child *c = &pa->kids.c[i];
		const struct worker_report *m = c->report;
		int n = topology_node_index(j->t, pa->jobs[c->tag].node);

		if (!c->reported)
			continue; /* it died: what it held went with it */
		held += m->held;
		j->rep.sr.chunks += m->chunks;
		j->rep.sr.enomem += m->refused;
		if (n >= 0)
			j->notes[n].ms = MAX(j->notes[n].ms, m->ms);
	}
	return held;
}

/* Returns 0, -ENODEV when no node with work can have workers, or -errno when the
 * kernel refuses the path (nothing changed then; the caller goes serial). */
int size_parallel(struct size_job *j)
{
	struct parallel pa = {0};
	uint64_t deficit, held;
	bool lacking;
	unsigned nw = plan_workers(j, NULL, &deficit, &lacking);
	int rc;

	if (!nw)
		return lacking ? -ENODEV : 0; /* nothing left: the probe did it all */
	pa.jobs = calloc(nw, sizeof(*pa.jobs));
	pa.reps = calloc(nw, sizeof(*pa.reps));
	rc = pa.jobs && pa.reps ? 0 : -ENOMEM;
	if (!rc) {
		plan_workers(j, &pa, &deficit, &lacking);
		rc = raise_overcommit(j, &pa, deficit);
	}
	if (!rc) {
		spawn_workers(j, &pa, nw);
		held = collect_workers(j, &pa);
		rc = commit(j, held);
		restore_overcommit(j, &pa);
		fault_at("release");
		/* Workers exit, their reservations end, converted pages stay. */
		children_release(&pa.kids);
		if (rc)
			snprintf(j->rep.sr.failure, sizeof(j->rep.sr.failure),
				 "the commit write failed: %s", strerror(-rc));
		rc = 0;
	}
	children_free(&pa.kids);
	free(pa.jobs);
	free(pa.reps);
	return rc;
}

/*
 * method=auto: is the parallel path worth its fixed cost here? Time a per-node write
 * that changes nothing (the fixed cost of a write), reserve the first pages of every
 * node with an exact per-node write (useful work in any case), time one worker's
 * life (fork, exit, wait), and let result_auto_estimate() compare. doc/threads.md.
 */
#define PROBE_MIN 4
#define PROBE_MAX 32

bool size_auto_parallel(struct size_job *j)
{
	const struct hp_topology *t = j->t;
	struct auto_node *an = calloc(t->nnodes, sizeof(*an));
	struct auto_estimate e = {0};
	unsigned k = 0;
	uint64_t t0, fork_us;
	pid_t pid;

	fault_at("probe");
	for (unsigned n = 0; an && n < t->nnodes; n++) {
		const struct hp_cell *c = plan_cell(j->p, n, j->z);
		uint64_t have = c->current, got, probe, dt, dt0;

		if (c->target <= c->current || size_out_of_time(j))
			continue;
		probe = MIN(MIN(c->target - c->current,
				MAX(PROBE_MIN, (c->target - c->current) / 100)),
			    PROBE_MAX);
		t0 = now_us();
		size_node_write(j, n, c->current, j->deadline);
		dt0 = now_us() - t0;
		t0 = now_us();
		size_node_write(j, n, c->current + probe, j->deadline);
		dt = now_us() - t0;
		size_node_now(j, n, &have);
		got = have > c->current ? have - c->current : 0;
		if (!got)
			continue; /* the node gives nothing: reconcile will say so */
		an[k].page_ns = dt > dt0 ? (dt - dt0) * 1000 / got : 0;
		an[k].rest = c->target > have ? c->target - have : 0;
		an[k].workers = c->workers;
		k++;
	}
	t0 = now_us();
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	fork_us = now_us() - t0;
	if (an)
		result_auto_estimate(an, k, fork_us, &e);
	free(an);
	snprintf(j->rep.sr.method_note, sizeof(j->rep.sr.method_note),
		 "auto: serial %llu ms, parallel %llu ms estimated",
		 (unsigned long long)e.serial_us / 1000,
		 (unsigned long long)e.parallel_us / 1000);
	return e.parallel;
}
