#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Pages on a device's node (SIZE:AMOUNT@pci:ADDR, @net:IFNAME; hugepar.conf(5)), on
# fixture trees and the simulated kernel: where the pages land, how a device's entry
# and a node's combine, shares and floors, and every way a device can give no node
# (-1, absent, malformed, virtual, a kernel or machine without NUMA), each a named
# problem with the rest applied and exit code 64. A case has a fixture of its name
# (test/out/devices/CASE); TESTS=devices:CASE runs only its work. No root, and this
# machine's pools are not touched.
. "$(dirname "$0")/lib.sh"

HP=$HP_BIN
HPT=$HP_TEST_BIN
D=$OUT/devices
NIC=0000:3b:00.0 NVME=0000:5e:00.0 NONODE=0000:d8:00.0

requires() {
	[ -x "$HP" ] && [ -x "$HPT" ] || { echo "need hugepar and hugepar-test"; return 1; }
	command -v jq >/dev/null || { echo "need jq"; return 1; }
}

# fixture NAME [LINE...]: two nodes of 8 GiB, 2M and 1G pages, Linux 6.12, a NIC
# (ens1f0) and an NVMe drive on node 1, a virtio NIC (eth0) on node 0, a function the
# firmware gives no node, a bridge (br0), and more description lines; $M is it, $REC
# its record directory
fixture() {
	local name=$1
	shift
	M=$D/$name REC=$D/$name/rec
	mkdir -p "$D"
	printf '%s\n' "sizes 2048 1048576" "release 6.12.0" "node 0 cpus 0-1 mem 8G free 7G" \
		"node 1 cpus 2-3 mem 8G free 7G" "pci $NIC node 1" "pci $NVME node 1" \
		"pci 0000:00:03.0 node 0" "pci $NONODE node -1" "net ens1f0 pci $NIC" \
		"net eth0 virtio 0000:00:03.0" "net br0 virtual" "$@" >"$D/$name.desc"
	"$TOP/test/mkfixture.sh" "$D/$name.desc" "$M"
}
# apply PAGES [WORDS]: hugepar-test apply on the simulated kernel of $M with the
# command line rd.hugepar.pages=PAGES (in quotes: its entries may have spaces) and
# WORDS; its exit code in $RC, its output in $M.log
apply() {
	rm -rf "$REC"
	"$HPT" --sysroot "$M" --simulate apply --config /dev/null -d "$REC" \
		--cmdline "\"rd.hugepar.pages=$1\" ${2:-}" >"$M.log" 2>&1
	RC=$?
}
# plan PAGES: hugepar plan --json of $M into $M.json, exit code in $RC
plan() {
	"$HP" plan --sysroot "$M" --config /dev/null --json \
		--cmdline "\"rd.hugepar.pages=$1\"" >"$M.json" 2>"$M.err"
	RC=$?
}
# field FILTER: jq's FILTER on the record; strings bare, the rest compact JSON
field() { jq -cr "$1" "$REC/status.json" 2>/dev/null; }
# pools [KB]: each node's persistent pages of a size, "N N"
pools() {
	local n h out=""
	for n in 0 1; do
		h=$M/sys/devices/system/node/node$n/hugepages/hugepages-${1:-2048}kB
		[ -d "$h" ] || continue
		out="$out${out:+ }$(($(cat "$h/nr_hugepages") - $(cat "$h/surplus_hugepages")))"
	done
	echo "$out"
}
# recorded WANT_RC WANT_STATUS: the exit code and the record's status, its format
recorded() {
	expect_eq "exit code and status" "$RC $(field .status)" "$1 $2"
	check "the record has the documented format" /usr/bin/python3 "$TOP/test/check-record.py" \
		"$TOP/doc/record.md" "$REC/status.json"
}
# problem ENTRY MESSAGE: the record names ENTRY as a problem with MESSAGE
problem() {
	expect_eq "$1: a problem, and why" \
		"$(field ".settings.problems[] | select(.value == \"$1\") | .message")" "$2"
}

tcase pci-node "a PCI address's pages land on the device's node, the other node untouched"
t_pci_node() {
	fixture pci-node
	apply "2M:200@pci:$NIC"
	recorded 0 ok
	expect_eq "2M pools of nodes 0 and 1" "$(pools)" "0 200"
	expect_eq "the record's device: name, function, node, no problem" \
		"$(field '.settings.devices[0] | [.device, .pci, .node, .problem]')" \
		"[\"pci:$NIC\",\"$NIC\",1,\"\"]"
	expect_eq "node 1 asked for 200, node 0 for none" \
		"$(field '[.nodes[].sizes[0].requested]')" "[null,200]"
}

tcase cmdline-commas "on the command line a PCI address's colons do not split its entry from the next"
t_cmdline_commas() {
	fixture cmdline-commas
	apply "2M:100@pci:$NIC,1G:2@0,2M:30@0"
	recorded 0 ok
	expect_eq "three entries, as written" "$(field '[.settings.pages[].entry] | join(" ")')" \
		"2M:100@pci:$NIC 1G:2@0 2M:30@0"
	expect_eq "2M pools" "$(pools)" "30 100"
	expect_eq "1G pools" "$(pools 1048576)" "2 0"
}

