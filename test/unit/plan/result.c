/* SPDX-License-Identifier: GPL-2.0-or-later */
/* result.c - unit tests: judging the results, and the auto estimate. */
#include <errno.h>
#include <string.h>

#include "kinfo.h"
#include "planner.h"
#include "result.h"
#include "unit.h"

UNIT_TEST(result, "a cell's status from what it got; the auto estimate's choice")
{
	struct hp_cell c = {
	    .requested_set = true, .current = 10, .requested = 100, .target = 100};
	struct auto_node an[2] = {{.rest = 1000, .page_ns = 3000000, .workers = 2},
				  {.rest = 1000, .page_ns = 3000000, .workers = 2}};
	struct auto_estimate e;

	CHECK(result_cell_status(&c, 100) == HP_STATUS_OK);
	CHECK(result_cell_status(&c, 50) == HP_STATUS_PARTIAL);
	CHECK(result_cell_status(&c, 10) == HP_STATUS_FAILED);
	c.cut = HP_CUT_KEEP_FREE;
	CHECK(result_cell_status(&c, 100) == HP_STATUS_CAPPED);
	c.cut = HP_CUT_NONE;
	c.target = 5; /* exact mode, shrinking */
	CHECK(result_cell_status(&c, 5) == HP_STATUS_OK);
	CHECK(result_cell_status(&c, 7) == HP_STATUS_PARTIAL);
	/* no entry names it: its own pages of the boot given back, or unchanged */
	c.requested_set = false;
	CHECK(result_cell_status(&c, 5) == HP_STATUS_OK);
	CHECK(result_cell_status(&c, 10) == HP_STATUS_FAILED);
	c.target = c.current;
	CHECK(result_cell_status(&c, 10) == HP_STATUS_UNCHANGED);

	/* zeroed pages on two nodes: parallel; cheap pages: serial */
	result_auto_estimate(an, 2, 1000, &e);
	CHECK(e.parallel && e.serial_us == 6000000 && e.parallel_us == 4000 + 1500000);
	CHECK(result_auto_clear(an, 2, 1000)); /* one page's probe is enough */
	an[0].page_ns = an[1].page_ns = 2000;
	result_auto_estimate(an, 2, 1000, &e);
	CHECK(!e.parallel && !result_auto_clear(an, 2, 1000)); /* close: probe more */
	an[0].page_ns = an[1].page_ns = 200;
	CHECK(result_auto_clear(an, 2, 1000)); /* clearly serial */
	/* two nodes can be no more than twice as fast: clear all the same */
	an[0].page_ns = an[1].page_ns = 2500000;
	an[0].rest = an[1].rest = 150;
	an[0].workers = an[1].workers = 1;
	result_auto_estimate(an, 2, 2500, &e);
	CHECK(e.parallel && e.parallel_us * 2 > e.serial_us &&
	      result_auto_clear(an, 2, 2500));
	an[0].workers = an[1].workers = 0;
	an[0].page_ns = an[1].page_ns = 3000000;
	result_auto_estimate(an, 2, 1000, &e);
	CHECK(!e.parallel && e.parallel_us == e.serial_us);

	CHECK(kinfo_release_at_least("6.12.48+deb13-amd64", 6, 7));
	CHECK(!kinfo_release_at_least("6.1.0-57-amd64", 6, 7));
	CHECK(kinfo_release_at_least("7.0", 6, 19) && !kinfo_release_at_least("", 6, 7));
}

