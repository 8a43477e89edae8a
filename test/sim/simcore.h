/* SPDX-License-Identifier: GPL-2.0-or-later */
/* simcore.h - between the simulated kernel's files (sim.c, simcore.c, simfile.c). */
#ifndef HUGEPAR_SIMCORE_H
#define HUGEPAR_SIMCORE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "sim.h"

/* The copy of the state the current operation works on (between sim_lock() and
 * sim_unlock()). */
extern struct sim_state *sim_cur;

/* This process's binding (node indexes, -1: none), inherited at fork as CPU
 * affinity and mempolicy are. */
extern int sim_my_bind, sim_my_cpu;

/* Lock the state for an operation; a worker's reservation looks for dead holders
 * at most every SIM_REAP_MS. */
#define SIM_REAP_MS 50
int sim_lock_for(bool worker);
/* ...and writes the files at most every SIM_RENDER_MS. */
#define SIM_RENDER_MS 100
void sim_unlock_for(bool worker);

unsigned long sim_all_nodes(void);
uint64_t sim_psz(unsigned z);
struct hp_pool sim_total(unsigned z);
uint64_t sim_persistent(unsigned z);
/* hstate_next_node_to_alloc/free: the cursor's node in mask, then move it on. */
int sim_cursor_next(unsigned *cursor, unsigned long mask);
bool sim_node_can_give(unsigned n, unsigned z);
void sim_page_new(unsigned n, unsigned z, bool surplus);
void sim_page_destroy(unsigned n, unsigned z, bool surplus);
/* remove_pool_huge_page: free one free page, round robin over the nodes. */
int sim_remove_pool_page(unsigned z, unsigned long mask, bool acct_surplus);
/* return_unused_surplus_pages */
void sim_return_unused_surplus(unsigned z, uint64_t unused);
/* This process's holder for a size; add one when asked (NULL when full). */
struct sim_holder *sim_holder_of(unsigned z, bool add);
/* The holder's counts on node n, added when missing (NULL: it touches too many). */
struct sim_on *sim_holder_on(struct sim_holder *h, unsigned n);
/* A lock file under DIR/.sim opened by this process (a forked child shares its
 * parent's open file, and with it the parent's flock()); flock() through EINTR. */
int sim_own_fd(int *fd, pid_t *owner, const char *name);
int sim_flock(int fd, int op);
/* The per-size resize lock (LOCK_EX or LOCK_UN). */
int sim_resize_lock(unsigned z, int op);
/* Spend the time 'pages' take on node n (the cost model), the lock dropped so that
 * others work meanwhile. False when a signal cut a write short. */
bool sim_spend(unsigned n, unsigned z, uint64_t pages, bool write);
/* The most time lost to the simulation that later sleeps make up for. */
#define SIM_DEBT_MAX_S 0.01
/* Pages to do between two sleeps: about SIM_BATCH_S of work. */
#define SIM_BATCH_S 0.01
uint64_t sim_batch(unsigned z, unsigned n, bool write);
/* Each clock slot's allocation rate, pages a second (simcost.c): the node's curve at
 * the CPU shares of its allocators, its noise and its group's cap, shared. */
void sim_item_rates(double *rate);
/* The noise (a machine's `noise` line) holds a node's rate for this long. */
#define SIM_NOISE_NS (25 * UINT64_C(1000000))

/* ---- the clock (simclock.c, simseam.c) ---------------------------------------- */

#define CLK_MAGIC "HPCLK2"
#define CLK_MAX	  8192
/* A waiting process looks this often (host time) whether the baton's holder died
 * without a word, and says once when one has held it too long; the process of slot
 * s every CLK_LOOK_MS * (1 + s / CLK_LOOK_SLOTS): a few look often, and thousands
 * of waiting workers do not keep the host's CPUs from the one that runs. */
#define CLK_LOOK_MS    200
#define CLK_LOOK_SLOTS 64
#define CLK_STUCK_MS   20000

enum { P_FREE, P_READY, P_RUN, P_WAIT, P_DYING };
enum { WOKE_NONE, WOKE_TIME, WOKE_EVENT, WOKE_DONE, WOKE_SIGNAL };

struct clk_proc {
	int32_t pid;
	int32_t parent_pid;
	int32_t pdeathsig;
	uint32_t state;
	uint32_t go; /* a futex: the baton is this slot's */
	uint32_t woke;
	/* the wait: its end in time (0: none), whether a wake or a signal ends it */
	uint64_t wake_ns;
	uint8_t event, intr;
	/* an allocation in flight: node and size index (node -1: none), pages left */
	int16_t node, z;
	int16_t cpu; /* the node whose CPUs it runs on (-1: not known, none taken) */
	double left;
	uint64_t alarm_ns; /* the deadline's SIGALRM, 0: none */
	uint64_t ready_seq;
	char site[12]; /* what it waits in, for a stuck or dead-locked run */
};

struct clk_table {
	char magic[8];
	uint64_t now_ns;
	int32_t baton; /* slot, -1: nobody's */
	uint32_t top;  /* slots in use are below */
	uint64_t seq, moves;
	uint64_t fork_ns;
	struct clk_proc p[CLK_MAX];
};

extern struct clk_table *simclock_tab;
extern int simclock_me; /* this process's slot, -1: not on the clock */
extern int simclock_lock_fd;
/* The table's lock. */
void simclock_lk(void);
void simclock_unlk(void);
long simclock_futex(uint32_t *w, int op, uint32_t val, const struct timespec *ts);
int simclock_slot_of(pid_t pid);
int simclock_slot_new(void);
void simclock_slot_free(int s);
/* Ready to run, for a reason (WOKE_*), in the order made ready. */
void simclock_make_ready(int s, int why);
/* The baton to slot s. */
void simclock_give(int s);
/* Outside any wait of the seam (just forked, just joined): until slot s has the
 * baton. */
void simclock_await(int s);
/* A wake for process pid: ends a wait that a wake ends. */
void simclock_wake_pid(pid_t pid);
/* A handled signal for slot s, announced: ends a wait that a signal ends. */
void simclock_signal_slot(int s);
/* Slot s's process has exited: what exit does. */
void simclock_slot_gone(int s);
/* The baton on: to the process made ready first; when none is, time moves. */
void simclock_handoff(void);
/* This process waits, its slot saying for what (the lock held): the baton goes on,
 * and comes back. Returns why the wait ended. */
int simclock_yield(const char *site);
/* A wait until the simulated time 'until' (0: none), a wake (event) or a signal
 * (intr); the lock is taken here. */
int simclock_wait_for(const char *site, uint64_t until, bool event, bool intr);

#endif
