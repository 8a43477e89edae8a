/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * simclock.c - the simulated kernel's own clock: a discrete-event simulation of the
 * processes of an apply (doc/simulator.md, "Time").
 *
 * The table, DIR/.sim/clock, shared by every process of a run, has a slot per
 * process: the main process joins, and each fork adds the child. One process runs at
 * a time, the one with the baton; it gives the baton up only in the clock seam, when
 * it waits (sleep, poll, waitpid, an allocation of the cost model), forks or exits.
 * The baton goes to the process made ready first; when none is, time moves to the
 * earliest end of a wait and the processes it ends are made ready, in slot order.
 * An allocation's end comes from the node's rate (the cost model, simcost.c): the
 * W allocations in flight on a node share its rate with W at work (processor
 * sharing), so a node gives exactly its curve. Because only the baton's holder runs, what the processes do to shared
 * memory, in what order, and at what simulated time, is the same in every run.
 *
 * The table's lock (DIR/.sim/clock.lock) is taken for every change to it; the state's
 * lock is never held while it is taken. simseam.c puts the clock behind the seam.
 */
#include <errno.h>
#include <linux/futex.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "macros.h"
#include "sim.h"
#include "simclock.h"
#include "simcore.h"
#include "sys.h"

struct clk_table *simclock_tab;
int simclock_me = -1;
int simclock_lock_fd = -1;
static pid_t lock_pid;

/* ---- the table's lock, a file lock of this process's own ---------------------- */

void simclock_lk(void)
{
	if (!sim_own_fd(&simclock_lock_fd, &lock_pid, "clock.lock"))
		sim_flock(simclock_lock_fd, LOCK_EX);
}

void simclock_unlk(void)
{
	flock(simclock_lock_fd, LOCK_UN);
}

long simclock_futex(uint32_t *w, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, w, op, val, ts, NULL, 0);
}

/* ---- the table: slots, readiness, the baton ----------------------------------- */

int simclock_slot_of(pid_t pid)
{
	for (unsigned s = 0; pid > 0 && s < simclock_tab->top; s++)
		if (simclock_tab->p[s].state != P_FREE && simclock_tab->p[s].pid == pid)
			return (int)s;
	return -1;
}

int simclock_slot_new(void)
{
	for (unsigned s = 0; s < CLK_MAX; s++)
		if (simclock_tab->p[s].state == P_FREE) {
			memset(&simclock_tab->p[s], 0, sizeof(simclock_tab->p[s]));
			simclock_tab->p[s].node = -1;
			simclock_tab->top = MAX(simclock_tab->top, s + 1);
			return (int)s;
		}
	return -1;
}

void simclock_slot_free(int s)
{
	simclock_tab->p[s].state = P_FREE;
	while (simclock_tab->top &&
	       simclock_tab->p[simclock_tab->top - 1].state == P_FREE)
		simclock_tab->top--;
}

void simclock_make_ready(int s, int why)
{
	struct clk_proc *p = &simclock_tab->p[s];

	p->woke = why;
	p->wake_ns = 0;
	p->node = -1;
	p->ready_seq = ++simclock_tab->seq;
	p->state = P_READY;
}

void simclock_give(int s)
{
	simclock_tab->baton = s;
	simclock_tab->moves++;
	simclock_tab->p[s].state = P_RUN;
	__atomic_store_n(&simclock_tab->p[s].go, 1, __ATOMIC_RELEASE);
	simclock_futex(&simclock_tab->p[s].go, FUTEX_WAKE, 1, NULL);
}

void simclock_await(int s)
{
	while (!__atomic_load_n(&simclock_tab->p[s].go, __ATOMIC_ACQUIRE))
		simclock_futex(&simclock_tab->p[s].go, FUTEX_WAIT, 0, NULL);
}

/* A wake for process pid: ends a wait that a wake ends. */
void simclock_wake_pid(pid_t pid)
{
	int s = simclock_slot_of(pid);

	if (s >= 0 && simclock_tab->p[s].state == P_WAIT && simclock_tab->p[s].event)
		simclock_make_ready(s, WOKE_EVENT);
}

/* A handled signal for slot s, announced: ends a wait that a signal ends. */
void simclock_signal_slot(int s)
{
	if (simclock_tab->p[s].state == P_WAIT && simclock_tab->p[s].intr)
		simclock_make_ready(s, WOKE_SIGNAL);
}

/* Slot s is gone (its process has exited): what exit does. */
void simclock_slot_gone(int s)
{
	pid_t pid = simclock_tab->p[s].pid, parent = simclock_tab->p[s].parent_pid;

	if (simclock_tab->baton == s)
		simclock_tab->baton = -1;
	simclock_slot_free(s);
	simclock_wake_pid(parent);
	/* its children's parent-death signal */
	for (unsigned c = 0; c < simclock_tab->top; c++) {
		struct clk_proc *p = &simclock_tab->p[c];

		if (p->state == P_FREE || p->state == P_DYING || p->parent_pid != pid)
			continue;
		if (p->pdeathsig == SIGKILL)
			p->state = P_DYING;
		else if (p->pdeathsig)
			simclock_signal_slot((int)c);
	}
}

