/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run.c - unit tests: a record's fields read once, whatever its format. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "read.h"
#include "result.h"
#include "unit.h"

/* One run as formats 2, 3 and 4 write it: node 1 of 2M capped by keep_free (512M),
 * 4 threads planned, 3 at once, 5 started. What differs between them is said in
 * doc/record.md; the rest is the same run. */
#define SAME_RUN_HEAD(F, THREADS, KEEP)                                                  \
	"{\"format\": " F                                                                \
	", \"version\": \"0.x\", \"kernel\": \"6.1.0-t\", \"status\": "                  \
	"\"partial\", \"error\": \"\", \"started_unix\": 1700000000, "                   \
	"\"started_boot_ms\": 4321, \"duration_ms\": 1250, \"boot_id\": \"b-1\", "       \
	"\"initramfs\": true, \"" THREADS "\": 4, \"settings\": {\"" KEEP                \
	"\": \"512M\", "                                                                 \
	"\"mode\": \"grow\", \"timeout_ms\": 60000, \"digest\": \"fnv1a64:0\", "         \
	"\"config\": \"/etc/hugepar.conf\", \"pages\": [{\"entry\": \"2M:1000\", "       \
	"\"origin\": \"/etc/hugepar.conf:1\"}], \"problems\": [], \"notices\": []}, "    \
	"\"recovered\": [], "

static const char *const SAME_RUN[] = {
    SAME_RUN_HEAD(
	"2", "workers",
	"reserve") "\"sizes\": [{\"size\": \"2M\", \"kb\": 2048, \"worked\": true, \"method\": "
		   "\"parallel\", \"method_note\": \"\", \"error\": \"\", \"workers\": 5, \"ms\": 90, "
		   "\"pages_by_workers\": 800, \"kernel_route\": \"\"}], "
		   "\"nodes\": [{\"node\": 1, \"mem_total\": 4294967296, \"mem_free\": 2147483648, "
		   "\"floor\": 536870912, \"workers\": 4, \"sizes\": [{\"size\": \"2M\", \"before\": "
		   "10, \"requested\": 1000, \"target\": 800, \"achieved\": 800, \"workers\": 4, "
		   "\"workers_peak\": 5, \"ms\": 80, \"status\": \"capped\", \"reason\": \"floor "
		   "kept: 800 of 1000 requested\"}]}]}",
    SAME_RUN_HEAD(
	"3", "threads",
	"keep_free") "\"sizes\": [{\"size\": \"2M\", \"kb\": 2048, \"worked\": true, \"method\": "
		     "\"parallel\", \"method_note\": \"\", \"error\": \"\", \"threads\": 5, \"ms\": 90, "
		     "\"pages_by_threads\": 800, \"kernel_route\": \"\"}], "
		     "\"nodes\": [{\"node\": 1, \"mem_total\": 4294967296, \"mem_free\": 2147483648, "
		     "\"keep_free\": 536870912, \"threads\": 4, \"sizes\": [{\"size\": \"2M\", "
		     "\"before\": 10, \"requested\": 1000, \"target\": 800, \"achieved\": 800, "
		     "\"threads\": 4, \"threads_peak\": 5, \"ms\": 80, \"status\": \"capped\", "
		     "\"reason\": \"800 of 1000 requested: capped by keep_free\", \"cause\": "
		     "\"keep_free\"}]}]}",
    SAME_RUN_HEAD(
	"4", "threads",
	"keep_free") "\"setters\": [], \"sizes\": [{\"size\": \"2M\", \"kb\": 2048, \"worked\": true, "
		     "\"method\": \"parallel\", \"method_note\": \"\", \"error\": \"\", \"threads\": 4, "
		     "\"threads_peak\": 3, \"threads_started\": 5, \"ms\": 90, \"pages_by_threads\": "
		     "800, \"kernel_route\": \"\"}], "
		     "\"nodes\": [{\"node\": 1, \"mem_total\": 4294967296, \"mem_free\": 2147483648, "
		     "\"keep_free\": 536870912, \"threads\": 4, \"sizes\": [{\"size\": \"2M\", "
		     "\"before\": 10, \"requested\": 1000, \"target\": 800, \"achieved\": 800, "
		     "\"own\": 790, \"threads\": 4, \"threads_peak\": 3, \"threads_started\": 5, "
		     "\"ms\": 80, \"status\": \"capped\", \"reason\": \"800 of 1000 requested: capped "
		     "by keep_free\", \"cause\": \"keep_free\"}]}]}",
};

