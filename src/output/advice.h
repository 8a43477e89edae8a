/* SPDX-License-Identifier: GPL-2.0-or-later */
/* advice.h - what to do next: for each shortfall and problem a record names, its
 * cause and one line on what to do (hugepar status); where to look without one. */
#ifndef HUGEPAR_ADVICE_H
#define HUGEPAR_ADVICE_H

#include <stdio.h>

#include "read.h"

/* "What to do:" and a line per cause, when the record has something to do about. */
void advice_print(FILE *f, const struct record_run *run);
/* Where to look when the record directory has no record. */
void advice_no_record(FILE *f, const char *dir);

#endif
