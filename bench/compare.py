# SPDX-License-Identifier: GPL-2.0-or-later
"""A row of the compare table (bench/qemu.sh, bench/arm64.sh) from a guest's log of
bench/guest.sh's "BENCH label ms pages" lines: each way's median and range, and
hugepar's ratio to each baseline paired by round.
   compare.py LOG LABEL"""
import statistics
import sys

ms = {}
for line in open(sys.argv[1], errors='replace'):
    f = line.split()
    if len(f) >= 3 and f[0] == 'BENCH':
        ms.setdefault(f[1], []).append(float(f[2]))


def cell(v):
    return '%.0f (%.0f-%.0f)' % (statistics.median(v), min(v), max(v))


def paired(base, bold=True):
    r = [b / h for b, h in zip(ms[base], ms['hugepar']) if h > 0]
    f = '**%.2fx** (%.2f-%.2f)' if bold else '%.2fx (%.2f-%.2f)'
    return f % (statistics.median(r), min(r), max(r)) if r else '-'


try:
    print('| %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
        sys.argv[2], cell(ms['global']), cell(ms['pernode']), cell(ms['bare']),
        cell(ms['hugepar']), paired('global'), paired('pernode'),
        paired('bare', False), cell(ms['hugepar-1'])))
except (KeyError, ValueError):
    print('| %s | the boot gave no figures |' % sys.argv[2])
