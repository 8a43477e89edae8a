/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology.c - NUMA nodes, their CPUs and memory, and the kernel's huge page pools. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "topology.h"

#define NODE_DIR "/sys/devices/system/node"
#define HP_DIR	 "/sys/kernel/mm/hugepages"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Find "Key:" in a meminfo text (node form "Node N Key:" or /proc form) in kB. */
static int meminfo_kb(const char *text, const char *key, uint64_t *kb)
{
	size_t klen = strlen(key);

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		const char *k = line;
		char num[32];
		size_t n = 0;

		if (strncmp(k, "Node ", 5) == 0) {
			k += 5;
			while (*k >= '0' && *k <= '9')
				k++;
			while (*k == ' ')
				k++;
		}
		if (strncmp(k, key, klen) == 0 && k[klen] == ':') {
			k += klen + 1;
			while (*k == ' ' || *k == '\t')
				k++;
			while (*k >= '0' && *k <= '9' && n + 1 < sizeof(num))
				num[n++] = *k++;
			num[n] = '\0';
			return parse_u64(num, kb);
		}
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

static int read_meminfo(const char *file, uint64_t *total, uint64_t *free_)
{
	char buf[16384];
	uint64_t t, f;
	int rc = path_read(buf, sizeof(buf), "%s", file);

	if (rc && rc != -EFBIG)
		return rc;
	if (meminfo_kb(buf, "MemTotal", &t) || meminfo_kb(buf, "MemFree", &f))
		return -EINVAL;
	if (!mul_u64(t, 1024, total) || !mul_u64(f, 1024, free_))
		return -ERANGE;
	return 0;
}

static int read_idlist(struct hp_idset *set, unsigned limit, const char *file)
{
	char buf[8192];
	int rc = path_read(buf, sizeof(buf), "%s", file);

	if (rc)
		return rc;
	return parse_idlist(buf, limit, set);
}

static int read_sizes(struct hp_topology *t)
{
	DIR *d = path_opendir(HP_DIR);
	struct dirent *de;
	uint64_t kbs[HP_MAX_SIZES];
	unsigned n = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		char num[32];
		const char *p;
		size_t len;
		uint64_t kb;

		if (strncmp(de->d_name, "hugepages-", 10))
			continue;
		p = de->d_name + 10;
		len = strlen(p);
		if (len < 3 || len - 2 >= sizeof(num) || strcmp(p + len - 2, "kB"))
			continue;
		memcpy(num, p, len - 2);
		num[len - 2] = '\0';
		if (parse_u64(num, &kb) || kb == 0 || n == HP_MAX_SIZES)
			continue;
		kbs[n++] = kb;
	}
	closedir(d);
	qsort(kbs, n, sizeof(kbs[0]), cmp_u64);
	for (unsigned i = 0; i < n; i++)
		t->sizes[i].kb = kbs[i];
	t->nsizes = n;
	t->hugetlb = n > 0;
	return 0;
}

static int read_pool(struct hp_pool *p, const char *dir, uint64_t kb)
{
	int rc;

	rc = path_read_u64(&p->nr, "%s/hugepages-%llukB/nr_hugepages", dir,
			   (unsigned long long)kb);
	if (!rc)
		rc = path_read_u64(&p->free, "%s/hugepages-%llukB/free_hugepages", dir,
				   (unsigned long long)kb);
	if (!rc)
		rc = path_read_u64(&p->surplus, "%s/hugepages-%llukB/surplus_hugepages",
				   dir, (unsigned long long)kb);
	return rc;
}

