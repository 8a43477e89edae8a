#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two emulated nodes of one vCPU each, pages zeroed at allocation (init_on_alloc=1):
# `hugepar apply` as a user starts it (settings in a file, a reserve floor, the record
# in /run/hugepar), a whole process timed with the monotonic clock, against per-node
# writes and the global write timed the same way and the floor (bare processes, one a
# CPU), in the same rounds (bench/guest.sh, bench.mode=whole). Then where hugepar's
# time goes: the test build's trace of each phase, from the exec to the exit, and
# what a system call, a page fault and a fork cost in the guest (build/syscost).
#   bench/whole.sh [PAGES]   (default 300, split over the nodes; QEMU_ROUNDS, default 9;
#                            WHOLE_TOPO, default 768:1_768:1; WHOLE_KB, the page size in
#                            kB, default 2048; BENCH_KERNEL, default 6.1)
cd "$(dirname "$0")/.." || exit 1
PAGES=${1:-300}
ROUNDS=${QEMU_ROUNDS:-9}
TOPO=${WHOLE_TOPO:-768:1_768:1}
out=test/out/bench
mkdir -p $out
for t in timeit syscost; do [ -x build/$t ] || make -s build/$t || exit 1; done
test/boot.sh setup late >/dev/null || { echo "bench: cannot build the boot images"; exit 1; }
test/boot.sh bench whole "${TOPO//_/ }" \
	"bench.pages=$PAGES bench.size=${WHOLE_KB:-2048} bench.mode=whole bench.rounds=$ROUNDS rd.hugepar=0 init_on_alloc=1" >$out/whole-${WHOLE_KB:-2048}-$TOPO.log
/usr/bin/python3 - "$out/whole-${WHOLE_KB:-2048}-$TOPO.log" "$PAGES" "$ROUNDS" "$TOPO" "${WHOLE_KB:-2048}" "${BENCH_KERNEL:-6.1}" <<'PY'
import statistics, sys
log, pages, rounds, topo, kb, kernel = sys.argv[1:7]
ms, phases, notes, costs, io = {}, {}, [], [], []
for l in open(log, errors='replace'):
    f = l.split()
    if len(f) >= 4 and f[0] == 'BENCHPOOL' and f[3] != '0':
        sys.exit('whole: round %s: %s started from %s pages, not from none (see %s)' % (f[1], f[2], f[3], log))
    if len(f) == 3 and f[0] == 'COST':
        costs.append((f[1].replace('-', ' '), float(f[2])))
    if len(f) == 4 and f[0] == 'BENCHIO':
        io.append(int(f[3]))
    if len(f) >= 2 and f[0] == 'BENCHNOTE':
        notes.append(' '.join(f[1:]))
    if len(f) >= 3 and f[0] == 'BENCH':
        ms.setdefault(f[1], []).append(float(f[2]))
    elif len(f) >= 5 and f[0] == 'TRACE':
        # the first line of each phase per round: the main process's
        phases.setdefault(f[2], {}).setdefault(f[1], int(f[3]) / 10.0)
if 'hugepar' not in ms or 'pernode' not in ms:
    sys.exit('whole: the boot gave no figures (see %s)' % log)
def cell(v):
    return '%.0f (%.0f-%.0f)' % (statistics.median(v), min(v), max(v))
def paired(base, of='hugepar'):
    r = [b / h for b, h in zip(ms[base], ms[of]) if h > 0]
    return '**%.2fx** (%.2f-%.2f)' % (statistics.median(r), min(r), max(r))
print('### hugepar as a user starts it: %s pages of %s, nodes %s (MiB:vCPUs), Linux %s, init_on_alloc=1' % (
      pages, '1G' if kb == '1048576' else '2M' if kb == '2048' else kb + ' kB', topo.replace('_', ' '), kernel))
print()
print('A whole `hugepar apply` process (settings in /etc/hugepar.conf.d, reserve 64M, the record')
print('in /run/hugepar) timed with the monotonic clock from the exec to the exit, beside per-node')
print('writes and the global write made by one process the same way, the floor, and hugepar')
print('with a worker a CPU fixed (rd.hugepar.threads=N: no measuring); ms, median')
print('and range of %d rounds after a warm-up; ratios paired by round.' % len(ms['hugepar']))
print()
print('| per-node writes | global write | the floor | hugepar | vs per-node writes | vs global write | floor / hugepar | hugepar, a worker a CPU |')
print('|---|---|---|---|---|---|---|---|')
floor = [b / h for b, h in zip(ms.get('bare', []), ms['hugepar']) if h > 0]
print('| %s | %s | %s | %s | %s | %s | %s | %s |' % (cell(ms['pernode']), cell(ms['global']),
      cell(ms['bare']) if 'bare' in ms else '-', cell(ms['hugepar']), paired('pernode'),
      paired('global'), '%.2f' % statistics.median(floor) if floor else '-',
      cell(ms['fixed']) if 'fixed' in ms else '-'))
if 'alone' in ms and 'bare' in ms:
    # how near to two CPUs at once the emulated machine came in these rounds: the
    # most any parallel way could reach is per-node writes over the floor
    r = [a / b for a, b in zip(ms['alone'], ms['bare']) if b > 0]
    print('\nOne of the floor\'s processes alone, the other CPUs idle: %s ms; alone / the floor %.2f'
          ' (%.2f-%.2f), 1.00 where the emulated CPUs ran fully at once; per-node writes / the floor %.2fx.' % (
          cell(ms['alone']), statistics.median(r), min(r), max(r),
          statistics.median([p / b for p, b in zip(ms['pernode'], ms['bare']) if b > 0])))
for n in notes:
    print('\nFrom the guest: %s' % n)
if io:
    print('\nTimed runs with writes to the emulated disk during them: %d of %d.' % (
          sum(1 for w in io if w), len(io)))
if phases:
    order = ['start', 'lock', 'topology', 'probe', 'estimate', 'raise', 'spawn', 'collect', 'commit',
             'restore', 'release', 'reconcile', 'record', 'done']
    print()
    print('Where the time goes (the test build with HUGEPAR_FAULT=trace, %s ms in all: median):' % (
          '%.0f' % statistics.median(ms['trace']) if 'trace' in ms else '?'))
    print()
    print('| phase begins | ms after the exec (median, range) | ms to the next (median) |')
    print('|---|---|---|')
    seen = [p for p in order if p in phases]
    for i, p in enumerate(seen):
        v = list(phases[p].values())
        if i + 1 < len(seen):
            nxt = phases[seen[i + 1]]
            d = [nxt[r] - phases[p][r] for r in phases[p] if r in nxt]
        else:
            d = [t - phases[p][str(r + 1)] for r, t in enumerate(ms.get('trace', [])) if str(r + 1) in phases[p]]
        print('| %s | %.1f (%.1f-%.1f) | %.1f |' % (p, statistics.median(v), min(v), max(v),
              statistics.median(d) if d else 0))
if costs:
    print()
    print('What things cost in this guest (build/syscost, once, in the warm-up round; microseconds, mean):')
    print()
    print('| what | us |')
    print('|---|---|')
    for what, us in costs:
        print('| %s | %.1f |' % (what, us))
PY
