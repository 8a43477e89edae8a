/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parallel.c - unit tests: the parallel path of one size (parallel_run()) over the
 * simulated kernel: the overcommit raised with a restore note and put back, the
 * workers, the commit, the pool's free pages held meanwhile; what it does when the
 * kernel refuses, when no node can have workers, when nothing is left, past the
 * deadline, when the commit or the restore fails, when workers die.
 */
#include <dirent.h>

#include "fixture.h"
#include "parallel.h"

static struct fixture fx;

/* Two nodes of 4 CPUs and 8 GiB; node1: node 1's line (NULL: no pool). */
static void machine(const char *release, const char *node1, const char *sim)
{
	char rel[32];
	const char *lines[] = {"sizes 2048 1048576",
			       rel,
			       "node 0 cpus 0-3 mem 8G free 7G",
			       node1 ? node1 : "node 1 cpus 4-7 mem 8G free 7G",
			       sim ? sim : "# no rate",
			       NULL};

	snprintf(rel, sizeof(rel), "release %s", release);
	CHECK(fixture_make(&fx, lines) == 0);
}

static void job(const char *const *settings, uint64_t kb)
{
	CHECK(fixture_job(&fx, settings, kb, HP_METHOD_PARALLEL) == 0);
}

/* The files the run left in its state directory (restore notes). */
static unsigned notes_left(void)
{
	char p[160];
	unsigned n = 0;
	struct dirent *de;
	DIR *d;

	snprintf(p, sizeof(p), "%s/run/hugepar", fx.root);
	d = opendir(p);
	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static uint64_t overcommit(uint64_t kb)
{
	struct hp_global g;

	return hugetlb_global(kb, &g) ? UINT64_MAX : g.overcommit;
}

static bool pools(uint64_t kb, uint64_t n0, uint64_t n1)
{
	return fixture_pages(0, kb) == n0 && fixture_pages(1, kb) == n1 &&
	       fixture_pool(0, kb).surplus == 0 && fixture_pool(1, kb).surplus == 0;
}

static const char *const two_workers[] = {"pages = 2M:100", "threads = 2", NULL};

/* The whole path: raised, reserved, committed, put back, the note gone. */
UNIT_TEST(commit, "the whole path: raised, reserved, committed, put back, note gone")
{
	const struct hp_size_result *sr = &fx.j.rep.sr;

	machine("6.12.0", NULL, NULL);
	job(two_workers, 2048);
	CHECK(parallel_run(&fx.j) == 0);
	CHECK(pools(2048, 100, 100) && overcommit(2048) == 0 && notes_left() == 0);
	CHECK(sr->workers == 2 && sr->pages_by_workers == 200 && sr->enomem == 0 &&
	      sr->chunks >= 2 && sr->overcommit_before == 0 && !sr->restore_failed &&
	      sr->failure[0] == '\0');
	CHECK(fx.j.notes[0].workers_peak == 1 && fx.j.notes[1].workers_peak == 1);
	fixture_remove(&fx);
}

/* The pool's free pages (150 on node 0) would absorb the workers' reservations:
 * the coordinator holds them meanwhile, and lets them go after. */
UNIT_TEST(free_pages,
	  "free pool pages are held while workers work, so workers do the growth")
{
	static const char *const s[] = {"pages = 2M:250", "threads = 2", NULL};
	struct hp_global g;

	machine("6.12.0", "node 1 cpus 4-7 mem 8G free 7G pool 2048:150", NULL);
	job(s, 2048);
	CHECK(parallel_run(&fx.j) == 0);
	CHECK(pools(2048, 250, 250) && fx.j.rep.sr.pages_by_workers == 350);
	CHECK(hugetlb_global(2048, &g) == 0 && g.resv == 0 && g.pool.free == 500);
	fixture_remove(&fx);
}

/* The kernel refuses the overcommit: nothing changed, no note left. */
UNIT_TEST(refused, "the kernel refuses the overcommit: nothing changed, no note left")
{
	static const char *const s[] = {"pages = 1G:2", "threads = 2", NULL};

	machine("6.12.0", NULL, NULL);
	job(s, 1048576);
	fx.p.parallel[1] = true;
	plan_cell(&fx.p, 0, 1)->workers = plan_cell(&fx.p, 1, 1)->workers = 1;
	CHECK(parallel_run(&fx.j) == -EINVAL);
	CHECK(pools(1048576, 0, 0) && overcommit(1048576) == 0 && notes_left() == 0);
	CHECK(fx.j.rep.sr.workers == 0);
	fixture_remove(&fx);
}

/* No node with work has CPUs (-ENODEV); nothing left to do (0); nothing raised. */
UNIT_TEST(no_work, "no node with CPUs, or nothing left to do: nothing is raised")
{
	machine("6.12.0", NULL, NULL);
	job(two_workers, 2048);
	plan_cell(&fx.p, 0, 0)->workers = plan_cell(&fx.p, 1, 0)->workers = 0;
	CHECK(parallel_run(&fx.j) == -ENODEV);
	CHECK(pools(2048, 0, 0) && overcommit(2048) == 0 && notes_left() == 0);
	plan_cell(&fx.p, 0, 0)->workers = plan_cell(&fx.p, 1, 0)->workers = 1;
	CHECK(hugetlb_set_node(0, 2048, 100) == 0 && hugetlb_set_node(1, 2048, 120) == 0);
	CHECK(parallel_run(&fx.j) == 0);
	CHECK(pools(2048, 100, 120) && fx.j.rep.sr.workers == 0 && notes_left() == 0);
	fixture_remove(&fx);
}

/* Past the deadline no worker starts; the overcommit is put back. */
UNIT_TEST(deadline, "past the deadline no worker starts, and the overcommit is put back")
{
	machine("6.12.0", NULL, NULL);
	job(two_workers, 2048);
	fx.j.deadline = 0;
	CHECK(parallel_run(&fx.j) == 0);
	CHECK(fx.j.rep.sr.workers == 0 && fx.j.rep.sr.pages_by_workers == 0 &&
	      fx.j.rep.timed_out);
	CHECK(pools(2048, 0, 0) && overcommit(2048) == 0 && notes_left() == 0);
	fixture_remove(&fx);
}

/* The commit write fails: the workers' pages go with them, and none is counted as
 * theirs; the overcommit is put back all the same. */
UNIT_TEST(commit_fails,
	  "a failed commit write: the workers' pages go, overcommit put back")
{
	setenv("HUGEPAR_FAULT", "commit=EIO", 1);
	machine("6.12.0", NULL, NULL);
	job(two_workers, 2048);
	CHECK(parallel_run(&fx.j) == 0);
	CHECK(strcmp(fx.j.rep.sr.failure,
		     unit_errtext("the commit write failed: ", EIO)) == 0);
	CHECK(pools(2048, 0, 0) && overcommit(2048) == 0 && notes_left() == 0);
	CHECK(fx.j.rep.sr.workers == 2 && fx.j.rep.sr.pages_by_workers == 0);
	fixture_remove(&fx);
}

/* The overcommit cannot be put back: said so, and its note stays for the next run. */
UNIT_TEST(restore_fails, "the overcommit cannot be put back: said, and its note kept")
{
	setenv("HUGEPAR_FAULT", "restore=EIO", 1);
	machine("6.12.0", NULL, NULL);
	job(two_workers, 2048);
	CHECK(parallel_run(&fx.j) == 0);
	CHECK(fx.j.rep.sr.restore_failed &&
	      strcmp(fx.j.rep.sr.failure,
		     unit_errtext("could not put nr_overcommit_hugepages back to 0: ",
				  EIO)) == 0);
	CHECK(pools(2048, 100, 100) && overcommit(2048) == 200 && notes_left() == 1);
	fixture_remove(&fx);
}

/* Workers killed at their third reservation, holding two pages each: what they held
 * went with them, and nothing is committed. */
UNIT_TEST(workers_die,
	  "workers killed while holding pages: what they held goes with them")
{
	setenv("HUGEPAR_FAULT", "reserve:3=kill", 1);
	machine("6.12.0", NULL, NULL);
	job(two_workers, 2048);
	CHECK(parallel_run(&fx.j) == 0);
	CHECK(fx.j.rep.sr.workers == 2 && fx.j.rep.sr.pages_by_workers == 0);
	CHECK(pools(2048, 0, 0) && overcommit(2048) == 0 && notes_left() == 0);
	fixture_remove(&fx);
}

/* threads = auto: the controller chooses each node's workers as they work (2000
 * pages a node, faster with more workers); whatever it chooses, the workers do it
 * all, within the node's ceiling. */
UNIT_TEST(auto, "threads = auto: each node's workers chosen as they work, within ceiling")
{
	static const char *const s[] = {"pages = 2M:2000", NULL};

	machine("6.12.0", NULL, "sim rate 2048 1:4000 2:8000 4:16000");
	job(s, 2048);
	CHECK(fx.p.workers_auto);
	CHECK(parallel_run(&fx.j) == 0);
	CHECK(pools(2048, 2000, 2000) && fx.j.rep.sr.pages_by_workers == 4000);
	for (unsigned n = 0; n < 2; n++) {
		const struct cell_note *cn = &fx.j.notes[n];
		unsigned ceiling = plan_cell(&fx.p, n, 0)->workers;

		CHECK(ceiling >= 1 && ceiling <= 4);
		CHECK(cn->workers_peak >= 1 && cn->workers_peak <= 2 * ceiling + 2);
		CHECK(cn->workers_settled >= 1 && cn->workers_settled <= ceiling);
	}
	CHECK(overcommit(2048) == 0 && notes_left() == 0);
	fixture_remove(&fx);
}
