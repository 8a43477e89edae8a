#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Boot tests: Debian's kernels (6.1, installed; 6.12 and the newest 7.x of its
# unstable archive, fetched by make deps), an initramfs made by `dracut --add hugepar`
# from a staged module tree (the system's dracut tree is not touched) or by
# initramfs-tools' mkinitramfs with the package's hooks, a busybox root file system,
# QEMU with emulated NUMA nodes. The root's init reads /run/hugepar and the node pools
# after the switch and prints them on the serial console, then runs the boot's own
# programs (verify and status after the boot, the kernel's rules). On the 7.x kernel
# some cases boot once more with dracut-ng, the dracut of Debian's unstable
# (7-ng-*), run in a root of that release made for the run: its dracut-install needs
# that release's C library. make check boots every kernel's own paths (placement,
# 1G pages, a CPU-less node, initramfs-tools) and every initramfs path once, on the
# first kernel; make check-all repeats the initramfs paths on the others.
#   test/boot.sh          run the boot cases on every kernel found (BOOT_KERNELS="6.1
#                         6.12 7" to choose; BOOT_JOBS boots at once)
#   test/boot.sh demo     one boot of the two-node machine, then `hugepar status`
#   test/boot.sh setup [FLAVOUR...]   only build the images (for bench/; BENCH_KERNEL=7
#                         for that kernel's)
#   test/boot.sh bench NAME TOPOLOGY CMDLINE   one boot for bench/qemu.sh (BENCH_KERNEL=6.12
#                         for that kernel)
. "$(dirname "$0")/lib.sh"

B=$OUT/boot
ONCE=$B/once
mkdir -p "$B"

# kernel SERIES: set KVER, KERNEL and KMODDIR for Debian's kernel of a series ("6.1"
# installed with linux-image-amd64, "6.12" and "7" extracted under build/kernels).
kernel() {
	local k
	KVER="" KERNEL="" KMODDIR=""
	for k in $(cd /lib/modules 2>/dev/null && ls -d -- "$1".*-amd64 2>/dev/null | sort -V); do
		[ -r "/boot/vmlinuz-$k" ] && KVER=$k KERNEL=/boot/vmlinuz-$k KMODDIR=/lib/modules/$k
	done
	for k in $(cd "$TOP/build/kernels" 2>/dev/null && ls -d -- "$1".*-amd64 2>/dev/null | sort -V); do
		KVER=$k KERNEL=$TOP/build/kernels/$k/boot/vmlinuz-$k KMODDIR=$TOP/build/kernels/$k/lib/modules/$k
	done
	[ -n "$KVER" ]
}

