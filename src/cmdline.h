/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmdline.h - the kernel command line that would reserve the same pools at boot. */
#ifndef HUGEPAR_CMDLINE_H
#define HUGEPAR_CMDLINE_H

#include <stdio.h>

#include "plan.h"
#include "record.h"
#include "result.h"
#include "topology.h"

/* hugepagesz=/hugepages= pairs for the plan's targets, largest size first (the
 * kernel allocates in command-line order; gigantic pages want memory first). */
void cmdline_from_plan(FILE *f, const struct hp_topology *t, const struct hp_plan *p);
/* The same for what a record's run achieved. Returns -EINVAL for a record without
 * pools. */
int cmdline_from_record(FILE *f, const struct hp_record *r);
/* For a gigantic size (1G) some node of which fell short: the kernel's own boot-time
 * allocation of the planned pools, per node ("hugepagesz=1G hugepages=0:16,1:16"), in
 * buf; "" when the size is not gigantic or no node is short. The kernel allocates
 * those from memblock before memory fragments; a runtime allocation needs a free 1G
 * range on each node. */
void cmdline_boot_route(char *buf, size_t len, const struct hp_topology *t,
			const struct hp_plan *p, const struct hp_result *res, unsigned z);

#endif
