#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package: built without network (in a network namespace of its own),
# checked with lintian, installed on this machine, its files and an initramfs made
# through its hooks (initramfs-tools and dracut) checked, then removed and purged;
# nothing of it may stay behind. Root only; skipped when hugepar is installed as a
# package already (it is not ours to remove).
. "$(dirname "$0")/lib.sh"

P=$OUT/pkg
V=$(sed -n 's/^#define HUGEPAR_VERSION "\(.*\)"$/\1/p' "$TOP/src/version.h")
DEB=$P/hugepar_$V-1_$(dpkg --print-architecture).deb
KVER=$(cd /lib/modules && ls -d -- 6.1.*-amd64 2>/dev/null | sort -V | tail -n 1)

if [ "$(id -u)" != 0 ] || ! command -v dpkg-buildpackage >/dev/null || ! command -v unshare >/dev/null; then
	skip "package tests: need root, dpkg-buildpackage and unshare (make deps)"
	echo "package: $(summary_line)"
	exit 0
fi
if dpkg-query -W -f='${Status}' hugepar 2>/dev/null | grep -q "installed"; then
	skip "package tests: hugepar is installed as a package already"
	echo "package: $(summary_line)"
	exit 0
fi

# numactl's source comes first, with the network; the build itself has none
[ -f "$TOP/build/src/numactl/debian-version" ] || "$TOP/scripts/fetch-numactl.sh" "$TOP/build/src" >/dev/null
rm -rf "$P"
mkdir -p "$P/hugepar-$V"
(cd "$TOP" && git ls-files -co --exclude-standard -z | xargs -0 cp -a --parents -t "$P/hugepar-$V")
if (cd "$P/hugepar-$V" && unshare -n -- env NUMACTL_SRC="$TOP/build/src/numactl" \
	dpkg-buildpackage -us -uc -b) >"$P/build.log" 2>&1; then
	pass "dpkg-buildpackage -us -uc -b, without network"
else
	fail "dpkg-buildpackage (see $P/build.log)"
	tail -20 "$P/build.log"
	echo "package: $(summary_line)"
	exit 0
fi
check "the .deb is there: $(basename "$DEB")" test -f "$DEB"
expect_eq "Built-Using names musl and numactl" "$(dpkg-deb -f "$DEB" Built-Using)" \
	"musl (= $(dpkg-query -W -f='${Version}' musl-dev)), numactl (= $(cat "$TOP/build/src/numactl/debian-version"))"
check "the update-initramfs trigger" sh -c "dpkg-deb --ctrl-tarfile '$DEB' | tar -xO ./triggers | grep -q 'activate-noawait update-initramfs'"
expect_eq "conffiles" "$(dpkg-deb --ctrl-tarfile "$DEB" | tar -xO ./conffiles)" /etc/hugepar.conf
dpkg-deb -c "$DEB" | awk '{print $6}' | sed 's|^\./|/|' >"$P/files"
for f in /usr/sbin/hugepar /etc/hugepar.conf /etc/hugepar.conf.d/ \
	/usr/lib/dracut/modules.d/90hugepar/module-setup.sh /usr/lib/dracut/modules.d/90hugepar/hugepar.service \
	/usr/share/initramfs-tools/hooks/hugepar /usr/share/initramfs-tools/scripts/init-premount/hugepar \
	/usr/share/initramfs-tools/scripts/init-bottom/hugepar /usr/share/man/man8/hugepar.8.gz \
	/usr/share/man/man5/hugepar.conf.5.gz /usr/share/man/man7/dracut-hugepar.7.gz \
	/usr/share/man/man7/hugepar-initramfs-tools.7.gz /usr/share/doc/hugepar/record.md \
	/usr/share/doc/hugepar/threads.md /usr/share/doc/hugepar/services.md \
	/usr/share/doc/hugepar/examples/kubelet.conf /lib/systemd/system/hugepar-verify.service \
	/usr/share/doc/hugepar/copyright; do
	check "in the package: $f" grep -qxF "$f" "$P/files"
done
if command -v lintian >/dev/null; then
	if lintian --fail-on error,warning "$P"/hugepar_*.changes 2>&1 |
		grep -v "root privileges is not recommended" >"$P/lintian.log"; [ "${PIPESTATUS[0]}" = 0 ]; then
		pass "lintian: no error, no warning"
	else
		fail "lintian (see $P/lintian.log)"
		cat "$P/lintian.log"
	fi
else
	skip "lintian is not installed"
fi

# install, use, remove, purge
if dpkg -i "$DEB" >"$P/install.log" 2>&1; then pass "dpkg -i"; else fail "dpkg -i (see $P/install.log)"; fi
check "installed: hugepar --version" sh -c "hugepar --version | grep -qx 'hugepar $V'"
check "installed: man page" test -f /usr/share/man/man8/hugepar.8.gz
if [ -d /run/systemd/system ]; then
	check "installed: hugepar-verify.service enabled" systemctl -q is-enabled hugepar-verify.service
fi
if mkinitramfs -o "$P/initrd-itools.img" "$KVER" >"$P/mkinitramfs.log" 2>&1; then
	lsinitramfs "$P/initrd-itools.img" >"$P/itools.list"
	for f in usr/sbin/hugepar scripts/init-premount/hugepar scripts/init-bottom/hugepar etc/hugepar.conf; do
		check "mkinitramfs through the installed hook: $f" grep -qx "$f" "$P/itools.list"
	done
else
	fail "mkinitramfs (see $P/mkinitramfs.log)"
fi
if dracut --quiet --force --no-hostonly --add hugepar "$P/initrd-dracut.img" "$KVER" >"$P/dracut.log" 2>&1; then
	lsinitrd "$P/initrd-dracut.img" >"$P/dracut.list" 2>/dev/null
	for f in usr/sbin/hugepar etc/hugepar.conf; do
		check "dracut --add hugepar with the installed module: $f" grep -q " $f$" "$P/dracut.list"
	done
else
	fail "dracut --add hugepar (see $P/dracut.log)"
fi
if dpkg -r hugepar >"$P/remove.log" 2>&1; then pass "dpkg -r"; else fail "dpkg -r (see $P/remove.log)"; fi
left=$(grep -v '/$' "$P/files" | while read -r f; do [ -e "$f" ] && echo "$f"; done)
expect_eq "removed: only the conffile is left" "$left" /etc/hugepar.conf
if dpkg -P hugepar >"$P/purge.log" 2>&1; then pass "dpkg -P"; else fail "dpkg -P (see $P/purge.log)"; fi
left=$(while read -r f; do [ -e "$f" ] && { [ ! -d "$f" ] || [ "$f" = /etc/hugepar.conf.d/ ]; } && echo "$f"; done <"$P/files")
expect_eq "purged: nothing is left" "$left" ""
echo "package: $(summary_line)"
