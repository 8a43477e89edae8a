/* SPDX-License-Identifier: GPL-2.0-or-later */
/* advice.c - what to do next (hugepar status): a line per cause of a shortfall, per
 * kind of problem, per error; without a record, where to look. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "advice.h"
#include "macros.h"
#include "result.h"
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

/* cause_line()'s causes of a thread, of pages in use, of the kernel, and the rest. */
static void cause_line_more(struct advice *a, int cause, const char *where)
{
	if (cause == HP_CAUSE_BIND)
		say(a,
		    "%s: a thread could not bind itself to the node (a cpuset or "
		    "affinity that hugepar runs under): let it use every CPU and node",
		    where);
	else if (cause == HP_CAUSE_IN_USE)
		say(a,
		    "%s: pages in use stay until their programs free them: stop those, "
		    "then run 'hugepar apply'",
		    where);
	else if (cause == HP_CAUSE_SIZE_ERROR || cause == HP_CAUSE_KERNEL_ERROR)
		say(a,
		    "%s: the kernel refused the work (the reason above says how): the "
		    "kernel log tells more, journalctl -k -b; 'hugepar apply' tries "
		    "again",
		    where);
	else
		say(a, "%s: the reason above says why", where); /* a format 2 record */
}

/* What to do for a cause (-1: one this version does not know); z is the cells' size. */
static void cause_line(struct advice *a, int cause, const char *where,
		       const struct record_run *run, const struct record_size *z)
{
	switch (cause) {
	case HP_CAUSE_KEEP_FREE:
		say(a,
		    "%s: capped by keep_free (%s): lower keep_free, or ask for fewer "
		    "pages; 'hugepar plan' shows what fits",
		    where, run->settings.keep_free);
		break;
	case HP_CAUSE_FREE_MEMORY:
		say(a,
		    "%s: capped by the free memory the initramfs found: ask for less, or "
		    "let the kernel reserve them before it hands memory out: the "
		    "parameters 'hugepar cmdline' prints",
		    where);
		break;
	case HP_CAUSE_NO_MEMORY:
		say(a, "%s: the node has no memory: name the nodes that have (@NODES)",
		    where);
		break;
	case HP_CAUSE_DEADLINE:
		say(a,
		    "%s: the deadline (timeout, %llu s) came first: raise timeout in "
		    "hugepar.conf or with rd.hugepar.timeout=",
		    where, (unsigned long long)run->settings.timeout_ms / 1000);
		break;
	case HP_CAUSE_INTERRUPTED:
		say(a,
		    "%s: a signal stopped the run (its unit stopped, or the boot ended "
		    "it): the boot's journal says which, journalctl -b -t hugepar",
		    where);
		break;
	case HP_CAUSE_OUT_OF_MEMORY:
		if (z->kernel_route[0])
			say(a,
			    "%s: no free range of a page's size was left: let the kernel "
			    "reserve them at boot (the next line)",
			    where);
		else
			say(a,
			    "%s: the kernel found no more memory for these pages (in use "
			    "or fragmented): ask for less, or let the kernel reserve them "
			    "at boot with the parameters 'hugepar cmdline' prints",
			    where);
		break;
	default:
		cause_line_more(a, cause, where);
	}
}

/* Whether a cell is short of what was asked, or capped: something to say. */
static bool cell_short(const struct record_cell *c)
{
	return c->status != HP_STATUS_OK && c->status != HP_STATUS_UNCHANGED;
}

/* The cells of one size that share a cause and are not ok: "nodes 1,3 2M". */
static void cells_of(const struct record_run *run, unsigned k, int cause, char *where,
		     size_t len, bool *done)
{
	unsigned n = 0, pos;

	pos = (unsigned)snprintf(where, len, "node");
	for (unsigned i = 0; i < run->nnodes; i++) {
		const struct record_node *nd = &run->nodes[i];

		if (done[i] || k >= nd->ncells || !cell_short(&nd->cells[k]) ||
		    nd->cells[k].cause != cause)
			continue;
		done[i] = true;
		if (pos < len)
			pos += (unsigned)snprintf(where + pos, len - pos, "%s%llu",
						  n++ ? "," : " ",
						  (unsigned long long)nd->node);
	}
	if (n > 1 && pos + 1 < len) {
		memmove(where + 5, where + 4, strlen(where + 4) + 1);
		where[4] = 's';
	}
}

/* A line per cause and size, the nodes it hit named. */
static void cells_advice(struct advice *a, const struct record_run *run)
{
	bool done[HP_MAX_NODES];

	if (run->nnodes > ARRAY_SIZE(done))
		return;
	for (unsigned k = 0; k < run->nsizes; k++) {
		const struct record_size *z = &run->sizes[k];

		memset(done, 0, sizeof(done));
		for (unsigned i = 0; i < run->nnodes; i++) {
			const struct record_node *nd = &run->nodes[i];
			const struct record_cell *c;
			char where[160];

			if (nd->ncells != run->nsizes || done[i])
				continue;
			c = &nd->cells[k];
			if (!cell_short(c))
				continue;
			cells_of(run, k, c->cause, where, sizeof(where) - 8, done);
			snprintf(where + strlen(where), 8, " %s", c->size);
			cause_line(a, c->cause, where, run, z);
		}
		if (z->kernel_route[0])
			say(a,
			    "%s pages short: at the next boot the kernel's own allocation "
			    "would reserve them before memory fragments: add '%s' to the "
			    "kernel command line",
			    z->size, z->kernel_route);
	}
}

/* Where to correct the settings under Problems: the files (then the initramfs again),
 * the credential where the platform gives it, the kernel command line. */
static void problems_advice(struct advice *a, const struct record_settings *set)
{
	unsigned places = 0;

	for (unsigned i = 0; i < set->nproblems; i++)
		places |= settings_place(set->problems[i].origin);
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

/* For each cause of a shortfall that the record names (its cells' cause), the nodes
 * and size it hit and one line on what to do; for problems and notices of the
 * settings, for an error of the run and for a value an earlier run left raised, the
 * same. hugepar(8), "WHEN PAGES ARE SHORT", says the same at more length. */
void advice_print(FILE *f, const struct record_run *run)
{
	struct advice a = {.f = f};

	if (run->error[0] && !run->nnodes)
		say(&a,
		    "the run did not reach the pools (the error above says why): "
		    "'hugepar plan' shows how hugepar reads this machine, and the boot's "
		    "journal more, journalctl -b -t hugepar");
	cells_advice(&a, run);
	for (unsigned i = 0; i < run->nrecovered; i++)
		if (run->recovered[i].not_ok && !run->recovered[i].malformed) {
			say(&a, "a value an earlier run left raised is still there: "
				"run 'hugepar recover'");
			break;
		}
	problems_advice(&a, &run->settings);
	if (run->settings.nnotices)
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
