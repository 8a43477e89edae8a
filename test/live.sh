#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live tests: reserve real huge pages on this machine with the test build of hugepar
# (fault-injection seam), check pools, overcommit, surplus and the record. Every pool
# is put back as it was, pass or fail. Each numbered case starts from an empty 2M
# pool; TESTS=live:CASE runs only its work.
. "$(dirname "$0")/lib.sh"

HP=$TOP/hugepar-test
H=/sys/kernel/mm/hugepages
S2=$H/hugepages-2048kB

tcase parallel "parallel, 1 GiB a node: pools, method, status, the record"
tcase serial "per-node writes, 2 GiB a node"
tcase capped "more than free memory: capped at free less the floor, which is kept"
tcase deadline "a deadline of 50 ms: timed out, everything put back"
tcase sigterm "SIGTERM once pages arrive: interrupted, the pages got kept, the rest put back"
tcase grow "grow mode keeps a larger pool, and says why"
tcase exact "exact mode shrinks a larger pool"
tcase chunk-refused "a refused chunk shrinks the chunk size, and the work goes on"
tcase reconcile "every reservation refused: per-node writes top each node up"
tcase fallback "the overcommit raise refused: per-node writes, and the record says why"
tcase write-fails "a failing sysfs write: the cell failed, with the reason"
tcase disabled "rd.hugepar=0: nothing touched, the record says disabled"
tcase bad-option "bad settings named in the record; the valid entry still applied"
tcase concurrent "two runs at once: the second waits for the lock; overcommit as it began"
tcase killed "killed with workers holding surplus: the next run puts the overcommit back"
tcase verify "verify mounts hugetlbfs once, and names a path another file system holds"
tcase vmemmap "the default turns the vmemmap optimization on before the first page; the kernel's count gives 28 kB a 2M page back; keep leaves it off"
tcase sanitizers "a run of the engine under AddressSanitizer and UBSan"

requires() {
	if [ "$(id -u)" != 0 ] || [ ! -w "$S2/nr_hugepages" ]; then
		echo "need root and a writable $S2 (2M huge pages)"
		return 1
	fi
}

# Every pool as it was before the first case, put back on exit, pass or fail (not
# when listing the cases, nor where no case can run)
declare -A SAVED_NR SAVED_OC
VMEMMAP=/proc/sys/vm/hugetlb_optimize_vmemmap
SAVED_VMEMMAP=""
save_pools() {
	local d
	[ -f "$VMEMMAP" ] && SAVED_VMEMMAP=$(cat "$VMEMMAP")
	for d in "$H"/hugepages-*; do
		SAVED_NR[$d]=$(cat "$d/nr_hugepages")
		SAVED_OC[$d]=$(cat "$d/nr_overcommit_hugepages")
	done
}
restore() {
	umount "$OUT/mnt/hp-2M" "$OUT/mnt/tmp" 2>/dev/null
	for d in "${!SAVED_NR[@]}"; do
		# gigantic sizes refuse any overcommit write on older kernels: only if changed
		[ "$(cat "$d/nr_overcommit_hugepages")" = "${SAVED_OC[$d]}" ] ||
			echo "${SAVED_OC[$d]}" >"$d/nr_overcommit_hugepages"
		echo "${SAVED_NR[$d]}" >"$d/nr_hugepages"
	done
	# hugepar's default turns the vmemmap optimization on: as it was, pools first
	[ -z "$SAVED_VMEMMAP" ] || echo "$SAVED_VMEMMAP" >"$VMEMMAP"
}
if [ -z "${HUGEPAR_LIST:-}" ] && requires >/dev/null; then
	save_pools
	trap restore EXIT INT TERM
fi
empty() { echo 0 >"$S2/nr_hugepages"; }

