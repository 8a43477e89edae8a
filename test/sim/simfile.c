/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * simfile.c - the simulated kernel's files: its state made from a fixture tree and
 * the machine file (.sim/machine), and the sysfs files written back after changes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "text.h"
#include "idset.h"
#include "kinfo.h"
#include "parse.h"
#include "path.h"
#include "sim.h"
#include "topology.h"

/* A curve's points, "W:P ...", from the rest of a line. */
static int parse_curve(struct sim_curve *c, char **save)
{
	char *v;

	c->nrate = 0;
	while ((v = strtok_r(NULL, " \t\n", save))) {
		struct sim_rate *r = &c->rate[c->nrate];
		char *colon = strchr(v, ':');

		if (!colon || c->nrate == SIM_MAX_RATE)
			return -EINVAL;
		*colon = '\0';
		r->workers = (uint32_t)strtoul(v, NULL, 10);
		r->pages_per_s = strtod(colon + 1, NULL);
		if (!r->workers || r->pages_per_s <= 0 ||
		    (c->nrate && r->workers <= c->rate[c->nrate - 1].workers))
			return -EINVAL;
		c->nrate++;
	}
	return c->nrate ? 0 : -EINVAL;
}

/* A size's index from its kB, as a word of the line; -1: none. */
static int size_of(const struct sim_state *st, const char *v)
{
	uint64_t kb;

	if (!v || parse_u64(v, &kb))
		return -1;
	for (unsigned z = 0; z < st->nsizes; z++)
		if (st->sizes[z].kb == kb)
			return (int)z;
	return -1;
}

/* "node LIST rate KB W:P ..." (those nodes' own curve) or "group LIST cap KB P"
 * (those nodes' summed rate at most P); v is LIST. */
static int nodes_line(struct sim_state *st, const char *key, char *v, char **save)
{
	struct hp_idset ids;
	char *what = strtok_r(NULL, " \t\n", save);
	int z = size_of(st, strtok_r(NULL, " \t\n", save)), rc;
	unsigned tag;

	if (parse_idlist(v, SIM_MAX_NODES * 4, &ids) || z < 0 || !what)
		return -EINVAL;
	if (!strcmp(key, "node") && !strcmp(what, "rate")) {
		if (st->ncurves == SIM_MAX_CURVES)
			return -E2BIG;
		rc = parse_curve(&st->curves[st->ncurves], save);
		if (rc)
			return rc;
		tag = ++st->ncurves;
	} else if (!strcmp(key, "group") && !strcmp(what, "cap")) {
		char *cap = strtok_r(NULL, " \t\n", save);

		if (!cap || st->ngroups == SIM_MAX_GROUPS || strtod(cap, NULL) <= 0)
			return -EINVAL;
		st->groups[st->ngroups] =
		    (struct sim_group){.z = (unsigned)z, .cap = strtod(cap, NULL)};
		tag = ++st->ngroups;
	} else {
		return -EINVAL;
	}
	for (unsigned n = 0; n < st->nnodes; n++) {
		if (!idset_has(&ids, st->nodes[n].id))
			continue;
		if (!strcmp(key, "node"))
			st->nodes[n].curve[z] = (uint8_t)tag;
		else
			st->nodes[n].group = (uint8_t)tag;
	}
	return 0;
}

/* "noise PCT SEED": each node's rate off by up to PCT%, drawn from SEED. */
static int noise_line(struct sim_state *st, const char *pct, char **save)
{
	char *seed = strtok_r(NULL, " \t\n", save), *end;
	double p = strtod(pct, &end);
	uint64_t v;

	if (*end || p < 0 || p >= 100 || !seed || parse_u64(seed, &v) || v > UINT32_MAX)
		return -EINVAL;
	st->noise = p / 100;
	st->noise_seed = (uint32_t)v;
	return 0;
}

