#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# arm64 boots: the cross-built binary (make ARCH=arm64) on Debian's arm64 kernels in
# qemu-system-aarch64 (virt, TCG, two nodes of one vCPU and 1 GiB): 4K pages on 6.1
# and 6.12, 16K pages on 6.12 (scripts/fetch-arm64.sh). The initramfs is busybox and
# hugepar with an init of this suite's own, which runs `hugepar apply` as the hooks
# would and prints the record and the pools: it proves the binary and the engine on
# the arm64 kernels, not the initramfs generators' hooks, which the boot and image
# suites prove on x86-64 with the same shell code. The boots run at once, as many as
# this machine has CPUs (up to 4; BOOT_JOBS to choose).
. "$(dirname "$0")/lib.sh"

A=$OUT/arm64
BOOTDIR=$TOP/build/arm64/boot
BIN=$TOP/build/arm64/hugepar

# requires: qemu-system-aarch64; prepare: the arm64 build, the kernels, the initramfs
requires() {
	command -v qemu-system-aarch64 >/dev/null && return 0
	echo "no qemu-system-aarch64 (qemu-system-arm, make deps)"
	return 1
}
PREPARED=""
prepare() {
	rm -rf "$A"
	mkdir -p "$A"
	if ! (cd "$TOP" && make --no-print-directory -s ARCH=arm64) >"$A/build.log" 2>&1 ||
		! "$TOP/scripts/fetch-arm64.sh" "$BOOTDIR" >"$A/fetch.log" 2>&1; then
		tail -n 5 "$A/build.log" "$A/fetch.log"
		return
	fi
	make_initramfs
	PREPARED=1
}

