#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Boot tests: Debian's kernels (6.1, installed; 6.12 and the newest 7.x of its
# unstable archive, fetched by make deps), an
# initramfs made by `dracut --add hugepar` from a staged module tree (the system's
# dracut tree is not touched), a busybox root file system, QEMU with emulated NUMA
# nodes. The root's init reads /run/hugepar and the node pools after the switch and
# prints them on the serial console. On the 7.x kernel, the shares and timeout cases
# boot once more with dracut-ng, the dracut of Debian's unstable (7-ng-*), run in a
# root of that release made for the run: its dracut-install needs that release's C
# library.
#   test/boot.sh          run the boot cases on every kernel found (BOOT_KERNELS="6.1
#                         6.12 7" to choose)
#   test/boot.sh demo     one boot of the two-node machine, then `hugepar status`
#   test/boot.sh setup [FLAVOUR...]   only build the images (for bench/; BENCH_KERNEL=7
#                         for that kernel's)
#   test/boot.sh bench NAME TOPOLOGY CMDLINE   one boot for bench/qemu.sh (BENCH_KERNEL=6.12
#                         for that kernel)
. "$(dirname "$0")/lib.sh"

B=$OUT/boot
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

# TESTS=list (HUGEPAR_LIST) names the cases, and needs none of this
if [ -z "${HUGEPAR_LIST:-}" ] && { ! command -v qemu-system-x86_64 >/dev/null ||
	! command -v dracut >/dev/null || [ ! -x "$TOP/hugepar" ] || ! kernel 6.1; }; then
	skip "boot tests: need linux-image-amd64, qemu-system-x86, dracut and a built hugepar"
	echo "boot: $(summary_line)"
	exit 0
fi

# Dracut trees of links to the system's, plus our module: one with hugepar, one with
# the test build (fault seam) as the module's binary, and a variant for bench/qemu.sh
# that starts hugepar only at pre-pivot, to show what the early start saves.
stage_dracut() {
	local d m
	mkdir -p "$B/dracut.conf.d"
	for d in dracut dracut-test dracut-late; do
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
	dash) mods="dash $mods" ;;      # the hooks under a strict POSIX shell
	busybox) mods="busybox-sh $mods" ;; # ... and under busybox ash
	test) mods="bash $mods" base=$B/dracut-test ;;
	late) mods="bash $mods" base=$B/dracut-late ;;
	baked) mods="bash $mods" extra=(--kernel-cmdline "rd.hugepar.pages=2M:12 rd.hugepar.reserve=64M") ;;
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
# util-linux, and which dracut needs without systemd). Made once a run, with the
# staged tree in it (/stage/dracut: links to its dracut, our module and busybox-sh).
NG_ROOT=$B/ng-root
NG_MADE=""
ng_root() {
	[ -z "$NG_MADE" ] || { [ "$NG_MADE" = ok ]; return; }
	NG_MADE=failed
	rm -rf "$NG_ROOT"
	"$TOP/scripts/apt-sources.sh" sid >"$B/ng-sources.list"
	# The release file of an unstable mirror snapshot may be past its Valid-Until.
	mmdebstrap --variant=minbase --include=dracut-core,busybox-static,util-linux-extra \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		sid "$NG_ROOT" "$B/ng-sources.list" >"$B/ng-root.log" 2>&1 || return 1
	chroot "$NG_ROOT" sh -c 'mkdir -p /stage/conf.d /out && cp -as /usr/lib/dracut /stage/dracut' &&
		cp -r "$B/dracut/modules.d/$DRACUT_MODULE" "$B/dracut/modules.d/05busybox-sh" \
			"$NG_ROOT/stage/dracut/modules.d/" || return 1
	NG_MADE=ok
}

