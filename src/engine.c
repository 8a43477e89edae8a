/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.c - carry a plan out on the kernel. Orchestration only: the kernel is
 * hugetlb.h, child processes proc.h, the workers worker.h, the judgement result.h.
 *
 * Writes to nr_hugepages are serialised by the kernel's per-size resize lock, so the
 * parallel path does not write them: it raises nr_overcommit_hugepages and lets
 * worker processes, each pinned to a node's CPUs and bound to it, reserve surplus
 * pages. One global write then turns the surplus into pool pages, the overcommit
 * value is put back (and the journal's note of it removed), the workers let go, and
 * per-node writes trim misplaced pages and top up short nodes. doc/engine.md has
 * the whole path and what each phase leaves behind when a run stops there.
 *
 * Process tree: hugepar -> one coordinator per page size when several sizes have
 * work (a lone size runs in the main process) -> that size's workers.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "fault.h"
#include "hugetlb.h"
#include "journal.h"
#include "proc.h"
#include "stop.h"
#include "worker.h"

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
	struct cell_note *notes; /* per node */
	struct size_report rep;
};

static void note(struct size_job *j, unsigned n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void note(struct size_job *j, unsigned n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(j->notes[n].note, sizeof(j->notes[n].note), fmt, ap);
	va_end(ap);
}

static bool out_of_time(struct size_job *j)
{
	switch (stop_check(j->deadline)) {
	case STOP_SIGNAL:
		j->rep.interrupted = 1;
		return true;
	case STOP_DEADLINE:
		j->rep.timed_out = 1;
		return true;
	case STOP_NONE:
		break;
	}
	return false;
}

static const char *stopped_why(struct size_job *j)
{
	return j->rep.interrupted ? "interrupted" : "deadline reached";
}

/* One node to 'target' with a per-node write, cut short at the deadline. */
static int node_write(struct size_job *j, unsigned n, uint64_t target, uint64_t deadline)
{
	uint64_t t0 = now_ms();
	int rc;

	deadline_arm(deadline);
	rc = hugetlb_set_node(j->t->nodes[n].id, j->kb, target);
	deadline_disarm();
	j->notes[n].ms += now_ms() - t0;
	return rc == -EINTR ? 0 : rc;
}

static int node_now(struct size_job *j, unsigned n, uint64_t *have)
{
	return hugetlb_node_persistent(j->t->nodes[n].id, j->kb, have);
}

/* Per-node writes of the targets, one node after the other: the shrinks (exact
 * mode) or the growth. */
static void run_serial(struct size_job *j, bool shrink)
{
	for (unsigned n = 0; n < j->t->nnodes; n++) {
		const struct hp_cell *c = plan_cell(j->p, n, j->z);
		uint64_t have;
		int rc;

		if (shrink ? c->target >= c->current : c->target <= c->current)
			continue;
		rc = node_now(j, n, &have);
		if (rc) {
			note(j, n, "cannot read the node's pool: %s", strerror(-rc));
			continue;
		}
		if (shrink ? have <= c->target : have >= c->target)
			continue;
		if (out_of_time(j)) {
			note(j, n, "%s", stopped_why(j));
			continue;
		}
		rc = node_write(j, n, c->target, j->deadline);
		if (rc)
			note(j, n, "nr_hugepages write failed: %s", strerror(-rc));
		else if (out_of_time(j))
			note(j, n, "%s", stopped_why(j));
	}
}

/* ---- the parallel path -------------------------------------------------------- */

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
		if (node_now(j, n, &have))
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
				pa->jobs[nw] = (struct worker_job){.node = j->t->nodes[on].id,
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
	for (unsigned i = 0; i < nw && !out_of_time(j); i++) {
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
static int run_parallel(struct size_job *j)
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

/* Trim nodes that got pages meant for others; top up short nodes exactly. */
static void reconcile(struct size_job *j)
{
	const struct hp_topology *t = j->t;
	uint64_t *have = calloc(t->nnodes, sizeof(*have)), now;

	fault_at("reconcile");
	for (unsigned n = 0; have && n < t->nnodes; n++) {
		const struct hp_cell *c = plan_cell(j->p, n, j->z);

		if (node_now(j, n, &have[n])) {
			have[n] = UINT64_MAX;
			continue;
		}
		if (have[n] > c->target && c->target >= c->current) {
			/* Giving back is quick and must happen even past the deadline. */
			node_write(j, n, c->target, now_ms() + 10000);
			j->rep.sr.trimmed += have[n] - c->target;
			if (node_now(j, n, &have[n]))
				have[n] = UINT64_MAX;
		}
	}
	run_serial(j, false);
	for (unsigned n = 0; have && n < t->nnodes; n++)
		if (have[n] != UINT64_MAX && node_now(j, n, &now) == 0 && now > have[n])
			j->rep.sr.topped_up += now - have[n];
	free(have);
}

/*
 * method=auto: is the parallel path worth its fixed cost here? Time a per-node write
 * that changes nothing (the fixed cost of a write), reserve the first pages of every
 * node with an exact per-node write (useful work in any case), time one worker's
 * life (fork, exit, wait), and let result_auto_estimate() compare. doc/threads.md.
 */
#define PROBE_MIN 4
#define PROBE_MAX 32

static bool auto_parallel(struct size_job *j)
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

		if (c->target <= c->current || out_of_time(j))
			continue;
		probe = MIN(MIN(c->target - c->current,
				MAX(PROBE_MIN, (c->target - c->current) / 100)),
			    PROBE_MAX);
		t0 = now_us();
		node_write(j, n, c->current, j->deadline);
		dt0 = now_us() - t0;
		t0 = now_us();
		node_write(j, n, c->current + probe, j->deadline);
		dt = now_us() - t0;
		node_now(j, n, &have);
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

static bool size_grows(const struct hp_plan *p, unsigned z)
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

/* Which way this size goes. */
static enum hp_method choose(struct size_job *j)
{
	char sz[16], why[96];

	format_size_kb(j->kb, sz, sizeof(sz));
	if (!size_grows(j->p, j->z))
		set_method(j, HP_METHOD_SERIAL, "only shrinking: writes are the way");
	else if (j->method == HP_METHOD_SERIAL)
		set_method(j, HP_METHOD_SERIAL, NULL);
	else if (!j->p->parallel[j->z]) {
		snprintf(why, sizeof(why), "%s pages cannot be overcommitted before Linux 6.19",
			 sz);
		set_method(j, HP_METHOD_SERIAL, why);
	} else if (j->method == HP_METHOD_AUTO && !auto_parallel(j))
		set_method(j, HP_METHOD_SERIAL, NULL);
	else
		set_method(j, HP_METHOD_PARALLEL, NULL);
	return j->rep.sr.method;
}

static void size_run(struct size_job *j)
{
	struct hp_global g;
	char sz[16], why[96];
	uint64_t t0 = now_ms();
	int rc;

	format_size_kb(j->kb, sz, sizeof(sz));
	if (hugetlb_global(j->kb, &g) == 0) {
		j->rep.sr.overcommit_before = g.overcommit;
		j->rep.sr.surplus_before = g.pool.surplus;
	}
	/* Exact mode: shrink first, so the memory serves the growth of other sizes. */
	run_serial(j, true);
	if (choose(j) == HP_METHOD_PARALLEL) {
		rc = run_parallel(j);
		if (rc == -ENODEV)
			set_method(j, HP_METHOD_SERIAL, "no node with work has CPUs for workers");
		else if (rc == -EINVAL)
			snprintf(why, sizeof(why), "kernel refuses overcommit of %s pages", sz);
		else if (rc)
			snprintf(why, sizeof(why), "parallel path failed (%s); finished serially",
				 strerror(-rc));
		if (rc && rc != -ENODEV)
			set_method(j, HP_METHOD_SERIAL, why);
	}
	if (j->rep.sr.method == HP_METHOD_PARALLEL)
		reconcile(j);
	else
		run_serial(j, false);
	if (hugetlb_global(j->kb, &g) == 0) {
		j->rep.sr.overcommit_after = g.overcommit;
		j->rep.sr.surplus_after = g.pool.surplus;
	}
	j->rep.sr.ms = now_ms() - t0;
}

/* A coordinator process for one size, when several sizes run at once. */
static void size_main(void *arg, int wfd, int ctl)
{
	struct size_job *j = arg;

	(void)ctl;
	stop_install();
	size_run(j);
	xwrite(wfd, &j->rep, sizeof(j->rep));
	xwrite(wfd, j->notes, j->t->nnodes * sizeof(*j->notes));
	_exit(0);
}

/* ---- the whole run ------------------------------------------------------------ */

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
	uint64_t until = now_ms() + 2000;

	while (now_ms() < until) {
		pid_t pid = waitpid(-1, NULL, WNOHANG);

		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			return; /* ECHILD: none left */
		if (pid == 0) {
			struct timespec ts = {0, 5 * 1000000};

			nanosleep(&ts, NULL);
		}
	}
}

/* Each size with work: in this process when it is the only one, else in a
 * coordinator each, all at once (different sizes have separate kernel locks). */
static void run_sizes(const struct hp_topology *t, const struct hp_plan *p,
		      enum hp_method method, uint64_t deadline, struct cell_note *notes,
		      struct hp_result *res)
{
	struct size_job jobs[HP_MAX_SIZES];
	struct children kids = {0};
	struct collect_policy cp = {.tell_at = deadline + HP_GRACE_MS,
				    .sig = SIGTERM,
				    .kill_after = 5 * HP_GRACE_MS};
	size_t len = sizeof(struct size_report) + t->nnodes * sizeof(*notes);
	unsigned nwork = 0;

	for (unsigned z = 0; z < t->nsizes; z++)
		nwork += size_has_work(p, z);
	if (nwork > 1)
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	for (unsigned z = 0; z < t->nsizes; z++) {
		struct spawn sp = {.tag = z, .len = len, .pdeathsig = SIGTERM};

		jobs[z] = (struct size_job){.t = t,
					    .p = p,
					    .z = z,
					    .kb = t->sizes[z].kb,
					    .method = method,
					    .deadline = deadline,
					    .notes = notes + z * t->nnodes};
		if (!size_has_work(p, z))
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
			child_describe(c, how, sizeof(how));
			snprintf(res->sizes[c->tag].failure, sizeof(res->sizes[c->tag].failure),
				 "its coordinator was %s", how);
		}
		free(c->report);
	}
	children_free(&kids);
}

/* What a dead coordinator left raised, put back (the journal has its note). */
static void recover_sizes(const struct hp_topology *t, struct hp_result *res)
{
	struct journal_fix fix[HP_MAX_SIZES];
	unsigned n = 0;

	journal_recover(fix, HP_MAX_SIZES, &n);
	for (unsigned i = 0; i < n; i++) {
		int z = topology_size_index(t, fix[i].kb);
		struct hp_size_result *sr;

		if (z < 0)
			continue;
		sr = &res->sizes[z];
		if (fix[i].rc) {
			sr->restore_failed = true;
			snprintf(sr->afterwards, sizeof(sr->afterwards),
				 "nr_overcommit_hugepages not put back on a second try either: %s",
				 strerror(-fix[i].rc));
		} else if (!fix[i].changed_since) {
			sr->restore_failed = false;
			snprintf(sr->afterwards, sizeof(sr->afterwards),
				 "nr_overcommit_hugepages put back to %llu afterwards",
				 (unsigned long long)fix[i].before);
		}
	}
}

/* Read back every node's pools. */
static void read_back(const struct hp_topology *t, struct hp_result *res)
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
		if (g.overcommit != t->sizes[z].overcommit && !res->sizes[z].restore_failed) {
			res->sizes[z].restore_failed = true;
			snprintf(res->sizes[z].failure, sizeof(res->sizes[z].failure),
				 "nr_overcommit_hugepages is %llu, was %llu",
				 (unsigned long long)g.overcommit,
				 (unsigned long long)t->sizes[z].overcommit);
		}
	}
}

static int init_result(const struct hp_topology *t, const struct hp_plan *p,
		       struct hp_result *res)
{
	memset(res, 0, sizeof(*res));
	res->started_unix = time(NULL);
	res->started_boot_ms = boottime_ms();
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
			r->surplus_before = r->surplus_after = t->nodes[n].pool[z].surplus;
		}
	return 0;
}

int engine_apply(const struct hp_settings *s, const struct hp_topology *t,
		 const struct hp_plan *p, enum hp_method method, uint64_t deadline,
		 struct hp_result *res)
{
	uint64_t start = now_ms();
	struct cell_note *notes;

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
	run_sizes(t, p, method, deadline, notes, res);
	res->interrupted |= stop_requested();
	recover_sizes(t, res);
	read_back(t, res);
	result_judge(res, p, notes, s->nproblems);
	free(notes);
	res->duration_ms = now_ms() - start;
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
