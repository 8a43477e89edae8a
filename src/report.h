/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h - the topology and the plan, as a table or as JSON (hugepar plan). */
#ifndef HUGEPAR_REPORT_H
#define HUGEPAR_REPORT_H

#include <stdio.h>

#include "json.h"
#include "plan.h"
#include "settings.h"
#include "topology.h"

void report_plan_text(FILE *f, const struct hp_settings *s, const struct hp_topology *t,
		      const struct hp_plan *p);
void report_plan_json(FILE *f, const struct hp_settings *s, const struct hp_topology *t,
		      const struct hp_plan *p);

/* Pieces shared with the record. */
void report_settings_json(struct json_out *j, const struct hp_settings *s);
void report_problem_line(FILE *f, const struct hp_problem *p);

#endif