/* One line of the machine file; see doc/simulator.md. */
static int machine_line(struct sim_state *st, char *line)
{
	char *save = NULL, *key = strtok_r(line, " \t\n", &save), *v;
	uint64_t kb;

	if (!key || key[0] == '#')
		return 0;
	v = strtok_r(NULL, " \t\n", &save);
	if (!v)
		return -EINVAL;
	if (strcmp(key, "rule") == 0 && (!strcmp(v, "nr") || !strcmp(v, "persistent")))
		st->rule = strcmp(v, "nr") ? SIM_RULE_PERSISTENT : SIM_RULE_NR;
	else if (strcmp(key, "placement") == 0 && !strcmp(v, "cpu"))
		st->place = SIM_PLACE_CPU;
	else if (strcmp(key, "placement") == 0 && !strcmp(v, "bind"))
		st->place = SIM_PLACE_BIND;
	else if (strcmp(key, "placement") == 0 && !strcmp(v, "local"))
		st->place = SIM_PLACE_LOCAL;
	else if (strcmp(key, "gigantic-overcommit") == 0)
		st->gigantic_overcommit = strcmp(v, "yes") == 0;
	else if (strcmp(key, "scale") == 0)
		st->scale = strtod(v, NULL);
	else if (strcmp(key, "clock") == 0 &&
		 (!strcmp(v, "virtual") || !strcmp(v, "host")))
		st->clock_virtual = strcmp(v, "virtual") == 0;
	else if (strcmp(key, "fork-us") == 0 && parse_u64(v, &kb) == 0 && kb <= 1000000)
		st->fork_us = (uint32_t)kb;
	else if (strcmp(key, "vmemmap-ns") == 0 && parse_u64(v, &kb) == 0 && kb <= 1000000)
		st->vmemmap_ns = (uint32_t)kb;
	else if (strcmp(key, "rate") == 0 && size_of(st, v) >= 0)
		return parse_curve(&st->sizes[size_of(st, v)].curve, &save);
	else if (strcmp(key, "node") == 0 || strcmp(key, "group") == 0)
		return nodes_line(st, key, v, &save);
	else if (strcmp(key, "noise") == 0)
		return noise_line(st, v, &save);
	else
		return -EINVAL;
	return 0;
}

