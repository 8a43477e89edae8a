#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Command-line and settings tests on a fixture tree: usage errors, config files,
# conf.d order, precise messages for bad input. TESTS=cli:CASE runs only its work.
. "$(dirname "$0")/lib.sh"

tcase usage "no command, an unknown one, a bad option: exit 2; --help and --version"
tcase no-record "status without a record: exit 3, and says where it looked"
tcase unreadable "a sysroot that cannot be read: plan and apply fail, the record says why"
tcase config "a settings file of good and bad lines: each problem named, the good kept"
tcase confd "conf.d in name order, then the command line: the later wins"
tcase nothing "plan with nothing configured says so, and what it read"
tcase stale "status warns when the settings files changed since the run"
tcase if-changed "apply --if-changed: only when the files are not the record's; then the stale mark"
tcase cmdline "the kernel command line from a record and from a plan"
tcase cmdline-capped "cmdline after a free-memory cap: the request, keep_free of MemTotal, plan and record"
tcase prometheus "status --format=prometheus parses, with the run's and cells' values"
tcase check "status --check: exit 0 as recorded, 65 when pages were lost since"
tcase capped "a run the floor capped: status partial, --check of its pools passes"
tcase verify "verify: on_short continue or fail, the textfile, no record"
tcase boot-settings "the after-boot settings, each bad value named"
tcase hostile "a FIFO, links and a directory in conf.d: named, not read, no hang"
tcase nul "a NUL byte spoils its own line only"
tcase long-word "a 3000-byte padded command-line word keeps both entries"
tcase bare-key "a bare rd.hugepar.pages is a problem, not =1"
tcase missing-config "--config of a missing file: exit 1, and says so"
tcase big "counts of 2^64-1 and high bytes: the record reads back"
tcase status-exit "status exits with the record's status; an unreadable record 4"
tcase record-dir "a record directory that is a link, a file or open to others is refused"
tcase credential-smbios "the credential hugepar.conf in an SMBIOS string: taken, its lines named"
tcase credential-order "the files, then the credential, then the kernel command line: the later wins"
tcase credential-bad "a credential not base64 is a problem; the files still apply"
tcase credential-cvm "in a confidential VM the firmware's credential is not taken, and said"
tcase credential-systemd "the credential systemd passed (CREDENTIALS_DIRECTORY) comes first"
tcase setters-sysctl "vm.nr_hugepages in sysctl.d: plan, the run's record, status and the log name it and its effect"
tcase setters-cmdline "hugepages= on the kernel command line: plan and the record name the kernel's boot-time pools"
tcase setters-root "--root DIR: the sysctl files under DIR, not the running system's"
tcase credential-near-miss "a credential one letter off in its prefix, key or name: named, with what to write"
tcase credential-one-line "a literal \\n in a one-line SMBIOS credential points to the binary form"
tcase credential-split "an unquoted systemd.set_credential= split at a space: refused, with how to write it"
tcase credential-denied "firmware files this user cannot read are named, not 'Nothing is configured'"
tcase credential-advice "a credential whose entries are all wrong: plan and status say to correct the credential"
tcase root "--root DIR: the settings files under DIR, named as the system in DIR names them"

HP=$HP_BIN
HPT=$HP_TEST_BIN
SIMCTL=$HP_SIMCTL
FX=$OUT/fixtures/cli
FXS=$OUT/fixtures/cli-sim
R=$OUT/cli-sim-rec
C=$OUT/cli.conf
# fx: the fixture most cases plan on ($FX), made by the first that needs it
fx() {
	[ -n "${FX_MADE:-}" ] && return
	"$TOP/test/mkfixture.sh" "$TOP/test/machines/2n-144cpu.desc" "$FX" && FX_MADE=1
}
plan() { fx && "$HP" plan --sysroot "$FX" "$@"; }
# fxs: a machine of two nodes on the simulated kernel ($FXS), and a run's record on
# it ($R), for the cases after the boot; made by the first that needs it
fxs() {
	[ -n "${FXS_MADE:-}" ] && return
	printf '%s\n' "sizes 2048 1048576" "release 6.12.0" "node 0 cpus 0-1 mem 8G free 7G" \
		"node 1 cpus 2-3 mem 8G free 7G" >"$OUT/cli-sim.desc"
	"$TOP/test/mkfixture.sh" "$OUT/cli-sim.desc" "$FXS"
	sim apply --config /dev/null -d "$R" --cmdline "rd.hugepar.pages=2M:100,1G:1@1" >/dev/null 2>&1
	FXS_MADE=1
}
sim() { "$HPT" --sysroot "$FXS" --simulate "$@"; }

t_usage() {
	"$HP" >/dev/null 2>&1; expect_eq "no command: exit 2" $? 2
	"$HP" frob >/dev/null 2>&1; expect_eq "unknown command: exit 2" $? 2
	"$HP" plan --method=fast >/dev/null 2>&1; expect_eq "bad --method: exit 2" $? 2
	"$HP" plan --bogus >/dev/null 2>&1; expect_eq "unknown option: exit 2" $? 2
	check "--help prints usage" sh -c "'$HP' --help | grep -q '^Usage:'"
	check "--version" sh -c "'$HP' --version | grep -q '^hugepar [0-9]'"
}
t_no_record() {
	"$HP" status --record-dir "$OUT/none" >/dev/null 2>"$OUT/cli-status.err"
	expect_eq "status without a record: exit 3" $? 3
	check "status without a record: says where" grep -q "no record in $OUT/none" "$OUT/cli-status.err"
}
t_unreadable() {
	"$HP" plan --sysroot "$OUT/nowhere" --config /dev/null >/dev/null 2>"$OUT/cli-sysroot.err"
	expect_eq "missing sysroot: exit 1" $? 1
	check "missing sysroot: says why" grep -q "cannot read the topology under $OUT/nowhere" "$OUT/cli-sysroot.err"
	rm -rf "$OUT/cli-rec"
	"$HP" apply --sysroot "$OUT/nowhere" --config /dev/null --cmdline "rd.hugepar.pages=2M:8" \
		--record-dir "$OUT/cli-rec" >/dev/null 2>&1
	expect_eq "apply: exit 1" $? 1
	expect_eq "apply: record says failed" \
		"$(jq -r '.status + ": " + .error' "$OUT/cli-rec/status.json")" \
		"failed: cannot read the topology: /sys/devices/system/cpu/online: No such file or directory"
	expect_eq "apply: record keeps the settings" \
		"$(jq -r '.settings.pages[0].entry' "$OUT/cli-rec/status.json")" "2M:8"
	check "apply: record format" /usr/bin/python3 "$TOP/test/check-record.py" \
		"$TOP/doc/record.md" "$OUT/cli-rec/status.json"
}