/* A record's text parsed as record_load() does: 0, or -EINVAL. */
static int parse_text(const char *text, struct hp_record *r)
{
	char *t = strdup(text);

	return t ? record_parse(r, t, strlen(t)) : -ENOMEM;
}

UNIT_TEST(formats, "one run as formats 2, 3 and 4: the same values, old names read too")
{
	struct hp_record r[3];

	for (unsigned i = 0; i < 3; i++) {
		const struct record_run *run = &r[i].run;
		const struct record_node *nd;
		const struct record_cell *c;

		CHECK(parse_text(SAME_RUN[i], &r[i]) == 0);
		if (run->nnodes != 1 || run->nsizes != 1 || run->nodes[0].ncells != 1) {
			CHECK(!"one node and one size");
			continue;
		}
		nd = &run->nodes[0];
		c = &nd->cells[0];
		CHECK(run->format == 2 + i && run->status == HP_STATUS_PARTIAL &&
		      r[i].status == HP_STATUS_PARTIAL);
		/* format 2's "workers", "reserve" and "floor" under today's names */
		CHECK(run->threads == 4);
		CHECK(strcmp(run->settings.keep_free, "512M") == 0);
		CHECK(nd->node == 1 && nd->keep_free == 536870912 &&
		      nd->mem_total == 4294967296 && nd->mem_free == 2147483648);
		CHECK(strcmp(run->version, "0.x") == 0 &&
		      strcmp(run->boot_id, "b-1") == 0 && run->initramfs &&
		      run->started_boot_ms == 4321 && run->duration_ms == 1250 &&
		      run->started_unix == 1700000000);
		CHECK(!run->settings.exact && run->settings.timeout_ms == 60000 &&
		      run->settings.pages_listed && run->settings.npages == 1 &&
		      strcmp(run->settings.config, "/etc/hugepar.conf") == 0);
		CHECK(strcmp(run->sizes[0].size, "2M") == 0 && run->sizes[0].kb == 2048 &&
		      run->sizes[0].worked && run->sizes[0].ms == 90 &&
		      strcmp(run->sizes[0].method, "parallel") == 0);
		CHECK(strcmp(c->size, "2M") == 0 && c->before == 10 && c->requested_set &&
		      c->requested == 1000 && c->target == 800 && c->achieved == 800 &&
		      c->ms == 80 && c->status == HP_STATUS_CAPPED &&
		      strcmp(c->status_word, "capped") == 0);
		/* what format 4 added: the most threads at once, and the own pages */
		CHECK(run->sizes[0].threads_peak == (i == 2 ? 3 : 0));
		CHECK(c->own_set == (i == 2) && c->own == (i == 2 ? 790 : 0));
		/* format 2 had no cause: none, and its reason as it was written */
		CHECK(c->cause == (i ? HP_CAUSE_KEEP_FREE : HP_CAUSE_NONE));
	}
	for (unsigned i = 0; i < 3; i++)
		record_unload(&r[i]);
}

/* A record's fields that are missing or of another type read as none: "" and 0,
 * null requested, a cause this version does not know. */
UNIT_TEST(fields_missing, "fields missing or of another type: empty, 0, not set, unknown")
{
	struct hp_record r;
	const struct record_cell *c;

	CHECK(parse_text("{\"status\": \"failed\", \"threads\": \"x\", \"nodes\": [{"
			 "\"sizes\": [{\"requested\": null, \"own\": \"7\", \"cause\": "
			 "\"gremlins\", \"status\": 3}]}], \"sizes\": 5, "
			 "\"settings\": {\"mode\": \"exact\"}}",
			 &r) == 0);
	CHECK(r.run.threads == 0 && r.run.version[0] == '\0' && !r.run.initramfs);
	CHECK(!r.run.sizes_listed && r.run.nsizes == 0 && r.run.nodes_listed &&
	      !r.run.settings.pages_listed && r.run.settings.keep_free[0] == '\0' &&
	      r.run.settings.exact);
	CHECK(r.run.nnodes == 1 && r.run.nodes[0].ncells == 1);
	if (r.run.nnodes == 1 && r.run.nodes[0].ncells == 1) {
		c = &r.run.nodes[0].cells[0];
		CHECK(!c->requested_set && !c->own_set && c->cause == -1 &&
		      c->status == -1 && c->status_word[0] == '\0' && c->size[0] == '\0');
	}
	record_unload(&r);
}
