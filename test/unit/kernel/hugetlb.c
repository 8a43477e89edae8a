/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hugetlb.c - unit tests: the seam over a kernel, the node write's rules, page sizes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hugetlb.h"
#include "path.h"
#include "desc.h"
#include "sim.h"
#include "unit.h"

static char dir[] = "/tmp/hugepar-unit-hugetlb.XXXXXX";
static char root[256];

static int fixture(const char *desc)
{
	return fixture_from_desc(dir, root, sizeof(root), desc);
}

static void cleanup(void)
{
	char cmd[600];

	path_set_root(NULL);
	hugetlb_use(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

/* A kernel scripted by the test: what a node and the global pool read after each
 * write, and a log of the writes. */
static struct {
	struct hp_pool node;	 /* what read_node gives */
	struct hp_global global; /* what read_global gives */
	int read_err;
	int write_err;
	unsigned nwrites;
	struct {
		int node;
		uint64_t kb, val;
	} writes[8];
	unsigned released;
	uint64_t released_pages;
} fake;

static int fake_read_global(uint64_t kb, struct hp_global *g)
{
	if (fake.read_err)
		return fake.read_err;
	*g = fake.global;
	return 0;
}

static int fake_read_node(unsigned node, uint64_t kb, struct hp_pool *p)
{
	if (fake.read_err)
		return fake.read_err;
	*p = fake.node;
	return 0;
}

static int fake_write_nr(int node, uint64_t kb, uint64_t val)
{
	if (fake.nwrites < 8) {
		fake.writes[fake.nwrites].node = node;
		fake.writes[fake.nwrites].kb = kb;
		fake.writes[fake.nwrites].val = val;
	}
	fake.nwrites++;
	return fake.write_err;
}

static int fake_write_overcommit(uint64_t kb, uint64_t val)
{
	return -EPERM;
}

static int fake_bind(unsigned node, const struct hp_idset *cpus)
{
	return node == 3 ? -EINVAL : 0;
}

static int fake_reserve(uint64_t kb, uint64_t pages, struct hugetlb_resv *r)
{
	if (pages > 10)
		return -ENOMEM;
	r->kb = kb;
	r->pages = pages;
	return 0;
}

static void fake_release(struct hugetlb_resv *r)
{
	fake.released++;
	fake.released_pages += r->pages;
}

static const struct hugetlb_ops fake_ops = {
    .read_global = fake_read_global,
    .read_node = fake_read_node,
    .write_nr = fake_write_nr,
    .write_overcommit = fake_write_overcommit,
    .bind = fake_bind,
    .reserve = fake_reserve,
    .release = fake_release,
};

/* The scripted kernel: the node reads nr/surplus after a write, the global pool
 * holds this much surplus. */
static void script(uint64_t node_nr, uint64_t node_surplus, uint64_t global_surplus)
{
	memset(&fake, 0, sizeof(fake));
	fake.node.nr = node_nr;
	fake.node.surplus = node_surplus;
	fake.global.pool.nr = node_nr + 1000;
	fake.global.pool.surplus = global_surplus;
	hugetlb_use(&fake_ops);
}

static bool wrote(unsigned i, int node, uint64_t val)
{
	return fake.nwrites > i && fake.writes[i].node == node &&
	       fake.writes[i].kb == 2048 && fake.writes[i].val == val;
}

/* A tree with NUMA sysfs, for hugetlb_numa(): asked once per process. */
static int numa_tree(void)
{
	char p[512];

	if (strstr(dir, "XXXXXX") && !mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return -1;
	}
	snprintf(p, sizeof(p), "mkdir -p '%s/sys/devices/system/node/node0'", dir);
	CHECK(system(p) == 0);
	snprintf(root, sizeof(root), "%s", dir);
	path_set_root(dir);
	CHECK(hugetlb_numa());
	return 0;
}

UNIT_TEST(no_kernel, "with no kernel in use, every call says -ENOSYS and leaves nothing")
{
	struct hugetlb_resv r;
	struct hp_global g;
	struct hp_pool p;
	uint64_t v;

	hugetlb_use(NULL);
	CHECK(hugetlb_global(2048, &g) == -ENOSYS);
	CHECK(hugetlb_node(0, 2048, &p) == -ENOSYS);
	CHECK(hugetlb_node_persistent(0, 2048, &v) == -ENOSYS);
	CHECK(hugetlb_set_global(2048, 1) == -ENOSYS);
	CHECK(hugetlb_set_overcommit(2048, 1) == -ENOSYS);
	CHECK(hugetlb_bind(0, NULL) == -ENOSYS);
	memset(&r, 0xa5, sizeof(r));
	CHECK(hugetlb_reserve(2048, 1, &r) == -ENOSYS);
	CHECK(r.addr == NULL && r.len == 0 && r.kb == 0 && r.pages == 0);
	memset(&r, 0xa5, sizeof(r));
	hugetlb_release(&r);
	CHECK(r.addr == NULL && r.pages == 0);
}

/* Every call goes to the kernel in use, and comes back as it answered. */
UNIT_TEST(ops, "every call goes to the kernel in use and returns what it answered")
{
	struct hugetlb_resv r;
	struct hp_global g;
	struct hp_pool p;
	uint64_t v = 99;

	if (numa_tree())
		return;
	script(10, 3, 3);
	fake.node.free = 4;
	fake.global.resv = 2;
	fake.global.overcommit = 6;
	CHECK(hugetlb_global(2048, &g) == 0 && g.pool.nr == 1010 && g.resv == 2 &&
	      g.overcommit == 6);
	CHECK(hugetlb_node(0, 2048, &p) == 0 && p.nr == 10 && p.free == 4 &&
	      p.surplus == 3);
	CHECK(hugetlb_node_persistent(0, 2048, &v) == 0 && v == 7);
	/* more surplus than pages (a racing read): none persistent, not a wrap */
	fake.node.surplus = 12;
	CHECK(hugetlb_node_persistent(0, 2048, &v) == 0 && v == 0);
	fake.read_err = -EIO;
	v = 99;
	CHECK(hugetlb_node_persistent(0, 2048, &v) == -EIO && v == 99);
	CHECK(hugetlb_global(2048, &g) == -EIO);
	fake.read_err = 0;

	CHECK(hugetlb_set_global(2048, 40) == 0 && wrote(0, -1, 40) && fake.nwrites == 1);
	CHECK(hugetlb_set_overcommit(2048, 1) == -EPERM);
	CHECK(hugetlb_bind(0, NULL) == 0 && hugetlb_bind(3, NULL) == -EINVAL);

	memset(&r, 0xa5, sizeof(r));
	CHECK(hugetlb_reserve(2048, 11, &r) == -ENOMEM);
	CHECK(r.addr == NULL && r.pages == 0 && r.kb == 0);
	CHECK(hugetlb_reserve(2048, 4, &r) == 0 && r.pages == 4 && r.kb == 2048);
	hugetlb_release(&r);
	CHECK(fake.released == 1 && fake.released_pages == 4 && r.pages == 0 &&
	      r.kb == 0);
	hugetlb_release(&r); /* nothing held: the kernel is not asked */
	CHECK(fake.released == 1);
	cleanup();
}

/*
 * A node's write on the rules of doc/kernel-notes.md: the target first; on a kernel
 * that may read it against nr_hugepages (before 6.7, or unknown), a second write of
 * the target less the other nodes' surplus when the node ended above its target.
 */
UNIT_TEST(set_node, "a node's write, and the second one before 6.7 for others' surplus")
{
	if (numa_tree())
		return;
	/* unknown release: the older rule may hold; the node got 110 for 100, other
	 * nodes hold 30 surplus pages */
	hugetlb_set_release("");
	script(110, 0, 30);
	CHECK(hugetlb_set_node(0, 2048, 100) == 0);
	CHECK(fake.nwrites == 2 && wrote(0, 0, 100) && wrote(1, 0, 70));
	/* the node's own surplus is not the others' */
	hugetlb_set_release("6.6.30");
	script(120, 10, 40);
	CHECK(hugetlb_set_node(0, 2048, 100) == 0);
	CHECK(fake.nwrites == 2 && wrote(0, 0, 100) && wrote(1, 0, 70));
	/* more surplus elsewhere than the target: the second write is 0, not a wrap */
	script(50, 0, 30);
	CHECK(hugetlb_set_node(0, 2048, 20) == 0);
	CHECK(fake.nwrites == 2 && wrote(1, 0, 0));
	/* at or below the target, or no surplus elsewhere: one write */
	script(100, 0, 30);
	CHECK(hugetlb_set_node(0, 2048, 100) == 0 && fake.nwrites == 1);
	script(90, 0, 30);
	CHECK(hugetlb_set_node(0, 2048, 100) == 0 && fake.nwrites == 1);
	script(115, 15, 15);
	CHECK(hugetlb_set_node(0, 2048, 100) == 0 && fake.nwrites == 1);
	/* the write failed: said, nothing more */
	script(110, 0, 30);
	fake.write_err = -EBUSY;
	CHECK(hugetlb_set_node(0, 2048, 100) == -EBUSY && fake.nwrites == 1);
	/* the read back failed: the first write stands */
	script(110, 0, 30);
	fake.read_err = -EIO;
	CHECK(hugetlb_set_node(0, 2048, 100) == 0 && fake.nwrites == 1);

	/* 6.7 and later read the write against persistent pages: one write */
	hugetlb_set_release("6.7.0");
	script(110, 0, 30);
	CHECK(hugetlb_set_node(2, 2048, 100) == 0 && fake.nwrites == 1 &&
	      wrote(0, 2, 100));
	hugetlb_set_release("6.12.48+deb13-amd64");
	script(110, 0, 30);
	CHECK(hugetlb_set_node(0, 2048, 100) == 0 && fake.nwrites == 1);
	/* not a release: the older rule */
	hugetlb_set_release("-6.7");
	script(110, 0, 30);
	CHECK(hugetlb_set_node(0, 2048, 100) == 0 && fake.nwrites == 2);
	hugetlb_set_release(NULL);
	script(110, 0, 30);
	CHECK(hugetlb_set_node(0, 2048, 100) == 0 && fake.nwrites == 2);
	cleanup();
}

/* The fault seam is before every call to the kernel: the first global read fails
 * (EIO, a read's own error), then the second node write, and only those. */
UNIT_TEST(fault, "the fault seam fails exactly the calls it names, and only those")
{
	struct hp_global g;

	setenv("HUGEPAR_FAULT", "write-node:2=EBUSY,read-global:1", 1);
	if (numa_tree())
		return;
	hugetlb_set_release("6.1.0");
	script(110, 0, 30);
	CHECK(hugetlb_set_node(0, 2048, 100) == 0 && fake.nwrites == 1);
	script(110, 0, 30);
	CHECK(hugetlb_set_node(0, 2048, 100) == -EBUSY && fake.nwrites == 0);
	script(110, 0, 30);
	CHECK(hugetlb_set_node(0, 2048, 100) == 0 && fake.nwrites == 2 &&
	      wrote(1, 0, 70));
	CHECK(hugetlb_global(2048, &g) == 0 && hugetlb_set_global(2048, 1) == 0);
	unsetenv("HUGEPAR_FAULT");
	cleanup();
}

/* Without NUMA sysfs the machine is node 0, and its pool is the global one. */
UNIT_TEST(nonuma, "without NUMA sysfs, node 0 is the machine and its pool the global one")
{
	struct hp_pool p;

	if (strstr(dir, "XXXXXX") && !mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	path_set_root(dir);
	CHECK(!hugetlb_numa());
	script(7, 2, 2);
	fake.node.nr = 999; /* never read */
	fake.global.pool.nr = 40;
	fake.global.pool.free = 5;
	CHECK(hugetlb_node(0, 2048, &p) == 0 && p.nr == 40 && p.free == 5 &&
	      p.surplus == 2);
	CHECK(hugetlb_node(1, 2048, &p) == -ENOENT);
	hugetlb_set_release("");
	CHECK(hugetlb_set_node(0, 2048, 30) == 0 && fake.nwrites == 1 &&
	      wrote(0, -1, 30));
	cleanup();
}

UNIT_TEST(sizes, "the page sizes read from sysfs: strict names, sorted, too many said")
{
	static const char *const names[] = {
	    "hugepages-2048kB",
	    "hugepages-1048576kB",
	    "hugepages-64kB",
	    "hugepages-kB",
	    "hugepages-0kB",
	    "hugepages-12",
	    "hugepages-+5kB",
	    "hugepages-2048KB",
	    "hugepages-2048kBx",
	    "hugepages--1kB",
	    "hugepages-99999999999999999999kB",
	    "hugepages-1 kB",
	    "other",
	    "hugepages-02048kB",
	    "hugepages-3kB",
	    "hugepages-4096kB",
	};
	uint64_t kb[4] = {0};
	unsigned n = 99;
	char p[512], skipped[1024];

	if (strstr(dir, "XXXXXX") && !mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	path_set_root(dir);
	CHECK(hugetlb_sizes(kb, 4, &n, NULL, 0) == 0 && n == 0); /* no hugetlb here */
	snprintf(p, sizeof(p),
		 "mkdir -p '%s/sys/kernel/mm' && : >'%s/sys/kernel/mm/hugepages'", dir,
		 dir);
	CHECK(system(p) == 0);
	snprintf(p, sizeof(p), "%s/sys/kernel/mm/hugepages", dir);
	n = 99;
	CHECK(hugetlb_sizes(kb, 4, &n, NULL, 0) == -ENOTDIR && n == 0);
	unlink(p);
	mkdir(p, 0755);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/sys/kernel/mm/hugepages/%s", dir, names[i]);
		CHECK(mkdir(p, 0755) == 0);
		/* a pool in each folder but one: hugepages-4096kB is empty */
		snprintf(p, sizeof(p), "%s/sys/kernel/mm/hugepages/%s/nr_hugepages", dir,
			 names[i]);
		CHECK(strcmp(names[i], "hugepages-4096kB") == 0 ||
		      close(creat(p, 0644)) == 0);
	}
	CHECK(hugetlb_sizes(kb, 4, &n, skipped, sizeof(skipped)) == 0 && n == 3);
	CHECK(kb[0] == 64 && kb[1] == 2048 && kb[2] == 1048576);
	/* each folder of the form that is not a size is said; "other" is not */
	CHECK(strstr(skipped,
		     "hugepages-02048kB: not the kernel's name of a size: skipped"));
	CHECK(strstr(skipped, "hugepages-3kB: 3 kB is not a power of two: skipped"));
	CHECK(strstr(skipped, "hugepages-4096kB: no nr_hugepages in it: skipped"));
	CHECK(strstr(skipped, "hugepages-0kB: not") && !strstr(skipped, "other"));
	CHECK(hugetlb_sizes(kb, 3, &n, NULL, 0) == 0 && n == 3);
	/* more sizes than room: said, not dropped in silence */
	CHECK(hugetlb_sizes(kb, 2, &n, NULL, 0) == -E2BIG && n == 2);
	cleanup();
}

/*
 * The seam over the simulated kernel on a fixture: a node's write before 6.7 with
 * surplus pages on another node lands exactly, in two writes, and the files show it.
 */
UNIT_TEST(sim, "the seam over the simulated kernel: a 6.1 node write lands exactly")
{
	struct hugetlb_resv r;
	struct hp_global g;
	struct hp_pool p;
	uint64_t v;

	if (fixture("sizes 2048 1048576\n"
		    "release 6.1.0\n"
		    "node 0 cpus 0-3 mem 4G free 3G pool 2048:10\n"
		    "node 1 cpus 4-7 mem 4G free 3G pool 2048:20:20:5\n"))
		return;
	CHECK(sim_open() == 0);
	hugetlb_use(&sim_hugetlb);
	hugetlb_set_release("6.1.0");
	CHECK(hugetlb_numa());
	CHECK(hugetlb_node(1, 2048, &p) == 0 && p.nr == 20 && p.free == 20 &&
	      p.surplus == 5);
	CHECK(hugetlb_global(2048, &g) == 0 && g.pool.nr == 30 && g.pool.surplus == 5);

	CHECK(hugetlb_set_node(0, 2048, 30) == 0);
	CHECK(hugetlb_node(0, 2048, &p) == 0 && p.nr == 30 && p.surplus == 0);
	CHECK(hugetlb_node(1, 2048, &p) == 0 && p.nr == 20 && p.surplus == 5);
	CHECK(path_read_u64(&v, "/sys/devices/system/node/node0/hugepages/"
				"hugepages-2048kB/nr_hugepages") == 0 &&
	      v == 30);
	CHECK(path_read_u64(
		  &v, "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages") == 0 &&
	      v == 50);
	/* down again, and a 1G pool on node 1 */
	CHECK(hugetlb_set_node(0, 2048, 12) == 0);
	CHECK(hugetlb_node_persistent(0, 2048, &v) == 0 && v == 12);
	/* Below the other node's 5 surplus pages the older rule cannot go: a write of
	 * N leaves N + 5 (nr 20 there, 15 persistent). */
	CHECK(hugetlb_set_node(0, 2048, 4) == 0);
	CHECK(hugetlb_node_persistent(0, 2048, &v) == 0 && v == 5);
	CHECK(hugetlb_node(1, 2048, &p) == 0 && p.nr == 20 && p.surplus == 5);
	CHECK(hugetlb_set_node(1, 1048576, 2) == 0);
	CHECK(hugetlb_node(1, 1048576, &p) == 0 && p.nr == 2 && p.free == 2);
	CHECK(hugetlb_node(0, 1048576, &p) == 0 && p.nr == 0);
	CHECK(hugetlb_node(9, 2048, &p) == -ENOENT);
	CHECK(hugetlb_set_node(9, 2048, 1) == -ENOENT);
	CHECK(hugetlb_global(4096, &g) == -ENOENT);
	/* gigantic pages are overcommitted from 6.19 only */
	CHECK(hugetlb_set_overcommit(1048576, 1) == -EINVAL);
	CHECK(hugetlb_set_overcommit(2048, 3) == 0);
	CHECK(hugetlb_global(2048, &g) == 0 && g.overcommit == 3);

	/* a reservation is counted, and given back */
	CHECK(hugetlb_reserve(2048, 4, &r) == 0 && r.pages == 4 && r.kb == 2048);
	CHECK(hugetlb_global(2048, &g) == 0 && g.resv == 4);
	hugetlb_release(&r);
	CHECK(r.pages == 0 && hugetlb_global(2048, &g) == 0 && g.resv == 0);
	cleanup();
}

/* What is gigantic is the simulated kernel's granule: 32M pages are not with 16K
 * pages (the largest buddy block is 32M), and are with 4K pages (4M): before 6.19
 * the one is overcommitted and reserved, the other refused. */
static void sim_granule(const char *granule, bool gigantic)
{
	struct hugetlb_resv r;
	char desc[160];

	snprintf(desc, sizeof(desc),
		 "sizes 2048 32768\nrelease 6.12.0\n%snode 0 cpus 0-3 mem 4G free 3G\n",
		 granule);
	if (fixture(desc))
		return;
	CHECK(sim_open() == 0);
	hugetlb_use(&sim_hugetlb);
	hugetlb_set_release("6.12.0");
	CHECK(hugetlb_set_overcommit(32768, 2) == (gigantic ? -EINVAL : 0));
	if (!gigantic) {
		CHECK(hugetlb_reserve(32768, 2, &r) == 0 && r.pages == 2);
		hugetlb_release(&r);
	}
	CHECK(hugetlb_set_overcommit(1048576, 1) == -ENOENT);
	cleanup();
}

UNIT_TEST(sim_16k, "with 16K pages, 32M pages are not gigantic: overcommitted, reserved")
{
	sim_granule("granule 16K 12\n", false);
}

UNIT_TEST(sim_4k, "with 4K pages, 32M pages are gigantic: no overcommit before 6.19")
{
	sim_granule("granule 4K 11\n", true);
}
