#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Make a sysfs/procfs fixture tree from a short machine description.
#
#   mkfixture.sh DESC DIR
#
# Description lines ('#' starts a comment):
#   online LIST                      online CPUs (default: every node's CPUs)
#   sizes KB...                      huge page sizes offered (none: no hugetlb)
#   node ID cpus LIST mem SIZE free SIZE [blocks=N] [pool KB:NR[:FREE[:SURPLUS]]...]
#                                    a NUMA node; LIST may be "-" for no CPUs;
#                                    mem 0 makes a memoryless node; blocks=N gives it
#                                    N memory blocks (memblock's size each)
#   memblock SIZE                    /sys/devices/system/memory/block_size_bytes
#   overcommit KB N                  global nr_overcommit_hugepages of a size
#   nonuma                           no /sys/devices/system/node (NUMA off)
#   meminfo SIZE SIZE                /proc/meminfo MemTotal and MemFree
#                                    (default: the sums of the nodes)
#   release VERSION                  /proc/sys/kernel/osrelease (default 6.1.0)
#   granule PAGE ORDERS              the base page (/proc/self/smaps KernelPageSize)
#                                    and the buddy allocator's orders (columns of
#                                    /proc/buddyinfo): 4K 11 on x86, 16K 12 and 64K 14
#                                    on arm64 (default: neither file)
#   cmdline WORDS...                 /proc/cmdline (default "BOOT_IMAGE=/vmlinuz quiet")
#   bootid ID                        /proc/sys/kernel/random/boot_id (default: none)
#   vmemmap 0|1                      /proc/sys/vm/hugetlb_optimize_vmemmap: the kernel
#                                    offers the vmemmap optimization (default: not)
#   memmap PAGES BOOTPAGES           /proc/vmstat's nr_memmap_pages and
#                                    nr_memmap_boot_pages (Linux 6.11 on; default: none)
#   initramfs                        /etc/initrd-release: hugepar runs in an initramfs
#   smbios11 STRING                  an SMBIOS type 11 entry of one OEM string (the next
#                                    11-N; printf's escapes: \n, \0 ends a string)
#   fwcfg NAME TEXT                  a credential on QEMU's fw_cfg (printf's escapes)
#   cpuflags FLAG...                 /proc/cpuinfo's flags (hypervisor sev: an SEV guest)
#   sim LINE                         a line of the simulated kernel's machine file,
#                                    .sim/machine (doc/simulator.md)
#   pci ADDR node N                  a PCI function (/sys/bus/pci/devices/ADDR) and
#                                    its numa_node: N as written (-1: none); a nonuma
#                                    machine's kernel shows no numa_node at all
#   net IFNAME pci ADDR              a network interface on the PCI function ADDR (a
#                                    pci line), as /sys/class/net shows it
#   net IFNAME virtio ADDR           ... on a virtio device of the function ADDR
#                                    (QEMU's virtio-net-pci)
#   net IFNAME virtual               ... on no device (a bridge, a VLAN)
set -eu

desc=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir/sys/devices/system/cpu" "$dir/sys/kernel/mm" "$dir/proc"

kb() { # SIZE with K/M/G/T suffix -> kB
	local v=$1 n=${1%[KMGTkmgt]}
	case $v in
	*[Kk]) echo "$n" ;;
	*[Mm]) echo $((n * 1024)) ;;
	*[Gg]) echo $((n * 1024 * 1024)) ;;
	*[Tt]) echo $((n * 1024 * 1024 * 1024)) ;;
	*) echo $((v / 1024)) ;;
	esac
}

expand() { # cpulist -> ids, one a line
	local part
	[ "$1" = - ] && return
	for part in ${1//,/ }; do
		if [[ $part == *-* ]]; then seq "${part%-*}" "${part#*-}"; else echo "$part"; fi
	done
}

compress() { # ids on stdin -> cpulist
	sort -n | awk 'NR==1{s=$1;p=$1;next} $1==p+1{p=$1;next}
		{printf "%s%s", o, (s==p?s:s"-"p); o=","; s=$1; p=$1}
		END{if (NR) printf "%s%s", o, (s==p?s:s"-"p); print ""}'
}

page="" orders="" memblock="" sizes="" online="" numa=1 total=0 free=0 mt="" mf="" release=6.1.0 cmdline="BOOT_IMAGE=/vmlinuz quiet" bootid="" initrd="" cpuflags="" vmemmap="" memmap="" has_mem="" has_cpu="" node_ids=""
declare -A onr ofree osur over pcinode fwcfg
nodes=() simlines=() pcis=() nets=() smbios=()
while read -r line; do
	line=${line%%#*}
	set -- $line
	[ $# -eq 0 ] && continue
	case $1 in
	online) online=$2 ;;
	sizes) shift; sizes="$*" ;;
	nonuma) numa=0 ;;
	overcommit) over[$2]=$3 ;;
	meminfo) mt=$(kb "$2"); mf=$(kb "$3") ;;
	cmdline) cmdline=${line#*cmdline } ;;
	release) release=$2 ;;
	bootid) bootid=$2 ;;
	vmemmap) vmemmap=$2 ;;
	memmap) memmap="$2 $3" ;;
	initramfs) initrd=1 ;;
	smbios11) smbios+=("${line#*smbios11 }") ;;
	fwcfg) fwcfg[$2]=${line#*fwcfg "$2" } ;;
	cpuflags) cpuflags=${line#*cpuflags } ;;
	granule) page=$(kb "$2") orders=$3 ;;
	memblock) memblock=$(kb "$2") ;;
	node) nodes+=("${line}") ;;
	sim) simlines+=("${line#sim }") ;;
	pci)
		if [ $# != 4 ] || [ "$3" != node ]; then
			echo "mkfixture: $desc: expected pci ADDR node N: $line" >&2
			exit 1
		fi
		pcis+=("$2") pcinode[$2]=$4
		;;
	net) nets+=("${line}") ;;
	*) echo "mkfixture: $desc: unknown line: $line" >&2; exit 1 ;;
	esac
