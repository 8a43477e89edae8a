/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bootparams.c - the kernel command line that would reserve the same pools at boot, in
 * the kernel's per-node form (hugepagesz=1G hugepages=0:16,1:16): for hosts that
 * prefer the kernel's own boot-time allocation, and to move between the two.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bootparams.h"
#include "kparams.h"
#include "topology.h"

void bootparams_from_plan(FILE *f, const struct hp_topology *t, const struct hp_plan *p)
{
	struct kparams_row *r = calloc(1, sizeof(*r));
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
		kparams_put(f, r, t->numa && t->nnodes > 1, &first);
	}
	fputc('\n', f);
	free(r);
}

int bootparams_from_record(FILE *f, const struct hp_record *r)
{
	const struct json_val *nodes = json_get(&r->v, "nodes"),
			      *sizes = json_get(&r->v, "sizes");
	struct kparams_row *row;
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
		kparams_put(f, row, nodes->n > 1, &first);
	}
	fputc('\n', f);
	free(row);
	return 0;
}
