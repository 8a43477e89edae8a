/* SPDX-License-Identifier: GPL-2.0-or-later */
/* write.h - a run's record, written as JSON under /run/hugepar (doc/record.md). */
#ifndef HUGEPAR_WRITE_H
#define HUGEPAR_WRITE_H

#include "json.h"
#include "planner.h"
#include "restore.h"
#include "result.h"
#include "settings.h"
#include "setters.h"
#include "topology.h"

#define HP_RECORD_FILE	 "status.json"
#define HP_RECORD_FORMAT 4

/* Write dir/status.json atomically (temp file + rename), mode 0644. */
int record_write(const char *dir, const struct hp_settings *s,
		 const struct hp_topology *t, const struct hp_plan *p,
		 const struct hp_result *res, const struct hp_recovery *rec,
		 const struct hp_setters *st);
/* A record for a run that could not start, or was stopped without one. */
int record_failure(const char *dir, const struct hp_settings *s,
		   const struct hp_recovery *rec, const char *why);
/* The same form, "disabled", for a run that stood aside (a crash capture kernel). */
int record_aside(const char *dir, const struct hp_settings *s, const char *why);
/* The settings as the record and plan --json give them: an object "settings". */
void record_settings_json(struct json_out *j, const struct hp_settings *s);
/* The other setters of the pools: an array "setters" (st NULL: empty). */
void record_setters_json(struct json_out *j, const struct hp_setters *st);

#endif