# A config file with good and bad lines: each problem names file:line, key and value.
t_config() {
	rm -rf "$C" "$C.d"
	cat >"$C" <<'CONF'
# comment
pages = 2M:1024 2M:zz@0 1G:2@1  # trailing comment
bogus = 1
threads = many
mode=exact
keep_free = 1G
timeout = 0
no equals sign
pages = 4M:1 2M:8@9
CONF
	plan --config "$C" --cmdline "" >"$OUT/cli-conf.out" 2>"$OUT/cli-conf.err"
	expect_eq "bad lines: exit 64 (plan still made)" $? 64
	for want in "$C:2: pages=2M:zz@0: amount 'zz' is malformed" \
		"$C:3: bogus=1: unknown key" \
		"$C:4: threads=many: expected 'auto' or a count from 1 to 4096" \
		"$C:7: timeout=0: expected seconds (90, 90s) or a time with units (2min, 1m30s, 500ms), more than 0 and at most 3600s (1h)" \
		"$C:8: no equals sign: expected KEY = VALUE" \
		"$C:9: pages=4M:1: page size 4M is not offered by the kernel (it offers 2M 1G)" \
		"$C:9: pages=2M:8@9: node 9 does not exist"; do
		check "message: $want" grep -qF "$want" "$OUT/cli-conf.err"
	done
	expect_eq "7 messages" "$(wc -l <"$OUT/cli-conf.err")" 7
	check "valid entries kept" grep -q "^0 *2M *0 *1024 *1024" "$OUT/cli-conf.out"
	check "valid 1G entry kept" grep -q "^1 *1G *0 *2 *2" "$OUT/cli-conf.out"
	check "mode and keep_free taken" grep -q "^Plan: mode exact, keep_free 1G per node" "$OUT/cli-conf.out"
}

# conf.d in name order, then the command line; later wins.
t_confd() {
	rm -rf "$C" "$C.d"
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
	expect_eq "last in name order wins" "$(jq -r .settings.threads "$OUT/cli-merge.json")" 3
	expect_eq "sources in order" \
		"$(jq -r '[.settings.sources[] | split("/") | last] | join(",")' "$OUT/cli-merge.json")" \
		"cli.conf,10-a.conf,15-p.conf,20-b.conf"
	expect_eq "per-node override" "$(jq -c '[.plan.nodes[].sizes[0].target]' "$OUT/cli-merge.json")" "[100,7]"
	plan --config "$C" --cmdline "rd.hugepar.threads=6 rd.hugepar.pages=2M:50@0" --json >"$OUT/cli-merge2.json" 2>&1
	expect_eq "command line wins" "$(jq -r .plan.threads "$OUT/cli-merge2.json")" 6
	expect_eq "command line entry wins per node" \
		"$(jq -c '[.plan.nodes[].sizes[0].target]' "$OUT/cli-merge2.json")" "[50,7]"
	plan --config "$C" --cmdline "rd.hugepar=0" >"$OUT/cli-off.out" 2>&1
	check "off switch shown first" sh -c 'head -1 "$1" | grep -qx "Disabled by rd.hugepar=0 (kernel command line): the boot changes no pool (what the settings ask is below)."' _ "$OUT/cli-off.out"
	check "... and no change column" sh -c '! grep -q CHANGE "$1"' _ "$OUT/cli-off.out"
}

# plan says what it read, and when nothing is configured, that and how to configure
t_nothing() {
	plan --config /dev/null --cmdline "quiet" >"$OUT/cli-none.out" 2>&1
	check "configured: says so" grep -q "^Nothing is configured: no 'pages =' in the settings files" "$OUT/cli-none.out"
	check "settings read: listed" grep -qx "Settings read: /dev/null" "$OUT/cli-none.out"
}

# status warns when the settings files changed since the run that made the record
t_stale() {
	fx
	S=$OUT/cli-stale.conf
	rm -rf "$S.d" "$OUT/cli-stale"
	echo "pages = 2M:10" >"$S"
	"$HP" apply --sysroot "$FX" --config "$S" --record-dir "$OUT/cli-stale" --cmdline "rd.hugepar=0" >/dev/null 2>&1
	"$HP" status -d "$OUT/cli-stale" >/dev/null 2>"$OUT/cli-stale.err"
	expect_eq "settings unchanged: no warning" "$(cat "$OUT/cli-stale.err")" ""
	mkdir -p "$S.d" && echo "mode = exact" >"$S.d/10-x.conf"
	"$HP" status -d "$OUT/cli-stale" >/dev/null 2>"$OUT/cli-stale.err"
	check "a file added to .d: warns" grep -qF "warning: $S or $S.d has changed since this run read it" "$OUT/cli-stale.err"
	rm -rf "$S.d" && echo "pages = 2M:20" >"$S"
	"$HP" status -d "$OUT/cli-stale" --json >/dev/null 2>"$OUT/cli-stale.err"
	check "a changed file: warns (also with --json)" grep -qF "build it again: update-initramfs -u -k all (initramfs-tools), dracut --regenerate-all --force (dracut)" "$OUT/cli-stale.err"
}

