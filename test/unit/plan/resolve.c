/* SPDX-License-Identifier: GPL-2.0-or-later */
/* resolve.c - unit tests: entries that name a device, read to its node and planned. */
#include "fixture.h"
#include "keys.h"
#include "resolve.h"

/* Two nodes of 8 GiB; a NIC and an NVMe drive on node 1, a virtio NIC on node 0, a
 * function without a node, one on a node that is not there, a bridge. */
static const char *const devices[] = {"sizes 2048 1048576",
				      "node 0 cpus 0-1 mem 8G free 7G blocks=64",
				      "node 1 cpus 2-3 mem 8G free 7G blocks=64",
				      "memblock 128M",
				      "pci 0000:3b:00.0 node 1",
				      "pci 0000:5e:00.0 node 1",
				      "pci 0000:00:03.0 node 0",
				      "pci 0000:d8:00.0 node -1",
				      "pci 0000:da:00.0 node 5",
				      "net ens1f0 pci 0000:3b:00.0",
				      "net eth0 virtio 0000:00:03.0",
				      "net br0 virtual",
				      NULL};

static struct fixture fx;

/* The settings as a line of pages, resolved and planned on the fixture. */
static int plan_pages(const char *pages)
{
	settings_free(&fx.s);
	keys_set(&fx.s, "pages", pages, "unit", false);
	plan_check_settings(&fx.s, &fx.t);
	resolve_devices(&fx.s, &fx.t);
	if (fx.p.cells)
		plan_free(&fx.p);
	return plan_make(&fx.s, &fx.t, &fx.p);
}

static uint64_t req(unsigned node, unsigned size)
{
	const struct hp_cell *c = plan_cell(&fx.p, node, size);

	return c->requested_set ? c->requested : UINT64_MAX;
}

UNIT_TEST(
    node,
    "a device's entry lands on its node: the later of a node's and a device's wins, no sum")
{
	CHECK(fixture_make(&fx, devices) == 0);
	CHECK(plan_pages("2M:100 2M:300@pci:0000:3b:00.0") == 0);
	CHECK(fx.s.nproblems == 0 && req(0, 0) == 100 && req(1, 0) == 300);
	CHECK(fx.s.ndevices == 1 && fx.s.devices[0].node == 1 &&
	      strcmp(fx.s.devices[0].name, "pci:0000:3b:00.0") == 0 &&
	      strcmp(fx.s.devices[0].pci, "0000:3b:00.0") == 0 &&
	      strcmp(fx.s.devices[0].problem, "") == 0);
	CHECK(plan_pages("2M:300@pci:0000:3b:00.0 2M:200@1") == 0);
	CHECK(req(0, 0) == UINT64_MAX && req(1, 0) == 200);
	CHECK(plan_pages("2M:200@1 2M:300@pci:0000:3b:00.0") == 0 && req(1, 0) == 300);
	CHECK(plan_pages("1G:2@pci:0000:3b:00.0 1G:1@pci:0000:5e:00.0") == 0);
	CHECK(req(1, 1) == 1 && req(0, 1) == UINT64_MAX && fx.s.ndevices == 2);
	/* by interface: the function itself, or the one under its virtio device */
	CHECK(plan_pages("2M:10@net:ens1f0 2M:20@net:eth0") == 0);
	CHECK(fx.s.nproblems == 0 && req(1, 0) == 10 && req(0, 0) == 20);
	CHECK(fx.s.ndevices == 2 && strcmp(fx.s.devices[1].pci, "0000:00:03.0") == 0 &&
	      strcmp(fx.s.devices[1].name, "net:eth0") == 0 && fx.s.devices[1].node == 0);
	fixture_remove(&fx);
}

