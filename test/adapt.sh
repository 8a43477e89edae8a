#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The worker controller on every simulated machine (test/machines/adapt.list), on the
# simulated kernel's own clock (doc/simulator.md, "Time"): a run's time is what the
# machine's curves make it, on any host, busy or idle, so these are verdicts, not
# figures (the figures: doc/threads.md). A case a machine: 12000 2M pages a node (the
# list may give fewer), one run with each fixed total count of the list and the one
# the curve says is best, one with the kernel's rule, and two with auto:
#   - auto within 5% of the best fixed count, its measuring included;
#   - auto ahead of the kernel's quarter of the CPUs, where that rule is not the best;
#   - every rate auto measured within 2% of the node's curve (not where nodes share
#     a cap: a node's rate is then its group's too);
#   - where nodes have curves of their own and share no cap, each node settled within
#     5% of its own curve's best rate, each node's count shown;
#   - the two auto runs alike: the same times, measures and choices.
# A machine's -noise case: auto with the machine's rates off by up to 5% (the machine
# line `noise 5 SEED`) for 20 seeds, each against the best fixed count without noise:
# at least 19 within 5%. And the seeds' 1G machine (sim-12tb-1g). bench/adapt.sh runs
# the same comparison on the host's clock. Writes test/out/adapt-check.tsv.
. "$(dirname "$0")/lib.sh"

HP=$HP_TEST_BIN
FX=$OUT/adapt-check
TSV=$OUT/adapt-check.tsv
SLACK=5
SEEDS=20
NOISE=5

requires() {
	[ -x "$HP" ] || { echo "needs hugepar-test (make hugepar-test)"; return 1; }
}
prepare() {
	rm -rf "$FX" "$ONCE"
	mkdir -p "$FX"
	printf 'machine\trole\tworkers\tms\tvs_best_fixed\tsettled\tmeasured\n' >"$TSV"
}

# machine_file NAME: test/machines/NAME.desc, or one the suite wrote in $FX
machine_file() {
	if [ -f "$FX/$1.desc" ]; then echo "$FX/$1.desc"; else echo "$TOP/test/machines/$1.desc"; fi
}

# template NAME: the machine's fixture, made once ($FX/NAME.fixture); each run
# starts from a copy of it (mkfixture.sh takes seconds for 64 nodes, a copy
# milliseconds)
template() {
	rm -rf "$FX/$1.fixture"
	"$TOP/test/mkfixture.sh" "$(machine_file "$1")" "$FX/$1.fixture"
}

# sim_run NAME THREADS TAG PAGES [SIZE [MACHINE-LINE]]: one run on a fresh fixture
# (with a line added to its machine file), its record kept as $FX/NAME.TAG.json
sim_run() {
	local m=$FX/$1.$3
	rm -rf "$m"
	once "fixture-$1" template "$1" || return 1
	cp -a "$FX/$1.fixture" "$m" || return 1
	[ -z "${6:-}" ] || echo "$6" >>"$m/.sim/machine"
	HUGEPAR_SIM_CLOCK=virtual "$HP" --sysroot "$m" --simulate apply --config /dev/null \
		-d "$m/rec" --method=parallel \
		--cmdline "rd.hugepar.pages=${5:-2M}:$4 rd.hugepar.threads=$2 rd.hugepar.timeout=3600" >"$m.out" 2>&1 &&
		cp "$m/rec/status.json" "$FX/$1.$3.json" && rm -rf "$m"
}

# machine_of NAME: the list's line for NAME, as MKERNEL, MPAGES and MFIXED
machine_of() {
	local name kernel pages fixed
	while read -r name kernel pages fixed; do
		[ "$name" = "$1" ] || continue
		MKERNEL=$kernel MPAGES=$pages MFIXED=$fixed
		return 0
	done <"$TOP/test/machines/adapt.list"
	return 1
}

# best_count NAME: the total count the curve says is best, a node's CPUs at most
best_count() {
	awk '$1 == "node" {
		n++; c = 0; k = split($4, rg, ",")
		for (i = 1; i <= k; i++) { if (split(rg[i], ab, "-") == 2) c += ab[2] - ab[1] + 1; else c++ }
		if (n == 1) cpus = c
	}
	$1 == "sim" && $2 == "rate" && $3 == 2048 {
		for (i = 4; i <= NF; i++) { split($i, p, ":"); if (p[1] + 0 <= cpus + 0 && p[2] + 0 > r + 0) { r = p[2]; b = p[1] } }
	}
	END { print b * n }' "$TOP/test/machines/$1.desc"
}

