/* SPDX-License-Identifier: GPL-2.0-or-later */
/* adapt.h - pure: how many workers a node should have, found while it works: the knee
 * of its reservation rate, which differs between machines (doc/threads.md). */
#ifndef HUGEPAR_ADAPT_H
#define HUGEPAR_ADAPT_H

#include <stdbool.h>
#include <stdint.h>

#define ADAPT_GAIN 5 /* percent: a doubling must raise the node's rate this much */
#define ADAPT_DROP 3 /* percent: a measure's noise; a rate this much lower is a fall */
/* percent: fewer workers within this of the highest rate are kept over more (a third
 * of a measure's noise: fewer workers at 3% less cost 3% of the time; a choice that
 * rests on noise is measured again, adapt.c's settle()) */
#define ADAPT_SAME 2
/* percent: a measure this far from what the others say (two measures' noise) is taken
 * again before anything is decided on it */
#define ADAPT_DOUBT	(2 * ADAPT_DROP)
#define ADAPT_MAX_RATES 24
/* The start: a quarter of the ceiling as a power of two, within these (a node that
 * is best with one or two workers does not pay for eight while it is measured). */
#define ADAPT_START_MIN 2
#define ADAPT_START_MAX 4
/* Midpoints tried around the best count, at most (a bracket of 64 counts narrowed
 * to one on both sides of the best). */
#define ADAPT_MAX_REFINE 12
/* How often the coordinator looks at its nodes' progress, the shortest a measure
 * lasts (the clock's and the scheduler's noise stay small against it), and the
 * longest (a slow node still gets measured). */
#define ADAPT_TICK_MS	     5
#define ADAPT_MIN_MEASURE_MS 10
#define ADAPT_MAX_MEASURE_MS 500
/* A careful measure, one that tells apart counts near the best (refining, and each
 * count within ADAPT_DOUBT of the best measured before settling), lasts at least this
 * long, and at most a 1/ADAPT_CAREFUL_SHARE of the node's time left: a rate that
 * varies from one stretch of time to the next is averaged over more of them. */
#define ADAPT_CAREFUL_MS    200
#define ADAPT_CAREFUL_SHARE 32
/* percent: a settled node whose rate falls this far below its settled measure, over
 * ADAPT_WATCH_MS, searches again from its count (its neighbours took the memory
 * controllers or the CPUs it shares with them); ADAPT_MAX_REOPEN times at most */
#define ADAPT_DRIFT	 8
#define ADAPT_WATCH_MS	 500
#define ADAPT_MAX_REOPEN 2
/* percent: a settled node whose work, at its rate, would end this much after the
 * median node's searches again too, where it may have more workers (a node that
 * shares a cap or CPUs with others takes more of them with more workers; one that
 * settled on a noisy measure finds its count again): the run ends with its last
 * node */
#define ADAPT_LAG 4
/* Once a node's rate is known, a claim while it is measured is the pages a worker
 * reserves in this time: claims sized in time, not pages (a 1G page is the memory of
 * 512 2M ones), so a measure is short whatever the page costs. */
#define ADAPT_CLAIM_MS 5

struct adapt_rate {
	uint32_t workers;
	uint32_t pages_per_s;
};

enum adapt_phase {
	ADAPT_GROW,   /* doubling from the start */
	ADAPT_SHRINK, /* growing did not pay: halving */
	ADAPT_REFINE, /* trying midpoints around the best */
};

struct adapt {
	unsigned workers; /* at work */
	unsigned ceiling; /* at most */
	unsigned peak;	  /* the most that worked at once */
	unsigned last;	  /* the count measured before this one */
	double one; /* one writer's rate, where the auto probe measured it; 0: not */
	bool settled;
	enum adapt_phase phase;
	unsigned weak;	   /* doublings that gained less than ADAPT_GAIN */
	unsigned nrefined; /* midpoints tried: ADAPT_MAX_REFINE at most */
	/* set by the caller before each step, for refining's costs (0: not known): the
	 * pages the node has left, and the seconds the last change took to measure,
	 * its warm-up included */
	uint64_t left;
	double step_s;
	char how[64]; /* how the search ended */
	unsigned nrates;
	struct adapt_rate rates[ADAPT_MAX_RATES];
	uint32_t retaken;  /* bit i: rates[i] was measured again, doubted */
	uint32_t careful;  /* bit i: rates[i] is a careful measure's */
	bool careful_next; /* the measure under way is a careful one */
	unsigned reopened; /* searches begun again (adapt_watch()) */
	char why[96];
};

/* The start: a quarter of the ceiling, rounded down to a power of two, within
 * ADAPT_START_MIN and ADAPT_START_MAX and at most the ceiling; or the ceiling itself
 * when the count is fixed (threads = N). A ceiling of 1 has nothing to measure. */
void adapt_init(struct adapt *a, unsigned ceiling, bool fixed);
/* The node's rate over the last stretch with a->workers at work: the worker count to
 * go on with (more, the same, or fewer: the ones added last are retired). From a
 * small start the count is doubled while that raises the rate by a meaningful margin
 * and halved while fewer workers do as well; the bracket around the best count is
 * narrowed while a step may gain more than it costs, counts near the best are told
 * apart by careful (longer) measures, and the workers beyond the best are retired.
 * A measure that contradicts the others is taken once more first. */
unsigned adapt_step(struct adapt *a, double pages_per_s);
/* A settled node's rate over the last ADAPT_WATCH_MS, and whether its work would end
 * ADAPT_LAG after the median node's: true when the search begins again from the count
 * at work, because the rate fell ADAPT_DRIFT below the settled measure, or because
 * the node lags and may have more workers (the caller goes on measuring, and calls
 * adapt_step()). ADAPT_MAX_REOPEN times at most. */
bool adapt_watch(struct adapt *a, double pages_per_s, bool lagging);
/* The rate measured with k workers (0: none). */
uint32_t adapt_measured(const struct adapt *a, unsigned k);
/* The node's work ended before the controller settled. */
void adapt_done(struct adapt *a);

#endif
