/* SPDX-License-Identifier: GPL-2.0-or-later */
/* settings.c - config files and the kernel command line, merged into one struct. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"

void settings_init(struct hp_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->enabled = true;
	s->reserve.kind = HP_AMOUNT_BYTES;
	s->reserve.value = HP_DEFAULT_RESERVE;
	s->timeout_ms = HP_DEFAULT_TIMEOUT;
	s->mode = HP_MODE_GROW;
}

const char *mode_name(enum hp_mode m)
{
	return m == HP_MODE_EXACT ? "exact" : "grow";
}

void amount_format(const struct hp_amount *a, char *buf, size_t len)
{
	switch (a->kind) {
	case HP_AMOUNT_COUNT:
		snprintf(buf, len, "%llu", (unsigned long long)a->value);
		break;
	case HP_AMOUNT_BYTES:
		format_bytes(a->value, buf, len);
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

void settings_problem(struct hp_settings *s, const char *origin, const char *key,
		      const char *value, const char *fmt, ...)
{
	struct hp_problem *p;
	va_list ap;

	if (s->nproblems == HP_MAX_PROBLEMS) {
		s->problems_dropped++;
		return;
	}
	p = &s->problems[s->nproblems++];
	snprintf(p->origin, sizeof(p->origin), "%s", origin);
	snprintf(p->key, sizeof(p->key), "%s", key);
	snprintf(p->value, sizeof(p->value), "%s", value);
	va_start(ap, fmt);
	vsnprintf(p->message, sizeof(p->message), fmt, ap);
	va_end(ap);
}

static void add_source(struct hp_settings *s, const char *src)
{
	for (unsigned i = 0; i < s->nsources; i++)
		if (strcmp(s->sources[i], src) == 0)
			return;
	if (s->nsources < HP_MAX_SOURCES)
		snprintf(s->sources[s->nsources++], sizeof(s->sources[0]), "%s", src);
}

static const char *errmsg(int rc)
{
	return rc == -ERANGE ? "out of range" : "malformed";
}

/* An amount: "512" pages, "64G" memory, or "50%" of the node's memory. */
static int parse_amount(const char *str, struct hp_amount *a)
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

