#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Cloud images: the images image/build.sh makes (systemd, the cloud kernel, the .deb
# installed with apt, shares, a floor, a mount, on_short), each booted unchanged by
# UEFI firmware on emulated machine shapes, under systemd as PID 1: Debian 13 of both
# flavours (initramfs-tools and dracut) on five shapes, Debian unstable with its
# default generator (dracut) on three, Debian 12 (initramfs-tools) on two in make
# check-all, and in make check-all too Debian 13 for arm64 (initramfs-tools, the
# package cross-built) on two, under TCG. The test images carry a stand-in
# consumer unit (ordered by the package's kubelet drop-in) and a reporter unit that
# writes what the boot did onto a second disk (test/image/). Root only.
#   IMAGE_FLAVOURS="initramfs-tools dracut"   the Debian 13 flavours to build and boot
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
FLAVOURS=${IMAGE_FLAVOURS:-initramfs-tools dracut}

# TESTS=list (HUGEPAR_LIST) names the cases, and needs none of this
LISTING=${HUGEPAR_LIST:+1}
if [ -z "$LISTING" ] && { [ "$(id -u)" != 0 ] || ! command -v mmdebstrap >/dev/null ||
	! command -v qemu-img >/dev/null || ! command -v qemu-system-x86_64 >/dev/null ||
	[ ! -r "$FIRMWARE" ] || ! command -v mcopy >/dev/null; }; then
	skip "image tests: need root, mmdebstrap, qemu-system-x86, qemu-utils, ovmf and mtools (make deps)"
	echo "image: $(summary_line)"
	exit 0
fi
[ -n "$LISTING" ] || rm -rf "$I"
mkdir -p "$I"

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
SHAPES="one two three cpuless tight"
# The two-node shape's 2M pools ("NODE COUNT ...") under the image's settings, 40% of
# each node, as initramfs-tools-two gives them: broken-two and stale-two (and the
# dracut ones) must come out the same without booting it.
TWO_POOLS="0 304 1 304"

# The test units, the package's own kubelet drop-in for the consumer, and the
# directory node_exporter's package makes for its textfiles.
tree=$I/tree
if [ -z "$LISTING" ]; then
	s=$tree/etc/systemd/system
	mkdir -p "$s/multi-user.target.wants" "$s/hugepar-consumer.service.d" "$tree/usr/local/sbin" \
		"$tree/var/lib/prometheus/node-exporter"
	cp "$TOP/test/image/hugepar-consumer.service" "$TOP/test/image/hugepar-report.service" "$s/"
	cp "$TOP/systemd/examples/kubelet.conf" "$s/hugepar-consumer.service.d/hugepar.conf"
	ln -s ../hugepar-consumer.service "$s/multi-user.target.wants/hugepar-consumer.service"
	ln -s ../hugepar-report.service "$s/multi-user.target.wants/hugepar-report.service"
	install -m 0755 "$TOP/test/image/report.sh" "$tree/usr/local/sbin/hugepar-report"
	install -m 0755 "$TOP/test/capture.sh" "$tree/usr/local/sbin/hugepar-capture"
	# the settings of the failure paths' images (below): on_short = fail; a broken file
	sed 's/^on_short = continue$/on_short = fail/' "$TOP/image/hugepar.conf" >"$I/fail.conf"
	{
		cat "$TOP/image/hugepar.conf"
		echo "reserve = 512Q"
		echo "mount = 3M:/dev/hugepages3M"
	} >"$I/broken.conf"
fi

# build NAME FLAVOUR [SETTINGS [SUITE [ARCH]]]: an image from this tree's package
# (built once for each architecture), of Debian 13 for amd64 unless SUITE and ARCH say
# otherwise. The package alone puts hugepar into the initramfs, with either
# generator: image/customize.sh writes nothing for it.
declare -A DEB=()
build() {
	local name=$1 flavour=$2 settings=${3:-$TOP/image/hugepar.conf} suite=${4:-trixie} arch=${5:-amd64} start=$SECONDS
	local deb=${DEB[$arch]:-}
	if "$TOP/image/build.sh" --flavour "$flavour" --settings "$settings" --tree "$tree" \
		--suite "$suite" --arch "$arch" ${deb:+--deb "$deb"} "$I/$name.img" >"$I/$name.build" 2>&1; then
		pass "$name-image: built ($suite, $flavour, $((SECONDS - start)) s)"
		[ -n "$deb" ] || DEB[$arch]=$(ls "$TOP"/build/image/deb*/hugepar_*_"$arch".deb)
		check "$name-image: hugepar in its initramfs, by the package alone" \
			grep -qx 'usr/sbin/hugepar' "$I/$name.img.initramfs"
	else
		fail "$name-image: build ($flavour), see $I/$name.build and $I/$name.img.log"
		tail -n 5 "$I/$name.build"
		rm -f "$I/$name.img"
	fi
}

