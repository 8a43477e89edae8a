/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * size.c - unit tests: one size's work in its order over the simulated kernel: shrink
 * (exact mode), choose the method and say why, grow, reconcile nodes that got pages
 * meant for others; the deadline, a stop, writes and reads that fail.
 */
#include <signal.h>

#include "fixture.h"
#include "size.h"
#include "stop.h"

static struct fixture fx;

/* Two nodes of 4 CPUs and 8 GiB on a kernel release; node1: node 1's line. */
static void machine(const char *release, const char *node1)
{
	char rel[32];
	const char *lines[] = {"sizes 2048 1048576", rel,
			       "node 0 cpus 0-3 mem 8G free 7G",
			       node1 ? node1 : "node 1 cpus 4-7 mem 8G free 7G", NULL};

	snprintf(rel, sizeof(rel), "release %s", release);
	CHECK(fixture_make(&fx, lines) == 0);
}

/* A job of size kb from settings lines, run. */
static void run(const char *const *settings, uint64_t kb, enum hp_method m)
{
	CHECK(fixture_job(&fx, settings, kb, m) == 0);
	size_run(&fx.j);
}

static bool note(const char *want)
{
	if (strcmp(fx.j.rep.sr.method_note, want))
		fprintf(stderr, "  method_note \"%s\"\n", fx.j.rep.sr.method_note);
	return strcmp(fx.j.rep.sr.method_note, want) == 0;
}

static bool pools(uint64_t kb, uint64_t n0, uint64_t n1)
{
	return fixture_pages(0, kb) == n0 && fixture_pages(1, kb) == n1 &&
	       fixture_pool(0, kb).surplus == 0 && fixture_pool(1, kb).surplus == 0;
}

UNIT_TEST(grows, "a size grows when a node's target is above its pool")
{
	struct hp_cell cells[4] = {{.current = 5, .target = 5},
				   {.current = 0, .target = 0},
				   {.current = 9, .target = 3},
				   {.current = 0, .target = 0}};
	struct hp_plan p = {.nnodes = 2, .nsizes = 2, .cells = cells};

	CHECK(!size_grows(&p, 0) && !size_grows(&p, 1));
	cells[3].target = 1;
	CHECK(!size_grows(&p, 0) && size_grows(&p, 1));
}

/* Per-node writes, one node after the other; nothing of the parallel path. */
UNIT_TEST(serial, "per-node writes, one node after another, nothing of the parallel path")
{
	static const char *const s[] = {"pages = 2M:100", NULL};
	const struct hp_size_result *sr = &fx.j.rep.sr;

	machine("6.12.0", NULL);
	run(s, 2048, HP_METHOD_SERIAL);
	CHECK(pools(2048, 100, 100));
	CHECK(sr->method == HP_METHOD_SERIAL && note("--method=serial was asked"));
	CHECK(sr->workers == 0 && sr->pages_by_workers == 0 && sr->trimmed == 0 &&
	      sr->topped_up == 0 && sr->overcommit_before == 0 &&
	      sr->overcommit_after == 0);
	CHECK(!fx.j.rep.timed_out && !fx.j.rep.interrupted);
	CHECK(fx.j.notes[0].note[0] == '\0' && fx.j.notes[1].note[0] == '\0');
	fixture_remove(&fx);
}

/* Exact mode shrinks first, with writes, whatever the method asked. */
UNIT_TEST(shrink, "exact mode shrinks with writes, whatever method was asked")
{
	static const char *const s[] = {"mode = exact", "pages = 2M:100@1", NULL};

	machine("6.12.0", "node 1 cpus 4-7 mem 8G free 7G pool 2048:300");
	run(s, 2048, HP_METHOD_PARALLEL);
	CHECK(pools(2048, 0, 100));
	CHECK(fx.j.rep.sr.method == HP_METHOD_SERIAL &&
	      note("only shrinking: writes are the way"));
	fixture_remove(&fx);
}

/* One node shrinks, then a worker grows the other. */
UNIT_TEST(shrink_grow, "one node shrinks, then a worker grows the other")
{
	static const char *const s[] = {"mode = exact", "pages = 2M:100", "threads = 1",
					NULL};

	machine("6.12.0", "node 1 cpus 4-7 mem 8G free 7G pool 2048:300");
	run(s, 2048, HP_METHOD_PARALLEL);
	CHECK(pools(2048, 100, 100));
	CHECK(fx.j.rep.sr.method == HP_METHOD_PARALLEL && fx.j.rep.sr.workers == 1 &&
	      fx.j.rep.sr.pages_by_workers == 100);
	fixture_remove(&fx);
}

/* The parallel path, and the reconcile after it: nothing to do when every worker's
 * pages landed on its node. */
