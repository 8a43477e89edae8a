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

uri=$("$(dirname "$0")/debian-mirror.sh")

apt=$dest/apt
rm -rf "$apt" "$dest/dl"
mkdir -p "$apt/parts" "$apt/lists/partial" "$apt/cache/archives/partial" "$dest/dl"
for s in bookworm trixie; do
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $s main" >"$apt/parts/$s.list"
done
set -- -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$apt/parts" \
	-o Dir::State::Lists="$apt/lists" -o Dir::State::Status=/dev/null \
	-o Dir::Cache="$apt/cache" -o APT::Sandbox::User=root \
	-o APT::Architecture=arm64 -o APT::Architectures::=arm64 -qq
apt-get "$@" update
# newest PATTERN: the newest package whose name matches
newest() {
	apt-cache "$@" search --names-only "$pat" 2>/dev/null | awk '{print $1}' | sort -V | tail -n 1
}
pkgs=busybox-static
for pat in '^linux-image-6\.1\.0-[0-9]+-arm64-unsigned$' \
	'^linux-image-6\.12\.[0-9]+\+deb13-arm64-unsigned$' \
	'^linux-image-6\.12\.[0-9]+\+deb13-arm64-16k-unsigned$'; do
	p=$(newest "$@")
	[ -n "$p" ] || { echo "fetch-arm64: no package matches $pat" >&2; exit 1; }
	pkgs="$pkgs $p"
done
# shellcheck disable=SC2086
(cd "$dest/dl" && apt-get "$@" download $pkgs)
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
