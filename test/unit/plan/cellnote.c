/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cellnote.c - unit tests: a cell's note in words: cuts, roundings, by how much. */
#include <string.h>

#include "cellnote.h"
#include "unit.h"

static const char *note(const struct hp_cell *c)
{
	static char buf[160];

	cellnote_of(c, buf, sizeof(buf));
	return buf;
}

UNIT_TEST(cut, "a cut in pages and hundredths of a percent, never shown as none")
{
	char b[48];

	cellnote_cut(332, 96588, b, sizeof(b));
	CHECK(strcmp(b, "332 (0.35%)") == 0);
	cellnote_cut(1, 1000000, b, sizeof(b));
	CHECK(strcmp(b, "1 (0.01%)") == 0);
	cellnote_cut(7, 983, b, sizeof(b));
	CHECK(strcmp(b, "7 (0.72%)") == 0);
	cellnote_cut(0, 0, b, sizeof(b));
	CHECK(strcmp(b, "0 (0.00%)") == 0);
}

UNIT_TEST(share, "a share rounded says what it was and by how much it moved")
{
	struct hp_cell c = {.requested_set = true,
			    .asked = {HP_AMOUNT_PERCENT, 300},
			    .unrounded = 983,
			    .requested = 976,
			    .target = 976,
			    .rounded = true,
			    .granularity = 8};

	CHECK(strcmp(note(&c), "3% is 983 pages, rounded down by 7 (0.72%)") == 0);
	c.requested = c.target = c.unrounded; /* a step of one: nothing moved */
	CHECK(strcmp(note(&c), "") == 0);
	c = (struct hp_cell){
	    .requested_set = true, .asked = {HP_AMOUNT_PERCENT, 100}, .rounded = true};
	CHECK(strcmp(note(&c), "1% is less than one page here") == 0);
	c.asked.value = 0; /* 0% asked for none */
	CHECK(strcmp(note(&c), "") == 0);
	c = (struct hp_cell){.requested_set = true, .asked = {HP_AMOUNT_COUNT, 5}};
	CHECK(strcmp(note(&c), "") == 0);
}

UNIT_TEST(capped, "a cap says why, what fit and the rounding of it")
{
	struct hp_cell c = {.requested_set = true,
			    .asked = {HP_AMOUNT_BYTES, UINT64_C(400) << 30},
			    .requested = 204800,
			    .unrounded = 189744,
			    .target = 189440,
			    .rounded = true,
			    .cut = HP_CUT_MEMORY,
			    .granularity = 1024};

	CHECK(strcmp(note(&c),
		     "capped by free memory: 189744 fit, rounded down by 304 (0.17%)") ==
	      0);
	c.target = c.unrounded;
	CHECK(strcmp(note(&c), "capped by free memory") == 0);
	c.cut = HP_CUT_KEEP_FREE;
	CHECK(strcmp(note(&c), "capped by keep_free") == 0);
	c.requested_set = false;
	CHECK(strcmp(note(&c), "") == 0);
}
