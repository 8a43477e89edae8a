/* SPDX-License-Identifier: GPL-2.0-or-later */
/* setlist.h - the other setters of the pools as text and as JSON (setlist.c). */
#ifndef HUGEPAR_SETLIST_H
#define HUGEPAR_SETLIST_H

#include <stdio.h>

#include "json.h"
#include "setters.h"

/* The setters, and what each will do (plan, status), with what to do where some are
 * in force: nothing when there are none. */
void setlist_text(FILE *f, const struct hp_setters *st);
/* The record's and plan --json's "setters" (NULL: an empty list). */
void record_setters_json(struct json_out *j, const struct hp_setters *st);

#endif
