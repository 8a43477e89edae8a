/* SPDX-License-Identifier: GPL-2.0-or-later */
/* result.c - pure: cells and runs judged against the plan; method=auto's estimate. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cellnote.h"
#include "macros.h"
#include "result.h"

const char *result_method_name(enum hp_method m)
{
	return m == HP_METHOD_PARALLEL ? "parallel"
	       : m == HP_METHOD_SERIAL ? "serial"
				       : "auto";
}

int result_method_parse(const char *s, enum hp_method *m)
{
	if (strcmp(s, "auto") == 0)
		*m = HP_METHOD_AUTO;
	else if (strcmp(s, "parallel") == 0)
		*m = HP_METHOD_PARALLEL;
	else if (strcmp(s, "serial") == 0)
		*m = HP_METHOD_SERIAL;
	else
		return -EINVAL;
	return 0;
}

static const char *const status_names[] = {
    [HP_STATUS_OK] = "ok",
    [HP_STATUS_PARTIAL] = "partial",
    [HP_STATUS_CAPPED] = "capped",
    [HP_STATUS_FAILED] = "failed",
    [HP_STATUS_DISABLED] = "disabled",
    [HP_STATUS_UNCHANGED] = "unchanged",
};

const char *result_status_name(enum hp_status s)
{
	return (unsigned)s < ARRAY_SIZE(status_names) ? status_names[s] : "?";
}

int result_status_parse(const char *s, enum hp_status *st)
{
	for (size_t i = 0; i < ARRAY_SIZE(status_names); i++)
		if (strcmp(s, status_names[i]) == 0) {
			*st = (enum hp_status)i;
			return 0;
		}
	return -EINVAL;
}

/* Each cause: the record's word, and the reason's words where they are its own. */
static const struct {
	const char *name, *text;
} causes[] = {
    [HP_CAUSE_NONE] = {"", ""},
    [HP_CAUSE_KEEP_FREE] = {"keep_free", ""},
    [HP_CAUSE_FREE_MEMORY] = {"free_memory", ""},
    [HP_CAUSE_NO_MEMORY] = {"no_memory", ""},
    [HP_CAUSE_GROW_MODE] = {"grow_mode", ""},
    [HP_CAUSE_DEADLINE] = {"deadline", "deadline reached"},
    [HP_CAUSE_INTERRUPTED] = {"interrupted", "interrupted"},
    [HP_CAUSE_OUT_OF_MEMORY] = {"out_of_memory", "node out of memory"},
    [HP_CAUSE_KERNEL_ERROR] = {"kernel_error", ""},
    [HP_CAUSE_SIZE_ERROR] = {"size_error", ""},
    [HP_CAUSE_BIND] = {"bind", ""},
    [HP_CAUSE_IN_USE] = {"in_use", ""},
};

const char *result_cause_name(enum hp_cause c)
{
	return (unsigned)c < ARRAY_SIZE(causes) ? causes[c].name : "";
}

const char *result_cause_text(enum hp_cause c)
{
	return (unsigned)c < ARRAY_SIZE(causes) ? causes[c].text : "";
}

int result_cause_parse(const char *s, enum hp_cause *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(causes); i++)
		if (strcmp(s, causes[i].name) == 0) {
			*c = (enum hp_cause)i;
			return 0;
		}
	return -EINVAL;
}

enum hp_cause result_cut_cause(enum hp_cut c)
{
	static const enum hp_cause cut_causes[] = {
	    [HP_CUT_NONE] = HP_CAUSE_NONE,
	    [HP_CUT_KEEP_FREE] = HP_CAUSE_KEEP_FREE,
	    [HP_CUT_MEMORY] = HP_CAUSE_FREE_MEMORY,
	    [HP_CUT_GROW] = HP_CAUSE_GROW_MODE,
	    [HP_CUT_NO_MEMORY] = HP_CAUSE_NO_MEMORY,
	};

	return (unsigned)c < ARRAY_SIZE(cut_causes) ? cut_causes[c] : HP_CAUSE_NONE;
}

enum hp_status result_cell_status(const struct hp_cell *c, uint64_t achieved)
{
	bool shrink = c->target < c->current;
	bool met = shrink ? achieved <= c->target : achieved >= c->target;

	if (!c->requested_set && c->target == c->current)
		return HP_STATUS_UNCHANGED;
	if (met)
		return c->cut == HP_CUT_NONE || c->cut == HP_CUT_GROW ? HP_STATUS_OK
								      : HP_STATUS_CAPPED;
	if (shrink ? achieved < c->current : achieved > c->current)
		return HP_STATUS_PARTIAL;
	return HP_STATUS_FAILED;
}

/* Why a cell fell short, in words and as the record's cause: what the engine saw
 * there, what ended its size, what stopped the run; otherwise the kernel found no
 * more memory for pages on the node. */
static const char *short_why(const struct hp_result *res, const struct hp_size_result *sr,
			     const struct cell_note *nn, enum hp_cause *cause)
{
	if (nn->note[0]) {
		*cause = nn->stop == HP_CAUSE_DEADLINE || nn->stop == HP_CAUSE_INTERRUPTED
			     ? nn->stop
			     : HP_CAUSE_KERNEL_ERROR;
		return nn->note;
	}
	if (sr->failure[0]) {
		*cause = HP_CAUSE_SIZE_ERROR;
		return sr->failure;
	}
	*cause = res->timed_out	    ? HP_CAUSE_DEADLINE
		 : res->interrupted ? HP_CAUSE_INTERRUPTED
				    : HP_CAUSE_OUT_OF_MEMORY;
	return result_cause_text(*cause);
}