# apply --if-changed on the booted system, as hugepar-verify.service runs it: the
# initramfs's run read S; a drop-in written since (cloud-init's user data) is taken
# then, and marked for a new initramfs; unchanged files, nothing
t_if_changed() {
	local fx=$OUT/cli-ifc R2=$OUT/cli-ifc.rec S=$OUT/cli-ifc.conf rc
	printf '%s\n' "sizes 2048" "node 0 cpus 0-1 mem 8G free 7G" "node 1 cpus 2-3 mem 8G free 7G" >"$fx.desc"
	rm -rf "$R2" "$S.d" && mkdir -p "$R2" && "$TOP/test/mkfixture.sh" "$fx.desc" "$fx" || return
	ifc() { "$HPT" --sysroot "$fx" --simulate apply --config "$S" -d "$R2" --cmdline "" "$@"; }
	echo "pages = 2M:10" >"$S"
	ifc >/dev/null 2>&1
	cp "$R2/status.json" "$OUT/cli-ifc.first"
	ifc --if-changed >"$OUT/cli-ifc.out" 2>&1
	expect_eq "the same files: exit 0" $? 0
	check "the same files: nothing to do, said" grep -q "are those the last run read (fnv1a64:[0-9a-f]*): nothing to do" "$OUT/cli-ifc.out"
	check "the same files: the record untouched" cmp -s "$R2/status.json" "$OUT/cli-ifc.first"
	check "the same files: no stale mark" test ! -e "$R2/initramfs-stale"
	mkdir -p "$S.d" && echo "pages = 2M:30" >"$S.d/90-user-data.conf"
	ifc --if-changed >"$OUT/cli-ifc.out" 2>&1
	expect_eq "a drop-in added: applied, exit 0" $? 0
	expect_eq "a drop-in added: its pools" "$(cat "$fx"/sys/devices/system/node/node[01]/hugepages/hugepages-2048kB/nr_hugepages | paste -sd' ')" "30 30"
	check "a drop-in added: said" grep -q "are not those the initramfs read (fnv1a64:[0-9a-f]*): applying them now" "$OUT/cli-ifc.out"
	expect_eq "a drop-in added: the record names where the entry came from" \
		"$(jq -r '.settings.pages[-1] | .entry + " " + .origin' "$R2/status.json")" "2M:30 $S.d/90-user-data.conf:1"
	expect_eq "a drop-in added: the stale mark holds the record's digest" \
		"$(cat "$R2/initramfs-stale" 2>&1)" "$(jq -r .settings.digest "$R2/status.json")"
	rm -f "$R2/initramfs-stale"
	ifc --if-changed >"$OUT/cli-ifc.out" 2>&1
	check "then the same again: nothing to do" grep -q "nothing to do" "$OUT/cli-ifc.out"
	check "then the same again: no stale mark" test ! -e "$R2/initramfs-stale"
	rm -rf "$R2" && mkdir -p "$R2"
	ifc --if-changed >"$OUT/cli-ifc.out" 2>&1
	rc=$?
	expect_eq "no record (not in the initramfs): applied" "$rc $(jq -r .status "$R2/status.json")" "0 ok"
	check "no record: the stale mark" test -s "$R2/initramfs-stale"
	"$HPT" --sysroot "$fx" --simulate apply --config "$S" -d "$R2" --cmdline "" --if-changed --method=fast >/dev/null 2>&1
	expect_eq "--if-changed with a bad option: exit 2" $? 2
}

