#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Cloud images: the images image/build.sh makes (systemd, the cloud kernel, the .deb
# installed with apt, shares, a floor, a mount, on_short), each booted unchanged by
# UEFI firmware on emulated machine shapes, under systemd as PID 1. make check boots
# Debian 13 of both flavours (initramfs-tools and dracut), Debian unstable with its
# default generator (dracut-ng), cloud-init's user data on a first boot and a
# second, and the failure paths on Debian 13's initramfs-tools; make check-all the
# other shapes, a second boot of initramfs-tools' three nodes, Debian 12
# (initramfs-tools), the failure paths on dracut and Debian 13 for arm64
# (initramfs-tools, the package cross-built), under TCG. The images of a release share one base root (image/build.sh
# --base). The test images carry a stand-in consumer unit (ordered by the package's
# kubelet drop-in) and a reporter unit that writes what the boot did onto a second
# disk (test/image/). Images are built by the first case that boots them, and two
# cases boot at once. Root only.
#   IMAGE_JOBS=N   boots at once (default: this machine's CPUs, up to 4)
. "$(dirname "$0")/lib.sh"

I=$OUT/image
FIRMWARE=/usr/share/ovmf/OVMF.fd
# arm64's: this machine's qemu-efi-aarch64 from Debian 13's (2025.02) on, else Debian
# 13's fetched by name. Debian 12's (2022.11) describes the flash of its variable
# store as write-combining memory (efi=debug shows it), which Linux's arm64 EFI code
# adds to RAM; no node of the SRAT covers it, and 6.12 then drops every node ("NUMA:
# no nodes coverage for 64MB"): one node, whatever the shape. Debian 13's maps it
# uncached.
FIRMWARE_ARM64=/usr/share/qemu-efi-aarch64/QEMU_EFI.fd
dpkg --compare-versions "$(dpkg-query -W -f='${Version}' qemu-efi-aarch64 2>/dev/null)" ge 2025.02 ||
	FIRMWARE_ARM64=$TOP/build/image/firmware/QEMU_EFI.fd
# shellcheck disable=SC2034 # (once() reads it)
ONCE=$I/once

# The shapes, as "MB:CPUS" per node (CPUS 0: a node without CPUs). The image's
# settings ask 40% of each node as 2M pages above a floor of 512M. A node has 82-97%
# of its memory free when the initramfs runs: one of 1280M and more keeps its floor
# and its share, one of 1024M may not, one of 768M cannot.
declare -A SHAPE=(
	[one]="2048:2"
	[two]="1536:1 1536:1"
	[three]="2048:1 1536:1 1280:1"
	[cpuless]="1536:1 1280:1 1280:1 1280:0"
	[tight]="768:1 768:1"
)
# The two-node shape's 2M pools ("NODE COUNT ...") under the image's settings, 40% of
# each node: the broken and stale images must come out the same.
TWO_POOLS="0 304 1 304"

# tree: the test units, the package's own kubelet drop-in for the consumer, the
# directory node_exporter's package makes for its textfiles; and the settings of the
# broken image
tree=$I/tree
make_tree() {
	local s=$tree/etc/systemd/system
	rm -rf "$tree"
	mkdir -p "$s/multi-user.target.wants" "$s/hugepar-consumer.service.d" "$tree/usr/local/sbin" \
		"$tree/var/lib/prometheus/node-exporter"
	cp "$TOP/test/image/hugepar-consumer.service" "$TOP/test/image/hugepar-report.service" "$s/"
	cp "$TOP/systemd/examples/kubelet.conf" "$s/hugepar-consumer.service.d/hugepar.conf"
	ln -s ../hugepar-consumer.service "$s/multi-user.target.wants/hugepar-consumer.service"
	ln -s ../hugepar-report.service "$s/multi-user.target.wants/hugepar-report.service"
	install -m 0755 "$TOP/test/image/report.sh" "$tree/usr/local/sbin/hugepar-report"
	install -m 0755 "$TOP/test/capture.sh" "$tree/usr/local/sbin/hugepar-capture"
	# Under emulation on a busy machine, a node without CPUs, which only serial
	# writes serve, can outlast hugepar's default minute: the test images give it
	# ten (it changes no plan), so that no check depends on the machine's speed.
	mkdir -p "$tree/etc/hugepar.conf.d"
	echo "timeout = 600" >"$tree/etc/hugepar.conf.d/90-test.conf"
	# the kdump image's: what hugepar recorded in the capture kernel is kept, and the
	# first boot crashes
	rm -rf "$tree-kdump"
	cp -a "$tree" "$tree-kdump"
	mkdir -p "$tree-kdump/etc/hugepar-test" "$tree-kdump/etc/systemd/system/kdump-tools-dump.service.d"
	: >"$tree-kdump/etc/hugepar-test/crash"
	cp "$TOP/test/image/kdump/hugepar-test.conf" "$tree-kdump/etc/systemd/system/kdump-tools-dump.service.d/"
	install -m 0755 "$TOP/test/image/kdump/capture-record.sh" "$tree-kdump/usr/local/sbin/hugepar-capture-record"
	# the cloud image's: cloud-init as Debian ships it, told to leave the network
	# alone (the emulated NIC has nothing to say) and to look for a seed disk only
	rm -rf "$tree-cloud"
	cp -a "$tree" "$tree-cloud"
	mkdir -p "$tree-cloud/etc/cloud/cloud.cfg.d"
	printf '%s\n' "datasource_list: [NoCloud, None]" "network: {config: disabled}" \
		>"$tree-cloud/etc/cloud/cloud.cfg.d/90-hugepar-test.cfg"
	# the Ignition image's: ignition-kargs.service does nothing (Debian's
	# ignition-kargs-helper is a stub, and upstream's notes for distributors say to
	# disable the unit then), in the initramfs too
	rm -rf "$tree-ignition"
	cp -a "$tree" "$tree-ignition"
	mkdir -p "$tree-ignition/etc/systemd/system/ignition-kargs.service.d" "$tree-ignition/etc/dracut.conf.d"
	printf '%s\n' "[Service]" "ExecStart=" "ExecStart=/bin/true" \
		>"$tree-ignition/etc/systemd/system/ignition-kargs.service.d/50-hugepar-test.conf"
	echo 'install_items+=" /etc/systemd/system/ignition-kargs.service.d/50-hugepar-test.conf "' \
		>"$tree-ignition/etc/dracut.conf.d/90-hugepar-test.conf"
	# Debian's ignition is built to relabel what it writes: its files stage reads
	# the root's SELinux type and runs setfiles (policycoreutils, in the image and
	# so in the initramfs) with that type's file contexts, and fails without them.
	# A policy of one line, "label nothing", is what a root without SELinux needs.
	mkdir -p "$tree-ignition/etc/selinux/default/contexts/files"
	printf '%s\n' "SELINUX=disabled" "SELINUXTYPE=default" >"$tree-ignition/etc/selinux/config"
	printf '/.*\t<<none>>\n' >"$tree-ignition/etc/selinux/default/contexts/files/file_contexts"
	{
		cat "$TOP/image/hugepar.conf"
		echo "keep_free = 512Q"
		echo "mount = 3M:/dev/hugepages3M"
	} >"$I/broken.conf"
}

