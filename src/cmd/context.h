/* SPDX-License-Identifier: GPL-2.0-or-later */
/* context.h - what the commands share: the exit codes, the context the options fill
 * in, the settings and the machine loaded. */
#ifndef HUGEPAR_CONTEXT_H
#define HUGEPAR_CONTEXT_H

#include <stdbool.h>

#include "basis.h"
#include "planner.h"
#include "print.h"
#include "report.h"
#include "result.h"
#include "settings.h"
#include "setters.h"
#include "topology.h"

/* In the record directory, after `apply --if-changed` took settings files that the
 * initramfs's run had not: hugepar-initramfs.service builds the initramfs again. */
#define HP_STALE_MARK "initramfs-stale"

/* Exit codes (hugepar(8)). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
	EXIT_NO_RECORD = 3,
	EXIT_BAD_RECORD = 4,
	EXIT_PARTIAL = 64,
	EXIT_DRIFT = 65,
	EXIT_BUSY = 75,
};

struct ctx {
	const char *command;
	const char *config;
	bool config_given;
	const char *root;    /* the settings files under it (apply --root /sysroot) */
	const char *cmdline; /* NULL: read /proc/cmdline */
	const char *record_dir;
	enum hp_format format;
	bool check;
	bool if_changed; /* apply --if-changed */
	bool from_record;
	bool simulate;
	bool now;	   /* plan, cmdline: the free memory now, not the boot's */
	bool basis_wanted; /* plan, cmdline: the boot's free memory, where recorded */
	struct record_basis basis;
	enum hp_method method;
	struct hp_settings settings;
	struct hp_topology topo;
	struct hp_plan plan;
	struct hp_setters setters; /* context_load_setters() */
};

/* The settings from every source, then the machine and the plan: 0 or -errno (said
 * on standard error). */
int context_load_settings(struct ctx *c);
int context_load_machine(struct ctx *c);
/* The other setters of the pools that the machine shows (sysctl files and dpdk.conf
 * under the root, c->root or the sysroot; the kernel command line) into c->setters,
 * judged against the plan's targets, or against what res achieved. */
void context_load_setters(struct ctx *c, const struct hp_result *res);
/* Whether this is a crash (kdump) capture kernel (after context_load_settings()), and how it
 * is known, in why: hugepar then stands aside, and leaves the little memory that
 * kernel has to the dump. */
bool context_capture_kernel(const struct ctx *c, char *why, size_t len);
/* The exit code of a run's status. */
int context_exit_code(enum hp_status s);

#endif
