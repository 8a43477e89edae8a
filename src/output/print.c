/* SPDX-License-Identifier: GPL-2.0-or-later */
/* print.c - hugepar status: the last record shown as tables, as JSON or for Prometheus. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advice.h"
#include "json.h"
#include "macros.h"
#include "parse.h"
#include "print.h"
#include "prometheus.h"
#include "report.h"
#include "setlist.h"
#include "settings.h"
#include "text.h"

/* The sizes that had work, each with how it was done: the most threads at work at
 * once (a record of format 3 and before did not count them: "-"), and why a size
 * went serial. */
static void show_sizes(FILE *f, const struct json_val *arr)
{
	unsigned shown = 0;

	for (unsigned i = 0; arr && i < arr->n; i++) {
		const struct json_val *z = &arr->kids[i], *w = json_get(z, "worked");
		const struct json_val *peak = json_get(z, "threads_peak");
		char threads[24] = "-";

		if (w && w->type == JSON_BOOL && !w->b)
			continue;
		if (!shown++)
			fprintf(f, "\n%-5s %-9s %8s %9s  %s\n", "SIZE", "METHOD",
				"THREADS", "TIME", "NOTE");
		if (peak && peak->type == JSON_NUM && peak->num)
			snprintf(threads, sizeof(threads), "%llu",
				 (unsigned long long)peak->num);
		fprintf(f, "%-5s %-9s %8s %6llu ms%s%s\n", json_get_str(z, "size"),
			json_get_str(z, "method"), threads,
			(unsigned long long)json_get_num(z, "ms"),
			json_get_str(z, "method_note")[0] ? "  " : "",
			json_get_str(z, "method_note"));
	}
	for (unsigned i = 0; arr && i < arr->n; i++)
		if (json_get_str(&arr->kids[i], "error")[0])
			fprintf(f, "%s: %s\n", json_get_str(&arr->kids[i], "size"),
				json_get_str(&arr->kids[i], "error"));
}

/* A cell's row: a pool, or something asked. */
static bool cell_shown(const struct json_val *c)
{
	const struct json_val *rq = json_get(c, "requested");

	return (rq && rq->type == JSON_NUM) || json_get_num(c, "before") ||
	       json_get_num(c, "achieved");
}

/* The memory of a count of pages of the cell's size ("2M"). */
static void cell_memory(const struct json_val *c, uint64_t pages, char *buf, size_t len)
{
	uint64_t size, bytes;

	if (!pages)
		snprintf(buf, len, "0");
	else if (parse_bytes(json_get_str(c, "size"), &size) ||
		 !mul_u64(pages, size, &bytes))
		snprintf(buf, len, "?");
	else
		text_bytes(bytes, buf, len);
}

static void show_cell(FILE *f, const struct json_val *nd, const struct json_val *c)
{
	const struct json_val *rq = json_get(c, "requested");
	char req[32] = "-", mem[32];

	if (rq && rq->type == JSON_NUM)
		snprintf(req, sizeof(req), "%llu", (unsigned long long)rq->num);
	cell_memory(c, json_get_num(c, "achieved"), mem, sizeof(mem));
	fprintf(f, "%-5llu %-5s %8llu %9s %8llu %8llu %8s %6llu ms  %-*s%s\n",
		(unsigned long long)json_get_num(nd, "node"), json_get_str(c, "size"),
		(unsigned long long)json_get_num(c, "before"), req,
		(unsigned long long)json_get_num(c, "target"),
		(unsigned long long)json_get_num(c, "achieved"), mem,
		(unsigned long long)json_get_num(c, "ms"),
		json_get_str(c, "reason")[0] ? 10 : 0, json_get_str(c, "status"),
		json_get_str(c, "reason"));
}

/* The node table, where a cell has a row; returns the rows. */
static unsigned show_nodes(FILE *f, const struct json_val *arr)
{
	unsigned rows = 0;

	for (unsigned i = 0; arr && i < arr->n; i++) {
		const struct json_val *zs = json_get(&arr->kids[i], "sizes");

		for (unsigned k = 0; zs && k < zs->n; k++) {
			if (!cell_shown(&zs->kids[k]))
				continue;
			if (!rows++)
				fprintf(f,
					"\n%-5s %-5s %8s %9s %8s %8s %8s %9s  %-9s %s\n",
					"NODE", "SIZE", "BEFORE", "REQUESTED", "TARGET",
					"ACHIEVED", "MEMORY", "TIME", "STATUS", "REASON");
			show_cell(f, &arr->kids[i], &zs->kids[k]);
		}
	}
	return rows;
}

/* Why counts were rounded, once under the table, as plan says it. */
static void show_rounded(FILE *f, const struct json_val *v)
{
	const struct json_val *nodes = json_get(v, "nodes");
	const char *g = json_get_str(json_get(v, "settings"), "granularity");

	for (unsigned i = 0; nodes && i < nodes->n; i++) {
		const struct json_val *zs = json_get(&nodes->kids[i], "sizes");

		for (unsigned k = 0; zs && k < zs->n; k++) {
			const struct json_val *u = json_get(&zs->kids[k], "unrounded");

			if (!u || u->type != JSON_NUM ||
			    u->num <= json_get_num(&zs->kids[k], "target"))
				continue;
			report_rounding(f, g);
			return;
		}
	}
}

/* The devices the entries named, and the node each stood for (an older record has
 * none to show). */
