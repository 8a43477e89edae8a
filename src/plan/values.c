/* SPDX-License-Identifier: GPL-2.0-or-later */
/* values.c - the grammar of setting values: amounts, page entries, mounts. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "parse.h"
#include "topology.h"
#include "values.h"

const char *values_error(int rc)
{
	return rc == -ERANGE ? "out of range" : "malformed";
}

/* A size written as a decimal, or with its unit in another form ("1.5G", "1gib",
 * "2 MB"), in bytes; false when it is not such a thing or does not fit. */
static bool size_meant(const char *str, uint64_t *bytes, uint64_t *unit)
{
	static const char units[] = "KMGTP";
	unsigned __int128 v = 0, div = 1, mult = 1;
	const char *p = str, *u;
	unsigned digits = 0;

	for (; isdigit((unsigned char)*p) && digits < 20; p++, digits++)
		v = v * 10 + (unsigned)(*p - '0');
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p) && div < 1000000; p++, digits++) {
			v = v * 10 + (unsigned)(*p - '0');
			div *= 10;
		}
	p += strspn(p, " \t");
	if (!digits || !*p || !(u = strchr(units, toupper((unsigned char)*p))))
		return false;
	for (const char *q = units; q <= u; q++)
		mult *= 1024;
	p++;
	if (*p == 'i' || *p == 'I')
		p++;
	if ((*p == 'b' || *p == 'B') && !p[1])
		p++;
	v = v * mult / div;
	if (*p || v > UINT64_MAX)
		return false;
	*bytes = (uint64_t)v;
	*unit = (uint64_t)mult;
	return true;
}

void values_hint(const char *str, int rc, char *buf, size_t len)
{
	size_t n = strlen(str);
	const char *dot = strchr(str, '.');
	uint64_t bytes, unit;
	char form[32];

	buf[0] = '\0';
	if (n && str[n - 1] == '%')
		snprintf(buf, len, "%s",
			 rc == -ERANGE ? "a share is from 0% to 100%"
			 : dot && strlen(dot) > 4
			     ? "a share has at most two decimals (12.5%, 0.25%)"
			     : "a share is written like 50% or 12.5%");
	else if (size_meant(str, &bytes, &unit) && bytes && bytes % 1024 == 0) {
		text_size_kb(bytes / 1024, form, sizeof(form));
		snprintf(buf, len, "write %s", form);
	} else if (size_meant(str, &bytes, &unit) && unit > 1024 &&
		   bytes >= unit / 1024) {
		/* not whole in K: in the next unit down, at most what was asked */
		text_size_kb(bytes / (unit / 1024) * (unit / 1024) / 1024, form,
			     sizeof(form));
		snprintf(buf, len, "write a whole number, such as %s", form);
	} else if (size_meant(str, &bytes, &unit))
		snprintf(buf, len, "write a whole number of K, M, G, T or P");
	else if (n && isdigit((unsigned char)str[n - 1]) && dot)
		snprintf(buf, len, "a count of pages is a whole number");
}

/* An amount: "512" pages, "64G" memory, or "50%" of the node's memory. */
int values_amount(const char *str, struct hp_amount *a)
{
	size_t n = strlen(str);

	if (n && str[n - 1] == '%') {
		a->kind = HP_AMOUNT_PERCENT;
		return parse_percent(str, &a->value);
	}
	if (n && isdigit((unsigned char)str[n - 1])) {
		a->kind = HP_AMOUNT_COUNT;
		return parse_u64(str, &a->value);
	}
	a->kind = HP_AMOUNT_BYTES;
	return parse_bytes(str, &a->value);
}

/* An interface name the kernel would take (dev_valid_name()), in the characters that
 * names have in practice: none that the settings' grammar uses (',', ':', '@'). */
static bool ifname_ok(const char *n)
{
	size_t len = strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			       "0123456789-_.");

	return len && len < HP_IFNAME_MAX && !n[len] && strcmp(n, ".") && strcmp(n, "..");
}

/* A node list written with spaces, with commas ("0 1" is "0,1"), in t itself. */
static const char *commas(char *t)
{
	for (char *c = t; *c; c++)
		if (*c == ' ')
			*c = ',';
	return t;
}

