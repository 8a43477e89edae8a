/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology.h - NUMA nodes, their CPUs and memory, and the kernel's huge page pools. */
#ifndef HUGEPAR_TOPOLOGY_H
#define HUGEPAR_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#include "hugetlb.h"
#include "idset.h"

/* Where the kernel shows its NUMA nodes. */
#define NODE_DIR "/sys/devices/system/node"
/* MAX_NUMNODES of Debian's x86-64 kernels (NODES_SHIFT 10); its arm64 kernels have 16
 * (NODES_SHIFT 4) */
#define HP_MAX_NODES 1024
#define HP_MAX_SIZES HUGETLB_MAX_SIZES

struct hp_node {
	unsigned id;
	unsigned ncpus;	       /* online CPUs of the node */
	struct hp_idset *cpus; /* those CPUs */
	uint64_t mem_total;    /* bytes */
	uint64_t mem_free;     /* bytes */
	/* What shares are of: the node's memory blocks (installed memory, which does
	 * not move between boots), or mem_total where the kernel shows none. */
	uint64_t mem_basis;
	bool basis_blocks;
	bool has_memory;
	struct hp_pool pool[HP_MAX_SIZES]; /* indexed like hp_topology.sizes */
	/* Pages of each pool that hugepar reserved itself in this boot, which a later
	 * run of the boot may give back (0: none; not read here: the commands take it
	 * from the record, record_own()). */
	uint64_t own[HP_MAX_SIZES];
};

struct hp_size {
	uint64_t kb;	     /* page size in kB, as in hugepages-<kb>kB */
	struct hp_pool pool; /* global counts */
	uint64_t resv;
	uint64_t overcommit; /* nr_overcommit_hugepages */
};

struct hp_topology {
	bool numa;    /* /sys/devices/system/node exists */
	bool hugetlb; /* /sys/kernel/mm/hugepages exists and offers sizes */
	unsigned ncpus_online;
	unsigned nnodes;
	struct hp_node *nodes; /* ascending id */
	unsigned nsizes;
	struct hp_size sizes[HP_MAX_SIZES]; /* ascending kb */
	uint64_t default_kb; /* Hugepagesize of /proc/meminfo, 0 when unknown */
	uint64_t page_kb;    /* the base page (KernelPageSize), 0 when unknown */
	/* Sizes above this many kB are gigantic: larger than the buddy allocator's
	 * largest block, the base page times 2 to the highest order /proc/buddyinfo
	 * counts (MAX_PAGE_ORDER). The kernel takes such pages from contiguous ranges,
	 * and overcommits them only from Linux 6.19. 0 when the kernel does not show
	 * it: HUGETLB_GIGANTIC_KB then (topology_gigantic()). */
	uint64_t gigantic_kb;
	char release[65];  /* kernel release, "" when unknown */
	char boot_id[40];  /* this boot's id (/proc/sys/kernel/random/boot_id), or "" */
	bool initramfs;	   /* running in an initramfs (topology_initramfs()) */
	bool vmemmap_offered; /* vm.hugetlb_optimize_vmemmap is there ... */
	bool vmemmap_on;      /* ... and on */
	char warning[384]; /* notes about the kernel's figures and files, or "" */
	char error[256];   /* what could not be read: the file and why */
};

/* Read the topology through the path layer, and the pools through hugetlb.h.
 * Returns 0 or -errno with t->error naming the file. */
int topology_read(struct hp_topology *t);
/* Whether this runs in an initramfs: its /etc/initrd-release (dracut writes one), or
 * a root file system that is a ramfs or a tmpfs (as initramfs-tools' is); under
 * --sysroot only the file counts. */
bool topology_initramfs(void);
/* Re-read only the pool counts (global and per node) of every size. */
int topology_read_pools(struct hp_topology *t);

/* The base page (KernelPageSize of this process's first mapping, /proc/self/smaps)
 * and the bound above which a huge page is gigantic (the base page times 2 to the
 * highest order /proc/buddyinfo counts); each 0 when not shown. doc/kernel-notes.md. */
void topology_read_granule(uint64_t *page_kb, uint64_t *gigantic_kb);

/* Whether a page size is gigantic on this kernel (gigantic_kb). */
static inline bool topology_gigantic(const struct hp_topology *t, uint64_t kb)
{
	return kb > (t->gigantic_kb ? t->gigantic_kb : HUGETLB_GIGANTIC_KB);
}

/* Index of a node id, or -1. */
int topology_node_index(const struct hp_topology *t, unsigned id);
/* Index of a page size in kB, or -1. */
int topology_size_index(const struct hp_topology *t, uint64_t kb);

#endif
