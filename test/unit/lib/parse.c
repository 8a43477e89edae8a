/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse.c - unit tests: the strict parsers, id lists and numbers. */
#include <errno.h>
#include <string.h>

#include "text.h"
#include "idset.h"
#include "kinfo.h"
#include "parse.h"
#include "unit.h"

UNIT_TEST(idlist, "cpulists: ranges, empty lists, bad forms and ids out of range")
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

UNIT_TEST(numbers, "counts, byte sizes, shares, seconds and booleans, strictly")
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

/* Id lists the kernel never writes. */
UNIT_TEST(idlist_hostile, "id lists the kernel never writes: refused, or cleared first")
{
	struct hp_idset s;

	memset(&s, 0xff, sizeof(s));
	CHECK(parse_idlist("", 64, &s) == 0 && idset_count(&s) == 0); /* cleared first */
	CHECK(parse_idlist("00-03,007", 64, &s) == 0 && idset_count(&s) == 5 &&
	      idset_has(&s, 7) && !idset_has(&s, 4));
	CHECK(parse_idlist("5,3,3,1-1", 64, &s) == 0 && idset_count(&s) == 3);
	CHECK(parse_idlist("0,,1", 64, &s) == -EINVAL);
	CHECK(parse_idlist(",1", 64, &s) == -EINVAL);
	CHECK(parse_idlist("1-2-3", 64, &s) == -EINVAL);
	CHECK(parse_idlist("1\n\n", 64, &s) == -EINVAL);
	CHECK(parse_idlist("\n1", 64, &s) == -EINVAL);
	CHECK(parse_idlist(" ", 64, &s) == -EINVAL);
	CHECK(parse_idlist("1 ", 64, &s) == -EINVAL);
	CHECK(parse_idlist("0x1", 64, &s) == -EINVAL);
	CHECK(parse_idlist("1--2", 64, &s) == -EINVAL);
	/* a range to the end of 64 bits is refused before any id is set */
	CHECK(parse_idlist("0-18446744073709551615", 64, &s) == -ERANGE);
	CHECK(parse_idlist("0-18446744073709551616", 64, &s) == -ERANGE);
	CHECK(parse_idlist("18446744073709551616", 64, &s) == -ERANGE);
	CHECK(parse_idlist("0", 0, &s) == -ERANGE);
	/* a limit past the bitmap is the bitmap's */
	CHECK(parse_idlist("8191", 100000, &s) == 0 && idset_has(&s, 8191));
	CHECK(parse_idlist("8192", 100000, &s) == -ERANGE);
}