int topology_read_pools(struct hp_topology *t)
{
	for (unsigned s = 0; s < t->nsizes; s++) {
		struct hp_size *sz = &t->sizes[s];
		unsigned long long kb = sz->kb;
		int rc = read_pool(&sz->pool, HP_DIR, sz->kb);

		if (!rc)
			rc = path_read_u64(&sz->resv,
					   HP_DIR "/hugepages-%llukB/resv_hugepages", kb);
		if (!rc)
			rc = path_read_u64(
			    &sz->overcommit,
			    HP_DIR "/hugepages-%llukB/nr_overcommit_hugepages", kb);
		if (rc)
			return rc;
		for (unsigned i = 0; i < t->nnodes; i++) {
			struct hp_node *nd = &t->nodes[i];
			char dir[64];

			if (!t->numa) {
				nd->pool[s] = sz->pool;
				continue;
			}
			snprintf(dir, sizeof(dir), NODE_DIR "/node%u/hugepages", nd->id);
			/* A node without memory may have no hugepages directory. */
			if (!path_exists("%s/hugepages-%llukB", dir, kb)) {
				memset(&nd->pool[s], 0, sizeof(nd->pool[s]));
				continue;
			}
			rc = read_pool(&nd->pool[s], dir, sz->kb);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int read_nodes(struct hp_topology *t, const struct hp_idset *online)
{
	struct hp_idset ids = {0}, with_mem;
	bool have_mem_list;
	DIR *d = path_opendir(NODE_DIR);
	struct dirent *de;
	unsigned n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		uint64_t id;

		if (strncmp(de->d_name, "node", 4) || parse_u64(de->d_name + 4, &id))
			continue;
		if (id >= HP_MAX_NODES) {
			closedir(d);
			return -ERANGE;
		}
		idset_add(&ids, id);
	}
	closedir(d);
	t->nnodes = idset_count(&ids);
	if (t->nnodes == 0)
		return -ENOENT;
	t->nodes = calloc(t->nnodes, sizeof(*t->nodes));
	if (!t->nodes)
		return -ENOMEM;
	have_mem_list = read_idlist(&with_mem, HP_MAX_NODES, NODE_DIR "/has_memory") == 0;

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
		rc = read_idlist(nd->cpus, HP_MAX_CPUS, file);
		if (rc)
			return rc;
		/* Some architectures keep offline CPUs in the node's mask. */
		idset_and(nd->cpus, online);
		nd->ncpus = idset_count(nd->cpus);
		snprintf(file, sizeof(file), NODE_DIR "/node%u/meminfo", id);
		rc = read_meminfo(file, &nd->mem_total, &nd->mem_free);
		if (rc)
			return rc;
		nd->has_memory =
		    have_mem_list ? idset_has(&with_mem, id) : nd->mem_total > 0;
	}
	return 0;
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
	if (!only || read_meminfo("/proc/meminfo", &total, &free_))
		return;
	if (total <= only->mem_total)
		return;
	snprintf(t->warning, sizeof(t->warning),
		 "node %u meminfo counts %llu MiB of %llu MiB; using /proc/meminfo",
		 only->id, (unsigned long long)(only->mem_total >> 20),
		 (unsigned long long)(total >> 20));
	only->mem_total = total;
	only->mem_free = MAX(free_, only->mem_free);
}

/*
 * Gigantic pages (larger than the buddy allocator's largest block, 4 MiB on x86) can
 * only be overcommitted, and so reserved in parallel, from Linux 6.19 on. The engine
 * still tries and falls back, so this only steers the plan's worker counts.
 */
#define GIGANTIC_KB 4096

static void mark_parallel(struct hp_topology *t)
{
	unsigned major = 0, minor = 0;
	bool new_kernel;

	if (path_read(t->release, sizeof(t->release), "/proc/sys/kernel/osrelease") == 0)
		strtrim(t->release);
	else
		t->release[0] = '\0';
	sscanf(t->release, "%u.%u", &major, &minor);
	new_kernel = major > 6 || (major == 6 && minor >= 19);
	for (unsigned z = 0; z < t->nsizes; z++)
		t->sizes[z].parallel = t->sizes[z].kb <= GIGANTIC_KB || new_kernel;
}

int topology_read(struct hp_topology *t)
{
	struct hp_idset online;
	char buf[4096];
	uint64_t kb;
	int rc;

	memset(t, 0, sizeof(*t));
	rc = read_idlist(&online, HP_MAX_CPUS, "/sys/devices/system/cpu/online");
	if (rc)
		return rc;
	t->ncpus_online = idset_count(&online);

	rc = read_sizes(t);
	if (rc)
		return rc;
	mark_parallel(t);
	rc = path_read(buf, sizeof(buf), "/proc/meminfo");
	if ((rc == 0 || rc == -EFBIG) && meminfo_kb(buf, "Hugepagesize", &kb) == 0)
		t->default_kb = kb;

	t->numa = path_exists(NODE_DIR);
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
		rc = read_meminfo("/proc/meminfo", &t->nodes[0].mem_total,
				  &t->nodes[0].mem_free);
		if (rc)
			return rc;
		t->nodes[0].has_memory = t->nodes[0].mem_total > 0;
	}
	return topology_read_pools(t);
}

void topology_free(struct hp_topology *t)
{
	for (unsigned i = 0; t->nodes && i < t->nnodes; i++)
		free(t->nodes[i].cpus);
	free(t->nodes);
	t->nodes = NULL;
	t->nnodes = 0;
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
