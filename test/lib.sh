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

# Cases are declared before anything runs, each once, with a name and a one-line
# description (as kmod's DEFINE_TEST and dracut-ng's TEST_DESCRIPTION):
#   tcase NAME "DESCRIPTION" [FUNCTION [ARG...]]
# declares the case NAME, whose body is FUNCTION ARG... (by default t_NAME, with
# '-' and '.' in NAME as '_'); tcase_long declares one that only make check-all runs
# (HUGEPAR_LONG=1), or TESTS when it names it. A suite declares its cases, defines
# their bodies and ends with run_cases, which runs the wanted ones in order. While a
# case runs, every check it makes is counted and shown under its name: a check's
# message never names the case.
# HUGEPAR_CASES="CASE ..." (test/run.sh sets it from TESTS="SUITE:CASE"): only the
# cases whose name matches one of these globs run. HUGEPAR_LIST=FILE (TESTS=list):
# run_cases writes "NAME<TAB>DESCRIPTION" for each case to FILE and exits; nothing
# else runs. A suite may define requires(), run before the first case: when it
# fails, each wanted case is skipped with the reason it printed.
declare -a TC_NAMES=()
declare -A TC_DESC=() TC_CALL=() TC_LONG=()
CASE=""
tcase() {
	local name=$1 desc=$2
	shift 2
	if [ -n "${TC_DESC[$name]+x}" ]; then
		echo "tcase: the case '$name' is declared twice" >&2
		exit 2
	fi
	case $name in "" | *[!A-Za-z0-9._-]*)
		echo "tcase: '$name' is not a case name (letters, digits, '.', '_', '-')" >&2
		exit 2
		;;
	esac
	[ -n "$desc" ] || { echo "tcase: the case '$name' has no description" >&2; exit 2; }
	TC_NAMES+=("$name")
	TC_DESC[$name]=$desc
	if [ $# -gt 0 ]; then
		printf -v "TC_CALL[$name]" '%q ' "$@"
	else
		TC_CALL[$name]=t_${name//[-.]/_}
	fi
}
tcase_long() {
	tcase "$@"
	TC_LONG[$1]=1
}
# case_wanted NAME: whether TESTS asks for the case NAME (all, when it names none)
case_wanted() {
	local c globs
	[ -z "${HUGEPAR_CASES:-}" ] && return 0
	# (read, not a bare $HUGEPAR_CASES: "b*" is a case glob, not the files here)
	read -ra globs <<<"$HUGEPAR_CASES"
	for c in "${globs[@]}"; do
		# shellcheck disable=SC2053
		[[ $1 == $c ]] && return 0
	done
	return 1
}
# run_cases: list the declared cases (HUGEPAR_LIST), or run the wanted ones: after
# requires() and prepare() (each when the suite defines it), in order, or with
# TC_JOBS=N (N > 1) up to N at a time, each in a subshell of its own whose lines are
# shown, in order, once it has ended (a suite whose cases share work makes it with
# once(); the cases must not depend on each other's shell variables).
run_cases() {
	local n why todo=()
	if [ -n "${HUGEPAR_LIST:-}" ]; then
		for n in "${TC_NAMES[@]}"; do
			printf '%s\t%s%s\n' "$n" "${TC_LONG[$n]:+(make check-all) }" "${TC_DESC[$n]}"
		done >>"$HUGEPAR_LIST"
		exit 0
	fi
	for n in "${TC_NAMES[@]}"; do
		case_wanted "$n" && todo+=("$n")
	done
	[ ${#todo[@]} -gt 0 ] || return 0
	if declare -F requires >/dev/null && ! why=$(requires 2>&1); then
		for n in "${todo[@]}"; do
			CASE=$n skip "${why:-not run here}"
		done
		return
	fi
	declare -F prepare >/dev/null && prepare
	if [ "${TC_JOBS:-1}" -gt 1 ] && [ ${#todo[@]} -gt 1 ]; then
		run_parallel "${todo[@]}"
		return
	fi
	for n in "${todo[@]}"; do
		run_case "$n"
	done
}
# short_enough NAME: whether the wanted case NAME runs in this run: it is not long,
# or this is make check-all, or TESTS names it (not by a glob)
short_enough() {
	[ -z "${TC_LONG[$1]:-}" ] || [ -n "${HUGEPAR_LONG:-}" ] || [[ " ${HUGEPAR_CASES:-} " == *" $1 "* ]]
}
# run_case NAME: the case NAME, or its skip when it is long and this run is not
run_case() {
	local start=$SECONDS
	CASE=$1
	if ! short_enough "$1"; then
		skip "a long case, in make check-all"
	else
		eval "${TC_CALL[$1]}"
		# its time, for run.sh's list of the slowest cases (not a check)
		printf '%s\t%s:%s\n' "$((SECONDS - start))" "$(basename "$0" .sh)" "$1" >>"$OUT/case-times.tsv"
	fi
	CASE=""
}
# run_parallel NAME...: the cases, TC_JOBS at a time, each in a subshell whose lines
# go to a file and whose counts to another; shown and added up in order.
run_parallel() {
	local d=$OUT/cases.$$ names=("$@") launched=0 shown=0 running=0 n
	rm -rf "$d" && mkdir -p "$d"
	while [ $shown -lt ${#names[@]} ]; do
		while [ $running -lt "$TC_JOBS" ] && [ $launched -lt ${#names[@]} ]; do
			n=${names[$launched]}
			(
				PASSED=0 FAILED=0 SKIPPED=0
				run_case "$n"
				echo "$PASSED $FAILED $SKIPPED" >"$d/$n.counts"
			) >"$d/$n.out" 2>&1 &
			launched=$((launched + 1)) running=$((running + 1))
		done
		while [ $shown -lt $launched ]; do
			n=${names[$shown]}
			[ -f "$d/$n.counts" ] || [ $running = 0 ] || break
			cat "$d/$n.out"
			if [ -f "$d/$n.counts" ]; then
				read -r p f s <"$d/$n.counts"
				PASSED=$((PASSED + p)) FAILED=$((FAILED + f)) SKIPPED=$((SKIPPED + s))
			else
				CASE=$n fail "ended without its counts"
			fi
			shown=$((shown + 1))
		done
		[ $shown -lt ${#names[@]} ] || break
		if [ $running -gt 0 ]; then
			wait -n 2>/dev/null
			running=$(jobs -rp | wc -l)
		fi
	done
	wait
	rm -rf "$d"
}
# once NAME COMMAND...: run COMMAND once for the suite's run, whichever case asks
# first (cases may run at once: the others wait for it); its status every time.
# The marks live in $ONCE, which a suite's prepare() empties.
ONCE=$OUT/once
once() {
	local name=$1 rc lockfd
	shift
	mkdir -p "$ONCE"
	exec {lockfd}>"$ONCE/$name.lock"
	flock "$lockfd"
	if [ ! -f "$ONCE/$name.rc" ]; then
		"$@"
		echo $? >"$ONCE/$name.rc"
	fi
	read -r rc <"$ONCE/$name.rc"
	flock -u "$lockfd"
	exec {lockfd}>&-
	return "$rc"
}

# pass, fail, skip MESSAGE: a check of the running case (shown as "CASE: MESSAGE")
pass() { label "$*" || return 0; PASSED=$((PASSED + 1)); echo "ok   $LABEL"; }
fail() { label "$*" || return 0; FAILED=$((FAILED + 1)); echo "FAIL $LABEL"; }
skip() { label "$*" || return 0; SKIPPED=$((SKIPPED + 1)); echo "skip $LABEL"; }
label() {
	LABEL=${CASE:+$CASE: }$1
}

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

# counts LINE: whether LINE ends with a suite's closing "N passed, N failed[, N
# skipped]"; its counts in C_PASSED, C_FAILED and C_SKIPPED
counts() {
	[[ $1 =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)?$ ]] || return 1
	# shellcheck disable=SC2034 # (the callers read them)
	C_PASSED=${BASH_REMATCH[1]} C_FAILED=${BASH_REMATCH[2]} C_SKIPPED=${BASH_REMATCH[4]:-0}
}
summary_line() {
	local line="$PASSED passed, $FAILED failed"
	[ "$SKIPPED" -gt 0 ] && line="$line, $SKIPPED skipped"
	echo "$line"
}
