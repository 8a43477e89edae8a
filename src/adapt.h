/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * adapt.h - pure: how many workers a node should have, found while it works. The
 * node's reservation rate is measured with k workers, k is doubled while that raises
 * the rate by a meaningful margin, the midpoints around the best count are tried, and
 * the workers beyond the best are retired: the knee, which differs from machine to
 * machine (doc/threads.md).
 */
#ifndef HUGEPAR_ADAPT_H
#define HUGEPAR_ADAPT_H

#include <stdbool.h>
#include <stdint.h>

#define ADAPT_GAIN	5 /* percent: a doubling must raise the node's rate this much */
#define ADAPT_DROP	3 /* percent: a measure's noise; a rate this much lower is a fall */
#define ADAPT_MAX_RATES 12
/* Every machine measured gains up to this many workers a node: no need to measure
 * fewer. */
#define ADAPT_START_MIN 8
/* How often the coordinator looks at its nodes' progress, the shortest a measure
 * lasts (the clock's and the scheduler's noise stay small against it), and the
 * longest (a slow node still gets measured). */
#define ADAPT_TICK_MS	     5
#define ADAPT_MIN_MEASURE_MS 20
#define ADAPT_MAX_MEASURE_MS 500

struct adapt_rate {
	uint32_t workers;
	uint32_t pages_per_s;
};

struct adapt {
	unsigned k;	  /* workers at work */
	unsigned ceiling; /* at most */
	unsigned peak;	  /* the most that worked at once */
	bool settled;
	bool refining;	   /* growth ended: trying midpoints */
	unsigned weak;	   /* doublings that gained less than ADAPT_GAIN */
	unsigned nrefined; /* midpoints tried: two at most */
	char how[64];	   /* how growth ended */
	unsigned nrates;
	struct adapt_rate rates[ADAPT_MAX_RATES];
	char why[96];
};

/* The start: a quarter of the ceiling, rounded down to a power of two, at least
 * ADAPT_START_MIN and at most the ceiling; or the ceiling itself when the count is
 * fixed (threads = N). */
void adapt_init(struct adapt *a, unsigned ceiling, bool fixed);
/* The node's rate over the last stretch with a->k workers: the worker count to go on
 * with (more, the same, or fewer: the ones added last are retired). */
unsigned adapt_step(struct adapt *a, double pages_per_s);
/* The node's work ended before the controller settled. */
void adapt_done(struct adapt *a);

#endif