# image NAME: whether the image NAME is there, built the first time a boot asks for
# it, so that only what the selected cases boot is built. Its build is the check
# NAME-image.
declare -A BUILT=()
image() {
	if [ -z "${BUILT[$1]:-}" ]; then
		BUILT[$1]=1
		case $1 in
		next) build next dracut "$TOP/image/hugepar.conf" sid ;;
		old) build old initramfs-tools "$TOP/image/hugepar.conf" bookworm ;;
		fail | broken) build "$1" initramfs-tools "$I/$1.conf" ;;
		arm64)
			if ! dpkg --compare-versions "$(dpkg-query -W -f='${Version}' qemu-efi-aarch64 2>/dev/null)" ge 2025.02 &&
				"$TOP/scripts/fetch-efi-arm64.sh" "$TOP/build/image/firmware" >"$I/firmware.log" 2>&1; then
				FIRMWARE_ARM64=$TOP/build/image/firmware/QEMU_EFI.fd
			fi
			if command -v qemu-system-aarch64 >/dev/null && [ -r "$FIRMWARE_ARM64" ]; then
				build arm64 initramfs-tools "$TOP/image/hugepar.conf" trixie arm64
			else
				fail "arm64-image: needs qemu-system-arm and qemu-efi-aarch64 (make deps)"
			fi
			;;
		fail-dracut | broken-dracut) build "$1" dracut "$I/${1%-dracut}.conf" ;;
		*) build "$1" "$1" ;;
		esac
	fi
	[ -f "$I/$1.img" ]
}

# boot CASE IMAGE SHAPE [CASE...]: boot IMAGE on SHAPE when one of the CASEs is
# selected, on a copy-on-write overlay of its own (IMAGE-SHAPE.qcow2, kept: a second
# boot of the same machine boots what the first left), by the UEFI firmware of its
# architecture (the arm64 image: QEMU's virt machine, with the time that slower
# emulation takes); the report is unpacked into $I/CASE/.
boot() {
	local name=$1 img=$I/$2.img topo=${SHAPE[$3]} start=$SECONDS limit=600 machine
	qemu_numa "$topo"
	any_wanted "$name" "${@:4}" || return 1 # TESTS names other cases
	rm -rf "${I:?}/$name"
	mkdir -p "$I/$name"
	if [ "$2" != stale ] && ! image "$2" || [ ! -f "$img" ]; then
		fail "$name: no image $2 (its build failed): not booted"
		return 1
	fi
	case $2 in
	arm64)
		# shellcheck disable=SC2054 # (QEMU's own commas)
		machine=(qemu-system-aarch64 -machine virt -cpu max,pauth-impdef=on -bios "$FIRMWARE_ARM64")
		limit=1200
		;;
	*) machine=(qemu-system-x86_64 -machine q35 -cpu max -bios "$FIRMWARE") ;;
	esac
	start=$SECONDS
	[ -f "$I/$2-$3.qcow2" ] || qemu-img create -q -f qcow2 -b "$img" -F raw "$I/$2-$3.qcow2"
	# The emulated kernel now and then panics in its own early start (a timer under
	# TCG, before any user space ran; the boot suite meets it too), and the guest
	# then waits forever: QEMU is stopped once the serial log says the kernel
	# panicked, and the boot is tried once more, the first try's log kept as
	# CASE.try1.log. A panic of the boot's own making (init killed, memory ran out)
	# is not tried again.
	local try rc qemu panic why
	for try in 1 2; do
		rm -f "$I/$name.report" "$I/$name.log"
		truncate -s 64M "$I/$name.report"
		timeout "$limit" "${machine[@]}" -smp "$NUMA_CPUS" -m "${NUMA_MEM}M" "${NUMA_ARGS[@]}" \
			-drive "file=$I/$2-$3.qcow2,format=qcow2,if=virtio" \
			-drive "file=$I/$name.report,format=raw,if=none,id=report" \
			-device virtio-blk-pci,drive=report,serial=hpreport \
			-display none -monitor none -serial "file:$I/$name.log" -no-reboot >/dev/null 2>&1 &
		qemu=$!
		panic=""
		while kill -0 "$qemu" 2>/dev/null; do
			panic=$(grep -a -m1 'Kernel panic - not syncing' "$I/$name.log" 2>/dev/null | tr -d '\r')
			if [ -n "$panic" ]; then
				sleep 2 # the rest of the panic's lines
				kill "$qemu" 2>/dev/null
				break
			fi
			sleep 2
		done
		wait "$qemu"
		rc=$?
		case $panic in "" | *"Attempted to kill init"* | *"Out of memory"*) break ;; esac
		[ "$try" = 2 ] && break
		mv "$I/$name.log" "$I/$name.try1.log"
		echo "     $name: the kernel panicked before the report (${panic#*not syncing: }; see $I/$name.try1.log): booting again"
	done
	if tar -C "$I/$name" -xf "$I/$name.report" 2>/dev/null && [ -s "$I/$name/target" ]; then
		pass "$name: booted $2 on $3 ($topo) and reported ($((SECONDS - start)) s)"
		rm -f "$I/$name.report"
	else
		# where it stopped, for a log that is not kept past the run
		if [ -n "$panic" ]; then
			why="the kernel panicked: ${panic#*not syncing: }"
		elif [ "$rc" = 124 ]; then
			why="still running after $limit s"
		else
			why="QEMU exit $rc"
		fi
		fail "$name: booted $2 on $3, no report ($why, after $((SECONDS - start)) s; see $I/$name.log)"
		tail -n 25 "$I/$name.log" | sed 's/^/     | /'
		return 1
	fi
}

