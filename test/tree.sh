#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The tree's own checks: the shell (make syncheck), the interpreter the tests call,
# the length of files and functions, make install and uninstall into a staging
# directory, the cross build for arm64, the binary built in two folders (the same
# byte for byte), the repository paths that docs and comments name, and the unit
# tests' list read from the sources against the one built.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1

tcase syncheck "make syncheck: sh -n, bash -n and shellcheck on every script"
tcase interpreter "the tests and benchmarks call /usr/bin/python3, not the first on PATH"
tcase length "C files of at most 500 lines; C and shell functions of at most 70"
tcase install "make install puts every file in place, uninstall takes them away"
tcase cross "make ARCH=arm64 gives a static aarch64 binary that plans as the goldens"
tcase reproducible "hugepar built in two folders of different names is the same, byte for byte"
tcase paths "every repository path a doc or a comment names exists"
tcase unit-list "test/unit/list.sh lists the unit tests as build/unit --list does"
tcase size "the stripped binary is under 300 KiB: only what it calls is linked"
tcase deps "scripts/deps.sh finishes a dpkg run cut off before it calls apt-get"

t_syncheck() { check "make syncheck" make --no-print-directory -s syncheck; }

# Debian's python3-* modules are served to /usr/bin/python3 only: the first
# python3 on PATH may be another interpreter that does not see them.
t_interpreter() {
	expect_eq "the tests and benchmarks call /usr/bin/python3" \
		"$(grep -nE '(^|[^/[:alnum:]_-])python3([[:space:]]|$)' test/*.sh bench/*.sh | grep -v '^[^:]*:[0-9]*:[[:space:]]*#')" ""
}

# Files of at most 500 lines and functions of at most 70 (from the line that names
# the function to its closing brace), the binary's and the tests' alike; shell
# functions of at most 70 too, in every script of the tree.
t_length() {
	local c_files=(lib/*.[ch] src/*/*.[ch] test/sim/*.[ch] test/unit/*.[ch] test/unit/*/*.[ch] test/*.c)
	local sh_files=(module-setup.sh hook/*.sh test/*.sh bench/*.sh scripts/*.sh image/*.sh .ci/run
		initramfs-tools/hooks/* initramfs-tools/scripts/*/*)
	expect_eq "no C file over 500 lines" "$(wc -l "${c_files[@]}" | awk '$2 != "total" && $1 > 500 {print $2 " (" $1 ")"}')" ""
	expect_eq "no function over 70 lines" "$(awk '
		FNR == 1 { named = 0 }
		/^[a-zA-Z].*\(/ && !/;[[:space:]]*$/ { named = FNR; name = $0 }
		/^\{/ && named { start = named }
		/^\}/ && start { if (FNR - start + 1 > 70) printf "%s:%d (%d lines) ", FILENAME, start, FNR - start + 1; start = 0 }
	' "${c_files[@]}")" ""
	expect_eq "no shell function over 70 lines" "$(sh_functions "${sh_files[@]}" |
		awk '$3 > 70 { printf "%s %s (%d lines) ", $1, $2, $3 }')" ""
}

