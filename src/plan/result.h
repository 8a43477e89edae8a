/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * result.h - pure: what a run achieved, judged against the plan: each cell's status
 * and reason, the run's status, and method=auto's estimate of serial and parallel.
 */
#ifndef HUGEPAR_RESULT_H
#define HUGEPAR_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "adapt.h"
#include "planner.h"

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

/* Why a cell is not ok (doc/record.md: nodes[].sizes[].cause); result_cause_name()
 * gives the record's word, result_cause_text() the words of a reason. */
enum hp_cause {
	HP_CAUSE_NONE,		/* "": ok, or nothing to say */
	HP_CAUSE_KEEP_FREE,	/* capped: the node keeps that much free */
	HP_CAUSE_FREE_MEMORY,	/* capped: no more free memory in the initramfs */
	HP_CAUSE_NO_MEMORY,	/* a node without memory */
	HP_CAUSE_GROW_MODE,	/* a larger pool kept (ok) */
	HP_CAUSE_DEADLINE,	/* the deadline came first */
	HP_CAUSE_INTERRUPTED,	/* a signal stopped the run */
	HP_CAUSE_OUT_OF_MEMORY, /* the kernel found no more memory for pages */
	HP_CAUSE_KERNEL_ERROR,	/* a write of the node's pool refused */
	HP_CAUSE_SIZE_ERROR,	/* the size's work failed as a whole */
	HP_CAUSE_BIND,		/* a thread could not bind itself to the node */
	HP_CAUSE_IN_USE,	/* an exact shrink met pages in use */
};

/* What the engine saw on one node and size, for the reason. */
struct cell_note {
	uint64_t ms;		  /* time spent there */
	char note[96];		  /* what stopped it, or "" */
	int32_t bind_err;	  /* a worker could not bind itself to the node: -errno */
	uint32_t workers_peak;	  /* the most at work at once */
	uint32_t workers_started; /* started, all told */
	uint32_t workers_settled; /* the count the controller settled at */
	uint32_t nrates;
	struct adapt_rate rates[ADAPT_MAX_RATES]; /* what it measured */
	char workers_why[96];
	enum hp_cause stop; /* with a note: deadline, interrupted, else kernel_error */
};

struct hp_cell_result {
	uint64_t before;			/* persistent pages before */
	uint64_t achieved;			/* persistent pages after */
	struct cell_note workers;		/* the workers of the node and size */
	uint64_t surplus_before, surplus_after; /* the node's surplus pages */
	uint64_t ms;
	enum hp_status status;
	char reason[160];
	enum hp_cause cause; /* why it is not ok */
};

struct hp_size_result {
	bool worked;	       /* had growth or shrink to do */
	enum hp_method method; /* what did the work */
	char method_note[96];  /* why, when not what was asked */
	char failure[128];     /* what went wrong with the size as a whole, or "" */
	char afterwards[128];  /* what the main process did about it, or "" */
	unsigned workers;      /* started, all told */
	unsigned workers_peak; /* the most at work at once, all nodes together */
	uint64_t ms;
	uint64_t start_ms; /* when its work began, from the run's start */
	uint64_t overcommit_before, overcommit_after;
	uint64_t surplus_before, surplus_after;
	uint64_t chunks, enomem;
	uint64_t trimmed;	   /* pages freed on nodes that got more than planned */
	uint64_t topped_up;	   /* pages added by per-node writes after the workers */
	uint64_t pages_by_workers; /* pages the workers reserved and the commit kept */
	bool restore_failed;	   /* nr_overcommit_hugepages could not be put back */
};

/* The vmemmap optimization in a run: on or not once the run began, why not, and the
 * kernel's count of descriptor pages before and after (Linux 6.11 on). */
struct hp_vmemmap_result {
	bool on;
	int error;	     /* -errno of turning it on, or 0 */
	bool counted;	     /* the kernel counts them: memmap_* are its */
	uint64_t memmap_before, memmap_after;
};

struct hp_result {
	enum hp_status status;
	bool timed_out;
	bool interrupted;
	uint64_t started_unix;
	uint64_t started_boot_ms;
	uint64_t duration_ms;
	unsigned nnodes, nsizes;
	struct hp_cell_result *cells; /* [node * nsizes + size] */
	struct hp_size_result sizes[HP_MAX_SIZES];
	struct hp_vmemmap_result vmemmap;
	char error[192];
};

const char *result_method_name(enum hp_method m);
int result_method_parse(const char *s, enum hp_method *m);
/* The words of the record and of the output, each enum's one table. */
const char *result_status_name(enum hp_status s);
int result_status_parse(const char *s, enum hp_status *st);
const char *result_cause_name(enum hp_cause c);
int result_cause_parse(const char *s, enum hp_cause *c);
/* The cause of a cell the plan cut ("keep_free", "free_memory", ...). */
enum hp_cause result_cut_cause(enum hp_cut c);
/* A cause in a reason's words ("deadline reached"), or "" where the reason says more. */
const char *result_cause_text(enum hp_cause c);

/* A cell's status from its plan and what it holds now. */
enum hp_status result_cell_status(const struct hp_cell *c, uint64_t achieved);

/* Judge every cell (status, reason) and the run; notes are [size * nnodes + node].
 * 'problems' counts bad settings, which make an otherwise full run partial. */
void result_judge(struct hp_result *res, const struct hp_plan *p,
		  const struct cell_note *notes, unsigned problems);

/* method=auto: per node with work, what the probe measured. */
struct auto_node {
	uint64_t rest;	  /* pages still to reserve */
	uint64_t page_ns; /* measured cost of a page */
	unsigned workers; /* workers it may use; 0: served by per-node writes */
};

struct auto_estimate {
	uint64_t serial_us, parallel_us;
	bool parallel;
};

/* Serial: every node's rest, one after the other. Parallel: forking the workers,
 * then the slowest node's share per worker, plus nodes without workers. Parallel
 * when it is at least 10% better. */
void result_auto_estimate(const struct auto_node *nodes, unsigned n, uint64_t fork_us,
			  struct auto_estimate *e);
/* Whether the estimate is clear whatever one probe's noise: it chooses the same with
 * every page costing half or twice what was measured. */
bool result_auto_clear(const struct auto_node *nodes, unsigned n, uint64_t fork_us);

#endif
