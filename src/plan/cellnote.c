/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cellnote.c - pure: what a plan's cell says in words: a cut, a rounding, and by how
 * much. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cellnote.h"
#include "macros.h"

void cellnote_cut(uint64_t cut, uint64_t of, char *buf, size_t len)
{
	/* hundredths of a percent, rounded up: a cut is never shown as none */
	uint64_t h = of ? (uint64_t)(((unsigned __int128)cut * 10000 + of - 1) / of) : 0;

	snprintf(buf, len, "%llu (%llu.%02llu%%)", (unsigned long long)cut,
		 (unsigned long long)h / 100, (unsigned long long)h % 100);
}

/* ", rounded down by N (P%)" where rounding moved the count shown. */
static void rounding(const struct hp_cell *c, uint64_t shown, char *buf, size_t len)
{
	char cut[48];

	if (!c->rounded || c->unrounded <= shown)
		return;
	cellnote_cut(c->unrounded - shown, c->unrounded, cut, sizeof(cut));
	snprintf(buf + strlen(buf), len - strlen(buf), "%srounded down by %s",
		 buf[0] ? ", " : "", cut);
}

/* What a shrink gives back of the pages hugepar reserved this boot, the rest of the
 * pool being someone else's (or the kernel's); false when it is no such shrink. */
static bool own_note(const struct hp_cell *c, char *buf, size_t len)
{
	uint64_t back = c->current - c->target;

	if (c->cut == HP_CUT_GROW)
		snprintf(buf, len,
			 c->own ? "grow mode: gives back only the %llu pages it reserved "
				  "this boot"
				: "grow mode keeps the larger pool",
			 (unsigned long long)c->own);
	else if (c->target >= c->current || back > c->own)
		return false;
	else if (!c->requested_set)
		snprintf(buf, len,
			 "no entry asks for them: gives back the %llu pages it reserved "
			 "this boot",
			 (unsigned long long)back);
	else
		snprintf(buf, len,
			 "gives back %llu of the %llu pages it reserved this boot",
			 (unsigned long long)back, (unsigned long long)c->own);
	return true;
}

void cellnote_of(const struct hp_cell *c, char *buf, size_t len)
{
	char share[32];

	buf[0] = '\0';
	if (!len || own_note(c, buf, len) || !c->requested_set)
		return;
	switch (c->cut) {
	case HP_CUT_NONE:
		if (c->asked.kind != HP_AMOUNT_PERCENT)
			return;
		values_amount_format(&c->asked, share, sizeof(share));
		if (c->unrounded == 0 && c->asked.value)
			snprintf(buf, len, "%s is less than one page here", share);
		else if (c->unrounded > c->requested)
			snprintf(buf, len, "%s is %llu pages", share,
				 (unsigned long long)c->unrounded);
		rounding(c, c->requested, buf, len);
		return;
	case HP_CUT_KEEP_FREE:
	case HP_CUT_MEMORY:
		snprintf(buf, len, "%s", plan_cut_note(c->cut));
		if (c->rounded && c->unrounded > c->target)
			snprintf(buf + strlen(buf), len - strlen(buf), ": %llu fit",
				 (unsigned long long)c->unrounded);
		rounding(c, c->target, buf, len);
		return;
	default:
		snprintf(buf, len, "%s", plan_cut_note(c->cut));
		return;
	}
}

const char *plan_cut_note(enum hp_cut c)
{
	static const char *const notes[] = {
	    [HP_CUT_NONE] = "",
	    [HP_CUT_KEEP_FREE] = "capped by keep_free",
	    [HP_CUT_MEMORY] = "capped by free memory",
	    [HP_CUT_GROW] = "grow mode keeps the larger pool",
	    [HP_CUT_NO_MEMORY] = "node without memory",
	};

	return (unsigned)c < ARRAY_SIZE(notes) ? notes[c] : "?";
}
