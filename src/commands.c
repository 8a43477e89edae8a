/* SPDX-License-Identifier: GPL-2.0-or-later */
/* commands.c - what the commands (src/cmd/) share (commands.h): the settings and the
 * machine loaded, the boot's free memory for a plan of the next boot, whether this is
 * a crash capture kernel, and the exit code of a status. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "hugetlb.h"
#include "kinfo.h"
#include "macros.h"
#include "parse.h"
#include "path.h"
#include "report.h"
#include "resolve.h"
#include "setfiles.h"

int load_settings(struct ctx *c)
{
	static char cmdline[65536]; /* c->cmdline may point here */
	int rc;

	settings_init(&c->settings);
	if (!c->cmdline) {
		rc = path_read(cmdline, sizeof(cmdline), "/proc/cmdline");
		c->cmdline = rc ? "" : cmdline;
		if (rc && rc != -ENOENT)
			fprintf(stderr, "hugepar: %s/proc/cmdline: %s: not read\n",
				path_root()[1] ? path_root() : "", path_strerror(rc));
	}
	/* the files, then the credentials, then the kernel command line: a later
	 * setting wins (hugepar.conf(5)) */
	rc = settings_load_config_at(&c->settings, c->root ? c->root : "", c->config,
				     c->config_given);
	if (rc) {
		fprintf(stderr, "hugepar: %s: %s\n", c->config, strerror(-rc));
		return rc;
	}
	settings_load_baked(&c->settings);
	settings_load_credentials(&c->settings, c->cmdline);
	settings_load_cmdline(&c->settings, c->cmdline);
	return 0;
}

bool capture_kernel(const struct ctx *c, char *why, size_t len)
{
	if (c->cmdline && kinfo_capture_cmdline(c->cmdline))
		snprintf(why, len,
			 "a crash capture kernel (elfcorehdr= on its command line)");
	else if (path_exists("/proc/vmcore"))
		snprintf(why, len, "a crash capture kernel (/proc/vmcore is there)");
	else
		return false;
	return true;
}

int load_machine(struct ctx *c)
{
	int rc = topology_read(&c->topo);

	if (rc) {
		fprintf(stderr, "hugepar: cannot read the topology under %s: %s\n",
			path_root(), c->topo.error[0] ? c->topo.error : strerror(-rc));
		return rc;
	}
	hugetlb_set_release(c->topo.release);
	if (c->basis_wanted)
		plan_basis_read(c);
	if (!c->basis.boot)
		record_own_read(c);
	plan_check_settings(&c->settings, &c->topo);
	resolve_devices(&c->settings, &c->topo);
	settings_note_replaced(&c->settings, &c->topo);
	for (unsigned i = 0; i < c->settings.nproblems; i++) {
		fputs("hugepar: ", stderr);
		report_problem_line(stderr, &c->settings.problems[i]);
	}
	rc = plan_make(&c->settings, &c->topo, &c->plan);
	if (rc)
		fprintf(stderr, "hugepar: cannot make the plan: %s\n", strerror(-rc));
	return rc;
}

void load_setters(struct ctx *c, const struct hp_result *res)
{
	const struct hp_topology *t = &c->topo;
	size_t cells = (size_t)t->nnodes * t->nsizes;
	struct setfiles *f = calloc(1, sizeof(*f));
	uint64_t *pages = calloc(cells ? cells : 1, sizeof(*pages)), kb[HP_MAX_SIZES];
	uint64_t *asked = calloc(cells ? cells : 1, sizeof(*asked));
	unsigned *ids = calloc(t->nnodes ? t->nnodes : 1, sizeof(*ids));
	struct setters_pools p = {.nnodes = t->nnodes,
				  .nsizes = t->nsizes,
				  .ids = ids,
				  .kb = kb,
				  .pages = pages,
				  .asked = asked,
				  .default_kb = t->default_kb,
				  .exact = c->settings.mode == HP_MODE_EXACT};

	memset(&c->setters, 0, sizeof(c->setters));
	if (f && pages && asked && ids && setfiles_read(f, c->root) == 0) {
		for (unsigned z = 0; z < t->nsizes; z++)
			kb[z] = t->sizes[z].kb;
		for (unsigned n = 0; n < t->nnodes; n++) {
			ids[n] = t->nodes[n].id;
			for (unsigned z = 0; z < t->nsizes; z++) {
				const struct hp_cell *cl = plan_cell(&c->plan, n, z);
				size_t i = (size_t)n * t->nsizes + z;

				pages[i] = res ? res->cells[i].achieved : cl->target;
				asked[i] = cl->requested_set ? cl->requested : HP_NOT_ASKED;
			}
		}
		setters_judge(f, c->cmdline, &p, &c->setters);
	}
	free(f);
	free(pages);
	free(asked);
	free(ids);
}

