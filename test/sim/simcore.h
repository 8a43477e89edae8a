/* SPDX-License-Identifier: GPL-2.0-or-later */
/* simcore.h - between the simulated kernel's files (sim.c, simcore.c, simfile.c). */
#ifndef HUGEPAR_SIMCORE_H
#define HUGEPAR_SIMCORE_H

#include <stdbool.h>
#include <stdint.h>

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
/* The per-size resize lock (LOCK_EX or LOCK_UN). */
int sim_resize_lock(unsigned z, int op);
/* Spend the time 'pages' take on node n (the cost model), the lock dropped so that
 * others work meanwhile. False when a signal cut a write short. */
bool sim_spend(unsigned n, unsigned z, uint64_t pages, bool write);
/* The most time lost to the simulation that later sleeps make up for. */
#define SIM_DEBT_MAX_S 0.01
/* Pages to do between two sleeps: about SIM_BATCH_S of work. */
#define SIM_BATCH_S 0.01
uint64_t sim_batch(unsigned z, unsigned n);

#endif
