/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.c - unit tests: the JSON reader and writer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "unit.h"

/* Every byte and every count hugepar writes, it reads back. */
UNIT_TEST(json, "every byte and every count hugepar writes, it reads back")
{
	struct json_out j;
	struct json_val v;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	json_begin(&j, f);
	json_open(&j, NULL, '{');
	json_str(&j, "s", "a\x80\xff\"\\\x01z");
	json_str(&j, "u",
		 "hug\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7 \xc3(\x7f\xed\xa0\x80");
	json_u64(&j, "n", UINT64_MAX);
	json_u64(&j, "m", UINT64_C(1) << 63);
	json_close(&j, '}');
	json_end(&j);
	fclose(f);
	CHECK(strchr(text, 0x80) == NULL && strchr(text, 0xff) == NULL);
	CHECK(json_parse(text, &v) == 0);
	CHECK(strcmp(json_get_str(&v, "s"), "a\x80\xff\"\\\x01z") == 0);
	/* valid UTF-8 as it is; a cut sequence, DEL and a surrogate's bytes escaped */
	CHECK(strstr(text, "\"hug\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7 \\u00c3(\\u007f"
			   "\\u00ed\\u00a0\\u0080\"") != NULL);
	CHECK(strcmp(json_get_str(&v, "u"),
		     "hug\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7 \xc3(\x7f\xed\xa0\x80") ==
	      0);
	CHECK(json_get_num(&v, "n") == UINT64_MAX);
	CHECK(json_get_num(&v, "m") == UINT64_C(1) << 63);
	json_free(&v);
	free(text);
	CHECK(json_parse("{\"n\": 18446744073709551616}", &v) == -EINVAL);
}

/* The writer's text, byte for byte: indents (deeper than one run of its spaces),
 * commas, numbers at their edges, escapes. */
UNIT_TEST(text, "the writer's text byte for byte: indents, commas, numbers, escapes")
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

/* Text that is not whole JSON is refused, and leaves nothing behind. */
UNIT_TEST(truncated, "text that is not whole JSON is refused and leaves nothing behind")
{
	static const char *const bad[] = {
	    "",		"  \n",	     "{",	   "[",		 "{\"a\"",   "{\"a\":",
	    "{\"a\":1", "{\"a\":1,", "[1,",	   "[1,]",	 "\"abc",    "\"abc\\",
	    "\"\\u00",	"tru",	     "nul",	   "fals",	 "-",	     "{,}",
	    "{1:2}",	"{\"a\" 1}", "[1 2]",	   "{\"a\":1}}", "{} x",     "nullx",
	    "[nullx]",	"truefalse", "\"a\"\"b\"", "'a'",	 "{\"a\":}", "[,]",
	    "]",	"}",	     "{\"a\",1}",  "[\"a\":1]",
	};
	struct json_val v;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&v, 0xa5, sizeof(v));
		if (json_parse(bad[i], &v) != -EINVAL) {
			fprintf(stderr, "accepted: '%s'\n", bad[i]);
			CHECK(!"refused");
		}
		CHECK(v.type == JSON_NULL && v.n == 0 && v.kids == NULL &&
		      v.keys == NULL && v.str == NULL);
	}
}

UNIT_TEST(numbers, "counts up to 2^64-1, signs and leading zeros; larger ones refused")
{
	struct json_val v;

	CHECK(json_parse("18446744073709551615", &v) == 0 && v.type == JSON_NUM &&
	      !v.neg && v.num == UINT64_MAX);
	CHECK(json_parse("0", &v) == 0 && v.num == 0 && !v.neg);
	CHECK(json_parse("-0", &v) == 0 && v.num == 0 && v.neg);
	CHECK(json_parse("-18446744073709551615", &v) == 0 && v.neg &&
	      v.num == UINT64_MAX);
	CHECK(json_parse("007", &v) == 0 && v.num == 7); /* decimal, not octal */
	CHECK(json_parse("18446744073709551616", &v) == -EINVAL);
	CHECK(json_parse("-18446744073709551616", &v) == -EINVAL);
	CHECK(json_parse("99999999999999999999", &v) == -EINVAL);
	CHECK(json_parse("100000000000000000000", &v) == -EINVAL);
	CHECK(json_parse("- 1", &v) == -EINVAL && json_parse("+1", &v) == -EINVAL);
	CHECK(json_parse(".5", &v) == -EINVAL && json_parse("--1", &v) == -EINVAL);
	/* the whole part of a fraction hugepar never writes */
	CHECK(json_parse("[2.75, 3]", &v) == 0 && v.n == 2 && v.kids[0].num == 2 &&
	      v.kids[1].num == 3);
	json_free(&v);

	CHECK(json_parse("{\"n\": -5, \"s\": \"5\", \"b\": true, \"z\": null}", &v) == 0);
	CHECK(json_get_num(&v, "n") == 0); /* negative: not a count */
	CHECK(json_get_num(&v, "s") == 0 && json_get_num(&v, "b") == 0);
	CHECK(json_get_num(&v, "z") == 0 && json_get_num(&v, "none") == 0);
	CHECK(strcmp(json_get_str(&v, "s"), "5") == 0 &&
	      strcmp(json_get_str(&v, "n"), "") == 0);
	CHECK(json_get(&v, "b")->type == JSON_BOOL && json_get(&v, "b")->b);
	CHECK(json_get(&v, "z")->type == JSON_NULL);
	json_free(&v);
}

