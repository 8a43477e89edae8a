/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keyname.h - the key that a name which is not one stands for, as git answers a
 * command that is not one: a misspelt key is the most common mistake in a settings
 * file. */
#ifndef HUGEPAR_KEYNAME_H
#define HUGEPAR_KEYNAME_H

#include <stddef.h>

/* Of keys[nkeys], the one name stands for: the same in another case or with '-' for
 * '_', another name people give it (another tool's: "workers", "floor",
 * "nr_hugepages"), or one or two typing slips away (one for a name of four letters or
 * fewer); NULL when none. */
const char *keyname_meant(const char *name, const char *const *keys, size_t nkeys);

#endif
