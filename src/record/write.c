/* SPDX-License-Identifier: GPL-2.0-or-later */
/* write.c - a run's record, written as JSON under /run/hugepar (doc/record.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <syslog.h>
#include <unistd.h>

#include "text.h"
#include "file.h"
#include "json.h"
#include "kparams.h"
#include "macros.h"
#include "parse.h"
#include "path.h"
#include "write.h"
#include "restore.h"
#include "sys.h"
#include "version.h"

typedef void (*body_fn)(struct json_out *j, const void *arg);

struct json_body {
	body_fn body;
	const void *arg;
};

static void json_file(FILE *f, const void *arg)
{
	const struct json_body *b = arg;
	struct json_out j;

	json_begin(&j, f);
	b->body(&j, b->arg);
	json_end(&j);
}

/* Write the record through a temp file in the same directory, then rename it. */
static int write_atomic(const char *dir, body_fn body, const void *arg)
{
	const struct json_body b = {body, arg};
	char final[4096];
	int rc = restore_dir_check(dir, true);

	if (rc)
		return rc;
	if (text_snprintf(final, sizeof(final), "%s/%s", dir, HP_RECORD_FILE))
		return -ENAMETOOLONG;
	return file_replace_with(final, json_file, &b);
}

struct full {
	const struct hp_settings *s;
	const struct hp_topology *t;
	const struct hp_plan *p;
	const struct hp_result *res;
	const struct hp_recovery *rec;
	const struct hp_setters *st;
	const char *why;
	const char *status; /* of a short record: "failed" when NULL */
};

static void recovered_json(struct json_out *j, const struct hp_recovery *rec)
{
	json_open(j, "recovered", '[');
	for (unsigned i = 0; rec && i < rec->n; i++) {
		const struct restore_fix *f = &rec->fix[i];
		char sz[16], line[256];

		text_size_kb(f->kb, sz, sizeof(sz));
		restore_describe(f, line, sizeof(line));
		json_open(j, NULL, '{');
		json_str(j, "size", sz);
		json_u64(j, "pid", f->pid > 0 ? (uint64_t)f->pid : 0);
		json_u64(j, "overcommit_found", f->found);
		json_u64(j, "overcommit_put_back",
			 f->rc || f->changed_since ? f->found : f->before);
		json_bool(j, "ok", f->rc == 0);
		json_bool(j, "malformed", f->malformed);
		json_str(j, "note", line);
		json_close(j, '}');
	}
	json_close(j, ']');
}

static void header(struct json_out *j, const struct full *a, const char *status)
{
	struct utsname u;

	if (uname(&u))
		strcpy(u.release, "unknown");
	json_u64(j, "format", HP_RECORD_FORMAT);
	json_str(j, "version", HUGEPAR_VERSION);
	/* the kernel whose pools these are (under --sysroot, the tree's) */
	json_str(j, "kernel", a->t && a->t->release[0] ? a->t->release : u.release);
	json_str(j, "status", status);
}

/* The most threads the plan lets the size have at once, all nodes together. */
static uint64_t size_threads(const struct full *a, unsigned z)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < a->t->nnodes; i++)
		n += plan_cell(a->p, i, z)->workers;
	return n;
}

/* One size's line of the record's "sizes". */
static void size_json(struct json_out *j, const struct full *a, unsigned z)
{
	const struct hp_topology *t = a->t;
	const struct hp_size_result *sr = &a->res->sizes[z];
	char sz[16], *route;

	text_size_kb(t->sizes[z].kb, sz, sizeof(sz));
	json_open(j, NULL, '{');
	json_str(j, "size", sz);
	json_u64(j, "kb", t->sizes[z].kb);
	json_bool(j, "worked", sr->worked);
	json_str(j, "method", sr->worked ? result_method_name(sr->method) : "none");
	json_str(j, "method_note", sr->method_note);
	if (sr->failure[0] && sr->afterwards[0]) {
		char both[272];

		snprintf(both, sizeof(both), "%s; %s", sr->failure, sr->afterwards);
		json_str(j, "error", both);
	} else {
		json_str(j, "error", sr->failure[0] ? sr->failure : sr->afterwards);
	}
	json_u64(j, "threads", size_threads(a, z));
	json_u64(j, "threads_peak", sr->workers_peak);
	json_u64(j, "threads_started", sr->workers);
	json_u64(j, "ms", sr->ms);
	json_u64(j, "start_ms", sr->start_ms);
	json_u64(j, "overcommit_before",
		 sr->worked ? sr->overcommit_before : t->sizes[z].overcommit);
	json_u64(j, "overcommit_after",
		 sr->worked ? sr->overcommit_after : t->sizes[z].overcommit);
	json_u64(j, "surplus_before",
		 sr->worked ? sr->surplus_before : t->sizes[z].pool.surplus);
	json_u64(j, "surplus_after",
		 sr->worked ? sr->surplus_after : t->sizes[z].pool.surplus);
	json_u64(j, "chunks", sr->chunks);
	json_u64(j, "chunks_refused", sr->enomem);
	json_u64(j, "trimmed", sr->trimmed);
	json_u64(j, "topped_up", sr->topped_up);
	json_u64(j, "pages_by_threads", sr->pages_by_workers);
	route = kparams_boot_route(t, a->p, a->res, z);
	json_str(j, "kernel_route", route ? route : "");
	free(route);
	json_close(j, '}');
}