# build NAME FLAVOUR [SETTINGS [SUITE [ARCH [OPTION...]]]]: an image from this tree's
# package (built once for each architecture, by the first build of it), of Debian 13
# for amd64 unless SUITE and ARCH say otherwise, from the release's base root (made
# by the first image of the release), with image/build.sh's OPTIONs. The package
# alone puts hugepar into the initramfs, with either generator: image/customize.sh
# writes nothing for it.
build() {
	local name=$1 flavour=$2 settings=${3:-$TOP/image/hugepar.conf} suite=${4:-trixie} arch=${5:-amd64} start=$SECONDS
	local deb
	shift $(($# < 5 ? $# : 5))
	once "deb-$arch" build_deb "$arch" || { fail "no $arch package (see $I/deb-$arch.build)"; return 1; }
	deb=$(cat "$I/deb-$arch")
	if "$TOP/image/build.sh" --flavour "$flavour" --settings "$settings" --tree "$tree" \
		--suite "$suite" --arch "$arch" --deb "$deb" --base "$I/base-$suite-$arch" "$@" \
		"$I/$name.img" >"$I/$name.build" 2>&1; then
		pass "the $name image built ($suite, $flavour, $((SECONDS - start)) s)"
		check "the $name image: hugepar in its initramfs, by the package alone" \
			grep -qx 'usr/sbin/hugepar' "$I/$name.img.initramfs"
	else
		fail "the $name image: build ($flavour), see $I/$name.build and $I/$name.img.log"
		tail -n 5 "$I/$name.build"
		rm -f "$I/$name.img"
		return 1
	fi
}
# build_deb ARCH: the package image/build.sh makes of this tree for ARCH; its path
# in $I/deb-ARCH
build_deb() {
	"$TOP/image/build.sh" --arch "$1" --package-only >"$I/deb-$1.build" 2>&1 &&
		sed -n 's/^image: package //p' "$I/deb-$1.build" >"$I/deb-$1" && [ -s "$I/deb-$1" ]
}

# image NAME: whether the image NAME is there, built by the first case that boots it
# (the others wait for it)
image() {
	case $1 in
	fail) once "image-$1" edited fail initramfs-tools on_short_fail ;;
	fail-dracut) once "image-$1" edited fail-dracut dracut on_short_fail ;;
	stale) once "image-$1" edited stale initramfs-tools stale_settings ;;
	creds-cmdline) once "image-$1" edited creds-cmdline initramfs-tools cmdline_credential ;;
	next) once "image-$1" build next dracut "$TOP/image/hugepar.conf" sid ;;
	old) once "image-$1" build old initramfs-tools "$TOP/image/hugepar.conf" bookworm ;;
	broken) once "image-$1" build broken initramfs-tools "$I/broken.conf" ;;
	broken-dracut) once "image-$1" build broken-dracut dracut "$I/broken.conf" ;;
	arm64) once "image-$1" arm64_image ;;
	cloud) once "image-$1" build cloud initramfs-tools "$TOP/image/hugepar.conf" trixie amd64 \
		--tree "$I/tree-cloud" --include cloud-init ;;
	ignition) once "image-$1" build ignition dracut "$TOP/image/hugepar.conf" trixie amd64 \
		--tree "$I/tree-ignition" --include ignition,dracut-network,curl,isc-dhcp-client,iproute2,policycoreutils \
		--append "ignition.firstboot ignition.platform.id=qemu systemd.journald.forward_to_console=1" ;;
	ignition-second) once "image-$1" ignition_second ;;
	kdump) once "image-$1" build kdump initramfs-tools "$TOP/image/hugepar.conf" trixie amd64 \
		--tree "$I/tree-kdump" --include kdump-tools,makedumpfile --append crashkernel=384M ;;
	*) once "image-$1" build "$1" "$1" ;;
	esac
}
arm64_image() {
	case $FIRMWARE_ARM64 in "$TOP"/*)
		"$TOP/scripts/fetch-efi-arm64.sh" "$(dirname "$FIRMWARE_ARM64")" >"$I/firmware.log" 2>&1 ;;
	esac
	if command -v qemu-system-aarch64 >/dev/null && [ -r "$FIRMWARE_ARM64" ]; then
		build arm64 initramfs-tools "$TOP/image/hugepar.conf" trixie arm64
	else
		fail "the arm64 image needs qemu-system-arm and qemu-efi-aarch64 (make deps)"
		return 1
	fi
}

# edited NAME FROM EDIT: the image NAME, a copy of FROM's whose root file system is
# edited in place (debugfs, at the root partition's offset): an image changed after
# it was built, without a new initramfs. EDIT NAME prints the debugfs commands.
edited() {
	local name=$1 from=$2 off
	image "$from" || return 1
	cp --sparse=always "$I/$from.img" "$I/$name.img"
	off=$(sfdisk -J "$I/$name.img" | jq '.partitiontable.partitions[1].start * 512')
	"$3" "$name" "$I/$name.img?offset=$off" >"$I/$name.debugfs" &&
		debugfs -w -f "$I/$name.debugfs" "$I/$name.img?offset=$off" >"$I/$name.edit" 2>&1
	check "the $from image's root edited for $name" grep -q . "$I/$name.debugfs"
	ln -sf "$from.img.packages" "$I/$name.img.packages"
}
# on_short_fail NAME FS: GRUB's configuration with rd.hugepar.on_short=fail on the
# kernel's command line: verify fails where a node comes up short
on_short_fail() {
	debugfs -R "cat /boot/grub/grub.cfg" "$2" 2>/dev/null |
		sed 's|^\(\s*linux .*\)$|\1 rd.hugepar.on_short=fail|' >"$I/$1.grub.cfg"
	grep -q 'rd.hugepar.on_short=fail' "$I/$1.grub.cfg" || return 1
	printf '%s\n' "cd /boot/grub" "rm grub.cfg" "write $I/$1.grub.cfg grub.cfg"
}
# cmdline_credential NAME FS: GRUB's configuration with the credential hugepar.conf on
# the kernel's command line (systemd.set_credential=)
cmdline_credential() {
	debugfs -R "cat /boot/grub/grub.cfg" "$2" 2>/dev/null |
		sed 's|^\(\s*linux .*\)$|\1 systemd.set_credential=hugepar.conf:pages=2M:30%|' >"$I/$1.grub.cfg"
	grep -q 'systemd.set_credential=' "$I/$1.grub.cfg" || return 1
	printf '%s\n' "cd /boot/grub" "rm grub.cfg" "write $I/$1.grub.cfg grub.cfg"
}
# stale_settings NAME FS: the settings drop-in with a share of 30%, not the 40% the
# initramfs has
stale_settings() {
	sed 's/^pages = 2M:40%$/pages = 2M:30%/' "$TOP/image/hugepar.conf" >"$I/$1.conf"
	printf '%s\n' "cd /etc/hugepar.conf.d" "rm 50-image.conf" "write $I/$1.conf 50-image.conf"
}

# boot NAME IMAGE SHAPE: boot IMAGE on SHAPE (run_qemu); the report is unpacked into
# $I/NAME/.
boot() {
	local start=$SECONDS
	run_qemu "$@" || return 1
	if tar -C "$I/$1" -xf "$I/$1.report" 2>/dev/null && [ -s "$I/$1/target" ]; then
		pass "booted $2 on $3 (${SHAPE[$3]}) and reported ($((SECONDS - start)) s)"
		rm -f "$I/$1.report"
	else
		fail "booted $2 on $3, no report ($(stopped "$1"), after $((SECONDS - start)) s; see $I/$1.log)"
		tail -n 25 "$I/$1.log" | sed 's/^/     | /'
		return 1
	fi
}
# stopped NAME: why the last run_qemu of NAME ended
stopped() {
	if [ -n "$PANIC" ]; then
		echo "the kernel panicked: ${PANIC#*not syncing: }"
	elif [ "$RC" = 124 ]; then
		echo "still running after its time limit"
	else
		echo "QEMU exit $RC"
	fi
}

# run_qemu NAME IMAGE SHAPE: boot IMAGE on SHAPE (with the QEMU options in the array
# EXTRA, a case's own disks), on a copy-on-write overlay of its own
# (IMAGE-SHAPE.qcow2, kept: a second boot of the same machine boots what the first
# left), by the UEFI firmware of its architecture (the arm64 image: QEMU's virt
# machine, with the time that slower emulation takes), with an empty report disk
# ($I/NAME.report), until the guest powers off or reboots. RC is QEMU's status,
# PANIC the panic that stopped it. LIMIT: the seconds it may take (600; twice that on
# arm64).
run_qemu() {
	local name=$1 img=$I/$2.img limit=${LIMIT:-600} machine try qemu started early=${EARLY:-240}
	qemu_numa "${SHAPE[$3]}"
	rm -rf "${I:?}/$name"
	mkdir -p "$I/$name"
	if ! image "$2" || [ ! -f "$img" ]; then
		fail "no image $2 (its build failed): not booted"
		return 1
	fi
	case $2 in
	arm64)
		# shellcheck disable=SC2054 # (QEMU's own commas)
		machine=(qemu-system-aarch64 -machine virt -cpu max,pauth-impdef=on -bios "$FIRMWARE_ARM64")
		limit=$((limit * 2)) early=$((early * 2))
		;;
	*) machine=(qemu-system-x86_64 -machine q35 -cpu max -bios "$FIRMWARE") ;;
	esac
	[ -f "$I/$2-$3.qcow2" ] || qemu-img create -q -f qcow2 -b "$img" -F raw "$I/$2-$3.qcow2"
	# The emulated kernel now and then panics in its own early start (a timer under
	# TCG, before any user space ran; the boot suite meets it too), and the guest
	# then waits forever: QEMU is stopped once the serial log says the kernel
	# panicked, and the boot is tried once more, the first try's log kept as
	# CASE.try1.log; so is a kernel that never starts the initramfs. A panic of the
	# boot's own making (init killed, memory ran out, a crash asked for with sysrq) is
	# not tried again.
	for try in 1 2; do
		rm -f "$I/$name.report" "$I/$name.log"
		truncate -s 64M "$I/$name.report"
		timeout "$limit" "${machine[@]}" -smp "$NUMA_CPUS" -m "${NUMA_MEM}M" "${NUMA_ARGS[@]}" \
			-drive "file=$I/$2-$3.qcow2,format=qcow2,if=virtio" \
			-drive "file=$I/$name.report,format=raw,if=none,id=report" \
			-device virtio-blk-pci,drive=report,serial=hpreport "${EXTRA[@]}" \
			-display none -monitor none -serial "file:$I/$name.log" -no-reboot >/dev/null 2>&1 &
		qemu=$!
		PANIC="" started=$SECONDS
		while kill -0 "$qemu" 2>/dev/null; do
			PANIC=$(grep -a 'Kernel panic - not syncing' "$I/$name.log" 2>/dev/null |
				grep -v 'sysrq triggered crash' | head -n 1 | tr -d '\r')
			# A kernel that hangs in its own start never runs the initramfs: Debian
			# unstable's 7.2 stopped after "smpboot: Total of 3 processors
			# activated" on a busy host (calibrate_delay_direct() failing). A boot
			# starts it within a minute here; EARLY seconds without it is a hang.
			if [ -z "$PANIC" ] && [ $((SECONDS - started)) -ge "$early" ] &&
				! grep -aq 'Run /init as init process' "$I/$name.log" 2>/dev/null; then
				PANIC="Kernel panic - not syncing: no initramfs started in $early s (a hang in the kernel's start)"
			fi
			if [ -n "$PANIC" ]; then
				sleep 2 # the rest of the panic's lines
				kill "$qemu" 2>/dev/null
				break
			fi
			sleep 2
		done
		wait "$qemu"
		RC=$?
		case $PANIC in "" | *"Attempted to kill init"* | *"Out of memory"*) break ;; esac
		[ "$try" = 2 ] && break
		mv "$I/$name.log" "$I/$name.try1.log"
		echo "     $name: the kernel panicked before the report (${PANIC#*not syncing: }; see $I/$name.try1.log): booting again"
	done
}

EXTRA=()

# prop CASE UNIT KEY: a property of a unit, as the guest's systemctl showed it
prop() { sed -n "s/^$3=//p" "$I/$1/$2.unit"; }
nodes() { tr '\n' ' ' <"$I/$1/$2" | sed 's/ $//'; }

# planned CASE SETTINGS [DROPIN]: each node's 2M target ("ID COUNT" a line) as `hugepar plan
# --sysroot` gives it for a capture of the booted machine: its CPUs, memory, memory
# blocks and kernel as the guest showed them, each node's free memory and pools as
# they were before the boot's run (the record's mem_free and before), since the run
# itself used them.
planned() {
	local c=$I/$1 conf=$I/$1/conf
	mkdir -p "$conf/hugepar.conf.d"
	cp "$TOP/config/hugepar.conf" "$conf/hugepar.conf"
	cp "$2" "$conf/hugepar.conf.d/50-image.conf"
	[ -z "${3:-}" ] || cp "$3" "$conf/hugepar.conf.d/90-user-data.conf"
	# "NODE FREE_KB POOL_2M POOL_1G" a line from the record, then the capture
	# rewritten with them (arm64's other sizes, which the record has not, as the
	# capture has them)
	jq -r '.nodes[] | (.sizes | map({(.size): .before}) | add) as $b |
		"\(.node) \(.mem_free / 1024 | floor) \($b["2M"]) \($b["1G"])"' \
		"$c/status.json" >"$c/before" || return 1
	awk 'NR == FNR { free[$1] = $2; b[$1, 2048] = $3; b[$1, 1048576] = $4; next }
		$1 == "node" {
			for (i = 3; i < NF; i++) {
				if ($i == "free")
					$(i + 1) = free[$2] "K"
				if ($i == "pool") {
					split($(i + 1), p, ":")
					if (($2, p[1]) in b)
						$(i + 1) = p[1] ":" b[$2, p[1]] ":" b[$2, p[1]] ":0"
				}
			}
		}
		{ print }' "$c/before" "$c/capture" >"$c/capture.before" || return 1
	"$TOP/test/mkfixture.sh" "$c/capture.before" "$c/sysroot" &&
		"$TOP/hugepar" plan --json --sysroot "$c/sysroot" --config "$conf/hugepar.conf" --cmdline "" >"$c/plan.json" &&
		jq -r '.plan.nodes[] | .node as $n | .sizes[] | select(.size == "2M") | "\($n) \(.target)"' \
			"$c/plan.json"
}

# shape_case CASE IMAGE SHAPE STATUS: the checks every boot of the matrix makes; the
# record's status is STATUS: ok, or partial where the floor cuts the share.
shape_case() {
	local name=$1 c=$I/$1
	boot "$name" "$2" "$3" || return
	expect_eq "multi-user.target reached" "$(cat "$c/target")" active
	expect_eq "hugepar-verify.service" "$(prop "$name" hugepar-verify ActiveState) $(prop "$name" hugepar-verify Result)" "active success"
	expect_eq "the consumer started" "$(prop "$name" hugepar-consumer ActiveState)" active
	local vend cstart
	vend=$(prop "$name" hugepar-verify ExecMainExitTimestampMonotonic)
	cstart=$(prop "$name" hugepar-consumer ExecMainStartTimestampMonotonic)
	check "verify finished (${vend:-?} us) before the consumer started (${cstart:-?} us)" \
		test "${vend:-0}" -gt 0 -a "${vend:-0}" -le "${cstart:-0}"
	expect_eq "the consumer saw the pools as they are" "$(nodes "$name" consumer)" "$(nodes "$name" pools)"
	planned "$name" "$TOP/image/hugepar.conf" >"$c/planned" 2>"$c/planned.err"
	check "a plan for the capture" test -s "$c/planned"
	expect_eq "each node's pages as hugepar plan --sysroot gives them" "$(nodes "$name" pools)" "$(nodes "$name" planned)"
	expect_eq "the record" "$(jq -r .status "$c/status.json")" "$4"
	check "record format" /usr/bin/python3 "$TOP/test/check-record.py" "$TOP/doc/record.md" "$c/status.json"
	expect_eq "no surplus, overcommit back" "$(cat "$c/global")" "0 0"
	expect_eq "the mount's owner, group and mode" "$(cat "$c/mount.stat")" "root kvm 1770"
	check "the mount is hugetlbfs of 2M pages" grep -q '^hugetlbfs .*pagesize=2M' "$c/mount.fs"
	check "the textfile parses" sh -c "/usr/bin/python3 '$TOP/test/check-prometheus.py' '$c/hugepar.prom' >'$c/prom.txt' 2>&1"
	expect_eq "hugepar status --check" "$(cat "$c/check.rc")" 0
	expect_eq "no error from hugepar in the journal" "$(grep -c -i hugepar "$c/journal-err")" 0
	expect_eq "the summary once in the journal" "$(grep -c 'hugepar: [a-z]* in [0-9]* ms on' "$c/journal")" 1
	expect_eq "no credential: the sources are the image's files" \
		"$(jq -r '[.settings.sources[] | select(startswith("credential"))] | length' "$c/status.json")" 0
}

# The failure paths a fleet sees, on each generator's image.
# fail_case CASE IMAGE: on_short = fail on a machine too small for its share: verify
# fails, the consumer that requires it does not start, the journal says why, the boot
# goes on.
fail_case() {
	local name=$1 c=$I/$1
	boot "$name" "$2" tight || return
	expect_eq "multi-user.target reached" "$(cat "$c/target")" active
	expect_eq "hugepar-verify.service failed" "$(prop "$name" hugepar-verify ActiveState) $(prop "$name" hugepar-verify Result)" "failed exit-code"
	expect_eq "the consumer did not start" "$(prop "$name" hugepar-consumer ActiveState) $(prop "$name" hugepar-consumer ExecMainStartTimestampMonotonic)" "inactive 0"
	check "the journal says the consumer's dependency failed" \
		grep -q 'Dependency failed for.*[Ss]tand-in' "$c/journal"
	check "the journal says which node is short" grep -q 'hugepar: node 0 2M: [0-9]* of [0-9]* pages asked for' "$c/journal"
	expect_eq "the record" "$(jq -r .status "$c/status.json")" partial
}
# broken_case CASE IMAGE: a broken settings file baked in: what can be used is, the
# rest is said.
broken_case() {
	local name=$1 c=$I/$1
	boot "$name" "$2" two || return
	expect_eq "multi-user.target reached" "$(cat "$c/target")" active
	check "hugepar status names the bad keep_free" grep -q '50-image.conf:[0-9]*.*keep_free.*512Q' "$c/status.txt"
	check "hugepar status names the bad mount" grep -q '50-image.conf:[0-9]*.*mount.*3M' "$c/status.txt"
	expect_eq "the record keeps both problems" "$(jq '.settings.problems | length' "$c/status.json")" 2
	expect_eq "the rest applied: 40% of each node" "$(nodes "$name" pools)" "$TWO_POOLS"
}

# stale_case: settings changed in the image after its initramfs was built: the
# booted system takes them (apply --if-changed; pools raised, never shrunk, and 30%
# is less than the initramfs's 40% reserved), and builds the initramfs again
stale_case() {
	local name=stale-two c=$I/stale-two
	boot "$name" stale two || return
	expect_eq "multi-user.target reached" "$(cat "$c/target")" active
	check "the journal: the changed settings taken on the booted system" \
		grep -q 'not those the initramfs read.*applying them now' "$c/journal"
	expect_eq "the record: the changed entry" "$(jq -r '.settings.pages[-1].entry' "$c/status.json")" "2M:30%"
	expect_eq "nothing shrunk: the initramfs's pools" "$(nodes "$name" pools)" "$TWO_POOLS"
	expect_eq "the initramfs built again" "$(prop "$name" hugepar-initramfs Result)" success
	expect_eq "hugepar status: nothing stale now" "$(grep -c 'has changed since this run read it' "$c/status.txt")" 0
}

# seed: the NoCloud seed disk ($I/seed.img): a FAT file system labelled CIDATA with
# test/image/user-data and a meta-data naming the instance
seed() {
	rm -f "$I/seed.img"
	printf '%s\n' "instance-id: hugepar-test" "local-hostname: debian" >"$I/meta-data"
	mkfs.vfat -C -n CIDATA "$I/seed.img" 2048 >"$I/seed.log" 2>&1 &&
		mcopy -i "$I/seed.img" "$TOP/test/image/user-data" ::user-data 2>>"$I/seed.log" &&
		mcopy -i "$I/seed.img" "$I/meta-data" ::meta-data 2>>"$I/seed.log"
}

# userdata_case: the cloud image (cloud-init as Debian ships it) booted twice with a
# NoCloud seed whose user data writes a drop-in over the image's settings: the
# first boot has the user data's pools before the consumer starts, taken on the
# booted system (hugepar-verify.service, after cloud-init), and builds the initramfs
# again; the second has them from the initramfs, and builds nothing.
userdata_case() {
	local c=$I/userdata ud=$I/user-data.conf n vend cstart
	local -a EXTRA
	# the first boot builds an initramfs under emulation before it reports
	local LIMIT=1200
	seed || { fail "the NoCloud seed disk (see $I/seed.log)"; return; }
	EXTRA=(-drive "file=$I/seed.img,format=raw,if=virtio,readonly=on")
	sed -n 's/^      //p' "$TOP/test/image/user-data" >"$ud"
	boot userdata cloud two || return
	expect_eq "multi-user.target reached" "$(cat "$c/target")" active
	expect_eq "hugepar-verify.service" "$(prop userdata hugepar-verify ActiveState) $(prop userdata hugepar-verify Result)" "active success"
	vend=$(prop userdata hugepar-verify ExecMainExitTimestampMonotonic)
	cstart=$(prop userdata hugepar-consumer ExecMainStartTimestampMonotonic)
	check "verify finished (${vend:-?} us) before the consumer started (${cstart:-?} us)" \
		test "${vend:-0}" -gt 0 -a "${vend:-0}" -le "${cstart:-0}"
	check "the journal: the user data's settings taken on the booted system" \
		grep -q 'not those the initramfs read.*applying them now' "$c/journal"
	expect_eq "the record: the user data's entry, and where it came from" \
		"$(jq -r '.settings.pages[-1] | .entry + " " + .origin' "$c/status.json")" \
		"2M:50% /etc/hugepar.conf.d/90-user-data.conf:1"
	planned userdata "$TOP/image/hugepar.conf" "$ud" >"$c/planned" 2>"$c/planned.err"
	expect_eq "each node's pages as hugepar plan --sysroot gives them with the user data" \
		"$(nodes userdata pools)" "$(nodes userdata planned)"
	expect_eq "the consumer saw them" "$(nodes userdata consumer)" "$(nodes userdata pools)"
	expect_eq "the record" "$(jq -r .status "$c/status.json")" ok
	expect_eq "no surplus, overcommit back" "$(cat "$c/global")" "0 0"
	expect_eq "hugepar-initramfs.service built the initramfs again" "$(prop userdata hugepar-initramfs Result)" success
	check "it ran" test "$(prop userdata hugepar-initramfs ExecMainStartTimestampMonotonic)" -gt 0
	expect_eq "no ordering cycle" "$(grep -c -i 'ordering cycle' "$c/journal")" 0
	boot userdata-again cloud two || return
	c=$I/userdata-again
	n=$(grep -c 'hugepar: [a-z]* in [0-9]* ms on' "$c/journal")
	expect_eq "the second boot: one run, the initramfs's" "$n" 1
	check "the second boot: the files are those it read, said" grep -q 'nothing to do' "$c/journal"
	planned userdata-again "$TOP/image/hugepar.conf" "$ud" >"$c/planned" 2>"$c/planned.err"
	expect_eq "the second boot: the user data's pages, from the initramfs" \
		"$(nodes userdata-again pools)" "$(nodes userdata-again planned)"
	expect_eq "the second boot: the record names the user data" \
		"$(jq -r '.settings.pages[-1].origin' "$c/status.json")" /etc/hugepar.conf.d/90-user-data.conf:1
	expect_eq "the second boot: no initramfs built" "$(prop userdata-again hugepar-initramfs ExecMainStartTimestampMonotonic)" 0
	expect_eq "the second boot: verify" "$(prop userdata-again hugepar-verify Result)" success
}

# planned_here CASE: each node's 2M target ("ID COUNT" a line) as hugepar plan gave it
# in the booted guest, with the settings, credentials and command line the boot had
planned_here() {
	jq -r '.plan.nodes[] | .node as $n | .sizes[] | select(.size == "2M") | "\($n) \(.target)"' \
		"$I/$1/plan.json"
}

# creds_case CASE IMAGE SOURCE WANT: a boot whose settings come from the credential
# hugepar.conf (the QEMU options in EXTRA give it): the pools are hugepar plan's in
# the guest, the record's entry is WANT ("ENTRY ORIGIN") and names the credential's
# SOURCE
creds_case() {
	local name=$1 c=$I/$1
	boot "$name" "$2" two || return
	expect_eq "multi-user.target reached" "$(cat "$c/target")" active
	expect_eq "the record: the credential's entry, and where it came from" \
		"$(jq -r '.settings.pages[-1] | .entry + " " + .origin' "$c/status.json")" "$4"
	check "the record's sources name the credential" \
		jq -e --arg s "credential hugepar.conf ($3)" '.settings.sources | index($s)' "$c/status.json"
	expect_eq "the plan in the guest reads it too" \
		"$(jq -r '[.settings.pages[-1].entry, .basis.free_memory] | join(" ")' "$c/plan.json")" "${4%% *} initramfs"
	planned_here "$name" >"$c/planned-here"
	expect_eq "each node's pages as hugepar plan gives them with the credential" \
		"$(nodes "$name" pools)" "$(nodes "$name" planned-here)"
	expect_eq "the record" "$(jq -r .status "$c/status.json")" ok
	expect_eq "hugepar-verify.service" "$(prop "$name" hugepar-verify Result)" success
	expect_eq "no surplus, overcommit back" "$(cat "$c/global")" "0 0"
}
# creds_firmware_case: on initramfs-tools (no systemd in the initramfs: hugepar reads
# the firmware itself), one credential in an SMBIOS type 11 string and another on
# fw_cfg: the fw_cfg one is taken, as systemd takes it first, and the other said
creds_firmware_case() {
	local -a EXTRA=(-smbios "type=11,value=io.systemd.credential:hugepar.conf=pages = 2M:30%"
		-fw_cfg "name=opt/io.systemd.credentials/hugepar.conf,string=pages = 2M:25%")
	creds_case creds-firmware initramfs-tools fw_cfg "2M:25% credential hugepar.conf (fw_cfg):1" || return
	check "the SMBIOS one is said, not taken" jq -e '.settings.notices[] |
		select(.origin == "credential hugepar.conf (smbios)" and (.message | test("fw_cfg comes first")))' \
		"$I/creds-firmware/status.json"
}
# creds_cmdline_case: the initramfs-tools image with systemd.set_credential= on its
# kernel command line (GRUB's configuration edited)
creds_cmdline_case() {
	creds_case creds-cmdline creds-cmdline "kernel command line" \
		"2M:30% credential hugepar.conf (kernel command line):1"
}
# creds_dracut_case: dracut, systemd in the initramfs: a credential in the binary form
# of an SMBIOS string, which systemd imports and passes hugepar.service
# (ImportCredential=), two lines
creds_dracut_case() {
	local b64
	b64=$(printf 'pages = 2M:35%%\nthreads = 2\n' | base64 -w0)
	local -a EXTRA=(-smbios "type=11,value=io.systemd.credential.binary:hugepar.conf=$b64")
	creds_case creds-dracut dracut systemd "2M:35% credential hugepar.conf (systemd):1" || return
	expect_eq "its second line taken too" "$(jq -r .settings.threads "$I/creds-dracut/status.json")" 2
}

# ignition_second: the Ignition image as its first boot left it (the overlay of the
# two-node machine), with GRUB's configuration of a later boot: no ignition.firstboot
ignition_second() {
	local off
	qemu-img convert -O raw "$I/ignition-two.qcow2" "$I/ignition-second.img" || return 1
	off=$(sfdisk -J "$I/ignition-second.img" | jq '.partitiontable.partitions[1].start * 512')
	debugfs -R "cat /boot/grub/grub.cfg" "$I/ignition-second.img?offset=$off" 2>/dev/null |
		sed 's/ ignition.firstboot//' >"$I/ignition-second.grub.cfg"
	grep -q ignition.firstboot "$I/ignition-second.grub.cfg" && return 1
	printf '%s\n' "cd /boot/grub" "rm grub.cfg" "write $I/ignition-second.grub.cfg grub.cfg" |
		debugfs -w -f - "$I/ignition-second.img?offset=$off" >"$I/ignition-second.edit" 2>&1 &&
		ln -sf ignition.img.packages "$I/ignition-second.img.packages"
}
# ignition_case: Debian 13's ignition (dracut module 30ignition) on a first boot,
# its config on fw_cfg (opt/com.coreos/config, Ignition's qemu platform): the drop-in
# it writes into /sysroot lowers node 1 from the image's 40% to 30%;
# hugepar-ignition.service, after the initramfs's own run, gives back the pages that
# run reserved there before the root switch, the booted system builds the initramfs
# again, and the second boot, without Ignition, has the same pools from that initramfs
ignition_case() {
	local c=$I/ignition-first sw end
	local LIMIT=1500
	cp "$TOP/test/image/ignition.ign" "$I/config.ign"
	local -a EXTRA=(-fw_cfg "name=opt/com.coreos/config,file=$I/config.ign")
	boot ignition-first ignition two || return
	expect_eq "multi-user.target reached" "$(cat "$c/target")" active
	expect_eq "the record: Ignition's drop-in, from a run in the initramfs" \
		"$(jq -r '[.settings.pages[-1].entry, .settings.pages[-1].origin, .initramfs] | join(" ")' "$c/status.json")" \
		"2M:30%@1 /etc/hugepar.conf.d/80-ignition.conf:1 true"
	sw=$(sed -n 's/^\[ *\([0-9.]*\)\].*Switching root.*/\1/p' "$c/journal" | head -n 1 | awk '{ printf "%d", $1 * 1000 }')
	end=$(jq '.started_boot_ms + .duration_ms' "$c/status.json")
	check "... which ended ($end ms) before the root switch (${sw:-?} ms)" test "$end" -lt "${sw:-0}"
	planned_here ignition-first >"$c/planned-here"
	expect_eq "each node's pages as hugepar plan gives them with the drop-in" \
		"$(nodes ignition-first pools)" "$(nodes ignition-first planned-here)"
	expect_eq "node 1 lowered in the same boot: hugepar's own pages given back" \
		"$(jq -r '.nodes[1].sizes[] | select(.size == "2M") | [.before > .achieved, .own == .achieved] | join(" ")' "$c/status.json")" \
		"true true"
	expect_eq "hugepar-initramfs.service built the initramfs again" "$(prop ignition-first hugepar-initramfs Result)" success
	check "it ran" test "$(prop ignition-first hugepar-initramfs ExecMainStartTimestampMonotonic)" -gt 0
	expect_eq "the drop-in applied once, by hugepar-ignition.service in the initramfs" \
		"$(grep -c 'applying them now' "$c/journal")" 1
	check "the booted system: nothing left to apply" \
		grep -q 'those the last run read (.*): nothing to do' "$c/journal"
	boot ignition-second ignition-second two || return
	c=$I/ignition-second
	check "the second boot: no Ignition" sh -c "! grep -q ignition.firstboot '$c/cmdline'"
	expect_eq "the second boot: the same pools, from the initramfs" \
		"$(nodes ignition-second pools)" "$(nodes ignition-first pools)"
	expect_eq "the second boot: the drop-in, from the initramfs's own run" \
		"$(jq -r '[.settings.pages[-1].origin, .initramfs] | join(" ")' "$c/status.json")" \
		"/etc/hugepar.conf.d/80-ignition.conf:1 true"
	expect_eq "the second boot: one run" "$(grep -c 'hugepar: [a-z]* in [0-9]* ms on' "$c/journal")" 1
}

