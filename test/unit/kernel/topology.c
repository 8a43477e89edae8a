/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology.c - unit tests: nodes, CPUs, memory and pools read from fixture trees. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hugetlb.h"
#include "macros.h"
#include "path.h"
#include "desc.h"
#include "sim.h"
#include "topology.h"
#include "unit.h"

static char dir[] = "/tmp/hugepar-unit-topology.XXXXXX";
static char root[256];

/* A fixture tree from a machine description (test/mkfixture.sh), as the root. */
static int fixture(const char *desc)
{
	return fixture_from_desc(dir, root, sizeof(root), desc);
}

/* The simulated kernel over the fixture, for the pools. */
static int simulated(void)
{
	int rc = sim_open();

	CHECK(rc == 0);
	hugetlb_use(&sim_hugetlb);
	return rc;
}

/* A fixture file replaced with this text. */
static void put(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void cleanup(void)
{
	char cmd[600];

	path_set_root(NULL);
	hugetlb_use(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

static void drop(struct hp_topology *t)
{
	for (unsigned i = 0; t->nodes && i < t->nnodes; i++)
		free(t->nodes[i].cpus);
	free(t->nodes);
	t->nodes = NULL;
}

static bool pool_is(const struct hp_pool *p, uint64_t nr, uint64_t free_,
		    uint64_t surplus)
{
	return p->nr == nr && p->free == free_ && p->surplus == surplus;
}

/*
 * Sparse node ids (0 2 5 7), a CPU-less node with memory (2), a memoryless one with
 * CPUs (7), offline CPUs in the nodes' lists (3, 6-7, 8), the 1G size listed first,
 * memory blocks that differ from MemTotal (node 0: 32 blocks of 128M, 4000M total),
 * and blocks on the memoryless node (offline ones: not its memory).
 */
static const char machine[] = "online 0-2,4-5,9\n"
			      "sizes 1048576 2048\n"
			      "memblock 128M\n"
			      "overcommit 2048 7\n"
			      "release 6.12.48+deb13-amd64\n"
			      "node 0 cpus 0-3 mem 4000M free 3G blocks=32 "
			      "pool 2048:100:90:10 1048576:2:1\n"
			      "node 2 cpus - mem 8G free 8G blocks=64\n"
			      "node 5 cpus 4-7 mem 2G free 1G blocks=16 pool 2048:50\n"
			      "node 7 cpus 8-9 mem 0 free 0 blocks=2\n";

UNIT_TEST(machine, "a four-node machine: offline CPUs, CXL memory, pools and sizes")
{
	struct hp_topology t;
	const struct hp_node *n;

	if (fixture(machine) || simulated())
		return;
	CHECK(topology_read(&t) == 0);
	CHECK(t.error[0] == '\0' && t.warning[0] == '\0');
	CHECK(t.numa && t.hugetlb);
	CHECK(strcmp(t.release, "6.12.48+deb13-amd64") == 0);
	CHECK(t.default_kb == 1048576);
	CHECK(t.ncpus_online == 6);
	CHECK(t.nsizes == 2 && t.sizes[0].kb == 2048 && t.sizes[1].kb == 1048576);
	CHECK(pool_is(&t.sizes[0].pool, 150, 140, 10));
	CHECK(t.sizes[0].overcommit == 7 && t.sizes[0].resv == 0);
	CHECK(pool_is(&t.sizes[1].pool, 2, 1, 0) && t.sizes[1].overcommit == 0);

	CHECK(t.nnodes == 4);
	if (t.nnodes != 4)
		return;
	CHECK(t.nodes[0].id == 0 && t.nodes[1].id == 2 && t.nodes[2].id == 5 &&
	      t.nodes[3].id == 7);

	n = &t.nodes[0]; /* CPUs 0-3 of which 3 is offline */
	CHECK(n->ncpus == 3 && idset_count(n->cpus) == 3);
	CHECK(idset_has(n->cpus, 0) && idset_has(n->cpus, 2) && !idset_has(n->cpus, 3));
	CHECK(n->has_memory && n->mem_total == 4194304000 && n->mem_free == 3221225472);
	CHECK(n->basis_blocks && n->mem_basis == 4294967296);
	CHECK(pool_is(&n->pool[0], 100, 90, 10) && pool_is(&n->pool[1], 2, 1, 0));

	n = &t.nodes[1]; /* no CPUs, memory: CXL as RAM */
	CHECK(n->ncpus == 0 && idset_count(n->cpus) == 0);
	CHECK(n->has_memory && n->mem_total == 8589934592 && n->mem_free == 8589934592);
	CHECK(n->basis_blocks && n->mem_basis == 8589934592);
	CHECK(pool_is(&n->pool[0], 0, 0, 0) && pool_is(&n->pool[1], 0, 0, 0));

	n = &t.nodes[2]; /* CPUs 4-7 of which 6-7 are offline */
	CHECK(n->ncpus == 2 && idset_has(n->cpus, 4) && idset_has(n->cpus, 5) &&
	      !idset_has(n->cpus, 6));
	CHECK(n->has_memory && n->mem_total == 2147483648 && n->mem_free == 1073741824);
	CHECK(n->basis_blocks && n->mem_basis == 2147483648);
	CHECK(pool_is(&n->pool[0], 50, 50, 0) && pool_is(&n->pool[1], 0, 0, 0));

	n = &t.nodes[3]; /* CPUs, no memory, no pools */
	CHECK(n->ncpus == 1 && idset_has(n->cpus, 9) && !idset_has(n->cpus, 8));
	CHECK(!n->has_memory && n->mem_total == 0 && n->mem_free == 0);
	CHECK(!n->basis_blocks && n->mem_basis == 0);
	CHECK(pool_is(&n->pool[0], 0, 0, 0) && pool_is(&n->pool[1], 0, 0, 0));

	CHECK(topology_node_index(&t, 0) == 0 && topology_node_index(&t, 5) == 2);
	CHECK(topology_node_index(&t, 7) == 3 && topology_node_index(&t, 1) == -1);
	CHECK(topology_node_index(&t, 1024) == -1);
	CHECK(topology_size_index(&t, 2048) == 0 &&
	      topology_size_index(&t, 1048576) == 1);
	CHECK(topology_size_index(&t, 4096) == -1 && topology_size_index(&t, 0) == -1);

	/* the pools again, after the kernel changed them: counts only */
	CHECK(hugetlb_set_node(5, 2048, 60) == 0);
	t.nodes[2].mem_total = 1; /* not read again */
	CHECK(topology_read_pools(&t) == 0);
	CHECK(pool_is(&t.nodes[2].pool[0], 60, 60, 0) && t.nodes[2].mem_total == 1);
	CHECK(pool_is(&t.sizes[0].pool, 160, 150, 10));
	CHECK(pool_is(&t.nodes[0].pool[0], 100, 90, 10));
	drop(&t);
	cleanup();
}

/* One node with memory whose meminfo counts less than /proc/meminfo (struct pages
 * initialised lazily): the global figures are the node's. */
UNIT_TEST(lazy_meminfo, "a node meminfo below /proc/meminfo's: the global figures used")
{
	struct hp_topology t;

	if (fixture("sizes 2048\n"
		    "meminfo 8G 2G\n"
		    "node 0 cpus 0-3 mem 4G free 3G\n"
		    "node 1 cpus 4-7 mem 0 free 0\n") ||
	    simulated())
		return;
	CHECK(topology_read(&t) == 0);
	CHECK(t.nnodes == 2 && t.nodes[0].has_memory && !t.nodes[1].has_memory);
	CHECK(strcmp(t.warning, "node 0 meminfo counts 4096 MiB of 8192 MiB; "
				"using /proc/meminfo") == 0);
	/* the larger free figure: the node's own counts what it has initialised */
	CHECK(t.nodes[0].mem_total == 8589934592 && t.nodes[0].mem_free == 3221225472);
	/* no memory blocks: shares are of MemTotal */
	CHECK(!t.nodes[0].basis_blocks && t.nodes[0].mem_basis == 8589934592);
	CHECK(t.nodes[1].mem_total == 0 && t.nodes[1].mem_basis == 0);
	CHECK(strcmp(t.release, "6.1.0") == 0 && t.default_kb == 2048);
	drop(&t);

	/* /proc/meminfo no larger: nothing to say, the node's own figures stay */
	put("/proc/meminfo", "MemTotal: 4194304 kB\nMemFree: 1 kB\n");
	CHECK(topology_read(&t) == 0);
	CHECK(t.warning[0] == '\0' && t.nodes[0].mem_total == 4294967296 &&
	      t.nodes[0].mem_free == 3221225472);
	CHECK(t.default_kb == 0); /* no Hugepagesize line */
	drop(&t);
	cleanup();
}

/* No NUMA sysfs: one node 0 with every online CPU and /proc/meminfo's memory. */
UNIT_TEST(nonuma, "without NUMA sysfs: one node 0 with every CPU and all memory")
{
	struct hp_topology t;

	if (fixture("nonuma\n"
		    "sizes 2048\n"
		    "online 0-5\n"
		    "memblock 128M\n"
		    "node 0 cpus 0-5 mem 2G free 1G blocks=12 pool 2048:10:4\n") ||
	    simulated())
		return;
	CHECK(topology_read(&t) == 0);
	CHECK(!t.numa && t.hugetlb && t.nnodes == 1 && t.ncpus_online == 6);
	CHECK(t.nodes[0].id == 0 && t.nodes[0].ncpus == 6 &&
	      idset_has(t.nodes[0].cpus, 5));
	CHECK(t.nodes[0].mem_total == 2147483648 && t.nodes[0].mem_free == 1073741824);
	CHECK(t.nodes[0].has_memory);
	/* the machine's memory blocks: 12 of 128M */
	CHECK(t.nodes[0].basis_blocks && t.nodes[0].mem_basis == 1610612736);
	CHECK(pool_is(&t.nodes[0].pool[0], 10, 4, 0) &&
	      pool_is(&t.sizes[0].pool, 10, 4, 0));
	drop(&t);

	/* a block size not in hex: MemTotal is the basis, and no error */
	put("/sys/devices/system/memory/block_size_bytes", "128M\n");
	CHECK(topology_read(&t) == 0);
	CHECK(!t.nodes[0].basis_blocks && t.nodes[0].mem_basis == 2147483648);
	drop(&t);
	cleanup();
}

UNIT_TEST(no_hugetlb, "a kernel without hugetlb: no sizes, the nodes still read")
{
	struct hp_topology t;

	if (fixture("node 0 cpus 0-1 mem 1G free 1G\n") || simulated())
		return;
	CHECK(topology_read(&t) == 0);
	CHECK(!t.hugetlb && t.nsizes == 0 && t.default_kb == 0);
	CHECK(t.numa && t.nnodes == 1 && t.nodes[0].ncpus == 2);
	drop(&t);
	cleanup();
}

#define NODES "/sys/devices/system/node"

static const char two_nodes[] = "sizes 2048\n"
				"node 0 cpus 0-3 mem 4G free 3G\n"
				"node 1 cpus 4-7 mem 4G free 3G\n";

/* Whether t's error is "FILE: " and the text of errno e. */
static bool error_is(const struct hp_topology *t, const char *file, int e)
{
	char want[256];

	snprintf(want, sizeof(want), "%s: %s", file, strerror(e));
	return strcmp(t->error, want) == 0;
}

/* What the kernel never shows: each is an error that names its file. */
UNIT_TEST(errors, "what the kernel never shows is an error naming its file")
{
	struct hp_topology t;
	char p[512];

	if (fixture(two_nodes))
		return;
	/* no kernel behind hugetlb: the pools cannot be read */
	hugetlb_use(NULL);
	CHECK(topology_read(&t) == -ENOSYS);
	CHECK(error_is(&t, "/sys/kernel/mm/hugepages/hugepages-2048kB", ENOSYS));
	drop(&t);

	put(NODES "/node1/cpulist", "4-x\n");
	CHECK(topology_read(&t) == -EINVAL);
	CHECK(strcmp(t.error, NODES "/node1/cpulist: not in the kernel's format") == 0);
	drop(&t);
	put(NODES "/node1/cpulist", "4-8192\n");
	CHECK(topology_read(&t) == -ERANGE);
	CHECK(error_is(&t, NODES "/node1/cpulist", ERANGE));
	drop(&t);
	put(NODES "/node1/cpulist", "4-7\n");

	put(NODES "/node1/meminfo", "Node 1 MemTotal: 4194304 kB\n");
	CHECK(topology_read(&t) == -EINVAL);
	CHECK(strcmp(t.error, NODES "/node1/meminfo: not in the kernel's format") == 0);
	drop(&t);

	/* a node id past the kernel's limit */
	snprintf(p, sizeof(p), "%s" NODES "/node1024", root);
	CHECK(mkdir(p, 0755) == 0);
	CHECK(topology_read(&t) == -ERANGE);
	CHECK(error_is(&t, NODES "/node1024", ERANGE));
	drop(&t);
	cleanup();
}

/* The online CPUs: none, a bad list, no file; and entries that are not nodes. */
UNIT_TEST(online, "online CPUs none, bad or missing; entries that are not nodes")
{
	struct hp_topology t;
	char p[512];

	if (fixture(two_nodes) || simulated())
		return;
	put(NODES "/node1/meminfo", "Node 1 MemTotal: 4 kB\nNode 1 MemFree: 1 kB\n");
	snprintf(p, sizeof(p), "cd '%s'" NODES " && mkdir nodeX node node-1 && : >node2x",
		 root);
	CHECK(system(p) == 0);

	put("/sys/devices/system/cpu/online", "\n");
	CHECK(topology_read(&t) == 0 && t.nnodes == 2 && t.ncpus_online == 0);
	CHECK(t.nodes[0].ncpus == 0 && t.nodes[1].ncpus == 0);
	CHECK(t.nodes[1].mem_total == 4096 && t.nodes[1].mem_free == 1024);
	drop(&t);

	put("/sys/devices/system/cpu/online", "0-3,\n");
	CHECK(topology_read(&t) == -EINVAL);
	CHECK(strcmp(t.error, "/sys/devices/system/cpu/online: not in the kernel's "
			      "format") == 0);
	drop(&t);
	snprintf(p, sizeof(p), "%s/sys/devices/system/cpu/online", root);
	unlink(p);
	CHECK(topology_read(&t) == -ENOENT);
	CHECK(error_is(&t, "/sys/devices/system/cpu/online", ENOENT));
	drop(&t);
	put("/sys/devices/system/cpu/online", "0-7\n");

	/* the node directory with no node in it */
	snprintf(p, sizeof(p), "rm -rf '%s'" NODES "/node[0-9]*", root);
	CHECK(system(p) == 0);
	CHECK(topology_read(&t) == -ENOENT);
	CHECK(error_is(&t, NODES "/node*", ENOENT));
	drop(&t);
	cleanup();
}

/* A pool the kernel fails to read is an error naming the node's pool; a node
 * without one (no memory) is not. */
UNIT_TEST(pool_error, "a pool that fails to read is an error, a node without one is not")
{
	struct hp_topology t;
	char want[256];

	setenv("HUGEPAR_FAULT", "read-node:2=EIO", 1);
	if (fixture("sizes 2048\n"
		    "node 0 cpus 0-3 mem 4G free 3G\n"
		    "node 1 cpus 4-7 mem 4G free 3G\n") ||
	    simulated())
		return;
	CHECK(topology_read(&t) == -EIO);
	snprintf(want, sizeof(want),
		 "/sys/devices/system/node/node1/hugepages/hugepages-2048kB: %s",
		 strerror(EIO));
	CHECK(strcmp(t.error, want) == 0);
	drop(&t);
	CHECK(topology_read(&t) == 0 && t.nnodes == 2);
	drop(&t);
	unsetenv("HUGEPAR_FAULT");
	cleanup();
}

/* The base page and what is gigantic, from smaps and buddyinfo: arm64's three
 * granules, and nothing taken from a file not in the kernel's form. */
UNIT_TEST(granule, "the base page and gigantic size for arm64's three granules")
{
	static const struct {
		const char *granule;
		uint64_t page_kb, gigantic_kb;
	} g[] = {
	    {"granule 4K 11\n", 4, 4096},
	    {"granule 16K 12\n", 16, 32768},
	    {"granule 64K 14\n", 64, 524288},
	    {"", 0, 0},
	};
	struct hp_topology t;
	char desc[256];

	for (size_t i = 0; i < ARRAY_SIZE(g); i++) {
		snprintf(desc, sizeof(desc),
			 "sizes 2048 32768 1048576\n%s"
			 "node 0 cpus 0-3 mem 4G free 3G\n",
			 g[i].granule);
		if (fixture(desc) || simulated())
			return;
		CHECK(topology_read(&t) == 0);
		CHECK(t.page_kb == g[i].page_kb && t.gigantic_kb == g[i].gigantic_kb);
		/* 32M: gigantic but on 16K and 64K pages; 1G on all */
		CHECK(topology_gigantic(&t, 32768) == (g[i].page_kb < 16));
		CHECK(topology_gigantic(&t, 1048576));
		CHECK(!topology_gigantic(&t, 2048));
		drop(&t);
	}

	/* a page size that is none, a buddyinfo of no orders: not shown */
	if (fixture("sizes 2048\ngranule 16K 12\nnode 0 cpus 0-3 mem 4G free 3G\n") ||
	    simulated())
		return;
	put("/proc/self/smaps", "00400000-00401000 r--p 00000000 fe:01 1 /x\n"
				"KernelPageSize:        3 kB\n");
	CHECK(topology_read(&t) == 0 && t.page_kb == 0 && t.gigantic_kb == 0);
	CHECK(topology_gigantic(&t, 8192) && !topology_gigantic(&t, 4096)); /* x86's */
	drop(&t);
	put("/proc/self/smaps", "KernelPageSize:       16 kB\n");
	put("/proc/buddyinfo", "Node 0, zone   Normal\n");
	CHECK(topology_read(&t) == 0 && t.page_kb == 16 && t.gigantic_kb == 0);
	drop(&t);
	cleanup();
}