done <"$desc"

allcpus="" nblk=0
for n in "${nodes[@]}"; do
	set -- $n
	id=$2 cpus=$4 mem=$(kb "$6") fr=$(kb "$8")
	shift 8
	total=$((total + mem)) free=$((free + fr))
	allcpus="$allcpus $(expand "$cpus" | tr '\n' ' ')"
	nd=$dir/sys/devices/system/node/node$id
	if [ $numa = 1 ]; then
		mkdir -p "$nd"
		if [ "$cpus" = - ]; then echo >"$nd/cpulist"; else echo "$cpus" >"$nd/cpulist"; fi
		printf 'Node %s MemTotal:       %s kB\nNode %s MemFree:        %s kB\nNode %s MemUsed:        %s kB\n' \
			"$id" "$mem" "$id" "$fr" "$id" $((mem - fr)) >"$nd/meminfo"
		[ "$mem" -gt 0 ] && has_mem="$has_mem $id"
		[ "$cpus" != - ] && has_cpu="$has_cpu $id"
		node_ids="${node_ids:-} $id"
	fi
	for p in "$@"; do
		case $p in blocks=*)
			b=${p#blocks=}
			for ((i = 0; i < b; i++)); do
				if [ $numa = 1 ]; then mkdir -p "$nd/memory$((nblk + i))"; fi
				mkdir -p "$dir/sys/devices/system/memory/memory$((nblk + i))"
			done
			nblk=$((nblk + b))
			;;
		esac
	done
	for s in $sizes; do
		nr=0 fp=0 sp=0
		for p in "$@"; do
			[ "$p" = pool ] && continue
			[ "${p#blocks=}" != "$p" ] && continue
			IFS=: read -r pk pn pf ps <<<"$p"
			if [ "$pk" = "$s" ]; then nr=$pn fp=${pf:-$pn} sp=${ps:-0}; fi
		done
		onr[$s]=$(( ${onr[$s]:-0} + nr )) ofree[$s]=$(( ${ofree[$s]:-0} + fp )) osur[$s]=$(( ${osur[$s]:-0} + sp ))
		if [ $numa = 1 ] && [ "$mem" -gt 0 ]; then
			h=$nd/hugepages/hugepages-${s}kB
			mkdir -p "$h"
			echo "$nr" >"$h/nr_hugepages"
			echo "$fp" >"$h/free_hugepages"
			echo "$sp" >"$h/surplus_hugepages"
		fi
	done
done

[ -n "$online" ] || online=$(printf '%s\n' $allcpus | compress)
echo "$online" >"$dir/sys/devices/system/cpu/online"
if [ $numa = 1 ]; then
	nl() { printf '%s\n' $1 | compress; }
	echo "$(nl "${node_ids:-}")" >"$dir/sys/devices/system/node/online"
	echo "$(nl "${node_ids:-}")" >"$dir/sys/devices/system/node/possible"
	echo "$(nl "${has_mem:-}")" >"$dir/sys/devices/system/node/has_memory"
	echo "$(nl "${has_cpu:-}")" >"$dir/sys/devices/system/node/has_cpu"
fi
for s in $sizes; do
	h=$dir/sys/kernel/mm/hugepages/hugepages-${s}kB
	mkdir -p "$h"
	echo "${onr[$s]}" >"$h/nr_hugepages"
	echo "${ofree[$s]}" >"$h/free_hugepages"
	echo "${osur[$s]}" >"$h/surplus_hugepages"
	echo 0 >"$h/resv_hugepages"
	echo "${over[$s]:-0}" >"$h/nr_overcommit_hugepages"
done
if [ -n "$memblock" ]; then
	mkdir -p "$dir/sys/devices/system/memory"
	printf '%x\n' $((memblock * 1024)) >"$dir/sys/devices/system/memory/block_size_bytes"
fi
first=${sizes%% *}
printf 'MemTotal:       %s kB\nMemFree:        %s kB\n' "${mt:-$total}" "${mf:-$free}" >"$dir/proc/meminfo"
[ -n "$first" ] && printf 'Hugepagesize:       %s kB\n' "$first" >>"$dir/proc/meminfo"
echo "$cmdline" >"$dir/proc/cmdline"
mkdir -p "$dir/proc/sys/kernel"
echo "$release" >"$dir/proc/sys/kernel/osrelease"
if [ -n "$vmemmap" ]; then
	mkdir -p "$dir/proc/sys/vm"
	echo "$vmemmap" >"$dir/proc/sys/vm/hugetlb_optimize_vmemmap"
fi
if [ -n "$memmap" ]; then
	printf 'nr_free_pages 1000\nnr_memmap_pages %s\nnr_memmap_boot_pages %s\nnr_zspages 0\n' $memmap >"$dir/proc/vmstat"
fi
if [ -n "$bootid" ]; then
	mkdir -p "$dir/proc/sys/kernel/random"
	echo "$bootid" >"$dir/proc/sys/kernel/random/boot_id"
fi
# SMBIOS type 11 entries: type 11, length 5, a handle, one string; then the string
# and the table's two NULs
i=0
for str in "${smbios[@]}"; do
	mkdir -p "$dir/sys/firmware/dmi/entries/11-$i"
	printf '\013\005\000\000\001%b\000\000' "$str" >"$dir/sys/firmware/dmi/entries/11-$i/raw"
	i=$((i + 1))
done
for n in "${!fwcfg[@]}"; do
	d=$dir/sys/firmware/qemu_fw_cfg/by_name/opt/io.systemd.credentials/$n
	mkdir -p "$d"
	printf '%b' "${fwcfg[$n]}" >"$d/raw"
	wc -c <"$d/raw" >"$d/size"
done
[ -n "$cpuflags" ] && printf 'processor\t: 0\nflags\t\t: %s\n' "$cpuflags" >"$dir/proc/cpuinfo"
if [ -n "$initrd" ]; then
	mkdir -p "$dir/etc"
	echo 'NAME="initramfs"' >"$dir/etc/initrd-release"
fi
if [ -n "$page" ]; then
	# a mapping of a static binary as smaps shows it, and a zone of every node
	mkdir -p "$dir/proc/self"
	printf '%s\n' "00400000-00401000 r--p 00000000 fe:01 1234 /usr/sbin/hugepar" \
		"Size:                  $page kB" "KernelPageSize:        $page kB" \
		"MMUPageSize:           $page kB" >"$dir/proc/self/smaps"
	for n in ${node_ids:-0}; do
		printf 'Node %s, zone   Normal' "$n"
		for _ in $(seq "$orders"); do printf ' %6s' 1; done
		echo
	done >"$dir/proc/buddyinfo"
fi
# PCI functions under their host bridge, as the kernel lays them out, and the bus's
# links to them
for a in "${pcis[@]}"; do
	d=devices/pci${a%:*}/$a
	mkdir -p "$dir/sys/$d" "$dir/sys/bus/pci/devices"
	[ $numa = 1 ] && echo "${pcinode[$a]}" >"$dir/sys/$d/numa_node"
	ln -s "../../../$d" "$dir/sys/bus/pci/devices/$a"
done
k=0
for l in "${nets[@]}"; do
	set -- $l
	ifn=$2 kind=${3:-} a=${4:-}
	case $kind in
	pci | virtio)
		[ -n "${pcinode[$a]+x}" ] || { echo "mkfixture: $desc: $l: no pci line for '$a'" >&2; exit 1; }
		dev=devices/pci${a%:*}/$a
		[ "$kind" = virtio ] && dev=$dev/virtio$k k=$((k + 1))
		d=$dev/net/$ifn
		mkdir -p "$dir/sys/$d"
		ln -s "../../../${dev##*/}" "$dir/sys/$d/device"
		;;
	virtual) d=devices/virtual/net/$ifn && mkdir -p "$dir/sys/$d" ;;
	*) echo "mkfixture: $desc: expected net IFNAME pci|virtio ADDR or net IFNAME virtual: $l" >&2; exit 1 ;;
	esac
	mkdir -p "$dir/sys/class/net"
	ln -s "../../$d" "$dir/sys/class/net/$ifn"
done
if [ ${#simlines[@]} -gt 0 ]; then
	mkdir -p "$dir/.sim"
	printf '%s\n' "${simlines[@]}" >"$dir/.sim/machine"
fi