# again_case FLAVOUR: the three-node machine booted twice: the same counts the second
# time. (Shares are of the installed memory, so they hold from boot to boot; where
# the floor cuts them, the count follows the free memory at boot, which moves by
# more than the granularity on the tight shape: doc/cloud-images.md.)
again_case() {
	shape_case "$1-three" "$1" three ok || return
	boot "$1-three-again" "$1" three || return
	expect_eq "booted again: the same counts as the first boot" \
		"$(nodes "$1-three-again" pools)" "$(nodes "$1-three" pools)"
	expect_eq "booted again: verify" "$(prop "$1-three-again" hugepar-verify Result)" success
}

# release_case NAME IMAGE SHAPE STATUS KERNEL: shape_case, on the kernel of its
# release (a pattern of uname -r)
release_case() {
	shape_case "$1" "$2" "$3" "$4" || return
	check "the kernel is $5 ($(cat "$I/$1/kernel"))" grep -q -- "$5" "$I/$1/kernel"
}

# arm64_case SHAPE: the arm64 image: every check holds on one node too (the plan is
# the capture's), so the nodes are counted
arm64_case() {
	release_case "arm64-$1" arm64 "$1" ok '-arm64$' || return
	expect_eq "the machine's nodes, as the shape has them" "$(wc -l <"$I/arm64-$1/pools")" "$(wc -w <<<"${SHAPE[$1]}")"
}