UNIT_TEST(parallel, "the parallel path, and a reconcile with nothing to do")
{
	static const char *const s[] = {"pages = 2M:100", "threads = 2", NULL};
	const struct hp_size_result *sr = &fx.j.rep.sr;

	machine("6.12.0", NULL);
	run(s, 2048, HP_METHOD_PARALLEL);
	CHECK(pools(2048, 100, 100));
	CHECK(sr->method == HP_METHOD_PARALLEL && note("") && sr->workers == 2 &&
	      sr->pages_by_workers == 200 && sr->trimmed == 0 && sr->topped_up == 0);
	CHECK(sr->overcommit_after == 0 && sr->surplus_after == 0 && !sr->restore_failed);
	CHECK(fx.j.notes[0].workers_peak == 1 && fx.j.notes[1].workers_settled == 1);
	fixture_remove(&fx);
}

/* With the workers on each other's nodes (the seam's misplace), node 1 gets node 0's
 * 100 and node 0 node 1's 50: the reconcile trims 50 from node 1 and tops node 0 up
 * by 50. */
UNIT_TEST(misplaced, "workers on each other's nodes: the reconcile trims and tops up")
{
	static const char *const s[] = {"pages = 2M:100@0 2M:50@1", "threads = 2", NULL};
	const struct hp_size_result *sr = &fx.j.rep.sr;

	setenv("HUGEPAR_FAULT", "misplace", 1);
	machine("6.12.0", NULL);
	run(s, 2048, HP_METHOD_PARALLEL);
	CHECK(pools(2048, 100, 50));
	CHECK(sr->method == HP_METHOD_PARALLEL && sr->pages_by_workers == 150 &&
	      sr->trimmed == 50 && sr->topped_up == 50);
	fixture_remove(&fx);
}

/* Gigantic pages before Linux 6.19 go serial, and the note says why. */
UNIT_TEST(gigantic, "gigantic pages before Linux 6.19 go serial, and the note says why")
{
	static const char *const s[] = {"pages = 1G:2", "threads = 2", NULL};

	machine("6.12.0", NULL);
	run(s, 1048576, HP_METHOD_PARALLEL);
	CHECK(pools(1048576, 2, 2) && fx.j.rep.sr.method == HP_METHOD_SERIAL &&
	      note("1G pages cannot be overcommitted before Linux 6.19"));
	fixture_remove(&fx);
}

/* method=auto without a probe: gigantic pages and two workers at once... */
UNIT_TEST(auto_gigantic,
	  "auto, gigantic pages and two workers at once: parallel, no probe")
{
	static const char *const s[] = {"pages = 1G:2", "threads = 2", NULL};

	machine("6.19.0", NULL);
	run(s, 1048576, HP_METHOD_AUTO);
	CHECK(pools(1048576, 2, 2) && fx.j.rep.sr.method == HP_METHOD_PARALLEL &&
	      note("auto: 1G pages, 2 workers at once: no probe") &&
	      fx.j.rep.sr.pages_by_workers == 4);
	fixture_remove(&fx);
}

/* ...or a worker on each of two nodes. */
UNIT_TEST(auto_two, "auto, a worker on each of two nodes: parallel, no probe")
{
	static const char *const s[] = {"pages = 2M:100", "threads = 2", NULL};

	machine("6.12.0", NULL);
	run(s, 2048, HP_METHOD_AUTO);
	CHECK(pools(2048, 100, 100) && fx.j.rep.sr.method == HP_METHOD_PARALLEL &&
	      note("auto: a worker on each of two nodes: no probe"));
	fixture_remove(&fx);
}

/* The kernel refuses what the plan expected (gigantic overcommit): per-node writes
 * do it all, and the note says why. */
UNIT_TEST(refused, "the kernel refuses gigantic overcommit: per-node writes do it all")
{
	static const char *const s[] = {"pages = 1G:2", "threads = 2", NULL};

	machine("6.12.0", NULL);
	CHECK(fixture_job(&fx, s, 1048576, HP_METHOD_PARALLEL) == 0);
	fx.p.parallel[1] = true; /* as if the kernel were new enough */
	plan_cell(&fx.p, 0, 1)->workers = plan_cell(&fx.p, 1, 1)->workers = 1;
	size_run(&fx.j);
	CHECK(pools(1048576, 2, 2) && fx.j.rep.sr.method == HP_METHOD_SERIAL &&
	      note("kernel refuses overcommit of 1G pages"));
	CHECK(fx.j.rep.sr.overcommit_after == 0 && fx.j.rep.sr.workers == 0);
	fixture_remove(&fx);
}

