#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Engine tests on the simulated kernel (hugepar-test --simulate, doc/simulator.md):
# grow and exact, commit and reconcile, the deadline, SIGTERM and SIGKILL at each
# phase, a worker, a coordinator or the main process killed, an overcommit value
# that cannot be put back, both per-node write rules, surplus held by another
# program, gigantic sizes, CPU-less nodes, 32 nodes, two runs at once. No root, and
# this machine's pools are not touched. A fault case writes a row of the fault matrix
# (test/out/fault-matrix-engine.tsv, doc/fault-matrix.md). A case has a fixture of
# its name (test/out/engine/CASE); TESTS=engine:CASE runs only its work. Nothing
# here passes or fails on how long a run took (bench/sim1g.sh prints that).
. "$(dirname "$0")/lib.sh"

HP=$HP_TEST_BIN
SIMCTL=$HP_SIMCTL
FX=$OUT/engine
MATRIX=$OUT/fault-matrix-engine.tsv

# the work of the fault cases: 200 2M pages a node, two workers
ASK="rd.hugepar.pages=2M:200 rd.hugepar.threads=2"

tcase grow "parallel growth on two nodes: pools, method and workers recorded"
tcase vmemmap "the default turns the vmemmap optimization on before the first page: every page optimized; per-node writes from Linux 6.10 to 7.0"
tcase vmemmap-keep "keep, a kernel without it, one that had it on: left as it was, and said"
tcase vmemmap-shrink "a shrink the kernel refuses for want of memory for the descriptors: the pages left in the pool, said"
tcase vmemmap-cmdline "hugepar cmdline adds hugetlb_free_vmemmap=on where the kernel's own pages would be optimized"
tcase vmemmap-cost "the simulated kernel: the optimization costs time per page, one page at a time: more workers do not share it out"
for rel in 6.1.0 6.12.0; do
	tcase "free-$rel" "$rel: free pages already in the pool are held, the workers do the growth" t_free "$rel"
done
tcase probe "auto probes one page of one node, then the workers do the rest"
tcase probe-2x1 "auto on two nodes of one CPU: no probe, a worker on each"
tcase probe-3x1 "auto on three nodes of one CPU: probed"
tcase probe-2x4 "auto on two nodes of four CPUs: probed"
tcase refused "every reservation refused: per-node writes do the work, the record says so"
tcase bind-failed "a worker that cannot bind to its node: the node is partial, not ok"
tcase serial "per-node writes on two nodes"
tcase exact "grow mode keeps a larger pool, exact mode shrinks it"
for rel in 6.1.0 6.12.0; do
	tcase "misplace-$rel" "$rel: workers on the wrong node: trimmed and topped up" t_misplace "$rel"
done
for rel in 6.1.0 6.12.0 "6.1.0 persistent"; do
	set -- $rel
	tcase "rule-$1${2:+-$2}" "$1${2:+, persistent rule}: a node's write beside another program's surplus" \
		t_rule "$@"
done
for t in "6.1.0 0 2" "6.12.0 2 0" "6.15.0 2 0" "6.16.0 0 2" "7.2.0 0 2"; do
	set -- $t
	tcase "place-$1" "$1: an unbound program on node 1's CPUs: surplus $2 on node 0, $3 on node 1" \
		t_place "$@"
done
tcase nonuma "no NUMA sysfs: the global write takes a persistent count"
tcase inuse "exact mode meets pages in use: they stay surplus, the run is partial"
tcase giant-6.1.0 "6.1: 1G pages by per-node writes, and the record says why"
tcase granule-16k "16K pages: 32M pages by workers, 1G gigantic" t_granule 16k 16K 12
tcase granule-4k "4K pages: 32M and 1G pages gigantic" t_granule 4k 4K 11
tcase granule-64k "64K pages: 512M by workers, 1G not offered and named"
tcase giant-short "1G short at run time: the record, status and kernel log name the route"
tcase giant-short64 "1G short on 64 nodes: the whole route in the record and the log"
tcase giant-short-ids "1G short on nodes of four-digit ids: the log points to the record"
tcase giant-6.19.0 "6.19: 1G pages by workers"
tcase giant-auto "6.19, auto: 1G pages on two nodes by workers without a probe"
tcase giant-auto2 "6.19, auto: two 1G pages on one node by workers without a probe"
tcase giant-auto1 "6.19, auto: one 1G page on one node: the probe decides"
for rel in 6.12.0 6.19.0; do
	tcase "both-$rel" "$rel: 2M and 1G together, in the order the release allows (the trace)" t_both "$rel"
done
tcase seeds-1g "the seeds' 1G machine: every node's 1472 pages by workers"
tcase cpuless "a node without CPUs has workers on another node's CPUs, nothing topped up"
tcase n32 "32 nodes: every pool, a worker each"
for phase in probe raise spawn collect commit restore release reconcile; do
	tcase "deadline-$phase" "the deadline passes at $phase: everything put back" t_deadline "$phase"
	tcase "term-$phase" "SIGTERM at $phase: interrupted, everything put back" t_term "$phase"
	tcase "kill-$phase" "SIGKILL of the main process at $phase: recover puts it back" t_kill "$phase"
done
tcase kill-next "killed with the overcommit raised: the next run puts it back and says so"
tcase worker-killed "every worker killed: the nodes topped up"
tcase coord-killed "the 2M coordinator killed: 1G done, 2M not, its overcommit put back"
tcase restore-fails "the overcommit cannot be put back: failed, its note kept for recover"
tcase restore-retry "the overcommit put back at a second try: ok, and said"
tcase clock "the simulated clock: the same run twice gives the same record"
tcase clock-input "the simulated clock's bad settings are refused and named"
tcase concurrent "two runs at once: the second waits for the first's lock"
tcase busy "a second run gives up at its deadline while the first holds the lock"

requires() {
	if [ ! -x "$HP" ] || [ ! -x "$SIMCTL" ]; then
		echo "need hugepar-test and build/simctl (make check-fast)"
		return 1
	fi
}

