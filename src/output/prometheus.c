/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prometheus.c - the record in Prometheus' text exposition format, for
 * `hugepar status --format=prometheus` and node_exporter's textfile collector: per
 * node and page size the pages requested, planned, achieved, there before and there
 * now, each cell's status, and the run's status, duration and time.
 */
#include <stdio.h>
#include <string.h>

#include "macros.h"
#include "parse.h"
#include "read.h"
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

static void cell(FILE *f, const char *name, const struct json_val *nd,
		 const struct json_val *c)
{
	fprintf(f, "%s{node=\"%llu\",size=\"", name,
		(unsigned long long)json_get_num(nd, "node"));
	value(f, json_get_str(c, "size"));
	fputs("\"}", f);
}

/* One gauge per node and size, from a field of the record's cells (milliseconds shown
 * as seconds, the base unit, when ms). */
static void cells(FILE *f, const struct json_val *nodes, const char *name,
		  const char *field, const char *help, bool ms)
{
	head(f, name, help);
	for (unsigned i = 0; nodes && i < nodes->n; i++) {
		const struct json_val *zs = json_get(&nodes->kids[i], "sizes");

		for (unsigned k = 0; zs && k < zs->n; k++) {
			const struct json_val *c = &zs->kids[k], *m = json_get(c, field);

			if (!m || m->type != JSON_NUM)
				continue; /* "requested": null when nothing was asked */
			cell(f, name, &nodes->kids[i], c);
			if (ms)
				fprintf(f, " %.3f\n", m->num / 1000.0);
			else
				fprintf(f, " %llu\n", (unsigned long long)m->num);
		}
	}
}

static void live_pages(FILE *f, const struct json_val *nodes, const struct hp_topology *t)
{
	head(f, "hugepar_live_pages", "Persistent huge pages in the node's pool now.");
	for (unsigned i = 0; nodes && i < nodes->n; i++) {
		const struct json_val *nd = &nodes->kids[i], *zs = json_get(nd, "sizes");
		int n = topology_node_index(t, (unsigned)json_get_num(nd, "node"));

		for (unsigned k = 0; n >= 0 && zs && k < zs->n; k++) {
			const struct json_val *c = &zs->kids[k];
			uint64_t bytes;
			int z;

			if (parse_bytes(json_get_str(c, "size"), &bytes) ||
			    (z = topology_size_index(t, bytes / 1024)) < 0)
				continue;
			cell(f, "hugepar_live_pages", nd, c);
			fprintf(
			    f, " %llu\n",
			    (unsigned long long)pool_persistent(&t->nodes[n].pool[z]));
		}
	}
}

void prometheus_record(FILE *f, const struct hp_record *r, const struct hp_topology *live)
{
	static const char *const run_states[] = {"ok", "partial", "failed", "disabled"};
	static const char *const cell_states[] = {"ok", "capped", "partial", "failed",
						  "unchanged"};
	const struct json_val *v = &r->v, *nodes = json_get(v, "nodes"),
			      *sizes = json_get(v, "sizes");

	head(f, "hugepar_info", "The hugepar run that made the record.");
	fputs("hugepar_info{version=\"", f);
	value(f, json_get_str(v, "version"));
	fputs("\",kernel=\"", f);
	value(f, json_get_str(v, "kernel"));
	fputs("\"} 1\n", f);
	head(f, "hugepar_run_status",
	     "The run's outcome: 1 for its status, 0 for the others.");
	for (size_t i = 0; i < ARRAY_SIZE(run_states); i++)
		fprintf(f, "hugepar_run_status{status=\"%s\"} %d\n", run_states[i],
			strcmp(json_get_str(v, "status"), run_states[i]) == 0);
	head(f, "hugepar_run_duration_seconds", "How long the run took.");
	fprintf(f, "hugepar_run_duration_seconds %.3f\n",
		json_get_num(v, "duration_ms") / 1000.0);
	head(f, "hugepar_run_start_time_seconds", "When the run started, in Unix time.");
	fprintf(f, "hugepar_run_start_time_seconds %llu\n",
		(unsigned long long)json_get_num(v, "started_unix"));
	head(f, "hugepar_run_threads",
	     "Threads (worker processes) planned, all nodes and sizes.");
	fprintf(f, "hugepar_run_threads %llu\n",
		(unsigned long long)record_num(v, "threads", "workers"));

	cells(f, nodes, "hugepar_requested_pages", "requested", "Huge pages asked for.",
	      false);
	cells(
	    f, nodes, "hugepar_target_pages", "target",
	    "Huge pages planned: the request after keep_free, free memory and the mode.",
	    false);
	cells(f, nodes, "hugepar_achieved_pages", "achieved",
	      "Persistent huge pages in the pool when the run ended.", false);
	cells(f, nodes, "hugepar_before_pages", "before",
	      "Persistent huge pages in the pool before the run.", false);
	cells(f, nodes, "hugepar_reserve_duration_seconds", "ms",
	      "Time spent reserving on the node for the size.", true);
	if (live)
		live_pages(f, nodes, live);
	head(f, "hugepar_cell_status",
	     "Each node and size's outcome: 1 for its status, 0 for the others.");
	for (unsigned i = 0; nodes && i < nodes->n; i++) {
		const struct json_val *zs = json_get(&nodes->kids[i], "sizes");

		for (unsigned k = 0; zs && k < zs->n; k++)
			for (size_t s = 0; s < ARRAY_SIZE(cell_states); s++) {
				const struct json_val *c = &zs->kids[k];

				fprintf(f, "hugepar_cell_status{node=\"%llu\",size=\"",
					(unsigned long long)json_get_num(&nodes->kids[i],
									 "node"));
				value(f, json_get_str(c, "size"));
				fprintf(f, "\",status=\"%s\"} %d\n", cell_states[s],
					strcmp(json_get_str(c, "status"),
					       cell_states[s]) == 0);
			}
	}
	head(f, "hugepar_size_duration_seconds",
	     "Time spent on a page size (sizes run at once).");
	for (unsigned i = 0; sizes && i < sizes->n; i++) {
		fputs("hugepar_size_duration_seconds{size=\"", f);
		value(f, json_get_str(&sizes->kids[i], "size"));
		fprintf(f, "\"} %.3f\n", json_get_num(&sizes->kids[i], "ms") / 1000.0);
	}
}
