/* SPDX-License-Identifier: GPL-2.0-or-later */
/* clock.h - the engine's time and its processes: the clock it reads, how it waits,
 * forks, signals, reaps and exits; the system calls, or the simulated clock in tests. */
#ifndef HUGEPAR_CLOCK_H
#define HUGEPAR_CLOCK_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

/* Monotonic time. */
uint64_t clock_now_ms(void);
uint64_t clock_now_us(void);
/* The waits. Every wait of an engine process goes through here (test/layers.sh
 * checks it), so that the test build's simulated clock (test/sim/simclock.c,
 * doc/simulator.md "Time") knows when a process waits and who wakes it: a simulated
 * machine then runs as its cost model says, on any host, busy or idle, and the same
 * run gives the same measures every time. Sleep; a signal ends it early (-EINTR). */
int clock_sleep_ms(uint64_t ms);
/* poll(2). */
int clock_poll(struct pollfd *pf, nfds_t n, int timeout_ms);
/* The process calls (proc_*), behind the same seam: the simulated clock must know
 * who forks, exits, reaps and signals. fork(2); the child gets pdeathsig (0: none)
 * when this process dies, at once if it already has. */
pid_t clock_fork(int pdeathsig);
/* _exit(2). */
__attribute__((noreturn)) void clock_exit(int code);
/* waitpid(2). */
pid_t clock_waitpid(pid_t pid, int *status, int flags);
/* kill(2). */
int clock_kill(pid_t pid, int sig);
/* SIGALRM at the deadline (monotonic ms, as clock_now_ms()); 0 disarms it. */
void clock_alarm(uint64_t deadline_ms);
/* Data for process pid is in a pipe, or a pipe it waits on was closed: the simulated
 * clock wakes it (a live kernel does by itself). */
void clock_wake(pid_t pid);

#ifdef HUGEPAR_TESTING
struct clock_ops {
	uint64_t (*now_us)(void);
	int (*sleep_ms)(uint64_t ms);
	int (*poll)(struct pollfd *pf, nfds_t n, int timeout_ms);
	pid_t (*fork)(int pdeathsig);
	void (*exit)(int code);
	pid_t (*waitpid)(pid_t pid, int *status, int flags);
	int (*kill)(pid_t pid, int sig);
	void (*alarm)(uint64_t deadline_ms);
	void (*wake)(pid_t pid);
};

extern const struct clock_ops clock_live;
void clock_use(const struct clock_ops *ops);
#endif

#endif
