#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What an operator types and reads: settings written as people write them, the key
# meant for one that is not, a next step for every shortfall, the plan of the next
# boot, each command's help, the shipped settings file. On fixture trees and the
# simulated kernel. TESTS=operator:CASE runs only its work.
. "$(dirname "$0")/lib.sh"

tcase lists "'2M:512, 1G:4', '2M:512,1G:4' and '2M:512 1G:4' are one list, in a file and on the command line"
tcase keys "a key close to one, or another name for one, is answered with the key meant"
tcase old-key "reserve still works as keep_free, and says which key to use"
tcase rejected "every entry rejected: plan and apply say so and name them, never 'nothing configured'"
tcase keep-free-too-big "a keep_free of all of a node's memory is named"
tcase plan-basis "plan takes the free memory this boot's initramfs recorded, and says so; --now the memory now"
tcase basis-lowered "a later run of the boot that lowered a pool: the next boot's plan has the lower pool, as that boot will"
tcase next-steps "status gives each shortfall's cause and one line on what to do"
tcase no-record "status without a record says where to look"
tcase help "each command's --help: its usage, its options only, two examples or more"
tcase usage-errors "a wrong command or option: one line, the command meant, where to look"
tcase echo "a problem shows the line as written: no '=' it did not have, and the line to write"
tcase what-to-write "a value refused says what to write: the size meant, the range, a whole number"
tcase taken-with-a-word "threads above the CPUs online, and hugepar.pages= without rd., each get a notice"
tcase stray-space "a space or tab inside an entry: one entry with a notice, or refused whole, never done on other nodes"
tcase replaced "an entry that later ones replace is named, with the entry that replaces it and where"
tcase cleared "an empty 'pages =' in a drop-in drops the entries before it, and says which"
tcase abbreviations "an abbreviated option's value in the next word is its value; errors name the option as typed"
tcase shipped-file "the shipped settings file has every key of hugepar.conf(5), each at its default"
tcase man-pages "each man page carries the binary's version; the keys in the pages are the binary's"
tcase rounding "shares of 0.5%, 3% and 10% of 64G and 96G nodes: cut by less than 1%, never to 0, said"
tcase give-back "a later run of the boot asking for less gives back hugepar's own pages, no others"
tcase user-data "user data that lowers a share: apply --if-changed gives the next boot's pools"
tcase status-text "status: threads at once, memory beside counts, disabled and nothing configured said"

HP=$HP_BIN
HPT=$HP_TEST_BIN
FX=$OUT/fixtures/operator
C=$OUT/operator.conf
# fx: a two-socket fixture for plans
fx() {
	[ -n "${FX_MADE:-}" ] && return
	"$TOP/test/mkfixture.sh" "$TOP/test/machines/2n-144cpu.desc" "$FX" && FX_MADE=1
}
plan() { fx && "$HP" plan --sysroot "$FX" "$@"; }
# simfx NAME [LINE...]: a fixture of two 8G nodes (7G free) on the simulated kernel,
# this boot's initramfs; SIM is its tree
simfx() {
	SIM=$OUT/fixtures/operator-$1
	shift
	printf '%s\n' "sizes 2048 1048576" "release 6.12.0" "bootid 6d0f1e2a-5b3c-4d7e-8f90-a1b2c3d4e5f6" \
		"initramfs" "node 0 cpus 0-1 mem 8G free 7G" "node 1 cpus 2-3 mem 8G free 7G" "$@" \
		>"$OUT/operator-sim.desc"
	"$TOP/test/mkfixture.sh" "$OUT/operator-sim.desc" "$SIM"
}
sim() { "$HPT" --sysroot "$SIM" --simulate "$@"; }

