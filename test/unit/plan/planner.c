/* SPDX-License-Identifier: GPL-2.0-or-later */
/* planner.c - unit tests: the plan arithmetic: shares, floors, modes, workers, rounding. */
#include <stdint.h>
#include <string.h>

#include "keys.h"
#include "planner.h"
#include "settings.h"
#include "topology.h"
#include "unit.h"

static struct hp_settings S;

/* A synthetic machine: n nodes, equal CPUs and memory, sizes 2M and 1G. */
static struct hp_node nodes[64];
static struct hp_idset cpus[64];

static void machine(struct hp_topology *t, unsigned n, unsigned cpn, uint64_t mem,
		    uint64_t free_)
{
	memset(t, 0, sizeof(*t));
	memset(nodes, 0, sizeof(nodes));
	memset(cpus, 0, sizeof(cpus));
	t->numa = t->hugetlb = true;
	t->nnodes = n;
	t->nodes = nodes;
	t->nsizes = 2;
	t->sizes[0].kb = 2048;
	t->sizes[1].kb = 1048576;
	strcpy(t->release, "6.1.0"); /* 1G: serial, as before Linux 6.19 */
	for (unsigned i = 0; i < n; i++) {
		nodes[i].id = i;
		nodes[i].cpus = &cpus[i];
		for (unsigned c = 0; c < cpn; c++)
			idset_add(&cpus[i], i * cpn + c);
		nodes[i].ncpus = cpn;
		nodes[i].mem_total = nodes[i].mem_basis = mem;
		nodes[i].mem_free = free_;
		nodes[i].has_memory = mem > 0;
	}
	t->ncpus_online = n * cpn;
}

#define GiB (UINT64_C(1) << 30)

/* Counts, amounts and shares; the floor caps; 1G placed before 2M. */
UNIT_TEST(amounts, "counts, amounts and shares; the floor caps; 1G placed before 2M")
{
	struct hp_settings *s = &S;
	struct hp_topology t;
	struct hp_plan p;

	machine(&t, 2, 4, 16 * GiB, 10 * GiB);
	settings_free(s);
	keys_set(s, "pages", "2M:1024@0 2M:25%@1 1G:8@1", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->target == 1024 &&
	      plan_cell(&p, 0, 0)->cut == HP_CUT_NONE);
	CHECK(plan_cell(&p, 1, 1)->target == 8);
	/* node 1: 10G free - 512M floor - 8G of 1G pages = 1.5G = 768 pages of 4G
	 * wanted */
	CHECK(plan_cell(&p, 1, 0)->requested == 2048 &&
	      plan_cell(&p, 1, 0)->target == 768);
	CHECK(plan_cell(&p, 1, 0)->cut == HP_CUT_KEEP_FREE);
	CHECK(p.work[1] == 768 * (UINT64_C(2) << 20)); /* 1G pages are not worker work */
	plan_free(&p);
}

/* Memory that is not there vs the floor. */
UNIT_TEST(memory, "a request beyond the node's memory is cut to what is there")
{
	struct hp_settings *s = &S;
	struct hp_topology t;
	struct hp_plan p;

	machine(&t, 2, 4, 16 * GiB, 10 * GiB);
	settings_free(s);
	keys_set(s, "pages", "2M:40G", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->cut == HP_CUT_MEMORY &&
	      plan_cell(&p, 0, 0)->target == 4864);
	plan_free(&p);
}

/* Grow keeps a larger pool; exact shrinks it and frees memory for growth. */
UNIT_TEST(modes, "grow keeps a larger pool; exact shrinks it and frees memory")
{
	struct hp_settings *s = &S;
	struct hp_topology t;
	struct hp_plan p;

	machine(&t, 2, 4, 16 * GiB, 10 * GiB);
	nodes[0].pool[0].nr = 2000;
	nodes[0].pool[0].surplus = 100; /* surplus pages are not the pool */
	settings_free(s);
	keys_set(s, "pages", "2M:1000@0", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->current == 1900 &&
	      plan_cell(&p, 0, 0)->target == 1900 &&
	      plan_cell(&p, 0, 0)->cut == HP_CUT_GROW && p.workers[0] == 0);
	plan_free(&p);
	keys_set(s, "mode", "exact", "t", false);
	keys_set(s, "pages", "1G:10@0", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->target == 1000);
	/* 10G free - 512M + 900 pages * 2M freed = 11.26G -> 10 pages of 1G fit */
	CHECK(plan_cell(&p, 0, 1)->target == 10 &&
	      plan_cell(&p, 0, 1)->cut == HP_CUT_NONE);
	plan_free(&p);
	nodes[0].pool[0].nr = nodes[0].pool[0].surplus = 0;
}

