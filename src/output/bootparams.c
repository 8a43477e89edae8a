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
static void record_node(const struct json_val *nd, struct kparams_node *k, bool *asked,
			uint64_t *req, uint64_t *target)
{
	const struct json_val *zs = json_get(nd, "sizes");

	k->mem_total = json_get_num(nd, "mem_total");
	k->keep_free = json_get_num(nd, "keep_free");
	for (unsigned z = 0; z < k->nsizes; z++) {
		const struct json_val *c = zs && z < zs->n ? &zs->kids[z] : NULL;
		const struct json_val *rq = json_get(c, "requested");

		asked[z] = rq && rq->type == JSON_NUM;
		req[z] = asked[z] ? rq->num : 0;
		target[z] = c ? json_get_num(c, "target") : 0;
	}
}

int bootparams_from_record(FILE *f, const struct hp_record *r)
{
	const struct json_val *nodes = json_get(&r->v, "nodes"),
			      *sizes = json_get(&r->v, "sizes");
	uint64_t kb[HP_MAX_SIZES], req[HP_MAX_SIZES], target[HP_MAX_SIZES];
	bool asked[HP_MAX_SIZES];
	struct boot_rows *b;

	if (!nodes || !nodes->n || !sizes || !sizes->n || sizes->n > HP_MAX_SIZES)
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->nsizes = sizes->n;
	for (unsigned z = 0; z < sizes->n; z++)
		b->row[z].kb = kb[z] = json_get_num(&sizes->kids[z], "kb");
	for (unsigned i = 0; i < nodes->n; i++) {
		struct kparams_node k = {.nsizes = sizes->n,
					 .kb = kb,
					 .asked = asked,
					 .requested = req,
					 .target = target};

		record_node(&nodes->kids[i], &k, asked, req, target);
		rows_add(b, (unsigned)json_get_num(&nodes->kids[i], "node"), &k);
	}
	rows_put(f, b, nodes->n > 1, false);
	free(b);
	return 0;
}