t_lists() {
	local v
	for v in "2M:512, 1G:4" "2M:512,1G:4" "2M:512 1G:4" "2M:512 ,1G:4,"; do
		printf 'pages = %s\n' "$v" >"$C"
		plan --config "$C" --cmdline "" --json >"$OUT/operator-lists.json" 2>/dev/null
		expect_eq "'$v': exit 0" $? 0
		expect_eq "'$v': two entries, no problem" \
			"$(jq -c '[[.settings.pages[].entry], (.settings.problems | length)]' "$OUT/operator-lists.json")" \
			'[["2M:512","1G:4"],0]'
	done
	plan --config /dev/null --cmdline "rd.hugepar.pages=2M:512, 1G:4@0, 1 quiet" --json \
		>"$OUT/operator-lists.json" 2>/dev/null
	expect_eq "the command line split at a space: the rest taken, a node list kept" \
		"$(jq -c '[.settings.pages[].entry]' "$OUT/operator-lists.json")" '["2M:512","1G:4@0,1"]'
	expect_eq "... and how to write it said" \
		"$(jq -r '.settings.notices[0].message' "$OUT/operator-lists.json")" \
		"taken as one list: the kernel ends a value at a space, so write the list with commas only, or in double quotes"
}
t_keys() {
	printf '%s\n' "floor = 1G" "workers = 8" "Pages = 2M:4" "treads = 2" "colour = blue" >"$C"
	plan --config "$C" --cmdline "rd.hugepar.enabled=0" >/dev/null 2>"$OUT/operator-keys.err"
	expect_eq "exit 64: problems" $? 64
	expect_eq "each answered" "$(cat "$OUT/operator-keys.err")" \
		"hugepar: $C:1: floor=1G: unknown key: did you mean 'keep_free' (the memory each node keeps free)?
hugepar: $C:2: workers=8: unknown key: did you mean 'threads' (the number of threads, worker processes)?
hugepar: $C:3: Pages=2M:4: unknown key: did you mean 'pages' (the huge pages to reserve)?
hugepar: $C:4: treads=2: unknown key: did you mean 'threads' (the number of threads, worker processes)?
hugepar: $C:5: colour=blue: unknown key
hugepar: kernel command line: rd.hugepar.enabled=0: unknown key: did you mean 'rd.hugepar' (the off switch: rd.hugepar=0)?"
}
t_old_key() {
	printf '%s\n' "pages = 2M:100" "reserve = 2G" >"$C"
	plan --config "$C" --cmdline "" >"$OUT/operator-old.out" 2>&1
	expect_eq "a notice is not a problem: exit 0" $? 0
	check "taken as keep_free" grep -q "^Plan: mode grow, keep_free 2G per node" "$OUT/operator-old.out"
	check "the notice says which key to use" grep -qF \
		"$C:2: reserve=2G: taken as keep_free: 'reserve' is its old name (the memory each node keeps free, not pages to reserve: those are 'pages')" \
		"$OUT/operator-old.out"
}
t_rejected() {
	simfx rejected
	plan --config /dev/null --cmdline "rd.hugepar.pages=2M:150%,3M:512,1G:1@5" >"$OUT/operator-rej.out" 2>&1
	expect_eq "plan: exit 1, as apply" $? 1
	check "plan: says every entry was rejected" grep -qF "No pages entry can be used: all 3 given were rejected" "$OUT/operator-rej.out"
	check "plan: never 'Nothing is configured'" sh -c "! grep -q 'Nothing is configured' '$OUT/operator-rej.out'"
	check "plan: names each" sh -c 'grep -q "2M:150%: amount" "$1" && grep -q "3M:512: page size 3M is not offered" "$1" && grep -q "1G:1@5: node 5 does not exist" "$1"' _ "$OUT/operator-rej.out"
	rm -rf "$OUT/operator-rej"
	sim apply --config /dev/null -d "$OUT/operator-rej" --cmdline "rd.hugepar.pages=2M:150%,3M:512" >/dev/null 2>&1
	expect_eq "apply: failed, exit 1" $? 1
	expect_eq "apply: the record says why" "$(jq -r '.status + ": " + .error' "$OUT/operator-rej/status.json")" \
		"failed: no pages entry could be used: all 2 given were rejected (hugepar status names them)"
}
t_keep_free_too_big() {
	plan --config /dev/null --cmdline "rd.hugepar.pages=2M:10 rd.hugepar.keep_free=400G" >/dev/null 2>"$OUT/operator-kf.err"
	expect_eq "named" "$(cat "$OUT/operator-kf.err")" \
		"hugepar: kernel command line: rd.hugepar.keep_free=400G: not less than all the memory of nodes 0-1 (the smallest has 384G): no pages can be reserved there"
}
t_plan_basis() {
	simfx basis
	rm -rf "$OUT/operator-basis"
	sim apply --config /dev/null -d "$OUT/operator-basis" --cmdline "rd.hugepar.pages=2M:1000" >/dev/null 2>&1
	rm "$SIM/etc/initrd-release" # the booted system: its memory now holds the pools
	sim plan --config /dev/null -d "$OUT/operator-basis" --cmdline "rd.hugepar.pages=2M:90%" >"$OUT/operator-basis.out"
	check "says which free memory" grep -q "^Free memory: as this boot's initramfs found it, [0-9.]* s after boot (the record in $OUT/operator-basis); --now plans with the memory free now" "$OUT/operator-basis.out"
	expect_eq "the free memory and pools the initramfs found" \
		"$(awk '$1 == "0" && $2 == "2M" { print $3, $5 } $1 == "0" && $2 == "2" { print $5 }' "$OUT/operator-basis.out")" "7G
0 3328"
	sim plan --now --config /dev/null -d "$OUT/operator-basis" --cmdline "rd.hugepar.pages=2M:90%" >"$OUT/operator-now.out"
	check "--now: says so" grep -qx "Free memory: now (--now)" "$OUT/operator-now.out"
	expect_eq "--now: the memory now, the pool the run left" \
		"$(awk '$1 == "0" && $2 == "2M" { print $3 } $1 == "0" && $2 == "2" { print $5 }' "$OUT/operator-now.out")" "5.0G
1000"
	sim plan --config /dev/null -d "$OUT/operator-none" --cmdline "rd.hugepar.pages=2M:90%" >"$OUT/operator-none.out"
	check "no record: the memory now, and why" grep -qx "Free memory: now: no record of this boot's initramfs run in $OUT/operator-none" "$OUT/operator-none.out"
	sed -i 's/^6d0f/7e1f/' "$SIM/proc/sys/kernel/random/boot_id"
	sim plan --config /dev/null -d "$OUT/operator-basis" --cmdline "rd.hugepar.pages=2M:90%" --json >"$OUT/operator-other.json"
	expect_eq "a record of another boot is not used" "$(jq -c .basis "$OUT/operator-other.json")" \
		"{\"free_memory\":\"now\",\"record_dir\":\"$OUT/operator-basis\",\"started_boot_ms\":null}"
}
# The initramfs reserves 1000 pages a node; a later run in the initramfs (Ignition's
# drop-in, hugepar-ignition.service) lowers node 1 to 600. The next boot starts
# without either run's pages: its plan, from this boot's record, is 1000 and 600.
t_basis_lowered() {
	local r=$OUT/operator-lowered
	simfx lowered
	rm -rf "$r"
	sim apply --config /dev/null -d "$r" --cmdline "rd.hugepar.pages=2M:1000" >/dev/null 2>&1
	sim apply --config /dev/null -d "$r" --cmdline "rd.hugepar.pages=2M:1000@0,2M:600@1" >/dev/null 2>&1
	expect_eq "the later run lowered node 1" \
		"$(jq -r '[.nodes[] | .sizes[] | select(.size == "2M") | "\(.before) \(.achieved) \(.own)"] | join(", ")' "$r/status.json")" \
		"1000 1000 1000, 1000 600 600"
	rm "$SIM/etc/initrd-release"
	sim plan --json --config /dev/null -d "$r" --cmdline "rd.hugepar.pages=2M:1000@0,2M:600@1" >"$r.json"
	expect_eq "the next boot's plan: from the record, node 1 lowered" \
		"$(jq -r '.basis.free_memory + ": " + ([.plan.nodes[] | .sizes[] | select(.size == "2M") | .target | tostring] | join(" "))' "$r.json")" \
		"initramfs: 1000 600"
}