/* After the '@': a node list, or one device (pci:ADDR, net:IFNAME). */
static int value_target(char *t, struct hp_entry *e, char *why, size_t wlen)
{
	bool pci = strncmp(t, "pci:", 4) == 0, net = strncmp(t, "net:", 4) == 0;
	int rc;

	if ((pci || net) ? strchr(t, ',') != NULL
			 : strstr(t, "pci:") || strstr(t, "net:")) {
		snprintf(
		    why, wlen,
		    "'%.40s': an entry names a node list or one device, not both nor "
		    "two devices (write an entry for each)",
		    t);
		return -EINVAL;
	}
	if (pci) {
		e->device = HP_DEVICE_PCI;
		rc = parse_pci_addr(t + 4, e->device_name, sizeof(e->device_name));
		if (rc)
			snprintf(
			    why, wlen,
			    "PCI address '%.32s' is %s (expected pci:DDDD:BB:DD.F, as "
			    "lspci -D writes it)",
			    t + 4, rc == -ERANGE ? "out of range" : "malformed");
		return rc ? -EINVAL : 0;
	}
	if (net) {
		e->device = HP_DEVICE_NET;
		if (!ifname_ok(t + 4)) {
			snprintf(why, wlen,
				 "interface name '%.32s' is malformed (1 to 15 letters, "
				 "digits, '-', '_' or '.')",
				 t + 4);
			return -EINVAL;
		}
		snprintf(e->device_name, sizeof(e->device_name), "%s", t + 4);
		return 0;
	}
	rc = parse_idlist(t, HP_MAX_NODES, &e->nodes);
	if (rc || idset_count(&e->nodes) == 0) {
		snprintf(why, wlen, "node list '%.32s' is %s", t,
			 rc == -ERANGE ? "out of range" : "malformed");
		if (strchr(t, ' '))
			snprintf(why + strlen(why), wlen - strlen(why),
				 ": an entry has no spaces (write %s)", commas(t));
		return -EINVAL;
	}
	return 0;
}

/* One "SIZE:AMOUNT[@NODES]" or "SIZE:AMOUNT@DEVICE" entry; 'buf' is the entry's text,
 * changed in place. */
int values_entry(char *buf, struct hp_entry *e, char *why, size_t wlen)
{
	char *colon = strchr(buf, ':'), *at, *amount, hint[96];
	uint64_t bytes;
	int rc;

	if (!colon) {
		snprintf(why, wlen, "expected SIZE:AMOUNT[@NODES] or SIZE:AMOUNT@DEVICE");
		return -EINVAL;
	}
	*colon = '\0';
	amount = colon + 1;
	at = strchr(amount, '@');
	if (at)
		*at = '\0';

	rc = parse_bytes(buf, &bytes);
	if (rc || bytes < 1024 || bytes % 1024) {
		values_hint(buf, rc, hint, sizeof(hint));
		snprintf(why, wlen,
			 "page size '%.32s' is %s: %s%ssizes are written 2M, 1G, 2048K",
			 buf, rc ? values_error(rc) : "not a whole number of kB", hint,
			 hint[0] ? " (" : "");
		if (hint[0])
			snprintf(why + strlen(why), wlen - strlen(why), ")");
		return -EINVAL;
	}
	e->size_kb = bytes / 1024;
	rc = values_amount(amount, &e->amount);
	if (rc) {
		values_hint(amount, rc, hint, sizeof(hint));
		if (hint[0])
			snprintf(why, wlen, "amount '%.32s' is %s: %s", amount,
				 values_error(rc), hint);
		else
			snprintf(why, wlen,
				 "amount '%.32s' is %s (a count, a size like 64G, or "
				 "50%%)",
				 amount, values_error(rc));
		return rc;
	}
	e->all_nodes = !at;
	return at ? value_target(at + 1, e, why, wlen) : 0;
}

bool values_starts_entry(const char *w)
{
	const char *q = w;

	while (*q && *q != ',' && *q != ';' && *q != ':' && !isspace((unsigned char)*q))
		q++;
	return *q == ':' &&
	       !(q - w == 3 && (strncmp(w, "pci", 3) == 0 || strncmp(w, "net", 3) == 0));
}

/* Whether t (n bytes) ends in a node list: '@' and digits, '-' and ','. */
static bool ends_in_nodes(const char *t, size_t n)
{
	size_t k = n;

	while (k &&
	       (isdigit((unsigned char)t[k - 1]) || t[k - 1] == '-' || t[k - 1] == ','))
		k--;
	return k && k < n && t[k - 1] == '@';
}

enum value_join values_continues(const char *t, size_t n, const char *next)
{
	size_t w = strcspn(next, " \t\n\r\f\v;,");

	if (*next == '@' || *next == ':' || (n && (t[n - 1] == '@' || t[n - 1] == ':')))
		return VALUE_JOIN_TIGHT;
	if (ends_in_nodes(t, n) && isdigit((unsigned char)*next) &&
	    strspn(next, "0123456789-") == w)
		return VALUE_JOIN_SPACE;
	return VALUE_JOIN_NONE;
}

