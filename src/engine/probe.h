/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe.h - method=auto: whether workers pay for a size (probe.c, doc/threads.md). */
#ifndef HUGEPAR_PROBE_H
#define HUGEPAR_PROBE_H

#include <stdbool.h>

#include "job.h"

/* Reserve the first page(s) of the first node with work serially, time them and a
 * fork, and say whether workers would pay for the rest; j->probe_ns is set to the
 * cost of a page to one writer (0 when no node gave any). */
bool probe_run(struct size_job *j);

#endif
