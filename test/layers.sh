#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The layers of src/, lowest first, written once: a module (X.c with X.h) may include
# the headers of its own layer and of the layers below, never above; and no two
# modules may include each other, even within a layer (tsort finds the loops). The
# simulated kernel's three files are one module. doc/architecture.md shows the map.
. "$(dirname "$0")/lib.sh"

LAYERS=(
	"lib: util path json version fault"
	"kernel: hugetlb live sim topology journal"
	"plan: settings sources plan result adapt kparams"
	"engine: stop proc worker job probe parallel size engine"
	"front: report record status prometheus check mounts cmdline waiter notify main"
)

declare -A LAYER
for i in "${!LAYERS[@]}"; do
	for m in ${LAYERS[$i]#*:}; do LAYER[$m]=$i; done
done
# module FILE: the module a file of src/ belongs to
module() {
	local b
	b=$(basename "$1")
	b=${b%.[ch]}
	case $b in simcore | simfile) b=sim ;; esac
	echo "$b"
}

edges=$OUT/layers.edges
: >"$edges"
unknown="" upward=""
for f in "$TOP"/src/*.[ch]; do
	from=$(module "$f")
	[ -n "${LAYER[$from]:-}" ] || { unknown="$unknown $(basename "$f")"; continue; }
	while read -r h; do
		to=$(module "$h")
		[ -n "${LAYER[$to]:-}" ] || { unknown="$unknown $h"; continue; }
		[ "$to" = "$from" ] && continue
		echo "$to $from" >>"$edges"
		if [ "${LAYER[$to]}" -gt "${LAYER[$from]}" ]; then
			upward="$upward $(basename "$f") (${LAYERS[${LAYER[$from]}]%%:*}) includes $h (${LAYERS[${LAYER[$to]}]%%:*});"
		fi
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done
expect_eq "layers: every file of src/ is in a layer" "${unknown# }" ""
expect_eq "layers: no include reaches a higher layer" "${upward# }" ""
loops=$(sort -u "$edges" | tsort 2>&1 >/dev/null | sed -n 's/^tsort: //p' | grep -v 'input contains a loop' | tr '\n' ' ')
expect_eq "layers: no two modules include each other" "${loops% }" ""
echo "layers: $(summary_line)"
