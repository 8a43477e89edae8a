/* SPDX-License-Identifier: GPL-2.0-or-later */
/* settings.c - config files and the kernel command line, merged into one struct. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file.h"
#include "macros.h"
#include "parse.h"
#include "settings.h"

void settings_init(struct hp_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->enabled = true;
	s->reserve.kind = HP_AMOUNT_BYTES;
	s->reserve.value = HP_DEFAULT_RESERVE;
	s->timeout_ms = HP_DEFAULT_TIMEOUT;
	s->mode = HP_MODE_GROW;
	s->digest = FNV1A64_INIT;
	s->granularity_auto = true;
	s->granularity.kind = HP_AMOUNT_PERCENT;
	s->granularity.value = HP_AUTO_GRANULARITY;
	s->on_short = HP_SHORT_CONTINUE;
	/* nothing allocated: settings_free() leaves s as this, and a caller may drop
	 * it then */
}

const char *settings_textfile(const struct hp_settings *s)
{
	return s->no_textfile ? NULL : s->textfile ? s->textfile : HP_DEFAULT_TEXTFILE;
}

const char *on_short_name(enum hp_on_short o)
{
	return o == HP_SHORT_FAIL ? "fail" : "continue";
}

void settings_digest(const struct hp_settings *s, char *buf, size_t len)
{
	snprintf(buf, len, "fnv1a64:%016llx", (unsigned long long)s->digest);
}

void settings_drop_mount(struct hp_mount *m)
{
	free(m->path);
	free(m->owner);
	free(m->group);
	free(m->text);
	free(m->origin);
	free(m->key);
}

void settings_drop_entry(struct hp_entry *e)
{
	free(e->text);
	free(e->origin);
	free(e->key);
}

void settings_free(struct hp_settings *s)
{
	for (unsigned i = 0; i < s->nentries; i++)
		settings_drop_entry(&s->entries[i]);
	for (unsigned i = 0; i < s->ndevices; i++) {
		free(s->devices[i].entry);
		free(s->devices[i].origin);
		free(s->devices[i].problem);
	}
	free(s->devices);
	for (unsigned i = 0; i < s->nproblems; i++) {
		free(s->problems[i].origin);
		free(s->problems[i].key);
		free(s->problems[i].value);
		free(s->problems[i].message);
	}
	for (unsigned i = 0; i < s->nsources; i++)
		free(s->sources[i]);
	for (unsigned i = 0; i < s->nmounts; i++)
		settings_drop_mount(&s->mounts[i]);
	free(s->mounts);
	free(s->textfile);
	free(s->config);
	free(s->entries);
	free(s->problems);
	free(s->sources);
	settings_init(s);
}

const char *mode_name(enum hp_mode m)
{
	return m == HP_MODE_EXACT ? "exact" : "grow";
}

/* Grow an array by one element; false (and s->failed) when memory is out. */
static bool grow(struct hp_settings *s, void **arr, unsigned n, size_t size)
{
	void *na;

	if (n & (n - 1) && n >= 8)
		return true; /* room left: capacities are powers of two from 8 */
	na = realloc(*arr, (n < 8 ? 8 : (size_t)n * 2) * size);
	if (!na) {
		s->failed = true;
		return false;
	}
	*arr = na;
	return true;
}

bool settings_grow(struct hp_settings *s, void **arr, unsigned n, size_t size)
{
	return grow(s, arr, n, size);
}

/* A value for a message: as it is, or its start and its whole length. */
static char *shown(const char *v)
{
	size_t n = strlen(v);
	char *out;

	if (n <= HP_SHOW_VALUE)
		return strdup(v);
	out = malloc(HP_SHOW_VALUE + 64);
	if (out)
		snprintf(out, HP_SHOW_VALUE + 64, "%.*s... (%zu bytes)",
			 HP_SHOW_VALUE - 16, v, n);
	return out;
}

void settings_problem(struct hp_settings *s, const char *origin, const char *key,
		      const char *value, const char *fmt, ...)
{
	struct hp_problem *p;
	char msg[320];
	va_list ap;

	if (!grow(s, (void **)&s->problems, s->nproblems, sizeof(*p)))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p = &s->problems[s->nproblems];
	p->origin = strdup(origin);
	p->key = shown(key);
	p->value = shown(value);
	p->message = strdup(msg);
	if (!p->origin || !p->key || !p->value || !p->message) {
		s->failed = true;
		free(p->origin);
		free(p->key);
		free(p->value);
		free(p->message);
		return;
	}
	s->nproblems++;
}

