#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A fresh Debian machine, 12 and 13: for each, a minimal root made
# with mmdebstrap (nothing in it but Debian's minbase and make, which the README's
# commands are typed into), the tree copied in, `make deps`, then the suites that need
# neither QEMU nor live huge pages: unit, golden, command line, simulated kernel and
# the Debian package. A tool or a
# Python module that scripts/deps.sh does not install fails here, whatever this
# machine has installed by hand. Root only.
# Cases: root (the minbase root), deps (make deps in it), build (make in it), and one
# per suite run in it (unit golden cli engine package); each needs the steps before
# it, which only the selected cases do; each case is run in each release.
#   FRESH_SUITE="trixie"   the releases, by suite (default "bookworm trixie": Debian
#                  13, and 12 while the machines this suite runs on are 12)
#   FRESH_KEEP=1   keep the roots (test/out/fresh/SUITE/root) after a run that passed
#                  too
. "$(dirname "$0")/lib.sh"

RELEASES=${FRESH_SUITE:-bookworm trixie}
# Downloaded packages are kept between runs (build/fresh-archives): a cache of
# Debian's .debs, not an install; each run's root starts from minbase.
CACHE=$TOP/build/fresh-archives
# the suites run in the root: the case of each is its name (test/golden.sh: golden)
SUITES="build/unit test/golden.sh test/cli.sh test/engine.sh test/package.sh"
case_of() { local c=${1##*/}; echo "${c%.sh}"; }
CASES="root deps build"
for s in $SUITES; do CASES="$CASES $(case_of "$s")"; done

# TESTS=list (HUGEPAR_LIST) names the cases, and needs none of this
if [ -z "${HUGEPAR_LIST:-}" ] &&
	{ [ "$(id -u)" != 0 ] || ! command -v mmdebstrap >/dev/null || ! command -v unshare >/dev/null; }; then
	skip "fresh: needs root, mmdebstrap and unshare (make deps)"
	echo "fresh: $(summary_line)"
	exit 0
fi
# shellcheck disable=SC2086
any_wanted $CASES || { echo "fresh: $(summary_line)"; exit 0; }

rm -rf "${OUT:?}/fresh"
mkdir -p "$CACHE"

# fresh SUITE: every selected case in a fresh root of SUITE; its checks name it
fresh() {
	local SUITE=$1 F=$OUT/fresh/$1 ROOT=$OUT/fresh/$1/root start line c s
	mkdir -p "$F"
	"$TOP/scripts/apt-sources.sh" "$SUITE" >"$F/sources.list"

	start=$(date +%s)
	if mmdebstrap --variant=minbase --include=make --skip=cleanup/apt/cache \
		"$SUITE" "$ROOT" "$F/sources.list" >"$F/mmdebstrap.log" 2>&1; then
		pass "root: mmdebstrap: a $SUITE root with minbase and make ($(($(date +%s) - start)) s)"
	else
		tail -n 20 "$F/mmdebstrap.log"
		# said once, under the first case selected
		for c in $CASES; do wanted "$c" && { fail "$c: $SUITE: mmdebstrap (see $F/mmdebstrap.log)"; break; }; done
		return
	fi
	check "root: $SUITE: the fresh root has no python3" test ! -e "$ROOT/usr/bin/python3"

	# The tree as a clone has it: its git directory, and the files git tracks or does
	# not ignore (this tree's own changes included); no build output, no fetched
	# source.
	mkdir -p "$ROOT/src/hugepar"
	(cd "$TOP" && git ls-files -co --exclude-standard -z | xargs -0 cp -a --parents -t "$ROOT/src/hugepar")
	cp -a "$(cd "$TOP" && git rev-parse --absolute-git-dir)" "$ROOT/src/hugepar/.git"

	# shellcheck disable=SC2086
	if any_wanted ${CASES#root }; then
		start=$(date +%s)
		if inside "$ROOT" "make deps" >"$F/deps.log" 2>&1; then
			pass "deps: $SUITE: make deps in the fresh root ($(($(date +%s) - start)) s)"
		else
			fail "deps: $SUITE: make deps in the fresh root (see $F/deps.log)"
			wanted deps && tail -n 20 "$F/deps.log"
		fi
		check "deps: $SUITE: make deps gave the fresh root /usr/bin/python3" test -x "$ROOT/usr/bin/python3"
	fi

	# The suites, each as run.sh runs it; their lines are shown with a "fresh:"
	# prefix and each suite's count is one check here.
	# shellcheck disable=SC2086
	if any_wanted ${CASES#root deps }; then
		start=$(date +%s)
		inside "$ROOT" "make -s hugepar hugepar-test build/unit build/simctl" >"$F/build.log" 2>&1
		check "build: $SUITE: make: the binary, the test build and the unit tests build in the fresh root" \
			test -x "$ROOT/src/hugepar/hugepar" -a -x "$ROOT/src/hugepar/build/unit"
		for s in $SUITES; do
			c=$(case_of "$s")
			wanted "$c" || continue
			inside "$ROOT" "$s" >"$F/$(basename "$s").log" 2>&1
			line=$(tail -n 1 "$F/$(basename "$s").log")
			grep '^FAIL' "$F/$(basename "$s").log" | sed "s/^/     fresh $SUITE: /"
			if [[ $line =~ ([0-9]+)\ passed,\ 0\ failed ]] && [ "${BASH_REMATCH[1]}" -gt 0 ]; then
				pass "$c: fresh $SUITE root: $s: $line"
			else
				fail "$c: fresh $SUITE root: $s: ${line:-no count} (see $F/$(basename "$s").log)"
			fi
		done
		echo "     fresh $SUITE root: the suites took $(($(date +%s) - start)) s"
	fi
	# a failed run keeps the root, for its logs (test/out/fresh/SUITE/root/src/hugepar/test/out)
	[ -n "${FRESH_KEEP:-}" ] || [ "$FAILED" != 0 ] || rm -rf "$ROOT"
}

# inside ROOT COMMAND: run COMMAND in ROOT as root, in a mount namespace of its own
# (the mounts go with it), with a plain environment and the root's own PATH.
inside() {
	unshare -m --propagation private -- sh -c '
		r=$1; c=$2; a=$3
		mount --rbind /dev "$r/dev" && mount -t proc proc "$r/proc" &&
		mount -t sysfs sysfs "$r/sys" && mount -t tmpfs tmpfs "$r/run" &&
		mount -t tmpfs tmpfs "$r/tmp" && mount --bind "$a" "$r/var/cache/apt/archives" || exit 1
		cp /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null
		exec chroot "$r" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 HUGEPAR_FRESH=1 \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			/bin/bash -c "cd /src/hugepar && $c"' sh "$1" "$2" "$CACHE"
}

for r in $RELEASES; do
	fresh "$r"
done
echo "fresh: $(summary_line)"
