/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * values.h - the grammar of setting values: amounts ("512" pages, "64G" per node,
 * "50%" of each node), page entries ("SIZE:AMOUNT[@NODES]", "SIZE:AMOUNT@pci:ADDR",
 * "SIZE:AMOUNT@net:IFNAME") and hugetlbfs mounts
 * ("SIZE:/PATH[,owner=U][,group=G][,mode=OCTAL]"), and their types.
 */
#ifndef HUGEPAR_VALUES_H
#define HUGEPAR_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "idset.h"

enum hp_amount_kind {
	HP_AMOUNT_COUNT,   /* pages */
	HP_AMOUNT_BYTES,   /* memory per node */
	HP_AMOUNT_PERCENT, /* hundredths of a percent of each node's MemTotal */
};

struct hp_amount {
	enum hp_amount_kind kind;
	uint64_t value;
};

/* What an entry names after its '@', when it names a device rather than nodes. */
enum hp_device_kind {
	HP_DEVICE_NONE,
	HP_DEVICE_PCI, /* pci:DDDD:BB:DD.F, a PCI function */
	HP_DEVICE_NET, /* net:IFNAME, a network interface */
};

/* IFNAMSIZ of the kernel, its NUL included */
#define HP_IFNAME_MAX 16

/* One "SIZE:AMOUNT[@NODES]" or "SIZE:AMOUNT@DEVICE" entry. Later entries override
 * earlier ones per node and size; a device's entry stands for the device's node, in
 * its place (resolve.h). */
struct hp_entry {
	uint64_t size_kb;
	struct hp_amount amount;
	bool all_nodes;
	struct hp_idset nodes; /* for a device: its node, once resolved */
	enum hp_device_kind device;
	char device_name[24]; /* a PCI address as sysfs writes it, or an interface */
	char *text;	      /* as written, for messages */
	char *origin; /* file:line, a file of the initramfs, or "kernel command line" */
	char *key;    /* "pages" or "rd.hugepar.pages", as written */
};

/* A hugetlbfs mount for a page size, made by `hugepar verify` on the booted system. */
struct hp_mount {
	uint64_t size_kb;
	char *path;
	char *owner, *group; /* names or numbers, or NULL */
	unsigned mode;	     /* of the mount's root */
	bool has_mode;
	char *text; /* as written */
	char *origin;
	char *key; /* "mount" or "rd.hugepar.mount" */
};

/* Each returns 0 or -errno; an entry and a mount are parsed from a copy, changed in
 * place, and why says what is wrong (values_mount(): -ENOMEM when a copy of its own
 * fails, with what it took in m for the caller to free). */
int values_amount(const char *str, struct hp_amount *a);
int values_entry(char *buf, struct hp_entry *e, char *why, size_t wlen);
int values_mount(char *buf, struct hp_mount *m, char *why, size_t wlen);
/* Whether the text at w starts an entry: a ':' before any ',', ';' or space, and
 * not a device's "pci:" or "net:" (an address is no SIZE). */
bool values_starts_entry(const char *w);
/* How the text after a space goes on an entry of n bytes at t: not at all (a new
 * entry or another word), without the space (next starts with '@' or ':', or the
 * entry ends with one: "1G:4 @1"), or with it (a number after a node list, "1G:4@0
 * 1": an entry then refused whole, not done on node 0 alone). */
enum value_join { VALUE_JOIN_NONE, VALUE_JOIN_TIGHT, VALUE_JOIN_SPACE };
enum value_join values_continues(const char *t, size_t n, const char *next);
/* Each entry of a list of them (a pages value) to each(), as people write lists:
 * separated by spaces, ';', ',' or a comma and spaces, a node list kept whole, an
 * entry with spaces inside whole (values_continues()); written: the entry as it was
 * written where spaces were dropped from it, else NULL. The number of entries, or
 * -ENOMEM. */
int values_entries(const char *value,
		   void (*each)(const char *entry, const char *written, void *arg),
		   void *arg);
/* What to write instead of an amount or a size that does not read (rc its error),
 * into buf: "write 1536M" for "1.5G", "write 1G" for "1gib", "a share is from 0% to
 * 100%" for "150%"; "" when nothing more than the grammar can be said. */
void values_hint(const char *str, int rc, char *buf, size_t len);
/* "out of range" or "malformed", for a number's -ERANGE or -EINVAL. */
const char *values_error(int rc);
/* An amount as written: "512", "64G", "12.5%". */
void values_amount_format(const struct hp_amount *a, char *buf, size_t len);

#endif
