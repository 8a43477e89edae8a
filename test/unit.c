/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unit.c - unit tests of the pure parts: parsers, settings merge, plan arithmetic. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapt.h"
#include "json.h"
#include "plan.h"
#include "result.h"
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

	settings_free(s);
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
	settings_free(s);
	settings_load_cmdline(
	    s, "quiet rd.hugepar.pages=2M:50%,1G:2@0,1,2M:64G@2 root=/dev/x");
	CHECK(s->nentries == 3 && s->nproblems == 0);
	CHECK(idset_count(&s->entries[1].nodes) == 2);
	CHECK(s->entries[2].amount.kind == HP_AMOUNT_BYTES &&
	      s->entries[2].amount.value == UINT64_C(64) << 30);

	/* A bad entry is skipped and recorded; the good ones stay, and so does an
	 * earlier good value of a key whose later value is bad. */
	settings_free(s);
	settings_load_cmdline(
	    s, "rd.hugepar.threads=3 rd.hugepar.pages=2M:10,2M:x,1G:1@a "
	       "rd.hugepar.threads=0 "
	       "rd.hugepar.timeout=5 rd.hugepar.mode=fast rd.hugepar.bogus=1");
	CHECK(s->nentries == 1 && s->nproblems == 5);
	CHECK(strcmp(s->problems[0].key, "rd.hugepar.pages") == 0 &&
	      strcmp(s->problems[0].value, "2M:x") == 0);
	CHECK(strcmp(s->problems[1].value, "1G:1@a") == 0);
	CHECK(strcmp(s->problems[2].key, "rd.hugepar.threads") == 0);
	CHECK(strcmp(s->problems[3].key, "rd.hugepar.mode") == 0);
	CHECK(strcmp(s->problems[4].message, "unknown key") == 0);
	CHECK(s->timeout_ms == 5000 && s->threads == 3 && s->mode == HP_MODE_GROW);

	/* Off switch, quotes, and "--" ends the kernel's part. */
	settings_free(s);
	settings_load_cmdline(
	    s, "rd.hugepar=0 \"rd.hugepar.pages=2M:1 1G:1\" -- rd.hugepar.threads=3");
	CHECK(!s->enabled && s->nentries == 2 && s->threads == 0);
	settings_free(s);
	settings_load_cmdline(s, "rd.hugepar rd.hugeparx=1");
	CHECK(s->enabled && s->nproblems == 0 && s->nsources == 1);

	/* Overflowing and odd values. */
	settings_free(s);
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

