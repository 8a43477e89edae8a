/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kparams.c - pure: pools written as the kernel's own boot parameters, in its
 * per-node form (hugepagesz=1G hugepages=0:16,1:16), for `hugepar cmdline` and for
 * the record's kernel_route; and the kernel's reading of those words and of a pool's
 * sysctl value, for the other setters of the pools (kparams.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
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
	text_size_kb(r->kb, sz, sizeof(sz));
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

/* (kparams.h: the kernel's memparse() of a page size) */
uint64_t kparams_read_size(const char *v)
{
	char up[32];
	uint64_t b;
	size_t i;

	for (i = 0; v[i] && i + 1 < sizeof(up); i++)
		up[i] = (char)toupper((unsigned char)v[i]);
	up[i] = '\0';
	return v[i] || parse_bytes(up, &b) || b % 1024 ? 0 : b / 1024;
}

/* (kparams.h: simple_strtoul() of base 0, as proc_doulongvec_minmax() reads) */
int kparams_read_count(const char *v, uint64_t *out)
{
	unsigned base = 10, digits = 0;
	uint64_t n = 0;

	if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X') &&
	    isxdigit((unsigned char)v[2])) {
		base = 16;
		v += 2;
	} else if (v[0] == '0') {
		base = 8;
	}
	for (; *v && !isspace((unsigned char)*v); v++, digits++) {
		unsigned d = isdigit((unsigned char)*v) ? (unsigned)(*v - '0')
			     : isxdigit((unsigned char)*v)
				 ? (unsigned)(tolower((unsigned char)*v) - 'a' + 10)
				 : 99;

		if (d >= base || !mul_u64(n, base, &n) || !add_u64(n, d, &n))
			return -EINVAL;
	}
	*out = n;
	return digits ? 0 : -EINVAL;
}

/* (kparams.h) */
int kparams_read_pages(const char *v, const unsigned *ids, unsigned nnodes,
		       uint64_t *kern, uint64_t *total)
{
	const char *q = v;
	bool over = false, nodes = strchr(v, ':') != NULL;
	uint64_t node, n;

	*total = 0;
	memset(kern, 0, nnodes * sizeof(*kern));
	while (*q) {
		if (nodes && (parse_u64_at(&q, &node) || *q++ != ':'))
			return -EINVAL;
		if (parse_u64_at(&q, &n) || (*q && (!nodes || *q != ',')))
			return -EINVAL;
		*total = add_sat(*total, n, &over);
		for (unsigned i = 0; nodes && i < nnodes; i++)
			if (ids[i] == node)
				kern[i] = n;
		q += *q == ',';
	}
	for (unsigned i = 0; !nodes && i < nnodes; i++)
		kern[i] = *total / nnodes + (i < *total % nnodes);
	return *v ? 0 : -EINVAL;
}
