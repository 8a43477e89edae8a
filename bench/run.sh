#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: reserving a 2M pool on this machine with hugepar and with the ways people
# do it today, each a median of RUNS runs after a warm-up, the pool emptied between
# runs, as a ratio against the global sysfs write measured in the same run. Each round
# runs every method once, in turn.
#   bench/run.sh [GIB]        (default 8 GiB; RUNS=5)
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

empty() { echo 0 >$H/nr_hugepages; sync; }
ms() { # run a command, print its wall time in ms
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000)).$(((t1 - t0) / 10000 % 100))
}
global() { echo $PAGES >$H/nr_hugepages; }
pernode() {
	local n per=$((PAGES / $(echo "$nodes" | wc -w)))
	for n in $nodes; do echo $per >"$n/hugepages/hugepages-2048kB/nr_hugepages"; done
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
echo "Reserving $GIB GiB of 2M pages ($PAGES pages), median of $RUNS, $(nproc) CPUs, $(echo "$nodes" | wc -w) node(s), $(uname -r)"
printf '%-38s %10s %8s\n' "method" "ms" "speedup"
for m in "${methods[@]}"; do
	label=${m%%|*}
	printf '%-38s %10s %8s\n' "$label" "${med[$label]}" "$(awk -v b="$base" -v t="${med[$label]}" 'BEGIN {printf "%.2fx", b / t}')"
done
