#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmarks in QEMU (software emulation, Debian's kernel), printed as markdown tables:
#  1. reserving PAGES 2M pages from the booted root: global write, per-node writes,
#     the floor (bare processes, one a CPU, at once), hugepar auto and with 1 worker
#     (medians and ranges of QEMU_ROUNDS rounds, default 9; hugepar's ratio to each
#     baseline paired by round);
#     then the two-node case as a user starts it, a whole process timed with the
#     monotonic clock, and where its time goes (bench/whole.sh); the same for 1G pages
#     on 7.x, two nodes of one vCPU and one node of two (QEMU_ROUNDS_1G rounds, default
#     5), and 2M and 1G together against each alone on 6.12 and 7.x (bench/mixed.sh);
#  2. a thread sweep with init_on_alloc=1 (its data in test/out/bench/threads-qemu.dat);
#  3. the race to the real root (bench/race.sh): on Debian's 6.1, 6.12 and 7.x, no huge
#     pages, the kernel's hugepages=N (parallel since 6.9; on 7.x also with
#     hugepage_alloc_threads=2), its per-node hugepages=0:N,1:M (one node after the
#     other), hugepar in the initramfs; 1G pages on 7.x the same way (BOOT_RUNS
#     interleaved rounds);
#     RACE_EXTRA=N adds N rounds on 6.12 of the closest pair (the kernel's parallel
#     form and hugepar);
#  4. hugepar started early in the background (as shipped) against started only at
#     pre-pivot: what the overlap with device discovery saves (LATE_RUNS rounds).
#   bench/qemu.sh [PAGES]     (default 300)
cd "$(dirname "$0")/.." || exit 1
PAGES=${1:-300}
BOOT_RUNS=${BOOT_RUNS:-6}
out=test/out/bench
mkdir -p $out
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2fx", a / b}'; }
col() { awk -v l="$2" '$1=="BENCH" && $2==l {print $3}' "$1" | median; }

test/boot.sh setup late >/dev/null || { echo "bench: cannot build the boot images"; exit 1; }

ROUNDS=${QEMU_ROUNDS:-9}
echo "### Reserving $PAGES 2M pages from the booted root (ms: median, and range over $ROUNDS rounds)"
echo
echo "Ratios are each round's baseline over hugepar's time in the same round (median, range)."
echo "The floor is one bare process per CPU reserving its share, all at once, with nothing"
echo "before or after: the most any parallel way can reach on this emulated machine."
echo
echo "| machine | global write | per-node writes | the floor | hugepar auto | vs global write | vs per-node writes | floor / hugepar | hugepar 1 worker |"
echo "|---|---|---|---|---|---|---|---|---|"
while read -r name topo zero label; do
	test/boot.sh bench "$name" "${topo//_/ }" "bench.pages=$PAGES bench.mode=compare bench.rounds=$ROUNDS rd.hugepar=0 init_on_alloc=$zero" >$out/$name.log
	/usr/bin/python3 bench/compare.py "$out/$name.log" "$label"
done <<'CASES'
zero1 1024:2 1 1 node, 2 vCPUs, init_on_alloc=1
zero2 768:1_768:1 1 2 nodes x 1 vCPU, init_on_alloc=1
plain2 768:1_768:1 0 2 nodes x 1 vCPU, init_on_alloc=0
CASES

echo
bench/whole.sh "$PAGES"

# 1G pages on 7.x as a whole process (by workers from 6.19 on): two nodes of one vCPU,
# one node of two; first nodes large enough to have free 1 GiB ranges on q35
# (doc/kernel-notes.md); then 2M and 1G together against each alone, 6.12 and 7.x
for topo in 6144:1_4096:1 12288:2; do
	echo
	BENCH_KERNEL=7 WHOLE_KB=1048576 WHOLE_TOPO=$topo QEMU_ROUNDS=${QEMU_ROUNDS_1G:-5} bench/whole.sh 2
done
echo
QEMU_ROUNDS=${QEMU_ROUNDS_1G:-5} bench/mixed.sh

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

