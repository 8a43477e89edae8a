/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim.h - a simulated kernel behind hugetlb.h, so the engine's paths can be tested
 * on a fixture tree without root (test build only; see doc/simulator.md).
 *
 * The state lives in DIR/.sim/state under the path layer's root, shared by every
 * process of a run (workers included) and by later runs; it is made from the
 * fixture's sysfs files on first use, and the files are written back after every
 * change, so `hugepar plan --sysroot DIR` and `cat` see what the kernel would show.
 */
#ifndef HUGEPAR_SIM_H
#define HUGEPAR_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "hugetlb.h"

#define SIM_MAX_NODES	256
#define SIM_MAX_HOLDERS 8192
#define SIM_MAX_RATE	16
#define SIM_MAX_CURVES	16 /* node curves besides each size's own */
#define SIM_MAX_GROUPS	64 /* groups of nodes sharing a cap (sockets) */
/* The time the kernel spends to give back one page of a huge page's descriptors, when
 * it optimizes the page (remap, TLB flush), one page at a time over the machine: a
 * 2M page gives back 7, and a write of 4096 took 29 ms more with it on a 6.18 VM
 * (doc/simulator.md). */
#define SIM_VMEMMAP_NS 1000

enum sim_rule { SIM_RULE_NR, SIM_RULE_PERSISTENT };
/* Where a surplus page goes: the CPU's node (6.1), the lowest node the bind allows
 * (6.12), the CPU's node if the bind allows it, else the lowest it allows (6.16). */
enum sim_place { SIM_PLACE_CPU, SIM_PLACE_BIND, SIM_PLACE_LOCAL };

struct sim_rate {
	uint32_t workers;   /* allocators at work on the node at once */
	double pages_per_s; /* the node's rate with that many, all together */
};

/* The cost model: a node's pages a second with W allocators at work, interpolated
 * between entries, proportional below the first, flat past the last. */
struct sim_curve {
	unsigned nrate;
	struct sim_rate rate[SIM_MAX_RATE];
};

struct sim_size {
	uint64_t kb;
	uint64_t resv, overcommit;
	unsigned next_alloc, next_free; /* the kernel's round-robin node cursors */
	struct sim_curve curve;		/* every node's, unless its own is given */
};

/* Nodes whose summed rate of one size is capped (a socket's memory controllers). */
struct sim_group {
	unsigned z;
	double cap; /* pages a second, all its nodes together */
};

struct sim_node {
	unsigned id;
	bool has_memory, has_cpus;
	uint32_t ncpus, cpu0; /* its CPUs: how many, and the first */
	/* its curve per size: 0 the size's own, else curves[i - 1] */
	uint8_t curve[HUGETLB_MAX_SIZES];
	uint8_t group;		      /* 0: none, else groups[i - 1] */
	uint64_t mem_total, mem_free; /* bytes */
	struct hp_pool pool[HUGETLB_MAX_SIZES];
	int32_t active; /* processes allocating on the node now (the cost model) */
	/* pages of each size allocated while the vmemmap optimization was on, less
	 * those freed (the optimized ones first) */
	uint64_t optimized[HUGETLB_MAX_SIZES];
};

/* A process's reservations, the pages it uses and the pages it is allocating, per
 * size: the kernel gives them back when the process is gone. A process touches few
 * nodes (a worker one): their counts are kept for up to SIM_HOLDER_NODES. */
#define SIM_HOLDER_NODES 8

struct sim_on {
	uint32_t node; /* index */
	uint32_t used, inflight;
};

struct sim_holder {
	int32_t pid;
	uint32_t z;
	uint64_t resv;	/* reserved, not used */
	int32_t active; /* the node it allocates on now, or -1 */
	uint32_t non;
	struct sim_on on[SIM_HOLDER_NODES]; /* pages in use and in flight, by node */
};

