/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parallel.h - the parallel path of one size: workers per node (parallel.c). */
#ifndef HUGEPAR_PARALLEL_H
#define HUGEPAR_PARALLEL_H

#include "job.h"

/* Returns 0, -ENODEV when no node with work can have workers, or -errno when the
 * kernel refuses the path (nothing changed then). */
int parallel_run(struct size_job *j);

#endif
