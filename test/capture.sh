#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Describe the running machine in mkfixture.sh's format (a capture for golden tests).
set -eu
sys=${SYSROOT:-}/sys
echo "# captured from a running machine: $(uname -r), $(nproc) CPUs"
echo "online $(cat "$sys/devices/system/cpu/online")"
sizes=$(for d in "$sys"/kernel/mm/hugepages/hugepages-*kB; do [ -d "$d" ] || continue
	d=${d##*-}; echo "${d%kB}"; done | sort -n | tr '\n' ' ')
echo "sizes ${sizes% }"
mi() { awk -v k="$2:" '$0 ~ k {for (i=1;i<=NF;i++) if ($i==k) {print $(i+1); exit}}' "$1"; }
if [ -d "$sys/devices/system/node" ]; then
	for nd in "$sys"/devices/system/node/node[0-9]*; do
		id=${nd##*node}
		cpus=$(cat "$nd/cpulist"); [ -n "$cpus" ] || cpus=-
		line="node $id cpus $cpus mem $(mi "$nd/meminfo" MemTotal)K free $(mi "$nd/meminfo" MemFree)K"
		blocks=$(find "$nd" -maxdepth 1 -name 'memory[0-9]*' | wc -l)
		[ "$blocks" = 0 ] || line="$line blocks=$blocks"
		for h in "$nd"/hugepages/hugepages-*kB; do
			[ -d "$h" ] || continue
			k=${h##*-}; k=${k%kB}
			line="$line pool $k:$(cat "$h/nr_hugepages"):$(cat "$h/free_hugepages"):$(cat "$h/surplus_hugepages")"
		done
		echo "$line"
	done
else
	echo "nonuma"
	echo "node 0 cpus $(cat "$sys/devices/system/cpu/online") mem 0 free 0"
fi
echo "meminfo $(mi /proc/meminfo MemTotal)K $(mi /proc/meminfo MemFree)K"
b=$sys/devices/system/memory/block_size_bytes
[ -r "$b" ] && echo "memblock $((0x$(cat "$b")))"
echo "release $(cat "${SYSROOT:-}/proc/sys/kernel/osrelease")"
