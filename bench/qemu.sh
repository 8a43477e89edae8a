#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark in QEMU (software emulation): serial sysfs writes against hugepar, medians
# of 5 rounds, as ratios. Cases: 2 vCPUs on one node with init_on_alloc=1 (every page
# zeroed at allocation), and two nodes of one vCPU each, with and without zeroing.
#   bench/qemu.sh [PAGES]     (default 300 pages of 2M)
cd "$(dirname "$0")/.." || exit 1
PAGES=${1:-300}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
report() { # name log
	local g p h h1
	g=$(awk '$2=="global"{print $3}' "$2" | median)
	p=$(awk '$2=="pernode"{print $3}' "$2" | median)
	h=$(awk '$2=="hugepar"{print $3}' "$2" | median)
	h1=$(awk '$2=="hugepar-1"{print $3}' "$2" | median)
	printf '%-44s global %5s ms  per-node %5s ms  hugepar %5s ms (%s)  1 worker %5s ms (%s)\n' \
		"$1" "$g" "$p" "$h" "$(awk -v a="$g" -v b="$h" 'BEGIN{printf "%.2fx", a/b}')" \
		"$h1" "$(awk -v a="$g" -v b="$h1" 'BEGIN{printf "%.2fx", a/b}')"
}
out=test/out/bench
mkdir -p $out
test/boot.sh bench zero1 "1024:2" "$PAGES" "init_on_alloc=1" >$out/zero1.log
report "1 node, 2 vCPUs, init_on_alloc=1" $out/zero1.log
test/boot.sh bench zero2 "768:1 768:1" "$PAGES" "init_on_alloc=1" >$out/zero2.log
report "2 nodes x 1 vCPU, init_on_alloc=1" $out/zero2.log
test/boot.sh bench plain2 "768:1 768:1" "$PAGES" "init_on_alloc=0" >$out/plain2.log
report "2 nodes x 1 vCPU, init_on_alloc=0" $out/plain2.log
