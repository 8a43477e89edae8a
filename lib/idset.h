/* SPDX-License-Identifier: GPL-2.0-or-later */
/* idset.h - sets of small integers (node and CPU ids), as fixed bitmaps. */
#ifndef HUGEPAR_IDSET_H
#define HUGEPAR_IDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HP_MAX_CPUS 8192

/* A set of small integers (node or CPU ids), as a fixed bitmap. */
struct hp_idset {
	uint64_t bits[HP_MAX_CPUS / 64];
};

static inline void idset_add(struct hp_idset *s, unsigned id)
{
	s->bits[id / 64] |= UINT64_C(1) << (id % 64);
}

static inline bool idset_has(const struct hp_idset *s, unsigned id)
{
	return id < HP_MAX_CPUS && (s->bits[id / 64] >> (id % 64)) & 1;
}

unsigned idset_count(const struct hp_idset *s);
void idset_and(struct hp_idset *s, const struct hp_idset *o);
/* Format as a list "0-3,8"; returns -ENOSPC when it does not fit. */
int idset_format(const struct hp_idset *s, char *buf, size_t len);

#endif