/* Numbers at their edges: leading zeros, twenty digits, signs, blanks. */
UNIT_TEST(numbers_hostile, "numbers at their edges; the cursor moves only past a number")
{
	const char *p, *str;
	uint64_t v;

	CHECK(parse_u64("0", &v) == 0 && v == 0);
	CHECK(parse_u64("007", &v) == 0 && v == 7); /* decimal, not octal */
	CHECK(parse_u64("000000000000000000000000000001", &v) == 0 && v == 1);
	CHECK(parse_u64("00018446744073709551615", &v) == 0 && v == UINT64_MAX);
	CHECK(parse_u64("99999999999999999999", &v) == -ERANGE);
	CHECK(parse_u64("100000000000000000000", &v) == -ERANGE);
	v = 5;
	CHECK(parse_u64("184467440737095516150", &v) == -ERANGE && v == 5);
	CHECK(parse_u64(" 1", &v) == -EINVAL && parse_u64("1 ", &v) == -EINVAL);
	CHECK(parse_u64("1\n", &v) == -EINVAL && parse_u64("-0", &v) == -EINVAL);
	CHECK(parse_u64("0x1", &v) == -EINVAL && parse_u64("1e3", &v) == -EINVAL);
	CHECK(parse_u64("\xef\xbc\x91", &v) == -EINVAL); /* a fullwidth digit one */

	/* the cursor moves past the digits only when they make a number */
	str = "12,3";
	p = str;
	CHECK(parse_u64_at(&p, &v) == 0 && v == 12 && p == str + 2);
	str = "x1";
	p = str;
	CHECK(parse_u64_at(&p, &v) == -EINVAL && p == str);
	str = "18446744073709551616,";
	p = str;
	v = 5;
	CHECK(parse_u64_at(&p, &v) == -ERANGE && p == str && v == 5);

	CHECK(parse_octal("0", &v) == 0 && v == 0);
	CHECK(parse_octal("0770", &v) == 0 && v == 0770);
	CHECK(parse_octal("1777", &v) == 0 && v == 01777);
	CHECK(parse_octal("0001777", &v) == 0 && v == 01777);
	CHECK(parse_octal("", &v) == -EINVAL && parse_octal("8", &v) == -EINVAL);
	CHECK(parse_octal("-1", &v) == -EINVAL && parse_octal("0o7", &v) == -EINVAL);
	CHECK(parse_octal("17 ", &v) == -EINVAL);
	/* all 64 bits: 2^63 and 2^64 - 1 fit, 2^64 does not */
	CHECK(parse_octal("1000000000000000000000", &v) == 0 &&
	      v == 9223372036854775808u);
	CHECK(parse_octal("1777777777777777777777", &v) == 0 && v == UINT64_MAX);
	CHECK(parse_octal("2000000000000000000000", &v) == -ERANGE);
	CHECK(parse_octal("77777777777777777777777", &v) == -ERANGE);

	CHECK(parse_hex("0x8000000", &v) == 0 && v == 134217728);
	CHECK(parse_hex("8000000", &v) == 0 && v == 134217728);
	CHECK(parse_hex("ffffffffffffffff", &v) == 0 && v == UINT64_MAX);
	CHECK(parse_hex("0xFFFFFFFFFFFFFFFF", &v) == 0 && v == UINT64_MAX);
	CHECK(parse_hex("00000000000000000001", &v) == 0 && v == 1);
	CHECK(parse_hex("10000000000000000", &v) == -ERANGE);
	CHECK(parse_hex("", &v) == -EINVAL && parse_hex("0x", &v) == -EINVAL);
	CHECK(parse_hex("0x0x1", &v) == -EINVAL && parse_hex("0X10", &v) == -EINVAL);
	CHECK(parse_hex("g", &v) == -EINVAL && parse_hex("-1", &v) == -EINVAL);
	CHECK(parse_hex("8000000\n", &v) == -EINVAL); /* callers trim first */

	CHECK(mul_u64(UINT64_MAX, 1, &v) && v == UINT64_MAX);
	CHECK(!mul_u64(UINT64_C(1) << 32, UINT64_C(1) << 32, &v));
	CHECK(add_u64(UINT64_MAX - 1, 1, &v) && v == UINT64_MAX);
	CHECK(!add_u64(UINT64_MAX, 1, &v));
}

UNIT_TEST(sizes_hostile, "byte sizes at 2^64 and past it, suffixes in every case")
{
	uint64_t v = 5;

	CHECK(parse_bytes("0", &v) == 0 && v == 0);
	CHECK(parse_bytes("0002M", &v) == 0 && v == 2097152);
	CHECK(parse_bytes("1kB", &v) == 0 && v == 1024);
	CHECK(parse_bytes("1KB", &v) == 0 && v == 1024);
	CHECK(parse_bytes("1KiB", &v) == 0 && v == 1024);
	CHECK(parse_bytes("1m", &v) == 0 && v == 1048576);
	CHECK(parse_bytes("18446744073709551615", &v) == 0 && v == UINT64_MAX);
	CHECK(parse_bytes("17179869183G", &v) == 0 && v == 18446744072635809792u);
	CHECK(parse_bytes("16777215T", &v) == 0 && v == 18446742974197923840u);
	CHECK(parse_bytes("17179869184G", &v) == -ERANGE);
	CHECK(parse_bytes("16777216T", &v) == -ERANGE);
	CHECK(parse_bytes("18014398509481984K", &v) == -ERANGE);
	CHECK(parse_bytes("18014398509481984kB", &v) == -ERANGE);
	CHECK(parse_bytes("99999999999999999999", &v) == -ERANGE);
	CHECK(parse_bytes("", &v) == -EINVAL && parse_bytes("kB", &v) == -EINVAL);
	CHECK(parse_bytes("1kb", &v) == -EINVAL && parse_bytes("1Ki", &v) == -EINVAL);
	CHECK(parse_bytes("1 M", &v) == -EINVAL && parse_bytes("1M ", &v) == -EINVAL);
	CHECK(parse_bytes("1.5G", &v) == -EINVAL && parse_bytes("1E", &v) == -EINVAL);
	CHECK(parse_bytes("-1", &v) == -EINVAL && parse_bytes("+1M", &v) == -EINVAL);
	CHECK(parse_bytes("1MiBB", &v) == -EINVAL && parse_bytes("1iB", &v) == -EINVAL);

	CHECK(parse_percent("0%", &v) == 0 && v == 0);
	CHECK(parse_percent("0.00%", &v) == 0 && v == 0);
	CHECK(parse_percent("007%", &v) == 0 && v == 700);
	CHECK(parse_percent("100.00%", &v) == 0 && v == 10000);
	CHECK(parse_percent("100.001%", &v) == -EINVAL);
	CHECK(parse_percent("1844674407370955%", &v) == -ERANGE);
	CHECK(parse_percent("184467440737095516%", &v) == -ERANGE);
	CHECK(parse_percent("184467440737095516.16%", &v) == -ERANGE);
	CHECK(parse_percent("99999999999999999999%", &v) == -ERANGE);
	CHECK(parse_percent("%", &v) == -EINVAL && parse_percent(".5%", &v) == -EINVAL);
	CHECK(parse_percent("50 %", &v) == -EINVAL &&
	      parse_percent("50%%", &v) == -EINVAL);
	CHECK(parse_percent("-5%", &v) == -EINVAL && parse_percent("", &v) == -EINVAL);

	CHECK(parse_seconds("0", &v) == 0 && v == 0);
	CHECK(parse_seconds("0.001", &v) == 0 && v == 1);
	CHECK(parse_seconds("007", &v) == 0 && v == 7000);
	CHECK(parse_seconds("1.5s", &v) == 0 && v == 1500);
	CHECK(parse_seconds("18446744073709551", &v) == 0 && v == 18446744073709551000u);
	CHECK(parse_seconds("18446744073709551.615", &v) == 0 && v == UINT64_MAX);
	CHECK(parse_seconds("18446744073709552", &v) == -ERANGE);
	CHECK(parse_seconds("18446744073709551.616", &v) == -ERANGE);
	CHECK(parse_seconds("", &v) == -EINVAL && parse_seconds("s", &v) == -EINVAL);
	CHECK(parse_seconds("1.", &v) == -EINVAL &&
	      parse_seconds("1.5ss", &v) == -EINVAL);
	CHECK(parse_seconds("-1", &v) == -EINVAL);
}

