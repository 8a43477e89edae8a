/* SPDX-License-Identifier: GPL-2.0-or-later */
/* basis.c - what a plan starts from: this boot's free memory and pools, and the pages
 * hugepar reserved itself in this boot, from the record of this boot's run. */
#include <string.h>

#include "basis.h"
#include "macros.h"
#include "read.h"
#include "text.h"

/* The record's node of an id, or NULL. */
static const struct record_node *node_of(const struct record_run *run, unsigned id)
{
	for (unsigned i = 0; i < run->nnodes; i++)
		if (run->nodes[i].node == id)
			return &run->nodes[i];
	return NULL;
}

/* Of a pool as the record's run found it (before), the pages an earlier run of this
 * boot had reserved: those the run left as its own, plus what it gave back or less
 * what it added (a later run that lowered a pool, hugepar-ignition.service's, ran
 * after the initramfs's first). A plan of the next boot counts them out: that boot
 * starts without them. A record of format 3 and before has no own pages: none. */
static uint64_t own_before(const struct record_cell *cell, uint64_t before)
{
	uint64_t o;

	if (!cell->own_set)
		return 0;
	o = cell->own + before;
	return o > cell->achieved ? MIN(o - cell->achieved, before) : 0;
}

/* The free memory and the pools of each node as the record's run found them: every
 * node of the machine must be in it, with every size. */
static bool take_basis(struct hp_topology *t, const struct record_run *run)
{
	for (unsigned n = 0; n < t->nnodes; n++) {
		const struct record_node *nd = node_of(run, t->nodes[n].id);

		if (!nd || !nd->cells_listed || nd->ncells != t->nsizes)
			return false;
		for (unsigned z = 0; z < t->nsizes; z++) {
			char sz[16];

			text_size_kb(t->sizes[z].kb, sz, sizeof(sz));
			if (strcmp(nd->cells[z].size, sz))
				return false;
		}
	}
	for (unsigned n = 0; n < t->nnodes; n++) {
		const struct record_node *nd = node_of(run, t->nodes[n].id);

		t->nodes[n].mem_free = nd->mem_free;
		for (unsigned z = 0; z < t->nsizes; z++) {
			struct hp_pool *pool = &t->nodes[n].pool[z];

			pool->nr = nd->cells[z].before;
			pool->surplus = 0;
			pool->free = pool->nr;
			t->nodes[n].own[z] = own_before(&nd->cells[z], pool->nr);
		}
	}
	return true;
}

void basis_read(struct record_basis *b, struct hp_topology *t, const char *dir, bool now)
{
	struct hp_record r;

	*b = (struct record_basis){.dir = dir, .now_asked = now};
	if (now || !t->boot_id[0] || record_read(dir, &r))
		return;
	if (r.run.initramfs && strcmp(r.run.boot_id, t->boot_id) == 0 &&
	    take_basis(t, &r.run)) {
		b->boot = true;
		b->boot_ms = r.run.started_boot_ms;
	}
	record_unload(&r);
}

/* One pool's own pages now: the record's, less what the pool lost since it was
 * written, as if it lost hugepar's first (what is left is then the others' for sure). */
static uint64_t own_now(const struct record_cell *cell, uint64_t now)
{
	uint64_t own = cell->own, left = cell->achieved;
	uint64_t theirs = left - MIN(own, left);

	return MIN(own, now > theirs ? now - theirs : 0);
}

/* The own pages of the record's cell (node n) of the size it names. */
static void own_cell(struct hp_topology *t, unsigned n, const struct record_cell *cell)
{
	char sz[16];

	for (unsigned z = 0; z < t->nsizes; z++) {
		text_size_kb(t->sizes[z].kb, sz, sizeof(sz));
		if (strcmp(cell->size, sz) == 0)
			t->nodes[n].own[z] =
			    own_now(cell, pool_persistent(&t->nodes[n].pool[z]));
	}
}

void basis_own_read(struct hp_topology *t, const char *dir)
{
	struct hp_record r;

	if (!t->boot_id[0] || record_read(dir, &r))
		return;
	if (strcmp(r.run.boot_id, t->boot_id) == 0)
		for (unsigned n = 0; n < t->nnodes; n++) {
			const struct record_node *nd = node_of(&r.run, t->nodes[n].id);

			for (unsigned i = 0; nd && i < nd->ncells; i++)
				own_cell(t, n, &nd->cells[i]);
		}
	record_unload(&r);
}
