/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unit.c - unit tests of the pure parts: parsers, settings merge, plan arithmetic. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "settings.h"
#include "topology.h"
#include "util.h"

static unsigned passed, failed;

#define CHECK(cond)                                                                      \
	do {                                                                             \
		if (cond) {                                                              \
			passed++;                                                        \
		} else {                                                                 \
			failed++;                                                        \
			fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);  \
		}                                                                        \
	} while (0)

static void test_idlist(void)
{
	struct hp_idset s;
	char buf[64];

	CHECK(parse_idlist("0-3,8,10-11\n", 64, &s) == 0 && idset_count(&s) == 7);
	CHECK(idset_has(&s, 3) && !idset_has(&s, 4) && idset_has(&s, 11));
	CHECK(idset_format(&s, buf, sizeof(buf)) == 0 && strcmp(buf, "0-3,8,10-11") == 0);
	CHECK(parse_idlist("", 64, &s) == 0 && idset_count(&s) == 0);
	CHECK(parse_idlist("\n", 64, &s) == 0 && idset_count(&s) == 0);
	CHECK(parse_idlist("3-1", 64, &s) == -EINVAL);
	CHECK(parse_idlist("1,", 64, &s) == -EINVAL);
	CHECK(parse_idlist("1-", 64, &s) == -EINVAL);
	CHECK(parse_idlist("-1", 64, &s) == -EINVAL);
	CHECK(parse_idlist("1 2", 64, &s) == -EINVAL);
	CHECK(parse_idlist("64", 64, &s) == -ERANGE);
	CHECK(parse_idlist("99999999999999999999", 64, &s) == -ERANGE);
	CHECK(parse_idlist("0-8191", HP_MAX_CPUS, &s) == 0 && idset_count(&s) == 8192);
	CHECK(idset_format(&s, buf, 4) == -ENOSPC);
}

static void test_numbers(void)
{
	uint64_t v;
	bool b;

	CHECK(parse_u64("18446744073709551615", &v) == 0 && v == UINT64_MAX);
	CHECK(parse_u64("18446744073709551616", &v) == -ERANGE);
	CHECK(parse_u64("", &v) == -EINVAL && parse_u64("+1", &v) == -EINVAL);
	CHECK(parse_u64("12a", &v) == -EINVAL);
	CHECK(parse_bytes("2M", &v) == 0 && v == 2u << 20);
	CHECK(parse_bytes("1G", &v) == 0 && v == 1u << 30);
	CHECK(parse_bytes("1GiB", &v) == 0 && v == 1u << 30);
	CHECK(parse_bytes("64g", &v) == 0 && v == UINT64_C(64) << 30);
	CHECK(parse_bytes("2048kB", &v) == 0 && v == 2u << 20);
	CHECK(parse_bytes("512", &v) == 0 && v == 512);
	CHECK(parse_bytes("16383P", &v) == 0 && v == UINT64_C(16383) << 50);
	CHECK(parse_bytes("16384P", &v) == -ERANGE);
	CHECK(parse_bytes("1X", &v) == -EINVAL && parse_bytes("1MB2", &v) == -EINVAL);
	CHECK(parse_bytes("M", &v) == -EINVAL);
	CHECK(parse_percent("50%", &v) == 0 && v == 5000);
	CHECK(parse_percent("12.5%", &v) == 0 && v == 1250);
	CHECK(parse_percent("0.01%", &v) == 0 && v == 1);
	CHECK(parse_percent("100%", &v) == 0 && v == 10000);
	CHECK(parse_percent("100.01%", &v) == -ERANGE);
	CHECK(parse_percent("1.234%", &v) == -EINVAL);
	CHECK(parse_percent("50", &v) == -EINVAL && parse_percent("5.%", &v) == -EINVAL);
	CHECK(parse_seconds("30", &v) == 0 && v == 30000);
	CHECK(parse_seconds("0.25", &v) == 0 && v == 250);
	CHECK(parse_seconds("2s", &v) == 0 && v == 2000);
	CHECK(parse_seconds("1.0001", &v) == -EINVAL);
	CHECK(parse_bool("yes", &b) == 0 && b && parse_bool("Off", &b) == 0 && !b);
	CHECK(parse_bool("2", &b) == -EINVAL);
}

static struct hp_settings S;

