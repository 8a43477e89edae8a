#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs inside the QEMU guest, after the root switch (test/boot.sh, boot.capped): a run
# whose node 1 free memory caps (a tmpfs bound to node 1 holds most of it), the kernel
# parameters hugepar cmdline prints for it, then what a write of the whole 2M pool
# (vm.nr_hugepages, as systemd-sysctl writes it) does to per-node pools. Prints
# CAPPED-*, GLOBAL-* lines for test/boot.sh.
P=/sys/devices/system/node
pools() { echo "$(cat $P/node0/hugepages/hugepages-2048kB/nr_hugepages) $(cat $P/node1/hugepages/hugepages-2048kB/nr_hugepages)"; }
mkdir -p /tmp/fill
mount -t tmpfs -o size=400M,mpol=bind:1 tmpfs /tmp/fill
dd if=/dev/zero of=/tmp/fill/x bs=1M count=330 2>/dev/null
/usr/sbin/hugepar apply --config /dev/null --record-dir /tmp/cap \
	--cmdline "rd.hugepar.pages=2M:150@1 rd.hugepar.keep_free=32M" >/dev/null 2>&1
echo "CAPPED-RC $?"
echo "CAPPED-BEGIN"; cat /tmp/cap/status.json; echo "CAPPED-END"
echo "CAPPED-CMDLINE $(/usr/sbin/hugepar cmdline --from record -d /tmp/cap)"
rm -f /tmp/fill/x
umount /tmp/fill
# the whole pool written, from per-node pools of 30 and 0: up to 50, down to 20
echo 0 >/proc/sys/vm/nr_hugepages
echo 30 >$P/node0/hugepages/hugepages-2048kB/nr_hugepages
echo "GLOBAL-START $(pools)"
echo 50 >/proc/sys/vm/nr_hugepages
echo "GLOBAL-UP $(pools)"
echo 20 >/proc/sys/vm/nr_hugepages
echo "GLOBAL-DOWN $(pools)"
echo 20 >/proc/sys/vm/nr_hugepages_mempolicy
echo "GLOBAL-SAME $(pools)"
echo 0 >/proc/sys/vm/nr_hugepages
