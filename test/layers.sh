#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The layers of the binary, lowest first, written once, as folders: a file may include
# the headers of its own layer and of the layers below, never above; and no two
# modules (X.c with X.h) may include each other, even within a layer (tsort finds the
# loops). The simulated kernel's six files are one module, and with the fault
# seam's implementation it is the test build's side of the kernel layer.
# doc/architecture.md shows the map.
. "$(dirname "$0")/lib.sh"

LAYERS=(
	"lib: lib"
	"kernel: src/kernel test/sim"
	"plan: src/plan"
	"engine: src/engine"
	"front: src"
)

tcase layers "includes go down the layers, no module loops, the engine waits by the clock seam"

# module FILE: the module a file belongs to
module() {
	local b
	b=$(basename "$1")
	b=${b%.[ch]}
	case $b in simcore | simfile | simclock | simseam | simcost) b=sim ;; esac
	echo "$b"
}
# layer NAME: the layer of a file of the tree, by its folder
layer() { local d=${DIR_OF[$1]:-}; [ -n "$d" ] && echo "${LAYER[$d]}"; }

# layer_files: the layer of each folder (LAYER) and each file's folder (DIR_OF), and
# the files of every layer (FILES)
layer_files() {
	local i d f
	declare -gA LAYER=() DIR_OF=()
	FILES=()
	for i in "${!LAYERS[@]}"; do
		for d in ${LAYERS[$i]#*:}; do
			LAYER[$d]=$i
			for f in "$TOP/$d"/*.[ch]; do
				[ -f "$f" ] || continue
				FILES+=("$f")
				DIR_OF[$(basename "$f")]=$d
			done
		done
	done
}

# includes EDGES: each include of a file of another module ("TO FROM") to EDGES; the
# headers in no layer in UNKNOWN, the includes of a higher layer in UPWARD
includes() {
	local f from fl h tl to
	UNKNOWN="" UPWARD=""
	: >"$1"
	for f in "${FILES[@]}"; do
		from=$(module "$f")
		fl=$(layer "$(basename "$f")")
		while read -r h; do
			tl=$(layer "$h")
			[ -n "$tl" ] || { UNKNOWN="$UNKNOWN $h"; continue; }
			to=$(module "$h")
			[ "$to" = "$from" ] && continue
			echo "$to $from" >>"$1"
			if [ "$tl" -gt "$fl" ]; then
				UPWARD="$UPWARD ${f#"$TOP"/} (${LAYERS[$fl]%%:*}) includes $h (${LAYERS[$tl]%%:*});"
			fi
		done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
	done
}

t_layers() {
	local edges=$OUT/layers.edges f loops seam
	layer_files
	includes "$edges"
	# every source file of the binary is in a layer's folder
	for f in "$TOP"/src/*/*.[ch] "$TOP"/src/*.[ch] "$TOP"/lib/*.[ch]; do
		[ -n "$(layer "$(basename "$f")")" ] || UNKNOWN="$UNKNOWN ${f#"$TOP"/}"
	done
	expect_eq "every file and every header included is in a layer" "${UNKNOWN# }" ""
	expect_eq "no include reaches a higher layer" "${UPWARD# }" ""
	loops=$(sort -u "$edges" | tsort 2>&1 >/dev/null | sed -n 's/^tsort: //p' | grep -v 'input contains a loop' | tr '\n' ' ')
	expect_eq "no two modules include each other" "${loops% }" ""
	# The engine's processes read the time and wait only through the clock seam
	# (src/kernel/clock.h): the simulated kernel's clock must see every wait.
	seam=$(cd "$TOP" && grep -nE '(^|[^_[:alnum:]])(now_ms|now_us|nanosleep|usleep|sleep|poll|ppoll|select|waitpid|wait|fork|_exit|kill|setitimer|alarm)\(' \
		src/engine/*.c src/run.c src/kernel/restore.c test/sim/fault.c | tr '\n' ' ')
	expect_eq "the engine waits only through the clock seam" "${seam% }" ""
}

run_cases
echo "layers: $(summary_line)"
