/* SPDX-License-Identifier: GPL-2.0-or-later */
/* planner.c - pure: settings and topology in, per-node targets and thread counts out. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idset.h"
#include "kinfo.h"
#include "macros.h"
#include "parse.h"
#include "planner.h"
#include "text.h"
#include "topology.h"

bool plan_size_parallel(const struct hp_topology *t, uint64_t kb)
{
	return !topology_gigantic(t, kb) || kinfo_release_at_least(t->release, 6, 19);
}

/* A mount for a size the kernel does not offer, or not at an absolute path, is a
 * problem like a bad entry. */
static void check_mounts(struct hp_settings *s, const struct hp_topology *t)
{
	unsigned out = 0;

	for (unsigned i = 0; i < s->nmounts; i++) {
		struct hp_mount *m = &s->mounts[i];
		char sz[32];

		text_size_kb(m->size_kb, sz, sizeof(sz));
		if (topology_size_index(t, m->size_kb) < 0) {
			settings_problem(s, m->origin, m->key, m->text,
					 "page size %s is not offered by the kernel", sz);
			settings_drop_mount(m);
		} else if (m->path[0] != '/' || strstr(m->path, "/../") ||
			   strpbrk(m->path, " \t")) {
			settings_problem(
			    s, m->origin, m->key, m->text,
			    "the path must be absolute, without spaces or ..");
			settings_drop_mount(m);
		} else {
			s->mounts[out++] = *m;
		}
	}
	s->nmounts = out;
}

static uint64_t share_of(uint64_t total, uint64_t hundredths)
{
	return (uint64_t)((unsigned __int128)total * hundredths / 10000);
}

uint64_t plan_keep_free(const struct hp_settings *s, const struct hp_node *nd)
{
	if (!nd->has_memory)
		return 0;
	return s->keep_free.kind == HP_AMOUNT_PERCENT
		   ? share_of(nd->mem_total, s->keep_free.value)
		   : s->keep_free.value;
}

/* A keep_free that was set and leaves a node that entries name no room at all: named,
 * for nothing can be reserved there (it stays: it says what to keep). */
static void check_keep_free(struct hp_settings *s, const struct hp_topology *t)
{
	struct hp_idset over = {0};
	uint64_t least = UINT64_MAX;
	char nodes[256], mem[32], value[32];

	if (!s->keep_free_origin)
		return;
	for (unsigned n = 0; n < t->nnodes; n++) {
		const struct hp_node *nd = &t->nodes[n];
		bool named = false;

		for (unsigned i = 0; i < s->nentries && !named; i++)
			named = s->entries[i].all_nodes ||
				idset_has(&s->entries[i].nodes, nd->id);
		if (!named || !nd->has_memory || plan_keep_free(s, nd) < nd->mem_total)
			continue;
		idset_add(&over, nd->id);
		least = MIN(least, nd->mem_total);
	}
	if (!idset_count(&over))
		return;
	if (idset_format(&over, nodes, sizeof(nodes)))
		strcpy(nodes, "...");
	text_bytes(least, mem, sizeof(mem));
	values_amount_format(&s->keep_free, value, sizeof(value));
	settings_problem(s, s->keep_free_origin, s->keep_free_key, value,
			 "not less than all the memory of node%s %s (%s%s): no pages "
			 "can be reserved there",
			 idset_count(&over) > 1 ? "s" : "", nodes,
			 idset_count(&over) > 1 ? "the smallest has " : "", mem);
}

/* A count of threads above the CPUs: taken, and said, for a thread runs only on a
 * CPU of its own (threads = auto sizes them to the CPUs). */
static void check_threads(struct hp_settings *s, const struct hp_topology *t)
{
	char v[16];

	if (!s->workers_origin || !t->ncpus_online || s->workers <= t->ncpus_online)
		return;
	snprintf(v, sizeof(v), "%u", s->workers);
	settings_notice(s, s->workers_origin, s->workers_key, v,
			"more than the %u CPUs online: the threads beyond one per CPU "
			"only wait for one (write %u or fewer, or auto)",
			t->ncpus_online, t->ncpus_online);
}