# fixed_runs NAME: the runs with fixed counts (the list's and the best one's), noted
# in $FX/NAME.fixed as TAG=THREADS words
fixed_runs() {
	local t runs=() best
	machine_of "$1" || return 1
	best=$(best_count "$1")
	for t in $MFIXED; do runs+=("fixed$t=$t"); done
	[[ " $MFIXED " == *" $best "* ]] || runs+=("fixed$best=$best")
	for t in "${runs[@]}"; do
		sim_run "$1" "${t#*=}" "${t%%=*}" "$MPAGES" || return 1
	done
	echo "${runs[*]}" >"$FX/$1.fixed"
}

# verdicts: "pass|fail<TAB>check" lines from the judge, counted
verdicts() {
	local v what
	while IFS=$'\t' read -r v what; do
		if [ "$v" = pass ]; then pass "$what"; else fail "$what"; fi
	done
}

# t_machine NAME: auto against the fixed counts and the kernel's rule on NAME
t_machine() {
	local runs t
	machine_of "$1" || { fail "not in test/machines/adapt.list"; return; }
	once "fixed-$1" fixed_runs "$1" || { fail "a run with a fixed count failed ($FX/$1.*.out)"; return; }
	read -ra runs <"$FX/$1.fixed"
	runs+=(auto1=auto auto2=auto)
	[ "$MKERNEL" != - ] && runs+=("kernel=$MKERNEL")
	for t in "${runs[@]}"; do
		[[ $t == fixed* ]] && continue
		sim_run "$1" "${t#*=}" "${t%%=*}" "$MPAGES" ||
			{ fail "the run with ${t#*=} workers failed ($FX/$1.${t%%=*}.out)"; return; }
	done
	verdicts < <(/usr/bin/python3 "$TOP/test/adapt-judge.py" machine \
		"$TOP/test/machines/$1.desc" "$FX" "$TSV" "$SLACK" "$1" "$MKERNEL" "${runs[@]}")
}

# t_noise NAME: auto with noise, SEEDS seeds, against the best fixed count without
t_noise() {
	local runs seed
	machine_of "$1" || { fail "not in test/machines/adapt.list"; return; }
	once "fixed-$1" fixed_runs "$1" || { fail "a run with a fixed count failed ($FX/$1.*.out)"; return; }
	read -ra runs <"$FX/$1.fixed"
	# two seeds at a time: a run on the simulated clock leaves a CPU idle while it
	# waits on a look or a handoff, and its figures are its own whatever runs beside
	for ((seed = 1; seed <= SEEDS; seed++)); do
		sim_run "$1" auto "noise$seed" "$MPAGES" 2M "noise $NOISE $seed" &
		if ((seed % 2 == 0 || seed == SEEDS)); then wait; fi
	done
	for ((seed = 1; seed <= SEEDS; seed++)); do
		[ -f "$FX/$1.noise$seed.json" ] ||
			{ fail "the run of seed $seed failed ($FX/$1.noise$seed.out)"; return; }
		runs+=("noise$seed=auto")
	done
	verdicts < <(/usr/bin/python3 "$TOP/test/adapt-judge.py" noise \
		"$TOP/test/machines/$1.desc" "$FX" "$TSV" "$SLACK" "$1" "$((SEEDS - SEEDS / 20))" \
		"${runs[@]}")
}

