#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The unit tests' names, "MODULE.TEST", a line each, read from their sources (no
# build): what `build/unit --list` prints.
cd "$(dirname "$0")" || exit 1
for f in *.c; do
	m=$(sed -n 's/^UNIT_MODULE(\([a-z0-9_]*\),.*/\1/p' "$f")
	[ -n "$m" ] || continue
	grep -o '{"[a-z0-9_]*", *test_[a-z0-9_]*}' "$f" | sed 's/{"\([a-z0-9_]*\)".*/\1/' |
		sed "s/^${m}_//; s/^/$m./" | sed 's/$/\t/'
done