static void test_plan(void)
{
	struct hp_settings *s = &S;
	struct hp_topology t;
	struct hp_plan p;

	/* Counts, amounts and shares; the floor caps; 1G placed before 2M. */
	machine(&t, 2, 4, 16 * GiB, 10 * GiB);
	settings_free(s);
	settings_set(s, "pages", "2M:1024@0 2M:25%@1 1G:8@1", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->target == 1024 &&
	      plan_cell(&p, 0, 0)->cut == HP_CUT_NONE);
	CHECK(plan_cell(&p, 1, 1)->target == 8);
	/* node 1: 10G free - 512M floor - 8G of 1G pages = 1.5G = 768 pages of 4G
	 * wanted */
	CHECK(plan_cell(&p, 1, 0)->requested == 2048 &&
	      plan_cell(&p, 1, 0)->target == 768);
	CHECK(plan_cell(&p, 1, 0)->cut == HP_CUT_FLOOR);
	CHECK(p.work[1] == 768 * (UINT64_C(2) << 20)); /* 1G pages are not worker work */
	plan_free(&p);

	/* Memory that is not there vs the floor. */
	settings_free(s);
	settings_set(s, "pages", "2M:40G", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->cut == HP_CUT_MEMORY &&
	      plan_cell(&p, 0, 0)->target == 4864);
	plan_free(&p);

	/* Grow keeps a larger pool; exact shrinks it and frees memory for growth. */
	nodes[0].pool[0].nr = 2000;
	nodes[0].pool[0].surplus = 100; /* surplus pages are not the pool */
	settings_free(s);
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
	settings_free(s);
	settings_set(s, "pages", "2M:100", "a", false);
	settings_load_cmdline(s, "rd.hugepar.pages=2M:7@1");
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->target == 100 && plan_cell(&p, 1, 0)->target == 7);
	plan_free(&p);

	/* Values near overflow are capped, not wrapped. */
	machine(&t, 1, 2, UINT64_MAX / 2, UINT64_MAX / 2);
	settings_free(s);
	settings_set(s, "pages", "2M:100% 1G:18446744073709551615", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 1)->target < UINT64_MAX / GiB);
	CHECK(plan_cell(&p, 0, 0)->target + plan_cell(&p, 0, 1)->target * 512 <=
	      (UINT64_MAX / 2) / (UINT64_C(2) << 20));
	plan_free(&p);

	/* A node without memory gets nothing; a CPU-less node no workers. */
	machine(&t, 3, 4, 8 * GiB, 8 * GiB);
	nodes[2].mem_total = nodes[2].mem_free = nodes[2].mem_basis = 0;
	nodes[2].has_memory = false;
	nodes[1].ncpus = 0;
	settings_free(s);
	settings_set(s, "pages", "2M:1024", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 2, 0)->target == 0 &&
	      plan_cell(&p, 2, 0)->cut == HP_CUT_NO_MEMORY);
	CHECK(p.threads[0] == 4 && p.threads[1] == 0 && p.threads[2] == 0);
	plan_free(&p);

	/* An explicit total is honoured exactly, spread by work. */
	machine(&t, 4, 8, 64 * GiB, 64 * GiB);
	settings_free(s);
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

	/* Shares are of the memory basis, rounded down to the granularity: two boots
	 * whose MemTotal differs by 0.1% give the same count. */
	machine(&t, 1, 4, UINT64_C(386355) << 20, UINT64_C(380000) << 20);
	settings_free(s);
	settings_set(s, "pages", "2M:50%", "t", false);
	CHECK(plan_granularity(s, &nodes[0], 2 << 20) == 2048); /* 2% = 3863 -> 2048 */
	CHECK(plan_granularity(s, &nodes[0], UINT64_C(1) << 30) == 4); /* 7.5 -> 4 */
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->requested == 96256 &&
	      plan_cell(&p, 0, 0)->unrounded == 96588 && plan_cell(&p, 0, 0)->rounded);
	plan_free(&p);
	nodes[0].mem_basis = UINT64_C(385200) << 20;
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->requested == 96256);
	plan_free(&p);
	/* a count is taken as it is; an explicit granularity as given */
	settings_set(s, "pages", "2M:96588", "t", false);
	settings_set(s, "granularity", "1G", "t", false);
	CHECK(plan_granularity(s, &nodes[0], 2 << 20) == 512);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->requested == 96588 && !plan_cell(&p, 0, 0)->rounded);
	plan_free(&p);
	/* a cut by free memory is rounded too */
	settings_set(s, "pages", "2M:400G", "t", false);
	CHECK(plan_make(s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->target == 189440 &&
	      plan_cell(&p, 0, 0)->unrounded == 189744);
	plan_free(&p);

	/* The auto formula. */
	CHECK(plan_auto_threads(0, GiB) == 0 && plan_auto_threads(8, 0) == 0);
	CHECK(plan_auto_threads(2, 300 << 20) == 2 &&
	      plan_auto_threads(2, 100 << 20) == 1);
	CHECK(plan_auto_threads(72, 700 * GiB) == 72 && plan_auto_threads(72, GiB) == 4);
	CHECK(plan_auto_threads(1, 700 * GiB) == 1 &&
	      plan_auto_threads(3, 700 * GiB) == 3);
}

/* Nothing is cut: long words, long node lists, many entries; a bare key is not a
 * value; NUL bytes in a file are found and say so. */
