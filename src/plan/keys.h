/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keys.h - the keys of the settings: each value read and taken, or named as a
 * problem; a key that is not one answered with the key meant (keyname.h). */
#ifndef HUGEPAR_KEYS_H
#define HUGEPAR_KEYS_H

#include <stdbool.h>

#include "settings.h"

/* Apply one key=value from a source. Problems are recorded, never fatal. 'cmdline':
 * the key is a command-line one (rd.hugepar.KEY). */
void keys_set(struct hp_settings *s, const char *key, const char *value,
	      const char *origin, bool cmdline);

/* Whether name is a key of a settings file (not an old name). */
bool keys_known(const char *name);
/* The i-th key (old names left out), and what it is for in 'what'; NULL past the
 * last. */
const char *keys_name(unsigned i, const char **what);

#endif
