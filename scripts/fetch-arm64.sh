#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Fetch what the arm64 boots (test/arm64.sh) need, by package name, with an apt
# configuration private to DIR (the system's sources are only read, and its dpkg is
# not told of the architecture): Debian's arm64 kernels, 4K pages of Debian 12's 6.1
# and of Debian 13's 6.12, 16K pages of Debian 13's 6.12, and busybox-static. Only
# each kernel's Image is kept (DIR/KVER/vmlinuz: the boots load no module);
# DIR/busybox; DIR/packages names what was taken. Nothing is done when DIR has them
# already.
#   fetch-arm64.sh DIR
set -eu

dest=${1:?usage: fetch-arm64.sh DIR}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
[ -s "$dest/packages" ] && [ -x "$dest/busybox" ] && exit 0

. "$(dirname "$0")/private-apt.sh"
private_apt "$dest" --arch arm64 bookworm trixie
rm -rf "$dest/dl"
mkdir -p "$dest/dl"
# shellcheck disable=SC2086
apt-get $APT update
# newest PATTERN: the newest package whose name matches
newest() {
	# shellcheck disable=SC2086
	apt-cache $APT search --names-only "$1" 2>/dev/null | awk '{print $1}' | sort -V | tail -n 1
}
pkgs=busybox-static
for pat in '^linux-image-6\.1\.0-[0-9]+-arm64-unsigned$' \
	'^linux-image-6\.12\.[0-9]+\+deb13-arm64-unsigned$' \
	'^linux-image-6\.12\.[0-9]+\+deb13-arm64-16k-unsigned$'; do
	p=$(newest "$pat")
	[ -n "$p" ] || { echo "fetch-arm64: no package matches $pat" >&2; exit 1; }
	pkgs="$pkgs $p"
done
# shellcheck disable=SC2086
(cd "$dest/dl" && apt-get $APT download $pkgs)
: >"$dest/packages.new"
for d in "$dest"/dl/*.deb; do
	p=$(dpkg-deb -f "$d" Package)
	case $p in
	busybox-static)
		dpkg-deb -x "$d" "$dest/dl/bb"
		cp "$(find "$dest/dl/bb" -path '*bin/busybox' | head -n 1)" "$dest/busybox"
		chmod 755 "$dest/busybox"
		;;
	linux-image-*)
		kver=${p#linux-image-}
		kver=${kver%-unsigned}
		mkdir -p "$dest/$kver"
		dpkg-deb --fsys-tarfile "$d" | tar -xO "./boot/vmlinuz-$kver" >"$dest/$kver/vmlinuz"
		;;
	esac
	echo "$p $(dpkg-deb -f "$d" Version)" >>"$dest/packages.new"
done
rm -rf "$dest/dl"
mv "$dest/packages.new" "$dest/packages"
cat "$dest/packages"