/* Later entries win per node and size. */
UNIT_TEST(later, "later entries win per node and size")
{
	struct hp_settings *s = &S;
	struct hp_topology t;
	struct hp_plan p;

	machine(&t, 2, 4, 16 * GiB, 10 * GiB);
	settings_free(s);
	keys_set(s, "pages", "2M:100", "a", false);
	sources_load_cmdline(s, "rd.hugepar.pages=2M:7@1");
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->target == 100 && plan_cell(&p, 1, 0)->target == 7);
	plan_free(&p);
}

/* Values near overflow are capped, not wrapped. */
UNIT_TEST(overflow, "values near 2^64 are capped, not wrapped")
{
	struct hp_settings *s = &S;
	struct hp_topology t;
	struct hp_plan p;

	machine(&t, 1, 2, UINT64_MAX / 2, UINT64_MAX / 2);
	settings_free(s);
	keys_set(s, "pages", "2M:100% 1G:18446744073709551615", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 1)->target < UINT64_MAX / GiB);
	CHECK(plan_cell(&p, 0, 0)->target + plan_cell(&p, 0, 1)->target * 512 <=
	      (UINT64_MAX / 2) / (UINT64_C(2) << 20));
	plan_free(&p);
}

/* A node without memory gets nothing; a CPU-less node's workers share another's CPUs. */
UNIT_TEST(no_memory,
	  "a node without memory gets nothing, a CPU-less node half of a host's CPUs")
{
	struct hp_settings *s = &S;
	struct hp_topology t;
	struct hp_plan p;

	machine(&t, 3, 4, 8 * GiB, 8 * GiB);
	nodes[2].mem_total = nodes[2].mem_free = nodes[2].mem_basis = 0;
	nodes[2].has_memory = false;
	nodes[1].ncpus = 0;
	settings_free(s);
	keys_set(s, "pages", "2M:1024", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 2, 0)->target == 0 &&
	      plan_cell(&p, 2, 0)->cut == HP_CUT_NO_MEMORY);
	/* node 1's workers run on node 0's CPUs, two each: never more than its four */
	CHECK(p.workers[0] == 2 && p.workers[1] == 2 && p.workers[2] == 0);
	CHECK(p.host[0] == 0 && p.host[1] == 0 && p.host[2] == 2);
	plan_free(&p);
}

/* An explicit total is honoured exactly, spread by work. */
UNIT_TEST(total, "an explicit worker total is honoured exactly, spread by work")
{
	struct hp_settings *s = &S;
	struct hp_topology t;
	struct hp_plan p;

	machine(&t, 4, 8, 64 * GiB, 64 * GiB);
	settings_free(s);
	keys_set(s, "pages", "2M:1000@0 2M:3000@1 2M:1@2", "t", false);
	keys_set(s, "threads", "9", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(p.workers_total == 9 && p.workers[3] == 0 && p.workers[2] == 1);
	CHECK(p.workers[1] == 6 && p.workers[0] == 2);
	plan_free(&p);
	keys_set(s, "threads", "2", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(p.workers_total == 2 && p.workers[1] == 1 && p.workers[0] == 1 &&
	      p.workers[2] == 0);
	plan_free(&p);
}

/* Shares are of the memory basis, rounded down to a step of at most 1% of the count:
 * two boots whose MemTotal differs by 0.3% give the same count. */
UNIT_TEST(rounding, "shares rounded by less than 1%: 0.3% apart, the same count")
{
	struct hp_settings *s = &S;
	struct hp_topology t;
	struct hp_plan p;

	machine(&t, 1, 4, UINT64_C(386355) << 20, UINT64_C(380000) << 20);
	settings_free(s);
	keys_set(s, "pages", "2M:50%", "t", false);
	CHECK(plan_granularity(s, &nodes[0], 2 << 20, 96588) == 512); /* 965 -> 512 */
	CHECK(plan_granularity(s, &nodes[0], 2 << 20, 199) == 1);
	CHECK(plan_granularity(s, &nodes[0], 2 << 20, 200) == 2);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->requested == 96256 &&
	      plan_cell(&p, 0, 0)->unrounded == 96588 && plan_cell(&p, 0, 0)->rounded &&
	      plan_cell(&p, 0, 0)->granularity == 512);
	plan_free(&p);
	nodes[0].mem_basis = UINT64_C(385200) << 20;
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->requested == 96256);
	plan_free(&p);
	/* a count is taken as it is; an explicit granularity as given */
	keys_set(s, "pages", "2M:96588", "t", false);
	keys_set(s, "granularity", "1G", "t", false);
	CHECK(plan_granularity(s, &nodes[0], 2 << 20, 96588) == 512);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->requested == 96588 && !plan_cell(&p, 0, 0)->rounded);
	plan_free(&p);
	/* a cut by free memory is rounded too, by its own step */
	keys_set(s, "granularity", "auto", "t", false);
	keys_set(s, "pages", "2M:400G", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->target == 189440 &&
	      plan_cell(&p, 0, 0)->unrounded == 189744 &&
	      plan_cell(&p, 0, 0)->granularity == 1024);
	plan_free(&p);
}

