/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vmemmap.c - unit tests: what a page gives back, and when a run turns the vmemmap
 * optimization on. */
#include <stdint.h>
#include <string.h>

#include "keys.h"
#include "planner.h"
#include "settings.h"
#include "topology.h"
#include "unit.h"
#include "vmemmap.h"

UNIT_TEST(saving, "28 kB of a 2M page, 16380 kB of a 1G page; nothing where the descriptors fill one page")
{
	CHECK(vmemmap_saving_kb(2048, 4) == 28 && vmemmap_saving_kb(2048, 0) == 28);
	CHECK(vmemmap_saving_kb(1048576, 4) == 16380);
	/* arm64: 64K base pages: a 2M page's 32 descriptors fill half a page; 512M's 8 */
	CHECK(vmemmap_saving_kb(2048, 64) == 0);
	CHECK(vmemmap_saving_kb(524288, 64) == 7 * 64);
	/* 16K base pages: a 32M page's 2048 descriptors are 8 pages, 7 given back */
	CHECK(vmemmap_saving_kb(32768, 16) == 7 * 16);
	CHECK(vmemmap_saving_kb(64, 4) == 0 && vmemmap_saving_kb(0, 4) == 0);
}

static struct hp_node node0;

static void kernel(struct hp_topology *t, const char *release, bool offered, bool on)
{
	memset(t, 0, sizeof(*t));
	memset(&node0, 0, sizeof(node0));
	node0.has_memory = true;
	t->nnodes = 1;
	t->nodes = &node0;
	t->nsizes = 2;
	t->sizes[0].kb = 2048;
	t->sizes[1].kb = 1048576;
	t->page_kb = 4;
	strcpy(t->release, release);
	t->vmemmap_offered = offered;
	t->vmemmap_on = on;
}

/* The run's choice for a setting ("auto", ...), the kernel, and whether 2M grows. */
static enum hp_vmemmap_why why(const char *setting, const char *release, bool offered,
			       bool on, bool grows, struct hp_vmemmap_plan *v)
{
	struct hp_settings s;
	struct hp_topology t;
	bool g[2] = {grows, false};

	settings_init(&s);
	keys_set(&s, "vmemmap", setting, "t", false);
	kernel(&t, release, offered, on);
	vmemmap_plan(&s, &t, g, v);
	settings_free(&s);
	return v->why;
}

UNIT_TEST(rules, "auto turns it on where it pays; keep and a kernel without it leave it; never off")
{
	struct hp_vmemmap_plan v;

	CHECK(why("auto", "6.1.0-57-amd64", true, false, true, &v) == HP_VMEMMAP_WHY_TURN_ON &&
	      v.on && v.turn_on && v.saving_kb[0] == 28);
	CHECK(why("auto", "7.2.13+deb14-amd64", true, false, true, &v) == HP_VMEMMAP_WHY_TURN_ON);
	/* 6.12 loses an optimized page it frees: auto leaves it off, optimize does not */
	CHECK(why("auto", "6.12.118+deb13-amd64", true, false, true, &v) == HP_VMEMMAP_WHY_LEAKS &&
	      !v.on && !v.turn_on && v.saving_kb[0] == 0);
	CHECK(why("optimize", "6.12.118+deb13-amd64", true, false, true, &v) ==
		  HP_VMEMMAP_WHY_TURN_ON &&
	      v.turn_on);
	CHECK(why("keep", "6.1.0", true, false, true, &v) == HP_VMEMMAP_WHY_KEEP && !v.on);
	CHECK(why("optimize", "6.1.0", false, false, true, &v) == HP_VMEMMAP_WHY_ABSENT &&
	      !v.on && !v.turn_on);
	CHECK(why("auto", "6.1.0", true, false, false, &v) == HP_VMEMMAP_WHY_NOTHING && !v.on);
	/* on before hugepar: on, whatever the setting, and nothing to turn on */
	CHECK(why("keep", "6.1.0", true, true, true, &v) == HP_VMEMMAP_WHY_WAS_ON && v.on &&
	      !v.turn_on && v.saving_kb[0] == 28);
	CHECK(why("auto", "6.12.0", true, true, true, &v) == HP_VMEMMAP_WHY_WAS_ON && v.on);
	CHECK(strcmp(vmemmap_why_name(HP_VMEMMAP_WHY_LEAKS), "leaks_on_free") == 0);
}

UNIT_TEST(no_saving, "a size whose descriptors fill one page gives nothing back: left off")
{
	struct hp_settings s;
	struct hp_topology t;
	struct hp_vmemmap_plan v;
	bool g[2] = {true, false};

	settings_init(&s);
	kernel(&t, "6.1.0", true, false);
	t.page_kb = 64;
	vmemmap_plan(&s, &t, g, &v);
	CHECK(v.why == HP_VMEMMAP_WHY_NO_SAVING && !v.on);
	settings_free(&s);
}

/* A node whose free memory fits 1000 pages less its floor only with the descriptors
 * each page gives back: planned as the run will find it (the last page needs its
 * whole 2 MiB free before it gives 28 kB back). */
UNIT_TEST(plan_counts, "the plan counts what optimized pages give back: a share that fits only so is planned")
{
	struct hp_settings s;
	struct hp_topology t;
	struct hp_plan p;
	uint64_t fit = (2048 + 999 * (UINT64_C(2048) - 28)) * 1024 + (UINT64_C(512) << 20);

	settings_init(&s);
	kernel(&t, "6.1.0", true, false);
	node0.mem_total = node0.mem_basis = UINT64_C(8) << 30;
	node0.mem_free = fit;
	keys_set(&s, "pages", "2M:1000", "t", false);
	CHECK(plan_make(&s, &t, &p) == 0);
	CHECK(p.vmemmap.turn_on && plan_cell(&p, 0, 0)->target == 1000 &&
	      plan_cell(&p, 0, 0)->cut == HP_CUT_NONE);
	plan_free(&p);
	node0.mem_free -= 1024; /* 1 kB short of it: 999 */
	CHECK(plan_make(&s, &t, &p) == 0);
	CHECK(plan_cell(&p, 0, 0)->target < 1000);
	plan_free(&p);
	node0.mem_free += 1024;
	keys_set(&s, "vmemmap", "keep", "t", false);
	CHECK(plan_make(&s, &t, &p) == 0);
	CHECK(!p.vmemmap.on && plan_cell(&p, 0, 0)->target < 1000 &&
	      plan_cell(&p, 0, 0)->cut == HP_CUT_KEEP_FREE);
	plan_free(&p);
	settings_free(&s);
}