# 3. the race against the kernel's own boot-time allocation (2M on 6.1, 6.12 and 7.x,
# 1G on 7.x)
echo
bench/race.sh "$PAGES"
half=$((PAGES / 2))

# 3b. (RACE_EXTRA=N) N more rounds on 6.12 of the closest pair, the kernel's parallel
# form and hugepar, with a boot without pages each: their difference paired by round
if [ "${RACE_EXTRA:-0}" -gt 0 ]; then
	: >$out/race-extra.tsv
	for r in $(seq "$RACE_EXTRA"); do
		for v in none parallel hugepar; do
			case $v in
			none) c="rd.hugepar=0" ;;
			parallel) c="rd.hugepar=0 hugepagesz=2M hugepages=$PAGES" ;;
			hugepar) c="rd.hugepar.pages=2M:$half rd.hugepar.keep_free=64M" ;;
			esac
			t=$(BENCH_KERNEL=6.12 test/boot.sh bench "race-extra-$v" "768:1 768:1" \
				"$c init_on_alloc=1" | awk '$1=="UPTIME" {print $2}')
			printf '%s\t%s\t%s\n' "$r" "$v" "${t:-0}" >>$out/race-extra.tsv
		done
	done
	echo
	echo "6.12, $RACE_EXTRA more rounds: seconds beyond the round's boot without pages, and hugepar less the kernel's parallel form, paired:"
	echo
	/usr/bin/python3 - "$out/race-extra.tsv" <<'PY'
import statistics, sys
t = {}
for l in open(sys.argv[1]):
    r, v, s = l.split()
    t[(r, v)] = float(s)
rounds = sorted({r for r, _ in t}, key=int)
def line(label, d):
    print('- %s: median %+.2f s (%+.2f to %+.2f), mean %+.2f s, standard error %.2f s' % (
        label, statistics.median(d), min(d), max(d), statistics.mean(d),
        statistics.stdev(d) / len(d) ** 0.5 if len(d) > 1 else 0))
line("kernel hugepages=N", [t[(r, 'parallel')] - t[(r, 'none')] for r in rounds])
line("hugepar", [t[(r, 'hugepar')] - t[(r, 'none')] for r in rounds])
line("hugepar less the kernel's parallel form", [t[(r, 'hugepar')] - t[(r, 'parallel')] for r in rounds])
PY
fi

# 4. the shipped early start (the hugepar column above, 6.1) against a start at
# pre-pivot, in rounds of their own with a boot without pages each
: >$out/late.tsv
for r in $(seq "${LATE_RUNS:-3}"); do
	for v in none early late; do
		case $v in
		none) f=nosystemd c="rd.hugepar=0" ;;
		early) f=nosystemd c="rd.hugepar.pages=2M:$half rd.hugepar.keep_free=64M" ;;
		late) f=late c="rd.hugepar.pages=2M:$half rd.hugepar.keep_free=64M" ;;
		esac
		t=$(BOOT_FLAVOUR=$f test/boot.sh bench "start-$v" "768:1 768:1" "$c init_on_alloc=1" |
			awk '$1=="UPTIME" {print $2}')
		printf '%s\t%s\t%s\n' "$r" "$v" "${t:-0}" >>$out/late.tsv
	done
done
echo
echo "### Early background start against a start at pre-pivot, 6.1, 2 nodes x 1 vCPU, init_on_alloc=1, $half 2M pages a node (s to the real root, median of ${LATE_RUNS:-3} rounds)"
echo
echo "| no huge pages | hugepar at pre-udev, background (shipped) | hugepar at pre-pivot |"
echo "|---|---|---|"
/usr/bin/python3 - "$out/late.tsv" <<'PY'
import statistics, sys
t = {}
for l in open(sys.argv[1]):
    r, v, s = l.split()
    t.setdefault(v, []).append(float(s))
print('| ' + ' | '.join('%.2f (%.2f-%.2f)' % (statistics.median(t[v]), min(t[v]), max(t[v]))
                         for v in ('none', 'early', 'late')) + ' |')
PY
