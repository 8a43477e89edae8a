/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd.h - the commands a user types, a file each with its help beside it (plan.c,
 * apply.c, status.c, verify.c, cmdline.c, wait.c, recover.c), and the options they
 * take; main.c reads the command line and runs one. What the commands share (the
 * context, the settings and the machine loaded, the exit codes) is context.h's.
 */
#ifndef HUGEPAR_CMD_H
#define HUGEPAR_CMD_H

#include <stdio.h>

#include "compare.h"
#include "context.h"

/* The options, as bits of what a command takes (main.c has their letters, their
 * argument and their line in a command's help). */
enum {
	OPT_SYSROOT = 1 << 0,
	OPT_CONFIG = 1 << 1,
	OPT_CMDLINE = 1 << 2,
	OPT_METHOD = 1 << 3,
	OPT_RECORD_DIR = 1 << 4,
	OPT_JSON = 1 << 5,
	OPT_FORMAT = 1 << 6,
	OPT_CHECK = 1 << 7,
	OPT_IF_CHANGED = 1 << 8,
	OPT_FROM = 1 << 9,
	OPT_NOW = 1 << 10,
	OPT_ROOT = 1 << 11,
};

struct command {
	const char *name;
	const char *summary;  /* its line in hugepar --help */
	const char *about;    /* what it does, a few lines, for its --help */
	unsigned options;     /* OPT_* it takes */
	const char *examples; /* " hugepar plan\n        what it shows\n" ... */
	const char *exits;    /* its exit status, one line */
	bool keys;	      /* its help lists the settings' keys */
	int (*run)(struct ctx *c);
};

extern const struct command plan_command, apply_command, status_command, verify_command,
    cmdline_command, wait_command, recover_command;

/* The commands, in the order hugepar --help lists them. */
extern const struct command *const cmd_list[];
extern const unsigned cmd_count;

/* A command's --help, or hugepar's own (cmd NULL), to f. */
void cmd_help_print(FILE *f, const struct command *cmd);

/* The commands run by apply.c, status.c, ... (the test build's unit tests call
 * them too). */
int cmd_plan(struct ctx *c);
int cmd_apply(struct ctx *c);
int cmd_wait(struct ctx *c);
int cmd_recover(struct ctx *c);
int cmd_status(struct ctx *c);
int cmd_verify(struct ctx *c);
int cmd_cmdline(struct ctx *c);

struct verify_result {
	struct pool_check pools;
	bool no_record; /* pages configured, but no run recorded */
	unsigned mounts_failed;
	bool textfile; /* written */
	bool failed;   /* on_short = fail, and something is short */
};

/*
 * What the booted system's hugepar-verify.service does: check the pools against the
 * record (r may be NULL: no record), make the hugetlbfs mounts, write the textfile.
 * Returns -EAGAIN when the policy (on_short = fail) says the unit must fail.
 */
int verify_run(const struct hp_settings *s, const struct hp_record *r,
	       const struct hp_topology *t, struct verify_result *vr);

#endif
