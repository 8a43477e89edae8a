/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse.c - unit tests: the strict parsers, id lists and numbers. */
#include <errno.h>
#include <string.h>

#include "idset.h"
#include "kinfo.h"
#include "parse.h"
#include "unit.h"

static void test_idlist(void)
{
	struct hp_idset s;
	char buf[64];

	CHECK(parse_idlist("0-3,8,10-11\n", 64, &s) == 0 && idset_count(&s) == 7);
	CHECK(idset_has(&s, 3) && !idset_has(&s, 4) && idset_has(&s, 11));
	CHECK(idset_format(&s, buf, sizeof(buf)) == 0 && strcmp(buf, "0-3,8,10-11") == 0);
	CHECK(parse_idlist("", 64, &s) == 0 && idset_count(&s) == 0);
	CHECK(parse_idlist("\n", 64, &s) == 0 && idset_count(&s) == 0);
	CHECK(parse_idlist("3-1", 64, &s) == -EINVAL);
	CHECK(parse_idlist("1,", 64, &s) == -EINVAL);
	CHECK(parse_idlist("1-", 64, &s) == -EINVAL);
	CHECK(parse_idlist("-1", 64, &s) == -EINVAL);
	CHECK(parse_idlist("1 2", 64, &s) == -EINVAL);
	CHECK(parse_idlist("64", 64, &s) == -ERANGE);
	CHECK(parse_idlist("99999999999999999999", 64, &s) == -ERANGE);
	CHECK(parse_idlist("0-8191", HP_MAX_CPUS, &s) == 0 && idset_count(&s) == 8192);
	CHECK(idset_format(&s, buf, 4) == -ENOSPC);
}

static void test_numbers(void)
{
	uint64_t v;
	bool b;

	CHECK(parse_u64("18446744073709551615", &v) == 0 && v == UINT64_MAX);
	CHECK(parse_u64("18446744073709551616", &v) == -ERANGE);
	CHECK(parse_u64("", &v) == -EINVAL && parse_u64("+1", &v) == -EINVAL);
	CHECK(parse_u64("12a", &v) == -EINVAL);
	CHECK(parse_bytes("2M", &v) == 0 && v == 2u << 20);
	CHECK(parse_bytes("1G", &v) == 0 && v == 1u << 30);
	CHECK(parse_bytes("1GiB", &v) == 0 && v == 1u << 30);
	CHECK(parse_bytes("64g", &v) == 0 && v == UINT64_C(64) << 30);
	CHECK(parse_bytes("2048kB", &v) == 0 && v == 2u << 20);
	CHECK(parse_bytes("512", &v) == 0 && v == 512);
	CHECK(parse_bytes("16383P", &v) == 0 && v == UINT64_C(16383) << 50);
	CHECK(parse_bytes("16384P", &v) == -ERANGE);
	CHECK(parse_bytes("1X", &v) == -EINVAL && parse_bytes("1MB2", &v) == -EINVAL);
	CHECK(parse_bytes("M", &v) == -EINVAL);
	CHECK(parse_percent("50%", &v) == 0 && v == 5000);
	CHECK(parse_percent("12.5%", &v) == 0 && v == 1250);
	CHECK(parse_percent("0.01%", &v) == 0 && v == 1);
	CHECK(parse_percent("100%", &v) == 0 && v == 10000);
	CHECK(parse_percent("100.01%", &v) == -ERANGE);
	CHECK(parse_percent("1.234%", &v) == -EINVAL);
	CHECK(parse_percent("50", &v) == -EINVAL && parse_percent("5.%", &v) == -EINVAL);
	CHECK(parse_seconds("30", &v) == 0 && v == 30000);
	CHECK(parse_seconds("0.25", &v) == 0 && v == 250);
	CHECK(parse_seconds("2s", &v) == 0 && v == 2000);
	CHECK(parse_seconds("1.0001", &v) == -EINVAL);
	CHECK(parse_bool("yes", &b) == 0 && b && parse_bool("Off", &b) == 0 && !b);
	CHECK(parse_bool("2", &b) == -EINVAL);
}

static const struct unit_test tests[] = {
    {"idlist", test_idlist},
    {"numbers", test_numbers},
    {NULL, NULL},
};
UNIT_MODULE(parse, tests)