# Dracut trees of links to the system's, plus our module: one with hugepar, one with
# the test build (fault seam) as the module's binary, and a variant for bench/qemu.sh
# that starts hugepar only at pre-pivot, to show what the early start saves.
stage_dracut() {
	local d m
	mkdir -p "$B/dracut.conf.d"
	for d in dracut dracut-test dracut-late dracut-ign; do
		rm -rf "${B:?}/$d"
		cp -as /usr/lib/dracut "$B/$d"
		m=$B/$d/modules.d/$DRACUT_MODULE
		mkdir -p "$m"
		cp "$TOP/module-setup.sh" "$TOP"/hook/* "$m/"
		cp "$TOP/hugepar" "$m/hugepar"
		cp "$TOP/config/hugepar.conf" "$m/hugepar.conf.default"
	done
	[ -x "$TOP/hugepar-test" ] && cp "$TOP/hugepar-test" "$B/dracut-test/modules.d/$DRACUT_MODULE/hugepar"
	sed -i 's/inst_hook pre-udev 05 /inst_hook pre-pivot 04 /' \
		"$B/dracut-late/modules.d/$DRACUT_MODULE/module-setup.sh"
	stage_ignition "$B/dracut-ign/modules.d/30ignition"
	# busybox as the initramfs's /bin/sh, and nothing else of it. (Its ash runs its
	# own switch_root applet rather than util-linux's, and that one does not carry
	# /run over: the record does not survive the switch, dracut-hugepar(7).)
	m=$B/dracut/modules.d/05busybox-sh
	mkdir -p "$m"
	cat >"$m/module-setup.sh" <<'MOD'
#!/bin/bash
check() { require_binaries busybox || return 1; return 255; }
depends() { return 0; }
install() { inst "$(find_binary busybox)" /usr/bin/busybox && ln_r /usr/bin/busybox /bin/sh; }
MOD
}

# stage_ignition DIR: a stand-in for Ignition's dracut module (named ignition, as
# Debian's 30ignition is, so that hugepar's module links its unit under it): on a
# first boot its ignition-files.service writes the operator's files into /sysroot,
# here a drop-in asking 30 2M pages on node 1, then ignition-complete.target.
stage_ignition() {
	mkdir -p "$1"
	cat >"$1/module-setup.sh" <<'MOD'
#!/bin/bash
check() { return 255; }
depends() { echo systemd; return 0; }
install() {
	cat >"$initdir$systemdsystemunitdir/ignition-complete.target" <<'UNIT'
[Unit]
Description=Ignition Complete (stand-in)
Before=initrd.target
UNIT
	cat >"$initdir$systemdsystemunitdir/ignition-files.service" <<'UNIT'
[Unit]
Description=Ignition (files, stand-in)
DefaultDependencies=no
After=initrd-root-fs.target
Before=ignition-complete.target
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh -c 'mkdir -p /sysroot/etc/hugepar.conf.d && echo "pages = 2M:30@1" >/sysroot/etc/hugepar.conf.d/90-ignition.conf'
UNIT
	mkdir -p "$initdir$systemdsystemunitdir/initrd.target.wants" \
		"$initdir$systemdsystemunitdir/ignition-complete.target.wants"
	ln_r "$systemdsystemunitdir/ignition-complete.target" \
		"$systemdsystemunitdir/initrd.target.wants/ignition-complete.target"
	ln_r "$systemdsystemunitdir/ignition-files.service" \
		"$systemdsystemunitdir/ignition-complete.target.wants/ignition-files.service"
}
MOD
}

# An initramfs made by initramfs-tools' mkinitramfs with our hook and scripts, from a
# configuration directory of the test's own; the kernel's modules are shown to it
# at /lib/modules in a mount namespace of its own (the 6.12 kernel is not installed).
make_itools() {
	local flavour=$1 conf=$B/itools-$1 bin=$TOP/hugepar
	[ "$flavour" = itools-test ] && bin=$TOP/hugepar-test
	rm -rf "$conf"
	mkdir -p "$conf/hooks" "$conf/scripts/init-premount" "$conf/scripts/init-bottom" "$conf/conf.d"
	# itools-none: without hugepar, for bench/idle.sh
	if [ "$flavour" != itools-none ]; then
		cp "$TOP/initramfs-tools/hooks/hugepar" "$conf/hooks/"
		cp "$TOP/initramfs-tools/scripts/init-premount/hugepar" "$conf/scripts/init-premount/"
		cp "$TOP/initramfs-tools/scripts/init-bottom/hugepar" "$conf/scripts/init-bottom/"
	fi
	printf 'MODULES=list\nBUSYBOX=auto\nCOMPRESS=gzip\n' >"$conf/initramfs.conf"
	printf 'virtio_pci\nvirtio_blk\next4\n' >"$conf/modules"
	HUGEPAR_BINARY=$bin unshare -m -- sh -c \
		'mount --bind "$1" /lib/modules && mount --bind "$2" /boot && exec mkinitramfs -d "$3" -o "$4" "$5"' \
		_ "$(dirname "$KMODDIR")" "$(dirname "$KERNEL")" "$conf" "$B/initrd-$KVER-$flavour.img" "$KVER" \
		>"$B/mkinitramfs-$KVER-$flavour.log" 2>&1
}

# initramfs FLAVOUR: which tool, shell and init the hooks run under, which binary
make_initramfs() {
	local flavour=$1 mods="base udev-rules kernel-modules rootfs-block hugepar"
	case $flavour in itools*)
		make_itools "$flavour"
		return
		;;
	esac
	local base=$B/dracut extra=() build=dracut_host
	# ng-FLAVOUR: FLAVOUR, built by dracut-ng (dracut_ng)
	case $flavour in ng-*) build=dracut_ng flavour=${flavour#ng-} ;; esac
	case $flavour in
	systemd) mods="systemd systemd-initrd dracut-systemd bash $mods" ;;
	systemd-test) mods="systemd systemd-initrd dracut-systemd bash $mods" base=$B/dracut-test ;;
	ignition) mods="systemd systemd-initrd dracut-systemd bash ignition $mods" base=$B/dracut-ign ;;
	dash) mods="dash $mods" ;;      # the hooks under a strict POSIX shell
	busybox) mods="busybox-sh $mods" ;; # ... and under busybox ash
	test) mods="bash $mods" base=$B/dracut-test ;;
	late) mods="bash $mods" base=$B/dracut-late ;;
	baked) mods="bash $mods" extra=(--kernel-cmdline "rd.hugepar.pages=2M:12 rd.hugepar.keep_free=64M") ;;
	none) mods="bash ${mods% hugepar}" ;; # without hugepar, for bench/idle.sh
	*) mods="bash $mods" ;;
	esac
	$build "$base" "$mods" "$B/initrd-$KVER-$1.img" "${extra[@]}" >"$B/dracut-$KVER-$1.log" 2>&1
}

# dracut_host BASE MODULES IMAGE [OPTION...]: this machine's dracut, from the staged
# tree BASE
dracut_host() {
	local base=$1 mods=$2 img=$3
	shift 3
	dracutbasedir=$base dracut --quiet --force --no-hostonly --no-early-microcode \
		--conf /dev/null --confdir "$B/dracut.conf.d" --modules "$mods" "$@" \
		--drivers "virtio_pci virtio_blk ext4" --kver "$KVER" --kmoddir "$KMODDIR" "$img"
}

# The unstable root for dracut-ng: minbase, dracut-core, busybox-static (the busybox
# flavour) and util-linux-extra (switch_root, which unstable moved there from
# util-linux, and which dracut needs without systemd). Made once a run, by the first
# case that needs it, with the staged tree in it (/stage/dracut: links to its dracut,
# our module and busybox-sh).
NG_ROOT=$B/ng-root
make_ng_root() {
	rm -rf "$NG_ROOT"
	"$TOP/scripts/apt-sources.sh" sid >"$B/ng-sources.list"
	# The release file of an unstable mirror snapshot may be past its Valid-Until.
	mmdebstrap --variant=minbase --include=dracut-core,busybox-static,util-linux-extra \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		sid "$NG_ROOT" "$B/ng-sources.list" >"$B/ng-root.log" 2>&1 || return 1
	chroot "$NG_ROOT" sh -c 'mkdir -p /stage/conf.d /out && cp -as /usr/lib/dracut /stage/dracut' &&
		cp -r "$B/dracut/modules.d/$DRACUT_MODULE" "$B/dracut/modules.d/05busybox-sh" \
			"$NG_ROOT/stage/dracut/modules.d/"
}

# dracut_ng BASE MODULES IMAGE [OPTION...]: dracut-ng in the unstable root, with the
# kernel's modules shown to it at /lib/modules in a mount namespace of its own. BASE
# must be the plain staged tree: its copy in the root is that one.
dracut_ng() {
	local base=$1 mods=$2 img=$3
	shift 3
	[ "$base" = "$B/dracut" ] || { echo "dracut_ng: only the plain tree is staged in the unstable root"; return 1; }
	once ng-root make_ng_root || { echo "dracut_ng: the unstable root was not made (see $B/ng-root.log)"; return 1; }
	chroot "$NG_ROOT" dpkg-query -W dracut-core
	rm -f "$NG_ROOT/out/initrd.img"
	unshare -m --propagation private -- sh -c '
		r=$1 kver=$2 kmoddir=$3 mods=$4
		shift 4
		mount --rbind /dev "$r/dev" && mount -t proc proc "$r/proc" &&
			mount -t sysfs sysfs "$r/sys" && mount -t tmpfs tmpfs "$r/run" &&
			mount -t tmpfs tmpfs "$r/tmp" && mkdir -p "$r/lib/modules/$kver" &&
			mount --bind "$kmoddir" "$r/lib/modules/$kver" || exit 1
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin dracutbasedir=/stage/dracut \
			dracut --quiet --force --no-hostonly --no-early-microcode --conf /dev/null \
			--confdir /stage/conf.d --modules "$mods" "$@" \
			--drivers "virtio_pci virtio_blk ext4" --kver "$kver" /out/initrd.img' \
		_ "$NG_ROOT" "$KVER" "$KMODDIR" "$mods" "$@" &&
		mv "$NG_ROOT/out/initrd.img" "$img"
}

# root_setter ROOT: another setter of the pools in the root, which systemd-sysctl would
# apply after the switch (this root's init is no systemd: nothing applies it): plan
# names it before the boot, status after it (shares_case)
root_setter() {
	mkdir -p "$1/etc/sysctl.d"
	printf 'vm.nr_hugepages = 200\n' >"$1/etc/sysctl.d/90-hp.conf"
}

make_root() {
	local r=$B/root g
	rm -rf "$r"
	mkdir -p "$r"/{bin,sbin,usr/sbin,usr/bin,proc,sys,dev,run,tmp,etc}
	cp "$(command -v busybox)" "$r/bin/busybox"
	for c in sh cat ls mount umount dd poweroff sleep echo grep pidof kill sed seq wc dmesg head mkfifo rm mkdir; do
		ln -s busybox "$r/bin/$c"
	done
	cp "$TOP/hugepar" "$r/usr/sbin/hugepar"
	[ -x "$TOP/hugepar-test" ] && cp "$TOP/hugepar-test" "$r/usr/sbin/hugepar-test"
	[ -x "$TOP/build/holdpages" ] && cp "$TOP/build/holdpages" "$r/usr/bin/holdpages"
	[ -x "$TOP/build/timeit" ] && cp "$TOP/build/timeit" "$r/usr/bin/timeit"
	[ -x "$TOP/build/syscost" ] && cp "$TOP/build/syscost" "$r/usr/bin/syscost"
	# systemd switches only into a root that looks like an OS tree
	printf 'NAME=hugepar-test\nID=hugepar-test\n' >"$r/etc/os-release"
	# the settings a package installs, the same file the module puts in the initramfs
	# when the host has none: status finds them unchanged since the boot read them
	cp "$TOP/config/hugepar.conf" "$r/etc/hugepar.conf"
	cp "$TOP/bench/guest.sh" "$r/bench.sh"
	for g in rules after capped vmemmap; do cp "$TOP/test/guest-$g.sh" "$r/$g.sh"; done
	[ "${mode:-}" = demo ] || root_setter "$r" # the demo shows hugepar alone
	cat >"$r/sbin/init" <<'INIT'
#!/bin/sh
# The real root: report what the initramfs left, then run the boot's own programs
# (boot.after, boot.rules, boot.misplace), then power off.
mount -t proc proc /proc 2>/dev/null
mount -t sysfs sys /sys 2>/dev/null
echo "RUNNING $(pidof hugepar hugepar-test)"
grep -q bench.pages= /proc/cmdline && sh /bench.sh
echo "HUGEPAR-BOOT-BEGIN"
echo "UPTIME $(cat /proc/uptime)"
# the kernel's own boot-time allocation says what it took (6.9 on), at info level
dmesg 2>/dev/null | grep -a -i 'hugetlb' | sed 's/^/KLOG /'
for n in /sys/devices/system/node/node*; do
	echo "NODE ${n##*node} $(cat "$n/hugepages/hugepages-2048kB/nr_hugepages" 2>/dev/null || echo -) $(cat "$n/hugepages/hugepages-1048576kB/nr_hugepages" 2>/dev/null || echo -)"
done
echo "GLOBAL $(cat /proc/sys/vm/nr_overcommit_hugepages) $(cat /sys/kernel/mm/hugepages/hugepages-2048kB/surplus_hugepages)"
for d in /sys/bus/pci/devices/*; do
	echo "PCI ${d##*/} $(cat "$d/numa_node")"
