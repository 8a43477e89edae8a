/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verify.h - the booted system's pools against the record; hugepar verify. */
#ifndef HUGEPAR_VERIFY_H
#define HUGEPAR_VERIFY_H

#include <stdbool.h>
#include <stdio.h>

#include "record.h"
#include "settings.h"
#include "topology.h"

struct pool_check {
	unsigned cells;
	unsigned drift;	 /* cells whose pool is not what the run left */
	unsigned shortc; /* cells with fewer pages than asked for */
};

/* Compare each cell of the record with the pools now; one line per difference to
 * out (when not NULL). */
void pools_compare(const struct hp_record *r, const struct hp_topology *t, FILE *out,
		   struct pool_check *pc);

struct verify_result {
	struct pool_check pools;
	bool no_record; /* pages configured, but no run recorded */
	unsigned mounts_failed;
	bool textfile; /* written */
	bool failed;   /* on_short = fail, and something is short */
};

/*
 * What the booted system's hugepar-verify.service does: check the pools against the
 * record (r may be NULL: no record), make the hugetlbfs mounts, write the textfile.
 * Returns -EAGAIN when the policy (on_short = fail) says the unit must fail.
 */
int verify(const struct hp_settings *s, const struct hp_record *r,
	   const struct hp_topology *t, struct verify_result *vr);

#endif
