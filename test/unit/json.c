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

const struct unit_test unit_json[] = {
    {"json", test_json},
    {NULL, NULL},
};