# status R: hugepar status of the record directory R, its "What to do" lines
todo() { "$HP" status -d "$1" 2>/dev/null | sed -n '/^What to do:$/,$p' | sed 1d; }
t_next_steps() {
	local r=$OUT/operator-steps
	simfx steps
	rm -rf "$r".*
	sim apply --config /dev/null -d "$r.kf" --cmdline "rd.hugepar.pages=2M:3500 rd.hugepar.keep_free=1G" >/dev/null 2>&1
	expect_eq "keep_free" "$(todo "$r.kf")" \
		"  nodes 0,1 2M: capped by keep_free (1G): lower keep_free, or ask for fewer pages; 'hugepar plan' shows what fits"
	simfx steps
	sim apply --config /dev/null -d "$r.fm" --cmdline "rd.hugepar.pages=2M:4000@1" >/dev/null 2>&1
	expect_eq "free memory" "$(todo "$r.fm")" \
		"  node 1 2M: capped by the free memory the initramfs found: ask for less, or let the kernel reserve them before it hands memory out: the parameters 'hugepar cmdline' prints"
	simfx steps
	HUGEPAR_FAULT=write-node=EIO sim apply --method=serial --config /dev/null -d "$r.ke" --cmdline "rd.hugepar.pages=2M:10@0" >/dev/null 2>&1
	expect_eq "a write refused" "$(todo "$r.ke")" \
		"  node 0 2M: the kernel refused the work (the reason above says how): the kernel log tells more, journalctl -k -b; 'hugepar apply' tries again"
	simfx steps-time "sim rate 2048 1:10"
	sim apply --method=serial --config /dev/null -d "$r.dl" --cmdline "rd.hugepar.pages=2M:100@0 rd.hugepar.timeout=1" >/dev/null 2>&1
	expect_eq "the deadline" "$(todo "$r.dl")" \
		"  node 0 2M: the deadline (timeout, 1 s) came first: raise timeout in hugepar.conf or with rd.hugepar.timeout="
	expect_eq "causes in the records" \
		"$(for d in kf fm ke dl; do jq -r '[.nodes[].sizes[] | select(.status != "ok" and .status != "unchanged") | .cause] | unique | join(",")' "$r.$d/status.json"; done | tr '\n' ' ')" \
		"keep_free free_memory kernel_error deadline "
}
t_no_record() {
	"$HP" status -d "$OUT/operator-none" >/dev/null 2>"$OUT/operator-norec.err"
	expect_eq "exit 3" $? 3
	check "says where to look: the initramfs" grep -qF "lsinitramfs /boot/initrd.img-\$(uname -r) | grep hugepar" "$OUT/operator-norec.err"
	check "... dracut's" grep -qF "(dracut: lsinitrd | grep hugepar)" "$OUT/operator-norec.err"
	check "... the boot's journal" grep -qF "journalctl -b -t hugepar, or dmesg | grep hugepar" "$OUT/operator-norec.err"
}
t_help() {
	local c out
	"$HP" --help >"$OUT/operator-help.out"
	expect_eq "hugepar --help: exit 0" $? 0
	expect_eq "hugepar --help lists every command" \
		"$(sed -n '/^Commands:/,/^$/p' "$OUT/operator-help.out" | awk 'NF { print $1 }' | tr '\n' ' ')" \
		"Commands: plan apply status verify cmdline wait recover "
	for c in plan apply status verify cmdline wait recover; do
		out=$OUT/operator-help-$c.out
		"$HP" "$c" --help >"$out"
		expect_eq "$c --help: exit 0" $? 0
		check "$c --help: its usage" grep -qx " hugepar $c \[options\]" "$out"
		check "$c --help: two examples or more" \
			test "$(sed -n '/^Examples:/,/^$/p' "$out" | grep -c '^ [a-z]')" -ge 2
		expect_eq "$c --help: the same as hugepar help $c" "$("$HP" help "$c")" "$(cat "$out")"
	done
	check "plan's options: --now, no --check" sh -c "grep -q -- '--now' '$OUT/operator-help-plan.out' && ! grep -q -- '--check' '$OUT/operator-help-plan.out'"
	check "status's options: --check, no --method" sh -c "grep -q -- '--check' '$OUT/operator-help-status.out' && ! grep -q -- '--method' '$OUT/operator-help-status.out'"
}
# usage NAME WANT ARG...: hugepar ARG... exits 2 with WANT, one line, on stderr
usage() {
	local name=$1 want=$2
	shift 2
	"$HP" "$@" >"$OUT/operator-usage.out" 2>"$OUT/operator-usage.err"
	expect_eq "$name: exit 2, one line, nothing on stdout" \
		"$? $(wc -l <"$OUT/operator-usage.err") $(wc -c <"$OUT/operator-usage.out")" "2 1 0"
	expect_eq "$name: says" "$(cat "$OUT/operator-usage.err")" "$want"
}
t_usage_errors() {
	usage "unknown command" "hugepar: unknown command 'frob'; try 'hugepar --help'" frob
	usage "a command close to one" "hugepar: unknown command 'staus' (did you mean 'status'?); try 'hugepar --help'" staus
	usage "no command" "hugepar: a command is needed; try 'hugepar --help'"
	usage "unknown option" "hugepar plan: unknown option '--bogus'; try 'hugepar plan --help'" plan --bogus
	usage "another command's option" "hugepar plan: --check is not an option of plan (it is status's); try 'hugepar plan --help'" plan --check
	usage "a value missing" "hugepar apply: --config needs a value; try 'hugepar apply --help'" apply --config
	usage "a bad value" "hugepar apply: --method fast: expected auto, parallel or serial; try 'hugepar apply --help'" apply --method=fast
	usage "two commands" "hugepar plan: one command only, not 'apply' too; try 'hugepar plan --help'" plan apply
}
# a problem echoes its line as written, in plan's messages, its list and status's
t_echo() {
	local r=$OUT/operator-echo
	printf '%s\n' "pages: 2M:50%" "pages 2M:8@1" "no equals sign" "threads = 2" >"$C"
	plan --config "$C" --cmdline "rd.hugepar.pages" >"$OUT/operator-echo.out" 2>"$OUT/operator-echo.err"
	expect_eq "plan's messages" "$(cat "$OUT/operator-echo.err")" \
		"hugepar: $C:1: pages: 2M:50%: expected KEY = VALUE: write 'pages = 2M:50%'
hugepar: $C:2: pages 2M:8@1: expected KEY = VALUE: write 'pages = 2M:8@1'
hugepar: $C:3: no equals sign: expected KEY = VALUE
hugepar: kernel command line: rd.hugepar.pages: expected rd.hugepar.pages=VALUE"
	check "plan's list of problems, the same" grep -qxF "  $C:1: pages: 2M:50%: expected KEY = VALUE: write 'pages = 2M:50%'" \
		"$OUT/operator-echo.out"
	simfx echo
	rm -rf "$r"
	sim apply --config "$C" -d "$r" --cmdline "" >/dev/null 2>&1
	check "status's list of problems, the same" grep -qxF "  $C:1: pages: 2M:50%: expected KEY = VALUE: write 'pages = 2M:50%'" \
		<("$HP" status -d "$r" 2>/dev/null)
}
t_what_to_write() {
	plan --config /dev/null --cmdline "rd.hugepar.pages=1gib:4,2M:150%,2M:1.5G rd.hugepar.keep_free=0.5G" \
		>/dev/null 2>"$OUT/operator-write.err"
	expect_eq "each says what to write" "$(cat "$OUT/operator-write.err")" \
		"hugepar: kernel command line: rd.hugepar.pages=1gib:4: page size '1gib' is malformed: write 1G (sizes are written 2M, 1G, 2048K)
hugepar: kernel command line: rd.hugepar.pages=2M:150%: amount '150%' is out of range: a share is from 0% to 100%
hugepar: kernel command line: rd.hugepar.pages=2M:1.5G: amount '1.5G' is malformed: write 1536M
hugepar: kernel command line: rd.hugepar.keep_free=0.5G: malformed: write 512M"
}
t_taken_with_a_word() {
	printf 'pages = 2M:8\nthreads = 200\n' >"$C"
	plan --config "$C" --cmdline "hugepar.pages=1G:1 hugepar=0" --json >"$OUT/operator-word.json" 2>/dev/null
	expect_eq "a notice is not a problem: exit 0" $? 0
	expect_eq "each said, and what to write" \
		"$(jq -r '.settings.notices[] | .origin + ": " + .key + "=" + .value + ": " + .message' "$OUT/operator-word.json")" \
		"kernel command line: hugepar.pages=1G:1: not read: write rd.hugepar.pages=1G:1 (hugepar's keys on the kernel command line start with rd.)
kernel command line: hugepar=0: not read: write rd.hugepar=0 (hugepar's keys on the kernel command line start with rd.)
$C:2: threads=200: more than the 144 CPUs online: the threads beyond one per CPU only wait for one (write 144 or fewer, or auto)"
	expect_eq "the settings as set: 200 threads, on, no 1G entry" \
		"$(jq -c '[.settings.threads, .settings.enabled, [.settings.pages[].entry]]' "$OUT/operator-word.json")" '[200,true,["2M:8"]]'
	plan --config "$C" --cmdline "rd.hugepar.threads=144" --json >"$OUT/operator-word.json" 2>/dev/null
	expect_eq "as many as the CPUs: nothing to say" "$(jq -c .settings.notices "$OUT/operator-word.json")" "[]"
}
# entries [problems] [notices] of a plan's JSON, one line each
entries_said() {
	jq -r '[.settings.pages[].entry] | join(" ")' "$1"
	jq -r '.settings.problems[] | .origin + ": " + .value + ": " + .message' "$1"
	jq -r '.settings.notices[] | .origin + ": " + .value + ": " + .message' "$1"
}
t_stray_space() {
	local r=$OUT/operator-space
	printf 'pages = 1G:4 @1\npages = 2M:8@ 0\npages = 2M :9@1\npages = 1G:2@0 1\n' >"$C"
	plan --config "$C" --cmdline "" --json >"$r.json" 2>/dev/null
	expect_eq "plan: a piece is never an entry" "$(entries_said "$r.json")" \
		"1G:4@1 2M:8@0 2M:9@1
$C:4: 1G:2@0 1: node list '0 1' is malformed: an entry has no spaces (write 0,1)
$C:1: 1G:4 @1: taken as 1G:4@1: write an entry without spaces
$C:2: 2M:8@ 0: taken as 2M:8@0: write an entry without spaces
$C:3: 2M :9@1: taken as 2M:9@1: write an entry without spaces"
	printf 'pages = 1G:4\t@1\n' >"$C"
	plan --config "$C" --cmdline "" --json >"$r.json" 2>/dev/null
	expect_eq "a tab too" "$(jq -c '[.settings.pages[].entry]' "$r.json")" '["1G:4@1"]'
	plan --config /dev/null --cmdline "rd.hugepar.pages=1G:4 @1 quiet" --json >"$r.json" 2>/dev/null
	expect_eq "on the kernel command line" "$(jq -c '[.settings.pages[].entry]' "$r.json")" '["1G:4@1"]'
	simfx space
	rm -rf "$r"
	sim apply --config /dev/null -d "$r" --cmdline "rd.hugepar.pages=1G:4 @1" >/dev/null 2>&1
	expect_eq "apply: node 1 alone has the pages" \
		"$(cat "$SIM"/sys/devices/system/node/node[01]/hugepages/hugepages-1048576kB/nr_hugepages | paste -sd' ')" "0 4"
}
t_replaced() {
	local r=$OUT/operator-replaced
	rm -rf "$C.d"
	printf 'pages = 2M:512@0 2M:50%%\npages = 1G:1 1G:2\npages = 2M:8@0,1 2M:9@1\n' >"$C"
	plan --config "$C" --cmdline "" --json >"$r.json" 2>/dev/null
	expect_eq "in one file" "$(entries_said "$r.json")" \
		"2M:512@0 2M:50% 1G:1 1G:2 2M:8@0,1 2M:9@1
$C:1: 2M:512@0: not done: replaced by 2M:50% ($C:1), written after it
$C:1: 2M:50%: not done: replaced by 2M:8@0,1 ($C:3), written after it
$C:2: 1G:1: not done: replaced by 1G:2 ($C:2), written after it
$C:3: 2M:8@0,1: not done on node 1: replaced by 2M:9@1 ($C:3), written after it"
	printf 'pages = 2M:512\npages = 2M:50%% 2M:10@1\n' >"$C"
	mkdir -p "$C.d" && printf 'pages = 2M:1024\n' >"$C.d/50-more.conf"
	plan --config "$C" --cmdline "rd.hugepar.pages=2M:7@0" --json >"$r.json" 2>/dev/null
	expect_eq "across files and the command line; a default with an exception as meant" "$(entries_said "$r.json")" \
		"2M:512 2M:50% 2M:10@1 2M:1024 2M:7@0
$C:1: 2M:512: not done: replaced by 2M:50% ($C:2), written after it
$C:2: 2M:50%: not done: replaced by 2M:10@1 ($C:2) and others, written after it
$C:2: 2M:10@1: not done: replaced by 2M:1024 ($C.d/50-more.conf:1), written after it"
	rm -rf "$C.d"
}
t_cleared() {
	local r=$OUT/operator-cleared
	rm -rf "$C.d"
	printf 'pages = 2M:50%% 1G:4@1\n' >"$C"
	mkdir -p "$C.d" && printf 'pages =\npages = 2M:8@0\n' >"$C.d/50-reset.conf"
	plan --config "$C" --cmdline "" --json >"$r.json" 2>/dev/null
	expect_eq "a notice, not a problem: exit 0" $? 0
	expect_eq "the drop-in's entries alone, what was dropped said" "$(entries_said "$r.json")" \
		"2M:8@0
$C.d/50-reset.conf:1: : empty: drops the 2 pages entries before it, 2M:50% ($C:1), 1G:4@1 ($C:1)"
	rm -rf "$C.d"
}
# getopt_long takes a unique abbreviation, its value in the next word too: that word
# is no second command; an error names the option as it was typed
t_abbreviations() {
	fx
	"$HP" plan --sys "$FX" --conf /dev/null --cmd "rd.hugepar.pages=2M:8" >"$OUT/operator-abbr.out" 2>&1
	expect_eq "plan --sys DIR --conf FILE --cmd STRING: exit 0" $? 0
	check "... the plan of DIR with STRING" grep -q "^1 *2M *0 *8 *8" "$OUT/operator-abbr.out"
	"$HP" --sys "$FX" -Jc /dev/null plan -k "rd.hugepar.pages=2M:8" >/dev/null 2>&1
	expect_eq "options before the command, letters together: exit 0" $? 0
	usage "a second command after an abbreviation's value" \
		"hugepar plan: one command only, not 'apply' too; try 'hugepar plan --help'" plan --sys "$FX" apply
	usage "a value given to an option that takes none" \
		"hugepar plan: --json=1: --json takes no value; try 'hugepar plan --help'" plan --json=1
	usage "an abbreviation without its value" \
		"hugepar plan: --sys needs a value (--sysroot DIR); try 'hugepar plan --help'" plan --sys
	usage "an abbreviation of several" \
		"hugepar plan: option '--c' is ambiguous (--config, --cmdline, --check); try 'hugepar plan --help'" plan --c x
	usage "an unknown one with a value" \
		"hugepar plan: unknown option '--jsn'; try 'hugepar plan --help'" plan --jsn=1
	usage "a letter without its value" "hugepar plan: -r needs a value (--sysroot DIR); try 'hugepar plan --help'" plan -Jr
}
# the keys hugepar.conf(5) describes: its .BI lines under KEYS
man_keys() { sed -n '/^\.SH KEYS/,/^\.SH /{s/^\.BI \([a-z_]*\) .*/\1/p}' "$TOP/doc/hugepar.conf.5" | sort; }
t_shipped_file() {
	local conf=$TOP/config/hugepar.conf k keys on
	keys=$(man_keys)
	expect_eq "hugepar.conf(5) describes the eleven keys" "$(echo "$keys" | wc -l)" 11
	for k in $keys; do
		check "the shipped file has #$k =" grep -q "^#$k =" "$conf"
		check "hugepar.conf(5)'s synopsis has rd.hugepar.$k=" sh -c "[ $k = enabled ] || grep -q 'rd\.hugepar\.$k=' '$TOP/doc/hugepar.conf.5'"
		check "the README's table has $k" grep -q "^| \`$k\` |" "$TOP/README.md"
	done
	check "the shipped file says how to build every initramfs again" sh -c \
		"grep -q 'update-initramfs -u -k all' '$conf' && grep -q 'dracut --regenerate-all --force' '$conf'"
	plan --config "$conf" --cmdline "" --json >"$OUT/operator-shipped.json" 2>"$OUT/operator-shipped.err"
	expect_eq "the file as shipped: no problem" "$? $(cat "$OUT/operator-shipped.err")" "0 "
	# each key set to the value its line shows: the defaults the binary has
	on=$OUT/operator-shipped-on.conf
	sed -n 's/^#\([a-z_]*\) = \(..*\)$/\1 = \2/p' "$conf" >"$on"
	expect_eq "every key but pages and mount shows a value" "$(cut -d' ' -f1 "$on" | sort | tr '\n' ' ')" \
		"enabled granularity keep_free mode on_short textfile threads timeout vmemmap "
	plan --config "$on" --cmdline "" --json >"$OUT/operator-shipped-on.json" 2>&1
	expect_eq "... and each value shown is the default" \
		"$(jq -c '.settings | del(.sources, .config, .digest)' "$OUT/operator-shipped-on.json")" \
		"$(jq -c '.settings | del(.sources, .config, .digest)' "$OUT/operator-shipped.json")"
}
# the keys the binary knows: those plan --help lists
help_keys() { "$HP" plan --help | sed -n '/^Settings (hugepar.conf(5)/,/^$/{/^ [a-z_]/s/^ \([a-z_]*\) .*/\1/p}' | sort; }
t_man_pages() {
	local v page k keys
	v=$("$HP" --version | sed 's/^hugepar //')
	expect_eq "the binary's version is the tree's" "$v" "$("$TOP/scripts/version.sh")"
	for page in "$TOP"/doc/*.[1-8]; do
		expect_eq "${page##*/}: the version" "$(sed -n '/^\.TH /s/.*"hugepar \([^"]*\)".*/\1/p' "$page")" "$v"
	done
	keys=$(help_keys)
	expect_eq "plan --help lists the eleven keys" "$(echo "$keys" | wc -l)" 11
	expect_eq "hugepar.conf(5) describes the keys the binary has" "$(man_keys)" "$keys"
	for page in dracut-hugepar.7 hugepar-initramfs-tools.7; do
		for k in $keys; do
			[ "$k" = enabled ] && continue
			check "$page names rd.hugepar.$k=" grep -q "rd\.hugepar\.$k=" "$TOP/doc/$page"
		done
		check "$page names rd.hugepar=0" grep -q 'rd\.hugepar=0' "$TOP/doc/$page"
	done
}
# rfx: two nodes of 64G and 96G on the simulated kernel, this boot's initramfs
rfx() {
	simfx rounding
	printf '%s\n' "sizes 2048 1048576" "release 6.12.0" "bootid 6d0f1e2a-5b3c-4d7e-8f90-a1b2c3d4e5f6" \
		"initramfs" "node 0 cpus 0-1 mem 64G free 63G" "node 1 cpus 2-3 mem 96G free 95G" \
		>"$OUT/operator-rounding.desc"
	rm -rf "$SIM"
	"$TOP/test/mkfixture.sh" "$OUT/operator-rounding.desc" "$SIM"
}
t_rounding() {
	local share
	rfx
	for share in 0.5% 3% 10%; do
		sim plan --config /dev/null --cmdline "rd.hugepar.pages=2M:$share" --json >"$OUT/operator-rnd.json"
		jq -r '[.plan.nodes[].sizes[0] | "\(.unrounded) \(.requested)"] | join(" ")' "$OUT/operator-rnd.json"
	done >"$OUT/operator-rnd.counts"
	expect_eq "64G and 96G: each share and what it plans" "$(cat "$OUT/operator-rnd.counts")" \
		"163 163 245 244
983 976 1474 1472
3276 3264 4915 4896"
	sim plan --config /dev/null --cmdline "rd.hugepar.pages=2M:3% rd.hugepar.keep_free=62990M" >"$OUT/operator-rnd.out"
	expect_eq "the plan says by how much, in words" \
		"$(awk '$1 ~ /^[01]$/ && $2 == "2M" { $1 = $2 = $3 = $4 = $5 = $6 = $7 = $8 = ""; print }' "$OUT/operator-rnd.out" | sed 's/^ *//')" \
		"capped by keep_free: 761 fit, rounded down by 1 (0.14%)
3% is 1474 pages, rounded down by 2 (0.14%)"
	check "... and why" grep -qx "Rounded down: shares and caps go down to a step of at most 1% of the count" "$OUT/operator-rnd.out"
	sim apply --config /dev/null -d "$OUT/operator-rnd" --cmdline "rd.hugepar.pages=2M:3%" >/dev/null 2>&1
	expect_eq "apply: the pools" "$(jq -c '[.nodes[].sizes[0].achieved]' "$OUT/operator-rnd/status.json")" "[976,1472]"
	"$HP" status -d "$OUT/operator-rnd" >"$OUT/operator-rnd.status"
	expect_eq "status: by how much" "$(awk '$1 == 0 && $2 == "2M" { $1 = $2 = $3 = $4 = $5 = $8 = $9 = ""; print }' "$OUT/operator-rnd.status" | tr -s ' ')" \
		" 976 1.9G ok 3% is 983 pages, rounded down by 7 (0.72%)"
	check "status: why" grep -qx "(granularity auto), so that each boot of this machine gets the same count while its" "$OUT/operator-rnd.status"
	sim plan --config /dev/null --cmdline "rd.hugepar.pages=1G:1%@0" --json >"$OUT/operator-rnd.json"
	expect_eq "less than a page: nothing, and said" \
		"$(jq -r '.plan.nodes[0].sizes[1] | "\(.requested)"' "$OUT/operator-rnd.json") $(sim plan --config /dev/null --cmdline "rd.hugepar.pages=1G:1%@0" | awk '$1 == 0 && $2 == "1G" { print $9, $10, $11, $12, $13, $14, $15 }')" \
		"0 1% is less than one page here"
}
# pools R: the 2M pools of the record directory R, per node
pools() { jq -c '[.nodes[].sizes[0].achieved]' "$1/status.json"; }
t_give_back() {
	local r=$OUT/operator-back
	simfx back "node 0 cpus 0-1 mem 8G free 7G pool 2048:20"
	rm -rf "$r" "$r.next"
	sim apply --config /dev/null -d "$r" --cmdline "rd.hugepar.pages=2M:50" >/dev/null 2>&1
	expect_eq "the boot's run: 50 on each node" "$(pools "$r")" "[50,50]"
	expect_eq "... its own: 30 on node 0 (20 were there), 50 on node 1" \
		"$(jq -c '[.nodes[].sizes[0].own]' "$r/status.json")" "[30,50]"
	sim plan --now --config /dev/null -d "$r" --cmdline "rd.hugepar.pages=2M:10" >"$OUT/operator-back.plan"
	expect_eq "plan says which pages are whose" \
		"$(awk '$2 == "2M" { $1 = $2 = $3 = $4 = $5 = $6 = $7 = $8 = ""; print }' "$OUT/operator-back.plan" | sed 's/^ *//')" \
		"grow mode: gives back only the 30 pages it reserved this boot
gives back 40 of the 50 pages it reserved this boot"
	sim apply --config /dev/null -d "$r" --cmdline "rd.hugepar.pages=2M:10" >/dev/null 2>&1
	expect_eq "a later run asking for less: its own pages back, not the 20 that were there" "$(pools "$r")" "[20,10]"
	expect_eq "... what it owns now" "$(jq -c '[.nodes[].sizes[0].own]' "$r/status.json")" "[0,10]"
	simfx back "node 0 cpus 0-1 mem 8G free 7G pool 2048:20"
	sim apply --config /dev/null -d "$r.next" --cmdline "rd.hugepar.pages=2M:10" >/dev/null 2>&1
	expect_eq "the next boot gives the same" "$(pools "$r.next")" "[20,10]"
	# a pool that someone shrank after the run: what is left is theirs first
	simfx back "node 0 cpus 0-1 mem 8G free 7G pool 2048:20"
	rm -rf "$r"
	sim apply --config /dev/null -d "$r" --cmdline "rd.hugepar.pages=2M:50@0" >/dev/null 2>&1
	"$HP_SIMCTL" "$SIM" write 2048 0 35
	sim apply --config /dev/null -d "$r" --cmdline "rd.hugepar.pages=2M:1@0" >/dev/null 2>&1
	expect_eq "a pool shrunk by someone else since: only what is surely its own goes" "$(pools "$r")" "[20,0]"
}
t_user_data() {
	local r=$OUT/operator-ud c=$OUT/operator-ud.conf
	simfx user-data
	rm -rf "$r" "$c.d" "$r.next"
	echo "pages = 2M:50%" >"$c"
	sim apply --config "$c" -d "$r" --cmdline "" >/dev/null 2>&1
	expect_eq "the image's share: the first run" "$(pools "$r")" "[2048,2048]"
	rm "$SIM/etc/initrd-release" # the booted system, where cloud-init writes
	mkdir "$c.d"
	echo "pages = 2M:30%@1" >"$c.d/90-user-data.conf"
	sim apply --if-changed --config "$c" -d "$r" --cmdline "" >"$OUT/operator-ud.out" 2>&1
	expect_eq "user data lowers node 1's share in the same boot" "$(pools "$r")" "[2048,1224]"
	simfx user-data
	sim apply --config "$c" -d "$r.next" --cmdline "" >/dev/null 2>&1
	expect_eq "... the pools the next boot gives" "$(pools "$r.next")" "[2048,1224]"
}
t_status_text() {
	local r=$OUT/operator-st
	simfx status
	rm -rf "$r".*
	sim apply --method=parallel --config /dev/null -d "$r.par" --cmdline "rd.hugepar.pages=2M:300" >/dev/null 2>&1
	"$HP" status -d "$r.par" >"$OUT/operator-st.txt"
	expect_eq "the run's line: no thread figure without its label" \
		"$(head -1 "$OUT/operator-st.txt" | sed 's/ in [0-9]* ms, started [0-9.]* s after boot$//')" \
		"hugepar $("$TOP/scripts/version.sh") on Linux 6.12.0: ok"
	expect_eq "the size: the most threads at work at once" \
		"$(awk '$1 == "2M" && $2 == "parallel" { print $3 }' "$OUT/operator-st.txt")" \
		"$(jq '.sizes[0].threads_peak' "$r.par/status.json")"
	check "... never more than the CPUs" test "$(jq '.sizes[0].threads_peak' "$r.par/status.json")" -le 4
	check "... no more at once on a node than its CPUs" \
		test "$(jq '[.nodes[].sizes[0].threads_peak] | max' "$r.par/status.json")" -le 2
	expect_eq "memory beside the counts" "$(awk '$1 == "0" && $2 == "2M" { print $6, $7 }' "$OUT/operator-st.txt")" "300 600M"
	sim apply --method=serial --config /dev/null -d "$r.ser" --cmdline "rd.hugepar.pages=2M:310" >/dev/null 2>&1
	"$HP" status -d "$r.ser" >"$OUT/operator-st-ser.txt"
	expect_eq "serial: no threads, and why" "$(awk '$1 == "2M" { $2 = $4 = $5 = ""; print }' "$OUT/operator-st-ser.txt" | tr -s ' ')" \
		"2M - --method=serial was asked"
	sim apply --config /dev/null -d "$r.off" --cmdline "rd.hugepar=0 rd.hugepar.pages=2M:5" >/dev/null 2>&1
	expect_eq "disabled: said, and no table" "$("$HP" status -d "$r.off" | sed 1d)" \
		"Disabled by rd.hugepar=0 (kernel command line): no pool was changed."
	simfx status
	sim apply --config /dev/null -d "$r.none" --cmdline "" >"$OUT/operator-st-none.txt" 2>&1
	check "nothing configured: the log says so" grep -q "ok in [0-9]* ms on 2 nodes, nothing configured (no pages entry)" "$OUT/operator-st-none.txt"
	"$HP" status -d "$r.none" >"$OUT/operator-st-none.txt"
	check "nothing configured: status says so" grep -qx "Nothing was configured: the run read no pages entry (hugepar.conf(5)), so it changed no pool." "$OUT/operator-st-none.txt"
	check "... and shows no empty table" sh -c '! grep -q "^SIZE\|^NODE" "$1"' _ "$OUT/operator-st-none.txt"
}

run_cases
echo "operator: $(summary_line)"
