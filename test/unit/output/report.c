/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.c - unit tests: what hugepar plan prints: the tables, their widths, the JSON. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "keys.h"
#include "report.h"
#include "unit.h"

#define GiB (UINT64_C(1) << 30)
#define MiB (UINT64_C(1) << 20)

/*
 * Two nodes with sparse ids (0 and 3; node 3 has no CPUs), 2M and 1G pages. Node 0's
 * 2M pages as asked, its 1G cut by keep_free; node 3's 2M cut by memory and rounded;
 * node 3's 1G neither asked nor held. Written down, not computed by the plan.
 */
static struct {
	struct hp_settings s;
	struct hp_topology t;
	struct hp_node nodes[2];
	struct hp_idset cpus[2];
	struct hp_cell cells[4];
	uint64_t keep_free[2], work[2];
	unsigned workers[2];
	struct hp_plan p;
} F;

static void fixture(void)
{
	memset(&F, 0, sizeof(F));
	settings_init(&F.s);
	keys_set(&F.s, "pages", "2M:100@0 2M:50%@3 1G:2@0", "/etc/hugepar.conf:2", false);
	keys_set(&F.s, "mount", "2M:/mnt/huge", "/etc/hugepar.conf:3", false);
	settings_problem(&F.s, "/etc/hugepar.conf:4", "colour", "blue", "unknown key");
	settings_add_source(&F.s, "/etc/hugepar.conf");
	settings_add_source(&F.s, "kernel command line");
	F.t.numa = F.t.hugetlb = true;
	F.t.ncpus_online = 4;
	F.t.nnodes = F.t.nsizes = 2;
	F.t.nodes = F.nodes;
	F.t.sizes[0].kb = 2048;
	F.t.sizes[1].kb = 1048576;
	F.nodes[0] = (struct hp_node){.id = 0,
				      .ncpus = 4,
				      .cpus = &F.cpus[0],
				      .mem_total = 16 * GiB,
				      .mem_free = 10 * GiB,
				      .mem_basis = 16 * GiB,
				      .basis_blocks = true,
				      .has_memory = true};
	for (unsigned c = 0; c < 4; c++)
		idset_add(&F.cpus[0], c);
	F.nodes[1] = (struct hp_node){.id = 3,
				      .cpus = &F.cpus[1],
				      .mem_total = 8 * GiB,
				      .mem_free = 6 * GiB + 512 * MiB,
				      .mem_basis = 8 * GiB,
				      .has_memory = true};
	F.p = (struct hp_plan){.nnodes = 2,
			       .nsizes = 2,
			       .cells = F.cells,
			       .keep_free = F.keep_free,
			       .work = F.work,
			       .workers = F.workers,
			       .workers_total = 3,
			       .workers_auto = true};
	F.keep_free[0] = F.keep_free[1] = 512 * MiB;
	F.work[0] = 90 * 2 * MiB;
	F.workers[0] = 3;
	F.p.parallel[0] = true; /* 2M by threads, 1G by per-node writes */
	F.cells[0] = (struct hp_cell){.requested_set = true,
				      .current = 10,
				      .requested = 100,
				      .target = 100,
				      .workers = 3,
				      .granularity = 1};
	F.cells[1] = (struct hp_cell){.requested_set = true,
				      .requested = 2,
				      .target = 1,
				      .cut = HP_CUT_KEEP_FREE,
				      .granularity = 1};
	F.cells[2] = (struct hp_cell){.requested_set = true,
				      .requested = 2048,
				      .target = 1536,
				      .cut = HP_CUT_MEMORY,
				      .granularity = 512,
				      .unrounded = 1600,
				      .rounded = true};
	F.cells[3] = (struct hp_cell){.granularity = 1};
}

