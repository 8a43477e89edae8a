/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parallel.c - the parallel path of one page size: raise nr_overcommit_hugepages
 * (its old value in a restore note first), start the workers, collect them, turn
 * the surplus they hold into pool pages with one global write, put the overcommit
 * value back, let the workers go. And method=auto's probe, which decides whether
 * this pays.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "adapt.h"
#include "children.h"
#include "clock.h"
#include "control.h"
#include "fault.h"
#include "hugetlb.h"
#include "macros.h"
#include "parallel.h"
#include "restore.h"
#include "stop.h"
#include "sys.h"
#include "worker.h"

/* What each node lacks (the auto probe may have added some), its ceiling, its slots. */
static unsigned plan_slots(struct size_job *j, struct parallel *pa, uint64_t *deficit,
			   bool *lacking)
{
	unsigned slots = 0;

	*deficit = 0;
	*lacking = false;
	for (unsigned n = 0; n < j->t->nnodes; n++) {
		const struct hp_cell *c = plan_cell(j->p, n, j->z);
		uint64_t need = job_node_lack(j, n);

		if (!need)
			continue;
		*lacking = true;
		if (!c->workers)
			continue; /* no CPUs for it: per-node writes serve it */
		*deficit += need;
		if (pa) {
			pa->nodes[n].need = need;
			adapt_init(&pa->nodes[n].ad,
				   (unsigned)MIN(c->workers, pa->nodes[n].need),
				   !j->p->workers_auto);
			if (j->probe_ns)
				pa->nodes[n].ad.one = 1e9 / (double)j->probe_ns;
		}
		/* refining may start workers again after retiring some, and a node
		 * whose rate fell searches again */
		slots += !j->p->workers_auto ? c->workers : NODE_SLOTS(c->workers);
	}
	return slots;
}

/* The memory the coordinator shares with its workers, made before they fork. */
static int share(struct parallel *pa, unsigned nnodes)
{
	pa->memlen =
	    nnodes * sizeof(struct node_work) + pa->cap * sizeof(struct worker_slot);
	pa->mem = mmap(NULL, pa->memlen, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (pa->mem == MAP_FAILED) {
		pa->mem = NULL;
		return -errno;
	}
	pa->sh.work = pa->mem;
	pa->sh.slot = (struct worker_slot *)(pa->sh.work + nnodes);
	for (unsigned n = 0; n < nnodes; n++) {
		struct node_run *nr = &pa->nodes[n];

		pa->sh.work[n].remaining = (int64_t)nr->need;
		pa->sh.work[n].claim = claim_size(nr->need, nr->ad.ceiling);
		if (nr->ad.settled)
			pa->sh.work[n].split = SPLIT * nr->ad.workers;
		nr->cap = NODE_SLOTS(nr->ad.ceiling);
		if (!nr->need)
			continue;
		nr->active = calloc(nr->cap, sizeof(*nr->active));
		nr->mark_held = calloc(nr->cap, sizeof(*nr->mark_held));
		nr->mark_busy = calloc(nr->cap, sizeof(*nr->mark_busy));
		nr->mark_started = calloc(nr->cap, sizeof(*nr->mark_started));
		if (!nr->active || !nr->mark_held || !nr->mark_busy || !nr->mark_started)
			return -ENOMEM;
	}
	return 0;
}

/* Free pages already in the pool count for every reservation before any surplus page
 * is allocated, whatever their node, and a node-bound reservation larger than its
 * nodes' free pages is refused (doc/kernel-notes.md): they would absorb the workers'
 * work. So the coordinator, unbound, reserves them all first, and lets go after the
 * commit. */
static void hold_free(struct size_job *j, struct parallel *pa)
{
	struct hp_global g;
	uint64_t n;

	if (hugetlb_global(j->kb, &g) || g.pool.free <= g.resv)
		return;
	for (n = g.pool.free - g.resv; n && hugetlb_reserve(j->kb, n, &pa->hold); n /= 2)
		; /* another program took some meanwhile: hold what is there */
}

/* Raise the overcommit by the deficit, the value to put back in a restore note first. */
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
	rc = restore_note_write(j->kb, pa->before, pa->raised);
	if (rc)
		return rc;
	rc = hugetlb_set_overcommit(j->kb, pa->raised);
	if (rc)
		restore_note_remove(j->kb);
	return rc;
}

/* Put the overcommit value back; only then is its restore note removed. */
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
	restore_note_remove(j->kb);
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

