/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mounts.h - hugetlbfs mounts for page sizes (the mount setting). */
#ifndef HUGEPAR_MOUNTS_H
#define HUGEPAR_MOUNTS_H

#include <stddef.h>

#include "settings.h"
#include "topology.h"

/* Mount hugetlbfs for m's page size at m's path (made when missing), with its owner,
 * group and mode, unless it is mounted there already (then the owner, group and mode
 * of its root are set). Returns 0 mounted, 1 already there, -errno; why says which. */
int mounts_hugetlbfs(const struct hp_mount *m, const struct hp_topology *t, char *why,
		     size_t wlen);

#endif
