#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make fuzz: each fuzz target named (build/fuzz-NAME, from test/fuzz.c) run for
# FUZZ_SECONDS on a scratch copy of its corpus (build/fuzz-corpus/NAME, copied from
# test/fuzz-seeds/NAME, which is never written), what it finds and its log in
# build/fuzz-found/NAME/; per target, the inputs it ran (libFuzzer's
# stat::number_of_executed_units) and whether it found something. FUZZ_MERGE=1: the
# inputs that add coverage are merged into test/fuzz-seeds/NAME after the run.
# Exits 1 when a target found something. doc/fuzzing.md.
cd "$(dirname "$0")/.." || exit 1
EACH=${FUZZ_SECONDS:-60}
FOUND=0

# fuzz NAME: one target's run and its line
fuzz() {
	local t=$1 corpus=build/fuzz-corpus/$1 found=build/fuzz-found/$1 rc execs what
	rm -rf "$corpus" "$found"
	mkdir -p "$corpus" "$found"
	cp test/fuzz-seeds/"$t"/* "$corpus"/
	# a 30 s limit an input: one that takes longer is a finding (a hang), not
	# the machine's load
	"build/fuzz-$t" -max_total_time="$EACH" -print_final_stats=1 -timeout=30 \
		-rss_limit_mb=2048 -artifact_prefix="$found/" "$corpus" >"$found/log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$found/log" | tail -n 1)
	what=$(cd "$found" && ls -- crash-* leak-* timeout-* oom-* slow-unit-* 2>/dev/null | tr '\n' ' ')
	if [ "$rc" = 0 ] && [ -z "$what" ]; then
		what="nothing found"
	else
		what="FOUND ${what:-exit $rc} (see $found/log)"
		FOUND=1
	fi
	printf '%-9s %10s inputs in %s s: %s\n' "$t" "${execs:-?}" "$EACH" "$what"
	if [ -n "${FUZZ_MERGE:-}" ]; then
		"build/fuzz-$t" -merge=1 "test/fuzz-seeds/$t" "$corpus" >"$found/merge.log" 2>&1 ||
			echo "$t: the merge failed (see $found/merge.log)"
	fi
}

[ $# -gt 0 ] || { echo "usage: test/fuzz-run.sh TARGET..." >&2; exit 2; }
echo "fuzz: $(date -u +%Y-%m-%d), $EACH s a target, on $(nproc) CPUs"
for t in "$@"; do
	fuzz "$t"
done
exit "$FOUND"
