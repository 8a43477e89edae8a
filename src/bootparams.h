/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bootparams.h - the kernel command line that would reserve the same pools at boot. */
#ifndef HUGEPAR_BOOTPARAMS_H
#define HUGEPAR_BOOTPARAMS_H

#include <stdio.h>

#include "plan.h"
#include "record.h"
#include "topology.h"

/* hugepagesz=/hugepages= pairs for the plan's targets, largest size first (the
 * kernel allocates in command-line order; gigantic pages want memory first). */
void bootparams_from_plan(FILE *f, const struct hp_topology *t, const struct hp_plan *p);
/* The same for what a record's run achieved. Returns -EINVAL for a record without
 * pools. */
int bootparams_from_record(FILE *f, const struct hp_record *r);
#endif
