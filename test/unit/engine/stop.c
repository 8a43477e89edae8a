/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stop.c - unit tests: what stops a run: SIGTERM, SIGINT, SIGHUP (SIGUSR1 and
 * SIGTERM in a worker) ask for a stop; the deadline is one too; SIGALRM only cuts a
 * blocking call short, and the handlers never restart one.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stop.h"
#include "sys.h"
#include "unit.h"

#define HOUR_MS (UINT64_C(3600) * 1000)

/* The handler of sig: installed, and without SA_RESTART. */
static bool handled(int sig)
{
	struct sigaction sa;

	if (sigaction(sig, NULL, &sa))
		return false;
	return sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN &&
	       !(sa.sa_flags & SA_RESTART);
}

UNIT_TEST(signals, "TERM, INT, HUP and USR1 ask for a stop; ALRM only interrupts")
{
	static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1};
	uint64_t later = sys_mono_ms() + HOUR_MS;

	stop_install();
	CHECK(!stop_requested() && stop_check(later) == STOP_NONE);
	for (unsigned i = 0; i < 4; i++) {
		CHECK(handled(sigs[i]));
		stop_install(); /* starts again with no stop asked */
		CHECK(!stop_requested());
		raise(sigs[i]);
		CHECK(stop_requested());
		CHECK(stop_check(later) == STOP_SIGNAL);
		CHECK(stop_check(0) ==
		      STOP_SIGNAL); /* a signal says more than the time */
	}
	/* SIGALRM only interrupts: no stop, and the process lives on */
	stop_install();
	CHECK(handled(SIGALRM));
	raise(SIGALRM);
	CHECK(!stop_requested() && stop_check(later) == STOP_NONE);
	/* the deadline: at it and past it */
	CHECK(stop_check(0) == STOP_DEADLINE);
	CHECK(stop_check(sys_mono_ms()) == STOP_DEADLINE);
}

/* A worker, forked from a process with no handlers: SIGUSR1 and SIGTERM stop it. */
UNIT_TEST(worker, "a worker forked without handlers is stopped by SIGUSR1 and SIGTERM")
{
	static const int sigs[] = {SIGUSR1, SIGTERM};

	for (unsigned i = 0; i < 2; i++) {
		int status;
		pid_t pid = fork();

		if (pid == 0) {
			signal(SIGUSR1, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			stop_install_worker();
			if (stop_requested() || !handled(sigs[i]))
				_exit(2);
			raise(sigs[i]);
			_exit(stop_requested() ? 0 : 3);
		}
		CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0);
	}
}

/* The deadline's timer cuts a blocking read short (EINTR, no restart), and asks for
 * no stop; disarmed, it is gone. In a child of its own: the timer is the one the
 * runner's time limit uses, and a read that is not cut short would hang it. */
static void deadline_checks(void)
{
	struct itimerval now;
	int p[2];
	char c;

	CHECK(pipe(p) == 0);
	stop_install();
	stop_deadline_arm(sys_mono_ms() + 50);
	CHECK(read(p[0], &c, 1) == -1 && errno == EINTR);
	CHECK(!stop_requested());
	/* a deadline already past still fires */
	stop_deadline_arm(0);
	CHECK(read(p[0], &c, 1) == -1 && errno == EINTR);

	stop_deadline_arm(sys_mono_ms() + HOUR_MS);
	CHECK(getitimer(ITIMER_REAL, &now) == 0);
	CHECK(now.it_value.tv_sec > 0 && now.it_value.tv_sec <= 3600 &&
	      now.it_interval.tv_sec == 0 && now.it_interval.tv_usec == 0);
	stop_deadline_disarm();
	CHECK(getitimer(ITIMER_REAL, &now) == 0);
	CHECK(now.it_value.tv_sec == 0 && now.it_value.tv_usec == 0);
}

UNIT_TEST(deadline, "the deadline's timer cuts a blocking read short and asks no stop")
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		unit_passed = unit_failed = 0;
		deadline_checks();
		_exit(unit_failed || unit_passed != 8 ? 1 : 0);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
}