static int read_machine(struct sim_state *st)
{
	char p[4096], line[1024], copy[1024];
	unsigned n = 0;
	FILE *f;
	int rc = 0;

	if (path_build(p, sizeof(p), "/.sim/machine"))
		return -ENAMETOOLONG;
	f = fopen(p, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (!rc && fgets(line, sizeof(line), f)) {
		n++;
		line[strcspn(line, "\n")] = '\0';
		snprintf(copy, sizeof(copy), "%s", line);
		rc = machine_line(st, line);
		if (rc)
			fprintf(stderr,
				"hugepar: %s, line %u: not a setting of the simulated "
				"kernel: %s\n",
				p, n, copy);
	}
	fclose(f);
	return rc;
}

static int read_pool(struct hp_pool *p, const char *dir, uint64_t kb)
{
	unsigned long long k = kb;
	int rc = path_read_u64(&p->nr, "%s/hugepages-%llukB/nr_hugepages", dir, k);

	if (!rc)
		rc =
		    path_read_u64(&p->free, "%s/hugepages-%llukB/free_hugepages", dir, k);
	if (!rc)
		rc = path_read_u64(&p->surplus, "%s/hugepages-%llukB/surplus_hugepages",
				   dir, k);
	return rc;
}

static int read_nodes(struct sim_state *st)
{
	struct hp_idset with_mem;
	bool mem_list =
	    path_read_idlist(&with_mem, HP_MAX_NODES, NODE_DIR "/has_memory") == 0;

	for (unsigned id = 0; id < HP_MAX_NODES; id++) {
		struct sim_node *nd;
		struct hp_idset cpus;
		char dir[96];
		int rc;

		if (!path_exists(NODE_DIR "/node%u", id))
			continue;
		if (st->nnodes == SIM_MAX_NODES)
			return -E2BIG;
		nd = &st->nodes[st->nnodes++];
		nd->id = id;
		snprintf(dir, sizeof(dir), NODE_DIR "/node%u/cpulist", id);
		nd->has_cpus = path_read_idlist(&cpus, HP_MAX_CPUS, dir) == 0 &&
			       idset_count(&cpus) > 0;
		nd->ncpus = nd->has_cpus ? idset_count(&cpus) : 0;
		for (nd->cpu0 = 0; nd->has_cpus && !idset_has(&cpus, nd->cpu0);)
			nd->cpu0++;
		snprintf(dir, sizeof(dir), NODE_DIR "/node%u/meminfo", id);
		rc = path_read_meminfo(dir, &nd->mem_total, &nd->mem_free);
		if (rc)
			return rc;
		nd->has_memory = mem_list ? idset_has(&with_mem, id) : nd->mem_total > 0;
		snprintf(dir, sizeof(dir), NODE_DIR "/node%u/hugepages", id);
		for (unsigned z = 0; z < st->nsizes; z++)
			if (path_exists("%s/hugepages-%llukB", dir,
					(unsigned long long)st->sizes[z].kb) &&
			    (rc = read_pool(&nd->pool[z], dir, st->sizes[z].kb)))
				return rc;
	}
	return st->nnodes ? 0 : -ENOENT;
}

static int make_state(struct sim_state *st)
{
	uint64_t kbs[HUGETLB_MAX_SIZES];
	char buf[4096];
	int rc = hugetlb_sizes(kbs, HUGETLB_MAX_SIZES, &st->nsizes, NULL, 0);

	if (rc)
		return rc;
	if (path_read(buf, sizeof(buf), "/proc/sys/kernel/osrelease"))
		buf[0] = '\0';
	st->rule = kinfo_release_at_least(buf, 6, 7) ? SIM_RULE_PERSISTENT : SIM_RULE_NR;
	st->place = kinfo_release_at_least(buf, 6, 16)	 ? SIM_PLACE_LOCAL
		    : kinfo_release_at_least(buf, 6, 12) ? SIM_PLACE_BIND
							 : SIM_PLACE_CPU;
	st->gigantic_overcommit = kinfo_release_at_least(buf, 6, 19);
	{
		uint64_t page_kb;

		topology_read_granule(&page_kb, &st->gigantic_kb);
		if (!st->gigantic_kb)
			st->gigantic_kb = HUGETLB_GIGANTIC_KB;
	}
	st->scale = 1;
	st->clock_virtual = true;
	{
		uint64_t v;

		st->vmemmap = path_read_u64(&v, HUGETLB_VMEMMAP_SYSCTL) ? -1 : v != 0;
		st->vmemmap_ns = SIM_VMEMMAP_NS;
	}
	st->fork_us = 1000;
	if (path_read(buf, sizeof(buf), "/proc/meminfo") == 0)
		kinfo_meminfo_kb(buf, "Hugepagesize", &st->default_kb);
	for (unsigned z = 0; z < st->nsizes; z++) {
		unsigned long long k = kbs[z];

		st->sizes[z].kb = kbs[z];
		rc = path_read_u64(
		    &st->sizes[z].overcommit,
		    HUGETLB_SYS_DIR "/hugepages-%llukB/nr_overcommit_hugepages", k);
		if (!rc)
			rc = path_read_u64(
			    &st->sizes[z].resv,
			    HUGETLB_SYS_DIR "/hugepages-%llukB/resv_hugepages", k);
		if (rc)
			return rc;
	}
	st->numa = hugetlb_numa();
	if (st->numa) {
		rc = read_nodes(st);
	} else {
		struct sim_node *nd = &st->nodes[st->nnodes++];

		nd->has_cpus = true;
		rc = path_read_meminfo("/proc/meminfo", &nd->mem_total, &nd->mem_free);
		nd->has_memory = nd->mem_total > 0;
		for (unsigned z = 0; !rc && z < st->nsizes; z++)
			rc = read_pool(&nd->pool[z], HUGETLB_SYS_DIR, st->sizes[z].kb);
	}
	if (rc)
		return rc;
	for (unsigned n = 0; n < st->nnodes; n++) {
		st->shown_free[n] = st->nodes[n].mem_free;
		for (unsigned z = 0; z < st->nsizes; z++)
			st->shown[n][z] = st->nodes[n].pool[z];
	}
	for (unsigned z = 0; z < st->nsizes; z++)
		st->shown_global[z].pool.nr = UINT64_MAX; /* written once at the start */
	return read_machine(st);
}

int simfile_create(const char *file)
{
	struct sim_file *sf = calloc(1, sizeof(*sf));
	char tmp[4096];
	int fd = -1, rc;

	if (!sf)
		return -ENOMEM;
	memcpy(sf->magic, SIM_MAGIC, sizeof(SIM_MAGIC));
	rc = make_state(&sf->st[0]);
	if (!rc && text_snprintf(tmp, sizeof(tmp), "%s.new", file))
		rc = -ENAMETOOLONG;
	if (!rc && (fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		rc = -errno;
	if (!rc && write(fd, sf, sizeof(*sf)) != (ssize_t)sizeof(*sf))
		rc = -EIO;
	if (fd >= 0 && close(fd) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, file))
		rc = -errno;
	free(sf);
	return rc;
}

/* A fixture file, replaced whole (these are plain files, not sysfs). */
static void put(const char *text, const char *rel)
{
	char p[4096];
	int fd;

	if (path_build(p, sizeof(p), "%s", rel))
		return;
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	/* the files are for people and for plan; the state is the truth */
	if (write(fd, text, strlen(text)) < 0)
		unlink(p);
	close(fd);
}

static void put_u64(uint64_t v, const char *dir, const char *name)
{
	char text[32], rel[512];

	snprintf(text, sizeof(text), "%llu\n", (unsigned long long)v);
	snprintf(rel, sizeof(rel), "%s/%s", dir, name);
	put(text, rel);
}

static void render_pool(const struct hp_pool *p, struct hp_pool *shown, const char *dir)
{
	if (p->nr != shown->nr)
		put_u64(p->nr, dir, "nr_hugepages");
	if (p->free != shown->free)
		put_u64(p->free, dir, "free_hugepages");
	if (p->surplus != shown->surplus)
		put_u64(p->surplus, dir, "surplus_hugepages");
	*shown = *p;
}

void simfile_render(struct sim_state *st)
{
	uint64_t mem_total = 0, mem_free = 0;
	bool mem_changed = false;
	char text[512], dir[160];

	for (unsigned n = 0; n < st->nnodes; n++) {
		struct sim_node *nd = &st->nodes[n];

		mem_total += nd->mem_total;
		mem_free += nd->mem_free;
		if (!st->numa)
			continue;
		if (nd->mem_free != st->shown_free[n]) {
			unsigned long long t = nd->mem_total >> 10,
					   f = nd->mem_free >> 10;

			snprintf(text, sizeof(text),
				 "Node %u MemTotal: %llu kB\nNode %u MemFree: %llu kB\n"
				 "Node %u MemUsed: %llu kB\n",
				 nd->id, t, nd->id, f, nd->id, t - f);
			snprintf(dir, sizeof(dir), NODE_DIR "/node%u/meminfo", nd->id);
			put(text, dir);
		}
		for (unsigned z = 0; nd->has_memory && z < st->nsizes; z++) {
			if (!memcmp(&nd->pool[z], &st->shown[n][z], sizeof(nd->pool[z])))
				continue;
			snprintf(dir, sizeof(dir),
				 NODE_DIR "/node%u/hugepages/hugepages-%llukB", nd->id,
				 (unsigned long long)st->sizes[z].kb);
			render_pool(&nd->pool[z], &st->shown[n][z], dir);
		}
	}
	for (unsigned n = 0; n < st->nnodes; n++)
		if (st->nodes[n].mem_free != st->shown_free[n]) {
			st->shown_free[n] = st->nodes[n].mem_free;
			mem_changed = true;
		}
	if (mem_changed) {
		snprintf(text, sizeof(text),
			 "MemTotal: %llu kB\nMemFree: %llu kB\nHugepagesize: %llu kB\n",
			 (unsigned long long)mem_total >> 10,
			 (unsigned long long)mem_free >> 10,
			 (unsigned long long)st->default_kb);
		put(text, "/proc/meminfo");
	}
	for (unsigned z = 0; z < st->nsizes; z++) {
		struct hp_global g = {.resv = st->sizes[z].resv,
				      .overcommit = st->sizes[z].overcommit};

		for (unsigned n = 0; n < st->nnodes; n++) {
			g.pool.nr += st->nodes[n].pool[z].nr;
			g.pool.free += st->nodes[n].pool[z].free;
			g.pool.surplus += st->nodes[n].pool[z].surplus;
		}
		if (!memcmp(&g, &st->shown_global[z], sizeof(g)))
			continue;
		snprintf(dir, sizeof(dir), HUGETLB_SYS_DIR "/hugepages-%llukB",
			 (unsigned long long)st->sizes[z].kb);
		render_pool(&g.pool, &st->shown_global[z].pool, dir);
		if (g.resv != st->shown_global[z].resv)
			put_u64(g.resv, dir, "resv_hugepages");
		if (g.overcommit != st->shown_global[z].overcommit)
			put_u64(g.overcommit, dir, "nr_overcommit_hugepages");
		st->shown_global[z] = g;
	}
}

void sim_show(FILE *f)
{
	struct sim_state *st;

	if (sim_lock())
		return;
	st = sim_state();
	fprintf(f, "rule %s, placement %s, gigantic overcommit %s, scale %g\n",
		st->rule == SIM_RULE_NR ? "nr" : "persistent",
		st->place == SIM_PLACE_CPU    ? "cpu"
		: st->place == SIM_PLACE_BIND ? "bind"
					      : "local",
		st->gigantic_overcommit ? "yes" : "no", st->scale);
	for (unsigned z = 0; z < st->nsizes; z++) {
		fprintf(f, "size %llukB resv %llu overcommit %llu\n",
			(unsigned long long)st->sizes[z].kb,
			(unsigned long long)st->sizes[z].resv,
			(unsigned long long)st->sizes[z].overcommit);
		for (unsigned n = 0; n < st->nnodes; n++)
			fprintf(f, "  node %u nr %llu free %llu surplus %llu optimized %llu\n",
				st->nodes[n].id,
				(unsigned long long)st->nodes[n].pool[z].nr,
				(unsigned long long)st->nodes[n].pool[z].free,
				(unsigned long long)st->nodes[n].pool[z].surplus,
				(unsigned long long)st->nodes[n].optimized[z]);
	}
	for (unsigned i = 0; i < st->nholders; i++)
		fprintf(f, "holder pid %d size %llukB resv %llu\n", st->holders[i].pid,
			(unsigned long long)st->sizes[st->holders[i].z].kb,
			(unsigned long long)st->holders[i].resv);
	sim_unlock();
}
