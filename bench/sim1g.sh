#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The seeds' 1G machine (8 nodes of 1.5 TiB, 11776 1G pages) on the simulated kernel
# at 6.19 (test/machines/sim-12tb-1g.desc: a page's cost derived from the kernel's own
# serial 77 s), the real engine serial, with 1 and 2 workers a node and auto, runs
# interleaved, paced by this host's clock (HUGEPAR_SIM_CLOCK=host); simulated seconds
# (the record's time times the machine's scale), median and range, and where auto
# settled on each node; and the wall-clock time of auto's runs, as test/engine.sh's
# seeds-1g case runs it, beside the model's bound. test/adapt.sh checks the same
# window on the simulated kernel's own clock. No root: nothing of this machine is
# touched.
#   bench/sim1g.sh           (SIM1G_RUNS, default 3; serial once)
cd "$(dirname "$0")/.." || exit 1
RUNS=${SIM1G_RUNS:-3}
DESC=test/machines/sim-12tb-1g.desc
FX=test/out/bench/sim1g
SCALE=$(awk '$1=="sim" && $2=="scale" {print $3}' $DESC)
[ -x ./hugepar-test ] || make -s hugepar-test || exit 1
mkdir -p $FX
: >$FX/runs.tsv
once() { # LABEL METHOD THREADS
	local label=$1 m=$FX/run
	rm -rf "$m"
	test/mkfixture.sh $DESC "$m" || exit 1
	HUGEPAR_SIM_CLOCK=host ./hugepar-test --sysroot "$m" --simulate apply --config /dev/null -d "$m/rec" --method="$2" \
		--cmdline "rd.hugepar.pages=1G:1472 rd.hugepar.threads=$3" >"$m.out" 2>&1
	/usr/bin/python3 - "$m/rec/status.json" "$label" "$SCALE" >>$FX/runs.tsv <<-'PY'
		import json, sys
		r = json.load(open(sys.argv[1]))
		z = [s for s in r['sizes'] if s.get("size") == "1G"][0]
		got = sum(n['sizes'][1]['achieved'] for n in r['nodes'])
		settled = ','.join(str(n['sizes'][1].get('threads_settled', 0)) for n in r['nodes'])
		print('%s\t%.2f\t%s\t%d\t%s\t%d' % (sys.argv[2], z['ms'] * float(sys.argv[3]) / 1000,
		      z['method'], got, settled, z['ms']))
	PY
}
once serial serial auto
for _ in $(seq "$RUNS"); do
	once "1 a node" parallel 8
	once "2 a node" parallel 16
	once auto auto auto
done
echo "### The seeds' 1G machine, simulated: 8 nodes, 11776 1G pages (1472 a node), 6.19 rules"
echo
echo "Simulated seconds, median (range) of $RUNS runs; the kernel's own boot-time figures for"
echo "the same pages: 77 s serial, 18.3 s with its parallel initialisation."
echo
/usr/bin/python3 - $FX/runs.tsv <<'PY'
import statistics, sys
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1])]
print('| hugepar | seconds | method | pages | workers a node at the end (auto) |')
print('|---|---|---|---|---|')
for label in ('serial', '1 a node', '2 a node', 'auto'):
    rs = [r for r in rows if r[0] == label]
    s = [float(r[1]) for r in rs]
    print('| %s | %.1f (%.1f-%.1f) | %s | %s | %s |' % (label, statistics.median(s), min(s), max(s),
          rs[-1][2], rs[-1][3], rs[-1][4] if label == 'auto' else '-'))
ms = [int(r[5]) for r in rows if r[0] == 'auto']
print()
print('Wall-clock here, auto (test/engine.sh seeds-1g\'s run): %d ms, median (%d-%d) of %d runs;'
      % (statistics.median(ms), min(ms), max(ms), len(ms)))
print('the model\'s bound is 640 ms (1472 pages a node at 288 a second, over 8); serial')
print('would take 9.6 s.')
PY