done
echo "NOTES $(ls /run/hugepar/restore-* 2>/dev/null | wc -l)"
echo "STALE $(cat /run/hugepar/initramfs-stale 2>/dev/null || echo none)"
if [ -f /run/hugepar/status.json ]; then
	echo "RECORD-BEGIN"; cat /run/hugepar/status.json; echo "RECORD-END"
	/usr/sbin/hugepar status
else
	echo "NO-RECORD"
	cat /run/hugepar/apply.log 2>/dev/null
fi
grep -q boot.vmemmap /proc/cmdline && sh /vmemmap.sh
grep -q boot.after /proc/cmdline && sh /after.sh
grep -q boot.capped /proc/cmdline && sh /capped.sh
grep -q boot.rules /proc/cmdline && sh /rules.sh
if grep -q boot.misplace /proc/cmdline; then
	# the test build runs every worker on the wrong node: reconcile must fix it
	HUGEPAR_FAULT=misplace /usr/sbin/hugepar-test apply --config /dev/null --record-dir /tmp/mp \
		--method=parallel --cmdline "rd.hugepar.pages=2M:30@0 rd.hugepar.keep_free=64M" >/dev/null 2>&1
	echo "MISPLACE-RC $?"
	echo "MISPLACE-POOLS $(cat /sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages) $(cat /sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages)"
	echo "MISPLACE-BEGIN"; cat /tmp/mp/status.json; echo "MISPLACE-END"
fi
echo "HUGEPAR-BOOT-END"
poweroff -f
INIT
	chmod +x "$r/sbin/init"
	rm -f "$B/root.img"
	mkfs.ext4 -q -d "$r" -L hproot "$B/root.img" 32M >/dev/null
}

# pin_vcpus PIDFILE: each vCPU thread of the QEMU that wrote PIDFILE on a host CPU of
# its own (vCPU i on host CPU i, modulo the host's count), as a real machine's CPUs
# run at once: left to the host's scheduler, the two busy vCPUs of a two-node bench
# did not run fully at once (doc/benchmarks.md, "Two vCPUs at once", has the
# figures). For bench boots (test/boot.sh bench); the boot cases are not timed.
pin_vcpus() {
	local pid="" t c n cpus
	cpus=$(nproc)
	for _ in $(seq 200); do
		[ -z "$pid" ] && [ -s "$1" ] && read -r pid <"$1"
		if [ -n "$pid" ]; then
			n=0
			for t in /proc/"$pid"/task/*; do
				read -r c <"$t/comm" 2>/dev/null || continue
				case $c in
				"CPU "*/TCG)
					c=${c#CPU }
					taskset -pc $((${c%%/*} % cpus)) "${t##*/}" >/dev/null && n=$((n + 1))
					;;
				esac
			done
			[ "$n" -ge "$NUMA_CPUS" ] && return 0
		fi
		sleep 0.05
	done
	return 1
}

# stalled LOG STATUS: what stopped a boot that is not the project's doing, or
# nothing: the kernel panicked (but not because init died or memory ran out: the
# hooks or the pages they reserve can do that), stalled or locked up, or QEMU ran
# out of time (STATUS 124).
stalled() {
	local l
	l=$(tr -d '\r' <"$1" | grep -a -m1 -e 'Kernel panic' -e 'self-detected stall' -e 'soft lockup' -e 'hard LOCKUP')
	case $l in
	*"Attempted to kill init"* | *"Out of memory"*) ;;
	*"Kernel panic"*) echo "the kernel panicked" ;;
	?*) echo "the kernel stalled" ;;
	*) [ "$2" = 124 ] && echo "the boot hung" ;;
	esac
}

# boot NAME FLAVOUR TOPOLOGY CMDLINE: boot $KVER with the initramfs FLAVOUR (built the
# first time a case asks for it) on TOPOLOGY, "MB:CPUS MB:CPUS ..." per node, CPUS a
# count (0 for a CPU-less node), with the QEMU options in the array DEVICES (a case's
# own devices). The log is $B/NAME.log, the record $B/NAME.json. A boot that does not
# finish is the case's failure, with the end of its log.
boot() {
	local name=$1 flavour=$2 cmdline=$4 try qemu rc why
	qemu_numa "$3"
	echo "$KVER $KERNEL" >>"$B/tested"
	if ! initramfs "$flavour"; then
		fail "no $flavour initramfs for $KVER (its build failed): not booted"
		return 1
	fi
	# The emulated kernel now and then panics in its own early start (a timer under
	# TCG, seen on 6.12 before any user space ran), and a boot has once stopped
	# short with nothing in its log to say why: a boot that did not reach the root
	# is tried once more when the first try's kernel panicked, stalled or hung
	# (stalled() says which; not when init died or memory ran out), its log kept
	# as NAME.try1.log.
	for try in 1 2; do
		cp "$B/root.img" "$B/root-$name.img"
		rm -f "$B/$name.pid"
		timeout 300 qemu-system-x86_64 -machine q35 -cpu max,pdpe1gb=on -smp "$NUMA_CPUS" -m "${NUMA_MEM}M" \
			"${NUMA_ARGS[@]}" -kernel "$KERNEL" -initrd "$B/initrd-$KVER-$flavour.img" \
			-drive "file=$B/root-$name.img,format=raw,if=none,id=root" \
			-device virtio-blk-pci,drive=root,bus=pcie.0 "${DEVICES[@]}" \
			-append "console=ttyS0 root=LABEL=hproot rw panic=-1 rd.shell=0 loglevel=4 $cmdline" \
			-name "$name,debug-threads=on" -pidfile "$B/$name.pid" \
			-display none -monitor none -serial "file:$B/$name.log" -no-reboot >/dev/null 2>&1 &
		qemu=$!
		[ -z "${PIN_VCPUS:-}" ] || pin_vcpus "$B/$name.pid" ||
			echo "     $name: the vCPU threads were not pinned (see pin_vcpus)"
		wait $qemu
		rc=$?
		rm -f "$B/root-$name.img" "$B/$name.pid"
		grep -aq "^HUGEPAR-BOOT-BEGIN" "$B/$name.log" && break
		why=$(stalled "$B/$name.log" "$rc")
		[ -n "$why" ] || break
		[ $try = 2 ] && break
		mv "$B/$name.log" "$B/$name.try1.log"
		echo "     $name: $why before the root (see $B/$name.try1.log): booting again"
	done
	sed -n '/^RECORD-BEGIN/,/^RECORD-END/p' "$B/$name.log" | sed '1d;$d' | tr -d '\r' >"$B/$name.json"
	if grep -aq "^HUGEPAR-BOOT-END" "$B/$name.log"; then
		pass "the boot reached the root ($KVER, $flavour)"
		return 0
	fi
	fail "the boot did not finish (QEMU exit status $rc; see $B/$name.log); the end of its log:"
	tr -d '\r' <"$B/$name.log" | tail -n 8 | sed 's/^/     | /'
	return 1
}