# machine NAME LINE...: a fixture from description lines (test/mkfixture.sh); $M is it
machine() {
	local name=$1
	shift
	printf '%s\n' "$@" >"$FX/$name.desc"
	M=$FX/$name
	"$TOP/test/mkfixture.sh" "$FX/$name.desc" "$M"
}
# two nodes of 4 CPUs and 8 GiB, 2M and 1G pages, kernel RELEASE
two() { machine "$1" "sizes 2048 1048576" "release $2" \
	"node 0 cpus 0-3 mem 8G free 7G" "node 1 cpus 4-7 mem 8G free 7G" "${@:3}"; }

# run ARGS...: hugepar-test apply on $M; $RC its exit code, $REC its record
run() {
	REC=$M/rec
	rm -rf "$REC"
	# (the braces keep bash's "Killed" notice of a SIGKILL case off the output)
	{ "$HP" --sysroot "$M" --simulate apply --config /dev/null --record-dir "$REC" "$@" \
		>"$M.log" 2>&1; } 2>/dev/null
	RC=$?
}
# start LOG ARGS...: hugepar-test apply on $M in the background, $! its process, with
# the seam's trace in LOG; returns once it holds the lock (the trace's "lock"), or
# has ended without it
start() {
	local log=$1 i
	shift
	: >"$log"
	HUGEPAR_FAULT="trace${FAULT:+,$FAULT}" "$HP" --sysroot "$M" --simulate apply \
		--config /dev/null "$@" >/dev/null 2>"$log" &
	for ((i = 0; i < 1200; i++)); do
		grep -qs '^hugepar-trace lock ' "$log" && return 0
		kill -0 $! 2>/dev/null || return 1
		sleep 0.05
	done
}
sim() { "$SIMCTL" "$M" "$@"; }
# field FILTER: jq's FILTER on the record; strings bare, the rest compact JSON
field() { jq -cr "$1" "$REC/status.json"; }
hp() { cat "$M/sys/devices/system/node/node$1/hugepages/hugepages-${3:-2048}kB/$2"; }
glob() { cat "$M/sys/kernel/mm/hugepages/hugepages-${2:-2048}kB/$1"; }
# restore notes left (restore-*)
notes() { find "$M/run/hugepar" -name 'restore-*' 2>/dev/null | wc -l; }
# persistent pages of each node, "N N"
pools() {
	local n out=""
	for n in $(ls -d "$M"/sys/devices/system/node/node[0-9]* | sed 's/.*node//' | sort -n); do
		out="$out${out:+ }$(($(hp "$n" nr_hugepages "${1:-2048}") - $(hp "$n" surplus_hugepages "${1:-2048}")))"
	done
	echo "$out"
}

# settled [LABEL [SURPLUS]]: overcommit as at the start, no surplus but what others
# hold, no restore note, the record readable and true to the pools; LABEL begins the
# checks' messages, where a case checks more than one run.
settled() {
	local p=${1:+$1: }
	expect_eq "${p}overcommit put back" "$(glob nr_overcommit_hugepages)" "${OC:-0}"
	[ -d "$M/sys/kernel/mm/hugepages/hugepages-1048576kB" ] &&
		expect_eq "${p}1G overcommit put back" "$(glob nr_overcommit_hugepages 1048576)" 0
	# what others held may have been turned into pool pages by the commit (the
	# kernel does not tell whose surplus a page is): never more than they held
	check "${p}no surplus left ($(glob surplus_hugepages))" test "$(glob surplus_hugepages)" -le "${2:-0}"
	expect_eq "${p}no restore note" "$(notes)" 0
	if [ -f "$REC/status.json" ]; then
		check "${p}record format" /usr/bin/python3 "$TOP/test/check-record.py" \
			"$TOP/doc/record.md" "$REC/status.json"
		[ -d "$M/sys/devices/system/node" ] && expect_eq "${p}record = pools" \
			"$(field '[.nodes[].sizes[0].achieved | tostring] | join(" ")')" "$(pools)"
		expect_eq "${p}exit code = record" "$RC" \
			"$(field '{ok: 0, disabled: 0, partial: 64}[.status] // 1')"
	fi
}

# row FAULT [AFTER]: what a fault left, for the fault matrix (doc/fault-matrix.md):
# overcommit, surplus, pools, record, exit code, and what the next start did.
row() {
	local status=none
	sim show >/dev/null # the kernel is done with exited processes
	[ -f "$REC/status.json" ] && status=$(field .status)
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "${LEFT_OC:-$(glob nr_overcommit_hugepages)}" \
		"${LEFT_SURPLUS:-$(glob surplus_hugepages)}" "${LEFT_POOLS:-$(pools)}" "$status" "$RC" \
		"${2:--}" >>"$MATRIX"
}

# --- grow, exact, serial ------------------------------------------------------
t_grow() {
	two grow 6.12.0
	run --method=parallel --cmdline "rd.hugepar.pages=2M:100"
	expect_eq "pools" "$(pools)" "100 100"
	expect_eq "method" "$(field '.sizes[0].method')" parallel
	expect_eq "workers" "$(field '.sizes[0].threads')" 2
	settled
	row "none (parallel)"
}

# optimized N: the pages of 2M each node made while the optimization was on, "N N"
optimized() { sim show | awk '$1 == "node" && $9 == "optimized" { printf "%s%s", s, $10; s = " " } END { print "" }' | cut -d' ' -f1-2; }

