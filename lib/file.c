/* SPDX-License-Identifier: GPL-2.0-or-later */
/* file.c - reading and replacing small files safely, mkdir -p, a digest. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "text.h"
#include "file.h"
#include "parse.h"

static const char *file_kind(mode_t m)
{
	return S_ISDIR(m)    ? "a directory"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
			     : "not a plain file";
}

/* Read fd to its end into a buffer of its own, at most max bytes (-EFBIG past them).
 * The size fstat gave is only a first guess: a procfs file says 0 and has text, and
 * a file may grow while it is read. */
static int read_all(int fd, size_t size, size_t max, char **out, size_t *len)
{
	size_t got = 0, cap = size ? size + 1 : 4096;
	char *buf = NULL;

	for (;;) {
		ssize_t n;

		if (got == cap || !buf) {
			char *nb;

			if (buf && got > max)
				break;
			cap = buf ? cap * 2 : cap;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		n = read(fd, buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got > max) {
		free(buf);
		return -EFBIG;
	}
	buf[got] = '\0';
	*out = buf;
	*len = got;
	return 0;
}

int file_read_regular(const char *file, size_t max, char **out, size_t *len,
		      const char **kind)
{
	struct stat st;
	int fd, rc = 0;

	*out = NULL;
	*len = 0;
	*kind = NULL;
	fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		rc = -errno;
		if (rc == -ENOENT && lstat(file, &st) == 0 && S_ISLNK(st.st_mode))
			*kind = "a symbolic link to nothing";
		return rc;
	}
	if (fstat(fd, &st)) {
		rc = -errno;
	} else if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) {
		st.st_size = 0; /* /dev/null: "no file", as tools take it */
	} else if (!S_ISREG(st.st_mode)) {
		*kind = file_kind(st.st_mode);
		rc = -EINVAL;
	} else if ((uint64_t)st.st_size > max) {
		rc = -EFBIG;
	}
	if (!rc)
		rc = read_all(fd, (size_t)st.st_size, max, out, len);
	close(fd);
	return rc;
}

uint64_t file_hash64(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

int file_mkdir_p(const char *path)
{
	char buf[4096];

	if (text_snprintf(buf, sizeof(buf), "%s", path))
		return -ENAMETOOLONG;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(buf, 0755) && errno != EEXIST ? -errno : 0;
}

/* The end of both replacers: on success rename tmp over file; on a failure, or a
 * rename that fails, remove tmp. rc is what went before. */
static int settle_tmp(const char *tmp, const char *file, int rc)
{
	if (!rc && rename(tmp, file))
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}

int file_replace_with(const char *file, void (*body)(FILE *f, const void *arg),
		      const void *arg)
{
	const char *base = strrchr(file, '/');
	char tmp[4200], buf[1 << 16];
	FILE *f;
	int fd, rc = 0;

	/* hidden, so that no reader of the directory takes it for the file */
	base = base ? base + 1 : file;
	if (snprintf(tmp, sizeof(tmp), "%.*s.%s.XXXXXX", (int)(base - file), file,
		     base) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		rc = -errno;
		close(fd);
		unlink(tmp);
		return rc;
	}
	/* one write for any file up to 64 KiB, from a buffer on the stack */
	setvbuf(f, buf, _IOFBF, sizeof(buf));
	body(f, arg);
	rc = fflush(f) || fchmod(fd, 0644) ? -errno : 0;
	if (fclose(f) && !rc)
		rc = -errno;
	/* No fsync: these files live on a tmpfs (/run); the rename makes them whole. */
	return settle_tmp(tmp, file, rc);
}

int file_replace(const char *file, const char *tmp, const char *text, size_t len)
{
	int fd, rc = 0;
	ssize_t n;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n != (ssize_t)len)
		rc = n < 0 ? -errno : -EIO; /* ENOSPC said as such */
	/* /run is a tmpfs: the rename is what makes the file whole */
	if (close(fd) && !rc)
		rc = -errno;
	return settle_tmp(tmp, file, rc);
}
