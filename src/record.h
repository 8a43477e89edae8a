/* SPDX-License-Identifier: GPL-2.0-or-later */
/* record.h - the JSON record under /run/hugepar, the kernel log line, hugepar status. */
#ifndef HUGEPAR_RECORD_H
#define HUGEPAR_RECORD_H

#include <stdbool.h>

#include "journal.h"
#include "plan.h"
#include "result.h"
#include "settings.h"
#include "topology.h"

#define HP_RECORD_DIR	 "/run/hugepar"
#define HP_RECORD_FILE	 "status.json"
#define HP_RECORD_FORMAT 2

/* Write dir/status.json atomically (temp file + rename), mode 0644. */
int record_write(const char *dir, const struct hp_settings *s,
		 const struct hp_topology *t, const struct hp_plan *p,
		 const struct hp_result *res, const struct hp_recovery *rec);
/* A record for a run that could not start, or was stopped without one. */
int record_failure(const char *dir, const struct hp_settings *s,
		   const struct hp_recovery *rec, const char *why);
/* One summary line, and one warning per node that fell short, to /dev/kmsg and stdout. */
void record_kmsg(const struct hp_topology *t, const struct hp_plan *p,
		 const struct hp_result *res, const struct hp_recovery *rec);
/* One line, "hugepar: " first, to /dev/kmsg at a syslog level and to stdout. */
void record_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print the last record as tables, or as it is (JSON), and warn on stderr when the
 * settings files (config, or the record's own when NULL) differ from those the run
 * read. Returns the record's status (enum hp_status), -ENOENT when there is none,
 * -EINVAL when it cannot be read. */
int record_show(const char *dir, bool json, const char *config);

#endif
