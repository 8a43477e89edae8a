#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Boot tests: Debian's kernel, an initramfs made by `dracut --add hugepar` from a staged
# module tree (the system's dracut tree is not touched), a busybox root file system,
# QEMU with emulated NUMA nodes. The root's init reads /run/hugepar and the node pools
# after the switch and prints them on the serial console.
#   test/boot.sh          run the boot cases
#   test/boot.sh demo     one boot of the two-node machine, then `hugepar status`
#   test/boot.sh setup    only build the initramfs images and the root (for bench/)
#   test/boot.sh bench NAME TOPOLOGY CMDLINE   one boot for bench/qemu.sh
. "$(dirname "$0")/lib.sh"

B=$OUT/boot
mkdir -p "$B"
KVER=${KVER:-$(cd /lib/modules && ls -d -- *-amd64 2>/dev/null | sort -V | tail -n 1)}
KERNEL=/boot/vmlinuz-$KVER

if [ -z "$KVER" ] || [ ! -r "$KERNEL" ] || ! command -v qemu-system-x86_64 >/dev/null ||
	! command -v dracut >/dev/null || [ ! -x "$TOP/hugepar" ]; then
	skip "boot tests: need linux-image-amd64, qemu-system-x86, dracut and a built hugepar"
	echo "boot: $(summary_line)"
	exit 0
fi

