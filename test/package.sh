#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package: built without network (in a network namespace of its own),
# checked with lintian, installed on this machine, its files and an initramfs made
# through its hooks (initramfs-tools and dracut) checked, then removed and purged;
# nothing of it may stay behind; and cross-built for arm64. Root only; skipped when
# hugepar is installed as a package already (it is not ours to remove). The cases
# (build, lintian, install, cross) need the build, which the first of them makes;
# two run at once.
. "$(dirname "$0")/lib.sh"

P=$OUT/pkg
V=$("$TOP/scripts/version.sh")
DEB=$P/hugepar_$V-1_$(dpkg --print-architecture).deb
# shellcheck disable=SC2034 # (once() reads it)
ONCE=$OUT/pkg-once
# the kernel the initramfs builds are for: Debian's newest installed (6.1 on 12, 6.12
# on 13), which need not be the one running
# where debian/rules puts the unit on this release (/usr/lib from Debian 13)
UNITDIR=$(cd "$TOP" && make -s -f debian/rules -pn 2>/dev/null | sed -n 's/^UNITDIR := //p')
KVER=$(cd /lib/modules && find . -mindepth 2 -maxdepth 2 -name modules.dep | cut -d/ -f2 | sort -V | tail -n 1)

requires() {
	if [ "$(id -u)" != 0 ] || ! command -v dpkg-buildpackage >/dev/null || ! command -v unshare >/dev/null; then
		echo "need root, dpkg-buildpackage and unshare (make deps)"
		return 1
	fi
	if dpkg-query -W -f='${Status}' hugepar 2>/dev/null | grep -q "installed"; then
		echo "hugepar is installed as a package already"
		return 1
	fi
}
prepare() { rm -rf "$P" "$ONCE" "$OUT/pkg-cross"; }

# build_deb: the package, built without network (numactl's source comes first, with
# the network); without this suite's selection: the package's own test step runs
# every unit test
build_deb() {
	[ -f "$TOP/build/src/numactl/debian-version" ] || "$TOP/scripts/fetch-numactl.sh" "$TOP/build/src" >/dev/null
	mkdir -p "$P/hugepar-$V"
	(cd "$TOP" && git ls-files -co --exclude-standard -z | xargs -0 cp -a --parents -t "$P/hugepar-$V")
	if ! (cd "$P/hugepar-$V" && unshare -n -- env -u HUGEPAR_CASES -u HUGEPAR_LIST \
		NUMACTL_SRC="$TOP/build/src/numactl" dpkg-buildpackage -us -uc -b) >"$P/build.log" 2>&1; then
		tail -20 "$P/build.log"
		return 1
	fi
	dpkg-deb -c "$DEB" | awk '{print $6}' | sed 's|^\./|/|' >"$P/files"
}
built() {
	once deb build_deb && return 0
	fail "dpkg-buildpackage (see $P/build.log)"
	return 1
}

t_build() {
	built || return
	pass "dpkg-buildpackage -us -uc -b, without network"
	check "the .deb is there: $(basename "$DEB")" test -f "$DEB"
	expect_eq "Built-Using names musl and numactl" "$(dpkg-deb -f "$DEB" Built-Using)" \
		"musl (= $(dpkg-query -W -f='${Version}' musl-dev)), numactl (= $(cat "$TOP/build/src/numactl/debian-version"))"
	for u in hugepar-verify hugepar-initramfs; do
		check "the postinst enables $u.service (found in $UNITDIR)" sh -c \
			"dpkg-deb --ctrl-tarfile '$DEB' | tar -xO ./postinst | grep -q 'deb-systemd-helper.*$u.service'"
	done
	check "the update-initramfs trigger" sh -c "dpkg-deb --ctrl-tarfile '$DEB' | tar -xO ./triggers | grep -q 'activate-noawait update-initramfs'"
	expect_eq "conffiles" "$(dpkg-deb --ctrl-tarfile "$DEB" | tar -xO ./conffiles)" /etc/hugepar.conf
	for f in /usr/sbin/hugepar /etc/hugepar.conf /etc/hugepar.conf.d/ \
		/usr/lib/dracut/modules.d/$DRACUT_MODULE/module-setup.sh /usr/lib/dracut/modules.d/$DRACUT_MODULE/hugepar.service \
		/usr/lib/dracut/modules.d/$DRACUT_MODULE/hugepar-ignition.service \
		/usr/lib/dracut/dracut.conf.d/50-hugepar.conf \
		/usr/share/initramfs-tools/hooks/hugepar /usr/share/initramfs-tools/scripts/init-premount/hugepar \
		/usr/share/initramfs-tools/scripts/init-bottom/hugepar /usr/share/man/man8/hugepar.8.gz \
		/usr/share/man/man5/hugepar.conf.5.gz /usr/share/man/man7/dracut-hugepar.7.gz \
		/usr/share/man/man7/hugepar-initramfs-tools.7.gz /usr/share/doc/hugepar/record.md \
		/usr/share/doc/hugepar/threads.md /usr/share/doc/hugepar/services.md \
		/usr/share/doc/hugepar/examples/kubelet.conf \
		/usr/share/doc/hugepar/examples/hugepar-alerts.rules.yml "$UNITDIR/hugepar-verify.service" \
		"$UNITDIR/hugepar-initramfs.service" \
		/usr/share/doc/hugepar/copyright; do
		check "in the package: $f" grep -qxF "$f" "$P/files"
	done
}
t_lintian() {
	built || return
	if ! command -v lintian >/dev/null; then
		skip "lintian is not installed"
	elif lintian --fail-on error,warning "$P"/hugepar_*.changes 2>&1 |
		grep -v "root privileges is not recommended" >"$P/lintian.log"; [ "${PIPESTATUS[0]}" = 0 ]; then
		pass "no error, no warning"
	else
		fail "(see $P/lintian.log)"
		cat "$P/lintian.log"
	fi
}

