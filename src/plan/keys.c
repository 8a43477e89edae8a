/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keys.c - the keys of the settings and their values (keys.h): what each key takes,
 * and the key meant for a name that is not one. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keyname.h"
#include "keys.h"
#include "macros.h"
#include "parse.h"
#include "settings.h"
#include "values.h"

/* An entry, or its problem; written: as it was written, with spaces (a notice). */
static void add_entry(struct hp_settings *s, const char *key, const char *text,
		      const char *written, const char *origin)
{
	struct hp_entry e = {0};
	char why[160], *buf = strdup(text);

	if (!buf) {
		s->failed = true;
		return;
	}
	if (values_entry(buf, &e, why, sizeof(why))) {
		settings_problem(s, origin, key, written ? written : text, "%s", why);
	} else if (settings_grow(s, (void **)&s->entries, s->nentries, sizeof(e))) {
		if (written)
			settings_notice(s, origin, key, written,
					"taken as %s: write an entry without spaces",
					text);
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

struct pages_arg {
	struct hp_settings *s;
	const char *key, *origin;
};

/* An entry of a pages value, to the settings. */
static void take_entry(const char *text, const char *written, void *arg)
{
	const struct pages_arg *pa = arg;

	add_entry(pa->s, pa->key, text, written, pa->origin);
}

/* "pages =" with nothing after it: the entries before it are dropped, as a
 * systemd drop-in resets a setting with an empty value; what it drops is said. */
static void clear_pages(struct hp_settings *s, const char *key, const char *origin)
{
	char what[200] = "";
	size_t at = 0;

	for (unsigned i = 0; i < s->nentries; i++) {
		if (at < sizeof(what) && i < 3)
			at += (size_t)snprintf(what + at, sizeof(what) - at,
					       "%s%.40s (%.60s)", i ? ", " : "",
					       s->entries[i].text, s->entries[i].origin);
		settings_drop_entry(&s->entries[i]);
	}
	if (s->nentries)
		settings_notice(s, origin, key, "",
				"empty: drops the %u pages entr%s before it, %s%s",
				s->nentries, s->nentries > 1 ? "ies" : "y", what,
				s->nentries > 3 ? ", ..." : "");
	s->nentries = 0;
}

static void set_pages(struct hp_settings *s, const char *key, const char *value,
		      const char *origin)
{
	struct pages_arg pa = {s, key, origin};
	int n;

	if (!*value) {
		clear_pages(s, key, origin);
		return;
	}
	n = values_entries(value, take_entry, &pa);

	if (n < 0)
		s->failed = true;
	/* as every other key given nothing: a problem, not "nothing configured" */
	else if (!n)
		settings_problem(
		    s, origin, key, value,
		    "expected SIZE:AMOUNT[@NODES] entries (2M:1024, 1G:4@0)");
}

static void set_keep_free(struct hp_settings *s, const char *key, const char *value,
			  const char *origin)
{
	struct hp_amount a;
	int rc = values_amount(value, &a);
	char *o, *k, hint[96];

	if (!rc && a.kind == HP_AMOUNT_COUNT)
		rc = parse_bytes(value, &a.value); /* a plain number is bytes here */
	a.kind = a.kind == HP_AMOUNT_PERCENT ? HP_AMOUNT_PERCENT : HP_AMOUNT_BYTES;
	if (rc) {
		values_hint(value, rc, hint, sizeof(hint));
		settings_problem(s, origin, key, value, "%s: %s", values_error(rc),
				 hint[0] && !strstr(hint, "count")
				     ? hint
				     : "expected a size like 512M or a share like 2%");
		return;
	}
	o = strdup(origin);
	k = strdup(key);
	if (!o || !k) {
		free(o);
		free(k);
		s->failed = true;
		return;
	}
	s->keep_free = a;
	free(s->keep_free_origin);
	free(s->keep_free_key);
	s->keep_free_origin = o;
	s->keep_free_key = k;
}

/* "reserve", the old name of keep_free: taken, and said, for it reads as the
 * opposite (dpdk-hugepages.py's --reserve is the memory to allocate). */
static void set_reserve(struct hp_settings *s, const char *key, const char *value,
			const char *origin)
{
	unsigned before = s->nproblems;
	bool cmdline = strncmp(key, "rd.hugepar.", 11) == 0;

	set_keep_free(s, key, value, origin);
	if (s->nproblems == before)
		settings_notice(s, origin, key, value,
				"taken as %s: '%s' is its old name (the memory each node "
				"keeps free, not pages to reserve: those are '%s')",
				cmdline ? "rd.hugepar.keep_free" : "keep_free", key,
				cmdline ? "rd.hugepar.pages" : "pages");
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
	rc = values_mount(buf, &m, why, sizeof(why));
	if (rc == -ENOMEM) {
		s->failed = true; /* what it took is freed below */
	} else if (rc) {
		settings_problem(s, origin, key, value, "%s", why);
	} else if (settings_grow(s, (void **)&s->mounts, s->nmounts, sizeof(m))) {
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
	char hint[96];
	int rc;

	if (strcmp(value, "auto") == 0) {
		s->granularity_auto = true;
		return;
	}
	rc = values_amount(value, &a);
	if (!rc && a.kind == HP_AMOUNT_COUNT)
		rc = -EINVAL; /* pages differ by size: a size or a share */
	hint[0] = '\0';
	if (rc)
		values_hint(value, rc, hint, sizeof(hint));
	if (rc || (a.kind == HP_AMOUNT_BYTES && a.value == 0))
		settings_problem(
		    s, origin, key, value,
		    "expected 'auto', a size like 1G or a share like 2%%%s%s",
		    hint[0] && !strstr(hint, "count") ? ": " : "",
		    hint[0] && !strstr(hint, "count") ? hint : "");
	else {
		s->granularity = a;
		s->granularity_auto = false;
	}
}

static void set_enabled(struct hp_settings *s, const char *key, const char *value,
			const char *origin)
{
	bool b;

	if (parse_bool(value, &b)) {
		settings_problem(s, origin, key, value,
				 "expected 0/1, no/yes, off/on, false/true");
		return;
	}
	s->enabled = b;
	free(s->enabled_by);
	s->enabled_by = NULL;
	if (!b && asprintf(&s->enabled_by,
			   strncmp(key, "rd.", 3) ? "%s = %s (%s)" : "%s=%s (%s)", key,
			   value, origin) < 0) {
		s->enabled_by = NULL;
		s->failed = true;
	}
}

static void set_worker_count(struct hp_settings *s, const char *key, const char *value,
			     const char *origin)
{
	uint64_t v;

	char *o, *k;

	if (strcmp(value, "auto") &&
	    (parse_u64(value, &v) || v == 0 || v > HP_MAX_THREADS)) {
		settings_problem(s, origin, key, value,
				 "expected 'auto' or a count from 1 to %d",
				 HP_MAX_THREADS);
		return;
	}
	o = strdup(origin);
	k = strdup(key);
	if (!o || !k) {
		free(o);
		free(k);
		s->failed = true;
		return;
	}
	s->workers = strcmp(value, "auto") ? (unsigned)v : 0;
	free(s->workers_origin);
	free(s->workers_key);
	s->workers_origin = o;
	s->workers_key = k;
}

static void set_timeout(struct hp_settings *s, const char *key, const char *value,
			const char *origin)
{
	uint64_t v;

	if (parse_seconds(value, &v) || v == 0 || v > HP_MAX_TIMEOUT_MS)
		settings_problem(s, origin, key, value,
				 "expected seconds (90, 90s) or a time with units (2min, "
				 "1m30s, 500ms), more than 0 and at most 3600s (1h)");
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

static void set_vmemmap(struct hp_settings *s, const char *key, const char *value,
			const char *origin)
{
	if (strcmp(value, "auto") == 0)
		s->vmemmap = HP_VMEMMAP_AUTO;
	else if (strcmp(value, "optimize") == 0)
		s->vmemmap = HP_VMEMMAP_OPTIMIZE;
	else if (strcmp(value, "keep") == 0)
		s->vmemmap = HP_VMEMMAP_KEEP;
	else
		settings_problem(s, origin, key, value, "expected 'auto', 'optimize' or 'keep'");
}

typedef void (*setter)(struct hp_settings *s, const char *key, const char *value,
		       const char *origin);

/* The keys, with what each one is for the answer to a key that is not one. */
static const struct {
	const char *key;
	const char *what; /* NULL: an old name (reserve is keep_free's) */
	setter set;
} keys[] = {
    {"pages", "the huge pages to reserve", set_pages},
    {"keep_free", "the memory each node keeps free", set_keep_free},
    {"threads", "the number of threads, worker processes", set_worker_count},
    {"timeout", "the seconds before hugepar stops", set_timeout},
    {"mode", "grow or exact", set_mode},
    {"enabled", "the off switch", set_enabled},
    {"granularity", "what shares are rounded down to", set_granularity},
    {"on_short", "what hugepar verify does when pages are short", set_on_short},
    {"vmemmap", "the kernel's vmemmap optimization", set_vmemmap},
    {"mount", "a hugetlbfs mount", add_mount},
    {"textfile", "node_exporter's textfile", set_textfile},
    {"reserve", NULL, set_reserve},
};

const char *keys_name(unsigned i, const char **what)
{
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++)
		if (keys[k].what && !i--) {
			*what = keys[k].what;
			return keys[k].key;
		}
	return NULL;
}

bool keys_known(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (keys[i].what && strcmp(name, keys[i].key) == 0)
			return true;
	return false;
}

/* The index in keys[] of the key a name that is not one stands for, or -1 (an old
 * name's, its new key). */
static int key_index(const char *name)
{
	const char *names[ARRAY_SIZE(keys)], *meant;

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		names[i] = keys[i].key;
	meant = keyname_meant(name, names, ARRAY_SIZE(keys));
	for (size_t i = 0; meant && i < ARRAY_SIZE(keys); i++)
		if (strcmp(meant, keys[i].key) == 0)
			return keys[i].what ? (int)i : key_index("keep_free");
	return -1;
}

/* An unknown key, answered with the key meant where there is one. */
static void unknown_key(struct hp_settings *s, const char *key, const char *value,
			const char *origin, const char *name, bool cmdline)
{
	int k = key_index(name);

	if (k < 0)
		settings_problem(s, origin, key, value, "unknown key");
	else if (cmdline && strcmp(keys[k].key, "enabled") == 0)
		settings_problem(
		    s, origin, key, value,
		    "unknown key: did you mean 'rd.hugepar' (the off switch: "
		    "rd.hugepar=0)?");
	else
		settings_problem(s, origin, key, value,
				 "unknown key: did you mean '%s%s' (%s)?",
				 cmdline ? "rd.hugepar." : "", keys[k].key, keys[k].what);
}

/* A value's quotes: none (0), in pairs (1: *bare is the value without them), or one
 * without its pair (-1). No value of hugepar's is quoted (a path with a quote in it
 * must do without). */
static int unquote(struct hp_settings *s, const char *value, char **bare)
{
	size_t dq = 0, sq = 0, o = 0;

	for (const char *c = value; *c; c++) {
		dq += *c == '"';
		sq += *c == '\'';
	}
	if (!dq && !sq)
		return 0;
	if (dq % 2 || sq % 2)
		return -1;
	if (!(*bare = malloc(strlen(value) + 1))) {
		s->failed = true;
		return -1;
	}
	for (const char *c = value; *c; c++)
		if (*c != '"' && *c != '\'')
			(*bare)[o++] = *c;
	(*bare)[o] = '\0';
	return 1;
}

static void set_key(struct hp_settings *s, const char *key, const char *value,
		    const char *origin, bool cmdline);

void keys_set(struct hp_settings *s, const char *key, const char *value,
	      const char *origin, bool cmdline)
{
	char *bare = NULL;
	int q = unquote(s, value, &bare);

	if (q < 0 && !s->failed)
		settings_problem(s, origin, key, value,
				 "a quote without its pair: remove the quote");
	if (q <= 0) {
		if (!q)
			set_key(s, key, value, origin, cmdline);
		return;
	}
	settings_notice(s, origin, key, value,
			"taken as '%.*s': write values without quotes", HP_SHOW_VALUE,
			bare);
	set_key(s, key, bare, origin, cmdline);
	free(bare);
}

static void set_key(struct hp_settings *s, const char *key, const char *value,
		    const char *origin, bool cmdline)
{
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
	unknown_key(s, key, value, origin, cmdline ? key + MIN(strlen(key), 11) : key,
		    cmdline);
}
