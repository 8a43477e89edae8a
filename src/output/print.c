/* SPDX-License-Identifier: GPL-2.0-or-later */
/* print.c - hugepar status: the last record shown as tables, as JSON or for Prometheus. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advice.h"
#include "macros.h"
#include "parse.h"
#include "print.h"
#include "prometheus.h"
#include "read.h"
#include "result.h"
#include "report.h"
#include "setlist.h"
#include "settings.h"
#include "text.h"

/* The sizes that had work, each with how it was done: the most threads at work at
 * once (a record of format 3 and before did not count them: "-"), and why a size
 * went serial. */
static void show_sizes(FILE *f, const struct record_run *run)
{
	unsigned shown = 0;

	for (unsigned i = 0; i < run->nsizes; i++) {
		const struct record_size *z = &run->sizes[i];
		char threads[24] = "-";

		if (!z->worked)
			continue;
		if (!shown++)
			fprintf(f, "\n%-5s %-9s %8s %9s  %s\n", "SIZE", "METHOD",
				"THREADS", "TIME", "NOTE");
		if (z->threads_peak)
			snprintf(threads, sizeof(threads), "%llu",
				 (unsigned long long)z->threads_peak);
		fprintf(f, "%-5s %-9s %8s %6llu ms%s%s\n", z->size, z->method, threads,
			(unsigned long long)z->ms, z->method_note[0] ? "  " : "",
			z->method_note);
	}
	for (unsigned i = 0; i < run->nsizes; i++)
		if (run->sizes[i].error[0])
			fprintf(f, "%s: %s\n", run->sizes[i].size, run->sizes[i].error);
}

/* A cell's row: a pool, or something asked. */
static bool cell_shown(const struct record_cell *c)
{
	return c->requested_set || c->before || c->achieved;
}

/* The memory of a count of pages of the cell's size ("2M"). */
static void cell_memory(const struct record_cell *c, uint64_t pages, char *buf,
			size_t len)
{
	uint64_t size, bytes;

	if (!pages)
		snprintf(buf, len, "0");
	else if (parse_bytes(c->size, &size) || !mul_u64(pages, size, &bytes))
		snprintf(buf, len, "?");
	else
		text_bytes(bytes, buf, len);
}

static void show_cell(FILE *f, const struct record_node *nd, const struct record_cell *c)
{
	char req[32] = "-", mem[32];

	if (c->requested_set)
		snprintf(req, sizeof(req), "%llu", (unsigned long long)c->requested);
	cell_memory(c, c->achieved, mem, sizeof(mem));
	fprintf(f, "%-5llu %-5s %8llu %9s %8llu %8llu %8s %6llu ms  %-*s%s\n",
		(unsigned long long)nd->node, c->size, (unsigned long long)c->before, req,
		(unsigned long long)c->target, (unsigned long long)c->achieved, mem,
		(unsigned long long)c->ms, c->reason[0] ? 10 : 0, c->status_word,
		c->reason);
}

/* The node table, where a cell has a row; returns the rows. */
static unsigned show_nodes(FILE *f, const struct record_run *run)
{
	unsigned rows = 0;

	for (unsigned i = 0; i < run->nnodes; i++) {
		const struct record_node *nd = &run->nodes[i];

		for (unsigned k = 0; k < nd->ncells; k++) {
			if (!cell_shown(&nd->cells[k]))
				continue;
			if (!rows++)
				fprintf(f,
					"\n%-5s %-5s %8s %9s %8s %8s %8s %9s  %-9s %s\n",
					"NODE", "SIZE", "BEFORE", "REQUESTED", "TARGET",
					"ACHIEVED", "MEMORY", "TIME", "STATUS", "REASON");
			show_cell(f, nd, &nd->cells[k]);
		}
	}
	return rows;
}

/* Why counts were rounded, once under the table, as plan says it. */
static void show_rounded(FILE *f, const struct record_run *run)
{
	for (unsigned i = 0; i < run->nnodes; i++)
		for (unsigned k = 0; k < run->nodes[i].ncells; k++) {
			const struct record_cell *c = &run->nodes[i].cells[k];

			if (!c->unrounded_set || c->unrounded <= c->target)
				continue;
			report_rounding(f, run->settings.granularity);
			return;
		}
}

/* The devices the entries named, and the node each stood for (an older record has
 * none to show). */
static void show_devices(FILE *f, const struct record_settings *set)
{
	if (!set->ndevices)
		return;
	fprintf(f, "\nDevices in the settings:\n");
	for (unsigned i = 0; i < set->ndevices; i++) {
		const struct record_device *d = &set->devices[i];

		if (d->node_set)
			fprintf(f, "  %s: node %llu (%s)\n", d->device,
				(unsigned long long)d->node, d->entry);
		else
			fprintf(f, "  %s: no node, skipped (%s)\n", d->device, d->entry);
	}
}

