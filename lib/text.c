/* SPDX-License-Identifier: GPL-2.0-or-later */
/* text.c - text for people: sizes in their human form, printable text, bounded formats. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "macros.h"
#include "text.h"

void text_size_kb(uint64_t kb, char *buf, size_t len)
{
	static const char units[] = "KMGTP";
	int u = 0;

	while (kb >= 1024 && kb % 1024 == 0 && units[u + 1]) {
		kb /= 1024;
		u++;
	}
	snprintf(buf, len, "%llu%c", (unsigned long long)kb, units[u]);
}

void text_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "BKMGTPE";
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && units[u + 1]) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%lluB", (unsigned long long)bytes);
	else if (v == (double)(uint64_t)v)
		snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
	else
		snprintf(buf, len, "%.1f%c", v, units[u]);
}

size_t text_utf8_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] && s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* the second byte's range rules out overlong forms, surrogates and what is
	 * past U+10FFFF */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

void text_printable(char *str)
{
	unsigned char *s = (unsigned char *)str;

	while (*s) {
		size_t n = text_utf8_len((const char *)s);

		/* C1 controls are U+0080 to U+009F: 0xc2 0x80 to 0xc2 0x9f */
		if (n == 0 || (n == 1 && ((*s < 0x20 && *s != '\n') || *s == 0x7f)) ||
		    (n == 2 && s[0] == 0xc2 && s[1] < 0xa0)) {
			*s++ = '?';
			if (n == 2)
				*s++ = '?';
			continue;
		}
		s += n;
	}
}

void text_put_printable(FILE *f, const char *s)
{
	char buf[1024];

	while (*s) {
		size_t n = 0;

		/* whole sequences only: one is never cut between two buffers */
		while (s[n] && n + 4 < sizeof(buf))
			n += text_utf8_len(s + n) ? text_utf8_len(s + n) : 1;
		memcpy(buf, s, n);
		buf[n] = '\0';
		text_printable(buf);
		fputs(buf, f);
		s += n;
	}
}

int text_snprintf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	return 0;
}
