#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The race against the kernel's own boot-time allocation: time to the real root in
# QEMU, 2 nodes x 1 vCPU, init_on_alloc=1. Each round boots every kind once, in turn,
# so that drift hits them alike; the figure is each kind's time to the real root less
# that of the round's boot without pages (paired), median and range over the rounds.
#  2M, on each kernel of RACE_KERNELS (default "6.1 6.12 7"), 768 MiB nodes, PAGES/2 a
#     node: no huge pages, the kernel's hugepages=N (parallel since 6.9), on 6.15 and
#     later also with hugepage_alloc_threads=2 (every CPU; the default is a quarter of
#     them, here 1), its per-node hugepages=0:N,1:M (one node after the other), hugepar
#     in the initramfs;
#  1G, on the newest (7.x), nodes of 6 and 4 GiB (doc/kernel-notes.md), a 1G page a
#     node: the kernel's hugepagesz=1G hugepages=2 and its per-node form against
#     hugepar, whose 1G pages go to workers from 6.19 on.
#   bench/race.sh [PAGES]    (default 300; BOOT_RUNS rounds, default 6)
cd "$(dirname "$0")/.." || exit 1
PAGES=${1:-300}
BOOT_RUNS=${BOOT_RUNS:-6}
KERNELS=${RACE_KERNELS:-6.1 6.12 7}
half=$((PAGES / 2))
out=test/out/bench
mkdir -p $out
for series in $KERNELS; do
	BENCH_KERNEL=$series test/boot.sh setup >/dev/null || { echo "bench: cannot build the boot images"; exit 1; }
done

# cmdline KIND: the kernel command line of a kind
cmdline() {
	case $1 in
	none) echo "rd.hugepar=0" ;;
	parallel) echo "rd.hugepar=0 hugepagesz=2M hugepages=$PAGES" ;;
	threads) echo "rd.hugepar=0 hugepagesz=2M hugepages=$PAGES hugepage_alloc_threads=2" ;;
	pernode) echo "rd.hugepar=0 hugepagesz=2M hugepages=0:$half,1:$half" ;;
	hugepar) echo "rd.hugepar.pages=2M:$half rd.hugepar.keep_free=64M" ;;
	1g-none) echo "rd.hugepar=0" ;;
	1g-kernel) echo "rd.hugepar=0 hugepagesz=1G hugepages=2" ;;
	1g-pernode) echo "rd.hugepar=0 hugepagesz=1G hugepages=0:1,1:1" ;;
	1g-hugepar) echo "rd.hugepar.pages=1G:1 rd.hugepar.keep_free=256M" ;;
	esac
}

# race ROW SERIES TOPOLOGY KIND...: BOOT_RUNS rounds of every kind, the first kind the
# boot without pages; appends to $out/race.tsv (row, round, kind, seconds, pools)
race() {
	local row=$1 series=$2 topo=$3 r v f t pools
	shift 3
	for r in $(seq "$BOOT_RUNS"); do
		for v in "$@"; do
			f=$out/race-$row-$v-$r.log
			BENCH_KERNEL=$series test/boot.sh bench "race-$row-$v" "$topo" \
				"$(cmdline "$v") init_on_alloc=1" >"$f"
			t=$(awk '$1=="UPTIME" {print $2}' "$f")
			pools=$(awk '$1=="NODE" && $3 ~ /^[0-9]+$/ {printf "%s%s/%s", s, $3, $4; s="+"}' "$f")
			printf '%s\t%s\t%s\t%s\t%s\n' "$row" "$r" "$v" "${t:-0}" "$pools" >>$out/race.tsv
		done
	done
}

# table ROW KIND...: one markdown row: the boot without pages, then each kind's paired
# difference
table() {
	/usr/bin/python3 - "$out/race.tsv" "$@" <<'PY'
import statistics, sys
row, kinds = sys.argv[2], sys.argv[3:]
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1])]
t = {(r[1], r[2]): float(r[3]) for r in rows if r[0] == row and float(r[3]) > 0}
rounds = sorted({r for r, _ in t}, key=int)
none = [t[(r, kinds[0])] for r in rounds if (r, kinds[0]) in t]
cells = ['%.2f (%.2f-%.2f)' % (statistics.median(none), min(none), max(none))] if none else ['-']
for v in kinds[1:]:
    d = [t[(r, v)] - t[(r, kinds[0])] for r in rounds if (r, v) in t and (r, kinds[0]) in t]
    cells.append('%+.2f (%+.2f to %+.2f)' % (statistics.median(d), min(d), max(d)) if d else '-')
print('| %s | %s |' % (row, ' | '.join(cells)))
PY
}

# the kernel's own lines and the pools of the last round
klog() { # ROW KIND...
	local row=$1 v f
	shift
	for v in "$@"; do
		f=$out/race-$row-$v-$BOOT_RUNS.log
		[ -f "$f" ] || continue
		echo "$row $v: pools (2M/1G a node) $(awk '$1=="NODE" && $3 ~ /^[0-9]+$/ {printf "%s%s/%s", s, $3, $4; s=" + "}' "$f")"
		sed -n 's/^KLOG /    /p' "$f" | grep -i 'took\|allocat\|registered' | head -n 3
	done
}

: >$out/race.tsv
newest=${KERNELS##* }
echo "### The race against the kernel: time to the real root, 2 nodes x 1 vCPU (768 MiB each), init_on_alloc=1, $half 2M pages a node ($BOOT_RUNS rounds)"
echo
echo "Seconds more than the same round's boot without huge pages: median (range); the first column is that boot's own time."
echo "hugepage_alloc_threads= exists from 6.15 on (a dash before)."
echo
echo "| kernel | no huge pages (s) | kernel \`hugepages=$PAGES\` | the same, \`hugepage_alloc_threads=2\` | kernel \`hugepages=0:$half,1:$half\` | hugepar in the initramfs |"
echo "|---|---|---|---|---|---|"
for series in $KERNELS; do
	case $series in
	6.1 | 6.12) kinds="none parallel pernode hugepar" ;;
	*) kinds="none parallel threads pernode hugepar" ;;
	esac
	# shellcheck disable=SC2086
	race "$series" "$series" "768:1 768:1" $kinds
	# shellcheck disable=SC2086
	table "$series" none parallel threads pernode hugepar
done
echo
echo "### The race for 1G pages on Linux $newest: nodes of 6 and 4 GiB, 1 vCPU each, init_on_alloc=1, a 1G page a node ($BOOT_RUNS rounds)"
echo
echo "| kernel | no huge pages (s) | kernel \`hugepagesz=1G hugepages=2\` | kernel \`hugepagesz=1G hugepages=0:1,1:1\` | hugepar in the initramfs |"
echo "|---|---|---|---|---|"
race "1G-$newest" "$newest" "6144:1 4096:1" 1g-none 1g-kernel 1g-pernode 1g-hugepar
table "1G-$newest" 1g-none 1g-kernel 1g-pernode 1g-hugepar
echo
echo "Pools reached and the kernel's own timing lines, last round:"
echo
echo '```'
for series in $KERNELS; do klog "$series" parallel threads pernode hugepar; done
klog "1G-$newest" 1g-kernel 1g-pernode 1g-hugepar
echo '```'