# t_1g: the seeds' 1G machine, 1472 1G pages a node; 1 and 2 workers a node, and auto
t_1g() {
	local t a f8 f16 best
	for t in fixed8=8 fixed16=16 auto1=auto; do
		sim_run sim-12tb-1g "${t#*=}" "${t%%=*}" 1472 1G ||
			{ fail "a run failed ($FX/sim-12tb-1g.*.out)"; return; }
	done
	read -r a f8 f16 < <(/usr/bin/python3 -c '
import json, sys
print(*(json.load(open("%s/sim-12tb-1g.%s.json" % (sys.argv[1], t)))["sizes"][1]["ms"]
        for t in ("auto1", "fixed8", "fixed16")))' "$FX")
	best=$((f8 < f16 ? f8 : f16))
	check "auto's 1G pages in $a ms, within $SLACK% of the best of 1 and 2 workers a node ($f8, $f16 ms)" \
		test $((a * 100)) -le $((best * (100 + SLACK)))
	# the kernel's own parallel boot-time allocation of the same (doc/threads.md)
	check "auto's 1G pages in $a ms, inside the kernel's own time (doc/threads.md)" \
		test "$a" -lt "$(sed -n 's/^kernel-1g-ms //p' "$TOP/test/machines/adapt.list")"
}

# t_256n: the simulated clock at its largest: 256 nodes of 16 CPUs, 4096 workers
# (threads = 4096), 200 pages a node; every node whole (how long it takes this host:
# doc/simulator.md, "Time")
t_256n() {
	local d=$FX/sim-256n.desc n
	{
		echo "sizes 2048 1048576"
		echo "release 6.19.0"
		for ((n = 0; n < 256; n++)); do
			echo "node $n cpus $((n * 16))-$((n * 16 + 15)) mem 16G free 15G"
		done
		echo "sim rate 2048 1:100 2:190 4:350 8:620 16:1050"
	} >"$d"
	sim_run sim-256n 4096 big 200 2M || { fail "the run failed ($FX/sim-256n.big.out)"; return; }
	expect_eq "status, workers, pages by workers, nodes whole" \
		"$(/usr/bin/python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); s = j["sizes"][0]
print(j["status"], s["threads"], s["pages_by_threads"], sum(n["sizes"][0]["achieved"] == 200 for n in j["nodes"]))' "$FX/sim-256n.big.json")" \
		"ok 4096 51200 256"
}

# What each machine stands for (its .desc says more)
declare -A ABOUT=(
	[sim-skylake]="the seeds' Skylake, 2 nodes of 72 CPUs"
	[sim-cascadelake]="the seeds' Cascade Lake, 2 nodes of 96 CPUs"
	[sim-knee]="a rate that peaks at a quarter of the CPUs"
	[sim-growing]="small nodes whose rate grows up to every CPU"
	[sim-lockbound]="nodes bound by a lock, best at 2 workers"
	[sim-smallnodes]="8 nodes of 6 CPUs, best at 4"
	[sim-knee6]="a knee at 6 workers, between powers of two"
	[sim-flat]="a rate flat from one worker"
	[sim-8n-knee3]="two sockets of four nodes, knee at 3 a node"
	[sim-8n-knee6]="two sockets of four nodes, knee at 6 a node"
	[sim-16n-knee12]="16 nodes, knee at 12 a node"
	[sim-16n-flat]="16 nodes, flat"
	[sim-peak11]="a sharp peak at 11 between 8 and 16, both far below it"
	[sim-unequal]="nodes of three curves and one without CPUs"
	[sim-sockets]="two sockets of four nodes sharing a cap on their rate"
	[sim-32n-256cpu]="the seeds' 32 nodes of 8 CPUs, best at 5 a node"
	[sim-64n]="64 nodes of 4 CPUs searched at once, best at 3 a node"
)
# The machines of machines as they are (a sharp peak, unequal nodes, sockets, many
# nodes) run their 20 noisy runs in make check; the others', for make check-all.
QUICK_NOISE=" sim-peak11 sim-unequal sim-sockets sim-32n-256cpu sim-64n "
while read -r name _; do
	case $name in '' | '#'* | kernel-1g-ms) continue ;; esac
	tcase "$name" "auto within 5% of the best fixed count: ${ABOUT[$name]:-}" t_machine "$name"
	if [[ $QUICK_NOISE == *" $name "* ]]; then
		tcase "$name-noise" "with 5% noise, 19 of 20 seeds within 5%: ${ABOUT[$name]:-}" t_noise "$name"
	else
		tcase_long "$name-noise" "with 5% noise, 19 of 20 seeds within 5%: ${ABOUT[$name]:-}" t_noise "$name"
	fi
done <"$TOP/test/machines/adapt.list"
tcase sim-12tb-1g "the seeds' 1G machine: auto within 5% of 1 or 2 workers a node" t_1g
tcase_long sim-256n "256 nodes of 16 CPUs, 4096 workers, on the simulated clock: every node whole" t_256n

run_cases
echo "adapt: $(summary_line)"