/* One "SIZE:AMOUNT[@NODES]" entry. */
static int parse_entry(const char *text, struct hp_entry *e, char *why, size_t wlen)
{
	char buf[64], *colon, *at;
	uint64_t bytes;
	int rc;

	if (xsnprintf(buf, sizeof(buf), "%s", text)) {
		snprintf(why, wlen, "entry too long");
		return -EINVAL;
	}
	memset(e, 0, sizeof(*e));
	snprintf(e->text, sizeof(e->text), "%s", text);
	colon = strchr(buf, ':');
	if (!colon) {
		snprintf(why, wlen, "expected SIZE:AMOUNT[@NODES]");
		return -EINVAL;
	}
	*colon = '\0';
	at = strchr(colon + 1, '@');
	if (at)
		*at = '\0';

	rc = parse_bytes(buf, &bytes);
	if (rc || bytes < 1024 || bytes % 1024) {
		snprintf(why, wlen, "page size '%s' is %s", buf,
			 rc ? errmsg(rc) : "not a whole number of kB");
		return -EINVAL;
	}
	e->size_kb = bytes / 1024;

	rc = parse_amount(colon + 1, &e->amount);
	if (rc) {
		snprintf(why, wlen,
			 "amount '%s' is %s (a count, a size like 64G, or 50%%)",
			 colon + 1, errmsg(rc));
		return rc;
	}

	e->all_nodes = !at;
	if (at) {
		rc = parse_idlist(at + 1, HP_MAX_NODES, &e->nodes);
		if (rc || idset_count(&e->nodes) == 0) {
			snprintf(why, wlen, "node list '%s' is %s", at + 1,
				 rc == -ERANGE ? "out of range" : "malformed");
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Entries are separated by whitespace or ';', and by a ',' that starts a new
 * SIZE:AMOUNT (the next piece holds a ':' before any further ','), so that
 * "2M:50%,1G:2@0,1" is two entries and a node list keeps its commas.
 */
static void set_pages(struct hp_settings *s, const char *key, const char *value,
		      const char *origin)
{
	const char *p = value;

	while (*p) {
		char text[128], why[160];
		struct hp_entry e;
		size_t n = 0;

		while (*p && (isspace((unsigned char)*p) || *p == ';' || *p == ','))
			p++;
		if (!*p)
			break;
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
				if (*q == ':')
					break;
			}
			n++;
		}
		snprintf(text, sizeof(text), "%.*s", (int)n, p);
		if (n >= sizeof(text) - 1 || parse_entry(text, &e, why, sizeof(why))) {
			if (n >= sizeof(text) - 1)
				snprintf(why, sizeof(why), "entry too long");
			settings_problem(s, origin, key, text, "%s", why);
		} else if (s->nentries == HP_MAX_ENTRIES) {
			settings_problem(s, origin, key, text, "more than %d entries",
					 HP_MAX_ENTRIES);
		} else {
			snprintf(e.origin, sizeof(e.origin), "%s", origin);
			s->entries[s->nentries++] = e;
		}
		p += n;
	}
}

void settings_set(struct hp_settings *s, const char *key, const char *value,
		  const char *origin, bool cmdline)
{
	const char *k = key;
	uint64_t v;
	int rc;

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

	if (strcmp(k, "pages") == 0) {
		set_pages(s, key, value, origin);
	} else if (strcmp(k, "enabled") == 0) {
		bool b;

		if (parse_bool(value, &b))
			settings_problem(s, origin, key, value,
					 "expected 0/1, no/yes, off/on");
		else
			s->enabled = b;
	} else if (strcmp(k, "reserve") == 0) {
		struct hp_amount a;

		rc = parse_amount(value, &a);
		if (!rc && a.kind == HP_AMOUNT_COUNT)
			rc = parse_bytes(value,
					 &a.value); /* a plain number is bytes here */
		a.kind =
		    a.kind == HP_AMOUNT_PERCENT ? HP_AMOUNT_PERCENT : HP_AMOUNT_BYTES;
		if (rc)
			settings_problem(
			    s, origin, key, value,
			    "%s: expected a size like 512M or a share like 2%%",
			    errmsg(rc));
		else
			s->reserve = a;
	} else if (strcmp(k, "threads") == 0) {
		if (strcmp(value, "auto") == 0)
			s->threads = 0;
		else if ((rc = parse_u64(value, &v)) || v == 0 || v > HP_MAX_THREADS)
			settings_problem(s, origin, key, value,
					 "expected 'auto' or a count from 1 to %d",
					 HP_MAX_THREADS);
		else
			s->threads = v;
	} else if (strcmp(k, "timeout") == 0) {
		if ((rc = parse_seconds(value, &v)) || v == 0 || v > HP_MAX_TIMEOUT_MS)
			settings_problem(
			    s, origin, key, value,
			    "expected seconds, more than 0 and at most 3600");
		else
			s->timeout_ms = v;
	} else if (strcmp(k, "mode") == 0) {
		if (strcmp(value, "grow") == 0)
			s->mode = HP_MODE_GROW;
		else if (strcmp(value, "exact") == 0)
			s->mode = HP_MODE_EXACT;
		else
			settings_problem(s, origin, key, value,
					 "expected 'grow' or 'exact'");
	} else {
		settings_problem(s, origin, key, value, "unknown key");
	}
}

int settings_load_file(struct hp_settings *s, const char *file)
{
	char line[1024], origin[96];
	unsigned lineno = 0;
	FILE *f = fopen(file, "re");

	if (!f)
		return -errno;
	add_source(s, file);
	while (fgets(line, sizeof(line), f)) {
		char *l, *eq, *key, *value, *hash;

		lineno++;
		snprintf(origin, sizeof(origin), "%s:%u", file, lineno);
		if (!strchr(line, '\n') && !feof(f)) {
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			settings_problem(s, origin, "", "",
					 "line longer than %zu characters",
					 sizeof(line) - 2);
			continue;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		l = strtrim(line);
		if (!*l)
			continue;
		eq = strchr(l, '=');
		if (!eq) {
			settings_problem(s, origin, l, "", "expected KEY = VALUE");
			continue;
		}
		*eq = '\0';
		key = strtrim(l);
		value = strtrim(eq + 1);
		settings_set(s, key, value, origin, false);
	}
	fclose(f);
	return 0;
}

static int conf_filter(const struct dirent *de)
{
	size_t n = strlen(de->d_name);

	return de->d_name[0] != '.' && n > 5 && strcmp(de->d_name + n - 5, ".conf") == 0;
}

int settings_load_config(struct hp_settings *s, const char *file)
{
	struct dirent **list;
	char dir[256];
	int n, rc;

	rc = settings_load_file(s, file);
	if (rc && rc != -ENOENT)
		settings_problem(s, file, "", "", "cannot read: %s", strerror(-rc));
	if (xsnprintf(dir, sizeof(dir), "%s.d", file))
		return -ENAMETOOLONG;
	n = scandir(dir, &list, conf_filter, alphasort);
	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		char path[512];

		if (!xsnprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name)) {
			rc = settings_load_file(s, path);
			if (rc && rc != -ENOENT)
				settings_problem(s, path, "", "", "cannot read: %s",
						 strerror(-rc));
		}
		free(list[i]);
	}
	free(list);
	return 0;
}