# --- after the boot: the kernel command line, Prometheus, --check, verify ---------
t_cmdline() {
	fx && fxs
	expect_eq "from the record" "$(sim cmdline --from record -d "$R")" \
		"hugepagesz=1G hugepages=1:1 hugepagesz=2M hugepages=0:100,1:100"
	expect_eq "from the plan" \
		"$("$HP" cmdline --sysroot "$FX" --config /dev/null --cmdline "rd.hugepar.pages=2M:64G@0,1G:16@1")" \
		"hugepagesz=1G hugepages=1:16 hugepagesz=2M hugepages=0:32768"
}
# Free memory capped node 1 at 256 of 3000 pages (1 GiB free, 512M kept free): the
# kernel parameters ask for the 3000, which its 8 GiB less 512M hold; with 7.5 GiB
# kept free, what that leaves (256 pages). The plans first: the run changes the
# fixture's pools.
t_cmdline_capped() {
	local d=$OUT/cli-cap fx=$OUT/fixtures/cli-cap asked="rd.hugepar.pages=2M:3000 rd.hugepar.keep_free=512M"
	printf '%s\n' "sizes 2048 1048576" "release 6.12.0" "node 0 cpus 0-1 mem 8G free 7G" \
		"node 1 cpus 2-3 mem 8G free 1G" >"$OUT/cli-cap.desc"
	"$TOP/test/mkfixture.sh" "$OUT/cli-cap.desc" "$fx"
	expect_eq "from the plan: the request" \
		"$("$HP" cmdline --sysroot "$fx" --config /dev/null --cmdline "$asked" -d "$OUT/none" --now)" \
		"hugepagesz=2M hugepages=0:3000,1:3000"
	expect_eq "keep_free of MemTotal still applied" \
		"$("$HP" cmdline --sysroot "$fx" --config /dev/null -d "$OUT/none" --now \
			--cmdline "rd.hugepar.pages=2M:3000@1 rd.hugepar.keep_free=7680M")" "hugepagesz=2M hugepages=1:256"
	rm -rf "$d"
	"$HPT" --sysroot "$fx" --simulate apply --config /dev/null -d "$d" --cmdline "$asked" >/dev/null 2>&1
	expect_eq "the run: node 1 capped by free memory" \
		"$(jq -r '.nodes[1].sizes[0] | "\(.requested) \(.target) \(.cause)"' "$d/status.json")" "3000 256 free_memory"
	expect_eq "from the record: the request" "$("$HPT" --sysroot "$fx" cmdline --from record -d "$d")" \
		"hugepagesz=2M hugepages=0:3000,1:3000"
}
t_prometheus() {
	fxs
	sim status -d "$R" --format=prometheus >"$OUT/cli.prom"
	if /usr/bin/python3 "$TOP/test/check-prometheus.py" "$OUT/cli.prom" >"$OUT/cli.prom.txt" 2>&1; then
		pass "parsed by the Prometheus client's parser"
		for want in "hugepar_achieved_pages{node=0,size=2M} 100" "hugepar_requested_pages{node=1,size=1G} 1" \
			"hugepar_live_pages{node=1,size=2M} 100" "hugepar_run_status{status=ok} 1" \
			"hugepar_cell_status{node=0,size=2M,status=ok} 1" "hugepar_info{kernel=6.12.0,version=$("$HP" --version | cut -d' ' -f2)} 1"; do
			check "$want" grep -qxF "$want" "$OUT/cli.prom.txt"
		done
	else
		fail "the parser refused it: $(tail -1 "$OUT/cli.prom.txt")"
	fi
}
t_check() {
	fxs
	sim status -d "$R" --check >"$OUT/cli-check.out"
	expect_eq "status --check as recorded: exit 0" "$?" 0
	"$SIMCTL" "$FXS" write 2048 0 40
	sim status -d "$R" --check >"$OUT/cli-check.out"
	expect_eq "status --check, pages lost since: exit 65" "$?" 65
	check "status --check says where" grep -qF "node 0 2M: 40 pages now, 100 when the run ended" "$OUT/cli-check.out"
}
# A run the floor capped: status says partial (64); --check compares the pools with
# the record only, and they are as the run left them (0).
t_capped() {
	fxs
	FXP=$OUT/fixtures/cli-sim-capped
	"$TOP/test/mkfixture.sh" "$OUT/cli-sim.desc" "$FXP"
	simp() { "$HPT" --sysroot "$FXP" --simulate "$@"; }
	simp apply --config /dev/null -d "$OUT/cli-capped" --cmdline "rd.hugepar.pages=2M:100 rd.hugepar.keep_free=7100M" >/dev/null 2>&1
	expect_eq "status of a run the floor capped: exit 64" "$(simp status -d "$OUT/cli-capped" >/dev/null; echo $?)" 64
	expect_eq "status --check of a capped run, pools as it left them: exit 0" \
		"$(simp status -d "$OUT/cli-capped" --check >"$OUT/cli-check-capped.out"; echo $?)" 0
}
t_verify() {
	fxs
	"$SIMCTL" "$FXS" write 2048 0 40 # 40 of the 100 pages the run left on node 0
	mkdir -p "$OUT/cli-textfile"
	rm -f "$OUT/cli-textfile/h.prom"
	sim verify -d "$R" --config /dev/null --cmdline "rd.hugepar.pages=2M:100 rd.hugepar.textfile=$OUT/cli-textfile/h.prom" >"$OUT/cli-verify.out"
	expect_eq "on_short = continue: short but exit 0" "$?" 0
	check "says what is short" grep -qF "node 0 2M: 40 of 100 pages asked for" "$OUT/cli-verify.out"
	expect_eq "the textfile, 0644" "$(stat -c %a "$OUT/cli-textfile/h.prom")" 644
	check "the textfile parses" sh -c "/usr/bin/python3 '$TOP/test/check-prometheus.py' '$OUT/cli-textfile/h.prom' >/dev/null"
	sim verify -d "$R" --config /dev/null --cmdline "rd.hugepar.pages=2M:100 rd.hugepar.on_short=fail" >/dev/null
	expect_eq "on_short = fail: exit 1" "$?" 1
	"$SIMCTL" "$FXS" write 2048 0 100
	sim verify -d "$R" --config /dev/null --cmdline "rd.hugepar.pages=2M:100 rd.hugepar.on_short=fail" >/dev/null
	expect_eq "on_short = fail, nothing short: exit 0" "$?" 0
	sim verify -d "$OUT/no-record" --config /dev/null --cmdline "rd.hugepar.pages=2M:100 rd.hugepar.on_short=fail" >"$OUT/cli-verify.out" 2>&1
	expect_eq "pages configured but no record, on_short = fail: exit 1" "$?" 1
	sim verify -d "$OUT/no-record" --config /dev/null --cmdline "" >/dev/null 2>&1
	expect_eq "nothing configured and no record: exit 0" "$?" 0
}
t_boot_settings() {
	plan --config /dev/null --cmdline "rd.hugepar.on_short=maybe rd.hugepar.granularity=7 rd.hugepar.mount=2M:rel rd.hugepar.mount=3M:/x rd.hugepar.textfile=rel" >/dev/null 2>"$OUT/cli-after.err"
	for want in "rd.hugepar.on_short=maybe: expected 'continue' or 'fail'" \
		"rd.hugepar.granularity=7: expected 'auto', a size like 1G or a share like 2%" \
		"rd.hugepar.mount=2M:rel: expected SIZE:/PATH[,owner=U][,group=G][,mode=OCTAL]" \
		"rd.hugepar.mount=3M:/x: page size 3M is not offered by the kernel" \
		"rd.hugepar.textfile=rel: expected an absolute path or 'none'"; do
		check "after-boot settings: $want" grep -qF "$want" "$OUT/cli-after.err"
	done
}

