/* SPDX-License-Identifier: GPL-2.0-or-later */
/* record.h - the JSON record under /run/hugepar, the kernel log line, hugepar status. */
#ifndef HUGEPAR_RECORD_H
#define HUGEPAR_RECORD_H

#include <stdbool.h>
#include <stdio.h>

#include "json.h"
#include "plan.h"
#include "restore.h"
#include "result.h"
#include "settings.h"
#include "setters.h"
#include "topology.h"

#define HP_RECORD_DIR	 "/run/hugepar"
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
/* One summary line, and one warning per node that fell short, to /dev/kmsg and stdout. */
void record_kmsg(const struct hp_topology *t, const struct hp_plan *p,
		 const struct hp_result *res, const struct hp_recovery *rec);
/* A warning per setter in force: another program will change the pools. */
void record_kmsg_setters(const struct hp_setters *st);
/* One line, "hugepar: " first, to /dev/kmsg at a syslog level and to stdout; only to
 * stdout, with a "<level>" prefix, where stdout is the journal. */
void record_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether stdout is the journal's stream, as JOURNAL_STREAM names it. */
bool record_stdout_journal(void);

/* A record read back. */
struct hp_record {
	char *text;
	struct json_val v;
	int status; /* enum hp_status */
};

/* Read dir/status.json: 0, -ENOENT when there is none, -EINVAL when it cannot be
 * read (said on stderr). */
int record_load(const char *dir, struct hp_record *r);
/* The same, saying nothing. */
int record_read(const char *dir, struct hp_record *r);
/* A record's text (len bytes and a NUL, malloc'd): r owns it from here, and frees it
 * when it is not a record (-EINVAL; nothing said). */
int record_parse(struct hp_record *r, char *text, size_t len);
void record_unload(struct hp_record *r);

enum hp_format { HP_FORMAT_TEXT, HP_FORMAT_JSON, HP_FORMAT_PROMETHEUS };
/* The record to f: as text (printable), its JSON, or in Prometheus' format; the text
 * names the other setters of the pools of the record, and those of now that it has
 * not (NULL: none). */
void record_print(FILE *f, const struct hp_record *r, enum hp_format format,
		  const struct hp_setters *now);
/* Warn on stderr when the settings files (config, or the record's own when NULL)
 * differ from those the run read. */
void record_check_settings(const struct hp_record *r, const char *config);
/* The record in Prometheus' text format, with each node's pools now when live is
 * given (prometheus.c). */
void record_prometheus(FILE *f, const struct hp_record *r,
		       const struct hp_topology *live);
/* A number of a record by its name, or by its name in format 2 (threads were
 * "workers" there). */
uint64_t record_num(const struct json_val *v, const char *name, const char *old);

#endif
