/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keyname.c - the key that a name which is not one stands for (keyname.h). */
#include <ctype.h>
#include <limits.h>
#include <string.h>

#include "keyname.h"
#include "macros.h"

/* Other names people try for a key (other tools', or the idea's). */
static const struct {
	const char *name, *key;
} other_names[] = {
    {"floor", "keep_free"},	 {"min_free", "keep_free"}, {"minfree", "keep_free"},
    {"free", "keep_free"},	 {"keepfree", "keep_free"}, {"free_memory", "keep_free"},
    {"leave_free", "keep_free"}, {"workers", "threads"},    {"worker", "threads"},
    {"jobs", "threads"},	 {"nthreads", "threads"},   {"processes", "threads"},
    {"parallel", "threads"},	 {"hugepages", "pages"},    {"nr_hugepages", "pages"},
    {"hugepage", "pages"},	 {"pool", "pages"},	    {"pools", "pages"},
    {"size", "pages"},		 {"sizes", "pages"},	    {"enable", "enabled"},
    {"disable", "enabled"},	 {"disabled", "enabled"},   {"deadline", "timeout"},
    {"time_limit", "timeout"},	 {"onshort", "on_short"},   {"short", "on_short"},
    {"mounts", "mount"},	 {"hugetlbfs", "mount"},    {"mountpoint", "mount"},
    {"prometheus", "textfile"},	 {"metrics", "textfile"},   {"rounding", "granularity"},
    {"granule", "granularity"},
};

/* Edits (insert, delete, change, swap two neighbours) from a to b, both short. */
static unsigned edits(const char *a, const char *b)
{
	unsigned d[33][33], la = strlen(a), lb = strlen(b);

	if (la > 32 || lb > 32)
		return UINT_MAX;
	for (unsigned i = 0; i <= la; i++)
		for (unsigned j = 0; j <= lb; j++) {
			if (!i || !j) {
				d[i][j] = i + j;
				continue;
			}
			d[i][j] = MIN(MIN(d[i - 1][j] + 1, d[i][j - 1] + 1),
				      d[i - 1][j - 1] + (a[i - 1] != b[j - 1]));
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1])
				d[i][j] = MIN(d[i][j], d[i - 2][j - 2] + 1);
		}
	return d[la][lb];
}

const char *keyname_meant(const char *name, const char *const *keys, size_t nkeys)
{
	char n[33];
	size_t len = strlen(name);
	const char *meant = NULL;

	if (len >= sizeof(n) || !len)
		return NULL;
	for (size_t i = 0; i <= len; i++)
		n[i] = name[i] == '-' ? '_' : (char)tolower((unsigned char)name[i]);
	for (size_t i = 0; i < ARRAY_SIZE(other_names) && !meant; i++)
		if (strcmp(n, other_names[i].name) == 0)
			meant = other_names[i].key;
	for (size_t i = 0; i < nkeys && !meant; i++)
		if (edits(n, keys[i]) <= (len < 5 ? 1u : 2u))
			meant = keys[i];
	return meant;
}
