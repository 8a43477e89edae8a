/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record_fixture.h - for test/unit/record/write.c and record_log.c: a run's settings,
 * machine, plan and result written down by hand, what its record must hold, and the
 * checks of JSON fields and temp dirs that go with them (not every file uses all).
 */
#ifndef HUGEPAR_RECORD_FIXTURE_H
#define HUGEPAR_RECORD_FIXTURE_H

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file.h"
#include "json.h"
#include "keys.h"

#include "unit.h"
#define GiB (UINT64_C(1) << 30)

/*
 * A run on two nodes (ids 0 and 2, so that an index taken for an id shows) with 2M
 * and 1G pages: node 0 got its 2M pages; node 2's 2M were capped by the floor and
 * rounded, and its 1G pages fell short at the deadline; a killed run's overcommit was
 * put back, another's could not be. Plan and result are written down, not computed.
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
	struct hp_cell_result cr[4];
	struct hp_result res;
	struct hp_recovery rec;
} F;

static void fixture_settings(void)
{
	struct hp_settings *s = &F.s;

	settings_init(s);
	keys_set(s, "pages", "2M:100@0 2M:2000@2 1G:2@2", "/etc/hugepar.conf:3", false);
	keys_set(s, "mount", "2M:/mnt/huge,mode=0770", "/etc/hugepar.conf:4", false);
	keys_set(s, "threads", "4", "/etc/hugepar.conf:5", false);
	keys_set(s, "rd.hugepar.timeout", "0", "kernel command line", true);
	settings_add_source(s, "/etc/hugepar.conf");
	settings_add_source(s, "kernel command line");
	s->config = strdup("/etc/hugepar.conf");
}

static void fixture_machine(void)
{
	F.t.numa = F.t.hugetlb = true;
	F.t.ncpus_online = 8;
	F.t.nnodes = 2;
	F.t.nodes = F.nodes;
	F.t.nsizes = 2;
	F.t.sizes[0].kb = 2048;
	F.t.sizes[1].kb = 1048576;
	F.t.sizes[1].overcommit = 3;
	F.t.sizes[1].pool.surplus = 1;
	strcpy(F.t.release, "6.1.0-test");
	strcpy(F.t.boot_id, "0b5e9d0c-6f1f-4a8e-9a36-1c7a2f0e8d11");
	F.t.initramfs = true;
	for (unsigned i = 0; i < 2; i++) {
		F.nodes[i].id = i * 2;
		F.nodes[i].ncpus = 4;
		F.nodes[i].cpus = &F.cpus[i];
		for (unsigned c = 0; c < 4; c++)
			idset_add(&F.cpus[i], i * 4 + c);
		F.nodes[i].has_memory = true;
	}
	F.nodes[0].mem_total = F.nodes[0].mem_basis = 16 * GiB;
	F.nodes[0].mem_free = 10 * GiB;
	F.nodes[0].basis_blocks = true;
	F.nodes[1].mem_total = F.nodes[1].mem_basis = 8 * GiB;
	F.nodes[1].mem_free = 4 * GiB;
}

static void fixture_plan(void)
{
	F.p.nnodes = F.p.nsizes = 2;
	F.p.cells = F.cells;
	F.p.keep_free = F.keep_free;
	F.p.work = F.work;
	F.p.workers = F.workers;
	F.keep_free[0] = F.keep_free[1] = 512u << 20;
	F.workers[0] = 3;
	F.workers[1] = 1;
	F.p.workers_total = 4;
	F.cells[0] = (struct hp_cell){.requested_set = true,
				      .current = 10,
				      .own = 4, /* an earlier run of the boot's */
				      .requested = 100,
				      .target = 100,
				      .workers = 3,
				      .granularity = 1};
	F.cells[1] = (struct hp_cell){.granularity = 1};
	F.cells[2] = (struct hp_cell){.requested_set = true,
				      .requested = 2000,
				      .target = 1536,
				      .cut = HP_CUT_KEEP_FREE,
				      .workers = 1,
				      .granularity = 512,
				      .unrounded = 1600,
				      .rounded = true};
	F.cells[3] = (struct hp_cell){
	    .requested_set = true, .requested = 2, .target = 2, .granularity = 1};
}

