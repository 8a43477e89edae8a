/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * control.c - the coordinator's control of each node's workers while they work
 * (doc/threads.md, "The controller"): the workers started and retired, a node's rate
 * measured from its workers' own pages and time, short or careful measures, the
 * controller's step, and the watch of a settled node whose rate falls or whose work
 * would end after the others'.
 */
#include <signal.h>
#include <stdlib.h>

#include "adapt.h"
#include "children.h"
#include "clock.h"
#include "control.h"
#include "fault.h"
#include "job.h"
#include "macros.h"
#include "worker.h"

/* One more worker for node n. */
static bool add_worker(struct parallel *pa, unsigned n)
{
	struct size_job *j = pa->j;
	struct node_run *nr = &pa->nodes[n];
	unsigned s = pa->used, on = fault_flag("misplace") ? (n + 1) % j->t->nnodes : n;
	struct spawn sp = {.tag = s,
			   .report = &pa->reps[s],
			   .len = sizeof(pa->reps[s]),
			   .hold = true,
			   .pdeathsig = SIGKILL};

	if (s >= pa->cap || nr->started >= nr->cap || job_out_of_time(j))
		return false;
	pa->jobs[s] = (struct worker_job){.node = j->t->nodes[on].id,
					  .cpus = j->t->nodes[j->p->host[on]].cpus,
					  .kb = j->kb,
					  .deadline = j->deadline,
					  .work = &pa->sh.work[n],
					  .slot = &pa->sh.slot[s]};
	if (children_spawn(&pa->kids, &sp, worker_main, &pa->jobs[s]) < 0)
		return false;
	pa->used++;
	nr->started++;
	nr->active[nr->nactive++] = s;
	nr->peak = MAX(nr->peak, nr->nactive);
	pa->at_work++;
	pa->peak = MAX(pa->peak, pa->at_work);
	return true;
}

/* Node n to k workers at work: start more, or let the newest stop claiming (what
 * they hold, they keep). */
void control_set_workers(struct parallel *pa, unsigned n, unsigned k)
{
	struct node_run *nr = &pa->nodes[n];

	while (nr->nactive > k && nr->nactive > 1) {
		__atomic_store_n(&pa->sh.slot[nr->active[--nr->nactive]].stop, 1,
				 __ATOMIC_RELAXED);
		pa->at_work--;
	}
	while (nr->nactive < k && add_worker(pa, n))
		;
}

/* After a change of workers: each active worker has ended a claim it began after the
 * change. Then every claim in flight began with the new count at work: a claim that
 * spans the change would count time spent with the old count. */
static bool settled_in(const struct parallel *pa, const struct node_run *nr)
{
	for (unsigned i = 0; i < nr->nactive; i++)
		if (__atomic_load_n(&pa->sh.slot[nr->active[i]].ended,
				    __ATOMIC_RELAXED) <= nr->mark_started[i])
			return false;
	return true;
}

/* Start a measure: each active worker's pages and time so far. */
void control_mark(struct parallel *pa, struct node_run *nr)
{
	for (unsigned i = 0; i < nr->nactive; i++) {
		const struct worker_slot *ws = &pa->sh.slot[nr->active[i]];

		nr->mark_held[i] = __atomic_load_n(&ws->held, __ATOMIC_RELAXED);
		nr->mark_busy[i] = __atomic_load_n(&ws->busy_us, __ATOMIC_RELAXED);
		nr->mark_started[i] = __atomic_load_n(&ws->started, __ATOMIC_RELAXED);
	}
	nr->mark_ms = clock_now_ms();
}

/* Whether node nr still warms up after a change: a measure, or a watched window,
 * starts once the workers are at work (new ones forked, bound and with a claim made;
 * retired ones done with theirs), or after ADAPT_MAX_MEASURE_MS; true also at the
 * tick that marks its start. */
static bool warming(struct parallel *pa, struct node_run *nr, uint64_t now)
{
	if (nr->warm)
		return false;
	if (settled_in(pa, nr) || now - nr->mark_ms >= ADAPT_MAX_MEASURE_MS) {
		nr->warm = true;
		control_mark(pa, nr);
	}
	return true;
}

