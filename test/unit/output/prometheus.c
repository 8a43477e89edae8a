/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prometheus.c - unit tests: a small record in Prometheus' text format, exactly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "read.h"
#include "prometheus.h"
#include "unit.h"

/* Node 0 and node 2, one size; the kernel's name has every character a label value
 * escapes. */
static const char RECORD[] =
    "{\"version\": \"0.2\", \"kernel\": \"a\\\"b\\\\c\\nd\", \"status\": \"partial\", "
    "\"duration_ms\": 1250, \"started_unix\": 1700000000, \"workers\": 3, "
    "\"vmemmap\": {\"on\": true, \"freed_kb\": 2548, \"source\": \"kernel\"}, "
    "\"sizes\": [{\"size\": \"2M\", \"ms\": 1200}], "
    "\"nodes\": [{\"node\": 0, \"sizes\": [{\"size\": \"2M\", \"before\": 10, "
    "\"requested\": 100, \"target\": 100, \"achieved\": 100, \"ms\": 150, "
    "\"vmemmap_freed_kb\": 2520, \"status\": \"ok\"}]}, "
    "{\"node\": 2, \"sizes\": [{\"size\": \"2M\", \"before\": 0, \"requested\": null, "
    "\"target\": 0, \"achieved\": 0, \"ms\": 7, \"status\": \"unchanged\"}]}]}";

#define HEAD(name, help) "# HELP " name " " help "\n# TYPE " name " gauge\n"

/* The kernel's count (2548 kB) and the cells' (90 pages of 28 kB on node 0). */
#define TEXT_VMEMMAP                                                                     \
	HEAD("hugepar_vmemmap_on",                                                       \
	     "1 when the kernel's vmemmap optimization was on while the run reserved.")  \
	"hugepar_vmemmap_on 1\n" HEAD("hugepar_vmemmap_freed_bytes",                     \
				      "Page descriptors given back by the run, the "     \
				      "kernel's count where it keeps one.")              \
	    "hugepar_vmemmap_freed_bytes 2609152\n" HEAD(                                \
		"hugepar_vmemmap_node_freed_bytes",                                      \
		"Page descriptors the node's new pages of the size gave back (vmemmap).") \
		"hugepar_vmemmap_node_freed_bytes{node=\"0\",size=\"2M\"} 2580480\n"        \
		"hugepar_vmemmap_node_freed_bytes{node=\"2\",size=\"2M\"} 0\n"

static const char TEXT_RUN
    [] = HEAD("hugepar_info", "The hugepar run that made the record.") "hugepar_info{version=\"0.2\",kernel=\"a\\\"b\\\\c\\nd\"} 1\n" HEAD("hugepar_run_status", "The run's outcome: 1 for its status, 0 for the others.") "hugepar_run_status{status=\"ok\"} 0\n"
																											   "hugepar_run_status{status=\"partial\"} 1\n"
																											   "hugepar_run_status{status=\"failed\"} 0\n"
																											   "hugepar_run_status{status=\"disabled\"} 0\n" HEAD("hugepar_run_duration_seconds", "How long the run took.") "hugepar_run_duration_seconds 1.250\n" HEAD("hugepar_run_start_time_seconds", "When the run started, in Unix time.") "hugepar_run_start_time_seconds 1700000000\n" HEAD("hugepar_run_threads",
																																																														"Threads (worker processes) planned, all nodes and sizes.") "hugepar_run_threads 3\n" HEAD("hugepar_requested_pages",
																																																																									   "Huge pages asked for.") "hugepar_requested_pages{node=\"0\",size=\"2M\"} 100\n" HEAD("hugepar_target_pages",
																																																																																				 "Huge pages planned: the request after keep_free, "
																																																																																				 "free memory and the mode.") "hugepar_target_pages{node=\"0\",size=\"2M\"} 100\n"
																																																																																							      "hugepar_target_pages{node=\"2\",size=\"2M\"} 0\n" HEAD("hugepar_achieved_pages", "Persistent huge pages in the pool when the run "
																																																																																																		"ended.") "hugepar_achieved_pages{node=\"0\",size=\"2M\"} 100\n"
																																																																																																			  "hugepar_achieved_pages{node=\"2\",size=\"2M\"} 0\n" HEAD("hugepar_before_pages",
																																																																																																										    "Persistent huge pages in the pool before the run.") "hugepar_before_pages{node=\"0\",size=\"2M\"} 10\n"
																																																																																																																	 "hugepar_before_pages{node=\"2\",size=\"2M\"} 0\n" HEAD(
																																																																																																																	     "hugepar_reserve_duration_seconds",
																																																																																																																	     "Time spent reserving on the node for "
																																																																																																																	     "the size.") "hugepar_reserve_duration_seconds{node=\"0\",size=\"2M\"} 0.150\n"
																																																																																																																			  "hugepar_reserve_duration_seconds{node=\"2\",size=\"2M\"} 0.007\n" TEXT_VMEMMAP;

static const char TEXT_LIVE[] = HEAD(
    "hugepar_live_pages",
    "Persistent huge pages in the node's pool now.") "hugepar_live_pages{node=\"0\",size=\"2M\"} 100\n"
						     "hugepar_live_pages{node=\"2\",size=\"2M\"} 5\n";