static void fixture_result(void)
{
	F.res.status = HP_STATUS_PARTIAL;
	F.res.timed_out = true;
	F.res.started_unix = 1700000000;
	F.res.started_boot_ms = 4321;
	F.res.duration_ms = 250;
	F.res.nnodes = F.res.nsizes = 2;
	F.res.cells = F.cr;
	F.res.sizes[0] = (struct hp_size_result){.worked = true,
						 .method = HP_METHOD_PARALLEL,
						 .workers = 6,
						 .workers_peak = 3,
						 .ms = 200,
						 .chunks = 30,
						 .enomem = 2,
						 .trimmed = 5,
						 .topped_up = 7,
						 .pages_by_workers = 1619};
	F.res.sizes[1] = (struct hp_size_result){.worked = true,
						 .method = HP_METHOD_SERIAL,
						 .ms = 40,
						 .start_ms = 210,
						 .overcommit_before = 3,
						 .overcommit_after = 3,
						 .surplus_before = 1,
						 .surplus_after = 1};
	strcpy(F.res.sizes[1].method_note, "gigantic pages: per-node writes");
	strcpy(F.res.sizes[1].failure, "commit write failed");
	strcpy(F.res.sizes[1].afterwards, "put back");
	F.cr[0] = (struct hp_cell_result){.before = 10, .achieved = 100, .ms = 150};
	F.cr[0].workers.workers_peak = 3;
	F.cr[0].workers.workers_started = 5;
	F.cr[0].workers.workers_settled = 2;
	F.cr[0].workers.nrates = 2;
	F.cr[0].workers.rates[0] = (struct adapt_rate){1, 500};
	F.cr[0].workers.rates[1] = (struct adapt_rate){2, 900};
	strcpy(F.cr[0].workers.workers_why, "two was the knee");
	F.cr[1].status = HP_STATUS_UNCHANGED;
	F.cr[2] = (struct hp_cell_result){
	    .achieved = 1536, .ms = 90, .status = HP_STATUS_CAPPED};
	strcpy(F.cr[2].reason, "1536 of 2000 requested: capped by keep_free");
	F.cr[2].cause = HP_CAUSE_KEEP_FREE;
	F.cr[3] =
	    (struct hp_cell_result){.achieved = 1, .ms = 40, .status = HP_STATUS_PARTIAL};
	strcpy(F.cr[3].reason, "1 of 2: deadline reached");
	F.cr[3].cause = HP_CAUSE_DEADLINE;

	F.rec.n = 2;
	F.rec.fix[0] =
	    (struct restore_fix){.kb = 2048, .raised = 300, .found = 300, .pid = 77};
	F.rec.fix[1] = (struct restore_fix){
	    .kb = 1048576, .before = 1, .raised = 9, .found = 9, .pid = 78, .rc = -EIO};
}

static void fixture(void)
{
	memset(&F, 0, sizeof(F));
	fixture_settings();
	fixture_machine();
	fixture_plan();
	fixture_result();
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(p);
}

static void rm_rf(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static inline char *slurp(const char *file, size_t *len)
{
	const char *kind;
	char *text;
	size_t n;

	if (file_read_regular(file, 1 << 20, &text, len ? len : &n, &kind))
		return NULL;
	return text;
}

/* The names in dir, sorted, joined by spaces ("" for none). */
static inline void listing(const char *dir, char *buf, size_t len)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		size_t used = strlen(buf);

		if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, "..") &&
		    snprintf(buf + used, len - used, "%s%s", used ? " " : "",
			     names[i]->d_name) >= (int)(len - used))
			buf[used] = '\0'; /* a name that does not fit is left out */
		free(names[i]);
	}
	free(n >= 0 ? names : NULL);
}

/* An object's keys, in order, are exactly these (a space between each). */
static int keys_are(const struct json_val *v, const char *want)
{
	char got[1024] = "";

	if (!v || v->type != JSON_OBJ)
		return 0;
	for (unsigned i = 0; i < v->n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s",
			 i ? " " : "", v->keys[i]);
	if (strcmp(got, want))
		fprintf(stderr, "keys: %s\n want: %s\n", got, want);
	return strcmp(got, want) == 0;
}

static int is(const struct json_val *v, const char *key, enum json_type type)
{
	const struct json_val *m = json_get(v, key);

	return m && m->type == type;
}

static int str_is(const struct json_val *v, const char *key, const char *want)
{
	int ok = is(v, key, JSON_STR) && strcmp(json_get_str(v, key), want) == 0;

	if (!ok)
		fprintf(stderr, "%s: '%s', want '%s'\n", key, json_get_str(v, key), want);
	return ok;
}

static int num_is(const struct json_val *v, const char *key, uint64_t want)
{
	const struct json_val *m = json_get(v, key);

	return m && m->type == JSON_NUM && !m->neg && m->num == want;
}

static int bool_is(const struct json_val *v, const char *key, bool want)
{
	const struct json_val *m = json_get(v, key);

	return m && m->type == JSON_BOOL && m->b == want;
}

#define TOP_KEYS                                                                         \
	"format version kernel status error started_unix started_boot_ms duration_ms "   \
	"timed_out interrupted hugetlb boot_id initramfs threads vmemmap settings "     \
	"recovered "                                                                     \
	"setters sizes nodes"
#define SETTINGS_KEYS                                                                    \
	"enabled enabled_by mode keep_free threads timeout_ms granularity on_short "     \
	"vmemmap "                                                                       \
	"textfile mounts pages devices sources config digest problems notices"
#define SIZE_KEYS                                                                        \
	"size kb worked method method_note error threads threads_peak threads_started "  \
	"ms start_ms overcommit_before "                                                 \
	"overcommit_after surplus_before surplus_after chunks chunks_refused trimmed "   \
	"topped_up pages_by_threads kernel_route"