static void test_settings_limits(void)
{
	struct hp_settings *s = &S;
	char word[4096], *big;
	size_t n;

	/* A padded word longer than any buffer keeps its meaning. */
	n = (size_t)snprintf(word, sizeof(word), "rd.hugepar.pages=2M:1@0;");
	memset(word + n, ';', 3000);
	snprintf(word + n + 3000, sizeof(word) - n - 3000, "2M:123456@1");
	settings_free(s);
	settings_load_cmdline(s, word);
	CHECK(s->nentries == 2 && s->nproblems == 0);
	CHECK(s->nentries == 2 && s->entries[1].amount.value == 123456 &&
	      idset_has(&s->entries[1].nodes, 1));

	/* "@0,1,...,31" is longer than 63 bytes and is one entry. */
	settings_free(s);
	n = (size_t)snprintf(word, sizeof(word), "2M:10@");
	for (unsigned i = 0; i < 32; i++)
		n +=
		    (size_t)snprintf(word + n, sizeof(word) - n, "%s%u", i ? "," : "", i);
	settings_set(s, "pages", word, "f:1", false);
	CHECK(s->nentries == 1 && idset_count(&s->entries[0].nodes) == 32);

	/* More than 64 entries, more than 32 problems, more than 16 sources. */
	settings_free(s);
	big = malloc(200 * 16);
	n = 0;
	for (unsigned i = 0; i < 200; i++)
		n += (size_t)sprintf(big + n, "2M:%u@%u ", i, i % 4);
	settings_set(s, "pages", big, "f:1", false);
	CHECK(s->nentries == 200);
	for (unsigned i = 0; i < 50; i++)
		settings_set(s, "threads", "lots", "f:2", false);
	CHECK(s->nproblems == 50);
	for (unsigned i = 0; i < 20; i++) {
		char origin[32];

		snprintf(origin, sizeof(origin), "file %u", i);
		settings_load_cmdline_from(s, "rd.hugepar.mode=exact", origin);
	}
	CHECK(s->nsources == 20);
	free(big);

	/* A bare key is not "=1"; a bare rd.hugepar is on, as getargbool says. */
	settings_free(s);
	settings_load_cmdline(s, "rd.hugepar.pages rd.hugepar");
	CHECK(s->nentries == 0 && s->nproblems == 1 && s->enabled);
	CHECK(s->nproblems == 1 &&
	      strstr(s->problems[0].message, "rd.hugepar.pages=VALUE"));

	/* A long bad value is shown shortened, with its length. */
	settings_free(s);
	memset(word, 'x', 1000);
	word[1000] = '\0';
	settings_set(s, "mode", word, "f:1", false);
	CHECK(s->nproblems == 1 && strstr(s->problems[0].value, "(1000 bytes)") &&
	      strlen(s->problems[0].value) < 120);
	settings_free(s);
}

static void test_files(void)
{
	struct hp_settings *s = &S;
	char dir[] = "/tmp/hugepar-unit.XXXXXX", p[256];
	FILE *f;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	/* A NUL byte spoils its own line only. */
	snprintf(p, sizeof(p), "%s/a.conf", dir);
	f = fopen(p, "w");
	fputs("threads = 3\nmode = ex", f);
	fputc('\0', f);
	fputs("act\ntimeout = 7\n", f);
	fclose(f);
	settings_free(s);
	CHECK(settings_load_file(s, p) == 0);
	CHECK(s->threads == 3 && s->timeout_ms == 7000 && s->mode == HP_MODE_GROW);
	CHECK(s->nproblems == 1 && strstr(s->problems[0].message, "NUL") &&
	      strstr(s->problems[0].origin, "a.conf:2"));

	/* Only regular files are read: a FIFO, a link to nothing, a directory. */
	snprintf(p, sizeof(p), "%s/fifo.conf", dir);
	CHECK(mkfifo(p, 0644) == 0);
	settings_free(s);
	CHECK(settings_load_file(s, p) != 0);
	CHECK(s->nproblems == 1 && strstr(s->problems[0].message, "a FIFO"));
	unlink(p);
	snprintf(p, sizeof(p), "%s/dangling.conf", dir);
	CHECK(symlink("/nonexistent/x", p) == 0);
	settings_free(s);
	settings_load_file(s, p);
	CHECK(s->nproblems == 1 && strstr(s->problems[0].message, "link to nothing"));
	unlink(p);
	snprintf(p, sizeof(p), "%s/zero.conf", dir);
	CHECK(symlink("/dev/zero", p) == 0);
	settings_free(s);
	settings_load_file(s, p);
	CHECK(s->nproblems == 1 && strstr(s->problems[0].message, "character device"));
	unlink(p);
	snprintf(p, sizeof(p), "%s/a.conf", dir);
	unlink(p);
	settings_free(s);
	CHECK(settings_load_config(s, p, true) == -ENOENT);
	CHECK(settings_load_config(s, p, false) == 0);
	rmdir(dir);
	settings_free(s);
}

