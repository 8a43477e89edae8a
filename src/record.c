/* SPDX-License-Identifier: GPL-2.0-or-later */
/* record.c - the JSON record under /run/hugepar, the kernel log line, hugepar status. */
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

#include "file.h"
#include "json.h"
#include "kparams.h"
#include "macros.h"
#include "parse.h"
#include "path.h"
#include "record.h"
#include "report.h"
#include "setlist.h"
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
	int rc = state_dir_check(dir, true);

	if (rc)
		return rc;
	if (xsnprintf(final, sizeof(final), "%s/%s", dir, HP_RECORD_FILE))
		return -ENAMETOOLONG;
	return replace_file_with(final, json_file, &b);
}

/* A record_log() line, at most, and the kernel log's word on a 1G shortfall. */
#define RECORD_LOG_LINE 512
#define ROUTE_LOG                                                                          \
	"%s pages short: the kernel's own boot-time allocation would reserve them before " \
	"memory fragments: add '%s' to the kernel command line"

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

		format_size_kb(f->kb, sz, sizeof(sz));
		recovery_describe(f, line, sizeof(line));
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

	format_size_kb(t->sizes[z].kb, sz, sizeof(sz));
	json_open(j, NULL, '{');
	json_str(j, "size", sz);
	json_u64(j, "kb", t->sizes[z].kb);
	json_bool(j, "worked", sr->worked);
	json_str(j, "method", sr->worked ? method_name(sr->method) : "none");
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
static void cell_json(struct json_out *j, const struct full *a, unsigned n, unsigned z)
{
	const struct hp_topology *t = a->t;
	const struct hp_cell *c = plan_cell(a->p, n, z);
	const struct hp_cell_result *cr = &a->res->cells[n * t->nsizes + z];
	char sz[16];

	format_size_kb(t->sizes[z].kb, sz, sizeof(sz));
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
	json_str(j, "status", status_name(cr->status));
	json_str(j, "reason", cr->reason);
	json_str(j, "cause", cr->cause ? cr->cause : "");
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
	header(j, a, status_name(r->status));
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
	report_settings_json(j, a->s);
	recovered_json(j, a->rec);
	setlist_json(j, a->st);
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
	json_u64(j, "started_boot_ms", boottime_ms());
	report_settings_json(j, a->s);
	recovered_json(j, a->rec);
	setlist_json(j, NULL);
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

/* A count the record names one way now and another in format 2 (threads were
 * "workers" there). */
uint64_t record_num(const struct json_val *v, const char *name, const char *old)
{
	const struct json_val *m = json_get(v, name);

	return m && m->type == JSON_NUM ? m->num : json_get_num(v, old);
}

/* Whether standard output is the journal: systemd names the stream it connects a
 * service's output to in JOURNAL_STREAM, as "DEVICE:INODE" (systemd.exec(5)). */
bool record_stdout_journal(void)
{
	const char *p = getenv("JOURNAL_STREAM");
	uint64_t dev, ino;
	struct stat st;

	if (!p || parse_u64_at(&p, &dev) || *p++ != ':' || parse_u64_at(&p, &ino) || *p)
		return false;
	return fstat(STDOUT_FILENO, &st) == 0 && (uint64_t)st.st_dev == dev &&
	       (uint64_t)st.st_ino == ino;
}

/* One line to standard output and to the kernel log (when it can be opened). Where
 * standard output is the journal, the journal also reads the kernel log, so the line
 * goes there once, from the unit, its level in systemd's "<N>" prefix. */
void record_log(int level, const char *fmt, ...)
{
	char line[RECORD_LOG_LINE], kmsg[4096];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	text_printable(line); /* a setting's bytes must not drive a terminal */
	if (record_stdout_journal()) {
		printf("<%d>hugepar: %s\n", level, line);
		fflush(stdout);
		return;
	}
	printf("hugepar: %s\n", line);
	fflush(stdout);
	if (path_build(kmsg, sizeof(kmsg), "/dev/kmsg"))
		return;
	fd = open(kmsg, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return;
	/* One write is one kernel log record. */
	n = snprintf(kmsg, sizeof(kmsg), "<%d>hugepar: %s\n", level, line);
	if (n > 0 && write(fd, kmsg, MIN((size_t)n, sizeof(kmsg) - 1)) < 0)
		n = -errno; /* the log is best effort */
	close(fd);
}

/* The summary's per-size part: ", 2M 400/400 pages (parallel)" for each size that
 * worked, with what was asked when keep_free or the free memory capped it. */
static void kmsg_sizes(const struct hp_topology *t, const struct hp_plan *p,
		       const struct hp_result *res, char *sizes, size_t len)
{
	char sz[16];
	size_t pos = 0;

	for (unsigned z = 0; z < t->nsizes; z++) {
		uint64_t target = 0, got = 0, asked = 0;
		bool over = false, over_asked = false;
		char more[80] = "", threads[40] = "";

		if (!res->sizes[z].worked)
			continue;
		/* totals saturate: a wrapped one would say less than was asked */
		for (unsigned n = 0; n < t->nnodes; n++) {
			const struct hp_cell *c = plan_cell(p, n, z);

			target = add_sat(target, c->target, &over);
			asked =
			    add_sat(asked, c->requested_set ? c->requested : c->target,
				    &over_asked);
			got = add_sat(got, res->cells[n * t->nsizes + z].achieved, &over);
		}
		/* A pool at its target can still be short of what was asked: say so,
		 * or "9444/9444" beside "partial" explains nothing. */
		if (asked > target || over_asked)
			snprintf(more, sizeof(more), ", %s%llu asked: capped",
				 over_asked ? "more than " : "",
				 (unsigned long long)asked);
		if (res->sizes[z].workers_peak)
			snprintf(threads, sizeof(threads), ", %u thread%s at once",
				 res->sizes[z].workers_peak,
				 res->sizes[z].workers_peak == 1 ? "" : "s");
		format_size_kb(t->sizes[z].kb, sz, sizeof(sz));
		pos += snprintf(sizes + pos, len - pos, ", %s %llu/%llu pages (%s%s%s)", sz,
				(unsigned long long)got, (unsigned long long)target,
				method_name(res->sizes[z].method), threads, more);
		if (pos >= len)
			break;
	}
}

/* A warning for each node and size that is partial, failed or capped. */
static void kmsg_cells(const struct hp_topology *t, const struct hp_result *res)
{
	char sz[16];

	for (unsigned n = 0; n < t->nnodes; n++)
		for (unsigned z = 0; z < t->nsizes; z++) {
			const struct hp_cell_result *cr = &res->cells[n * t->nsizes + z];

			if (cr->status != HP_STATUS_PARTIAL &&
			    cr->status != HP_STATUS_FAILED &&
			    cr->status != HP_STATUS_CAPPED)
				continue;
			format_size_kb(t->sizes[z].kb, sz, sizeof(sz));
			record_log(LOG_WARNING, "node %u %s: %s, %s", t->nodes[n].id, sz,
				   status_name(cr->status), cr->reason);
		}
}

/* For a gigantic size short on a node: the kernel's own boot-time route. */
static void kmsg_routes(const struct hp_topology *t, const struct hp_plan *p,
			const struct hp_result *res)
{
	char sz[16];

	for (unsigned z = 0; z < t->nsizes; z++) {
		char *route = kparams_boot_route(t, p, res, z);

		if (!route)
			continue;
		format_size_kb(t->sizes[z].kb, sz, sizeof(sz));
		/* a route too long for one log line is named, not cut */
		if (snprintf(NULL, 0, ROUTE_LOG, sz, route) < RECORD_LOG_LINE)
			record_log(LOG_WARNING, ROUTE_LOG, sz, route);
		else
			record_log(
			    LOG_WARNING,
			    "%s pages short: the kernel's own boot-time allocation "
			    "would reserve them before memory fragments: the record's "
			    "kernel_route has the parameters (hugepar status)",
			    sz);
		free(route);
	}
}

void record_kmsg_setters(const struct hp_setters *st)
{
	for (unsigned i = 0; st && i < st->n; i++)
		if (st->s[i].in_force)
			record_log(LOG_WARNING, "%s: %s: %s", st->s[i].origin,
				   st->s[i].setting, st->s[i].effect);
}

void record_kmsg(const struct hp_topology *t, const struct hp_plan *p,
		 const struct hp_result *res, const struct hp_recovery *rec)
{
	char sizes[256] = "", line[256];

	for (unsigned i = 0; rec && i < rec->n; i++) {
		recovery_describe(&rec->fix[i], line, sizeof(line));
		record_log(restore_fix_failed(&rec->fix[i]) ? LOG_ERR : LOG_WARNING, "%s",
			   line);
	}
	if (res->status == HP_STATUS_DISABLED) {
		record_log(LOG_INFO, "disabled, nothing done");
		return;
	}
	kmsg_sizes(t, p, res, sizes, sizeof(sizes));
	for (unsigned i = 0; !sizes[0] && i < p->nnodes * p->nsizes; i++)
		if (p->cells[i].requested_set)
			snprintf(sizes, sizeof(sizes), ", nothing to do");
	if (!sizes[0])
		snprintf(sizes, sizeof(sizes), ", nothing configured (no pages entry)");
	record_log(res->status == HP_STATUS_OK	     ? LOG_INFO
		   : res->status == HP_STATUS_FAILED ? LOG_ERR
						     : LOG_WARNING,
		   "%s in %llu ms on %u node%s%s%s%s",
		   status_name(res->status), (unsigned long long)res->duration_ms,
		   t->nnodes, t->nnodes == 1 ? "" : "s",
		   sizes, res->error[0] ? ": " : "",
		   res->error);
	kmsg_cells(t, res);
	kmsg_routes(t, p, res);
}