# dracut_ng BASE MODULES IMAGE [OPTION...]: dracut-ng in the unstable root, with the
# kernel's modules shown to it at /lib/modules in a mount namespace of its own. BASE
# must be the plain staged tree: its copy in the root is that one.
dracut_ng() {
	local base=$1 mods=$2 img=$3
	shift 3
	[ "$base" = "$B/dracut" ] || { echo "dracut_ng: only the plain tree is staged in the unstable root"; return 1; }
	ng_root || { echo "dracut_ng: the unstable root was not made (see $B/ng-root.log)"; return 1; }
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

make_root() {
	local r=$B/root
	rm -rf "$r"
	mkdir -p "$r"/{bin,sbin,usr/sbin,usr/bin,proc,sys,dev,run,tmp,etc}
	cp "$(command -v busybox)" "$r/bin/busybox"
	for c in sh cat ls mount poweroff sleep echo grep pidof kill sed seq wc dmesg head mkfifo rm mkdir; do
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
	cp "$TOP/test/guest-rules.sh" "$r/rules.sh"
	cp "$TOP/test/guest-after.sh" "$r/after.sh"
	cat >"$r/sbin/init" <<'INIT'
#!/bin/sh
# The real root: report what the initramfs left, then power off.
mount -t proc proc /proc 2>/dev/null
mount -t sysfs sys /sys 2>/dev/null
echo "RUNNING $(pidof hugepar hugepar-test)"
grep -q bench.pages= /proc/cmdline && sh /bench.sh
grep -q boot.rules /proc/cmdline && sh /rules.sh
grep -q boot.after /proc/cmdline && sh /after.sh
if grep -q boot.misplace /proc/cmdline; then
	# the test build runs every worker on the wrong node: reconcile must fix it
	HUGEPAR_FAULT=misplace /usr/sbin/hugepar-test apply --config /dev/null --record-dir /tmp/mp \
		--method=parallel --cmdline "rd.hugepar.pages=2M:30@0 rd.hugepar.reserve=64M" >/dev/null 2>&1
	echo "MISPLACE-RC $?"
	echo "MISPLACE-BEGIN"; cat /tmp/mp/status.json; echo "MISPLACE-END"
fi
echo "HUGEPAR-BOOT-BEGIN"
echo "UPTIME $(cat /proc/uptime)"
# the kernel's own boot-time allocation says what it took (6.9 on), at info level
dmesg 2>/dev/null | grep -a -i 'hugetlb' | sed 's/^/KLOG /'
for n in /sys/devices/system/node/node*; do
	echo "NODE ${n##*node} $(cat "$n/hugepages/hugepages-2048kB/nr_hugepages" 2>/dev/null || echo -) $(cat "$n/hugepages/hugepages-1048576kB/nr_hugepages" 2>/dev/null || echo -)"
done
echo "GLOBAL $(cat /proc/sys/vm/nr_overcommit_hugepages) $(cat /sys/kernel/mm/hugepages/hugepages-2048kB/surplus_hugepages)"
echo "NOTES $(ls /run/hugepar/restore-* 2>/dev/null | wc -l)"
if [ -f /run/hugepar/status.json ]; then
	echo "RECORD-BEGIN"; cat /run/hugepar/status.json; echo "RECORD-END"
	/usr/sbin/hugepar status
else
	echo "NO-RECORD"
	cat /run/hugepar/apply.log 2>/dev/null
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
# run at once. Left to the host's scheduler, the two busy vCPUs of a two-node bench
# did not run fully at once: two bare processes reserving on two nodes at once took
# 1.25x one of them alone, and memset in two guest processes 1.0-1.5x one; pinned,
# 1.0x and 1.01-1.05x (doc/benchmarks.md, "Two vCPUs at once"). For bench boots
# (test/boot.sh bench); the boot cases are not timed.
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

# boot NAME FLAVOUR TOPOLOGY CMDLINE [CASE...]: TOPOLOGY is "MB:CPUS MB:CPUS ..." per
# node, CPUS a count (0 for a CPU-less node). The log is $B/NAME.log, the record
# $B/NAME.json. Booted when NAME is a selected case, or one of the CASEs whose
# checks the boot serves.
boot() {
	local name=$1 flavour=$2 cmdline=$4 try qemu rc why
	qemu_numa "$3"
	shift 4
	if [ $# -gt 0 ]; then any_wanted "$@"; else wanted "$name"; fi || return 1 # TESTS names other cases
	TESTED[$KVER]=$KERNEL
	if ! initramfs "$flavour"; then
		echo "     $name: no $flavour initramfs for $KVER (its build failed): not booted"
		: >"$B/$name.log"
		: >"$B/$name.json"
		return 1
	fi
	# The emulated kernel now and then panics in its own early start (a timer under
	# TCG, seen on 6.12 before any user space ran), and a boot has once stopped
	# short with nothing in its log to say why: a boot that did not reach the root
	# is tried once more when the first try's kernel panicked, stalled or hung
	# (stalled() says which; not when init died or memory ran out), its log kept
	# as NAME.try1.log. A boot that does not finish shows the end of its log.
	for try in 1 2; do
		cp "$B/root.img" "$B/root-$name.img"
		rm -f "$B/$name.pid"
		timeout 300 qemu-system-x86_64 -machine q35 -cpu max,pdpe1gb=on -smp "$NUMA_CPUS" -m "${NUMA_MEM}M" \
			"${NUMA_ARGS[@]}" -kernel "$KERNEL" -initrd "$B/initrd-$KVER-$flavour.img" \
			-drive "file=$B/root-$name.img,format=raw,if=virtio" \
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
	grep -aq "^HUGEPAR-BOOT-END" "$B/$name.log" && return 0
	echo "     $name: the boot did not finish (QEMU exit status $rc); the end of its log:"
	tr -d '\r' <"$B/$name.log" | tail -n 8 | sed 's/^/     | /'
	return 1
}

# The exact versions the boots tested, in the suite's closing lines: the kernels
# move under it (the newest 6.12 and 7.x of the archive, fetched by make deps), and
# so do the host's tools on a fresh machine.
declare -A TESTED=()
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
versions() {
	local k pkg
	for k in $(printf '%s\n' "${!TESTED[@]}" | sort -V); do
		if [ -r "$TOP/build/kernels/$k/packages" ]; then
			pkg=$(paste -sd, "$TOP/build/kernels/$k/packages" | sed 's/,/, /g')
		else
			pkg=$(installed "linux-image-$k" "linux-image-$k-unsigned")
		fi
		echo "versions: Linux $k: ${pkg:-package unknown}; $(kernel_build "${TESTED[$k]}")"
	done
	[ ${#TESTED[@]} = 0 ] ||
		echo "versions: $(installed dracut-core initramfs-tools systemd busybox-static dash qemu-system-x86)"
	[ "$NG_MADE" != ok ] ||
		echo "versions: dracut-ng: $(chroot "$NG_ROOT" dpkg-query -W -f '${Package} ${Version}, ' \
			dracut-core udev util-linux-extra busybox-static | sed 's/, $//') (Debian unstable)"
}

# line NAME KEY: the rest of the root's line KEY
line() { tr -d '\r' <"$B/$1.log" | sed -n "s/^$2 //p" | head -n 1; }
# node_pool NAME NODE [COLUMN]: the 2M (2) or 1G (3) pool of a node after the switch
node_pool() { tr -d '\r' <"$B/$1.log" | awk -v n="$2" -v c="${3:-3}" '$1=="NODE" && $2==n {print $(c + 1)}'; }
# rec NAME FILTER: what the jq FILTER makes of the record NAME.json (fails without one)
rec() { [ -s "$B/$1.json" ] && jq -r "$2" "$B/$1.json"; }

# initramfs FLAVOUR: whether $KVER has an initramfs of FLAVOUR, built the first time
# a boot asks for it (the staged dracut trees and the root file system first, once a
# run), so that only what the selected cases boot is built. The build is the check
# SERIES-initramfs-FLAVOUR; one that fails fails the boots of that flavour, not the
# kernel's other cases.
declare -A BUILT=()
STAGED=""
initramfs() {
	local f=$1 img=$B/initrd-$KVER-$1.img
	if [ -z "${BUILT[$KVER-$f]:-}" ]; then
		if [ -z "$STAGED" ]; then
			stage_dracut
			make_root
			STAGED=1
		fi
		rm -f "$img"
		if make_initramfs "$f" && [ -s "$img" ]; then
			BUILT[$KVER-$f]=ok
			pass "$SERIES-initramfs-$f: built for $KVER"
		else
			BUILT[$KVER-$f]=failed
			rm -f "$img"
			fail "$SERIES-initramfs-$f: built for $KVER (see $B/dracut-$KVER-$f.log or $B/mkinitramfs-$KVER-$f.log)"
		fi
	fi
	[ "${BUILT[$KVER-$f]}" = ok ]
}

# setup FLAVOUR...: the root and an initramfs of each flavour for $KVER, built now
setup() {
	local f rc=0
	for f in "$@"; do
		initramfs "$f" || rc=1
	done
	return $rc
}

TWO="768:1 512:1"

# left_clean NAME: what the boot left is clean: no hugepar running, overcommit back,
# no surplus, no restore note; the record true to the pools and of the right format.
left_clean() {
	expect_eq "$1: nothing left running" "$(line "$1" RUNNING)" ""
	expect_eq "$1: overcommit and surplus" "$(line "$1" GLOBAL)" "0 0"
	expect_eq "$1: no restore note" "$(line "$1" NOTES)" 0
	if [ -s "$B/$1.json" ]; then
		check "$1: record format" /usr/bin/python3 "$TOP/test/check-record.py" "$TOP/doc/record.md" "$B/$1.json"
	fi
}

# pools_case NAME FLAVOUR CMDLINE NODE0 NODE1 [STATUS]: a boot of the two-node machine
# whose 2M pools must come out as given, with a record of STATUS (ok).
pools_case() {
	if boot "$1" "$2" "$TWO" "$3"; then
		pass "$1: boot completed"
		expect_eq "$1: pools" "$(node_pool "$1" 0 2) $(node_pool "$1" 1 2)" "$4 $5"
		expect_eq "$1: status" "$(rec "$1" .status)" "${6:-ok}"
		left_clean "$1"
	else
		fail "$1: boot did not finish (see $B/$1.log)"
	fi
}

# Fault matrix rows (doc/fault-matrix.md): fault, kernel, boot reached, what was left.
# row NAME FAULT: nothing for a case that was not booted (TESTS named others).
MATRIX=$OUT/fault-matrix-boot.tsv
row() {
	[ -z "${HUGEPAR_LIST:-}" ] && [ -f "$B/$1.log" ] || return 0
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$2" "$KVER" "$(grep -q '^HUGEPAR-BOOT-END' "$B/$1.log" && echo yes || echo no)" \
		"$(line "$1" GLOBAL)" "$(rec "$1" .status 2>/dev/null || echo none)" \
		"$(line "$1" RUNNING)" >>"$MATRIX"
}

SERIES=${BENCH_KERNEL:-6.1}
if [ "${1:-}" = setup ]; then
	shift
	kernel "$SERIES" || { echo "setup: no Linux $SERIES kernel"; exit 1; }
	setup nosystemd "$@"
	exit
fi
if [ "${1:-}" = bench ]; then
	kernel "$SERIES" || { echo "bench: no Linux $SERIES kernel"; exit 1; }
	# the images test/boot.sh setup made, as they are
	if [ -f "$B/initrd-$KVER-${BOOT_FLAVOUR:-nosystemd}.img" ] && [ -f "$B/root.img" ]; then
		BUILT[$KVER-${BOOT_FLAVOUR:-nosystemd}]=ok STAGED=1
	fi
	setup "${BOOT_FLAVOUR:-nosystemd}" >/dev/null || exit 1
	PIN_VCPUS=1 boot "bench-$2" "${BOOT_FLAVOUR:-nosystemd}" "$3" "$4" || exit 1
	tr -d '\r' <"$B/bench-$2.log" | grep -a '^BENCH\|^TRACE\|^COST\|^UPTIME\|^NODE\|^STATUS\|^KLOG'
	exit 0
fi
if [ "${1:-}" = demo ]; then
	echo "Building the initramfs and booting a two-node machine (about a minute)..."
	setup nosystemd || exit 1
	boot demo nosystemd "$TWO" "rd.hugepar.pages=2M:25%@0,2M:40@1 rd.hugepar.reserve=128M" ||
		{ echo "the boot did not finish; see $B/demo.log"; exit 1; }
	tr -d '\r' <"$B/demo.log" | sed -n '/^RECORD-END/,/^HUGEPAR-BOOT-END/p' | sed '1d;$d'
	exit 0
fi

[ -n "${HUGEPAR_LIST:-}" ] || : >"$MATRIX"
RES="rd.hugepar.reserve=128M"
# node 0's 2M target for a share of 25% of its 768 MiB, as the boots give it on
# every kernel (its memory blocks are all of it; the granularity divides it)
SHARE0=96

# shares_case K [PREFIX]: two nodes of different sizes: a share and a count;
# threads given. The case is K-shares; PREFIX (ng-) picks the initramfs flavours.
shares_case() {
	local k=$1 p=${2:-}
	if boot "$k-shares" "${p}nosystemd" "$TWO" "rd.hugepar.pages=2M:25%@0,2M:40@1 $RES rd.hugepar.threads=3"; then
		pass "$k-shares: boot completed"
		# of its memory blocks (stable across boots): SHARE0
		expect_eq "$k-shares: node 0 target is 25% of its memory" \
			"$(rec $k-shares '.nodes[0].sizes[0] | "\(.size) \(.target)"')" "2M $SHARE0"
		expect_eq "$k-shares: pools = plan" "$(node_pool $k-shares 0 2) $(node_pool $k-shares 1 2)" \
			"$SHARE0 40"
		expect_eq "$k-shares: status" "$(rec $k-shares .status)" ok
		expect_eq "$k-shares: threads honoured (auto gives 2)" "$(rec $k-shares .workers)" 3
		expect_eq "$k-shares: status does not call unchanged settings stale" \
			"$(grep -ac 'has changed since this run read it' "$B/$k-shares.log")" 0
		left_clean "$k-shares"
	else
		fail "$k-shares: boot did not finish (see $B/$k-shares.log)"
	fi
}

# timeout_cases K [PREFIX]: hostile timeouts reach the real root under every shell;
# hugepar takes or names them. Under busybox (dracut's init then calls busybox's own
# switch_root, which does not carry /run over) only the pools and what was left are
# seen.
timeout_cases() {
	local k=$1 p=${2:-} t
	for t in "08 dash 8000" "99999999999999999999 busybox 60000" "abc nosystemd 60000" \
		"_ dash 60000" "-5 busybox 60000"; do
		set -- $t
		local v=${1#_} name=$k-timeout-$2-${1#-}
		if [ "$2" = busybox ]; then
			if boot "$name" "${p}busybox" "$TWO" "rd.hugepar.timeout=$v rd.hugepar.pages=2M:20 $RES"; then
				expect_eq "$name: the root reached, pools" \
					"$(node_pool "$name" 0 2) $(node_pool "$name" 1 2)" "20 20"
				left_clean "$name"
			else
				fail "$name: boot did not finish (see $B/$name.log)"
			fi
			continue
		fi
		pools_case "$name" "$p$2" "rd.hugepar.timeout=$v rd.hugepar.pages=2M:20 $RES" 20 20 \
			"$([ "$3" = 8000 ] && echo ok || echo partial)"
		wanted "$name" && expect_eq "$name: timeout taken or named" \
			"$(rec "$name" '"\(.settings.timeout_ms) \(.settings.problems | length)"')" \
			"$3 $([ "$3" = 8000 ] && echo 0 || echo 1)"
	done
}

# The cases, on one kernel ($KVER).
cases() {
	local k=$1 t

	shares_case "$k"

	# the off switch, every spelling, every flavour: a "disabled" record, nothing done
	# (under busybox the record does not survive the root switch: see below)
	for t in "0 busybox" "no dash" "off systemd" "false nosystemd"; do
		set -- $t
		if boot "$k-off-$1" "$2" "$TWO" "rd.hugepar=$1 rd.hugepar.pages=2M:40"; then
			expect_eq "$k-off-$1: pools untouched ($2)" "$(node_pool "$k-off-$1" 0 2)" 0
			[ "$2" = busybox ] ||
				expect_eq "$k-off-$1: disabled ($2)" "$(rec "$k-off-$1" .status)" disabled
		else
			fail "$k-off-$1: boot did not finish ($2)"
		fi
	done

	# a malformed option: the record names it, valid entries apply
	if boot "$k-malformed" nosystemd "$TWO" "rd.hugepar.pages=2M:30,2M:x@1 rd.hugepar.threads=lots $RES"; then
		pass "$k-malformed: boot completed"
		expect_eq "$k-malformed: valid entry applied" "$(node_pool $k-malformed 0 2) $(node_pool $k-malformed 1 2)" "30 30"
		expect_eq "$k-malformed: problems named" "$(rec $k-malformed '[.settings.problems[].value] | join(" ")')" "2M:x@1 lots"
		expect_eq "$k-malformed: status partial" "$(rec $k-malformed .status)" partial
	else
		fail "$k-malformed: boot did not finish (see $B/$k-malformed.log)"
	fi

	timeout_cases "$k"
	row "$k-timeout-dash-08" "rd.hugepar.timeout=08 (dash)"

	# systemd in the initramfs
	pools_case "$k-systemd" systemd "rd.hugepar.pages=2M:24@0,2M:16@1 $RES" 24 16

	# settings baked in by dracut --kernel-cmdline
	pools_case "$k-baked" baked "" 12 12
	wanted "$k-baked" && expect_eq "$k-baked: the baked file is a source" \
		"$(rec "$k-baked" 'any(.settings.sources[]; contains("cmdline.d"))')" true

	# a run that outlives its deadline, stuck where SIGTERM does not reach it: the
	# wait hook kills it, puts back the overcommit value, records why; the boot goes on
	if boot "$k-outlived" test "$TWO" \
		"rd.hugepar.timeout=1 hugepar.fault=parallel,restore=hang:300000 rd.hugepar.pages=2M:20 $RES"; then
		pass "$k-outlived: the boot reached the root"
		left_clean "$k-outlived"
		expect_eq "$k-outlived: the record says why" "$(rec $k-outlived '.status + ": " + .error')" \
			"failed: stopped at the root switch: still running past its deadline"
		expect_eq "$k-outlived: what it found and did" \
			"$(rec $k-outlived '.recovered[] | "\(.overcommit_found) \(.overcommit_put_back) \(.ok)"')" \
			"40 0 true"
	else
		fail "$k-outlived: boot did not finish (see $B/$k-outlived.log)"
	fi
	row "$k-outlived" "stuck past its deadline (SIGTERM ignored)"

	# The root runs two programs of its own, in one boot (rd.hugepar=0): the
	# kernel's per-node write rule (boot.rules, which leaves the pools empty), then
	# pages placed on the wrong node (boot.misplace). Its log is $k-guest.log.
	local guest=""
	[ -x "$TOP/build/holdpages" ] && [ -x "$TOP/hugepar-test" ] &&
		boot "$k-guest" nosystemd "$TWO" "rd.hugepar=0 boot.rules boot.misplace" "$k-rules" "$k-misplace" &&
		guest=$k-guest

	# pages placed on the wrong node are trimmed there and topped up where planned
	if [ -n "$guest" ] && wanted "$k-misplace"; then
		tr -d '\r' <"$B/$guest.log" | sed -n '/^MISPLACE-BEGIN/,/^MISPLACE-END/p' | sed '1d;$d' >"$B/$k-misplace-run.json"
		expect_eq "$k-misplace: exit code" "$(line $guest MISPLACE-RC)" 0
		expect_eq "$k-misplace: pools" "$(node_pool $guest 0 2) $(node_pool $guest 1 2)" "30 0"
		expect_eq "$k-misplace: trimmed on node 1, topped up on node 0" \
			"$(rec $k-misplace-run '.sizes[0] | "\(.method) \(.trimmed) \(.topped_up)"')" \
			"parallel 30 30"
	else
		fail "$k-misplace: needs hugepar-test, build/holdpages and a finished boot (see $B/$k-guest.log)"
	fi

	# the kernel's per-node write rule, with surplus held on the other node
	if [ -n "$guest" ] && wanted "$k-rules"; then
		local raw want
		raw=$(line $guest RULE-RAW)
		echo "     $k-rules: held $(line $guest RULE-HELD), node 0 after a raw write of 40: $raw"
		# before 6.7 the write counts the other node's surplus against this one
		case $KVER in 6.1.*) want="50 0" ;; *) want="40 0" ;; esac
		expect_eq "$k-rules: held on node 1 (surplus node 1, node 0)" "$(line $guest RULE-HELD)" "10 0"
		expect_eq "$k-rules: a raw write of 40 gives (nr, surplus)" "$raw" "$want"
		expect_eq "$k-rules: hugepar's write is exact (rc, node 0 nr surplus, node 1 nr surplus)" \
			"$(line $guest RULE-HUGEPAR)" "0 40 0 10 10"
		expect_eq "$k-rules: their surplus gone with them" "$(line $guest RULE-AFTER)" 0
		# a surplus page of a program on node 1's CPU, unbound or bound to both
		# nodes: 6.1 its CPU's node, 6.12 the lowest node, 6.16 on the CPU's node
		# within the policy; gigantic overcommit from 6.19 on
		case $KVER in
		6.1.*) want="0 2" giga="refused 0" ;;
		6.12.*) want="2 0" giga="refused 0" ;;
		*) want="0 2" giga="accepted 1" ;;
		esac
		echo "     $k-rules: surplus of a program on node 1 (node 0, node 1): unbound $(line $guest RULE-PLACE-unbound), bound to both $(line $guest RULE-PLACE-bind-all); 1G overcommit $(line $guest RULE-GIGANTIC)"
		expect_eq "$k-rules: placement without a policy" "$(line $guest RULE-PLACE-unbound)" "$want"
		expect_eq "$k-rules: placement bound to both nodes" "$(line $guest RULE-PLACE-bind-all)" "$want"
		expect_eq "$k-rules: 1G nr_overcommit_hugepages of 1" "$(line $guest RULE-GIGANTIC)" "$giga"
	else
		fail "$k-rules: needs build/holdpages, hugepar-test and a finished boot (see $B/$k-guest.log)"
	fi

	# initramfs-tools: the same record, moved with /run; the off switch; bad values;
	# a run stuck past its deadline stopped by init-bottom
	pools_case "$k-itools" itools "rd.hugepar.pages=2M:25%@0,2M:40@1 $RES" "$SHARE0" 40
	if boot "$k-itools-off" itools "$TWO" "rd.hugepar=off rd.hugepar.pages=2M:40"; then
		expect_eq "$k-itools-off: disabled, pools untouched" \
			"$(rec "$k-itools-off" .status) $(node_pool "$k-itools-off" 0 2)" "disabled 0"
	else
		fail "$k-itools-off: boot did not finish"
	fi
	pools_case "$k-itools-bad" itools "rd.hugepar.timeout=08x rd.hugepar.pages=2M:20,2M:x $RES" 20 20 partial
	if boot "$k-itools-outlived" itools-test "$TWO" \
		"rd.hugepar.timeout=1 hugepar.fault=parallel,restore=hang:300000 rd.hugepar.pages=2M:20 $RES"; then
		pass "$k-itools-outlived: the boot reached the root"
		left_clean "$k-itools-outlived"
		expect_eq "$k-itools-outlived: the record says why" \
			"$(rec $k-itools-outlived '.status + ": " + .error')" \
			"failed: stopped at the root switch: still running past its deadline"
	else
		fail "$k-itools-outlived: boot did not finish (see $B/$k-itools-outlived.log)"
	fi
	row "$k-itools-outlived" "stuck past its deadline, initramfs-tools"

	# after the switch: hugepar verify (mounts, textfile, on_short), status --check,
	# the Prometheus text, the kernel command line (dracut and initramfs-tools)
	for t in nosystemd itools; do
		local a=$k-after-$t
		if boot "$a" "$t" "$TWO" "rd.hugepar.pages=2M:20 $RES boot.after"; then
			tr -d '\r' <"$B/$a.log" | sed -n '/^PROM-BEGIN/,/^PROM-END/p' | sed '1d;$d' >"$B/$a.prom"
			expect_eq "$a: verify" "$(line $a VERIFY-RC)" 0
			check "$a: hugetlbfs for 2M, mode 1770" sh -c "tr -d '\r' <'$B/$a.log' | grep '^MOUNT hugetlbfs /dev/hugepages2M hugetlbfs ' | grep 'pagesize=2M' | grep -q 'mode=1770'"
			check "$a: hugetlbfs for 1G" sh -c "tr -d '\r' <'$B/$a.log' | grep -q '^MOUNT hugetlbfs /mnt/huge1G hugetlbfs .*pagesize=1024M'"
			if /usr/bin/python3 "$TOP/test/check-prometheus.py" "$B/$a.prom" >"$B/$a.prom.txt" 2>&1; then
				check "$a: the textfile: achieved and live pages" sh -c \
					"grep -qx 'hugepar_achieved_pages{node=1,size=2M} 20' '$B/$a.prom.txt' && grep -qx 'hugepar_live_pages{node=1,size=2M} 20' '$B/$a.prom.txt'"
			else
				fail "$a: the textfile does not parse: $(tail -1 "$B/$a.prom.txt")"
			fi
			expect_eq "$a: the kernel command line" "$(line $a CMDLINE)" "hugepagesz=2M hugepages=0:20,1:20"
			expect_eq "$a: pages lost: status --check, verify with on_short = fail" \
				"$(line $a CHECK-RC) $(line $a VERIFY2-RC)" "65 1"
		else
			fail "$a: boot did not finish (see $B/$a.log)"
		fi
	done

	# four nodes, one without CPUs; 1G pages on it (may come out short: truthfully)
	if boot "$k-four" nosystemd "512:1 512:1 512:1 1536:0" "rd.hugepar.pages=2M:20,1G:1@3 rd.hugepar.reserve=64M"; then
		pass "$k-four: boot completed"
		expect_eq "$k-four: 2M pools" "$(for n in 0 1 2 3; do node_pool $k-four $n 2; done | xargs)" "20 20 20 20"
		expect_eq "$k-four: CPU-less node has no workers" "$(rec $k-four '.nodes[3].workers')" 0
		expect_eq "$k-four: record tells the 1G truth" "$(rec $k-four '.nodes[3].sizes[1].achieved')" \
			"$(node_pool $k-four 3 3)"
		left_clean "$k-four"
	else
		fail "$k-four: boot did not finish"
	fi

	# 1G and 2M, a 1G page a node (a first node of 6 GiB: a smaller one has no free
	# 1 GiB range on q35, doc/kernel-notes.md): 1G by workers from 6.19 on and beside
	# the 2M work; before, by per-node writes and first, the 2M work after it
	local g=$k-1g2m want="serial: 1G pages cannot be overcommitted before Linux 6.19"
	# the order from when each size began (start_ms) and ended, not from how long
	local when="2M began after 1G ended" cmp=">="
	case $KVER in 6.*) ;; *)
		want="parallel: auto: 1G pages, 2 workers at once: no probe"
		when="2M began before 1G ended" cmp="<" ;;
	esac
	if boot "$g" nosystemd "6144:1 4096:1" "rd.hugepar.pages=2M:100,1G:1 rd.hugepar.reserve=256M"; then
		expect_eq "$g: pools (2M, 1G)" \
			"$(node_pool $g 0 2) $(node_pool $g 1 2) $(node_pool $g 0 3) $(node_pool $g 1 3)" "100 100 1 1"
		expect_eq "$g: status" "$(rec $g .status)" ok
		expect_eq "$g: how 1G was done" "$(rec $g '.sizes[1] | .method + ": " + .method_note')" "$want"
		echo "     $g: $(rec $g '"2M from \(.sizes[0].start_ms) ms for \(.sizes[0].ms) ms, 1G from \(.sizes[1].start_ms) ms for \(.sizes[1].ms) ms"')"
		expect_eq "$g: $when" \
			"$(rec $g ".sizes[0].start_ms $cmp .sizes[1].start_ms + .sizes[1].ms")" true
		left_clean "$g"
	else
		fail "$g: boot did not finish (see $B/$g.log)"
	fi
}