# sh_functions FILE...: "FILE:LINE NAME LINES" for each shell function, from the line
# that names it to the "}" (or ")") at that line's indentation which closes it; a
# function of one line is left out
sh_functions() {
	awk '
	FNR == 1 { n = 0 }
	/^[[:space:]]*(function[[:space:]]+)?[A-Za-z_][A-Za-z0-9_:-]*[[:space:]]*\(\)[[:space:]]*[{(]?[[:space:]]*(#.*)?$/ {
		n++
		start[n] = FNR
		indent[n] = $0
		sub(/[^[:space:]].*$/, "", indent[n])
		name[n] = $0
		sub(/^[[:space:]]*(function[[:space:]]+)?/, "", name[n])
		sub(/[[:space:]]*\(.*$/, "", name[n])
		next
	}
	{
		for (i = n; i >= 1; i--) {
			rest = substr($0, length(indent[i]) + 1)
			if (substr($0, 1, length(indent[i])) == indent[i] && rest ~ /^[})]([[:space:];|&<>].*)?$/) {
				printf "%s:%d %s %d\n", FILENAME, start[i], name[i], FNR - start[i] + 1
				n = i - 1
				break
			}
		}
	}' "$@"
}

# The binary goes into every initramfs: libnuma's objects that hugepar does not call
# (affinity.c: regular expressions, scanf, getaddrinfo) must not come with it.
t_size() {
	local size
	(cd "$TOP" && make -s hugepar >/dev/null) || { check "make hugepar" false; return; }
	size=$(stat -c %s "$TOP/build/hugepar.stripped")
	check "stripped: $size bytes, under 300 KiB" test "$size" -lt $((300 * 1024))
	expect_eq "no regular expressions, no resolver" \
		"$(nm "$TOP/hugepar" | awk '$3 == "regcomp" || $3 == "getaddrinfo" { print $3 }')" ""
}

t_install() {
	local dracutdir f
	rm -rf "$OUT/install"
	# where 0.2 installed the module: 90hugepar, then 05hugepar
	dracutdir=$(pkg-config --variable=dracutmodulesdir dracut 2>/dev/null || echo /usr/lib/dracut/modules.d)
	for f in 90hugepar 05hugepar; do
		mkdir -p "$OUT/install/$dracutdir/$f"
		touch "$OUT/install/$dracutdir/$f/module-setup.sh"
	done
	if ! make --no-print-directory -s install DESTDIR="$OUT/install" PREFIX=/usr >"$OUT/install.log" 2>&1; then
		fail "make install DESTDIR (see $OUT/install.log)"
		return
	fi
	expect_eq "make install leaves one module, in dracut's range for modules from outside it" \
		"$(cd "$OUT/install/$dracutdir" && ls -d -- *hugepar)" 50hugepar
	for f in usr/sbin/hugepar etc/hugepar.conf usr/share/man/man8/hugepar.8 \
		usr/share/man/man5/hugepar.conf.5 usr/share/man/man7/dracut-hugepar.7 \
		usr/share/man/man7/hugepar-initramfs-tools.7 usr/share/initramfs-tools/hooks/hugepar \
		usr/share/initramfs-tools/scripts/init-premount/hugepar usr/share/doc/hugepar/record.md \
		usr/share/doc/hugepar/examples/hugepar-alerts.rules.yml \
		"$dracutdir/$DRACUT_MODULE/module-setup.sh"; do
		check "make install: $f" test -e "$OUT/install/${f#/}"
	done
	for f in hugepar-verify.service hugepar-initramfs.service; do
		check "make install: the unit $f" sh -c "find '$OUT/install' -name $f | grep -q ."
	done
	check "binary is static" sh -c "file -L hugepar | grep -q 'statically linked'"
	make --no-print-directory -s uninstall DESTDIR="$OUT/install" PREFIX=/usr >>"$OUT/install.log" 2>&1
	expect_eq "make uninstall: only the settings are left" \
		"$(cd "$OUT/install" && find . -type f | sort)" "./etc/hugepar.conf"
}

# The cross build: make ARCH=arm64 gives a static aarch64 binary whose plans are the
# goldens' (run under qemu-user), and a build given the build machine's uapi headers
# (x86-64 system call numbers, which libnuma would call) stops.
t_cross() {
	local X=$OUT/cross
	rm -rf "$X"
	mkdir -p "$X"
	if make --no-print-directory -s ARCH=arm64 >"$X/build.log" 2>&1; then
		check "make ARCH=arm64: a static aarch64 binary" \
			sh -c "file -L build/arm64/hugepar | grep -q 'ARM aarch64.*statically linked'"
		cross_plans "$X"
	else
		fail "make ARCH=arm64 (see $X/build.log)"
		tail -n 5 "$X/build.log"
	fi
	make --no-print-directory -s ARCH=arm64 BUILD="$X/wrong" SYSROOT=build/arm64/sysroot \
		MULTIARCH="$(gcc -print-multiarch)" UAPI=/usr/include >"$X/wrong.log" 2>&1
	expect_eq "the build machine's uapi headers stop the build" \
		"$? $(grep -c "static assertion failed: \"asm/unistd.h is not" "$X/wrong.log")" "2 4"
}
# cross_plans DIR: the arm64 binary's plans of two machines, under qemu-user
cross_plans() {
	local qemu m
	qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64)
	if [ -z "$qemu" ]; then
		fail "no qemu-aarch64 (qemu-user-static, make deps)"
		return
	fi
	for m in arm64-16k 2n-144cpu; do
		"$TOP/test/mkfixture.sh" "test/machines/$m.desc" "$1/$m"
		"$qemu" build/arm64/hugepar plan --sysroot "$1/$m" --config /dev/null --json \
			>"$1/$m.json" 2>&1
		check "the arm64 binary's plan of $m is the golden's" \
			cmp -s "$1/$m.json" "test/golden/$m.json"
	done
}