# installed PACKAGE...: "PACKAGE VERSION" of each one whose files are installed
# (configured or not), comma separated
installed() {
	dpkg-query -W -f '${db:Status-Abbrev}\t${Package} ${Version}\n' "$@" 2>/dev/null |
		awk -F '\t' '$1 ~ /^.[iUFWt]/ { printf "%s%s", n++ ? ", " : "", $2 } END { print "" }'
}
# kernel_build VMLINUZ: the version string a bzImage carries (release, builder, and
# Debian's package version)
kernel_build() {
	local off
	off=$(od -An -tu2 -j $((0x20e)) -N2 "$1" 2>/dev/null | tr -d ' ')
	[ -n "$off" ] && dd if="$1" bs=1 skip=$((off + 0x200)) count=256 2>/dev/null | tr '\0' '\n' | head -n 1
}
# The exact versions the boots tested, in the suite's closing lines: the kernels
# move under it (the newest 6.12 and 7.x of the archive, fetched by make deps), and
# so do the host's tools on a fresh machine.
versions() {
	local k kernel pkg
	[ -s "$B/tested" ] || return 0
	sort -uV "$B/tested" | while read -r k kernel; do
		if [ -r "$TOP/build/kernels/$k/packages" ]; then
			pkg=$(paste -sd, "$TOP/build/kernels/$k/packages" | sed 's/,/, /g')
		else
			pkg=$(installed "linux-image-$k" "linux-image-$k-unsigned")
		fi
		echo "versions: Linux $k: ${pkg:-package unknown}; $(kernel_build "$kernel")"
	done
	echo "versions: $(installed dracut-core initramfs-tools systemd busybox-static dash qemu-system-x86)"
	[ "$(cat "$ONCE/ng-root.rc" 2>/dev/null)" != 0 ] ||
		echo "versions: dracut-ng: $(chroot "$NG_ROOT" dpkg-query -W -f '${Package} ${Version}, ' \
			dracut-core udev util-linux-extra busybox-static | sed 's/, $//') (Debian unstable)"
}

# line NAME KEY: the rest of the root's line KEY
line() { tr -d '\r' <"$B/$1.log" | sed -n "s/^$2 //p" | head -n 1; }
# node_pool NAME NODE [COLUMN]: the 2M (2) or 1G (3) pool of a node after the switch
node_pool() { tr -d '\r' <"$B/$1.log" | awk -v n="$2" -v c="${3:-3}" '$1=="NODE" && $2==n {print $(c + 1)}'; }
# pools NAME: the 2M pools of the two nodes
pools() { echo "$(node_pool "$1" 0 2) $(node_pool "$1" 1 2)"; }
# rec NAME FILTER: what the jq FILTER makes of the record NAME.json (fails without one)
rec() { [ -s "$B/$1.json" ] && jq -r "$2" "$B/$1.json"; }

# initramfs FLAVOUR: whether $KVER has an initramfs of FLAVOUR, built by the first
# case that boots it (the others wait for that build); a build that fails fails
# the boots of that flavour, not the kernel's other cases.
initramfs() {
	once "initramfs-$KVER-$1" build_initramfs "$1"
}
build_initramfs() {
	local img=$B/initrd-$KVER-$1.img
	rm -f "$img"
	if make_initramfs "$1" && [ -s "$img" ]; then
		pass "the $1 initramfs built for $KVER"
	else
		rm -f "$img"
		fail "the $1 initramfs built for $KVER (see $B/dracut-$KVER-$1.log or $B/mkinitramfs-$KVER-$1.log)"
		return 1
	fi
}

# on SERIES: this case's kernel is Debian's of SERIES (KVER, KERNEL, KMODDIR);
# skipped without one
on() {
	kernel "$1" && return 0
	skip "no Linux $1 kernel (make deps fetches 6.12 and 7)"
	return 1
}

TWO="768:1 512:1"
DEVICES=()
RES="rd.hugepar.keep_free=128M"
# node 0's 2M target for a share of 25% of its 768 MiB, as the boots give it on
# every kernel (its memory blocks are all of it; the granularity divides it)
SHARE0=96

# left_clean NAME: what the boot left is clean: no hugepar running, overcommit back,
# no surplus, no restore note; the record true to the pools and of the right format.
left_clean() {
	expect_eq "nothing left running" "$(line "$1" RUNNING)" ""
	expect_eq "overcommit and surplus" "$(line "$1" GLOBAL)" "0 0"
	expect_eq "no restore note" "$(line "$1" NOTES)" 0
	if [ -s "$B/$1.json" ]; then
		check "record format" /usr/bin/python3 "$TOP/test/check-record.py" "$TOP/doc/record.md" "$B/$1.json"
	fi
}

# Fault matrix rows (doc/fault-matrix.md): fault, kernel, boot reached, what was left.
MATRIX=$OUT/fault-matrix-boot.tsv
row() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$2" "$KVER" "$(grep -q '^HUGEPAR-BOOT-END' "$B/$1.log" && echo yes || echo no)" \
		"$(line "$1" GLOBAL)" "$(rec "$1" .status 2>/dev/null || echo none)" \
		"$(line "$1" RUNNING)" >"$B/$1.row"
}

# --- The cases. Each boots its kernel's series first (on SERIES).

# after_checks NAME CMDLINE: what the root's boot.after saw: hugepar verify (mounts,
# textfile, on_short), the Prometheus text, the kernel command line for the same
# pools, then pages lost after the boot (status --check, verify with on_short = fail)
after_checks() {
	local a=$1
	tr -d '\r' <"$B/$a.log" | sed -n '/^PROM-BEGIN/,/^PROM-END/p' | sed '1d;$d' >"$B/$a.prom"
	expect_eq "verify" "$(line "$a" VERIFY-RC)" 0
	check "hugetlbfs for 2M, mode 1770" sh -c "tr -d '\r' <'$B/$a.log' | grep '^MOUNT hugetlbfs /dev/hugepages2M hugetlbfs ' | grep 'pagesize=2M' | grep -q 'mode=1770'"
	check "hugetlbfs for 1G" sh -c "tr -d '\r' <'$B/$a.log' | grep -q '^MOUNT hugetlbfs /mnt/huge1G hugetlbfs .*pagesize=1024M'"
	if /usr/bin/python3 "$TOP/test/check-prometheus.py" "$B/$a.prom" >"$B/$a.prom.txt" 2>&1; then
		check "the textfile: achieved and live pages of node 1" sh -c \
			"grep -qx 'hugepar_achieved_pages{node=1,size=2M} 40' '$B/$a.prom.txt' && grep -qx 'hugepar_live_pages{node=1,size=2M} 40' '$B/$a.prom.txt'"
	else
		fail "the textfile does not parse: $(tail -1 "$B/$a.prom.txt")"
	fi
	expect_eq "the kernel command line" "$(line "$a" CMDLINE)" "$2"
	expect_eq "pages lost: status --check, verify with on_short = fail" \
		"$(line "$a" CHECK-RC) $(line "$a" VERIFY2-RC)" "65 1"
}

# shares_case SERIES [PREFIX]: two nodes of different sizes, a share and a count,
# threads given; then what a booted system does with the result (after_checks).
# PREFIX ng- builds the initramfs with dracut-ng.
# vmemmap_param SERIES: what hugepar cmdline puts first on that kernel: the vmemmap
# optimization where auto turns it on (not on 6.12: doc/kernel-notes.md)
vmemmap_param() { case $1 in 6.12) ;; *) printf 'hugetlb_free_vmemmap=on ' ;; esac; }