/* Every byte and every count hugepar writes, it reads back. */
static void test_json(void)
{
	struct json_out j;
	struct json_val v;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	json_begin(&j, f);
	json_open(&j, NULL, '{');
	json_str(&j, "s", "a\x80\xff\"\\\x01z");
	json_u64(&j, "n", UINT64_MAX);
	json_u64(&j, "m", UINT64_C(1) << 63);
	json_close(&j, '}');
	json_end(&j);
	fclose(f);
	CHECK(strchr(text, 0x80) == NULL && strchr(text, 0xff) == NULL);
	CHECK(json_parse(text, &v) == 0);
	CHECK(strcmp(json_get_str(&v, "s"), "a\x80\xff\"\\\x01z") == 0);
	CHECK(json_get_num(&v, "n") == UINT64_MAX);
	CHECK(json_get_num(&v, "m") == UINT64_C(1) << 63);
	json_free(&v);
	free(text);
	CHECK(json_parse("{\"n\": 18446744073709551616}", &v) == -EINVAL);
}

static void test_result(void)
{
	struct hp_cell c = {
	    .requested_set = true, .current = 10, .requested = 100, .target = 100};
	struct auto_node an[2] = {{.rest = 1000, .page_ns = 3000000, .workers = 2},
				  {.rest = 1000, .page_ns = 3000000, .workers = 2}};
	struct auto_estimate e;

	CHECK(result_cell_status(&c, 100) == HP_STATUS_OK);
	CHECK(result_cell_status(&c, 50) == HP_STATUS_PARTIAL);
	CHECK(result_cell_status(&c, 10) == HP_STATUS_FAILED);
	c.cut = HP_CUT_FLOOR;
	CHECK(result_cell_status(&c, 100) == HP_STATUS_CAPPED);
	c.cut = HP_CUT_NONE;
	c.target = 5; /* exact mode, shrinking */
	CHECK(result_cell_status(&c, 5) == HP_STATUS_OK);
	CHECK(result_cell_status(&c, 7) == HP_STATUS_PARTIAL);
	c.requested_set = false;
	CHECK(result_cell_status(&c, 10) == HP_STATUS_UNCHANGED);

	/* zeroed pages on two nodes: parallel; cheap pages: serial */
	result_auto_estimate(an, 2, 1000, &e);
	CHECK(e.parallel && e.serial_us == 6000000 && e.parallel_us == 4000 + 1500000);
	CHECK(result_auto_clear(an, 2, 1000)); /* one page's probe is enough */
	an[0].page_ns = an[1].page_ns = 2000;
	result_auto_estimate(an, 2, 1000, &e);
	CHECK(!e.parallel && !result_auto_clear(an, 2, 1000)); /* close: probe more */
	an[0].page_ns = an[1].page_ns = 200;
	CHECK(result_auto_clear(an, 2, 1000)); /* clearly serial */
	/* two nodes can be no more than twice as fast: clear all the same */
	an[0].page_ns = an[1].page_ns = 2500000;
	an[0].rest = an[1].rest = 150;
	an[0].workers = an[1].workers = 1;
	result_auto_estimate(an, 2, 2500, &e);
	CHECK(e.parallel && e.parallel_us * 2 > e.serial_us &&
	      result_auto_clear(an, 2, 2500));
	an[0].workers = an[1].workers = 0;
	an[0].page_ns = an[1].page_ns = 3000000;
	result_auto_estimate(an, 2, 1000, &e);
	CHECK(!e.parallel && e.parallel_us == e.serial_us);

	CHECK(release_at_least("6.12.48+deb13-amd64", 6, 7));
	CHECK(!release_at_least("6.1.0-57-amd64", 6, 7));
	CHECK(release_at_least("7.0", 6, 19) && !release_at_least("", 6, 7));
}

