/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stop.c - what stops a run: SIGTERM, SIGINT or SIGHUP, and the deadline. */
#include <signal.h>
#include <string.h>

#include "clock.h"
#include "stop.h"
#include "sys.h"

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_alarm(int sig)
{
	(void)sig; /* only there to interrupt a sysfs write */
}

static void handle(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

void stop_install(void)
{
	stop = 0;
	handle(SIGTERM, on_stop);
	handle(SIGINT, on_stop);
	handle(SIGHUP, on_stop);
	handle(SIGALRM, on_alarm);
	/* A worker's stop: set here, so that a worker told to stop right after its
	 * fork, before it has run a line, has the handler already (it is inherited). */
	handle(SIGUSR1, on_stop);
}

void stop_install_worker(void)
{
	handle(SIGUSR1, on_stop);
	handle(SIGTERM, on_stop);
}

bool stop_requested(void)
{
	return stop != 0;
}

enum stop_why stop_check(uint64_t deadline)
{
	if (stop)
		return STOP_SIGNAL;
	return clock_now_ms() >= deadline ? STOP_DEADLINE : STOP_NONE;
}

void stop_deadline_arm(uint64_t deadline)
{
	clock_alarm(deadline ? deadline : 1);
}

void stop_deadline_disarm(void)
{
	clock_alarm(0);
}