shares_case() {
	local n=$1${2:+-ng}-shares cmd="rd.hugepar.pages=2M:25%@0,2M:40@1 $RES rd.hugepar.threads=3 boot.after"
	on "$1" || return
	# the root's sysctl.d file (make_root), named by plan before the boot
	"$TOP/hugepar" plan --root "$B/root" --cmdline "$cmd" >"$B/$n.plan" 2>&1
	check "plan of the root names its vm.nr_hugepages" \
		grep -qF "  /etc/sysctl.d/90-hp.conf:1: vm.nr_hugepages = 200: systemd-sysctl " "$B/$n.plan"
	boot "$n" "${2:-}nosystemd" "$TWO" "$cmd" || return
	# of its memory blocks (stable across boots): SHARE0
	expect_eq "node 0 target is 25% of its memory" \
		"$(rec "$n" '.nodes[0].sizes[0] | "\(.size) \(.target)"')" "2M $SHARE0"
	expect_eq "pools = plan" "$(pools "$n")" "$SHARE0 40"
	expect_eq "status" "$(rec "$n" .status)" ok
	expect_eq "threads honoured (auto gives 2)" "$(rec "$n" .threads)" 3
	expect_eq "status does not call unchanged settings stale" \
		"$(grep -ac 'has changed since this run read it' "$B/$n.log")" 0
	left_clean "$n"
	after_checks "$n" "$(vmemmap_param "$1")hugepagesz=2M hugepages=0:$SHARE0,1:40"
	check "status after the boot names it, and what it will do" grep -aqF \
		"  /etc/sysctl.d/90-hp.conf:1: vm.nr_hugepages = 200: systemd-sysctl raises the 2M pool from $((SHARE0 + 40)) to 200 pages after the root switch: the kernel adds $((200 - SHARE0 - 40)) more over the nodes in turn (about $(((200 - SHARE0 - 40 + 1) / 2)) a node), beside hugepar's (node 0: $SHARE0, node 1: 40)" \
		"$B/$n.log"
}

# vmemmap_case SERIES [SETTING]: 60 2M pages a node with vmemmap at its default (or
# SETTING): the optimization on at the root switch (auto leaves it off on 6.12, which
# loses an optimized page it frees: doc/kernel-notes.md); each node's pool given back
# at the root, what comes back measures what the descriptors took: 28 kB a page
# optimized, at least 95% of it, and the record's figure within 5% of the measure;
# nothing with keep
vmemmap_case() {
	local n=$1-vmemmap${2:+-$2} node p kb held fig i=0
	on "$1" || return
	boot "$n" nosystemd "$TWO" "rd.hugepar.pages=2M:60 $RES ${2:+rd.hugepar.vmemmap=$2} boot.vmemmap" || return
	expect_eq "status" "$(rec "$n" .status)" ok
	case $1,${2:-} in
	6.12,)
		expect_eq "auto on Linux 6.12: off, and why" "$(line "$n" VMEMMAP-SYSCTL) $(rec "$n" .vmemmap.why)" "0 leaks_on_free"
		return
		;;
	*,keep) expect_eq "keep: off at the root switch" "$(line "$n" VMEMMAP-SYSCTL) $(rec "$n" .vmemmap.why)" "0 keep" ;;
	*) expect_eq "on at the root switch, by hugepar" "$(line "$n" VMEMMAP-SYSCTL) $(rec "$n" .vmemmap.why)" "1 turned_on" ;;
	esac
	while read -r node p kb; do
		held=$((p * 2048 - kb))
		fig=$(rec "$n" ".nodes[$i].sizes[] | select(.size == \"2M\") | .vmemmap_freed_kb")
		i=$((i + 1))
		echo "     $CASE: node $node: $p pages gave back $kb kB: $held kB held by descriptors; the record: $fig kB"
		if [ -n "${2:-}" ]; then
			check "node $node: nothing held back ($held kB for $p pages)" test "$held" -le "$((p * 2))" -a "$held" -ge "$((-p * 2))"
			continue
		fi
		check "node $node: $held kB, at least 95% of 28 kB a page" test "$((held * 100))" -ge "$((p * 28 * 95))"
		check "node $node: the record's $fig kB within 5% of it" \
			awk -v f="$fig" -v m="$held" 'BEGIN { exit !(f >= m * 0.95 && f <= m * 1.05) }'
	done < <(tr -d '\r' <"$B/$n.log" | sed -n 's/^VMEMMAP-NODE //p')
	expect_eq "both nodes measured" "$i" 2
}

# capped_case SERIES: a run whose node 1 free memory capped its request (a tmpfs bound
# to node 1 holds the memory, in the root: boot.capped), then a boot with the kernel
# parameters hugepar cmdline printed for it: node 1 has the pages asked for, and the
# record of that boot names them; the first boot also measures what a write of the
# whole pool does to per-node pools (doc/kernel-notes.md)
capped_case() {
	local n=$1-capped k
	on "$1" || return
	boot "$n" nosystemd "$TWO" "boot.capped" || return
	tr -d '\r' <"$B/$n.log" | sed -n '/^CAPPED-BEGIN/,/^CAPPED-END/p' | sed '1d;$d' >"$B/$n-run.json"
	expect_eq "the run: node 1 capped by free memory" \
		"$(rec "$n-run" '.nodes[1].sizes[0] | "\(.requested) \(.cause) \(.target < .requested)"')" "150 free_memory true"
	k=$(line "$n" CAPPED-CMDLINE)
	expect_eq "hugepar cmdline: the request" "$k" "$(vmemmap_param "$1")hugepagesz=2M hugepages=1:150"
	echo "     $CASE: capped at $(rec "$n-run" '.nodes[1].sizes[0].target'); whole pool from $(line "$n" GLOBAL-START): to 50 $(line "$n" GLOBAL-UP), to 20 $(line "$n" GLOBAL-DOWN), mempolicy 20 $(line "$n" GLOBAL-SAME)"
	expect_eq "a write of the whole pool adds and frees in turn over the nodes" \
		"$(line "$n" GLOBAL-START), $(line "$n" GLOBAL-UP), $(line "$n" GLOBAL-DOWN), $(line "$n" GLOBAL-SAME)" \
		"30 0, 40 10, 20 0, 20 0"
	[ -n "$k" ] || return
	boot "$n-kernel" nosystemd "$TWO" "$k" || return
	expect_eq "with those parameters node 1 has its pages" "$(pools "$n-kernel")" "0 150"
	expect_eq "the boot's record names them (the pools' part: the vmemmap one sets none)" \
		"$(rec "$n-kernel" '.setters[] | select(.origin == "kernel command line") | .setting')" \
		"${k#hugetlb_free_vmemmap=on }"
}

# pools_case SERIES NAME FLAVOUR CMDLINE NODE0 NODE1 [STATUS]: a boot of the two-node
# machine whose 2M pools must come out as given, with a record of STATUS (ok)
pools_case() {
	on "$1" || return
	boot "$2" "$3" "$TWO" "$4" || return
	expect_eq "pools" "$(pools "$2")" "$5 $6"
	expect_eq "status" "$(rec "$2" .status)" "${7:-ok}"
	left_clean "$2"
}

