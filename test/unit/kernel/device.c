/* SPDX-License-Identifier: GPL-2.0-or-later */
/* device.c - unit tests: a device's node as sysfs shows it, on fixture trees. */
#include "device.h"
#include "fixture.h"

static const char *const devices[] = {"sizes 2048",
				      "node 0 cpus 0-1 mem 4G free 3G",
				      "node 1 cpus 2-3 mem 4G free 3G",
				      "pci 0000:3b:00.0 node 1",
				      "pci 0000:00:03.0 node 0",
				      "pci 0000:d8:00.0 node -1",
				      "pci 0000:d9:00.0 node x",
				      "pci 0000:da:00.0 node 99999",
				      "net ens1f0 pci 0000:3b:00.0",
				      "net eth0 virtio 0000:00:03.0",
				      "net br0 virtual",
				      NULL};

static struct fixture fx;

/* A PCI function's numa_node: a node, none (-1), or not a number. */
UNIT_TEST(pci, "a PCI function's numa_node: a node, none (-1), or not a number")
{
	int node = 7;

	CHECK(fixture_make(&fx, devices) == 0);
	CHECK(device_pci_node("0000:3b:00.0", &node) == 0 && node == 1);
	CHECK(device_pci_node("0000:00:03.0", &node) == 0 && node == 0);
	CHECK(device_pci_node("0000:d8:00.0", &node) == 0 && node == -1);
	node = 7;
	CHECK(device_pci_node("0000:d9:00.0", &node) == -EINVAL && node == 7);
	CHECK(device_pci_node("0000:da:00.0", &node) == -EINVAL && node == 7);
	CHECK(device_pci_node("0000:af:00.0", &node) == -ENOENT && node == 7);
	fixture_remove(&fx);
}

UNIT_TEST(
    net,
    "the PCI function under an interface: itself, the one above virtio, none for a bridge")
{
	char addr[32] = "", p[256];

	CHECK(fixture_make(&fx, devices) == 0);
	CHECK(device_net_pci("ens1f0", addr, sizeof(addr)) == 0 &&
	      strcmp(addr, "0000:3b:00.0") == 0);
	CHECK(device_net_pci("eth0", addr, sizeof(addr)) == 0 &&
	      strcmp(addr, "0000:00:03.0") == 0);
	CHECK(device_net_pci("br0", addr, sizeof(addr)) == -ENODEV);
	CHECK(device_net_pci("eth9", addr, sizeof(addr)) == -ENOENT);
	CHECK(device_net_pci("eth0", addr, 8) == -ENOSPC);
	/* an interface of a platform device: no PCI function above it */
	snprintf(p, sizeof(p), "mkdir -p %s/sys/devices/platform/soc/net/end0", fx.root);
	CHECK(system(p) == 0);
	snprintf(p, sizeof(p), "%s/sys/devices/platform/soc/net/end0/device", fx.root);
	CHECK(symlink("../../../soc", p) == 0);
	snprintf(p, sizeof(p), "%s/sys/class/net/end0", fx.root);
	CHECK(symlink("../../devices/platform/soc/net/end0", p) == 0);
	CHECK(device_net_pci("end0", addr, sizeof(addr)) == -ENXIO);
	fixture_remove(&fx);
}

/* A kernel without NUMA shows no numa_node at all. */
UNIT_TEST(nonuma, "a kernel without NUMA shows no numa_node at all")
{
	static const char *const nonuma[] = {"nonuma", "sizes 2048",
					     "node 0 cpus 0-1 mem 4G free 3G",
					     "pci 0000:3b:00.0 node 0", NULL};
	int node = 7;

	CHECK(fixture_make(&fx, nonuma) == 0);
	CHECK(device_pci_node("0000:3b:00.0", &node) == -ENODATA && node == 7);
	fixture_remove(&fx);
}