tcase net-name "an interface by name: the node of its PCI function, behind a virtio device too"
t_net_name() {
	fixture net-name
	apply "2M:50@net:ens1f0 2M:70@net:eth0"
	recorded 0 ok
	expect_eq "2M pools" "$(pools)" "70 50"
	expect_eq "the functions under the interfaces, and their nodes" \
		"$(field '[.settings.devices[] | "\(.device)=\(.pci)@\(.node)"] | join(" ")')" \
		"net:ens1f0=$NIC@1 net:eth0=0000:00:03.0@0"
}

tcase later-wins "a device's entry and a node's for one node and size: the later wins, either way"
t_later_wins() {
	fixture later-wins
	plan "2M:100@1 2M:300@pci:$NIC 1G:1@pci:$NIC 1G:2@pci:$NVME"
	expect_eq "device after node: the device's amount; two devices: the later's" \
		"$RC $(jq -c '[.plan.nodes[1].sizes[] | .requested]' "$M.json")" "0 [300,2]"
	plan "2M:300@pci:$NIC 2M:100 2M:50@0"
	expect_eq "node entries after the device: theirs" \
		"$(jq -c '[.plan.nodes[].sizes[0].requested]' "$M.json")" "[50,100]"
}

tcase shares-floors "a share is of the device's node, and that node keeps its keep_free"
t_shares_floors() {
	fixture shares-floors
	apply "2M:25%@pci:$NIC"
	recorded 0 ok
	expect_eq "25% of node 1's 8G: 1024 2M pages there, none on node 0" "$(pools)" "0 1024"
	apply "2M:7G@net:ens1f0" "rd.hugepar.keep_free=1G rd.hugepar.mode=exact"
	expect_eq "all 7G free asked, 1G kept: 3072 pages, capped" \
		"$RC $(pools) $(field '.nodes[1].sizes[0] | [.target, .status]')" '64 0 3072 [3072,"capped"]'
	check "the reason and the cause name keep_free" grep -qx "3072 of 3584 requested: capped by keep_free keep_free" \
		<<<"$(field '.nodes[1].sizes[0] | .reason + " " + .cause')"
}

tcase no-node "a device whose numa_node is -1: a named problem, the rest applied, exit 64"
t_no_node() {
	fixture no-node
	apply "2M:10 2M:50@pci:$NONODE 1G:1@pci:$NVME"
	recorded 64 partial
	problem "2M:50@pci:$NONODE" "PCI device $NONODE has no node (numa_node -1): the firmware gives it none"
	expect_eq "the others applied: 2M and 1G pools" "$(pools) $(pools 1048576)" "10 10 0 1"
	expect_eq "the record's devices: no node, then node 1" "$(field '[.settings.devices[].node]')" "[null,1]"
}

tcase absent "an absent PCI device, an absent interface, a bridge: named problems, the rest applied"
t_absent() {
	fixture absent
	apply "2M:20@pci:0000:af:00.0 2M:30@net:eth7 2M:40@net:br0 2M:10@pci:$NIC"
	recorded 64 partial
	problem "2M:20@pci:0000:af:00.0" "no PCI device 0000:af:00.0 in /sys/bus/pci/devices"
	problem "2M:30@net:eth7" \
		"no network interface eth7 in /sys/class/net (early in a boot its driver may not be loaded, nor its name given, yet: name its PCI address)"
	problem "2M:40@net:br0" "network interface br0 has no device (a virtual one)"
	expect_eq "2M pools: the NIC's entry alone" "$(pools)" "0 10"
	expect_eq "four devices recorded, one with a node" "$(field '[.settings.devices[].node]')" "[null,null,null,1]"
}

tcase malformed "a malformed address, interface or mix of nodes and a device: named, the rest applied"
t_malformed() {
	fixture malformed
	apply "2M:10@pci:0000:3b:00,2M:20@1,2M:1@0,pci:$NIC,2M:2@net:eth0:1,2M:3@pci:$NIC,pci:$NVME"
	recorded 64 partial
	problem "2M:10@pci:0000:3b:00" \
		"PCI address '0000:3b:00' is malformed (expected pci:DDDD:BB:DD.F, as lspci -D writes it)"
	check "nodes and a device in one entry: named" grep -q "an entry names a node list or one device" \
		<<<"$(field ".settings.problems[] | select(.value == \"2M:1@0,pci:$NIC\") | .message")"
	check "two devices in one entry: named" grep -q "write an entry for each" \
		<<<"$(field ".settings.problems[] | select(.value == \"2M:3@pci:$NIC,pci:$NVME\") | .message")"
	check "an interface name with a colon: named" grep -q "^interface name 'eth0:1' is malformed" \
		<<<"$(field '.settings.problems[] | select(.value == "2M:2@net:eth0:1") | .message')"
	expect_eq "2M pools: the node's entry alone; nothing read for a malformed one" \
		"$(pools) $(field '.settings.devices | length')" "0 20 0"
}

