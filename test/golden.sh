#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Golden tests: run `hugepar plan` on fixture trees made from test/machines/*.desc and
# compare the text and JSON with test/golden/ (and the sanitizer build's, where there
# is one). HUGEPAR_REGEN=1 rewrites the expected files (review the diff before
# committing them). A case is a machine (its name), described in ABOUT below; a pair
# of machines NAME-a and NAME-b is a case NAME too.
. "$(dirname "$0")/lib.sh"

# What each machine stands for (its .desc says more): a machine without a line here
# is a case without a description, which tcase refuses.
declare -A ABOUT=(
	[2n-144cpu]="two-socket Skylake, 144 CPUs interleaved as the kernel numbers them"
	[2n-devices]="two sockets with a NIC and an NVMe drive on node 1: pages named by device"
	[2n-192cpu]="two-socket Cascade Lake, 192 CPUs, a 2M pool already there"
	[32n-256cpu]="32 sub-NUMA nodes of 8 CPUs and 32 GiB"
	[8n-12tb]="eight sockets, 12 TiB, 1G and 2M pools"
	[arm64-16k]="an arm64 server on 16K pages: 32M by workers, 1G gigantic"
	[arm64-4k]="an arm64 server on 4K pages: 32M and 1G gigantic"
	[arm64-64k]="an arm64 server on 64K pages: 512M by workers, 1G not offered"
	[cpuless]="a node of memory without CPUs (CXL or persistent memory as RAM)"
	[grace-64k]="a Grace Hopper-like machine: CPU, HBM and GPU instance nodes, 64K pages"
	[memoryless]="a node with CPUs but no memory"
	[nohugetlb]="a kernel without hugetlb"
	[nonuma]="a kernel built without NUMA: no node sysfs"
	[offline-cpus]="offline CPUs that node cpulists still name"
	[sim-12tb-1g]="the seeds' 1G machine, 8 nodes of 1.5 TiB, simulated at 6.19"
	[sim-16n-flat]="16 simulated nodes whose rate is flat from one worker"
	[sim-16n-knee12]="16 simulated nodes whose rate peaks at 12 workers"
	[sim-32n-256cpu]="the seeds' 32 nodes of 8 CPUs, simulated, best at 5 workers"
	[sim-64n]="64 simulated nodes of 4 CPUs whose rate peaks at 3 workers"
	[sim-8n-knee3]="8 simulated nodes whose rate peaks at 3 workers"
	[sim-8n-knee6]="8 simulated nodes of 24 CPUs whose rate peaks at 6 workers"
	[sim-cascadelake]="the seeds' Cascade Lake, 192 CPUs, simulated"
	[sim-flat]="simulated nodes where more workers do not pay"
	[sim-growing]="four small simulated nodes where every worker pays"
	[sim-knee]="simulated nodes whose rate peaks at 12 of 48 CPUs"
	[sim-knee6]="simulated nodes whose knee, 6 workers, is between powers of two"
	[sim-lockbound]="simulated nodes bound by the zone lock, best at 2 workers"
	[sim-peak11]="simulated nodes whose rate peaks sharply at 11 workers"
	[sim-skylake]="the seeds' Skylake, 144 CPUs, simulated"
	[sim-smallnodes]="8 simulated nodes of 6 CPUs, best at 4 workers"
	[sim-sockets]="two simulated sockets of four nodes sharing a cap on their rate"
	[sim-unequal]="simulated nodes of three curves and one without CPUs"
	[sparse-ids]="node ids 0, 1, 4 and 6"
	[stable-blocks-a]="two sockets with memory blocks: shares of the blocks"
	[stable-blocks-b]="stable-blocks-a another boot: MemTotal 1% lower"
	[stable-memtotal-a]="two sockets without memory blocks: shares of MemTotal"
	[stable-memtotal-b]="stable-memtotal-a another boot: MemTotal 0.3% lower"
	[vm-2cpu]="a 2-CPU VM whose node meminfo lags /proc/meminfo"
)
for d in "$TOP"/test/machines/*.desc; do
	n=${d##*/} n=${n%.desc}
	tcase "$n" "${ABOUT[$n]:+the plan of }${ABOUT[$n]:-}" golden_machine "$n"
done
# Pairs of machines that differ as two boots of one machine do (NAME-a, NAME-b)
for a in "$TOP"/test/machines/*-a.desc; do
	n=${a##*/} n=${n%-a.desc}
	[ -f "$TOP/test/machines/$n-b.desc" ] || continue
	tcase "$n" "$n-a and $n-b, two boots of one machine: the same targets" golden_pair "$n"
done

# compare BIN LABEL NAME: BIN's plan of the machine NAME (its fixture made), text and
# JSON, against the golden files
compare() {
	local bin=$1 label=$2 n=$3 fmt
	for fmt in txt json; do
		local args=() got=$OUT/golden-$label-$n.$fmt want=$TOP/test/golden/$n.$fmt
		[ $fmt = json ] && args=(--json)
		"$bin" plan --sysroot "$OUT/fixtures/$n" --config /dev/null "${args[@]}" >"$got" 2>"$got.err"
		cat "$got.err" >>"$got"
		if [ "${HUGEPAR_REGEN:-}" = 1 ] && [ "$label" = plan ]; then
			mkdir -p "$TOP/test/golden"
			cp "$got" "$want"
		fi
		if diff -u "$want" "$got" >"$got.diff"; then
			pass "$label.$fmt"
		else
			fail "$label.$fmt (diff in $got.diff)"
			head -20 "$got.diff"
		fi
	done
}

# golden_machine NAME: the plan of the machine NAME, by hugepar and by the sanitizer
# build (where there is one)
golden_machine() {
	"$TOP/test/mkfixture.sh" "$TOP/test/machines/$1.desc" "$OUT/fixtures/$1" || { fail "fixture"; return; }
	compare "$HP_BIN" plan "$1"
	if [ -z "${HUGEPAR_SKIP_SAN:-}" ] && [ -x "$TOP/build/hugepar-san" ]; then
		compare "$TOP/build/hugepar-san" sanitizers "$1"
	fi
}

# golden_pair NAME: the machines NAME-a and NAME-b plan the same targets on every node
# and size
golden_pair() {
	local n=$1 s
	for s in a b; do
		"$TOP/test/mkfixture.sh" "$TOP/test/machines/$n-$s.desc" "$OUT/fixtures/pair-$n-$s"
		"$HP_BIN" plan --sysroot "$OUT/fixtures/pair-$n-$s" --config /dev/null --json \
			>"$OUT/golden-pair-$n-$s.json" 2>/dev/null
	done
	expect_eq "two boots: the same targets" "$(targets "$n" a)" "$(targets "$n" b)"
}
targets() { jq -c '[.plan.nodes[] | [.sizes[].target]]' "$OUT/golden-pair-$1-$2.json"; }

run_cases
echo "golden: $(summary_line)"
