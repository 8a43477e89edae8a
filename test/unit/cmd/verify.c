/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verify.c - unit tests: the pools now against the record; what verify does. */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "file.h"
#include "keys.h"
#include "unit.h"
#include "cmd.h"
#include "compare.h"

/* Node 0 got its 100 pages; node 2 got 40 of 50; node 9 is gone since; 1G is not
 * offered now. */
static const char RECORD[] =
    "{\"status\": \"partial\", \"version\": \"0.2\", \"kernel\": \"k\", \"nodes\": ["
    "{\"node\": 0, \"sizes\": [{\"size\": \"2M\", \"requested\": 100, \"achieved\": "
    "100, \"status\": \"ok\"}, {\"size\": \"1G\", \"requested\": null, \"achieved\": "
    "0}]}, "
    "{\"node\": 2, \"sizes\": [{\"size\": \"2M\", \"requested\": 50, \"achieved\": "
    "40}]}, "
    "{\"node\": 9, \"sizes\": [{\"size\": \"2M\", \"requested\": null, \"achieved\": "
    "3}]}]}";

static struct hp_node nodes[2];
static struct hp_topology T;

static void machine(void)
{
	memset(&T, 0, sizeof(T));
	memset(nodes, 0, sizeof(nodes));
	T.nnodes = 2;
	T.nodes = nodes;
	T.nsizes = 1;
	T.sizes[0].kb = 2048;
	nodes[0].id = 0;
	nodes[0].pool[0] = (struct hp_pool){.nr = 100};
	nodes[1].id = 2;
	nodes[1].pool[0] = (struct hp_pool){.nr = 45, .surplus = 5};
}

static char *compare(const struct hp_record *r, struct pool_check *pc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	compare_pools(r, &T, f, pc);
	fclose(f);
	return text;
}

UNIT_TEST(compare, "the pools now against the record: drift and short cells said")
{
	struct hp_record r = {0};
	struct pool_check pc;
	char *out;

	machine();
	CHECK(json_parse(RECORD, &r.v) == 0);
	CHECK(record_run_read(&r.v, &r.run) == 0);
	out = compare(&r, &pc);
	CHECK(pc.cells == 4 && pc.drift == 1 && pc.shortc == 1);
	CHECK(strcmp(out,
		     "hugepar: node 2 2M: 40 of 50 pages asked for\n"
		     "hugepar: node 9 2M: 0 pages now, 3 when the run ended\n") == 0);
	free(out);

	/* pages lost on node 0 since the run: changed, and short */
	nodes[0].pool[0].nr = 90;
	out = compare(&r, &pc);
	CHECK(pc.cells == 4 && pc.drift == 2 && pc.shortc == 2);
	CHECK(strcmp(out,
		     "hugepar: node 0 2M: 90 pages now, 100 when the run ended\n"
		     "hugepar: node 0 2M: 90 of 100 pages asked for\n"
		     "hugepar: node 2 2M: 40 of 50 pages asked for\n"
		     "hugepar: node 9 2M: 0 pages now, 3 when the run ended\n") == 0);
	free(out);
	/* surplus pages are not the pool's: node 2 with 10 more, all surplus */
	nodes[0].pool[0].nr = 100;
	nodes[1].pool[0] = (struct hp_pool){.nr = 55, .surplus = 15};
	out = compare(&r, &pc);
	CHECK(pc.drift == 1 && pc.shortc == 1);
	free(out);
	/* no output asked for: counts only */
	compare_pools(&r, &T, NULL, &pc);
	CHECK(pc.cells == 4 && pc.drift == 1 && pc.shortc == 1);
	record_run_free(&r.run);
	json_free(&r.v);

	/* a record without nodes */
	CHECK(json_parse("{\"status\": \"failed\"}", &r.v) == 0);
	CHECK(record_run_read(&r.v, &r.run) == 0);
	out = compare(&r, &pc);
	CHECK(pc.cells == 0 && pc.drift == 0 && pc.shortc == 0 && out[0] == '\0');
	free(out);
	record_run_free(&r.run);
	json_free(&r.v);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(p);
}

/* verify_run() with what it printed on standard output. */
static int run_verify(const struct hp_settings *s, const struct hp_record *r,
		      struct verify_result *vr, char **out)
{
	FILE *cap = tmpfile();
	int saved = dup(1), rc;
	long n;

	fflush(stdout);
	dup2(fileno(cap), 1);
	rc = verify_run(s, r, &T, vr);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	n = ftell(cap);
	*out = calloc(1, n + 1);
	rewind(cap);
	if (fread(*out, 1, n, cap) != (size_t)n)
		(*out)[0] = '\0';
	fclose(cap);
	return rc;
}

UNIT_TEST(run, "hugepar verify: on_short, the textfile, no record")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", file[128], *out, *text;
	struct hp_settings s;
	struct verify_result vr;
	struct hp_record r = {0};
	const char *kind;
	size_t len;

	machine();
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	CHECK(json_parse(RECORD, &r.v) == 0 && record_run_read(&r.v, &r.run) == 0);
	settings_init(&s);
	free(s.textfile);
	snprintf(file, sizeof(file), "%s/hugepar.prom", dir);
	s.textfile = strdup(file);

	/* on_short = continue: a short cell is said, and verify passes */
	CHECK(run_verify(&s, &r, &vr, &out) == 0);
	CHECK(!vr.failed && !vr.no_record && vr.mounts_failed == 0);
	CHECK(vr.pools.cells == 4 && vr.pools.shortc == 1 && vr.pools.drift == 1);
	CHECK(strstr(out, "hugepar: node 2 2M: 40 of 50 pages asked for\n"));
	free(out);
	/* the textfile: the record with the pools now */
	CHECK(vr.textfile);
	CHECK(file_read_regular(file, 1 << 20, &text, &len, &kind) == 0);
	CHECK(strncmp(text, "# HELP hugepar_info ", 20) == 0);
	CHECK(strstr(text, "hugepar_live_pages{node=\"2\",size=\"2M\"} 40\n"));
	free(text);

	/* on_short = fail: it fails */
	s.on_short = HP_SHORT_FAIL;
	CHECK(run_verify(&s, &r, &vr, &out) == -EAGAIN && vr.failed);
	free(out);

	/* no record, pages configured: said, and a failure under on_short = fail */
	keys_set(&s, "pages", "2M:10", "t", false);
	CHECK(run_verify(&s, NULL, &vr, &out) == -EAGAIN && vr.no_record && !vr.textfile);
	CHECK(strcmp(out,
		     "hugepar: no record of a run at boot, but pages are configured: "
		     "is hugepar in the initramfs?\n") == 0);
	free(out);
	s.on_short = HP_SHORT_CONTINUE;
	CHECK(run_verify(&s, NULL, &vr, &out) == 0 && vr.no_record && !vr.failed);
	free(out);

	/* the textfile's directory is not there (node_exporter not installed):
	 * nothing is made, nothing said */
	free(s.textfile);
	snprintf(file, sizeof(file), "%s/none/hugepar.prom", dir);
	s.textfile = strdup(file);
	CHECK(run_verify(&s, &r, &vr, &out) == 0 && !vr.textfile);
	CHECK(strstr(out, "none") == NULL);
	free(out);
	snprintf(file, sizeof(file), "%s/none", dir);
	CHECK(access(file, F_OK) == -1 && errno == ENOENT);
	/* no textfile: none written */
	free(s.textfile);
	s.textfile = NULL;
	CHECK(run_verify(&s, &r, &vr, &out) == 0 && !vr.textfile);
	free(out);

	settings_free(&s);
	record_run_free(&r.run);
	json_free(&r.v);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
