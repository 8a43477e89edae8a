#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs inside the QEMU guest, after the root switch (test/boot.sh, boot.rules): how
# this kernel reads a node's nr_hugepages write while another program holds surplus
# pages on the other node, and whether hugepar's per-node write is exact anyway; where
# it places a surplus page when the policy leaves it a choice; whether it lets a
# gigantic size be overcommitted.
# Prints RULE-* lines for test/boot.sh; doc/kernel-notes.md has the findings.
H=/sys/kernel/mm/hugepages/hugepages-2048kB
N0=/sys/devices/system/node/node0/hugepages/hugepages-2048kB
N1=/sys/devices/system/node/node1/hugepages/hugepages-2048kB
# held FILE: wait up to 10 s for a holder's line in FILE
held() {
	for _ in $(seq 100); do
		[ -s "$1" ] && return
		sleep 0.1
	done
}

echo 10 >$H/nr_overcommit_hugepages
holdpages 2048 1 10 >/tmp/held &
hp=$!
held /tmp/held
echo "RULE-HELD $(cat $N1/surplus_hugepages) $(cat $N0/surplus_hugepages)"
echo 40 >$N0/nr_hugepages
echo "RULE-RAW $(cat $N0/nr_hugepages) $(cat $N0/surplus_hugepages)"
echo 0 >$N0/nr_hugepages
/usr/sbin/hugepar-test apply --config /dev/null --record-dir /tmp/rules --method=serial \
	--cmdline "rd.hugepar.pages=2M:40@0 rd.hugepar.keep_free=64M" >/tmp/rules.log 2>&1
echo "RULE-HUGEPAR $? $(cat $N0/nr_hugepages) $(cat $N0/surplus_hugepages) $(cat $N1/nr_hugepages) $(cat $N1/surplus_hugepages)"
kill $hp
wait $hp 2>/dev/null
echo "RULE-AFTER $(cat $H/surplus_hugepages)"
echo 0 >$N0/nr_hugepages
echo 0 >$H/nr_overcommit_hugepages

# Where a surplus page goes when the policy leaves a choice: a holder on node 1's CPU
# without a policy, then bound to both nodes (6.1: the CPU's node; 6.12: the lowest
# node allowed; later kernels: see doc/kernel-notes.md)
for policy in unbound bind-all; do
	echo 2 >$H/nr_overcommit_hugepages
	holdpages 2048 1 2 $policy >/tmp/held-$policy &
	hp=$!
	held /tmp/held-$policy
	echo "RULE-PLACE-$policy $(cat $N0/surplus_hugepages) $(cat $N1/surplus_hugepages)"
	kill $hp
	wait $hp 2>/dev/null
done
echo 0 >$H/nr_overcommit_hugepages

# Whether the kernel lets a gigantic size be overcommitted (6.19 on)
G=/sys/kernel/mm/hugepages/hugepages-1048576kB
if [ -d $G ]; then
	if echo 1 >$G/nr_overcommit_hugepages 2>/dev/null; then g=accepted; else g=refused; fi
	echo "RULE-GIGANTIC $g $(cat $G/nr_overcommit_hugepages)"
	echo 0 >$G/nr_overcommit_hugepages 2>/dev/null
else
	echo "RULE-GIGANTIC no-size"
fi