/* Wait until every dying process but this one is gone, and do what exit does for
 * each. Their pages go back to the simulated kernel first. */
static void clk_reap_dying(void)
{
	for (;;) {
		bool any = false, freed = false;

		for (unsigned s = 0; s < simclock_tab->top; s++) {
			if (simclock_tab->p[s].state != P_DYING || (int)s == simclock_me)
				continue;
			any = true;
			if (sys_pid_gone(simclock_tab->p[s].pid)) {
				sim_reap();
				simclock_slot_gone((int)s);
				freed = true;
			}
		}
		if (!any)
			return;
		if (!freed) {
			struct timespec ts = {0, 200000};

			nanosleep(&ts, NULL);
		}
	}
}

static uint64_t item_end(const struct clk_proc *p, double rate, uint64_t now)
{
	double ns = ceil(p->left / rate * 1e9);

	return isfinite(ns) ? now + (uint64_t)MAX(ns, 0.0) : now;
}

/* Move time to the earliest end of a wait; make ready what ends there. Returns false
 * when no wait can end by time. */
static bool advance(void)
{
	static double rate[CLK_MAX];
	uint64_t now = simclock_tab->now_ns, next = UINT64_MAX;

	sim_item_rates(rate);
	for (unsigned s = 0; s < simclock_tab->top; s++) {
		const struct clk_proc *p = &simclock_tab->p[s];

		if (p->state != P_WAIT)
			continue;
		if (p->wake_ns)
			next = MIN(next, p->wake_ns);
		if (p->intr && p->alarm_ns)
			next = MIN(next, p->alarm_ns);
		if (p->node >= 0) {
			next = MIN(next, item_end(p, rate[s], now));
			/* the noise changes at the next stretch: the rates with it */
			if (sim_cur->noise > 0)
				next = MIN(next, (now / SIM_NOISE_NS + 1) * SIM_NOISE_NS);
		}
	}
	if (next == UINT64_MAX)
		return false;
	next = MAX(next, now);
	simclock_tab->now_ns = next;
	for (unsigned s = 0; s < simclock_tab->top; s++) {
		struct clk_proc *p = &simclock_tab->p[s];

		if (p->state != P_WAIT)
			continue;
		if (p->node >= 0) {
			bool done = item_end(p, rate[s], now) <= next;

			p->left =
			    done ? 0 : p->left - rate[s] * (double)(next - now) / 1e9;
			if (done || p->left < 1e-6) {
				simclock_make_ready((int)s, WOKE_DONE);
				continue;
			}
		}
		if (p->intr && p->alarm_ns && p->alarm_ns <= next) {
			p->alarm_ns = 0;
			simclock_make_ready((int)s, WOKE_SIGNAL);
		} else if (p->wake_ns && p->wake_ns <= next) {
			simclock_make_ready((int)s, WOKE_TIME);
		}
	}
	return true;
}

static void dump(const char *why)
{
	fprintf(stderr, "hugepar-sim: %s at %llu ns; the clock's processes:\n", why,
		(unsigned long long)simclock_tab->now_ns);
	for (unsigned s = 0; s < simclock_tab->top; s++) {
		const struct clk_proc *p = &simclock_tab->p[s];

		if (p->state != P_FREE)
			fprintf(stderr,
				"  slot %u pid %d parent %d state %u in %s wake %llu "
				"event %u intr %u node %d left %g\n",
				s, p->pid, p->parent_pid, p->state, p->site,
				(unsigned long long)p->wake_ns, p->event, p->intr,
				p->node, p->left);
	}
}

/* Give the baton on: to the process made ready first; when none is, move time. */
void simclock_handoff(void)
{
	for (;;) {
		int best = -1;

		clk_reap_dying();
		for (unsigned s = 0; s < simclock_tab->top; s++)
			if (simclock_tab->p[s].state == P_READY &&
			    (best < 0 || simclock_tab->p[s].ready_seq <
					     simclock_tab->p[best].ready_seq))
				best = (int)s;
		if (best >= 0) {
			simclock_give(best);
			return;
		}
		if (advance())
			continue;
		simclock_tab->baton = -1;
		for (unsigned s = 0; s < simclock_tab->top && best < 0; s++)
			if (simclock_tab->p[s].state != P_FREE && (int)s != simclock_me)
				best = (int)s;
		if (best < 0)
			return; /* the last one has left, or is killing itself */
		best = -1;
		/* Nothing can end a wait: a process that died unannounced, or a
		 * dead lock. */
		for (unsigned s = 0; s < simclock_tab->top; s++)
			if (simclock_tab->p[s].state != P_FREE && (int)s != simclock_me &&
			    sys_pid_gone(simclock_tab->p[s].pid)) {
				simclock_tab->p[s].state = P_DYING;
				best = (int)s;
			}
		if (best >= 0)
			continue;
		dump("no process can run");
		for (unsigned s = 0; s < simclock_tab->top; s++)
			if (simclock_tab->p[s].state != P_FREE && (int)s != simclock_me)
				kill(simclock_tab->p[s].pid, SIGABRT);
		abort();
	}
}

