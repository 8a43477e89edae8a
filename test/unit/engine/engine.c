/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.c - unit tests: the run over every size (engine_apply()) on the simulated
 * kernel: a gigantic size that grows by per-node writes goes first and alone, sizes
 * that can work at once get a coordinator each, dead coordinators and their orphaned
 * workers, what the result says; a disabled run, a kernel without hugetlb.
 */
#include <sys/prctl.h>

#include "engine.h"
#include "fixture.h"
#include "keys.h"

static struct fixture fx;
static struct hp_result res;

/* Two nodes of 4 CPUs and 8 GiB on a kernel release, 2M and 1G pages. */
static void machine(const char *release)
{
	char rel[32];
	const char *lines[] = {"sizes 2048 1048576", rel,
			       "node 0 cpus 0-3 mem 8G free 7G",
			       "node 1 cpus 4-7 mem 8G free 7G", NULL};

	snprintf(rel, sizeof(rel), "release %s", release);
	CHECK(fixture_make(&fx, lines) == 0);
}

/* Plan the settings lines and run them all with the method given. */
static int apply(const char *const *settings, enum hp_method m)
{
	CHECK(fixture_job(&fx, settings, 2048, m) == 0);
	return engine_apply(&fx.s, &fx.t, &fx.p, m, sys_mono_ms() + 3600 * 1000, &res);
}

static bool pools(uint64_t kb, uint64_t n0, uint64_t n1)
{
	return fixture_pages(0, kb) == n0 && fixture_pages(1, kb) == n1 &&
	       fixture_pool(0, kb).surplus == 0 && fixture_pool(1, kb).surplus == 0;
}

/* Whether this process became a subreaper (only when coordinators were started) as
 * WANT says; true where the machine has no subreapers to ask (unit_qemu_user). */
static bool subreaper_is(int want)
{
	int on = -1;

	if (unit_qemu_user())
		return unit_skip();
	prctl(PR_GET_CHILD_SUBREAPER, &on);
	return on == want;
}

static const struct hp_cell_result *cell(unsigned n, unsigned z)
{
	return &res.cells[n * res.nsizes + z];
}

/* The whole run is at least as long as each size's work, counted from its start. */
static bool within_run(unsigned z)
{
	return res.duration_ms >= res.sizes[z].start_ms + res.sizes[z].ms;
}

static void done(void)
{
	engine_result_free(&res);
	fixture_remove(&fx);
}

/* Before 6.19 the 1G pages grow by per-node writes: they run first and alone, in this
 * process, and the 2M pages after them, also here (one size a pass). */
UNIT_TEST(gigantic_first,
	  "before 6.19, 1G pages by per-node writes go first, then 2M workers")
{
	static const char *const s[] = {"pages = 2M:100 1G:2", "threads = 4", NULL};
	const struct hp_size_result *m2 = &res.sizes[0], *g1 = &res.sizes[1];

	machine("6.12.0");
	CHECK(subreaper_is(0));
	CHECK(apply(s, HP_METHOD_PARALLEL) == 0);
	CHECK(res.status == HP_STATUS_OK && res.error[0] == '\0' && !res.timed_out &&
	      !res.interrupted);
	CHECK(pools(2048, 100, 100) && pools(1048576, 2, 2));
	CHECK(g1->worked && g1->method == HP_METHOD_SERIAL && g1->workers == 0);
	CHECK(m2->worked && m2->method == HP_METHOD_PARALLEL && m2->workers == 4 &&
	      m2->pages_by_workers == 200);
	CHECK(m2->start_ms >= g1->start_ms + g1->ms);
	CHECK(within_run(0) && within_run(1));
	CHECK(subreaper_is(0));
	CHECK(res.nnodes == 2 && res.nsizes == 2);
	CHECK(cell(0, 0)->before == 0 && cell(0, 0)->achieved == 100 &&
	      cell(1, 1)->achieved == 2 && cell(1, 1)->status == HP_STATUS_OK);
	CHECK(m2->overcommit_before == 0 && m2->overcommit_after == 0 &&
	      g1->overcommit_after == 0 && !m2->restore_failed && !g1->restore_failed);
	done();
}

/* Asked for per-node writes, the 1G pages still go first, before the 2M pages. */
UNIT_TEST(serial, "asked for per-node writes, the 1G pages still go before the 2M")
{
	static const char *const s[] = {"pages = 2M:100 1G:1", NULL};

	machine("6.19.0");
	CHECK(apply(s, HP_METHOD_SERIAL) == 0);
	CHECK(res.status == HP_STATUS_OK && pools(2048, 100, 100) &&
	      pools(1048576, 1, 1));
	CHECK(res.sizes[0].method == HP_METHOD_SERIAL &&
	      res.sizes[1].method == HP_METHOD_SERIAL);
	CHECK(res.sizes[0].start_ms >= res.sizes[1].start_ms + res.sizes[1].ms);
	CHECK(subreaper_is(0));
	done();
}

/*
 * From 6.19 the 1G pages are reserved by workers too, and both sizes run at once, a
 * coordinator each. Each coordinator is held a second at its commit: the 2M pages
 * began before the 1G pages were done, whichever started first.
 */
