/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine.h - carry a plan out on the live kernel: per-node workers, commit, reconcile. */
#ifndef HUGEPAR_ENGINE_H
#define HUGEPAR_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "plan.h"
#include "settings.h"
#include "topology.h"

enum hp_method { HP_METHOD_AUTO, HP_METHOD_PARALLEL, HP_METHOD_SERIAL };

/* Overall and per node/size outcome. */
enum hp_status {
	HP_STATUS_OK,	     /* every request met */
	HP_STATUS_PARTIAL,   /* some met, some short (or capped) */
	HP_STATUS_CAPPED,    /* per cell: target met, but the plan cut the request */
	HP_STATUS_FAILED,    /* nothing of what was needed */
	HP_STATUS_DISABLED,  /* rd.hugepar=0 or enabled = no */
	HP_STATUS_UNCHANGED, /* per cell: nothing was asked */
};

struct hp_cell_result {
	uint64_t before;   /* persistent pages before */
	uint64_t achieved; /* persistent pages after */
	uint64_t ms;	   /* time spent on this node and size */
	enum hp_status status;
	char reason[160];
};

struct hp_size_result {
	bool worked;	       /* had growth or shrink to do */
	enum hp_method method; /* what was used */
	char method_note[96];  /* why, when not what was asked */
	unsigned workers;
	uint64_t ms;
	uint64_t overcommit_before, overcommit_after;
	uint64_t surplus_before, surplus_after;
	uint64_t chunks, enomem; /* reservation calls made, and refused */
	uint64_t trimmed;        /* pages freed on nodes that got more than planned */
	uint64_t topped_up;      /* pages added by per-node writes after the workers */
};

struct hp_result {
	enum hp_status status;
	bool timed_out;
	bool interrupted;
	uint64_t started_unix;	  /* wall clock, seconds */
	uint64_t started_boot_ms; /* CLOCK_BOOTTIME */
	uint64_t duration_ms;
	unsigned nnodes, nsizes;
	struct hp_cell_result *cells; /* [node * nsizes + size] */
	struct hp_size_result sizes[HP_MAX_SIZES];
	char error[160];
};

int method_parse(const char *s, enum hp_method *m);
const char *method_name(enum hp_method m);
const char *status_name(enum hp_status s);

/* Run the plan. Returns 0, or -errno with res->error set; res is always filled. */
int engine_apply(const struct hp_settings *s, const struct hp_topology *t,
		 const struct hp_plan *p, enum hp_method method, struct hp_result *res);
void engine_result_free(struct hp_result *res);

/* Outcome of one cell, from before/target/achieved and the plan's cut. Pure. */
enum hp_status engine_cell_status(const struct hp_cell *c, uint64_t achieved);

#endif
