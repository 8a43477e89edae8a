/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bootparams.h - the kernel command line that would reserve the same pools at boot. */
#ifndef HUGEPAR_BOOTPARAMS_H
#define HUGEPAR_BOOTPARAMS_H

#include <stdio.h>

#include "planner.h"
#include "read.h"
#include "topology.h"

/* hugepagesz=/hugepages= pairs for the plan's pools, largest size first (the kernel
 * allocates in command-line order; gigantic pages want memory first): each cell's
 * target, or where free memory or keep_free capped it, its request within the
 * node's installed memory less keep_free (kparams_boot_counts()). */
void bootparams_from_plan(FILE *f, const struct hp_topology *t, const struct hp_plan *p);
/* The same for the pools a record's run was asked for, as its plan had them (the
 * settings that run read: the initramfs's copies). Returns -EINVAL for a record
 * without pools. */
int bootparams_from_record(FILE *f, const struct hp_record *r);
#endif
