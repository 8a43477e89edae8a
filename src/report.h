/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h - the topology and the plan, as a table or as JSON (hugepar plan). */
#ifndef HUGEPAR_REPORT_H
#define HUGEPAR_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "plan.h"
#include "settings.h"
#include "setters.h"
#include "topology.h"

/* Where a plan's free memory and pools come from: as this boot's initramfs found
 * them (its record), or as they are now. */
struct plan_basis {
	bool boot;	  /* from the record of this boot's initramfs run */
	bool now_asked;	  /* plan --now */
	const char *dir;  /* the record directory */
	uint64_t boot_ms; /* when that run started, ms after boot */
};

/* The plan as text or JSON; b NULL: nothing said of the basis. */
void report_plan_text(FILE *f, const struct hp_settings *s, const struct hp_topology *t,
		      const struct hp_plan *p, const struct plan_basis *b);
void report_plan_json(FILE *f, const struct hp_settings *s, const struct hp_topology *t,
		      const struct hp_plan *p, const struct plan_basis *b,
		      const struct hp_setters *st);

/* Pieces shared with the record. */
void report_settings_json(struct json_out *j, const struct hp_settings *s);
void report_problem_line(FILE *f, const struct hp_problem *p);
/* Why counts were rounded down, under a table that shows some: the step
 * (granularity: "auto", "1G", "2%") and what it is for. */
void report_rounding(FILE *f, const char *granularity);

#endif
