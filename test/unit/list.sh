#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The unit tests, "MODULE.TEST<TAB>DESCRIPTION" a line each, read from their sources
# (no build): what `build/unit --list` prints. A test is declared by
# UNIT_TEST(NAME, "DESCRIPTION") in test/unit/MODULE.c (MODULE: the path of the module
# it tests, kernel/path) (test/unit/unit.h), the string
# on the same line or the next ones; modules in byte order, tests in their file's order.
cd "$(dirname "$0")" || exit 1
LC_ALL=C
export LC_ALL
awk '
	FNR == 1 {
		m = FILENAME
		sub(/^\.\//, "", m)
		sub(/\.c$/, "", m)
	}
	/^UNIT_TEST\(/ {
		t = $0
		while (t !~ /"\)$/ && (getline more) > 0) {
			sub(/^[ \t]+/, "", more)
			t = t more
		}
		name = t
		sub(/^UNIT_TEST\(/, "", name)
		sub(/,.*/, "", name)
		sub(/^[^"]*"/, "", t)
		sub(/"\)$/, "", t)
		printf "%s.%s\t%s\n", m, name, t
	}' $(find . -mindepth 2 -name '*.c' | sort)
