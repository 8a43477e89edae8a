#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the fetch scripts: an apt configuration private to a directory, so that
# packages of another suite or architecture are fetched by name while the system's
# apt sources are only read and its dpkg is never told of them.
#   private_apt DIR [--arch ARCH] [--src] [SUITE...]
# sets APT to the options apt-get and apt-cache take for it (split into words): the
# SUITEs (main) of the first Debian mirror of this machine's sources
# (scripts/debian-mirror.sh), or, with no SUITE, this machine's own sources; --src
# their source packages instead; --arch ARCH that architecture's packages. Lists and
# downloads are kept under DIR/apt, the dpkg status is empty. A mirror that serves a
# snapshot of the archive serves unstable's Release file past its Valid-Until date:
# that date is not checked, the signature is.
private_apt() {
	pa_dir=$1/apt pa_arch="" pa_src=""
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--arch) pa_arch=$2 && shift 2 ;;
		--src) pa_src=-src && shift ;;
		*) break ;;
		esac
	done
	rm -rf "$pa_dir/parts"
	mkdir -p "$pa_dir/parts" "$pa_dir/lists/partial" "$pa_dir/cache/archives/partial"
	if [ $# -gt 0 ]; then
		pa_uri=$("$(dirname "$0")/debian-mirror.sh")
		for pa_suite in "$@"; do
			echo "deb$pa_src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $pa_uri $pa_suite main"
		done >"$pa_dir/parts/private.list"
	else
		pa_n=0
		for pa_f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
			[ -f "$pa_f" ] || continue
			case $pa_f in
			*.sources) sed "s/^Types:.*$/Types: deb$pa_src/" "$pa_f" >"$pa_dir/parts/$pa_n.sources" ;;
			*) sed -n "s/^[[:space:]]*deb[[:space:]]/deb$pa_src /p" "$pa_f" >"$pa_dir/parts/$pa_n.list" ;;
			esac
			pa_n=$((pa_n + 1))
		done
	fi
	APT="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$pa_dir/parts
		-o Dir::State::Lists=$pa_dir/lists -o Dir::State::Status=/dev/null -o Dir::Cache=$pa_dir/cache
		-o APT::Sandbox::User=root -o Acquire::Check-Valid-Until=false -qq"
	[ -z "$pa_arch" ] || APT="$APT -o APT::Architecture=$pa_arch -o APT::Architectures::=$pa_arch"
}
