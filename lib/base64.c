/* SPDX-License-Identifier: GPL-2.0-or-later */
/* base64.c - decoding base64 (base64.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "base64.h"

/* A character's six bits, -1 for whitespace, -2 for '=', -3 for anything else. */
static int sextet(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
		return -1;
	return c == '=' ? -2 : -3;
}

int base64_decode(const char *text, size_t len, char **out, size_t *out_len)
{
	char *buf = malloc(len / 4 * 3 + 4);
	uint32_t acc = 0;
	size_t n = 0;
	unsigned bits = 0, pads = 0;

	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		int v = sextet((unsigned char)text[i]);

		if (v == -1)
			continue;
		if (v == -3 || (v >= 0 && pads)) {
			free(buf);
			return -EINVAL;
		}
		if (v == -2) {
			pads++;
			continue;
		}
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf[n++] = (char)(acc >> bits & 0xff);
		}
	}
	/* six bits left over are a character too many; more than two pads, or bits
	 * that are not zero, are not base64 either */
	if (bits >= 6 || pads > 2 || (acc & ((1u << bits) - 1))) {
		free(buf);
		return -EINVAL;
	}
	buf[n] = '\0';
	*out = buf;
	*out_len = n;
	return 0;
}