/* The pages of the pool hugepar has reserved in this boot once this run is done: what
 * it had (the plan's own), less what it gave back, plus what it added. */
static uint64_t own_after(const struct hp_cell *c, const struct hp_cell_result *cr)
{
	uint64_t sum = c->own + cr->achieved;

	return MIN(sum > cr->before ? sum - cr->before : 0, cr->achieved);
}

/* One cell (node n, size z) of a node's "sizes". */
/* The descriptors a cell's pages gave back: those the run added, optimized. */
static uint64_t vmemmap_cell_kb(const struct full *a, unsigned n, unsigned z)
{
	const struct hp_cell_result *cr = &a->res->cells[n * a->t->nsizes + z];

	if (!a->res->vmemmap.on || cr->achieved <= cr->before)
		return 0;
	return (cr->achieved - cr->before) *
	       vmemmap_saving_kb(a->t->sizes[z].kb, a->t->page_kb);
}

/* The run's vmemmap optimization: the setting, on or not and why, and what it gave
 * back: the kernel's count where it keeps one, else the pages times their figure. */
static void vmemmap_json(struct json_out *j, const struct full *a)
{
	const struct hp_vmemmap_result *v = &a->res->vmemmap;
	uint64_t computed = 0, page_kb = a->t->page_kb ? a->t->page_kb : 4;

	for (unsigned n = 0; n < a->t->nnodes; n++)
		for (unsigned z = 0; z < a->t->nsizes; z++)
			computed += vmemmap_cell_kb(a, n, z);
	json_open(j, "vmemmap", '{');
	json_str(j, "setting", settings_vmemmap_name(a->s->vmemmap));
	json_bool(j, "on", v->on);
	json_str(j, "why", vmemmap_why_name(a->p->vmemmap.why));
	json_str(j, "error", v->error ? strerror(-v->error) : "");
	json_u64(j, "freed_kb_computed", computed);
	if (v->counted) {
		json_i64(j, "freed_kb", ((int64_t)v->memmap_before - (int64_t)v->memmap_after) *
					    (int64_t)page_kb);
		json_str(j, "source", "kernel");
	} else {
		json_u64(j, "freed_kb", computed);
		json_str(j, "source", "computed");
	}
	json_close(j, '}');
}