static void test_judge(void)
{
	struct hp_cell cells[2] = {
	    {.requested_set = true, .current = 0, .requested = 10, .target = 10},
	    {.requested_set = true, .current = 20, .requested = 5, .target = 5}};
	struct hp_plan p = {.nnodes = 2, .nsizes = 1, .cells = cells};
	struct hp_cell_result rc[2] = {{.achieved = 4},
				       {.achieved = 5, .surplus_after = 3}};
	struct cell_note notes[2] = {{0}};
	struct hp_result res = {.cells = rc};

	/* the coordinator's end, not "node out of memory"; pages in use as surplus */
	snprintf(res.sizes[0].failure, sizeof(res.sizes[0].failure),
		 "its coordinator was killed by SIGKILL");
	result_judge(&res, &p, notes, 0);
	CHECK(rc[0].status == HP_STATUS_PARTIAL &&
	      strcmp(rc[0].reason, "4 of 10: its coordinator was killed by SIGKILL") ==
		  0);
	CHECK(rc[1].status == HP_STATUS_PARTIAL &&
	      strcmp(rc[1].reason, "3 pages in use stay as surplus until freed") == 0);
	CHECK(res.status == HP_STATUS_PARTIAL);
	/* a note of the engine's wins; an overcommit left raised fails the run */
	snprintf(notes[0].note, sizeof(notes[0].note), "nr_hugepages write failed: EIO");
	rc[1].surplus_after = 0;
	res.sizes[0].restore_failed = true;
	result_judge(&res, &p, notes, 0);
	CHECK(strcmp(rc[0].reason, "4 of 10: nr_hugepages write failed: EIO") == 0);
	CHECK(rc[1].status == HP_STATUS_OK && res.status == HP_STATUS_FAILED);
}

/* A node's rate with k workers: a table, interpolated, flat past its ends. */
struct curve {
	unsigned n;
	double k[8], rate[8];
};

static double curve_at(const struct curve *c, unsigned k)
{
	if (k <= c->k[0])
		return c->rate[0] * k / c->k[0];
	for (unsigned i = 1; i < c->n; i++)
		if (k <= c->k[i])
			return c->rate[i - 1] + (c->rate[i] - c->rate[i - 1]) *
						    (k - c->k[i - 1]) /
						    (c->k[i] - c->k[i - 1]);
	return c->rate[c->n - 1];
}

/* Drive the controller on a curve until it settles: the counts it tried, in order,
 * as "8 16 32 -> 12". */
static const char *adapt_run(const struct curve *c, unsigned ceiling, char *buf,
			     size_t len)
{
	struct adapt a;
	size_t off = 0;

	adapt_init(&a, ceiling, false);
	for (unsigned steps = 0; !a.settled && steps < 20; steps++) {
		off +=
		    (size_t)snprintf(buf + off, len - off, "%s%u", off ? " " : "", a.k);
		adapt_step(&a, curve_at(c, a.k));
	}
	snprintf(buf + off, len - off, " -> %u", a.k);
	return buf;
}

