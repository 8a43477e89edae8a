/* SPDX-License-Identifier: GPL-2.0-or-later */
/* file.h - reading and replacing small files safely, mkdir -p, a digest. */
#ifndef HUGEPAR_FILE_H
#define HUGEPAR_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Read a whole regular file into a NUL-terminated buffer (it may hold NUL bytes of
 * its own: compare strlen with *len). Opened without blocking and checked with
 * fstat, so a FIFO or a device cannot hang the caller: for those -EINVAL and *kind
 * says what it is ("a FIFO", "a directory"...); a symbolic link to nothing gives
 * -ENOENT with *kind set; -EFBIG when larger than max. /dev/null reads as empty.
 */
int file_read_regular(const char *file, size_t max, char **out, size_t *len,
		      const char **kind);

/* Files here are opened with O_CLOEXEC: they are settings and state files of any
 * caller, which may hold them across a fork and an exec. The kernel files of the
 * path layer (src/kernel/path.c) are opened without it, because each is opened,
 * read or written and closed at once and hugepar never execs, and musl pays an
 * extra fcntl() for the flag. */

/* mkdir -p with mode 0755; 0 or -errno. */
int file_mkdir_p(const char *path);

/* Write len bytes of text to tmp (made 0644, not through a link), then rename it
 * over file: readers see the old file or the whole new one. 0 or -errno. */
int file_replace(const char *file, const char *tmp, const char *text, size_t len);

/* What body prints, to a hidden temp file of a unique name beside file (0644), then
 * renamed over it: readers see the old file or the whole new one. Buffered in 64 KiB
 * on the stack (musl's own buffer is 1 KiB: a write each). 0 or -errno. */
int file_replace_with(const char *file, void (*body)(FILE *f, const void *arg),
		      const void *arg);

/* FNV-1a, 64 bits: a digest to tell files apart (not against tampering). Start with
 * FNV1A64_INIT. */
#define FNV1A64_INIT UINT64_C(0xcbf29ce484222325)
uint64_t file_hash64(uint64_t h, const void *data, size_t len);

#endif
