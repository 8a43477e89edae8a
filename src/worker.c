/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * worker.c - a worker process: pinned to one node's CPUs and bound to the node, it
 * reserves surplus pages of one size with hugetlb mappings, made under its own
 * mmap_lock (which is why workers are processes, not threads), reports once, and
 * holds the pages until its coordinator has turned them into pool pages.
 */
#include <errno.h>
#include <unistd.h>

#include "hugetlb.h"
#include "proc.h"
#include "stop.h"
#include "worker.h"

/* Each mapping is a VMA: stay well under vm.max_map_count (65530 by default); the
 * coordinator's per-node top-up does what is left. */
#define MAX_MAPPINGS 60000

void worker_main(void *arg, int wfd, int ctl)
{
	const struct worker_job *job = arg;
	/* Chunks start large (few mappings) and halve on ENOMEM: a mapping's
	 * reservation is all or nothing. */
	uint64_t chunk = MAX(job->quota / 8, MAX(job->quota / 1024, UINT64_C(1)));
	uint64_t start = now_ms();
	struct worker_report m = {0};
	int bound;
	char c;

	stop_install_worker();
	/* Unbound, pages may land elsewhere: the coordinator's reconcile fixes that. */
	bound = hugetlb_bind(job->node, job->cpus);
	while (!m.err && m.held < job->quota && !stop_requested() &&
	       now_ms() < job->deadline) {
		struct hugetlb_resv r;
		uint64_t n = MIN(chunk, job->quota - m.held);
		int rc;

		m.chunks++;
		rc = hugetlb_reserve(job->kb, n, &r);
		if (rc) {
			m.refused++;
			/* Only a short node is worth a smaller try; anything else (no
			 * MAP_HUGETLB for this size, say) ends the worker. */
			if (chunk == 1 || rc != -ENOMEM) {
				m.err = rc;
				break;
			}
			chunk = (chunk + 1) / 2;
			continue;
		}
		m.held += n;
		if (m.chunks >= MAX_MAPPINGS)
			break;
	}
	/* One report at the end: on a machine with few CPUs every wake-up of the
	 * coordinator would take a CPU from a worker. */
	m.ms = now_ms() - start;
	if (!m.err)
		m.err = bound;
	xwrite(wfd, &m, sizeof(m));
	/* Hold the reservations until let go; exit drops them. */
	while (read(ctl, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}
