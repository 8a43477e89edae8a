/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmdline.h - the kernel command line that would reserve the same pools at boot. */
#ifndef HUGEPAR_CMDLINE_H
#define HUGEPAR_CMDLINE_H

#include <stdio.h>

#include "plan.h"
#include "record.h"
#include "topology.h"

/* hugepagesz=/hugepages= pairs for the plan's targets, largest size first (the
 * kernel allocates in command-line order; gigantic pages want memory first). */
void cmdline_from_plan(FILE *f, const struct hp_topology *t, const struct hp_plan *p);
/* The same for what a record's run achieved. Returns -EINVAL for a record without
 * pools. */
int cmdline_from_record(FILE *f, const struct hp_record *r);
#endif
