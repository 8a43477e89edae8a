#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A fresh Debian machine, 12 and 13: for each, a minimal root made with mmdebstrap
# (nothing in it but Debian's minbase and make, which the README's commands are typed
# into), the tree copied in, `make deps`, then the suites that need neither QEMU nor
# live huge pages: unit, golden, command line, the alerting rules (promtool, which
# make deps fetches), simulated kernel and the Debian package. A tool or a Python
# module that make deps does not install fails here, whatever this machine has
# installed by hand. Root only.
# Cases, for each release R: R-root (the minbase root), R-deps (make deps in it),
# R-build (make in it), and one per suite run in it (R-unit R-golden R-cli R-alerts
# R-engine R-package); each needs the steps before it, which only the selected cases
# do, by the first that needs them. Two releases' cases run at once (TC_JOBS, as many
# as this machine has CPUs, up to 2): their roots are made side by side.
#   FRESH_SUITE="trixie"   the releases, by suite (default "bookworm trixie": Debian
#                  12 and 13)
#   FRESH_KEEP=1   keep the roots (test/out/fresh/SUITE/root) after a run that passed
#                  too
. "$(dirname "$0")/lib.sh"

RELEASES=${FRESH_SUITE:-bookworm trixie}
# Downloaded packages are kept between runs (build/fresh-archives): a cache of
# Debian's .debs, not an install; each run's root starts from minbase. Each release
# has one of its own (two apt runs at once do not share one).
CACHE=$TOP/build/fresh-archives
# the suites run in the root: the case of each is its name (test/golden.sh: golden)
SUITES="build/unit test/golden.sh test/cli.sh test/alerts.sh test/engine.sh test/package.sh"
case_of() { local c=${1##*/}; echo "${c%.sh}"; }
# shellcheck disable=SC2034 # (once() reads it)
ONCE=$OUT/fresh/once

# make_root SUITE: a minbase root of SUITE with make, and this tree in it as a clone
# has it: its git directory, and the files git tracks or does not ignore (this tree's
# own changes included); no build output, no fetched source
make_root() {
	local F=$OUT/fresh/$1 ROOT=$OUT/fresh/$1/root start=$SECONDS
	rm -rf "$F"
	mkdir -p "$F" "$CACHE/$1"
	"$TOP/scripts/apt-sources.sh" "$1" >"$F/sources.list"
	if ! mmdebstrap --variant=minbase --include=make --skip=cleanup/apt/cache \
		"$1" "$ROOT" "$F/sources.list" >"$F/mmdebstrap.log" 2>&1; then
		tail -n 20 "$F/mmdebstrap.log"
		fail "mmdebstrap: a $1 root (see $F/mmdebstrap.log)"
		return 1
	fi
	pass "mmdebstrap: a $1 root with minbase and make ($((SECONDS - start)) s)"
	mkdir -p "$ROOT/src/hugepar"
	(cd "$TOP" && git ls-files -co --exclude-standard -z | xargs -0 cp -a --parents -t "$ROOT/src/hugepar")
	cp -a "$(cd "$TOP" && git rev-parse --absolute-git-dir)" "$ROOT/src/hugepar/.git"
	# the root's own initramfs, which make deps' kernel package makes and nothing
	# boots, and those the package suite's triggers make again: without the kernel's
	# modules (5 s instead of 67 each)
	mkdir -p "$ROOT/etc/initramfs-tools/conf.d"
	echo "MODULES=list" >"$ROOT/etc/initramfs-tools/conf.d/90-hugepar-fresh.conf"
}
# deps SUITE: make deps in the root
deps() {
	local F=$OUT/fresh/$1 start=$SECONDS
	once "root-$1" make_root "$1" || { fail "no $1 root"; return 1; }
	if inside "$1" "make deps" >"$F/deps.log" 2>&1; then
		pass "make deps in the fresh $1 root ($((SECONDS - start)) s)"
	else
		fail "make deps in the fresh $1 root (see $F/deps.log)"
		tail -n 20 "$F/deps.log"
		return 1
	fi
}
# build SUITE: the binary, the test build and the unit tests, made in the root
build() {
	local F=$OUT/fresh/$1 ROOT=$OUT/fresh/$1/root
	once "deps-$1" deps "$1" || { fail "make deps failed in the $1 root"; return 1; }
	inside "$1" "make -s hugepar hugepar-test build/unit build/simctl" >"$F/build.log" 2>&1
	if [ -x "$ROOT/src/hugepar/hugepar" ] && [ -x "$ROOT/src/hugepar/build/unit" ]; then
		pass "make: the binary, the test build and the unit tests build in the fresh $1 root"
	else
		fail "make in the fresh $1 root (see $F/build.log)"
		return 1
	fi
}

# root_case SUITE: the fresh root has no python3 of its own; make deps gives it one
root_case() {
	once "root-$1" make_root "$1" || return
	check "the fresh $1 root has no python3" test ! -e "$OUT/fresh/$1/root/usr/bin/python3"
}
deps_case() {
	once "deps-$1" deps "$1" || return
	check "make deps gave the fresh $1 root /usr/bin/python3" test -x "$OUT/fresh/$1/root/usr/bin/python3"
}
build_case() { once "build-$1" build "$1"; }
# suite_case SUITE SCRIPT: SCRIPT in the root, as run.sh runs it; its FAIL lines are
# shown, and its count is one check here
suite_case() {
	local F=$OUT/fresh/$1 log line
	log=$F/$(basename "$2").log
	once "build-$1" build "$1" || { fail "the build failed in the $1 root"; return 1; }
	inside "$1" "$2" >"$log" 2>&1
	line=$(tail -n 1 "$log")
	grep '^FAIL' "$log" | sed "s/^/     fresh $1: /"
	if counts "$line" && [ "$C_FAILED" = 0 ] && [ "$C_PASSED" -gt 0 ]; then
		pass "$2 in the fresh $1 root: $line"
	else
		fail "$2 in the fresh $1 root: ${line:-no count} (see $log)"
	fi
}

# inside SUITE COMMAND: run COMMAND in SUITE's root as root, in a mount namespace of
# its own (the mounts go with it), with a plain environment and the root's own PATH.
inside() {
	unshare -m --propagation private -- sh -c '
		r=$1; c=$2; a=$3
		mount --rbind /dev "$r/dev" && mount -t proc proc "$r/proc" &&
		mount -t sysfs sysfs "$r/sys" && mount -t tmpfs tmpfs "$r/run" &&
		mount -t tmpfs tmpfs "$r/tmp" && mount --bind "$a" "$r/var/cache/apt/archives" || exit 1
		cp /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null
		exec chroot "$r" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 HUGEPAR_FRESH=1 \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			/bin/bash -c "cd /src/hugepar && $c"' sh "$OUT/fresh/$1/root" "$2" "$CACHE/$1"
}

# The releases' cases, interleaved: each step of both before the next. The unit,
# golden, engine and package suites, which make check runs on this machine itself,
# are check-all's in the fresh root of this machine's own release (their tools come
# from the same scripts/deps.sh list in the other's); its root, make deps, make, the
# command-line suite (the Python modules of the release) and the alerts suite (the
# release's promtool) stay in make check.
host=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
for step in root deps build $SUITES; do
	for r in $RELEASES; do
		case $step in
		root) tcase "$r-root" "Debian $r: a minbase root with make, this tree in it" root_case "$r" ;;
		deps) tcase "$r-deps" "Debian $r: make deps in the fresh root gives every tool the tests use" deps_case "$r" ;;
		build) tcase "$r-build" "Debian $r: make builds the binary, the test build and the unit tests" build_case "$r" ;;
		build/unit | test/golden.sh | test/engine.sh | test/package.sh)
			if [ "$r" = "$host" ]; then add=tcase_long; else add=tcase; fi
			$add "$r-$(case_of "$step")" "Debian $r: $step in the fresh root passes" suite_case "$r" "$step"
			;;
		*) tcase "$r-$(case_of "$step")" "Debian $r: $step in the fresh root passes" suite_case "$r" "$step" ;;
		esac
	done
done

requires() {
	[ "$(id -u)" = 0 ] && command -v mmdebstrap >/dev/null && command -v unshare >/dev/null && return 0
	echo "needs root, mmdebstrap and unshare (make deps)"
	return 1
}
prepare() { rm -rf "${OUT:?}/fresh"; }

# shellcheck disable=SC2034 # (run_cases reads it)
TC_JOBS=${FRESH_JOBS:-$(n=$(nproc); echo $((n > 2 ? 2 : n)))}
run_cases
# a failed run keeps the roots, for their logs (test/out/fresh/SUITE/root/src/hugepar/test/out)
[ -n "${FRESH_KEEP:-}" ] || [ "$FAILED" != 0 ] || rm -rf "$OUT"/fresh/*/root
echo "fresh: $(summary_line)"