/* Times as systemd writes them: units, parts, spaces between; whole milliseconds. */
UNIT_TEST(durations, "90s, 1m, 2min, 1m30s, '1min 30s', 500ms, 1h; odd forms refused")
{
	static const struct {
		const char *s;
		int rc;
		uint64_t ms;
	} cases[] = {
	    {"90s", 0, 90000},
	    {"1m", 0, 60000},
	    {"2min", 0, 120000},
	    {"1m30s", 0, 90000},
	    {"1min 30s", 0, 90000},
	    {"500ms", 0, 500},
	    {"1h", 0, 3600000},
	    {"1.5m", 0, 90000},
	    {"1 s", 0, 1000},
	    {"0.5ms", -EINVAL, 0},
	    {"1m30", -EINVAL, 0},
	    {"90S", -EINVAL, 0},
	    {"1d", -EINVAL, 0},
	    {"m", -EINVAL, 0},
	    {"1m 30x", -EINVAL, 0},
	    {"1mins", -EINVAL, 0},
	    {"1,5s", -EINVAL, 0},
	    {"0010s", 0, 10000},
	    {"5124095576030432h", -ERANGE, 0},
	    {"1h 18446744073709551s", -ERANGE, 0},
	};
	uint64_t v;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		v = 7;
		CHECK(parse_seconds(cases[i].s, &v) == cases[i].rc);
		CHECK(v == (cases[i].rc ? 7 : cases[i].ms));
	}
}