/* The record's node of an id, or NULL. */
static const struct json_val *record_node(const struct json_val *nodes, unsigned id)
{
	for (unsigned i = 0; nodes && i < nodes->n; i++)
		if (json_get_num(&nodes->kids[i], "node") == id)
			return &nodes->kids[i];
	return NULL;
}

/* The free memory and the pools of each node as the record's run found them: every
 * node of the machine must be in it, with every size. */
static bool take_basis(struct hp_topology *t, const struct json_val *nodes)
{
	for (unsigned n = 0; n < t->nnodes; n++) {
		const struct json_val *nd = record_node(nodes, t->nodes[n].id);
		const struct json_val *zs = json_get(nd, "sizes");

		if (!nd || !zs || zs->n != t->nsizes)
			return false;
		for (unsigned z = 0; z < t->nsizes; z++) {
			char sz[16];

			format_size_kb(t->sizes[z].kb, sz, sizeof(sz));
			if (strcmp(json_get_str(&zs->kids[z], "size"), sz))
				return false;
		}
	}
	for (unsigned n = 0; n < t->nnodes; n++) {
		const struct json_val *nd = record_node(nodes, t->nodes[n].id);

		t->nodes[n].mem_free = json_get_num(nd, "mem_free");
		for (unsigned z = 0; z < t->nsizes; z++) {
			struct hp_pool *pool = &t->nodes[n].pool[z];

			pool->nr = json_get_num(&json_get(nd, "sizes")->kids[z], "before");
			pool->surplus = 0;
			pool->free = pool->nr;
		}
	}
	return true;
}

void plan_basis_read(struct ctx *c)
{
	struct hp_record r;
	const struct json_val *init;

	c->basis = (struct plan_basis){.dir = c->record_dir, .now_asked = c->now};
	if (c->now || !c->topo.boot_id[0] || record_read(c->record_dir, &r))
		return;
	init = json_get(&r.v, "initramfs");
	if (init && init->type == JSON_BOOL && init->b &&
	    strcmp(json_get_str(&r.v, "boot_id"), c->topo.boot_id) == 0 &&
	    take_basis(&c->topo, json_get(&r.v, "nodes"))) {
		c->basis.boot = true;
		c->basis.boot_ms = json_get_num(&r.v, "started_boot_ms");
	}
	record_unload(&r);
}

/* One pool's own pages now: the record's, less what the pool lost since it was
 * written, as if it lost hugepar's first (what is left is then the others' for sure). */
static uint64_t own_now(const struct json_val *cell, uint64_t now)
{
	uint64_t own = json_get_num(cell, "own"), left = json_get_num(cell, "achieved");
	uint64_t theirs = left - MIN(own, left);

	return MIN(own, now > theirs ? now - theirs : 0);
}

/* The own pages of the record's cell (node n) of the size it names. */
static void own_cell(struct hp_topology *t, unsigned n, const struct json_val *cell)
{
	char sz[16];

	for (unsigned z = 0; z < t->nsizes; z++) {
		format_size_kb(t->sizes[z].kb, sz, sizeof(sz));
		if (strcmp(json_get_str(cell, "size"), sz) == 0)
			t->nodes[n].own[z] =
			    own_now(cell, pool_persistent(&t->nodes[n].pool[z]));
	}
}

void record_own_read(struct ctx *c)
{
	struct hp_topology *t = &c->topo;
	struct hp_record r;

	if (!t->boot_id[0] || record_read(c->record_dir, &r))
		return;
	if (strcmp(json_get_str(&r.v, "boot_id"), t->boot_id) == 0)
		for (unsigned n = 0; n < t->nnodes; n++) {
			const struct json_val *zs =
			    json_get(record_node(json_get(&r.v, "nodes"), t->nodes[n].id),
				     "sizes");

			for (unsigned i = 0; zs && i < zs->n; i++)
				own_cell(t, n, &zs->kids[i]);
		}
	record_unload(&r);
}

int exit_of(enum hp_status s)
{
	return s == HP_STATUS_OK || s == HP_STATUS_DISABLED ? EXIT_OK
	       : s == HP_STATUS_PARTIAL			    ? EXIT_PARTIAL
							    : EXIT_FAIL;
}
