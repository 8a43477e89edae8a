#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# image/build.sh's last step inside the image's root (a copy of the base root; its
# /dev, /proc and /sys are mounted): put the settings in place, install the hugepar
# package with apt (and the generator, dracut in the place of initramfs-tools, in the
# same run), whose trigger builds the initramfs of every kernel, and make GRUB's EFI
# program (/tmp/boot.efi) and config, for the root's architecture (amd64, or arm64
# through qemu-user).
#   customize.sh ROOT LABEL [GENERATOR [PACKAGES [CMDLINE]]]
#     GENERATOR  initramfs-tools (the base's) or dracut
#     PACKAGES   more of Debian's packages, installed in the same apt run
#     CMDLINE    more for the kernel's command line
set -eu
root=$1 label=$2 generator=${3:-initramfs-tools} extra=${4:-} cmdline=${5:-}
inroot() { chroot "$root" "$@"; }
# GRUB's platform, and the serial console: the PC's UART, or the PL011 of arm64's
# virtual machines (QEMU's virt, most clouds')
case $(inroot dpkg --print-architecture) in
arm64) platform=arm64-efi serial=ttyAMA0 ;;
*) platform=x86_64-efi serial=ttyS0,115200 ;;
esac

# A drop-in, not the package's conffile: an upgrade never asks about it.
mkdir -p "$root/etc/hugepar.conf.d"
mv "$root/tmp/hugepar-image.conf" "$root/etc/hugepar.conf.d/50-image.conf"
echo debian >"$root/etc/hostname"
echo "LABEL=$label / ext4 defaults 0 1" >"$root/etc/fstab"
# Each machine booted from the image makes its own machine id on its first boot.
: >"$root/etc/machine-id"
# A lab image: root logs in on the console without a password.
inroot passwd -d root >/dev/null

# dracut, in the place of initramfs-tools: every module for any machine. Nothing is
# written for hugepar: the package's own dracut.conf.d file adds it.
pkgs="$extra /tmp/hugepar.deb"
if [ "$generator" = dracut ]; then
	mkdir -p "$root/etc/dracut.conf.d"
	echo 'hostonly="no"' >"$root/etc/dracut.conf.d/10-generic.conf"
	pkgs="dracut $pkgs"
fi
# As a user installs a downloaded .deb: apt resolves its dependencies.
# shellcheck disable=SC2086
inroot env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $pkgs
rm -f "$root/tmp/hugepar.deb"
# Each kernel's initramfs, once: the base root has none (image/build.sh), and the
# package's trigger builds those that are there. Then what went into it, a path a
# line, for image/build.sh to keep beside the image.
for k in "$root"/lib/modules/*; do
	k=${k##*/}
	if [ ! -e "$root/boot/initrd.img-$k" ]; then
		if [ -x "$root/usr/bin/dracut" ]; then
			inroot dracut -q -f "/boot/initrd.img-$k" "$k" >&2
		else
			inroot update-initramfs -c -k "$k" >&2
		fi
	fi
	if [ -x "$root/usr/bin/dracut" ]; then
		inroot lsinitrd "/boot/initrd.img-$k" | awk '{print $NF}'
	else
		inroot lsinitramfs "/boot/initrd.img-$k"
	fi
done >"$root/tmp/initramfs.list"

# GRUB: the EFI program carries a config that finds the root by its label and reads
# /boot/grub/grub.cfg there (the kernel's command line is edited in the image).
mkdir -p "$root/boot/grub"
cat >"$root/boot/grub/grub.cfg" <<CFG
set timeout=1
menuentry "Debian with hugepar" {
	linux /vmlinuz root=LABEL=$label ro console=tty0 console=$serial${cmdline:+ $cmdline}
	initrd /initrd.img
}
CFG
cat >"$root/tmp/early.cfg" <<'CFG'
search --no-floppy --label LABEL --set=root
configfile ($root)/boot/grub/grub.cfg
CFG
sed -i "s/LABEL/$label/" "$root/tmp/early.cfg"
inroot grub-mkstandalone -O "$platform" -o /tmp/boot.efi --modules="part_gpt ext2" \
	"boot/grub/grub.cfg=/tmp/early.cfg"
rm -f "$root/tmp/early.cfg"