# The 2M pool of every node, in node order ("512 512"), or the global one without
# NUMA sysfs: requests are per node, so a multi-node host is checked node by node.
pools() {
	local n
	if [ -d /sys/devices/system/node/node0 ]; then
		for n in /sys/devices/system/node/node[0-9]*; do
			echo "${n##*node} $(cat "$n/hugepages/hugepages-2048kB/nr_hugepages" 2>/dev/null || echo 0)"
		done | sort -n | awk '{printf "%s%s", s, $2; s=" "} END {print ""}'
	else
		cat "$S2/nr_hugepages"
	fi
}
NNODES=$(pools | wc -w)
# node 0's pool file (the global one without NUMA sysfs)
P0=/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages
[ -f "$P0" ] || P0=$S2/nr_hugepages
# each N: what every node should hold ("each 512" on two nodes: "512 512")
each() { local i out=""; for ((i = 0; i < NNODES; i++)); do out="$out${out:+ }$1"; done; echo "$out"; }
REC=$OUT/live-record
# The cases time the engine's paths on this kernel: the vmemmap optimization, which
# makes a worker's page 400 times dearer (doc/kernel-notes.md), stays as the kernel
# has it but in the vmemmap case, whose command line asks for hugepar's default.
LIVE_CONF=$OUT/live.conf
echo "vmemmap = keep" >"$LIVE_CONF"

# apply LABEL EXPECTED_RC ARGS...: run hugepar-test apply with its own record dir, and
# check its exit code (LABEL, when not empty, begins the message: a case's second
# run); its output in test/out/live-CASE[-LABEL].log
apply() {
	local label=$1 want=$2 rc log=$CASE${1:+-$1}
	shift 2
	rm -rf "$REC"
	"$HP" apply --config "$LIVE_CONF" --record-dir "$REC" "$@" >"$OUT/live-${log//[^[:alnum:]-]/_}.log" 2>&1
	rc=$?
	expect_eq "${label:+$label: }exit code" "$rc" "$want"
}

# consistent [LABEL]: overcommit back, no surplus left, record matches sysfs per node
# (LABEL, when given, begins the messages: a case's second run)
consistent() {
	local p=${1:+$1: }
	expect_eq "${p}overcommit restored" "$(cat "$S2/nr_overcommit_hugepages")" "${SAVED_OC[$S2]}"
	expect_eq "${p}no surplus left" "$(cat "$S2/surplus_hugepages")" 0
	expect_eq "${p}record achieved = pools" \
		"$(field '[.nodes[].sizes[0].achieved | tostring] | join(" ")')" "$(pools)"
	expect_eq "${p}no restore note left" "$(ls /run/hugepar/restore-* 2>/dev/null)" ""
	check "${p}record has the documented format" /usr/bin/python3 "$TOP/test/check-record.py" \
		"$TOP/doc/record.md" "$REC/status.json"
}

# field FILTER: jq's FILTER on the record; strings bare, the rest compact JSON
field() { jq -cr "$1" "$REC/status.json"; }
# locked LOG PID: wait until the run PID has taken the lock (the seam's trace in LOG
# says "lock"), or has ended without it
locked() {
	local i
	for ((i = 0; i < 1200; i++)); do
		grep -qs '^hugepar-trace lock ' "$1" && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
}

# 1. parallel, 1 GiB
t_parallel() {
	empty
	apply "" 0 --method=parallel --cmdline "rd.hugepar.pages=2M:512"
	expect_eq "pools" "$(pools)" "$(each 512)"
	expect_eq "method" "$(field '.sizes[0].method')" parallel
	expect_eq "status" "$(field .status)" ok
	expect_eq "cell status" "$(field '.nodes[0].sizes[0].status')" ok
	check "workers ran" test "$(field '.sizes[0].threads')" -ge 1
	consistent
	check "status shows the record" sh -c "'$HP' status -d '$REC' | grep -q '^0 *2M *0 *512 *512 *512 .* ok'"
}

# 2. serial, 2 GiB
t_serial() {
	empty
	apply "" 0 --method=serial --cmdline "rd.hugepar.pages=2M:2G"
	expect_eq "pools" "$(pools)" "$(each 1024)"
	expect_eq "method" "$(field '.sizes[0].method')" serial
	consistent
}

