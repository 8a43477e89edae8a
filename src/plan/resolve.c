/* SPDX-License-Identifier: GPL-2.0-or-later */
/* resolve.c - entries that name a device, read to the device's node. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "resolve.h"

void resolve_device_name(const struct hp_entry *e, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s",
		 e->device == HP_DEVICE_PCI   ? "pci:"
		 : e->device == HP_DEVICE_NET ? "net:"
					      : "",
		 e->device == HP_DEVICE_NONE ? "" : e->device_name);
}

/* The PCI function under a network interface, into pci; 0, or -1 with why. */
static int net_function(const char *ifname, char *pci, size_t plen, char *why,
			size_t wlen)
{
	int rc = device_net_pci(ifname, pci, plen);

	if (rc == -ENOENT)
		snprintf(why, wlen,
			 "no network interface %s in " NET_CLASS_DIR
			 " (early in a boot its driver may not be loaded, nor its name "
			 "given, yet: name its PCI address)",
			 ifname);
	else if (rc == -ENODEV)
		snprintf(why, wlen, "network interface %s has no device (a virtual one)",
			 ifname);
	else if (rc == -ENXIO)
		snprintf(why, wlen, "network interface %s is under no PCI device",
			 ifname);
	else if (rc == -EXDEV)
		snprintf(why, wlen,
			 "the device link of network interface %s leads out of the root",
			 ifname);
	else if (rc)
		snprintf(why, wlen, "cannot read " NET_CLASS_DIR "/%s/device: %s", ifname,
			 strerror(-rc));
	return rc ? -1 : 0;
}

/* The node of the function pci: the node, or -1 with why. */
static int function_node(const struct hp_topology *t, const char *pci, char *why,
			 size_t wlen)
{
	int node = -1, rc = device_pci_node(pci, &node);
	bool nonuma = !t->numa || t->nnodes <= 1;

	if (rc == -ENOENT)
		snprintf(why, wlen, "no PCI device %s in " PCI_DEVICES_DIR, pci);
	else if (rc == -ENODATA)
		snprintf(why, wlen,
			 "PCI device %s shows no numa_node: a kernel without NUMA", pci);
	else if (rc == -EINVAL)
		snprintf(why, wlen, "the numa_node of PCI device %s is malformed", pci);
	else if (rc)
		snprintf(why, wlen, "cannot read the numa_node of PCI device %s: %s", pci,
			 strerror(-rc));
	else if (node < 0)
		snprintf(why, wlen, "PCI device %s has no node (numa_node -1): %s", pci,
			 nonuma ? "a machine without NUMA"
				: "the firmware gives it none");
	else if (topology_node_index(t, (unsigned)node) < 0)
		snprintf(why, wlen, "PCI device %s is on node %d, which does not exist",
			 pci, node);
	else
		return node;
	return -1;
}

/* Note what was read for an entry's device; false when memory is out. */
static bool note_use(struct hp_settings *s, const struct hp_entry *e, const char *pci,
		     int node, const char *why)
{
	struct hp_device_use *u;

	if (!settings_grow(s, (void **)&s->devices, s->ndevices, sizeof(*u)))
		return false;
	u = &s->devices[s->ndevices];
	memset(u, 0, sizeof(*u));
	resolve_device_name(e, u->name, sizeof(u->name));
	snprintf(u->pci, sizeof(u->pci), "%s", pci);
	u->node = node;
	u->entry = strdup(e->text);
	u->origin = strdup(e->origin);
	u->problem = strdup(node < 0 ? why : "");
	if (!u->entry || !u->origin || !u->problem) {
		free(u->entry);
		free(u->origin);
		free(u->problem);
		s->failed = true;
		return false;
	}
	s->ndevices++;
	return true;
}

void resolve_devices(struct hp_settings *s, const struct hp_topology *t)
{
	unsigned out = 0;

	for (unsigned i = 0; i < s->nentries; i++) {
		struct hp_entry *e = &s->entries[i];
		char pci[24] = "", why[240] = "";
		int node = -1;

		if (e->device != HP_DEVICE_NONE) {
			if (e->device == HP_DEVICE_PCI)
				snprintf(pci, sizeof(pci), "%s", e->device_name);
			if (e->device == HP_DEVICE_PCI ||
			    !net_function(e->device_name, pci, sizeof(pci), why,
					  sizeof(why)))
				node = function_node(t, pci, why, sizeof(why));
			note_use(s, e, pci, node, why);
			if (node < 0) {
				settings_problem(s, e->origin, e->key, e->text, "%s",
						 why);
				settings_drop_entry(e);
				continue;
			}
			memset(&e->nodes, 0, sizeof(e->nodes));
			idset_add(&e->nodes, (unsigned)node);
			e->all_nodes = false;
		}
		s->entries[out++] = *e;
	}
	s->nentries = out;
}
