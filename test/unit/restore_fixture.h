/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * restore_fixture.h - for test/unit/kernel/restore.c and restore_note.c: a temp root of one
 * node with a 2M pool, under the simulated kernel or not, and the look at its files.
 */
#ifndef HUGEPAR_RESTORE_FIXTURE_H
#define HUGEPAR_RESTORE_FIXTURE_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"
#include "hugetlb.h"
#include "path.h"
#include "restore.h"
#include "sim.h"
#include "unit.h"

static __attribute__((unused)) char root[64];

/* A file under the root, and the directories above it. */
static __attribute__((unused)) void put(const char *rel, const char *text)
{
	char p[256], *slash;
	size_t len = strlen(text);
	int fd;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	slash = strrchr(p, '/');
	*slash = '\0';
	file_mkdir_p(p);
	*slash = '/';
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	CHECK(fd >= 0 && write(fd, text, len) == (ssize_t)len);
	if (fd >= 0)
		close(fd);
}

static __attribute__((unused)) char *at(const char *rel)
{
	static __attribute__((unused)) char p[256];

	snprintf(p, sizeof(p), "%s%s", root, rel);
	return p;
}

#define SYS_2M "/sys/kernel/mm/hugepages/hugepages-2048kB/"
#define NODE0  "/sys/devices/system/node/node0/"
#define NOTE   "/run/hugepar/restore-2048kB"

/*
 * A temp root: one node of two CPUs and 1G with 10 2M pages, nr_overcommit_hugepages
 * 5, as test/mkfixture.sh writes it, under the simulated kernel when sim is set.
 */
static __attribute__((unused)) void fixture(bool sim)
{
	strcpy(root, "/tmp/hugepar-restore.XXXXXX");
	if (!mkdtemp(root)) {
		CHECK(!"mkdtemp");
		exit(1);
	}
	put("/proc/meminfo", "MemTotal:       1048576 kB\nMemFree:        819200 kB\n"
			     "Hugepagesize:       2048 kB\n");
	put("/proc/sys/kernel/osrelease", "6.1.0\n");
	put("/sys/devices/system/cpu/online", "0-1\n");
	put("/sys/devices/system/node/online", "0\n");
	put("/sys/devices/system/node/possible", "0\n");
	put("/sys/devices/system/node/has_cpu", "0\n");
	put("/sys/devices/system/node/has_memory", "0\n");
	put(NODE0 "cpulist", "0-1\n");
	put(NODE0 "meminfo", "Node 0 MemTotal:       1048576 kB\n"
			     "Node 0 MemFree:        819200 kB\n"
			     "Node 0 MemUsed:        229376 kB\n");
	put(NODE0 "hugepages/hugepages-2048kB/nr_hugepages", "10\n");
	put(NODE0 "hugepages/hugepages-2048kB/free_hugepages", "10\n");
	put(NODE0 "hugepages/hugepages-2048kB/surplus_hugepages", "0\n");
	put(SYS_2M "nr_hugepages", "10\n");
	put(SYS_2M "free_hugepages", "10\n");
	put(SYS_2M "surplus_hugepages", "0\n");
	put(SYS_2M "resv_hugepages", "0\n");
	put(SYS_2M "nr_overcommit_hugepages", "5\n");
	path_set_root(root);
	if (sim) {
		CHECK(sim_open() == 0);
		hugetlb_use(&sim_hugetlb);
	}
}

static __attribute__((unused)) int rm_one(const char *p, const struct stat *st, int flag,
					  struct FTW *f)
{
	return remove(p);
}

static __attribute__((unused)) void cleanup(void)
{
	restore_run_unlock();
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The overcommit value the kernel has now, or a value no test sets. */
static __attribute__((unused)) uint64_t overcommit(void)
{
	struct hp_global g;

	return hugetlb_global(2048, &g) ? 999999 : g.overcommit;
}

static __attribute__((unused)) bool exists(const char *rel)
{
	struct stat st;

	return lstat(at(rel), &st) == 0;
}

/* The whole text of a file under the root, "" when it cannot be read. */
static __attribute__((unused)) const char *text_of(const char *rel)
{
	static __attribute__((unused)) char buf[256];

	if (path_read(buf, sizeof(buf), "%s", rel))
		buf[0] = '\0';
	return buf;
}

#endif