static void cell_json(struct json_out *j, const struct full *a, unsigned n, unsigned z)
{
	const struct hp_topology *t = a->t;
	const struct hp_cell *c = plan_cell(a->p, n, z);
	const struct hp_cell_result *cr = &a->res->cells[n * t->nsizes + z];
	char sz[16];

	text_size_kb(t->sizes[z].kb, sz, sizeof(sz));
	json_open(j, NULL, '{');
	json_str(j, "size", sz);
	json_u64(j, "before", cr->before);
	if (c->requested_set)
		json_u64(j, "requested", c->requested);
	else
		json_null(j, "requested");
	json_u64(j, "target", c->target);
	json_u64(j, "achieved", cr->achieved);
	json_u64(j, "own", own_after(c, cr));
	json_u64(j, "vmemmap_freed_kb", vmemmap_cell_kb(a, n, z));
	json_u64(j, "threads", c->workers);
	json_u64(j, "threads_peak", cr->workers.workers_peak);
	json_u64(j, "threads_started", cr->workers.workers_started);
	json_u64(j, "threads_settled", cr->workers.workers_settled);
	json_open(j, "threads_rates", '[');
	for (unsigned k = 0; k < cr->workers.nrates && k < ADAPT_MAX_RATES; k++) {
		json_open(j, NULL, '[');
		json_u64(j, NULL, cr->workers.rates[k].workers);
		json_u64(j, NULL, cr->workers.rates[k].pages_per_s);
		json_close(j, ']');
	}
	json_close(j, ']');
	json_str(j, "threads_why", cr->workers.workers_why);
	json_u64(j, "granularity", c->granularity);
	if (c->rounded)
		json_u64(j, "unrounded", c->unrounded);
	else
		json_null(j, "unrounded");
	json_u64(j, "ms", cr->ms);
	json_str(j, "status", result_status_name(cr->status));
	json_str(j, "reason", cr->reason);
	json_str(j, "cause", result_cause_name(cr->cause));
	json_close(j, '}');
}

static void node_json(struct json_out *j, const struct full *a, unsigned n)
{
	const struct hp_node *nd = &a->t->nodes[n];

	json_open(j, NULL, '{');
	json_u64(j, "node", nd->id);
	json_u64(j, "cpus", nd->ncpus);
	json_u64(j, "mem_total", nd->mem_total);
	json_u64(j, "mem_free", nd->mem_free);
	json_u64(j, "mem_basis", nd->mem_basis);
	json_str(j, "basis_from", nd->basis_blocks ? "memory blocks" : "MemTotal");
	json_u64(j, "keep_free", a->p->keep_free[n]);
	json_u64(j, "threads", a->p->workers[n]);
	json_open(j, "sizes", '[');
	for (unsigned z = 0; z < a->t->nsizes; z++)
		cell_json(j, a, n, z);
	json_close(j, ']');
	json_close(j, '}');
}

static void body_full(struct json_out *j, const void *arg)
{
	const struct full *a = arg;
	const struct hp_topology *t = a->t;
	const struct hp_result *r = a->res;

	json_open(j, NULL, '{');
	header(j, a, result_status_name(r->status));
	json_str(j, "error", r->error);
	json_u64(j, "started_unix", r->started_unix);
	json_u64(j, "started_boot_ms", r->started_boot_ms);
	json_u64(j, "duration_ms", r->duration_ms);
	json_bool(j, "timed_out", r->timed_out);
	json_bool(j, "interrupted", r->interrupted);
	json_bool(j, "hugetlb", t->hugetlb);
	json_str(j, "boot_id", t->boot_id);
	json_bool(j, "initramfs", t->initramfs);
	json_u64(j, "threads", a->p->workers_total);
	vmemmap_json(j, a);
	record_settings_json(j, a->s);
	recovered_json(j, a->rec);
	record_setters_json(j, a->st);
	json_open(j, "sizes", '[');
	for (unsigned z = 0; z < t->nsizes; z++)
		size_json(j, a, z);
	json_close(j, ']');
	json_open(j, "nodes", '[');
	for (unsigned n = 0; n < t->nnodes; n++)
		node_json(j, a, n);
	json_close(j, ']');
	json_close(j, '}');
}

int record_write(const char *dir, const struct hp_settings *s,
		 const struct hp_topology *t, const struct hp_plan *p,
		 const struct hp_result *res, const struct hp_recovery *rec,
		 const struct hp_setters *st)
{
	struct full a = {.s = s, .t = t, .p = p, .res = res, .rec = rec, .st = st};

	return write_atomic(dir, body_full, &a);
}

static void body_failure(struct json_out *j, const void *arg)
{
	const struct full *a = arg;

	json_open(j, NULL, '{');
	header(j, a, a->status ? a->status : "failed");
	json_str(j, "error", a->why);
	json_u64(j, "started_boot_ms", sys_boottime_ms());
	record_settings_json(j, a->s);
	recovered_json(j, a->rec);
	record_setters_json(j, NULL);
	json_open(j, "sizes", '[');
	json_close(j, ']');
	json_open(j, "nodes", '[');
	json_close(j, ']');
	json_close(j, '}');
}

