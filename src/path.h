/* SPDX-License-Identifier: GPL-2.0-or-later */
/* path.h - every sysfs and procfs access, through one root prefix (--sysroot). */
#ifndef HUGEPAR_PATH_H
#define HUGEPAR_PATH_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Set the root prefix; NULL or "/" means the live system. */
void path_set_root(const char *root);
const char *path_root(void);

/* Build the prefixed path of a formatted relative path; -ENAMETOOLONG if too long. */
int path_build(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

bool path_exists(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Read a whole (small) file into buf, NUL terminated, trailing newline kept. */
int path_read(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Read one unsigned decimal from a file. */
int path_read_u64(uint64_t *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Write an unsigned decimal to a file (one write(2), as sysfs wants it). */
int path_write_u64(uint64_t val, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
DIR *path_opendir(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
