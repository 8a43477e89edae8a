#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What an installed hugepar with nothing configured costs the boot: time to the real
# root in QEMU (2 nodes x 1 vCPU, Debian's kernel of IDLE_KERNEL, default 6.1), an
# initramfs with hugepar and no pages against the same initramfs without hugepar, for
# dracut (its own init, bash) and initramfs-tools. Each round boots the four in turn,
# so that drift hits them alike; the figure is each generator's boot with hugepar less
# its boot without, paired by round: median and range over IDLE_RUNS rounds (default
# 8), beside hugepar's own time from its record. /proc/uptime, read by the real root's
# first process, counts in hundredths of a second.
#   bench/idle.sh
cd "$(dirname "$0")/.." || exit 1
RUNS=${IDLE_RUNS:-8}
export BENCH_KERNEL=${IDLE_KERNEL:-6.1}
out=test/out/bench
mkdir -p $out
test/boot.sh setup none itools itools-none >/dev/null || { echo "bench: cannot build the boot images"; exit 1; }

: >$out/idle.tsv
for r in $(seq "$RUNS"); do
	for f in nosystemd none itools itools-none; do
		# no rd.hugepar.pages and no settings file: nothing configured
		BOOT_FLAVOUR=$f test/boot.sh bench "idle-$f" "768:1 768:1" "" >$out/idle-$f.log
		t=$(awk '$1=="UPTIME" {print $2}' $out/idle-$f.log)
		ms=$(tr -d '\r' <test/out/boot/bench-idle-$f.log | sed -n '/^RECORD-BEGIN/,/^RECORD-END/p' |
			sed '1d;$d' | jq -r '.duration_ms // empty' 2>/dev/null)
		printf '%s\t%s\t%s\t%s\n' "$r" "$f" "${t:-0}" "${ms:--}" >>$out/idle.tsv
	done
done

echo "### An installed hugepar with nothing configured: time to the real root, Linux $BENCH_KERNEL, 2 nodes x 1 vCPU ($RUNS rounds)"
echo
echo "Milliseconds: the boot without hugepar, then the same initramfs with it, less that boot"
echo "in the same round (median, range), and the run's own duration from its record."
echo
echo "| generator | without hugepar (ms) | with hugepar, nothing configured: more (ms) | hugepar's record: duration (ms) |"
echo "|---|---|---|---|"
/usr/bin/python3 - "$out/idle.tsv" <<'PY'
import statistics, sys
t, own = {}, {}
for l in open(sys.argv[1]):
    r, f, s, ms = l.rstrip('\n').split('\t')
    if float(s) > 0:
        t[(r, f)] = float(s) * 1000
    if ms not in ('-', ''):
        own.setdefault(f, []).append(float(ms))
rounds = sorted({r for r, _ in t}, key=int)
def rng(v, fmt):
    return (fmt + ' (' + fmt + ' to ' + fmt + ')') % (statistics.median(v), min(v), max(v)) if v else '-'
for label, with_, without in (('dracut (no systemd)', 'nosystemd', 'none'),
                              ('initramfs-tools', 'itools', 'itools-none')):
    base = [t[(r, without)] for r in rounds if (r, without) in t]
    d = [t[(r, with_)] - t[(r, without)] for r in rounds if (r, with_) in t and (r, without) in t]
    print('| %s | %s | %s | %s |' % (label, rng(base, '%.0f'), rng(d, '%+.0f'),
                                     rng(own.get(with_, []), '%.0f')))
PY