# A dracut tree of links to the system's, plus our module. A second tree holds a
# variant for bench/qemu.sh that starts hugepar only at pre-pivot, in the foreground
# in effect, to show what the early background start saves.
stage_dracut() {
	local d m
	mkdir -p "$B/dracut.conf.d"
	for d in "$B/dracut" "$B/dracut-late"; do
		rm -rf "$d"
		cp -as /usr/lib/dracut "$d"
		m=$d/modules.d/90hugepar
		mkdir -p "$m"
		cp "$TOP/module-setup.sh" "$TOP"/hook/* "$TOP/hugepar" "$m/"
		cp "$TOP/config/hugepar.conf" "$m/hugepar.conf.default"
	done
	sed -i 's/inst_hook pre-udev 05 /inst_hook pre-pivot 04 /' \
		"$B/dracut-late/modules.d/90hugepar/module-setup.sh"
}

# initramfs FLAVOUR: nosystemd or systemd
make_initramfs() {
	local flavour=$1 mods="base udev-rules kernel-modules rootfs-block hugepar"
	local base=$B/dracut
	case $flavour in
	systemd) mods="systemd systemd-initrd dracut-systemd bash $mods" ;;
	dash) mods="dash $mods" ;; # the hooks under a strict POSIX shell
	late) mods="bash $mods" base=$B/dracut-late ;;
	*) mods="bash $mods" ;;
	esac
	dracutbasedir=$base dracut --quiet --force --no-hostonly --no-early-microcode \
		--conf /dev/null --confdir "$B/dracut.conf.d" --modules "$mods" \
		--drivers "virtio_pci virtio_blk ext4" --kver "$KVER" "$B/initrd-$flavour.img" \
		>"$B/dracut-$flavour.log" 2>&1
}

make_root() {
	local r=$B/root
	rm -rf "$r"
	mkdir -p "$r"/{bin,sbin,usr/sbin,usr/bin,proc,sys,dev,run,tmp,etc}
	cp "$(command -v busybox)" "$r/bin/busybox"
	for c in sh cat ls mount poweroff sleep echo grep; do ln -s busybox "$r/bin/$c"; done
	cp "$TOP/hugepar" "$r/usr/sbin/hugepar"
	[ -x "$TOP/hugepar-test" ] && cp "$TOP/hugepar-test" "$r/usr/sbin/hugepar-test"
	# systemd switches only into a root that looks like an OS tree
	printf 'NAME=hugepar-test\nID=hugepar-test\n' >"$r/etc/os-release"
	cp "$TOP/bench/guest.sh" "$r/bench.sh"
	for c in sed seq wc sh; do [ -e "$r/bin/$c" ] || ln -s busybox "$r/bin/$c"; done
	cat >"$r/sbin/init" <<'INIT'
#!/bin/sh
# The real root: report what the initramfs left, then power off.
mount -t proc proc /proc 2>/dev/null
mount -t sysfs sys /sys 2>/dev/null
grep -q bench.pages= /proc/cmdline && sh /bench.sh
if grep -q boot.misplace /proc/cmdline; then
	# the test build runs every worker on the wrong node: reconcile must fix it
	HUGEPAR_FAULT=misplace /usr/sbin/hugepar-test apply --config /dev/null --record-dir /tmp/mp \
		--method=parallel --cmdline "rd.hugepar.pages=2M:30@0 rd.hugepar.reserve=64M" >/dev/null 2>&1
	echo "MISPLACE-RC $?"
	echo "MISPLACE-BEGIN"; cat /tmp/mp/status.json; echo "MISPLACE-END"
fi
echo "HUGEPAR-BOOT-BEGIN"
echo "UPTIME $(cat /proc/uptime)"
for n in /sys/devices/system/node/node*; do
	echo "NODE ${n##*node} $(cat "$n/hugepages/hugepages-2048kB/nr_hugepages" 2>/dev/null || echo -) $(cat "$n/hugepages/hugepages-1048576kB/nr_hugepages" 2>/dev/null || echo -)"
done
echo "GLOBAL $(cat /proc/sys/vm/nr_overcommit_hugepages) $(cat /sys/kernel/mm/hugepages/hugepages-2048kB/surplus_hugepages)"
if [ -f /run/hugepar/status.json ]; then
	echo "RECORD-BEGIN"; cat /run/hugepar/status.json; echo "RECORD-END"
	/usr/sbin/hugepar status
else
	echo "NO-RECORD"
fi
echo "HUGEPAR-BOOT-END"
poweroff -f
INIT
	chmod +x "$r/sbin/init"
	rm -f "$B/root.img"
	mkfs.ext4 -q -d "$r" -L hproot "$B/root.img" 32M
}

# boot NAME FLAVOUR TOPOLOGY CMDLINE: TOPOLOGY is "MB:CPUS MB:CPUS ..." per node, CPUS
# a count (0 for a CPU-less node).
boot() {
	local name=$1 flavour=$2 topo=$3 cmdline=$4 args=() i=0 cpu=0 mem=0 n mb c
	for n in $topo; do
		mb=${n%%:*} c=${n#*:}
		args+=(-object "memory-backend-ram,id=m$i,size=${mb}M")
		if [ "$c" -gt 0 ]; then
			args+=(-numa "node,nodeid=$i,cpus=$cpu-$((cpu + c - 1)),memdev=m$i")
		else
			args+=(-numa "node,nodeid=$i,memdev=m$i")
		fi
		cpu=$((cpu + c)) mem=$((mem + mb)) i=$((i + 1))
	done
	cp "$B/root.img" "$B/root-$name.img"
	timeout 300 qemu-system-x86_64 -machine q35 -cpu max,pdpe1gb=on -smp "$cpu" -m "${mem}M" \
		"${args[@]}" -kernel "$KERNEL" -initrd "$B/initrd-$flavour.img" \
		-drive "file=$B/root-$name.img,format=raw,if=virtio" \
		-append "console=ttyS0 root=LABEL=hproot rw panic=-1 rd.shell=0 loglevel=4 $cmdline" \
		-display none -monitor none -serial "file:$B/$name.log" -no-reboot >/dev/null 2>&1
	rm -f "$B/root-$name.img"
	sed -n '/^RECORD-BEGIN/,/^RECORD-END/p' "$B/$name.log" | sed '1d;$d' | tr -d '\r' >"$B/$name.json"
	grep -q "^HUGEPAR-BOOT-END" "$B/$name.log"
}

# node_pool NAME NODE [COLUMN]: the 2M (2) or 1G (3) pool of a node after the switch
node_pool() { tr -d '\r' <"$B/$1.log" | awk -v n="$2" -v c="${3:-3}" '$1=="NODE" && $2==n {print $(c + 1)}'; }
rec() { jq_py "$B/$1.json" "$2"; }

setup() {
	stage_dracut
	make_root
	# shellcheck disable=SC2086
	for f in nosystemd ${1:-}; do
		if make_initramfs "$f"; then pass "dracut --add hugepar ($f)"; else
			fail "dracut --add hugepar ($f), see $B/dracut-$f.log"; return 1; fi
	done
}

TWO="768:1 512:1"

# pools_case NAME FLAVOUR CMDLINE NODE0 NODE1: a boot of the two-node machine whose
# 2M pools must come out as given, with an "ok" record.
pools_case() {
	if boot "$1" "$2" "$TWO" "$3"; then
		pass "$1: boot completed"
		expect_eq "$1: node 0 pool" "$(node_pool "$1" 0 2)" "$4"
		expect_eq "$1: node 1 pool" "$(node_pool "$1" 1 2)" "$5"
		expect_eq "$1: status" "$(rec "$1" "r['status']")" ok
	else
		fail "$1: boot did not finish (see $B/$1.log)"
	fi
}

# bench/qemu.sh: "bench NAME TOPOLOGY CMDLINE" boots once and prints the BENCH lines
# (bench/guest.sh runs when the command line has bench.pages=) and the root's uptime.
if [ "${1:-}" = setup ]; then
	setup "${2:-}"
	exit
fi
if [ "${1:-}" = bench ]; then
	[ -f "$B/initrd-nosystemd.img" ] && [ -f "$B/root.img" ] || setup >/dev/null || exit 1
	boot "bench-$2" "${BOOT_FLAVOUR:-nosystemd}" "$3" "$4" || exit 1
	tr -d '\r' <"$B/bench-$2.log" | grep -a '^BENCH\|^UPTIME\|^NODE\|^STATUS'
	exit 0
fi

if [ "${1:-}" = demo ]; then
	echo "Building the initramfs and booting a two-node machine (about a minute)..."
	setup || exit 1
	boot demo nosystemd "$TWO" "rd.hugepar.pages=2M:25%@0,2M:40@1 rd.hugepar.reserve=128M" ||
		{ echo "the boot did not finish; see $B/demo.log"; exit 1; }
	tr -d '\r' <"$B/demo.log" | sed -n '/^RECORD-END/,/^HUGEPAR-BOOT-END/p' | sed '1d;$d'
	exit 0
fi

setup "systemd dash" || { echo "boot: $(summary_line)"; exit 0; }

# 1. two nodes of different sizes: a share and a count; threads given
if boot shares nosystemd "$TWO" "rd.hugepar.pages=2M:25%@0,2M:40@1 rd.hugepar.reserve=128M rd.hugepar.threads=3"; then
	pass "shares: boot completed"
	want0=$(rec shares "r['nodes'][0]['sizes'][0]['target']")
	expect_eq "shares: node 0 target is 25% of its memory" "$want0" \
		"$(rec shares "r['nodes'][0]['mem_total'] * 25 // 100 // (2 << 20)")"
	expect_eq "shares: node 0 pool = plan" "$(node_pool shares 0 2)" "$want0"
	expect_eq "shares: node 1 pool = 40" "$(node_pool shares 1 2)" 40
	expect_eq "shares: status" "$(rec shares "r['status']")" ok
	expect_eq "shares: threads honoured (auto gives 2)" "$(rec shares "r['threads']")" 3
	expect_eq "shares: overcommit and surplus after" "$(tr -d '\r' <"$B/shares.log" | awk '$1=="GLOBAL"{print $2, $3}')" "0 0"
	check "shares: record format" python3 "$TOP/test/check-record.py" "$TOP/doc/record.md" "$B/shares.json"
else
	fail "shares: boot did not finish (see $B/shares.log)"
fi

# 2. off switch: pools untouched, no record
if boot off nosystemd "$TWO" "rd.hugepar=0 rd.hugepar.pages=2M:40"; then
	check "off: no record" grep -q "^NO-RECORD" "$B/off.log"
	expect_eq "off: node 0 untouched" "$(node_pool off 0 2)" 0
else
	fail "off: boot did not finish"
fi

# 3. a malformed option: the boot completes, the record names it, valid entries apply
if boot malformed nosystemd "$TWO" "rd.hugepar.pages=2M:30,2M:x@1 rd.hugepar.threads=lots rd.hugepar.reserve=128M"; then
	pass "malformed: boot completed"
	expect_eq "malformed: valid entry applied (node 0)" "$(node_pool malformed 0 2)" 30
	expect_eq "malformed: valid entry applied (node 1)" "$(node_pool malformed 1 2)" 30
	expect_eq "malformed: problems named" "$(rec malformed "[p['value'] for p in r['settings']['problems']]")" "['2M:x@1', 'lots']"
	expect_eq "malformed: status partial" "$(rec malformed "r['status']")" partial
else
	fail "malformed: boot did not finish"
fi

# 4. systemd in the initramfs
pools_case systemd systemd "rd.hugepar.pages=2M:24@0,2M:16@1 rd.hugepar.reserve=128M" 24 16
if boot systemd-off systemd "$TWO" "rd.hugepar=0 rd.hugepar.pages=2M:24"; then
	check "systemd-off: no record" grep -q "^NO-RECORD" "$B/systemd-off.log"
else
	fail "systemd-off: boot did not finish"
fi

# 5. the hooks under dash
pools_case dash dash "rd.hugepar.pages=2M:20 rd.hugepar.reserve=128M" 20 20

# 6. pages placed on the wrong node are trimmed there and topped up where planned
if [ -x "$TOP/hugepar-test" ] && boot misplace nosystemd "$TWO" "rd.hugepar=0 boot.misplace"; then
	tr -d '\r' <"$B/misplace.log" | sed -n '/^MISPLACE-BEGIN/,/^MISPLACE-END/p' | sed '1d;$d' >"$B/misplace-run.json"
	expect_eq "misplace: exit code" "$(tr -d '\r' <"$B/misplace.log" | awk '$1=="MISPLACE-RC" {print $2}')" 0
	expect_eq "misplace: node 0 has its pages" "$(node_pool misplace 0 2)" 30
	expect_eq "misplace: node 1 has none" "$(node_pool misplace 1 2)" 0
	expect_eq "misplace: trimmed on node 1, topped up on node 0" \
		"$(rec misplace-run "(r['sizes'][0]['method'], r['sizes'][0]['trimmed'], r['sizes'][0]['topped_up'])")" \
		"('parallel', 30, 30)"
else
	fail "misplace: needs hugepar-test and a finished boot (see $B/misplace.log)"
fi

# 7. four nodes, one without CPUs; 1G pages on node 0 (may come out short: truthfully)
if boot four nosystemd "512:1 512:1 512:1 1536:0" \
	"rd.hugepar.pages=2M:20,1G:1@3 rd.hugepar.reserve=64M"; then
	pass "four: boot completed"
	for n in 0 1 2 3; do
		expect_eq "four: node $n 2M pool" "$(node_pool four $n 2)" 20
	done
	expect_eq "four: CPU-less node has no workers" "$(rec four "r['nodes'][3]['threads']")" 0
	got1g=$(node_pool four 3 3)
	expect_eq "four: record tells the 1G truth" "$(rec four "r['nodes'][3]['sizes'][1]['achieved']")" "$got1g"
	echo "     four: 1G pages on node 3: $got1g of 1 ($(rec four "r['nodes'][3]['sizes'][1]['status']"))"
else
	fail "four: boot did not finish"
fi

echo "boot: $(summary_line)"
