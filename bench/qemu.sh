#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmarks in QEMU (software emulation, Debian's kernel), printed as markdown tables:
#  1. reserving PAGES 2M pages from the booted root: global write, per-node writes,
#     hugepar auto and with 1 worker (medians of 5, ratios to the global write);
#  2. a thread sweep with init_on_alloc=1 (data for doc/threads-qemu.dat);
#  3. time to the root switch: kernel command line hugepages=, hugepar in the
#     initramfs, no huge pages; with and without init_on_alloc (BOOT_RUNS boots each);
#  4. the same with hugepar started early in the background (as shipped) against
#     started only at pre-pivot: what the overlap with device discovery saves.
#   bench/qemu.sh [PAGES]     (default 300)
cd "$(dirname "$0")/.." || exit 1
PAGES=${1:-300}
BOOT_RUNS=${BOOT_RUNS:-3}
out=test/out/bench
mkdir -p $out
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2fx", a / b}'; }
col() { awk -v l="$2" '$1=="BENCH" && $2==l {print $3}' "$1" | median; }

test/boot.sh setup late >/dev/null || { echo "bench: cannot build the boot images"; exit 1; }

echo "### Reserving $PAGES 2M pages from the booted root (ms, median of 5)"
echo
echo "| machine | global write | per-node writes | hugepar auto | hugepar 1 worker |"
echo "|---|---|---|---|---|"
while read -r name topo zero label; do
	test/boot.sh bench "$name" "${topo//_/ }" "bench.pages=$PAGES bench.mode=compare rd.hugepar=0 init_on_alloc=$zero" >$out/$name.log
	g=$(col $out/$name.log global) p=$(col $out/$name.log pernode)
	h=$(col $out/$name.log hugepar) h1=$(col $out/$name.log hugepar-1)
	echo "| $label | $g | $p | $h ($(ratio "$g" "$h")) | $h1 ($(ratio "$g" "$h1")) |"
done <<'CASES'
zero1 1024:2 1 1 node, 2 vCPUs, init_on_alloc=1
zero2 768:1_768:1 1 2 nodes x 1 vCPU, init_on_alloc=1
plain2 768:1_768:1 0 2 nodes x 1 vCPU, init_on_alloc=0
CASES

echo
echo "### Thread sweep, 1 node, 2 vCPUs, init_on_alloc=1, $PAGES pages (ms, median of 5)"
echo
test/boot.sh bench sweep 1024:2 "bench.pages=$PAGES bench.mode=sweep rd.hugepar=0 init_on_alloc=1" >$out/sweep.log
echo "| threads | 1 | 2 | 3 | 4 | auto |"
echo "|---|---|---|---|---|---|"
echo "| ms | $(col $out/sweep.log threads-1) | $(col $out/sweep.log threads-2) | $(col $out/sweep.log threads-3) | $(col $out/sweep.log threads-4) | $(col $out/sweep.log auto) |"
{
	echo "# threads ms (QEMU, 1 node, 2 vCPUs, init_on_alloc=1, $PAGES pages)"
	for n in 1 2 3 4; do echo "$n $(col $out/sweep.log threads-$n)"; done
	echo "# auto"
	echo "auto $(col $out/sweep.log auto)"
} >$out/threads-qemu.dat

echo
echo "### Time to the root switch, 2 nodes x 1 vCPU, $((PAGES / 2)) 2M pages a node (s, median of $BOOT_RUNS boots)"
echo
echo "| zeroing | no huge pages | kernel hugepages= | hugepar in the initramfs |"
echo "|---|---|---|---|"
half=$((PAGES / 2))
declare -A keep=()
for zero in 1 0; do
	declare -A up=()
	for _ in $(seq "$BOOT_RUNS"); do
		for v in none kernel hugepar; do
			case $v in
			none) c="rd.hugepar=0" ;;
			kernel) c="rd.hugepar=0 hugepagesz=2M hugepages=0:$half,1:$half" ;;
			hugepar) c="rd.hugepar.pages=2M:$half rd.hugepar.reserve=64M" ;;
			esac
			t=$(test/boot.sh bench "boot-$v" "768:1 768:1" "$c init_on_alloc=$zero" |
				awk '$1=="UPTIME" {print $2}')
			up[$v]="${up[$v]:-} ${t:-0}"
		done
	done
	# shellcheck disable=SC2086
	for v in none kernel hugepar; do keep[$zero-$v]=$(printf '%s\n' ${up[$v]} | median); done
	echo "| init_on_alloc=$zero | ${keep[$zero-none]} | ${keep[$zero-kernel]} | ${keep[$zero-hugepar]} |"
	unset up
done

# 4. the shipped early start (the hugepar column above) against a start at pre-pivot
late=""
for _ in $(seq "$BOOT_RUNS"); do
	t=$(BOOT_FLAVOUR=late test/boot.sh bench start-late "768:1 768:1" \
		"rd.hugepar.pages=2M:$half rd.hugepar.reserve=64M init_on_alloc=1" |
		awk '$1=="UPTIME" {print $2}')
	late="$late ${t:-0}"
done
echo
echo "### Early background start against a start at pre-pivot, 2 nodes x 1 vCPU, init_on_alloc=1, $half 2M pages a node (s to the root switch, median of $BOOT_RUNS boots)"
echo
echo "| no huge pages | hugepar at pre-udev, background (shipped) | hugepar at pre-pivot |"
echo "|---|---|---|"
# shellcheck disable=SC2086
echo "| ${keep[1-none]} | ${keep[1-hugepar]} | $(printf '%s\n' $late | median) |"
