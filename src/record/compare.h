/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare.h - the pools now against the record: pages lost or added since its run. */
#ifndef HUGEPAR_COMPARE_H
#define HUGEPAR_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "read.h"
#include "settings.h"
#include "topology.h"

struct pool_check {
	unsigned cells;
	unsigned drift;	 /* cells whose pool is not what the run left */
	unsigned shortc; /* cells with fewer pages than asked for */
};

/* Compare each cell of the record with the pools now; one line per difference to
 * out (when not NULL). */
void compare_pools(const struct hp_record *r, const struct hp_topology *t, FILE *out,
		   struct pool_check *pc);

#endif
