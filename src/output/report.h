/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h - the topology and the plan, as a table or as JSON (hugepar plan). */
#ifndef HUGEPAR_REPORT_H
#define HUGEPAR_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "planner.h"
#include "settings.h"
#include "setters.h"
#include "basis.h"
#include "topology.h"

/* The plan as text or JSON; b NULL: nothing said of the basis. */
void report_plan_text(FILE *f, const struct hp_settings *s, const struct hp_topology *t,
		      const struct hp_plan *p, const struct record_basis *b);
void report_plan_json(FILE *f, const struct hp_settings *s, const struct hp_topology *t,
		      const struct hp_plan *p, const struct record_basis *b,
		      const struct hp_setters *st);

/* Pieces shared with the record. */
void record_settings_json(struct json_out *j, const struct hp_settings *s);
void report_problem_line(FILE *f, const struct hp_problem *p);
/* Why counts were rounded down, under a table that shows some: the step
 * (granularity: "auto", "1G", "2%") and what it is for. */
void report_rounding(FILE *f, const char *granularity);

#endif