UNIT_TEST(words, "booleans, trimming, snprintf truncation, sizes' human names")
{
	char buf[64], s1[] = "  a b \t\n", s2[] = "", s3[] = " \n\t ", s4[] = "x";
	bool b = false;

	CHECK(parse_bool("TRUE", &b) == 0 && b && parse_bool("oN", &b) == 0 && b);
	CHECK(parse_bool("0", &b) == 0 && !b && parse_bool("FALSE", &b) == 0 && !b);
	b = true;
	CHECK(parse_bool("", &b) == -EINVAL && parse_bool("yes ", &b) == -EINVAL);
	CHECK(parse_bool("y", &b) == -EINVAL && parse_bool("01", &b) == -EINVAL);
	CHECK(parse_bool("enable", &b) == -EINVAL && b);

	CHECK(strcmp(parse_trim(s1), "a b") == 0);
	CHECK(strcmp(parse_trim(s2), "") == 0);
	CHECK(strcmp(parse_trim(s3), "") == 0);
	CHECK(strcmp(parse_trim(s4), "x") == 0);

	CHECK(text_snprintf(buf, 4, "%s", "abc") == 0 && strcmp(buf, "abc") == 0);
	CHECK(text_snprintf(buf, 4, "%s", "abcd") == -ENOSPC);
	CHECK(text_snprintf(buf, 1, "%s", "") == 0 && buf[0] == '\0');

	text_size_kb(2048, buf, sizeof(buf));
	CHECK(strcmp(buf, "2M") == 0);
	text_size_kb(1048576, buf, sizeof(buf));
	CHECK(strcmp(buf, "1G") == 0);
	text_size_kb(64, buf, sizeof(buf));
	CHECK(strcmp(buf, "64K") == 0);
	text_size_kb(1536, buf, sizeof(buf));
	CHECK(strcmp(buf, "1536K") == 0);
	text_size_kb(0, buf, sizeof(buf));
	CHECK(strcmp(buf, "0K") == 0);
	text_size_kb(3145728, buf, sizeof(buf));
	CHECK(strcmp(buf, "3G") == 0);
	text_size_kb(1073741824, buf, sizeof(buf));
	CHECK(strcmp(buf, "1T") == 0);
	text_size_kb(1099511627776, buf, sizeof(buf));
	CHECK(strcmp(buf, "1P") == 0);
	text_size_kb(1125899906842624, buf, sizeof(buf));
	CHECK(strcmp(buf, "1024P") == 0);
	text_size_kb(UINT64_MAX, buf, sizeof(buf));
	CHECK(strcmp(buf, "18446744073709551615K") == 0);

	text_bytes(0, buf, sizeof(buf));
	CHECK(strcmp(buf, "0B") == 0);
	text_bytes(1023, buf, sizeof(buf));
	CHECK(strcmp(buf, "1023B") == 0);
	text_bytes(1024, buf, sizeof(buf));
	CHECK(strcmp(buf, "1K") == 0);
	text_bytes(1536, buf, sizeof(buf));
	CHECK(strcmp(buf, "1.5K") == 0);
	text_bytes(1600, buf, sizeof(buf));
	CHECK(strcmp(buf, "1.6K") == 0);
	text_bytes(1610612736, buf, sizeof(buf));
	CHECK(strcmp(buf, "1.5G") == 0);
	text_bytes(3221225472, buf, sizeof(buf));
	CHECK(strcmp(buf, "3G") == 0);
	text_bytes(UINT64_MAX, buf, sizeof(buf));
	CHECK(strcmp(buf, "16E") == 0);
}

/* pci_is STR CANON: parsed, and written as sysfs names the function. */
static bool pci_is(const char *str, const char *canon)
{
	char buf[32];

	return parse_pci_addr(str, buf, sizeof(buf)) == 0 && strcmp(buf, canon) == 0;
}

static int pci_rc(const char *str)
{
	char buf[32];

	return parse_pci_addr(str, buf, sizeof(buf));
}

UNIT_TEST(
    pci,
    "PCI addresses: all of DDDD:BB:DD.F and nothing else; a 5-digit domain (VMD); either case")
{
	char buf[32];

	CHECK(pci_is("0000:3b:00.0", "0000:3b:00.0"));
	CHECK(pci_is("0000:3B:1f.7", "0000:3b:1f.7"));
	CHECK(pci_is("10000:e0:06.0", "10000:e0:06.0"));
	CHECK(pci_is("ffffffff:ff:1f.7", "ffffffff:ff:1f.7"));
	CHECK(pci_is("00000000:00:00.0", "0000:00:00.0"));

	CHECK(pci_rc("3b:00.0") == -EINVAL); /* lspci without -D: no domain */
	CHECK(pci_rc("000:3b:00.0") == -EINVAL);
	CHECK(pci_rc("100000000:3b:00.0") == -EINVAL);
	CHECK(pci_rc("0000:3b:00") == -EINVAL);
	CHECK(pci_rc("0000:3b:0.0") == -EINVAL);
	CHECK(pci_rc("0000:3b:00.00") == -EINVAL);
	CHECK(pci_rc("0000:3b:000.0") == -EINVAL);
	CHECK(pci_rc("0000:3b:00.0 ") == -EINVAL);
	CHECK(pci_rc("0000:3b:00.0\n") == -EINVAL);
	CHECK(pci_rc(" 0000:3b:00.0") == -EINVAL);
	CHECK(pci_rc("0x00:3b:00.0") == -EINVAL);
	CHECK(pci_rc("0000-3b:00.0") == -EINVAL);
	CHECK(pci_rc("0000:3b:00:0") == -EINVAL);
	CHECK(pci_rc("0000:3g:00.0") == -EINVAL);
	CHECK(pci_rc("") == -EINVAL);
	CHECK(pci_rc(":::.") == -EINVAL);
	CHECK(pci_rc("0000:3b:20.0") == -ERANGE); /* a slot has 5 bits */
	CHECK(pci_rc("0000:3b:00.8") == -ERANGE); /* a function 3 */
	CHECK(parse_pci_addr("0000:3b:00.0", buf, 12) == -ENOSPC);
	CHECK(parse_pci_addr("0000:3b:00.0", buf, 13) == 0);
}
