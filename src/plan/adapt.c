/* SPDX-License-Identifier: GPL-2.0-or-later */
/* adapt.c - pure: the number of workers a node settles at (adapt.h, doc/threads.md). */
#include <stdio.h>
#include <string.h>

#include "adapt.h"
#include "macros.h"

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
	q = MIN(MAX(q, ADAPT_START_MIN), ADAPT_START_MAX);
	a->workers = fixed ? a->ceiling : MIN(a->ceiling, q);
	a->peak = a->workers;
	a->settled = fixed || a->ceiling == 1;
	if (fixed)
		snprintf(a->why, sizeof(a->why), "%u %s asked for", a->workers,
			 workers(a->workers));
	else if (a->settled) /* nothing to measure against */
		snprintf(a->why, sizeof(a->why), "%u %s, the most this node may have",
			 a->workers, workers(a->workers));
}

static uint32_t measured(const struct adapt *a, unsigned k)
{
	for (unsigned i = 0; i < a->nrates; i++)
		if (a->rates[i].workers == k)
			return a->rates[i].pages_per_s;
	return 0;
}

uint32_t adapt_measured(const struct adapt *a, unsigned k)
{
	return measured(a, k);
}

static void note(struct adapt *a, double rate)
{
	uint32_t r = rate > 4e9 ? 4000000000u : (uint32_t)(rate + 0.5);

	unsigned i = 0;

	while (i < a->nrates && a->rates[i].workers != a->workers)
		i++;
	if (i == a->nrates && a->nrates == ADAPT_MAX_RATES)
		return;
	if (i == a->nrates)
		a->nrates++;
	/* measured again (doubted, or careful after a short one): the newer replaces
	 * it, and a careful measure is not replaced by a short one */
	else if (a->careful & 1u << i && !a->careful_next)
		return;
	a->rates[i] = (struct adapt_rate){a->workers, r};
	if (a->careful_next && i < 32)
		a->careful |= 1u << i;
}

/* The best count measured: the fewest workers within ADAPT_SAME of the highest rate
 * (more workers must win by more than that to be kept). */
static unsigned best(const struct adapt *a)
{
	uint32_t top = 0;
	unsigned b = 0;

	for (unsigned i = 0; i < a->nrates; i++)
		top = MAX(top, a->rates[i].pages_per_s);
	for (unsigned i = 0; i < a->nrates; i++)
		if ((uint64_t)a->rates[i].pages_per_s * 100 >=
			(uint64_t)top * (100 - ADAPT_SAME) &&
		    (!b || a->rates[i].workers < b))
			b = a->rates[i].workers;
	return b;
}

/* The index of count k's measure (nrates: none). */
static unsigned rate_index(const struct adapt *a, unsigned k)
{
	unsigned i = 0;

	while (i < a->nrates && a->rates[i].workers != k)
		i++;
	return i;
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
	a->workers = k;
	a->peak = MAX(a->peak, k);
	return k;
}

/*
 * A count whose short measure the choice rests on (its index; nrates: none): the
 * best, then any count more workers measured above it (a careful measure may make it
 * the top), then any fewer within ADAPT_DOUBT of the top (one may turn out the best).
 * Counts of more workers measured below the best cannot change the choice.
 */
static unsigned unsure(const struct adapt *a)
{
	unsigned b = best(a), ib = rate_index(a, b);
	uint32_t rb = measured(a, b), top = 0;

	if (!(a->careful & 1u << ib))
		return ib;
	for (unsigned i = 0; i < a->nrates; i++)
		top = MAX(top, a->rates[i].pages_per_s);
	for (unsigned i = 0; i < a->nrates; i++) {
		unsigned k = a->rates[i].workers;
		uint64_t r = a->rates[i].pages_per_s;

		if (a->careful & 1u << i)
			continue;
		if ((k > b && r > rb) ||
		    (k < b && r * 100 >= (uint64_t)top * (100 - ADAPT_DOUBT)))
			return i;
	}
	return a->nrates;
}

static unsigned settle(struct adapt *a, const char *how)
{
	unsigned i = unsure(a), b;

	/* the choice among counts within a measure's noise of each other rests on that
	 * noise: such a count measured short is measured again, carefully, and the
	 * careful measure replaces the short one (doc/threads.md, "Settle", says what it
	 * was without) */
	if (i < a->nrates) {
		if (how != a->how)
			snprintf(a->how, sizeof(a->how), "%s", how);
		a->careful_next = true;
		return go(a, a->rates[i].workers);
	}
	b = best(a);
	a->settled = true;
	snprintf(a->why, sizeof(a->why), "%s; the best measured: %u %s, %u pages/s", how,
		 b, workers(b), measured(a, b));
	return go(a, b);
}