void settings_add_source(struct hp_settings *s, const char *src)
{
	char *c;

	for (unsigned i = 0; i < s->nsources; i++)
		if (strcmp(s->sources[i], src) == 0)
			return;
	if (!grow(s, (void **)&s->sources, s->nsources, sizeof(*s->sources)))
		return;
	c = strdup(src);
	if (!c) {
		s->failed = true;
		return;
	}
	s->sources[s->nsources++] = c;
}

static void add_entry(struct hp_settings *s, const char *key, const char *text,
		      const char *origin)
{
	struct hp_entry e = {0};
	char why[160], *buf = strdup(text);

	if (!buf) {
		s->failed = true;
		return;
	}
	if (value_entry(buf, &e, why, sizeof(why))) {
		settings_problem(s, origin, key, text, "%s", why);
	} else if (grow(s, (void **)&s->entries, s->nentries, sizeof(e))) {
		e.text = strdup(text);
		e.origin = strdup(origin);
		e.key = strdup(key);
		if (e.text && e.origin && e.key) {
			s->entries[s->nentries++] = e;
		} else {
			s->failed = true;
			settings_drop_entry(&e);
		}
	}
	free(buf);
}

/* "pci" or "net" before a ':': a device, whose address has colons of its own. */
static bool device_prefix(const char *w, const char *colon)
{
	return colon - w == 3 && (strncmp(w, "pci", 3) == 0 || strncmp(w, "net", 3) == 0);
}

/*
 * Entries are separated by whitespace or ';', and by a ',' that starts a new
 * SIZE:AMOUNT (the next piece holds a ':' before any further ',', and is not "pci:"
 * or "net:"), so that "2M:50%,1G:2@0,1" is two entries and a node list keeps its
 * commas, and "2M:1G@pci:0000:3b:00.0,1G:4" is two: an address is no SIZE. A device
 * after a comma stays in its entry, which then says it cannot name both.
 */
static void set_pages(struct hp_settings *s, const char *key, const char *value,
		      const char *origin)
{
	const char *p = value;
	bool any = false;

	while (*p) {
		char *text;
		size_t n = 0;

		while (*p && (isspace((unsigned char)*p) || *p == ';' || *p == ','))
			p++;
		if (!*p)
			break;
		any = true;
		for (;;) {
			const char *q;

			if (!p[n] || isspace((unsigned char)p[n]) || p[n] == ';')
				break;
			if (p[n] == ',') {
				for (q = p + n + 1;
				     *q && *q != ',' && *q != ';' && *q != ':' &&
				     !isspace((unsigned char)*q);
				     q++)
					;
				if (*q == ':' && !device_prefix(p + n + 1, q))
					break;
			}
			n++;
		}
		text = strndup(p, n);
		if (!text) {
			s->failed = true;
			return;
		}
		add_entry(s, key, text, origin);
		free(text);
		p += n;
	}
	/* as every other key given nothing: a problem, not "nothing configured" */
	if (!any)
		settings_problem(
		    s, origin, key, value,
		    "expected SIZE:AMOUNT[@NODES] entries (2M:1024, 1G:4@0)");
}

static void set_reserve(struct hp_settings *s, const char *key, const char *value,
			const char *origin)
{
	struct hp_amount a;
	int rc = value_amount(value, &a);

	if (!rc && a.kind == HP_AMOUNT_COUNT)
		rc = parse_bytes(value, &a.value); /* a plain number is bytes here */
	a.kind = a.kind == HP_AMOUNT_PERCENT ? HP_AMOUNT_PERCENT : HP_AMOUNT_BYTES;
	if (rc)
		settings_problem(s, origin, key, value,
				 "%s: expected a size like 512M or a share like 2%%",
				 value_error(rc));
	else
		s->reserve = a;
}

static void add_mount(struct hp_settings *s, const char *key, const char *value,
		      const char *origin)
{
	struct hp_mount m = {0};
	char why[160], *buf = strdup(value);
	int rc;

	if (!buf) {
		s->failed = true;
		return;
	}
	rc = value_mount(buf, &m, why, sizeof(why));
	if (rc == -ENOMEM) {
		s->failed = true; /* what it took is freed below */
	} else if (rc) {
		settings_problem(s, origin, key, value, "%s", why);
	} else if (grow(s, (void **)&s->mounts, s->nmounts, sizeof(m))) {
		m.text = strdup(value);
		m.origin = strdup(origin);
		m.key = strdup(key);
		if (m.text && m.origin && m.key) {
			s->mounts[s->nmounts++] = m;
			m = (struct hp_mount){0};
		} else {
			s->failed = true;
		}
	}
	settings_drop_mount(&m);
	free(buf);
}