UNIT_TEST(judge, "a coordinator killed, pages in use, an engine note: each cell's reason")
{
	struct hp_cell cells[2] = {
	    {.requested_set = true, .current = 0, .requested = 10, .target = 10},
	    {.requested_set = true, .current = 20, .requested = 5, .target = 5}};
	struct hp_plan p = {.nnodes = 2, .nsizes = 1, .cells = cells};
	struct hp_cell_result rc[2] = {{.achieved = 4},
				       {.achieved = 5, .surplus_after = 3}};
	struct cell_note notes[2] = {{0}};
	struct hp_result res = {.cells = rc};

	/* the coordinator's end, not "node out of memory"; pages in use as surplus */
	snprintf(res.sizes[0].failure, sizeof(res.sizes[0].failure),
		 "its coordinator was killed by SIGKILL");
	result_judge(&res, &p, notes, 0);
	CHECK(rc[0].status == HP_STATUS_PARTIAL &&
	      strcmp(rc[0].reason, "4 of 10: its coordinator was killed by SIGKILL") ==
		  0);
	CHECK(rc[1].status == HP_STATUS_PARTIAL &&
	      strcmp(rc[1].reason, "3 pages in use stay as surplus until freed") == 0);
	CHECK(strcmp(result_cause_name(rc[0].cause), "size_error") == 0 &&
	      strcmp(result_cause_name(rc[1].cause), "in_use") == 0);
	CHECK(res.status == HP_STATUS_PARTIAL);
	/* a note of the engine's wins; an overcommit left raised fails the run */
	snprintf(notes[0].note, sizeof(notes[0].note), "nr_hugepages write failed: EIO");
	rc[1].surplus_after = 0;
	res.sizes[0].restore_failed = true;
	result_judge(&res, &p, notes, 0);
	CHECK(strcmp(rc[0].reason, "4 of 10: nr_hugepages write failed: EIO") == 0);
	CHECK(strcmp(result_cause_name(rc[0].cause), "kernel_error") == 0 &&
	      strcmp(result_cause_name(rc[1].cause), "") == 0);
	CHECK(rc[1].status == HP_STATUS_OK && res.status == HP_STATUS_FAILED);
	/* the deadline, a signal, the free memory and keep_free, each a word */
	snprintf(notes[0].note, sizeof(notes[0].note), "deadline reached");
	notes[0].stop = HP_CAUSE_DEADLINE;
	result_judge(&res, &p, notes, 0);
	CHECK(strcmp(result_cause_name(rc[0].cause), "deadline") == 0);
	notes[0].note[0] = '\0';
	notes[0].stop = HP_CAUSE_NONE;
	res.sizes[0].failure[0] = '\0';
	res.interrupted = true;
	result_judge(&res, &p, notes, 0);
	CHECK(strcmp(result_cause_name(rc[0].cause), "interrupted") == 0 &&
	      strcmp(rc[0].reason, "4 of 10: interrupted") == 0);
	res.interrupted = false;
	result_judge(&res, &p, notes, 0);
	CHECK(strcmp(result_cause_name(rc[0].cause), "out_of_memory") == 0);
	cells[0].target = 4;
	cells[0].cut = HP_CUT_MEMORY;
	result_judge(&res, &p, notes, 0);
	CHECK(rc[0].status == HP_STATUS_CAPPED &&
	      strcmp(result_cause_name(rc[0].cause), "free_memory") == 0 &&
	      strcmp(rc[0].reason, "4 of 10 requested: capped by free memory") == 0);
}

/* A node whose pages are all there, but whose worker could not bind itself to it, is
 * not ok; one short of pages says why it is short. */
UNIT_TEST(judge_bind, "a worker that could not bind makes its node partial, not ok")
{
	struct hp_cell cells[2] = {
	    {.requested_set = true, .current = 0, .requested = 10, .target = 10},
	    {.requested_set = true, .current = 0, .requested = 10, .target = 10}};
	struct hp_plan p = {.nnodes = 2, .nsizes = 1, .cells = cells};
	struct hp_cell_result rc[2] = {{.achieved = 10}, {.achieved = 10}};
	struct cell_note notes[2] = {{.bind_err = -EINVAL}, {0}};
	struct hp_result res = {.cells = rc};

	result_judge(&res, &p, notes, 0);
	CHECK(rc[0].status == HP_STATUS_PARTIAL &&
	      strcmp(rc[0].reason,
		     "a thread could not bind itself to the node: Invalid argument") ==
		  0);
	CHECK(rc[1].status == HP_STATUS_OK && res.status == HP_STATUS_PARTIAL);
	rc[0].achieved = 4;
	result_judge(&res, &p, notes, 0);
	CHECK(rc[0].status == HP_STATUS_PARTIAL &&
	      strcmp(rc[0].reason, "4 of 10: node out of memory") == 0);
	CHECK(strcmp(result_cause_name(rc[0].cause), "out_of_memory") == 0);
	rc[0].achieved = 10;
	result_judge(&res, &p, notes, 0);
	CHECK(strcmp(result_cause_name(rc[0].cause), "bind") == 0);
}
