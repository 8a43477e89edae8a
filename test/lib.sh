#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the test scripts: counters and assertions. Sourced, bash.
PASSED=${PASSED:-0} FAILED=${FAILED:-0} SKIPPED=${SKIPPED:-0}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${HUGEPAR_OUT:-$TOP/test/out}
# The programs the golden, cli and engine suites run: this tree's, or (test/arm64-user.sh)
# wrappers that run the arm64 ones under qemu-user.
# shellcheck disable=SC2034 # used by the suites that source this
HP_BIN=${HUGEPAR_BIN:-$TOP/hugepar} HP_TEST_BIN=${HUGEPAR_TEST_BIN:-$TOP/hugepar-test} \
	HP_SIMCTL=${HUGEPAR_SIMCTL:-$TOP/build/simctl}
# the dracut module's directory name, as the Makefile installs it
# shellcheck disable=SC2034 # used by the suites that source this
DRACUT_MODULE=$(sed -n 's/^MODULE[[:space:]]*:=[[:space:]]*//p' "$TOP/Makefile")
mkdir -p "$OUT"

# HUGEPAR_CASES="CASE ..." (test/run.sh sets it from TESTS="SUITE:CASE"): only the
# checks whose name, up to its first ':', matches one of these globs are counted and
# shown; a suite asks wanted() before it does a case's work, and before work that
# only some cases need (a build, a boot), so that what is not asked for is not done.
# HUGEPAR_LIST=FILE (TESTS=list): nothing is wanted; every case asked about is
# written to FILE instead, so a suite that guards each case lists them all.
wanted() {
	local c
	if [ -n "${HUGEPAR_LIST:-}" ]; then
		echo "${1%%:*}" >>"$HUGEPAR_LIST"
		return 1
	fi
	[ -z "${HUGEPAR_CASES:-}" ] && return 0
	for c in $HUGEPAR_CASES; do
		# shellcheck disable=SC2053
		[[ ${1%%:*} == $c ]] && return 0
	done
	return 1
}
# any_wanted CASE...: whether one of these cases is wanted (work they share)
any_wanted() {
	local c r=1
	for c in "$@"; do wanted "$c" && r=0; done
	return $r
}
# long_case CASE: wanted, and either a long run (HUGEPAR_LONG=1: make check-all) or
# named in TESTS; a long case that make check leaves out is shown as skipped
long_case() {
	if [ -z "${HUGEPAR_LONG:-}" ] && [ -z "${HUGEPAR_CASES:-}" ]; then
		[ -z "${HUGEPAR_LIST:-}" ] && skip "$1: a long case, in make check-all"
		wanted "$1"
		return 1
	fi
	wanted "$1"
}
pass() { wanted "$*" || return 0; PASSED=$((PASSED + 1)); echo "ok   $*"; }
fail() { wanted "$*" || return 0; FAILED=$((FAILED + 1)); echo "FAIL $*"; }
skip() { wanted "$*" || return 0; SKIPPED=$((SKIPPED + 1)); echo "skip $*"; }

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

# qemu_numa "MB:CPUS ...": QEMU's memory and NUMA options for nodes of MB MiB and
# CPUS vCPUs each (0: a node without CPUs), in the array NUMA_ARGS, with the vCPUs
# and MiB in all in NUMA_CPUS and NUMA_MEM
qemu_numa() {
	local n mb c i=0
	NUMA_ARGS=() NUMA_CPUS=0 NUMA_MEM=0
	for n in $1; do
		mb=${n%%:*} c=${n#*:}
		NUMA_ARGS+=(-object "memory-backend-ram,id=m$i,size=${mb}M")
		if [ "$c" -gt 0 ]; then
			NUMA_ARGS+=(-numa "node,nodeid=$i,cpus=$NUMA_CPUS-$((NUMA_CPUS + c - 1)),memdev=m$i")
		else
			NUMA_ARGS+=(-numa "node,nodeid=$i,memdev=m$i")
		fi
		NUMA_CPUS=$((NUMA_CPUS + c)) NUMA_MEM=$((NUMA_MEM + mb)) i=$((i + 1))
	done
}

# arm64_initramfs DIR INIT [FILE:PATH...]: a gzip'd cpio DIR/initrd.img of Debian's
# arm64 busybox (build/arm64/boot, scripts/fetch-arm64.sh) with its applets, the
# file INIT as /init, and each FILE at PATH
arm64_initramfs() {
	local d=$1 r=$1/root f c
	rm -rf "$r"
	mkdir -p "$r/bin" "$r/usr/sbin" "$r/usr/bin" "$r/proc" "$r/sys" "$r/dev" "$r/run" "$r/tmp"
	cp "$TOP/build/arm64/boot/busybox" "$r/bin/busybox"
	for c in sh cat mount poweroff echo sed tr head cut ls wc sleep mkfifo rm kill grep mkdir sync; do
		ln -s busybox "$r/bin/$c"
	done
	install -m 0755 "$2" "$r/init"
	shift 2
	for f in "$@"; do install -D -m 0755 "${f%%:*}" "$r/${f#*:}"; done
	(cd "$r" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$d/initrd.img"
}

# arm64_kernel GLOB: the newest kernel of build/arm64/boot that GLOB names
arm64_kernel() { (cd "$TOP/build/arm64/boot" && printf '%s\n' $1 | sort -V | tail -n 1); }

# arm64_boot LOG KVER INITRD TOPOLOGY CMDLINE: a boot of Debian's arm64 kernel KVER
# (build/arm64/boot) in qemu-system-aarch64 (virt, TCG) with the nodes of TOPOLOGY
# (qemu_numa), its serial console in LOG
arm64_boot() {
	qemu_numa "$4"
	timeout 600 qemu-system-aarch64 -machine virt -cpu max,pauth-impdef=on \
		-smp "$NUMA_CPUS" -m "${NUMA_MEM}M" "${NUMA_ARGS[@]}" \
		-kernel "$TOP/build/arm64/boot/$2/vmlinuz" -initrd "$3" \
		-append "console=ttyAMA0 rdinit=/init panic=-1 loglevel=4 $5" \
		-display none -monitor none -serial "file:$1" -no-reboot >/dev/null 2>&1
}

summary_line() {
	local line="$PASSED passed, $FAILED failed"
	[ "$SKIPPED" -gt 0 ] && line="$line, $SKIPPED skipped"
	echo "$line"
}
