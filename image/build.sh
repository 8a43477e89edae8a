#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build a Debian disk image with hugepar in it, as an image builder would: a root made
# by mmdebstrap with systemd, Debian's cloud kernel and an initramfs generator (the
# base root, which images of one suite can share: --base), the hugepar .deb installed
# with apt, settings as a drop-in in /etc/hugepar.conf.d, the initramfs built from
# them; then a GPT disk with an EFI system partition (GRUB, its
# own config embedded) and the root file system, made without loop devices or mounts.
# For amd64 or arm64; an arm64 root is made on an amd64 machine through qemu-user.
# Prints where the image is and the QEMU command that boots it; OUTPUT.packages lists
# the packages in the image and their versions, OUTPUT.initramfs the files of its
# initramfs. Root only.
#
#   image/build.sh [options] OUTPUT.img
#     --flavour F     initramfs-tools (Debian 12 and 13's default generator) or
#                     dracut (unstable's) (default initramfs-tools)
#     --settings FILE the image's settings (default image/hugepar.conf), installed as
#                     /etc/hugepar.conf.d/50-image.conf
#     --tree DIR      files copied over the root before the initramfs is built (units,
#                     drop-ins)
#     --deb FILE      the hugepar package to install (default: built from this tree
#                     into build/image/deb, or build/image/deb-ARCH cross-built)
#     --suite S       Debian suite: bookworm, trixie or sid (default trixie)
#     --size SIZE     the root file system's size (default 2G)
#     --arch ARCH     amd64 or arm64 (default amd64); a --deb must be of ARCH
#     --include PKGS  more of Debian's packages in the image (comma separated),
#                     installed with hugepar
#     --append ARGS   more for the kernel's command line (GRUB's configuration)
#     --package-only  only build the package (as for an image of ARCH) and print
#                     "image: package PATH"; no OUTPUT
#     --base DIR      keep the base root (Debian's packages, before hugepar) in DIR,
#                     and take it from there for the next image of the same suite
#                     and architecture
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
flavour=initramfs-tools settings=$TOP/image/hugepar.conf tree="" deb="" suite=trixie size=2G arch=amd64 base="" package_only="" include="" append=""

usage() {
	sed -n 's/^#   //p; s/^#     /  /p' "$0" >&2
	exit 2
}
die() {
	echo "image: $*" >&2
	exit 1
}

while [ $# -gt 0 ]; do
	case $1 in
	--flavour) flavour=${2:?} && shift ;;
	--settings) settings=${2:?} && shift ;;
	--tree) tree=${2:?} && shift ;;
	--deb) deb=${2:?} && shift ;;
	--suite) suite=${2:?} && shift ;;
	--size) size=${2:?} && shift ;;
	--arch) arch=${2:?} && shift ;;
	--base) base=${2:?} && shift ;;
	--package-only) package_only=1 ;;
	--include) include=${2:?} && shift ;;
	--append) append=${2:?} && shift ;;
	-h | --help) usage ;;
	-*) echo "image: unknown option $1" >&2 && usage ;;
	*) break ;;
	esac
	shift
done
[ $# = 1 ] || [ -n "$package_only" ] || usage
out=${1:-}
case $flavour in
initramfs-tools | dracut) ;;
*) die "--flavour $flavour: initramfs-tools or dracut" ;;
esac
# each architecture's kernel, GRUB, the name UEFI firmware boots without a boot entry,
# and the QEMU that boots the image
case $arch in
amd64)
	kernel=linux-image-cloud-amd64 grub=grub-efi-amd64-bin efi=BOOTX64.EFI
	firmware=/usr/share/ovmf/OVMF.fd
	qemu="qemu-system-x86_64 -machine q35"
	;;
arm64)
	kernel=linux-image-cloud-arm64 grub=grub-efi-arm64-bin efi=BOOTAA64.EFI
	firmware=/usr/share/qemu-efi-aarch64/QEMU_EFI.fd
	qemu="qemu-system-aarch64 -machine virt -cpu max"
	;;
*) die "--arch $arch: amd64 or arm64" ;;
esac
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, and file ownership in the root file system)"
for t in mmdebstrap mkfs.ext4 mkfs.vfat mcopy sfdisk; do
	command -v "$t" >/dev/null || die "$t is missing (make deps)"
done
[ -f "$settings" ] || die "no settings file $settings"
[ -z "$tree" ] || [ -d "$tree" ] || die "--tree $tree: not a directory"
settings=$(realpath "$settings")
[ -z "$tree" ] || tree=$(realpath "$tree")
[ -z "$base" ] || base=$(realpath -m "$base")

work=$TOP/build/image
mkdir -p "$work"
[ -n "$package_only" ] || { mkdir -p "$(dirname "$out")" && out=$(realpath "$out"); }

