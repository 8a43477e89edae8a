/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prometheus.c - the record in Prometheus' text exposition format (hugepar status
 * --format=prometheus, node_exporter's textfile collector). */
#include <stdio.h>
#include <string.h>

#include "macros.h"
#include "parse.h"
#include "read.h"
#include "result.h"
#include "prometheus.h"

static void head(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

/* A label value: backslash, double quote and newline escaped. */
static void value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void cell(FILE *f, const char *name, const struct record_node *nd,
		 const struct record_cell *c)
{
	fprintf(f, "%s{node=\"%llu\",size=\"", name, (unsigned long long)nd->node);
	value(f, c->size);
	fputs("\"}", f);
}

/* The figures of a cell that are gauges. */
enum cell_figure { FIG_REQUESTED, FIG_TARGET, FIG_ACHIEVED, FIG_BEFORE, FIG_MS, FIG_VMEMMAP };

/* A cell's figure; false where it has none ("requested": null when nothing was
 * asked). */
static bool figure(const struct record_cell *c, enum cell_figure fig, uint64_t *out)
{
	switch (fig) {
	case FIG_REQUESTED:
		*out = c->requested;
		return c->requested_set;
	case FIG_TARGET:
		*out = c->target;
		break;
	case FIG_ACHIEVED:
		*out = c->achieved;
		break;
	case FIG_BEFORE:
		*out = c->before;
		break;
	case FIG_MS:
		*out = c->ms;
		break;
	case FIG_VMEMMAP:
		*out = c->vmemmap_freed_kb * 1024;
		break;
	}
	return true;
}

/* One gauge per node and size, from a figure of the record's cells (milliseconds
 * shown as seconds, the base unit). */
static void cells(FILE *f, const struct record_run *run, const char *name,
		  enum cell_figure fig, const char *help)
{
	head(f, name, help);
	for (unsigned i = 0; i < run->nnodes; i++) {
		const struct record_node *nd = &run->nodes[i];

		for (unsigned k = 0; k < nd->ncells; k++) {
			uint64_t m = 0;

			if (!figure(&nd->cells[k], fig, &m))
				continue;
			cell(f, name, nd, &nd->cells[k]);
			if (fig == FIG_MS)
				fprintf(f, " %.3f\n", m / 1000.0);
			else
				fprintf(f, " %llu\n", (unsigned long long)m);
		}
	}
}

static void live_pages(FILE *f, const struct record_run *run, const struct hp_topology *t)
{
	head(f, "hugepar_live_pages", "Persistent huge pages in the node's pool now.");
	for (unsigned i = 0; i < run->nnodes; i++) {
		const struct record_node *nd = &run->nodes[i];
		int n = topology_node_index(t, (unsigned)nd->node);

		for (unsigned k = 0; n >= 0 && k < nd->ncells; k++) {
			const struct record_cell *c = &nd->cells[k];
			uint64_t bytes;
			int z;

			if (parse_bytes(c->size, &bytes) ||
			    (z = topology_size_index(t, bytes / 1024)) < 0)
				continue;
			cell(f, "hugepar_live_pages", nd, c);
			fprintf(
			    f, " %llu\n",
			    (unsigned long long)pool_persistent(&t->nodes[n].pool[z]));
		}
	}
}

/* Each cell's status, one gauge per status a cell can have. */
static void cell_states(FILE *f, const struct record_run *run)
{
	static const enum hp_status states[] = {HP_STATUS_OK, HP_STATUS_CAPPED,
						HP_STATUS_PARTIAL, HP_STATUS_FAILED,
						HP_STATUS_UNCHANGED};

	head(f, "hugepar_cell_status",
	     "Each node and size's outcome: 1 for its status, 0 for the others.");
	for (unsigned i = 0; i < run->nnodes; i++) {
		const struct record_node *nd = &run->nodes[i];

		for (unsigned k = 0; k < nd->ncells; k++)
			for (size_t s = 0; s < ARRAY_SIZE(states); s++) {
				fprintf(f, "hugepar_cell_status{node=\"%llu\",size=\"",
					(unsigned long long)nd->node);
				value(f, nd->cells[k].size);
				fprintf(f, "\",status=\"%s\"} %d\n",
					result_status_name(states[s]),
					nd->cells[k].status == (int)states[s]);
			}
	}
}

/* Per node and page size the pages requested, planned, achieved, there before and
 * there now, each cell's status; the run's status, duration and time. */
void prometheus_record(FILE *f, const struct hp_record *r, const struct hp_topology *live)
{
	static const enum hp_status run_states[] = {HP_STATUS_OK, HP_STATUS_PARTIAL,
						    HP_STATUS_FAILED, HP_STATUS_DISABLED};
	const struct record_run *run = &r->run;

	head(f, "hugepar_info", "The hugepar run that made the record.");
	fputs("hugepar_info{version=\"", f);
	value(f, run->version);
	fputs("\",kernel=\"", f);
	value(f, run->kernel);
	fputs("\"} 1\n", f);
	head(f, "hugepar_run_status",
	     "The run's outcome: 1 for its status, 0 for the others.");
	for (size_t i = 0; i < ARRAY_SIZE(run_states); i++)
		fprintf(f, "hugepar_run_status{status=\"%s\"} %d\n",
			result_status_name(run_states[i]),
			run->status == (int)run_states[i]);
	head(f, "hugepar_run_duration_seconds", "How long the run took.");
	fprintf(f, "hugepar_run_duration_seconds %.3f\n", run->duration_ms / 1000.0);
	head(f, "hugepar_run_start_time_seconds", "When the run started, in Unix time.");
	fprintf(f, "hugepar_run_start_time_seconds %llu\n",
		(unsigned long long)run->started_unix);
	head(f, "hugepar_run_threads",
	     "Threads (worker processes) planned, all nodes and sizes.");
	fprintf(f, "hugepar_run_threads %llu\n", (unsigned long long)run->threads);

	cells(f, run, "hugepar_requested_pages", FIG_REQUESTED, "Huge pages asked for.");
	cells(
	    f, run, "hugepar_target_pages", FIG_TARGET,
	    "Huge pages planned: the request after keep_free, free memory and the mode.");
	cells(f, run, "hugepar_achieved_pages", FIG_ACHIEVED,
	      "Persistent huge pages in the pool when the run ended.");
	cells(f, run, "hugepar_before_pages", FIG_BEFORE,
	      "Persistent huge pages in the pool before the run.");
	cells(f, run, "hugepar_reserve_duration_seconds", FIG_MS,
	      "Time spent reserving on the node for the size.");
	head(f, "hugepar_vmemmap_on",
	     "1 when the kernel's vmemmap optimization was on while the run reserved.");
	fprintf(f, "hugepar_vmemmap_on %d\n", run->vmemmap.on);
	head(f, "hugepar_vmemmap_freed_bytes",
	     "Page descriptors given back by the run, the kernel's count where it keeps one.");
	fprintf(f, "hugepar_vmemmap_freed_bytes %lld\n", (long long)run->vmemmap.freed_kb * 1024);
	cells(f, run, "hugepar_vmemmap_node_freed_bytes", FIG_VMEMMAP,
	      "Page descriptors the node's new pages of the size gave back (vmemmap).");
	if (live)
		live_pages(f, run, live);
	cell_states(f, run);
	head(f, "hugepar_size_duration_seconds",
	     "Time spent on a page size (sizes run at once).");
	for (unsigned i = 0; i < run->nsizes; i++) {
		fputs("hugepar_size_duration_seconds{size=\"", f);
		value(f, run->sizes[i].size);
		fprintf(f, "\"} %.3f\n", run->sizes[i].ms / 1000.0);
	}
}
