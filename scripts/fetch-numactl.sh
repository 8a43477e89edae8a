#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Fetch numactl's source from Debian's source packages into DIR, using an apt
# configuration private to DIR: the system's apt sources are only read, never changed.
# DIR/numactl holds the source and its Debian version (DIR/numactl/debian-version).
set -eu

dest=${1:?usage: fetch-numactl.sh DIR}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
# The system's binary sources as source entries of our own.
. "$(dirname "$0")/private-apt.sh"
private_apt "$dest" --src
# shellcheck disable=SC2086
apt-get $APT update
cd "$dest"
rm -f numactl_*
# Only the upstream tarball: the build uses none of Debian's changes to it. apt checks
# it against the signed Sources index.
# shellcheck disable=SC2086
apt-get $APT source --download-only --tar-only numactl
rm -rf numactl
mkdir numactl
tar -xzf numactl_*.orig.tar.gz -C numactl --strip-components=1
# The Debian version, for the hugepar package's Built-Using field: the highest the
# sources offer, which is the one apt-get source took.
version=
# shellcheck disable=SC2086
for v in $(apt-cache $APT showsrc --only-source numactl | sed -n 's/^Version: //p'); do
	if [ -z "$version" ] || dpkg --compare-versions "$v" gt "$version"; then
		version=$v
	fi
done
[ -n "$version" ] || { echo "fetch-numactl.sh: no version of numactl in the sources" >&2; exit 1; }
echo "$version" >numactl/debian-version
echo "numactl source in $dest/numactl"