# A root of another architecture runs its programs (maintainer scripts, the initramfs
# generator, grub-mkstandalone) through qemu-user, which the kernel starts for them by
# binfmt_misc. Neither is taken as set up: binfmt_misc is mounted, and qemu-user's
# entry (/usr/lib/binfmt.d, of qemu-user-static) registered and enabled, where they
# are not. Debian's entry has the F flag: the kernel opens the emulator when it is
# registered, so that the root needs no copy of it.
foreign() {
	local q=$1 d=/proc/sys/fs/binfmt_misc
	[ -f "$d/register" ] || mount -t binfmt_misc binfmt_misc "$d" || die "cannot mount binfmt_misc on $d"
	if [ ! -f "$d/$q" ]; then
		[ -f "/usr/lib/binfmt.d/$q.conf" ] || die "no /usr/lib/binfmt.d/$q.conf (qemu-user-static, make deps)"
		grep -v '^#' "/usr/lib/binfmt.d/$q.conf" >"$d/register" || die "cannot register $q with binfmt_misc"
	fi
	grep -qx enabled "$d/$q" || echo 1 >"$d/$q"
	command -v arch-test >/dev/null || die "arch-test is missing (make deps): mmdebstrap needs it for a foreign root"
}
case $arch in
"$(dpkg --print-architecture)") ;;
arm64) foreign qemu-aarch64 ;;
*) die "--arch $arch: no root of it is made on $(dpkg --print-architecture)" ;;
esac

# The package, as the README builds it, without running its tests again (make check
# does) and without network; for another architecture, cross-built as the package
# suite does it (scripts/cross-deb.sh), in a directory of its own.
build_deb() {
	local v p=$work/deb
	[ "$arch" = "$(dpkg --print-architecture)" ] || p=$work/deb-$arch
	v=$("$TOP/scripts/version.sh")
	deb=$p/hugepar_$v-1_$arch.deb
	[ -f "$TOP/build/src/numactl/debian-version" ] || "$TOP/scripts/fetch-numactl.sh" "$TOP/build/src" >/dev/null
	rm -rf "$p"
	mkdir -p "$p/hugepar-$v"
	if [ -d "$TOP/.git" ] || [ -f "$TOP/.git" ]; then
		(cd "$TOP" && git ls-files -co --exclude-standard -z | xargs -0 cp -a --parents -t "$p/hugepar-$v")
	else
		(cd "$TOP" && tar --exclude=./build --exclude=./test/out -cf - .) | tar -C "$p/hugepar-$v" -xf -
	fi
	if [ "$arch" = "$(dpkg --print-architecture)" ]; then
		(cd "$p/hugepar-$v" && DEB_BUILD_OPTIONS=nocheck NUMACTL_SRC="$TOP/build/src/numactl" \
			unshare -n -- dpkg-buildpackage -us -uc -b) >"$p/build.log" 2>&1 ||
			die "dpkg-buildpackage failed (see $p/build.log)"
	else
		local x rc=0
		x=$("$TOP/scripts/cross-deb.sh" "$p/cross" "$p/hugepar-$v" "$TOP/build/src/numactl") || rc=$?
		[ "$rc" = 0 ] || die "the cross build failed (see $p/cross/mmdebstrap.log, $p/cross/build.log)"
		cp "$x" "$p/"
		rm -rf "$p/cross/root"
	fi
	[ -f "$deb" ] || die "dpkg-buildpackage made no $deb"
}
if [ -z "$deb" ]; then
	echo "image: building the hugepar package ($arch)" >&2
	build_deb
fi
deb=$(realpath "$deb")
if [ -n "$package_only" ]; then
	echo "image: package $deb"
	exit 0
fi

label=hugepar-root
root=$work/root.$$
trap 'rm -rf "$root" "$work/sources.$$" "$work/base.$$" "$work/efi.$$.efi"' EXIT

