#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Print the first Debian mirror of this machine's apt sources (a URI ending in
# /debian, from deb822 .sources files, then sources.list lines), else Debian's own.
# The files are only read. For the scripts that fetch packages of another suite or
# architecture with an apt configuration of their own.
uri=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\/debian\)\/*$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
[ -n "$uri" ] || uri=$(sed -n 's/^[[:space:]]*deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]\{1,\}\)\{0,1\}\([^[:space:]]*\/debian\)\/*[[:space:]].*/\2/p' \
	/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -n 1)
echo "${uri:-http://deb.debian.org/debian}"