/*
 * The node's rate: the sum of its workers' own rates, each its pages over the time
 * its reservations took since the mark. Counting pages in a window instead would
 * depend on where each worker's claims fall in it, and workers started together
 * claim in step. 0 until every worker has held a claim more, and, in a measure
 * shorter than ADAPT_MAX_MEASURE_MS, the node NODE_CLAIMS (one worker alone is
 * measured over several). So a measure lasts a time, not a number of pages: where a
 * claim is quick, ADAPT_MIN_MEASURE_MS and a few claims; where one claim takes longer
 * than the longest measure (a 1G page zeroed under emulation), one claim each.
 */
#define NODE_CLAIMS 4

static double node_rate(const struct parallel *pa, const struct node_run *nr,
			uint64_t claim, bool long_enough)
{
	uint64_t all = 0;
	double rate = 0;

	for (unsigned i = 0; i < nr->nactive; i++) {
		const struct worker_slot *ws = &pa->sh.slot[nr->active[i]];
		uint64_t held =
		    __atomic_load_n(&ws->held, __ATOMIC_RELAXED) - nr->mark_held[i];
		uint64_t busy =
		    __atomic_load_n(&ws->busy_us, __ATOMIC_RELAXED) - nr->mark_busy[i];

		if (held < claim || !busy)
			return 0;
		all += held;
		rate += held * 1e6 / (double)busy;
	}
	return long_enough || all >= NODE_CLAIMS * claim ? rate : 0;
}

/* The pages one worker reserves in 'ms' at the rate measured, no more than the claims
 * the measures began with. */
static uint64_t timed_claim(double per_worker, double ms, const struct node_run *nr)
{
	uint64_t c = (uint64_t)(per_worker * ms / 1000);

	return MIN(MAX(c, UINT64_C(1)), claim_size(nr->need, nr->ad.ceiling));
}

/* A careful measure's shortest (adapt.h): ADAPT_CAREFUL_MS, less where the node's
 * time left at its last rate is short. */
static uint64_t careful_ms(const struct node_run *nr, int64_t left)
{
	double ms = nr->rate_seen > 0
			? (double)left / nr->rate_seen * 1000 / ADAPT_CAREFUL_SHARE
			: 0;

	return (uint64_t)MAX(MIN(ms, (double)ADAPT_CAREFUL_MS),
			     (double)ADAPT_MIN_MEASURE_MS);
}

/* Claims of a settled node: while it is watched, what one worker reserves in half
 * of ADAPT_WATCH_MS (a window sees two end); after, a share of what is left. */
static void settled_claims(struct parallel *pa, unsigned n)
{
	struct node_run *nr = &pa->nodes[n];

	if (nr->watching) {
		__atomic_store_n(&pa->sh.work[n].claim,
				 timed_claim(nr->rate_seen / MAX(nr->nactive, 1u),
					     ADAPT_WATCH_MS / 2.0, nr),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&pa->sh.work[n].split, 0, __ATOMIC_RELAXED);
	} else {
		__atomic_store_n(&pa->sh.work[n].split, SPLIT * nr->ad.workers,
				 __ATOMIC_RELAXED);
	}
}

/* Whether a settled node with 'left' pages is worth watching: its time left at its
 * rate is several windows (a search begun again has time to pay). */
static bool worth_watching(const struct node_run *nr, int64_t left)
{
	return nr->ad.reopened < ADAPT_MAX_REOPEN && nr->rate_seen > 0 &&
	       (double)left / nr->rate_seen * 1000 > 8.0 * ADAPT_WATCH_MS;
}

/*
 * A settled node, watched: its rate over each ADAPT_WATCH_MS against its settled
 * measure. Where it fell (adapt_watch()), its search begins again from its count:
 * the nodes it shares memory controllers, links or CPUs with have changed since it
 * measured. Returns whether it is still watched.
 */