/* granularity = auto cut 3% of a 64G node from 983 pages to 512 and 0.5% to none. */
UNIT_TEST(rounding_small,
	  "shares of 0.5%, 3% and 10% of 64G and 96G: cut by less than 1%, never to 0")
{
	static const struct {
		uint64_t gib;
		const char *share;
		uint64_t unrounded, requested;
	} cases[] = {
	    {64, "2M:0.5%", 163, 163},	{64, "2M:3%", 983, 976},
	    {64, "2M:10%", 3276, 3264}, {96, "2M:0.5%", 245, 244},
	    {96, "2M:3%", 1474, 1472},	{96, "2M:10%", 4915, 4896},
	    {64, "1G:3%", 1, 1},	{64, "1G:1%", 0, 0},
	};
	struct hp_settings *s = &S;
	struct hp_topology t;
	struct hp_plan p;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct hp_cell *c;
		unsigned z = cases[i].share[1] == 'G';

		machine(&t, 2, 4, cases[i].gib * GiB, cases[i].gib * GiB - GiB);
		settings_free(s);
		keys_set(s, "pages", cases[i].share, "t", false);
		CHECK(plan_make(s, &t, &p) == 0);
		c = plan_cell(&p, 1, z);
		CHECK(c->unrounded == cases[i].unrounded &&
		      c->requested == cases[i].requested && c->target == c->requested);
		CHECK((c->unrounded - c->requested) * 100 < c->unrounded ||
		      c->unrounded == 0);
		plan_free(&p);
	}
}

/* The auto formula. */
UNIT_TEST(auto, "the automatic worker count from CPUs and work")
{
	CHECK(plan_auto_workers(0, GiB) == 0 && plan_auto_workers(8, 0) == 0);
	CHECK(plan_auto_workers(2, 300 << 20) == 2 &&
	      plan_auto_workers(2, 100 << 20) == 1);
	CHECK(plan_auto_workers(72, 700 * GiB) == 72 && plan_auto_workers(72, GiB) == 4);
	CHECK(plan_auto_workers(1, 700 * GiB) == 1 &&
	      plan_auto_workers(3, 700 * GiB) == 3);
}

/* A keep_free that leaves a node no room: named, once, with the nodes it empties;
 * the default is never named, and a node no entry names is left out. */
UNIT_TEST(keep_free_too_big, "a keep_free of all of a node's memory is named")
{
	struct hp_settings *s = &S;
	struct hp_topology t;

	machine(&t, 3, 2, 16 * GiB, 10 * GiB);
	nodes[2].mem_total = 64 * GiB;
	settings_free(s);
	keys_set(s, "pages", "2M:100@0-2", "f:1", false);
	keys_set(s, "keep_free", "16G", "f:2", false);
	plan_check_settings(s, &t);
	CHECK(s->nproblems == 1 && strcmp(s->problems[0].origin, "f:2") == 0 &&
	      strcmp(s->problems[0].value, "16G") == 0 &&
	      strcmp(s->problems[0].message,
		     "not less than all the memory of nodes 0-1 (the smallest has "
		     "16G): no pages can be reserved there") == 0);
	settings_free(s);
	keys_set(s, "pages", "2M:100@1", "f:1", false);
	keys_set(s, "keep_free", "100%", "f:2", false);
	plan_check_settings(s, &t);
	CHECK(s->nproblems == 1 && strcmp(s->problems[0].message,
					  "not less than all the memory of node 1 "
					  "(16G): no pages can be reserved there") == 0);
	machine(&t, 1, 2, 256 << 20, 200 << 20); /* smaller than the default */
	settings_free(s);
	keys_set(s, "pages", "2M:10", "f:1", false);
	plan_check_settings(s, &t);
	CHECK(s->nproblems == 0);
}
