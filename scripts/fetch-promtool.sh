#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Fetch promtool, which the alerts suite runs, from Debian's package of this
# machine's release (promtool on Debian 13, prometheus on 12): downloaded with an
# apt configuration of its own under DIR (scripts/private-apt.sh; the system's apt
# sources are only read) and extracted, not installed, so that no Prometheus server
# is set up or started here. Prints the path of DIR/promtool; nothing is fetched
# when it is there already.
#   fetch-promtool.sh DIR
set -eu

dest=${1:?usage: fetch-promtool.sh DIR}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
if [ ! -x "$dest/promtool" ]; then
	. "$(dirname "$0")/private-apt.sh"
	private_apt "$dest"
	# shellcheck disable=SC2086
	apt-get $APT update >/dev/null
	# Debian 13 has promtool in a package of its own; Debian 12 in prometheus
	pkg=promtool
	# shellcheck disable=SC2086
	apt-cache $APT show promtool >/dev/null 2>&1 || pkg=prometheus
	rm -rf "$dest/dl" && mkdir -p "$dest/dl"
	# shellcheck disable=SC2086
	(cd "$dest/dl" && apt-get $APT download "$pkg" >/dev/null)
	dpkg-deb -x "$dest/dl/${pkg}"_*.deb "$dest/dl/root"
	# shellcheck disable=SC2016
	dpkg-deb -W --showformat '${Package} ${Version}\n' "$dest/dl/${pkg}"_*.deb >"$dest/package"
	install -m 0755 "$dest/dl/root/usr/bin/promtool" "$dest/promtool"
	rm -rf "$dest/dl" "$dest/apt"
fi
echo "$dest/promtool"
