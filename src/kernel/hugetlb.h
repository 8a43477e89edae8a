/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hugetlb.h - the kernel's huge page pools: every read and write of their files, the
 * per-node write and its kernel rule, and surplus reservations (hugetlb mmap).
 *
 * Everything that asks the kernel for huge pages goes through here, so a simulated
 * kernel (the test build's, sim.c) can stand in for the live one.
 */
#ifndef HUGEPAR_HUGETLB_H
#define HUGEPAR_HUGETLB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "idset.h"

#define HUGETLB_MAX_SIZES 8
/* Pages above this many kB are gigantic when the kernel does not show its own bound
 * (hp_topology.gigantic_kb): the buddy allocator's largest block with 4K pages and
 * MAX_PAGE_ORDER 10 (x86, arm64's 4K kernels), 4 MiB. */
#define HUGETLB_GIGANTIC_KB 4096
/* Where the kernel shows each page size's global pools. */
#define HUGETLB_SYS_DIR "/sys/kernel/mm/hugepages"

/* One pool's counts as sysfs gives them; nr counts surplus pages too. */
struct hp_pool {
	uint64_t nr;	  /* pages in the pool */
	uint64_t free;	  /* free pages (reserved ones included) */
	uint64_t surplus; /* pages that go back when their users are gone */
};

/* A page size's global counts. */
struct hp_global {
	struct hp_pool pool;
	uint64_t resv;	     /* resv_hugepages: reserved, not yet used */
	uint64_t overcommit; /* nr_overcommit_hugepages */
};

/* Pages that stay in the pool: nr minus surplus. The one place this is computed. */
static inline uint64_t pool_persistent(const struct hp_pool *p)
{
	return p->nr > p->surplus ? p->nr - p->surplus : 0;
}

/* A reservation this process holds (one hugetlb mapping). */
struct hugetlb_resv {
	void *addr;
	size_t len;
	uint64_t kb;
	uint64_t pages;
};

/* What a kernel offers: the live one, or the test build's simulated one. */
struct hugetlb_ops {
	const char *name;
	int (*read_global)(uint64_t kb, struct hp_global *g);
	/* -ENOENT when the node has no pool of this size (no memory) */
	int (*read_node)(unsigned node, uint64_t kb, struct hp_pool *p);
	/* node < 0: the global nr_hugepages */
	int (*write_nr)(int node, uint64_t kb, uint64_t val);
	int (*write_overcommit)(uint64_t kb, uint64_t val);
	/* run on these CPUs and take memory from this node only */
	int (*bind)(unsigned node, const struct hp_idset *cpus);
	int (*reserve)(uint64_t kb, uint64_t pages, struct hugetlb_resv *r);
	void (*release)(struct hugetlb_resv *r);
	/* the vmemmap optimization: set it (on >= 0) and read it back; 0 or 1, or
	 * -ENOENT when the kernel does not offer it */
	int (*vmemmap)(int on);
};

/* The kernel the pool reads and writes, bind and reserve go to: main() sets the live
 * one, or (test build) the simulated one. With none (before, or after
 * hugetlb_use(NULL)) they return -ENOSYS and hugetlb_release() does nothing;
 * hugetlb_sizes() and hugetlb_numa() read sysfs either way. */
void hugetlb_use(const struct hugetlb_ops *ops);

/* Page sizes offered, ascending kB; 0 sizes when the kernel has no hugetlb. A folder
 * that is not one (a name the kernel does not write, a size that is not a power of
 * two, one without nr_hugepages) is skipped and, when skipped is given, said there
 * (len bytes at most, "; " between). */
int hugetlb_sizes(uint64_t *kb, unsigned max, unsigned *n, char *skipped, size_t len);
/* Whether the kernel has NUMA sysfs; without it the machine is one node, 0. */
bool hugetlb_numa(void);

int hugetlb_global(uint64_t kb, struct hp_global *g);
/* A node's pool: its node files, or the global ones without NUMA sysfs. */
int hugetlb_node(unsigned node, uint64_t kb, struct hp_pool *p);
/* pool_persistent() of hugetlb_node(). */
int hugetlb_node_persistent(unsigned node, uint64_t kb, uint64_t *out);

/* The global pool to 'persistent' pages: one write, which turns surplus into pool
 * pages first and then allocates or frees (the kernel reads it as persistent). */
int hugetlb_set_global(uint64_t kb, uint64_t persistent);
int hugetlb_set_overcommit(uint64_t kb, uint64_t val);

/*
 * A node's pool to 'persistent' pages with exact placement, whatever surplus pages
 * other nodes hold: see doc/kernel-notes.md for the two rules kernels apply to a
 * node's write. Never takes the node below the target to find out which rule holds.
 * A signal cuts the kernel's allocation short; the caller reads back what it got.
 */
int hugetlb_set_node(unsigned node, uint64_t kb, uint64_t persistent);

/* Kernel releases before this read a node's write against nr_hugepages, not against
 * the persistent pages ("mm/hugetlb: fix nodes huge page allocation when there are
 * surplus pages", Linux 6.7). */
#define HUGETLB_NODE_RULE_FIXED_MAJOR 6
#define HUGETLB_NODE_RULE_FIXED_MINOR 7
/* Set the kernel release that decides the rule ("6.1.0-57-amd64"); "" for unknown,
 * taken as the older rule (the safe side, see hugetlb_set_node). */
void hugetlb_set_release(const char *release);

/* The kernel's HugeTLB Vmemmap Optimization (HVO), vm.hugetlb_optimize_vmemmap:
 * pages allocated while it is on give back the page descriptors (struct page) of
 * their tail pages but one page of them (doc/kernel-notes.md). */
#define HUGETLB_VMEMMAP_SYSCTL "/proc/sys/vm/hugetlb_optimize_vmemmap"
/* Turn it on (on = 1), or only read it (on < 0): 0 or 1, -ENOENT when the kernel
 * does not offer it. hugepar never turns it off. */
int hugetlb_vmemmap(int on);
/* The kernel's own count of the pages that hold page descriptors, nr_memmap_pages
 * plus nr_memmap_boot_pages of /proc/vmstat (Linux 6.11 on): -ENOENT without them. */
int hugetlb_memmap_pages(uint64_t *pages);

int hugetlb_bind(unsigned node, const struct hp_idset *cpus);
/* Reserve 'pages' of a size as surplus if the pool lacks them: all or nothing. */
int hugetlb_reserve(uint64_t kb, uint64_t pages, struct hugetlb_resv *r);
void hugetlb_release(struct hugetlb_resv *r);

#endif
