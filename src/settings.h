/* SPDX-License-Identifier: GPL-2.0-or-later */
/* settings.h - config files and the kernel command line, merged into one struct. */
#ifndef HUGEPAR_SETTINGS_H
#define HUGEPAR_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "topology.h"
#include "util.h"

#define HP_MAX_ENTRIES	64
#define HP_MAX_PROBLEMS 32
#define HP_MAX_SOURCES	16

enum hp_amount_kind {
	HP_AMOUNT_COUNT,   /* pages */
	HP_AMOUNT_BYTES,   /* memory per node */
	HP_AMOUNT_PERCENT, /* hundredths of a percent of each node's MemTotal */
};

struct hp_amount {
	enum hp_amount_kind kind;
	uint64_t value;
};

/* One "SIZE:AMOUNT[@NODES]" entry. Later entries override earlier ones per node and size.
 */
struct hp_entry {
	uint64_t size_kb;
	struct hp_amount amount;
	bool all_nodes;
	struct hp_idset nodes;
	char text[128];	 /* as written, for messages */
	char origin[96]; /* file:line or "kernel command line" */
};

struct hp_problem {
	char origin[96];
	char key[40];
	char value[96];
	char message[160];
};

enum hp_mode { HP_MODE_GROW, HP_MODE_EXACT };

struct hp_settings {
	bool enabled;
	unsigned nentries;
	struct hp_entry entries[HP_MAX_ENTRIES];
	struct hp_amount reserve; /* the per-node free-memory floor */
	unsigned threads;	  /* 0: auto */
	uint64_t timeout_ms;
	enum hp_mode mode;
	unsigned nproblems;
	unsigned problems_dropped; /* beyond HP_MAX_PROBLEMS */
	struct hp_problem problems[HP_MAX_PROBLEMS];
	unsigned nsources;
	char sources[HP_MAX_SOURCES][256];
};

#define HP_DEFAULT_RESERVE (UINT64_C(512) << 20)
#define HP_DEFAULT_TIMEOUT 60000
#define HP_MAX_TIMEOUT_MS  (UINT64_C(3600) * 1000)
#define HP_MAX_THREADS	   4096

void settings_init(struct hp_settings *s);

/* Apply one key=value from a source. Problems are recorded, never fatal. */
void settings_set(struct hp_settings *s, const char *key, const char *value,
		  const char *origin, bool cmdline);

/* Read one config file. A missing file is fine (returns -ENOENT, nothing recorded). */
int settings_load_file(struct hp_settings *s, const char *file);
/* Read FILE, then FILE.d/ (*.conf, in name order). */
int settings_load_config(struct hp_settings *s, const char *file);
/* Take the rd.hugepar keys of a kernel command line. */
void settings_load_cmdline(struct hp_settings *s, const char *cmdline);

/* Drop entries whose size the kernel does not offer or whose nodes do not exist. */
void settings_validate(struct hp_settings *s, const struct hp_topology *t);

void settings_problem(struct hp_settings *s, const char *origin, const char *key,
		      const char *value, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

const char *mode_name(enum hp_mode m);
/* "2M:512", "1G:64G", "2M:50%" form of an amount. */
void amount_format(const struct hp_amount *a, char *buf, size_t len);

#endif