# guest_case SERIES: the off switch (under dash), then the root's own programs: the
# kernel's per-node write rule with surplus held on the other node (boot.rules,
# which leaves the pools empty), then pages placed on the wrong node (boot.misplace)
guest_case() {
	local g=$1-guest
	on "$1" || return
	boot "$g" dash "$TWO" "rd.hugepar=no rd.hugepar.pages=2M:40 boot.rules boot.misplace" || return
	expect_eq "rd.hugepar=no: disabled, pools untouched" "$(rec "$g" .status) $(pools "$g")" "disabled 0 0"
	rules_checks "$g"
	# pages placed on the wrong node are trimmed there and topped up where planned
	tr -d '\r' <"$B/$g.log" | sed -n '/^MISPLACE-BEGIN/,/^MISPLACE-END/p' | sed '1d;$d' >"$B/$g-misplace.json"
	expect_eq "misplaced: exit code" "$(line "$g" MISPLACE-RC)" 0
	expect_eq "misplaced: pools" "$(line "$g" MISPLACE-POOLS)" "30 0"
	expect_eq "misplaced: trimmed on node 1, topped up on node 0" \
		"$(rec "$g-misplace" '.sizes[0] | "\(.method) \(.trimmed) \(.topped_up)"')" "parallel 30 30"
}

# rules_checks NAME: the kernel's per-node write rule and surplus placement, as the
# root's rules.sh saw them (doc/kernel-notes.md)
rules_checks() {
	local g=$1 raw want giga
	raw=$(line "$g" RULE-RAW)
	echo "     $CASE: held $(line "$g" RULE-HELD), node 0 after a raw write of 40: $raw"
	# before 6.7 the write counts the other node's surplus against this one
	case $KVER in 6.1.*) want="50 0" ;; *) want="40 0" ;; esac
	expect_eq "rules: held on node 1 (surplus node 1, node 0)" "$(line "$g" RULE-HELD)" "10 0"
	expect_eq "rules: a raw write of 40 gives (nr, surplus)" "$raw" "$want"
	expect_eq "rules: hugepar's write is exact (rc, node 0 nr surplus, node 1 nr surplus)" \
		"$(line "$g" RULE-HUGEPAR)" "0 40 0 10 10"
	expect_eq "rules: their surplus gone with them" "$(line "$g" RULE-AFTER)" 0
	# a surplus page of a program on node 1's CPU, unbound or bound to both
	# nodes: 6.1 its CPU's node, 6.12 the lowest node, 6.16 on the CPU's node
	# within the policy; gigantic overcommit from 6.19 on
	case $KVER in
	6.1.*) want="0 2" giga="refused 0" ;;
	6.12.*) want="2 0" giga="refused 0" ;;
	*) want="0 2" giga="accepted 1" ;;
	esac
	echo "     $CASE: surplus of a program on node 1 (node 0, node 1): unbound $(line "$g" RULE-PLACE-unbound), bound to both $(line "$g" RULE-PLACE-bind-all); 1G overcommit $(line "$g" RULE-GIGANTIC)"
	expect_eq "rules: placement without a policy" "$(line "$g" RULE-PLACE-unbound)" "$want"
	expect_eq "rules: placement bound to both nodes" "$(line "$g" RULE-PLACE-bind-all)" "$want"
	expect_eq "rules: 1G nr_overcommit_hugepages of 1" "$(line "$g" RULE-GIGANTIC)" "$giga"
}

# itools_case SERIES: initramfs-tools: the same record, moved with /run, and what a
# booted system does with it
itools_case() {
	local n=$1-itools
	on "$1" || return
	boot "$n" itools "$TWO" "rd.hugepar.pages=2M:25%@0,2M:40@1 $RES boot.after" || return
	expect_eq "pools" "$(pools "$n")" "$SHARE0 40"
	expect_eq "status" "$(rec "$n" .status)" ok
	left_clean "$n"
	after_checks "$n" "$(vmemmap_param "$1")hugepagesz=2M hugepages=0:$SHARE0,1:40"
}

# four_case SERIES: four nodes, one without CPUs; 1G pages on it (may come out
# short: truthfully)
four_case() {
	local n=$1-four
	on "$1" || return
	boot "$n" nosystemd "512:1 512:1 512:1 1536:0" "rd.hugepar.pages=2M:20,1G:1@3 rd.hugepar.keep_free=64M" || return
	expect_eq "2M pools" "$(for i in 0 1 2 3; do node_pool "$n" $i 2; done | xargs)" "20 20 20 20"
	expect_eq "CPU-less node has no workers" "$(rec "$n" '.nodes[3].threads')" 0
	expect_eq "record tells the 1G truth" "$(rec "$n" '.nodes[3].sizes[1].achieved')" "$(node_pool "$n" 3 3)"
	left_clean "$n"
}

# giga_case SERIES: 1G and 2M, a 1G page a node (a first node of 8 GiB: a smaller
# one has few free 1 GiB ranges on q35, and the 2M work beside the 1G work can take
# the last, doc/kernel-notes.md): 1G by workers from 6.19 on and beside the 2M work;
# before, by per-node writes and first, the 2M work after
giga_case() {
	local g=$1-1g2m want="serial: 1G pages cannot be overcommitted before Linux 6.19"
	# the order from when each size began (start_ms) and ended, not from how long
	local when="2M began after 1G ended" cmp=">="
	on "$1" || return
	case $KVER in 6.*) ;; *)
		want="parallel: auto: 1G pages, 2 workers at once: no probe"
		when="2M began before 1G ended" cmp="<"
		;;
	esac
	boot "$g" nosystemd "8192:1 4096:1" "rd.hugepar.pages=2M:100,1G:1 rd.hugepar.keep_free=256M" || return
	expect_eq "pools (2M, 1G)" \
		"$(pools "$g") $(node_pool "$g" 0 3) $(node_pool "$g" 1 3)" "100 100 1 1"
	expect_eq "status" "$(rec "$g" .status)" ok
	expect_eq "how 1G was done" "$(rec "$g" '.sizes[1] | .method + ": " + .method_note')" "$want"
	echo "     $CASE: $(rec "$g" '"2M from \(.sizes[0].start_ms) ms for \(.sizes[0].ms) ms, 1G from \(.sizes[1].start_ms) ms for \(.sizes[1].ms) ms"')"
	expect_eq "$when" "$(rec "$g" ".sizes[0].start_ms $cmp .sizes[1].start_ms + .sizes[1].ms")" true
	left_clean "$g"
}

# device_case SERIES FLAVOUR: pages named by a PCI device's address, not a node: a
# NIC behind a PCI Express bus of node 1 (pxb-pcie, numa_node=1) gets them there; a
# device of the root bus, which has no node, is a problem named, and the rest goes
# on
device_case() {
	local n=$1-device-$2 nic=0000:81:00.0 nonode=0000:00:02.0
	on "$1" || return
	# shellcheck disable=SC2054 # (QEMU's own commas)
	DEVICES=(-device pxb-pcie,id=pxb1,bus_nr=128,numa_node=1,bus=pcie.0
		-device pcie-root-port,id=rp1,bus=pxb1,chassis=1
		-device e1000e,bus=rp1,netdev=nd1 -netdev user,id=nd1,restrict=on)
	boot "$n" "$2" "$TWO" "rd.hugepar.pages=2M:64@pci:$nic,2M:8@pci:$nonode $RES" || return
	expect_eq "the NIC is on node 1" "$(line "$n" "PCI $nic")" 1
	expect_eq "pools: the NIC's node only" "$(pools "$n")" "0 64"
	expect_eq "the record: the NIC's node" \
		"$(rec "$n" '.settings.devices[0] | "\(.device) \(.node) \(.problem)"')" "pci:$nic 1 "
	expect_eq "the record: a device without a node, named" \
		"$(rec "$n" '.settings.devices[1] | "\(.device) \(.node)"')" "pci:$nonode null"
	expect_eq "status partial (a problem named)" "$(rec "$n" .status)" partial
	left_clean "$n"
}

