#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs inside the QEMU guest, after the root switch (test/boot.sh, boot.vmemmap): the
# vmemmap optimization as the root finds it, then each node's 2M pool given back at
# once and what came back to the node: its zones' free pages and per-CPU lists
# (/proc/zoneinfo; without the lists the figure moves by tens of MB). An optimized
# page comes back 28 kB short: the kernel rebuilds its descriptors. Prints
# VMEMMAP-SYSCTL and VMEMMAP-NODE lines for test/boot.sh.
echo "VMEMMAP-SYSCTL $(cat /proc/sys/vm/hugetlb_optimize_vmemmap 2>/dev/null || echo none)"
# free_pages NODE: the node's free pages, and those on its per-CPU lists
free_pages() {
	awk -v n="$1," '
		$1 == "Node" { on = ($2 == n) }
		on && $1 == "pages" && $2 == "free" { s += $3 }
		on && $1 == "count:" { s += $2 }
		END { print s + 0 }' /proc/zoneinfo
}
for d in /sys/devices/system/node/node[0-9]*; do
	n=${d##*node}
	f=$d/hugepages/hugepages-2048kB/nr_hugepages
	p=$(cat "$f")
	a=$(free_pages "$n")
	echo 0 >"$f"
	b=$(free_pages "$n")
	echo "VMEMMAP-NODE $n $p $(((b - a) * 4))"
done
