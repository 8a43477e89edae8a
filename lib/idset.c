/* SPDX-License-Identifier: GPL-2.0-or-later */
/* idset.c - sets of small integers (node and CPU ids) as bitmaps. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "idset.h"
#include "macros.h"

unsigned idset_count(const struct hp_idset *s)
{
	unsigned n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(s->bits); i++)
		n += __builtin_popcountll(s->bits[i]);
	return n;
}

void idset_and(struct hp_idset *s, const struct hp_idset *o)
{
	for (size_t i = 0; i < ARRAY_SIZE(s->bits); i++)
		s->bits[i] &= o->bits[i];
}

int idset_format(const struct hp_idset *s, char *buf, size_t len)
{
	size_t pos = 0;

	if (len == 0)
		return -ENOSPC;
	buf[0] = '\0';
	for (unsigned i = 0; i < HP_MAX_CPUS; i++) {
		unsigned j = i;
		int n;

		if (!idset_has(s, i))
			continue;
		while (j + 1 < HP_MAX_CPUS && idset_has(s, j + 1))
			j++;
		if (j == i)
			n = snprintf(buf + pos, len - pos, "%s%u", pos ? "," : "", i);
		else
			n = snprintf(buf + pos, len - pos, "%s%u-%u", pos ? "," : "", i,
				     j);
		if (n < 0 || (size_t)n >= len - pos)
			return -ENOSPC;
		pos += n;
		i = j;
	}
	return 0;
}
