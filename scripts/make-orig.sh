#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Make the orig tarballs of hugepar's Debian source package in DIR: the tree of the
# current commit (without debian/) and the numactl component (numactl's source as
# Debian ships it, with its Debian version), so that `dpkg-source -x` gives a tree
# that builds without the network (debian/README.source).
#   scripts/make-orig.sh DIR
set -eu
cd "$(dirname "$0")/.."
dest=${1:?usage: make-orig.sh DIR}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
version=$(scripts/version.sh)
[ -f build/src/numactl/debian-version ] || scripts/fetch-numactl.sh build/src >/dev/null
git archive --format=tar --prefix="hugepar-$version/" HEAD -- . ':!debian' |
	gzip -n >"$dest/hugepar_$version.orig.tar.gz"
tar -C build/src -czf "$dest/hugepar_$version.orig-numactl.tar.gz" --owner=0 --group=0 \
	--exclude=.git numactl
echo "$dest/hugepar_$version.orig.tar.gz"
echo "$dest/hugepar_$version.orig-numactl.tar.gz"
