/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * advice.c - what to do next (hugepar status): for each cause of a shortfall that a
 * record names (its cells' "cause", doc/record.md), the nodes and size it hit and one
 * line on what to do; for problems and notices of the settings, for an error of the
 * run and for a value an earlier run left raised, the same. Without a record: where
 * to look. hugepar(8), "WHEN PAGES ARE SHORT", says the same at more length.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "advice.h"
#include "macros.h"
#include "settings.h"
#include "topology.h"

/* One line of advice, the heading before the first. */
struct advice {
	FILE *f;
	unsigned lines;
};

static void say(struct advice *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void say(struct advice *a, const char *fmt, ...)
{
	va_list ap;

	if (!a->lines++)
		fputs("\nWhat to do:\n", a->f);
	fputs("  ", a->f);
	va_start(ap, fmt);
	vfprintf(a->f, fmt, ap);
	va_end(ap);
	fputc('\n', a->f);
}

/* What to do for a cause; size is the record's entry of the cells' size. */
static void cause_line(struct advice *a, const char *cause, const char *where,
		       const struct json_val *v, const struct json_val *size)
{
	const struct json_val *set = json_get(v, "settings");
	const char *keep = json_get_str(set, "keep_free")[0]
			       ? json_get_str(set, "keep_free")
			       : json_get_str(set, "reserve"); /* format 2 */
	const char *route = json_get_str(size, "kernel_route");

	if (strcmp(cause, "keep_free") == 0)
		say(a,
		    "%s: capped by keep_free (%s): lower keep_free, or ask for fewer "
		    "pages; 'hugepar plan' shows what fits",
		    where, keep);
	else if (strcmp(cause, "free_memory") == 0)
		say(a,
		    "%s: capped by the free memory the initramfs found: ask for less, or "
		    "let the kernel reserve them before it hands memory out: the "
		    "parameters 'hugepar cmdline' prints",
		    where);
	else if (strcmp(cause, "no_memory") == 0)
		say(a, "%s: the node has no memory: name the nodes that have (@NODES)",
		    where);
	else if (strcmp(cause, "deadline") == 0)
		say(a,
		    "%s: the deadline (timeout, %llu s) came first: raise timeout in "
		    "hugepar.conf or with rd.hugepar.timeout=",
		    where, (unsigned long long)json_get_num(set, "timeout_ms") / 1000);
	else if (strcmp(cause, "interrupted") == 0)
		say(a,
		    "%s: a signal stopped the run (its unit stopped, or the boot ended "
		    "it): the boot's journal says which, journalctl -b -t hugepar",
		    where);
	else if (strcmp(cause, "out_of_memory") == 0 && route[0])
		say(a,
		    "%s: no free range of a page's size was left: let the kernel "
		    "reserve them at boot (the next line)",
		    where);
	else if (strcmp(cause, "out_of_memory") == 0)
		say(a,
		    "%s: the kernel found no more memory for these pages (in use or "
		    "fragmented): ask for less, or let the kernel reserve them at boot "
		    "with the parameters 'hugepar cmdline' prints",
		    where);
	else if (strcmp(cause, "bind") == 0)
		say(a,
		    "%s: a thread could not bind itself to the node (a cpuset or "
		    "affinity that hugepar runs under): let it use every CPU and node",
		    where);
	else if (strcmp(cause, "in_use") == 0)
		say(a,
		    "%s: pages in use stay until their programs free them: stop those, "
		    "then run 'hugepar apply'",
		    where);
	else if (strcmp(cause, "size_error") == 0 || strcmp(cause, "kernel_error") == 0)
		say(a,
		    "%s: the kernel refused the work (the reason above says how): the "
		    "kernel log tells more, journalctl -k -b; 'hugepar apply' tries "
		    "again",
		    where);
	else
		say(a, "%s: the reason above says why", where); /* a format 2 record */
}

/* The cells of one size that share a cause and are not ok: "nodes 1,3 2M". */
static void cells_of(const struct json_val *nodes, unsigned k, const char *cause,
		     char *where, size_t len, bool *done)
{
	unsigned n = 0, pos;

	pos = (unsigned)snprintf(where, len, "node");
	for (unsigned i = 0; nodes && i < nodes->n; i++) {
		const struct json_val *c = &json_get(&nodes->kids[i], "sizes")->kids[k];
		const char *st = json_get_str(c, "status");

		if (done[i] || !strcmp(st, "ok") || !strcmp(st, "unchanged") ||
		    strcmp(json_get_str(c, "cause"), cause))
			continue;
		done[i] = true;
		if (pos < len)
			pos += (unsigned)snprintf(
			    where + pos, len - pos, "%s%llu", n++ ? "," : " ",
			    (unsigned long long)json_get_num(&nodes->kids[i], "node"));
	}
	if (n > 1 && pos + 1 < len) {
		memmove(where + 5, where + 4, strlen(where + 4) + 1);
		where[4] = 's';
	}
}

/* A line per cause and size, the nodes it hit named. */
static void cells_advice(struct advice *a, const struct json_val *v)
{
	const struct json_val *nodes = json_get(v, "nodes"),
			      *sizes = json_get(v, "sizes");
	bool done[HP_MAX_NODES];

	if (!nodes || !sizes || nodes->n > ARRAY_SIZE(done))
		return;
	for (unsigned k = 0; k < sizes->n; k++) {
		memset(done, 0, sizeof(done));
		for (unsigned i = 0; i < nodes->n; i++) {
			const struct json_val *zs = json_get(&nodes->kids[i], "sizes");
			const struct json_val *c;
			const char *st;
			char where[160], cause[32];

			if (!zs || zs->n != sizes->n || done[i])
				continue;
			c = &zs->kids[k];
			st = json_get_str(c, "status");
			if (!strcmp(st, "ok") || !strcmp(st, "unchanged"))
				continue;
			snprintf(cause, sizeof(cause), "%s", json_get_str(c, "cause"));
			cells_of(nodes, k, cause, where, sizeof(where) - 8, done);
			snprintf(where + strlen(where), 8, " %s",
				 json_get_str(c, "size"));
			cause_line(a, cause, where, v, &sizes->kids[k]);
		}
		if (json_get_str(&sizes->kids[k], "kernel_route")[0])
			say(a,
			    "%s pages short: at the next boot the kernel's own allocation "
			    "would reserve them before memory fragments: add '%s' to the "
			    "kernel command line",
			    json_get_str(&sizes->kids[k], "size"),
			    json_get_str(&sizes->kids[k], "kernel_route"));
	}
}

/* Whether a member is there and the boolean b. */
static bool flag_is(const struct json_val *v, const char *name, bool b)
{
	const struct json_val *m = json_get(v, name);

	return m && m->type == JSON_BOOL && m->b == b;
}

/* Where to correct the settings under Problems: the files (then the initramfs again),
 * the credential where the platform gives it, the kernel command line. */
static void problems_advice(struct advice *a, const struct json_val *probs)
{
	unsigned places = 0;

	for (unsigned i = 0; probs && i < probs->n; i++)
		places |= settings_place(json_get_str(&probs->kids[i], "origin"));
	if (places & HP_PLACE_FILE)
		say(a,
		    "correct the settings under Problems (each names its file and line), "
		    "check them with 'hugepar plan', then build the initramfs again: " HP_REBUILD);
	if (places & HP_PLACE_CREDENTIAL)
		say(a,
		    "correct the credential hugepar.conf under Problems where the "
		    "machine's definition gives it (SMBIOS strings, fw_cfg, or "
		    "systemd.set_credential=: hugepar.conf(5), CREDENTIALS), and check "
		    "it with 'hugepar plan': no initramfs to build");
	if (places & HP_PLACE_CMDLINE)
		say(a,
		    "correct the rd.hugepar keys under Problems where the kernel command "
		    "line is set (the boot loader), and check a line with 'hugepar plan "
		    "--cmdline LINE'");
}

void advice_print(FILE *f, const struct json_val *v)
{
	const struct json_val *set = json_get(v, "settings");
	const struct json_val *probs = json_get(set, "problems");
	const struct json_val *notes = json_get(set, "notices");
	const struct json_val *rec = json_get(v, "recovered");
	const struct json_val *nodes = json_get(v, "nodes");
	struct advice a = {.f = f};

	if (json_get_str(v, "error")[0] && (!nodes || !nodes->n))
		say(&a,
		    "the run did not reach the pools (the error above says why): "
		    "'hugepar plan' shows how hugepar reads this machine, and the boot's "
		    "journal more, journalctl -b -t hugepar");
	cells_advice(&a, v);
	for (unsigned i = 0; rec && i < rec->n; i++)
		if (flag_is(&rec->kids[i], "ok", false) &&
		    !flag_is(&rec->kids[i], "malformed", true)) {
			say(&a, "a value an earlier run left raised is still there: "
				"run 'hugepar recover'");
			break;
		}
	problems_advice(&a, probs);
	if (notes && notes->n)
		say(&a,
		    "read the Notices: each says what was taken, dropped or not read, "
		    "and what to write");
}

void advice_no_record(FILE *f, const char *dir)
{
	fprintf(
	    f,
	    "hugepar: no run has written a record in %s at this boot. Where to "
	    "look:\n"
	    "  is hugepar in the initramfs?  lsinitramfs /boot/initrd.img-$(uname -r) "
	    "| grep hugepar\n"
	    "                                (dracut: lsinitrd | grep hugepar)\n"
	    "  what did the boot say?        journalctl -b -t hugepar, or dmesg | grep "
	    "hugepar\n"
	    "  is it switched off?           rd.hugepar=0 in /proc/cmdline\n"
	    "  is anything configured?       hugepar plan\n",
	    dir);
}
