#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run the test suites: unit (plain and with sanitizers), the tree's own checks
# (syncheck, install, lengths, paths), golden fixtures, command line, simulated
# kernel, hostile input and broken runs, the fuzz targets' corpora replayed, the
# worker count on simulated machines, live reservations on this kernel, the Debian
# package, fresh Debian roots, cloud images booted under systemd, the
# arm64 build's unit, golden, cli and engine suites under qemu-user, and boots in
# QEMU (x86-64, and arm64 with the cross-built binary). Each suite builds what it
# needs first (and only that), its lines are shown as they come (a suite that runs
# cases at once shows each case's when it ends; all are kept in
# test/out/suite-NAME.log), and its time is shown with its count; a suite past its
# time limit is stopped and fails. The failed checks are listed again at the end,
# before "N passed, N failed". No check passes or fails on elapsed time: speed is
# for `make bench`. Each case is declared, with a one-line description, in its suite
# (tcase, test/lib.sh; UNIT_TEST, test/unit/unit.h).
#   TESTS="SUITE ..."        only these suites: unit unit-san tree layers golden cli
#                            operator alerts engine devices hostile fuzz adapt live arm64-user
#                            package fresh image boot arm64
#   TESTS="SUITE:CASE ..."   only these cases of a suite, and only their work (globs
#                            as in the shell), e.g. TESTS="boot:6.12-shares boot:7-*",
#                            TESTS="engine:rule*" or TESTS="unit:plan/*"
#   TESTS=list               list every case as SUITE:CASE with its description;
#                            builds and runs nothing
#   HUGEPAR_LONG=1       also the long cases (`make check-all`): a suite declares them
#                        with tcase_long (test/lib.sh); named in TESTS (not by a
#                        glob), one runs anyway
#   HUGEPAR_SKIP_SAN=1   skip the sanitizer builds
#   HUGEPAR_SKIP_BOOT=1  skip the QEMU boot tests (x86-64 and arm64)
#   HUGEPAR_SKIP_FRESH=1 skip the fresh Debian roots (test/fresh.sh)
#   HUGEPAR_SKIP_IMAGE=1 skip the cloud images (test/image.sh)
cd "$(dirname "$0")/.." || exit 1
. test/lib.sh

SUITES="unit unit-san tree layers golden cli operator alerts engine devices hostile fuzz adapt live arm64-user package fresh image boot arm64"
LIST=""
if [ "${TESTS:-}" = list ]; then
	LIST=$OUT/list
	TESTS=""
	rm -rf "$LIST" && mkdir -p "$LIST"
fi
for t in ${TESTS:-}; do
	[[ " $SUITES " == *" ${t%%:*} "* ]] || { echo "run.sh: no suite '${t%%:*}' (TESTS: $SUITES)" >&2; exit 2; }
done

# selected SUITE: whether TESTS asks for it; sets CASES to the cases it names
selected() {
	local t
	CASES=""
	[ -z "${TESTS:-}" ] && return 0
	for t in $TESTS; do
		[ "${t%%:*}" = "$1" ] || continue
		[ "$t" = "$1" ] && { CASES=""; return 0; }
		CASES="$CASES ${t#*:}"
	done
	[ -n "$CASES" ]
}

# suite NAME SECONDS "TARGETS" COMMAND...: make TARGETS (the binaries the suite runs),
# then the suite, which prints "NAME: N passed, N failed[, N skipped]" last; its
# counts are added up, and its time shown.
suite() {
	local name=$1 limit=$2 targets=$3 log=$OUT/suite-$1.log line rc start
	shift 3
	selected "$name" || return 0
	# listing builds nothing and runs no case: each suite names its declared cases
	if [ -n "$LIST" ]; then
		: >"$LIST/$name"
		case $1 in
		build/unit*) test/unit/list.sh >"$LIST/$name" ;;
		*) HUGEPAR_LIST=$LIST/$name timeout -k 10 60 "$@" >/dev/null 2>&1 ;;
		esac
		awk -F '\t' -v s="$name" '!seen[$1]++ { printf "%-32s %s\n", s ":" $1, $2 }' "$LIST/$name"
		return
	fi
	if [ -n "${BG_PID[$name]:-}" ]; then
		# begun beside the others (early): its lines so far, then as they come
		echo "== $name (begun beside the suites before it)"
		start=${BG_START[$name]}
		tail -n +1 --pid="${BG_PID[$name]}" -f "$log" | sed -u '$d'
		wait "${BG_PID[$name]}"
		rc=$?
	else
		if [ -n "$targets" ] && ! make --no-print-directory -s $targets >"$OUT/build-$name.log" 2>&1; then
			cat "$OUT/build-$name.log"
			fail "$name: make $targets failed (see $OUT/build-$name.log)"
			return
		fi
		echo "== $name"
		start=$SECONDS
		HUGEPAR_CASES=${CASES# } timeout -k 10 "$limit" "$@" 2>&1 | tee "$log" | sed -u '$d'
		rc=${PIPESTATUS[0]}
	fi
	TIMES="$TIMES $name $((SECONDS - start))"
	line=$(tail -n 1 "$log")
	grep '^FAIL' "$log" | sed "s/^FAIL /FAIL $name: /" >>"$OUT/failed.txt"
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		fail "$name: stopped after its limit of $limit s (see $log)"
		return
	fi
	echo "== $line ($((SECONDS - start)) s)"
	if counts "$line"; then
		PASSED=$((PASSED + C_PASSED)) FAILED=$((FAILED + C_FAILED)) SKIPPED=$((SKIPPED + C_SKIPPED))
	else
		fail "$name ended without a count (see $log)"
	fi
}

