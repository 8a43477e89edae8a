/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * simclock.c - unit tests: the simulated kernel's own clock (test/sim/simclock.c,
 * simseam.c): a node's rate shared by the allocations in flight on it, the cost of a
 * fork, sleeps, a poll woken by a child's report, a SIGKILL, the deadline's alarm.
 * Every time is exact: the simulated clock is the host's no matter.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "desc.h"
#include "hugetlb.h"
#include "path.h"
#include "sim.h"
#include "simclock.h"
#include "unit.h"

static char dir[] = "/tmp/hugepar-unit-simclock.XXXXXX";
static char root[256];

/* One node of 4 CPUs whose rate is 100 2M pages a second with one allocator, 150 with
 * two; a fork costs its parent 1 ms. Joined: this process is on the clock. */
static bool setup(void)
{
	if (fixture_from_desc(dir, root, sizeof(root),
			      "sizes 2048\n"
			      "release 6.12.0\n"
			      "node 0 cpus 0-3 mem 4G free 3G\n"
			      "sim rate 2048 1:100 2:150\n"
			      "sim fork-us 1000\n"))
		return false;
	unsetenv("HUGEPAR_SIM_CLOCK");
	CHECK(sim_open() == 0);
	hugetlb_use(&sim_hugetlb);
	CHECK(sim_clock_join() == 0);
	CHECK(simclock_on());
	return simclock_on();
}

static void cleanup(void)
{
	char cmd[600];

	clock_use(&clock_live);
	path_set_root(NULL);
	hugetlb_use(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

/* A child that allocates pages on node 0 and notes when it was done. */
static pid_t allocator(double pages, volatile uint64_t *done_us)
{
	pid_t pid = clock_fork(SIGKILL);

	if (pid == 0) {
		simclock_spend(0, 0, pages, false);
		*done_us = clock_now_us();
		clock_exit(0);
	}
	return pid;
}

static bool within_us(uint64_t got, uint64_t want)
{
	return got + 1 >= want && got <= want + 1;
}

/* A at 1 ms (the fork) alone at 100 pages/s: 0.1 page by 2 ms, when B starts; then
 * 75 each: A's 99.9 left take 1332 ms; B's 200.1 left, alone, 2001 ms. */
UNIT_TEST(share, "two allocators share the simulated CPU time to the microsecond")
{
	volatile uint64_t *done =
	    mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t t0;
	pid_t a, b;
	int st;

	if (!setup())
		goto out;
	t0 = clock_now_us();
	a = allocator(100, &done[0]);
	CHECK(clock_now_us() - t0 == 1000); /* the fork's cost */
	b = allocator(300, &done[1]);
	CHECK(a > 0 && b > 0);
	CHECK(clock_waitpid(a, &st, 0) == a && WIFEXITED(st));
	CHECK(clock_waitpid(b, &st, 0) == b && WIFEXITED(st));
	CHECK(within_us(done[0] - t0, 1334000));
	CHECK(within_us(done[1] - t0, 3335000));
	CHECK(within_us(clock_now_us() - t0, 3335000));
out:
	cleanup();
}

/* A sleep takes its time; a poll ends when a child's report comes, or at its
 * timeout. */
UNIT_TEST(poll, "a simulated sleep takes its time; a poll ends at a report or timeout")
{
	struct pollfd pf;
	uint64_t t0;
	int p[2];
	pid_t pid;

	if (!setup() || pipe(p))
		goto out;
	t0 = clock_now_us();
	CHECK(clock_sleep_ms(250) == 0);
	CHECK(clock_now_us() - t0 == 250000);
	pid = clock_fork(SIGKILL);
	if (pid == 0) {
		clock_sleep_ms(40);
		if (write(p[1], "r", 1) != 1)
			clock_exit(1);
		clock_wake(getppid());
		clock_exit(0);
	}
	pf = (struct pollfd){.fd = p[0], .events = POLLIN};
	CHECK(clock_poll(&pf, 1, 1000) == 1 && (pf.revents & POLLIN));
	CHECK(clock_now_us() - t0 == 291000); /* 250 + the fork's 1 + 40 */
	CHECK(clock_waitpid(pid, NULL, 0) == pid);
	/* nothing more comes: the timeout */
	CHECK(clock_poll(&pf, 1, 0) == 1); /* the byte is still there */
	{
		char c;

		CHECK(read(p[0], &c, 1) == 1);
	}
	CHECK(clock_poll(&pf, 1, 70) == 0);
	CHECK(clock_now_us() - t0 == 361000);
out:
	cleanup();
}

/* A SIGKILL: the child is gone before anything else runs, at the same time. */
UNIT_TEST(kill, "a SIGKILLed child is gone before anything else runs, at the same time")
{
	uint64_t t0;
	pid_t pid;
	int st = 0;

	if (!setup())
		goto out;
	t0 = clock_now_us();
	pid = clock_fork(SIGKILL);
	if (pid == 0) {
		clock_sleep_ms(10000);
		clock_exit(0);
	}
	CHECK(clock_sleep_ms(5) == 0);
	CHECK(clock_kill(pid, SIGKILL) == 0);
	CHECK(clock_waitpid(pid, &st, 0) == pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	CHECK(clock_now_us() - t0 == 6000);
out:
	cleanup();
}

/* The deadline's alarm cuts a sleep, and a write, at its time. */
UNIT_TEST(alarm, "the deadline's alarm cuts a sleep and a write, never a reservation")
{
	uint64_t t0;

	if (!setup())
		goto out;
	t0 = clock_now_us();
	clock_alarm(t0 / 1000 + 30);
	CHECK(clock_sleep_ms(100) == -EINTR);
	CHECK(clock_now_us() - t0 == 30000);
	/* a write of 100 pages (1 s alone) cut at 200 ms */
	clock_alarm(clock_now_ms() + 200);
	CHECK(!simclock_spend(0, 0, 100, true));
	CHECK(clock_now_us() - t0 == 230000);
	/* a reservation is not cut */
	clock_alarm(clock_now_ms() + 200);
	CHECK(simclock_spend(0, 0, 100, false));
	CHECK(clock_now_us() - t0 == 1230000);
	clock_alarm(0);
out:
	cleanup();
}
