/* SPDX-License-Identifier: GPL-2.0-or-later */
/* device.c - the NUMA node of a device as sysfs shows it: a PCI function's numa_node,
 * and the PCI function under a network interface. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "device.h"
#include "parse.h"
#include "path.h"
#include "topology.h"

int device_pci_node(const char *addr, int *node)
{
	char buf[64], *v;
	uint64_t id;
	int rc;

	if (!path_exists(PCI_DEVICES_DIR "/%s", addr))
		return -ENOENT;
	/* the attribute is there only in a kernel built with NUMA */
	rc = path_read(buf, sizeof(buf), PCI_DEVICES_DIR "/%s/numa_node", addr);
	if (rc == -ENOENT)
		return -ENODATA;
	if (rc)
		return rc == -EFBIG ? -EINVAL : rc;
	v = parse_trim(buf);
	if (strcmp(v, "-1") == 0) {
		*node = -1;
		return 0;
	}
	if (parse_u64(v, &id) || id >= HP_MAX_NODES)
		return -EINVAL;
	*node = (int)id;
	return 0;
}

int device_net_pci(const char *ifname, char *addr, size_t len)
{
	char real[4096], *slash;
	int rc;

	if (!path_exists(NET_CLASS_DIR "/%s", ifname))
		return -ENOENT;
	rc = path_resolve(real, sizeof(real), NET_CLASS_DIR "/%s/device", ifname);
	if (rc == -ENOENT)
		return -ENODEV;
	if (rc)
		return rc;
	/* from the device up its parents: the first that is a PCI function */
	while ((slash = strrchr(real, '/'))) {
		rc = parse_pci_addr(slash + 1, addr, len);
		if (rc != -EINVAL && rc != -ERANGE)
			return rc;
		*slash = '\0';
	}
	return -ENXIO;
}
