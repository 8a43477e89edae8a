/* SPDX-License-Identifier: GPL-2.0-or-later */
/* path.h - every sysfs and procfs access, through one root prefix (--sysroot). */
#ifndef HUGEPAR_PATH_H
#define HUGEPAR_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "idset.h"

/* The folder of hugepar's state: its record, its lock, its restore notes. It lives
 * in /run, which the initramfs hands to the booted system. */
#define HP_RUN_DIR "/run/hugepar"

/* Set the root prefix; NULL or "/" means the live system. */
void path_set_root(const char *root);
const char *path_root(void);

/* Build the prefixed path of a formatted relative path; -ENAMETOOLONG if too long. */
int path_build(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The same, and path_read(), path_dir_open(), under base rather than the sysroot
 * when base is not NULL: the files of a root to be (apply --root /sysroot). */
int path_build_under(const char *base, char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int path_read_under(const char *base, char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

bool path_exists(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The real path of a formatted relative path, every link followed, as a path under
 * the root ("/sys/devices/pci0000:00/0000:00:03.0/virtio0"): -EXDEV when the links
 * lead out of the root, -ENOENT when something on the way is missing. */
int path_resolve(char *out, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Read a whole (small) file into buf, NUL terminated, trailing newline kept: -EFBIG
 * when it does not fit, -EINVAL when it holds a NUL, -EBADFD for a FIFO or a device
 * that gives nothing at once or not a kernel file's text (never waited on). */
int path_read(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An error of the path layer in words: -EBADFD as "not a regular file". */
const char *path_strerror(int rc);
/* Read one unsigned decimal from a file. */
int path_read_u64(uint64_t *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Write an unsigned decimal to a file (one write(2), as sysfs wants it). */
int path_write_u64(uint64_t val, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A kernel id list file ("0-3,8"), ids below limit. */
int path_read_idlist(struct hp_idset *set, unsigned limit, const char *file);
/* When process pid started (/proc/PID/stat under the root: a fixture can carry
 * one), in clock ticks after boot. */
int path_read_start(long pid, uint64_t *ticks);
/* MemTotal and MemFree of a meminfo file (node or /proc form), in bytes. */
int path_read_meminfo(const char *file, uint64_t *total, uint64_t *free_);

/* A directory read with getdents64() into a buffer of its own: no DIR (musl's
 * fdopendir() adds an fstat(), two fcntl() and a heap block mapped and unmapped for
 * each directory: dear under emulation, where system calls and page faults are;
 * doc/benchmarks.md has what each costs). */
struct path_dir {
	int fd;
	unsigned pos, len;
	char buf[2048] __attribute__((aligned(8)));
};
int path_dir_open(struct path_dir *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int path_dir_open_under(struct path_dir *d, const char *base, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* name in the directory dirfd (not through a link). */
int path_dir_at(struct path_dir *d, int dirfd, const char *name);
/* The next entry's name, NULL at the end (or on an error: errno then). */
const char *path_dir_next(struct path_dir *d);
void path_dir_close(struct path_dir *d);

#endif