# --- hostile input: nothing hangs, nothing is cut without a word ---------------------
# A FIFO, a link to /dev/zero, a dangling link and a directory named *.conf in conf.d:
# plan neither hangs nor reads them, and names each.
t_hostile() {
	fx
	rm -rf "$C.d" && mkdir -p "$C.d"
	echo "threads = 4" >"$C"
	mkfifo "$C.d/10-fifo.conf"
	ln -s /dev/zero "$C.d/20-zero.conf"
	ln -s /nonexistent "$C.d/30-dangling.conf"
	mkdir "$C.d/40-dir.conf"
	echo "mode = exact" >"$C.d/50-ok.conf"
	# (the timeout stops a hang, which would read as a failure)
	timeout 10 "$HP" plan --sysroot "$FX" --config "$C" --cmdline "" --json >"$OUT/cli-hostile.json" 2>"$OUT/cli-hostile.err"
	expect_eq "conf.d: plan returns (64: problems)" $? 64
	for want in "10-fifo.conf: a FIFO, not a regular file: not read" \
		"20-zero.conf: a character device, not a regular file: not read" \
		"30-dangling.conf: a symbolic link to nothing: not read" \
		"40-dir.conf: a directory, not a regular file: not read"; do
		check "conf.d: $want" grep -qF "$want" "$OUT/cli-hostile.err"
	done
	expect_eq "conf.d: the good files still count" \
		"$(jq -c '[.settings.threads, .settings.mode]' "$OUT/cli-hostile.json")" '[4,"exact"]'
	rm -rf "$C.d"
}

# A NUL byte spoils its own line only; a padded command-line word keeps its meaning.
t_nul() {
	rm -rf "$C.d"
	printf 'threads = 3\nmode = ex\0act\ntimeout = 7\n' >"$C"
	plan --config "$C" --cmdline "" --json >"$OUT/cli-nul.json" 2>"$OUT/cli-nul.err"
	expect_eq "the lines around it" \
		"$(jq -c '[.settings.threads, .settings.timeout_ms, .settings.mode]' "$OUT/cli-nul.json")" '[3,7000,"grow"]'
	check "named" grep -qF "$C:2: a NUL byte in the line: not read" "$OUT/cli-nul.err"
}
t_long_word() {
	pad=$(printf '%*s' 3000 '' | tr ' ' ';')
	plan --config /dev/null --cmdline "rd.hugepar.pages=2M:1@0;${pad}2M:123@1" --json >"$OUT/cli-pad.json" 2>&1
	expect_eq "a 3000-byte word: both entries" \
		"$(jq -c '[.plan.nodes[].sizes[0].requested]' "$OUT/cli-pad.json")" "[1,123]"
}
t_bare_key() {
	plan --config /dev/null --cmdline "rd.hugepar.pages" >/dev/null 2>"$OUT/cli-bare.err"
	expect_eq "exit 1: pages asked for, no entry usable (as apply)" $? 1
	check "not =1" grep -qxF "hugepar: kernel command line: rd.hugepar.pages: expected rd.hugepar.pages=VALUE" "$OUT/cli-bare.err"
}
t_missing_config() {
	plan --config "$OUT/no-such.conf" >/dev/null 2>"$OUT/cli-noconf.err"
	expect_eq "--config of a missing file: exit 1" $? 1
	check "--config of a missing file: says so" grep -qF "$OUT/no-such.conf: No such file or directory" "$OUT/cli-noconf.err"
}

# Counts of 2^63 and more and bytes above 0x7f: the record reads back, in hugepar and
# in a strict JSON parser (Python's: jq 1.6 rounds integers above 2^53).
t_big() {
	fx
	rm -rf "$OUT/cli-big"
	"$HP" apply --sysroot "$FX" --config /dev/null --record-dir "$OUT/cli-big" \
		--cmdline "rd.hugepar=0 rd.hugepar.pages=2M:18446744073709551615@0,2M:9223372036854775808@1 rd.hugepar.mode=$(printf 'ex\xff\x80')" >/dev/null 2>&1
	expect_eq "counts: requested as given" \
		"$(/usr/bin/python3 "$TOP/test/check-record.py" --get 'nodes[].sizes[0].requested' "$OUT/cli-big/status.json")" \
		"18446744073709551615 9223372036854775808"
	expect_eq "high bytes: escaped, read back (the code points)" \
		"$(jq -c '.settings.problems[0].value | explode' "$OUT/cli-big/status.json")" "[101,120,255,128]"
	"$HP" status -d "$OUT/cli-big" >"$OUT/cli-big.out"
	expect_eq "counts: status reads its record (disabled: exit 0)" $? 0
	check "counts: status says it was disabled" grep -qx "Disabled by rd.hugepar=0 (kernel command line): no pool was changed." "$OUT/cli-big.out"
	"$HP" status -d "$OUT/cli-big" --format=prometheus >"$OUT/cli-big.prom"
	check "counts: the gauges show them" grep -qx 'hugepar_requested_pages{node="0",size="2M"} 18446744073709551615' "$OUT/cli-big.prom"
}

# status: the exit code follows the record; none and unreadable are told apart
t_status_exit() {
	mkdir -p "$OUT/cli-st"
	for st in ok:0 partial:64 failed:1 disabled:0; do
		jq -n --arg s "${st%%:*}" '{format: 2, status: $s, version: "x", kernel: "y"}' >"$OUT/cli-st/status.json"
		"$HP" status -d "$OUT/cli-st" >/dev/null 2>&1
		expect_eq "status of a ${st%%:*} record: exit ${st#*:}" $? "${st#*:}"
	done
	echo '{"status": "ok", ' >"$OUT/cli-st/status.json"
	"$HP" status -d "$OUT/cli-st" >/dev/null 2>&1
	expect_eq "status of an unreadable record: exit 4" $? 4
}

