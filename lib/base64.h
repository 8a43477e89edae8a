/* SPDX-License-Identifier: GPL-2.0-or-later */
/* base64.h - decoding base64 (RFC 4648's alphabet), as binary credentials carry it. */
#ifndef HUGEPAR_BASE64_H
#define HUGEPAR_BASE64_H

#include <stddef.h>

/* Decode len bytes of base64 text into a new buffer (NUL-terminated beyond *out_len,
 * to free). Whitespace is skipped and padding is optional; anything else that is not
 * of the alphabet, data after padding, or a lone last character is -EINVAL. 0, or
 * -EINVAL, -ENOMEM. */
int base64_decode(const char *text, size_t len, char **out, size_t *out_len);

#endif