tcase hostile "a garbage numa_node, a link out of the root, a UTF-8 name: named problems"
t_hostile() {
	fixture hostile "pci 0000:d9:00.0 node two" "net evil virtual"
	# the bridge's device link climbs out of the fixture
	ln -s ../../../../../../../../../../../../tmp "$M/sys/devices/virtual/net/evil/device"
	apply "2M:1@pci:0000:d9:00.0 2M:2@net:evil 2M:3@net:eth$(printf '\303\251') 2M:4@0"
	recorded 64 partial
	problem "2M:1@pci:0000:d9:00.0" "the numa_node of PCI device 0000:d9:00.0 is malformed"
	problem "2M:2@net:evil" "the device link of network interface evil leads out of the root"
	check "a UTF-8 interface name: malformed" grep -q "^interface name 'eth.*' is malformed" \
		<<<"$(field '.settings.problems[] | select(.value | startswith("2M:3@net:eth")) | .message')"
	expect_eq "three problems; node 0's entry applied" "$(field '.settings.problems | length') $(pools)" "3 4 0"
}

tcase one-node "a machine of one node whose devices have none: a named problem, the node's entry applied"
t_one_node() {
	M=$D/one-node REC=$M/rec
	mkdir -p "$D"
	printf '%s\n' "sizes 2048" "release 6.12.0" "node 0 cpus 0-1 mem 8G free 7G" \
		"pci $NIC node -1" >"$D/one-node.desc"
	"$TOP/test/mkfixture.sh" "$D/one-node.desc" "$M"
	apply "2M:10 2M:50@pci:$NIC"
	recorded 64 partial
	problem "2M:50@pci:$NIC" "PCI device $NIC has no node (numa_node -1): a machine without NUMA"
	expect_eq "node 0's pool" "$(pools)" "10"
}

tcase nonuma "a kernel without NUMA shows no numa_node: a named problem, the rest applied"
t_nonuma() {
	M=$D/nonuma REC=$M/rec
	mkdir -p "$D"
	printf '%s\n' nonuma "sizes 2048" "node 0 cpus 0-1 mem 8G free 7G" "meminfo 8G 7G" \
		"pci $NIC node 0" >"$D/nonuma.desc"
	"$TOP/test/mkfixture.sh" "$D/nonuma.desc" "$M"
	check "the fixture has no numa_node" test ! -e "$M/sys/bus/pci/devices/$NIC/numa_node"
	apply "2M:50@pci:$NIC 2M:10"
	recorded 64 partial
	problem "2M:50@pci:$NIC" "PCI device $NIC shows no numa_node: a kernel without NUMA"
	expect_eq "the global pool" "$(cat "$M/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages")" 10
}

tcase conf-file "in a settings file: device entries beside node entries, their origins kept"
t_conf_file() {
	fixture conf-file
	printf '%s\n' "# DPDK on the NIC's node, SPDK on the drive's" \
		"pages = 2M:64@net:ens1f0 1G:2@pci:$NVME 2M:16@0" >"$M/hugepar.conf"
	rm -rf "$REC"
	"$HPT" --sysroot "$M" --simulate apply --config "$M/hugepar.conf" -d "$REC" \
		--cmdline quiet >"$M.log" 2>&1
	RC=$?
	recorded 0 ok
	expect_eq "2M and 1G pools" "$(pools) $(pools 1048576)" "16 64 0 2"
	expect_eq "origins of the devices" "$(field '[.settings.devices[].origin] | unique | length')" 1
	check "the origin is the file's line 2" grep -q "hugepar.conf:2\$" <<<"$(field '.settings.devices[0].origin')"
}

tcase plan-shows "plan shows each device's node, in text and JSON, and status shows the record's"
t_plan_shows() {
	fixture plan-shows
	"$HP" plan --sysroot "$M" --config /dev/null \
		--cmdline "rd.hugepar.pages=2M:1G@pci:$NIC,1G:4@net:eth0,2M:1@pci:$NONODE" >"$M.txt" 2>&1
	expect_eq "exit 64: a device has no node" "$?" 64
	check "text: the NIC on node 1" grep -Eq "^pci:$NIC +$NIC +1 +2M:1G@pci:$NIC " "$M.txt"
	check "text: eth0's function on node 0" grep -Eq "^net:eth0 +0000:00:03.0 +0 +1G:4@net:eth0 " "$M.txt"
	check "text: the one without a node, skipped" grep -Eq "^pci:$NONODE +$NONODE +- .*skipped" "$M.txt"
	plan "2M:1G@pci:$NIC,1G:4@net:eth0"
	expect_eq "JSON: the devices' nodes" "$RC $(jq -c '[.settings.devices[].node]' "$M.json")" "0 [1,0]"
	apply "2M:1G@pci:$NIC,1G:4@net:eth0"
	"$HP" status -d "$REC" >"$M.status" 2>&1
	check "status: the NIC on node 1" grep -q "^  pci:$NIC: node 1 (2M:1G@pci:$NIC)" "$M.status"
}

run_cases
echo "devices: $(summary_line)"
