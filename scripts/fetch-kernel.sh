#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Fetch a Debian kernel for the boot tests: downloaded and extracted into DIR/KVER,
# not installed; laid out as a root of its own (DIR/KVER/boot/vmlinuz-KVER,
# .../boot/config-KVER, .../lib/modules/KVER), with modules.dep made by depmod -b, and
# KVER/packages naming the packages extracted and their versions. Prints the kernel
# release. Nothing is done when it is there already.
#   fetch-kernel.sh DIR 6.1      linux-image-6.1.0-*-amd64-unsigned, Debian 12's kernel,
#                                from Debian 12's archive (with an apt configuration
#                                of its own, as for 7); nothing on a machine that has
#                                it installed (Debian 12)
#   fetch-kernel.sh DIR [6.12]   linux-image-6.12.*+deb12-amd64-unsigned, the kernel
#                                Debian 13 ships, from Debian 12's archive; nothing
#                                on a machine that has a 6.12 kernel installed (Debian
#                                13's own), which the boot tests take first
#   fetch-kernel.sh DIR 7        the newest 7.x in Debian's unstable archive
#                                (linux-binary, linux-modules and linux-base
#                                packages; vmlinuz in /usr/lib/modules/KVER), read
#                                with an apt configuration of its own under DIR
#                                (the system's apt sources are only read)
set -eu

dest=${1:?usage: fetch-kernel.sh DIR [6.1|6.12|7]}
series=${2:-6.12}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

# suite_apt NAME SUITE: apt for a suite of Debian (scripts/private-apt.sh), with lists
# and cache in DIR/NAME/apt
. "$(dirname "$0")/private-apt.sh"
suite_apt() { private_apt "$dest/$1" "$2"; }

# newest PATTERN: the newest package whose name matches
newest() {
	# shellcheck disable=SC2086
	apt-cache $APT search --names-only "$1" 2>/dev/null | awk '{print $1}' | sort -V | tail -n 1
}

# installed SERIES: print an installed kernel of SERIES (its modules and vmlinuz)
installed() {
	for m in /lib/modules/"$1".*-amd64; do
		if [ -f "$m/modules.dep" ] && [ -r "/boot/vmlinuz-${m##*/}" ]; then
			echo "${m##*/}"
			return 0
		fi
	done
	return 1
}

case $series in
6.1)
	installed 6.1 && exit 0
	suite_apt apt-bookworm bookworm
	# shellcheck disable=SC2086
	apt-get $APT update >/dev/null
	pkg=$(newest '^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$')
	[ -n "$pkg" ] || { echo "fetch-kernel: no linux-image-6.1.0-*-amd64-unsigned in Debian 12's archive" >&2; exit 1; }
	kver=${pkg#linux-image-}
	kver=${kver%-unsigned}
	pkgs=$pkg
	;;
6.12)
	installed 6.12 && exit 0
	APT="-o APT::Sandbox::User=root -qq"
	pat='^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$'
	pkg=$(newest "$pat")
	if [ -z "$pkg" ]; then
		apt-get update -qq >/dev/null
		pkg=$(newest "$pat")
	fi
	[ -n "$pkg" ] || { echo "fetch-kernel: no linux-image-6.12.*+deb12-amd64-unsigned in the archive" >&2; exit 1; }
	kver=${pkg#linux-image-}
	kver=${kver%-unsigned}
	pkgs=$pkg
	;;
7)
	suite_apt apt-unstable sid
	# shellcheck disable=SC2086
	apt-get $APT update >/dev/null
	pkg=$(newest '^linux-binary-7\.[0-9]+\.[0-9]+\+deb[0-9]+-amd64$')
	[ -n "$pkg" ] || { echo "fetch-kernel: no linux-binary-7.*-amd64 in Debian's unstable archive" >&2; exit 1; }
	kver=${pkg#linux-binary-}
	pkgs="$pkg linux-modules-$kver linux-base-$kver"
	;;
*)
	echo "fetch-kernel: series $series: 6.1, 6.12 or 7" >&2
	exit 2
	;;
esac

k=$dest/$kver
if [ ! -f "$k/boot/vmlinuz-$kver" ] || [ ! -f "$k/lib/modules/$kver/modules.dep" ]; then
	rm -rf "${k:?}" "${dest:?}/dl"
	mkdir -p "$dest/dl"
	# shellcheck disable=SC2086
	(cd "$dest/dl" && apt-get $APT download $pkgs >/dev/null)
	for d in "$dest"/dl/*.deb; do
		dpkg-deb -x "$d" "$k"
		# shellcheck disable=SC2016
		dpkg-deb -W --showformat '${Package} ${Version}\n' "$d" >>"$k/packages"
	done
	rm -rf "$dest/dl"
	if [ -d "$k/usr/lib/modules/$kver" ]; then
		# the split packaging: everything in /usr/lib/modules/KVER
		mkdir -p "$k/boot"
		[ -e "$k/lib" ] || ln -s usr/lib "$k/lib"
		cp "$k/usr/lib/modules/$kver/vmlinuz" "$k/boot/vmlinuz-$kver"
		cp "$k/usr/lib/modules/$kver/config" "$k/boot/config-$kver"
	fi
	depmod -b "$k" "$kver"
fi
echo "$kver"
