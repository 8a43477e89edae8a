#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Prometheus alerting rules (config/hugepar-alerts.rules.yml) on hugepar's own
# gauges: runs on the simulated kernel make the records, `hugepar status
# --format=prometheus` their gauges (with the simulated pools now), and `promtool
# test rules` checks which alerts fire, with their labels and annotations
# (test/promtool-test.py writes its test file). TESTS=alerts:CASE runs only its work.
. "$(dirname "$0")/lib.sh"

tcase rules "promtool check rules passes; the rules read only gauges hugepar and node_exporter write"
tcase healthy "an ok run on two nodes: no alert fires"
tcase short "node 1's 2M write refused: HugeparNodeShort for it, and HugeparRunPartial"
tcase capped "a run keep_free capped: HugeparRunPartial, no node short"
tcase failed "every write refused: HugeparRunFailed, and both nodes short"
tcase unread "a run that could not read the machine: HugeparRunFailed only, not stale"
tcase changed "node 0's pool written after the run: HugeparPoolsChanged"
tcase missing "a textfile collector without hugepar's gauges: HugeparRecordMissing"
tcase stale "a record of a run an hour before the boot: HugeparRecordStale; 2 minutes: none"

RULES=$TOP/config/hugepar-alerts.rules.yml
# Debian's promtool, fetched by make deps (not the prometheus package installed)
PROMTOOL=${PROMTOOL:-$TOP/build/promtool/promtool}
D=$OUT/alerts
HOST=host1:9100
# node_exporter's gauges that the rules may read beside hugepar's
NODE_GAUGES=(node_boot_time_seconds node_textfile_mtime_seconds node_textfile_scrape_error)

requires() {
	[ -x "$PROMTOOL" ] || { echo "no $PROMTOOL (make deps: scripts/fetch-promtool.sh)"; return 1; }
	/usr/bin/python3 -c "import prometheus_client" 2>/dev/null ||
		{ echo "no python3-prometheus-client (make deps)"; return 1; }
}
prepare() {
	rm -rf "$D" && mkdir -p "$D"
	printf '%s\n' "sizes 2048 1048576" "release 6.12.0" "node 0 cpus 0-1 mem 8G free 7G" \
		"node 1 cpus 2-3 mem 8G free 7G" >"$D/machine.desc"
}

# apply NAME FAULT ARG...: a fixture of the machine ($D/NAME) and the record of a run
# on it with HUGEPAR_FAULT=FAULT ("": none) in $D/NAME.rec (the cases check the
# record's status, not the run's exit)
apply() {
	local n=$1 fault=$2
	shift 2
	"$TOP/test/mkfixture.sh" "$D/machine.desc" "$D/$n" || return
	HUGEPAR_FAULT=$fault "$HP_TEST_BIN" --sysroot "$D/$n" --simulate apply --config /dev/null \
		-d "$D/$n.rec" "$@" >"$D/$n.apply" 2>&1
	return 0
}
# prom NAME: hugepar's gauges of NAME's record, the simulated pools now beside them
prom() {
	"$HP_TEST_BIN" --sysroot "$D/$1" --simulate status -d "$D/$1.rec" --format=prometheus \
		>"$D/$1.prom" 2>"$D/$1.prom.err"
}
# cells NAME: the record's status, then NODE:SIZE:TARGET:ACHIEVED:STATUS of each cell asked for
cells() {
	jq -r '[.status] + [.nodes[] | .node as $n | .sizes[] | select(.requested != null) |
		"\($n):\(.size):\(.target):\(.achieved):\(.status)"] | join(" ")' "$D/$1.rec/status.json"
}
started() { jq -r .started_unix "$D/$1.rec/status.json"; }

# alerts NAME BOOT WHAT: promtool's test of the rules on NAME's gauges ($D/NAME.prom;
# none when there is none) on a host booted at BOOT (Unix time), 20 minutes on,
# against the alerts on standard input (test/promtool-test.py); WHAT says which
alerts() {
	local prom="" t=$D/$1.test.json
	[ -f "$D/$1.prom" ] && prom=$D/$1.prom
	if ! /usr/bin/python3 "$TOP/test/promtool-test.py" "$RULES" "$prom" "$2" 20m "$t" \
		>"$D/$1.promtool" 2>&1; then
		fail "test/promtool-test.py: $(tail -n 1 "$D/$1.promtool")"
		return
	fi
	if "$PROMTOOL" test rules "$t" >"$D/$1.promtool" 2>&1; then
		pass "promtool test rules: $3"
	else
		fail "promtool test rules: $3 (see $D/$1.promtool)"
		sed -n '/FAILED/,$p' "$D/$1.promtool" | head -n 40
	fi
}