UNIT_TEST(strings, "escapes, long strings; raw control bytes and NUL escapes refused")
{
	struct json_val v;

	CHECK(json_parse("\"\\u0041\\u00e9\\u20ac\\/\\b\\f\\r\"", &v) == 0 &&
	      v.type == JSON_STR);
	/* a \u00XX escape is that byte (the writer's), a wider one a '?' */
	CHECK(strcmp(v.str, "A\xe9?/\b\f\r") == 0);
	json_free(&v);
	CHECK(json_parse("\"\xc3\xa9\x7f\"", &v) == 0 &&
	      strcmp(v.str, "\xc3\xa9\x7f") == 0);
	json_free(&v);
	CHECK(json_parse("\"\"", &v) == 0 && v.str && v.str[0] == '\0');
	json_free(&v);
	/* a string longer than the reader's first buffer, grown while it reads */
	{
		char text[1200], want[1100];

		memset(want, 'q', 1000);
		want[1000] = '\0';
		snprintf(text, sizeof(text), "\"%s\"", want);
		CHECK(json_parse(text, &v) == 0 && strcmp(v.str, want) == 0);
		json_free(&v);
	}
	CHECK(json_parse("\"a\tb\"", &v) == -EINVAL);  /* a raw tab */
	CHECK(json_parse("\"a\nb\"", &v) == -EINVAL);  /* a raw newline */
	CHECK(json_parse("\"\\x41\"", &v) == -EINVAL); /* not a JSON escape */
	CHECK(json_parse("\"\\U0041\"", &v) == -EINVAL);
	CHECK(json_parse("\"\\u004g\"", &v) == -EINVAL);
	CHECK(json_parse("\"\\u41\"", &v) == -EINVAL);
	/* a NUL would end the string early, "a" read for "a\0b": refused */
	CHECK(json_parse("\"a\\u0000b\"", &v) == -EINVAL);
	CHECK(json_parse("{\"k\\u0000x\": 1}", &v) == -EINVAL);
}

UNIT_TEST(shapes, "nesting up to 33 levels, duplicate keys, 1000 members each found")
{
	char deep[200];
	struct json_val v;
	const struct json_val *a;

	CHECK(json_parse(" \n\t{ \"a\" : [ 1 , {\"b\":2} ] , \"c\":{} } \n", &v) == 0);
	a = json_get(&v, "a");
	CHECK(a && a->type == JSON_ARR && a->n == 2 && a->keys == NULL);
	CHECK(a && json_get_num(&a->kids[1], "b") == 2 && json_get(a, "b") == NULL);
	CHECK(json_get(&v, "c") && json_get(&v, "c")->n == 0);
	CHECK(json_get(NULL, "a") == NULL && strcmp(json_get_str(NULL, "a"), "") == 0);
	json_free(&v);
	/* the first of two members of one name */
	CHECK(json_parse("{\"a\":1,\"a\":2}", &v) == 0 && v.n == 2 &&
	      json_get_num(&v, "a") == 1);
	json_free(&v);

	/* 33 levels are read, 34 are not: no stack to exhaust */
	memset(deep, '[', 33);
	memset(deep + 33, ']', 33);
	deep[66] = '\0';
	CHECK(json_parse(deep, &v) == 0 && v.type == JSON_ARR && v.n == 1);
	json_free(&v);
	memset(deep, '[', 34);
	memset(deep + 34, ']', 34);
	deep[68] = '\0';
	CHECK(json_parse(deep, &v) == -EINVAL);
	memset(deep, '{', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	CHECK(json_parse(deep, &v) == -EINVAL);

	/* many members, each found */
	{
		char *text = NULL, key[16];
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		struct json_out j;
		unsigned ok = 0;

		json_begin(&j, f);
		json_open(&j, NULL, '{');
		for (unsigned i = 0; i < 1000; i++) {
			snprintf(key, sizeof(key), "k%u", i);
			json_u64(&j, key, i * 7);
		}
		json_close(&j, '}');
		json_end(&j);
		fclose(f);
		CHECK(json_parse(text, &v) == 0 && v.n == 1000);
		for (unsigned i = 0; i < 1000; i++) {
			snprintf(key, sizeof(key), "k%u", i);
			ok += json_get_num(&v, key) == i * 7;
		}
		CHECK(ok == 1000);
		json_free(&v);
		free(text);
	}
}
