#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Print this machine's Debian sources for a suite (and its -updates, -security
# companions) as one-line "deb URI SUITE COMPONENTS" entries, from both formats
# (sources.list lines and deb822 .sources files); the files are only read. With none,
# Debian's own mirror. For mmdebstrap, which takes such a list as a file.
#   apt-sources.sh [SUITE]   (default bookworm)
set -eu
suite=${1:-bookworm}
list() {
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -n -E "s/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+)[[:space:]]+(${suite}[^[:space:]]*)[[:space:]]+(.*)$/deb \2 \3 \4/p" "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v suite="$suite" '
			function flush() {
				if (types ~ /(^| )deb( |$)/ && uris != "")
					for (i = 1; i <= ns; i++)
						if (s[i] ~ "^" suite)
							for (j = 1; j <= nu; j++) print "deb " u[j] " " s[i] " " comps
				types = uris = comps = ""; ns = nu = 0
			}
			/^[[:space:]]*$/ { flush(); next }
			/^Types:/ { types = $0; sub(/^Types:[[:space:]]*/, "", types) }
			/^URIs:/ { uris = $0; sub(/^URIs:[[:space:]]*/, "", uris); nu = split(uris, u, /[[:space:]]+/) }
			/^Suites:/ { x = $0; sub(/^Suites:[[:space:]]*/, "", x); ns = split(x, s, /[[:space:]]+/) }
			/^Components:/ { comps = $0; sub(/^Components:[[:space:]]*/, "", comps) }
			END { flush() }' "$f"
	done
}
out=$(list | sort -u)
[ -n "$out" ] || out="deb http://deb.debian.org/debian $suite main"
printf '%s\n' "$out"
