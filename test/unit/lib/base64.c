/* SPDX-License-Identifier: GPL-2.0-or-later */
/* base64.c - unit tests: base64 decoded as binary credentials carry it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "unit.h"

static bool decodes(const char *in, const char *want, size_t want_len)
{
	char *out = NULL;
	size_t n = 0;
	bool ok = base64_decode(in, strlen(in), &out, &n) == 0 && n == want_len &&
		  memcmp(out, want, n) == 0 && out[n] == '\0';

	free(out);
	return ok;
}

static int refused(const char *in)
{
	char *out = NULL;
	size_t n;
	int rc = base64_decode(in, strlen(in), &out, &n);

	free(out);
	return rc;
}

UNIT_TEST(decode,
	  "padding optional, whitespace skipped, a NUL byte kept, garbage refused")
{
	CHECK(decodes("", "", 0));
	CHECK(decodes("aGVsbG8=", "hello", 5));
	CHECK(decodes("aGVsbG8", "hello", 5));
	CHECK(decodes("aGVs\nbG8=\n", "hello", 5));
	CHECK(decodes("cGFnZXMgPSAyTToxMDAK", "pages = 2M:100\n", 15));
	CHECK(decodes("AA==", "\0", 1));
	CHECK(decodes("/+8=", "\xff\xef", 2));
	CHECK(refused("aGVsbG8*") == -EINVAL);	 /* not of the alphabet */
	CHECK(refused("aGVsbG8=aa") == -EINVAL); /* data after padding */
	CHECK(refused("a") == -EINVAL);		 /* six bits are no byte */
	CHECK(refused("aGVsbG9=") == -EINVAL);	 /* bits left over that are not 0 */
	CHECK(refused("aGVsbG8===") == -EINVAL); /* three pads */
}