static void set_granularity(struct hp_settings *s, const char *key, const char *value,
			    const char *origin)
{
	struct hp_amount a;
	int rc;

	if (strcmp(value, "auto") == 0) {
		s->granularity_auto = true;
		s->granularity.kind = HP_AMOUNT_PERCENT;
		s->granularity.value = HP_AUTO_GRANULARITY;
		return;
	}
	rc = value_amount(value, &a);
	if (!rc && a.kind == HP_AMOUNT_COUNT)
		rc = -EINVAL; /* pages differ by size: a size or a share */
	if (rc || (a.kind == HP_AMOUNT_BYTES && a.value == 0))
		settings_problem(s, origin, key, value,
				 "expected 'auto', a size like 1G or a share like 2%%");
	else {
		s->granularity = a;
		s->granularity_auto = false;
	}
}

static void set_enabled(struct hp_settings *s, const char *key, const char *value,
			const char *origin)
{
	bool b;

	if (parse_bool(value, &b))
		settings_problem(s, origin, key, value,
				 "expected 0/1, no/yes, off/on, false/true");
	else
		s->enabled = b;
}

static void set_worker_count(struct hp_settings *s, const char *key, const char *value,
			     const char *origin)
{
	uint64_t v;

	if (strcmp(value, "auto") == 0)
		s->workers = 0;
	else if (parse_u64(value, &v) || v == 0 || v > HP_MAX_THREADS)
		settings_problem(s, origin, key, value,
				 "expected 'auto' or a count from 1 to %d",
				 HP_MAX_THREADS);
	else
		s->workers = v;
}

static void set_timeout(struct hp_settings *s, const char *key, const char *value,
			const char *origin)
{
	uint64_t v;

	if (parse_seconds(value, &v) || v == 0 || v > HP_MAX_TIMEOUT_MS)
		settings_problem(s, origin, key, value,
				 "expected seconds, more than 0 and at most 3600");
	else
		s->timeout_ms = v;
}

static void set_on_short(struct hp_settings *s, const char *key, const char *value,
			 const char *origin)
{
	if (strcmp(value, "continue") == 0)
		s->on_short = HP_SHORT_CONTINUE;
	else if (strcmp(value, "fail") == 0)
		s->on_short = HP_SHORT_FAIL;
	else
		settings_problem(s, origin, key, value, "expected 'continue' or 'fail'");
}

static void set_textfile(struct hp_settings *s, const char *key, const char *value,
			 const char *origin)
{
	if (strcmp(value, "none") && value[0] != '/') {
		settings_problem(s, origin, key, value,
				 "expected an absolute path or 'none'");
		return;
	}
	free(s->textfile);
	s->no_textfile = strcmp(value, "none") == 0;
	s->textfile = s->no_textfile ? NULL : strdup(value);
	if (!s->no_textfile && !s->textfile)
		s->failed = true;
}

static void set_mode(struct hp_settings *s, const char *key, const char *value,
		     const char *origin)
{
	if (strcmp(value, "grow") == 0)
		s->mode = HP_MODE_GROW;
	else if (strcmp(value, "exact") == 0)
		s->mode = HP_MODE_EXACT;
	else
		settings_problem(s, origin, key, value, "expected 'grow' or 'exact'");
}

void settings_set(struct hp_settings *s, const char *key, const char *value,
		  const char *origin, bool cmdline)
{
	static const struct {
		const char *key;
		void (*set)(struct hp_settings *s, const char *key, const char *value,
			    const char *origin);
	} keys[] = {
	    {"pages", set_pages},	{"enabled", set_enabled},
	    {"reserve", set_reserve},	{"threads", set_worker_count},
	    {"timeout", set_timeout},	{"granularity", set_granularity},
	    {"on_short", set_on_short}, {"mount", add_mount},
	    {"textfile", set_textfile}, {"mode", set_mode},
	};
	const char *k = key;

	/* On the command line "rd.hugepar=" is the off switch; the rest are
	 * rd.hugepar.KEY. */
	if (cmdline) {
		if (strcmp(key, "rd.hugepar") == 0)
			k = "enabled";
		else if (strncmp(key, "rd.hugepar.", 11) == 0 &&
			 strcmp(key + 11, "enabled"))
			k = key + 11;
		else
			k = "";
	}
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (strcmp(k, keys[i].key) == 0) {
			keys[i].set(s, key, value, origin);
			return;
		}
	settings_problem(s, origin, key, value, "unknown key");
}