static bool watch(struct parallel *pa, unsigned n, int64_t left, uint64_t now,
		  double median_s)
{
	struct node_run *nr = &pa->nodes[n];
	double rate;
	bool lagging;

	if (!nr->watching)
		return false;
	if (warming(pa, nr, now) || now - nr->mark_ms < ADAPT_WATCH_MS)
		return true;
	rate = node_rate(pa, nr, 1, true);
	if (!rate)
		return true;
	lagging =
	    median_s > 0 && (double)left / rate > median_s * (100 + ADAPT_LAG) / 100;
	nr->rate_seen = rate;
	if (adapt_watch(&nr->ad, rate, lagging)) {
		nr->watching = false;
		nr->warm = true; /* the same workers at work: measured from now */
		nr->change_ms = now;
		__atomic_store_n(&pa->sh.work[n].claim,
				 timed_claim(rate / nr->nactive, ADAPT_CLAIM_MS, nr),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&pa->sh.work[n].split, 0, __ATOMIC_RELAXED);
		control_mark(pa, nr);
		return true;
	}
	if (!worth_watching(nr, left)) {
		nr->watching = false;
		settled_claims(pa, n);
		return false;
	}
	control_mark(pa, nr);
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of the nodes' times left at their last rates, in seconds (0: none
 * known, or no node watched, which alone is compared with it). */
static double median_left_s(struct parallel *pa)
{
	unsigned m = 0, watched = 0;

	for (unsigned n = 0; n < pa->j->t->nnodes; n++)
		watched += pa->nodes[n].watching;
	for (unsigned n = 0; watched && n < pa->j->t->nnodes; n++) {
		const struct node_run *nr = &pa->nodes[n];
		int64_t left =
		    __atomic_load_n(&pa->sh.work[n].remaining, __ATOMIC_RELAXED);

		if (nr->need && left > 0 && nr->rate_seen > 0)
			pa->ends[m++] = (double)left / nr->rate_seen;
	}
	if (!m)
		return 0;
	qsort(pa->ends, m, sizeof(pa->ends[0]), cmp_double);
	return m % 2 ? pa->ends[m / 2] : (pa->ends[m / 2 - 1] + pa->ends[m / 2]) / 2;
}

/* Between reports: measure each node's rate (how long a measure lasts: node_rate())
 * and let the controller choose its workers. Returns whether a node is still
 * measured: once all are settled, the coordinator sleeps until the reports come, and
 * leaves the CPUs to the workers. */
bool control_tick(void *arg)
{
	struct parallel *pa = arg;
	uint64_t now = clock_now_ms();
	double median_s = median_left_s(pa);
	bool measuring = false;

	for (unsigned n = 0; n < pa->j->t->nnodes; n++) {
		struct node_run *nr = &pa->nodes[n];
		uint64_t claim = pa->sh.work[n].claim;
		int64_t left =
		    __atomic_load_n(&pa->sh.work[n].remaining, __ATOMIC_RELAXED);
		double rate;
		uint64_t min_ms;
		unsigned k;

		if (!nr->need)
			continue;
		if (left <= 0) {
			adapt_done(&nr->ad);
			continue;
		}
		if (nr->ad.settled) {
			measuring |= watch(pa, n, left, now, median_s);
			continue;
		}
		measuring = true;
		if (warming(pa, nr, now))
			continue;
		min_ms =
		    nr->ad.careful_next ? careful_ms(nr, left) : ADAPT_MIN_MEASURE_MS;
		rate = now - nr->mark_ms >= min_ms
			   ? node_rate(pa, nr, claim,
				       now - nr->mark_ms >=
					   MAX(min_ms, ADAPT_MAX_MEASURE_MS))
			   : 0;
		if (!rate)
			continue;
		nr->rate_seen = rate;
		nr->ad.left = (uint64_t)left; /* what a step may save, and cost */
		nr->ad.step_s = (double)(now - nr->change_ms) / 1000;
		k = adapt_step(&nr->ad, rate);
		if (!nr->ad.settled)
			__atomic_store_n(
			    &pa->sh.work[n].claim,
			    timed_claim(rate / nr->nactive, ADAPT_CLAIM_MS, nr),
			    __ATOMIC_RELAXED);
		nr->warm = k == nr->nactive;
		nr->change_ms = nr->warm ? nr->change_ms : now;
		control_set_workers(pa, n, k);
		if (nr->ad.settled) {
			nr->rate_seen = adapt_measured(&nr->ad, k);
			nr->watching = worth_watching(nr, left);
			settled_claims(pa, n);
			measuring |= nr->watching;
		}
		control_mark(pa, nr);
	}
	return measuring;
}