# kdump_case: Debian 13 with kdump-tools (and makedumpfile, which it recommends:
# without it kdump-tools copies all of /proc/vmcore, more than the root has room
# for) and crashkernel=: the first boot crashes
# once the capture kernel is loaded; the capture kernel (its initramfs made by
# kdump-tools with every installed hook, hugepar's too) boots, hugepar stands aside
# there and says why, the dump is saved to /var/crash and the machine reboots (QEMU
# ends: -no-reboot); the next boot reports.
kdump_case() {
	local c=$I/kdump log=$I/kdump-crash.log start=$SECONDS
	run_qemu kdump-crash kdump two || return
	rm -f "$I/kdump-crash.report"
	check "the first boot crashed with the capture kernel loaded ($((SECONDS - start)) s)" \
		grep -aq 'sysrq triggered crash' "$log"
	check "the capture kernel booted" grep -aq 'Command line:.*elfcorehdr=' "$log"
	check "hugepar said, in the capture kernel, that it did nothing" \
		grep -aq 'hugepar: a crash capture kernel (elfcorehdr= on its command line): nothing done' "$log"
	check "kdump-tools saved the dump" grep -aq 'saved vmcore in' "$log"
	boot kdump kdump two || return
	check "the dump is in /var/crash" grep -q '/var/crash/[0-9]*/dump\.' "$c/crash"
	expect_eq "hugepar's record in the capture kernel" \
		"$(jq -r '.status + ": " + .error' "$c/hugepar-capture.json")" "disabled: a crash capture kernel (elfcorehdr= on its command line)"
	expect_eq "the capture kernel's pools: none" "$(awk '{print $2}' "$c/hugepar-capture.pools" | sort -u)" 0
	expect_eq "the next boot: hugepar-verify.service" "$(prop kdump hugepar-verify Result)" success
	expect_eq "the next boot: no surplus, overcommit back" "$(cat "$c/global")" "0 0"
	check "the next boot: pools reserved" awk '$2 > 0 { n++ } END { exit n == 0 }' "$c/pools"
}

