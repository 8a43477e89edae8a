/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live.c - the live kernel behind hugetlb.h: sysfs files through the path layer,
 * hugetlb mmap() for reservations, sched_setaffinity and libnuma for binding.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>

#include <numa.h>

#include "hugetlb.h"
#include "idset.h"
#include "live.h"
#include "path.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

/*
 * libnuma takes its system call numbers from the uapi headers the build gives it
 * (asm/unistd.h), as this file does. A cross build that gave it the build machine's
 * headers would call the wrong calls, and a binding would fail with EINVAL where the
 * pages still happen to land right: the build stops instead, for the architectures
 * hugepar is built for. The numbers are the kernel's ABI and never change.
 */
#include <asm/unistd.h>
#if defined(__x86_64__) && !defined(__ILP32__)
#define ABI_NR(call, x86_64, generic)                                                    \
	_Static_assert(__NR_##call == x86_64,                                            \
		       "asm/unistd.h is not x86-64's: " #call                            \
		       " (the uapi headers of another architecture)")
#elif defined(__aarch64__) || defined(__riscv) || defined(__loongarch__)
#define ABI_NR(call, x86_64, generic)                                                    \
	_Static_assert(__NR_##call == generic,                                           \
		       "asm/unistd.h is not this architecture's: " #call                 \
		       " (the uapi headers of another)")
#else
#define ABI_NR(call, x86_64, generic) _Static_assert(1, "")
#endif
ABI_NR(set_mempolicy, 238, 237);
ABI_NR(get_mempolicy, 239, 236);
ABI_NR(mbind, 237, 235);
ABI_NR(sched_setaffinity, 203, 122);
#undef ABI_NR

/* A file of a page size's global pool, by its size in kB and its name. */
#define SIZE_FILE HUGETLB_SYS_DIR "/hugepages-%llukB/%s"
#define NODE_HP	  "/sys/devices/system/node/node%u/hugepages/hugepages-%llukB/%s"

static int read_global(uint64_t kb, struct hp_global *g)
{
	unsigned long long k = kb;
	int rc = path_read_u64(&g->pool.nr, SIZE_FILE, k, "nr_hugepages");

	if (!rc)
		rc = path_read_u64(&g->pool.free, SIZE_FILE, k, "free_hugepages");
	if (!rc)
		rc = path_read_u64(&g->pool.surplus, SIZE_FILE, k, "surplus_hugepages");
	if (!rc)
		rc = path_read_u64(&g->resv, SIZE_FILE, k, "resv_hugepages");
	if (!rc)
		rc = path_read_u64(&g->overcommit, SIZE_FILE, k,
				   "nr_overcommit_hugepages");
	return rc;
}

static int read_node(unsigned node, uint64_t kb, struct hp_pool *p)
{
	unsigned long long k = kb;
	int rc = path_read_u64(&p->nr, NODE_HP, node, k, "nr_hugepages");

	if (!rc)
		rc = path_read_u64(&p->free, NODE_HP, node, k, "free_hugepages");
	if (!rc)
		rc = path_read_u64(&p->surplus, NODE_HP, node, k, "surplus_hugepages");
	return rc;
}

static int write_nr(int node, uint64_t kb, uint64_t val)
{
	if (node < 0)
		return path_write_u64(val, SIZE_FILE, (unsigned long long)kb,
				      "nr_hugepages");
	return path_write_u64(val, NODE_HP, (unsigned)node, (unsigned long long)kb,
			      "nr_hugepages");
}

static int write_overcommit(uint64_t kb, uint64_t val)
{
	return path_write_u64(val, SIZE_FILE, (unsigned long long)kb,
			      "nr_overcommit_hugepages");
}

/* libnuma reports a failed system call through numa_error(), which it lets a program
 * define: its own prints "set_mempolicy: Invalid argument" and the caller learns
 * nothing. Here the error is kept for bind() to return. */
static int numa_errno;

void numa_error(char *where)
{
	(void)where;
	numa_errno = errno ? errno : EINVAL;
}

/*
 * Both, because kernels differ (doc/kernel-notes.md): 6.1 places a surplus page on
 * the node of the CPU that reserves it, 6.12 on the lowest node the bind allows.
 * Returns 0 or the first call's -errno.
 */
static int bind(unsigned node, const struct hp_idset *cpus)
{
	int rc = 0;

	if (cpus && idset_count(cpus)) {
		cpu_set_t *set = CPU_ALLOC(HP_MAX_CPUS);
		size_t sz = CPU_ALLOC_SIZE(HP_MAX_CPUS);

		if (!set)
			return -ENOMEM;
		CPU_ZERO_S(sz, set);
		for (unsigned cpu = 0; cpu < HP_MAX_CPUS; cpu++)
			if (idset_has(cpus, cpu))
				CPU_SET_S(cpu, sz, set);
		if (sched_setaffinity(0, sz, set))
			rc = -errno;
		CPU_FREE(set);
	}
	/* libnuma's calls that need no numa_init() (it is not run: the Makefile) */
	if (numa_available() >= 0) {
		struct bitmask *bm = numa_bitmask_alloc(node + 1);

		if (!bm)
			return -ENOMEM;
		numa_bitmask_setbit(bm, node);
		numa_errno = 0;
		numa_set_membind(bm);
		numa_bitmask_free(bm);
		if (!rc && numa_errno)
			rc = -numa_errno;
	}
	return rc;
}

/* A private hugetlb mapping reserves its pages when it is made (no MAP_NORESERVE):
 * surplus pages are allocated right there when the pool lacks free ones. */
static int reserve(uint64_t kb, uint64_t pages, struct hugetlb_resv *r)
{
	size_t psz = (size_t)kb * 1024;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
		    ((63 - __builtin_clzll(psz)) << MAP_HUGE_SHIFT);
	void *addr;

	if (pages > SIZE_MAX / psz)
		return -ENOMEM;
	addr = mmap(NULL, pages * psz, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (addr == MAP_FAILED)
		return -errno;
	r->addr = addr;
	r->len = pages * psz;
	r->kb = kb;
	r->pages = pages;
	return 0;
}

static void release(struct hugetlb_resv *r)
{
	munmap(r->addr, r->len);
}

static int vmemmap(int on)
{
	uint64_t v;
	int rc;

	if (on >= 0 && (rc = path_write_u64((uint64_t)on, HUGETLB_VMEMMAP_SYSCTL)))
		return rc;
	rc = path_read_u64(&v, HUGETLB_VMEMMAP_SYSCTL);
	return rc ? rc : v != 0;
}

const struct hugetlb_ops live_hugetlb = {
    .name = "live",
    .read_global = read_global,
    .read_node = read_node,
    .write_nr = write_nr,
    .write_overcommit = write_overcommit,
    .bind = bind,
    .reserve = reserve,
    .release = release,
    .vmemmap = vmemmap,
};
