#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 2M and 1G pages in one run against each alone, in QEMU on Debian's 6.12 (1G by
# per-node writes) and 7.x (1G by workers from 6.19 on): two nodes of 6 and 4 GiB (a
# smaller first node has no free 1 GiB range on q35: doc/kernel-notes.md) of one vCPU,
# init_on_alloc=1; whole `hugepar apply` processes timed with the monotonic clock
# (bench/guest.sh, bench.mode=mixed), rounds interleaved after a warm-up.
#   bench/mixed.sh [PAGES]   (2M pages in all, default 200; a 1G page a node;
#                            QEMU_ROUNDS, default 3; MIXED_KERNELS, default "6.12 7")
cd "$(dirname "$0")/.." || exit 1
PAGES=${1:-200}
ROUNDS=${QEMU_ROUNDS:-3}
out=test/out/bench
mkdir -p $out
[ -x build/timeit ] || make -s build/timeit || exit 1
echo "### 2M and 1G pages at once, 2 nodes (6 and 4 GiB) x 1 vCPU, init_on_alloc=1: $((PAGES / 2)) 2M pages and a 1G page a node"
echo
echo "Whole \`hugepar apply\` processes, ms: median (range) of $ROUNDS rounds; in brackets the"
echo "record's own time for the size (2M, 1G). \"at once / alone in turn\" is each round's run of"
echo "both against the sum of its two runs alone."
echo
echo "| kernel | 2M alone | 1G alone | both at once | at once / alone in turn | 2M's time at once against alone |"
echo "|---|---|---|---|---|---|"
for series in ${MIXED_KERNELS:-6.12 7}; do
	BENCH_KERNEL=$series test/boot.sh setup >/dev/null || { echo "bench: cannot build the boot images"; exit 1; }
	BENCH_KERNEL=$series test/boot.sh bench "mixed-$series" "6144:1 4096:1" \
		"bench.pages=$PAGES bench.gpages=1 bench.mode=mixed bench.rounds=$ROUNDS rd.hugepar=0 init_on_alloc=1" \
		>$out/mixed-$series.log
	/usr/bin/python3 - "$out/mixed-$series.log" "$series" <<'PY'
import statistics, sys
ms, rec = {}, {}
for l in open(sys.argv[1], errors='replace'):
    f = l.split()
    if len(f) >= 7 and f[0] == 'BENCH':
        ms.setdefault(f[1], []).append(float(f[2]))
        rec.setdefault(f[1], []).append([int(x) for x in f[6].split('/')])
def cell(k):
    v = ms.get(k, [])
    if not v:
        return '-'
    r = rec[k]
    return '%.0f (%.0f-%.0f) [%s]' % (statistics.median(v), min(v), max(v),
           ', '.join('%.0f' % statistics.median([x[i] for x in r]) for i in range(len(r[0]))))
try:
    ratio = [b / (a + g) for a, g, b in zip(ms['2M'], ms['1G'], ms['both'])]
    slow = [b[0] / a[0] for a, b in zip(rec['2M'], rec['both']) if a[0] > 0]
    print('| %s | %s | %s | %s | %.2f (%.2f-%.2f) | %.1fx (%.1f-%.1f) |' % (sys.argv[2], cell('2M'), cell('1G'),
          cell('both'), statistics.median(ratio), min(ratio), max(ratio),
          statistics.median(slow), min(slow), max(slow)))
except (KeyError, ValueError, ZeroDivisionError, IndexError):
    print('| %s | the boot gave no figures (see %s) |' % (sys.argv[2], sys.argv[1]))
PY
done
