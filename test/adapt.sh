#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The worker controller on every simulated machine (test/machines/adapt.list), on the
# simulated kernel's own clock (doc/simulator.md, "Time"): a run's time is what the
# machine's curve makes it, on any host, busy or idle, so these are verdicts, not
# figures. For each machine, 12000 2M pages a node, one run with each fixed total
# count of the list and the one the curve says is best, one with the kernel's rule,
# and two with auto:
#   - auto within 5% of the best fixed count, its measuring included;
#   - auto ahead of the kernel's quarter of the CPUs, where that rule is not the best;
#   - every rate auto measured within 2% of the curve at that count;
#   - the two auto runs alike: the same times, measures and choices.
# And the seeds' 1G machine (sim-12tb-1g): auto's 1G pages within 5% of the best of 1
# and 2 workers a node, and well inside the kernel's own parallel boot-time 18.3 s.
# A case a machine: TESTS=adapt:sim-knee. bench/adapt.sh runs the same comparison on
# the host's clock, with its spread. Writes test/out/adapt-check.tsv.
. "$(dirname "$0")/lib.sh"

HP=$HP_TEST_BIN
FX=$OUT/adapt-check
TSV=$OUT/adapt-check.tsv
PAGES=12000
SLACK=5

if [ -z "${HUGEPAR_LIST:-}" ]; then
	if [ ! -x "$HP" ]; then
		skip "adapt: needs hugepar-test (make hugepar-test)"
		echo "adapt: $(summary_line)"
		exit 0
	fi
	rm -rf "$FX"
	mkdir -p "$FX"
	printf 'machine\trole\tworkers\tms\tvs_best_fixed\tsettled\tmeasured\n' >"$TSV"
fi

# once NAME THREADS TAG [SIZE]: one run on a fresh fixture, its record kept as
# $FX/NAME.TAG.json; fails when the run does
once() {
	local m=$FX/$1.$3
	rm -rf "$m"
	"$TOP/test/mkfixture.sh" "$TOP/test/machines/$1.desc" "$m" || return 1
	HUGEPAR_SIM_CLOCK=virtual "$HP" --sysroot "$m" --simulate apply --config /dev/null \
		-d "$m/rec" --method=parallel \
		--cmdline "rd.hugepar.pages=${4:-2M}:$PAGES rd.hugepar.threads=$2 rd.hugepar.timeout=600" >"$m.out" 2>&1 &&
		cp "$m/rec/status.json" "$FX/$1.$3.json" && rm -rf "$m"
}

# judge NAME KERNEL TAG=THREADS...: the verdicts, as "pass|fail<TAB>check" lines
judge() {
	/usr/bin/python3 - "$TOP/test/machines/$1.desc" "$FX" "$TSV" "$SLACK" "$@" <<-'EOF'
		import json, sys
		desc, fx, tsv, slack, name, kernel = sys.argv[1:7]
		runs = dict(a.split('=', 1) for a in sys.argv[7:])
		slack = 1 + float(slack) / 100
		rec = {t: json.load(open('%s/%s.%s.json' % (fx, name, t))) for t in runs}
		curve = []
		for line in open(desc):
		    w = line.split()
		    if w[:3] == ['sim', 'rate', '2048']:
		        curve = [(int(a), float(b)) for a, b in (p.split(':') for p in w[3:])]

		def rate(k):  # the node's pages a second with k at work, as the simulator has it
		    if k < curve[0][0]:
		        return curve[0][1] * k / curve[0][0]
		    for (a, ra), (b, rb) in zip(curve, curve[1:]):
		        if a <= k < b:
		            return ra + (rb - ra) * (k - a) / (b - a)
		    return curve[-1][1]

		def say(ok, what):
		    print('%s\t%s: %s' % ('pass' if ok else 'fail', name, what))

		ms = {t: r['sizes'][0]['ms'] for t, r in rec.items()}
		whole = all(n['sizes'][0]['achieved'] == n['sizes'][0]['target']
		            for r in rec.values() for n in r['nodes'])
		say(whole and all(r['status'] == 'ok' for r in rec.values()),
		    'every run ok, every node whole')
		fixed = {t: m for t, m in ms.items() if t.startswith('fixed')}
		best = min(fixed, key=fixed.get)
		auto = ms['auto1']
		say(auto <= slack * fixed[best], 'auto %d ms, %.3fx the best fixed count (%s workers, %d ms)'
		    % (auto, auto / fixed[best], runs[best], fixed[best]))
		if kernel != '-':
		    k = ms['kernel']
		    if k > 1.01 * fixed[best]:
		        say(auto < k, "auto %d ms, ahead of the kernel's quarter of the CPUs "
		            "(%s workers, %d ms)" % (auto, kernel, k))
		    else:  # the rule is as good as the best count here (a flat curve)
		        say(auto <= slack * k, "auto %d ms, within %d%% of the kernel's quarter of "
		            "the CPUs, as good as the best here (%s workers, %d ms)"
		            % (auto, round((slack - 1) * 100), kernel, k))
		measured = [(w, r) for n in rec['auto1']['nodes'] for w, r in n['sizes'][0]['workers_rates']]
		off = [(w, r, rate(w)) for w, r in measured if abs(r - rate(w)) > 0.02 * rate(w)]
		say(measured and not off, 'all %d rates measured within 2%% of the curve%s' % (
		    len(measured), ''.join(' (%d: %d, curve %.0f)' % o for o in off[:4])))

		def what(r):
		    return (r['sizes'][0]['ms'], [(n['sizes'][0]['workers_rates'],
		            n['sizes'][0].get('workers_settled')) for n in r['nodes']])
		say(what(rec['auto1']) == what(rec['auto2']),
		    'the same run twice: the same time, measures and choices')
		with open(tsv, 'a') as f:
		    for t, m in sorted(ms.items(), key=lambda x: x[1]):
		        if t == 'auto2':
		            continue
		        role = 'auto' if t == 'auto1' else 'kernel' if t == 'kernel' else 'fixed'
		        n0 = rec[t]['nodes'][0]['sizes'][0]
		        f.write('%s\t%s\t%s\t%d\t%.3f\t%s\t%s\n' % (
		            name, role, runs[t], m, m / fixed[best],
		            ','.join(str(n['sizes'][0].get('workers_settled', '')) for n in rec[t]['nodes'])
		            if role == 'auto' else '',
		            ' '.join('%d:%d' % (w, r) for w, r in n0.get('workers_rates', []))
		            if role == 'auto' else ''))
	EOF
}

