/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd.h - the commands a user types, a file each with its help beside it (plan.c,
 * apply.c, status.c, verify.c, cmdline.c, wait.c, recover.c), and the options they
 * take; main.c reads the command line and runs one. What the commands share (the
 * context, the settings and the machine loaded, the exit codes) is commands.h's.
 */
#ifndef HUGEPAR_CMD_H
#define HUGEPAR_CMD_H

#include <stdio.h>

#include "commands.h"

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

extern const struct command command_plan, command_apply, command_status,
    command_verify, command_cmdline, command_wait, command_recover;

/* The commands, in the order hugepar --help lists them. */
extern const struct command *const commands[];
extern const unsigned ncommands;

/* A command's --help, or hugepar's own (cmd NULL), to f. */
void help_print(FILE *f, const struct command *cmd);

/* The commands run by apply.c, status.c, ... (the test build's unit tests call
 * them too). */
int cmd_plan(struct ctx *c);
int cmd_apply(struct ctx *c);
int cmd_wait(struct ctx *c);
int cmd_recover(struct ctx *c);
int cmd_status(struct ctx *c);
int cmd_verify(struct ctx *c);
int cmd_cmdline(struct ctx *c);

#endif