/*
 * Entries are separated as people write lists: by spaces, ';', ',' or a comma and
 * spaces ("2M:512, 1G:4", "2M:512,1G:4" and "2M:512 1G:4" are the same two
 * entries). A comma that is followed, after any spaces, by something that does not
 * start an entry stays in its entry without the spaces, so that a node list keeps its
 * commas ("1G:2@0,1" and "1G:2@0, 1" are one entry, and "2M:50%,1G:2@0,1" two), and
 * "2M:1G@pci:0000:3b:00.0,1G:4" is two entries. A device after a comma stays in its
 * entry, which then says it cannot name both. An entry is whole or refused whole:
 * spaces around its '@' or ':' are dropped ("1G:4 @1" is 1G:4@1, given with how it
 * was written), and a number after a node list keeps its space, so that the entry
 * is refused rather than done on fewer nodes ("1G:4@0 1").
 */
int values_entries(const char *value,
		   void (*each)(const char *entry, const char *written, void *arg),
		   void *arg)
{
	const char *p = value;
	size_t vlen = strlen(value);
	char *text = malloc(vlen + 1), *written = malloc(vlen + 1);
	int n = 0;

	if (!text || !written) {
		free(text);
		free(written);
		return -ENOMEM;
	}
	for (;;) {
		const char *start;
		size_t len = 0;
		bool spaced = false;

		while (*p && (isspace((unsigned char)*p) || *p == ';' || *p == ','))
			p++;
		if (!*p)
			break;
		start = p;
		for (;;) {
			const char *q;
			enum value_join j;

			while (*p && !isspace((unsigned char)*p) && *p != ';') {
				q = p + 1;
				if (*p != ',') {
					text[len++] = *p++;
					continue;
				}
				while (isspace((unsigned char)*q))
					q++;
				if (!*q || *q == ';' || *q == ',' ||
				    values_starts_entry(q))
					break;
				text[len++] = ',';
				p = q;
			}
			if (!isspace((unsigned char)*p))
				break;
			for (q = p; isspace((unsigned char)*q);)
				q++;
			j = *q && *q != ';' && *q != ',' ? values_continues(text, len, q)
							 : VALUE_JOIN_NONE;
			if (j == VALUE_JOIN_NONE)
				break;
			if (j == VALUE_JOIN_SPACE)
				text[len++] = ' ';
			spaced |= j == VALUE_JOIN_TIGHT;
			p = q;
		}
		text[len] = '\0';
		if (spaced) {
			memcpy(written, start, (size_t)(p - start));
			written[p - start] = '\0';
		}
		each(text, spaced ? written : NULL, arg);
		n++;
	}
	free(text);
	free(written);
	return n;
}

/* "SIZE:PATH[,owner=U][,group=G][,mode=OCTAL]" */
int values_mount(char *buf, struct hp_mount *m, char *why, size_t wlen)
{
	char *colon = strchr(buf, ':'), *opt, *save = NULL;
	uint64_t bytes, mode;

	if (!colon || colon[1] != '/') {
		snprintf(why, wlen,
			 "expected SIZE:/PATH[,owner=U][,group=G][,mode=OCTAL]");
		return -EINVAL;
	}
	*colon = '\0';
	if (parse_bytes(buf, &bytes) || bytes < 1024 || bytes % 1024) {
		snprintf(why, wlen, "page size '%.32s' is malformed", buf);
		return -EINVAL;
	}
	m->size_kb = bytes / 1024;
	opt = strchr(colon + 1, ',');
	if (opt)
		*opt++ = '\0';
	m->path = strdup(colon + 1);
	if (!m->path)
		return -ENOMEM;
	for (char *o = opt ? strtok_r(opt, ",", &save) : NULL; o;
	     o = strtok_r(NULL, ",", &save)) {
		if (strncmp(o, "owner=", 6) == 0 && o[6]) {
			free(m->owner);
			m->owner = strdup(o + 6);
			if (!m->owner)
				return -ENOMEM;
		} else if (strncmp(o, "group=", 6) == 0 && o[6]) {
			free(m->group);
			m->group = strdup(o + 6);
			if (!m->group)
				return -ENOMEM;
		} else if (strncmp(o, "mode=", 5) == 0 &&
			   parse_octal(o + 5, &mode) == 0 && mode <= 07777) {
			m->mode = (unsigned)mode;
			m->has_mode = true;
		} else {
			snprintf(why, wlen,
				 "option '%.32s': expected owner=, group= or mode=OCTAL",
				 o);
			return -EINVAL;
		}
	}
	return 0;
}

void values_amount_format(const struct hp_amount *a, char *buf, size_t len)
{
	switch (a->kind) {
	case HP_AMOUNT_COUNT:
		snprintf(buf, len, "%llu", (unsigned long long)a->value);
		break;
	case HP_AMOUNT_BYTES:
		text_bytes(a->value, buf, len);
		break;
	case HP_AMOUNT_PERCENT:
		if (a->value % 100)
			snprintf(buf, len, "%llu.%02llu%%",
				 (unsigned long long)a->value / 100,
				 (unsigned long long)a->value % 100);
		else
			snprintf(buf, len, "%llu%%", (unsigned long long)a->value / 100);
		break;
	}
}
