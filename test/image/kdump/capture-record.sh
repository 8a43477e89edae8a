#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# In the kdump test image's capture kernel (a drop-in runs it before
# kdump-tools-dump.service saves the dump): keep what hugepar recorded there, and the
# pools, in /var/crash, which the next boot reports (test/image/report.sh).
mkdir -p /var/crash
cp /run/hugepar/status.json /var/crash/hugepar-capture.json 2>/dev/null ||
	echo "no record" >/var/crash/hugepar-capture.json
for n in /sys/devices/system/node/node[0-9]*; do
	echo "${n##*node} $(cat "$n/hugepages/hugepages-2048kB/nr_hugepages")"
done >/var/crash/hugepar-capture.pools
cat /proc/cmdline >/var/crash/hugepar-capture.cmdline
sync
