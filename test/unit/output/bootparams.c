/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bootparams.c - unit tests: the kernel boot parameters for given pools, exactly. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bootparams.h"
#include "json.h"
#include "unit.h"

static char *from_plan(const struct hp_topology *t, const struct hp_plan *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	bootparams_from_plan(f, t, p);
	fclose(f);
	return text;
}

static int same(char *got, const char *want)
{
	int ok = got && strcmp(got, want) == 0;

	if (!ok)
		fprintf(stderr, "got '%s', want '%s'\n", got ? got : "(null)", want);
	free(got);
	return ok;
}

/* Two nodes (ids 0 and 2), 2M and 1G: the plan's targets, largest size first. */
UNIT_TEST(plan, "the plan's kernel parameters: per node, a total without NUMA, 1G first")
{
	struct hp_node nodes[2] = {{.id = 0}, {.id = 2}};
	struct hp_topology t = {.numa = true, .nnodes = 2, .nodes = nodes, .nsizes = 2};
	struct hp_cell cells[4] = {{.target = 512}, {.target = 4}, {.target = 256}, {0}};
	uint64_t keep[2] = {0};
	struct hp_plan p = {.nnodes = 2, .nsizes = 2, .cells = cells, .keep_free = keep};

	t.sizes[0].kb = 2048;
	t.sizes[1].kb = 1048576;
	CHECK(same(from_plan(&t, &p),
		   "hugepagesz=1G hugepages=0:4 hugepagesz=2M hugepages=0:512,2:256\n"));
	/* without NUMA sysfs the kernel takes a total */
	t.numa = false;
	CHECK(same(from_plan(&t, &p),
		   "hugepagesz=1G hugepages=4 hugepagesz=2M hugepages=768\n"));
	/* one node: a total too */
	t.numa = true;
	t.nnodes = 1;
	CHECK(same(from_plan(&t, &p),
		   "hugepagesz=1G hugepages=4 hugepagesz=2M hugepages=512\n"));
	/* a size with no pages anywhere is left out; nothing at all is an empty line */
	t.nnodes = 2;
	cells[1].target = 0;
	CHECK(same(from_plan(&t, &p), "hugepagesz=2M hugepages=0:512,2:256\n"));
	cells[0].target = cells[2].target = 0;
	CHECK(same(from_plan(&t, &p), "\n"));
	/* a node with none of a size is left out of its list */
	cells[1].target = 16;
	cells[2].target = 8;
	CHECK(same(from_plan(&t, &p),
		   "hugepagesz=1G hugepages=0:16 hugepagesz=2M hugepages=2:8\n"));
	/* free memory capped node 2's 2M at 8 of 3000: the request, within its 8 GiB
	 * less 512M kept free; a cell met keeps its target */
	nodes[1].mem_total = UINT64_C(8) << 30;
	keep[1] = UINT64_C(512) << 20;
	cells[2] = (struct hp_cell){
	    .requested_set = true, .requested = 3000, .target = 8, .cut = HP_CUT_MEMORY};
	CHECK(same(from_plan(&t, &p),
		   "hugepagesz=1G hugepages=0:16 hugepagesz=2M hugepages=2:3000\n"));
	cells[2].requested = 9000;
	CHECK(same(from_plan(&t, &p),
		   "hugepagesz=1G hugepages=0:16 hugepagesz=2M hugepages=2:3840\n"));
}

static int from_record(const char *json, char **text)
{
	struct hp_record r = {0};
	size_t len = 0;
	FILE *f;
	int rc;

	*text = NULL;
	if (json_parse(json, &r.v))
		return -999;
	if (record_run_read(&r.v, &r.run)) {
		json_free(&r.v);
		return -998;
	}
	f = open_memstream(text, &len);
	rc = bootparams_from_record(f, &r);
	fclose(f);
	record_run_free(&r.run);
	json_free(&r.v);
	return rc;
}

/* What a record's run was asked, per node: each cell's target, and the request
 * where the plan capped it, within MemTotal less keep_free. */
UNIT_TEST(
    record,
    "a record's pools as kernel parameters, a capped cell's request; no pools is an error")
{
	char *text;

	CHECK(
	    from_record(
		"{\"sizes\": [{\"kb\": 2048}, {\"kb\": 1048576}], \"nodes\": ["
		"{\"node\": 0, \"mem_total\": 8589934592, \"keep_free\": 536870912, "
		"\"sizes\": [{\"requested\": 100, \"target\": 100, \"achieved\": 90}, "
		"{\"requested\": null, \"target\": 2, \"achieved\": 2}]}, "
		"{\"node\": 2, \"mem_total\": 8589934592, \"keep_free\": 536870912, "
		"\"sizes\": [{\"requested\": 3000, \"target\": 256, \"achieved\": 256}, "
		"{\"requested\": 1, \"target\": 1, \"achieved\": 0}]}]}",
		&text) == 0);
	/* node 2's 2M: capped at 256 by the run's free memory, the request 3000 (it
	 * fits in 8 GiB less the 1G page and 512M); targets elsewhere, not what was
	 * achieved */
	CHECK(same(
	    text,
	    "hugepagesz=1G hugepages=0:2,2:1 hugepagesz=2M hugepages=0:100,2:3000\n"));
	/* the request is held to the node's memory less keep_free */
	CHECK(from_record("{\"sizes\": [{\"kb\": 2048}], \"nodes\": [{\"node\": 3, "
			  "\"mem_total\": 1073741824, \"keep_free\": 536870912, "
			  "\"sizes\": [{\"requested\": 1000, \"target\": 64}]}]}",
			  &text) == 0);
	CHECK(same(text, "hugepagesz=2M hugepages=256\n"));
	/* a node whose cells stop short of a size is left out of that size */
	CHECK(
	    from_record("{\"sizes\": [{\"kb\": 2048}, {\"kb\": 1048576}], \"nodes\": ["
			"{\"node\": 0, \"sizes\": [{\"target\": 10}]}, "
			"{\"node\": 1, \"sizes\": [{\"target\": 20}, {\"target\": 3}]}]}",
			&text) == 0);
	CHECK(same(text,
		   "hugepagesz=1G hugepages=1:3 hugepagesz=2M hugepages=0:10,1:20\n"));
	/* no pools: an error, and nothing written */
	CHECK(from_record("{\"sizes\": [], \"nodes\": []}", &text) == -EINVAL);
	CHECK(same(text, ""));
	CHECK(from_record("{\"status\": \"failed\"}", &text) == -EINVAL);
	CHECK(same(text, ""));
	CHECK(from_record("{\"sizes\": [{\"kb\": 2048}], \"nodes\": []}", &text) ==
	      -EINVAL);
	CHECK(same(text, ""));
}