# install, use, remove, purge
# old_deb: a stand-in of 0.2, the package as it installed its dracut module
# (05hugepar) and nothing else, in $P/old.deb
old_deb() {
	local o=$P/old
	mkdir -p "$o/DEBIAN" "$o/usr/lib/dracut/modules.d/05hugepar"
	printf '%s\n' "Package: hugepar" "Version: 0.2-1" "Architecture: $(dpkg --print-architecture)" \
		"Maintainer: hugepar developers <hugepar-devel@lists.hugepar.org>" \
		"Description: a stand-in of 0.2, for the upgrade test" >"$o/DEBIAN/control"
	cp "$TOP/module-setup.sh" "$o/usr/lib/dracut/modules.d/05hugepar/"
	dpkg-deb --root-owner-group -b "$o" "$P/old.deb" >/dev/null
}

t_install() {
	local dir
	built || return
	# a run of this test stopped midway leaves the package installed: start clean (a
	# dpkg run it cut off is finished by scripts/deps.sh, which make check runs first)
	if dpkg-query -W hugepar >/dev/null 2>&1; then
		dpkg -P hugepar >/dev/null 2>&1 || :
	fi
	# an upgrade from 0.2: the old module's directory goes
	if old_deb && dpkg -i "$P/old.deb" >"$P/install.log" 2>&1; then
		pass "dpkg -i of a stand-in of 0.2, with the module in 05hugepar"
	else
		fail "dpkg -i of a stand-in of 0.2 (see $P/install.log)"
	fi
	if dpkg -i "$DEB" >>"$P/install.log" 2>&1; then pass "dpkg -i"; else fail "dpkg -i (see $P/install.log)"; fi
	dir=$(pkg-config --variable=dracutmodulesdir dracut 2>/dev/null || echo /usr/lib/dracut/modules.d)
	expect_eq "the upgrade leaves one dracut module, in 50-59" "$(cd "$dir" && ls -d -- *hugepar)" "$DRACUT_MODULE"
	check "hugepar --version" sh -c "hugepar --version | grep -qx 'hugepar $V'"
	check "man page" test -f /usr/share/man/man8/hugepar.8.gz
	if [ -d /run/systemd/system ]; then
		check "hugepar-verify.service enabled" systemctl -q is-enabled hugepar-verify.service
		check "hugepar-initramfs.service enabled" systemctl -q is-enabled hugepar-initramfs.service
	fi
	# (with the machine's initramfs.conf but MODULES=list: the kernel's modules take
	# most of a build, 67 s of 72 here, and tell nothing of the hooks)
	mkdir -p "$P/itools-conf/scripts"
	sed 's/^MODULES=.*/MODULES=list/' /etc/initramfs-tools/initramfs.conf >"$P/itools-conf/initramfs.conf"
	if mkinitramfs -d "$P/itools-conf" -o "$P/initrd-itools.img" "$KVER" >"$P/mkinitramfs.log" 2>&1; then
		lsinitramfs "$P/initrd-itools.img" >"$P/itools.list"
		for f in usr/sbin/hugepar scripts/init-premount/hugepar scripts/init-bottom/hugepar etc/hugepar.conf; do
			check "mkinitramfs through the installed hook: $f" grep -qx "$f" "$P/itools.list"
		done
	else
		fail "mkinitramfs (see $P/mkinitramfs.log)"
	fi
	# dracut takes the module from the package's dracut.conf.d file, unasked, as
	# initramfs-tools takes its hooks; --omit leaves it out (uncompressed: 33 s
	# instead of 81 here, the same files)
	if dracut --quiet --force --no-hostonly --no-compress "$P/initrd-dracut.img" "$KVER" >"$P/dracut.log" 2>&1; then
		lsinitrd "$P/initrd-dracut.img" >"$P/dracut.list" 2>/dev/null
		for f in usr/sbin/hugepar etc/hugepar.conf; do
			check "dracut, with nothing written for hugepar: $f" grep -q " $f$" "$P/dracut.list"
		done
	else
		fail "dracut (see $P/dracut.log)"
	fi
	# (without the kernel's modules, which take most of a build and tell nothing here)
	if dracut --quiet --force --no-hostonly --no-kernel --omit hugepar "$P/initrd-omit.img" "$KVER" >"$P/omit.log" 2>&1; then
		lsinitrd "$P/initrd-omit.img" >"$P/omit.list" 2>/dev/null
		check "dracut --omit hugepar leaves it out" sh -c "! grep -q ' usr/sbin/hugepar$' '$P/omit.list'"
		check "dracut --omit hugepar: the rest is there" grep -q ' usr/lib/systemd/systemd$\| init$' "$P/omit.list"
	else
		fail "dracut --omit hugepar (see $P/omit.log)"
	fi
	if dpkg -r hugepar >"$P/remove.log" 2>&1; then pass "dpkg -r"; else fail "dpkg -r (see $P/remove.log)"; fi
	left=$(grep -v '/$' "$P/files" | while read -r f; do [ -e "$f" ] && echo "$f"; done)
	expect_eq "removed: only the conffile is left" "$left" /etc/hugepar.conf
	if dpkg -P hugepar >"$P/purge.log" 2>&1; then pass "dpkg -P"; else fail "dpkg -P (see $P/purge.log)"; fi
	left=$(while read -r f; do [ -e "$f" ] && { [ ! -d "$f" ] || [ "$f" = /etc/hugepar.conf.d/ ]; } && echo "$f"; done <"$P/files")
	expect_eq "purged: nothing is left" "$left" ""
}

