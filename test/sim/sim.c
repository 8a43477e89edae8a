/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim.c - the simulated kernel's hugetlb accounting, rule by rule as mm/hugetlb.c
 * keeps it (the functions are named after the kernel's): per-node nr/free/surplus,
 * reservations that gather surplus pages up to the overcommit limit, the admission
 * check against the bound nodes' free pages, writes that convert surplus first, and
 * the two per-node write rules. doc/simulator.md maps each rule to what was observed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "idset.h"
#include "macros.h"
#include "path.h"
#include "sim.h"
#include "simcore.h"

/* adjust_pool_surplus: one page out of (delta -1) or into (+1) the surplus state. */
static bool adjust_pool_surplus(unsigned z, unsigned long mask, int delta)
{
	struct sim_size *sz = &sim_cur->sizes[z];

	for (unsigned k = 0; k < sim_cur->nnodes; k++) {
		int n =
		    sim_cursor_next(delta < 0 ? &sz->next_alloc : &sz->next_free, mask);
		struct hp_pool *p;

		if (n < 0)
			return false;
		p = &sim_cur->nodes[n].pool[z];
		if (delta < 0 ? p->surplus > 0 : p->surplus < p->nr) {
			p->surplus += delta;
			return true;
		}
	}
	return false;
}

/* ---- writes: set_max_huge_pages ---------------------------------------------- */

static void set_max_huge_pages(unsigned z, uint64_t count, int ni)
{
	unsigned long mask = ni >= 0 ? 1UL << ni : sim_all_nodes();
	uint64_t min_count;

	if (ni >= 0) {
		struct hp_pool t = sim_total(z), *np = &sim_cur->nodes[ni].pool[z];
		uint64_t rest = sim_cur->rule == SIM_RULE_NR
				    ? t.nr - np->nr
				    : pool_persistent(&t) - pool_persistent(np);

		count = count + rest < count ? UINT64_MAX : count + rest;
	}
	while (sim_total(z).surplus && count > sim_persistent(z))
		if (!adjust_pool_surplus(z, mask, -1))
			break;
	while (count > sim_persistent(z)) {
		int n = -1;
		uint64_t b = 0, want = count - sim_persistent(z);

		/* alloc_pool_huge_page: round robin, each page on exactly its node */
		for (unsigned k = 0; k < sim_cur->nnodes && n < 0; k++) {
			int c = sim_cursor_next(&sim_cur->sizes[z].next_alloc, mask);

			if (c >= 0 && sim_node_can_give(c, z))
				n = c;
		}
		if (n < 0)
			break;
		for (uint64_t lim = MIN(sim_batch(z, n, true), want);
		     b < lim && sim_node_can_give(n, z); b++) {
			sim_page_new(n, z, false);
			sim_cur->nodes[n].pool[z].free++;
		}
		if (!sim_spend(n, z, b, true))
			break;
	}
	min_count = sim_cur->sizes[z].resv + sim_total(z).nr - sim_total(z).free;
	min_count = MAX(min_count, count);
	while (min_count < sim_persistent(z))
		if (sim_remove_pool_page(z, mask, false) < 0)
			break;
	while (count < sim_persistent(z))
		if (!adjust_pool_surplus(z, mask, 1))
			break;
}

static int sim_write_nr(int node, uint64_t kb, uint64_t val)
{
	int z = sim_size_index(kb), n = node < 0 ? -1 : sim_node_index(node), rc;

	if (z < 0 || (node >= 0 && (n < 0 || !sim_cur->nodes[n].has_memory)))
		return -ENOENT;
	rc = sim_resize_lock(z, LOCK_EX);
	if (!rc)
		rc = sim_lock();
	if (rc)
		return rc;
	set_max_huge_pages(z, val, n);
	sim_unlock();
	sim_resize_lock(z, LOCK_UN);
	return 0;
}

static int sim_write_overcommit(uint64_t kb, uint64_t val)
{
	int z = sim_size_index(kb), rc;

	if (z < 0)
		return -ENOENT;
	if (kb > sim_cur->gigantic_kb && !sim_cur->gigantic_overcommit)
		return -EINVAL;
	rc = sim_lock();
	if (rc)
		return rc;
	sim_cur->sizes[z].overcommit = val;
	sim_unlock();
	return 0;
}

/* ---- reservations: hugetlb_acct_memory --------------------------------------- */

/* alloc_surplus_huge_page with the placement of the kernel simulated: 6.1 takes
 * the node of the CPU, 6.12 the lowest node the bind allows, 6.16 the CPU's node
 * when the bind allows it and it has the memory, else as 6.12; all fall back to any
 * node with memory. */
static int alloc_surplus_page(unsigned z)
{
	int first = -1;

	if (sim_total(z).surplus >= sim_cur->sizes[z].overcommit)
		return -1;
	if (sim_cur->sizes[z].kb > sim_cur->gigantic_kb && !sim_cur->gigantic_overcommit)
		return -1;
	if (sim_cur->place == SIM_PLACE_CPU) {
		first = sim_my_cpu;
		for (unsigned n = 0; first < 0 && n < sim_cur->nnodes; n++)
			if (sim_cur->nodes[n].has_cpus)
				first = n;
	} else {
		if (sim_cur->place == SIM_PLACE_LOCAL && sim_my_cpu >= 0 &&
		    (sim_my_bind < 0 || sim_my_bind == sim_my_cpu) &&
		    sim_node_can_give(sim_my_cpu, z))
			first = sim_my_cpu;
		for (unsigned n = 0; first < 0 && n < sim_cur->nnodes; n++)
			if ((sim_my_bind < 0 || (int)n == sim_my_bind) &&
			    sim_node_can_give(n, z))
				first = n;
	}
	if (first < 0 || !sim_node_can_give(first, z))
		for (unsigned n = 0;
		     n < sim_cur->nnodes && (first < 0 || !sim_node_can_give(first, z));
		     n++)
			first = n;
	if (!sim_node_can_give(first, z))
		return -1;
	sim_page_new(first, z, true);
	return first;
}

/* gather_surplus_pages: make the free pages cover every reservation. The pages it
 * allocates are this process's in flight until they join the pool. */
static int gather_surplus_pages(unsigned z, uint64_t delta)
{
	uint64_t allocated = 0;
	int64_t needed =
	    (int64_t)(sim_cur->sizes[z].resv + delta) - (int64_t)sim_total(z).free;
	struct sim_holder *h;
	bool ok = true;

	if (needed <= 0) {
		sim_cur->sizes[z].resv += delta;
		return 0;
	}
	for (;;) {
		uint64_t pending = 0;
		int last = 0;

		for (int64_t i = 0; i < needed; i++) {
			int n = (h = sim_holder_of(z, true)) ? alloc_surplus_page(z) : -1;
			struct sim_on *on = n >= 0 ? sim_holder_on(h, n) : NULL;

			if (!on) {
				if (n >= 0)
					sim_page_destroy(n, z, true);
				ok = false;
				break;
			}
			on->inflight++;
			allocated++;
			last = n;
			if (++pending >= sim_batch(z, n, false)) {
				sim_spend(n, z, pending, false);
				pending = 0;
			}
		}
		sim_spend(last, z, pending, false);
		needed = (int64_t)(sim_cur->sizes[z].resv + delta) -
			 (int64_t)(sim_total(z).free + allocated);
		if (needed <= 0 || !ok)
			break;
	}
	h = sim_holder_of(z, true);
	if (!h)
		return -ENOMEM;
	if (needed > 0) {
		for (unsigned k = 0; k < h->non; k++)
			for (; h->on[k].inflight; h->on[k].inflight--)
				sim_page_destroy(h->on[k].node, z, true);
		return -ENOMEM;
	}
	needed += allocated;
	sim_cur->sizes[z].resv += delta;
	for (unsigned k = 0; k < h->non; k++)
		for (; h->on[k].inflight; h->on[k].inflight--) {
			if (needed-- > 0)
				sim_cur->nodes[h->on[k].node].pool[z].free++;
			else
				sim_page_destroy(h->on[k].node, z, true);
		}
	return 0;
}

/* allowed_mems_nr: the free pages of the nodes this process may take pages from. */
static uint64_t allowed_free(unsigned z)
{
	uint64_t nr = 0;

	for (unsigned n = 0; n < sim_cur->nnodes; n++)
		if (sim_my_bind < 0 || (int)n == sim_my_bind)
			nr += sim_cur->nodes[n].pool[z].free;
	return nr;
}

static int sim_reserve(uint64_t kb, uint64_t pages, struct hugetlb_resv *r)
{
	int z = sim_size_index(kb), rc;
	struct sim_holder *h;

	if (z < 0)
		return -EINVAL;
	rc = sim_lock_for(true);
	if (rc)
		return rc;
	rc = gather_surplus_pages(z, pages);
	if (!rc && pages > allowed_free(z)) {
		sim_return_unused_surplus(z, pages);
		rc = -ENOMEM;
	}
	if (!rc && !(h = sim_holder_of(z, true))) {
		sim_return_unused_surplus(z, pages);
		rc = -ENOMEM;
	} else if (!rc) {
		h->resv += pages;
		r->kb = kb;
		r->pages = pages;
	}
	sim_unlock_for(true);
	return rc;
}

static void sim_release(struct hugetlb_resv *r)
{
	int z = sim_size_index(r->kb);
	struct sim_holder *h;

	if (z < 0 || sim_lock())
		return;
	h = sim_holder_of(z, false);
	if (h) {
		uint64_t n = MIN(h->resv, r->pages);

		h->resv -= n;
		sim_return_unused_surplus(z, n);
	}
	sim_unlock();
}

/* Fault 'pages' of a reservation in: they leave the free lists of the bound node
 * (any node when unbound) and stay in use until this process exits. */
int sim_use(uint64_t kb, uint64_t pages, unsigned node)
{
	struct hugetlb_resv r;
	struct sim_holder *h;
	int z = sim_size_index(kb), rc;

	if (z < 0)
		return -EINVAL;
	sim_my_bind = sim_my_cpu = sim_node_index(node);
	rc = sim_reserve(kb, pages, &r);
	if (rc || (rc = sim_lock()))
		return rc;
	h = sim_holder_of(z, false);
	for (uint64_t i = 0; h && i < pages; i++) {
		int n = sim_my_bind >= 0 && sim_cur->nodes[sim_my_bind].pool[z].free
			    ? sim_my_bind
			    : -1;

		for (unsigned k = 0; n < 0 && k < sim_cur->nnodes; k++)
			if (sim_cur->nodes[k].pool[z].free)
				n = k;
		if (n < 0 || !sim_holder_on(h, n))
			break;
		sim_cur->nodes[n].pool[z].free--;
		sim_cur->sizes[z].resv--;
		h->resv--;
		sim_holder_on(h, n)->used++;
	}
	sim_unlock();
	return 0;
}

/* ---- reads and binding ------------------------------------------------------- */

static int sim_read_global(uint64_t kb, struct hp_global *g)
{
	int z = sim_size_index(kb), rc;

	if (z < 0)
		return -ENOENT;
	rc = sim_lock();
	if (rc)
		return rc;
	g->pool = sim_total(z);
	g->resv = sim_cur->sizes[z].resv;
	g->overcommit = sim_cur->sizes[z].overcommit;
	sim_unlock();
	return 0;
}

static int sim_read_node(unsigned node, uint64_t kb, struct hp_pool *p)
{
	int z = sim_size_index(kb), n = sim_node_index(node), rc;

	if (z < 0 || n < 0 || !sim_cur->nodes[n].has_memory)
		return -ENOENT;
	rc = sim_lock();
	if (rc)
		return rc;
	*p = sim_cur->nodes[n].pool[z];
	sim_unlock();
	return 0;
}

static int sim_bind(unsigned node, const struct hp_idset *cpus)
{
	int n = sim_node_index(node);

	if (n < 0)
		return -EINVAL;
	sim_my_bind = n;
	/* pinned to CPUs: the process runs on the node they belong to (a CPU-less
	 * node's workers run on another node's) */
	for (unsigned c = 0; cpus && c < sim_cur->nnodes; c++)
		if (sim_cur->nodes[c].ncpus && idset_has(cpus, sim_cur->nodes[c].cpu0))
			sim_my_cpu = (int)c;
	return 0;
}

int sim_run_on(unsigned node)
{
	int n = sim_node_index(node);

	if (n < 0)
		return -EINVAL;
	sim_my_cpu = n;
	sim_my_bind = -1;
	return 0;
}

/* vm.hugetlb_optimize_vmemmap: the state's, and the file under the root, which the
 * state was read from */
static int sim_vmemmap(int on)
{
	int rc = sim_lock(), v;

	if (rc)
		return rc;
	if (sim_cur->vmemmap >= 0 && on >= 0)
		sim_cur->vmemmap = on != 0;
	v = sim_cur->vmemmap;
	sim_unlock();
	if (v < 0)
		return -ENOENT;
	if (on >= 0 && (rc = path_write_u64((uint64_t)v, HUGETLB_VMEMMAP_SYSCTL)))
		return rc;
	return v;
}

const struct hugetlb_ops sim_hugetlb = {
    .name = "simulated",
    .read_global = sim_read_global,
    .read_node = sim_read_node,
    .write_nr = sim_write_nr,
    .write_overcommit = sim_write_overcommit,
    .bind = sim_bind,
    .reserve = sim_reserve,
    .release = sim_release,
    .vmemmap = sim_vmemmap,
};
