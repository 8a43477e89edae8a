/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sys.c - unit tests: the clocks' units, and whether a process is gone. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sys.h"
#include "unit.h"

/* Each clock between two readings of the kernel's own, in its unit: no durations. */
UNIT_TEST(clocks, "each clock lies between two of the kernel's readings, in its unit")
{
	struct timespec a, b;
	uint64_t ms, us, ms2, boot;

	clock_gettime(CLOCK_MONOTONIC, &a);
	ms = sys_mono_ms();
	us = sys_mono_us();
	ms2 = sys_mono_ms();
	clock_gettime(CLOCK_MONOTONIC, &b);
	CHECK(ms / 1000 >= (uint64_t)a.tv_sec && ms2 / 1000 <= (uint64_t)b.tv_sec);
	CHECK(us / 1000000 >= (uint64_t)a.tv_sec && us / 1000000 <= (uint64_t)b.tv_sec);
	CHECK(ms <= us / 1000 && us / 1000 <= ms2);
	/* the boot clock counts suspended time too: never behind the monotonic one */
	clock_gettime(CLOCK_BOOTTIME, &a);
	boot = sys_boottime_ms();
	clock_gettime(CLOCK_BOOTTIME, &b);
	CHECK(boot / 1000 >= (uint64_t)a.tv_sec && boot / 1000 <= (uint64_t)b.tv_sec);
	CHECK(boot >= ms2);
}

/* A child that waits, named name (the kernel's comm, what /proc/PID/stat shows). */
static pid_t child(const char *name)
{
	int fds[2];
	char c;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		prctl(PR_SET_NAME, name);
		c = 1;
		if (write(fds[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	if (pid > 0 && read(fds[0], &c, 1) != 1)
		pid = -1;
	close(fds[0]);
	return pid;
}

/* Until the child has exited and is a zombie, not reaped. */
static void exited(pid_t pid)
{
	siginfo_t si;

	waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT);
}

UNIT_TEST(sys_pid_gone, "a pid is gone when it exited or is a zombie, not when stopped")
{
	pid_t pid;
	int st;

	CHECK(!sys_pid_gone(getpid()));
	CHECK(!sys_pid_gone(1));
	/* above any pid_max the kernel allows (4194304) */
	CHECK(sys_pid_gone(0x7ffffff0));

	pid = child("waiting");
	CHECK(pid > 0);
	CHECK(!sys_pid_gone(pid));
	/* stopped is not gone */
	kill(pid, SIGSTOP);
	CHECK(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st));
	CHECK(!sys_pid_gone(pid));
	kill(pid, SIGKILL);
	exited(pid);
	CHECK(sys_pid_gone(pid)); /* a zombie: its memory is already given back */
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st));
	CHECK(sys_pid_gone(pid));

	/* A name may hold ") Z (": the state is after the last ')'. */
	pid = child("a) Z (b");
	CHECK(pid > 0);
	CHECK(!sys_pid_gone(pid));
	kill(pid, SIGTERM);
	exited(pid);
	CHECK(sys_pid_gone(pid));
	waitpid(pid, &st, 0);

	pid = child(")");
	CHECK(pid > 0);
	CHECK(!sys_pid_gone(pid));
	kill(pid, SIGKILL);
	exited(pid);
	CHECK(sys_pid_gone(pid));
	waitpid(pid, &st, 0);
}

/* Field 22 of /proc/PID/stat, counted from the end of the name, strictly. */
UNIT_TEST(proc_start,
	  "field 22 of /proc/PID/stat, counted from the end of the name, strictly")
{
	static const char *const bad[] = {
	    "",
	    "1 (x)",
	    "1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18",
	    "1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 -5 6",
	    "1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 5x 6",
	    "1 (x)S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 5 6",
	    "1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 99999999999999999999 6",
	};
	uint64_t t = 0, mine = 0, again = 0;
	pid_t pid;

	CHECK(sys_proc_start("1 (init) S 0 1 1 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 "
			     "42 1000 9 18446744073709551615\n",
			     &t) == 0 &&
	      t == 42);
	CHECK(
	    sys_proc_start("7 (a) S 1 (b) S 0 1 1 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 "
			   "77\n",
			   &t) == 0 &&
	    t == 77);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(sys_proc_start(bad[i], &t) == -EINVAL);
	/* this process's, and the same each time; a child's is its own */
	CHECK(sys_self_start(&mine) == 0 && sys_self_start(&again) == 0 && mine == again);
	pid = child("later");
	if (pid > 0) {
		char p[64], buf[1024];
		FILE *f;

		snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
		f = fopen(p, "r");
		CHECK(f && fgets(buf, sizeof(buf), f) && sys_proc_start(buf, &t) == 0 &&
		      t >= mine);
		if (f)
			fclose(f);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}
