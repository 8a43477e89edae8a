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
	return __atomic_load_n(&clk_tab->now_ns, __ATOMIC_RELAXED) / 1000;
}

static int sim_sleep_ms(uint64_t ms)
{
	if (!ms)
		return 0;
	return clk_wait_for("sleep", clk_tab->now_ns + ms * 1000000, false, true) == WOKE_SIGNAL
		   ? -EINTR
		   : 0;
}

static int sim_poll(struct pollfd *pf, nfds_t n, int timeout_ms)
{
	uint64_t until = timeout_ms < 0 ? 0 : clk_tab->now_ns + (uint64_t)timeout_ms * 1000000;
	int rc = poll(pf, n, 0);

	while (rc == 0 && timeout_ms != 0) {
		int why = clk_wait_for("poll", until, true, true);

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

	clk_lk();
	s = clk_slot_new();
	if (s < 0) {
		clk_unlk();
		errno = EAGAIN;
		return -1;
	}
	clk_tab->p[s].parent_pid = parent;
	clk_tab->p[s].pdeathsig = pdeathsig;
	clk_tab->p[s].wake_ns = clk_tab->now_ns + clk_tab->fork_ns;
	snprintf(clk_tab->p[s].site, sizeof(clk_tab->p[s].site), "forked");
	clk_tab->p[s].state = P_WAIT; /* it runs once the fork's time has gone by */
	clk_unlk();
	pid = clock_live.fork(pdeathsig);
	if (pid == 0) {
		clk_me = s;
		__atomic_store_n(&clk_tab->p[s].pid, getpid(), __ATOMIC_RELEASE);
		clk_await(s);
		clk_tab->p[s].site[0] = '\0';
		return 0;
	}
	clk_lk();
	if (pid < 0) {
		int e = errno;

		clk_slot_free(s);
		clk_unlk();
		errno = e;
		return -1;
	}
	clk_tab->p[s].pid = pid;
	clk_unlk();
	clk_wait_for("fork", clk_tab->now_ns + clk_tab->fork_ns, false, false);
	return pid;
}

/* Leave the clock: what exit does, then the baton on. */
static void leave_clock(void)
{
	clk_lk();
	clk_slot_gone(clk_me);
	clk_me = -1;
	if (clk_tab->baton < 0)
		clk_handoff();
	clk_unlk();
}

/* The main process's exit (atexit). */
static void leave(void)
{
	if (clk_me < 0 || clk_tab->p[clk_me].pid != getpid())
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
	if (clk_me >= 0 && clk_tab->p[clk_me].pid == getpid()) {
		/* its pages back, and its pipes closed, before whoever it wakes runs:
		 * they see both */
		sim_exit_pid(getpid());
		close_from(3, (unsigned)clk_lock_fd);
		close_from((unsigned)clk_lock_fd + 1, ~0U);
		leave_clock();
	}
	_exit(code);
}

static pid_t sim_waitpid(pid_t pid, int *status, int flags)
{
	while (pid > 0 && !(flags & WNOHANG)) {
		int s;

		clk_lk();
		s = clk_slot_of(pid);
		if (s < 0) {
			clk_unlk();
			break;
		}
		clk_tab->p[clk_me].wake_ns = 0;
		clk_tab->p[clk_me].event = true;
		clk_tab->p[clk_me].intr = true;
		clk_tab->p[clk_me].node = -1;
		if (clk_yield("waitpid") == WOKE_SIGNAL) {
			errno = EINTR;
			return -1;
		}
	}
	return waitpid(pid, status, flags);
}

static int sim_kill(pid_t pid, int sig)
{
	int s;

	clk_lk();
	s = clk_slot_of(pid);
	if (s >= 0 && sig == SIGKILL) {
		/* gone once it is: the next handoff waits for it (for this process, a
		 * waiting one takes the baton on when it is) */
		clk_tab->p[s].state = P_DYING;
		if (s == clk_me) {
			clk_tab->baton = -1;
			clk_me = -1;
		}
	} else if (s >= 0 && sig) {
		clk_signal_slot(s);
	}
	clk_unlk();
	return kill(pid, sig);
}

static void sim_alarm(uint64_t deadline_ms)
{
	clk_tab->p[clk_me].alarm_ns = deadline_ms * 1000000;
}

static void sim_wake(pid_t pid)
{
	clk_lk();
	clk_wake_pid(pid);
	clk_unlk();
}

const struct clock_ops clock_sim = {
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

	if (clk_tab)
		return 0;
	if (path_build(p, sizeof(p), "/.sim/clock"))
		return -ENAMETOOLONG;
	fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, sizeof(*clk_tab)) < 0) {
		close(fd);
		return -errno;
	}
	clk_tab = mmap(NULL, sizeof(*clk_tab), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (clk_tab == MAP_FAILED) {
		clk_tab = NULL;
		return -errno;
	}
	return 0;
}

int simclock_join(void)
{
	const char *env = getenv("HUGEPAR_SIM_CLOCK");
	const struct sim_state *st = sim_state();
	bool virt = st && st->clock_virtual;
	int rc, s;

	if (env && *env && strcmp(env, "virtual") && strcmp(env, "host")) {
		fprintf(stderr, "hugepar: HUGEPAR_SIM_CLOCK=%s: expected virtual or host\n", env);
		return -EINVAL;
	}
	if (env && *env)
		virt = strcmp(env, "virtual") == 0;
	if (!virt || clk_me >= 0)
		return 0;
	rc = table_open();
	if (rc)
		return rc;
	clk_lk();
	if (memcmp(clk_tab->magic, CLK_MAGIC, sizeof(CLK_MAGIC))) {
		memset(clk_tab, 0, sizeof(*clk_tab));
		memcpy(clk_tab->magic, CLK_MAGIC, sizeof(CLK_MAGIC));
		clk_tab->now_ns = 1000000000; /* a second in, as a boot's clock */
		clk_tab->baton = -1;
	}
	clk_tab->fork_ns = (uint64_t)st->fork_us * 1000;
	/* what runs killed before left behind */
	for (unsigned i = 0; i < clk_tab->top; i++)
		if (clk_tab->p[i].state != P_FREE && pid_gone(clk_tab->p[i].pid)) {
			if (clk_tab->baton == (int)i)
				clk_tab->baton = -1;
			clk_slot_free((int)i);
		}
	s = clk_slot_new();
	if (s < 0) {
		clk_unlk();
		return -EAGAIN;
	}
	clk_me = s;
	clk_tab->p[s].pid = getpid();
	clk_tab->p[s].parent_pid = getppid();
	if (clk_tab->baton < 0) {
		clk_give(s);
		clk_unlk();
	} else {
		clk_tab->p[s].event = false;
		clk_tab->p[s].intr = false;
		clk_make_ready(s, WOKE_NONE);
		/* clk_yield() would mark it waiting: wait for the baton here */
		clk_unlk();
		clk_await(s);
	}
	clock_use(&clock_sim);
	atexit(leave);
	return 0;
}
