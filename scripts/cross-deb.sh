#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The arm64 package, cross-built as Debian's builders do (dpkg-buildpackage -a arm64
# -Pcross) without network, in a root of SUITE with amd64 and arm64 made for it by
# mmdebstrap (the cross compiler, musl-dev:arm64 and linux-libc-dev:arm64): this
# machine's dpkg is not told of arm64. SRC is the source tree (hugepar-VERSION, as
# dpkg-buildpackage wants it), NUMACTL numactl's (scripts/fetch-numactl.sh). The root
# is DIR/root and stays (the versions its Built-Using names are read there; the caller
# removes it); DIR/mmdebstrap.log and DIR/build.log say what happened. Prints the
# .deb's path (in DIR/root/src). Exit 1: the build failed; 3: no root. Root only.
#   cross-deb.sh DIR SRC NUMACTL [SUITE]   (default: this machine's release)
set -eu
dir=${1:?usage: cross-deb.sh DIR SRC NUMACTL [SUITE]} src=${2:?} numactl=${3:?}
suite=${4:-$(. /etc/os-release && echo "$VERSION_CODENAME")}
name=$(basename "$src")
mkdir -p "$dir"
rm -rf "$dir/root"

"$(dirname "$0")/apt-sources.sh" "$suite" >"$dir/sources.list" || exit 3
mmdebstrap --variant=minbase --architectures=amd64,arm64 \
	--include=build-essential,debhelper,dpkg-dev,gcc-aarch64-linux-gnu,libc6-dev:arm64,musl-dev:arm64,linux-libc-dev:arm64 \
	"$suite" "$dir/root" "$dir/sources.list" >"$dir/mmdebstrap.log" 2>&1 || exit 3

mkdir -p "$dir/root/src/$name"
cp -a "$src/." "$dir/root/src/$name/"
cp -a "$numactl" "$dir/root/src/numactl"
# the root's own /dev, /proc and /tmp, in a mount namespace that goes with the build
unshare -n -m --propagation private -- sh -c '
	mount --rbind /dev "$1/dev" && mount -t proc proc "$1/proc" &&
		mount -t tmpfs tmpfs "$1/tmp" || exit 1
	exec chroot "$1" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		sh -c "cd /src/$2 && NUMACTL_SRC=/src/numactl dpkg-buildpackage -a arm64 -Pcross -us -uc -b"' \
	_ "$dir/root" "$name" >"$dir/build.log" 2>&1 || exit 1
deb=$(find "$dir/root/src" -maxdepth 1 -name 'hugepar_*_arm64.deb' | head -n 1)
[ -n "$deb" ] || exit 1
echo "$deb"
