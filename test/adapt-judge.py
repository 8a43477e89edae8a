#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# test/adapt.sh's verdicts on a simulated machine's runs, as "pass|fail<TAB>check"
# lines, and their rows in the suite's table:
#   adapt-judge.py machine DESC FX TSV SLACK NAME KERNEL TAG=THREADS...
#   adapt-judge.py noise DESC FX TSV SLACK NAME WANTED TAG=THREADS...
# (the records are FX/NAME.TAG.json; doc/threads.md says what is judged).
import json
import sys


def points(words):
    return [(int(a), float(b)) for a, b in (p.split(':') for p in words)]


def curves(desc):
    """Each node's 2M curve (its own `sim node` one, or the machine's), by node id;
    and whether nodes share a cap (a `sim group` line)."""
    default, own, ids, grouped = [], {}, [], False
    for line in open(desc):
        w = line.split()
        if w[:1] == ['node']:
            ids.append(int(w[1]))
        if w[:3] == ['sim', 'rate', '2048']:
            default = points(w[3:])
        elif w[:2] == ['sim', 'node'] and w[3:5] == ['rate', '2048']:
            for part in w[2].split(','):
                lo, _, hi = part.partition('-')
                for n in range(int(lo), int(hi or lo) + 1):
                    own[n] = points(w[5:])
        grouped |= w[:2] == ['sim', 'group']
    return {n: own.get(n, default) for n in ids}, bool(own), grouped


def rate(curve, k):
    """The node's pages a second with k at work, as the simulator has it."""
    if k < curve[0][0]:
        return curve[0][1] * k / curve[0][0]
    for (a, ra), (b, rb) in zip(curve, curve[1:]):
        if a <= k < b:
            return ra + (rb - ra) * (k - a) / (b - a)
    return curve[-1][1]


def say(_name, ok, what):
    print('%s\t%s' % ('pass' if ok else 'fail', what))


def load(fx, name, runs):
    rec = {t: json.load(open('%s/%s.%s.json' % (fx, name, t))) for t in runs}
    ms = {t: r['sizes'][0]['ms'] for t, r in rec.items()}
    fixed = {t: m for t, m in ms.items() if t.startswith('fixed')}
    return rec, ms, fixed, min(fixed, key=fixed.get)


def settled(r):
    return [n['sizes'][0].get('threads_settled', 0) for n in r['nodes']]


def per_node(name, rec, node_curve):
    """Each node within 5% of its own curve's best rate, up to its ceiling."""
    counts, bests, off = settled(rec), [], []
    for n, k in zip(rec['nodes'], counts):
        c = node_curve[n['node']]
        top = max(range(1, n['threads'] + 1), key=lambda j: rate(c, j))
        bests.append(top)
        if rate(c, k) < 0.95 * rate(c, top):
            off.append(n['node'])
    say(name, not off, 'each node within 5%% of its own curve\'s best: counts %s, '
        'the curves\' best %s%s' % (' '.join(map(str, counts)), ' '.join(map(str, bests)),
                                     ''.join(' (node %d off)' % n for n in off)))


def table(tsv, name, runs, ms, rec, best):
    with open(tsv, 'a') as f:
        for t, m in sorted(ms.items(), key=lambda x: x[1]):
            if t == 'auto2' or t.startswith('noise'):
                continue
            role = 'auto' if t == 'auto1' else 'kernel' if t == 'kernel' else 'fixed'
            n0 = rec[t]['nodes'][0]['sizes'][0]
            f.write('%s\t%s\t%s\t%d\t%.3f\t%s\t%s\n' % (
                name, role, runs[t], m, m / ms[best],
                ','.join(map(str, settled(rec[t]))) if role == 'auto' else '',
                ' '.join('%d:%d' % (w, r) for w, r in n0.get('threads_rates', []))
                if role == 'auto' else ''))


def machine(desc, fx, tsv, slack, name, kernel, runs):
    node_curve, unequal, grouped = curves(desc)
    rec, ms, fixed, best = load(fx, name, runs)
    whole = all(n['sizes'][0]['achieved'] == n['sizes'][0]['target']
                for r in rec.values() for n in r['nodes'])
    say(name, whole and all(r['status'] == 'ok' for r in rec.values()),
        'every run ok, every node whole')
    auto = ms['auto1']
    say(name, auto <= slack * fixed[best], 'auto %d ms, %.3fx the best fixed count (%s workers, %d ms)'
        % (auto, auto / fixed[best], runs[best], fixed[best]))
    if kernel != '-':
        k = ms['kernel']
        if k > 1.01 * fixed[best]:
            say(name, auto < k, "auto %d ms, ahead of the kernel's quarter of the CPUs "
                "(%s workers, %d ms)" % (auto, kernel, k))
        else:  # the rule is as good as the best count here (a flat curve)
            say(name, auto <= slack * k, "auto %d ms, within %d%% of the kernel's quarter "
                "of the CPUs, as good as the best here (%s workers, %d ms)"
                % (auto, round((slack - 1) * 100), kernel, k))
    if not grouped:
        measured = [(node_curve[n['node']], w, r) for n in rec['auto1']['nodes']
                    for w, r in n['sizes'][0]['threads_rates']]
        off = [(w, r, rate(c, w)) for c, w, r in measured if abs(r - rate(c, w)) > 0.02 * rate(c, w)]
        say(name, measured and not off, 'all %d rates measured within 2%% of the curve%s' % (
            len(measured), ''.join(' (%d: %d, curve %.0f)' % o for o in off[:4])))
    if unequal and not grouped:
        per_node(name, rec['auto1'], node_curve)

    def what(r):
        return (r['sizes'][0]['ms'], [(n['sizes'][0]['threads_rates'],
                n['sizes'][0].get('threads_settled')) for n in r['nodes']])
    say(name, what(rec['auto1']) == what(rec['auto2']),
        'the same run twice: the same time, measures and choices')
    table(tsv, name, runs, ms, rec, best)


def noise(desc, fx, tsv, slack, name, wanted, runs):
    rec, ms, fixed, best = load(fx, name, runs)
    seeds = sorted((t for t in ms if t.startswith('noise')), key=lambda t: int(t[5:]))
    ok = [t for t in seeds if ms[t] <= slack * fixed[best] and rec[t]['status'] == 'ok']
    worst = max(seeds, key=lambda t: ms[t])
    say(name, len(ok) >= int(wanted), 'auto within 5%% of the best fixed count (%s workers, '
        '%d ms) with noise in %d of %d seeds (want %s; the worst, seed %s: %.3fx, counts %s)'
        % (runs[best], fixed[best], len(ok), len(seeds), wanted, worst[5:],
           ms[worst] / fixed[best], ' '.join(map(str, settled(rec[worst])))))
    with open(tsv, 'a') as f:
        f.write('%s\tauto-noise\tauto\t%d\t%.3f\t%d of %d within 5%%\t\n' % (
            name, ms[worst], ms[worst] / fixed[best], len(ok), len(seeds)))


if __name__ == '__main__':
    kind, desc, fx, tsv, slack, name, arg = sys.argv[1:8]
    runs = dict(a.split('=', 1) for a in sys.argv[8:])
    slack = 1 + float(slack) / 100
    (machine if kind == 'machine' else noise)(desc, fx, tsv, slack, name, arg, runs)