# make hugepar in two copies of the tree (the files git tracks or does not ignore)
# whose paths differ in length, numactl's source linked into each where the Makefile
# looks for it, gives the same binary, stripped or not: nothing of the folder's path
# is compiled in. With -g, as a package build compiles: debug info is where the
# compiler writes the build's paths most, and GCC's code is the same without it.
t_reproducible() {
	local r=$OUT/reproducible d f numactl
	[ -n "${NUMACTL_SRC:-}" ] || [ -f build/src/numactl/libnuma.c ] ||
		scripts/fetch-numactl.sh build/src >/dev/null
	numactl=$(readlink -f "${NUMACTL_SRC:-build/src/numactl}")
	rm -rf "$r"
	for d in a folder-of-a-longer-name; do
		mkdir -p "$r/$d/build/src"
		git ls-files -co --exclude-standard -z | xargs -0 cp -a --parents -t "$r/$d"
		ln -s "$numactl" "$r/$d/build/src/numactl"
		if ! make --no-print-directory -s -C "$r/$d" CFLAGS="-g -O2" \
			NUMACTL_SRC=build/src/numactl hugepar >"$r/$d.log" 2>&1; then
			fail "make hugepar in $r/$d (see $r/$d.log)"
			return
		fi
	done
	for f in hugepar build/hugepar.stripped; do
		check "$f is the same built in either folder" \
			cmp "$r/a/$f" "$r/folder-of-a-longer-name/$f"
	done
	expect_eq "no binary names the folder it was built in" "$(cd "$r" && grep -l -a \
		-e "$r/a/" -e "$r/folder-of-a-longer-name/" -- */hugepar */build/hugepar.stripped)" ""
}

# Docs and comments name files of the tree (test/check-paths.py): each must be there
t_paths() {
	expect_eq "every path named exists (test/check-paths.py)" \
		"$(/usr/bin/python3 test/check-paths.py 2>&1 | tr '\n' ' ')" ""
}

# scripts/deps.sh on a machine where a dpkg run was cut off (a package half
# configured): it runs dpkg --configure -a before apt-get, which would refuse
# ("dpkg was interrupted"). dpkg, dpkg-query, apt-get and clang are stand-ins on PATH
# that write what they are asked into a log.
t_deps() {
	local d=$OUT/deps
	rm -rf "$d"
	mkdir -p "$d/bin"
	cat >"$d/bin/dpkg" <<-'EOF'
	#!/bin/sh
	echo "dpkg $*" >>"$DEPS_LOG"
	case "$1" in
	--audit) [ -e "$DEPS_DIR/configured" ] || echo " initramfs-tools   half configured" ;;
	--configure) touch "$DEPS_DIR/configured" ;;
	esac
	EOF
	cat >"$d/bin/dpkg-query" <<-'EOF'
	#!/bin/sh
	for p; do :; done
	if [ "$p" = initramfs-tools ] && [ ! -e "$DEPS_DIR/configured" ]; then
		printf 'install ok half-configured'
	else
		printf 'install ok installed'
	fi
	EOF
	cat >"$d/bin/apt-get" <<-'EOF'
	#!/bin/sh
	echo "apt-get $*" >>"$DEPS_LOG"
	[ -e "$DEPS_DIR/configured" ] || { echo "E: dpkg was interrupted" >&2; exit 100; }
	EOF
	printf '#!/bin/sh\necho 14.0.6\n' >"$d/bin/clang"
	chmod +x "$d/bin/"*
	if PATH=$d/bin:$PATH DEPS_DIR=$d DEPS_LOG=$d/log sh scripts/deps.sh >"$d/out" 2>&1; then
		pass "scripts/deps.sh exits 0"
	else
		fail "scripts/deps.sh (see $d/out)"
	fi
	expect_eq "dpkg --configure -a finishes the package, no apt-get for it" \
		"$(grep -v -- '--audit\|update' "$d/log" | sed 's/ -y -qq --no-install-recommends//')" \
		"dpkg --configure -a"
}

# TESTS=list reads the unit tests from their sources: the same list as the binary's,
# every test with a description
t_unit_list() {
	local src=$OUT/unit-list.sources built=$OUT/unit-list.built
	test/unit/list.sh >"$src"
	if ! make --no-print-directory -s build/unit >"$OUT/unit-list.log" 2>&1; then
		fail "make build/unit (see $OUT/unit-list.log)"
		return
	fi
	build/unit --list >"$built"
	check "test/unit/list.sh names unit tests" test -s "$src"
	expect_eq "test/unit/list.sh = build/unit --list" "$(diff "$src" "$built")" ""
	expect_eq "every unit test has a description" "$(awk -F '\t' '$2 == "" { print $1 }' "$src")" ""
}

run_cases
echo "tree: $(summary_line)"