static const char TEXT_CELLS[] = HEAD(
    "hugepar_cell_status",
    "Each node and size's outcome: 1 for its status, 0 "
    "for the others.") "hugepar_cell_status{node=\"0\",size=\"2M\",status=\"ok\"} 1\n"
		       "hugepar_cell_status{node=\"0\",size=\"2M\",status=\"capped\"} 0\n"
		       "hugepar_cell_status{node=\"0\",size=\"2M\",status=\"partial\"} 0\n"
		       "hugepar_cell_status{node=\"0\",size=\"2M\",status=\"failed\"} 0\n"
		       "hugepar_cell_status{node=\"0\",size=\"2M\",status=\"unchanged\"} 0\n"
		       "hugepar_cell_status{node=\"2\",size=\"2M\",status=\"ok\"} 0\n"
		       "hugepar_cell_status{node=\"2\",size=\"2M\",status=\"capped\"} 0\n"
		       "hugepar_cell_status{node=\"2\",size=\"2M\",status=\"partial\"} 0\n"
		       "hugepar_cell_status{node=\"2\",size=\"2M\",status=\"failed\"} 0\n"
		       "hugepar_cell_status{node=\"2\",size=\"2M\",status=\"unchanged\"} 1\n" HEAD(
			   "hugepar_size_duration_seconds",
			   "Time spent on a page size (sizes run at "
			   "once).") "hugepar_size_duration_seconds{size=\"2M\"} 1.200\n";

static char *text_of(const struct hp_record *r, const struct hp_topology *live)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	prometheus_record(f, r, live);
	fclose(f);
	return text;
}

static int same(const char *got, const char *want)
{
	if (strcmp(got, want))
		fprintf(stderr, "got:\n%s\nwant:\n%s", got, want);
	return strcmp(got, want) == 0;
}

UNIT_TEST(record, "a record's metrics, in the text format, line for line")
{
	struct hp_record r = {0};
	char want[8192], *got;

	CHECK(json_parse(RECORD, &r.v) == 0);
	CHECK(record_run_read(&r.v, &r.run) == 0);
	snprintf(want, sizeof(want), "%s%s", TEXT_RUN, TEXT_CELLS);
	got = text_of(&r, NULL);
	CHECK(same(got, want));
	free(got);
	record_run_free(&r.run);
	json_free(&r.v);
}

/* With the pools now: a line per cell, before the cells' status. */
UNIT_TEST(live, "the pools now, a line per cell; gone nodes and sizes left out")
{
	struct hp_node nodes[3] = {{.id = 0}, {.id = 2}, {.id = 4}};
	struct hp_topology t = {.nnodes = 3, .nodes = nodes, .nsizes = 1};
	struct hp_record r = {0};
	char want[8192], *got;

	t.sizes[0].kb = 2048;
	nodes[0].pool[0] = (struct hp_pool){.nr = 120, .surplus = 20};
	nodes[1].pool[0] = (struct hp_pool){.nr = 5};
	CHECK(json_parse(RECORD, &r.v) == 0);
	CHECK(record_run_read(&r.v, &r.run) == 0);
	snprintf(want, sizeof(want), "%s%s%s", TEXT_RUN, TEXT_LIVE, TEXT_CELLS);
	got = text_of(&r, &t);
	CHECK(same(got, want));
	free(got);
	record_run_free(&r.run);
	json_free(&r.v);

	/* a node the machine no longer has, a size it does not offer: no live line */
	CHECK(json_parse("{\"nodes\": [{\"node\": 5, \"sizes\": [{\"size\": \"2M\"}]}, "
			 "{\"node\": 0, \"sizes\": [{\"size\": \"1G\"}, {\"size\": "
			 "\"2M\"}]}]}",
			 &r.v) == 0);
	CHECK(record_run_read(&r.v, &r.run) == 0);
	got = text_of(&r, &t);
	CHECK(strstr(
	    got,
	    HEAD(
		"hugepar_live_pages",
		"Persistent huge pages in the node's pool now.") "hugepar_live_pages{node=\"0\",size=\"2M\"} 100\n#"));
	free(got);
	record_run_free(&r.run);
	json_free(&r.v);
}

/* A record with no nodes or sizes (a run that could not start) still gives every
 * metric's head and the run's lines, with zeros where numbers are missing. */
UNIT_TEST(empty, "a record with no cells still gives every metric's head")
{
	struct hp_record r = {0};
	char *got;

	CHECK(json_parse("{\"status\": \"failed\", \"sizes\": [], \"nodes\": []}",
			 &r.v) == 0);
	CHECK(record_run_read(&r.v, &r.run) == 0);
	got = text_of(&r, NULL);
	CHECK(strstr(got, "hugepar_info{version=\"\",kernel=\"\"} 1\n"));
	CHECK(strstr(got, "hugepar_run_status{status=\"failed\"} 1\n"));
	CHECK(strstr(got, "hugepar_run_duration_seconds 0.000\n"));
	CHECK(strstr(got, HEAD("hugepar_requested_pages", "Huge pages asked for.") HEAD(
			      "hugepar_target_pages", "Huge pages planned: the request "
						      "after keep_free, free memory and "
						      "the mode.")));
	CHECK(strstr(got, "{node=") == NULL);
	free(got);
	record_run_free(&r.run);
	json_free(&r.v);
}