void settings_load_cmdline(struct hp_settings *s, const char *cmdline)
{
	static const char origin[] = "kernel command line";
	const char *p = cmdline;

	while (*p) {
		char word[1024], *w = word, *eq;
		bool quoted = false;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		/* The kernel's rules: double quotes may enclose spaces, and are dropped.
		 */
		while (*p && (quoted || !isspace((unsigned char)*p))) {
			if (*p == '"')
				quoted = !quoted;
			else if (w < word + sizeof(word) - 1)
				*w++ = *p;
			p++;
		}
		*w = '\0';
		if (strcmp(word, "--") == 0)
			break; /* the rest is for init */
		if (strncmp(word, "rd.hugepar", 10) ||
		    (word[10] && word[10] != '.' && word[10] != '='))
			continue;
		add_source(s, origin);
		eq = strchr(word, '=');
		if (eq)
			*eq = '\0';
		settings_set(s, word, eq ? eq + 1 : "1", origin, true);
	}
}

void settings_validate(struct hp_settings *s, const struct hp_topology *t)
{
	unsigned out = 0;

	for (unsigned i = 0; i < s->nentries; i++) {
		struct hp_entry *e = &s->entries[i];
		const char *key = strcmp(e->origin, "kernel command line")
				      ? "pages"
				      : "rd.hugepar.pages";
		char sz[32], offered[128] = "";
		bool ok = true;

		if (topology_size_index(t, e->size_kb) < 0) {
			for (unsigned k = 0; k < t->nsizes; k++) {
				size_t n = strlen(offered);

				format_size_kb(t->sizes[k].kb, sz, sizeof(sz));
				snprintf(offered + n, sizeof(offered) - n, "%s%s",
					 n ? " " : "", sz);
			}
			format_size_kb(e->size_kb, sz, sizeof(sz));
			if (t->nsizes)
				settings_problem(
				    s, e->origin, key, e->text,
				    "page size %s is not offered by the kernel "
				    "(it offers %s)",
				    sz, offered);
			else
				settings_problem(
				    s, e->origin, key, e->text,
				    "the kernel offers no huge pages (no hugetlb)");
			ok = false;
		}
		for (unsigned id = 0; ok && !e->all_nodes && id < HP_MAX_NODES; id++) {
			if (idset_has(&e->nodes, id) && topology_node_index(t, id) < 0) {
				settings_problem(s, e->origin, key, e->text,
						 "node %u does not exist", id);
				ok = false;
			}
		}
		if (ok)
			s->entries[out++] = *e;
	}
	s->nentries = out;
}
