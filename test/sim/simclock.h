/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * simclock.h - the simulated kernel's own clock (test build; doc/simulator.md,
 * "Time"). Behind the clock seam (src/kernel/clock.h), the processes of an apply run
 * one at a time, each until it waits, and time moves only when all of them wait: to
 * the earliest end of a wait, of which the cost model's allocations are one kind.
 */
#ifndef HUGEPAR_SIMCLOCK_H
#define HUGEPAR_SIMCLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"

extern const struct clock_ops sim_clock;

/* This process joins the clock of the simulated kernel opened with sim_open(), when
 * its machine's clock is virtual (the default; the machine line `clock host` or
 * HUGEPAR_SIM_CLOCK=host keep the host's), and puts it behind the clock seam.
 * Returns 0 or -errno. */
int sim_clock_join(void);
/* Whether this process is on the simulated clock. */
bool simclock_on(void);
/* Allocate 'pages' on node n (index) of size z (index) in simulated time, sharing
 * the node with the other allocations in flight on it (doc/simulator.md). A write
 * is cut by a signal or the deadline's alarm: false then. */
bool simclock_spend(unsigned n, unsigned z, double pages, bool write);

#endif
