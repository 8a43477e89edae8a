#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Fetch Debian's 6.12 kernel (linux-image-6.12.*+deb12-amd64-unsigned, the kernel
# Debian 13 ships, in Debian 12's archive) for the boot tests: downloaded and
# extracted into DIR/KVER, not installed; modules.dep made with depmod -b.
# Prints the kernel release. Nothing is done when it is there already.
set -eu

dest=${1:?usage: fetch-kernel.sh DIR}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

newest() {
	apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' 2>/dev/null |
		awk '{print $1}' | sort -V | tail -n 1
}
pkg=$(newest)
if [ -z "$pkg" ]; then
	apt-get update -qq >/dev/null
	pkg=$(newest)
fi
[ -n "$pkg" ] || { echo "fetch-kernel: no linux-image-6.12.*+deb12-amd64-unsigned in the archive" >&2; exit 1; }
kver=${pkg#linux-image-}
kver=${kver%-unsigned}
if [ ! -f "$dest/$kver/boot/vmlinuz-$kver" ] || [ ! -f "$dest/$kver/lib/modules/$kver/modules.dep" ]; then
	rm -rf "${dest:?}/$kver" "${dest:?}/dl"
	mkdir -p "$dest/dl"
	(cd "$dest/dl" && apt-get download -qq -o APT::Sandbox::User=root "$pkg" >/dev/null)
	dpkg-deb -x "$dest"/dl/*.deb "$dest/$kver"
	rm -rf "$dest/dl"
	depmod -b "$dest/$kver" "$kver"
fi
echo "$kver"
