/* SPDX-License-Identifier: GPL-2.0-or-later */
/* settings.c - config files and the kernel command line, merged into one struct. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file.h"
#include "macros.h"
#include "parse.h"
#include "settings.h"
#include "topology.h"

void settings_init(struct hp_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->enabled = true;
	s->keep_free.kind = HP_AMOUNT_BYTES;
	s->keep_free.value = HP_DEFAULT_KEEP_FREE;
	s->timeout_ms = HP_DEFAULT_TIMEOUT;
	s->mode = HP_MODE_GROW;
	s->digest = FNV1A64_INIT;
	s->granularity_auto = true; /* (granularity itself unused then) */
	s->on_short = HP_SHORT_CONTINUE;
	/* nothing allocated: settings_free() leaves s as this, and a caller may drop
	 * it then */
}

const char *settings_textfile(const struct hp_settings *s)
{
	return s->no_textfile ? NULL : s->textfile ? s->textfile : HP_DEFAULT_TEXTFILE;
}

const char *settings_on_short_name(enum hp_on_short o)
{
	return o == HP_SHORT_FAIL ? "fail" : "continue";
}

const char *settings_vmemmap_name(enum hp_vmemmap v)
{
	return v == HP_VMEMMAP_OPTIMIZE ? "optimize" : v == HP_VMEMMAP_KEEP ? "keep" : "auto";
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

static void problems_free(struct hp_problem *list, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		free(list[i].origin);
		free(list[i].key);
		free(list[i].value);
		free(list[i].message);
	}
	free(list);
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
	problems_free(s->problems, s->nproblems);
	problems_free(s->notices, s->nnotices);
	for (unsigned i = 0; i < s->nsources; i++)
		free(s->sources[i]);
	for (unsigned i = 0; i < s->nmounts; i++)
		settings_drop_mount(&s->mounts[i]);
	free(s->mounts);
	free(s->textfile);
	free(s->enabled_by);
	free(s->keep_free_origin);
	free(s->keep_free_key);
	free(s->workers_origin);
	free(s->workers_key);
	free(s->config);
	free(s->entries);
	free(s->sources);
	settings_init(s);
}

const char *settings_mode_name(enum hp_mode m)
{
	return m == HP_MODE_EXACT ? "exact" : "grow";
}

bool settings_grow(struct hp_settings *s, void **arr, unsigned n, size_t size)
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

/* One more item of a list of problems or notices. */
static void add_problem(struct hp_settings *s, struct hp_problem **list, unsigned *n,
			const char *origin, const char *key, const char *value,
			const char *fmt, va_list ap)
{
	struct hp_problem *p;
	char msg[320];

	if (!settings_grow(s, (void **)list, *n, sizeof(*p)))
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	p = &(*list)[*n];
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
	(*n)++;
}

void settings_problem(struct hp_settings *s, const char *origin, const char *key,
		      const char *value, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_problem(s, &s->problems, &s->nproblems, origin, key, value, fmt, ap);
	va_end(ap);
}

void settings_notice(struct hp_settings *s, const char *origin, const char *key,
		     const char *value, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_problem(s, &s->notices, &s->nnotices, origin, key, value, fmt, ap);
	va_end(ap);
}

unsigned settings_pages_rejected(const struct hp_settings *s)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->nproblems; i++)
		n += strcmp(s->problems[i].key, "pages") == 0 ||
		     strcmp(s->problems[i].key, "rd.hugepar.pages") == 0;
	return n;
}

enum hp_place settings_place(const char *origin)
{
	if (!strncmp(origin, "credential ", 11))
		return HP_PLACE_CREDENTIAL;
	return strncmp(origin, "kernel command line", 19) ? HP_PLACE_FILE
							  : HP_PLACE_CMDLINE;
}

unsigned settings_problem_places(const struct hp_settings *s, bool pages_only)
{
	unsigned places = 0;

	for (unsigned i = 0; i < s->nproblems; i++)
		if (!pages_only || !strcmp(s->problems[i].key, "pages") ||
		    !strcmp(s->problems[i].key, "rd.hugepar.pages"))
			places |= settings_place(s->problems[i].origin);
	return places;
}

