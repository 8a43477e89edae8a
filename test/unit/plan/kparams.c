/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kparams.c - unit tests: pools written as the kernel's own boot parameters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kparams.h"
#include "unit.h"

/* What kparams_put() writes for r after 'before' (a string), and *first after. */
static char *put(const char *before, const struct kparams_row *r, bool numa, bool *first)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputs(before, f);
	kparams_put(f, r, numa, first);
	fclose(f);
	return buf;
}

UNIT_TEST(put, "a size's kernel parameters: per node, a total, empty pools left out")
{
	struct kparams_row r = {.kb = 2048, .n = 2, .ids = {0, 1}, .pages = {512, 512}};
	bool first = true;
	char *s;

	s = put("", &r, true, &first);
	CHECK(s && strcmp(s, "hugepagesz=2M hugepages=0:512,1:512") == 0 && !first);
	free(s);
	/* the next size follows after a space */
	r = (struct kparams_row){.kb = 1048576, .n = 2, .ids = {0, 1}, .pages = {16, 8}};
	s = put("x", &r, true, &first);
	CHECK(s && strcmp(s, "x hugepagesz=1G hugepages=0:16,1:8") == 0 && !first);
	free(s);

	/* without NUMA (or with one node) the kernel takes one count */
	first = true;
	r = (struct kparams_row){.kb = 2048, .n = 2, .ids = {0, 1}, .pages = {100, 28}};
	s = put("", &r, false, &first);
	CHECK(s && strcmp(s, "hugepagesz=2M hugepages=128") == 0);
	free(s);

	/* empty pools are left out, and ids are the nodes' own */
	first = true;
	r = (struct kparams_row){
	    .kb = 1048576, .n = 3, .ids = {0, 4, 1023}, .pages = {0, 16, 2}};
	s = put("", &r, true, &first);
	CHECK(s && strcmp(s, "hugepagesz=1G hugepages=4:16,1023:2") == 0);
	free(s);

	/* no pages at all: nothing, and the next size is still the first */
	first = true;
	r = (struct kparams_row){.kb = 2048, .n = 2, .ids = {0, 1}};
	s = put("", &r, true, &first);
	CHECK(s && strcmp(s, "") == 0 && first);
	free(s);

	/* other page sizes by their human names */
	r = (struct kparams_row){.kb = 64, .n = 1, .ids = {0}, .pages = {3}};
	s = put("", &r, true, &first);
	CHECK(s && strcmp(s, "hugepagesz=64K hugepages=0:3") == 0);
	free(s);
	first = true;
	r = (struct kparams_row){.kb = 16777216, .n = 1, .ids = {0}, .pages = {1}};
	s = put("", &r, false, &first);
	CHECK(s && strcmp(s, "hugepagesz=16G hugepages=1") == 0);
	free(s);
}

/* A machine of n nodes (ids), sizes 2M and 1G, a plan and a result over it. */
static struct hp_node nodes[4];
static struct hp_cell cells[8];
static struct hp_cell_result results[8];

static void machine(struct hp_topology *t, struct hp_plan *p, struct hp_result *res,
		    unsigned n, const unsigned *ids)
{
	memset(t, 0, sizeof(*t));
	memset(p, 0, sizeof(*p));
	memset(res, 0, sizeof(*res));
	memset(nodes, 0, sizeof(nodes));
	memset(cells, 0, sizeof(cells));
	memset(results, 0, sizeof(results));
	t->numa = t->hugetlb = true;
	t->nnodes = p->nnodes = res->nnodes = n;
	t->nsizes = p->nsizes = res->nsizes = 2;
	t->nodes = nodes;
	t->sizes[0].kb = 2048;
	t->sizes[1].kb = 1048576;
	for (unsigned i = 0; i < n; i++)
		nodes[i].id = ids[i];
	p->cells = cells;
	res->cells = results;
}

/* Plan 'target' pages of size z on node n, of which it got 'achieved'. */
static void cell(struct hp_plan *p, unsigned n, unsigned z, uint64_t target,
		 uint64_t achieved)
{
	plan_cell(p, n, z)->target = target;
	results[n * p->nsizes + z].achieved = achieved;
}

