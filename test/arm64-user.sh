#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The arm64 build's tests on this machine: the unit tests, and the golden, cli and
# engine suites with the arm64 hugepar, hugepar-test and simctl (make ARCH=arm64), each
# run under qemu-user (qemu-aarch64-static, called by name: binfmt_misc is not relied
# on). The suites are the same scripts as the native ones, given wrappers for the
# programs (HUGEPAR_BIN, HUGEPAR_TEST_BIN, HUGEPAR_SIMCTL: test/lib.sh) and a folder of
# their own (HUGEPAR_OUT). Cases: unit, golden, cli, engine; the arm64 build is made
# by the first of them that runs.
#
# qemu-user 7.2 refuses prctl(PR_SET_CHILD_SUBREAPER) (EINVAL), so the unit checks
# that need a subreaper are skipped, and counted as such, and only there
# (HUGEPAR_UNIT_QEMU_USER: test/unit/unit.h), and a fatal signal may be overtaken by a
# SIGKILL sent just after it (the emulator acts on it itself); the engine's own request for one
# fails the same way, which the suites' orphan cases then prove harmless or not.
. "$(dirname "$0")/lib.sh"

A=$OUT/arm64-user
QEMU=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)

tcase unit "the arm64 unit tests under qemu-user, and static aarch64 programs"
tcase golden "the golden suite with the arm64 hugepar" arm64_suite golden
tcase cli "the cli suite with the arm64 hugepar, hugepar-test and simctl" arm64_suite cli
# (the arm64 binary's engine runs on Debian's arm64 kernels in make check: test/arm64.sh)
tcase_long engine "the engine suite with the arm64 hugepar-test and simctl" arm64_suite engine

requires() {
	if [ -z "$QEMU" ] || ! command -v aarch64-linux-gnu-gcc >/dev/null; then
		echo "need qemu-user-static and gcc-aarch64-linux-gnu (make deps)"
		return 1
	fi
}

# built: the arm64 programs made (make ARCH=arm64) and their qemu-user wrappers, by
# the first case that needs them; false, and said, when the build failed
built() {
	local p
	if [ -z "${BUILT:-}" ]; then
		BUILT=failed
		rm -rf "$A"
		mkdir -p "$A/bin"
		if (cd "$TOP" && make --no-print-directory -s ARCH=arm64 hugepar hugepar-test \
			build/arm64/unit build/arm64/simctl) >"$A/build.log" 2>&1; then
			BUILT=ok
			for p in hugepar hugepar-test simctl; do
				printf '#!/bin/sh\nexec %s %s "$@"\n' "$QEMU" "$TOP/build/arm64/$p" >"$A/bin/$p"
				chmod +x "$A/bin/$p"
			done
		else
			tail -n 5 "$A/build.log"
		fi
	fi
	[ "$BUILT" = ok ] || fail "make ARCH=arm64 (see $A/build.log)"
	[ "$BUILT" = ok ]
}

# add LOG: add the counts of a suite's last line to this suite's, and its failures
add() {
	local line
	line=$(tail -n 1 "$1")
	if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)? ]]; then
		PASSED=$((PASSED + BASH_REMATCH[1])) FAILED=$((FAILED + BASH_REMATCH[2]))
		SKIPPED=$((SKIPPED + ${BASH_REMATCH[4]:-0}))
	else
		fail "ended without a count (see $1)"
	fi
}

# The unit tests: qemu-user's own report of each crash the tests cause on purpose
# ("uncaught target signal") is left out of the log shown.
t_unit() {
	local p
	built || return
	for p in unit hugepar-test; do
		expect_eq "build/arm64/$p is a static aarch64 program" \
			"$(readelf -h "$TOP/build/arm64/$p" | sed -n 's/^ *Machine: *//p') $(readelf -l "$TOP/build/arm64/$p" | grep -c INTERP)" \
			"AArch64 0"
	done
	HUGEPAR_CASES="" HUGEPAR_UNIT_QEMU_USER=1 "$QEMU" "$TOP/build/arm64/unit" >"$A/unit.log" 2>&1
	grep -v '^qemu: uncaught target signal' "$A/unit.log" | sed 's/^FAIL /FAIL unit: /'
	add "$A/unit.log"
}

# arm64_suite NAME: test/NAME.sh with the arm64 programs, its lines shown under NAME
# and its counts added to this suite's
arm64_suite() {
	local s=$1
	built || return
	HUGEPAR_CASES="" HUGEPAR_OUT=$A/$s HUGEPAR_SKIP_SAN=1 PASSED=0 FAILED=0 SKIPPED=0 \
		HUGEPAR_BIN=$A/bin/hugepar HUGEPAR_TEST_BIN=$A/bin/hugepar-test HUGEPAR_SIMCTL=$A/bin/simctl \
		"$TOP/test/$s.sh" >"$A/$s.log" 2>&1
	grep -v '^qemu: uncaught target signal' "$A/$s.log" | sed '$d' | sed -E "s/^(FAIL|ok  |skip) /\1 $s: /"
	add "$A/$s.log"
}

run_cases
echo "arm64-user: $(summary_line)"