/* What a report function printed, NUL-terminated (free it). */
static char *printed(void (*fn)(FILE *, const struct hp_settings *,
				const struct hp_topology *, const struct hp_plan *,
				const struct record_basis *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fn(f, &F.s, &F.t, &F.p, NULL);
	fclose(f);
	return buf;
}

/* The plan's JSON, without setters. */
static void plan_json_of(FILE *f, const struct hp_settings *s,
			 const struct hp_topology *t, const struct hp_plan *p,
			 const struct record_basis *b)
{
	report_plan_json(f, s, t, p, b, NULL);
}

static bool same(const char *got, const char *want)
{
	if (got && strcmp(got, want) == 0)
		return true;
	fprintf(stderr, "  got:\n%s\n  want:\n%s\n", got ? got : "(null)", want);
	return false;
}

UNIT_TEST(text, "hugepar plan's text: topology, plan, mounts and problems")
{
	char *out;

	fixture();
	out = printed(report_plan_text);
	CHECK(same(
	    out,
	    "Topology: 2 nodes, 4 CPUs online, huge page sizes: 2M 1G\n"
	    "Settings read: /etc/hugepar.conf, kernel command line\n"
	    "\n"
	    "NODE   CPUS   CPULIST            MEMTOTAL    MEMFREE  KEEP_FREE\n"
	    "0      4      0-3                     16G        10G       512M\n"
	    "3      0      -                        8G       6.5G       512M\n"
	    "\n"
	    "Plan: mode grow, keep_free 512M per node, timeout 60.000s, threads auto, "
	    "up to 3 at once\n"
	    "NODE   SIZE      BEFORE  REQUESTED     TARGET   MEMORY     CHANGE  THREADS  "
	    "NOTE\n"
	    "0      2M            10        100        100     200M        +90        3\n"
	    "0      1G             0          2          1       1G         +1        0  "
	    "capped by keep_free; per-node writes: no threads for 1G pages before Linux "
	    "6.19\n"
	    "3      2M             0       2048       1536       3G      +1536        0  "
	    "capped by free memory: 1600 fit, rounded down by 64 (4.00%)\n"
	    "\n"
	    "Rounded down: shares and caps go down to a step of at most 1% of the count\n"
	    "(granularity auto), so that each boot of this machine gets the same count "
	    "while its\nmemory moves a little.\n"
	    "\n"
	    "Mount (hugepar verify, on the booted system): 2M:/mnt/huge\n"
	    "\n"
	    "Problems (1):\n"
	    "  /etc/hugepar.conf:4: colour=blue: unknown key\n"));
	free(out);
	settings_free(&F.s);
}

/* Nothing configured, disabled, no NUMA sysfs, no hugetlb, a note, workers set. */
UNIT_TEST(bare, "plan's text when disabled, bare, without NUMA or hugetlb")
{
	char *out;

	memset(&F, 0, sizeof(F));
	settings_init(&F.s);
	F.s.enabled = false;
	F.s.timeout_ms = 1500;
	F.s.mode = HP_MODE_EXACT;
	F.t.ncpus_online = 2;
	F.t.nnodes = 1;
	F.t.nodes = F.nodes;
	snprintf(F.t.warning, sizeof(F.t.warning), "odd figures");
	F.nodes[0] = (struct hp_node){.ncpus = 2, .cpus = &F.cpus[0], .mem_total = 1000};
	idset_add(&F.cpus[0], 0);
	idset_add(&F.cpus[0], 1);
	F.p = (struct hp_plan){
	    .nnodes = 1, .cells = F.cells, .keep_free = F.keep_free, .workers_total = 2};
	F.keep_free[0] = 1536;
	out = printed(report_plan_text);
	CHECK(same(
	    out,
	    "Disabled by the settings: the boot changes no pool (what the settings ask "
	    "is below).\n"
	    "Topology: 1 node (no NUMA sysfs), 2 CPUs online, huge page sizes: "
	    "none (kernel without hugetlb)\n"
	    "Note: odd figures\n"
	    "Settings read: none\n"
	    "Nothing is configured: no 'pages =' in the settings files and no "
	    "rd.hugepar.pages= on the kernel\ncommand line, so nothing will be done. "
	    "Add one (hugepar.conf(5)), e.g. 'pages = 2M:50%' in\n"
	    "/etc/hugepar.conf, then build the initramfs again.\n"
	    "\n"
	    "NODE   CPUS   CPULIST            MEMTOTAL    MEMFREE  KEEP_FREE\n"
	    "0      2      0-1                   1000B         0B       1.5K\n"
	    "\n"
	    "What the settings ask, when enabled:\n"
	    "Nothing to do: no pages asked for, and no pool on any node.\n"));
	free(out);
	settings_free(&F.s);
}

/* Counts of 20 digits and long cpulists push the columns, and are never cut; a
 * cpulist past the buffer is shown as "...". */
UNIT_TEST(wide, "20-digit counts and long cpulists widen columns, never cut")
{
	char *out, want[1024], list[512] = "";

	fixture();
	for (unsigned c = 0; c < 100; c++) {
		idset_add(&F.cpus[0], 1000 + 2 * c);
		snprintf(list + strlen(list), sizeof(list) - strlen(list), ",%u",
			 1000 + 2 * c);
	}
	F.nodes[0].ncpus = 104;
	for (unsigned c = 0; c < HP_MAX_CPUS; c += 2)
		idset_add(&F.cpus[1], c);
	F.nodes[1].ncpus = HP_MAX_CPUS / 2;
	F.nodes[1].id = 4294967295u;
	F.cells[0] = (struct hp_cell){.current = UINT64_MAX, .target = UINT64_MAX};
	F.cells[1] = (struct hp_cell){.requested_set = true,
				      .requested = UINT64_C(10000000000000000000)};
	out = printed(report_plan_text);
	snprintf(want, sizeof(want),
		 "0      104    0-3%s        16G        10G       512M\n"
		 "4294967295 4096   ...                      8G       6.5G       512M\n",
		 list);
	CHECK(out && strstr(out, want));
	if (out && !strstr(out, want))
		fprintf(stderr, "  got:\n%s\n  want in it:\n%s\n", out, want);
	CHECK(
	    out &&
	    strstr(
		out,
		"\n0      2M    18446744073709551615          - "
		"18446744073709551615      16E         +0        0\n"
		"0      1G             0 10000000000000000000 "
		"         0        0         +0        0\n"
		"4294967295 2M             0       2048       1536       3G      +1536 "
		"       0  capped by free memory: 1600 fit, rounded down by 64 (4.00%)\n"));
	free(out);
	settings_free(&F.s);
}

static const struct json_val *at(const struct json_val *v, unsigned i)
{
	return v && (v->type == JSON_ARR || v->type == JSON_OBJ) && i < v->n ? &v->kids[i]
									     : NULL;
}

static bool num(const struct json_val *v, const char *key, uint64_t want)
{
	const struct json_val *m = v ? json_get(v, key) : NULL;

	if (m && m->type == JSON_NUM && !m->neg && m->num == want)
		return true;
	fprintf(stderr, "  %s is not %llu\n", key, (unsigned long long)want);
	return false;
}

static bool str(const struct json_val *v, const char *key, const char *want)
{
	const char *got = v ? json_get_str(v, key) : NULL;

	if (got && strcmp(got, want) == 0)
		return true;
	fprintf(stderr, "  %s is \"%s\", not \"%s\"\n", key, got ? got : "", want);
	return false;
}

static bool is(const struct json_val *v, const char *key, enum json_type type, bool b)
{
	const struct json_val *m = v ? json_get(v, key) : NULL;

	return m && m->type == type && (type != JSON_BOOL || m->b == b);
}

static void check_topology_json(const struct json_val *t)
{
	const struct json_val *nodes = t ? json_get(t, "nodes") : NULL;
	const struct json_val *n0 = at(nodes, 0), *n3 = at(nodes, 1);

	CHECK(is(t, "numa", JSON_BOOL, true) && is(t, "hugetlb", JSON_BOOL, true) &&
	      num(t, "cpus_online", 4) && str(t, "warning", ""));
	CHECK(json_get(t, "sizes_kb") && json_get(t, "sizes_kb")->n == 2 &&
	      at(json_get(t, "sizes_kb"), 0)->num == 2048 &&
	      at(json_get(t, "sizes_kb"), 1)->num == 1048576);
	CHECK(nodes && nodes->n == 2);
	CHECK(num(n0, "node", 0) && num(n0, "cpus", 4) && str(n0, "cpulist", "0-3") &&
	      is(n0, "has_memory", JSON_BOOL, true) &&
	      num(n0, "mem_total", 17179869184) && num(n0, "mem_free", 10737418240) &&
	      num(n0, "mem_basis", 17179869184) &&
	      str(n0, "basis_from", "memory blocks"));
	CHECK(num(n3, "node", 3) && num(n3, "cpus", 0) && str(n3, "cpulist", "") &&
	      num(n3, "mem_free", 6979321856) && str(n3, "basis_from", "MemTotal"));
}

static void check_plan_json(const struct json_val *p)
{
	const struct json_val *nodes = p ? json_get(p, "nodes") : NULL;
	const struct json_val *n0 = at(nodes, 0), *n3 = at(nodes, 1);
	const struct json_val *c0 = at(n0 ? json_get(n0, "sizes") : NULL, 0);
	const struct json_val *c1 = at(n0 ? json_get(n0, "sizes") : NULL, 1);
	const struct json_val *c2 = at(n3 ? json_get(n3, "sizes") : NULL, 0);
	const struct json_val *c3 = at(n3 ? json_get(n3, "sizes") : NULL, 1);

	CHECK(num(p, "threads", 3) && is(p, "threads_auto", JSON_BOOL, true));
	CHECK(nodes && nodes->n == 2);
	CHECK(num(n0, "node", 0) && num(n0, "keep_free", 536870912) &&
	      num(n0, "work_bytes", 188743680) && num(n0, "threads", 3));
	CHECK(num(n3, "node", 3) && num(n3, "work_bytes", 0) && num(n3, "threads", 0));
	CHECK(str(c0, "size", "2M") && num(c0, "current", 10) &&
	      num(c0, "requested", 100) && num(c0, "target", 100) &&
	      num(c0, "threads", 3) && str(c0, "cut", "") && num(c0, "granularity", 1) &&
	      is(c0, "unrounded", JSON_NULL, false));
	CHECK(str(c1, "size", "1G") && num(c1, "target", 1) &&
	      str(c1, "cut", "keep_free"));
	CHECK(str(c2, "size", "2M") && num(c2, "requested", 2048) &&
	      num(c2, "target", 1536) && str(c2, "cut", "free_memory") &&
	      num(c2, "granularity", 512) && num(c2, "unrounded", 1600));
	/* neither asked nor held: still in the JSON, with a null request */
	CHECK(str(c3, "size", "1G") && is(c3, "requested", JSON_NULL, false) &&
	      num(c3, "current", 0) && num(c3, "target", 0));
}

UNIT_TEST(json, "hugepar plan --json: topology, plan and settings, each field")
{
	struct json_val v;
	const struct json_val *s;
	char *out;

	fixture();
	out = printed(plan_json_of);
	CHECK(out && json_parse(out, &v) == 0);
	if (!out || json_parse(out, &v)) {
		free(out);
		settings_free(&F.s);
		return;
	}
	CHECK(v.type == JSON_OBJ && v.n == 4);
	CHECK(json_get(&v, "setters") && json_get(&v, "setters")->type == JSON_ARR);
	check_topology_json(json_get(&v, "topology"));
	check_plan_json(json_get(&v, "plan"));
	s = json_get(&v, "settings");
	CHECK(is(s, "enabled", JSON_BOOL, true) && str(s, "mode", "grow") &&
	      str(s, "keep_free", "512M") && str(s, "threads", "auto") &&
	      num(s, "timeout_ms", 60000) && str(s, "granularity", "auto") &&
	      str(s, "on_short", "continue") && str(s, "config", ""));
	CHECK(s && json_get(s, "sources")->n == 2 &&
	      strcmp(at(json_get(s, "sources"), 1)->str, "kernel command line") == 0);
	CHECK(s && json_get(s, "problems")->n == 1 &&
	      str(at(json_get(s, "problems"), 0), "key", "colour") &&
	      str(at(json_get(s, "problems"), 0), "message", "unknown key"));
	CHECK(s && str(at(json_get(s, "mounts"), 0), "mount", "2M:/mnt/huge") &&
	      str(at(json_get(s, "mounts"), 0), "origin", "/etc/hugepar.conf:3"));
	json_free(&v);
	free(out);
	settings_free(&F.s);
}

/* Hostile widths in JSON: numbers whole, the long cpulist whole, the overlong one
 * marked. */
UNIT_TEST(json_wide,
	  "hostile widths in JSON: numbers and cpulists whole, overlong marked")
{
	const struct json_val *nodes, *c;
	struct json_val v;
	char *out;

	fixture();
	for (unsigned c2 = 0; c2 < HP_MAX_CPUS; c2 += 2)
		idset_add(&F.cpus[1], c2);
	idset_add(&F.cpus[0], 8);
	idset_add(&F.cpus[0], 8191);
	F.cells[0] = (struct hp_cell){.current = UINT64_MAX, .target = UINT64_MAX};
	out = printed(plan_json_of);
	CHECK(out && json_parse(out, &v) == 0);
	if (!out || json_parse(out, &v)) {
		free(out);
		settings_free(&F.s);
		return;
	}
	nodes = json_get(json_get(&v, "topology"), "nodes");
	CHECK(str(at(nodes, 0), "cpulist", "0-3,8,8191") &&
	      str(at(nodes, 1), "cpulist", "..."));
	nodes = json_get(json_get(&v, "plan"), "nodes");
	c = at(json_get(at(nodes, 0), "sizes"), 0);
	CHECK(num(c, "current", UINT64_MAX) && num(c, "target", UINT64_MAX) &&
	      is(c, "requested", JSON_NULL, false));
	json_free(&v);
	free(out);
	settings_free(&F.s);
}

/* A problem with and without a key. */
UNIT_TEST(problem_line, "a settings problem's line, with and without a key")
{
	struct hp_problem with = {
	    .origin = "a.conf:1", .key = "k", .value = "v", .message = "bad"};
	struct hp_problem without = {
	    .origin = "cmdline", .key = "", .value = "", .message = "too long"};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f != NULL);
	if (!f)
		return;
	report_problem_line(f, &with);
	report_problem_line(f, &without);
	fclose(f);
	CHECK(same(buf, "a.conf:1: k=v: bad\ncmdline: too long\n"));
	free(buf);
}