UNIT_TEST(boot_route, "the kernel's own route for gigantic pages short at run time")
{
	static const unsigned ids[] = {0, 1, 2, 3}, sparse[] = {0, 8};
	struct hp_topology t;
	struct hp_plan p;
	struct hp_result res;
	char *s;

	machine(&t, &p, &res, 2, ids);
	cell(&p, 0, 0, 512, 100); /* 2M short: not gigantic, no route */
	cell(&p, 1, 0, 512, 512);
	cell(&p, 0, 1, 16, 16);
	cell(&p, 1, 1, 16, 16);
	CHECK(kparams_boot_route(&t, &p, &res, 0) == NULL);
	CHECK(kparams_boot_route(&t, &p, &res, 1) == NULL); /* every node got it */

	/* one node short: the planned pools of every node, as the kernel takes them */
	cell(&p, 1, 1, 16, 3);
	s = kparams_boot_route(&t, &p, &res, 1);
	CHECK(s && strcmp(s, "hugepagesz=1G hugepages=0:16,1:16") == 0);
	free(s);
	/* more than planned is not short */
	cell(&p, 1, 1, 16, 20);
	CHECK(kparams_boot_route(&t, &p, &res, 1) == NULL);

	/* a node with nothing planned is left out; ids are the nodes' own */
	machine(&t, &p, &res, 2, sparse);
	cell(&p, 0, 1, 0, 0);
	cell(&p, 1, 1, 4, 0);
	s = kparams_boot_route(&t, &p, &res, 1);
	CHECK(s && strcmp(s, "hugepagesz=1G hugepages=8:4") == 0);
	free(s);

	/* one node, or no NUMA: one count */
	machine(&t, &p, &res, 1, ids);
	cell(&p, 0, 1, 2, 1);
	s = kparams_boot_route(&t, &p, &res, 1);
	CHECK(s && strcmp(s, "hugepagesz=1G hugepages=2") == 0);
	free(s);
	machine(&t, &p, &res, 4, ids);
	t.numa = false;
	for (unsigned n = 0; n < 4; n++)
		cell(&p, n, 1, 1, 0);
	s = kparams_boot_route(&t, &p, &res, 1);
	CHECK(s && strcmp(s, "hugepagesz=1G hugepages=4") == 0);
	free(s);
	t.numa = true;
	s = kparams_boot_route(&t, &p, &res, 1);
	CHECK(s && strcmp(s, "hugepagesz=1G hugepages=0:1,1:1,2:1,3:1") == 0);
	free(s);

	/* a page of 4 MiB is not gigantic (x86's largest buddy block); 8 MiB is */
	machine(&t, &p, &res, 2, ids);
	t.sizes[1].kb = 4096;
	cell(&p, 0, 1, 10, 0);
	CHECK(kparams_boot_route(&t, &p, &res, 1) == NULL);
	t.sizes[1].kb = 8192;
	s = kparams_boot_route(&t, &p, &res, 1);
	CHECK(s && strcmp(s, "hugepagesz=8M hugepages=0:10") == 0);
	free(s);
	/* with 16K pages the largest block is 32M: a 32M page is not gigantic, 1G is */
	t.gigantic_kb = 32768;
	t.sizes[1].kb = 32768;
	CHECK(kparams_boot_route(&t, &p, &res, 1) == NULL);
	t.sizes[1].kb = 1048576;
	s = kparams_boot_route(&t, &p, &res, 1);
	CHECK(s && strcmp(s, "hugepagesz=1G hugepages=0:10") == 0);
	free(s);
}

/* The counts the kernel is to get for one node of 2M and 1G pages. */
static void counts(uint64_t mem_total, uint64_t keep_free, const bool *asked,
		   const uint64_t *req, const uint64_t *target, uint64_t *out)
{
	static const uint64_t kb[2] = {2048, 1048576};
	struct kparams_node nd = {.mem_total = mem_total,
				  .keep_free = keep_free,
				  .nsizes = 2,
				  .kb = kb,
				  .asked = asked,
				  .requested = req,
				  .target = target};

	kparams_boot_counts(&nd, out);
}

#define GIB (UINT64_C(1) << 30)