# prop CASE UNIT KEY: a property of a unit, as the guest's systemctl showed it
prop() { sed -n "s/^$3=//p" "$I/$1/$2.unit"; }
nodes() { tr '\n' ' ' <"$I/$1/$2" | sed 's/ $//'; }

# planned CASE SETTINGS: each node's 2M target ("ID COUNT" a line) as `hugepar plan
# --sysroot` gives it for a capture of the booted machine: its CPUs, memory, memory
# blocks and kernel as the guest showed them, each node's free memory and pools as
# they were before the boot's run (the record's mem_free and before), since the run
# itself used them.
planned() {
	local c=$I/$1 conf=$I/$1/conf
	mkdir -p "$conf/hugepar.conf.d"
	cp "$TOP/config/hugepar.conf" "$conf/hugepar.conf"
	cp "$2" "$conf/hugepar.conf.d/50-image.conf"
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

# shape_case CASE IMAGE SHAPE STATUS [CASE...]: the checks every boot of the matrix
# makes; the record's status is STATUS: ok, or partial where the floor cuts the
# share. Booted for the other CASEs too (a later boot of the machine).
shape_case() {
	local name=$1 c=$I/$1
	boot "$name" "$2" "$3" "${@:5}" || return
	expect_eq "$name: multi-user.target reached" "$(cat "$c/target")" active
	expect_eq "$name: hugepar-verify.service" "$(prop "$name" hugepar-verify ActiveState) $(prop "$name" hugepar-verify Result)" "active success"
	expect_eq "$name: the consumer started" "$(prop "$name" hugepar-consumer ActiveState)" active
	local vend cstart
	vend=$(prop "$name" hugepar-verify ExecMainExitTimestampMonotonic)
	cstart=$(prop "$name" hugepar-consumer ExecMainStartTimestampMonotonic)
	check "$name: verify finished (${vend:-?} us) before the consumer started (${cstart:-?} us)" \
		test "${vend:-0}" -gt 0 -a "${vend:-0}" -le "${cstart:-0}"
	expect_eq "$name: the consumer saw the pools as they are" "$(nodes "$name" consumer)" "$(nodes "$name" pools)"
	planned "$name" "$TOP/image/hugepar.conf" >"$c/planned" 2>"$c/planned.err"
	check "$name: a plan for the capture" test -s "$c/planned"
	expect_eq "$name: each node's pages as hugepar plan --sysroot gives them" "$(nodes "$name" pools)" "$(nodes "$name" planned)"
	expect_eq "$name: the record" "$(jq -r .status "$c/status.json")" "$4"
	check "$name: record format" /usr/bin/python3 "$TOP/test/check-record.py" "$TOP/doc/record.md" "$c/status.json"
	expect_eq "$name: no surplus, overcommit back" "$(cat "$c/global")" "0 0"
	expect_eq "$name: the mount's owner, group and mode" "$(cat "$c/mount.stat")" "root kvm 1770"
	check "$name: the mount is hugetlbfs of 2M pages" grep -q '^hugetlbfs .*pagesize=2M' "$c/mount.fs"
	check "$name: the textfile parses" sh -c "/usr/bin/python3 '$TOP/test/check-prometheus.py' '$c/hugepar.prom' >'$c/prom.txt' 2>&1"
	expect_eq "$name: hugepar status --check" "$(cat "$c/check.rc")" 0
	expect_eq "$name: no error from hugepar in the journal" "$(grep -c -i hugepar "$c/journal-err")" 0
	expect_eq "$name: the summary once in the journal" "$(grep -c 'hugepar: [a-z]* in [0-9]* ms on' "$c/journal")" 1
}

for f in $FLAVOURS; do
	for s in $SHAPES; do
		st=ok
		[ "$s" = tight ] && st=partial
		# the three-node machine is booted again below, from what this boot left
		also=""
		[ "$s" = three ] && also="$f-three-again"
		shape_case "$f-$s" "$f" "$s" "$st" $also
	done
	# The same machine booted again: the same counts. (Shares are of the installed
	# memory, so they hold from boot to boot; where the floor cuts them, the count
	# follows the free memory at boot, which moves by more than the granularity on
	# the tight shape: doc/cloud-images.md.)
	if boot "$f-three-again" "$f" three; then
		expect_eq "$f-three-again: the same counts as the first boot" "$(nodes "$f-three-again" pools)" "$(nodes "$f-three" pools)"
		expect_eq "$f-three-again: verify" "$(prop "$f-three-again" hugepar-verify Result)" success
	fi
done

# What the distribution ships next: the same package and settings in an image of
# Debian's unstable suite with its default generator, dracut (dracut-ng), systemd in
# the initramfs and the 7.x cloud kernel, on three of the shapes.
for s in two cpuless tight; do
	st=ok
	[ "$s" = tight ] && st=partial
	shape_case "next-$s" next "$s" "$st" &&
		check "next-$s: the kernel is 7.x ($(cat "$I/next-$s/kernel"))" grep -q '^7\.' "$I/next-$s/kernel"
done

# Debian 12, the release before: its initramfs-tools, systemd 252 and 6.1 kernel, in
# make check-all (make check's budget; the boot suite and the fresh root run on
# Debian 12).
for s in two tight; do
	st=ok
	[ "$s" = tight ] && st=partial
	long_case "old-$s" && shape_case "old-$s" old "$s" "$st" &&
		check "old-$s: the kernel is 6.1 ($(cat "$I/old-$s/kernel"))" grep -q '^6\.1\.' "$I/old-$s/kernel"
done

# arm64: Debian 13 for arm64 with initramfs-tools, the cloud-arm64 kernel, GRUB for
# arm64-efi and the package cross-built, its root made through qemu-user; booted by
# QEMU's UEFI firmware for aarch64 on two nodes and on four with one without CPUs,
# under TCG. In make check-all (the build emulates every program it runs in the root,
# the boots run a few times longer than x86-64's).
for s in two cpuless; do
	long_case "arm64-$s" && shape_case "arm64-$s" arm64 "$s" ok || continue
	check "arm64-$s: the kernel is arm64's ($(cat "$I/arm64-$s/kernel"))" grep -q -- '-arm64$' "$I/arm64-$s/kernel"
	# (every other check holds on one node too: the plan is the capture's)
	expect_eq "arm64-$s: the machine's nodes, as the shape has them" "$(wc -l <"$I/arm64-$s/pools")" "$(wc -w <<<"${SHAPE[$s]}")"
done

# The failure paths a fleet sees, on each generator's image.
# fail_case CASE IMAGE: on_short = fail on a machine too small for its share: verify
# fails, the consumer that requires it does not start, the journal says why, the boot
# goes on.
fail_case() {
	local name=$1 c=$I/$1
	boot "$name" "$2" tight || return
	expect_eq "$name: multi-user.target reached" "$(cat "$c/target")" active
	expect_eq "$name: hugepar-verify.service failed" "$(prop "$name" hugepar-verify ActiveState) $(prop "$name" hugepar-verify Result)" "failed exit-code"
	expect_eq "$name: the consumer did not start" "$(prop "$name" hugepar-consumer ActiveState) $(prop "$name" hugepar-consumer ExecMainStartTimestampMonotonic)" "inactive 0"
	check "$name: the journal says the consumer's dependency failed" \
		grep -q 'Dependency failed for.*[Ss]tand-in' "$c/journal"
	check "$name: the journal says which node is short" grep -q 'hugepar: node 0 2M: [0-9]* of [0-9]* pages asked for' "$c/journal"
	expect_eq "$name: the record" "$(jq -r .status "$c/status.json")" partial
}
# broken_case CASE IMAGE: a broken settings file baked in: what can be used is, the
# rest is said.
broken_case() {
	local name=$1 c=$I/$1
	boot "$name" "$2" two || return
	expect_eq "$name: multi-user.target reached" "$(cat "$c/target")" active
	check "$name: hugepar status names the bad reserve" grep -q '50-image.conf:[0-9]*.*reserve.*512Q' "$c/status.txt"
	check "$name: hugepar status names the bad mount" grep -q '50-image.conf:[0-9]*.*mount.*3M' "$c/status.txt"
	expect_eq "$name: the record keeps both problems" "$(jq '.settings.problems | length' "$c/status.json")" 2
	expect_eq "$name: the rest applied: 40% of each node" "$(nodes "$name" pools)" "$TWO_POOLS"
}
fail_case fail-tight fail
broken_case broken-two broken
# the same on dracut: two more images, in make check-all
long_case fail-dracut-tight && fail_case fail-dracut-tight fail-dracut
long_case broken-dracut-two && broken_case broken-dracut-two broken-dracut
# Settings changed in the image after it was built, without a new initramfs: the
# booted machine reports them stale. The image's root file system is edited in place
# (debugfs, at the root partition's offset).
if wanted stale-two && image initramfs-tools; then
	cp --sparse=always "$I/initramfs-tools.img" "$I/stale.img"
	off=$(sfdisk -J "$I/stale.img" | jq '.partitiontable.partitions[1].start * 512')
	sed 's/^pages = 2M:40%$/pages = 2M:30%/' "$TOP/image/hugepar.conf" >"$I/stale.conf"
	printf '%s\n' "cd /etc/hugepar.conf.d" "rm 50-image.conf" "write $I/stale.conf 50-image.conf" >"$I/stale.debugfs"
	check "stale-two: the image's settings edited" \
		sh -c "debugfs -w -f '$I/stale.debugfs' '$I/stale.img?offset=$off' >'$I/stale.edit' 2>&1"
	if boot stale-two stale two; then
		c=$I/stale-two
		expect_eq "stale-two: multi-user.target reached" "$(cat "$c/target")" active
		check "stale-two: hugepar status says the settings changed since the boot read them" \
			grep -q 'has changed since this run read it' "$c/status.txt"
		expect_eq "stale-two: the boot used the initramfs's settings" "$(nodes stale-two pools)" "$TWO_POOLS"
	fi
fi

# an image no selected case boots, when its build is selected (as every one is in a
# whole run)
for n in $FLAVOURS next fail broken; do
	wanted "$n-image" && image "$n"
done
for n in old fail-dracut broken-dracut arm64; do
	long_case "$n-image" && image "$n"
done

# The exact versions the images tested, in the suite's closing lines: the suites,
# unstable above all, move under it (image/build.sh lists what went in).
for n in $FLAVOURS next old fail broken fail-dracut broken-dracut arm64; do
	[ -n "${BUILT[$n]:-}" ] && [ -s "$I/$n.img.packages" ] || continue
	echo "versions: image $n: $(grep -E '^(linux-image-[^ ]*|systemd|dracut|dracut-core|initramfs-tools|hugepar) ' \
		"$I/$n.img.packages" | paste -sd, | sed 's/,/, /g')"
done
if [ -n "${BUILT[arm64]:-}" ]; then
	case $FIRMWARE_ARM64 in
	"$TOP"/*) fw=$(cat "$(dirname "$FIRMWARE_ARM64")/packages") ;;
	*) fw=$(dpkg-query -W -f='qemu-efi-aarch64 ${Version}' qemu-efi-aarch64) ;;
	esac
	echo "versions: arm64 firmware: $fw; $(qemu-system-aarch64 --version | head -n 1)"
fi

echo "image: $(summary_line)"
