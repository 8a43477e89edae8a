#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Fetch numactl's source from Debian's source packages into DIR, using an apt
# configuration private to DIR: the system's apt sources are only read, never changed.
# DIR/numactl holds the source and its Debian version (DIR/numactl/debian-version).
set -eu

dest=${1:?usage: fetch-numactl.sh DIR}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
apt=$dest/apt
mkdir -p "$apt/sources.list.d" "$apt/state/lists/partial" "$apt/cache/archives/partial"
: >"$apt/sources.list"

# Turn the system's binary sources into source entries of our own.
n=0
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	sed -e 's/^Types:.*$/Types: deb-src/' "$f" >"$apt/sources.list.d/src$n.sources"
	n=$((n + 1))
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
	[ -f "$f" ] || continue
	sed -n -e 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >"$apt/sources.list.d/src$n.list"
	n=$((n + 1))
done

set -- -o Dir::Etc::SourceList="$apt/sources.list" \
	-o Dir::Etc::SourceParts="$apt/sources.list.d" \
	-o Dir::State="$apt/state" -o Dir::Cache="$apt/cache" \
	-o APT::Sandbox::User=root -qq

apt-get "$@" update
cd "$dest"
rm -f numactl_*
# Only the upstream tarball: the build uses none of Debian's changes to it. apt checks
# it against the signed Sources index.
apt-get "$@" source --download-only --tar-only numactl
rm -rf numactl
mkdir numactl
tar -xzf numactl_*.orig.tar.gz -C numactl --strip-components=1
# The Debian version, for the hugepar package's Built-Using field: the highest the
# sources offer, which is the one apt-get source took.
version=
for v in $(apt-cache "$@" showsrc --only-source numactl | sed -n 's/^Version: //p'); do
	if [ -z "$version" ] || dpkg --compare-versions "$v" gt "$version"; then
		version=$v
	fi
done
[ -n "$version" ] || { echo "fetch-numactl.sh: no version of numactl in the sources" >&2; exit 1; }
echo "$version" >numactl/debian-version
echo "numactl source in $dest/numactl"