void settings_add_source(struct hp_settings *s, const char *src)
{
	char *c;

	for (unsigned i = 0; i < s->nsources; i++)
		if (strcmp(s->sources[i], src) == 0)
			return;
	if (!settings_grow(s, (void **)&s->sources, s->nsources, sizeof(*s->sources)))
		return;
	c = strdup(src);
	if (!c) {
		s->failed = true;
		return;
	}
	s->sources[s->nsources++] = c;
}

/* Where each node of the machine was last named by an entry of each size, as the
 * entries are walked from the last: the nearest later entry there, or NONE. */
#define NONE UINT_MAX
struct later {
	const struct hp_topology *t;
	uint64_t sizes[HP_MAX_SIZES];
	unsigned nsizes;
	unsigned *at; /* [size * t->nnodes + node index] */
};

/* Entry i against the later ones of its size: the nodes they left it (left) and
 * took (gone), the nearest that took one (the return), whether others took some
 * (more); then entry i is the nearest later one of its nodes. NONE when no later
 * entry took any, or the size is past the table. */
static unsigned later_take(struct later *l, const struct hp_entry *e, unsigned i,
			   struct hp_idset *left, struct hp_idset *gone, bool *more)
{
	unsigned z = 0, first = NONE, *at;

	while (z < l->nsizes && l->sizes[z] != e->size_kb)
		z++;
	if (z == HP_MAX_SIZES)
		return NONE;
	if (z == l->nsizes)
		l->sizes[l->nsizes++] = e->size_kb;
	at = l->at + (size_t)z * l->t->nnodes;
	memset(left, 0, sizeof(*left));
	memset(gone, 0, sizeof(*gone));
	*more = false;
	for (unsigned n = 0; n < l->t->nnodes; n++) {
		unsigned id = l->t->nodes[n].id;

		if (!e->all_nodes && !idset_has(&e->nodes, id))
			continue;
		idset_add(at[n] == NONE ? left : gone, id);
		if (at[n] != NONE && first != NONE && at[n] != first)
			*more = true;
		if (at[n] != NONE && (first == NONE || at[n] < first))
			first = at[n];
		at[n] = i;
	}
	return first;
}

/* The notice of entry e, replaced on gone (all of it, when left is empty). */
static void note_one(struct hp_settings *s, const struct hp_entry *e,
		     const struct hp_entry *by, const struct hp_idset *left,
		     const struct hp_idset *gone, bool more)
{
	char nodes[96], where[112] = "";

	if (idset_count(left)) {
		if (idset_format(gone, nodes, sizeof(nodes)))
			strcpy(nodes, "...");
		snprintf(where, sizeof(where), " on node%s %s",
			 idset_count(gone) > 1 ? "s" : "", nodes);
	}
	settings_notice(s, e->origin, e->key, e->text,
			"not done%s: replaced by %s (%s)%s, written after it", where,
			by->text, by->origin, more ? " and others" : "");
}

void settings_note_replaced(struct hp_settings *s, const struct hp_topology *t)
{
	static struct hp_idset left, gone; /* large: off the stack */
	struct later l = {.t = t};
	unsigned from = s->nnotices;

	l.at = malloc((size_t)HP_MAX_SIZES * (t->nnodes ? t->nnodes : 1) * sizeof(*l.at));
	if (!l.at) {
		s->failed = true;
		return;
	}
	memset(l.at, 0xff, (size_t)HP_MAX_SIZES * t->nnodes * sizeof(*l.at)); /* NONE */
	for (unsigned i = s->nentries; i-- > 0;) {
		const struct hp_entry *e = &s->entries[i];
		bool more;
		unsigned by = later_take(&l, e, i, &left, &gone, &more);

		/* a default with later exceptions is as meant */
		if (by != NONE && !(idset_count(&left) && e->all_nodes))
			note_one(s, e, &s->entries[by], &left, &gone, more);
	}
	free(l.at);
	/* (made from the last entry back: in the entries' order again) */
	for (unsigned a = from, b = s->nnotices; b > a + 1; a++, b--) {
		struct hp_problem tmp = s->notices[a];

		s->notices[a] = s->notices[b - 1];
		s->notices[b - 1] = tmp;
	}
}