# The cases. The first two need different releases, whose base roots are then made at
# once.
tcase initramfs-tools-cpuless "Debian 13, initramfs-tools: four nodes, one without CPUs" \
	shape_case initramfs-tools-cpuless initramfs-tools cpuless ok
tcase next-cpuless "Debian unstable, dracut-ng and Linux 7: four nodes, one without CPUs" \
	release_case next-cpuless next cpuless ok '^7\.'
tcase dracut-three "Debian 13, dracut: three nodes" shape_case dracut-three dracut three ok
tcase fail-tight "Debian 13, initramfs-tools, on_short=fail on a machine too small: verify fails, the consumer waits" \
	fail_case fail-tight fail
tcase userdata "Debian 13, cloud-init: user data's settings on the first boot, from the initramfs on the second" \
	userdata_case
tcase creds-firmware "Debian 13, initramfs-tools: the credential hugepar.conf on fw_cfg and in SMBIOS: fw_cfg's taken" \
	creds_firmware_case
tcase creds-cmdline "Debian 13, initramfs-tools: the credential hugepar.conf in systemd.set_credential=" \
	creds_cmdline_case
tcase creds-dracut "Debian 13, dracut (systemd): an SMBIOS credential, binary, through ImportCredential=" \
	creds_dracut_case
for s in one two three tight; do
	st=ok
	[ "$s" = tight ] && st=partial
	if [ "$s" = three ]; then
		tcase_long initramfs-tools-three "Debian 13, initramfs-tools: three nodes, and booted again" \
			again_case initramfs-tools
	else
		tcase_long "initramfs-tools-$s" "Debian 13, initramfs-tools: the $s shape" \
			shape_case "initramfs-tools-$s" initramfs-tools "$s" "$st"
	fi
	[ "$s" = three ] || tcase_long "dracut-$s" "Debian 13, dracut: the $s shape" shape_case "dracut-$s" dracut "$s" "$st"
