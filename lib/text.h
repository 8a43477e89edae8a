/* SPDX-License-Identifier: GPL-2.0-or-later */
/* text.h - text for people: sizes in their human form, printable text, bounded formats. */
#ifndef HUGEPAR_TEXT_H
#define HUGEPAR_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Human form of a size in kB: "2M", "1G", "64K". */
void text_size_kb(uint64_t kb, char *buf, size_t len);
/* Human form of bytes with one decimal: "1.5G", "512M", "800K". */
void text_bytes(uint64_t bytes, char *buf, size_t len);

/* The length of the valid UTF-8 sequence at s (1 to 4 bytes, RFC 3629: no overlong
 * form, no surrogate, nothing past U+10FFFF), or 0 when the bytes there are not one
 * (or s is at its end). */
size_t text_utf8_len(const char *s);
/* Text for a terminal or a log: each control character (but the newline), DEL, C1
 * control and byte that is not valid UTF-8 becomes '?', in place. */
void text_printable(char *s);
/* fputs() of text_printable()'s form of s. */
void text_put_printable(FILE *f, const char *s);

/* snprintf that reports truncation as -ENOSPC. */
int text_snprintf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
