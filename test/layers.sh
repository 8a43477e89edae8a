#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The layers of the binary, lowest first, written once, as folders: a file may include
# the headers of its own layer and of the layers below, never above, and call the
# functions of those layers only; and no two modules (X.c with X.h, named by their
# path without src/: engine/control, plan/planner) may use each other, even within a
# folder (tsort finds the loops). Includes are read from the files, each header where
# the compiler finds it (the including file's folder, then the Makefile's -I order);
# calls from each .c compiled alone with the host compiler, what its object leaves
# undefined (nm) against what the others define: a header may declare another
# module's functions, and only the objects show that. The simulated kernel's files
# (test/sim/sim*.c) are one module, and with the fault seam's implementation it is
# the test build's side of the kernel layer. doc/architecture.md shows the map.
. "$(dirname "$0")/lib.sh"

# The layers, lowest first: the Makefile's LAYERS, the folders of the binary, each
# named by its last part; the test build's simulated kernel is in the kernel layer.
LAYERS=()
for d in $(sed -n 's/^LAYERS[[:space:]]*:=//p' "$TOP/Makefile"); do
	case $d in src/kernel) LAYERS+=("kernel: $d test/sim") ;; *) LAYERS+=("${d##*/}: $d") ;; esac
done

tcase layers "includes go down the layers, no module loops, the engine waits by the clock seam"
tcase calls "each file compiles alone, its calls go down the layers, no two modules call each other"
tcase names "each exported function and object starts with its module's name (a short list aside)"
tcase doc "doc/architecture.md lists the Makefile's layers, in its order, and no other folder"
tcase calls-circle "two files of one folder calling each other behind one header: a loop, named"
tcase record-read "outside src/record/ no code reads a field by name (json_get and a string literal)"

ROOT=$TOP

# module VAR PATH: to VAR, the module of a file by its path in the tree, without
# src/ and .c/.h (no subshell: these three run for every include; their locals end
# in _, not to hide the caller's VAR)
module() {
	local m_=${2%.[ch]}
	m_=${m_#src/}
	case $m_ in test/sim/sim*) m_=test/sim/sim ;; esac
	printf -v "$1" %s "$m_"
}
# layer VAR PATH: to VAR, the layer of a file of the tree, by its folder (empty: none)
layer() { printf -v "$1" %s "${LAYER[${2%/*}]:-}"; }