static void test_settings(void)
{
	struct hp_settings *s = &S;

	settings_init(s);
	settings_set(s, "pages", "2M:512 1G:4@0,2-3;2M:50%@1", "f:1", false);
	CHECK(s->nentries == 3 && s->nproblems == 0);
	CHECK(s->entries[0].size_kb == 2048 &&
	      s->entries[0].amount.kind == HP_AMOUNT_COUNT &&
	      s->entries[0].amount.value == 512 && s->entries[0].all_nodes);
	CHECK(s->entries[1].size_kb == 1048576 && !s->entries[1].all_nodes &&
	      idset_count(&s->entries[1].nodes) == 3 &&
	      idset_has(&s->entries[1].nodes, 2));
	CHECK(s->entries[2].amount.kind == HP_AMOUNT_PERCENT &&
	      s->entries[2].amount.value == 5000);

	/* Commas separate entries only where a new SIZE:AMOUNT starts. */
	settings_init(s);
	settings_load_cmdline(
	    s, "quiet rd.hugepar.pages=2M:50%,1G:2@0,1,2M:64G@2 root=/dev/x");
	CHECK(s->nentries == 3 && s->nproblems == 0);
	CHECK(idset_count(&s->entries[1].nodes) == 2);
	CHECK(s->entries[2].amount.kind == HP_AMOUNT_BYTES &&
	      s->entries[2].amount.value == UINT64_C(64) << 30);

	/* A bad entry is skipped and recorded; the good ones stay. */
	settings_init(s);
	settings_load_cmdline(
	    s, "rd.hugepar.pages=2M:10,2M:x,1G:1@a rd.hugepar.threads=0 "
	       "rd.hugepar.timeout=5 rd.hugepar.mode=fast rd.hugepar.bogus=1");
	CHECK(s->nentries == 1 && s->nproblems == 5);
	CHECK(strcmp(s->problems[0].key, "rd.hugepar.pages") == 0 &&
	      strcmp(s->problems[0].value, "2M:x") == 0);
	CHECK(strcmp(s->problems[1].value, "1G:1@a") == 0);
	CHECK(strcmp(s->problems[2].key, "rd.hugepar.threads") == 0);
	CHECK(strcmp(s->problems[3].key, "rd.hugepar.mode") == 0);
	CHECK(strcmp(s->problems[4].message, "unknown key") == 0);
	CHECK(s->timeout_ms == 5000 && s->threads == 0 && s->mode == HP_MODE_GROW);

	/* Off switch, quotes, and "--" ends the kernel's part. */
	settings_init(s);
	settings_load_cmdline(
	    s, "rd.hugepar=0 \"rd.hugepar.pages=2M:1 1G:1\" -- rd.hugepar.threads=3");
	CHECK(!s->enabled && s->nentries == 2 && s->threads == 0);
	settings_init(s);
	settings_load_cmdline(s, "rd.hugepar rd.hugeparx=1");
	CHECK(s->enabled && s->nproblems == 0 && s->nsources == 1);

	/* Overflowing and odd values. */
	settings_init(s);
	settings_set(s, "pages", "2M:99999999999999999999 3K:1 1G:1@1024 1G:1@0-", "f:2",
		     false);
	CHECK(s->nentries == 1 && s->nproblems == 3); /* 3K is well formed */
	settings_set(s, "reserve", "5%", "f:3", false);
	CHECK(s->reserve.kind == HP_AMOUNT_PERCENT && s->reserve.value == 500);
	settings_set(s, "reserve", "1073741824", "f:4", false);
	CHECK(s->reserve.kind == HP_AMOUNT_BYTES && s->reserve.value == 1u << 30);
	settings_set(s, "threads", "4097", "f:5", false);
	settings_set(s, "timeout", "3601", "f:6", false);
	CHECK(s->nproblems == 5 && s->threads == 0 &&
	      s->timeout_ms == HP_DEFAULT_TIMEOUT);
}

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
	t->sizes[0].parallel = true; /* 1G: serial, as before Linux 6.19 */
	for (unsigned i = 0; i < n; i++) {
		nodes[i].id = i;
		nodes[i].cpus = &cpus[i];
		for (unsigned c = 0; c < cpn; c++)
			idset_add(&cpus[i], i * cpn + c);
		nodes[i].ncpus = cpn;
		nodes[i].mem_total = mem;
		nodes[i].mem_free = free_;
		nodes[i].has_memory = mem > 0;
	}
	t->ncpus_online = n * cpn;
}

#define GiB (UINT64_C(1) << 30)