# The alerts as they fire on host1, each with its annotations (continued on lines
# that begin with a space), for test/promtool-test.py.
# exp_short NODE SIZE ACHIEVED PLANNED
exp_short() {
	cat <<-EOF
	HugeparNodeShort node=$1 size=$2 severity=critical
	summary: hugepar: node $1 of $HOST is short of $2 huge pages
	description: The boot run left $3 $2 pages on NUMA node $1 of $HOST, of the $4 it
	  planned: services that need them there may not start, or run without them. Run
	  \`hugepar status\` on the host: it says why the node is short (free memory, the
	  deadline, a refused write) and what to change.
	EOF
}
exp_failed() {
	cat <<-EOF
	HugeparRunFailed status=failed severity=critical
	summary: hugepar: the boot run failed on $HOST
	description: hugepar's run at this boot of $HOST failed: it reserved none of the huge
	  pages needed, could not read the machine, or could not put nr_overcommit_hugepages
	  back. Services that need huge pages there may not have them. Run \`hugepar status\`
	  on the host: its error line and the lines per node say why.
	EOF
}
exp_partial() {
	cat <<-EOF
	HugeparRunPartial status=partial severity=warning
	summary: hugepar: the boot run on $HOST was partial
	description: hugepar's run at this boot of $HOST met only part of its settings: a
	  node short of its plan, a node capped by the memory it keeps free (keep_free), or a
	  bad setting skipped. Run \`hugepar status\` on the host: it names each short or
	  capped node and each bad setting. Fix the settings, then build every kernel's
	  initramfs again (update-initramfs -u -k all, or dracut --regenerate-all --force)
	  for the next boot.
	EOF
}
# exp_changed NODE SIZE LIVE ACHIEVED
exp_changed() {
	cat <<-EOF
	HugeparPoolsChanged node=$1 size=$2 severity=warning
	summary: hugepar: the $2 pool of node $1 on $HOST changed since the boot
	description: NUMA node $1 of $HOST held $3 $2 pages when hugepar's textfile was
	  written, and $4 when the boot run ended: something changed the pool after the
	  boot (sysctl vm.nr_hugepages, another tool, memory hotplug). Run \`hugepar status
	  --check\` on the host to compare the pools now with the boot's.
	EOF
}
exp_missing() {
	cat <<-EOF
	HugeparRecordMissing severity=warning
	summary: hugepar: no record from $HOST
	description: node_exporter on $HOST reads a textfile directory but has no hugepar
	  gauges: hugepar-verify.service wrote no textfile there (hugepar not installed or
	  not in the initramfs, no record of a run at boot, textfile set to another path or
	  none), or node_exporter could not read it (node_textfile_scrape_error, now 0, is 1
	  then). Run \`hugepar status\` and \`systemctl status hugepar-verify.service\` on
	  the host.
	EOF
}
# exp_stale AGE: the record's run started AGE (humanizeDuration) before the boot
exp_stale() {
	cat <<-EOF
	HugeparRecordStale severity=warning
	summary: hugepar: the record of $HOST is from an earlier boot
	description: hugepar's gauges on $HOST are of a run that started $1 before this
	  boot: hugepar recorded no run at this boot, and node_exporter still reads the last
	  boot's textfile. Check that hugepar is in the initramfs (lsinitramfs, or lsinitrd
	  with dracut, on the running kernel's initramfs) and run \`hugepar status\` and
	  \`systemctl status hugepar-verify.service\` on the host.
	EOF
}

t_rules() {
	local names want
	check "promtool check rules" sh -c "'$PROMTOOL' check rules '$RULES' >'$D/check.out' 2>&1"
	apply rules "" --cmdline "rd.hugepar.pages=2M:100,1G:1@1" && prom rules
	want=$(sed -n 's/^# TYPE \([^ ]*\) .*/\1/p' "$D/rules.prom")
	names=$(grep -E 'expr:|\| query' "$RULES" | grep -oE '(hugepar|node)_[a-z_]+' | sort -u)
	expect_eq "every gauge the rules read is hugepar's or node_exporter's" \
		"$(comm -23 <(echo "$names") <(printf '%s\n' "$want" "${NODE_GAUGES[@]}" | sort -u) | tr '\n' ' ')" ""
}
t_healthy() {
	apply healthy "" --cmdline "rd.hugepar.pages=2M:100,1G:1@1" && prom healthy
	expect_eq "the run" "$(cells healthy)" "ok 0:2M:100:100:ok 1:2M:100:100:ok 1:1G:1:1:ok"
	alerts healthy "$(($(started healthy) - 5))" "none fires" </dev/null
}
t_short() {
	apply short "write-node:2=ENOMEM" --method=serial --cmdline "rd.hugepar.pages=2M:100" && prom short
	expect_eq "the run" "$(cells short)" "partial 0:2M:100:100:ok 1:2M:100:0:failed"
	alerts short "$(($(started short) - 5))" "HugeparNodeShort for node 1 2M, HugeparRunPartial" \
		< <(exp_short 1 2M 0 100; exp_partial)
}
t_capped() {
	apply capped "" --cmdline "rd.hugepar.pages=2M:100 rd.hugepar.keep_free=7100M" && prom capped
	expect_eq "the run" "$(cells capped)" "partial 0:2M:34:34:capped 1:2M:34:34:capped"
	alerts capped "$(($(started capped) - 5))" "HugeparRunPartial only" < <(exp_partial)
}
t_failed() {
	apply failed "write-node=ENOMEM" --method=serial --cmdline "rd.hugepar.pages=2M:100" && prom failed
	expect_eq "the run" "$(cells failed)" "failed 0:2M:100:0:failed 1:2M:100:0:failed"
	alerts failed "$(($(started failed) - 5))" "HugeparRunFailed, HugeparNodeShort for both nodes" \
		< <(exp_short 0 2M 0 100; exp_short 1 2M 0 100; exp_failed)
}
# The record of a run that read nothing has no start time: its gauge is 0
t_unread() {
	"$HP_BIN" apply --sysroot "$D/nowhere" --config /dev/null -d "$D/unread.rec" \
		--cmdline "rd.hugepar.pages=2M:100" >"$D/unread.apply" 2>&1
	"$HP_BIN" status --sysroot "$D/nowhere" -d "$D/unread.rec" --format=prometheus \
		>"$D/unread.prom" 2>/dev/null
	expect_eq "the run" "$(cells unread)" "failed"
	check "its start time: 0" grep -qx "hugepar_run_start_time_seconds 0" "$D/unread.prom"
	alerts unread "$(date +%s)" "HugeparRunFailed only" < <(exp_failed)
}
t_changed() {
	apply changed "" --cmdline "rd.hugepar.pages=2M:100" || return
	"$HP_SIMCTL" "$D/changed" write 2048 0 40 && prom changed
	expect_eq "the run" "$(cells changed)" "ok 0:2M:100:100:ok 1:2M:100:100:ok"
	check "node 0's pool now: 40" grep -qx 'hugepar_live_pages{node="0",size="2M"} 40' "$D/changed.prom"
	alerts changed "$(($(started changed) - 5))" "HugeparPoolsChanged for node 0 2M" \
		< <(exp_changed 0 2M 40 100)
}
t_missing() {
	alerts missing "$(date +%s)" "HugeparRecordMissing" < <(exp_missing)
}
# A run an hour before the boot (the last boot's textfile), then one whose wall clock
# was 2 minutes behind the boot's (inside the rule's margin)
t_stale() {
	apply stale "" --cmdline "rd.hugepar.pages=2M:100" && prom stale
	expect_eq "the run" "$(cells stale)" "ok 0:2M:100:100:ok 1:2M:100:100:ok"
	alerts stale "$(($(started stale) + 3600))" "HugeparRecordStale, an hour" < <(exp_stale "1h 0m 0s")
	alerts stale "$(($(started stale) + 120))" "2 minutes: none fires" </dev/null
}

run_cases
echo "alerts: $(summary_line)"