void plan_check_settings(struct hp_settings *s, const struct hp_topology *t)
{
	unsigned out = 0;

	for (unsigned i = 0; i < s->nentries; i++) {
		struct hp_entry *e = &s->entries[i];
		const char *key = e->key;
		char sz[32], offered[128] = "";
		bool ok = true;

		if (topology_size_index(t, e->size_kb) < 0) {
			for (unsigned k = 0; k < t->nsizes; k++) {
				size_t n = strlen(offered);

				text_size_kb(t->sizes[k].kb, sz, sizeof(sz));
				snprintf(offered + n, sizeof(offered) - n, "%s%s",
					 n ? " " : "", sz);
			}
			text_size_kb(e->size_kb, sz, sizeof(sz));
			if (t->nsizes)
				settings_problem(
				    s, e->origin, key, e->text,
				    "page size %s is not offered by the kernel "
				    "(it offers %s)",
				    sz, offered);
			else
				settings_problem(
				    s, e->origin, key, e->text,
				    "the kernel offers no huge pages (no hugetlb)");
			ok = false;
		}
		for (unsigned id = 0; ok && !e->all_nodes && id < HP_MAX_NODES; id++) {
			if (idset_has(&e->nodes, id) && topology_node_index(t, id) < 0) {
				settings_problem(s, e->origin, key, e->text,
						 "node %u does not exist", id);
				ok = false;
			}
		}
		if (ok)
			s->entries[out++] = *e;
		else
			settings_drop_entry(e);
	}
	s->nentries = out;
	check_mounts(s, t);
	check_keep_free(s, t);
	check_threads(s, t);
}

uint64_t plan_granularity(const struct hp_settings *s, const struct hp_node *nd,
			  uint64_t page_bytes, uint64_t count)
{
	uint64_t g;

	if (s->granularity_auto) {
		g = count / HP_AUTO_STEP_PER;
		/* a power of two, so that a count that moves a little keeps its step */
		return g <= 1 ? 1 : UINT64_C(1) << (63 - __builtin_clzll(g));
	}
	g = (s->granularity.kind == HP_AMOUNT_PERCENT
		 ? share_of(nd->mem_basis, s->granularity.value)
		 : s->granularity.value) /
	    page_bytes;
	return g ? g : 1;
}

/* v rounded down to a multiple of its step on this node, noted in c; never to 0: a
 * count smaller than one step is kept whole (a pool of none is never what a share or
 * a cap meant). */
static uint64_t round_cell(const struct hp_settings *s, const struct hp_node *nd,
			   uint64_t page_bytes, struct hp_cell *c, uint64_t v)
{
	uint64_t r;

	c->granularity = plan_granularity(s, nd, page_bytes, v);
	c->unrounded = v;
	c->rounded = true;
	r = v - v % c->granularity;
	return r ? r : v;
}

/* A cell's request: a count or an amount as they are; a share of the node's memory
 * basis, rounded down to its step, so that a basis that moves a little between
 * boots gives the same count. */
static void request(const struct hp_settings *s, struct hp_cell *c,
		    const struct hp_amount *a, const struct hp_node *nd,
		    uint64_t page_bytes)
{
	c->rounded = false;
	c->granularity = 1;
	switch (a->kind) {
	case HP_AMOUNT_COUNT:
		c->requested = a->value;
		break;
	case HP_AMOUNT_BYTES:
		c->requested = a->value / page_bytes;
		break;
	case HP_AMOUNT_PERCENT:
		c->requested = round_cell(s, nd, page_bytes, c,
					  share_of(nd->mem_basis, a->value) / page_bytes);
		return;
	}
	c->unrounded = c->requested;
}

unsigned plan_auto_workers(unsigned ncpus, uint64_t work_bytes)
{
	uint64_t by_work =
	    (work_bytes + HP_AUTO_BYTES_PER_WORKER - 1) / HP_AUTO_BYTES_PER_WORKER;

	if (work_bytes == 0 || ncpus == 0)
		return 0;
	return by_work < ncpus ? (unsigned)by_work : ncpus;
}

/*
 * Spread 'total' over n weights in proportion: every non-zero weight first gets one
 * while total allows (the heaviest first), then each further one goes to the weight
 * with the most work per share it already has (the divisor method of D'Hondt).
 */
static void spread(unsigned total, const uint64_t *w, unsigned n, unsigned *out)
{
	unsigned left = total;

	for (unsigned i = 0; i < n; i++)
		out[i] = 0;
	while (left) {
		unsigned best = n;

		for (unsigned i = 0; i < n; i++) {
			if (!w[i])
				continue;
			if (best == n) {
				best = i;
				continue;
			}
			/* w[i]/out[i] > w[best]/out[best], with x/0 above every x/k */
			if (!out[best] && !out[i] ? w[i] > w[best]
			    : !out[i]		  ? true
			    : !out[best]	  ? false
						  : (unsigned __int128)w[i] * out[best] >
					       (unsigned __int128)w[best] * out[i])
				best = i;
		}
		if (best == n)
			break;
		out[best]++;
		left--;
	}
}

