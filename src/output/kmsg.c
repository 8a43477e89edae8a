/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kmsg.c - a run's summary and its warnings, as lines of the kernel log. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "kmsg.h"
#include "kparams.h"
#include "log.h"
#include "macros.h"
#include "parse.h"
#include "text.h"

/* The kernel log's word on a 1G shortfall. */
#define ROUTE_LOG                                                                          \
	"%s pages short: the kernel's own boot-time allocation would reserve them before " \
	"memory fragments: add '%s' to the kernel command line"

/* The summary's per-size part: ", 2M 400/400 pages (parallel)" for each size that
 * worked, with what was asked when keep_free or the free memory capped it. */
static void kmsg_sizes(const struct hp_topology *t, const struct hp_plan *p,
		       const struct hp_result *res, char *sizes, size_t len)
{
	char sz[16];
	size_t pos = 0;

	for (unsigned z = 0; z < t->nsizes; z++) {
		uint64_t target = 0, got = 0, asked = 0;
		bool over = false, over_asked = false;
		char more[80] = "", threads[40] = "";

		if (!res->sizes[z].worked)
			continue;
		/* totals saturate: a wrapped one would say less than was asked */
		for (unsigned n = 0; n < t->nnodes; n++) {
			const struct hp_cell *c = plan_cell(p, n, z);

			target = add_sat(target, c->target, &over);
			asked =
			    add_sat(asked, c->requested_set ? c->requested : c->target,
				    &over_asked);
			got = add_sat(got, res->cells[n * t->nsizes + z].achieved, &over);
		}
		/* A pool at its target can still be short of what was asked: say so,
		 * or "9444/9444" beside "partial" explains nothing. */
		if (asked > target || over_asked)
			snprintf(more, sizeof(more), ", %s%llu asked: capped",
				 over_asked ? "more than " : "",
				 (unsigned long long)asked);
		if (res->sizes[z].workers_peak)
			snprintf(threads, sizeof(threads), ", %u thread%s at once",
				 res->sizes[z].workers_peak,
				 res->sizes[z].workers_peak == 1 ? "" : "s");
		text_size_kb(t->sizes[z].kb, sz, sizeof(sz));
		pos += snprintf(sizes + pos, len - pos, ", %s %llu/%llu pages (%s%s%s)",
				sz, (unsigned long long)got, (unsigned long long)target,
				result_method_name(res->sizes[z].method), threads, more);
		if (pos >= len)
			break;
	}
}

/* A warning for each node and size that is partial, failed or capped. */
static void kmsg_cells(const struct hp_topology *t, const struct hp_result *res)
{
	char sz[16];

	for (unsigned n = 0; n < t->nnodes; n++)
		for (unsigned z = 0; z < t->nsizes; z++) {
			const struct hp_cell_result *cr = &res->cells[n * t->nsizes + z];

			if (cr->status != HP_STATUS_PARTIAL &&
			    cr->status != HP_STATUS_FAILED &&
			    cr->status != HP_STATUS_CAPPED)
				continue;
			text_size_kb(t->sizes[z].kb, sz, sizeof(sz));
			log_line(LOG_WARNING, "node %u %s: %s, %s", t->nodes[n].id, sz,
				 result_status_name(cr->status), cr->reason);
		}
}

/* For a gigantic size short on a node: the kernel's own boot-time route. */
static void kmsg_routes(const struct hp_topology *t, const struct hp_plan *p,
			const struct hp_result *res)
{
	char sz[16];

	for (unsigned z = 0; z < t->nsizes; z++) {
		char *route = kparams_boot_route(t, p, res, z);

		if (!route)
			continue;
		text_size_kb(t->sizes[z].kb, sz, sizeof(sz));
		/* a route too long for one log line is named, not cut */
		if (snprintf(NULL, 0, ROUTE_LOG, sz, route) < LOG_LINE_MAX)
			log_line(LOG_WARNING, ROUTE_LOG, sz, route);
		else
			log_line(
			    LOG_WARNING,
			    "%s pages short: the kernel's own boot-time allocation "
			    "would reserve them before memory fragments: the record's "
			    "kernel_route has the parameters (hugepar status)",
			    sz);
		free(route);
	}
}

void kmsg_setters(const struct hp_setters *st)
{
	for (unsigned i = 0; st && i < st->n; i++)
		if (st->s[i].in_force)
			log_line(LOG_WARNING, "%s: %s: %s", st->s[i].origin,
				 st->s[i].setting, st->s[i].effect);
}

void kmsg_summary(const struct hp_topology *t, const struct hp_plan *p,
		  const struct hp_result *res, const struct hp_recovery *rec)
{
	char sizes[256] = "", line[256];

	for (unsigned i = 0; rec && i < rec->n; i++) {
		restore_describe(&rec->fix[i], line, sizeof(line));
		log_line(restore_fix_failed(&rec->fix[i]) ? LOG_ERR : LOG_WARNING, "%s",
			 line);
	}
	if (res->status == HP_STATUS_DISABLED) {
		log_line(LOG_INFO, "disabled, nothing done");
		return;
	}
	kmsg_sizes(t, p, res, sizes, sizeof(sizes));
	for (unsigned i = 0; !sizes[0] && i < p->nnodes * p->nsizes; i++)
		if (p->cells[i].requested_set)
			snprintf(sizes, sizeof(sizes), ", nothing to do");
	if (!sizes[0])
		snprintf(sizes, sizeof(sizes), ", nothing configured (no pages entry)");
	log_line(res->status == HP_STATUS_OK	   ? LOG_INFO
		 : res->status == HP_STATUS_FAILED ? LOG_ERR
						   : LOG_WARNING,
		 "%s in %llu ms on %u node%s%s%s%s", result_status_name(res->status),
		 (unsigned long long)res->duration_ms, t->nnodes,
		 t->nnodes == 1 ? "" : "s", sizes, res->error[0] ? ": " : "", res->error);
	kmsg_cells(t, res);
	kmsg_routes(t, p, res);
}