done
tcase_long dracut-cpuless "Debian 13, dracut: four nodes, one without CPUs" shape_case dracut-cpuless dracut cpuless ok
for s in two tight; do
	st=ok
	[ "$s" = tight ] && st=partial
	tcase_long "next-$s" "Debian unstable, dracut-ng: the $s shape" release_case "next-$s" next "$s" "$st" '^7\.'
	tcase_long "old-$s" "Debian 12, initramfs-tools and Linux 6.1: the $s shape" \
		release_case "old-$s" old "$s" "$st" '^6\.1\.'
done
tcase_long stale-two "Debian 13, initramfs-tools: settings changed after the initramfs was built: taken, a new one built" \
	stale_case
tcase_long broken-two "Debian 13, initramfs-tools: a broken settings file baked in: the rest applied, each problem said" \
	broken_case broken-two broken
tcase_long fail-dracut-tight "Debian 13, dracut, on_short=fail on a machine too small" fail_case fail-dracut-tight fail-dracut
tcase_long broken-dracut-two "Debian 13, dracut: a broken settings file baked in" broken_case broken-dracut-two broken-dracut
tcase_long kdump "Debian 13, kdump-tools: a crash; hugepar stands aside in the capture kernel, the dump is saved" kdump_case
tcase_long ignition "Debian 13, dracut and Ignition: a drop-in lowers a node before the root switch; the next boot the same" \
	ignition_case
