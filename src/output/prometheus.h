/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prometheus.h - the record in Prometheus' text format. */
#ifndef HUGEPAR_PROMETHEUS_H
#define HUGEPAR_PROMETHEUS_H

#include <stdio.h>

#include "read.h"
#include "topology.h"

/* The record in Prometheus' text format, with each node's pools now when live is
 * given. */
void prometheus_record(FILE *f, const struct hp_record *r,
		       const struct hp_topology *live);

#endif
