/* SPDX-License-Identifier: GPL-2.0-or-later */
/* path.c - every sysfs and procfs access, through one root prefix (--sysroot). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "text.h"
#include "idset.h"
#include "kinfo.h"
#include "parse.h"
#include "path.h"
#include "sys.h"

static char root[4096] = "";

/*
 * The files here are opened, read or written, and closed at once, never held across
 * a fork, and hugepar never execs: they are opened without O_CLOEXEC, which musl
 * follows with an fcntl() of its own, one more system call per file (a cost that
 * shows under emulation, where a system call is dear).
 */

void path_set_root(const char *r)
{
	size_t n;

	if (!r || strcmp(r, "/") == 0) {
		root[0] = '\0';
		return;
	}
	snprintf(root, sizeof(root), "%s", r);
	n = strlen(root);
	while (n > 0 && root[n - 1] == '/')
		root[--n] = '\0';
}

const char *path_root(void)
{
	return root[0] ? root : "/";
}

/* The path of fmt under base, or under the sysroot when base is NULL. */
static int vbuild_under(const char *base, char *buf, size_t len, const char *fmt,
			va_list ap)
{
	size_t n;
	int m;

	if (!base)
		base = root;
	n = strlen(base);
	while (n > 0 && base[n - 1] == '/')
		n--;
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, base, n);
	m = vsnprintf(buf + n, len - n, fmt, ap);
	if (m < 0 || (size_t)m >= len - n)
		return -ENAMETOOLONG;
	return 0;
}

static int vbuild(char *buf, size_t len, const char *fmt, va_list ap)
{
	return vbuild_under(NULL, buf, len, fmt, ap);
}

int path_build_under(const char *base, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vbuild_under(base, buf, len, fmt, ap);
	va_end(ap);
	return rc;
}

int path_build(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vbuild(buf, len, fmt, ap);
	va_end(ap);
	return rc;
}

bool path_exists(const char *fmt, ...)
{
	char p[4096];
	struct stat st;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vbuild(p, sizeof(p), fmt, ap);
	va_end(ap);
	return rc == 0 && stat(p, &st) == 0;
}

int path_resolve(char *out, size_t len, const char *fmt, ...)
{
	char p[4096], real[PATH_MAX], top[PATH_MAX];
	size_t n = 0;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vbuild(p, sizeof(p), fmt, ap);
	va_end(ap);
	if (rc)
		return rc;
	if (!realpath(p, real))
		return -errno;
	/* the root's own real path: it may sit behind a link (/tmp) */
	if (root[0]) {
		if (!realpath(root, top))
			return -errno;
		n = strlen(top);
		if (strncmp(real, top, n) || (real[n] && real[n] != '/'))
			return -EXDEV;
	}
	return text_snprintf(out, len, "%s", real[n] ? real + n : "/");
}

/* A read that gave nothing, or not a kernel file's text, of something that is not a
 * regular file (a FIFO, a device: a fixture's, under --sysroot): refused as such.
 * Asked only then: sysfs and procfs files are regular, and a system call on every
 * read is dear under emulation. */
static int not_regular(int fd, int rc)
{
	struct stat st;

	/* (a directory says so itself: EISDIR) */
	return fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)
		   ? -EBADFD
		   : rc;
}