# off_case SERIES FLAVOUR VALUE: rd.hugepar=VALUE: nothing done, and (but under
# busybox, whose switch_root does not carry /run over) a "disabled" record
off_case() {
	local n=$1-off-$2
	[ "$2" = itools ] && n=$1-itools-off
	on "$1" || return
	boot "$n" "$2" "$TWO" "rd.hugepar=$3 rd.hugepar.pages=2M:40" || return
	expect_eq "pools untouched" "$(pools "$n")" "0 0"
	[ "$2" = busybox ] || expect_eq "disabled" "$(rec "$n" .status)" disabled
}

# malformed_case SERIES: malformed options: the record names each, valid entries
# apply, the timeout falls back to its default
malformed_case() {
	local n=$1-malformed
	on "$1" || return
	boot "$n" nosystemd "$TWO" "rd.hugepar.pages=2M:30,2M:x@1 rd.hugepar.threads=lots rd.hugepar.timeout=abc $RES" ||
		return
	expect_eq "valid entry applied" "$(pools "$n")" "30 30"
	expect_eq "problems named" "$(rec "$n" '[.settings.problems[].value] | join(" ")')" "2M:x@1 lots abc"
	expect_eq "the default timeout" "$(rec "$n" .settings.timeout_ms)" 60000
	expect_eq "status partial" "$(rec "$n" .status)" partial
	left_clean "$n"
}

