#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# image/build.sh's last step inside the new root, run by mmdebstrap as a customize
# hook (the root's /dev, /proc and /sys are mounted): install the hugepar package with
# apt, put the settings in place, configure the initramfs generator the root has,
# build the initramfs for its kernel, and make GRUB's EFI program (/tmp/boot.efi) and
# config, for the root's architecture (amd64, or arm64 through qemu-user).
#   customize.sh ROOT LABEL
set -eu
root=$1 label=$2
inroot() { chroot "$root" "$@"; }
# GRUB's platform, and the serial console: the PC's UART, or the PL011 of arm64's
# virtual machines (QEMU's virt, most clouds')
case $(inroot dpkg --print-architecture) in
arm64) platform=arm64-efi serial=ttyAMA0 ;;
*) platform=x86_64-efi serial=ttyS0,115200 ;;
esac

# As a user installs a downloaded .deb: apt resolves its dependencies.
inroot env DEBIAN_FRONTEND=noninteractive apt-get install -y -q /tmp/hugepar.deb
rm -f "$root/tmp/hugepar.deb"
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
if [ -x "$root/usr/bin/dracut" ]; then
	echo 'hostonly="no"' >"$root/etc/dracut.conf.d/10-generic.conf"
fi
# Each kernel's initramfs, and what went into it, a path a line, for image/build.sh
# to keep beside the image.
for k in "$root"/lib/modules/*; do
	k=${k##*/}
	if [ -x "$root/usr/bin/dracut" ]; then
		inroot dracut -q -f "/boot/initrd.img-$k" "$k" >&2
		inroot lsinitrd "/boot/initrd.img-$k" | awk '{print $NF}'
	else
		inroot update-initramfs -u -k "$k" >&2
		inroot lsinitramfs "/boot/initrd.img-$k"
	fi
done >"$root/tmp/initramfs.list"

# GRUB: the EFI program carries a config that finds the root by its label and reads
# /boot/grub/grub.cfg there (the kernel's command line is edited in the image).
mkdir -p "$root/boot/grub"
cat >"$root/boot/grub/grub.cfg" <<CFG
set timeout=1
menuentry "Debian with hugepar" {
	linux /vmlinuz root=LABEL=$label ro console=tty0 console=$serial
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
