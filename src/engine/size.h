/* SPDX-License-Identifier: GPL-2.0-or-later */
/* size.h - one page size's work, in the order it is done (size.c). */
#ifndef HUGEPAR_SIZE_H
#define HUGEPAR_SIZE_H

#include "job.h"

/* Whether some node's target of size z is above what it has. */
bool size_grows(const struct hp_plan *p, unsigned z);

/* Shrink (exact mode), choose the method, grow, reconcile; fills j->rep. */
void size_run(struct size_job *j);

#endif
