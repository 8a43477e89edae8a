#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile input and broken runs, on the simulated kernel and fixtures: a pid that is
# not the run's, a value that cannot be put back, a full record filesystem, links
# and FIFOs where files should be, garbage restore notes, a main process killed, a
# crash kernel, 2^64 and bytes that are not ASCII. A case has a fixture of its name
# (test/out/hostile/CASE); TESTS=hostile:CASE runs only its work. No root needed
# (the cases that mount a tmpfs are skipped without it), and this machine's pools
# are not touched. The cases of broken runs write a row of the fault matrix each
# (test/out/fault-matrix-hostile.tsv, doc/fault-matrix.md).
. "$(dirname "$0")/lib.sh"

HP=$HP_BIN
HPT=$HP_TEST_BIN
SIMCTL=$HP_SIMCTL
D=$OUT/hostile
MATRIX=$OUT/fault-matrix-hostile.tsv

requires() {
	[ -x "$HP" ] && [ -x "$HPT" ] && [ -x "$SIMCTL" ] ||
		{ echo "need hugepar, hugepar-test and build/simctl"; return 1; }
	command -v jq >/dev/null || { echo "need jq"; return 1; }
}

# fixture NAME [LINE...]: two nodes of 8 GiB, 2M and 1G pages, Linux 6.12, on the
# simulated kernel, with more description lines (test/mkfixture.sh); $M is it,
# $REC its record directory
fixture() {
	local name=$1
	shift
	M=$D/$name REC=$D/$name/rec
	mkdir -p "$D"
	printf '%s\n' "sizes 2048 1048576" "release 6.12.0" "node 0 cpus 0-1 mem 8G free 7G" \
		"node 1 cpus 2-3 mem 8G free 7G" "$@" >"$D/$name.desc"
	"$TOP/test/mkfixture.sh" "$D/$name.desc" "$M"
}
sim() { "$HPT" --sysroot "$M" --simulate "$@"; }
# apply ARGS...: hugepar-test apply on $M, its record in $REC, its output in $M.log,
# its exit code in $RC (the braces keep bash's notice of a killed run off the output)
apply() {
	{ sim apply --config /dev/null -d "$REC" "$@" >"$M.log" 2>&1; } 2>/dev/null
	RC=$?
}
# field FILTER: jq's FILTER on the record; strings bare, the rest compact JSON
field() { jq -cr "$1" "$REC/status.json" 2>/dev/null; }
glob() {
	"$SIMCTL" "$M" show >/dev/null # its files are true after any operation
	cat "$M/sys/kernel/mm/hugepages/hugepages-${2:-2048}kB/$1"
}
# each node's 2M pool, "N N"
pools() {
	echo "$(cat "$M/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages")" \
		"$(cat "$M/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages")"
}
# the restore notes there (not those moved aside)
notes() { (cd "$M/run/hugepar" 2>/dev/null && ls -d restore-*kB 2>/dev/null | tr '\n' ' '); }
# CLOCK_BOOTTIME in ms, as hugepar publishes its deadline
uptime_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
# start_of PID: field 22 of its /proc/PID/stat, counted from the end of its name
start_of() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20; }
# sleeper: a process that is not hugepar's, in $PID
sleeper() {
	sleep 300 &
	PID=$!
}
alive() { kill -0 "$1" 2>/dev/null; }
reap() { kill -9 "$1" 2>/dev/null; wait "$1" 2>/dev/null; }
# fate PID: "alive" or "gone"
fate() { alive "$1" && echo alive || echo gone; }

