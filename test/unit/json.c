/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.c - unit tests: the JSON reader and writer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "unit.h"

/* Every byte and every count hugepar writes, it reads back. */
static void test_json(void)
{
	struct json_out j;
	struct json_val v;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	json_begin(&j, f);
	json_open(&j, NULL, '{');
	json_str(&j, "s", "a\x80\xff\"\\\x01z");
	json_u64(&j, "n", UINT64_MAX);
	json_u64(&j, "m", UINT64_C(1) << 63);
	json_close(&j, '}');
	json_end(&j);
	fclose(f);
	CHECK(strchr(text, 0x80) == NULL && strchr(text, 0xff) == NULL);
	CHECK(json_parse(text, &v) == 0);
	CHECK(strcmp(json_get_str(&v, "s"), "a\x80\xff\"\\\x01z") == 0);
	CHECK(json_get_num(&v, "n") == UINT64_MAX);
	CHECK(json_get_num(&v, "m") == UINT64_C(1) << 63);
	json_free(&v);
	free(text);
	CHECK(json_parse("{\"n\": 18446744073709551616}", &v) == -EINVAL);
}

/* The writer's text, byte for byte: indents (deeper than one run of its spaces),
 * commas, numbers at their edges, escapes. */
static void test_json_text(void)
{
	struct json_out j;
	char *text = NULL, want[2048];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int d;

	json_begin(&j, f);
	json_open(&j, NULL, '{');
	json_i64(&j, "min", INT64_MIN);
	json_i64(&j, "neg", -7);
	json_u64(&j, "zero", 0);
	json_str(&j, "esc", "q\"b\\n\nt\tc\x1f~");
	for (d = 0; d < 20; d++)
		json_open(&j, "k", d % 2 ? '[' : '{');
	json_bool(&j, NULL, true);
	for (d = 19; d >= 0; d--)
		json_close(&j, d % 2 ? ']' : '}');
	json_open(&j, "empty", '[');
	json_close(&j, ']');
	json_close(&j, '}');
	json_end(&j);
	fclose(f);
	len = (size_t)snprintf(want, sizeof(want),
			       "{\n  \"min\": -9223372036854775808,\n"
			       "  \"neg\": -7,\n  \"zero\": 0,\n"
			       "  \"esc\": \"q\\\"b\\\\n\\nt\\tc\\u001f~\",");
	for (d = 0; d < 20; d++)
		len += (size_t)snprintf(want + len, sizeof(want) - len, "\n%*s\"k\": %c",
					2 * (d + 1), "", d % 2 ? '[' : '{');
	len += (size_t)snprintf(want + len, sizeof(want) - len, "\n%*strue", 42, "");
	for (d = 19; d >= 0; d--)
		len += (size_t)snprintf(want + len, sizeof(want) - len, "\n%*s%c",
					2 * (d + 1), "", d % 2 ? ']' : '}');
	snprintf(want + len, sizeof(want) - len, ",\n  \"empty\": []\n}\n");
	CHECK(strcmp(text, want) == 0);
	if (strcmp(text, want))
		fprintf(stderr, "got:\n%s\nwant:\n%s\n", text, want);
	free(text);
}

static const struct unit_test tests[] = {
    {"json", test_json},
    {"json_text", test_json_text},
    {NULL, NULL},
};
UNIT_MODULE(json, tests)