# The record directory: a symbolic link, a plain file, or writable by others is
# refused; one made under umask 077 is 0755.
t_record_dir() {
	fx
	rm -rf "$OUT/cli-dir" "$OUT/cli-link" "$OUT/cli-file"
	mkdir -p "$OUT/cli-dir"
	ln -s "$OUT/cli-dir" "$OUT/cli-link"
	: >"$OUT/cli-file"
	for d in cli-link cli-file; do
		"$HP" apply --sysroot "$FX" --config /dev/null --record-dir "$OUT/$d" --cmdline "rd.hugepar=0" >/dev/null 2>"$OUT/$d.err"
		expect_eq "$d: refused" $? 1
		check "$d: says so" grep -q "the record directory $OUT/$d: " "$OUT/$d.err"
	done
	if [ "$(id -u)" = 0 ]; then
		chown 65534 "$OUT/cli-dir"
		"$HP" apply --sysroot "$FX" --config /dev/null --record-dir "$OUT/cli-dir" --cmdline "rd.hugepar=0" >/dev/null 2>&1
		expect_eq "of another user: refused" $? 1
		chown 0 "$OUT/cli-dir"
	fi
	chmod 0777 "$OUT/cli-dir"
	"$HP" apply --sysroot "$FX" --config /dev/null --record-dir "$OUT/cli-dir" --cmdline "rd.hugepar=0" >/dev/null 2>&1
	expect_eq "writable by others: refused" $? 1
	rm -rf "$OUT/cli-dir"
	(umask 077 && "$HP" apply --sysroot "$FX" --config /dev/null --record-dir "$OUT/cli-dir/rec" --cmdline "rd.hugepar=0" >/dev/null 2>&1)
	expect_eq "made under umask 077: 0755" "$(stat -c %a "$OUT/cli-dir/rec")" 755
}

