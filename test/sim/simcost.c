/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * simcost.c - the simulated kernel's cost model (doc/simulator.md, "Time"): a node's
 * rate from its curve, the CPUs its allocators share, its noise and its group's cap;
 * each allocation's share of it on the simulated clock, and the host clock's
 * batches.
 */
#include <math.h>
#include <stdint.h>

#include "macros.h"
#include "sim.h"
#include "simclock.h"
#include "simcore.h"

/* Node n's curve of size z: its own where the machine file gives one. */
static const struct sim_curve *curve_of(unsigned n, unsigned z)
{
	unsigned c = sim_cur->nodes[n].curve[z];

	return c ? &sim_cur->curves[c - 1] : &sim_cur->sizes[z].curve;
}

double sim_node_rate(unsigned n, unsigned z, double w)
{
	const struct sim_curve *c = curve_of(n, z);
	unsigned i;

	if (!c->nrate)
		return 0;
	w = w < 1e-9 ? 1e-9 : w;
	if (w < c->rate[0].workers)
		return c->rate[0].pages_per_s * w / c->rate[0].workers;
	for (i = 0; i + 1 < c->nrate && c->rate[i + 1].workers <= w; i++)
		;
	if (i + 1 == c->nrate)
		return c->rate[i].pages_per_s;
	return c->rate[i].pages_per_s +
	       (c->rate[i + 1].pages_per_s - c->rate[i].pages_per_s) *
		   (w - c->rate[i].workers) /
		   (c->rate[i + 1].workers - c->rate[i].workers);
}

/* Seconds one allocator spends on a page while 'k' allocate on node n: the curve
 * gives the node's pages per second with k at work, shared among them. */
double sim_page_seconds(unsigned n, unsigned z, int k)
{
	double rate;

	k = k < 1 ? 1 : k;
	rate = sim_node_rate(n, z, k);
	return rate > 0 ? k / rate : 0;
}

/* Pages to do between two sleeps: about SIM_BATCH_S of work. */
uint64_t sim_batch(unsigned z, unsigned n, bool write)
{
	double s;

	/* On the simulated clock a reservation is one allocation; a write still goes
	 * in stretches, which a signal or the deadline can cut between. */
	if (simclock_on() && !write)
		return UINT64_MAX;
	s = sim_page_seconds(n, z, sim_cur->nodes[n].active + 1) /
	    (sim_cur->scale > 0 && !simclock_on() ? sim_cur->scale : 1);

	/* Each sleep drops and retakes the lock and copies the state: sleep in stretches
	 * of SIM_BATCH_S, which a claim of a few tens of pages fits in. */
	return s > 0 ? MAX((uint64_t)(SIM_BATCH_S / s), UINT64_C(1)) : UINT64_MAX;
}

/* Node n's factor of noise in the stretch of time 'period': within 1 +- noise, the
 * same for a seed in every run (a hash of seed, node and stretch). */
static double noise_at(unsigned n, uint64_t period)
{
	uint64_t h = sim_cur->noise_seed * UINT64_C(0x9e3779b97f4a7c15) ^
		     (n + 1) * UINT64_C(0xbf58476d1ce4e5b9) ^
		     period * UINT64_C(0x94d049bb133111eb);

	h ^= h >> 31;
	h *= UINT64_C(0xd6e8feb86659fd39);
	h ^= h >> 28;
	return 1 + sim_cur->noise *
		       (2.0 * (double)(h >> 11) / (double)(UINT64_C(1) << 53) - 1);
}

/* Descriptor pages (4K) a page of size z gives back when optimized: 7 for 2M. */
static uint64_t vmemmap_pages(unsigned z)
{
	uint64_t desc = sim_cur->sizes[z].kb / 4 * 64 / 4096;

	return desc >= 2 ? desc - 1 : 0;
}

uint64_t sim_vmemmap_page(unsigned n, unsigned z, int step)
{
	uint64_t *o = &sim_cur->nodes[n].optimized[z];

	if (step > 0 && sim_cur->vmemmap == 1 && vmemmap_pages(z))
		return ++*o, vmemmap_pages(z) * 4096;
	if (step < 0 && *o)
		return --*o, vmemmap_pages(z) * 4096;
	return 0;
}

