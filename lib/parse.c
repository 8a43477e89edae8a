/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse.c - strict parsers of numbers, sizes, shares, durations, id lists and command lines. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "text.h"
#include "idset.h"
#include "macros.h"
#include "parse.h"

/* Parse a decimal number at *p, advancing it; at least one digit, no overflow. */
int parse_u64_at(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	while (isdigit((unsigned char)*s)) {
		if (!mul_u64(v, 10, &v) || !add_u64(v, *s - '0', &v))
			return -ERANGE;
		s++;
	}
	*p = s;
	*out = v;
	return 0;
}

int parse_u64(const char *str, uint64_t *out)
{
	const char *p = str;
	uint64_t v;
	int rc = parse_u64_at(&p, &v);

	if (rc)
		return rc;
	if (*p)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_octal(const char *str, uint64_t *out)
{
	uint64_t v = 0;

	if (!*str)
		return -EINVAL;
	for (const char *p = str; *p; p++) {
		if (*p < '0' || *p > '7')
			return -EINVAL;
		if (v >> 61) /* a digit is 3 bits: the top 3 must be free */
			return -ERANGE;
		v = v << 3 | (uint64_t)(*p - '0');
	}
	*out = v;
	return 0;
}

int parse_hex(const char *str, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = str;

	if (strncmp(p, "0x", 2) == 0)
		p += 2;
	if (!isxdigit((unsigned char)*p))
		return -EINVAL;
	for (; *p; p++) {
		unsigned d;

		if (!isxdigit((unsigned char)*p))
			return -EINVAL;
		d = isdigit((unsigned char)*p) ? *p - '0'
					       : tolower((unsigned char)*p) - 'a' + 10;
		if (v >> 60)
			return -ERANGE;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

/* Between min and max hex digits at *p, advancing it past them. */
static int hex_digits(const char **p, unsigned min, unsigned max, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	unsigned n = 0;

	for (; isxdigit((unsigned char)*s); s++, n++) {
		if (n == max)
			return -EINVAL;
		v = v << 4 | (unsigned)(isdigit((unsigned char)*s)
					    ? *s - '0'
					    : tolower((unsigned char)*s) - 'a' + 10);
	}
	if (n < min)
		return -EINVAL;
	*p = s;
	*out = v;
	return 0;
}

int parse_pci_addr(const char *str, char *canon, size_t len)
{
	const char *p = str;
	uint64_t dom, bus, dev, fn;

	if (hex_digits(&p, 4, 8, &dom) || *p++ != ':' || hex_digits(&p, 2, 2, &bus) ||
	    *p++ != ':' || hex_digits(&p, 2, 2, &dev) || *p++ != '.' ||
	    hex_digits(&p, 1, 1, &fn) || *p)
		return -EINVAL;
	/* a slot number has 5 bits and a function 3, in the name as in devfn */
	if (dev > 0x1f || fn > 7)
		return -ERANGE;
	return text_snprintf(canon, len, "%04llx:%02llx:%02llx.%llx",
			     (unsigned long long)dom, (unsigned long long)bus,
			     (unsigned long long)dev, (unsigned long long)fn);
}

int parse_idlist(const char *str, unsigned limit, struct hp_idset *out)
{
	const char *p = str;

	memset(out, 0, sizeof(*out));
	if (limit > HP_MAX_CPUS)
		limit = HP_MAX_CPUS;
	if (*p == '\0' || strcmp(p, "\n") == 0)
		return 0;
	for (;;) {
		uint64_t a, b;
		int rc = parse_u64_at(&p, &a);

		if (rc)
			return rc;
		b = a;
		if (*p == '-') {
			p++;
			rc = parse_u64_at(&p, &b);
			if (rc)
				return rc;
			if (b < a)
				return -EINVAL;
		}
		if (b >= limit)
			return -ERANGE;
		for (uint64_t i = a; i <= b; i++)
			idset_add(out, (unsigned)i);
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '\n' && p[1] == '\0')
			return 0;
		return *p ? -EINVAL : 0;
	}
}

int parse_bytes(const char *str, uint64_t *out)
{
	static const char units[] = "KMGTP";
	const char *p = str;
	const char *u;
	uint64_t v, mult = 1;
	int rc = parse_u64_at(&p, &v);

	if (rc)
		return rc;
	if (*p) {
		if (strcmp(p, "kB") == 0) {
			mult = 1024;
		} else {
			u = strchr(units, toupper((unsigned char)*p));
			if (!u)
				return -EINVAL;
			for (const char *q = units; q <= u; q++)
				mult *= 1024;
			p++;
			if (strcmp(p, "") && strcmp(p, "B") && strcmp(p, "iB"))
				return -EINVAL;
		}
	}
	if (!mul_u64(v, mult, out))
		return -ERANGE;
	return 0;
}

/* Fixed-point decimal: digits, optional '.', at most 'decimals' fraction digits. */
static int parse_fixed(const char **p, unsigned decimals, uint64_t *out)
{
	uint64_t v;
	unsigned n = 0;
	int rc = parse_u64_at(p, &v);

	if (rc)
		return rc;
	if (**p == '.') {
		(*p)++;
		if (!isdigit((unsigned char)**p))
			return -EINVAL;
		while (isdigit((unsigned char)**p)) {
			if (++n > decimals)
				return -EINVAL;
			if (!mul_u64(v, 10, &v) || !add_u64(v, **p - '0', &v))
				return -ERANGE;
			(*p)++;
		}
	}
	for (; n < decimals; n++)
		if (!mul_u64(v, 10, &v))
			return -ERANGE;
	*out = v;
	return 0;
}

int parse_percent(const char *str, uint64_t *out)
{
	const char *p = str;
	uint64_t v;
	int rc = parse_fixed(&p, 2, &v);

	if (rc)
		return rc;
	if (strcmp(p, "%"))
		return -EINVAL;
	if (v > 10000)
		return -ERANGE;
	*out = v;
	return 0;
}

/* A number of a unit ("1.5" of "min") in milliseconds: whole ones only. */
static int unit_ms(uint64_t thousandths, uint64_t ms_per_unit, uint64_t *out)
{
	uint64_t whole, part = thousandths % 1000 * ms_per_unit;

	if (part % 1000)
		return -EINVAL; /* less than a millisecond */
	if (!mul_u64(thousandths / 1000, ms_per_unit, &whole) ||
	    !add_u64(whole, part / 1000, out))
		return -ERANGE;
	return 0;
}

int parse_seconds(const char *str, uint64_t *out_ms)
{
	static const struct {
		const char *name;
		uint64_t ms;
	} units[] = {{"ms", 1},	   {"s", 1000},	   {"sec", 1000},
		     {"m", 60000}, {"min", 60000}, {"h", 3600000}};
	const char *p = str;
	uint64_t total = 0;

	for (unsigned parts = 0;; parts++) {
		uint64_t v, ms = 0;
		size_t n, i = 0;
		int rc;

		p += parts ? strspn(p, " \t") : 0;
		if (!*p && parts)
			break;
		if ((rc = parse_fixed(&p, 3, &v)))
			return rc;
		p += strspn(p, " \t");
		n = strspn(p, "abcdefghijklmnopqrstuvwxyz");
		while (i < ARRAY_SIZE(units) &&
		       (strlen(units[i].name) != n || strncmp(p, units[i].name, n)))
			i++;
		if (!n && (*p || parts))
			return -EINVAL; /* a bare number is seconds, alone */
		if (n && i == ARRAY_SIZE(units))
			return -EINVAL;
		p += n;
		if ((rc = unit_ms(v, n ? units[i].ms : 1000, &ms)))
			return rc;
		if (!add_u64(total, ms, &total))
			return -ERANGE;
	}
	*out_ms = total;
	return 0;
}

int parse_bool(const char *str, bool *out)
{
	static const char *const yes[] = {"1", "yes", "on", "true"};
	static const char *const no[] = {"0", "no", "off", "false"};

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcasecmp(str, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(str, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

char *parse_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

bool parse_cmdline_word(const char **p, char *word)
{
	bool quoted = false;

	while (isspace((unsigned char)**p))
		(*p)++;
	if (!**p)
		return false;
	while (**p && (quoted || !isspace((unsigned char)**p))) {
		if (**p == '"')
			quoted = !quoted;
		else
			*word++ = **p;
		(*p)++;
	}
	*word = '\0';
	return true;
}
