#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fuzz targets' corpora replayed (test/fuzz.c, doc/fuzzing.md): build/fuzz-replay,
# gcc's build with its address and undefined-behaviour sanitizers, feeds every file
# of test/fuzz-seeds/TARGET to the target that make fuzz runs under libFuzzer; a
# case per target. The same files in name order every run, each once: a fault, a
# leak or a failed invariant of any input fails its case, which names the inputs.
. "$(dirname "$0")/lib.sh"

R=$TOP/build/fuzz-replay
SEEDS=$TOP/test/fuzz-seeds

requires() { [ -x "$R" ] || { echo "need build/fuzz-replay"; return 1; }; }

tcase settings "settings files: every input read, planned and reported, its JSON read back" t_replay settings
tcase cmdline "kernel command lines: every input read, planned and reported, its JSON read back" t_replay cmdline
tcase values "setting values: every input parsed, counts and shares written as they read" t_replay values
tcase sysfs "the kernel's files: every input parsed, lists and PCI addresses written as they read" t_replay sysfs
tcase record "status.json: every input read as status, cmdline and status --check read it" t_replay record
tcase restore "restore notes: every input parsed, a note read only as hugepar writes it" t_replay restore
tcase creds "credentials: every SMBIOS entry and command line read, each credential planned" t_replay creds

# t_replay TARGET: every file of its corpus run, none faulting; those that do named
t_replay() {
	local n out rc f bad=""
	n=$(find "$SEEDS/$1" -maxdepth 1 -type f ! -name '.*' | wc -l)
	out=$("$R" "$1" "$SEEDS/$1" 2>"$OUT/fuzz-$1.log")
	rc=$?
	check "a corpus of inputs ($n)" test "$n" -gt 0
	expect_eq "every input run, none faulting" "$rc $out" "0 $1: $n inputs run"
	[ "$rc" = 0 ] && return
	for f in "$SEEDS/$1"/*; do
		"$R" "$1" "$f" >/dev/null 2>&1 || bad="$bad ${f##*/}"
	done
	fail "the inputs that fault:${bad:- none alone} (see $OUT/fuzz-$1.log)"
}

run_cases
echo "fuzz: $(summary_line)"
