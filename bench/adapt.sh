#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The worker controller on the simulated machines (test/machines/sim-*.desc,
# doc/threads.md): for each, the time to reserve the same pages with fixed worker
# counts, with the kernel's own rule (a quarter of the CPUs) and with auto, runs
# interleaved; the fastest of each is compared (noise on this host only adds), the
# median and the slowest are shown, and for each machine whether auto came within 5%
# of the best fixed count, its measuring included, and ahead of the kernel's rule
# (the machines with a KERNEL count in test/machines/adapt.list). Here the simulated
# kernel paces its allocators with this host's clock (HUGEPAR_SIM_CLOCK=host), so these
# are figures of the host as much as of the search: they are printed, never a test's
# verdict. test/adapt.sh makes the same comparison on the simulated kernel's own clock,
# deterministically, in make check. Writes test/out/adapt.tsv (doc/benchmarks.md). No
# root: the simulated kernel only.
#   ADAPT_RUNS=N   runs of each count (default 3)
#   ADAPT_PAGES=N  2M pages a node (default 12000: 16 s on the seeds' Skylake)
#   ADAPT_MACHINES="sim-knee ..."  only these
. "$(dirname "$0")/../test/lib.sh"

HP=$TOP/hugepar-test
FX=$OUT/adapt
TSV=$OUT/adapt.tsv
RUNS=${ADAPT_RUNS:-3}
PAGES=${ADAPT_PAGES:-12000}
SLACK=5
rm -rf "$FX"
mkdir -p "$FX"

[ -x "$HP" ] || { echo "bench/adapt.sh: needs hugepar-test (make hugepar-test)" >&2; exit 1; }

# once MACHINE THREADS: one run on a fresh fixture; prints its milliseconds and, for
# auto, the workers node 0 settled at
once() {
	local m=$FX/$1-$2
	rm -rf "$m"
	"$TOP/test/mkfixture.sh" "$TOP/test/machines/$1.desc" "$m" || return 1
	HUGEPAR_SIM_CLOCK=host "$HP" --sysroot "$m" --simulate apply --config /dev/null -d "$m/rec" --method=parallel \
		--cmdline "rd.hugepar.pages=2M:$PAGES rd.hugepar.threads=$2" >"$m/out" 2>&1 || return 1
	/usr/bin/python3 - "$m/rec/status.json" "$PAGES" <<-'EOF'
		import json, sys
		r = json.load(open(sys.argv[1]))
		want = int(sys.argv[2])
		short = [n['node'] for n in r['nodes'] if n['sizes'][0]['achieved'] != want]
		if short:
		    sys.exit('short on nodes %s' % short)
		print(r['sizes'][0]['ms'], r['nodes'][0]['sizes'][0].get('threads_settled', 0))
	EOF
}

# machine NAME KERNEL FIXED...: KERNEL is the kernel's rule's total count ("-" for
# none); FIXED the total counts to try (the engine splits them over the nodes)
machine() {
	local name=$1 kernel=$2 r t out
	shift 2
	[[ " ${ADAPT_MACHINES:-$name} " == *" $name "* ]] || return 0
	local counts=("$@" auto)
	[ "$kernel" != - ] && counts+=("$kernel")
	: >"$FX/$name.runs"
	for ((r = 0; r < RUNS; r++)); do
		for t in "${counts[@]}"; do
			if ! out=$(once "$name" "$t"); then
				echo "     $name threads=$t: the run failed (see $FX/$name-$t/out)"
				MISSED="$MISSED $name"
				return
			fi
			echo "$t $out" >>"$FX/$name.runs"
		done
	done
	# The measures of one set of runs move together with this host's load (up to 32
	# simulated workers on its CPUs, each measure some ms long): when auto misses in
	# the first set, a second set of auto runs is made, and the fastest of all counts
	verdict "$name" "$kernel" -
	if ! within "$(awk '$1 == "AUTO" {print $3}' "$FX/$name.verdict")"; then
		echo "     $name: auto missed in the first set ($(awk '$1 == "SETTLED" {sub(/^SETTLED /, ""); print}' "$FX/$name.verdict") on node 0): a second set of auto runs"
		for ((r = 0; r < RUNS; r++)); do
			out=$(once "$name" auto) && echo "auto $out" >>"$FX/$name.runs"
		done
	fi
	verdict "$name" "$kernel" "$TSV"
	grep -v '^[A-Z]' "$FX/$name.verdict"
	local best auto ratio kms
	best=$(awk '$1 == "BEST" {print $2 " workers, " $3 " ms"}' "$FX/$name.verdict")
	auto=$(awk '$1 == "AUTO" {print $2}' "$FX/$name.verdict")
	ratio=$(awk '$1 == "AUTO" {print $3}' "$FX/$name.verdict")
	verdict=within
	within "$ratio" || { verdict="NOT within"; MISSED="$MISSED $name"; }
	echo "     $name: auto $auto ms, ${ratio}x the best fixed count ($best): $verdict $SLACK%"
	if [ "$kernel" != - ]; then
		kms=$(awk '$1 == "KERNEL" {print $2}' "$FX/$name.verdict")
		verdict=ahead
		[ "$auto" -lt "$kms" ] || { verdict="NOT ahead"; MISSED="$MISSED $name"; }
		echo "     $name: auto $auto ms, the kernel's quarter of the CPUs ($kernel workers) $kms ms: $verdict"
	fi
}

