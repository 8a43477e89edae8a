#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Command-line and settings tests on a fixture tree: usage errors, config files,
# conf.d order, precise messages for bad input.
. "$(dirname "$0")/lib.sh"

HP=$TOP/hugepar
FX=$OUT/fixtures/cli
"$TOP/test/mkfixture.sh" "$TOP/test/machines/2n-144cpu.desc" "$FX"
plan() { "$HP" plan --sysroot "$FX" "$@"; }

"$HP" >/dev/null 2>&1; expect_eq "no command: exit 2" $? 2
"$HP" frob >/dev/null 2>&1; expect_eq "unknown command: exit 2" $? 2
"$HP" plan --method=fast >/dev/null 2>&1; expect_eq "bad --method: exit 2" $? 2
"$HP" plan --bogus >/dev/null 2>&1; expect_eq "unknown option: exit 2" $? 2
check "--help prints usage" sh -c "'$HP' --help | grep -q '^Usage:'"
check "--version" sh -c "'$HP' --version | grep -q '^hugepar [0-9]'"
"$HP" status --record-dir "$OUT/none" >/dev/null 2>"$OUT/cli-status.err"
expect_eq "status without a record: exit 3" $? 3
check "status without a record: says where" grep -q "no record in $OUT/none" "$OUT/cli-status.err"
"$HP" plan --sysroot "$OUT/nowhere" --config /dev/null >/dev/null 2>"$OUT/cli-sysroot.err"
expect_eq "missing sysroot: exit 1" $? 1
check "missing sysroot: says why" grep -q "cannot read the topology under $OUT/nowhere" "$OUT/cli-sysroot.err"
rm -rf "$OUT/cli-rec"
"$HP" apply --sysroot "$OUT/nowhere" --config /dev/null --cmdline "rd.hugepar.pages=2M:8" \
	--record-dir "$OUT/cli-rec" >/dev/null 2>&1
expect_eq "apply, unreadable machine: exit 1" $? 1
expect_eq "apply, unreadable machine: record says failed" \
	"$(jq_py "$OUT/cli-rec/status.json" "r['status'] + ': ' + r['error']")" \
	"failed: cannot read the topology: /sys/devices/system/cpu/online: No such file or directory"
expect_eq "apply, unreadable machine: record keeps the settings" \
	"$(jq_py "$OUT/cli-rec/status.json" "r['settings']['pages'][0]['entry']")" "2M:8"
check "apply, unreadable machine: record format" python3 "$TOP/test/check-record.py" \
	"$TOP/doc/record.md" "$OUT/cli-rec/status.json"

# A config file with good and bad lines: each problem names file:line, key and value.
C=$OUT/cli.conf
rm -rf "$C" "$C.d"
cat >"$C" <<'CONF'
# comment
pages = 2M:1024 2M:zz@0 1G:2@1  # trailing comment
bogus = 1
threads = many
mode=exact
reserve = 1G
timeout = 0
no equals sign
pages = 4M:1 2M:8@9
CONF
plan --config "$C" --cmdline "" >"$OUT/cli-conf.out" 2>"$OUT/cli-conf.err"
expect_eq "bad config: exit 64 (plan still made)" $? 64
for want in "$C:2: pages=2M:zz@0: amount 'zz' is malformed" \
	"$C:3: bogus=1: unknown key" \
	"$C:4: threads=many: expected 'auto' or a count from 1 to 4096" \
	"$C:7: timeout=0: expected seconds, more than 0 and at most 3600" \
	"$C:8: no equals sign=: expected KEY = VALUE" \
	"$C:9: pages=4M:1: page size 4M is not offered by the kernel (it offers 2M 1G)" \
	"$C:9: pages=2M:8@9: node 9 does not exist"; do
	check "message: $want" grep -qF "$want" "$OUT/cli-conf.err"
done
expect_eq "bad config: 7 messages" "$(wc -l <"$OUT/cli-conf.err")" 7
check "valid entries kept" grep -q "^0 *2M *0 *1024 *1024" "$OUT/cli-conf.out"
check "valid 1G entry kept" grep -q "^1 *1G *0 *2 *2" "$OUT/cli-conf.out"
check "mode and reserve taken" grep -q "^Plan: mode exact, reserve 1G per node" "$OUT/cli-conf.out"

# conf.d in name order, then the command line; later wins.
cat >"$C" <<'CONF'
pages = 2M:100
threads = 2
CONF
mkdir -p "$C.d"
echo "threads = 3" >"$C.d/20-b.conf"
echo "threads = 5" >"$C.d/10-a.conf"
echo "threads = 9" >"$C.d/30-c.conf.disabled"
echo "pages = 2M:7@1" >"$C.d/15-p.conf"
plan --config "$C" --cmdline "" --json >"$OUT/cli-merge.json" 2>&1
expect_eq "conf.d: last in name order wins" "$(jq_py "$OUT/cli-merge.json" "r['settings']['threads']")" 3
expect_eq "conf.d: sources in order" "$(jq_py "$OUT/cli-merge.json" "','.join(x.rsplit('/',1)[-1] for x in r['settings']['sources'])")" "cli.conf,10-a.conf,15-p.conf,20-b.conf"
expect_eq "per-node override" "$(jq_py "$OUT/cli-merge.json" "[n['sizes'][0]['target'] for n in r['plan']['nodes']]")" "[100, 7]"
plan --config "$C" --cmdline "rd.hugepar.threads=6 rd.hugepar.pages=2M:50@0" --json >"$OUT/cli-merge2.json" 2>&1
expect_eq "command line wins" "$(jq_py "$OUT/cli-merge2.json" "r['plan']['threads']")" 6
expect_eq "command line entry wins per node" "$(jq_py "$OUT/cli-merge2.json" "[n['sizes'][0]['target'] for n in r['plan']['nodes']]")" "[50, 7]"
plan --config "$C" --cmdline "rd.hugepar=0" >"$OUT/cli-off.out" 2>&1
check "off switch shown" grep -q "disabled: nothing will be done" "$OUT/cli-off.out"

echo "cli: $(summary_line)"