# 3. beyond free memory: capped at free minus the floor, quickly. Ask for all but
# 1 GiB of what is free, keep 4 GiB: the floor is what cuts.
t_capped() {
	empty
	ask_mb=$(( $(awk '/MemFree/ {print $2}' /proc/meminfo) / 1024 - 1024 ))
	apply "" 64 --cmdline "rd.hugepar.pages=2M:${ask_mb}M rd.hugepar.keep_free=4G"
	expect_eq "cell status" "$(field '.nodes[0].sizes[0].status')" capped
	check "reason and cause name keep_free" sh -c "grep -q 'capped by keep_free' '$REC/status.json' && grep -q '\"cause\": \"keep_free\"' '$REC/status.json'"
	free_kb=$(awk '/MemFree/ {print $2}' /proc/meminfo)
	check "floor kept ($free_kb kB free)" test "$free_kb" -ge $((4 * 1024 * 1024 - 65536))
	check "pool is large" test "$(cat "$S2/nr_hugepages")" -ge 1024
	echo "     capped: $(field .duration_ms) ms for $(cat "$S2/nr_hugepages") pages"
	consistent
}

# 4. a tiny deadline
t_deadline() {
	empty
	HUGEPAR_FAULT=reserve=delay:20 apply "" 64 --method=parallel \
		--cmdline "rd.hugepar.pages=2M:8G rd.hugepar.timeout=0.05 rd.hugepar.threads=1"
	expect_eq "timed_out" "$(field .timed_out)" true
	consistent
}

