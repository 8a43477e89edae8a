/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kparams.c - pure: pools written as the kernel's own boot parameters, in its
 * per-node form (hugepagesz=1G hugepages=0:16,1:16), for `hugepar cmdline` and for
 * the record's kernel_route (kparams.h).
 */
#include <stdlib.h>

#include "kparams.h"
#include "macros.h"
#include "parse.h"

void kparams_put(FILE *f, const struct kparams_row *r, bool numa, bool *first)
{
	char sz[16];
	uint64_t all = 0;
	bool over = false;

	/* (a sum that wraps to 0 must not drop the row: pools of 2^64 - 1 and 1) */
	for (unsigned i = 0; i < r->n; i++)
		all = add_sat(all, r->pages[i], &over);
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

void kparams_boot_counts(const struct kparams_node *nd, uint64_t *out)
{
	uint64_t room = nd->mem_total > nd->keep_free ? nd->mem_total - nd->keep_free : 0;

	for (unsigned z = nd->nsizes; z-- > 0;) {
		uint64_t psz = nd->kb[z] * 1024, n = nd->target[z], bytes;

		if (nd->asked[z] && nd->requested[z] > n) {
			uint64_t fit = psz ? room / psz : 0;

			n = MAX(n, MIN(nd->requested[z], fit));
		}
		out[z] = n;
		if (!mul_u64(n, psz, &bytes))
			bytes = UINT64_MAX;
		room = room > bytes ? room - bytes : 0;
	}
}

char *kparams_boot_route(const struct hp_topology *t, const struct hp_plan *p,
			 const struct hp_result *res, unsigned z)
{
	struct kparams_row *r;
	bool first = true, short_ = false;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!topology_gigantic(t, t->sizes[z].kb) || !(r = calloc(1, sizeof(*r))))
		return NULL;
	r->kb = t->sizes[z].kb;
	for (unsigned n = 0; n < t->nnodes; n++) {
		const struct hp_cell *c = plan_cell(p, n, z);
		const struct hp_cell_result *cr = &res->cells[n * t->nsizes + z];

		short_ |= cr->achieved < c->target;
		r->ids[r->n] = t->nodes[n].id;
		r->pages[r->n++] = c->target;
	}
	if (short_ && (f = open_memstream(&buf, &len))) {
		kparams_put(f, r, t->numa && t->nnodes > 1, &first);
		fclose(f);
	}
	free(r);
	if (buf && !buf[0]) {
		free(buf);
		buf = NULL;
	}
	return buf;
}