UNIT_TEST(boot_counts,
	  "a capped cell's request for the kernel, within MemTotal less keep_free")
{
	uint64_t out[2];

	/* free memory capped 3000 pages at 256 on an 8 GiB node: the request */
	counts(8 * GIB, 512 << 20, (bool[]){true, false}, (uint64_t[]){3000, 0},
	       (uint64_t[]){256, 0}, out);
	CHECK(out[0] == 3000 && out[1] == 0);
	/* keep_free is of MemTotal: 8 GiB less 2 GiB holds 3072 2M pages */
	counts(8 * GIB, 2 * GIB, (bool[]){true, false}, (uint64_t[]){5000, 0},
	       (uint64_t[]){256, 0}, out);
	CHECK(out[0] == 3072);
	/* largest size first: 4 1G pages leave 3 GiB of 7 for 2M pages */
	counts(8 * GIB, 1 * GIB, (bool[]){true, true}, (uint64_t[]){5000, 4},
	       (uint64_t[]){100, 1}, out);
	CHECK(out[1] == 4 && out[0] == 1536);
	/* a cell met, or not asked, keeps its target (a larger pool grow mode kept) */
	counts(8 * GIB, 0, (bool[]){true, false}, (uint64_t[]){100, 0},
	       (uint64_t[]){300, 2}, out);
	CHECK(out[0] == 300 && out[1] == 2);
	/* never below the target, even where keep_free leaves no room */
	counts(1 * GIB, 2 * GIB, (bool[]){true, false}, (uint64_t[]){400, 0},
	       (uint64_t[]){10, 0}, out);
	CHECK(out[0] == 10);
	/* a node without memory: what it has (nothing) */
	counts(0, 0, (bool[]){true, true}, (uint64_t[]){64, 1}, (uint64_t[]){0, 0}, out);
	CHECK(out[0] == 0 && out[1] == 0);
	/* a request of 2^64-1 pages: what fits, no overflow */
	counts(UINT64_MAX, 0, (bool[]){true, true}, (uint64_t[]){UINT64_MAX, UINT64_MAX},
	       (uint64_t[]){1, 1}, out);
	CHECK(out[1] == UINT64_MAX / GIB && out[0] == (UINT64_MAX % GIB) / (2 << 20));
}

UNIT_TEST(read, "the kernel's reading of a page size, a sysctl count and hugepages=")
{
	static const unsigned ids[3] = {0, 2, 5};
	uint64_t v = 7, kern[3], total;

	CHECK(kparams_read_size("2M") == 2048 && kparams_read_size("1g") == 1048576 &&
	      kparams_read_size("2097152") == 2048 && kparams_read_size("3x") == 0 &&
	      kparams_read_size("") == 0);
	/* base 0, a blank ends the count (measured: doc/kernel-notes.md) */
	CHECK(kparams_read_count("0x10", &v) == 0 && v == 16);
	CHECK(kparams_read_count("010", &v) == 0 && v == 8);
	CHECK(kparams_read_count("1024 # the pool", &v) == 0 && v == 1024);
	CHECK(kparams_read_count("18446744073709551615", &v) == 0 && v == UINT64_MAX);
	CHECK(kparams_read_count("18446744073709551616", &v) == -EINVAL);
	CHECK(kparams_read_count("08", &v) == -EINVAL &&
	      kparams_read_count("2x", &v) == -EINVAL);
	CHECK(kparams_read_count("+2", &v) == -EINVAL &&
	      kparams_read_count("", &v) == -EINVAL);
	CHECK(kparams_read_count("0x", &v) == -EINVAL);
	/* per node by id; a total spread evenly */
	CHECK(kparams_read_pages("2:8,5:1,9:3", ids, 3, kern, &total) == 0 &&
	      total == 12 && kern[0] == 0 && kern[1] == 8 && kern[2] == 1);
	CHECK(kparams_read_pages("10", ids, 3, kern, &total) == 0 && total == 10 &&
	      kern[0] == 4 && kern[1] == 3 && kern[2] == 3);
	CHECK(kparams_read_pages("0:x", ids, 3, kern, &total) == -EINVAL &&
	      kparams_read_pages("", ids, 3, kern, &total) == -EINVAL &&
	      kparams_read_pages("1 2", ids, 3, kern, &total) == -EINVAL);
}
