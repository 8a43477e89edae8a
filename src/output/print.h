/* SPDX-License-Identifier: GPL-2.0-or-later */
/* print.h - hugepar status: the last record shown as tables, as JSON or for Prometheus. */
#ifndef HUGEPAR_PRINT_H
#define HUGEPAR_PRINT_H

#include <stdio.h>

#include "read.h"
#include "setters.h"

enum hp_format { HP_FORMAT_TEXT, HP_FORMAT_JSON, HP_FORMAT_PROMETHEUS };
/* The record to f: as text (printable), its JSON, or in Prometheus' format; the text
 * names the other setters of the pools of the record, and those of now that it has
 * not (NULL: none). */
void print_record(FILE *f, const struct hp_record *r, enum hp_format format,
		  const struct hp_setters *now);

#endif