t_vmemmap() {
	two vmemmap 6.18.0 "vmemmap 0"
	run --cmdline "rd.hugepar.pages=2M:100"
	expect_eq "pools" "$(pools)" "100 100"
	expect_eq "on, by hugepar" "$(cat "$M/proc/sys/vm/hugetlb_optimize_vmemmap") $(field '.vmemmap | "\(.on) \(.why) \(.source)"')" \
		"1 true turned_on computed"
	expect_eq "every page made optimized: turned on before the first" "$(optimized)" "100 100"
	expect_eq "each node's figure" "$(field '[.nodes[].sizes[0].vmemmap_freed_kb]') $(field .vmemmap.freed_kb)" "[2800,2800] 5600"
	expect_eq "per-node writes, and why" "$(field '.sizes[0] | .method + ": " + .method_note')" \
		"serial: auto: vmemmap optimization on: a write optimizes pages together, a worker one by one"
	"$HP" --sysroot "$M" status -d "$REC" >"$M.status" 2>&1
	expect_eq "status says it, per node" "$(grep '^Vmemmap' "$M.status")" \
		"Vmemmap optimization: on (turned on by hugepar): 5.5M of page descriptors given back (28 kB a 2M page); node 0 2.7M, node 1 2.7M"
	"$HP" --sysroot "$M" status -d "$REC" --format=prometheus >"$M.prom" 2>&1
	expect_eq "Prometheus: on, and each node's bytes" \
		"$(grep -E '^hugepar_vmemmap_(on|node_freed_bytes\{node="[01]",size="2M"\})' "$M.prom" | awk '{ print $2 }' | tr '\n' ' ')" \
		"1 2867200 2867200 "
	# a second run: already on, left on; its pages are optimized too
	run --cmdline "rd.hugepar.pages=2M:150"
	expect_eq "a later run: was on, left on" "$(cat "$M/proc/sys/vm/hugetlb_optimize_vmemmap") $(field .vmemmap.why) $(optimized)" "1 was_on 150 150"
	# Linux 6.1 and 7.2 optimize a worker's page without a grace period: auto as ever
	for k in 6.1.0 7.2.13; do
		two "vmemmap-$k" "$k" "vmemmap 0"
		run --cmdline "rd.hugepar.pages=2M:100"
		expect_eq "Linux $k: on, the method as without it" \
			"$(field .vmemmap.why) $(optimized) $(field '.sizes[0].method_note' | grep -c vmemmap)" "turned_on 100 100 0"
	done
}

t_vmemmap_keep() {
	two vmemmap-keep 6.1.0 "vmemmap 0"
	run --cmdline "rd.hugepar.pages=2M:100 rd.hugepar.vmemmap=keep"
	expect_eq "keep: left off, nothing optimized" \
		"$(cat "$M/proc/sys/vm/hugetlb_optimize_vmemmap") $(field '.vmemmap | "\(.on) \(.why) \(.freed_kb)"') $(optimized)" \
		"0 false keep 0 0 0"
	two vmemmap-612 6.12.118+deb13-amd64 "vmemmap 0"
	run --cmdline "rd.hugepar.pages=2M:100"
	expect_eq "auto on Linux 6.12: left off, and why" \
		"$(cat "$M/proc/sys/vm/hugetlb_optimize_vmemmap") $(field .vmemmap.why)" "0 leaks_on_free"
	run --cmdline "rd.hugepar.pages=2M:150 rd.hugepar.vmemmap=optimize"
	expect_eq "optimize on Linux 6.12: on" "$(cat "$M/proc/sys/vm/hugetlb_optimize_vmemmap") $(field .vmemmap.why) $(optimized)" \
		"1 turned_on 50 50"
	two vmemmap-on 6.1.0 "vmemmap 1"
	run --cmdline "rd.hugepar.pages=2M:100 rd.hugepar.vmemmap=keep"
	expect_eq "on before, keep: still on, never turned off" \
		"$(cat "$M/proc/sys/vm/hugetlb_optimize_vmemmap") $(field .vmemmap.why) $(optimized)" "1 was_on 100 100"
	two vmemmap-none 6.1.0
	run --cmdline "rd.hugepar.pages=2M:100 rd.hugepar.vmemmap=optimize"
	expect_eq "a kernel without it: said" "$(field '.vmemmap | "\(.on) \(.why)"') $(pools)" "false absent 100 100"
}

# Node 0 full but for 30 kB once 100 optimized pages are made: an exact shrink to 50
# cannot rebuild the descriptors (28 kB a page, above the kernel's minimum); Linux 6.1
# keeps the pages as surplus, which the run turns back into pool pages, and says so.
t_vmemmap_shrink() {
	machine vmemmap-shrink "sizes 2048 1048576" "release 6.1.0" "vmemmap 0" \
		"node 0 cpus 0-3 mem 1G free 202030K" "node 1 cpus 4-7 mem 8G free 7G"
	run --cmdline "rd.hugepar.pages=2M:100@0 rd.hugepar.keep_free=0"
	expect_eq "100 optimized pages fill node 0" "$(pools) $(optimized)" "100 0 100 0"
	run --cmdline "rd.hugepar.pages=2M:50@0 rd.hugepar.keep_free=0 rd.hugepar.mode=exact"
	expect_eq "the shrink refused: the pool as it was, no surplus left" \
		"$(pools) $(glob surplus_hugepages)" "100 0 0"
	check "said, in the record" grep -q "the kernel kept 50 pages it could not free" "$REC/status.json"
}

# kparams RELEASE VMEMMAP SETTINGS: hugepar cmdline on a two-node machine of that kernel
kparams() {
	two "vmemmap-cmdline" "$1" ${2:+"vmemmap $2"}
	"$HP" --sysroot "$M" cmdline --now --config /dev/null --cmdline "rd.hugepar.pages=2M:100 $3" 2>&1
}
t_vmemmap_cmdline() {
	expect_eq "Linux 6.1, auto" "$(kparams 6.1.0 0)" "hugetlb_free_vmemmap=on hugepagesz=2M hugepages=0:100,1:100"
	expect_eq "Linux 6.1, keep" "$(kparams 6.1.0 0 rd.hugepar.vmemmap=keep)" "hugepagesz=2M hugepages=0:100,1:100"
	expect_eq "Linux 6.12, auto: not there" "$(kparams 6.12.0 0)" "hugepagesz=2M hugepages=0:100,1:100"
	expect_eq "a kernel without it" "$(kparams 6.1.0 "")" "hugepagesz=2M hugepages=0:100,1:100"
}

# The cost model: 2000 pages a node reserved by workers, with the optimization on and
# off, one worker a node and two (simulated time): on is dearer, and what it adds is
# not shared out by more workers (the kernel gives descriptors back a page at a time).
vmemmap_ms() {
	two vmemmap-cost 6.1.0 "vmemmap $1" "sim rate 2048 1:20000 2:40000"
	run --method=parallel --cmdline "rd.hugepar.pages=2M:2000 rd.hugepar.threads=$2 rd.hugepar.vmemmap=$3"
	field '.sizes[0].ms'
}
t_vmemmap_cost() {
	local on1 on2 off1 off2
	export HUGEPAR_SIM_CLOCK=virtual
	on1=$(vmemmap_ms 0 2 auto) on2=$(vmemmap_ms 0 4 auto)
	off1=$(vmemmap_ms 0 2 keep) off2=$(vmemmap_ms 0 4 keep)
	echo "     vmemmap-cost: a worker a node $off1 ms, with it $on1 ms; two $off2 ms, with it $on2 ms"
	check "on: dearer than off ($on1 > $off1 ms)" test "$on1" -gt "$off1"
	check "what it adds, two workers a node: $((on2 - off2)) ms, not less than one's $((on1 - off1)) ms" \
		test "$(((on2 - off2) * 10))" -ge "$(((on1 - off1) * 8))"
	unset HUGEPAR_SIM_CLOCK
}

