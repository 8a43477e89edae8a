#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Golden tests: run `hugepar plan` on fixture trees made from test/machines/*.desc and
# compare the text and JSON with test/golden/. HUGEPAR_REGEN=1 rewrites the expected
# files (review the diff before committing them). A case is a machine (its name);
# a pair of machines NAME-a and NAME-b is a case NAME too.
. "$(dirname "$0")/lib.sh"

run_golden() { # BIN LABEL
	local bin=$1 label=$2 d n fx
	for d in "$TOP"/test/machines/*.desc; do
		n=$(basename "$d" .desc)
		wanted "$n" || continue
		fx=$OUT/fixtures/$n
		"$TOP/test/mkfixture.sh" "$d" "$fx" || { fail "$n: $label: fixture"; continue; }
		for fmt in txt json; do
			local args=() got=$OUT/golden-$label-$n.$fmt want=$TOP/test/golden/$n.$fmt
			[ $fmt = json ] && args=(--json)
			"$bin" plan --sysroot "$fx" --config /dev/null "${args[@]}" >"$got" 2>"$got.err"
			cat "$got.err" >>"$got"
			if [ "${HUGEPAR_REGEN:-}" = 1 ] && [ "$label" = plan ]; then
				mkdir -p "$TOP/test/golden"
				cp "$got" "$want"
			fi
			if diff -u "$want" "$got" >"$got.diff"; then
				pass "$n: $label.$fmt"
			else
				fail "$n: $label.$fmt (diff in $got.diff)"
				head -20 "$got.diff"
			fi
		done
	done
}

run_golden "$HP_BIN" plan

# Pairs of machines that differ as two boots of one machine do (NAME-a, NAME-b): the
# same targets on every node and size.
for a in "$TOP"/test/machines/*-a.desc; do
	n=$(basename "$a" -a.desc)
	[ -f "$TOP/test/machines/$n-b.desc" ] || continue
	wanted "$n" || continue
	for s in a b; do
		"$TOP/test/mkfixture.sh" "$TOP/test/machines/$n-$s.desc" "$OUT/fixtures/pair-$n-$s"
		"$HP_BIN" plan --sysroot "$OUT/fixtures/pair-$n-$s" --config /dev/null --json \
			>"$OUT/golden-pair-$n-$s.json" 2>/dev/null
	done
	t() { jq -c '[.plan.nodes[] | [.sizes[].target]]' "$OUT/golden-pair-$n-$1.json"; }
	expect_eq "$n: two boots: the same targets" "$(t a)" "$(t b)"
done
if [ -z "${HUGEPAR_SKIP_SAN:-}" ] && [ -x "$TOP/build/hugepar-san" ]; then
	run_golden "$TOP/build/hugepar-san" sanitizers
fi
echo "golden: $(summary_line)"
