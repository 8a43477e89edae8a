/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * adapt.c - pure: the number of workers a node settles at (adapt.h, doc/threads.md).
 *
 * Grow: from a power of two near a quarter of the ceiling, double while a doubling
 * raises the node's rate by ADAPT_GAIN or more, past one smaller gain, not past a
 * fall. Refine: when the best count measured
 * lies between two clearly worse ones, try the midpoint toward the better of them,
 * and once more if that one won. Settle at the best count measured; the workers
 * beyond it are retired (they keep what they hold).
 */
#include <stdio.h>
#include <string.h>

#include "adapt.h"
#include "util.h"

static const char *workers(unsigned k)
{
	return k == 1 ? "worker" : "workers";
}

void adapt_init(struct adapt *a, unsigned ceiling, bool fixed)
{
	unsigned q;

	memset(a, 0, sizeof(*a));
	a->ceiling = MAX(ceiling, 1u);
	q = MAX(a->ceiling / 4, 1u);
	q = 1u << (31 - __builtin_clz(q));
	a->k = fixed ? a->ceiling : MIN(a->ceiling, MAX(q, ADAPT_START_MIN));
	a->peak = a->k;
	a->settled = fixed || a->k == a->ceiling;
	if (fixed)
		snprintf(a->why, sizeof(a->why), "%u %s asked for", a->k, workers(a->k));
	else if (a->settled) /* nothing to measure against */
		snprintf(a->why, sizeof(a->why), "%u %s, the most this node may have",
			 a->k, workers(a->k));
}

static uint32_t measured(const struct adapt *a, unsigned k)
{
	for (unsigned i = 0; i < a->nrates; i++)
		if (a->rates[i].workers == k)
			return a->rates[i].pages_per_s;
	return 0;
}

static void note(struct adapt *a, double rate)
{
	uint32_t r = rate > 4e9 ? 4000000000u : (uint32_t)(rate + 0.5);

	for (unsigned i = 0; i < a->nrates; i++)
		if (a->rates[i].workers == a->k) {
			a->rates[i].pages_per_s =
			    r; /* measured again: the newer counts */
			return;
		}
	if (a->nrates < ADAPT_MAX_RATES)
		a->rates[a->nrates++] = (struct adapt_rate){a->k, r};
}

/* The best count measured: the fewest workers within ADAPT_DROP of the highest rate
 * (more workers must win by more than one measure's noise to be kept). */
static unsigned best(const struct adapt *a)
{
	uint32_t top = 0;
	unsigned b = 0;

	for (unsigned i = 0; i < a->nrates; i++)
		top = MAX(top, a->rates[i].pages_per_s);
	for (unsigned i = 0; i < a->nrates; i++)
		if ((uint64_t)a->rates[i].pages_per_s * 100 >=
			(uint64_t)top * (100 - ADAPT_DROP) &&
		    (!b || a->rates[i].workers < b))
			b = a->rates[i].workers;
	return b;
}

/* The measured counts next to b, below and above (0: none). */
static void neighbours(const struct adapt *a, unsigned b, unsigned *lo, unsigned *hi)
{
	*lo = *hi = 0;
	for (unsigned i = 0; i < a->nrates; i++) {
		unsigned k = a->rates[i].workers;

		if (k < b && k > *lo)
			*lo = k;
		if (k > b && (!*hi || k < *hi))
			*hi = k;
	}
}

static unsigned go(struct adapt *a, unsigned k)
{
	a->k = k;
	a->peak = MAX(a->peak, k);
	return k;
}

static unsigned settle(struct adapt *a, const char *how)
{
	unsigned b = best(a);

	a->settled = true;
	snprintf(a->why, sizeof(a->why), "%s; the best measured: %u %s, %u pages/s", how,
		 b, workers(b), measured(a, b));
	return go(a, b);
}

/*
 * After growing: the best count measured, with worse ones on both sides, has the knee
 * between its neighbours, on the side of the better one. Try the midpoint there; go
 * on while a midpoint beats the best, twice at most. A neighbour within ADAPT_DROP of
 * the best says the curve is flat there: nothing to win between them.
 */
static unsigned refine(struct adapt *a, const char *how)
{
	unsigned b = best(a), lo, hi, side, mid;
	uint32_t rb = measured(a, b);

	a->refining = true;
	neighbours(a, b, &lo, &hi);
	if (!lo || !hi || a->nrefined >= 2 || (a->nrefined && a->k != b))
		return settle(a, how);
	side = measured(a, lo) >= measured(a, hi) ? lo : hi;
	if ((uint64_t)measured(a, side) * 100 >= (uint64_t)rb * (100 - ADAPT_DROP))
		return settle(a, how);
	mid = (side + b) / 2;
	if (mid == side || mid == b || measured(a, mid))
		return settle(a, how);
	a->nrefined++;
	return go(a, mid);
}

unsigned adapt_step(struct adapt *a, double rate)
{
	const struct adapt_rate *prev;
	char how[64];
	long change;

	if (a->settled)
		return a->k;
	note(a, rate);
	if (a->refining)
		return refine(a, a->how);
	if (a->nrates == 1) /* below the ceiling, or adapt_init had settled */
		return go(a, MIN(a->ceiling, a->k * 2));
	prev = &a->rates[a->nrates - 2];
	change = prev->pages_per_s
		     ? (long)((rate - prev->pages_per_s) * 100 / prev->pages_per_s)
		     : 100;
	snprintf(how, sizeof(how), "%u %s gave %+ld%% over %u", a->k, workers(a->k),
		 change, prev->workers);
	/* A small gain may be the noise of one measure: growth ends at a fall, or at
	 * the second small gain. */
	if (change < ADAPT_GAIN)
		a->weak++;
	if (change > -ADAPT_DROP && a->weak < 2 && a->k < a->ceiling)
		return go(a, MIN(a->ceiling, a->k * 2));
	snprintf(a->how, sizeof(a->how), "%s", how);
	return refine(a, a->how);
}

void adapt_done(struct adapt *a)
{
	if (a->settled)
		return;
	a->settled = true;
	snprintf(a->why, sizeof(a->why),
		 "the work ended at %u %s, before a settled measure", a->k,
		 workers(a->k));
}
