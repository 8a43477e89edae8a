#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs inside the QEMU guest, after the root switch (bench/qemu.sh). Kernel command
# line: bench.pages=N (pages in all, split over the nodes), bench.size=KB (their
# size, default 2048; bench.mode=whole only), bench.mode=compare, sweep, whole or mixed
# (bench.gpages=N: 1G pages a node),
# bench.rounds=N (default 5). Prints "BENCH label ms pages" lines;
# /proc/uptime has 10 ms resolution, enough for runs of a few hundred ms (bench.mode=
# whole times with timeit instead, and its lines carry the clock too).
arg() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
KB=$(arg bench.size)
KB=${KB:-2048}
H=/sys/kernel/mm/hugepages/hugepages-${KB}kB
PAGES=$(arg bench.pages)
MODE=$(arg bench.mode)
ROUNDS=$(arg bench.rounds)
ROUNDS=${ROUNDS:-5}
NODES=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
PER=$((PAGES / NODES))
up() { read -r u _ </proc/uptime; echo "${u%.*}${u#*.}0"; }
empty() { echo 0 >$H/nr_hugepages; }
pernode() {
	for d in /sys/devices/system/node/node[0-9]*; do
		echo $PER >"$d/hugepages/hugepages-2048kB/nr_hugepages"
	done
}
# hold LABEL NODE...: one holder on each NODE given (a node twice: two holders
# there), each reserving PAGES over the CPUs with one hugetlb mapping (holdpages),
# all started at once from empty pools, timed until every one holds its pages;
# letting them go (the pages are not kept) is not timed.
hold() {
	label=$1
	shift
	empty
	sleep 1
	rm -f /tmp/held
	mkfifo /tmp/held
	pids=
	t0=$(up)
	for node; do
		# a holder that fails still says so, or the wait below would not end;
		# started without a subshell, so that the kill below reaches it
		holdpages "$KB" "$node" $((PAGES / cpus)) >/tmp/held &
		pids="$pids $!"
	done
	held=$(head -n $# /tmp/held)
	t1=$(up)
	if [ "$round" != 0 ]; then
		case $held in
		*failed*) echo "BENCHNOTE $label: a holder got no pages (round $round)" ;;
		*) echo "BENCH $label $((t1 - t0)) $(cat $H/surplus_hugepages)" ;;
		esac
	fi
	kill $pids
	wait
}
# The floor for any parallel way on this machine: one bare process per CPU, bound to
# its node, all at once, with nothing before or after. Then one of those processes
# alone, the others' CPUs idle: what each would take if the emulated CPUs ran at once
# as a real machine's do (bench/whole.sh sets the floor against it).
bare() {
	cpus=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
	echo $PAGES >$H/nr_overcommit_hugepages
	nodes=
	for d in /sys/devices/system/node/node[0-9]*; do
		for _ in "$d"/cpu[0-9]*; do nodes="$nodes ${d##*node}"; done
	done
	# shellcheck disable=SC2086
	hold bare $nodes
	hold alone 0
	echo 0 >$H/nr_overcommit_hugepages
}
hp() { /usr/sbin/hugepar apply --config /dev/null --record-dir /tmp/r \
	--cmdline "rd.hugepar.pages=2M:$PER rd.hugepar.keep_free=64M $*"; }
run() { # label command...
	label=$1
	shift
	empty
	# Freed huge pages go back to the buddy allocator partly in the background; an
	# allocation racing with that stalls now and then (seen: 0.3-6 s for 300 pages
	# that take 10-30 ms). Let it settle.
	sleep 1
	t0=$(up)
	"$@" >/dev/null 2>&1
	t1=$(up)
	[ "$round" = 0 ] || echo "BENCH $label $((t1 - t0)) $(cat $H/nr_hugepages)"
}