bool sim_vmemmap_refuses(unsigned n, unsigned z)
{
	/* the kernel asks for the pages without retrying, so not below its minimum
	 * watermark: 64 kB stands in for it */
	return sim_cur->nodes[n].optimized[z] &&
	       sim_cur->nodes[n].mem_free < vmemmap_pages(z) * 4096 + 65536;
}

/* An allocator's rate with the vmemmap optimization on: each page costs besides the
 * time to give its descriptors back, which the kernel does one page at a time over
 * the machine (a flush of every CPU's TLB): with 'busy' allocators at work, each
 * waits for the others' too. Two allocators on two CPUs took 1.25 times one's time
 * for the same pages on Linux 6.1 (doc/simulator.md). */
static double with_vmemmap(const struct clk_proc *p, double rate, unsigned busy)
{
	double extra;

	if (sim_cur->vmemmap != 1 || !vmemmap_pages(p->z) || !(rate > 0) || isinf(rate))
		return rate;
	extra = (double)vmemmap_pages(p->z) * sim_cur->vmemmap_ns * 1e-9 * (busy ? busy : 1);
	return 1 / (1 / rate + extra);
}

/*
 * Each slot's allocation rate, pages a second (doc/simulator.md, "Time"). The
 * allocators that run on a node's CPUs share them (processor sharing): each has
 * min(1, CPUs / allocators there) of a CPU, and allocates only while it has one. A
 * memory node's allocators at work are the sum of those shares, w, and the node
 * gives its curve at w, times its noise, times its group's cap where the group's
 * nodes together would give more; each allocator its share of that.
 */
void sim_item_rates(double *rate)
{
	static double w[SIM_MAX_NODES], share[SIM_MAX_NODES], node[SIM_MAX_NODES];
	static double group[SIM_MAX_GROUPS];
	static unsigned demand[SIM_MAX_NODES];
	static int zof[SIM_MAX_NODES];
	uint64_t period = simclock_tab->now_ns / SIM_NOISE_NS;
	unsigned nn = sim_cur->nnodes, busy = 0;

	for (unsigned n = 0; n < nn; n++)
		w[n] = node[n] = demand[n] = 0, zof[n] = -1;
	for (unsigned g = 0; g < sim_cur->ngroups; g++)
		group[g] = 0;
	for (unsigned s = 0; s < simclock_tab->top; s++)
		if (simclock_tab->p[s].state == P_WAIT && simclock_tab->p[s].node >= 0 &&
		    simclock_tab->p[s].cpu >= 0)
			demand[simclock_tab->p[s].cpu]++;
	for (unsigned n = 0; n < nn; n++) {
		unsigned c = sim_cur->nodes[n].ncpus;

		share[n] = c && demand[n] > c ? (double)c / demand[n] : 1;
	}
	for (unsigned s = 0; s < simclock_tab->top; s++) {
		const struct clk_proc *p = &simclock_tab->p[s];

		if (p->state == P_WAIT && p->node >= 0) {
			busy++;
			w[p->node] += p->cpu >= 0 ? share[p->cpu] : 1;
			if (zof[p->node] < 0)
				zof[p->node] = p->z;
		}
	}
	for (unsigned n = 0; n < nn; n++) {
		unsigned g = sim_cur->nodes[n].group;

		if (zof[n] < 0)
			continue;
		node[n] = sim_node_rate(n, (unsigned)zof[n], w[n]);
		if (sim_cur->noise > 0)
			node[n] *= noise_at(n, period);
		if (g && sim_cur->groups[g - 1].z == (unsigned)zof[n])
			group[g - 1] += node[n];
	}
	for (unsigned n = 0; n < nn; n++) {
		unsigned g = sim_cur->nodes[n].group;

		if (zof[n] >= 0 && g && sim_cur->groups[g - 1].z == (unsigned)zof[n] &&
		    group[g - 1] > sim_cur->groups[g - 1].cap)
			node[n] *= sim_cur->groups[g - 1].cap / group[g - 1];
	}
	for (unsigned s = 0; s < simclock_tab->top; s++) {
		const struct clk_proc *p = &simclock_tab->p[s];

		rate[s] = 0;
		if (p->state == P_WAIT && p->node >= 0)
			rate[s] = node[p->node] > 0
				      ? node[p->node] *
					    (p->cpu >= 0 ? share[p->cpu] : 1) / w[p->node]
				      : INFINITY;
		rate[s] = with_vmemmap(p, rate[s], busy);
	}
}
