/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cellnote.h - pure: what a plan's cell says in words: a cut, a rounding, and by how
 * much. */
#ifndef HUGEPAR_CELLNOTE_H
#define HUGEPAR_CELLNOTE_H

#include <stddef.h>
#include <stdint.h>

#include "planner.h"

/* The note of a cell, "" when there is nothing to say: why its target is not what
 * was asked ("capped by free memory"), how a share or a cap was rounded and by how
 * much ("50% is 96588 pages, rounded down by 332 (0.34%)"), a share of less than a
 * page. */
void cellnote_of(const struct hp_cell *c, char *buf, size_t len);

/* "332 (0.34%)": a cut of 'cut' pages of 'of', with its share of them. */
void cellnote_cut(uint64_t cut, uint64_t of, char *buf, size_t len);


/* A cut in words ("capped by keep_free"); its name is its cause's (result.h). */
const char *plan_cut_note(enum hp_cut c);

#endif
