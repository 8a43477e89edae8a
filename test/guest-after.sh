#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs inside the QEMU guest, after the root switch (test/boot.sh, boot.after): what
# hugepar-verify.service does on a booted system, then pages lost after the boot.
# Prints *-RC, MOUNT, PROM and CMDLINE lines for test/boot.sh.
mkdir -p /tmp/textfile
cat >/tmp/after.conf <<'CONF'
mount = 2M:/dev/hugepages2M,mode=1770,group=0
mount = 1G:/mnt/huge1G
textfile = /tmp/textfile/hugepar.prom
on_short = fail
CONF
/usr/sbin/hugepar verify --config /tmp/after.conf >/tmp/verify.log 2>&1
echo "VERIFY-RC $?"
grep hugetlbfs /proc/mounts | sed 's/^/MOUNT /'
echo "PROM-BEGIN"
cat /tmp/textfile/hugepar.prom
echo "PROM-END"
echo "CMDLINE $(/usr/sbin/hugepar cmdline --from record)"
echo 0 >/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages
/usr/sbin/hugepar status --check >/dev/null 2>&1
echo "CHECK-RC $?"
/usr/sbin/hugepar verify --config /tmp/after.conf >/dev/null 2>&1
echo "VERIFY2-RC $?"