/* Each cell's current pool and, where an entry names it, its request. */
static void plan_requests(const struct hp_settings *s, const struct hp_topology *t,
			  struct hp_plan *p)
{
	for (unsigned n = 0; n < t->nnodes; n++)
		for (unsigned z = 0; z < t->nsizes; z++) {
			struct hp_cell *c = plan_cell(p, n, z);

			c->current = pool_persistent(&t->nodes[n].pool[z]);
			c->own = MIN(t->nodes[n].own[z], c->current);
			c->target = c->current;
			c->granularity = 1;
		}
	/* Entries in order: a later one overrides an earlier one for the same cell. */
	for (unsigned i = 0; i < s->nentries; i++) {
		const struct hp_entry *e = &s->entries[i];
		int z = topology_size_index(t, e->size_kb);

		if (z < 0)
			continue; /* plan_check_settings() reported it */
		for (unsigned n = 0; n < t->nnodes; n++) {
			struct hp_cell *c = plan_cell(p, n, z);

			if (!e->all_nodes && !idset_has(&e->nodes, t->nodes[n].id))
				continue;
			c->requested_set = true;
			c->asked = e->amount;
			request(s, c, &e->amount, &t->nodes[n], e->size_kb * 1024);
		}
	}
}

/* A cell's shrink: exact mode to what is asked; grow mode only by the pages hugepar
 * reserved itself in this boot, so that a later source of the boot that asks for
 * less (Ignition's files, cloud-init's) gives the pool the next boot will give; a
 * cell no entry names any more gives those back too. Returns the pages freed. */
static uint64_t plan_shrink(const struct hp_settings *s, struct hp_cell *c)
{
	uint64_t theirs = c->current - c->own, goal;

	if (c->requested_set ? c->requested >= c->current : !c->own)
		return 0;
	goal = c->requested_set ? c->requested : theirs;
	if (s->mode == HP_MODE_GROW && goal < theirs) {
		c->cut = HP_CUT_GROW;
		goal = theirs;
	}
	c->target = goal;
	return c->current - goal;
}

/* One node's targets: shrinks first, whose memory then serves the growth; growth,
 * largest pages first (they need contiguous memory the most), capped at the free
 * memory above what the node keeps free. */
static void plan_node(const struct hp_settings *s, const struct hp_topology *t,
		      struct hp_plan *p, unsigned n)
{
	const struct hp_node *nd = &t->nodes[n];
	uint64_t avail =
	    nd->mem_free > p->keep_free[n] ? nd->mem_free - p->keep_free[n] : 0;

	for (unsigned z = 0; z < t->nsizes; z++) {
		uint64_t freed;

		if (!mul_u64(plan_shrink(s, plan_cell(p, n, z)), t->sizes[z].kb * 1024,
			     &freed) ||
		    !add_u64(avail, freed, &avail))
			avail = UINT64_MAX;
	}
	for (unsigned z = t->nsizes; z-- > 0;) {
		struct hp_cell *c = plan_cell(p, n, z);
		uint64_t psz = t->sizes[z].kb * 1024, need, maxnew, cost;

		if (!c->requested_set || c->requested <= c->current)
			continue;
		if (!nd->has_memory) {
			c->cut = HP_CUT_NO_MEMORY;
			continue;
		}
		need = c->requested - c->current;
		/* an optimized page gives its descriptors back to the node at once */
		cost = psz - p->vmemmap.saving_kb[z] * 1024;
		maxnew = avail >= psz ? 1 + (avail - psz) / cost : 0; /* whole, then given */
		if (need > maxnew) {
			/* A cap moves with free memory, boot to boot: round it too. */
			c->cut =
			    need > nd->mem_free / cost ? HP_CUT_MEMORY : HP_CUT_KEEP_FREE;
			need = round_cell(s, nd, psz, c, c->current + maxnew);
			need = need > c->current ? need - c->current : 0;
		}
		c->target = c->current + need;
		avail -= need * cost;
		if (p->parallel[z])
			p->work[n] += need * psz;
	}
}

/*
 * Where the workers of each node run. A node with CPUs: on its own. A node without
 * CPUs (CXL memory, HBM) but with work: on the node with CPUs that has the most of
 * them left once the earlier such nodes took their part, which gives it half of
 * them (the heavier node first); the host keeps the rest, so that the two together
 * never have more workers at once than its CPUs (more would gain nothing: a worker
 * allocates only while it has a CPU). Returns each node's CPUs for workers in cpus.
 */