# The base root: what every image of a suite and architecture has, Debian's packages
# only (systemd, the cloud kernel, GRUB, initramfs-tools, Debian's default), made by
# mmdebstrap with its package lists kept for the next step. With --base DIR it is
# kept there, and taken from there by the next image of the same suite and
# architecture (one mmdebstrap run for all of them); the first of two builds at once
# makes it, the other waits.
make_base() {
	local b=$1 start
	if [ -f "$b/.hugepar-base" ] && [ "$(cat "$b/.hugepar-base")" = "$suite $arch" ]; then
		echo "image: the $suite $arch base root in $b" >&2
		return
	fi
	rm -rf "$b"
	"$TOP/scripts/apt-sources.sh" "$suite" >"$work/sources.$$"
	echo "image: mmdebstrap $suite $arch" >&2
	start=$(date +%s)
	# A mirror that serves a snapshot of the archive serves unstable's Release file
	# past its Valid-Until date (Debian 12's own suites carry none); signatures are
	# still checked. mmdebstrap's apt does not read this machine's apt settings.
	# The kernel's initramfs is built by the image's own step, after hugepar: not here
	# (update-initramfs is diverted while the packages go in).
	mmdebstrap --variant=minbase --architectures="$arch" \
		--include="systemd,systemd-sysv,udev,kmod,e2fsprogs,$kernel,$grub,initramfs-tools" \
		--aptopt='Acquire::Check-Valid-Until "false"' --skip=cleanup/apt/lists \
		--essential-hook='chroot "$1" dpkg-divert --quiet --local --rename --add /usr/sbin/update-initramfs &&
			ln -s /bin/true "$1/usr/sbin/update-initramfs"' \
		--customize-hook='rm "$1/usr/sbin/update-initramfs" &&
			chroot "$1" dpkg-divert --quiet --local --rename --remove /usr/sbin/update-initramfs' \
		"$suite" "$b" "$work/sources.$$" >"$out.base.log" 2>&1 ||
		die "mmdebstrap failed (see $out.base.log)"
	echo "$suite $arch" >"$b/.hugepar-base"
	echo "image: the base root took $(($(date +%s) - start)) s ($(du -sh "$b" | cut -f1))" >&2
}
if [ -n "$base" ]; then
	mkdir -p "$(dirname "$base")"
	exec 9>"$base.lock"
	flock 9
	make_base "$base"
	flock -u 9
else
	base=$work/base.$$
	make_base "$base"
fi

# The image's root: a copy of the base, the package file, the settings and the tree
# put in, and image/customize.sh run on it (dracut takes initramfs-tools' place there) with the root's /dev, /proc and /sys mounted, in a
# mount namespace that goes with it (the rest happens in there); GRUB's EFI program
# comes out of it. Then the package lists and downloads go, as mmdebstrap's own
# clean-up does.
start=$(date +%s)
rm -rf "$root"
cp -a "$base" "$root"
rm -f "$root/.hugepar-base"
cp "$deb" "$root/tmp/hugepar.deb"
cp "$settings" "$root/tmp/hugepar-image.conf"
[ -z "$tree" ] || cp -a "$tree/." "$root/"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
unshare -m --propagation private -- sh -c '
	mount --rbind /dev "$1/dev" && mount -t proc proc "$1/proc" && mount -t sysfs sysfs "$1/sys" || exit 1
	exec "$2/image/customize.sh" "$1" "$3" "$4" "$5" "$6"' _ "$root" "$TOP" "$label" "$flavour" \
	"${include//,/ }" "$append" >"$out.log" 2>&1 ||
	die "the image's root failed (see $out.log)"
mv "$root/tmp/boot.efi" "$work/efi.$$.efi"
mv "$root/tmp/initramfs.list" "$out.initramfs"
chroot "$root" apt-get clean
rm -rf "$root"/var/lib/apt/lists/* "$root/etc/resolv.conf"
echo "image: the image's root took $(($(date +%s) - start)) s ($(du -sh "$root" | cut -f1))" >&2
# what went in: "PACKAGE VERSION" a line (the unstable suite moves from build to build)
# shellcheck disable=SC2016
dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${db:Status-Abbrev}\t${Package} ${Version}\n' |
	sed -n 's/^ii *\t//p' >"$out.packages"

# The disk: GPT, an EFI system partition of 64 MiB at 1 MiB, the root after it, the
# backup table in the last MiB. The file systems are written in place at their
# offsets (mkfs.vfat --offset, mtools' @@offset, mkfs.ext4 -E offset).
esp_mib=64
root_mib=$(numfmt --from=iec "$size")
root_mib=$((root_mib / 1048576))
rm -f "$out"
truncate -s $((1 + esp_mib + root_mib + 1))M "$out"
sfdisk -q "$out" >/dev/null <<EOF
label: gpt
start=1MiB, size=${esp_mib}MiB, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name=esp
start=$((1 + esp_mib))MiB, size=${root_mib}MiB, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=root
EOF
mkfs.vfat -F 32 -s 1 --offset 2048 -n ESP "$out" $((esp_mib * 1024)) >/dev/null 2>&1 || die "mkfs.vfat failed"
mmd -i "$out@@1M" ::/EFI ::/EFI/BOOT
mcopy -i "$out@@1M" "$work/efi.$$.efi" "::/EFI/BOOT/$efi"
rm -f "$work/efi.$$.efi"
mkfs.ext4 -q -L "$label" -d "$root" -E offset=$(((1 + esp_mib) * 1048576)) "$out" "${root_mib}M"

echo "image: $out ($flavour, $(du -h "$out" | cut -f1) on disk of $(du -h --apparent-size "$out" | cut -f1))"
echo "boot it: $qemu -m 2G -smp 2 -bios $firmware -drive file=$out,format=raw,if=virtio -nographic"
