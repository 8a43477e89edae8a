/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology.h - NUMA nodes, their CPUs and memory, and the kernel's huge page pools. */
#ifndef HUGEPAR_TOPOLOGY_H
#define HUGEPAR_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

#define HP_MAX_SIZES 8

struct hp_pool {
	uint64_t nr;	  /* pages in the pool, surplus included (as sysfs counts) */
	uint64_t free;	  /* free pages */
	uint64_t surplus; /* surplus pages (given back when no longer used) */
};

struct hp_node {
	unsigned id;
	unsigned ncpus;	       /* online CPUs of the node */
	struct hp_idset *cpus; /* those CPUs */
	uint64_t mem_total;    /* bytes */
	uint64_t mem_free;     /* bytes */
	bool has_memory;
	struct hp_pool pool[HP_MAX_SIZES]; /* indexed like hp_topology.sizes */
};

struct hp_size {
	uint64_t kb;	     /* page size in kB, as in hugepages-<kb>kB */
	bool parallel;	     /* the kernel lets surplus pages of this size be reserved */
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
	char release[65];    /* kernel release, "" when unknown */
	char warning[160];   /* a note about the kernel's figures, or "" */
};

/* Read the topology through the path layer. Returns 0 or -errno. */
int topology_read(struct hp_topology *t);
/* Re-read only the pool counts (global and per node) of every size. */
int topology_read_pools(struct hp_topology *t);
void topology_free(struct hp_topology *t);

/* Index of a node id, or -1. */
int topology_node_index(const struct hp_topology *t, unsigned id);
/* Index of a page size in kB, or -1. */
int topology_size_index(const struct hp_topology *t, uint64_t kb);

#endif
