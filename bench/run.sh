#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark on this machine, printed as markdown tables:
#  1. reserving a 2M pool with hugepar and with the ways people do it today, each a
#     median of RUNS runs after a warm-up, the pool emptied between runs, as a ratio
#     against the global sysfs write measured in the same run (each round runs every
#     method once, in turn, so drift hits them all alike);
#  2. a thread sweep, 1 to twice the CPUs, and where auto lands;
#  3. start-up cost of `hugepar plan`, the binary's size, peak memory of `hugepar apply`.
#   bench/run.sh [GIB]        (default 8 GiB; RUNS=9)
set -u
cd "$(dirname "$0")/.." || exit 1
GIB=${1:-8}
RUNS=${RUNS:-9}
H=/sys/kernel/mm/hugepages/hugepages-2048kB
PAGES=$((GIB * 512))
HP=./hugepar

[ "$(id -u)" = 0 ] && [ -w $H/nr_hugepages ] || { echo "bench: needs root and writable $H"; exit 1; }
saved=$(cat $H/nr_hugepages)
trap 'echo "$saved" >$H/nr_hugepages' EXIT
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null)

# Freed huge pages go back to the buddy allocator partly after the write returns:
# let that settle before the next timed run.
empty() { echo 0 >$H/nr_hugepages; sync; sleep 0.2; }
ms() { # run a command, print its wall time in ms
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000)).$(((t1 - t0) / 10000 % 100))
}
# Every method is a command of its own, started by exec as a user would run it
# (sysctl, a unit's ExecStart, dpdk-hugepages.py): the baselines pay a start too.
global() { sh -c "echo $PAGES >$H/nr_hugepages"; }
pernode() {
	local per=$((PAGES / $(echo "$nodes" | wc -w)))
	# shellcheck disable=SC2016
	sh -c 'for n; do echo '$per' >"$n/hugepages/hugepages-2048kB/nr_hugepages"; done' sh $nodes
}
hp() { $HP apply --config /dev/null --record-dir "${TMPDIR:-/tmp}/hugepar-bench" --cmdline "rd.hugepar.pages=2M:$PAGES $*"; }
hugeadm_() { hugeadm --pool-pages-min "2MB:$PAGES"; }

methods=("global write (sysctl)|global" "per-node writes (dpdk-hugepages.py)|pernode"
	"hugepar auto|hp" "hugepar 1 worker|hp rd.hugepar.threads=1"
	"hugepar --method=serial|hp_serial")
hp_serial() { $HP apply --method=serial --config /dev/null --record-dir "${TMPDIR:-/tmp}/hugepar-bench" --cmdline "rd.hugepar.pages=2M:$PAGES"; }
command -v hugeadm >/dev/null && methods+=("hugeadm --pool-pages-min|hugeadm_")

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# warm-up: the first touch of guest memory is slow
empty; global; empty; global; empty
# Rounds interleave the methods, so that drift of the machine hits them all alike.
declare -A med all
for _ in $(seq "$RUNS"); do
	for m in "${methods[@]}"; do
		label=${m%%|*} cmd=${m#*|}
		empty
		# shellcheck disable=SC2086
		all[$label]="${all[$label]:-} $(ms $cmd)"
		[ "$(cat $H/nr_hugepages)" -ge $((PAGES - PAGES / 100)) ] ||
			echo "bench: $label got $(cat $H/nr_hugepages) of $PAGES" >&2
	done
done
for m in "${methods[@]}"; do
	label=${m%%|*}
	# shellcheck disable=SC2086
	med[$label]=$(printf '%s\n' ${all[$label]} | median)
done
empty
base=${med["global write (sysctl)"]}
echo "### Reserving $GIB GiB of 2M pages ($PAGES pages) on this machine: $(nproc) CPUs, $(echo "$nodes" | wc -w) node(s), Linux $(uname -r | cut -d- -f1) (ms, median of $RUNS)"
echo
echo "| method | ms | vs global write |"
echo "|---|---|---|"
for m in "${methods[@]}"; do
	label=${m%%|*}
	echo "| $label | ${med[$label]} | $(awk -v b="$base" -v t="${med[$label]}" 'BEGIN {printf "%.2fx", b / t}') |"
done

# 2. thread sweep
out=test/out/bench
mkdir -p $out
maxt=$(($(nproc) * 2))
declare -A sw=()
for _ in $(seq "$RUNS"); do
	for n in $(seq $maxt) auto; do
		empty
		if [ "$n" = auto ]; then sw[$n]="${sw[$n]:-} $(ms hp)"
		else sw[$n]="${sw[$n]:-} $(ms hp rd.hugepar.threads=$n)"; fi
	done
done
echo
echo "### Thread sweep, $GIB GiB of 2M pages (ms, median of $RUNS)"
echo
row="| threads |" sep="|---|" vals="| ms |"
{
	echo "# threads ms (this machine, $(nproc) CPUs, $GIB GiB of 2M pages)"
	for n in $(seq $maxt) auto; do
		# shellcheck disable=SC2086
		v=$(printf '%s\n' ${sw[$n]} | median)
		row="$row $n |" sep="$sep---|" vals="$vals $v |"
		[ "$n" = auto ] && echo "# auto" && echo "auto $v" || echo "$n $v"
	done
} >$out/threads-vm.dat
echo "$row"; echo "$sep"; echo "$vals"
echo "auto chose $(/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["threads"], "workers,", r["sizes"][0]["method"], "-", r["sizes"][0]["method_note"])' "${TMPDIR:-/tmp}/hugepar-bench/status.json")"

# 3. start-up cost, size, memory
fx=$out/fixture-32n
test/mkfixture.sh test/machines/32n-256cpu.desc $fx
plan_ms() { # average of 50 runs, in ms
	local t0 t1
	t0=$(date +%s%N)
	for _ in $(seq 50); do $HP plan "$@" >/dev/null 2>&1; done
	t1=$(date +%s%N)
	awk -v d=$((t1 - t0)) 'BEGIN {printf "%.2f", d / 50 / 1e6}'
}
strip -o $out/hugepar.stripped $HP
empty
peak=$(/usr/bin/time -f %M $HP apply --config /dev/null --record-dir "${TMPDIR:-/tmp}/hugepar-bench" \
	--cmdline "rd.hugepar.pages=2M:$PAGES" 2>&1 >/dev/null | tail -n 1)
empty
echo
echo "### Start-up cost, size, memory"
echo
echo "| what | figure |"
echo "|---|---|"
echo "| \`hugepar plan\` on the 32-node fixture | $(plan_ms --sysroot $fx --config /dev/null) ms |"
echo "| \`hugepar plan\` on this machine | $(plan_ms --config /dev/null --cmdline rd.hugepar.pages=2M:$PAGES) ms |"
echo "| binary, stripped | $(stat -c %s $out/hugepar.stripped) bytes |"
echo "| peak RSS of \`hugepar apply\` ($GIB GiB), main process | $peak KiB |"