#define NODE_KEYS                                                                        \
	"node cpus mem_total mem_free mem_basis basis_from keep_free threads sizes"
#define CELL_KEYS                                                                        \
	"size before requested target achieved own vmemmap_freed_kb threads "           \
	"threads_peak "                                                                  \
	"threads_started threads_settled "                                               \
	"threads_rates threads_why granularity unrounded ms status reason cause"
#define RECOVERED_KEYS "size pid overcommit_found overcommit_put_back ok malformed note"

static inline void check_settings(const struct json_val *set)
{
	const struct json_val *a;

	CHECK(keys_are(set, SETTINGS_KEYS));
	CHECK(bool_is(set, "enabled", true));
	CHECK(str_is(set, "mode", "grow"));
	CHECK(str_is(set, "keep_free", "512M"));
	CHECK(num_is(set, "threads", 4));
	CHECK(num_is(set, "timeout_ms", 60000));
	CHECK(str_is(set, "granularity", "auto"));
	CHECK(str_is(set, "on_short", "continue"));
	CHECK(str_is(set, "textfile", "/var/lib/prometheus/node-exporter/hugepar.prom"));
	a = json_get(set, "mounts");
	CHECK(a && a->type == JSON_ARR && a->n == 1);
	if (a && a->n == 1) {
		CHECK(keys_are(&a->kids[0], "mount origin"));
		CHECK(str_is(&a->kids[0], "mount", "2M:/mnt/huge,mode=0770"));
		CHECK(str_is(&a->kids[0], "origin", "/etc/hugepar.conf:4"));
	}
	a = json_get(set, "pages");
	CHECK(a && a->type == JSON_ARR && a->n == 3);
	if (a && a->n == 3) {
		CHECK(keys_are(&a->kids[0], "entry origin"));
		CHECK(str_is(&a->kids[0], "entry", "2M:100@0"));
		CHECK(str_is(&a->kids[1], "entry", "2M:2000@2"));
		CHECK(str_is(&a->kids[2], "entry", "1G:2@2"));
		CHECK(str_is(&a->kids[2], "origin", "/etc/hugepar.conf:3"));
	}
	a = json_get(set, "sources");
	CHECK(a && a->type == JSON_ARR && a->n == 2);
	if (a && a->n == 2)
		CHECK(a->kids[0].type == JSON_STR &&
		      strcmp(a->kids[0].str, "/etc/hugepar.conf") == 0 &&
		      strcmp(a->kids[1].str, "kernel command line") == 0);
	CHECK(str_is(set, "config", "/etc/hugepar.conf"));
	/* no file was read: the digest is FNV-1a's offset basis */
	CHECK(str_is(set, "digest", "fnv1a64:cbf29ce484222325"));
	a = json_get(set, "problems");
	CHECK(a && a->type == JSON_ARR && a->n == 1);
	if (a && a->n == 1) {
		CHECK(keys_are(&a->kids[0], "origin key value message"));
		CHECK(str_is(&a->kids[0], "origin", "kernel command line"));
		CHECK(str_is(&a->kids[0], "key", "rd.hugepar.timeout"));
		CHECK(str_is(&a->kids[0], "value", "0"));
		CHECK(str_is(&a->kids[0], "message",
			     "expected seconds (90, 90s) or a time with units (2min, "
			     "1m30s, 500ms), more than 0 and at most 3600s (1h)"));
	}
}

static inline void check_recovered(const struct json_val *a)
{
	CHECK(a && a->type == JSON_ARR && a->n == 2);
	if (!a || a->n != 2)
		return;
	CHECK(keys_are(&a->kids[0], RECOVERED_KEYS));
	CHECK(keys_are(&a->kids[1], RECOVERED_KEYS));
	CHECK(str_is(&a->kids[0], "size", "2M"));
	CHECK(num_is(&a->kids[0], "pid", 77));
	CHECK(num_is(&a->kids[0], "overcommit_found", 300));
	CHECK(num_is(&a->kids[0], "overcommit_put_back", 0));
	CHECK(bool_is(&a->kids[0], "ok", true));
	CHECK(str_is(&a->kids[0], "note",
		     "2M: nr_overcommit_hugepages left at 300 by pid 77 put back to 0"));
	/* not put back: what is left is what was found */
	CHECK(str_is(&a->kids[1], "size", "1G"));
	CHECK(num_is(&a->kids[1], "pid", 78));
	CHECK(num_is(&a->kids[1], "overcommit_found", 9));
	CHECK(num_is(&a->kids[1], "overcommit_put_back", 9));
	CHECK(bool_is(&a->kids[1], "ok", false));
	CHECK(str_is(
	    &a->kids[1], "note",
	    unit_errtext("1G: nr_overcommit_hugepages left at 9 by pid 78 could not "
			 "be put back to 1: ",
			 EIO)));
}

#endif