# within RATIO: a ratio to the best fixed count within SLACK percent of it
within() { awk -v r="$1" -v s="$SLACK" 'BEGIN { exit !(r <= 1 + s / 100) }'; }

# verdict NAME KERNEL TSV: $FX/NAME.verdict from $FX/NAME.runs (the fastest of each
# count; TSV "-": none written)
verdict() {
	local name=$1 kernel=$2
	/usr/bin/python3 - "$FX/$name.runs" "$name" "$kernel" "$SLACK" "$3" <<-'EOF' >"$FX/$name.verdict"
		import statistics, sys
		runs, name, kernel, slack, tsv = sys.argv[1:6]
		by = {}
		settled = []
		for line in open(runs):
		    t, ms, k = line.split()
		    by.setdefault(t, []).append(int(ms))
		    if t == 'auto':
		        settled.append(k)
		# noise on this host only ever adds time: compare the fastest of each
		best_of = {t: min(v) for t, v in by.items()}
		med = {t: statistics.median(v) for t, v in by.items()}
		fixed = {t: m for t, m in best_of.items() if t not in ('auto', kernel)}
		best = min(fixed, key=fixed.get)
		with open(tsv if tsv != '-' else '/dev/null', 'a') as f:
		    for t, v in by.items():
		        role = 'auto' if t == 'auto' else 'kernel' if t == kernel else 'fixed'
		        f.write('%s\t%s\t%s\t%d\t%d\t%d\t%.3f\t%s\n' % (name, role, t, best_of[t], med[t],
		                max(v), best_of[t] / fixed[best], ','.join(settled) if t == 'auto' else ''))
		        print('     %-16s %-6s %6s  fastest %5d ms  (median %d, slowest %d)  %.3fx the best fixed' % (
		            name, role, t, best_of[t], med[t], max(v), best_of[t] / fixed[best]))
		print('BEST %s %d' % (best, fixed[best]))
		print('AUTO %d %.3f' % (best_of['auto'], best_of['auto'] / fixed[best]))
		print('SETTLED %s' % ' '.join(settled))
		if kernel != '-':
		    print('KERNEL %d' % best_of[kernel])
	EOF
}

MISSED=""
printf 'machine\trole\tworkers\tfastest_ms\tmedian_ms\tslowest_ms\tvs_best_fixed\tauto_settled_node0\n' >"$TSV"
echo "     $RUNS runs of each, $PAGES 2M pages a node, interleaved"
while read -r name kernel _ fixed; do
	case $name in '' | '#'* | kernel-1g-ms) continue ;; esac
	# shellcheck disable=SC2086 # the counts, one word each
	machine "$name" "$kernel" $fixed
done <"$TOP/test/machines/adapt.list"
if [ -n "$MISSED" ]; then
	echo "adapt: auto missed on:$(printf ' %s' $MISSED | tr ' ' '\n' | sort -u | tr '\n' ' ')"
else
	echo "adapt: auto within $SLACK% of the best fixed count, and ahead of the kernel's rule, on every machine"
fi
