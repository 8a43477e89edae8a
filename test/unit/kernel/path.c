/* SPDX-License-Identifier: GPL-2.0-or-later */
/* path.c - unit tests: the --sysroot prefix, reads, writes and directories under it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "idset.h"
#include "path.h"
#include "unit.h"

static char dir[] = "/tmp/hugepar-unit-path.XXXXXX";

/* A file under the temp root with these bytes (len of them: NULs too). */
static void put(const char *rel, const char *text, size_t len)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", dir, rel);
	f = fopen(p, "w");
	CHECK(f && fwrite(text, 1, len, f) == len);
	if (f)
		fclose(f);
}

#define PUT(rel, lit) put(rel, lit, sizeof(lit) - 1)

static int setup(void)
{
	char p[512];

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return -1;
	}
	snprintf(p, sizeof(p), "%s/sys", dir);
	mkdir(p, 0755);
	path_set_root(dir);
	return 0;
}

static void cleanup(void)
{
	char cmd[600];

	path_set_root(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

UNIT_TEST(root, "--sysroot prefixes every path; a root too long fails every access")
{
	char buf[64], *long_root;

	path_set_root(NULL);
	CHECK(strcmp(path_root(), "/") == 0);
	CHECK(path_build(buf, sizeof(buf), "/sys/%s", "a") == 0 &&
	      strcmp(buf, "/sys/a") == 0);
	path_set_root("/");
	CHECK(strcmp(path_root(), "/") == 0);
	path_set_root("");
	CHECK(strcmp(path_root(), "/") == 0);
	path_set_root("/tmp/x///");
	CHECK(strcmp(path_root(), "/tmp/x") == 0);
	CHECK(path_build(buf, sizeof(buf), "/sys/node%u", 3) == 0 &&
	      strcmp(buf, "/tmp/x/sys/node3") == 0);
	path_set_root("//");
	CHECK(strcmp(path_root(), "/") == 0);
	CHECK(path_build(buf, sizeof(buf), "/proc") == 0 && strcmp(buf, "/proc") == 0);

	/* "/tmp/x/abc" is 10 characters: 11 bytes fit, 10 do not, nor a root alone */
	path_set_root("/tmp/x");
	CHECK(path_build(buf, 11, "/abc") == 0 && strcmp(buf, "/tmp/x/abc") == 0);
	CHECK(path_build(buf, 10, "/abc") == -ENAMETOOLONG);
	CHECK(path_build(buf, 6, "%s", "") == -ENAMETOOLONG);
	CHECK(path_build(buf, 7, "%s", "") == 0 && strcmp(buf, "/tmp/x") == 0);

	/* A root longer than any path: every access fails, none is made shorter. */
	long_root = malloc(5001);
	memset(long_root, 'r', 5000);
	long_root[0] = '/';
	long_root[5000] = '\0';
	path_set_root(long_root);
	CHECK(path_build(buf, sizeof(buf), "/sys") == -ENAMETOOLONG);
	CHECK(!path_exists("/"));
	CHECK(path_read(buf, sizeof(buf), "/proc/meminfo") == -ENAMETOOLONG);
	free(long_root);
	path_set_root(NULL);
}

UNIT_TEST(read, "sysfs reads: the buffer's edge, numbers as sysfs gives them, NULs")
{
	char buf[8], big[64], p[512];
	uint64_t v = 7;

	if (setup())
		return;
	PUT("/sys/a", "42\n");
	CHECK(path_exists("/sys/a") && path_exists("/sys") && !path_exists("/sys/b"));
	CHECK(path_read(big, sizeof(big), "/sys/%s", "a") == 0 &&
	      strcmp(big, "42\n") == 0);
	CHECK(path_read(big, sizeof(big), "/sys/b") == -ENOENT);
	CHECK(path_read(big, sizeof(big), "/sys") == -EISDIR);
	PUT("/sys/empty", "");
	CHECK(path_read(big, sizeof(big), "/sys/empty") == 0 && big[0] == '\0');
	PUT("/sys/lines", "1\n2\n");
	CHECK(path_read(big, sizeof(big), "/sys/lines") == 0 &&
	      strcmp(big, "1\n2\n") == 0);
	/* the buffer's edge: 6 bytes in 8 fit; 10 do not, and what came is ended */
	PUT("/sys/six", "abcde\n");
	CHECK(path_read(buf, sizeof(buf), "/sys/six") == 0 &&
	      strcmp(buf, "abcde\n") == 0);
	PUT("/sys/ten", "abcdefghij");
	CHECK(path_read(buf, sizeof(buf), "/sys/ten") == -EFBIG &&
	      strcmp(buf, "abcdefg") == 0);

	/* numbers as sysfs gives them, and what it never gives */
	CHECK(path_read_u64(&v, "/sys/a") == 0 && v == 42);
	PUT("/sys/n", " 17 \n");
	CHECK(path_read_u64(&v, "/sys/n") == 0 && v == 17);
	PUT("/sys/n", "010\n");
	CHECK(path_read_u64(&v, "/sys/n") == 0 && v == 10); /* decimal, not octal */
	PUT("/sys/n", "18446744073709551615\n");
	CHECK(path_read_u64(&v, "/sys/n") == 0 && v == UINT64_MAX);
	v = 7;
	PUT("/sys/n", "18446744073709551616\n");
	CHECK(path_read_u64(&v, "/sys/n") == -ERANGE && v == 7);
	PUT("/sys/n", "99999999999999999999\n");
	CHECK(path_read_u64(&v, "/sys/n") == -ERANGE);
	CHECK(path_read_u64(&v, "/sys/empty") == -EINVAL);
	PUT("/sys/n", "\n");
	CHECK(path_read_u64(&v, "/sys/n") == -EINVAL);
	PUT("/sys/n", "-1\n");
	CHECK(path_read_u64(&v, "/sys/n") == -EINVAL);
	PUT("/sys/n", "0x10\n");
	CHECK(path_read_u64(&v, "/sys/n") == -EINVAL);
	PUT("/sys/n", "4 2\n");
	CHECK(path_read_u64(&v, "/sys/n") == -EINVAL);
	PUT("/sys/n", "1\n2\n");
	CHECK(path_read_u64(&v, "/sys/n") == -EINVAL);
	CHECK(path_read_u64(&v, "/sys/none") == -ENOENT && v == 7);
	/* a NUL would end the text early: "12" read for "12\0 34" */
	put("/sys/n", "12\0 34\n", 7);
	CHECK(path_read_u64(&v, "/sys/n") == -EINVAL && v == 7);
	CHECK(path_read(big, sizeof(big), "/sys/n") == -EINVAL);
	put("/sys/n", "\0", 1);
	CHECK(path_read_u64(&v, "/sys/n") == -EINVAL && v == 7);
	/* longer than any number: not cut to its first 63 bytes */
	memset(big, '0', sizeof(big));
	big[sizeof(big) - 2] = '1';
	put("/sys/n", big, sizeof(big));
	CHECK(path_read_u64(&v, "/sys/n") == -EFBIG && v == 7);

	snprintf(p, sizeof(p), "%s/sys/a", dir);
	CHECK(chmod(p, 0) == 0);
	if (geteuid() != 0)
		CHECK(path_read(big, sizeof(big), "/sys/a") == -EACCES);
	cleanup();
}

/* A link made under the temp root: LINK (relative to the root) pointing to TARGET. */
static int link_at(const char *target, const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s%s", dir, rel);
	return symlink(target, p);
}

UNIT_TEST(
    resolve,
    "real paths under the root: links inside it followed, links out refused, missing parts said")
{
	char out[256], cmd[512], alias[600];

	if (setup())
		return;
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s/sys/devices/pci0000:00/0000:00:03.0/virtio0/net/eth0'",
		 dir);
	CHECK(system(cmd) == 0);
	/* as the kernel links an interface to its device, and the class to it */
	CHECK(link_at("../../../virtio0",
		      "/sys/devices/pci0000:00/0000:00:03.0/virtio0/net/eth0/device") ==
	      0);
	CHECK(link_at("devices/pci0000:00/0000:00:03.0/virtio0/net/eth0", "/sys/eth0") ==
	      0);
	CHECK(path_resolve(out, sizeof(out), "/sys/eth0/device") == 0 &&
	      strcmp(out, "/sys/devices/pci0000:00/0000:00:03.0/virtio0") == 0);
	CHECK(path_resolve(out, sizeof(out), "/sys/eth0/device/..") == 0 &&
	      strcmp(out, "/sys/devices/pci0000:00/0000:00:03.0") == 0);
	CHECK(path_resolve(out, sizeof(out), "/") == 0 && strcmp(out, "/") == 0);
	CHECK(path_resolve(out, sizeof(out), "/sys/none") == -ENOENT);
	CHECK(path_resolve(out, 8, "/sys/eth0") == -ENOSPC);
	/* out of the root: an absolute link, or one that climbs past it */
	CHECK(link_at("/tmp", "/sys/abs") == 0 && link_at("../..", "/sys/up") == 0);
	CHECK(path_resolve(out, sizeof(out), "/sys/abs") == -EXDEV);
	CHECK(path_resolve(out, sizeof(out), "/sys/up") == -EXDEV);
	CHECK(link_at("nowhere", "/sys/dangling") == 0);
	CHECK(path_resolve(out, sizeof(out), "/sys/dangling") == -ENOENT);
	/* a root given by a link: the paths are still under it */
	snprintf(alias, sizeof(alias), "%s.alias", dir);
	CHECK(symlink(dir, alias) == 0);
	path_set_root(alias);
	CHECK(path_resolve(out, sizeof(out), "/sys/eth0/device") == 0 &&
	      strcmp(out, "/sys/devices/pci0000:00/0000:00:03.0/virtio0") == 0);
	unlink(alias);
	cleanup();
}

UNIT_TEST(write, "a number written whole; a missing file is an error, never made")
{
	char p[512], got[64];
	ssize_t n;
	int fd;

	if (setup())
		return;
	PUT("/sys/w", "");
	CHECK(path_write_u64(123, "/sys/%s", "w") == 0);
	snprintf(p, sizeof(p), "%s/sys/w", dir);
	fd = open(p, O_RDONLY);
	n = fd >= 0 ? read(fd, got, sizeof(got) - 1) : -1;
	got[n > 0 ? n : 0] = '\0';
	CHECK(n == 4 && strcmp(got, "123\n") == 0);
	if (fd >= 0)
		close(fd);
	PUT("/sys/w", "");
	CHECK(path_write_u64(UINT64_MAX, "/sys/w") == 0);
	CHECK(path_read(got, sizeof(got), "/sys/w") == 0 &&
	      strcmp(got, "18446744073709551615\n") == 0);
	/* never made: a missing sysfs file is an error, not a new file */
	CHECK(path_write_u64(1, "/sys/none") == -ENOENT && !path_exists("/sys/none"));
	CHECK(path_write_u64(1, "/sys") == -EISDIR);
	cleanup();
	/* a write the file refuses */
	CHECK(path_write_u64(5, "/dev/full") == -ENOSPC);
}

UNIT_TEST(dir, "a directory read past one getdents64 buffer, each entry once")
{
	struct path_dir d;
	const char *name;
	char p[512];
	unsigned seen[200] = {0}, n = 0, other = 0;

	if (setup())
		return;
	/* more entries than one getdents64() brings into the 2048-byte buffer */
	for (unsigned i = 0; i < 200; i++) {
		snprintf(p, sizeof(p), "%s/sys/entry-with-a-long-name-to-fill-%03u", dir,
			 i);
		CHECK(mkdir(p, 0755) == 0);
	}
	CHECK(path_dir_open(&d, "/%s", "sys") == 0);
	while ((name = path_dir_next(&d))) {
		unsigned i;

		if (sscanf(name, "entry-with-a-long-name-to-fill-%3u", &i) == 1 &&
		    i < 200)
			seen[i]++;
		else
			other++;
		n++;
	}
	CHECK(errno == 0);
	path_dir_close(&d);
	path_dir_close(&d); /* twice is harmless */
	CHECK(n == 200 && other == 0);
	for (unsigned i = 0; i < 200; i++)
		if (seen[i] != 1)
			CHECK(!"each entry once");

	snprintf(p, sizeof(p), "%s/empty", dir);
	mkdir(p, 0755);
	CHECK(path_dir_open(&d, "/empty") == 0);
	errno = EIO;
	CHECK(path_dir_next(&d) == NULL && errno == 0);
	path_dir_close(&d);
	CHECK(path_dir_open(&d, "/none") == -ENOENT && d.fd == -1);
	path_dir_close(&d);
	PUT("/file", "x\n");
	CHECK(path_dir_open(&d, "/file") == -ENOTDIR);
	cleanup();
}

UNIT_TEST(idlist, "a cpulist file read whole, or refused, never cut at a comma")
{
	struct hp_idset s;
	char *big;

	if (setup())
		return;
	PUT("/sys/online", "0-3,8\n");
	CHECK(path_read_idlist(&s, 64, "/sys/online") == 0 && idset_count(&s) == 5 &&
	      idset_has(&s, 8) && !idset_has(&s, 4));
	CHECK(path_read_idlist(&s, 8, "/sys/online") == -ERANGE);
	PUT("/sys/online", "\n");
	CHECK(path_read_idlist(&s, 64, "/sys/online") == 0 && idset_count(&s) == 0);
	PUT("/sys/online", "0-3,\n");
	CHECK(path_read_idlist(&s, 64, "/sys/online") == -EINVAL);
	PUT("/sys/online", "0-3\n\n");
	CHECK(path_read_idlist(&s, 64, "/sys/online") == -EINVAL);
	CHECK(path_read_idlist(&s, 64, "/sys/none") == -ENOENT);
	/* a list longer than the reader's 8 KiB is refused, not cut at a comma */
	big = malloc(10000);
	for (unsigned i = 0; i < 5000; i++)
		memcpy(big + 2 * i, "0,", 2);
	big[9999] = '\n';
	put("/sys/online", big, 10000);
	free(big);
	CHECK(path_read_idlist(&s, 64, "/sys/online") == -EFBIG);
	cleanup();
}

UNIT_TEST(meminfo, "a node's meminfo in bytes; missing or huge figures refused")
{
	uint64_t t = 1, f = 2;
	char *big;

	if (setup())
		return;
	PUT("/sys/mi", "Node 0 MemTotal:       4194304 kB\n"
		       "Node 0 MemFree:        3145728 kB\n"
		       "Node 0 MemUsed:        1048576 kB\n");
	CHECK(path_read_meminfo("/sys/mi", &t, &f) == 0 && t == 4294967296 &&
	      f == 3221225472);
	PUT("/sys/mi", "MemTotal: 16 kB\nMemFree: 0 kB\n");
	CHECK(path_read_meminfo("/sys/mi", &t, &f) == 0 && t == 16384 && f == 0);
	t = 1, f = 2;
	PUT("/sys/mi", "MemTotal: 16 kB\n");
	CHECK(path_read_meminfo("/sys/mi", &t, &f) == -EINVAL);
	PUT("/sys/mi", "MemFree: 16 kB\n");
	CHECK(path_read_meminfo("/sys/mi", &t, &f) == -EINVAL);
	PUT("/sys/mi", "MemTotal: x kB\nMemFree: 16 kB\n");
	CHECK(path_read_meminfo("/sys/mi", &t, &f) == -EINVAL && t == 1 && f == 2);
	/* bytes must fit in 64 bits: 2^54 - 1 kB does, 2^54 kB does not */
	PUT("/sys/mi", "MemTotal: 18014398509481983 kB\nMemFree: 1 kB\n");
	CHECK(path_read_meminfo("/sys/mi", &t, &f) == 0 && t == 18446744073709550592u &&
	      f == 1024);
	PUT("/sys/mi", "MemTotal: 18014398509481984 kB\nMemFree: 1 kB\n");
	CHECK(path_read_meminfo("/sys/mi", &t, &f) == -ERANGE);
	PUT("/sys/mi", "MemTotal: 1 kB\nMemFree: 18014398509481984 kB\n");
	CHECK(path_read_meminfo("/sys/mi", &t, &f) == -ERANGE);
	CHECK(path_read_meminfo("/sys/none", &t, &f) == -ENOENT);

	/* A meminfo past the 16 KiB buffer: the figures come first, so it is read;
	 * a figure past the buffer is not there. */
	big = malloc(20000);
	memset(big, ' ', 20000);
	memcpy(big, "MemTotal: 8 kB\nMemFree: 4 kB\n", 29);
	for (unsigned i = 100; i < 20000; i += 100)
		big[i] = '\n';
	put("/sys/mi", big, 20000);
	CHECK(path_read_meminfo("/sys/mi", &t, &f) == 0 && t == 8192 && f == 4096);
	memcpy(big, "MemTotal: 8 kB\n", 15);
	memset(big + 15, ' ', 14);
	memcpy(big + 17000, "\nMemFree: 4 kB\n", 15);
	put("/sys/mi", big, 20000);
	CHECK(path_read_meminfo("/sys/mi", &t, &f) == -EINVAL);
	free(big);
	cleanup();
}