/* No node with work has CPUs for workers. */
UNIT_TEST(no_cpus, "no node with work has CPUs: per-node writes, and the note says so")
{
	static const char *const s[] = {"pages = 2M:100", "threads = 2", NULL};

	machine("6.12.0", NULL);
	CHECK(fixture_job(&fx, s, 2048, HP_METHOD_PARALLEL) == 0);
	plan_cell(&fx.p, 0, 0)->workers = plan_cell(&fx.p, 1, 0)->workers = 0;
	size_run(&fx.j);
	CHECK(pools(2048, 100, 100) && fx.j.rep.sr.method == HP_METHOD_SERIAL &&
	      note("no node with work has CPUs for workers"));
	fixture_remove(&fx);
}

/* Past the deadline no node is written, and each says why, on either path. */
static void deadline_past(enum hp_method m)
{
	static const char *const s[] = {"pages = 2M:100", "threads = 2", NULL};

	machine("6.12.0", NULL);
	CHECK(fixture_job(&fx, s, 2048, m) == 0);
	fx.j.deadline = 0;
	size_run(&fx.j);
	CHECK(pools(2048, 0, 0) && fx.j.rep.timed_out && !fx.j.rep.interrupted);
	CHECK(strcmp(fx.j.notes[0].note, "deadline reached") == 0 &&
	      strcmp(fx.j.notes[1].note, "deadline reached") == 0);
	CHECK(fx.j.rep.sr.overcommit_after == 0 && fx.j.rep.sr.pages_by_workers == 0);
	fixture_remove(&fx);
}

UNIT_TEST(deadline_serial, "past the deadline no node is written on the serial path")
{
	deadline_past(HP_METHOD_SERIAL);
}

UNIT_TEST(deadline_parallel, "past the deadline no node is written on the parallel path")
{
	deadline_past(HP_METHOD_PARALLEL);
}

/* A stop request, as the deadline. */
UNIT_TEST(stop, "a stop request ends the size as the deadline does")
{
	static const char *const s[] = {"pages = 2M:100", NULL};

	machine("6.12.0", NULL);
	CHECK(fixture_job(&fx, s, 2048, HP_METHOD_SERIAL) == 0);
	stop_install();
	raise(SIGTERM);
	size_run(&fx.j);
	CHECK(pools(2048, 0, 0) && fx.j.rep.interrupted && !fx.j.rep.timed_out);
	CHECK(strcmp(fx.j.notes[0].note, "interrupted") == 0);
	fixture_remove(&fx);
}

/* A node that cannot be read is left, and named; a failed write is named. */
UNIT_TEST(unreadable, "a node whose pool cannot be read is left, and named")
{
	static const char *const s[] = {"pages = 2M:100", NULL};

	machine("6.12.0", NULL);
	CHECK(fixture_job(&fx, s, 2048, HP_METHOD_SERIAL) == 0);
	fx.t.nodes[1].id = 7;
	size_run(&fx.j);
	fx.t.nodes[1].id = 1;
	CHECK(pools(2048, 100, 0));
	CHECK(fx.j.notes[0].note[0] == '\0' &&
	      strcmp(fx.j.notes[1].note,
		     "cannot read the node's pool: No such file or directory") == 0);
	fixture_remove(&fx);
}

UNIT_TEST(write_fails, "a failed node write is named, and the other node still done")
{
	static const char *const s[] = {"pages = 2M:100", NULL};

	setenv("HUGEPAR_FAULT", "write-node:2=EIO", 1);
	machine("6.12.0", NULL);
	run(s, 2048, HP_METHOD_SERIAL);
	CHECK(pools(2048, 100, 0));
	CHECK(fx.j.notes[0].note[0] == '\0' &&
	      strcmp(fx.j.notes[1].note,
		     unit_errtext("nr_hugepages write failed: ", EIO)) == 0);
	fixture_remove(&fx);
}

/* The commit fails: the workers' pages go with them, per-node writes do it all, and
 * the size is said to be done serially. */
UNIT_TEST(commit_fails, "a failed commit: per-node writes do it all, said to be serial")
{
	static const char *const s[] = {"pages = 2M:100", "threads = 2", NULL};
	const struct hp_size_result *sr = &fx.j.rep.sr;

	setenv("HUGEPAR_FAULT", "commit=EIO", 1);
	machine("6.12.0", NULL);
	run(s, 2048, HP_METHOD_PARALLEL);
	CHECK(pools(2048, 100, 100) && sr->topped_up == 200 && sr->pages_by_workers == 0);
	CHECK(sr->method == HP_METHOD_SERIAL &&
	      note("workers reserved 0 of 200 pages; per-node writes did the rest"));
	CHECK(strcmp(sr->failure, unit_errtext("the commit write failed: ", EIO)) == 0);
	fixture_remove(&fx);
}