/* Problems or notices of the settings, as plan shows them. */
static void show_problems(FILE *f, const char *title, const struct record_issue *list,
			  unsigned n)
{
	if (!n)
		return;
	fprintf(f, "\n%s:\n", title);
	for (unsigned i = 0; i < n; i++) {
		const struct record_issue *p = &list[i];

		if (p->key[0])
			fprintf(f, "  %s: %s%s%s: %s\n", p->origin, p->key,
				p->value[0] ? "=" : "", p->value, p->message);
		else
			fprintf(f, "  %s: %s\n", p->origin, p->message);
	}
}

static void show_notes(FILE *f, const struct record_run *run)
{
	const struct record_settings *set = &run->settings;

	for (unsigned i = 0; i < run->nrecovered; i++)
		fprintf(f, "left by an earlier run: %s\n", run->recovered[i].note);
	show_devices(f, set);
	show_problems(f, "Problems in the settings", set->problems, set->nproblems);
	show_problems(f, "Notices", set->notices, set->nnotices);
}
/* The record's other setters of the pools, then those of now it has not. */
static void show_setters(FILE *f, const struct record_run *run,
			 const struct hp_setters *now)
{
	struct hp_setters *all = calloc(1, sizeof(*all));

	if (!all)
		return;
	for (unsigned i = 0; i < run->nsetters && all->n < HP_SETTERS_MAX; i++) {
		struct hp_setter *s = &all->s[all->n++];

		snprintf(s->origin, sizeof(s->origin), "%s", run->setters[i].origin);
		snprintf(s->setting, sizeof(s->setting), "%s", run->setters[i].setting);
		snprintf(s->effect, sizeof(s->effect), "%s", run->setters[i].effect);
		s->in_force = run->setters[i].in_force;
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
/* The vmemmap optimization, where the run had it on or tried: what came back, in all
 * (the kernel's count where it keeps one) and per node. */
static void show_vmemmap(FILE *f, const struct record_run *run)
{
	const struct record_vmemmap *v = &run->vmemmap;
	char b[32];

	if (!v->listed || (!v->on && !v->error[0] && strcmp(v->setting, "optimize")))
		return;
	if (v->error[0] || !v->on) {
		fprintf(f, "\nVmemmap optimization: off (%s%s%s)\n", v->why, v->error[0] ? ": " : "",
			v->error);
		return;
	}
	text_bytes((uint64_t)(v->freed_kb > 0 ? v->freed_kb : 0) * 1024, b, sizeof(b));
	fprintf(f, "\nVmemmap optimization: on (%s): %s of page descriptors given back (%s)",
		strcmp(v->why, "turned_on") ? "on before hugepar" : "turned on by hugepar", b,
		strcmp(v->source, "kernel") ? "28 kB a 2M page" : "the kernel's count");
	for (unsigned n = 0; n < run->nnodes; n++) {
		uint64_t kb = 0;

		for (unsigned i = 0; i < run->nodes[n].ncells; i++)
			kb += run->nodes[n].cells[i].vmemmap_freed_kb;
		text_bytes(kb * 1024, b, sizeof(b));
		fprintf(f, "%snode %llu %s", n ? ", " : "; ",
			(unsigned long long)run->nodes[n].node, b);
	}
	fputc('\n', f);
}

static void print_text(FILE *f, const struct hp_record *r, const struct hp_setters *now)
{
	const struct record_run *run = &r->run;
	uint64_t boot = run->started_boot_ms;
	bool disabled = run->status == HP_STATUS_DISABLED;

	fprintf(
	    f,
	    "hugepar %s on Linux %s: %s in %llu ms, started %llu.%03llu s after boot\n",
	    run->version, run->kernel, run->status_word,
	    (unsigned long long)run->duration_ms, (unsigned long long)boot / 1000,
	    (unsigned long long)boot % 1000);
	if (run->error[0])
		fprintf(f, "error: %s\n", run->error);
	else if (disabled)
		fprintf(f, "Disabled by %s: no pool was changed.\n",
			run->settings.enabled_by[0] ? run->settings.enabled_by
						    : "the settings");
	if (!disabled && run->settings.pages_listed && !run->settings.npages &&
	    !run->error[0])
		fputs(
		    "Nothing was configured: the run read no pages entry (hugepar.conf(5)), "
		    "so it changed no pool.\n",
		    f);
	show_notes(f, run);
	if (!disabled) {
		show_sizes(f, run);
		show_vmemmap(f, run);
		if (show_nodes(f, run))
			show_rounded(f, run);
	}
	show_setters(f, run, now);
	advice_print(f, run);
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
	print_text(mem, r, now);
	if (fclose(mem) == 0)
		text_put_printable(f, buf);
	free(buf);
}
