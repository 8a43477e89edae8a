#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The tree's own checks: the shell (make syncheck), the interpreter the tests call,
# the length of the C files and functions, make install and uninstall into a staging
# directory, the cross build for arm64. Five cases: syncheck, interpreter, length,
# install, cross.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1

wanted syncheck && check "syncheck: make syncheck" make --no-print-directory -s syncheck
# Debian's python3-* modules are served to /usr/bin/python3 only: the first
# python3 on PATH may be another interpreter that does not see them.
wanted interpreter && expect_eq "interpreter: the tests and benchmarks call /usr/bin/python3" \
	"$(grep -nE '(^|[^/[:alnum:]_-])python3([[:space:]]|$)' test/*.sh bench/*.sh | grep -v '^[^:]*:[0-9]*:[[:space:]]*#')" ""
# Files of at most 500 lines and functions of at most 70 (from the line that names
# the function to its closing brace), the binary's and the tests' alike.
if wanted length; then
	c_files=(lib/*.[ch] src/*.[ch] src/*/*.[ch] test/sim/*.[ch] test/unit/*.[ch] test/*.c)
	expect_eq "length: no C file over 500 lines" "$(wc -l "${c_files[@]}" | awk '$2 != "total" && $1 > 500 {print $2 " (" $1 ")"}')" ""
	expect_eq "length: no function over 70 lines" "$(awk '
		FNR == 1 { named = 0 }
		/^[a-zA-Z].*\(/ && !/;[[:space:]]*$/ { named = FNR; name = $0 }
		/^\{/ && named { start = named }
		/^\}/ && start { if (FNR - start + 1 > 70) printf "%s:%d (%d lines) ", FILENAME, start, FNR - start + 1; start = 0 }
	' "${c_files[@]}")" ""
fi
if wanted install; then
	rm -rf "$OUT/install"
	# what 0.2 installed, under the number dracut-ng gives its own modules
	dracutdir=$(pkg-config --variable=dracutmodulesdir dracut 2>/dev/null || echo /usr/lib/dracut/modules.d)
	mkdir -p "$OUT/install/$dracutdir/90hugepar"
	touch "$OUT/install/$dracutdir/90hugepar/module-setup.sh"
	if make --no-print-directory -s install DESTDIR="$OUT/install" PREFIX=/usr >"$OUT/install.log" 2>&1; then
		check "install: make install takes away 0.2's 90hugepar" test ! -e "$OUT/install/$dracutdir/90hugepar"
		for f in usr/sbin/hugepar etc/hugepar.conf usr/share/man/man8/hugepar.8 \
			usr/share/man/man5/hugepar.conf.5 usr/share/man/man7/dracut-hugepar.7 \
			usr/share/man/man7/hugepar-initramfs-tools.7 usr/share/initramfs-tools/hooks/hugepar \
			usr/share/initramfs-tools/scripts/init-premount/hugepar usr/share/doc/hugepar/record.md \
			"$dracutdir/$DRACUT_MODULE/module-setup.sh"; do
			check "install: make install: $f" test -e "$OUT/install/${f#/}"
		done
		check "install: binary is static" sh -c "file -L hugepar | grep -q 'statically linked'"
		make --no-print-directory -s uninstall DESTDIR="$OUT/install" PREFIX=/usr >>"$OUT/install.log" 2>&1
		expect_eq "install: make uninstall: only the settings are left" \
			"$(cd "$OUT/install" && find . -type f | sort)" "./etc/hugepar.conf"
	else
		fail "install: make install DESTDIR (see $OUT/install.log)"
	fi
fi

# The cross build: make ARCH=arm64 gives a static aarch64 binary whose plans are the
# goldens' (run under qemu-user), and a build given the build machine's uapi headers
# (x86-64 system call numbers, which libnuma would call) stops.
if wanted cross; then
	X=$OUT/cross
	rm -rf "$X"
	mkdir -p "$X"
	if make --no-print-directory -s ARCH=arm64 >"$X/build.log" 2>&1; then
		check "cross: make ARCH=arm64: a static aarch64 binary" \
			sh -c "file -L build/arm64/hugepar | grep -q 'ARM aarch64.*statically linked'"
		qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64)
		if [ -n "$qemu" ]; then
			for m in arm64-16k 2n-144cpu; do
				"$TOP/test/mkfixture.sh" "test/machines/$m.desc" "$X/$m"
				"$qemu" build/arm64/hugepar plan --sysroot "$X/$m" --config /dev/null --json \
					>"$X/$m.json" 2>&1
				check "cross: the arm64 binary's plan of $m is the golden's" \
					cmp -s "$X/$m.json" "test/golden/$m.json"
			done
		else
			fail "cross: no qemu-aarch64 (qemu-user-static, make deps)"
		fi
	else
		fail "cross: make ARCH=arm64 (see $X/build.log)"
		tail -n 5 "$X/build.log"
	fi
	make --no-print-directory -s ARCH=arm64 BUILD="$X/wrong" SYSROOT=build/arm64/sysroot \
		MULTIARCH="$(gcc -print-multiarch)" UAPI=/usr/include >"$X/wrong.log" 2>&1
	expect_eq "cross: the build machine's uapi headers stop the build" \
		"$? $(grep -c "static assertion failed: \"asm/unistd.h is not" "$X/wrong.log")" "2 4"
fi
echo "tree: $(summary_line)"