# Free pages already in the pool absorb the workers' reservations (whatever their
# node) and refuse node-bound ones larger than them: held while the workers work,
# the growth is as parallel as from empty pools, and the record says who did it.
t_free() { # RELEASE
	two "free-$1" "$1"
	sim setnode 2048 0 150
	run --method=parallel --cmdline "rd.hugepar.pages=2M:250"
	expect_eq "free pages: pools" "$(pools)" "250 250"
	expect_eq "free pages: the workers did it (method, by workers, topped up)" \
		"$(field '.sizes[0] | [.method, .pages_by_threads, .topped_up]')" '["parallel",350,0]'
	settled "free pages"
}

# method=auto probes the first node with work only, with one page when the estimate
# is clear from it (pages this dear): the others' first pages are not reserved one
# node after the other before the workers start
t_probe() {
	two probe 6.12.0 "sim rate 2048 1:2000 4:8000"
	run --method=auto --cmdline "rd.hugepar.pages=2M:200"
	expect_eq "auto: pools" "$(pools)" "200 200"
	expect_eq "auto: one page of one node probed, the workers did the rest (method, by workers, topped up)" \
		"$(field '.sizes[0] | [.method, .pages_by_threads, .topped_up]')" '["parallel",399,0]'
	settled "auto"
}

# ... except where the parallel path would start two workers, one on each of two
# nodes (a node of one CPU each): the probe (a fork, a write that changes nothing, a
# page, the other node idle meanwhile) costs what going parallel could lose at worst,
# so both nodes start at once. Three such nodes, or nodes of more CPUs, are probed.
t_probe_2x1() {
	machine probe-2x1 "sizes 2048 1048576" "release 6.12.0" "sim rate 2048 1:2000" \
		"node 0 cpus 0 mem 8G free 7G" "node 1 cpus 1 mem 8G free 7G"
	run --cmdline "rd.hugepar.pages=2M:150"
	expect_eq "two nodes of one CPU: no probe, a worker on each (method, note, by workers, workers)" \
		"$(field '.sizes[0] | [.method, .method_note, .pages_by_threads, .threads]')" \
		'["parallel","auto: a worker on each of two nodes: no probe",300,2]'
	expect_eq "two nodes of one CPU: pools" "$(pools)" "150 150"
	settled "two nodes of one CPU"
}
t_probe_3x1() {
	machine probe-3x1 "sizes 2048 1048576" "release 6.12.0" "sim rate 2048 1:2000" \
		"node 0 cpus 0 mem 8G free 7G" "node 1 cpus 1 mem 8G free 7G" "node 2 cpus 2 mem 8G free 7G"
	run --cmdline "rd.hugepar.pages=2M:150"
	expect_eq "three nodes of one CPU: probed" "$(field '.sizes[0].method_note[:13]')" "auto: serial "
	expect_eq "three nodes of one CPU: pools" "$(pools)" "150 150 150"
	settled "three nodes of one CPU"
}
t_probe_2x4() {
	two probe-2x4 6.12.0 "sim rate 2048 1:2000 4:8000"
	run --cmdline "rd.hugepar.pages=2M:150@0,2M:150@1"
	expect_eq "two nodes of four CPUs: probed" "$(field '.sizes[0].method_note[:13]')" "auto: serial "
}

# every reservation refused: per-node writes do the work, and the record says so
t_refused() {
	two refused 6.12.0
	HUGEPAR_FAULT=reserve=ENOMEM run --method=parallel --cmdline "rd.hugepar.pages=2M:100"
	expect_eq "pools" "$(pools)" "100 100"
	expect_eq "the record tells the method that did the work" \
		"$(field '.sizes[0] | .method + ": " + .method_note')" \
		"serial: workers reserved 0 of 200 pages; per-node writes did the rest"
	settled
}

# a worker that cannot bind itself to its node: its pages may land right all the same
# (here the simulated kernel's 6.12 rule puts node 0's there), but the record does not
# call the node ok, and the run is partial
t_bind_failed() {
	two bind-failed 6.12.0
	HUGEPAR_FAULT=bind=EINVAL run --method=parallel --cmdline "rd.hugepar.pages=2M:100@0"
	expect_eq "pools" "$(pools)" "100 0"
	expect_eq "status and exit" "$(field .status) $RC" "partial 64"
	expect_eq "node 0 says why" \
		"$(field '.nodes[0].sizes[0] | .status + ": " + .reason')" \
		"partial: a thread could not bind itself to the node: Invalid argument"
	settled
}

t_serial() {
	two serial 6.12.0
	run --method=serial --cmdline "rd.hugepar.pages=2M:100"
	expect_eq "pools" "$(pools)" "100 100"
	settled
}

t_exact() {
	two exact 6.12.0
	sim write 2048 0 50
	run --cmdline "rd.hugepar.pages=2M:20@0"
	expect_eq "grow mode keeps the pool" "$(pools)" "50 0"
	run --cmdline "rd.hugepar.pages=2M:20@0 rd.hugepar.mode=exact"
	expect_eq "shrunk" "$(pools)" "20 0"
	settled
}

# --- reconcile: misplaced pages trimmed, short nodes topped up --------------------
t_misplace() { # RELEASE
	two "misplace-$1" "$1"
	HUGEPAR_FAULT=misplace run --method=parallel --cmdline "rd.hugepar.pages=2M:30@0"
	expect_eq "node 0 has its pages, node 1 none" "$(pools)" "30 0"
	expect_eq "trimmed, topped up" "$(field '.sizes[0] | [.trimmed, .topped_up]')" "[30,30]"
	settled
	[ "$1" = 6.12.0 ] && row "workers on the wrong node"
}

