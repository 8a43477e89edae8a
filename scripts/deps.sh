#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install the Debian packages that building and testing hugepar need, when missing
# (Debian 12 and 13).
set -eu
pkgs="make git build-essential gcc musl-tools clang linux-libc-dev pkg-config python3
shellcheck dracut-core initramfs-tools qemu-system-x86 busybox-static linux-image-amd64
e2fsprogs cpio kmod file time jq gnuplot-nox libhugetlbfs-bin util-linux dash
debhelper dpkg-dev lintian python3-prometheus-client mmdebstrap
fdisk dosfstools mtools ovmf qemu-utils gcc-aarch64-linux-gnu qemu-user-static qemu-system-arm
qemu-efi-aarch64 arch-test"
updated=""
# a dpkg run cut off (a test stopped during dpkg -i, a machine lost power) leaves
# packages half configured, and apt-get refuses to go on until it is finished
if [ -n "$(dpkg --audit 2>/dev/null)" ]; then
	echo "deps: finishing an interrupted dpkg run (dpkg --configure -a)"
	DEBIAN_FRONTEND=noninteractive dpkg --configure -a >/dev/null
fi
# install PACKAGE...: those of them not installed yet
install() {
	missing=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	[ -n "$updated" ] || apt-get update -qq
	updated=1
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
}
# shellcheck disable=SC2086
install $pkgs
# the sanitizers' runtime of the release's clang (14 on Debian 12, 19 on Debian 13)
install "libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev"