static void test_plan(void)
{
	struct hp_settings *s = &S;
	struct hp_topology t;
	struct hp_plan p;

	/* Counts, amounts and shares; the floor caps; 1G placed before 2M. */
	machine(&t, 2, 4, 16 * GiB, 10 * GiB);
	settings_init(s);
	settings_set(s, "pages", "2M:1024@0 2M:25%@1 1G:8@1", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->target == 1024 &&
	      plan_cell(&p, 0, 0)->cut == HP_CUT_NONE);
	CHECK(plan_cell(&p, 1, 1)->target == 8);
	/* node 1: 10G free - 512M floor - 8G of 1G pages = 1.5G = 768 pages of 4G wanted
	 */
	CHECK(plan_cell(&p, 1, 0)->requested == 2048 &&
	      plan_cell(&p, 1, 0)->target == 768);
	CHECK(plan_cell(&p, 1, 0)->cut == HP_CUT_FLOOR);
	CHECK(p.work[1] == 768 * (UINT64_C(2) << 20)); /* 1G pages are not worker work */
	plan_free(&p);

	/* Memory that is not there vs the floor. */
	settings_init(s);
	settings_set(s, "pages", "2M:40G", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->cut == HP_CUT_MEMORY &&
	      plan_cell(&p, 0, 0)->target == 4864);
	plan_free(&p);

	/* Grow keeps a larger pool; exact shrinks it and frees memory for growth. */
	nodes[0].pool[0].nr = 2000;
	nodes[0].pool[0].surplus = 100; /* surplus pages are not the pool */
	settings_init(s);
	settings_set(s, "pages", "2M:1000@0", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->current == 1900 &&
	      plan_cell(&p, 0, 0)->target == 1900 &&
	      plan_cell(&p, 0, 0)->cut == HP_CUT_GROW && p.threads[0] == 0);
	plan_free(&p);
	settings_set(s, "mode", "exact", "t", false);
	settings_set(s, "pages", "1G:10@0", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->target == 1000);
	/* 10G free - 512M + 900 pages * 2M freed = 11.26G -> 10 pages of 1G fit */
	CHECK(plan_cell(&p, 0, 1)->target == 10 &&
	      plan_cell(&p, 0, 1)->cut == HP_CUT_NONE);
	plan_free(&p);
	nodes[0].pool[0].nr = nodes[0].pool[0].surplus = 0;

	/* Later entries win per node and size. */
	settings_init(s);
	settings_set(s, "pages", "2M:100", "a", false);
	settings_load_cmdline(s, "rd.hugepar.pages=2M:7@1");
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->target == 100 && plan_cell(&p, 1, 0)->target == 7);
	plan_free(&p);

	/* Values near overflow are capped, not wrapped. */
	machine(&t, 1, 2, UINT64_MAX / 2, UINT64_MAX / 2);
	settings_init(s);
	settings_set(s, "pages", "2M:100% 1G:18446744073709551615", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 1)->target < UINT64_MAX / GiB);
	CHECK(plan_cell(&p, 0, 0)->target + plan_cell(&p, 0, 1)->target * 512 <=
	      (UINT64_MAX / 2) / (UINT64_C(2) << 20));
	plan_free(&p);

	/* A node without memory gets nothing; a CPU-less node no workers. */
	machine(&t, 3, 4, 8 * GiB, 8 * GiB);
	nodes[2].mem_total = nodes[2].mem_free = 0;
	nodes[2].has_memory = false;
	nodes[1].ncpus = 0;
	settings_init(s);
	settings_set(s, "pages", "2M:1024", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 2, 0)->target == 0 &&
	      plan_cell(&p, 2, 0)->cut == HP_CUT_NO_MEMORY);
	CHECK(p.threads[0] == 2 && p.threads[1] == 0 && p.threads[2] == 0);
	plan_free(&p);

	/* An explicit total is honoured exactly, spread by work. */
	machine(&t, 4, 8, 64 * GiB, 64 * GiB);
	settings_init(s);
	settings_set(s, "pages", "2M:1000@0 2M:3000@1 2M:1@2", "t", false);
	settings_set(s, "threads", "9", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(p.threads_total == 9 && p.threads[3] == 0 && p.threads[2] == 1);
	CHECK(p.threads[1] == 6 && p.threads[0] == 2);
	plan_free(&p);
	settings_set(s, "threads", "2", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(p.threads_total == 2 && p.threads[1] == 1 && p.threads[0] == 1 &&
	      p.threads[2] == 0);
	plan_free(&p);

	/* The auto formula. */
	CHECK(plan_auto_threads(0, GiB) == 0 && plan_auto_threads(8, 0) == 0);
	CHECK(plan_auto_threads(2, 300 << 20) == 2 &&
	      plan_auto_threads(2, 100 << 20) == 1);
	CHECK(plan_auto_threads(72, 700 * GiB) == 36 && plan_auto_threads(72, GiB) == 4);
	CHECK(plan_auto_threads(1, 700 * GiB) == 1 &&
	      plan_auto_threads(3, 700 * GiB) == 3);
}

int main(void)
{
	test_idlist();
	test_numbers();
	test_settings();
	test_plan();
	printf("unit: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