/* This process waits (its slot says for what; the lock is held): give the baton on,
 * and come back with it. Returns why the wait ended. */
int simclock_yield(const char *site)
{
	struct clk_proc *p = &simclock_tab->p[simclock_me];
	uint64_t seen = simclock_tab->moves, since = sys_mono_ms();
	bool told = false;

	snprintf(p->site, sizeof(p->site), "%s", site);
	__atomic_store_n(&p->go, 0, __ATOMIC_RELAXED);
	p->state = P_WAIT;
	/* the deadline's alarm already past: the signal it would have sent */
	if (p->intr && p->alarm_ns && p->alarm_ns <= simclock_tab->now_ns) {
		p->alarm_ns = 0;
		p->state = P_RUN;
		simclock_unlk();
		return WOKE_SIGNAL;
	}
	simclock_handoff();
	simclock_unlk();
	while (!__atomic_load_n(&p->go, __ATOMIC_ACQUIRE)) {
		long look = CLK_LOOK_MS * (1L + simclock_me / CLK_LOOK_SLOTS);
		struct timespec ts = {look / 1000, look % 1000 * 1000000L};
		int b = -1, e;
		uint64_t moved;

		if (simclock_futex(&p->go, FUTEX_WAIT, 0, &ts) == 0 || errno == EAGAIN)
			continue;
		e = errno;
		/* the baton has moved since the last look: the run goes on, and the
		 * lock is left to the processes that run (thousands of waiters
		 * taking it at each look stall the one that runs) */
		moved = __atomic_load_n(&simclock_tab->moves, __ATOMIC_RELAXED);
		if (e != EINTR && moved != seen) {
			seen = moved;
			since = sys_mono_ms();
			continue;
		}
		simclock_lk();
		if (e == EINTR) {
			/* a signal nobody announced (from outside the run) */
			simclock_signal_slot(simclock_me);
			if (simclock_tab->baton < 0 && p->state == P_READY)
				simclock_handoff();
		} else if (simclock_tab->moves == seen &&
			   ((b = simclock_tab->baton) < 0 ||
			    (b != simclock_me && sys_pid_gone(simclock_tab->p[b].pid)))) {
			/* the baton's holder killed itself, or died without a word */
			if (b >= 0)
				simclock_tab->p[b].state = P_DYING;
			simclock_tab->baton = -1;
			simclock_handoff();
		} else if (simclock_tab->moves != seen) {
			seen = simclock_tab->moves;
			since = sys_mono_ms();
		} else if (!told && sys_mono_ms() - since > CLK_STUCK_MS) {
			told = true;
			fprintf(stderr,
				"hugepar-sim: process %d has held the clock for %d s "
				"(blocked outside the clock seam?)\n",
				b >= 0 ? simclock_tab->p[b].pid : -1,
				CLK_STUCK_MS / 1000);
			dump("a stuck clock");
		}
		simclock_unlk();
	}
	p->site[0] = '\0';
	return (int)p->woke;
}

/* A wait of this process: until the simulated time 'until' (0: none), a wake
 * (event) or a signal (intr). The lock is taken here. */
int simclock_wait_for(const char *site, uint64_t until, bool event, bool intr)
{
	struct clk_proc *p;

	simclock_lk();
	p = &simclock_tab->p[simclock_me];
	p->wake_ns = until;
	p->event = event;
	p->intr = intr;
	p->node = -1;
	return simclock_yield(site);
}

/* ---- the cost model's allocations --------------------------------------------- */

bool simclock_on(void)
{
	return simclock_me >= 0;
}

bool simclock_spend(unsigned n, unsigned z, double pages, bool write)
{
	struct clk_proc *p;

	if (pages <= 0)
		return true;
	simclock_lk();
	p = &simclock_tab->p[simclock_me];
	p->wake_ns = 0;
	p->event = false;
	p->intr = write;
	p->node = (int16_t)n;
	p->z = (int16_t)z;
	p->cpu = (int16_t)sim_my_cpu;
	p->left = pages;
	return simclock_yield(write ? "write" : "reserve") != WOKE_SIGNAL;
}
