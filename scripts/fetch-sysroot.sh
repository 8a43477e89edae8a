#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Fetch what a cross build for a Debian architecture needs of that architecture: musl
# (musl-dev) and the kernel's uapi headers (linux-libc-dev), downloaded by package
# name with an apt configuration private to DIR (the system's sources are only read,
# its dpkg is not told of the architecture) and unpacked under DIR/root, not
# installed. DIR/musl-gcc.specs is musl's specs file with its paths moved there, for
# the cross compiler's -specs; DIR/packages names the packages and their versions.
# Nothing is done when DIR has them already.
#   fetch-sysroot.sh ARCH DIR   (ARCH: arm64, ...)
set -eu

arch=${1:?usage: fetch-sysroot.sh ARCH DIR}
dest=${2:?usage: fetch-sysroot.sh ARCH DIR}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
triplet=$(dpkg-architecture -a"$arch" -qDEB_HOST_MULTIARCH 2>/dev/null)
[ -n "$triplet" ] || { echo "fetch-sysroot: $arch: not an architecture dpkg knows" >&2; exit 2; }
musl=${triplet%%-*}-linux-musl
[ -f "$dest/musl-gcc.specs" ] && [ -f "$dest/root/usr/include/$triplet/asm/unistd.h" ] && exit 0

. "$(dirname "$0")/private-apt.sh"
private_apt "$dest" --arch "$arch"
rm -rf "$dest/root" "$dest/dl"
mkdir -p "$dest/dl"
# shellcheck disable=SC2086
apt-get $APT update
# shellcheck disable=SC2086
(cd "$dest/dl" && apt-get $APT download "musl-dev:$arch" "linux-libc-dev:$arch")
for d in "$dest"/dl/*.deb; do
	dpkg-deb -x "$d" "$dest/root"
	# shellcheck disable=SC2016
	dpkg-deb -W --showformat '${Package} ${Version}\n' "$d"
done >"$dest/packages"
rm -rf "$dest/dl"
specs=$dest/root/usr/lib/$musl/musl-gcc.specs
[ -f "$specs" ] || { echo "fetch-sysroot: musl-dev:$arch has no $musl/musl-gcc.specs" >&2; exit 1; }
sed -e "s|/usr/include/$musl|$dest/root/usr/include/$musl|g" \
	-e "s|/usr/lib/$musl|$dest/root/usr/lib/$musl|g" "$specs" >"$dest/musl-gcc.specs"
echo "$dest"