/* Shares are of the device's node, floors are its floor. */
UNIT_TEST(amounts, "shares are of the device's node, floors are its floor")
{
	const struct hp_cell *c;

	CHECK(fixture_make(&fx, devices) == 0);
	/* 25% of 64 blocks of 128M = 2G = 1024 2M pages, rounded to 2% granularity */
	CHECK(plan_pages("2M:25%@net:ens1f0") == 0);
	c = plan_cell(&fx.p, 1, 0);
	CHECK(c->requested_set && c->unrounded == 1024 && c->requested == 1024 &&
	      !plan_cell(&fx.p, 0, 0)->requested_set);
	/* all its 7G free asked: the node keeps its 512M floor, 6.5G of 2M pages */
	CHECK(plan_pages("2M:7G@pci:0000:3b:00.0") == 0);
	c = plan_cell(&fx.p, 1, 0);
	CHECK(c->cut == HP_CUT_KEEP_FREE && c->unrounded == 3328 && c->target == 3328 &&
	      plan_cell(&fx.p, 0, 0)->target == 0);
	fixture_remove(&fx);
}

/* A device without a node is a named problem, its entry skipped, the rest kept. */
UNIT_TEST(problems,
	  "a device without a node is a named problem, its entry skipped, the rest kept")
{
	static const struct {
		const char *entry, *message;
	} bad[] = {
	    {"2M:1@pci:0000:d8:00.0",
	     "PCI device 0000:d8:00.0 has no node (numa_node -1): the firmware gives "
	     "it none"},
	    {"2M:1@pci:0000:af:00.0",
	     "no PCI device 0000:af:00.0 in /sys/bus/pci/devices"},
	    {"2M:1@pci:0000:da:00.0",
	     "PCI device 0000:da:00.0 is on node 5, which does not exist"},
	    {"2M:1@net:br0", "network interface br0 has no device (a virtual one)"},
	    {"2M:1@net:eth7", "no network interface eth7 in /sys/class/net (early in a "
			      "boot its driver may not be loaded, nor its name given, "
			      "yet: name its PCI address)"},
	};

	CHECK(fixture_make(&fx, devices) == 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char line[128];

		snprintf(line, sizeof(line), "2M:5 %s 1G:1@pci:0000:3b:00.0",
			 bad[i].entry);
		CHECK(plan_pages(line) == 0);
		CHECK(fx.s.nproblems == 1 && fx.s.nentries == 2 && fx.s.ndevices == 2);
		if (fx.s.nproblems != 1 || fx.s.ndevices != 2)
			continue;
		CHECK(strcmp(fx.s.problems[0].message, bad[i].message) == 0);
		CHECK(strcmp(fx.s.problems[0].value, bad[i].entry) == 0);
		CHECK(fx.s.devices[0].node == -1 &&
		      strcmp(fx.s.devices[0].problem, bad[i].message) == 0);
		CHECK(fx.s.devices[1].node == 1 && req(0, 0) == 5 && req(1, 0) == 5 &&
		      req(1, 1) == 1);
	}
	fixture_remove(&fx);
}

/* One node whose devices have none, and a kernel without NUMA: problems too. */
UNIT_TEST(one_node,
	  "one node whose devices have none, and a kernel without NUMA: problems too")
{
	static const char *const one[] = {"sizes 2048", "node 0 cpus 0-1 mem 4G free 3G",
					  "pci 0000:3b:00.0 node -1", NULL};

	CHECK(fixture_make(&fx, one) == 0);
	CHECK(plan_pages("2M:7 2M:9@pci:0000:3b:00.0") == 0);
	CHECK(fx.s.nproblems == 1 && req(0, 0) == 7);
	CHECK(fx.s.nproblems == 1 &&
	      strcmp(fx.s.problems[0].message,
		     "PCI device 0000:3b:00.0 has no node (numa_node -1): a machine "
		     "without NUMA") == 0);
	fixture_remove(&fx);
}

UNIT_TEST(nonuma, "a kernel without NUMA: the device shows no numa_node, a named problem")
{
	static const char *const nonuma[] = {"nonuma", "sizes 2048",
					     "node 0 cpus 0-1 mem 4G free 3G",
					     "pci 0000:3b:00.0 node 0", NULL};

	CHECK(fixture_make(&fx, nonuma) == 0);
	CHECK(plan_pages("2M:9@pci:0000:3b:00.0 2M:7") == 0);
	CHECK(fx.s.nproblems == 1 && req(0, 0) == 7 && fx.s.ndevices == 1);
	CHECK(fx.s.nproblems == 1 &&
	      strcmp(fx.s.problems[0].message,
		     "PCI device 0000:3b:00.0 shows no numa_node: a kernel without "
		     "NUMA") == 0);
	fixture_remove(&fx);
}
