/* SPDX-License-Identifier: GPL-2.0-or-later */
/* setters.c - pure: what the other setters of the pools will do to hugepar's pools
 * (setters.h; the rules in doc/setters.md). */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "kparams.h"
#include "macros.h"
#include "parse.h"
#include "setters.h"

static struct hp_setter *put(struct hp_setters *out, const char *origin,
			     const char *setting)
{
	struct hp_setter *s;

	if (out->n >= HP_SETTERS_MAX) {
		out->more = true;
		return NULL;
	}
	s = &out->s[out->n++];
	memset(s, 0, sizeof(*s));
	snprintf(s->origin, sizeof(s->origin), "%s", origin);
	snprintf(s->setting, sizeof(s->setting), "%s", setting);
	return s;
}

static void say(struct hp_setter *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void say(struct hp_setter *s, const char *fmt, ...)
{
	va_list ap;

	if (!s)
		return;
	va_start(ap, fmt);
	vsnprintf(s->effect, sizeof(s->effect), fmt, ap);
	va_end(ap);
}

static int size_of(const struct setters_pools *p, uint64_t kb)
{
	for (unsigned z = 0; z < p->nsizes; z++)
		if (p->kb[z] == kb)
			return (int)z;
	return -1;
}

/* "node 0: 96, node 1: 40" for size z, and the total in *total. */
static void pools_words(const struct setters_pools *p, int z, char *buf, size_t len,
			uint64_t *total)
{
	size_t pos = 0;
	bool over = false;

	*total = 0;
	buf[0] = '\0';
	for (unsigned n = 0; z >= 0 && n < p->nnodes; n++) {
		uint64_t v = p->pages[n * p->nsizes + (unsigned)z];

		*total = add_sat(*total, v, &over);
		if (n == 8 && pos < len)
			pos += snprintf(buf + pos, len - pos, ", ...");
		else if (n < 8 && pos < len)
			pos += snprintf(buf + pos, len - pos, "%snode %u: %llu",
					n ? ", " : "", p->ids[n], (unsigned long long)v);
	}
}

/* A pool of size kb set to v pages as a whole, by who, after the root switch: what
 * the kernel does to hugepar's pools of that size. Whether they change. */
static bool whole_pool(struct hp_setter *s, const struct setters_pools *p,
		       const char *pre, const char *who, uint64_t kb, uint64_t v)
{
	char sz[16], nodes[160];
	unsigned long long t, d, per;
	uint64_t total;

	text_size_kb(kb, sz, sizeof(sz));
	pools_words(p, size_of(p, kb), nodes, sizeof(nodes), &total);
	t = total;
	per = p->nnodes ? p->nnodes : 1;
	d = v > t ? v - t : t - v;
	if (v == t) {
		say(s,
		    "%s%s sets the %s pool to %llu pages after the root switch: the total "
		    "hugepar leaves, so nothing changes while hugepar's pools are met",
		    pre, who, sz, t);
		return false;
	}
	say(s,
	    "%s%s %s the %s pool from %llu to %llu pages after the root switch: the "
	    "kernel %s %llu %s over the nodes in turn (about %llu a node), %s hugepar's "
	    "(%s)",
	    pre, who, v > t ? "raises" : "lowers", sz, t, (unsigned long long)v,
	    v > t ? "adds" : "frees", d, v > t ? "more" : "free pages",
	    (d + per - 1) / per, v > t ? "beside" : "shrinking", nodes);
	return true;
}

/* hugepages=V for the size kb: the kernel's boot-time pools, before hugepar's run.
 * In force where grow mode then keeps more on a node than hugepar's entry asks
 * there; the kernel's pools at or below the requests are the kernel route hugepar
 * cmdline prints, which hugepar's run completes. */
static void boot_pool(struct hp_setter *s, const struct setters_pools *p, uint64_t kb,
		      const char *v)
{
	char sz[16], how[96] = "over the nodes in turn", more[128] = "";
	uint64_t kern[HP_MAX_BOOT_NODES], total;
	size_t pos = 0;
	bool entry = false;
	int z = size_of(p, kb);

	text_size_kb(kb, sz, sizeof(sz));
	if (p->nnodes > HP_MAX_BOOT_NODES ||
	    kparams_read_pages(v, p->ids, p->nnodes, kern, &total)) {
		say(s,
		    "the kernel cannot read '%s' (a count, or NODE:COUNT,...): it "
		    "reserves no %s pages at boot",
		    v, sz);
		return;
	}
	if (strchr(v, ':'))
		snprintf(how, sizeof(how), "on the nodes named (%s)", v);
	for (unsigned i = 0; z >= 0 && p->asked && i < p->nnodes; i++) {
		uint64_t a = p->asked[i * p->nsizes + (unsigned)z];

		entry |= a != HP_NOT_ASKED;
		if (a == HP_NOT_ASKED || kern[i] <= a || p->exact || pos >= sizeof(more))
			continue;
		s->in_force = true;
		pos += snprintf(more + pos, sizeof(more) - pos, "%snode %u: %llu of %llu",
				pos ? ", " : "", p->ids[i], (unsigned long long)kern[i],
				(unsigned long long)a);
	}
	say(s,
	    "the kernel reserves %llu %s pages at boot, %s, before hugepar runs; hugepar "
	    "counts them as the pool before and %s%s%s",
	    (unsigned long long)total, sz, how,
	    !entry	  ? "has no entry for the size: they stay"
	    : s->in_force ? "keeps them where they are more than it asks (mode = grow: "
	    : p->exact
		? "sets each node it has an entry for to its request (mode = exact)"
		: "adds what its entries ask beyond them",
	    more, s->in_force ? ")" : "");
}

/* A hugepagesz= that no hugepages= followed. */
static void size_alone(struct hp_setters *out, const char *word)
{
	say(put(out, "kernel command line", word),
	    "no hugepages= follows it: the kernel reserves none of that size at boot");
}

/* The size the kernel's default_hugepagesz= on a command line names (the first
 * valid one), or dflt. word has room for the whole line. */
static uint64_t cmdline_default(const char *cmdline, char *word, uint64_t dflt)
{
	const char *q = cmdline;

	while (parse_cmdline_word(&q, word) && strcmp(word, "--"))
		if (!strncmp(word, "default_hugepagesz=", 19) &&
		    kparams_read_size(word + 19))
			return kparams_read_size(word + 19);
	return dflt;
}

/* The kernel's reading of its command line (hugepages_setup()): a hugepages= is of
 * the size of the hugepagesz= before it, or of the default size when none came
 * before; a second one for the same size, or after a size it does not offer, is
 * ignored. */
struct cmdline_state {
	uint64_t dflt, kb;   /* the default size; the last hugepagesz=, 0: none */
	bool valid, pending; /* that size is offered; no hugepages= took it yet */
	uint64_t last;	     /* the size the last hugepages= was of, 0: none */
	char word[96];	     /* the last hugepagesz= word */
};

static void kernel_word(struct cmdline_state *k, const char *w,
			const struct setters_pools *p, struct hp_setters *out)
{
	char setting[160], sz[16];
	struct hp_setter *s;
	uint64_t kb;

	if (!strncmp(w, "default_hugepagesz=", 19)) {
		text_size_kb(kparams_read_size(w + 19), sz, sizeof(sz));
		s = put(out, "kernel command line", w);
		if (kparams_read_size(w + 19))
			say(s,
			    "the default huge page size is %s: vm.nr_hugepages, "
			    "/proc/meminfo's HugePages_ and hugetlbfs mounts without "
			    "pagesize= count %s pages",
			    sz, sz);
		else
			say(s, "not a size: the kernel keeps its default");
	} else if (!strncmp(w, "hugepagesz=", 11)) {
		if (k->pending)
			size_alone(out, k->word);
		k->kb = kparams_read_size(w + 11);
		k->valid = k->kb && (!p->nsizes || size_of(p, k->kb) >= 0);
		k->pending = true;
		snprintf(k->word, sizeof(k->word), "%s", w);
	} else if (!strncmp(w, "hugepages=", 10)) {
		snprintf(setting, sizeof(setting), "%s%s%s", k->pending ? k->word : "",
			 k->pending ? " " : "", w);
		s = put(out, "kernel command line", setting);
		kb = k->kb ? k->kb : k->dflt;
		if (k->kb && !k->valid)
			say(s,
			    "%s is not a size this kernel offers: it ignores the pages",
			    k->word);
		else if (kb == k->last)
			say(s, "a second hugepages= for the size, without a hugepagesz= "
			       "between: the kernel ignores it");
		else
			boot_pool(s, p, kb, w + 10);
		k->last = kb;
		k->pending = false;
	}
}

/* The kernel command line's hugepagesz=, hugepages= and default_hugepagesz= words, up
 * to "--" (init's words follow it). */
static void cmdline_judge(const char *cmdline, const struct setters_pools *p,
			  struct hp_setters *out)
{
	struct cmdline_state k = {0};
	const char *q = cmdline ? cmdline : "";
	char *w = malloc(strlen(q) + 1);

	if (!w)
		return;
	k.dflt = cmdline_default(q, w, p->default_kb ? p->default_kb : 2048);
	while (parse_cmdline_word(&q, w) && strcmp(w, "--"))
		kernel_word(&k, w, p, out);
	if (k.pending)
		size_alone(out, k.word);
	free(w);
}

static bool sysctl_matches(const char *glob, const char *name)
{
	return fnmatch(glob, name, FNM_PATHNAME) == 0;
}

/* The sysctl name a file's line sets, in words. */
static const char *sysctl_words(const char *name)
{
	return strcmp(name, "vm/nr_hugepages") ? "vm.nr_hugepages_mempolicy"
					       : "vm.nr_hugepages";
}

/* The line systemd-sysctl writes for name (vm/nr_hugepages, ...): the last exact
 * one it reads (an exclusion, "-KEY" alone, writes nothing), else the last glob
 * that matches it; -1 for none. */
static int sysctl_in_force(const struct setfiles *f, const char *name)
{
	int exact = -1, glob = -1;

	for (unsigned i = 0; i < f->n; i++) {
		const struct setfile *e = &f->f[i];

		if (e->kind != SETFILE_SYSCTL || e->unread_by[0] || e->conf_unlinked)
			continue;
		if (!e->glob && !strcmp(e->name, name))
			exact = (int)i;
		else if (e->glob && e->has_value && sysctl_matches(e->name, name))
			glob = (int)i;
	}
	if (exact >= 0)
		return f->f[exact].has_value ? exact : -1;
	return glob;
}

/* A value systemd-sysctl writes to name: what the kernel does with it. */
static void sysctl_value(struct hp_setter *s, const struct setfile *e, const char *name,
			 const struct setters_pools *p)
{
	char pre[192] = "", dec[24];
	size_t n;
	uint64_t v;

	if (e->glob)
		snprintf(pre, sizeof(pre),
			 "its pattern matches %s: ", sysctl_words(name));
	if (kparams_read_count(e->value, &v)) {
		say(s,
		    "%sthe kernel refuses '%s' (not a count of pages it can read): the "
		    "pool stays as hugepar leaves it%s",
		    pre, e->value,
		    e->ignore_failure ? ""
				      : "; systemd-sysctl logs an error at every boot");
		return;
	}
	snprintf(dec, sizeof(dec), "%llu", (unsigned long long)v);
	n = strlen(pre);
	if (strcmp(e->value, dec))
		snprintf(pre + n, sizeof(pre) - n,
			 "the kernel reads '%s' as %s: ", e->value, dec);
	s->in_force = whole_pool(s, p, pre, "systemd-sysctl",
				 p->default_kb ? p->default_kb : 2048, v);
}

/* One line of a sysctl file that names a pool's sysctl. */
static void sysctl_item(const struct setfiles *f, unsigned i, const int *force,
			const struct setters_pools *p, struct hp_setters *out)
{
	static const char *const names[] = {"vm/nr_hugepages",
					    "vm/nr_hugepages_mempolicy"};
	const struct setfile *e = &f->f[i];
	char origin[288], setting[160];
	struct hp_setter *s;
	int by = -1;

	snprintf(origin, sizeof(origin), "%s:%u", e->path, e->line);
	snprintf(setting, sizeof(setting), "%s%s%s%s",
		 e->ignore_failure || !e->has_value ? "-" : "", e->key,
		 e->has_value ? " = " : "", e->has_value ? e->value : "");
	if (!(s = put(out, origin, setting)))
		return;
	if (e->conf_unlinked) {
		say(s, "not read at boot: systemd-sysctl reads /etc/sysctl.conf "
		       "only through a link in /etc/sysctl.d (Debian's "
		       "99-sysctl.conf), and there is none; sysctl --system applies it");
		return;
	}
	if (e->unread_by[0]) {
		say(s, "not read: %s, of the same name, %s", e->unread_by,
		    e->masked ? "masks it (empty, or a link to /dev/null)"
			      : "replaces it (the earlier folder's file wins)");
		return;
	}
	if (!e->has_value) {
		say(s, "excludes the name from the patterns of other lines; sets "
		       "nothing itself");
		return;
	}
	for (unsigned k = 0; k < 2; k++) {
		if (force[k] == (int)i) {
			sysctl_value(s, e, names[k], p);
			return;
		}
		if (e->glob ? sysctl_matches(e->name, names[k])
			    : !strcmp(e->name, names[k]))
			by = by >= 0 || force[k] >= 0 ? MAX(by, force[k]) : -2 - (int)k;
	}
	if (by >= 0)
		say(s, "no effect: %s:%u sets it after this line", f->f[by].path,
		    f->f[by].line);
	else
		say(s, "no effect: a later '-%s' alone excludes it",
		    sysctl_words(names[by == -3]));
}

/* dpdk.service's NR_<SIZE>_PAGES: one count for the whole pool, or one per node in
 * node order (0 leaves a node as it is). */
static void dpdk_item(const struct setfile *e, const struct setters_pools *p,
		      struct hp_setters *out)
{
	char origin[288], setting[160], sz[16] = "", nodes[160], *w, *save = NULL, v[64];
	uint64_t kb, c[8], t;
	unsigned n = 0;
	struct hp_setter *s;
	int z;

	snprintf(origin, sizeof(origin), "%s:%u", e->path, e->line);
	snprintf(setting, sizeof(setting), "%s=%s", e->key, e->value);
	if (!(s = put(out, origin, setting)))
		return;
	snprintf(sz, sizeof(sz), "%.*s", (int)(strlen(e->key) - 9), e->key + 3);
	kb = kparams_read_size(sz);
	snprintf(v, sizeof(v), "%s", e->value);
	for (w = strtok_r(v, " \t", &save); w && n < 8; w = strtok_r(NULL, " \t", &save))
		if (parse_u64(w, &c[n++])) {
			say(s, "dpdk-init cannot read '%s' as page counts", e->value);
			return;
		}
	if (!e->enabled) {
		say(s, "dpdk.service is installed but not enabled: nothing at boot");
		return;
	}
	if (!kb || !n) {
		say(s, "no %s pages: dpdk-init sets nothing", sz);
		return;
	}
	if (n == 1) {
		s->in_force = whole_pool(s, p, "", "dpdk.service", kb, c[0]);
		return;
	}
	z = size_of(p, kb);
	pools_words(p, z, nodes, sizeof(nodes), &t);
	for (unsigned i = 0; i < n && i < p->nnodes && z >= 0; i++)
		s->in_force |= c[i] && c[i] != p->pages[i * p->nsizes + (unsigned)z];
	say(s,
	    "dpdk.service writes each node's %s pool after the root switch, in node "
	    "order (%s; 0 leaves a node as it is)%s%s%s",
	    sz, e->value,
	    s->in_force ? ", replacing hugepar's ("
			: ": hugepar's pools, so "
			  "nothing changes",
	    s->in_force ? nodes : "", s->in_force ? ")" : "");
}

/* The kernel's boot-time pools (hugepages= on its command line) come before
 * hugepar's run, which counts them as the pool before; systemd-sysctl's
 * vm.nr_hugepages and dpdk.service come after the root switch, and resize a whole
 * pool: the kernel then adds or frees the difference over the nodes in turn
 * (doc/kernel-notes.md), whatever hugepar placed where. */
void setters_judge(const struct setfiles *files, const char *cmdline,
		   const struct setters_pools *p, struct hp_setters *out)
{
	int force[2] = {-1, -1};

	memset(out, 0, sizeof(*out));
	cmdline_judge(cmdline, p, out);
	if (!files)
		return;
	force[0] = sysctl_in_force(files, "vm/nr_hugepages");
	force[1] = sysctl_in_force(files, "vm/nr_hugepages_mempolicy");
	for (unsigned i = 0; i < files->n; i++) {
		const struct setfile *e = &files->f[i];
		char origin[288];

		if (e->kind == SETFILE_SYSCTL) {
			sysctl_item(files, i, force, p, out);
		} else if (e->kind == SETFILE_DPDK) {
			dpdk_item(e, p, out);
		} else {
			snprintf(origin, sizeof(origin), "%s", e->path);
			say(put(out, origin, ""),
			    "hugepar cannot read it (%s): look whether it sets "
			    "vm.nr_hugepages",
			    e->value);
		}
	}
	out->more |= files->more;
}

unsigned setters_in_force(const struct hp_setters *st)
{
	unsigned n = 0;

	for (unsigned i = 0; st && i < st->n; i++)
		n += st->s[i].in_force;
	return n;
}
