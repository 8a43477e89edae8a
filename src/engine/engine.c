/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.c - carry a plan out on the kernel: every page size at once (a gigantic one
 * that grows by per-node writes before the others), then read back and judge.
 * Orchestration only: a size's work is size.c (serial, reconcile) and parallel.c
 * (workers, commit), the kernel hugetlb.h, child processes children.h, the
 * judgement result.h.
 *
 * Writes to nr_hugepages are serialised by the kernel's per-size resize lock, so the
 * parallel path does not write them: it raises nr_overcommit_hugepages and lets
 * worker processes, each pinned to a node's CPUs and bound to it, reserve surplus
 * pages. One global write then turns the surplus into pool pages, the overcommit
 * value is put back (and its restore note removed), the workers let go, and
 * per-node writes trim misplaced pages and top up short nodes. doc/engine.md has
 * the whole path and what each phase leaves behind when a run stops there.
 *
 * Process tree: hugepar -> one coordinator per page size when several sizes have
 * work at once (a lone size runs in the main process) -> that size's workers. A
 * gigantic size that grows by per-node writes goes before the others, alone.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "children.h"
#include "clock.h"
#include "engine.h"
#include "hugetlb.h"
#include "restore.h"
#include "size.h"
#include "stop.h"
#include "sys.h"

/* When the run began: each size's start is recorded from it. */
static uint64_t run_start;

/* A coordinator process for one size, when several sizes run at once. */
static void size_main(void *arg, int wfd, int ctl)
{
	struct size_job *j = arg;

	/* (the handlers are the main process's; installed again, they would clear a
	 * SIGTERM that came before this line) */
	(void)ctl;
	size_run(j);
	children_write_all(wfd, &j->rep, sizeof(j->rep));
	children_report(wfd, j->notes, j->t->nnodes * sizeof(*j->notes));
	clock_exit(0);
}

static bool size_has_work(const struct hp_plan *p, unsigned z)
{
	for (unsigned n = 0; n < p->nnodes; n++)
		if (plan_cell(p, n, z)->target != plan_cell(p, n, z)->current)
			return true;
	return false;
}

static void take_report(struct hp_result *res, unsigned z, const struct size_report *rep)
{
	res->sizes[z] = rep->sr;
	res->sizes[z].worked = true;
	res->timed_out |= rep->timed_out;
	res->interrupted |= rep->interrupted;
}

/* Workers of a coordinator that died are killed with it (their parent-death signal)
 * and come to this process, a subreaper: wait for them, so that what they held is
 * back with the kernel before the pools are read back. */
static void reap_orphans(void)
{
	uint64_t until = clock_now_ms() + 2000;

	while (clock_now_ms() < until) {
		pid_t pid = clock_waitpid(-1, NULL, WNOHANG);

		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			return; /* ECHILD: none left */
		if (pid == 0)
			clock_sleep_ms(5);
	}
}

/* Whether a size goes before the others, alone: a gigantic size that grows by
 * per-node writes (before 6.19, or when asked), one node after the other. Smaller
 * pages taken beside it use up the free 1 GiB ranges of the nodes it has not
 * reached, and 1G pages are lost. By workers, every node's gigantic pages are
 * looked for at once, and the sizes run together, which was quicker than one after
 * the other. doc/engine.md, "1G pages", has the measures. */
static bool size_goes_first(const struct hp_topology *t, const struct hp_plan *p,
			    enum hp_method method, unsigned z)
{
	return topology_gigantic(t, t->sizes[z].kb) && size_grows(p, z) &&
	       (method == HP_METHOD_SERIAL || !p->parallel[z]);
}

/* One pass over the sizes picked (first or not): each in this process when it is
 * the only one, else in a coordinator each, all at once (different sizes have
 * separate kernel locks), the largest started first: its pages are the scarcest. */
static void run_pass(const struct hp_topology *t, const struct hp_plan *p,
		     enum hp_method method, uint64_t deadline, bool first,
		     struct cell_note *notes, struct hp_result *res)
{
	struct size_job jobs[HP_MAX_SIZES];
	struct children kids = {0};
	struct collect_policy cp = {.tell_at = deadline + HP_GRACE_MS,
				    .sig = SIGTERM,
				    .kill_after = 5 * HP_GRACE_MS};
	size_t len = sizeof(struct size_report) + t->nnodes * sizeof(*notes);
	unsigned nwork = 0;