static int read_built(char *buf, size_t len, const char *p)
{
	size_t got = 0;
	int fd, rc;

	/* without blocking: a FIFO in a file's place gives nothing, not a hang */
	fd = open(p, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	while (got + 1 < len) {
		ssize_t n = read(fd, buf + got, len - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = not_regular(fd, -errno);
			close(fd);
			return rc;
		}
		if (n == 0)
			break;
		got += n;
		/* A kernel attribute comes whole in one read, a line ending it: a read
		 * that did not fill the buffer and ended a line was the last. */
		if (got + 1 < len && buf[got - 1] == '\n')
			break;
	}
	buf[got] = '\0';
	/* text with a NUL in it would be read as the part before it */
	rc = memchr(buf, '\0', got) ? -EINVAL : got + 1 >= len ? -EFBIG : 0;
	if (rc || got == 0)
		rc = not_regular(fd, rc);
	close(fd);
	return rc;
}

static int vread(char *buf, size_t len, const char *fmt, va_list ap)
{
	char p[4096];
	int rc = vbuild(p, sizeof(p), fmt, ap);

	return rc ? rc : read_built(buf, len, p);
}

int path_read_under(const char *base, char *buf, size_t len, const char *fmt, ...)
{
	char p[4096];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vbuild_under(base, p, sizeof(p), fmt, ap);
	va_end(ap);
	return rc ? rc : read_built(buf, len, p);
}

const char *path_strerror(int rc)
{
	return rc == -EBADFD ? "not a regular file (a FIFO, a device)" : strerror(-rc);
}

int path_read(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vread(buf, len, fmt, ap);
	va_end(ap);
	return rc;
}

int path_read_u64(uint64_t *out, const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vread(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (rc)
		return rc;
	return parse_u64(parse_trim(buf), out);
}

int path_write_u64(uint64_t val, const char *fmt, ...)
{
	char p[4096], buf[32];
	va_list ap;
	int fd, rc, n;

	va_start(ap, fmt);
	rc = vbuild(p, sizeof(p), fmt, ap);
	va_end(ap);
	if (rc)
		return rc;
	n = snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)val);
	/* a FIFO with no reader in a file's place: ENXIO, not a hang */
	fd = open(p, O_WRONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	errno = 0;
	if (write(fd, buf, n) != n)
		rc = errno ? -errno : -EIO;
	if (close(fd) && !rc)
		rc = -errno;
	return rc;
}

int path_dir_open_under(struct path_dir *d, const char *base, const char *fmt, ...)
{
	char p[4096];
	va_list ap;
	int rc;

	d->fd = -1;
	d->pos = d->len = 0;
	va_start(ap, fmt);
	rc = vbuild_under(base, p, sizeof(p), fmt, ap);
	va_end(ap);
	if (rc)
		return rc;
	d->fd = open(p, O_RDONLY | O_DIRECTORY);
	return d->fd < 0 ? -errno : 0;
}

int path_dir_open(struct path_dir *d, const char *fmt, ...)
{
	char p[4096];
	va_list ap;
	int rc;

	d->fd = -1;
	d->pos = d->len = 0;
	va_start(ap, fmt);
	rc = vbuild(p, sizeof(p), fmt, ap);
	va_end(ap);
	if (rc)
		return rc;
	d->fd = open(p, O_RDONLY | O_DIRECTORY);
	return d->fd < 0 ? -errno : 0;
}

int path_dir_at(struct path_dir *d, int dirfd, const char *name)
{
	d->pos = d->len = 0;
	d->fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return d->fd < 0 ? -errno : 0;
}

/* The kernel's record of an entry (linux_dirent64 in getdents(2)). */
struct dirent64_rec {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

const char *path_dir_next(struct path_dir *d)
{
	for (;;) {
		const struct dirent64_rec *e;

		if (d->pos >= d->len) {
			long n = syscall(SYS_getdents64, d->fd, d->buf, sizeof(d->buf));

			if (n <= 0) {
				errno = n < 0 ? errno : 0;
				return NULL;
			}
			d->len = (unsigned)n;
			d->pos = 0;
		}
		e = (const struct dirent64_rec *)(d->buf + d->pos);
		d->pos += e->reclen;
		if (strcmp(e->name, ".") && strcmp(e->name, ".."))
			return e->name;
	}
}

void path_dir_close(struct path_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

int path_read_idlist(struct hp_idset *set, unsigned limit, const char *file)
{
	char buf[8192];
	int rc = path_read(buf, sizeof(buf), "%s", file);

	if (rc)
		return rc;
	return parse_idlist(buf, limit, set);
}

int path_read_meminfo(const char *file, uint64_t *total, uint64_t *free_)
{
	char buf[16384];
	uint64_t t, f;
	int rc = path_read(buf, sizeof(buf), "%s", file);

	/* the figures needed come first: a longer file is fine */
	if (rc && rc != -EFBIG)
		return rc;
	if (kinfo_meminfo_kb(buf, "MemTotal", &t) || kinfo_meminfo_kb(buf, "MemFree", &f))
		return -EINVAL;
	if (!mul_u64(t, 1024, total) || !mul_u64(f, 1024, free_))
		return -ERANGE;
	return 0;
}

int path_read_start(long pid, uint64_t *ticks)
{
	char buf[1024];
	int rc = path_read(buf, sizeof(buf), "/proc/%ld/stat", pid);

	return rc ? rc : sys_proc_start(buf, ticks);
}