# credfx NAME LINE...: a two-node fixture with the mkfixture LINEs (smbios11, fwcfg,
# cpuflags), in $CF
credfx() {
	CF=$OUT/fixtures/cli-cred-$1
	shift
	printf '%s\n' "sizes 2048 1048576" "node 0 cpus 0-1 mem 8G free 7G" "node 1 cpus 2-3 mem 8G free 7G" "$@" \
		>"$OUT/cli-cred.desc"
	"$TOP/test/mkfixture.sh" "$OUT/cli-cred.desc" "$CF"
}
# credplan FILTER ARG...: jq's FILTER of hugepar plan --json on $CF
credplan() {
	local f=$1
	shift
	"$HP" plan --sysroot "$CF" --json "$@" 2>/dev/null | jq -c "$f"
}
t_credential_smbios() {
	credfx smbios 'smbios11 io.systemd.credential:hugepar.conf=pages = 2M:100@1\nthreads = 2'
	expect_eq "taken, each line named" \
		"$(credplan '[(.settings.pages[] | .entry + " " + .origin), .settings.threads, .settings.sources]' --config /dev/null --cmdline "")" \
		'["2M:100@1 credential hugepar.conf (smbios):1",2,["/dev/null","credential hugepar.conf (smbios)"]]'
	expect_eq "not in the files' digest" \
		"$(credplan .settings.digest --config /dev/null --cmdline "")" \
		"$("$HP" plan --sysroot "$FX" --config /dev/null --cmdline "" --json 2>/dev/null | jq -c .settings.digest)"
}
t_credential_order() {
	fx
	printf '%s\n' "pages = 2M:10" "keep_free = 256M" >"$C"
	credfx order 'fwcfg hugepar.conf pages = 2M:20@1\nkeep_free = 1G\n' \
		'smbios11 io.systemd.credential:hugepar.conf=pages = 2M:30'
	expect_eq "node 0 the file's, node 1 the credential's, keep_free the command line's" \
		"$(credplan '[[.plan.nodes[].sizes[0].requested], .settings.keep_free]' --config "$C" --cmdline "rd.hugepar.keep_free=2G")" \
		'[[10,20],"2G"]'
	expect_eq "fw_cfg comes first; SMBIOS's said" \
		"$(credplan '[.settings.notices[] | .origin + ": " + .message]' --config "$C" --cmdline "")" \
		'["credential hugepar.conf (smbios): not read: the one from fw_cfg comes first, as systemd takes it"]'
}
t_credential_bad() {
	credfx bad 'smbios11 io.systemd.credential.binary:hugepar.conf=not*base64'
	printf 'pages = 2M:10\n' >"$C"
	"$HP" plan --sysroot "$CF" --config "$C" --cmdline "" >/dev/null 2>"$OUT/cli-cred-bad.err"
	expect_eq "a problem: exit 64" $? 64
	expect_eq "said" "$(cat "$OUT/cli-cred-bad.err")" \
		"hugepar: credential hugepar.conf (smbios): its binary form is not base64: not read"
	expect_eq "the file applies" "$(credplan '[.plan.nodes[].sizes[0].requested]' --config "$C" --cmdline "")" "[10,10]"
}
t_credential_cvm() {
	credfx cvm 'smbios11 io.systemd.credential:hugepar.conf=pages = 2M:30' 'cpuflags fpu hypervisor sev sev_es'
	expect_eq "an SEV guest: not taken, said" \
		"$(credplan '[(.settings.pages | length), (.settings.notices[] | .message)]' --config /dev/null \
			--cmdline "systemd.set_credential=hugepar.conf:pages=2M:5")" \
		'[1,"not read: this is an AMD SEV guest (sev), and its firmware is the host'"'"'s, which it does not trust (as systemd does not)"]'
	expect_eq "the command line's taken there" \
		"$(credplan '.settings.pages[0].origin' --config /dev/null --cmdline "systemd.set_credential=hugepar.conf:pages=2M:5")" \
		'"credential hugepar.conf (kernel command line):1"'
}
t_credential_systemd() {
	credfx systemd 'smbios11 io.systemd.credential:hugepar.conf=pages = 2M:30'
	mkdir -p "$OUT/cli-creds" && printf 'pages = 2M:40\n' >"$OUT/cli-creds/hugepar.conf"
	expect_eq "systemd's, then SMBIOS's said" \
		"$(CREDENTIALS_DIRECTORY=$OUT/cli-creds credplan '[.settings.pages[0].origin, (.settings.notices | length)]' --config /dev/null --cmdline "")" \
		'["credential hugepar.conf (systemd):1",1]'
}
# A sysctl.d file that raises the 2M pool after the root switch, and one of the same
# name in /usr/lib that it replaces: plan names both, the run's record and status
# name them, the run's log warns of the one in force.
SYSCTL_LINE="/etc/sysctl.d/90-hp.conf:2: vm.nr_hugepages = 1024: systemd-sysctl raises the 2M pool from 200 to 1024 pages after the root switch: the kernel adds 824 more over the nodes in turn (about 412 a node), beside hugepar's (node 0: 100, node 1: 100)"
t_setters_sysctl() {
	local fx=$OUT/fixtures/cli-setters d=$OUT/cli-setters
	printf '%s\n' "sizes 2048 1048576" "release 6.12.0" "node 0 cpus 0-1 mem 8G free 7G" \
		"node 1 cpus 2-3 mem 8G free 7G" >"$OUT/cli-setters.desc"
	"$TOP/test/mkfixture.sh" "$OUT/cli-setters.desc" "$fx"
	mkdir -p "$fx/etc/sysctl.d" "$fx/usr/lib/sysctl.d"
	printf '# the pool\nvm.nr_hugepages = 1024\n' >"$fx/etc/sysctl.d/90-hp.conf"
	printf 'vm.nr_hugepages = 64\n' >"$fx/usr/lib/sysctl.d/90-hp.conf"
	"$HP" plan --sysroot "$fx" --config /dev/null --cmdline "rd.hugepar.pages=2M:100" >"$d.plan" 2>&1
	check "plan names it, and what it will do" grep -qxF "  $SYSCTL_LINE" "$d.plan"
	check "plan names the file it replaces" grep -qxF "  /usr/lib/sysctl.d/90-hp.conf:1: vm.nr_hugepages = 64: not read: /etc/sysctl.d/90-hp.conf, of the same name, replaces it (the earlier folder's file wins)" "$d.plan"
	check "plan says how many are in force" grep -qxF "Other setters of the pools (2, 1 in force):" "$d.plan"
	expect_eq "plan --json" "$("$HP" plan --sysroot "$fx" --config /dev/null --cmdline "rd.hugepar.pages=2M:100" --json |
		jq -c '[.setters[] | [.origin, .in_force]]')" '[["/etc/sysctl.d/90-hp.conf:2",true],["/usr/lib/sysctl.d/90-hp.conf:1",false]]'
	rm -rf "$d"
	"$HPT" --sysroot "$fx" --simulate apply --config /dev/null -d "$d" --cmdline "rd.hugepar.pages=2M:100" >"$d.log" 2>&1
	check "the run warns of it" grep -qxF "hugepar: $SYSCTL_LINE" "$d.log"
	expect_eq "the record has it" "$(jq -r '.setters[0] | "\(.origin): \(.setting): \(.effect)"' "$d/status.json")" \
		"${SYSCTL_LINE}"
	check "record format" /usr/bin/python3 "$TOP/test/check-record.py" "$TOP/doc/record.md" "$d/status.json"
	"$HPT" --sysroot "$fx" status -d "$d" >"$d.status"
	check "status names it" grep -qxF "  $SYSCTL_LINE" "$d.status"
}
# hugepages= and hugepagesz= on the fixture's kernel command line
t_setters_cmdline() {
	local fx=$OUT/fixtures/cli-setters-k d=$OUT/cli-setters-k
	printf '%s\n' "sizes 2048 1048576" "release 6.12.0" "node 0 cpus 0-1 mem 8G free 7G" \
		"node 1 cpus 2-3 mem 8G free 7G" "cmdline BOOT_IMAGE=/vmlinuz hugepagesz=1G hugepages=2 hugepagesz=2M hugepages=0:512,1:0 quiet" \
		>"$OUT/cli-setters-k.desc"
	"$TOP/test/mkfixture.sh" "$OUT/cli-setters-k.desc" "$fx"
	"$HP" plan --sysroot "$fx" --config /dev/null >"$d.plan" 2>&1
	check "plan names the 1G pools" grep -qxF "  kernel command line: hugepagesz=1G hugepages=2: the kernel reserves 2 1G pages at boot, over the nodes in turn, before hugepar runs; hugepar counts them as the pool before and has no entry for the size: they stay" "$d.plan"
	"$HP" plan --sysroot "$fx" --config /dev/null --cmdline "$(cat "$fx/proc/cmdline") rd.hugepar.pages=2M:100" >"$d.plan2" 2>&1
	check "more than an entry asks: grow mode keeps them, in force" grep -qF "  kernel command line: hugepagesz=2M hugepages=0:512,1:0: the kernel reserves 512 2M pages at boot, on the nodes named (0:512,1:0), before hugepar runs; hugepar counts them as the pool before and keeps them where they are more than it asks (mode = grow: node 0: 512 of 100)" "$d.plan2"
	check "plan names the 2M pools, per node" grep -qF "  kernel command line: hugepagesz=2M hugepages=0:512,1:0: the kernel reserves 512 2M pages at boot, on the nodes named (0:512,1:0)," "$d.plan"
	rm -rf "$d"
	"$HPT" --sysroot "$fx" --simulate apply --config /dev/null -d "$d" >/dev/null 2>&1
	expect_eq "the record has them" "$(jq -c '[.setters[] | .setting]' "$d/status.json")" \
		'["hugepagesz=1G hugepages=2","hugepagesz=2M hugepages=0:512,1:0"]'
}
# plan --root DIR reads the sysctl files of the root to be, not the sysroot's
t_setters_root() {
	local r=$OUT/cli-setters-root
	fx
	rm -rf "$r" && mkdir -p "$r/etc/sysctl.d"
	printf 'vm.nr_hugepages=8\n' >"$r/etc/sysctl.d/80-x.conf"
	expect_eq "under DIR, named as the root names it" \
		"$(plan --root "$r" --cmdline "" --json 2>/dev/null | jq -r '.setters[].origin')" "/etc/sysctl.d/80-x.conf:1"
	expect_eq "not without it" "$(plan --cmdline "" --json 2>/dev/null | jq -r '.setters | length')" 0
}
t_credential_near_miss() {
	credfx miss 'smbios11 io.systemd.credentials:hugepar.conf=pages = 2M:10' \
		'smbios11 io.systemd.credential:hugepar=pages = 2M:11' \
		'smbios11 io.systemd.credential:passwd.hashed-password.root=x' 'fwcfg hugepar.cfg pages = 2M:12'
	"$HP" plan --sysroot "$CF" --config /dev/null --cmdline "systemd.set_credential=hugepar.config:pages=2M:1" \
		>"$OUT/cli-miss.out" 2>"$OUT/cli-miss.err"
	expect_eq "a problem each: exit 64" $? 64
	expect_eq "each named, with what to write" "$(cat "$OUT/cli-miss.err")" \
		"hugepar: credential hugepar.conf (fw_cfg): hugepar.cfg: not read: write it as opt/io.systemd.credentials/hugepar.conf
hugepar: credential hugepar.conf (smbios): io.systemd.credentials:hugepar.conf: not read: write io.systemd.credential:hugepar.conf=...
hugepar: credential hugepar.conf (smbios): io.systemd.credential:hugepar: not read: write io.systemd.credential:hugepar.conf=...
hugepar: credential hugepar.conf (kernel command line): systemd.set_credential=hugepar.config: not read: write systemd.set_credential=hugepar.conf:..."
	check "not 'Nothing is configured'" grep -q "^Nothing is configured that could be read: the credential hugepar.conf was given, and not$" "$OUT/cli-miss.out"
}
t_credential_one_line() {
	credfx oneline 'smbios11 io.systemd.credential:hugepar.conf=pages = 2M:100@1\\nthreads = 2'
	"$HP" plan --sysroot "$CF" --config /dev/null --cmdline "" >/dev/null 2>"$OUT/cli-oneline.err"
	expect_eq "not read, the binary form named" "$(cat "$OUT/cli-oneline.err")" \
		"hugepar: credential hugepar.conf (smbios): one line with '\\n' in it, which is no line break: give the lines in the binary form, io.systemd.credential.binary:hugepar.conf=BASE64 (base64 -w0 of the file): not read"
}
t_credential_split() {
	fx
	plan --config /dev/null --cmdline "quiet systemd.set_credential=hugepar.conf:pages = 2M:50% ro" --json \
		>"$OUT/cli-split.json" 2>"$OUT/cli-split.err"
	expect_eq "refused, nothing of it taken" "$(jq -c '[.settings.pages, .settings.problems[].message]' "$OUT/cli-split.json")" \
		'[[],"the kernel ended it at a space: put the whole word in double quotes, \"systemd.set_credential=hugepar.conf:pages = 2M:50%\", or write it without spaces: not read"]'
	expect_eq "quoted: taken" "$(plan --config /dev/null --cmdline '"systemd.set_credential=hugepar.conf:pages = 2M:50%" ro' --json 2>/dev/null | jq -c '[.settings.pages[].entry]')" '["2M:50%"]'
}
# a user who cannot read the firmware's files (root's, 0400): said, and the summary
# says so, rather than that nothing is configured
t_credential_denied() {
	credfx denied 'smbios11 io.systemd.credential:hugepar.conf=pages = 2M:30'
	chmod 0400 "$CF/sys/firmware/dmi/entries/11-0/raw"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$HP" plan --sysroot "$CF" --config /dev/null --cmdline "" \
		>"$OUT/cli-denied.out" 2>&1
	expect_eq "a notice: exit 0" $? 0
	check "the summary" grep -qx "Nothing is configured that this user can read: the firmware's credentials are root's (see" "$OUT/cli-denied.out"
	check "the notice, with the reason" grep -qxF "  credential hugepar.conf (smbios): /sys/firmware/dmi/entries/11-0/raw: Permission denied (root's only: run hugepar as root to read it): not read" "$OUT/cli-denied.out"
}
# every entry of the credential wrong: the advice names the credential, not the files
t_credential_advice() {
	local r=$OUT/cli-cred-advice
	fxs
	plan --config /dev/null --cmdline "systemd.set_credential=hugepar.conf:pages=2M:150%" >"$OUT/cli-cadv.out" 2>/dev/null
	expect_eq "plan: exit 1, every entry rejected" $? 1
	check "plan: correct the credential" grep -qx "be done. Correct it in the credential hugepar.conf, where the machine's" "$OUT/cli-cadv.out"
	rm -rf "$r"
	sim apply --config /dev/null -d "$r" --cmdline "systemd.set_credential=hugepar.conf:pages=2M:150%" >/dev/null 2>&1
	"$HP" status -d "$r" >"$OUT/cli-cadv.out" 2>/dev/null
	check "status: correct the credential" grep -qF "  correct the credential hugepar.conf under Problems where the machine's definition gives it" "$OUT/cli-cadv.out"
	check "status: no initramfs to build" sh -c "! grep -q 'build the initramfs again' '$OUT/cli-cadv.out'"
}
t_root() {
	local r=$OUT/cli-root
	fx
	rm -rf "$r" && mkdir -p "$r/etc/hugepar.conf.d"
	printf 'pages = 2M:10\n' >"$r/etc/hugepar.conf"
	printf 'pages = 2M:20@1\n' >"$r/etc/hugepar.conf.d/90-ignition.conf"
	expect_eq "read under it, named without it" \
		"$(plan --root "$r" --cmdline "" --json 2>/dev/null | jq -c '[.settings.config, [.settings.pages[].origin]]')" \
		'["/etc/hugepar.conf",["/etc/hugepar.conf:1","/etc/hugepar.conf.d/90-ignition.conf:1"]]'
	check "apply takes it too; status, plan do not" sh -c "'$HP' apply --help | grep -q -- --root && ! '$HP' status --help | grep -q -- --root"
}

run_cases
echo "cli: $(summary_line)"
