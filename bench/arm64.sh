#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# arm64 in qemu-system-aarch64 (virt, TCG, two nodes of one vCPU and 1 GiB), on
# Debian's 6.12 kernels of 4K and 16K pages: reserving PAGES 2M pages with the global
# write, per-node writes, the floor (bare processes, one a CPU, at once), hugepar auto
# and with 1 worker, as bench/qemu.sh does on x86-64 (bench/guest.sh, compare mode):
# medians and ranges of ARM64_ROUNDS rounds (default 7), hugepar's ratio to each
# baseline paired by round. The cross-built binary (make ARCH=arm64) in an initramfs
# of busybox, as test/arm64.sh boots it.
#   bench/arm64.sh [PAGES]     (default 300)
cd "$(dirname "$0")/.." || exit 1
. test/lib.sh
PAGES=${1:-300}
ROUNDS=${ARM64_ROUNDS:-7}
out=$OUT/bench/arm64
mkdir -p "$out"
make --no-print-directory -s ARCH=arm64 build/arm64/hugepar build/arm64/holdpages >"$out/build.log" 2>&1 &&
	scripts/fetch-arm64.sh build/arm64/boot >"$out/fetch.log" 2>&1 ||
	{ echo "bench: the arm64 build or its kernels (see $out/build.log, $out/fetch.log)"; exit 1; }
cat >"$out/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mount -t tmpfs run /run
sh /bench.sh
poweroff -f
INIT
arm64_initramfs "$out" "$out/init" build/arm64/hugepar:usr/sbin/hugepar \
	build/arm64/holdpages:usr/bin/holdpages bench/guest.sh:bench.sh

echo "### arm64: reserving $PAGES 2M pages (ms: median, and range over $ROUNDS rounds)"
echo
echo "qemu-system-aarch64, virt, TCG, two nodes of one vCPU and 1 GiB; the cross-built"
echo "binary. Ratios are each round's baseline over hugepar's time in the same round."
echo
echo "| kernel | global write | per-node writes | the floor | hugepar auto | vs global write | vs per-node writes | floor / hugepar | hugepar 1 worker |"
echo "|---|---|---|---|---|---|---|---|---|"
for k in "6.12.*+deb13-arm64" "6.12.*-arm64-16k"; do
	kver=$(arm64_kernel "$k")
	arm64_boot "$out/$kver.log" "$kver" "$out/initrd.img" "1024:1 1024:1" \
		"bench.pages=$PAGES bench.mode=compare bench.rounds=$ROUNDS"
	/usr/bin/python3 bench/compare.py "$out/$kver.log" "$kver"
done
