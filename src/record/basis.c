/* SPDX-License-Identifier: GPL-2.0-or-later */
/* basis.c - what a plan starts from: this boot's free memory and pools, and the pages
 * hugepar reserved itself in this boot, from the record of this boot's run. */
#include <string.h>

#include "basis.h"
#include "json.h"
#include "macros.h"
#include "read.h"
#include "text.h"

/* The record's node of an id, or NULL. */
static const struct json_val *record_node(const struct json_val *nodes, unsigned id)
{
	for (unsigned i = 0; nodes && i < nodes->n; i++)
		if (json_get_num(&nodes->kids[i], "node") == id)
			return &nodes->kids[i];
	return NULL;
}

/* Of a pool as the record's run found it (before), the pages an earlier run of this
 * boot had reserved: those the run left as its own, plus what it gave back or less
 * what it added (a later run that lowered a pool, hugepar-ignition.service's, ran
 * after the initramfs's first). A plan of the next boot counts them out: that boot
 * starts without them. A record of format 3 and before has no own pages: none. */
static uint64_t own_before(const struct json_val *cell, uint64_t before)
{
	const struct json_val *own = json_get(cell, "own");
	uint64_t achieved = json_get_num(cell, "achieved"), o;

	if (!own || own->type != JSON_NUM)
		return 0;
	o = (uint64_t)own->num + before;
	return o > achieved ? MIN(o - achieved, before) : 0;
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

			text_size_kb(t->sizes[z].kb, sz, sizeof(sz));
			if (strcmp(json_get_str(&zs->kids[z], "size"), sz))
				return false;
		}
	}
	for (unsigned n = 0; n < t->nnodes; n++) {
		const struct json_val *nd = record_node(nodes, t->nodes[n].id);

		t->nodes[n].mem_free = json_get_num(nd, "mem_free");
		for (unsigned z = 0; z < t->nsizes; z++) {
			const struct json_val *cell = &json_get(nd, "sizes")->kids[z];
			struct hp_pool *pool = &t->nodes[n].pool[z];

			pool->nr = json_get_num(cell, "before");
			pool->surplus = 0;
			pool->free = pool->nr;
			t->nodes[n].own[z] = own_before(cell, pool->nr);
		}
	}
	return true;
}

void basis_read(struct record_basis *b, struct hp_topology *t, const char *dir, bool now)
{
	struct hp_record r;
	const struct json_val *init;

	*b = (struct record_basis){.dir = dir, .now_asked = now};
	if (now || !t->boot_id[0] || record_read(dir, &r))
		return;
	init = json_get(&r.v, "initramfs");
	if (init && init->type == JSON_BOOL && init->b &&
	    strcmp(json_get_str(&r.v, "boot_id"), t->boot_id) == 0 &&
	    take_basis(t, json_get(&r.v, "nodes"))) {
		b->boot = true;
		b->boot_ms = json_get_num(&r.v, "started_boot_ms");
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
		text_size_kb(t->sizes[z].kb, sz, sizeof(sz));
		if (strcmp(json_get_str(cell, "size"), sz) == 0)
			t->nodes[n].own[z] =
			    own_now(cell, pool_persistent(&t->nodes[n].pool[z]));
	}
}

void basis_own_read(struct hp_topology *t, const char *dir)
{
	struct hp_record r;

	if (!t->boot_id[0] || record_read(dir, &r))
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
