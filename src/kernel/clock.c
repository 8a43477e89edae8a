/* SPDX-License-Identifier: GPL-2.0-or-later */
/* clock.c - the engine's time and processes: the system calls (clock.h). */
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "sys.h"

static int live_sleep_ms(uint64_t ms)
{
	struct timespec ts = {.tv_sec = (time_t)(ms / 1000),
			      .tv_nsec = (long)(ms % 1000) * 1000000};

	return nanosleep(&ts, NULL) < 0 ? -errno : 0;
}

static pid_t live_fork(int pdeathsig)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0 && pdeathsig) {
		prctl(PR_SET_PDEATHSIG, pdeathsig);
		if (getppid() != parent) /* it died before the line above */
			raise(pdeathsig);
	}
	return pid;
}

static void live_alarm(uint64_t deadline)
{
	struct itimerval it = {0};
	uint64_t now = sys_mono_ms(), left = deadline > now ? deadline - now : 1;

	if (deadline) {
		it.it_value.tv_sec = left / 1000;
		it.it_value.tv_usec = (left % 1000) * 1000 + 1;
	}
	setitimer(ITIMER_REAL, &it, NULL);
}

static void live_wake(pid_t pid)
{
	(void)pid;
}

#ifdef HUGEPAR_TESTING
const struct clock_ops clock_live = {
    .now_us = sys_mono_us,
    .sleep_ms = live_sleep_ms,
    .poll = poll,
    .fork = live_fork,
    .exit = _exit,
    .waitpid = waitpid,
    .kill = kill,
    .alarm = live_alarm,
    .wake = live_wake,
};

static const struct clock_ops *ops = &clock_live;

void clock_use(const struct clock_ops *o)
{
	ops = o;
}
#define OP(f) ops->f
#else
#define OP(f)	     live_##f
#define live_now_us  sys_mono_us
#define live_poll    poll
#define live_exit    _exit
#define live_waitpid waitpid
#define live_kill    kill
#endif

uint64_t clock_now_ms(void)
{
	return OP(now_us)() / 1000;
}

uint64_t clock_now_us(void)
{
	return OP(now_us)();
}

int clock_sleep_ms(uint64_t ms)
{
	return OP(sleep_ms)(ms);
}

int clock_poll(struct pollfd *pf, nfds_t n, int timeout_ms)
{
	return OP(poll)(pf, n, timeout_ms);
}

pid_t clock_fork(int pdeathsig)
{
	return OP(fork)(pdeathsig);
}

void clock_exit(int code)
{
	OP(exit)(code);
	_exit(code);
}

pid_t clock_waitpid(pid_t pid, int *status, int flags)
{
	return OP(waitpid)(pid, status, flags);
}

int clock_kill(pid_t pid, int sig)
{
	return OP(kill)(pid, sig);
}

void clock_alarm(uint64_t deadline_ms)
{
	OP(alarm)(deadline_ms);
}

void clock_wake(pid_t pid)
{
	OP(wake)(pid);
}