static void start_workers(struct parallel *pa)
{
	fault_at("spawn");
	for (unsigned n = 0; n < pa->j->t->nnodes; n++) {
		struct node_run *nr = &pa->nodes[n];

		if (!nr->need)
			continue;
		control_set_workers(pa, n, nr->ad.workers);
		control_mark(pa, nr);
		nr->change_ms = nr->mark_ms; /* not warm yet: no claim made */
	}
}

static uint64_t collect_workers(struct parallel *pa)
{
	struct size_job *j = pa->j;
	struct collect_policy cp = {.tell_at = j->deadline,
				    .sig = SIGUSR1,
				    .kill_after = HP_GRACE_MS,
				    .tick = j->p->workers_auto ? control_tick : NULL,
				    .tick_arg = pa,
				    .tick_ms = ADAPT_TICK_MS};
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
		if (n >= 0 && m->bind_err && !j->notes[n].bind_err)
			j->notes[n].bind_err = m->bind_err;
		j->rep.sr.chunks += m->chunks;
		j->rep.sr.enomem += m->refused;
		if (n >= 0)
			j->notes[n].ms = MAX(j->notes[n].ms, m->ms);
	}
	for (unsigned n = 0; n < j->t->nnodes; n++) {
		struct node_run *nr = &pa->nodes[n];
		struct cell_note *cn = &j->notes[n];

		if (!nr->need)
			continue;
		adapt_done(&nr->ad);
		cn->workers_peak = nr->peak;
		cn->workers_started = nr->started;
		cn->workers_settled = nr->ad.workers;
		cn->nrates = nr->ad.nrates;
		memcpy(cn->rates, nr->ad.rates, sizeof(cn->rates));
		snprintf(cn->workers_why, sizeof(cn->workers_why), "%s", nr->ad.why);
	}
	j->rep.sr.workers = pa->kids.n;
	j->rep.sr.workers_peak = pa->peak;
	j->rep.sr.pages_by_workers = held;
	return held;
}

static void parallel_free(struct parallel *pa)
{
	children_free(&pa->kids);
	for (unsigned n = 0; pa->nodes && n < pa->j->t->nnodes; n++) {
		free(pa->nodes[n].active);
		free(pa->nodes[n].mark_held);
		free(pa->nodes[n].mark_busy);
		free(pa->nodes[n].mark_started);
	}
	if (pa->mem)
		munmap(pa->mem, pa->memlen);
	free(pa->nodes);
	free(pa->ends);
	free(pa->jobs);
	free(pa->reps);
}

/* Returns 0, -ENODEV when no node with work can have workers, or -errno when the
 * kernel refuses the path (nothing changed then; the caller goes serial). */
int parallel_run(struct size_job *j)
{
	struct parallel pa = {.j = j};
	uint64_t deficit, held;
	bool lacking;
	int rc;

	pa.cap = plan_slots(j, NULL, &deficit, &lacking);
	if (!pa.cap)
		return lacking ? -ENODEV : 0; /* nothing left: the probe did it all */
	pa.jobs = calloc(pa.cap, sizeof(*pa.jobs));
	pa.reps = calloc(pa.cap, sizeof(*pa.reps));
	pa.nodes = calloc(j->t->nnodes, sizeof(*pa.nodes));
	pa.ends = calloc(j->t->nnodes, sizeof(*pa.ends));
	rc = pa.jobs && pa.reps && pa.nodes && pa.ends ? 0 : -ENOMEM;
	if (!rc) {
		plan_slots(j, &pa, &deficit, &lacking);
		rc = share(&pa, j->t->nnodes);
	}
	if (!rc) {
		hold_free(j, &pa);
		rc = raise_overcommit(j, &pa, deficit);
		if (rc)
			hugetlb_release(&pa.hold);
	}
	if (!rc) {
		start_workers(&pa);
		held = collect_workers(&pa);
		rc = commit(j, held);
		/* Workers exit (on their own CPUs, while the overcommit is put back),
		 * their reservations end, converted pages stay; so do the free pages
		 * the coordinator held. */
		children_let_go(&pa.kids);
		restore_overcommit(j, &pa);
		fault_at("release");
		children_release(&pa.kids);
		hugetlb_release(&pa.hold);
		if (rc) {
			snprintf(j->rep.sr.failure, sizeof(j->rep.sr.failure),
				 "the commit write failed: %s", strerror(-rc));
			/* what they held went with them: the commit kept none */
			j->rep.sr.pages_by_workers = 0;
		}
		rc = 0;
	}
	parallel_free(&pa);
	return rc;
}