# --- the kernel's two per-node write rules, with surplus held on another node ------
t_rule() { # RELEASE [persistent]
	local held
	two "rule-$1${2:+-$2}" "$1" ${2:+"sim rule persistent"}
	sim overcommit 2048 10
	coproc HOLD { exec "$SIMCTL" "$M" hold 2048 1 10; }
	read -r held <&"${HOLD[0]}"
	expect_eq "another program holds 10 on node 1" "$held $(hp 1 surplus_hugepages)" "held 10"
	run --method=serial --cmdline "rd.hugepar.pages=2M:40@0"
	expect_eq "node 0 exact, node 1 untouched" "$(pools) $(hp 1 surplus_hugepages)" "40 0 10"
	sim setnode 2048 0 40
	expect_eq "a write that changes nothing changes nothing" "$(pools)" "40 0"
	run --method=parallel --cmdline "rd.hugepar.pages=2M:60"
	expect_eq "parallel with their surplus" "$(pools)" "60 60"
	OC=10 settled "" 10
	kill "$HOLD_PID"
	wait "$HOLD_PID" 2>/dev/null
	expect_eq "their pages go back when they exit" "$(sim show >/dev/null; glob surplus_hugepages)" 0
	[ $# = 2 ] && row "another program holds surplus"
}

# --- where a program without a policy gets its surplus pages, by release: on node
# 1's CPUs, 6.1 and 6.16 on place them there, 6.12 on node 0 (test/guest-rules.sh
# saw this on 6.1, 6.12 and 7.2: doc/kernel-notes.md)
t_place() { # RELEASE NODE0 NODE1: the surplus pages each node gets
	local held
	two "place-$1" "$1"
	sim overcommit 2048 2
	coproc HOLD { exec "$SIMCTL" "$M" hold 2048 1 2 unbound; }
	read -r held <&"${HOLD[0]}"
	expect_eq "surplus of a program on node 1 without a policy (node 0, node 1)" \
		"$held $(hp 0 surplus_hugepages) $(hp 1 surplus_hugepages)" "held $2 $3"
	kill "$HOLD_PID"
	wait "$HOLD_PID" 2>/dev/null
}

# --- no NUMA sysfs: the global write takes a persistent count --------------------
t_nonuma() {
	machine nonuma "sizes 2048" "nonuma" "release 6.12.0" "node 0 cpus 0-1 mem 8G free 7G"
	sim overcommit 2048 10
	coproc HOLD { exec "$SIMCTL" "$M" hold 2048 0 10; }
	read -r held <&"${HOLD[0]}"
	run --method=serial --cmdline "rd.hugepar.pages=2M:20"
	expect_eq "20 asked, 20 persistent" "$(($(glob nr_hugepages) - $(glob surplus_hugepages)))" 20
	expect_eq "record" "$(field '"\(.nodes[0].sizes[0].achieved) \(.status)"')" "20 ok"
	kill "$HOLD_PID"
	wait "$HOLD_PID" 2>/dev/null
}

# --- exact mode meets pages in use: they stay as surplus, and the record says so ---
t_inuse() {
	two inuse 6.12.0
	sim write 2048 0 50
	coproc HOLD { exec "$SIMCTL" "$M" use 2048 0 30; }
	read -r held <&"${HOLD[0]}"
	run --cmdline "rd.hugepar.pages=2M:10@0 rd.hugepar.mode=exact"
	expect_eq "exit 64" "$RC" 64
	expect_eq "partial, with the reason" \
		"$(field '.nodes[0].sizes[0] | .status + ": " + .reason')" \
		"partial: 20 pages in use stay as surplus until freed"
	expect_eq "the pool is 10, 20 surplus" "$(pools) $(glob surplus_hugepages)" "10 0 20"
	kill "$HOLD_PID"
	wait "$HOLD_PID" 2>/dev/null
	expect_eq "freed, the surplus goes" "$(sim show >/dev/null; glob surplus_hugepages) $(pools)" "0 10 0"
}

# --- gigantic pages, nodes without CPUs, many nodes -------------------------------
t_giant_6_1_0() {
	two giant-6.1.0 6.1.0
	run --cmdline "rd.hugepar.pages=1G:2@0"
	expect_eq "1G serial, and why" "$(field '.sizes[1] | .method + ": " + .method_note')" \
		"serial: 1G pages cannot be overcommitted before Linux 6.19"
	expect_eq "1G pages" "$(pools 1048576)" "2 0"
	expect_eq "status" "$(field .status)" ok
	expect_eq "none short: no kernel route" "$(field '.sizes[1].kernel_route')" ""
}
# What is gigantic is the kernel's granule (arm64): with 16K pages the largest buddy
# block is 32M, so 32M pages go by workers before 6.19; with 4K pages they are
# gigantic, done by per-node writes, first.
t_granule() { # NAME GRANULE ORDERS
	machine "granule-$1" "sizes 2048 32768 1048576" "granule $2 $3" "release 6.12.0" \
		"node 0 cpus 0-3 mem 8G free 7G" "node 1 cpus 4-7 mem 8G free 7G"
	run --cmdline "rd.hugepar.pages=2M:20,32M:4,1G:1@0"
	expect_eq "status" "$(field .status)" ok
	expect_eq "pools 2M, 32M, 1G" "$(pools) $(pools 32768) $(pools 1048576)" "20 20 4 4 1 0"
	if [ "$1" = 16k ]; then
		expect_eq "32M by workers" "$(field '.sizes[1].method')" parallel
	else
		expect_eq "32M gigantic" "$(field '.sizes[1] | .method + ": " + .method_note')" \
			"serial: 32M pages cannot be overcommitted before Linux 6.19"
	fi
	expect_eq "1G gigantic" "$(field '.sizes[2] | .method + ": " + .method_note')" \
		"serial: 1G pages cannot be overcommitted before Linux 6.19"
	expect_eq "nothing left" "$(glob nr_overcommit_hugepages 32768) $(glob surplus_hugepages 32768)" "0 0"
}

# With 64K pages: 512M by workers; 1G, which settings written for x86 ask for, is not
# offered there: a problem naming the sizes there are, and the others are done.
t_granule_64k() {
	machine granule-64k "sizes 2048 524288 16777216" "granule 64K 14" "release 6.12.0" \
		"node 0 cpus 0-3 mem 8G free 7G" "node 1 cpus 4-7 mem 8G free 7G"
	run --method parallel --cmdline "rd.hugepar.pages=2M:20,512M:2,1G:1"
	expect_eq "partial, exit 64" "$(field .status) $RC" "partial 64"
	expect_eq "the problem names the sizes offered" \
		"$(field '.settings.problems[] | .value + ": " + .message')" \
		"1G:1: page size 1G is not offered by the kernel (it offers 2M 512M 16G)"
	expect_eq "pools 2M, 512M" "$(pools) $(pools 524288)" "20 20 2 2"
	expect_eq "512M by workers (asked), not refused as gigantic" \
		"$(field '.sizes[1] | .method + " " + (.pages_by_threads | tostring)')" "parallel 4"
}

# 1G short at runtime (node 1 has no free 1G range: its per-node write is refused):
# the record, hugepar status and the kernel log name the kernel's own route
t_giant_short() {
	two giant-short 6.1.0
	HUGEPAR_FAULT="write-node:2=ENOMEM" run --cmdline "rd.hugepar.pages=1G:2@0,1G:1@1,2M:10"
	expect_eq "1G pools" "$(pools 1048576)" "2 0"
	expect_eq "the kernel's per-node route for the planned pools" \
		"$(field '.sizes[1].kernel_route + " / " + .sizes[0].kernel_route')" \
		"hugepagesz=1G hugepages=0:2,1:1 / "
	"$HP" --sysroot "$M" --simulate status --record-dir "$REC" >"$M/status.txt" 2>&1
	check "hugepar status names the route" \
		grep -qF "add 'hugepagesz=1G hugepages=0:2,1:1' to the kernel command line" "$M/status.txt"
	check "the kernel log names it" grep -qF "add 'hugepagesz=1G hugepages=0:2,1:1'" "$M.log"
}
# ... whole on a machine of many nodes (64 nodes: the route is over 300 characters)
t_giant_short64() {
	lines=("sizes 2048 1048576" "release 6.1.0")
	for n in $(seq 0 63); do lines+=("node $n cpus $n mem 2G free 2G"); done
	machine giant-short64 "${lines[@]}"
	HUGEPAR_FAULT="write-node=ENOMEM" run --cmdline "rd.hugepar.pages=1G:1"
	expect_eq "1G short on 64 nodes: the whole route" "$(field '.sizes[1].kernel_route')" \
		"hugepagesz=1G hugepages=$(seq -s, -f '%g:1' 0 63)"
	check "the kernel log gives the whole route" \
		grep -qF "add 'hugepagesz=1G hugepages=$(seq -s, -f '%g:1' 0 63)' to the kernel command line" "$M.log"
}
# ... and with node ids of four digits, a route too long for one kernel log line
t_giant_short_ids() {
	lines=("sizes 2048 1048576" "release 6.1.0")
	for n in $(seq 960 1023); do lines+=("node $n cpus $((n - 960)) mem 2G free 2G"); done
	machine giant-short-ids "${lines[@]}"
	HUGEPAR_FAULT="write-node=ENOMEM" run --cmdline "rd.hugepar.pages=1G:1"
	expect_eq "1G short, long ids: the whole route in the record" \
		"$(field '.sizes[1].kernel_route')" "hugepagesz=1G hugepages=$(seq -s, -f '%g:1' 960 1023)"
	check "the kernel log names the record's route rather than cut it" \
		grep -qF "the record's kernel_route has the parameters (hugepar status)" "$M.log"
}
t_giant_6_19_0() {
	two giant-6.19.0 6.19.0
	run --method=parallel --cmdline "rd.hugepar.pages=1G:2@0"
	expect_eq "1G parallel" "$(field '.sizes[1].method')" parallel
	expect_eq "1G pages" "$(pools 1048576)" "2 0"
	OC=0 settled
}
# auto: gigantic pages go to workers without a probe where two workers or more can
# take pages at once (the probe would keep them waiting for its page): on two nodes,
# and on one node with two pages to go; one page on one node is probed
t_giant_auto() {
	two giant-auto 6.19.0
	run --cmdline "rd.hugepar.pages=1G:1"
	expect_eq "1G on two nodes: parallel, no probe" \
		"$(field '.sizes[1] | [.method, .method_note, .pages_by_threads]')" \
		'["parallel","auto: 1G pages, 2 workers at once: no probe",2]'
	expect_eq "1G on two nodes: pages" "$(pools 1048576)" "1 1"
	OC=0 settled "1G on two nodes"
}
t_giant_auto2() {
	two giant-auto2 6.19.0
	run --cmdline "rd.hugepar.pages=1G:2@1"
	expect_eq "1G, one node, two pages: parallel, no probe" \
		"$(field '.sizes[1] | [.method, .method_note]')" \
		'["parallel","auto: 1G pages, 2 workers at once: no probe"]'
	expect_eq "1G, one node, two pages: pages" "$(pools 1048576)" "0 2"
}
t_giant_auto1() {
	two giant-auto1 6.19.0
	run --cmdline "rd.hugepar.pages=1G:1@1"
	expect_eq "1G, one page: the probe decides" "$(field '.sizes[1].method_note[:13]')" "auto: serial "
	expect_eq "1G, one page: pages" "$(pools 1048576)" "0 1"
}
# 2M and 1G pages together. Before 6.19 (1G by per-node writes, one node after the
# other) the 1G work goes first and the 2M work after it: 2M pages taken beside it
# used the free 1 GiB ranges of the nodes not yet written (6.12 in QEMU, bench/
# mixed.sh). From 6.19 on (1G by workers) both are in flight at once. Told by the
# order of what the run did, never by how long it took: the seam's trace of each
# phase and its process (doc/simulator.md), and a run stopped where the 2M work
# begins, which shows what was done before.
# coordinators LOG: the processes other than the main one that trace phases (the
# sizes' coordinators), and whether each began before every other one ended, in the
# order of the trace's lines: "N together", "N apart", or "0 -"
coordinators() {
	awk '$1 == "hugepar-trace" {
		if ($2 == "start") main = $4
		else if ($4 != main) { if (!($4 in first)) { first[$4] = NR; n++ } last[$4] = NR }
	}
	END {
		how = n ? "together" : "-"
		for (a in first) for (b in first) if (a != b && first[a] > last[b]) how = "apart"
		print n + 0, how
	}' "$1"
}
t_both() { # RELEASE
	local how coord
	two "both-$1" "$1" "sim rate 2048 1:500" "sim rate 1048576 1:4"
	HUGEPAR_FAULT=trace run --cmdline "rd.hugepar.pages=2M:200,1G:1"
	case $1 in
	6.12.0) how="parallel serial" coord="0 -" ;;
	*) how="parallel parallel" coord="2 together" ;;
	esac
	expect_eq "2M and 1G: pools, methods" \
		"$(pools) $(pools 1048576) $(field '"\(.sizes[0].method) \(.sizes[1].method)"')" \
		"200 200 1 1 $how"
	expect_eq "coordinators, each begun before the other ended (the trace)" \
		"$(coordinators "$M.log")" "$coord"
	OC=0 settled "2M and 1G"
	if [ "$1" = 6.12.0 ]; then
		# the main process stopped at the 2M work's first phase (the probe; raise
		# without one): the 1G pages are all there, no 2M page yet
		two "both-$1-stopped" "$1" "sim rate 2048 1:500" "sim rate 1048576 1:4"
		HUGEPAR_FAULT="probe=kill,raise=kill" run --cmdline "rd.hugepar.pages=2M:200,1G:1"
		expect_eq "at the 2M work's start: killed, 1G pools / 2M pools" \
			"$RC $(pools 1048576) / $(pools)" "137 1 1 / 0 0"
	fi
}
# the seeds' 1G machine (test/machines/sim-12tb-1g.desc: 8 nodes, 1472 1G pages a
# node, a page's cost derived from the kernel's own boot, doc/benchmarks.md): every
# node in parallel (how fast: bench/sim1g.sh)
t_seeds_1g() {
	M=$FX/seeds-1g
	"$TOP/test/mkfixture.sh" "$TOP/test/machines/sim-12tb-1g.desc" "$M"
	run --cmdline "rd.hugepar.pages=1G:1472"
	expect_eq "every node's pages" "$(pools 1048576)" "$(printf '1472 %.0s' $(seq 8) | sed 's/ $//')"
	expect_eq "status, parallel, by workers" \
		"$(field '[.status, .sizes[1].method, .sizes[1].pages_by_threads]')" '["ok","parallel",11776]'
	OC=0 settled
}

