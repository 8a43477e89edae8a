/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mounts.c - hugetlbfs mounts for page sizes. systemd mounts only the default size
 * at /dev/hugepages; DPDK and libhugetlbfs want one mount per size. Idempotent: a
 * mount already there for the size is kept.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "text.h"
#include "file.h"
#include "mounts.h"
#include "parse.h"

/* A user or group: a number, or a name from the passwd and group files. */
static int resolve(const char *name, bool group, unsigned *id)
{
	uint64_t v;

	if (!name)
		return 1; /* not given */
	if (parse_u64(name, &v) == 0 && v < UINT32_MAX) {
		*id = (unsigned)v;
		return 0;
	}
	if (group) {
		struct group *g = getgrnam(name);

		if (!g)
			return -ENOENT;
		*id = g->gr_gid;
	} else {
		struct passwd *p = getpwnam(name);

		if (!p)
			return -ENOENT;
		*id = p->pw_uid;
	}
	return 0;
}

/* What is mounted at path now: its type and options, from /proc/self/mounts. */
static bool mounted(const char *path, char *type, size_t tlen, char *opts, size_t olen)
{
	char line[4096], mp[4096], ty[64], op[1024];
	FILE *f = fopen("/proc/self/mounts", "re");
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %4095s %63s %1023s", mp, ty, op) == 3 &&
		    strcmp(mp, path) == 0) {
			snprintf(type, tlen, "%s", ty); /* the last one is on top */
			snprintf(opts, olen, "%s", op);
			found = true;
		}
	fclose(f);
	return found;
}

int mounts_hugetlbfs(const struct hp_mount *m, const struct hp_topology *t, char *why,
		     size_t wlen)
{
	unsigned uid = 0, gid = 0, mode = m->has_mode ? m->mode : 0755;
	char opts[160], type[64], have[1024], size[32], want[48];
	int ru, rg, rc;

	text_size_kb(m->size_kb, size, sizeof(size));
	if (topology_size_index(t, m->size_kb) < 0) {
		snprintf(why, wlen, "the kernel offers no %s pages", size);
		return -EINVAL;
	}
	ru = resolve(m->owner, false, &uid);
	rg = resolve(m->group, true, &gid);
	if (ru < 0 || rg < 0) {
		snprintf(why, wlen, "no such %s '%s'", ru < 0 ? "user" : "group",
			 ru < 0 ? m->owner : m->group);
		return -ENOENT;
	}
	if (mounted(m->path, type, sizeof(type), have, sizeof(have))) {
		snprintf(want, sizeof(want), "pagesize=%s", size);
		if (strcmp(type, "hugetlbfs") || !strstr(have, want)) {
			snprintf(why, wlen,
				 "already a mount of %s (%.60s), not hugetlbfs for %s",
				 type, have, size);
			return -EBUSY;
		}
		/* the mount stays; its root gets the owner, group and mode asked for */
		if ((ru == 0 || rg == 0) && chown(m->path, ru == 0 ? uid : (unsigned)-1,
						  rg == 0 ? gid : (unsigned)-1))
			rc = -errno;
		else if (m->has_mode && chmod(m->path, mode))
			rc = -errno;
		else
			rc = 0;
		snprintf(why, wlen,
			 rc ? "mounted already; setting its owner or mode: %s"
			    : "hugetlbfs for %s mounted already",
			 rc ? strerror(-rc) : size);
		return rc ? rc : 1;
	}
	rc = file_mkdir_p(m->path);
	if (rc) {
		snprintf(why, wlen, "cannot make the directory: %s", strerror(-rc));
		return rc;
	}
	snprintf(opts, sizeof(opts), "pagesize=%lluK,mode=%o,uid=%u,gid=%u",
		 (unsigned long long)m->size_kb, mode, uid, gid);
	if (mount("hugetlbfs", m->path, "hugetlbfs", MS_NOSUID | MS_NODEV, opts)) {
		rc = -errno;
		snprintf(why, wlen, "mount -t hugetlbfs -o %s: %s", opts, strerror(-rc));
		return rc;
	}
	snprintf(why, wlen, "hugetlbfs for %s mounted (%s)", size, opts);
	return 0;
}