static void plan_hosts(const struct hp_topology *t, struct hp_plan *p, unsigned *cpus)
{
	for (unsigned n = 0; n < t->nnodes; n++) {
		p->host[n] = n;
		cpus[n] = t->nodes[n].ncpus;
	}
	for (;;) {
		unsigned g = UINT_MAX, h = UINT_MAX;

		for (unsigned n = 0; n < t->nnodes; n++)
			if (!t->nodes[n].ncpus && p->work[n] && p->host[n] == n &&
			    !cpus[n] && (g == UINT_MAX || p->work[n] > p->work[g]))
				g = n;
		for (unsigned n = 0; n < t->nnodes; n++)
			if (t->nodes[n].ncpus && p->host[n] == n &&
			    (h == UINT_MAX || cpus[n] > cpus[h]))
				h = n;
		if (g == UINT_MAX || h == UINT_MAX || cpus[h] < 2)
			return;
		p->host[g] = h;
		cpus[g] = cpus[h] / 2;
		cpus[h] -= cpus[g];
	}
}

/* Workers per node: auto from CPUs and work, or an explicit total spread by work;
 * then each node's workers shared among the sizes that grow there. */
static int plan_workers(const struct hp_settings *s, const struct hp_topology *t,
			struct hp_plan *p)
{
	uint64_t wsize[HP_MAX_SIZES];
	unsigned wout[HP_MAX_SIZES];

	unsigned *cpus = calloc(t->nnodes, sizeof(*cpus));
	uint64_t *w = calloc(t->nnodes, sizeof(*w));

	if (!cpus || !w) {
		free(cpus);
		free(w);
		return -ENOMEM;
	}
	plan_hosts(t, p, cpus);
	p->workers_auto = s->workers == 0;
	/* a node whose workers have no CPUs (no host was left) is served serially */
	for (unsigned n = 0; n < t->nnodes; n++) {
		w[n] = cpus[n] ? p->work[n] : 0;
		if (p->workers_auto)
			p->workers[n] = plan_auto_workers(cpus[n], p->work[n]);
	}
	if (!p->workers_auto)
		spread(s->workers, w, t->nnodes, p->workers);
	free(cpus);
	free(w);
	for (unsigned n = 0; n < t->nnodes; n++) {
		for (unsigned z = 0; z < t->nsizes; z++) {
			const struct hp_cell *c = plan_cell(p, n, z);

			wsize[z] = 0;
			if (c->target > c->current && p->parallel[z])
				wsize[z] =
				    (c->target - c->current) * (t->sizes[z].kb * 1024);
		}
		spread(p->workers[n], wsize, t->nsizes, wout);
		for (unsigned z = 0; z < t->nsizes; z++)
			plan_cell(p, n, z)->workers = wout[z];
		p->workers_total += p->workers[n];
	}
	return 0;
}

/* Whether the run turns the vmemmap optimization on: where a size is to grow. */
static void plan_vmemmap(const struct hp_settings *s, const struct hp_topology *t,
			 struct hp_plan *p)
{
	bool grows[HP_MAX_SIZES] = {false}, asked[HP_MAX_SIZES] = {false};
	struct hp_vmemmap_plan boot;

	for (unsigned n = 0; n < t->nnodes; n++)
		for (unsigned z = 0; z < t->nsizes; z++) {
			const struct hp_cell *c = plan_cell(p, n, z);

			grows[z] |= c->requested_set && c->requested > c->current &&
				    t->nodes[n].has_memory;
			asked[z] |= c->requested_set && c->requested;
		}
	vmemmap_plan(s, t, grows, &p->vmemmap);
	vmemmap_plan(s, t, asked, &boot);
	p->vmemmap.boot = boot.on;
}

int plan_make(const struct hp_settings *s, const struct hp_topology *t, struct hp_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->nnodes = t->nnodes;
	p->nsizes = t->nsizes;
	p->cells =
	    calloc((size_t)t->nnodes * (t->nsizes ? t->nsizes : 1), sizeof(*p->cells));
	p->keep_free = calloc(t->nnodes, sizeof(*p->keep_free));
	p->work = calloc(t->nnodes, sizeof(*p->work));
	p->workers = calloc(t->nnodes, sizeof(*p->workers));
	p->host = calloc(t->nnodes, sizeof(*p->host));
	if (!p->cells || !p->keep_free || !p->work || !p->workers || !p->host) {
		plan_free(p);
		return -ENOMEM;
	}
	for (unsigned z = 0; z < t->nsizes; z++)
		p->parallel[z] = plan_size_parallel(t, t->sizes[z].kb);
	for (unsigned n = 0; n < t->nnodes; n++)
		p->keep_free[n] = plan_keep_free(s, &t->nodes[n]);
	plan_requests(s, t, p);
	plan_vmemmap(s, t, p);
	for (unsigned n = 0; n < t->nnodes; n++)
		plan_node(s, t, p, n);
	if (plan_workers(s, t, p)) {
		plan_free(p);
		return -ENOMEM;
	}
	return 0;
}

void plan_free(struct hp_plan *p)
{
	free(p->cells);
	free(p->keep_free);
	free(p->work);
	free(p->workers);
	free(p->host);
	memset(p, 0, sizeof(*p));
}
