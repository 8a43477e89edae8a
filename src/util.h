/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.h - strict parsers and small helpers shared by every part of hugepar. */
#ifndef HUGEPAR_UTIL_H
#define HUGEPAR_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HP_MAX_NODES 1024 /* MAX_NUMNODES on x86_64 with NODES_SHIFT=10 */
#define HP_MAX_CPUS  8192

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b)     ((a) < (b) ? (a) : (b))
#define MAX(a, b)     ((a) > (b) ? (a) : (b))

/* A set of small integers (node or CPU ids), as a fixed bitmap. */
struct hp_idset {
	uint64_t bits[HP_MAX_CPUS / 64];
};

static inline void idset_add(struct hp_idset *s, unsigned id)
{
	s->bits[id / 64] |= UINT64_C(1) << (id % 64);
}

static inline bool idset_has(const struct hp_idset *s, unsigned id)
{
	return id < HP_MAX_CPUS && (s->bits[id / 64] >> (id % 64)) & 1;
}

unsigned idset_count(const struct hp_idset *s);
void idset_and(struct hp_idset *s, const struct hp_idset *o);
/* Format as a list "0-3,8"; returns -ENOSPC when it does not fit. */
int idset_format(const struct hp_idset *s, char *buf, size_t len);

/* "0-3,8,10-11" (a kernel cpulist/nodelist; empty or "\n" is the empty set). Ids must be
 * below limit. Returns 0 or -EINVAL / -ERANGE. */
int parse_idlist(const char *str, unsigned limit, struct hp_idset *out);

/* Decimal unsigned integer, whole string, no sign, no overflow. */
int parse_u64(const char *str, uint64_t *out);

/* An octal number ("0770", "1777"). */
int parse_octal(const char *str, uint64_t *out);
/* A hexadecimal number, with or without 0x (sysfs writes block_size_bytes so). */
int parse_hex(const char *str, uint64_t *out);

/* A memory amount in bytes: "512", "64K", "2M", "1G", "1T", "1P" with optional "B" or
 * "iB" (binary multiples), or "kB" as sysfs writes it. Result must fit in 64 bits. */
int parse_bytes(const char *str, uint64_t *out);

/* A percentage "50%" or "12.5%" (at most two decimals, 0..100) in hundredths. */
int parse_percent(const char *str, uint64_t *out_hundredths);

/* A duration in seconds "30", "0.5" (at most three decimals) in milliseconds. */
int parse_seconds(const char *str, uint64_t *out_ms);

/* A boolean as dracut's getargbool takes it: 0/1, no/yes, off/on, false/true. */
int parse_bool(const char *str, bool *out);

/* Overflow-checked arithmetic: return false when the result does not fit. */
static inline bool mul_u64(uint64_t a, uint64_t b, uint64_t *r)
{
	return !__builtin_mul_overflow(a, b, r);
}

static inline bool add_u64(uint64_t a, uint64_t b, uint64_t *r)
{
	return !__builtin_add_overflow(a, b, r);
}

/* The kB figure of "Key:" in a meminfo text, node form ("Node 0 MemFree:") or /proc
 * form. -ENOENT when the key is not there. */
int meminfo_kb(const char *text, const char *key, uint64_t *kb);

/*
 * Read a whole regular file into a NUL-terminated buffer (it may hold NUL bytes of
 * its own: compare strlen with *len). Opened without blocking and checked with
 * fstat, so a FIFO or a device cannot hang the caller: for those -EINVAL and *kind
 * says what it is ("a FIFO", "a directory"...); a symbolic link to nothing gives
 * -ENOENT with *kind set; -EFBIG when larger than max. /dev/null reads as empty.
 */
int read_regular(const char *file, size_t max, char **out, size_t *len,
		 const char **kind);

/* mkdir -p with mode 0755; 0 or -errno. */
int mkdir_p(const char *path);

/* Write len bytes of text to tmp (made 0644, not through a link), then rename it
 * over file: readers see the old file or the whole new one. 0 or -errno. */
int replace_file(const char *file, const char *tmp, const char *text, size_t len);

/* A process that has exited: gone, or a zombie nobody has reaped yet (its memory,
 * and so its huge page reservations, are released at exit, before reaping). */
bool pid_gone(pid_t pid);

/* FNV-1a, 64 bits: a digest to tell files apart (not against tampering). Start with
 * FNV1A64_INIT. */
#define FNV1A64_INIT UINT64_C(0xcbf29ce484222325)
uint64_t fnv1a64(uint64_t h, const void *data, size_t len);

/* Whether a kernel release ("6.12.48+deb13-amd64") is at least major.minor. */
bool release_at_least(const char *release, unsigned major, unsigned minor);

/* Human form of a size in kB: "2M", "1G", "64K". */
void format_size_kb(uint64_t kb, char *buf, size_t len);
/* Human form of bytes with one decimal: "1.5G", "512M", "800K". */
void format_bytes(uint64_t bytes, char *buf, size_t len);

/* Trim leading and trailing whitespace in place; returns the start. */
char *strtrim(char *s);

/* snprintf that reports truncation as -ENOSPC. */
int xsnprintf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Monotonic and boot clocks in milliseconds. */
uint64_t now_ms(void);
uint64_t now_us(void);
uint64_t boottime_ms(void);

#endif
