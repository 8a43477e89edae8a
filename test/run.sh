#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run every test: unit (plain and with sanitizers), golden fixtures, command line, live
# reservations on this kernel, and boots in QEMU. Ends with "N passed, N failed".
#   HUGEPAR_SKIP_SAN=1   skip the sanitizer builds
#   HUGEPAR_SKIP_BOOT=1  skip the QEMU boot tests
#   HUGEPAR_SKIP_FRESH=1 skip the fresh Debian root (test/fresh.sh)
cd "$(dirname "$0")/.." || exit 1
. test/lib.sh

# Each suite prints "NAME: N passed, N failed[, N skipped]" last; add them up.
suite() {
	local out line p f s
	out=$("$@" 2>&1)
	echo "$out" | sed '$d'
	line=$(echo "$out" | tail -n 1)
	echo "== $line"
	if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)? ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[4]:-0}
		PASSED=$((PASSED + p)) FAILED=$((FAILED + f)) SKIPPED=$((SKIPPED + s))
	else
		fail "$1 ended without a count"
	fi
}

suite build/unit
if [ -z "${HUGEPAR_SKIP_SAN:-}" ]; then
	suite build/unit-san
else
	skip "unit tests with sanitizers (HUGEPAR_SKIP_SAN)"
fi
check "make syncheck" make --no-print-directory -s syncheck
# Debian's python3-* modules are served to /usr/bin/python3 only: the first python3 on
# PATH may be another interpreter that does not see them.
expect_eq "the tests and benchmarks call /usr/bin/python3" \
	"$(grep -nE '(^|[^/[:alnum:]_-])python3([[:space:]]|$)' test/*.sh bench/*.sh | grep -v '^[^:]*:[0-9]*:[[:space:]]*#')" ""
rm -rf "$OUT/install"
if make --no-print-directory -s install DESTDIR="$OUT/install" PREFIX=/usr >"$OUT/install.log" 2>&1; then
	for f in usr/sbin/hugepar etc/hugepar.conf usr/share/man/man8/hugepar.8 \
		usr/share/man/man5/hugepar.conf.5 usr/share/man/man7/dracut-hugepar.7 \
		usr/share/man/man7/hugepar-initramfs-tools.7 usr/share/initramfs-tools/hooks/hugepar \
		usr/share/initramfs-tools/scripts/init-premount/hugepar usr/share/doc/hugepar/record.md \
		"$(pkg-config --variable=dracutmodulesdir dracut 2>/dev/null || echo /usr/lib/dracut/modules.d)/90hugepar/module-setup.sh"; do
		check "make install: $f" test -e "$OUT/install/${f#/}"
	done
	check "binary is static" sh -c "file -L hugepar | grep -q 'statically linked'"
	make --no-print-directory -s uninstall DESTDIR="$OUT/install" PREFIX=/usr >>"$OUT/install.log" 2>&1
	expect_eq "make uninstall: only the settings are left" \
		"$(cd "$OUT/install" && find . -type f | sort)" "./etc/hugepar.conf"
else
	fail "make install DESTDIR (see $OUT/install.log)"
fi
suite test/golden.sh
suite test/cli.sh
suite test/engine.sh
suite test/adapt.sh
suite test/live.sh
suite test/package.sh
if [ -z "${HUGEPAR_SKIP_FRESH:-}" ]; then
	suite test/fresh.sh
else
	skip "fresh Debian root (HUGEPAR_SKIP_FRESH)"
fi
if [ -z "${HUGEPAR_SKIP_BOOT:-}" ] && [ -x test/boot.sh ]; then
	suite test/boot.sh
else
	skip "boot tests (HUGEPAR_SKIP_BOOT or no test/boot.sh)"
fi
summary_line
[ "$FAILED" = 0 ]