	for (unsigned z = 0; z < t->nsizes; z++)
		nwork += size_has_work(p, z) && size_goes_first(t, p, method, z) == first;
	if (!nwork)
		return;
	if (nwork > 1)
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	for (unsigned z = t->nsizes; z-- > 0;) {
		/* the main process killed: its coordinators die at once, and their
		 * workers with them (what they held goes back to the kernel), rather
		 * than commit or reserve more for a run that will write no record;
		 * the restore notes say what to put back */
		struct spawn sp = {.tag = z, .len = len, .pdeathsig = SIGKILL};

		jobs[z] = (struct size_job){.t = t,
					    .p = p,
					    .z = z,
					    .kb = t->sizes[z].kb,
					    .method = method,
					    .deadline = deadline,
					    .run_start = run_start,
					    .notes = notes + z * t->nnodes};
		if (!size_has_work(p, z) || size_goes_first(t, p, method, z) != first)
			continue;
		res->sizes[z].worked = true;
		if (nwork == 1) {
			size_run(&jobs[z]);
			take_report(res, z, &jobs[z].rep);
			continue;
		}
		sp.report = malloc(len);
		if (!sp.report || children_spawn(&kids, &sp, size_main, &jobs[z]) < 0) {
			snprintf(res->sizes[z].failure, sizeof(res->sizes[z].failure),
				 "could not start its coordinator");
			free(sp.report);
		}
	}
	children_collect(&kids, &cp);
	children_release(&kids);
	reap_orphans();
	for (unsigned i = 0; i < kids.n; i++) {
		const struct child *c = &kids.c[i];
		char how[64];

		if (c->reported) {
			take_report(res, c->tag, c->report);
			memcpy(notes + c->tag * t->nnodes,
			       (const char *)c->report + sizeof(struct size_report),
			       t->nnodes * sizeof(*notes));
		} else {
			children_describe(c, how, sizeof(how));
			snprintf(res->sizes[c->tag].failure,
				 sizeof(res->sizes[c->tag].failure),
				 "its coordinator was %s", how);
		}
		free(c->report);
	}
	children_free(&kids);
}

/* The sizes that go first, then the others. */
static void run_sizes(const struct hp_topology *t, const struct hp_plan *p,
		      enum hp_method method, uint64_t deadline, struct cell_note *notes,
		      struct hp_result *res)
{
	run_pass(t, p, method, deadline, true, notes, res);
	run_pass(t, p, method, deadline, false, notes, res);
}

/* What a dead coordinator left raised, put back (its restore note says what), and
 * an earlier run's value that could not be put back before the run: expect[z] is the
 * value each size's overcommit must end at. */
static void recover_sizes(const struct hp_topology *t, struct hp_result *res,
			  uint64_t *expect)
{
	struct restore_fix fix[HP_MAX_SIZES];
	unsigned n = 0;

	restore_recover(fix, HP_MAX_SIZES, &n);
	for (unsigned i = 0; i < n; i++) {
		int z = topology_size_index(t, fix[i].kb);
		struct hp_size_result *sr;

		if (z < 0 || fix[i].malformed)
			continue;
		sr = &res->sizes[z];
		if (fix[i].rc) {
			sr->restore_failed = true;
			snprintf(sr->afterwards, sizeof(sr->afterwards),
				 "nr_overcommit_hugepages not put back on a second try "
				 "either: %s",
				 strerror(-fix[i].rc));
		} else if (!fix[i].changed_since) {
			sr->restore_failed = false;
			expect[z] = fix[i].before;
			snprintf(sr->afterwards, sizeof(sr->afterwards),
				 "nr_overcommit_hugepages put back to %llu afterwards",
				 (unsigned long long)fix[i].before);
		}
	}
}

/* Read back every node's pools. */
static void read_back(const struct hp_topology *t, struct hp_result *res,
		      const uint64_t *expect)
{
	for (unsigned n = 0; n < t->nnodes; n++)
		for (unsigned z = 0; z < t->nsizes; z++) {
			struct hp_cell_result *r = &res->cells[n * t->nsizes + z];
			struct hp_pool pl;

			if (hugetlb_node(t->nodes[n].id, t->sizes[z].kb, &pl))
				continue;
			r->achieved = pool_persistent(&pl);
			r->surplus_after = pl.surplus;
		}
	for (unsigned z = 0; z < t->nsizes; z++) {
		struct hp_global g;

		if (!res->sizes[z].worked || hugetlb_global(t->sizes[z].kb, &g))
			continue;
		res->sizes[z].overcommit_before = t->sizes[z].overcommit;
		res->sizes[z].overcommit_after = g.overcommit;
		res->sizes[z].surplus_after = g.pool.surplus;
		if (g.overcommit != expect[z] && !res->sizes[z].restore_failed) {
			res->sizes[z].restore_failed = true;
			snprintf(res->sizes[z].failure, sizeof(res->sizes[z].failure),
				 "nr_overcommit_hugepages is %llu, was %llu",
				 (unsigned long long)g.overcommit,
				 (unsigned long long)expect[z]);
		}
	}
}