# early NAME LIMIT COMMAND...: begin the suite NAME now, in the background, its
# lines in its log; suite() shows them at its turn. For a suite that builds nothing
# here and spends much of its time waiting on the network (the fresh roots): the
# suites before it run meanwhile.
declare -A BG_PID=() BG_START=()
early() {
	local name=$1 limit=$2
	shift 2
	[ -z "$LIST" ] && selected "$name" || return 0
	BG_START[$name]=$SECONDS
	HUGEPAR_CASES=${CASES# } timeout -k 10 "$limit" "$@" >"$OUT/suite-$name.log" 2>&1 &
	BG_PID[$name]=$!
}

: >"$OUT/failed.txt"
: >"$OUT/case-times.tsv"
TIMES=""
[ -n "${HUGEPAR_SKIP_FRESH:-}" ] || early fresh 3000 test/fresh.sh
SAN=build/hugepar-san
[ -n "${HUGEPAR_SKIP_SAN:-}" ] && SAN=""
suite unit 600 build/unit build/unit
if [ -z "${HUGEPAR_SKIP_SAN:-}" ]; then
	suite unit-san 900 build/unit-san build/unit-san
else
	selected unit-san && [ -z "$LIST" ] && skip "unit tests with sanitizers (HUGEPAR_SKIP_SAN)"
fi
suite tree 600 "" test/tree.sh
suite layers 300 "build/musl/libnuma.a" test/layers.sh
suite golden 600 "hugepar $SAN" test/golden.sh
suite cli 900 "hugepar hugepar-test build/simctl" test/cli.sh
suite operator 300 "hugepar hugepar-test build/simctl" test/operator.sh
suite alerts 300 "hugepar hugepar-test build/simctl" test/alerts.sh
suite engine 1200 "hugepar hugepar-test build/simctl" test/engine.sh
suite devices 600 "hugepar hugepar-test build/simctl" test/devices.sh
suite hostile 900 "hugepar hugepar-test build/simctl" test/hostile.sh
suite fuzz 300 "build/fuzz-replay" test/fuzz.sh
suite adapt 900 "hugepar-test" test/adapt.sh
suite live 900 "hugepar hugepar-test build/holdpages $SAN" test/live.sh
suite arm64-user 900 "" test/arm64-user.sh
suite package 1800 "" test/package.sh
if [ -z "${HUGEPAR_SKIP_IMAGE:-}" ]; then
	suite image "$([ -n "${HUGEPAR_LONG:-}" ] && echo 4200 || echo 2700)" hugepar test/image.sh
else
	selected image && [ -z "$LIST" ] && skip "cloud images (HUGEPAR_SKIP_IMAGE)"
fi
if [ -z "${HUGEPAR_SKIP_BOOT:-}" ] && [ -x test/boot.sh ]; then
	suite boot 4200 "hugepar hugepar-test build/holdpages" test/boot.sh
else
	selected boot && [ -z "$LIST" ] && skip "boot tests (HUGEPAR_SKIP_BOOT or no test/boot.sh)"
fi
if [ -z "${HUGEPAR_SKIP_BOOT:-}" ]; then
	suite arm64 900 "" test/arm64.sh
else
	selected arm64 && [ -z "$LIST" ] && skip "arm64 boots (HUGEPAR_SKIP_BOOT)"
fi
# the fresh roots' suite last: it began first, in the background, and the images
# and boots use what CPU its network waits leave
if [ -z "${HUGEPAR_SKIP_FRESH:-}" ]; then
	suite fresh 3000 "" test/fresh.sh
else
	selected fresh && [ -z "$LIST" ] && skip "fresh Debian root (HUGEPAR_SKIP_FRESH)"
fi
[ -n "$LIST" ] && exit 0
# each suite's time, in seconds
[ -n "$TIMES" ] && echo "== times (s):$TIMES"
# and the slowest cases (test/lib.sh's run_case notes each; the fresh roots' own
# suites, and cases run side by side, are counted whole)
if [ -s "$OUT/case-times.tsv" ]; then
	echo "== slowest cases (s):$(sort -rn "$OUT/case-times.tsv" | head -n 12 |
		awk -F '\t' '{ printf " %s %s", $2, $1 }')"
fi
if [ -s "$OUT/failed.txt" ] || [ "$FAILED" != 0 ]; then
	echo "== failed:"
	cat "$OUT/failed.txt"
fi
summary_line
[ "$FAILED" = 0 ]