# timeout_case SERIES [PREFIX] FLAVOUR VALUE: a hostile timeout reaches the real
# root under the flavour's shell; hugepar takes or names it. Under busybox (dracut's
# init then calls busybox's own switch_root, which does not carry /run over) only
# the pools and what was left are seen.
timeout_case() {
	local k=$1 p=$2 f=$3 v=$4 s=${4#-} n
	[ -n "$v" ] || s=empty
	n=$k${p:+-ng}-timeout-$f-$s
	on "$k" || return
	boot "$n" "$p$f" "$TWO" "rd.hugepar.timeout=$v rd.hugepar.pages=2M:20 $RES" || return
	expect_eq "pools" "$(pools "$n")" "20 20"
	left_clean "$n"
	[ "$f" = busybox ] && return
	if [ "$v" = 08 ]; then
		[ -n "$p" ] || row "$n" "rd.hugepar.timeout=08 (dash)"
		expect_eq "status, timeout taken" "$(rec "$n" '"\(.status) \(.settings.timeout_ms) \(.settings.problems | length)"')" "ok 8000 0"
	else
		expect_eq "status, timeout named" "$(rec "$n" '"\(.status) \(.settings.timeout_ms) \(.settings.problems | length)"')" "partial 60000 1"
	fi
}

# baked_case SERIES: settings baked in by dracut --kernel-cmdline
baked_case() {
	pools_case "$1" "$1-baked" baked "" 12 12 || return
	expect_eq "the baked file is a source" "$(rec "$1-baked" 'any(.settings.sources[]; contains("cmdline.d"))')" true
}

# outlived_case SERIES FLAVOUR: a run that outlives its deadline, stuck where SIGTERM
# does not reach it: the wait hook (dracut) or init-bottom (initramfs-tools) kills
# it, puts back the overcommit value, records why; the boot goes on
outlived_case() {
	local n=$1-outlived
	[ "$2" = itools-test ] && n=$1-itools-outlived
	on "$1" || return
	boot "$n" "$2" "$TWO" "rd.hugepar.timeout=1 hugepar.fault=parallel,restore=hang:300000 rd.hugepar.pages=2M:20 $RES" ||
		return
	left_clean "$n"
	expect_eq "the record says why" "$(rec "$n" '.status + ": " + .error')" \
		"failed: stopped at the root switch: still running past its deadline"
	expect_eq "what it found and did" \
		"$(rec "$n" '.recovered[] | "\(.overcommit_found) \(.overcommit_put_back) \(.ok)"')" "40 0 true"
	if [ "$2" = test ]; then
		row "$n" "stuck past its deadline (SIGTERM ignored)"
	else
		row "$n" "stuck past its deadline, initramfs-tools"
	fi
}

# extend_case SERIES: the systemd unit's start timeout is hugepar's deadline: a run
# longer than the unit's own 30 s is not cut short
extend_case() {
	local n=$1-extend
	on "$1" || return
	boot "$n" systemd-test "$TWO" "rd.hugepar.timeout=60 hugepar.fault=record=delay:36000 rd.hugepar.pages=2M:10 $RES" ||
		return
	expect_eq "a 36 s run under systemd finished" "$(rec "$n" .status)" ok
	left_clean "$n"
}

# ignition_case SERIES: an Ignition first boot (a stand-in for Ignition's module):
# the drop-in its files write into /sysroot is taken before the root switch, by
# hugepar-ignition.service after the initramfs's own run, and the initramfs is
# marked to be built again
ignition_case() {
	local n=$1-ignition up
	on "$1" || return
	boot "$n" ignition "$TWO" "rd.hugepar.pages=2M:20@0 $RES" || return
	expect_eq "pools: the command line's 20 on node 0, the drop-in's 30 on node 1" "$(pools "$n")" "20 30"
	expect_eq "the record: the drop-in, as the booted system names it" \
		"$(rec "$n" '.settings.pages[] | select(.origin | startswith("/etc/hugepar.conf.d")) | .entry + " " + .origin')" \
		"2M:30@1 /etc/hugepar.conf.d/90-ignition.conf:1"
	expect_eq "... of a run in the initramfs" "$(rec "$n" '[.status, .initramfs] | join(" ")')" "ok true"
	up=$(line "$n" UPTIME)
	check "... that ended before the root switch ($(rec "$n" '.started_boot_ms + .duration_ms') ms, the root at ${up%% *} s)" \
		test "$(rec "$n" '.started_boot_ms + .duration_ms')" -lt "$(echo "${up%% *}" | awk '{ printf "%d", $1 * 1000 }')"
	check "the initramfs marked to be built again" sh -c "[ '$(line "$n" STALE)' != none ]"
	left_clean "$n"
}

# requires: what every boot needs (TESTS=list needs none of it)
requires() {
	command -v qemu-system-x86_64 >/dev/null && command -v dracut >/dev/null && [ -x "$TOP/hugepar" ] &&
		[ -x "$TOP/hugepar-test" ] && [ -x "$TOP/build/holdpages" ] && kernel 6.1 && return 0
	echo "needs linux-image-amd64, qemu-system-x86, dracut, and hugepar, hugepar-test and build/holdpages built"
	return 1
}
# prepare: the staged dracut trees and the root file system, once a run; the root of
# unstable that dracut-ng runs in is begun now, beside the first boots, when a case
# that runs will need it
prepare() {
	local n
	rm -rf "$ONCE" "$B/tested" "$B"/*.row
	stage_dracut
	make_root
	for n in "${TC_NAMES[@]}"; do
		case $n in 7-ng-*) ;; *) continue ;; esac
		case_wanted "$n" && short_enough "$n" || continue
		(once ng-root make_ng_root >/dev/null 2>&1 &)
		break
	done
}


SERIES=${BENCH_KERNEL:-6.1}
if [ "${1:-}" = setup ] || [ "${1:-}" = bench ] || [ "${1:-}" = demo ]; then
	mode=$1
	shift
	kernel "$SERIES" || { echo "$mode: no Linux $SERIES kernel"; exit 1; }
fi
# setup FLAVOUR...: the root and an initramfs of each flavour for $KVER, built now
if [ "${mode:-}" = setup ]; then
	prepare >/dev/null
	rc=0
	for f in nosystemd "$@"; do
		initramfs "$f" || rc=1
	done
	exit $rc
fi
if [ "${mode:-}" = bench ]; then
	# the images test/boot.sh setup made, as they are
	f=${BOOT_FLAVOUR:-nosystemd}
	if [ ! -f "$B/initrd-$KVER-$f.img" ] || [ ! -f "$B/root.img" ]; then
		prepare >/dev/null
	fi
	[ -f "$B/initrd-$KVER-$f.img" ] || initramfs "$f" >/dev/null || exit 1
	mkdir -p "$ONCE" && echo 0 >"$ONCE/initramfs-$KVER-$f.rc"
	PIN_VCPUS=1 boot "bench-$2" "$f" "$3" "$4" >/dev/null || exit 1
	tr -d '\r' <"$B/bench-$2.log" | grep -a '^BENCH\|^TRACE\|^COST\|^UPTIME\|^NODE\|^STATUS\|^KLOG'
	exit 0
fi
if [ "${mode:-}" = demo ]; then
	echo "Building the initramfs and booting a two-node machine (about a minute)..."
	prepare >/dev/null
	boot demo nosystemd "$TWO" "rd.hugepar.pages=2M:25%@0,2M:40@1 rd.hugepar.keep_free=128M" >/dev/null ||
		{ echo "the boot did not finish; see $B/demo.log"; exit 1; }
	tr -d '\r' <"$B/demo.log" | sed -n '/^RECORD-END/,/^HUGEPAR-BOOT-END/p' | sed '1d;$d'
	exit 0
fi

# The cases of a kernel: SERIES-NAME; make check boots each path once, make check-all
# repeats the initramfs paths on every kernel. FULL is the kernel every path boots on
# in make check (the first of BOOT_KERNELS).
KERNELS=${BOOT_KERNELS:-6.1 6.12 7}
FULL=${KERNELS%% *}
# declare SERIES NAME DESCRIPTION FUNCTION ARG...: the case SERIES-NAME, long on
# every kernel but FULL
declare_path() {
	local k=$1 name=$2 desc=$3
	shift 3
	if [ "$k" = "$FULL" ]; then tcase "$k-$name" "$desc" "$@"; else tcase_long "$k-$name" "$desc" "$@"; fi
}
for k in $KERNELS; do
	tcase "$k-shares" "Linux $k, dracut (bash): a share and a count on two nodes, then verify, mounts, textfile, status --check" shares_case "$k"
	tcase "$k-guest" "Linux $k: rd.hugepar=no under dash; the kernel's per-node write rule; pages put on the wrong node corrected" guest_case "$k"
	tcase "$k-1g2m" "Linux $k: 1G and 2M pages at once on two nodes, each size by its own path" giga_case "$k"
	tcase "$k-four" "Linux $k: four nodes, one without CPUs and a 1G page on it" four_case "$k"
	tcase "$k-itools" "Linux $k, initramfs-tools: the record moved with /run, then verify, mounts, textfile" itools_case "$k"
	declare_path "$k" capped "Linux $k: a node capped by free memory, then booted with hugepar cmdline's parameters: its pages" \
		capped_case "$k"
	declare_path "$k" device-nosystemd "Linux $k, dracut: pages on a NIC's node (node 1), named by its PCI address" \
		device_case "$k" nosystemd
	declare_path "$k" device-itools "Linux $k, initramfs-tools: pages on a NIC's node (node 1), named by its PCI address" \
		device_case "$k" itools
	declare_path "$k" systemd "Linux $k, dracut with systemd: pools per node" \
		pools_case "$k" "$k-systemd" systemd "rd.hugepar.pages=2M:24@0,2M:16@1 $RES" 24 16
	declare_path "$k" off-systemd "Linux $k, dracut with systemd: rd.hugepar=off" off_case "$k" systemd off
	tcase_long "$k-off-busybox" "Linux $k, dracut under busybox sh: rd.hugepar=0" off_case "$k" busybox 0
	declare_path "$k" malformed "Linux $k: malformed pages, threads and timeout named, the rest applied" malformed_case "$k"
	declare_path "$k" timeout-dash-08 "Linux $k, dracut under dash: timeout 08 taken as 8 s" timeout_case "$k" "" dash 08
	declare_path "$k" timeout-busybox-99999999999999999999 "Linux $k, dracut under busybox sh: a 20-digit timeout" \
		timeout_case "$k" "" busybox 99999999999999999999
	tcase_long "$k-timeout-dash-empty" "Linux $k, dracut under dash: an empty timeout" timeout_case "$k" "" dash ""
	tcase_long "$k-timeout-busybox-5" "Linux $k, dracut under busybox sh: timeout -5" timeout_case "$k" "" busybox -5
	declare_path "$k" baked "Linux $k: settings baked in with dracut --kernel-cmdline" baked_case "$k"
	declare_path "$k" outlived "Linux $k, dracut: a run stuck past its deadline is stopped and undone" outlived_case "$k" test
	declare_path "$k" itools-off "Linux $k, initramfs-tools: rd.hugepar=off" off_case "$k" itools off
	declare_path "$k" itools-bad "Linux $k, initramfs-tools: a bad timeout and a bad entry named, the rest applied" \
		pools_case "$k" "$k-itools-bad" itools "rd.hugepar.timeout=08x rd.hugepar.pages=2M:20,2M:x $RES" 20 20 partial
	declare_path "$k" itools-outlived "Linux $k, initramfs-tools: a run stuck past its deadline is stopped by init-bottom" \
		outlived_case "$k" itools-test
	[ "$k" = "$FULL" ] && tcase "$k-extend" "Linux $k, dracut with systemd: a 36 s run is not cut short by the unit's 30 s" extend_case "$k"
	declare_path "$k" ignition "Linux $k, dracut with systemd and a stand-in Ignition: its files' pages before the root switch" \
		ignition_case "$k"
	tcase_long "$k-vmemmap" "Linux $k: the vmemmap optimization by default: on at the root, 28 kB a 2M page measured, the record's figure" \
		vmemmap_case "$k"
	tcase_long "$k-vmemmap-keep" "Linux $k: vmemmap = keep: off at the root, nothing held back" vmemmap_case "$k" keep
done
# dracut-ng without systemd, on unstable's own kernel, built in a root of unstable
case " $KERNELS " in *" 7 "*)
	tcase 7-ng-shares "Linux 7, dracut-ng (bash): a share and a count on two nodes, then verify" shares_case 7 ng-
	tcase 7-ng-timeout-dash-08 "Linux 7, dracut-ng under dash: timeout 08 taken as 8 s" timeout_case 7 ng- dash 08
	tcase 7-ng-timeout-busybox-99999999999999999999 "Linux 7, dracut-ng under busybox sh: a 20-digit timeout" \
		timeout_case 7 ng- busybox 99999999999999999999
	tcase_long 7-ng-timeout-nosystemd-abc "Linux 7, dracut-ng: timeout abc named" timeout_case 7 ng- nosystemd abc
	tcase_long 7-ng-timeout-dash-empty "Linux 7, dracut-ng under dash: an empty timeout" timeout_case 7 ng- dash ""
	tcase_long 7-ng-timeout-busybox-5 "Linux 7, dracut-ng under busybox sh: timeout -5" timeout_case 7 ng- busybox -5
	;;
esac

# Boots run at once, as many as this machine has CPUs (up to 4; BOOT_JOBS to choose):
# each waits on the initramfs it needs.
# shellcheck disable=SC2034 # (run_cases reads it)
TC_JOBS=${BOOT_JOBS:-$(n=$(nproc); echo $((n > 4 ? 4 : n)))}
run_cases
versions
[ -z "$(ls "$B"/*.row 2>/dev/null)" ] || cat "$B"/*.row >"$MATRIX"
echo "boot: $(summary_line)"
