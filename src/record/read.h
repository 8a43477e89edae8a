/* SPDX-License-Identifier: GPL-2.0-or-later */
/* read.h - a run's record read back: the last run's result, for every command. */
#ifndef HUGEPAR_READ_H
#define HUGEPAR_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "json.h"
#include "write.h"

/* How to build every kernel's initramfs again, with each generator. */
#define HP_REBUILD                                                                       \
	"update-initramfs -u -k all (initramfs-tools), dracut --regenerate-all --force (dracut)"

/* A record read once into values (record_parse()), whatever its format (2, 3, 4):
 * a string is "" and a number 0 where the record has none; a *_set flag says
 * whether a number that may be null or absent is there. Strings point into the
 * parsed text, arrays are the reader's: both live until record_unload(). */
struct record_issue { /* settings.problems[] and settings.notices[] */
	const char *origin, *key, *value, *message;
};

struct record_device { /* settings.devices[] */
	const char *device, *entry;
	bool node_set; /* null when the device gave no node */
	uint64_t node;
};

struct record_setter { /* setters[] */
	const char *origin, *setting, *effect;
	bool in_force;
};

struct record_recovered { /* recovered[] */
	const char *note;
	bool not_ok;	/* "ok" is false */
	bool malformed; /* "malformed" is true */
};

struct record_size { /* sizes[] */
	const char *size, *method, *method_note, *error, *kernel_route;
	uint64_t kb, ms;
	bool worked;	       /* true unless the record says false */
	uint64_t threads_peak; /* 0 where a record (format 3 and before) has none */
};

struct record_cell { /* nodes[].sizes[] */
	const char *size;
	const char *status_word; /* as written */
	int status;		 /* enum hp_status, or -1 when not one */
	const char *reason;
	int cause; /* enum hp_cause, or -1 when not one ("" is HP_CAUSE_NONE) */
	uint64_t before, target, achieved, ms;
	bool requested_set; /* a number: null when nothing was asked */
	bool requested_neg;
	uint64_t requested;
	bool own_set; /* format 4 */
	uint64_t own;
	bool unrounded_set;
	uint64_t unrounded;
	uint64_t vmemmap_freed_kb; /* 0 before 0.5 */
};

struct record_node { /* nodes[] */
	uint64_t node, mem_total, mem_free;
	uint64_t keep_free; /* format 2: "floor" */
	bool cells_listed;  /* it has "sizes" */
	unsigned ncells;
	struct record_cell *cells;
};

struct record_settings {
	const char *digest, *config, *granularity, *enabled_by;
	bool exact;	       /* mode = exact */
	const char *keep_free; /* format 2: "reserve" */
	uint64_t timeout_ms;
	bool pages_listed; /* it has "pages" */
	unsigned npages;
	unsigned ndevices, nproblems, nnotices;
	struct record_device *devices;
	struct record_issue *problems, *notices;
};

struct record_vmemmap { /* vmemmap, from 0.5 */
	bool listed;
	bool on;
	const char *setting, *why, *error, *source;
	int64_t freed_kb; /* the kernel's count may go down: a run that freed pages */
	uint64_t freed_kb_computed;
};

struct record_run {
	uint64_t format;
	const char *version, *kernel, *status_word, *error, *boot_id;
	int status; /* enum hp_status, or -1 when not one */
	uint64_t started_unix, started_boot_ms, duration_ms;
	uint64_t threads; /* format 2: "workers" */
	bool initramfs;
	struct record_vmemmap vmemmap;
	struct record_settings settings;
	unsigned nsizes, nnodes, nsetters, nrecovered;
	bool sizes_listed, nodes_listed;
	struct record_size *sizes;
	struct record_node *nodes;
	struct record_setter *setters;
	struct record_recovered *recovered;
};

/* A record read back: its text (status --json prints it), its parse tree (for the
 * reader and the record's own tests), and what it says. */
struct hp_record {
	char *text;
	struct json_val v;
	int status; /* enum hp_status */
	struct record_run run;
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
/* A parsed record's fields into run (arrays calloc'd): 0, or -ENOMEM. */
int record_run_read(const struct json_val *v, struct record_run *run);
void record_run_free(struct record_run *run);
/* Warn on stderr when the settings files (config, or the record's own when NULL)
 * differ from those the run read. */
void record_check_settings(const struct hp_record *r, const char *config);
#endif
