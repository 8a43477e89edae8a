/* SPDX-License-Identifier: GPL-2.0-or-later */
/* resolve.h - entries that name a device (SIZE:AMOUNT@pci:ADDR, @net:IFNAME), read to
 * the device's node: the one step of the settings that reads the machine. */
#ifndef HUGEPAR_RESOLVE_H
#define HUGEPAR_RESOLVE_H

#include "settings.h"
#include "topology.h"

/*
 * Each entry that names a device becomes an entry for the device's node, in its place
 * among the others (a later entry still wins, node or device), and s->devices says
 * what was read for it. A device without a node (absent, numa_node -1, a kernel or a
 * machine without NUMA, a node the topology does not have) is a problem, and its
 * entry is dropped; the rest go on. Run it once, after plan_check_settings().
 */
void resolve_devices(struct hp_settings *s, const struct hp_topology *t);

/* "pci:0000:3b:00.0" or "net:eth0": the device an entry names, as the record shows it
 * ("" for an entry of nodes). */
void resolve_device_name(const struct hp_entry *e, char *buf, size_t len);

#endif
