/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * probe.c - unit tests: method=auto's probe over the simulated kernel: which node it
 * probes, how many pages, and the choices that hold whatever the host's speed: pages
 * of a tenth of a second each pay for workers; nothing left after the probe does
 * not; no page, or no time, gives no estimate.
 */
#include <sys/wait.h>

#include "fixture.h"
#include "probe.h"

static struct fixture fx;

/* Two nodes with 2M pages at 10 a second; node 0 has memory for none when 'starved'. */
static void machine(bool starved)
{
	const char *const lines[] = {"sizes 2048",
				     "release 6.12.0",
				     starved ? "node 0 cpus 0-3 mem 8G free 1M"
					     : "node 0 cpus 0-3 mem 8G free 7G",
				     "node 1 cpus 4-7 mem 8G free 7G",
				     "sim rate 2048 1:10",
				     NULL};
	static const char *const settings[] = {"pages = 2M:1", NULL};

	CHECK(fixture_make(&fx, lines) == 0);
	CHECK(fixture_job(&fx, settings, 2048, HP_METHOD_AUTO) == 0);
}

/* Node n to grow to target with w workers (whatever the plan made of the settings). */
static void wants(unsigned n, uint64_t target, unsigned w)
{
	plan_cell(&fx.p, n, 0)->target = target;
	plan_cell(&fx.p, n, 0)->workers = w;
}

static bool note_starts(const char *prefix)
{
	return strncmp(fx.j.rep.sr.method_note, prefix, strlen(prefix)) == 0;
}

/* The timed fork's child is reaped. */
static bool no_child(void)
{
	return waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD;
}

/* Dear pages: one page of the first node tells, and workers pay. */
UNIT_TEST(parallel, "dear pages: one page of the first node tells, and workers pay")
{
	machine(false);
	wants(0, 20, 4);
	wants(1, 20, 4);
	CHECK(probe_run(&fx.j));
	CHECK(fixture_pages(0, 2048) == 1 && fixture_pages(1, 2048) == 0);
	CHECK(fx.j.probe_ns > 0 && !fx.j.rep.timed_out);
	CHECK(note_starts("auto: serial ") &&
	      strstr(fx.j.rep.sr.method_note, "estimated"));
	CHECK(no_child());
	fixture_remove(&fx);
}

/* The first node gives nothing: the next one is probed. */
UNIT_TEST(next_node, "the first node gives no page: the next one is probed")
{
	machine(true);
	wants(0, 20, 4);
	wants(1, 20, 4);
	CHECK(probe_run(&fx.j));
	/* one page, or the 1% more where the host's fork was slow enough to leave
	 * the choice unclear */
	CHECK(fixture_pages(0, 2048) == 0 && fixture_pages(1, 2048) >= 1);
	CHECK(fx.j.probe_ns > 0);
	fixture_remove(&fx);
}

/* The probe's page was all there was to do: nothing is left for workers. */
UNIT_TEST(done, "the probe's page was all the work: nothing left for workers")
{
	machine(false);
	wants(0, 1, 4);
	wants(1, 0, 4);
	CHECK(!probe_run(&fx.j));
	CHECK(fixture_pages(0, 2048) == 1 && fixture_pages(1, 2048) == 0);
	CHECK(fx.j.probe_ns > 0 && note_starts("auto: serial 0 ms, parallel "));
	CHECK(no_child());
	fixture_remove(&fx);
}

/* No node gives a page, or (below) the deadline has passed: no estimate, no
 * workers. */
UNIT_TEST(nothing, "no node gives a page: no estimate and no workers")
{
	machine(true);
	wants(0, 20, 4);
	wants(1, 0, 4);
	CHECK(!probe_run(&fx.j));
	CHECK(fx.j.probe_ns == 0 &&
	      strcmp(fx.j.rep.sr.method_note,
		     "auto: serial 0 ms, parallel 0 ms estimated") == 0);
	CHECK(fixture_pages(0, 2048) == 0 && !fx.j.rep.timed_out);
	fixture_remove(&fx);
}

UNIT_TEST(deadline, "past the deadline: no probe, no workers, timed out")
{
	machine(false);
	wants(0, 20, 4);
	wants(1, 20, 4);
	fx.j.deadline = 0;
	CHECK(!probe_run(&fx.j));
	CHECK(fx.j.probe_ns == 0 && fx.j.rep.timed_out &&
	      strcmp(fx.j.rep.sr.method_note,
		     "auto: serial 0 ms, parallel 0 ms estimated") == 0);
	CHECK(fixture_pages(0, 2048) == 0 && fixture_pages(1, 2048) == 0);
	CHECK(no_child());
	fixture_remove(&fx);
}