int record_failure(const char *dir, const struct hp_settings *s,
		   const struct hp_recovery *rec, const char *why)
{
	struct full a = {.s = s, .rec = rec, .why = why};

	return write_atomic(dir, body_failure, &a);
}

int record_aside(const char *dir, const struct hp_settings *s, const char *why)
{
	const struct hp_recovery none = {0};
	struct full a = {.s = s, .rec = &none, .why = why, .status = "disabled"};

	return write_atomic(dir, body_failure, &a);
}

/* What was read for each device an entry names. */
static void devices_json(struct json_out *j, const struct hp_settings *s)
{
	json_open(j, "devices", '[');
	for (unsigned i = 0; i < s->ndevices; i++) {
		const struct hp_device_use *u = &s->devices[i];

		json_open(j, NULL, '{');
		json_str(j, "device", u->name);
		json_str(j, "entry", u->entry);
		json_str(j, "origin", u->origin);
		json_str(j, "pci", u->pci);
		if (u->node >= 0)
			json_u64(j, "node", (uint64_t)u->node);
		else
			json_null(j, "node");
		json_str(j, "problem", u->problem);
		json_close(j, '}');
	}
	json_close(j, ']');
}

static void problems_json(struct json_out *j, const char *name,
			  const struct hp_problem *list, unsigned n)
{
	json_open(j, name, '[');
	for (unsigned i = 0; i < n; i++) {
		json_open(j, NULL, '{');
		json_str(j, "origin", list[i].origin);
		json_str(j, "key", list[i].key);
		json_str(j, "value", list[i].value);
		json_str(j, "message", list[i].message);
		json_close(j, '}');
	}
	json_close(j, ']');
}

void record_settings_json(struct json_out *j, const struct hp_settings *s)
{
	char buf[64];

	json_open(j, "settings", '{');
	json_bool(j, "enabled", s->enabled);
	json_str(j, "enabled_by", s->enabled_by ? s->enabled_by : "");
	json_str(j, "mode", settings_mode_name(s->mode));
	values_amount_format(&s->keep_free, buf, sizeof(buf));
	json_str(j, "keep_free", buf);
	if (s->workers)
		json_u64(j, "threads", s->workers);
	else
		json_str(j, "threads", "auto");
	json_u64(j, "timeout_ms", s->timeout_ms);
	if (s->granularity_auto)
		json_str(j, "granularity", "auto");
	else {
		values_amount_format(&s->granularity, buf, sizeof(buf));
		json_str(j, "granularity", buf);
	}
	json_str(j, "on_short", settings_on_short_name(s->on_short));
	json_str(j, "vmemmap", settings_vmemmap_name(s->vmemmap));
	json_str(j, "textfile", settings_textfile(s) ? settings_textfile(s) : "none");
	json_open(j, "mounts", '[');
	for (unsigned i = 0; i < s->nmounts; i++) {
		json_open(j, NULL, '{');
		json_str(j, "mount", s->mounts[i].text);
		json_str(j, "origin", s->mounts[i].origin);
		json_close(j, '}');
	}
	json_close(j, ']');
	json_open(j, "pages", '[');
	for (unsigned i = 0; i < s->nentries; i++) {
		json_open(j, NULL, '{');
		json_str(j, "entry", s->entries[i].text);
		json_str(j, "origin", s->entries[i].origin);
		json_close(j, '}');
	}
	json_close(j, ']');
	devices_json(j, s);
	json_open(j, "sources", '[');
	for (unsigned i = 0; i < s->nsources; i++)
		json_str(j, NULL, s->sources[i]);
	json_close(j, ']');
	json_str(j, "config", s->config ? s->config : "");
	settings_digest(s, buf, sizeof(buf));
	json_str(j, "digest", buf);
	problems_json(j, "problems", s->problems, s->nproblems);
	problems_json(j, "notices", s->notices, s->nnotices);
	json_close(j, '}');
}

void record_setters_json(struct json_out *j, const struct hp_setters *st)
{
	json_open(j, "setters", '[');
	for (unsigned i = 0; st && i < st->n; i++) {
		json_open(j, NULL, '{');
		json_str(j, "origin", st->s[i].origin);
		json_str(j, "setting", st->s[i].setting);
		json_str(j, "effect", st->s[i].effect);
		json_bool(j, "in_force", st->s[i].in_force);
		json_close(j, '}');
	}
	json_close(j, ']');
}