# The systemd unit's start timeout is hugepar's deadline: a run longer than the
# unit's own 30 s is not cut short (one kernel: it is a long boot).
extend_case() {
	local k=$1
	if boot "$k-extend" systemd-test "$TWO" \
		"rd.hugepar.timeout=60 hugepar.fault=record=delay:36000 rd.hugepar.pages=2M:10 $RES"; then
		expect_eq "$k-extend: a 36 s run under systemd finished" "$(rec $k-extend .status)" ok
		left_clean "$k-extend"
	else
		fail "$k-extend: boot did not finish (see $B/$k-extend.log)"
	fi
}

# Each case builds the initramfs it boots, when it is selected (initramfs()); a
# flavour that no selected case boots is built when its build is selected
# (SERIES-initramfs-FLAVOUR), as every one is in a whole run.
first=1
for series in ${BOOT_KERNELS:-6.1 6.12 7}; do
	SERIES=$series flavours="nosystemd systemd dash busybox test baked itools itools-test"
	[ $first = 1 ] && flavours="$flavours systemd-test"
	if [ -z "${HUGEPAR_LIST:-}" ] && ! kernel "$series"; then
		skip "boot tests on Linux $series: no kernel (make deps fetches 6.12 and 7)"
		continue
	fi
	cases "$series"
	[ $first = 1 ] && extend_case "$series"
	# dracut-ng without systemd, on unstable's own kernel
	if [ "$series" = 7 ]; then
		shares_case 7-ng ng-
		timeout_cases 7-ng ng-
		flavours="$flavours ng-nosystemd ng-dash ng-busybox"
	fi
	for f in $flavours; do
		wanted "$series-initramfs-$f" && initramfs "$f"
	done
	first=0
done

versions
echo "boot: $(summary_line)"
