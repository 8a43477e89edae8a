#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the test scripts: counters and assertions. Sourced, bash.
PASSED=${PASSED:-0} FAILED=${FAILED:-0} SKIPPED=${SKIPPED:-0}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$TOP/test/out
mkdir -p "$OUT"

pass() { PASSED=$((PASSED + 1)); echo "ok   $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $*"; }
skip() { SKIPPED=$((SKIPPED + 1)); echo "skip $*"; }

# check NAME COMMAND...: pass when the command succeeds.
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}

# expect_eq NAME GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', want '$3'"; fi
}

# JSON field of a file, by a Python expression on 'r' (the parsed record).
jq_py() {
	/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

summary_line() {
	local line="$PASSED passed, $FAILED failed"
	[ "$SKIPPED" -gt 0 ] && line="$line, $SKIPPED skipped"
	echo "$line"
}