/* Before the first page: the vmemmap optimization on where the plan says, and the
 * kernel's count of descriptor pages, to measure what the run gave back. */
static void vmemmap_before(const struct hp_plan *p, struct hp_vmemmap_result *v)
{
	int rc = p->vmemmap.turn_on ? hugetlb_vmemmap(1) : hugetlb_vmemmap(-1);

	v->on = rc == 1;
	v->error = p->vmemmap.turn_on && rc < 0 ? rc : 0;
	v->counted = hugetlb_memmap_pages(&v->memmap_before) == 0;
}

static int init_result(const struct hp_topology *t, const struct hp_plan *p,
		       struct hp_result *res)
{
	memset(res, 0, sizeof(*res));
	res->started_unix = time(NULL);
	res->started_boot_ms = sys_boottime_ms();
	res->nnodes = t->nnodes;
	res->nsizes = t->nsizes;
	res->cells =
	    calloc((size_t)t->nnodes * (t->nsizes ? t->nsizes : 1), sizeof(*res->cells));
	if (!res->cells)
		return -ENOMEM;
	for (unsigned n = 0; n < t->nnodes; n++)
		for (unsigned z = 0; z < t->nsizes; z++) {
			struct hp_cell_result *r = &res->cells[n * t->nsizes + z];

			r->before = r->achieved = plan_cell(p, n, z)->current;
			r->surplus_before = r->surplus_after =
			    t->nodes[n].pool[z].surplus;
		}
	return 0;
}

int engine_apply(const struct hp_settings *s, const struct hp_topology *t,
		 const struct hp_plan *p, enum hp_method method, uint64_t deadline,
		 struct hp_result *res)
{
	uint64_t start = clock_now_ms(), expect[HP_MAX_SIZES];
	struct cell_note *notes;

	run_start = start;
	if (init_result(t, p, res)) {
		res->status = HP_STATUS_FAILED;
		snprintf(res->error, sizeof(res->error), "out of memory");
		return -ENOMEM;
	}
	if (!s->enabled) {
		res->status = HP_STATUS_DISABLED;
		return 0;
	}
	if (!t->hugetlb) {
		res->status = HP_STATUS_FAILED;
		snprintf(res->error, sizeof(res->error),
			 "the kernel offers no huge pages (built without hugetlb?)");
		return -ENOSYS;
	}
	notes = calloc((size_t)t->nnodes * HP_MAX_SIZES, sizeof(*notes));
	if (!notes) {
		res->status = HP_STATUS_FAILED;
		snprintf(res->error, sizeof(res->error), "out of memory");
		return -ENOMEM;
	}
	vmemmap_before(p, &res->vmemmap);
	run_sizes(t, p, method, deadline, notes, res);
	res->interrupted |= stop_requested();
	for (unsigned z = 0; z < t->nsizes; z++)
		expect[z] = t->sizes[z].overcommit;
	recover_sizes(t, res, expect);
	read_back(t, res, expect);
	if (res->vmemmap.counted &&
	    hugetlb_memmap_pages(&res->vmemmap.memmap_after))
		res->vmemmap.counted = false;
	result_judge(res, p, notes, s->nproblems);
	free(notes);
	res->duration_ms = clock_now_ms() - start;
	for (unsigned z = 0; z < t->nsizes && !res->error[0]; z++)
		if (res->sizes[z].restore_failed)
			snprintf(res->error, sizeof(res->error), "%s",
				 res->sizes[z].failure);
	if (res->error[0])
		return 0;
	if (res->timed_out)
		snprintf(res->error, sizeof(res->error), "deadline of %llu ms reached",
			 (unsigned long long)s->timeout_ms);
	else if (res->interrupted)
		snprintf(res->error, sizeof(res->error), "interrupted by a signal");
	return 0;
}

void engine_result_free(struct hp_result *res)
{
	free(res->cells);
	res->cells = NULL;
}