struct sim_state {
	unsigned nnodes, nsizes;
	enum sim_rule rule;
	enum sim_place place;
	bool gigantic_overcommit;
	uint64_t gigantic_kb; /* sizes above are gigantic (the fixture's granule) */
	bool numa;
	double scale;	     /* simulated seconds per real second (the host's clock) */
	bool clock_virtual;  /* the simulated kernel keeps its own time (simclock.c) */
	uint32_t fork_us;    /* what a fork costs the parent in simulated time */
	double noise;	     /* a node's rate is off by up to this fraction, ... */
	uint32_t noise_seed; /* ... the same in every run of a seed */
	unsigned ncurves, ngroups;
	struct sim_curve curves[SIM_MAX_CURVES];
	struct sim_group groups[SIM_MAX_GROUPS];
	uint64_t default_kb; /* Hugepagesize of /proc/meminfo */
	/* vm.hugetlb_optimize_vmemmap: -1 not offered, 0 or 1; while it is on, each
	 * page allocated costs its allocator vmemmap_ns of CPU for each page of its
	 * descriptors given back (doc/simulator.md) */
	int32_t vmemmap;
	uint32_t vmemmap_ns;
	struct sim_size sizes[HUGETLB_MAX_SIZES];
	struct sim_node nodes[SIM_MAX_NODES];
	/* what the files under the root show now: only changes are written */
	struct hp_pool shown[SIM_MAX_NODES][HUGETLB_MAX_SIZES];
	struct hp_global shown_global[HUGETLB_MAX_SIZES];
	uint64_t shown_free[SIM_MAX_NODES];
	uint64_t reaped_ms;   /* when dead holders were last looked for */
	uint64_t rendered_ms; /* when the files were last written */
	unsigned nholders;
	/* last: an operation copies only the holders in use */
	struct sim_holder holders[SIM_MAX_HOLDERS];
};

/*
 * The file: two copies of the state and which one is current. An operation works on
 * the other copy and makes it current with one store, so a process killed in the
 * middle of one (SIGKILL cannot be blocked) leaves the last whole state, as the
 * kernel's spinlocked sections do. Pages a killed process was allocating are in its
 * holder's inflight counts and go back with it.
 */
#define SIM_MAGIC "HPSIM7"

struct sim_file {
	char magic[8];
	uint32_t cur;
	uint32_t pad;
	struct sim_state st[2];
};

extern const struct hugetlb_ops sim_hugetlb;

/* Open (or make) the state under the path layer's root. Returns 0 or -errno. */
int sim_open(void);

/* Pieces shared by sim.c, simcore.c and simfile.c. */
struct sim_state *sim_state(void);
int sim_lock(void);
void sim_unlock(void);
int sim_node_index(unsigned id);
int sim_size_index(uint64_t kb);
int simfile_create(const char *state_file);
/* Node n's pages a second of size z with w allocators at work (its curve; 0: none). */
double sim_node_rate(unsigned n, unsigned z, double w);
/* Seconds one allocator spends on a page of size z while k allocate on node n. */
double sim_page_seconds(unsigned n, unsigned z, int k);
/* A page of size z made (step 1) or freed (-1) on node n: the bytes of descriptors it
 * gave back, or takes back, with the vmemmap optimization (0 without). */
uint64_t sim_vmemmap_page(unsigned n, unsigned z, int step);
/* Whether freeing an optimized page of size z on node n fails for want of memory to
 * rebuild its descriptors: the kernel (6.1) then keeps it, as a surplus page. */
bool sim_vmemmap_refuses(unsigned n, unsigned z);
/* What exit does for process pid, now; and for every holder whose process is gone. */
void sim_exit_pid(pid_t pid);
void sim_reap(void);
/* Write what changed in st since the last time to the files under the root. */
void simfile_render(struct sim_state *st);

/* For test/simctl.c: print the state; hold pages as another process would. */
void sim_show(FILE *f);
int sim_use(uint64_t kb, uint64_t pages, unsigned node);
/* Run on a node's CPUs with no memory policy, as a program that never binds. */
int sim_run_on(unsigned node);

#endif
