/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hugetlb.c - the kernel's huge page pools: one interface over the live or simulated
 * kernel, the per-node write rule, and the test build's fault seam on every call. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "hugetlb.h"
#include "idset.h"
#include "kinfo.h"
#include "parse.h"
#include "path.h"

static const struct hugetlb_ops *kernel;
static char release[65];

void hugetlb_use(const struct hugetlb_ops *ops)
{
	kernel = ops;
}

void hugetlb_set_release(const char *r)
{
	snprintf(release, sizeof(release), "%s", r ? r : "");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether a name under HUGETLB_SYS_DIR is a page size the kernel offers: its kB as
 * the kernel writes it (no leading zero: "hugepages-02048kB" is not a second 2M), a
 * power of two, and a pool to read. 0, or -EINVAL with why filled in; 1 for a name
 * that is not of the form at all (another entry). */
static int size_of(const char *name, uint64_t *kb, char *why, size_t len)
{
	const char *p = name + 10;
	size_t n = strlen(p);
	char num[32];

	if (strncmp(name, "hugepages-", 10))
		return 1;
	if (n < 3 || n - 2 >= sizeof(num) || strcmp(p + n - 2, "kB") || p[0] == '0' ||
	    (memcpy(num, p, n - 2), num[n - 2] = '\0', parse_u64(num, kb))) {
		snprintf(why, len, "%s: not the kernel's name of a size: skipped", name);
		return -EINVAL;
	}
	if (*kb & (*kb - 1)) {
		snprintf(why, len, "%s: %s kB is not a power of two: skipped", name, num);
		return -EINVAL;
	}
	if (!path_exists(HUGETLB_SYS_DIR "/%s/nr_hugepages", name)) {
		snprintf(why, len, "%s: no nr_hugepages in it: skipped", name);
		return -EINVAL;
	}
	return 0;
}

int hugetlb_sizes(uint64_t *kbs, unsigned max, unsigned *n, char *skipped, size_t len)
{
	struct path_dir d;
	const char *name;
	int rc = path_dir_open(&d, HUGETLB_SYS_DIR);

	*n = 0;
	if (skipped && len)
		skipped[0] = '\0';
	if (rc)
		return rc == -ENOENT ? 0 : rc;
	while ((name = path_dir_next(&d))) {
		char why[160];
		uint64_t kb;
		int ok = size_of(name, &kb, why, sizeof(why));

		if (ok < 0 && skipped && len) { /* said, one after the other */
			size_t at = strlen(skipped);

			snprintf(skipped + at, len - at, "%s%s", at ? "; " : "", why);
		}
		if (ok)
			continue;
		if (*n == max) {
			rc = -E2BIG; /* more sizes than any architecture has: say so */
			break;
		}
		kbs[(*n)++] = kb;
	}
	path_dir_close(&d);
	qsort(kbs, *n, sizeof(kbs[0]), cmp_u64);
	return rc;
}

bool hugetlb_numa(void)
{
	/* asked before every node read; the answer does not change while hugepar runs */
	static int numa = -1;

	if (numa < 0)
		numa = path_exists("/sys/devices/system/node");
	return numa;
}

int hugetlb_global(uint64_t kb, struct hp_global *g)
{
	int rc = fault_at("read-global");

	if (rc)
		return rc;
	return kernel ? kernel->read_global(kb, g) : -ENOSYS;
}

int hugetlb_node(unsigned node, uint64_t kb, struct hp_pool *p)
{
	struct hp_global g;
	int rc = fault_at("read-node");

	if (rc)
		return rc;
	if (!kernel)
		return -ENOSYS;
	if (hugetlb_numa())
		return kernel->read_node(node, kb, p);
	if (node != 0)
		return -ENOENT;
	rc = kernel->read_global(kb, &g);
	if (!rc)
		*p = g.pool;
	return rc;
}

int hugetlb_node_persistent(unsigned node, uint64_t kb, uint64_t *out)
{
	struct hp_pool p;
	int rc = hugetlb_node(node, kb, &p);

	if (!rc)
		*out = pool_persistent(&p);
	return rc;
}

static int write_nr(int node, uint64_t kb, uint64_t val)
{
	int rc = fault_at(node < 0 ? "write-global" : "write-node");

	if (rc)
		return rc;
	return kernel ? kernel->write_nr(node, kb, val) : -ENOSYS;
}

int hugetlb_set_global(uint64_t kb, uint64_t persistent)
{
	return write_nr(-1, kb, persistent);
}

int hugetlb_vmemmap(int on)
{
	int rc = fault_at("vmemmap");

	if (rc)
		return rc;
	return kernel ? kernel->vmemmap(on) : -ENOSYS;
}

int hugetlb_memmap_pages(uint64_t *pages)
{
	static char text[32768]; /* /proc/vmstat: about 6 KiB on Linux 7 */
	uint64_t a, b;

	if (path_read(text, sizeof(text), "/proc/vmstat"))
		return -ENOENT;
	if (kinfo_vmstat(text, "nr_memmap_pages", &a) ||
	    kinfo_vmstat(text, "nr_memmap_boot_pages", &b))
		return -ENOENT;
	*pages = a + b;
	return 0;
}

int hugetlb_set_overcommit(uint64_t kb, uint64_t val)
{
	int rc = fault_at("overcommit");

	if (rc)
		return rc;
	return kernel ? kernel->write_overcommit(kb, val) : -ENOSYS;
}

/*
 * A node's write is read by the kernel against the global pool: the node's share is
 * replaced and the rest kept. Since 6.7 "the rest" is the other nodes' persistent
 * pages, so the value to write is the node's target. Before, it was their nr counts,
 * surplus included, so the value had to be target - (surplus on other nodes).
 *
 * Where the older rule may hold, the first write is the target anyway: on an older
 * kernel it ends above the target by the other nodes' surplus (a trim corrects it),
 * on a newer one (or an older one with the fix backported) it is exact. The other
 * order could free pages of the node that a second write might not get back.
 */
int hugetlb_set_node(unsigned node, uint64_t kb, uint64_t target)
{
	struct hp_pool np;
	struct hp_global g;
	uint64_t other, got;
	int rc;

	if (!hugetlb_numa())
		return hugetlb_set_global(kb, target);
	rc = write_nr(node, kb, target);
	if (rc || kinfo_release_at_least(release, HUGETLB_NODE_RULE_FIXED_MAJOR,
					 HUGETLB_NODE_RULE_FIXED_MINOR))
		return rc;
	if (hugetlb_node(node, kb, &np) || hugetlb_global(kb, &g))
		return 0;
	got = pool_persistent(&np);
	other = g.pool.surplus > np.surplus ? g.pool.surplus - np.surplus : 0;
	if (got <= target || other == 0)
		return 0;
	/* The older rule: ask for the target less what it will add back. Pages in
	 * use keep the node where it is either way. */
	return write_nr(node, kb, target > other ? target - other : 0);
}

int hugetlb_bind(unsigned node, const struct hp_idset *cpus)
{
	int rc = fault_at("bind");

	if (rc)
		return rc;
	return kernel ? kernel->bind(node, cpus) : -ENOSYS;
}

int hugetlb_reserve(uint64_t kb, uint64_t pages, struct hugetlb_resv *r)
{
	int rc = fault_at("reserve");

	memset(r, 0, sizeof(*r));
	if (rc)
		return rc;
	return kernel ? kernel->reserve(kb, pages, r) : -ENOSYS;
}

void hugetlb_release(struct hugetlb_resv *r)
{
	if (kernel && r->pages)
		kernel->release(r);
	memset(r, 0, sizeof(*r));
}
