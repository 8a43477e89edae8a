/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * adapt.c - pure: the number of workers a node settles at (adapt.h, doc/threads.md).
 *
 * Grow: from a small power of two near a quarter of the ceiling, double while a
 * doubling raises the node's rate by ADAPT_GAIN or more, past one smaller gain, not
 * past a fall. Shrink: when growing from the start did not pay, halve while fewer
 * workers do as well. Refine: when the best count measured lies between two clearly
 * worse ones, try the midpoints between them, the side of the better one first,
 * narrowing in on whichever wins. Settle at the best count measured; the workers
 * beyond it are retired (they keep what they hold).
 */
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
	a->k = fixed ? a->ceiling : MIN(a->ceiling, q);
	a->peak = a->k;
	a->settled = fixed || a->ceiling == 1;
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
			/* measured again: a doubted measure is replaced, a confirmed one
			 * averaged */
			a->rates[i].pages_per_s =
			    a->confirm
				? (uint32_t)(((uint64_t)a->rates[i].pages_per_s + r) / 2)
				: r;
			a->confirm = false;
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
	a->k = k;
	a->peak = MAX(a->peak, k);
	return k;
}

static unsigned settle(struct adapt *a, const char *how)
{
	unsigned b = best(a), i = rate_index(a, b);
	uint32_t top = 0;

	for (unsigned j = 0; j < a->nrates; j++)
		top = MAX(top, a->rates[j].pages_per_s);
	/* fewer workers chosen over a higher rate within one measure's noise: the choice
	 * rests on that noise, so the fewer are measured once more, and the two measures'
	 * mean decides (doc/threads.md, "Settle", says what it was without) */
	if (measured(a, b) < top && i < 32 && !(a->retaken & 1u << i)) {
		a->retaken |= 1u << i;
		a->confirm = true;
		snprintf(a->how, sizeof(a->how), "%s", how);
		return go(a, b);
	}
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

/* Whether the rate at count k is within ADAPT_DROP of the rate at b. */
static bool level(const struct adapt *a, unsigned k, unsigned b)
{
	return (uint64_t)measured(a, k) * 100 >=
	       (uint64_t)measured(a, b) * (100 - ADAPT_DROP);
}

/* The midpoint between b and a measured neighbour, when it is worth a measure: there
 * is one, and the gap is more than a quarter of b (a knee found closer gains less than
 * the noise of a measure). 0 otherwise. */
static unsigned midpoint(const struct adapt *a, unsigned b, unsigned side)
{
	unsigned mid = (side + b) / 2, gap = side > b ? side - b : b - side;

	if (mid == side || mid == b || measured(a, mid) || 4 * gap <= b)
		return 0;
	return mid;
}

/* From lo workers to b the rate grew by less than half of what b/lo times as many
 * would give: the curve bends between them, and a count between may beat b. */
static bool bent(const struct adapt *a, unsigned lo, unsigned b)
{
	return 2 * ((uint64_t)measured(a, b) * lo - (uint64_t)measured(a, lo) * lo) <
	       (uint64_t)measured(a, lo) * (b - lo);
}

/* The side of b that k lies on, as a bit of struct adapt's sides. */
static unsigned side(unsigned b, unsigned k)
{
	return k < b ? ADAPT_BELOW : ADAPT_ABOVE;
}

/*
 * After growing (and shrinking): the best count measured, with clearly worse ones on
 * both sides, has the knee between its neighbours. Try the midpoint toward the better
 * neighbour; when it loses, the one toward the other; when either wins, it is the new
 * best and its (nearer) neighbours are tried the same way. A neighbour within
 * ADAPT_DROP of the best says the curve is flat on that side: below, the best is
 * already the fewest workers of the top and nothing is to be won; above, a count
 * below the best may still win, and is tried when the curve bends there, as below
 * the node's ceiling, which has no neighbour above. ADAPT_MAX_REFINE midpoints at
 * most.
 */
static unsigned refine(struct adapt *a, const char *how)
{
	unsigned b = best(a), lo, hi, first, second, mid = 0;

	a->phase = ADAPT_REFINE;
	if (b != a->refined_at) { /* a new best: both of its sides are open */
		a->refined_at = b;
		a->sides = 0;
	}
	neighbours(a, b, &lo, &hi);
	if ((!hi && b == a->ceiling) || (hi && level(a, hi, b)))
		hi = lo && bent(a, lo, b) ? b : 0; /* nothing above: only below it */
	if (!lo || !hi || a->nrefined >= ADAPT_MAX_REFINE || level(a, lo, b))
		return settle(a, how);
	if (hi == b) { /* only below: whatever was tried above */
		mid = midpoint(a, b, lo);
	} else {
		/* each side once, the better neighbour's first; a side is known by where
		 * it lies, not by which neighbour is better now (a midpoint tried and lost
		 * is the new neighbour on its side, and may measure above the other) */
		first = measured(a, hi) > measured(a, lo) ? hi : lo;
		second = first == lo ? hi : lo;
		if (!(a->sides & side(b, first))) {
			a->sides |= side(b, first);
			mid = midpoint(a, b, first);
		}
		if (!mid && !(a->sides & side(b, second))) {
			a->sides |= side(b, second);
			mid = midpoint(a, b, second);
		}
	}
	if (!mid)
		return settle(a, how);
	a->nrefined++;
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

/* How the last measure compared with the one before (k against prev workers). */
static long compare(const struct adapt *a, double rate, unsigned prev, char *how,
		    size_t len)
{
	uint32_t pr = measured(a, prev);
	long change = pr ? (long)((rate - pr) * 100 / pr) : 100;

	snprintf(how, len, "%u %s gave %+ld%% over %u", a->k, workers(a->k), change,
		 prev);
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

unsigned adapt_step(struct adapt *a, double rate)
{
	unsigned prev = a->last, i;
	char how[64];
	long change;

	if (a->settled)
		return a->k;
	note(a, rate);
	i = rate_index(a, a->k);
	if (i < 32 && !(a->retaken & 1u << i) && doubtful(a, a->k)) {
		a->retaken |= 1u << i;
		return a->k; /* measured again: the newer counts */
	}
	a->last = a->k;
	switch (a->phase) {
	case ADAPT_REFINE:
		return refine(a, a->how);
	case ADAPT_SHRINK:
		/* fewer, as good: halve again; worse: the best lies between */
		compare(a, rate, prev, how, sizeof(how));
		snprintf(a->how, sizeof(a->how), "%s", how);
		if (a->k > 1 && best(a) == a->k)
			return go(a, a->k / 2);
		return refine(a, a->how);
	case ADAPT_GROW:
		break;
	}
	if (a->nrates == 1) {
		if (a->k < a->ceiling)
			return go(a, MIN(a->ceiling, a->k * 2));
		snprintf(how, sizeof(how), "%u %s, the most this node may have", a->k,
			 workers(a->k));
		return grown(a, how);
	}
	change = compare(a, rate, prev, how, sizeof(how));
	/* A small gain may be the noise of one measure: growth ends at a fall, or at
	 * the second small gain. */
	if (change < ADAPT_GAIN)
		a->weak++;
	if (change > -ADAPT_DROP && a->weak < 2 && a->k < a->ceiling)
		return go(a, MIN(a->ceiling, a->k * 2));
	return grown(a, how);
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