/* The fewest workers measured. */
static unsigned fewest(const struct adapt *a)
{
	unsigned f = 0;

	for (unsigned i = 0; i < a->nrates; i++)
		if (!f || a->rates[i].workers < f)
			f = a->rates[i].workers;
	return f;
}

/* The most a count strictly between b and its measured neighbour nb may give (0: no
 * count lies between): a node's rate per worker does not grow with more workers, so
 * no count k gives more than k times the lower end's rate per worker. */
static double gap_bound(const struct adapt *a, unsigned b, unsigned nb)
{
	unsigned from = MIN(b, nb), to = MAX(b, nb);

	if (!nb || to - from < 2)
		return 0;
	return (double)measured(a, from) * (to - 1) / from;
}

/*
 * Whether the gap between b and its neighbour nb is worth a measure (its bound, or 0):
 * a count in it may beat b by more than a measure's noise (ADAPT_DROP: less could not
 * be told from b), and what that would save of the work left is more than the step
 * costs: a warm-up and a measure as long as the last, at a rate that may be as low as
 * the neighbour's (between two counts the rate is at least the lower of theirs).
 * Where the work left is not known, the noise alone decides.
 */
static double gap_worth(const struct adapt *a, unsigned b, unsigned nb)
{
	double bound = gap_bound(a, b, nb), rb = measured(a, b), rn = measured(a, nb);
	double gain, cost;

	if (!rb || bound * 100 <= rb * (100 + ADAPT_DROP))
		return 0;
	if (!a->left)
		return bound;
	gain = (double)a->left / rb - (double)a->left / bound;
	cost = a->step_s * (rb > rn ? 1 - rn / rb : 0);
	return gain > cost ? bound : 0;
}

/*
 * After growing (and shrinking): the best count measured lies between its measured
 * neighbours, and so, the rate having one peak, does the best count. Narrow that
 * bracket: measure the midpoint of the side whose gap may give the most; a midpoint
 * that wins is the new best (its neighbours the new bracket), one that loses the new
 * neighbour on its side. Each step shrinks the bracket; it stops when no gap is worth
 * a measure (gap_worth()), or after ADAPT_MAX_REFINE steps. So a sharp peak between
 * two counts measured lower (11 between 8 and 16, both far below it) is found. With
 * no measured count above the best (growth stopped there for a reason, or it is the
 * ceiling), nothing is looked for above; with none below, nothing below (the fewest
 * measured is one worker, or the probe's one writer said fewer could not win).
 */
static unsigned refine(struct adapt *a, const char *how)
{
	unsigned b = best(a), lo, hi, mid;
	double up, down;

	a->phase = ADAPT_REFINE;
	neighbours(a, b, &lo, &hi);
	up = gap_worth(a, b, hi);
	down = gap_worth(a, b, lo);
	if ((!up && !down) || a->nrefined >= ADAPT_MAX_REFINE)
		return settle(a, how);
	mid = up > down ? (b + hi) / 2 : (lo + b) / 2;
	a->nrefined++;
	a->careful_next = true; /* near the best: told apart from it carefully */
	return go(a, mid);
}

/* Whether f/2 workers might beat f: they can do no more than f/2 times one writer,
 * where the probe measured one (a node bound by a lock does less than one writer
 * with f workers; a node that scales does clearly more). */
static bool fewer_may_win(const struct adapt *a, unsigned f)
{
	return !a->one || measured(a, f) * 100.0 < a->one * (f / 2) * (100 + ADAPT_GAIN);
}

/* Growing ended: when the start (the fewest measured) is still the best and more
 * than one worker, fewer may do better. */
static unsigned grown(struct adapt *a, const char *how)
{
	unsigned f = fewest(a);

	snprintf(a->how, sizeof(a->how), "%s", how);
	if (f > 1 && best(a) == f && fewer_may_win(a, f)) {
		a->phase = ADAPT_SHRINK;
		a->last = f; /* halved from the start */
		return go(a, f / 2);
	}
	return refine(a, a->how);
}

/* How the last measure compared with the one before (the workers at work against
 * prev). */
static long compare(const struct adapt *a, double rate, unsigned prev, char *how,
		    size_t len)
{
	uint32_t pr = measured(a, prev);
	long change = pr ? (long)((rate - pr) * 100 / pr) : 100;

	snprintf(how, len, "%u %s gave %+ld%% over %u", a->workers, workers(a->workers),
		 change, prev);
	return change;
}

