/* SPDX-License-Identifier: GPL-2.0-or-later */
/* read.h - a run's record read back: the last run's result, for every command. */
#ifndef HUGEPAR_READ_H
#define HUGEPAR_READ_H

#include <stdint.h>

#include "json.h"
#include "write.h"

/* How to build every kernel's initramfs again, with each generator. */
#define HP_REBUILD                                                                       \
	"update-initramfs -u -k all (initramfs-tools), dracut --regenerate-all --force (dracut)"

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
/* Warn on stderr when the settings files (config, or the record's own when NULL)
 * differ from those the run read. */
void record_check_settings(const struct hp_record *r, const char *config);
/* A number of a record by its name, or by its name in format 2 (threads were
 * "workers" there). */
uint64_t record_num(const struct json_val *v, const char *name, const char *old);

#endif