static void judge_cell(const struct hp_result *res, const struct hp_cell *c,
		       const struct hp_size_result *sr, const struct cell_note *nn,
		       struct hp_cell_result *r)
{
	char note[128];
	uint64_t kept = r->surplus_after > r->surplus_before
			    ? r->surplus_after - r->surplus_before
			    : 0;

	r->ms = nn->ms;
	r->workers = *nn;
	r->status = result_cell_status(c, r->achieved);
	r->reason[0] = '\0';
	r->cause = HP_CAUSE_NONE;
	if (r->status == HP_STATUS_CAPPED) {
		r->cause = result_cut_cause(c->cut);
		cellnote_of(c, note, sizeof(note));
		snprintf(r->reason, sizeof(r->reason), "%llu of %llu requested: %s",
			 (unsigned long long)c->target, (unsigned long long)c->requested,
			 note);
	} else if (r->status == HP_STATUS_PARTIAL || r->status == HP_STATUS_FAILED) {
		const char *why = short_why(res, sr, nn, &r->cause);

		snprintf(r->reason, sizeof(r->reason), "%llu of %llu: %s",
			 (unsigned long long)r->achieved, (unsigned long long)c->target,
			 why);
	} else if (nn->bind_err) {
		/* Pages that landed on the node anyway do not make a failed bind ok: on
		 * another kernel, or with other work beside, they would not have. */
		r->status = HP_STATUS_PARTIAL;
		r->cause = HP_CAUSE_BIND;
		snprintf(r->reason, sizeof(r->reason),
			 "a thread could not bind itself to the node: %s",
			 strerror(-nn->bind_err));
	} else if (c->target < c->current && kept) {
		/* The kernel keeps pages in use as surplus until they are freed: the
		 * pool is smaller, but the memory is not back yet. */
		r->status = HP_STATUS_PARTIAL;
		r->cause = HP_CAUSE_IN_USE;
		snprintf(r->reason, sizeof(r->reason),
			 "%llu pages in use stay as surplus until freed",
			 (unsigned long long)kept);
	} else if (c->cut == HP_CUT_GROW) {
		r->cause = result_cut_cause(c->cut);
		cellnote_of(c, r->reason, sizeof(r->reason));
	} else if (r->status == HP_STATUS_OK) {
		/* a share rounded: by how much, though it is no shortfall */
		cellnote_of(c, r->reason, sizeof(r->reason));
	}
}

void result_judge(struct hp_result *res, const struct hp_plan *p,
		  const struct cell_note *notes, unsigned problems)
{
	unsigned worked = 0, failed = 0, bad = 0;
	bool restore_failed = false;

	for (unsigned n = 0; n < p->nnodes; n++)
		for (unsigned z = 0; z < p->nsizes; z++) {
			const struct hp_cell *c = plan_cell(p, n, z);
			struct hp_cell_result *r = &res->cells[n * p->nsizes + z];

			judge_cell(res, c, &res->sizes[z], &notes[z * p->nnodes + n], r);
			if (r->status == HP_STATUS_UNCHANGED)
				continue;
			worked += c->target != c->current;
			failed += r->status == HP_STATUS_FAILED;
			bad += r->status != HP_STATUS_OK;
		}
	for (unsigned z = 0; z < p->nsizes; z++)
		restore_failed |= res->sizes[z].restore_failed;
	if (restore_failed || (worked && failed == worked))
		res->status = HP_STATUS_FAILED;
	else if (bad || problems)
		res->status = HP_STATUS_PARTIAL;
	else
		res->status = HP_STATUS_OK;
}

/* The estimate with every page's cost times num / den. */
static void estimate(const struct auto_node *nodes, unsigned n, uint64_t fork_us,
		     uint64_t num, uint64_t den, struct auto_estimate *e)
{
	uint64_t ser = 0, slowest = 0, rest = 0;
	unsigned workers = 0;

	for (unsigned i = 0; i < n; i++) {
		uint64_t us = nodes[i].rest * (nodes[i].page_ns * num / den) / 1000;

		ser += us;
		if (nodes[i].workers) {
			slowest = MAX(slowest, us / nodes[i].workers);
			workers += nodes[i].workers;
		} else {
			rest += us; /* per-node writes either way */
		}
	}
	e->serial_us = ser;
	e->parallel_us = workers * fork_us + slowest + rest;
	e->parallel = workers && e->parallel_us * 10 < e->serial_us * 9;
}

void result_auto_estimate(const struct auto_node *nodes, unsigned n, uint64_t fork_us,
			  struct auto_estimate *e)
{
	estimate(nodes, n, fork_us, 1, 1, e);
}

bool result_auto_clear(const struct auto_node *nodes, unsigned n, uint64_t fork_us)
{
	struct auto_estimate e, half, twice;

	estimate(nodes, n, fork_us, 1, 1, &e);
	estimate(nodes, n, fork_us, 1, 2, &half);
	estimate(nodes, n, fork_us, 2, 1, &twice);
	return e.parallel == half.parallel && e.parallel == twice.parallel;
}
