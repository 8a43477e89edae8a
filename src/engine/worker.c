/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * worker.c - a worker process: pinned to one node's CPUs and bound to the node, it
 * claims pages from the node's shared work and reserves them as surplus pages with
 * hugetlb mappings, made under its own mmap_lock (which is why workers are processes,
 * not threads), reports once, and holds the pages until its coordinator has turned
 * them into pool pages.
 */
#include <errno.h>
#include <unistd.h>

#include "children.h"
#include "clock.h"
#include "hugetlb.h"
#include "macros.h"
#include "stop.h"
#include "sys.h"
#include "worker.h"

/* Each mapping is a VMA: stay well under vm.max_map_count (65530 by default); the
 * coordinator's per-node top-up does what is left. */
#define MAX_MAPPINGS 60000

/*
 * Claim up to max pages of the node's work; 0 when none are left. While the workers
 * are measured, claims are small and alike; after, each is a share of what is left
 * (guided: large while much is left, down to the small size at the end, so that the
 * node's workers finish together with few calls).
 */
static uint64_t claim(struct node_work *w, uint64_t max)
{
	uint32_t split = __atomic_load_n(&w->split, __ATOMIC_RELAXED);
	int64_t rem = __atomic_load_n(&w->remaining, __ATOMIC_RELAXED);
	uint64_t n = __atomic_load_n(&w->claim, __ATOMIC_RELAXED);
	int64_t left;

	if (split && rem > 0)
		n = MAX(n, (uint64_t)rem / split);
	n = MAX(MIN(n, max), UINT64_C(1));
	left = __atomic_fetch_sub(&w->remaining, (int64_t)n, __ATOMIC_RELAXED);

	if (left >= (int64_t)n)
		return n;
	/* fewer than asked were left: give back the part that was not there */
	__atomic_fetch_add(&w->remaining, (int64_t)n - (left > 0 ? left : 0),
			   __ATOMIC_RELAXED);
	return left > 0 ? (uint64_t)left : 0;
}

static void unclaim(struct node_work *w, uint64_t n)
{
	__atomic_fetch_add(&w->remaining, (int64_t)n, __ATOMIC_RELAXED);
}

void worker_main(void *arg, int wfd, int ctl)
{
	const struct worker_job *job = arg;
	/* A claim halves on ENOMEM: a mapping's reservation is all or nothing. */
	uint64_t size = UINT64_MAX, start = clock_now_ms();
	struct worker_report m = {0};
	int bound;

	stop_install_worker();
	/* Unbound, pages may land elsewhere: the coordinator's reconcile fixes that,
	 * and the failure is reported (the record does not call such a node ok). */
	bound = hugetlb_bind(job->node, job->cpus);
	while (!m.err && !stop_requested() && clock_now_ms() < job->deadline &&
	       !__atomic_load_n(&job->slot->stop, __ATOMIC_RELAXED)) {
		struct hugetlb_resv r;
		uint64_t n = claim(job->work, size), t0 = clock_now_us();
		int rc;

		if (!n)
			break; /* the node's work is all claimed */
		m.chunks++;
		__atomic_store_n(&job->slot->started, (uint32_t)m.chunks,
				 __ATOMIC_RELAXED);
		rc = hugetlb_reserve(job->kb, n, &r);
		__atomic_store_n(&job->slot->ended, (uint32_t)m.chunks, __ATOMIC_RELAXED);
		if (rc) {
			unclaim(job->work, n);
			m.refused++;
			/* Only a short node is worth a smaller try; anything else (no
			 * MAP_HUGETLB for this size, say) ends the worker. */
			if (n == 1 || rc != -ENOMEM) {
				m.err = rc;
				break;
			}
			size = (n + 1) / 2;
			continue;
		}
		m.held += n;
		/* what the coordinator measures the node's rate by: pages per second of
		 * reserving, per worker, whatever the phase its claims are in */
		__atomic_fetch_add(&job->slot->busy_us, clock_now_us() - t0,
				   __ATOMIC_RELAXED);
		__atomic_store_n(&job->slot->held, m.held, __ATOMIC_RELAXED);
		__atomic_fetch_add(&job->work->done, n, __ATOMIC_RELAXED);
		if (m.chunks >= MAX_MAPPINGS)
			break;
	}
	/* One report at the end: progress is in the shared memory, so the coordinator
	 * is not woken for each claim. */
	m.ms = clock_now_ms() - start;
	m.bind_err = bound;
	children_report(wfd, &m, sizeof(m));
	/* Hold the reservations until let go; exit drops them. */
	children_hold(ctl);
	clock_exit(0);
}
