/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run.c - a record's fields into struct record_run, formats 2, 3 and 4 in one place. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "read.h"
#include "result.h"
#include "settings.h"

/* A number that may be null or absent: whether it is one. */
static bool num_set(const struct json_val *v, const char *key, uint64_t *out)
{
	const struct json_val *m = json_get(v, key);

	*out = m && m->type == JSON_NUM ? m->num : 0;
	return m && m->type == JSON_NUM;
}

/* A count named one way now and another in an older format. */
static uint64_t num_or_old(const struct json_val *v, const char *key, const char *old)
{
	uint64_t n;

	return num_set(v, key, &n) ? n : json_get_num(v, old);
}

static bool flag_is(const struct json_val *v, const char *key, bool b)
{
	const struct json_val *m = json_get(v, key);

	return m && m->type == JSON_BOOL && m->b == b;
}

/* An array member's elements, calloc'd: 0, or -ENOMEM. */
static int array_of(const struct json_val *v, const char *key, size_t each, void **out,
		    unsigned *n, bool *listed)
{
	const struct json_val *a = json_get(v, key);

	*out = NULL;
	*n = a && a->type == JSON_ARR ? a->n : 0;
	if (listed)
		*listed = a && a->type == JSON_ARR;
	if (*n && !(*out = calloc(*n, each)))
		return -ENOMEM;
	return 0;
}

#define ARRAY_OF(v, key, arr, n, listed)                                                 \
	array_of(v, key, sizeof(*(arr)), (void **)&(arr), &(n), listed)

static int issues_read(const struct json_val *set, const char *key,
		       struct record_issue **out, unsigned *n)
{
	const struct json_val *a = json_get(set, key);
	int rc = ARRAY_OF(set, key, *out, *n, NULL);

	for (unsigned i = 0; !rc && i < *n; i++)
		(*out)[i] = (struct record_issue){
		    .origin = json_get_str(&a->kids[i], "origin"),
		    .key = json_get_str(&a->kids[i], "key"),
		    .value = json_get_str(&a->kids[i], "value"),
		    .message = json_get_str(&a->kids[i], "message")};
	return rc;
}

static int settings_read(const struct json_val *set, struct record_settings *s)
{
	const struct json_val *devs = json_get(set, "devices");
	unsigned npages;
	void *pages;
	int rc;

	s->digest = json_get_str(set, "digest");
	s->config = json_get_str(set, "config");
	s->exact =
	    strcmp(json_get_str(set, "mode"), settings_mode_name(HP_MODE_EXACT)) == 0;
	s->granularity = json_get_str(set, "granularity");
	s->enabled_by = json_get_str(set, "enabled_by");
	s->keep_free = json_get_str(set, "keep_free")[0] ? json_get_str(set, "keep_free")
							 : json_get_str(set, "reserve");
	s->timeout_ms = json_get_num(set, "timeout_ms");
	rc = array_of(set, "pages", 1, &pages, &npages, &s->pages_listed);
	free(pages); /* counted, not read */
	s->npages = npages;
	rc = rc ? rc : ARRAY_OF(set, "devices", s->devices, s->ndevices, NULL);
	for (unsigned i = 0; !rc && i < s->ndevices; i++) {
		struct record_device *d = &s->devices[i];

		d->device = json_get_str(&devs->kids[i], "device");
		d->entry = json_get_str(&devs->kids[i], "entry");
		d->node_set = num_set(&devs->kids[i], "node", &d->node);
	}
	rc = rc ? rc : issues_read(set, "problems", &s->problems, &s->nproblems);
	return rc ? rc : issues_read(set, "notices", &s->notices, &s->nnotices);
}

static void cell_read(const struct json_val *c, struct record_cell *x)
{
	const struct json_val *rq = json_get(c, "requested");
	enum hp_status st;
	enum hp_cause cause;

	x->size = json_get_str(c, "size");
	x->status_word = json_get_str(c, "status");
	x->status = result_status_parse(x->status_word, &st) ? -1 : (int)st;
	x->reason = json_get_str(c, "reason");
	x->cause = result_cause_parse(json_get_str(c, "cause"), &cause) ? -1 : (int)cause;
	x->before = json_get_num(c, "before");
	x->target = json_get_num(c, "target");
	x->achieved = json_get_num(c, "achieved");
	x->ms = json_get_num(c, "ms");
	x->requested_set = num_set(c, "requested", &x->requested);
	x->requested_neg = x->requested_set && rq->neg;
	x->own_set = num_set(c, "own", &x->own);
	x->unrounded_set = num_set(c, "unrounded", &x->unrounded);
	x->vmemmap_freed_kb = json_get_num(c, "vmemmap_freed_kb");
}

