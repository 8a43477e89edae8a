#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install the Debian packages that building and testing hugepar need, when missing.
set -eu
pkgs="make git build-essential gcc musl-tools clang libclang-rt-14-dev linux-libc-dev pkg-config python3
shellcheck dracut-core initramfs-tools qemu-system-x86 busybox-static linux-image-amd64
e2fsprogs cpio kmod file time jq gnuplot-nox libhugetlbfs-bin util-linux dash
debhelper dpkg-dev lintian python3-prometheus-client mmdebstrap
fdisk dosfstools mtools ovmf qemu-utils"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