# machine NAME KERNEL FIXED...
machine() {
	local name=$1 kernel=$2 t runs=() best nodes cpus
	shift 2
	wanted "$name" || return 0
	# the count the curve says is best, a node's CPUs at most, on every node
	read -r nodes cpus < <(awk '$1 == "node" {
		n++; c = 0; k = split($4, r, ",")
		for (i = 1; i <= k; i++) { if (split(r[i], ab, "-") == 2) c += ab[2] - ab[1] + 1; else c++ }
	} END {print n, c}' "$TOP/test/machines/$name.desc")
	best=$(awk -v cpus="$cpus" '$1 == "sim" && $2 == "rate" && $3 == 2048 {
		for (i = 4; i <= NF; i++) { split($i, p, ":"); if (p[1] + 0 <= cpus + 0 && p[2] + 0 > r + 0) { r = p[2]; b = p[1] } }
		print b }' "$TOP/test/machines/$name.desc")
	local counts=("$@")
	[[ " ${counts[*]} " == *" $((best * nodes)) "* ]] || counts+=($((best * nodes)))
	for t in "${counts[@]}"; do runs+=("fixed$t=$t"); done
	runs+=(auto1=auto auto2=auto)
	[ "$kernel" != - ] && runs+=("kernel=$kernel")
	for t in "${runs[@]}"; do
		if ! once "$name" "${t#*=}" "${t%%=*}"; then
			fail "$name: the run with ${t#*=} workers failed ($FX/$name.${t%%=*}.out)"
			return
		fi
	done
	while IFS=$'\t' read -r v what; do
		if [ "$v" = pass ]; then pass "$what"; else fail "$what"; fi
	done < <(judge "$name" "$kernel" "${runs[@]}")
}

# The list: name, the kernel's rule's count, fixed counts
while read -r name kernel fixed; do
	case $name in '' | '#'*) continue ;; esac
	# shellcheck disable=SC2086 # the counts, one word each
	machine "$name" "$kernel" $fixed
done <"$TOP/test/machines/adapt.list"

# The seeds' 1G machine: 1472 1G pages a node; 1 and 2 workers a node, and auto
if wanted sim-12tb-1g; then
	PAGES=1472
	ok=1
	for t in fixed8=8 fixed16=16 auto1=auto; do
		once sim-12tb-1g "${t#*=}" "${t%%=*}" 1G || ok=""
	done
	if [ -z "$ok" ]; then
		fail "sim-12tb-1g: a run failed ($FX/sim-12tb-1g.*.out)"
	else
		read -r a f8 f16 < <(/usr/bin/python3 -c '
import json, sys
print(*(json.load(open("%s/sim-12tb-1g.%s.json" % (sys.argv[1], t)))["sizes"][1]["ms"]
        for t in ("auto1", "fixed8", "fixed16")))' "$FX")
		best=$((f8 < f16 ? f8 : f16))
		check "sim-12tb-1g: auto's 1G pages in $a ms, within $SLACK% of the best of 1 and 2 workers a node ($f8, $f16 ms)" \
			test $((a * 100)) -le $((best * (100 + SLACK)))
		check "sim-12tb-1g: auto's 1G pages in $a ms, inside the kernel's own 18.3 s" test "$a" -lt 18300
	fi
fi

echo "adapt: $(summary_line)"