static void show_devices(FILE *f, const struct json_val *devs)
{
	if (!devs || !devs->n)
		return;
	fprintf(f, "\nDevices in the settings:\n");
	for (unsigned i = 0; i < devs->n; i++) {
		const struct json_val *d = &devs->kids[i], *nd = json_get(d, "node");

		if (nd && nd->type == JSON_NUM)
			fprintf(f, "  %s: node %llu (%s)\n", json_get_str(d, "device"),
				(unsigned long long)nd->num, json_get_str(d, "entry"));
		else
			fprintf(f, "  %s: no node, skipped (%s)\n",
				json_get_str(d, "device"), json_get_str(d, "entry"));
	}
}

/* Problems or notices of the settings, as plan shows them. */
static void show_problems(FILE *f, const char *title, const struct json_val *list)
{
	if (!list || !list->n)
		return;
	fprintf(f, "\n%s:\n", title);
	for (unsigned i = 0; i < list->n; i++) {
		const struct json_val *p = &list->kids[i];

		if (json_get_str(p, "key")[0])
			fprintf(f, "  %s: %s%s%s: %s\n", json_get_str(p, "origin"),
				json_get_str(p, "key"),
				json_get_str(p, "value")[0] ? "=" : "",
				json_get_str(p, "value"), json_get_str(p, "message"));
		else
			fprintf(f, "  %s: %s\n", json_get_str(p, "origin"),
				json_get_str(p, "message"));
	}
}

static void show_notes(FILE *f, const struct json_val *v)
{
	const struct json_val *rec = json_get(v, "recovered");
	const struct json_val *set = json_get(v, "settings");

	for (unsigned i = 0; rec && i < rec->n; i++)
		fprintf(f, "left by an earlier run: %s\n",
			json_get_str(&rec->kids[i], "note"));
	show_devices(f, json_get(set, "devices"));
	show_problems(f, "Problems in the settings", json_get(set, "problems"));
	show_problems(f, "Notices", json_get(set, "notices"));
}
/* The record's other setters of the pools, then those of now it has not. */
static void show_setters(FILE *f, const struct json_val *v, const struct hp_setters *now)
{
	const struct json_val *list = json_get(v, "setters");
	struct hp_setters *all = calloc(1, sizeof(*all));

	if (!all)
		return;
	for (unsigned i = 0; list && i < list->n && all->n < HP_SETTERS_MAX; i++) {
		struct hp_setter *s = &all->s[all->n++];
		const struct json_val *in = json_get(&list->kids[i], "in_force");

		snprintf(s->origin, sizeof(s->origin), "%s",
			 json_get_str(&list->kids[i], "origin"));
		snprintf(s->setting, sizeof(s->setting), "%s",
			 json_get_str(&list->kids[i], "setting"));
		snprintf(s->effect, sizeof(s->effect), "%s",
			 json_get_str(&list->kids[i], "effect"));
		s->in_force = in && in->type == JSON_BOOL && in->b;
	}
	for (unsigned i = 0; now && i < now->n; i++) {
		bool seen = false;

		for (unsigned k = 0; k < all->n && !seen; k++)
			seen = !strcmp(all->s[k].origin, now->s[i].origin) &&
			       !strcmp(all->s[k].setting, now->s[i].setting);
		if (!seen && all->n < HP_SETTERS_MAX)
			all->s[all->n++] = now->s[i];
		else
			all->more |= !seen;
	}
	setlist_text(f, all);
	free(all);
}

/* The text form: the record's strings are the settings' and the kernel's, and a
 * terminal must not be driven by what a setting holds (an escape sequence, a
 * control character): written to a buffer, then put out printable. */
static void print_text(FILE *f, const struct json_val *v, const struct hp_setters *now)
{
	uint64_t boot = json_get_num(v, "started_boot_ms");
	const struct json_val *pages = json_get(json_get(v, "settings"), "pages");

	fprintf(
	    f,
	    "hugepar %s on Linux %s: %s in %llu ms, started %llu.%03llu s after boot\n",
	    json_get_str(v, "version"), json_get_str(v, "kernel"),
	    json_get_str(v, "status"), (unsigned long long)json_get_num(v, "duration_ms"),
	    (unsigned long long)boot / 1000, (unsigned long long)boot % 1000);
	if (json_get_str(v, "error")[0])
		fprintf(f, "error: %s\n", json_get_str(v, "error"));
	else if (strcmp(json_get_str(v, "status"), "disabled") == 0)
		fprintf(f, "Disabled by %s: no pool was changed.\n",
			json_get_str(json_get(v, "settings"), "enabled_by")[0]
			    ? json_get_str(json_get(v, "settings"), "enabled_by")
			    : "the settings");
	if (strcmp(json_get_str(v, "status"), "disabled") && pages && !pages->n &&
	    !json_get_str(v, "error")[0])
		fputs(
		    "Nothing was configured: the run read no pages entry (hugepar.conf(5)), "
		    "so it changed no pool.\n",
		    f);
	show_notes(f, v);
	if (strcmp(json_get_str(v, "status"), "disabled")) {
		show_sizes(f, json_get(v, "sizes"));
		if (show_nodes(f, json_get(v, "nodes")))
			show_rounded(f, v);
	}
	show_setters(f, v, now);
	advice_print(f, v);
}

void print_record(FILE *f, const struct hp_record *r, enum hp_format format,
		  const struct hp_setters *now)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	if (format == HP_FORMAT_JSON) {
		fputs(r->text, f);
		return;
	}
	if (format == HP_FORMAT_PROMETHEUS) {
		prometheus_record(f, r, NULL);
		return;
	}
	mem = open_memstream(&buf, &len);
	if (!mem)
		return;
	print_text(mem, &r->v, now);
	if (fclose(mem) == 0)
		text_put_printable(f, buf);
	free(buf);
}