t_cpuless() {
	machine cpuless "sizes 2048" "release 6.12.0" "node 0 cpus 0-3 mem 8G free 7G" "node 1 cpus - mem 8G free 7G"
	run --method=parallel --cmdline "rd.hugepar.pages=2M:40"
	expect_eq "pools" "$(pools)" "40 40"
	expect_eq "a worker there, on node 0's CPUs; nothing topped up" \
		"$(field '[.nodes[1].threads, .sizes[0].topped_up]')" "[1,0]"
	settled
}

t_n32() {
	lines=("sizes 2048" "release 6.12.0")
	for n in $(seq 0 31); do lines+=("node $n cpus $((n * 2))-$((n * 2 + 1)) mem 2G free 2G"); done
	machine n32 "${lines[@]}"
	run --method=parallel --cmdline "rd.hugepar.pages=2M:10"
	expect_eq "32 nodes: every pool" "$(pools)" "$(printf '10 %.0s' $(seq 32) | sed 's/ $//')"
	expect_eq "32 nodes: workers" "$(field '.sizes[0].threads')" 32
	settled "32 nodes"
}

# --- faults at every phase: the deadline, SIGTERM, SIGKILL of the main process -----
# phase_run FAULT TIMEOUT: a run on $M, the seam's FAULT at a phase (PHASE=...), with
# the method and settings that pass through that phase: only auto probes, and not a
# worker on each of two nodes; TIMEOUT, a rd.hugepar.timeout or none
phase_run() {
	local how=--method=parallel ask=$ASK
	case $1 in probe=*) how=--method=auto ask="rd.hugepar.pages=2M:200 rd.hugepar.threads=4" ;; esac
	HUGEPAR_FAULT=$1 run $how --cmdline "$ask${2:+ rd.hugepar.timeout=$2}"
}
t_deadline() { # PHASE
	two "deadline-$1" 6.12.0
	phase_run "$1=delay:400" 0.3
	settled "the deadline passes"
	row "deadline passes at $1"
}
t_term() { # PHASE
	two "term-$1" 6.12.0
	phase_run "$1=term"
	case $1 in
	restore | release | reconcile) ;; # the work is done by then
	*) expect_eq "SIGTERM: interrupted" "$(field .interrupted)" true ;;
	esac
	settled "SIGTERM"
	row "SIGTERM at $1"
}
t_kill() { # PHASE
	local left
	two "kill-$1" 6.12.0
	phase_run "$1=kill"
	expect_eq "SIGKILL: killed" "$RC" 137
	sim show >/dev/null
	left=("$(glob nr_overcommit_hugepages)" "$(glob surplus_hugepages)" "$(pools)")
	"$HP" --sysroot "$M" --simulate recover >"$M.recover" 2>&1
	expect_eq "SIGKILL: recover" "$?" 0
	LEFT_OC=${left[0]} LEFT_SURPLUS=${left[1]} LEFT_POOLS=${left[2]} \
		row "SIGKILL of the main process at $1" \
		"recover: overcommit $(glob nr_overcommit_hugepages), surplus $(glob surplus_hugepages)"
	REC=/nonexistent settled "SIGKILL, then recover"
}
# the next apply does the same, and its record says so
t_kill_next() {
	two kill-next 6.12.0
	HUGEPAR_FAULT="collect=kill" run --method=parallel --cmdline "$ASK"
	expect_eq "killed: overcommit left raised" "$(glob nr_overcommit_hugepages)" 400
	run --method=parallel --cmdline "$ASK"
	expect_eq "next run: recovered (size, found, put back, ok)" \
		"$(field '[.recovered[] | [.size, .overcommit_found, .overcommit_put_back, .ok]]')" \
		'[["2M",400,0,true]]'
	expect_eq "next run: pools" "$(pools)" "200 200"
	settled "next run"
}

