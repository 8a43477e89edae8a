/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * simseam.c - the simulated kernel's clock behind the clock seam (src/kernel/clock.h):
 * what each of the engine's waits, forks, signals and exits is on the clock's table
 * (simclock.c), and joining it.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "path.h"
#include "sim.h"
#include "simclock.h"
#include "simcore.h"
#include "sys.h"

/* ---- the clock seam ----------------------------------------------------------- */

static uint64_t sim_now_us(void)
{
	return __atomic_load_n(&simclock_tab->now_ns, __ATOMIC_RELAXED) / 1000;
}

static int sim_sleep_ms(uint64_t ms)
{
	if (!ms)
		return 0;
	return simclock_wait_for("sleep", simclock_tab->now_ns + ms * 1000000, false,
				 true) == WOKE_SIGNAL
		   ? -EINTR
		   : 0;
}

static int sim_poll(struct pollfd *pf, nfds_t n, int timeout_ms)
{
	uint64_t until =
	    timeout_ms < 0 ? 0 : simclock_tab->now_ns + (uint64_t)timeout_ms * 1000000;
	int rc = poll(pf, n, 0);

	while (rc == 0 && timeout_ms != 0) {
		int why = simclock_wait_for("poll", until, true, true);

		rc = poll(pf, n, 0);
		if (rc)
			break;
		if (why == WOKE_SIGNAL) {
			errno = EINTR;
			return -1;
		}
		if (why == WOKE_TIME)
			break;
	}
	return rc;
}

static pid_t sim_fork(int pdeathsig)
{
	pid_t parent = getpid(), pid;
	int s;

	simclock_lk();
	s = simclock_slot_new();
	if (s < 0) {
		simclock_unlk();
		errno = EAGAIN;
		return -1;
	}
	simclock_tab->p[s].parent_pid = parent;
	simclock_tab->p[s].pdeathsig = pdeathsig;
	simclock_tab->p[s].wake_ns = simclock_tab->now_ns + simclock_tab->fork_ns;
	snprintf(simclock_tab->p[s].site, sizeof(simclock_tab->p[s].site), "forked");
	simclock_tab->p[s].state = P_WAIT; /* it runs once the fork's time has gone by */
	simclock_unlk();
	pid = clock_live.fork(pdeathsig);
	if (pid == 0) {
		simclock_me = s;
		__atomic_store_n(&simclock_tab->p[s].pid, getpid(), __ATOMIC_RELEASE);
		simclock_await(s);
		simclock_tab->p[s].site[0] = '\0';
		return 0;
	}
	simclock_lk();
	if (pid < 0) {
		int e = errno;

		simclock_slot_free(s);
		simclock_unlk();
		errno = e;
		return -1;
	}
	simclock_tab->p[s].pid = pid;
	simclock_unlk();
	simclock_wait_for("fork", simclock_tab->now_ns + simclock_tab->fork_ns, false,
			  false);
	return pid;
}

/* Leave the clock: what exit does, then the baton on. */
static void leave_clock(void)
{
	simclock_lk();
	simclock_slot_gone(simclock_me);
	simclock_me = -1;
	if (simclock_tab->baton < 0)
		simclock_handoff();
	simclock_unlk();
}

/* The main process's exit (atexit). */
static void leave(void)
{
	if (simclock_me < 0 || simclock_tab->p[simclock_me].pid != getpid())
		return;
	sim_exit_pid(getpid());
	leave_clock();
}

/* Close every descriptor from 'from' below 'to' (close_range(2) where there is one). */
static void close_from(unsigned from, unsigned to)
{
	struct rlimit rl;

	if (from >= to || syscall(SYS_close_range, from, to - 1, 0) == 0)
		return;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur > 65536)
		rl.rlim_cur = 65536;
	for (unsigned fd = from; fd < to && fd < rl.rlim_cur; fd++)
		close((int)fd);
}

static void sim_exit(int code)
{
	if (simclock_me >= 0 && simclock_tab->p[simclock_me].pid == getpid()) {
		/* its pages back, and its pipes closed, before whoever it wakes runs:
		 * they see both */
		sim_exit_pid(getpid());
		close_from(3, (unsigned)simclock_lock_fd);
		close_from((unsigned)simclock_lock_fd + 1, ~0U);
		leave_clock();
	}
	_exit(code);
}

