/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse.h - strict parsers: the whole string, no sign, no overflow; and human forms of sizes. */
#ifndef HUGEPAR_PARSE_H
#define HUGEPAR_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "idset.h"

/* "0-3,8,10-11" (a kernel cpulist/nodelist; empty or "\n" is the empty set). Ids must be
 * below limit. Returns 0 or -EINVAL / -ERANGE. */
int parse_idlist(const char *str, unsigned limit, struct hp_idset *out);

/* A decimal number at *p, advancing it past: at least one digit, no overflow. */
int parse_u64_at(const char **p, uint64_t *out);

/* Decimal unsigned integer, whole string, no sign, no overflow. */
int parse_u64(const char *str, uint64_t *out);

/* An octal number ("0770", "1777"). */
int parse_octal(const char *str, uint64_t *out);
/* A hexadecimal number, with or without 0x (sysfs writes block_size_bytes so). */
int parse_hex(const char *str, uint64_t *out);

/* A PCI address as sysfs names a device, "DDDD:BB:DD.F" (a domain of 4 to 8 hex
 * digits, hex in either case), written to canon as the kernel writes it ("%04x:%02x:
 * %02x.%x"). -EINVAL when malformed, -ERANGE for a slot above 1f or a function above
 * 7, -ENOSPC when canon is too short. */
int parse_pci_addr(const char *str, char *canon, size_t len);

/* A memory amount in bytes: "512", "64K", "2M", "1G", "1T", "1P" with optional "B" or
 * "iB" (binary multiples), or "kB" as sysfs writes it. Result must fit in 64 bits. */
int parse_bytes(const char *str, uint64_t *out);

/* A percentage "50%" or "12.5%" (at most two decimals, 0..100) in hundredths. */
int parse_percent(const char *str, uint64_t *out_hundredths);

/* A duration in milliseconds: seconds "30", "0.5" (at most three decimals), or parts
 * with units as systemd writes them, "90s", "2min", "1m30s", "1min 30s", "500ms",
 * "1h" (ms, s, sec, m, min, h). */
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

/* a + b, or UINT64_MAX when it does not fit (*over set then): for totals that are
 * only shown, where "more than 2^64 - 1" is the truth and a wrapped sum is not. */
static inline uint64_t add_sat(uint64_t a, uint64_t b, bool *over)
{
	uint64_t r;

	if (__builtin_add_overflow(a, b, &r)) {
		*over = true;
		return UINT64_MAX;
	}
	return r;
}

/* Trim leading and trailing whitespace in place; returns the start. */
char *parse_trim(char *s);
/* The next word of a kernel command line at *p into word (room for the whole line),
 * by the kernel's rules: double quotes may enclose spaces, and are dropped; nothing
 * is cut. False at the end. */
bool parse_cmdline_word(const char **p, char *word);

#endif