static void test_adapt(void)
{
	/* the seeds' machines, per node: all threads over 2 nodes */
	const struct curve skylake = {
	    5, {4, 8, 16, 32, 64}, {272.7, 545.5, 750, 631.6, 600}};
	const struct curve cascade = {
	    5, {4, 8, 16, 32, 64}, {307.7, 600, 1090.9, 1200, 1333.3}};
	const struct curve knee = {
	    8, {1, 2, 4, 8, 12, 16, 24, 48}, {80, 160, 310, 560, 720, 650, 560, 480}};
	const struct curve growing = {5, {1, 2, 4, 8, 16}, {100, 190, 350, 620, 1050}};
	const struct curve flat = {2, {1, 2}, {500, 500}};
	struct adapt a;
	char buf[128];

	const struct curve lock = {5, {1, 2, 4, 8, 16}, {100, 125, 100, 80, 60}};
	const struct curve small = {4, {1, 2, 3, 4}, {100, 180, 240, 220}};
	const struct curve knee6 = {
	    6, {1, 2, 4, 6, 8, 16}, {100, 195, 370, 520, 480, 400}};

	/* starts at a small power of two, grows while it pays, narrows in on the best
	 * measured: the knee on each shape */
	CHECK(strcmp(adapt_run(&skylake, 72, buf, sizeof(buf)),
		     "4 8 16 32 24 12 -> 16") == 0);
	CHECK(strcmp(adapt_run(&cascade, 96, buf, sizeof(buf)),
		     "4 8 16 32 64 96 -> 64") == 0);
	CHECK(strcmp(adapt_run(&knee, 48, buf, sizeof(buf)),
		     "4 8 16 32 12 14 10 -> 12") == 0);
	CHECK(strcmp(adapt_run(&growing, 16, buf, sizeof(buf)), "4 8 16 -> 16") == 0);
	/* a knee between powers of two: found from both sides */
	CHECK(strcmp(adapt_run(&knee6, 16, buf, sizeof(buf)), "4 8 16 12 6 7 5 -> 6") ==
	      0);
	/* the best at the ceiling, reached by a gain far from proportional: below it */
	CHECK(strcmp(adapt_run(&knee6, 8, buf, sizeof(buf)), "2 4 8 6 7 5 -> 6") == 0);
	CHECK(strcmp(adapt_run(&small, 4, buf, sizeof(buf)), "2 4 3 -> 3") == 0);
	/* growing from the start does not pay: fewer are measured, down to one */
	CHECK(strcmp(adapt_run(&flat, 64, buf, sizeof(buf)), "4 8 16 2 1 -> 1") == 0);
	CHECK(strcmp(adapt_run(&flat, 8, buf, sizeof(buf)), "2 4 8 1 -> 1") == 0);
	CHECK(strcmp(adapt_run(&lock, 16, buf, sizeof(buf)), "4 8 2 1 3 -> 2") == 0);
	CHECK(strcmp(adapt_run(&lock, 2, buf, sizeof(buf)), "2 1 -> 2") == 0);
	/* one writer's rate known from the auto probe: two workers clearly above it
	 * leave nothing for one to win; a node bound by a lock is still halved */
	adapt_init(&a, 2, false);
	a.one = 100;
	while (!a.settled)
		adapt_step(&a, curve_at(&growing, a.k));
	CHECK(a.k == 2 && a.nrates == 1 && a.peak == 2);
	adapt_init(&a, 16, false);
	a.one = 100;
	while (!a.settled)
		adapt_step(&a, curve_at(&lock, a.k));
	CHECK(a.k == 2 && a.nrates == 5);
	/* small ceilings: measured too, but one worker has nothing to measure */
	CHECK(strcmp(adapt_run(&growing, 3, buf, sizeof(buf)), "2 3 -> 3") == 0);
	CHECK(strcmp(adapt_run(&growing, 1, buf, sizeof(buf)), " -> 1") == 0);
	CHECK(strcmp(adapt_run(&growing, 0, buf, sizeof(buf)), " -> 1") == 0);
	adapt_init(&a, 1, false);
	CHECK(a.settled && a.k == 1 &&
	      strcmp(a.why, "1 worker, the most this node may have") == 0);

	/* the record's words */
	adapt_init(&a, 48, false);
	while (!a.settled)
		adapt_step(&a, curve_at(&knee, a.k));
	CHECK(a.nrates == 7 && a.rates[4].workers == 12 && a.rates[4].pages_per_s == 720);
	CHECK(a.peak == 32);
	CHECK(strcmp(a.why,
		     "32 workers gave -17% over 16; the best measured: 12 workers, "
		     "720 pages/s") == 0);
	adapt_init(&a, 8, false);
	while (!a.settled)
		adapt_step(&a, curve_at(&flat, a.k));
	CHECK(a.k == 1 && a.peak == 8 &&
	      strcmp(a.why, "1 worker gave +0% over 2; the best measured: 1 worker, "
			    "500 pages/s") == 0);

	/* a fixed count is the answer from the start */
	adapt_init(&a, 24, true);
	CHECK(a.settled && a.k == 24 && adapt_step(&a, 1000) == 24 && a.nrates == 0);
	CHECK(strcmp(a.why, "24 workers asked for") == 0);

	/* the work ended first; rates past 4e9 are held at that */
	adapt_init(&a, 64, false);
	adapt_step(&a, 1e12);
	adapt_done(&a);
	CHECK(a.settled && a.k == 8 && a.rates[0].pages_per_s == 4000000000u);
	CHECK(strcmp(a.why, "the work ended at 8 workers, before a settled measure") ==
	      0);
	adapt_done(&a);
	CHECK(a.k == 8);

	/* a zero rate measured is no reason to divide by zero */
	adapt_init(&a, 64, false);
	adapt_step(&a, 0);
	adapt_step(&a, 100);
	CHECK(a.k == 16 && !a.settled);
}

int main(void)
{
	test_idlist();
	test_numbers();
	test_settings();
	test_settings_limits();
	test_files();
	test_json();
	test_plan();
	test_result();
	test_judge();
	test_adapt();
	printf("unit: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