# 5. SIGTERM in the middle of a run (each reservation made slow by the seam), sent
# once the pool has the first pages, not after a set time
t_sigterm() {
	empty
	rm -rf "$REC"
	HUGEPAR_FAULT=reserve=delay:100 "$HP" apply --config "$LIVE_CONF" --record-dir "$REC" --method=parallel \
		--cmdline "rd.hugepar.pages=2M:4G rd.hugepar.threads=1" >"$OUT/live-sigterm.log" 2>&1 &
	pid=$!
	for ((i = 0; i < 1200; i++)); do
		[ "$(cat "$S2/nr_hugepages")" -gt 0 ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.05
	done
	kill -TERM $pid
	wait $pid
	expect_eq "exit code" "$?" 64
	expect_eq "interrupted" "$(field .interrupted)" true
	check "pages kept" test "$(cat "$S2/nr_hugepages")" -gt 0
	check "not all pages" test "$(cat "$S2/nr_hugepages")" -lt $((2048 * NNODES))
	consistent
}

# 6. grow never shrinks; exact does
t_grow() {
	empty
	echo 600 >"$P0"
	apply "" 0 --cmdline "rd.hugepar.pages=2M:100@0"
	expect_eq "pool kept" "$(cat "$P0")" 600
	expect_eq "reason" "$(field '.nodes[0].sizes[0].reason')" "grow mode keeps the larger pool"
}
t_exact() {
	empty
	echo 600 >"$P0"
	apply "" 0 --cmdline "rd.hugepar.pages=2M:100@0 rd.hugepar.mode=exact"
	expect_eq "pool shrunk" "$(cat "$P0")" 100
	consistent
}

# 7. fault injection: a refused chunk shrinks the chunk size and carries on
t_chunk_refused() {
	empty
	HUGEPAR_FAULT=reserve:2 apply "" 0 --method=parallel \
		--cmdline "rd.hugepar.pages=2M:512@0 rd.hugepar.threads=1"
	expect_eq "pool" "$(cat "$P0")" 512
	expect_eq "refusals counted" "$(field '.sizes[0].chunks_refused')" 1
	consistent
}

# 8. every reservation refused: the reconcile step tops the node up serially
t_reconcile() {
	empty
	HUGEPAR_FAULT=reserve apply "" 0 --method=parallel --cmdline "rd.hugepar.pages=2M:256"
	expect_eq "pools" "$(pools)" "$(each 256)"
	expect_eq "topped up" "$(field '.sizes[0].topped_up')" $((256 * NNODES))
	consistent
}

# The vmemmap optimization on a real kernel: off before, the default turns it on
# before its first page and leaves it on; the kernel's count of descriptor pages
# (Linux 6.11 on: /proc/vmstat) gives 7 base pages a 2M page back, and the record's
# figure is the kernel's. vmemmap=keep leaves it off: nothing given back.
t_vmemmap() {
	local want=$((512 * NNODES * 28))
	[ -f "$VMEMMAP" ] || { skip "no $VMEMMAP: the kernel does not offer it"; return; }
	empty
	echo 0 >"$VMEMMAP"
	apply "" 0 --cmdline "rd.hugepar.pages=2M:512 rd.hugepar.vmemmap=auto"
	expect_eq "on, by hugepar" "$(cat "$VMEMMAP") $(field '.vmemmap.on') $(field '.vmemmap.why')" "1 true turned_on"
	expect_eq "per-node writes: they optimize their pages together" \
		"$(field '.sizes[0].method') $(field '.sizes[0].method_note' | grep -c vmemmap)" "serial 1"
	expect_eq "each node's figure: 512 pages of 28 kB" \
		"$(jq -r '[.nodes[].sizes[] | select(.size == "2M") | .vmemmap_freed_kb] | join(" ")' "$REC/status.json")" \
		"$(each 14336)"
	if grep -q '^nr_memmap_pages ' /proc/vmstat; then
		expect_eq "the figure is the kernel's" "$(field '.vmemmap.source')" kernel
		check "the kernel's count: $(field '.vmemmap.freed_kb') kB, within 5% of $want" \
			awk -v g="$(field '.vmemmap.freed_kb')" -v w="$want" 'BEGIN { exit !(g >= w * 0.95 && g <= w * 1.05) }'
	fi
	consistent
	empty
	echo 0 >"$VMEMMAP"
	apply keep 0 --cmdline "rd.hugepar.pages=2M:512 rd.hugepar.vmemmap=keep"
	expect_eq "keep: per-node writes or workers, as without it" "$(field '.sizes[0].method_note' | grep -c vmemmap)" 0
	expect_eq "keep: left off, nothing given back" \
		"$(cat "$VMEMMAP") $(field '.vmemmap.on') $(field '.vmemmap.why') $(field '.vmemmap.freed_kb_computed')" "0 false keep 0"
	consistent keep
}

# 9. the kernel refuses the overcommit raise: falls back to serial and says so
t_fallback() {
	empty
	HUGEPAR_FAULT=overcommit apply "" 0 --method=parallel --cmdline "rd.hugepar.pages=2M:256"
	expect_eq "method" "$(field '.sizes[0].method')" serial
	check "note" sh -c "grep -q 'refuses overcommit' '$REC/status.json'"
	expect_eq "pools" "$(pools)" "$(each 256)"
	consistent
}

# 10. a failing sysfs write: recorded as failed, with the reason
t_write_fails() {
	empty
	HUGEPAR_FAULT=write:1 apply "" 1 --method=serial --cmdline "rd.hugepar.pages=2M:256@0"
	expect_eq "cell status" "$(field '.nodes[0].sizes[0].status')" failed
	check "reason" sh -c "grep -q 'write failed' '$REC/status.json'"
	expect_eq "pool untouched" "$(cat "$S2/nr_hugepages")" 0
	consistent
}

# 11. disabled: nothing touched, the record says so
t_disabled() {
	empty
	apply "" 0 --cmdline "rd.hugepar=0 rd.hugepar.pages=2M:256"
	expect_eq "pool" "$(cat "$S2/nr_hugepages")" 0
	expect_eq "status" "$(field .status)" disabled
}

# 12. a bad option: named in the record, the valid entry still applied
t_bad_option() {
	empty
	apply "" 64 --cmdline "rd.hugepar.pages=2M:128,2M:lots rd.hugepar.threads=-1"
	expect_eq "valid entry applied" "$(pools)" "$(each 128)"
	expect_eq "problems recorded" "$(field '.settings.problems | length')" 2
	expect_eq "value named" "$(field '.settings.problems[0].value')" "2M:lots"
}

# 13. two runs at once: the second, started once the first holds the lock, waits for
# it; the overcommit value ends as it began (each run saw the true one)
t_concurrent() {
	empty
	rm -rf "$REC-a"
	HUGEPAR_FAULT=trace,reserve=delay:50 "$HP" apply --config "$LIVE_CONF" --record-dir "$REC-a" --method=parallel \
		--cmdline "rd.hugepar.pages=2M:256@0 rd.hugepar.threads=1" >"$OUT/live-first.log" 2>&1 &
	first=$!
	locked "$OUT/live-first.log" $first
	apply "the second" 0 --method=parallel --cmdline "rd.hugepar.pages=2M:512@0"
	wait $first
	expect_eq "the first ran" $? 0
	expect_eq "the second's pool" "$(cat "$P0")" 512
	consistent
}

# 14. the main process killed while workers hold surplus: the overcommit value stays
# raised, with its note; the next run puts it back and says so
t_killed() {
	empty
	{ HUGEPAR_FAULT=collect=kill apply "" 137 --method=parallel --cmdline "rd.hugepar.pages=2M:256"; } 2>/dev/null
	check "overcommit left raised" test "$(cat "$S2/nr_overcommit_hugepages")" -gt "${SAVED_OC[$S2]}"
	expect_eq "its note" "$(ls /run/hugepar/restore-2048kB 2>/dev/null)" /run/hugepar/restore-2048kB
	apply "next run" 0 --cmdline "rd.hugepar.pages=2M:256"
	expect_eq "next run: put it back (size, put back, ok)" \
		"$(field '[.recovered[] | [.size, .overcommit_put_back, .ok]]')" "[[\"2M\",${SAVED_OC[$S2]},true]]"
	expect_eq "next run: pools" "$(pools)" "$(each 256)"
	consistent "next run"
}

# 15. hugepar verify makes a hugetlbfs mount per size, once; a path taken by another
# file system is a failure it names
t_verify() {
	M2=$OUT/mnt/hp-2M
	umount "$M2" "$OUT/mnt/tmp" 2>/dev/null
	rm -rf "${OUT:?}/mnt"
	"$HP" verify -d "$REC" --config /dev/null \
		--cmdline "rd.hugepar.mount=2M:$M2,mode=1770,group=0 rd.hugepar.textfile=none" >"$OUT/live-verify.log" 2>&1
	expect_eq "exit 0" $? 0
	check "hugetlbfs for 2M at $M2" sh -c "grep -q '^hugetlbfs $M2 hugetlbfs .*pagesize=2M' /proc/mounts"
	expect_eq "its root's mode" "$(stat -c %a "$M2")" 1770
	"$HP" verify -d "$REC" --config /dev/null --cmdline "rd.hugepar.mount=2M:$M2 rd.hugepar.textfile=none" >"$OUT/live-verify2.log" 2>&1
	check "again: mounted already, not twice" sh -c "grep -q 'mounted already' '$OUT/live-verify2.log' && [ \$(grep -c ' $M2 ' /proc/mounts) = 1 ]"
	mkdir -p "$OUT/mnt/tmp" && mount -t tmpfs none "$OUT/mnt/tmp"
	"$HP" verify -d "$REC" --config /dev/null \
		--cmdline "rd.hugepar.mount=2M:$OUT/mnt/tmp rd.hugepar.textfile=none rd.hugepar.on_short=fail" >"$OUT/live-verify3.log" 2>&1
	expect_eq "a path taken by tmpfs, on_short = fail: exit 1" $? 1
	check "names it" grep -q "already a mount of tmpfs" "$OUT/live-verify3.log"
	umount "$M2" "$OUT/mnt/tmp"
}

# 16. the engine once under AddressSanitizer and UBSan
t_sanitizers() {
	if [ ! -x "$TOP/build/hugepar-san" ] || [ -n "${HUGEPAR_SKIP_SAN:-}" ]; then
		skip "no build/hugepar-san (HUGEPAR_SKIP_SAN)"
		return
	fi
	empty
	rm -rf "$REC"
	ASAN_OPTIONS=detect_leaks=1 "$TOP/build/hugepar-san" apply --config "$LIVE_CONF" \
		--record-dir "$REC" --method=parallel --cmdline "rd.hugepar.pages=2M:256" \
		>"$OUT/live-san.log" 2>&1
	expect_eq "exit code" "$?" 0
	check "no report" sh -c "! grep -q 'runtime error\|AddressSanitizer\|LeakSanitizer' '$OUT/live-san.log'"
	expect_eq "pools" "$(pools)" "$(each 256)"
	consistent
}

run_cases
echo "live: $(summary_line)"
