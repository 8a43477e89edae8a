/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology.c - NUMA nodes, their CPUs and memory, and the kernel's huge page pools. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "hugetlb.h"
#include "idset.h"
#include "kinfo.h"
#include "macros.h"
#include "parse.h"
#include "path.h"
#include "topology.h"

/* Say which file failed, and how: every topology error names it. */
static int fail(struct hp_topology *t, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct hp_topology *t, int rc, const char *fmt, ...)
{
	char what[192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(t->error, sizeof(t->error), "%s: %s", what,
		 rc == -EINVAL ? "not in the kernel's format" : path_strerror(rc));
	return rc;
}

int topology_read_pools(struct hp_topology *t)
{
	for (unsigned z = 0; z < t->nsizes; z++) {
		struct hp_size *sz = &t->sizes[z];
		struct hp_global g;
		int rc = hugetlb_global(sz->kb, &g);

		if (rc)
			return fail(t, rc, "/sys/kernel/mm/hugepages/hugepages-%llukB",
				    (unsigned long long)sz->kb);
		sz->pool = g.pool;
		sz->resv = g.resv;
		sz->overcommit = g.overcommit;
		for (unsigned i = 0; i < t->nnodes; i++) {
			struct hp_node *nd = &t->nodes[i];

			rc = hugetlb_node(nd->id, sz->kb, &nd->pool[z]);
			/* A node without memory may have no pool of this size. */
			if (rc == -ENOENT)
				memset(&nd->pool[z], 0, sizeof(nd->pool[z]));
			else if (rc)
				return fail(t, rc,
					    NODE_DIR "/node%u/hugepages/hugepages-%llukB",
					    nd->id, (unsigned long long)sz->kb);
		}
	}
	return 0;
}

static int read_nodes(struct hp_topology *t, const struct hp_idset *online)
{
	struct hp_idset ids = {0}, with_mem;
	bool have_mem_list;
	struct path_dir d;
	const char *name;
	unsigned n = 0;
	int err = path_dir_open(&d, NODE_DIR);

	if (err)
		return fail(t, err, NODE_DIR);
	while ((name = path_dir_next(&d))) {
		uint64_t id;

		if (strncmp(name, "node", 4) || parse_u64(name + 4, &id))
			continue;
		if (id >= HP_MAX_NODES) {
			err = fail(t, -ERANGE, NODE_DIR "/%s", name);
			path_dir_close(&d);
			return err;
		}
		idset_add(&ids, id);
	}
	path_dir_close(&d);
	t->nnodes = idset_count(&ids);
	if (t->nnodes == 0)
		return fail(t, -ENOENT, NODE_DIR "/node*");
	t->nodes = calloc(t->nnodes, sizeof(*t->nodes));
	if (!t->nodes)
		return -ENOMEM;
	have_mem_list =
	    path_read_idlist(&with_mem, HP_MAX_NODES, NODE_DIR "/has_memory") == 0;

	for (unsigned id = 0; id < HP_MAX_NODES; id++) {
		struct hp_node *nd;
		char file[64];
		int rc;

		if (!idset_has(&ids, id))
			continue;
		nd = &t->nodes[n++];
		nd->id = id;
		nd->cpus = calloc(1, sizeof(*nd->cpus));
		if (!nd->cpus)
			return -ENOMEM;
		snprintf(file, sizeof(file), NODE_DIR "/node%u/cpulist", id);
		rc = path_read_idlist(nd->cpus, HP_MAX_CPUS, file);
		if (rc)
			return fail(t, rc, "%s", file);
		/* Some architectures keep offline CPUs in the node's mask. */
		idset_and(nd->cpus, online);
		nd->ncpus = idset_count(nd->cpus);
		snprintf(file, sizeof(file), NODE_DIR "/node%u/meminfo", id);
		rc = path_read_meminfo(file, &nd->mem_total, &nd->mem_free);
		if (rc)
			return fail(t, rc, "%s", file);
		nd->has_memory =
		    have_mem_list ? idset_has(&with_mem, id) : nd->mem_total > 0;
	}
	return 0;
}

/* Memory blocks under DIR (memoryN entries), or 0. */
static unsigned count_blocks(const char *dir)
{
	struct path_dir d;
	const char *name;
	unsigned n = 0;
	uint64_t id;

	if (path_dir_open(&d, "%s", dir))
		return 0;
	while ((name = path_dir_next(&d)))
		if (strncmp(name, "memory", 6) == 0 && parse_u64(name + 6, &id) == 0)
			n++;
	path_dir_close(&d);
	return n;
}

/*
 * What shares are of: MemTotal moves by a few MiB between boots and kernels (what the
 * kernel keeps for itself), so a share of it can give another count each boot. The
 * memory blocks of a node (/sys/devices/system/memory, block_size_bytes each) are
 * the installed memory and do not move; take them where the kernel has them.
 */
static void read_basis(struct hp_topology *t)
{
	char buf[64];
	uint64_t bs = 0;

	if (path_read(buf, sizeof(buf), "/sys/devices/system/memory/block_size_bytes") ||
	    parse_hex(parse_trim(buf), &bs))
		bs = 0;
	for (unsigned i = 0; i < t->nnodes; i++) {
		struct hp_node *nd = &t->nodes[i];
		char dir[96];
		unsigned blocks;

		if (t->numa)
			snprintf(dir, sizeof(dir), NODE_DIR "/node%u", nd->id);
		else
			snprintf(dir, sizeof(dir), "/sys/devices/system/memory");
		blocks = bs ? count_blocks(dir) : 0;
		nd->basis_blocks =
		    blocks && nd->has_memory && mul_u64(blocks, bs, &nd->mem_basis);
		if (!nd->basis_blocks)
			nd->mem_basis = nd->mem_total;
	}
}

/*
 * Kernels that initialise struct pages lazily after boot count only the initialised
 * part in a node's meminfo, while /proc/meminfo counts it all (see doc/kernel-notes.md).
 * With a single node holding memory the global figures are the node's, so take them.
 */
static void fix_lazy_meminfo(struct hp_topology *t)
{
	uint64_t total, free_;
	struct hp_node *only = NULL;

	for (unsigned i = 0; i < t->nnodes; i++) {
		if (!t->nodes[i].has_memory)
			continue;
		if (only)
			return;
		only = &t->nodes[i];
	}
	if (!only || path_read_meminfo("/proc/meminfo", &total, &free_))
		return;
	if (total <= only->mem_total)
		return;
	snprintf(t->warning + strlen(t->warning), sizeof(t->warning) - strlen(t->warning),
		 "%snode %u meminfo counts %llu MiB of %llu MiB; using /proc/meminfo",
		 t->warning[0] ? "; " : "", only->id,
		 (unsigned long long)(only->mem_total >> 20),
		 (unsigned long long)(total >> 20));
	only->mem_total = total;
	only->mem_free = MAX(free_, only->mem_free);
}

static int read_sizes(struct hp_topology *t)
{
	uint64_t kbs[HP_MAX_SIZES];
	int rc =
	    hugetlb_sizes(kbs, HP_MAX_SIZES, &t->nsizes, t->warning, sizeof(t->warning));

	if (rc)
		return fail(t, rc, "/sys/kernel/mm/hugepages");
	for (unsigned i = 0; i < t->nsizes; i++)
		t->sizes[i].kb = kbs[i];
	t->hugetlb = t->nsizes > 0;
	return 0;
}

void topology_read_granule(uint64_t *page_kb, uint64_t *gigantic_kb)
{
	char buf[2048];
	uint64_t kb;
	unsigned orders;
	int rc;

	*page_kb = *gigantic_kb = 0;
	rc = path_read(buf, sizeof(buf), "/proc/self/smaps");
	if ((rc == 0 || rc == -EFBIG) &&
	    kinfo_meminfo_kb(buf, "KernelPageSize", &kb) == 0 && kb >= 4 && kb <= 1024 &&
	    !(kb & (kb - 1)))
		*page_kb = kb;
	rc = path_read(buf, sizeof(buf), "/proc/buddyinfo");
	orders = rc == 0 || rc == -EFBIG ? kinfo_buddyinfo_orders(buf) : 0;
	if (*page_kb && orders >= 1 && orders <= 24)
		*gigantic_kb = *page_kb << (orders - 1);
}

bool topology_initramfs(void)
{
	struct statfs sf;

	if (path_exists("/etc/initrd-release"))
		return true;
	return !path_root()[1] && statfs("/", &sf) == 0 &&
	       ((unsigned long)sf.f_type == RAMFS_MAGIC ||
		(unsigned long)sf.f_type == TMPFS_MAGIC);
}

int topology_read(struct hp_topology *t)
{
	struct hp_idset online;
	char buf[4096];
	uint64_t kb;
	int rc;

	memset(t, 0, sizeof(*t));
	rc = path_read_idlist(&online, HP_MAX_CPUS, "/sys/devices/system/cpu/online");
	if (rc)
		return fail(t, rc, "/sys/devices/system/cpu/online");
	t->ncpus_online = idset_count(&online);

	rc = read_sizes(t);
	if (rc)
		return rc;
	if (path_read(t->release, sizeof(t->release), "/proc/sys/kernel/osrelease") == 0)
		parse_trim(t->release);
	else
		t->release[0] = '\0';
	if (path_read(t->boot_id, sizeof(t->boot_id), "/proc/sys/kernel/random/boot_id"))
		t->boot_id[0] = '\0';
	parse_trim(t->boot_id);
	t->initramfs = topology_initramfs();
	t->vmemmap_offered = path_read_u64(&kb, HUGETLB_VMEMMAP_SYSCTL) == 0;
	t->vmemmap_on = t->vmemmap_offered && kb;
	rc = path_read(buf, sizeof(buf), "/proc/meminfo");
	if ((rc == 0 || rc == -EFBIG) && kinfo_meminfo_kb(buf, "Hugepagesize", &kb) == 0)
		t->default_kb = kb;
	topology_read_granule(&t->page_kb, &t->gigantic_kb);

	t->numa = hugetlb_numa();
	if (t->numa) {
		rc = read_nodes(t, &online);
		if (rc)
			return rc;
		fix_lazy_meminfo(t);
	} else {
		/* No NUMA sysfs: the machine is one node with every online CPU. */
		t->nnodes = 1;
		t->nodes = calloc(1, sizeof(*t->nodes));
		if (!t->nodes)
			return -ENOMEM;
		t->nodes[0].cpus = malloc(sizeof(online));
		if (!t->nodes[0].cpus)
			return -ENOMEM;
		*t->nodes[0].cpus = online;
		t->nodes[0].ncpus = t->ncpus_online;
		rc = path_read_meminfo("/proc/meminfo", &t->nodes[0].mem_total,
				       &t->nodes[0].mem_free);
		if (rc)
			return fail(t, rc, "/proc/meminfo");
		t->nodes[0].has_memory = t->nodes[0].mem_total > 0;
	}
	read_basis(t);
	return topology_read_pools(t);
}

int topology_node_index(const struct hp_topology *t, unsigned id)
{
	for (unsigned i = 0; i < t->nnodes; i++)
		if (t->nodes[i].id == id)
			return i;
	return -1;
}

int topology_size_index(const struct hp_topology *t, uint64_t kb)
{
	for (unsigned i = 0; i < t->nsizes; i++)
		if (t->sizes[i].kb == kb)
			return i;
	return -1;
}