# --- a worker killed; a coordinator killed --------------------------------------
t_worker_killed() {
	two worker-killed 6.12.0
	HUGEPAR_FAULT="reserve:2=kill" run --method=parallel --cmdline "$ASK"
	expect_eq "pools topped up" "$(pools)" "200 200"
	check "topped up" test "$(field '.sizes[0].topped_up')" -gt 0
	settled
	row "every worker killed"
}

# (two sizes at once: 2M grows while 1G shrinks in exact mode; a 1G size that grows
# would go first, alone, in the main process)
t_coord_killed() {
	two coord-killed 6.1.0
	sim write 1048576 0 2
	HUGEPAR_FAULT="commit=kill" run --method=parallel --cmdline "rd.hugepar.pages=2M:50,1G:1@0 rd.hugepar.mode=exact"
	expect_eq "1G done, 2M not" "$(pools 1048576) / $(pools)" "1 0 / 0 0"
	expect_eq "the reason" "$(field '.nodes[0].sizes[0].reason')" \
		"0 of 50: its coordinator was killed by SIGKILL"
	expect_eq "overcommit put back" "$(field '.sizes[0].error')" \
		"its coordinator was killed by SIGKILL; nr_overcommit_hugepages put back to 0 afterwards"
	settled
	row "the 2M coordinator killed"
}

