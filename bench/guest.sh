#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs inside the QEMU guest (bench/qemu.sh): reserve PAGES 2M pages ROUNDS times with
# the serial sysfs writes and with hugepar, the pool emptied between, and print the
# times in ms (10 ms resolution of /proc/uptime is enough for runs of ~0.5 s).
H=/sys/kernel/mm/hugepages/hugepages-2048kB
PAGES=$(sed -n 's/.*bench.pages=\([0-9]*\).*/\1/p' /proc/cmdline)
ROUNDS=5
up() { read -r u _ </proc/uptime; echo "${u%.*}${u#*.}0"; }
empty() { echo 0 >$H/nr_hugepages; }
pernode() {
	n=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
	for d in /sys/devices/system/node/node[0-9]*; do
		echo $((PAGES / n)) >"$d/hugepages/hugepages-2048kB/nr_hugepages"
	done
}
run() { # label command...
	label=$1; shift
	empty
	t0=$(up); "$@" >/dev/null 2>&1; t1=$(up)
	echo "BENCH $label $((t1 - t0)) $(cat $H/nr_hugepages)"
}
echo $PAGES >$H/nr_hugepages; empty   # warm-up
for _ in $(seq $ROUNDS); do
	run global sh -c "echo $PAGES >$H/nr_hugepages"
	run pernode pernode
	run hugepar /usr/sbin/hugepar apply --config /dev/null --record-dir /tmp/r \
		--cmdline "rd.hugepar.pages=2M:$((PAGES / $(ls -d /sys/devices/system/node/node[0-9]* | wc -l))) rd.hugepar.reserve=64M"
	run hugepar-1 /usr/sbin/hugepar apply --config /dev/null --record-dir /tmp/r \
		--cmdline "rd.hugepar.pages=2M:$((PAGES / $(ls -d /sys/devices/system/node/node[0-9]* | wc -l))) rd.hugepar.reserve=64M rd.hugepar.threads=1"
done
echo "BENCHNOTE $(grep -m1 method_note /tmp/r/status.json) $(grep -m1 '"duration_ms"' /tmp/r/status.json)"
empty
