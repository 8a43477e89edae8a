/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bootparams.c - the kernel command line that would reserve the pools asked for at
 * boot, in the kernel's per-node form (hugepagesz=1G hugepages=0:16,1:16): for hosts
 * that prefer the kernel's own boot-time allocation, for the cells that a run's free
 * memory capped, and to move between the two.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bootparams.h"
#include "kparams.h"
#include "topology.h"

/* Each node's counts (kparams_boot_counts()) into rows[size], then the rows out,
 * largest size first. */
struct boot_rows {
	unsigned nsizes;
	struct kparams_row row[HP_MAX_SIZES];
};

/* The pairs, largest size first, after hugetlb_free_vmemmap=on where the pages are
 * to be optimized (vmemmap): the kernel's own allocation then optimizes them as it
 * reserves them. */
static void rows_put(FILE *f, const struct boot_rows *b, bool numa, bool vmemmap)
{
	bool first = !vmemmap;

	if (vmemmap)
		fputs("hugetlb_free_vmemmap=on", f);
	for (unsigned z = b->nsizes; z-- > 0;)
		kparams_put(f, &b->row[z], numa, &first);
	fputc('\n', f);
}

static void rows_add(struct boot_rows *b, unsigned id, const struct kparams_node *nd)
{
	uint64_t out[HP_MAX_SIZES];

	kparams_boot_counts(nd, out);
	for (unsigned z = 0; z < b->nsizes; z++) {
		struct kparams_row *r = &b->row[z];

		if (r->n >= HP_MAX_NODES)
			continue;
		r->ids[r->n] = id;
		r->pages[r->n++] = out[z];
	}
}

void bootparams_from_plan(FILE *f, const struct hp_topology *t, const struct hp_plan *p)
{
	struct boot_rows *b = calloc(1, sizeof(*b));
	uint64_t kb[HP_MAX_SIZES], req[HP_MAX_SIZES], target[HP_MAX_SIZES];
	bool asked[HP_MAX_SIZES];

	if (!b)
		return;
	b->nsizes = t->nsizes;
	for (unsigned z = 0; z < t->nsizes; z++)
		b->row[z].kb = kb[z] = t->sizes[z].kb;
	for (unsigned n = 0; n < t->nnodes; n++) {
		struct kparams_node nd = {.mem_total = t->nodes[n].mem_total,
					  .keep_free = p->keep_free[n],
					  .nsizes = t->nsizes,
					  .kb = kb,
					  .asked = asked,
					  .requested = req,
					  .target = target};

		for (unsigned z = 0; z < t->nsizes; z++) {
			const struct hp_cell *c = plan_cell(p, n, z);

			asked[z] = c->requested_set;
			req[z] = c->requested;
			target[z] = c->target;
		}
		rows_add(b, t->nodes[n].id, &nd);
	}
	rows_put(f, b, t->numa && t->nnodes > 1, p->vmemmap.boot);
	free(b);
}

/* A record's node: its cells as the plan had them (requested, target), one per size
 * of the record's "sizes"; a size it has no cell of, none. */
static void node_cells(const struct record_node *nd, struct kparams_node *k, bool *asked,
		       uint64_t *req, uint64_t *target)
{
	k->mem_total = nd->mem_total;
	k->keep_free = nd->keep_free;
	for (unsigned z = 0; z < k->nsizes; z++) {
		const struct record_cell *c = z < nd->ncells ? &nd->cells[z] : NULL;

		asked[z] = c && c->requested_set;
		req[z] = asked[z] ? c->requested : 0;
		target[z] = c ? c->target : 0;
	}
}

int bootparams_from_record(FILE *f, const struct hp_record *r)
{
	const struct record_run *run = &r->run;
	uint64_t kb[HP_MAX_SIZES], req[HP_MAX_SIZES], target[HP_MAX_SIZES];
	bool asked[HP_MAX_SIZES];
	struct boot_rows *b;

	if (!run->nnodes || !run->nsizes || run->nsizes > HP_MAX_SIZES)
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->nsizes = run->nsizes;
	for (unsigned z = 0; z < run->nsizes; z++)
		b->row[z].kb = kb[z] = run->sizes[z].kb;
	for (unsigned i = 0; i < run->nnodes; i++) {
		struct kparams_node k = {.nsizes = run->nsizes,
					 .kb = kb,
					 .asked = asked,
					 .requested = req,
					 .target = target};

		node_cells(&run->nodes[i], &k, asked, req, target);
		rows_add(b, (unsigned)run->nodes[i].node, &k);
	}
	rows_put(f, b, run->nnodes > 1, run->vmemmap.on);
	free(b);
	return 0;
}