/*
 * Whether the measure at k contradicts the others by more than ADAPT_DOUBT: fewer
 * workers each doing clearly less than more workers each do (a node's rate per worker
 * does not grow with more workers, who share its locks and its memory), or a rate
 * clearly below both measured neighbours (the rate has one peak). One measure taken
 * while the host was busy elsewhere, on a simulated or a virtual machine, can be five
 * times too low: decided on, it sends the search to the wrong side.
 */
static bool doubtful(const struct adapt *a, unsigned k)
{
	uint64_t m = measured(a, k);
	unsigned lo, hi;

	for (unsigned i = 0; i < a->nrates; i++) {
		uint64_t j = a->rates[i].workers, mj = a->rates[i].pages_per_s;

		if (j > k && m * j * 100 < mj * k * (100 - ADAPT_DOUBT))
			return true;
	}
	neighbours(a, k, &lo, &hi);
	return lo && hi &&
	       m * 100 <
		   (uint64_t)MIN(measured(a, lo), measured(a, hi)) * (100 - ADAPT_DOUBT);
}

/* Grow: from a small power of two near a quarter of the ceiling, double while a
 * doubling raises the node's rate by ADAPT_GAIN or more, past one smaller gain, not
 * past a fall. Shrink: when growing from the start did not pay, halve while fewer
 * workers do as well. Refine: narrow the bracket of measured counts around the best
 * one, a midpoint at a time, while a count in it may beat the best by more than the
 * noise and by more than the step costs. Settle at the best count measured; the
 * workers beyond it are retired (they keep what they hold). */
unsigned adapt_step(struct adapt *a, double rate)
{
	unsigned prev = a->last, i;
	char how[64];
	long change;

	if (a->settled)
		return a->workers;
	note(a, rate);
	i = rate_index(a, a->workers);
	if (i < 32 && !(a->retaken & 1u << i) && doubtful(a, a->workers)) {
		a->retaken |= 1u << i;
		return a->workers; /* measured again, as carefully: the newer counts */
	}
	a->careful_next = false;
	a->last = a->workers;
	switch (a->phase) {
	case ADAPT_REFINE:
		return refine(a, a->how);
	case ADAPT_SHRINK:
		/* fewer, as good: halve again; worse: the best lies between */
		compare(a, rate, prev, how, sizeof(how));
		snprintf(a->how, sizeof(a->how), "%s", how);
		if (a->workers > 1 && best(a) == a->workers)
			return go(a, a->workers / 2);
		return refine(a, a->how);
	case ADAPT_GROW:
		break;
	}
	if (a->nrates == 1) {
		if (a->workers < a->ceiling)
			return go(a, MIN(a->ceiling, a->workers * 2));
		snprintf(how, sizeof(how), "%u %s, the most this node may have",
			 a->workers, workers(a->workers));
		return grown(a, how);
	}
	change = compare(a, rate, prev, how, sizeof(how));
	/* A small gain may be the noise of one measure: growth ends at a fall, or at
	 * the second small gain. */
	if (change < ADAPT_GAIN)
		a->weak++;
	if (change > -ADAPT_DROP && a->weak < 2 && a->workers < a->ceiling)
		return go(a, MIN(a->ceiling, a->workers * 2));
	return grown(a, how);
}

bool adapt_watch(struct adapt *a, double rate, bool lagging)
{
	uint32_t was = measured(a, a->workers);
	struct adapt old = *a;
	bool fell = was && rate * 100 < (double)was * (100 - ADAPT_DRIFT);

	if (!a->settled || a->reopened >= ADAPT_MAX_REOPEN ||
	    !(fell || (lagging && a->workers < a->ceiling)))
		return false;
	/* the measures before are of another machine, or not enough: begin again at
	 * the count at work, growing from it */
	adapt_init(a, old.ceiling, false);
	a->workers = old.workers;
	a->peak = old.peak;
	a->one = old.one;
	a->reopened = old.reopened + 1;
	if (fell)
		snprintf(a->how, sizeof(a->how), "its rate fell %.0f%% after it settled",
			 100 - rate * 100 / was);
	else
		snprintf(a->how, sizeof(a->how), "it would end %u%%+ after the others",
			 ADAPT_LAG);
	return true;
}

void adapt_done(struct adapt *a)
{
	if (a->settled)
		return;
	a->settled = true;
	snprintf(a->why, sizeof(a->why),
		 "the work ended at %u %s, before a settled measure", a->workers,
		 workers(a->workers));
}