# The initramfs: busybox, hugepar, and an init that runs it as the hooks do (its
# arguments from boot.apply=, commas for spaces), then prints what the checks read.
make_initramfs() {
	cat >"$A/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mount -t tmpfs run /run
args=$(sed -n 's/.*boot\.apply=\([^ ]*\).*/\1/p' /proc/cmdline | tr , ' ')
echo "HUGEPAR-ARM64-BEGIN"
# shellcheck disable=SC2086
/usr/sbin/hugepar apply $args
echo "APPLY-RC $?"
echo "RECORD-BEGIN"
cat /run/hugepar/status.json
echo "RECORD-END"
o=0 s=0
for h in /sys/kernel/mm/hugepages/hugepages-*; do
	o=$((o + $(cat "$h/nr_overcommit_hugepages"))) s=$((s + $(cat "$h/surplus_hugepages")))
	for n in 0 1; do
		echo "POOL $n ${h##*-} $(cat "/sys/devices/system/node/node$n/hugepages/${h##*/}/nr_hugepages")"
	done
done
echo "GLOBAL $o $s"
echo "ORDERS $(head -n 1 /proc/buddyinfo | tr -s ' ' | cut -d' ' -f5- | wc -w)"
echo "HUGEPAR-ARM64-END"
poweroff -f
INIT
	arm64_initramfs "$A" "$A/init" "$BIN:usr/sbin/hugepar"
}

# boot NAME KVER CMDLINE: one boot of two nodes; its serial log NAME.log, its record
# NAME.json
boot() {
	arm64_boot "$A/$1.log" "$2" "$A/initrd.img" "1024:1 1024:1" "$3"
	tr -d '\r' <"$A/$1.log" | sed -n '/^RECORD-BEGIN/,/^RECORD-END/p' | sed '1d;$d' >"$A/$1.json"
	grep -q '^HUGEPAR-ARM64-END' "$A/$1.log"
}
line() { tr -d '\r' <"$A/$1.log" | sed -n "s/^$2 //p" | head -n 1; }
# pools NAME SIZE: node 0's and node 1's pool of a size ("2048kB")
pools() { tr -d '\r' <"$A/$1.log" | awk -v z="$2" '$1 == "POOL" && $3 == z {printf "%s%s", n++ ? " " : "", $4}'; }
rec() { jq -r "$2" "$A/$1.json"; }
method() { rec "$1" ".sizes[] | select(.size == \"$2\") | .method + \": \" + .method_note"; }

# sizes_case NAME KVER ORDERS PAGES: a boot with shares and several sizes, auto; what
# every boot must show: the granule, the pools as planned, nothing left, and no
# system call error of any worker
sizes_case() {
	local name=$1 kver=$2
	if [ -z "$PREPARED" ]; then
		fail "the arm64 build or its kernels (see $A/build.log, $A/fetch.log)"
		return 1
	fi
	if ! boot "$name" "$kver" "rd.hugepar.pages=$4 rd.hugepar.keep_free=64M"; then
		fail "boot did not finish (see $A/$name.log)"
		tail -n 5 "$A/$name.log"
		return 1
	fi
	pass "boot completed ($kver)"
	expect_eq "buddy orders (MAX_PAGE_ORDER + 1)" "$(line "$name" ORDERS)" "$3"
	expect_eq "status, exit code" "$(rec "$name" .status) $(line "$name" APPLY-RC)" "ok 0"
	expect_eq "2M: a quarter of each node's 1 GiB" "$(pools "$name" 2048kB)" "128 128"
	expect_eq "2M by workers" "$(rec "$name" '.sizes[] | select(.size == "2M") | .method')" parallel
	expect_eq "nothing left raised (overcommit, surplus)" "$(line "$name" GLOBAL)" "0 0"
	expect_eq "no worker's system call failed" \
		"$(grep -acE 'set_mempolicy|sched_setaffinity|mbind|Invalid argument|Function not implemented' "$A/$name.log")" 0
	check "record format" /usr/bin/python3 "$TOP/test/check-record.py" "$TOP/doc/record.md" "$A/$name.json"
}

# k4_case SERIES GLOB: 4K pages: 64K, 2M and 32M at once; 32M is gigantic there (4M
# is the largest buddy block), so it goes by per-node writes before 6.19
k4_case() {
	local n=arm64-$1-sizes
	sizes_case "$n" "$(arm64_kernel "$2")" 11 "2M:25%,64K:100,32M:2" || return
	expect_eq "64K and 32M pools" "$(pools "$n" 64kB) $(pools "$n" 32768kB)" "100 100 2 2"
	expect_eq "32M gigantic" "$(method "$n" 32M)" "serial: 32M pages cannot be overcommitted before Linux 6.19"
}
# k16_case: 16K pages: 2M and 32M; 32M is not gigantic there (32M is the largest block)
k16_case() {
	sizes_case arm64-16k-sizes "$(arm64_kernel "6.12.*-arm64-16k")" 12 "2M:25%,32M:3" || return
	expect_eq "32M pools" "$(pools arm64-16k-sizes 32768kB)" "3 3"
	expect_eq "32M not refused as gigantic" "$(method arm64-16k-sizes 32M | grep -c 'cannot be overcommitted')" 0
}
# k16_workers_case: two workers a node, so that 32M has one beside 2M's
k16_workers_case() {
	sizes_case arm64-16k-workers "$(arm64_kernel "6.12.*-arm64-16k")" 12 \
		"2M:25%,32M:3 rd.hugepar.threads=4 boot.apply=--method,parallel" || return
	expect_eq "32M by workers (pages by workers)" \
		"$(rec arm64-16k-workers '.sizes[] | select(.size == "32M") | .method + " " + (.pages_by_threads | tostring)')" \
		"parallel 6"
	expect_eq "32M pools" "$(pools arm64-16k-workers 32768kB)" "3 3"
}

tcase arm64-6.1-sizes "arm64, Linux 6.1, 4K pages: shares, 64K, 2M and 32M (gigantic) at once" k4_case 6.1 "6.1.0-*-arm64"
tcase arm64-6.12-sizes "arm64, Linux 6.12, 4K pages: shares, 64K, 2M and 32M (gigantic) at once" \
	k4_case 6.12 "6.12.*+deb13-arm64"
tcase arm64-16k-sizes "arm64, Linux 6.12, 16K pages: shares, 2M and 32M (not gigantic) at once" k16_case
tcase arm64-16k-workers "arm64, Linux 6.12, 16K pages: 32M pages by workers beside 2M's" k16_workers_case
# shellcheck disable=SC2034 # (run_cases reads it)
TC_JOBS=${BOOT_JOBS:-$(n=$(nproc); echo $((n > 4 ? 4 : n)))}
run_cases
[ -z "$PREPARED" ] ||
	echo "versions: $(paste -sd, "$BOOTDIR/packages" | sed 's/,/, /g'); $(qemu-system-aarch64 --version | head -n 1)"
echo "arm64: $(summary_line)"
