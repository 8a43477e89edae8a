/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kmsg.h - a run's summary and its warnings, as lines of the kernel log. */
#ifndef HUGEPAR_KMSG_H
#define HUGEPAR_KMSG_H

#include "planner.h"
#include "restore.h"
#include "result.h"
#include "setters.h"
#include "topology.h"

/* One summary line, and one warning per node that fell short, to /dev/kmsg and stdout. */
void kmsg_summary(const struct hp_topology *t, const struct hp_plan *p,
		  const struct hp_result *res, const struct hp_recovery *rec);
/* A warning per setter in force: another program will change the pools. */
void kmsg_setters(const struct hp_setters *st);

#endif