static pid_t sim_waitpid(pid_t pid, int *status, int flags)
{
	while (pid > 0 && !(flags & WNOHANG)) {
		int s;

		simclock_lk();
		s = simclock_slot_of(pid);
		if (s < 0) {
			simclock_unlk();
			break;
		}
		simclock_tab->p[simclock_me].wake_ns = 0;
		simclock_tab->p[simclock_me].event = true;
		simclock_tab->p[simclock_me].intr = true;
		simclock_tab->p[simclock_me].node = -1;
		if (simclock_yield("waitpid") == WOKE_SIGNAL) {
			errno = EINTR;
			return -1;
		}
	}
	return waitpid(pid, status, flags);
}

static int sim_kill(pid_t pid, int sig)
{
	int s;

	simclock_lk();
	s = simclock_slot_of(pid);
	if (s >= 0 && sig == SIGKILL) {
		/* gone once it is: the next handoff waits for it (for this process, a
		 * waiting one takes the baton on when it is) */
		simclock_tab->p[s].state = P_DYING;
		if (s == simclock_me) {
			simclock_tab->baton = -1;
			simclock_me = -1;
		}
	} else if (s >= 0 && sig) {
		simclock_signal_slot(s);
	}
	simclock_unlk();
	return kill(pid, sig);
}

static void sim_alarm(uint64_t deadline_ms)
{
	simclock_tab->p[simclock_me].alarm_ns = deadline_ms * 1000000;
}

static void sim_wake(pid_t pid)
{
	simclock_lk();
	simclock_wake_pid(pid);
	simclock_unlk();
}

const struct clock_ops sim_clock = {
    .now_us = sim_now_us,
    .sleep_ms = sim_sleep_ms,
    .poll = sim_poll,
    .fork = sim_fork,
    .exit = sim_exit,
    .waitpid = sim_waitpid,
    .kill = sim_kill,
    .alarm = sim_alarm,
    .wake = sim_wake,
};

/* ---- joining ------------------------------------------------------------------ */

static int table_open(void)
{
	char p[4096];
	int fd;

	if (simclock_tab)
		return 0;
	if (path_build(p, sizeof(p), "/.sim/clock"))
		return -ENAMETOOLONG;
	fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, sizeof(*simclock_tab)) < 0) {
		close(fd);
		return -errno;
	}
	simclock_tab =
	    mmap(NULL, sizeof(*simclock_tab), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (simclock_tab == MAP_FAILED) {
		simclock_tab = NULL;
		return -errno;
	}
	return 0;
}

int sim_clock_join(void)
{
	const char *env = getenv("HUGEPAR_SIM_CLOCK");
	const struct sim_state *st = sim_state();
	bool virt = st && st->clock_virtual;
	int rc, s;

	if (env && *env && strcmp(env, "virtual") && strcmp(env, "host")) {
		fprintf(stderr,
			"hugepar: HUGEPAR_SIM_CLOCK=%s: expected virtual or host\n", env);
		return -EINVAL;
	}
	if (env && *env)
		virt = strcmp(env, "virtual") == 0;
	if (!virt || simclock_me >= 0)
		return 0;
	rc = table_open();
	if (rc)
		return rc;
	simclock_lk();
	if (memcmp(simclock_tab->magic, CLK_MAGIC, sizeof(CLK_MAGIC))) {
		memset(simclock_tab, 0, sizeof(*simclock_tab));
		memcpy(simclock_tab->magic, CLK_MAGIC, sizeof(CLK_MAGIC));
		simclock_tab->now_ns = 1000000000; /* a second in, as a boot's clock */
		simclock_tab->baton = -1;
	}
	simclock_tab->fork_ns = (uint64_t)st->fork_us * 1000;
	/* what runs killed before left behind */
	for (unsigned i = 0; i < simclock_tab->top; i++)
		if (simclock_tab->p[i].state != P_FREE &&
		    sys_pid_gone(simclock_tab->p[i].pid)) {
			if (simclock_tab->baton == (int)i)
				simclock_tab->baton = -1;
			simclock_slot_free((int)i);
		}
	s = simclock_slot_new();
	if (s < 0) {
		simclock_unlk();
		return -EAGAIN;
	}
	simclock_me = s;
	simclock_tab->p[s].pid = getpid();
	simclock_tab->p[s].parent_pid = getppid();
	if (simclock_tab->baton < 0) {
		simclock_give(s);
		simclock_unlk();
	} else {
		simclock_tab->p[s].event = false;
		simclock_tab->p[s].intr = false;
		simclock_make_ready(s, WOKE_NONE);
		/* simclock_yield() would mark it waiting: wait for the baton here */
		simclock_unlk();
		simclock_await(s);
	}
	clock_use(&sim_clock);
	atexit(leave);
	return 0;
}