# row FAULT EXIT RECORD SAID LEFT: what the case saw, a row of the fault matrix
# (doc/fault-matrix.md): the exit code, the record's status, what hugepar said,
# what was left and what came next
row() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >>"$MATRIX"; }
# plain TEXT [PID...]: TEXT with what differs from run to run put generally, so that
# the matrix does not: each PID given as PID, ticks as T, the fixture's path as
# FIXTURE
plain() {
	local s=$1 p
	shift
	s=${s//$M/FIXTURE}
	for p in "$@"; do
		s=$(sed -E "s/\b$p\b/PID/g" <<<"$s")
	done
	sed -E 's/tick [0-9]+/tick T/; s/the run at [0-9]+/the run at T/; s/after [0-9]+ ms/after N ms/' <<<"$s"
}
# recorded: the record's status, or none
recorded() { if [ -f "$REC/status.json" ]; then field .status; else echo none; fi; }
# left_notes: the restore notes there, or none
left_notes() { local n; n=$(notes); echo "${n:-none}" | sed 's/ $//'; }

# --- wait acts only on the run it can prove is hugepar's ---------------------------
tcase wait-forged "wait: a pid written by someone else, past its deadline, is not signalled"
tcase wait-reused "wait: a pid the run had that another process has now is not signalled"
tcase wait-pid1 "wait: pid 1 is never taken for a run"
tcase wait-own "wait: the run it can prove is its own is still stopped at its deadline"

# past DIR PID [START]: DIR names PID (and START) as a run past its deadline
past() {
	rm -rf "$1" && mkdir -p "$1"
	[ -n "${3:-}" ] && echo "$3" >"$1/pid-start"
	echo "$2" >"$1/pid"
	echo $(($(uptime_ms) - 30000)) >"$1/deadline"
}
# waited: hugepar wait on $M's tree and $REC, exit code in $RC
waited() {
	timeout 30 "$HP" wait --sysroot "$M" --config /dev/null -d "$REC" >"$M.log" 2>&1
	RC=$?
}
t_wait_forged() {
	fixture wait-forged
	sleeper
	past "$REC" "$PID"
	waited
	check "the process lives on" alive "$PID"
	expect_eq "exit 1, and the record says why" "$RC $(field .error)" \
		"1 no result: pid $PID was published without its start time: not signalled"
	row "\`wait\`: a stale \`pid\` file names another process, past the deadline" \
		"$RC" "$(recorded)" "$(plain "$(field .error)" "$PID")" "the process: $(fate "$PID")"
	reap "$PID"
}
t_wait_reused() {
	fixture wait-reused
	sleeper
	mkdir -p "$M/proc/$PID" && cp "/proc/$PID/stat" "$M/proc/$PID/stat"
	past "$REC" "$PID" $(($(start_of "$PID") - 1))
	waited
	check "the process lives on" alive "$PID"
	expect_eq "exit 1" "$RC" 1
	check "the record says why" grep -q "^no result: pid $PID is another process now (started at tick" \
		<<<"$(field .error)"
	check "the log says why" grep -q "pid $PID is another process now" "$M.log"
	row "\`wait\`: the run's pid is another process's now" \
		"$RC" "$(recorded)" "$(plain "$(field .error)" "$PID")" "the process: $(fate "$PID")"
	reap "$PID"
}
t_wait_pid1() {
	fixture wait-pid1
	past "$REC" 1 1
	echo $(($(uptime_ms) + 3600000)) >"$REC/deadline" # not reached: no wait either
	waited
	expect_eq "exit 1 at once, and the record says why" "$RC $(field .error)" \
		"1 no result: pid 1 names no run of hugepar: not signalled"
	row "\`wait\`: the \`pid\` file says 1" "$RC" "$(recorded)" "$(field .error)" "-"
}
t_wait_own() {
	fixture wait-own
	sleeper
	mkdir -p "$M/proc/$PID" && cp "/proc/$PID/stat" "$M/proc/$PID/stat"
	past "$REC" "$PID" "$(start_of "$PID")"
	waited
	wait "$PID" 2>/dev/null
	expect_eq "stopped with SIGTERM (143), wait says 1" "$? $RC" "143 1"
	check "the log says so" grep -q "still running past its deadline: stopped" "$M.log"
	row "\`wait\`: its own run, proven by its start time, past the deadline" "$RC" \
		"$(recorded)" "$(plain "$(grep -m 1 "past its deadline" "$M.log")" "$PID")" \
		"the run: stopped (SIGTERM)"
}

# --- a value that cannot be put back is not lost ------------------------------------
tcase putback-kept "an earlier run's value that cannot be put back: note kept, exit 1, recover later"
tcase putback-retried "an earlier run's value put back on the run's second try: the run is ok"

# killed: a parallel run killed while its workers work, nr_overcommit_hugepages left
# raised to 400 with its restore note
killed() {
	fixture "$1"
	HUGEPAR_FAULT=collect=killmain apply -m parallel --cmdline "rd.hugepar.pages=2M:200"
	expect_eq "killed: overcommit left raised, its note" "$RC $(glob nr_overcommit_hugepages) $(notes)" \
		"137 400 restore-2048kB "
}
t_putback_kept() {
	local pid left rc
	killed putback-kept
	pid=$(sed -n 's/^pid //p' "$M/run/hugepar/restore-2048kB")
	HUGEPAR_FAULT=overcommit=EIO apply -m parallel --cmdline "rd.hugepar.pages=2M:200"
	expect_eq "exit 1, failed" "$RC $(field .status)" "1 failed"
	check "the record says why" grep -q \
		"could not be put back to 0: I/O error; its restore note is kept for hugepar recover\$" <<<"$(field .error)"
	expect_eq "not raised again: per-node writes" "$(field '.sizes[0].method_note')" \
		"an earlier run's restore note is kept: per-node writes"
	expect_eq "the pools still grew" "$(pools)" "200 200"
	expect_eq "the note kept, with the value to put back" \
		"$(notes)$(head -n 1 "$M/run/hugepar/restore-2048kB")" "restore-2048kB before 0"
	left="overcommit $(glob nr_overcommit_hugepages), notes: $(left_notes)"
	sim recover >"$M.recover" 2>&1
	rc=$?
	expect_eq "recover puts it back" "$rc $(glob nr_overcommit_hugepages) $(notes)" "0 0 "
	row "an earlier run's overcommit cannot be put back (\`overcommit=EIO\`)" "$RC" \
		"$(recorded)" "$(plain "$(field .error)" "$pid")" \
		"$left; then recover: exit $rc, overcommit $(glob nr_overcommit_hugepages)"
}
t_putback_retried() {
	killed putback-retried
	HUGEPAR_FAULT=overcommit:1=EIO apply -m parallel --cmdline "rd.hugepar.pages=2M:200"
	expect_eq "exit 0, ok" "$RC $(field .status)" "0 ok"
	expect_eq "the record says what was found" "$(field '[.recovered[] | .ok]') $(field '.sizes[0].error')" \
		"[false] nr_overcommit_hugepages put back to 0 afterwards"
	expect_eq "put back, no note" "$(glob nr_overcommit_hugepages) $(notes)" "0 "
}

# --- a run that cannot write its record ----------------------------------------------
tcase record-full "a full record filesystem (a small tmpfs): the run exits 1 and says so"
tcase record-fault "a record write refused (the seam's ENOSPC): the run exits 1 and says so"

t_record_full() {
	[ "$(id -u)" = 0 ] || { skip "needs root to mount a tmpfs"; return; }
	fixture record-full
	mkdir -p "$M/full"
	mount -t tmpfs -o size=64k,mode=0755 hugepar-hostile "$M/full" 2>/dev/null ||
		{ skip "cannot mount a tmpfs here"; return; }
	REC=$M/full/rec
	mkdir "$REC"
	dd if=/dev/zero of="$M/full/filler" bs=4k 2>/dev/null # until it is full
	apply --cmdline "rd.hugepar.pages=2M:10"
	expect_eq "exit 1" "$RC" 1
	check "says why" grep -qF "cannot write the record in $REC: No space left on device" "$M.log"
	check "says it cannot publish its pid" grep -qF "cannot publish pid in $REC: No space left on device" "$M.log"
	expect_eq "no record, no temp file" "$(ls -A "$REC")" ""
	expect_eq "the pools grew all the same" "$(pools)" "10 10"
	row "a full record filesystem (\`apply -d\` on a full tmpfs)" "$RC" \
		"none ($(ls -A "$REC" | wc -l) files in the folder)" \
		"$(plain "$(grep -m 1 "cannot write the record" "$M.log")")" "pools $(pools)"
	umount "$M/full"
}
t_record_fault() {
	fixture record-fault
	HUGEPAR_FAULT=record=ENOSPC apply --cmdline "rd.hugepar.pages=2M:10"
	expect_eq "exit 1, published" "$RC $(cat "$REC/exit")" "1 1"
	check "says why" grep -qF "cannot write the record in $REC: No space left on device" "$M.log"
	row "the record's write refused (\`record=ENOSPC\`)" "$RC" "none" \
		"$(plain "$(grep -m 1 "cannot write the record" "$M.log")")" \
		"pools $(pools); the published exit status $(cat "$REC/exit")"
}

# --- nothing the run did not create changes mode ----------------------------------
tcase mode-kept "apply -d on a directory that is there keeps its mode (0700, a sticky bit)"
t_mode_kept() {
	local mode after=""
	fixture mode-kept
	for mode in 700 1755 750; do
		rm -rf "$REC" && mkdir -m "$mode" "$REC"
		apply --cmdline "rd.hugepar.pages=2M:1"
		expect_eq "$mode: kept; the record written" "$(stat -c %a "$REC") $RC $(field .status)" "$mode 0 ok"
		after="$after $mode: $(stat -c %a "$REC"),"
	done
	row "\`apply -d\` on a folder that is there (0700, 1755, 0750)" "$RC" "$(recorded)" "-" \
		"modes after:${after%,}"
	rm -rf "$REC" "$M/run" && (umask 077 && apply --cmdline "rd.hugepar.pages=2M:1")
	expect_eq "one it makes is 0755, whatever the umask (record, lock directory)" \
		"$(stat -c %a "$REC" "$M/run/hugepar" | tr '\n' ' ')" "755 755 "
}

# --- what wait reads is published only under the run lock ---------------------------
tcase publish-locked "a second apply that fails early leaves the running one's pid and exit alone"
t_publish_locked() {
	local a i rc who ex w
	fixture publish-locked
	# the first holds the lock 3 s (host clock), once it has published
	HUGEPAR_SIM_CLOCK=host HUGEPAR_FAULT=trace,lock=delay:3000 "$HPT" --sysroot "$M" --simulate \
		apply --config /dev/null -d "$REC" --cmdline "rd.hugepar.pages=2M:1" >/dev/null 2>"$M.first" &
	a=$!
	for ((i = 0; i < 200; i++)); do
		grep -qs '^hugepar-trace lock ' "$M.first" && break
		sleep 0.05
	done
	sim apply --config "$M/nonexistent" -d "$REC" >"$M.log" 2>&1
	rc=$?
	expect_eq "the second: exit 1" "$rc" 1
	who=$(cat "$REC/pid") ex=$(cat "$REC/exit" 2>/dev/null)
	expect_eq "the first's pid stands, no exit status" "$who $ex" "$a "
	timeout 30 "$HP" wait --sysroot "$M" --config /dev/null -d "$REC" >>"$M.log" 2>&1
	w=$?
	expect_eq "wait gives the first's exit status" "$w" 0
	wait "$a"
	expect_eq "the first ended well" "$? $(field .status)" "0 ok"
	[ "$who" = "$a" ] && who="the first's"
	row "a second apply (its settings missing) while one runs" "$rc" \
		"the first's: $(field .status)" "$(plain "$(head -n 1 "$M.log")")" \
		"published pid: $who, exit status: ${ex:-none}; then wait: exit $w"
}

# --- nothing under the lock directory is followed through a link -------------------
tcase lockdir-link "a lock directory that is a link to another folder: refused, nothing made there"
tcase lock-link "a link in the place of the lock file or a note: not followed"

t_lockdir_link() {
	local rc
	fixture lockdir-link
	mkdir -p "$M/elsewhere" "$M/run"
	ln -s ../elsewhere "$M/run/hugepar"
	apply --cmdline "rd.hugepar.pages=2M:10"
	expect_eq "apply: exit 1, the record says why" "$RC $(field .error)" \
		"1 cannot take the lock in /run/hugepar: a symbolic link: not followed"
	sim recover >"$M.recover" 2>&1
	rc=$?
	expect_eq "recover: exit 1" "$rc" 1
	check "recover: says why" grep -qF "cannot take the lock in /run/hugepar: a symbolic link: not followed" "$M.recover"
	expect_eq "nothing made in the folder it points to" "$(ls -A "$M/elsewhere")" ""
	expect_eq "nothing done" "$(pools)" "0 0"
	row "the lock directory a link to another folder" "$RC" "$(recorded)" "$(field .error)" \
		"files made where it points: $(ls -A "$M/elsewhere" | wc -l); pools $(pools); then recover: exit $rc"
}
t_lock_link() {
	fixture lock-link
	mkdir -p "$M/run/hugepar"
	: >"$M/target"
	ln -s ../../target "$M/run/hugepar/lock"
	apply --cmdline "rd.hugepar.pages=2M:10"
	expect_eq "the lock: exit 1, the record says why" "$RC $(field .error)" \
		"1 cannot take the lock in /run/hugepar: a symbolic link: not followed"
	rm "$M/run/hugepar/lock"
	ln -s ../../target "$M/run/hugepar/restore-2048kB"
	"$SIMCTL" "$M" overcommit 2048 40
	printf 'before 0\nraised 40\npid 7\n' >"$M/target"
	apply --cmdline "rd.hugepar.pages=2M:10"
	expect_eq "a note: not read through the link (malformed), its value left" \
		"$(glob nr_overcommit_hugepages) $(field '.recovered[0] | [.ok, .malformed]')" "40 [false,true]"
	expect_eq "what it points to is left" "$(cat "$M/target")" "$(printf 'before 0\nraised 40\npid 7')"
}

# --- a malformed restore note is named, moved aside once, and blocks nothing --------
tcase note-malformed "a garbage restore note, pools at target: named, moved aside, apply and recover go on"
t_note_malformed() {
	local rc aside
	fixture note-malformed
	apply --cmdline "rd.hugepar.pages=2M:10"
	printf 'before x\n' >"$M/run/hugepar/restore-2048kB"
	sim recover >"$M.recover" 2>&1
	rc=$?
	expect_eq "recover: exit 0" "$rc" 0
	check "recover: names it malformed, moved aside" grep -qF \
		"2M: the restore note restore-2048kB is malformed (Invalid argument): moved aside as restore-2048kB.bad; nr_overcommit_hugepages left at 0" "$M.recover"
	aside=$(cd "$M/run/hugepar" && echo *.bad)
	expect_eq "moved aside once" "$(notes)$aside" "restore-2048kB.bad"
	row "a malformed restore note, the pools at their target (\`recover\`)" "$rc" "-" \
		"$(grep -m 1 "malformed" "$M.recover")" "notes: $(left_notes); moved aside: $aside"
	printf 'raised 9\n' >"$M/run/hugepar/restore-2048kB"
	apply --cmdline "rd.hugepar.pages=2M:10"
	expect_eq "apply: exit 0, ok" "$RC $(field .status)" "0 ok"
	expect_eq "apply: the record names it" "$(field '.recovered[] | [.malformed, .ok, .overcommit_found]')" \
		"[true,false,0]"
	row "a malformed restore note, the pools at their target (\`apply\`)" "$RC" "$(recorded)" \
		"$(field '.recovered[0].note')" "notes: $(left_notes); moved aside: $(cd "$M/run/hugepar" && echo *.bad)"
	apply --cmdline "rd.hugepar.pages=2M:10"
	expect_eq "the next apply finds nothing" "$RC $(field '.recovered | length') $(notes)" "0 0 "
	sim recover >"$M.recover" 2>&1
	expect_eq "the next recover: exit 0" "$?" 0
}

# --- the main process killed: its coordinators and workers stop with it ------------
tcase orphans "main process killed in a two-size run: nothing keeps reserving, the pools stay, recover"

# persistent pages of each node and size, from the simulated kernel's state
persistent() {
	"$SIMCTL" "$M" show | awk '/^size/ { kb = $2 } /^  node/ { printf "%s:%s:%d ", kb, $2, $4 - $8 }'
}
# the processes of a run on $M (main, coordinators, workers: one command line)
procs() { pgrep -f -- "--sysroot $M --simulate apply" | wc -l; }
t_orphans() {
	local a i before rc left
	# 6.19: both sizes by workers, a coordinator each; the cost model makes them work
	# a while, and each coordinator waits 20 s before its commit (a kill cuts it short)
	fixture orphans "release 6.19.0" "sim rate 2048 1:400" "sim rate 1048576 1:8"
	HUGEPAR_SIM_CLOCK=host HUGEPAR_FAULT=trace,commit=delay:20000 "$HPT" --sysroot "$M" --simulate \
		apply --config /dev/null -d "$REC" -m parallel --cmdline "rd.hugepar.pages=2M:200,1G:2" \
		>/dev/null 2>"$M.trace" &
	a=$!
	for ((i = 0; i < 400; i++)); do
		[ "$(grep -c '^hugepar-trace commit ' "$M.trace")" = 2 ] && break
		sleep 0.05
	done
	expect_eq "both coordinators at their commit, the workers' pages held" \
		"$(grep -c '^hugepar-trace commit ' "$M.trace")" 2
	before=$(persistent)
	kill -9 "$a"
	wait "$a" 2>/dev/null
	rc=$?
	for ((i = 0; i < 200; i++)); do
		[ "$(procs)" = 0 ] && break
		sleep 0.05
	done
	expect_eq "no process of the run is left" "$(procs)" 0
	expect_eq "the pools did not grow after the kill" "$(persistent)" "$before"
	expect_eq "no surplus held; both overcommits raised, both notes there" \
		"$(glob surplus_hugepages) $(glob surplus_hugepages 1048576) $(notes)" \
		"0 0 restore-1048576kB restore-2048kB "
	left="processes of the run left: $(procs); the pools after the kill: \
$([ "$(persistent)" = "$before" ] && echo "as at the kill" || echo "grew"); notes: $(left_notes)"
	sim recover >"$M.recover" 2>&1
	expect_eq "recover puts both back" \
		"$? $(glob nr_overcommit_hugepages) $(glob nr_overcommit_hugepages 1048576) $(notes)" "0 0 0 "
	row "SIGKILL of the main process in a two-size run, its coordinators at their commit" \
		"$rc" "$(recorded)" "-" \
		"$left; then recover: overcommit $(glob nr_overcommit_hugepages) $(glob nr_overcommit_hugepages 1048576)"
}

# --- smaller: 2^64 - 1 ------------------------------------------------------------
tcase count-sum "counts of 2^64 - 1 on two nodes: the total said is not a wrapped sum"
tcase pool-max "a pool of 2^64 - 1 in a sysroot: its boot parameters are printed whole"
t_count_sum() {
	fixture count-sum
	apply --cmdline "rd.hugepar.pages=2M:18446744073709551615"
	check "the kernel log's line says more than 2^64 - 1 was asked" \
		grep -qF "2M 6656/6656 pages (serial, more than 18446744073709551615 asked: capped)" "$M.log"
}
t_pool_max() {
	local f
	fixture pool-max
	for f in sys/kernel/mm/hugepages/hugepages-2048kB sys/devices/system/node/node0/hugepages/hugepages-2048kB; do
		echo 18446744073709551615 >"$M/$f/nr_hugepages"
	done
	expect_eq "with another node's page: both" \
		"$("$HP" cmdline --sysroot "$M" --config /dev/null --cmdline "rd.hugepar.pages=2M:1@1")" \
		"hugepagesz=2M hugepages=0:18446744073709551615,1:1"
}

# --- smaller: text that is not ASCII, and control characters ------------------------
tcase utf8 "valid UTF-8 in a setting passes through the JSON unchanged"
tcase control "control characters of a setting: escaped in the JSON, not printed raw by status"
t_utf8() {
	fixture utf8
	printf 'mount = 2M:/mnt/hug\xc3\xa9\npages = 2M:1\n' >"$M/utf8.conf"
	"$HP" plan --sysroot "$M" --config "$M/utf8.conf" --cmdline "" --json >"$M/plan.json" 2>&1
	expect_eq "plan --json" "$(jq -r '.settings.mounts[0].mount' "$M/plan.json")" "2M:/mnt/hugé"
	apply --config "$M/utf8.conf"
	expect_eq "the record" "$(field '.settings.mounts[0].mount')" "2M:/mnt/hugé"
	check "the bytes as they are, no escape" grep -qF '"2M:/mnt/hugé"' "$REC/status.json"
}
t_control() {
	local esc=$'\x1b'
	fixture control
	apply --cmdline "rd.hugepar=0 rd.hugepar.mode=ex${esc}[31mact${esc}[0m"
	expect_eq "escaped in the JSON" "$(grep -o 'ex[^"]*act[^"]*' "$REC/status.json" | head -n 1)" \
		'ex\u001b[31mact\u001b[0m'
	sim status -d "$REC" >"$M.status" 2>&1
	expect_eq "status: no control character" "$(grep -c "$esc" "$M.status")" 0
	check "status: shown as ?" grep -qF 'ex?[31mact?[0m' "$M.status"
	expect_eq "apply's own lines: no control character" "$(grep -c "$esc" "$M.log")" 0
}

# --- smaller: a FIFO where the kernel has a file ---------------------------------
tcase fifo "a FIFO as a node's meminfo, nr_hugepages or /proc/cmdline: plan and status --check return, say why"
t_fifo() {
	local f
	for f in sys/devices/system/node/node0/meminfo \
		sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages; do
		fixture fifo
		"$HP" apply --sysroot "$M" --config /dev/null -d "$REC" --cmdline "rd.hugepar=0" >/dev/null 2>&1
		rm "$M/$f" && mkfifo "$M/$f"
		timeout 10 "$HP" plan --sysroot "$M" --config /dev/null --cmdline "" >/dev/null 2>"$M.log"
		expect_eq "${f##*/}: plan returns: exit 1, says why" "$? $(cat "$M.log")" \
			"1 hugepar: cannot read the topology under $M: /${f%/nr_hugepages}: not a regular file (a FIFO, a device)"
		timeout 10 "$HP" status --sysroot "$M" -d "$REC" --check >/dev/null 2>"$M.log"
		expect_eq "${f##*/}: status --check returns: exit 1" "$?" 1
		check "${f##*/}: status --check says why" grep -qF ": not a regular file (a FIFO, a device)" "$M.log"
	done
	fixture fifo
	rm "$M/proc/cmdline" && mkfifo "$M/proc/cmdline"
	timeout 10 "$HP" plan --sysroot "$M" --config /dev/null >/dev/null 2>"$M.log"
	expect_eq "/proc/cmdline: plan returns, says it was not read" "$? $(cat "$M.log")" \
		"0 hugepar: $M/proc/cmdline: not a regular file (a FIFO, a device): not read"
}

tcase setters-files "hostile sysctl.d files: a FIFO, a link loop, a huge file, odd values and keys: named, no hang"
t_setters_files() {
	local s big
	fixture setters
	s=$M/etc/sysctl.d
	mkdir -p "$s" "$M/usr/lib/sysctl.d"
	mkfifo "$s/10-fifo.conf"
	ln -s 20-loop.conf "$s/20-loop.conf"
	big=$(printf '%*s' 300000 '' | tr ' ' '#')
	printf '%s\nvm.nr_hugepages = 5\n' "$big" >"$s/30-big.conf"
	printf 'vm.nr_hugepages = 99999999999999999999\n' >"$s/40-digits.conf"
	printf 'vm.nr_hugepages_mempolicy =\n' >"$s/50-empty.conf"
	printf -- '-vm/nr_hugepages = 12\n' >"$s/60-dash-slash.conf"
	printf 'vm.nr_huge* = 3\n-vm.nr_hugepages_mempolicy\n' >"$M/usr/lib/sysctl.d/70-glob.conf"
	timeout 10 "$HP" plan --sysroot "$M" --config /dev/null --cmdline "rd.hugepar.pages=2M:10" >"$M.out" 2>&1
	expect_eq "plan returns" "$?" 0
	for want in "/etc/sysctl.d/10-fifo.conf: hugepar cannot read it (not a regular file (a FIFO, a device)): look whether it sets vm.nr_hugepages" \
		"/etc/sysctl.d/20-loop.conf: hugepar cannot read it (Symbolic link loop): look whether it sets vm.nr_hugepages" \
		"/etc/sysctl.d/30-big.conf: hugepar cannot read it (larger than 256 KiB): look whether it sets vm.nr_hugepages" \
		"/etc/sysctl.d/40-digits.conf:1: vm.nr_hugepages = 99999999999999999999: no effect: /etc/sysctl.d/60-dash-slash.conf:1 sets it after this line" \
		"/etc/sysctl.d/50-empty.conf:1: vm.nr_hugepages_mempolicy = : no effect: a later '-vm.nr_hugepages_mempolicy' alone excludes it" \
		"/etc/sysctl.d/60-dash-slash.conf:1: -vm/nr_hugepages = 12: systemd-sysctl lowers the 2M pool from 20 to 12 pages after the root switch" \
		"/usr/lib/sysctl.d/70-glob.conf:1: vm.nr_huge* = 3: no effect: /etc/sysctl.d/60-dash-slash.conf:1 sets it after this line" \
		"/usr/lib/sysctl.d/70-glob.conf:2: -vm.nr_hugepages_mempolicy: excludes the name from the patterns of other lines; sets nothing itself"; do
		check "${want%%: *}" grep -qF "  $want" "$M.out"
	done
}

# --- smaller: settings ----------------------------------------------------------------
tcase many-replaced "100000 entries of one line, each replaced by the next, some with spaces: each named, no hang"
t_many_replaced() {
	fixture many-replaced
	{
		printf 'pages ='
		for i in $(seq 1 25000); do printf ' 2M:%d@0 2M:%d @1 1G:1@0 1 2M:%d' "$i" "$i" "$i"; done
		printf '\n'
	} >"$M/many.conf"
	# (the timeout stops a hang, which would read as a failure)
	timeout 120 "$HP" plan --sysroot "$M" --config "$M/many.conf" --cmdline "" --json >"$M.json" 2>/dev/null
	expect_eq "plan returns: exit 64 (25000 entries refused whole)" "$?" 64
	expect_eq "entries, problems, notices" \
		"$(jq -c '[(.settings.pages | length), (.settings.problems | length), ([.settings.notices[] | select(.message | startswith("not done"))] | length), ([.settings.notices[] | select(.message | startswith("taken as"))] | length)]' "$M.json")" \
		"[75000,25000,74999,25000]"
	expect_eq "the last one's pools" "$(jq -c '[.plan.nodes[].sizes[0].requested]' "$M.json")" "[25000,25000]"
}
tcase pages-empty "'pages =' with nothing after it drops the entries before it; only separators are a problem"
t_pages_empty() {
	fixture pages-empty
	printf 'pages = 2M:8\npages =\n' >"$M/empty.conf"
	"$HP" plan --sysroot "$M" --config "$M/empty.conf" --cmdline "rd.hugepar.pages=;" --json >"$M.json" 2>"$M.log"
	expect_eq "plan: exit 1 (pages asked for, none usable)" "$?" 1
	expect_eq "the separators named" "$(cat "$M.log")" \
		"hugepar: kernel command line: rd.hugepar.pages=;: expected SIZE:AMOUNT[@NODES] entries (2M:1024, 1G:4@0)"
	expect_eq "the empty value drops the entry before it, and says so" \
		"$(jq -c '[.settings.pages, [.settings.notices[].message]]' "$M.json")" \
		"[[],[\"empty: drops the 1 pages entry before it, 2M:8 ($M/empty.conf:1)\"]]"
	printf 'pages =\n' >"$M/empty.conf"
	"$HP" plan --sysroot "$M" --config "$M/empty.conf" --cmdline "" >"$M.out" 2>"$M.log"
	expect_eq "alone: nothing to drop, nothing to say" "$? $(cat "$M.log")" "0 "
	check "... and nothing is configured" grep -q "^Nothing is configured" "$M.out"
}

tcase config-proc "--config /proc/version (a file whose size says 0): read, its lines named"
t_config_proc() {
	fixture config-proc
	"$HP" plan --sysroot "$M" --config /proc/version --cmdline "" >/dev/null 2>"$M.log"
	expect_eq "exit 64: its line is a problem" "$?" 64
	check "read, its first line named" grep -q "^hugepar: /proc/version:1: Linux version .*: expected KEY = VALUE" "$M.log"
}

tcase dir-link "-d naming a symbolic link: refused, and said to be a link"
t_dir_link() {
	fixture dir-link
	mkdir -p "$M/real"
	ln -s real "$M/link"
	"$HP" apply --sysroot "$M" --config /dev/null -d "$M/link" --cmdline "rd.hugepar=0" >/dev/null 2>"$M.log"
	expect_eq "exit 1, said" "$? $(cat "$M.log")" \
		"1 hugepar: the record directory $M/link: a symbolic link: not followed"
	expect_eq "nothing written where it points" "$(ls -A "$M/real")" ""
}

tcase check-nopools "status --check of a failed record without pools: exit 1, said, not 0"
t_check_nopools() {
	fixture check-nopools
	"$HP" apply --sysroot "$M/nowhere" --config /dev/null -d "$REC" --cmdline "rd.hugepar.pages=2M:8" \
		>/dev/null 2>&1
	"$HP" status --sysroot "$M" -d "$REC" --check >/dev/null 2>"$M.log"
	expect_eq "exit 1 (the record's status)" "$?" 1
	check "says why" grep -qF "hugepar: the record has no pools to compare: the run was failed: cannot read the topology" "$M.log"
	apply --cmdline "rd.hugepar.pages=2M:8"
	sim status -d "$REC" --check >/dev/null 2>&1
	expect_eq "a record with pools: the comparison's 0" "$?" 0
}

# --- smaller: size folders that are not sizes --------------------------------------
tcase size-folders "hugepages-02048kB is not a second 2M; an empty or odd folder is skipped with a note"
t_size_folders() {
	local h=sys/kernel/mm/hugepages
	fixture size-folders
	cp -r "$M/$h/hugepages-2048kB" "$M/$h/hugepages-02048kB"
	mkdir "$M/$h/hugepages-3kB" "$M/$h/hugepages-4096kB"
	cp "$M/$h/hugepages-2048kB/nr_hugepages" "$M/$h/hugepages-3kB/"
	"$HP" plan --sysroot "$M" --config /dev/null --cmdline "rd.hugepar.pages=2M:4" --json >"$M/plan.json" 2>"$M.log"
	expect_eq "plan: exit 0, the sizes 2M and 1G" "$? $(jq -c .topology.sizes_kb "$M/plan.json")" '0 [2048,1048576]'
	expect_eq "2M planned once" "$(jq -c '[.plan.nodes[0].sizes[] | .target]' "$M/plan.json")" "[4,0]"
	for w in "hugepages-02048kB: not the kernel's name of a size: skipped" \
		"hugepages-3kB: 3 kB is not a power of two: skipped" "hugepages-4096kB: no nr_hugepages in it: skipped"; do
		check "the note: $w" grep -qF "$w" <<<"$(jq -r .topology.warning "$M/plan.json")"
	done
	apply --cmdline "rd.hugepar.pages=2M:4"
	expect_eq "apply: ok, the pools" "$RC $(field .status) $(pools)" "0 ok 4 4"
	check "apply: says the note" grep -qF "hugepar: note: hugepages-" "$M.log"
}

# --- a crash (kdump) capture kernel: hugepar stands aside --------------------------
tcase capture-cmdline "elfcorehdr= on the kernel command line: nothing done, the record says why, one line"
tcase capture-vmcore "/proc/vmcore there: nothing done, the record says why; wait and verify exit 0"

# aside WHY: apply stood aside (exit 0, disabled, WHY), changed nothing, said it once;
# wait and verify (on_short = fail, pages configured) do not fail the boot
aside() {
	local w v
	expect_eq "apply: exit 0, disabled, why" "$RC $(field '.status + ": " + .error')" "0 disabled: $1"
	check "record format" /usr/bin/python3 "$TOP/test/check-record.py" "$TOP/doc/record.md" "$REC/status.json"
	expect_eq "nothing reserved, nothing raised" "$(pools) $(glob nr_overcommit_hugepages)" "0 0 0"
	expect_eq "one line" "$(cat "$M.log")" "hugepar: $1: nothing done, its memory is the dump's"
	"$HP" wait --sysroot "$M" --config /dev/null -d "$REC" >/dev/null 2>&1
	w=$?
	expect_eq "wait: exit 0" "$w" 0
	sim verify --config /dev/null -d "$REC" ${2:+--cmdline "$2"} >"$M.verify" 2>&1
	v=$?
	expect_eq "verify: exit 0, one line" "$v $(cat "$M.verify")" "0 hugepar: verify: $1: nothing checked"
	row "$1" "$RC" "$(recorded)" "$(cat "$M.log")" \
		"pools $(pools), overcommit $(glob nr_overcommit_hugepages); then wait: exit $w, verify: exit $v"
}
t_capture_cmdline() {
	fixture capture-cmdline "cmdline BOOT_IMAGE=/vmlinuz elfcorehdr=0x7d000000 irqpoll rd.hugepar.pages=2M:10 rd.hugepar.on_short=fail"
	apply
	aside "a crash capture kernel (elfcorehdr= on its command line)"
}
t_capture_vmcore() {
	fixture capture-vmcore
	: >"$M/proc/vmcore"
	apply --cmdline "rd.hugepar.pages=2M:10"
	aside "a crash capture kernel (/proc/vmcore is there)" "rd.hugepar.pages=2M:10 rd.hugepar.on_short=fail"
}

# the fault matrix's rows, new
[ -n "${HUGEPAR_LIST:-}" ] || : >"$MATRIX"
run_cases
echo "hostile: $(summary_line)"
