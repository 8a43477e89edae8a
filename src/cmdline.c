/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmdline.c - the kernel command line that would reserve the same pools at boot, in
 * the kernel's per-node form (hugepagesz=1G hugepages=0:16,1:16): for hosts that
 * prefer the kernel's own boot-time allocation, and to move between the two.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"

struct row {
	uint64_t kb;
	unsigned n;
	unsigned ids[HP_MAX_NODES];
	uint64_t pages[HP_MAX_NODES];
};

/* One size: "hugepagesz=2M hugepages=0:512,1:512" (no node form with one node). */
static void put(FILE *f, const struct row *r, bool numa, bool *first)
{
	char sz[16];
	uint64_t all = 0;

	for (unsigned i = 0; i < r->n; i++)
		all += r->pages[i];
	if (!all)
		return;
	format_size_kb(r->kb, sz, sizeof(sz));
	fprintf(f, "%shugepagesz=%s hugepages=", *first ? "" : " ", sz);
	*first = false;
	if (!numa) {
		fprintf(f, "%llu", (unsigned long long)all);
		return;
	}
	for (unsigned i = 0, k = 0; i < r->n; i++)
		if (r->pages[i])
			fprintf(f, "%s%u:%llu", k++ ? "," : "", r->ids[i],
				(unsigned long long)r->pages[i]);
}

void cmdline_from_plan(FILE *f, const struct hp_topology *t, const struct hp_plan *p)
{
	struct row *r = calloc(1, sizeof(*r));
	bool first = true;

	if (!r)
		return;
	for (unsigned z = t->nsizes; z-- > 0;) {
		r->kb = t->sizes[z].kb;
		r->n = t->nnodes;
		for (unsigned n = 0; n < t->nnodes; n++) {
			r->ids[n] = t->nodes[n].id;
			r->pages[n] = plan_cell(p, n, z)->target;
		}
		put(f, r, t->numa && t->nnodes > 1, &first);
	}
	fputc('\n', f);
	free(r);
}

int cmdline_from_record(FILE *f, const struct hp_record *r)
{
	const struct json_val *nodes = json_get(&r->v, "nodes"),
			      *sizes = json_get(&r->v, "sizes");
	struct row *row;
	bool first = true;

	if (!nodes || !nodes->n || !sizes || !sizes->n)
		return -EINVAL;
	row = calloc(1, sizeof(*row));
	if (!row)
		return -ENOMEM;
	for (unsigned z = sizes->n; z-- > 0;) {
		row->kb = json_get_num(&sizes->kids[z], "kb");
		row->n = 0;
		for (unsigned i = 0; i < nodes->n && row->n < HP_MAX_NODES; i++) {
			const struct json_val *zs = json_get(&nodes->kids[i], "sizes");

			if (!zs || z >= zs->n)
				continue;
			row->ids[row->n] =
			    (unsigned)json_get_num(&nodes->kids[i], "node");
			row->pages[row->n++] = json_get_num(&zs->kids[z], "achieved");
		}
		put(f, row, nodes->n > 1, &first);
	}
	fputc('\n', f);
	free(row);
	return 0;
}

void cmdline_boot_route(char *buf, size_t len, const struct hp_topology *t,
			const struct hp_plan *p, const struct hp_result *res, unsigned z)
{
	struct row *r;
	bool first = true, short_ = false;
	FILE *f;

	if (len)
		buf[0] = '\0';
	if (t->sizes[z].kb <= HP_GIGANTIC_KB || !(r = calloc(1, sizeof(*r))))
		return;
	r->kb = t->sizes[z].kb;
	for (unsigned n = 0; n < t->nnodes; n++) {
		const struct hp_cell *c = plan_cell(p, n, z);
		const struct hp_cell_result *cr = &res->cells[n * t->nsizes + z];

		short_ |= cr->achieved < c->target;
		r->ids[r->n] = t->nodes[n].id;
		r->pages[r->n++] = c->target;
	}
	if (short_ && (f = fmemopen(buf, len, "w"))) {
		put(f, r, t->numa && t->nnodes > 1, &first);
		fclose(f);
	}
	free(r);
}