/* The run's vmemmap optimization (a record of 0.5 on). */
static void vmemmap_read(const struct json_val *v, struct record_vmemmap *x)
{
	const struct json_val *f = json_get(v, "freed_kb");

	x->listed = v && v->type == JSON_OBJ;
	x->on = flag_is(v, "on", true);
	x->setting = json_get_str(v, "setting");
	x->why = json_get_str(v, "why");
	x->error = json_get_str(v, "error");
	x->source = json_get_str(v, "source");
	x->freed_kb = f && f->type == JSON_NUM ? (f->neg ? -(int64_t)f->num : (int64_t)f->num) : 0;
	x->freed_kb_computed = json_get_num(v, "freed_kb_computed");
}

static int nodes_read(const struct json_val *v, struct record_run *run)
{
	const struct json_val *nodes = json_get(v, "nodes");
	int rc = ARRAY_OF(v, "nodes", run->nodes, run->nnodes, &run->nodes_listed);

	for (unsigned i = 0; !rc && i < run->nnodes; i++) {
		const struct json_val *nd = &nodes->kids[i], *zs = json_get(nd, "sizes");
		struct record_node *x = &run->nodes[i];

		x->node = json_get_num(nd, "node");
		x->mem_total = json_get_num(nd, "mem_total");
		x->mem_free = json_get_num(nd, "mem_free");
		x->keep_free = num_or_old(nd, "keep_free", "floor");
		rc = ARRAY_OF(nd, "sizes", x->cells, x->ncells, &x->cells_listed);
		for (unsigned k = 0; !rc && k < x->ncells; k++)
			cell_read(&zs->kids[k], &x->cells[k]);
	}
	return rc;
}

static int sizes_read(const struct json_val *v, struct record_run *run)
{
	const struct json_val *sizes = json_get(v, "sizes");
	int rc = ARRAY_OF(v, "sizes", run->sizes, run->nsizes, &run->sizes_listed);

	for (unsigned i = 0; !rc && i < run->nsizes; i++) {
		const struct json_val *z = &sizes->kids[i];
		struct record_size *x = &run->sizes[i];

		x->size = json_get_str(z, "size");
		x->method = json_get_str(z, "method");
		x->method_note = json_get_str(z, "method_note");
		x->error = json_get_str(z, "error");
		x->kernel_route = json_get_str(z, "kernel_route");
		x->kb = json_get_num(z, "kb");
		x->ms = json_get_num(z, "ms");
		x->worked = !flag_is(z, "worked", false);
		num_set(z, "threads_peak", &x->threads_peak); /* format 4 */
	}
	return rc;
}

static int lists_read(const struct json_val *v, struct record_run *run)
{
	const struct json_val *set = json_get(v, "setters"),
			      *rec = json_get(v, "recovered");
	int rc = ARRAY_OF(v, "setters", run->setters, run->nsetters, NULL);

	for (unsigned i = 0; !rc && i < run->nsetters; i++)
		run->setters[i] = (struct record_setter){
		    .origin = json_get_str(&set->kids[i], "origin"),
		    .setting = json_get_str(&set->kids[i], "setting"),
		    .effect = json_get_str(&set->kids[i], "effect"),
		    .in_force = flag_is(&set->kids[i], "in_force", true)};
	rc = rc ? rc : ARRAY_OF(v, "recovered", run->recovered, run->nrecovered, NULL);
	for (unsigned i = 0; !rc && i < run->nrecovered; i++)
		run->recovered[i] = (struct record_recovered){
		    .note = json_get_str(&rec->kids[i], "note"),
		    .not_ok = flag_is(&rec->kids[i], "ok", false),
		    .malformed = flag_is(&rec->kids[i], "malformed", true)};
	return rc;
}

int record_run_read(const struct json_val *v, struct record_run *run)
{
	enum hp_status st;
	int rc;

	memset(run, 0, sizeof(*run));
	run->format = json_get_num(v, "format");
	run->version = json_get_str(v, "version");
	run->kernel = json_get_str(v, "kernel");
	run->status_word = json_get_str(v, "status");
	run->status = result_status_parse(run->status_word, &st) ? -1 : (int)st;
	run->error = json_get_str(v, "error");
	run->boot_id = json_get_str(v, "boot_id");
	run->started_unix = json_get_num(v, "started_unix");
	run->started_boot_ms = json_get_num(v, "started_boot_ms");
	run->duration_ms = json_get_num(v, "duration_ms");
	run->threads = num_or_old(v, "threads", "workers"); /* format 2 */
	run->initramfs = flag_is(v, "initramfs", true);
	vmemmap_read(json_get(v, "vmemmap"), &run->vmemmap);
	rc = settings_read(json_get(v, "settings"), &run->settings);
	rc = rc ? rc : sizes_read(v, run);
	rc = rc ? rc : nodes_read(v, run);
	rc = rc ? rc : lists_read(v, run);
	if (rc)
		record_run_free(run);
	return rc;
}

void record_run_free(struct record_run *run)
{
	for (unsigned i = 0; run->nodes && i < run->nnodes; i++)
		free(run->nodes[i].cells);
	free(run->nodes);
	free(run->sizes);
	free(run->setters);
	free(run->recovered);
	free(run->settings.devices);
	free(run->settings.problems);
	free(run->settings.notices);
	memset(run, 0, sizeof(*run));
}
