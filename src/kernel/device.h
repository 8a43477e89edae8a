/* SPDX-License-Identifier: GPL-2.0-or-later */
/* device.h - the NUMA node of a device as sysfs shows it: a PCI function's numa_node,
 * and the PCI function under a network interface. */
#ifndef HUGEPAR_DEVICE_H
#define HUGEPAR_DEVICE_H

#include <stddef.h>

/* Where the kernel lists PCI functions and network interfaces. */
#define PCI_DEVICES_DIR "/sys/bus/pci/devices"
#define NET_CLASS_DIR	"/sys/class/net"

/* The node of the PCI function ADDR (as sysfs names it, parse_pci_addr()): 0 with
 * *node the node, or -1 where the kernel names none (numa_node "-1"); -ENOENT: no
 * such function; -ENODATA: it shows no numa_node (a kernel built without NUMA);
 * -EINVAL: numa_node holds anything else; or the read's -errno. */
int device_pci_node(const char *addr, int *node);

/* The PCI function a network interface sits on: the nearest PCI address on the real
 * path of /sys/class/net/IFNAME/device (the function itself, or the one a virtio or
 * USB device hangs from), into addr. -ENOENT: no such interface; -ENODEV: it has no
 * device (a virtual one: lo, a bridge, a VLAN); -ENXIO: its device is under no PCI
 * function; or the read's -errno. IFNAME holds no '/' (values.c checks it). */
int device_net_pci(const char *ifname, char *addr, size_t len);

#endif