# --- nr_overcommit_hugepages cannot be put back ------------------------------------
t_restore_fails() {
	two restore-fails 6.12.0
	HUGEPAR_FAULT="overcommit:2=EIO,overcommit:3=EIO" run --method=parallel --cmdline "$ASK"
	expect_eq "exit 1, failed" "$RC $(field .status)" "1 failed"
	expect_eq "says so" "$(field .error)" \
		"could not put nr_overcommit_hugepages back to 0: I/O error"
	expect_eq "left raised, note kept" \
		"$(glob nr_overcommit_hugepages) $(notes)" "400 1"
	"$HP" --sysroot "$M" --simulate recover >/dev/null 2>&1
	LEFT_OC=400 row "nr_overcommit_hugepages cannot be put back" "recover: overcommit $(glob nr_overcommit_hugepages)"
	expect_eq "recover puts it back" "$(glob nr_overcommit_hugepages)" 0
}
t_restore_retry() {
	two restore-retry 6.12.0
	HUGEPAR_FAULT="overcommit:2=EIO" run --method=parallel --cmdline "$ASK"
	expect_eq "fails once, ok after a second try" "$RC $(field '.sizes[0].error')" \
		"0 could not put nr_overcommit_hugepages back to 0: I/O error; nr_overcommit_hugepages put back to 0 afterwards"
	settled
}

# --- the simulated clock: workers killed at their 6th claim on a machine with a cost
# model; the same run twice gives the same record, to the millisecond and the measure,
# and no run of this suite found the clock stuck or dead-locked
t_clock() {
	for i in 1 2; do
		two clock 6.19.0 "sim rate 2048 1:100 2:190 4:350 8:600"
		HUGEPAR_FAULT="reserve:6=kill" run --method=parallel --cmdline "rd.hugepar.pages=2M:1200"
		field '[.duration_ms, .sizes[0].ms, .sizes[0].topped_up, [.nodes[].sizes[0].threads_rates]]' \
			>"$FX/clock.$i"
	done
	expect_eq "workers killed, their nodes topped up" \
		"$RC $(pools) $(field '[.status, .sizes[0].pages_by_threads, .sizes[0].topped_up]')" \
		'0 1200 1200 ["ok",0,2400]'
	expect_eq "the same run twice, the same times and measures" \
		"$(cat "$FX/clock.2")" "$(cat "$FX/clock.1")"
	expect_eq "no clock stuck or dead-locked" \
		"$(grep -l 'hugepar-sim:' "$FX"/*.log | tr '\n' ' ')" ""
	settled
}

# --- the simulated clock's settings: a bad one is refused, and said
t_clock_input() {
	for line in "clock sometimes" "fork-us 99999999999999999999" "fork-us -1" "clock"; do
		two clock-input 6.12.0 "sim $line"
		run --cmdline "rd.hugepar.pages=2M:10"
		expect_eq "'$line': exit 1, said" \
			"$RC $(grep -c "line [0-9]*: not a setting of the simulated kernel: $line\$" "$M.log")" "1 1"
	done
	two clock-input 6.12.0
	for v in fast "" host virtual; do
		HUGEPAR_SIM_CLOCK=$v run --cmdline "rd.hugepar.pages=2M:10"
		if [ "$v" = fast ]; then
			expect_eq "HUGEPAR_SIM_CLOCK=$v: exit 1, said" \
				"$RC $(grep -c "HUGEPAR_SIM_CLOCK=fast: expected virtual or host" "$M.log")" "1 1"
		else
			expect_eq "HUGEPAR_SIM_CLOCK=$v: ok" "$RC $(pools)" "0 10 10"
		fi
	done
	settled
}

# --- two runs at once: the second starts once the first holds the lock -----------
# (on the host's clock: two runs that interleave in the host's time)
t_concurrent() {
	export HUGEPAR_SIM_CLOCK=host
	two concurrent 6.12.0
	FAULT=reserve=delay:100 start "$M.first" --record-dir "$M/rec-a" --method=parallel --cmdline "$ASK"
	a=$!
	run --method=parallel --cmdline "rd.hugepar.pages=2M:250"
	wait $a
	expect_eq "the first ran" "$?" 0
	expect_eq "the second waited and ran" "$RC $(pools)" "0 250 250"
	settled
	unset HUGEPAR_SIM_CLOCK
}
# ... and gives up at its deadline while the first holds it; the first, stopped by
# SIGTERM only once the second has given up, leaves things as they were
t_busy() {
	export HUGEPAR_SIM_CLOCK=host
	two busy 6.12.0
	FAULT=reserve:1=delay:60000 start "$M.first" --record-dir "$M/rec-a" --method=parallel \
		--cmdline "rd.hugepar.pages=2M:300"
	a=$!
	run --method=parallel --cmdline "rd.hugepar.pages=2M:400 rd.hugepar.timeout=0.1"
	expect_eq "exit 75" "$RC" 75
	expect_eq "the record says why" "$(field '.status + ": " + .error')" \
		"failed: another hugepar apply held the lock until the deadline"
	kill -TERM $a
	wait $a
	REC=$M/rec-a RC=$? settled "the first"
	unset HUGEPAR_SIM_CLOCK
}

# each run's fixture and the fault matrix, new
if [ -z "${HUGEPAR_LIST:-}" ]; then
	rm -rf "$FX"
	mkdir -p "$FX"
	: >"$MATRIX"
fi
run_cases
echo "engine: $(summary_line)"