tcase_long arm64-two "Debian 13 for arm64 (TCG), initramfs-tools: two nodes" arm64_case two
tcase_long arm64-cpuless "Debian 13 for arm64 (TCG), initramfs-tools: four nodes, one without CPUs" arm64_case cpuless

requires() {
	[ "$(id -u)" = 0 ] && command -v mmdebstrap >/dev/null && command -v qemu-img >/dev/null &&
		command -v qemu-system-x86_64 >/dev/null && [ -r "$FIRMWARE" ] && command -v mcopy >/dev/null &&
		command -v debugfs >/dev/null && return 0
	echo "needs root, mmdebstrap, qemu-system-x86, qemu-utils, ovmf, mtools and e2fsprogs (make deps)"
	return 1
}
prepare() {
	rm -rf "$I"
	mkdir -p "$I"
	make_tree
}

# shellcheck disable=SC2034 # (run_cases reads it)
TC_JOBS=${IMAGE_JOBS:-$(n=$(nproc); echo $((n > 4 ? 4 : n)))}
run_cases

# The exact versions the images tested, in the suite's closing lines: the suites,
# unstable above all, move under it (image/build.sh lists what went in).
for f in "$I"/*.img.packages; do
	[ -f "$f" ] && [ ! -L "$f" ] || continue
	n=${f##*/}
	echo "versions: image ${n%.img.packages}: $(grep -E '^(linux-image-[^ ]*|systemd|dracut|dracut-core|initramfs-tools|hugepar) ' \
		"$f" | paste -sd, | sed 's/,/, /g')"
done
if [ -f "$I/arm64.img.packages" ]; then
	case $FIRMWARE_ARM64 in
	"$TOP"/*) fw=$(cat "$(dirname "$FIRMWARE_ARM64")/packages") ;;
	*) fw=$(dpkg-query -W -f='qemu-efi-aarch64 ${Version}' qemu-efi-aarch64) ;;
	esac
	echo "versions: arm64 firmware: $fw; $(qemu-system-aarch64 --version | head -n 1)"
fi
echo "image: $(summary_line)"