# The arm64 package, cross-built as Debian's builders do (dpkg-buildpackage -a arm64
# -Pcross) without network, in a root of this release with amd64 and arm64 made for
# it (the cross compiler, musl-dev:arm64 and linux-libc-dev:arm64: this machine's
# dpkg is not told of arm64), by scripts/cross-deb.sh, which image/build.sh uses
# too. Not in a fresh root (test/fresh.sh): it makes a root.
t_cross() {
	built || return
	X=$OUT/pkg-cross
	rm -rf "$X"
	mkdir -p "$X"
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	rc=fresh
	if [ -z "${HUGEPAR_FRESH:-}" ]; then
		rc=0
		"$TOP/scripts/cross-deb.sh" "$X" "$P/hugepar-$V" "$TOP/build/src/numactl" "$codename" >/dev/null || rc=$?
	fi
	if [ "$rc" = fresh ]; then
		skip "in a fresh root (it makes a root of its own)"
	elif [ "$rc" = 3 ]; then
		fail "a $codename root with arm64 (see $X/mmdebstrap.log)"
	else
		if [ "$rc" = 0 ]; then
			pass "dpkg-buildpackage -a arm64 -Pcross, without network"
		else
			fail "dpkg-buildpackage -a arm64 (see $X/build.log)"
			tail -n 10 "$X/build.log"
		fi
		XDEB=$X/root/src/hugepar_$V-1_arm64.deb
		expect_eq "the .deb: architecture, Built-Using" \
			"$(dpkg-deb -f "$XDEB" Architecture Built-Using 2>&1 | tr '\n' ' ')" \
			"Architecture: arm64 Built-Using: musl (= $(chroot "$X/root" dpkg-query -W -f='${Version}' musl-dev:arm64)), numactl (= $(cat "$TOP/build/src/numactl/debian-version")) "
		rm -rf "$X/deb"
		dpkg-deb -x "$XDEB" "$X/deb" 2>/dev/null
		check "its binary is a static aarch64 one" \
			sh -c "file -L '$X/deb/usr/sbin/hugepar' | grep -q 'ARM aarch64.*statically linked'"
		if command -v lintian >/dev/null; then
			lintian --fail-on error,warning "$XDEB" 2>&1 | grep -v "root privileges is not recommended" >"$X/lintian.log"
			expect_eq "lintian: no error, no warning" "${PIPESTATUS[0]} $(cat "$X/lintian.log")" "0 "
		fi
	fi
	[ "$FAILED" != 0 ] || rm -rf "$X/root"
}
tcase build "dpkg-buildpackage without network: what the .deb holds, its maintainer scripts and Built-Using"
tcase lintian "lintian: no error, no warning"
tcase install "installed with dpkg, an initramfs of each generator made through it, removed and purged with nothing left"
tcase cross "cross-built for arm64 as Debian builders do (-a arm64 -Pcross), without network"
# shellcheck disable=SC2034 # (run_cases reads it)
TC_JOBS=2
run_cases
echo "package: $(summary_line)"