# layer_files: the layer of each folder (LAYER), the files of every layer (FILES,
# paths in ROOT), and the folders a header is looked for in, in the compiler's order
# (INC_DIRS: the Makefile's SIM_INCS, which the test build and the unit tests use)
layer_files() {
	local i d f
	declare -gA LAYER=()
	FILES=() INC_DIRS=()
	for i in "${!LAYERS[@]}"; do
		for d in ${LAYERS[$i]#*:}; do
			LAYER[$d]=$i
			for f in "$ROOT/$d"/*.[ch]; do
				[ -f "$f" ] && FILES+=("${f#"$ROOT"/}")
			done
		done
	done
	# the Makefile's SIM_INCS: the layers' folders in order, then test/sim
	for i in "${!LAYERS[@]}"; do
		for d in ${LAYERS[$i]#*:}; do [ "$d" = test/sim ] || INC_DIRS+=("$d"); done
	done
	INC_DIRS+=(test/sim)
}

# header VAR FILE NAME: to VAR, the header FILE's #include "NAME" finds (empty: none)
header() {
	local d_
	printf -v "$1" %s ""
	for d_ in "${2%/*}" "${INC_DIRS[@]}"; do
		[ -f "$ROOT/$d_/$3" ] && { printf -v "$1" %s "$d_/$3"; return; }
	done
}

# includes EDGES: each include of a file of another module ("TO FROM") to EDGES; the
# headers in no layer in UNKNOWN, the includes of a higher layer in UPWARD
includes() {
	local f from fl h p tl to
	UNKNOWN="" UPWARD=""
	: >"$1"
	for f in "${FILES[@]}"; do
		module from "$f"
		layer fl "$f"
		while read -r h; do
			header p "$f" "$h"
			tl=""
			[ -z "$p" ] || layer tl "$p"
			[ -n "$tl" ] || { UNKNOWN="$UNKNOWN $h"; continue; }
			module to "$p"
			[ "$to" = "$from" ] && continue
			echo "$to $from" >>"$1"
			if [ "$tl" -gt "$fl" ]; then
				UPWARD="$UPWARD $f (${LAYERS[$fl]%%:*}) includes $p (${LAYERS[$tl]%%:*});"
			fi
		done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$ROOT/$f")
	done
}

# loops EDGES: each loop tsort finds in EDGES ("TO FROM" lines), one a line
loops() {
	sort -u "$1" | tsort 2>&1 >/dev/null | awk '
		/input contains a loop/ { if (l != "") print l; l = ""; next }
		{ sub(/^tsort: /, ""); l = l (l == "" ? "" : " ") $0 }
		END { if (l != "") print l }'
}

t_layers() {
	local edges=$OUT/layers.edges f l loops seam
	layer_files
	includes "$edges"
	# every source file of the binary is in a layer's folder, none at src/'s top
	for f in "$TOP"/src/*/*.[ch] "$TOP"/src/*.[ch] "$TOP"/lib/*.[ch]; do
		[ -e "$f" ] || continue
		f=${f#"$TOP"/}
		layer l "$f"
		[ -n "$l" ] || UNKNOWN="$UNKNOWN $f"
	done
	expect_eq "every file and every header included is in a layer" "${UNKNOWN# }" ""
	expect_eq "no include reaches a higher layer" "${UPWARD# }" ""
	loops=$(loops "$edges" | tr '\n' ';')
	expect_eq "no two modules include each other" "${loops%;}" ""
	# The engine's processes, and the commands that start and wait for them, read the
	# time and wait only through the clock seam (src/kernel/clock.h): the simulated
	# kernel's clock must see every wait. Each file named must be there: a grep of a
	# missing file would find nothing, and pass.
	seam_files=(src/engine/*.c src/cmd/*.c src/kernel/restore.c test/sim/fault.c)
	for f in "${seam_files[@]}"; do
		[ -f "$TOP/$f" ] || seam="$seam missing: $f"
	done
	seam=$seam$(cd "$TOP" && grep -nE '(^|[^_[:alnum:]])(sys_mono_ms|sys_mono_us|clock_gettime|nanosleep|usleep|sleep|poll|ppoll|select|waitpid|wait|fork|_exit|kill|setitimer|alarm)\(' \
		"${seam_files[@]}" | tr '\n' ' ')
	expect_eq "the engine and the commands wait only through the clock seam" "${seam% }" ""
}

# objects OBJ: each .c of FILES compiled alone to OBJ/PATH.o with the host compiler,
# as the test build has it (HUGEPAR_TESTING: with the simulated kernel and the fault
# seam); libnuma's headers the Makefile's copies, else numactl's source. The files
# that do not compile in BROKEN.
objects() {
	local f n=0 jobs flags=(-c -w -O0 -D_GNU_SOURCE -DHUGEPAR_TESTING) d
	jobs=$(nproc 2>/dev/null || echo 2)
	for d in "${INC_DIRS[@]}"; do flags+=("-I$ROOT/$d"); done
	if [ -f "$TOP/build/musl/inc/numa.h" ]; then
		flags+=("-I$TOP/build/musl/inc")
	else
		flags+=(-idirafter "${NUMACTL_SRC:-$TOP/build/src/numactl}")
	fi
	rm -rf "$1"
	BROKEN=""
	for f in "${FILES[@]}"; do
		[[ $f == *.c ]] || continue
		mkdir -p "$1/${f%/*}"
		${HOSTCC:-cc} "${flags[@]}" -o "$1/$f.o" "$ROOT/$f" 2>"$1/$f.err" &
		n=$((n + 1))
		[ $((n % jobs)) -ne 0 ] || wait
	done
	wait
	for f in "${FILES[@]}"; do
		[[ $f != *.c ]] || [ -f "$1/$f.o" ] || BROKEN="$BROKEN $f: $(head -n 1 "$1/$f.err");"
	done
}

# calls OBJ EDGES: each symbol a module's objects leave undefined that another's
# define ("TO FROM SYMBOL": FROM calls or reads SYMBOL of TO) to EDGES
calls() {
	local f m
	for f in "${FILES[@]}"; do
		[[ $f == *.c ]] && [ -f "$1/$f.o" ] || continue
		module m "$f"
		nm -g -P "$1/$f.o" | awk -v m="$m" -v f="$f" '
			$2 == "U" { print "U", $1, m; next }
			$2 ~ /^[A-Z]$/ { print "D", $1, m, f }'
	done >"$2.syms"
	awk 'NR == FNR { if ($1 == "D") def[$2] = def[$2] " " $3; next }
		$1 == "U" && ($2 in def) {
			n = split(def[$2], d, " ")
			for (i = 1; i <= n; i++) if (d[i] != $3) print d[i], $3, $2
		}' "$2.syms" "$2.syms" | sort -u >"$2"
}

# named EDGES LOOP: the loop LOOP ("A B C": B uses A, C uses B, A uses C) with what
# each of its modules takes of the one before it
named() {
	awk -v loop="$2" 'BEGIN { n = split(loop, m, " ") }
		{ s[$1 " " $2] = s[$1 " " $2] (s[$1 " " $2] == "" ? "" : ", ") $3 }
		END {
			printf "%s (", loop
			for (i = 1; i <= n; i++) {
				to = m[i]; from = m[i % n + 1]
				printf "%s%s calls %s of %s", (i > 1 ? "; " : ""), from, s[to " " from], to
			}
			printf ")"
		}' "$1"
}

# call_loops EDGES: each loop of the calls in EDGES, named, ';' between them
call_loops() {
	local l out=""
	while read -r l; do
		out="$out$(named "$1" "$l");"
	done < <(awk '{ print $1, $2 }' "$1" | loops /dev/stdin)
	echo "${out%;}"
}

# upward_calls EDGES: each call of a function of a higher layer
upward_calls() {
	local f m l
	declare -A mod_layer=()
	for f in "${FILES[@]}"; do
		module m "$f"
		layer l "$f"
		mod_layer[$m]=$l
	done
	while read -r to from sym; do
		[ "${mod_layer[$to]}" -gt "${mod_layer[$from]}" ] &&
			printf '%s calls %s of %s; ' "$from" "$sym" "$to"
	done <"$1"
}

# built: the objects of every file and their symbols, once a run (OUT/layers.obj,
# OUT/layers.calls.syms: "D SYMBOL MODULE" for each defined)
built() {
	[ -n "${BUILT:-}" ] && return
	layer_files
	objects "$OUT/layers.obj"
	calls "$OUT/layers.obj" "$OUT/layers.calls"
	BUILT=1
}

t_calls() {
	local edges=$OUT/layers.calls up
	built
	expect_eq "every file of the layers compiles alone" "${BROKEN# }" ""
	check "the objects' calls are read" test -s "$edges"
	up=$(upward_calls "$edges")
	expect_eq "no call reaches a higher layer" "${up%; }" ""
	expect_eq "no two modules call each other" "$(call_loops "$edges")" ""
}

# A tree of its own: engine/one and engine/two call each other, two.c through a
# header of one's that declares two's function too (each file includes only one.h,
# so the includes show no loop); and files of one name in two folders (a dup.c in
# src/plan/ and in src/), two modules.
# The names a module may export without its prefix: main(); libnuma's hooks, which
# the live kernel defines to keep libnuma quiet (its warnings are hugepar's errors).
NAMES_ASIDE="main numa_error numa_warn"

# Each function or object a file defines for others starts with its file's name or its
# folder's and an underscore (control_tick in engine/control.c, cmd_apply in
# cmd/apply.c, record_read in record/read.c), or is the file's name itself.
t_names() {
	local bad
	built
	bad=$(awk -v aside=" $NAMES_ASIDE " '$1 == "D" {
			n = split($4, p, "/"); file = p[n]; sub(/\.c$/, "", file); dir = p[n - 1]
			if ($2 == file || index($2, file "_") == 1 || index($2, dir "_") == 1) next
			if (index(aside, " " $2 " ")) next
			print $4 ": " $2
		}' "$OUT/layers.calls.syms" | sort | tr '\n' ' ')
	expect_eq "every exported name starts with its module's" "${bad% }" ""
	check "the names of both layers' ends are read" \
		grep -q "^D control_tick .* src/engine/control.c$" "$OUT/layers.calls.syms"
}

# doc/architecture.md's table of layers: the folders in its second column, in order,
# are the Makefile's (the test build's test/sim/ beside the kernel's).
t_doc() {
	local want doc
	want=$(sed -n 's/^LAYERS[[:space:]]*:=//p' "$TOP/Makefile" | xargs)
	doc=$(awk -F'|' '/^## The layers/ { on = 1 } on && /^\| [a-z(]/ && $3 ~ /`/ {
			f = $3; gsub(/[ `]/, "", f); sub(/\/$/, "", f); if (f != "test/sim") printf "%s ", f
		}' "$TOP/doc/architecture.md")
	expect_eq "doc/architecture.md's layers are the Makefile's" "${doc% }" "$want"
}

t_calls_circle() {
	local r=$OUT/layers-circle
	rm -rf "$r" && mkdir -p "$r/src/engine" "$r/src/plan" "$r/src/cmd"
	printf 'int one(int);\nint two(int);\n' >"$r/src/engine/one.h"
	printf '#include "one.h"\nint one(int x) { return x ? two(x - 1) : 0; }\n' >"$r/src/engine/one.c"
	printf '#include "one.h"\nint two(int x) { return x ? one(x - 1) : 1; }\n' >"$r/src/engine/two.c"
	printf 'int dup_plan(void) { return 1; }\n' >"$r/src/plan/dup.c"
	printf 'int dup_plan(void);\nint main(void) { return dup_plan(); }\n' >"$r/src/cmd/dup.c"
	ROOT=$r layer_files
	ROOT=$r objects "$r/obj"
	expect_eq "the tree's files compile" "${BROKEN# }" ""
	ROOT=$r calls "$r/obj" "$r/calls"
	expect_eq "files of one name in two folders are two modules" \
		"$(grep dup "$r/calls")" "plan/dup cmd/dup dup_plan"
	ROOT=$r includes "$r/includes"
	expect_eq "the includes show no loop" "$(loops "$r/includes")" ""
	expect_eq "the calls show the loop, named" "$(call_loops "$r/calls")" \
		"engine/one engine/two (engine/two calls one of engine/one; engine/one calls two of engine/two)"
}

# record_readers DIR: the files under DIR/src, but for src/record/, that call json_get,
# json_get_str or json_get_num with a string literal (a call over lines too): the
# record is read once, into its struct (src/record/read.h), and only there by name.
record_readers() {
	local f
	for f in $(cd "$1" && find src -name '*.[ch]' ! -path 'src/record/*' | sort); do
		tr '\n' ' ' <"$1/$f" | grep -qE 'json_get(_str|_num)?[[:space:]]*\([^;]*"' && echo "$f"
	done
}

t_record_read() {
	local r=$OUT/layers-record
	expect_eq "no file outside src/record/ reads the record by name" \
		"$(record_readers "$TOP" | xargs)" ""
	rm -rf "$r" && mkdir -p "$r/src/output" "$r/src/record"
	printf 'x = json_get_num(&r->v,\n\t"threads");\n' >"$r/src/output/bad.c"
	printf 'x = json_get(v, "nodes");\n' >"$r/src/record/run.c"
	printf 'json_str(j, "size", sz);\n' >"$r/src/output/good.c"
	expect_eq "a call over two lines is found; src/record/ and writers are not" \
		"$(record_readers "$r" | xargs)" "src/output/bad.c"
}

run_cases
echo "layers: $(summary_line)"