UNIT_TEST(together, "from 6.19, 2M and 1G coordinators run at once, both with workers")
{
	static const char *const s[] = {"pages = 2M:100 1G:2", "threads = 4", NULL};
	const struct hp_size_result *m2 = &res.sizes[0], *g1 = &res.sizes[1];

	setenv("HUGEPAR_FAULT", "commit=delay:1000", 1);
	machine("6.19.0");
	CHECK(apply(s, HP_METHOD_PARALLEL) == 0);
	CHECK(res.status == HP_STATUS_OK && res.error[0] == '\0');
	CHECK(pools(2048, 100, 100) && pools(1048576, 2, 2));
	CHECK(m2->method == HP_METHOD_PARALLEL && m2->pages_by_workers == 200);
	CHECK(g1->method == HP_METHOD_PARALLEL && g1->pages_by_workers == 4);
	CHECK(m2->start_ms < g1->start_ms + g1->ms &&
	      g1->start_ms < m2->start_ms + m2->ms);
	CHECK(subreaper_is(1));
	CHECK(within_run(0) && within_run(1));
	CHECK(m2->failure[0] == '\0' && g1->failure[0] == '\0');
	done();
}

/* One size with work runs in this process, with no coordinator; the other is left. */
UNIT_TEST(lone, "one size with work runs in this process, without a coordinator")
{
	static const char *const s[] = {"pages = 2M:100@1", NULL};

	machine("6.19.0");
	CHECK(apply(s, HP_METHOD_SERIAL) == 0);
	CHECK(res.status == HP_STATUS_OK && pools(2048, 0, 100) && pools(1048576, 0, 0));
	CHECK(res.sizes[0].worked && !res.sizes[1].worked);
	CHECK(cell(0, 0)->status == HP_STATUS_UNCHANGED &&
	      cell(1, 0)->status == HP_STATUS_OK && cell(1, 0)->achieved == 100 &&
	      cell(0, 1)->status == HP_STATUS_UNCHANGED);
	CHECK(subreaper_is(0));
	done();
}

/*
 * Both coordinators are killed before their commit, with their workers holding
 * surplus pages: the workers die with them and are reaped here, the overcommit they
 * raised is put back from their restore notes, and the pools are as before.
 */
UNIT_TEST(orphans,
	  "coordinators killed before commit: workers reaped, overcommit put back")
{
	static const char *const s[] = {"pages = 2M:100 1G:2", "threads = 4", NULL};

	setenv("HUGEPAR_FAULT", "commit=kill", 1);
	machine("6.19.0");
	CHECK(apply(s, HP_METHOD_PARALLEL) == 0);
	CHECK(res.status == HP_STATUS_FAILED);
	CHECK(pools(2048, 0, 0) && pools(1048576, 0, 0));
	for (unsigned z = 0; z < 2; z++) {
		const struct hp_size_result *sr = &res.sizes[z];

		CHECK(sr->worked &&
		      strcmp(sr->failure, "its coordinator was killed by SIGKILL") == 0);
		CHECK(strcmp(sr->afterwards,
			     "nr_overcommit_hugepages put back to 0 afterwards") == 0);
		CHECK(sr->overcommit_after == 0 && sr->surplus_after == 0 &&
		      !sr->restore_failed);
	}
	CHECK(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD);
	CHECK(subreaper_is(1));
	done();
}

/* Disabled: nothing is touched, the result says so, and every cell is as before. */
UNIT_TEST(disabled, "disabled: nothing touched, every cell as before, the result says so")
{
	static const char *const s[] = {"enabled = no", "pages = 2M:100", NULL};

	machine("6.12.0");
	CHECK(apply(s, HP_METHOD_PARALLEL) == 0);
	CHECK(res.status == HP_STATUS_DISABLED && res.error[0] == '\0');
	CHECK(pools(2048, 0, 0) && !res.sizes[0].worked && !res.sizes[1].worked);
	CHECK(res.cells && cell(1, 0)->before == 0 && cell(1, 0)->achieved == 0);
	CHECK(res.started_unix > 0);
	done();
}

/* Pages there before the run are the cells' before, and stay in grow mode. */
UNIT_TEST(before, "pages there before the run are the cells' before, kept in grow mode")
{
	static const char *const s[] = {"pages = 2M:100", NULL};
	const char *lines[] = {"sizes 2048 1048576", "release 6.12.0",
			       "node 0 cpus 0-3 mem 8G free 7G pool 2048:150",
			       "node 1 cpus 4-7 mem 8G free 7G pool 2048:40", NULL};

	CHECK(fixture_make(&fx, lines) == 0);
	CHECK(apply(s, HP_METHOD_SERIAL) == 0);
	CHECK(pools(2048, 150, 100));
	CHECK(cell(0, 0)->before == 150 && cell(0, 0)->achieved == 150 &&
	      cell(1, 0)->before == 40 && cell(1, 0)->achieved == 100);
	CHECK(res.sizes[0].worked && !res.sizes[1].worked);
	done();
}

/* A kernel without hugetlb: the run fails, and says why. */
UNIT_TEST(no_hugetlb, "a kernel without hugetlb: the run fails and says why")
{
	const char *lines[] = {"node 0 cpus 0-3 mem 8G free 7G", NULL};
	int rc;

	CHECK(fixture_make(&fx, lines) == 0);
	CHECK(!fx.t.hugetlb && fx.t.nsizes == 0);
	keys_set(&fx.s, "pages", "2M:100", "unit", false);
	CHECK(plan_make(&fx.s, &fx.t, &fx.p) == 0);
	rc = engine_apply(&fx.s, &fx.t, &fx.p, HP_METHOD_AUTO,
			  sys_mono_ms() + 3600 * 1000, &res);
	CHECK(rc == -ENOSYS && res.status == HP_STATUS_FAILED);
	CHECK(strcmp(res.error, "the kernel offers no huge pages (built without "
				"hugetlb?)") == 0);
	CHECK(res.nnodes == 1 && res.nsizes == 0 && res.cells != NULL);
	done();
}
