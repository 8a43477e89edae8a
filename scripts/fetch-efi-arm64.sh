#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Fetch Debian's UEFI firmware for arm64 virtual machines (qemu-efi-aarch64 of SUITE)
# by package name, with an apt configuration private to DIR (the system's sources are
# only read, nothing is installed), for a machine whose own package is older than
# the image suite needs (test/image.sh says why). Keeps DIR/QEMU_EFI.fd; DIR/packages
# names what was taken. Nothing is done when DIR has it already.
#   fetch-efi-arm64.sh DIR [SUITE]   (default trixie)
set -eu

dest=${1:?usage: fetch-efi-arm64.sh DIR [SUITE]} suite=${2:-trixie}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
[ -s "$dest/packages" ] && [ -s "$dest/QEMU_EFI.fd" ] && exit 0

. "$(dirname "$0")/private-apt.sh"
private_apt "$dest" "$suite"
rm -rf "$dest/dl"
mkdir -p "$dest/dl"
# shellcheck disable=SC2086
apt-get $APT update
# shellcheck disable=SC2086
(cd "$dest/dl" && apt-get $APT download qemu-efi-aarch64)
d=$(ls "$dest"/dl/qemu-efi-aarch64_*.deb)
dpkg-deb --fsys-tarfile "$d" | tar -xO ./usr/share/qemu-efi-aarch64/QEMU_EFI.fd >"$dest/QEMU_EFI.fd"
echo "qemu-efi-aarch64 $(dpkg-deb -f "$d" Version)" >"$dest/packages"
rm -rf "$dest/dl" "$dest/apt"
cat "$dest/packages"