# The whole process as a user starts it (bench.mode=whole): settings in a file, the
# record in /run/hugepar (an empty --cmdline: this boot's rd.hugepar=0 kept hugepar
# out of the initramfs, and is no user's), timed with the monotonic clock (timeit)
# beside per-node writes and the global write made the same way; then the test build
# with its trace, which says when each phase began.
N=/sys/devices/system/node
whole() {
	# what a system call, a fault, a fork cost here: once, in the warm-up round
	if [ "$round" = 0 ]; then
		[ -x /usr/bin/syscost ] && syscost
		mkdir -p /etc/hugepar.conf.d
		printf 'pages = %sK:%s\nreserve = 64M\n' "$KB" "$PER" >/etc/hugepar.conf.d/bench.conf
		sync
	fi
	files=
	for d in $N/node[0-9]*; do files="$files $d/hugepages/hugepages-${KB}kB/nr_hugepages $PER"; done
	cpus=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
	for label in pernode global hugepar fixed trace exec; do
		empty
		sleep 1
		# what each method starts from: bench/whole.sh refuses figures not from empty
		[ "$round" = 0 ] || echo "BENCHPOOL $round $label $(cat $H/nr_hugepages)"
		read -r _ _ _ _ w0 _ </sys/block/vda/stat
		case $label in
		pernode) line=$(timeit pernode write $files) ;;
		global) line=$(timeit global write $H/nr_hugepages "$PAGES") ;;
		hugepar) line=$(timeit hugepar exec /usr/sbin/hugepar apply --cmdline "") ;;
		fixed) # a worker a CPU, without measuring: what the controller's search costs
			line=$(timeit fixed exec /usr/sbin/hugepar apply --cmdline "rd.hugepar.threads=$cpus") ;;
		exec) # what an exec of the binary costs, doing nothing: beside a static
			# program without libnuma
			l2=$(timeit exec-hugepar exec /usr/sbin/hugepar --version)
			[ "$round" = 0 ] || echo "$l2 -"
			line=$(timeit exec-plain exec /usr/bin/timeit) ;;
		trace) line=$(HUGEPAR_FAULT=trace timeit trace exec /usr/sbin/hugepar-test apply \
			--cmdline "" --record-dir /tmp/t 2>/tmp/trace) ;;
		esac
		read -r _ _ _ _ w1 _ </sys/block/vda/stat
		[ "$round" = 0 ] && continue
		echo "BENCHIO $round $label $((w1 - w0))"
		echo "$line $(cat $H/nr_hugepages)"
		if [ $label = trace ]; then
			# shellcheck disable=SC2086
			set -- $line
			t0=$4
			while read -r _ phase us pid; do
				echo "TRACE $round $phase $(((us - t0) / 100)) $pid"
			done </tmp/trace
		fi
	done
	bare
}

# 2M and 1G pages alone and at once (bench.mode=mixed, bench.gpages=N 1G pages a node):
# whole hugepar processes timed with timeit; each line also gives the pools (2M/1G)
# and the record's time for each size
G=/sys/kernel/mm/hugepages/hugepages-1048576kB
mixed() {
	gp=$(arg bench.gpages)
	for label in 2M 1G both; do
		echo 0 >$H/nr_hugepages
		echo 0 >$G/nr_hugepages
		sleep 1
		case $label in
		2M) p=2M:$PER ;;
		1G) p=1G:${gp:-1} ;;
		both) p=2M:$PER,1G:${gp:-1} ;;
		esac
		line=$(timeit "$label" exec /usr/sbin/hugepar apply --config /dev/null --record-dir /tmp/m \
			--cmdline "rd.hugepar.pages=$p rd.hugepar.keep_free=256M")
		[ "$round" = 0 ] && continue
		echo "$line $(cat $H/nr_hugepages)/$(cat $G/nr_hugepages)" \
			"$(grep -o '"ms": [0-9]*' /tmp/m/status.json | sed 's/.* //' | tr '\n' / | sed 's|/$||')"
		echo "BENCHREC $label $(tr -d '\n' </tmp/m/status.json)"
	done
	echo 0 >$G/nr_hugepages
}

# The root is an ext4 image on an emulated disk: what is written there is committed
# by the journal about 5 s later, inside whatever run is timed then (seen: writes
# completed on the disk during the global write in 5 of 10 rounds, from the
# settings file written each round). Scratch files go to memory, the settings file
# is written once, and bench.mode=whole says how many disk writes each timed run saw.
mount -t tmpfs -o size=16m bench /tmp
echo $PAGES >$H/nr_hugepages
empty
# Round 0 is a warm-up of every method (first exec of each binary from disk, first
# touch of the memory); its lines are not printed.
round=0
while [ $round -le $ROUNDS ]; do
	case $MODE in
	whole) whole ;;
	mixed) mixed ;;
	sweep)
		for n in 1 2 3 4; do run "threads-$n" hp rd.hugepar.threads=$n; done
		run auto hp
		;;
	*)
		run global sh -c "echo $PAGES >$H/nr_hugepages"
		run pernode pernode
		bare
		run hugepar hp
		[ -n "$(arg bench.verbose)" ] && /usr/sbin/hugepar status -d /tmp/r | sed 's/^/STATUS /'
		run hugepar-1 hp rd.hugepar.threads=1
		;;
	esac
	round=$((round + 1))
done
echo "BENCHNOTE $(grep -m1 method_note /tmp/r/status.json)"
empty
