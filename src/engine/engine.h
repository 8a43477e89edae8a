/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine.h - carry a plan out on the kernel: serial or parallel, commit, reconcile. */
#ifndef HUGEPAR_ENGINE_H
#define HUGEPAR_ENGINE_H

#include <stdint.h>

#include "planner.h"
#include "result.h"
#include "settings.h"
#include "topology.h"

/* Run the plan before deadline_ms (monotonic). Returns 0, or -errno with res->error
 * set; res is always filled (engine_result_free() it). */
int engine_apply(const struct hp_settings *s, const struct hp_topology *t,
		 const struct hp_plan *p, enum hp_method method, uint64_t deadline_ms,
		 struct hp_result *res);
void engine_result_free(struct hp_result *res);

#endif
