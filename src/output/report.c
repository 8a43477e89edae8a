/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.c - the topology and the plan, as a table or as JSON (hugepar plan). */
#include <string.h>

#include "text.h"
#include "cellnote.h"
#include "idset.h"
#include "parse.h"
#include "report.h"
#include "result.h"
#include "setlist.h"

/* (printable: a setting's bytes must not drive the terminal it is shown on; the
 * key alone where there is no value, as a line without '=' was written) */
void report_problem_line(FILE *f, const struct hp_problem *p)
{
	text_put_printable(f, p->origin);
	if (p->key[0]) {
		fputs(": ", f);
		text_put_printable(f, p->key);
		if (p->value[0])
			fputc('=', f);
		text_put_printable(f, p->value);
	}
	fputs(": ", f);
	text_put_printable(f, p->message);
	fputc('\n', f);
}

/* Which free memory and pools the plan is of. */
static void plan_text_basis(FILE *f, const struct record_basis *b)
{
	if (!b)
		return;
	if (b->boot)
		fprintf(f,
			"Free memory: as this boot's initramfs found it, %llu.%03llu s "
			"after boot (the record in %s); --now plans with the memory free "
			"now\n",
			(unsigned long long)b->boot_ms / 1000,
			(unsigned long long)b->boot_ms % 1000, b->dir);
	else if (b->now_asked)
		fprintf(f, "Free memory: now (--now)\n");
	else
		fprintf(
		    f, "Free memory: now: no record of this boot's initramfs run in %s\n",
		    b->dir);
}

/* Where no entry is usable, why, and where to correct it: the files (then the
 * initramfs built again), the credential where the platform gives it, or the kernel
 * command line. */
static void plan_text_summary(FILE *f, const struct hp_settings *s)
{
	unsigned n = settings_pages_rejected(s), places = settings_problem_places(s, !!n);
	const char *fix = places == HP_PLACE_CREDENTIAL
			      ? " in the credential hugepar.conf, where the machine's\n"
				"definition gives it (hugepar.conf(5), CREDENTIALS)"
			  : places == HP_PLACE_CMDLINE
			      ? " on the kernel command line"
			      : ", then build the initramfs again";

	if (!s->nentries && n)
		fprintf(f,
			"No pages entry can be used: %s %u given %s rejected (see the "
			"problems below), so nothing will\nbe done. Correct %s%s.\n",
			n == 1 ? "the" : "all", n, n == 1 ? "was" : "were",
			n == 1 ? "it" : "them", fix);
	else if (!s->nentries)
		fputs(
		    places & HP_PLACE_CREDENTIAL
			? "Nothing is configured that could be read: the credential "
			  "hugepar.conf was given, and not\nread (see the problems below). "
			  "Correct it where the machine's definition gives it\n"
			  "(hugepar.conf(5), CREDENTIALS).\n"
		    : s->creds_denied
			? "Nothing is configured that this user can read: the firmware's "
			  "credentials are root's (see\nthe notices); run hugepar plan as "
			  "root to read them.\n"
			: "Nothing is configured: no 'pages =' in the settings files and "
			  "no rd.hugepar.pages= on the kernel\ncommand line, so nothing will "
			  "be done. Add one (hugepar.conf(5)), e.g. 'pages = 2M:50%' in\n"
			  "/etc/hugepar.conf, then build the initramfs again.\n",
		    f);
}

/* The machine and where the settings came from, nodes as a table. */
static void plan_text_machine(FILE *f, const struct hp_settings *s,
			      const struct hp_topology *t, const struct hp_plan *p,
			      const struct record_basis *basis)
{
	char a[32], b[96], c[32], sz[16];

	fprintf(f, "Topology: %u node%s%s, %u CPUs online, huge page sizes:", t->nnodes,
		t->nnodes == 1 ? "" : "s", t->numa ? "" : " (no NUMA sysfs)",
		t->ncpus_online);
	for (unsigned z = 0; z < t->nsizes; z++) {
		text_size_kb(t->sizes[z].kb, sz, sizeof(sz));
		fprintf(f, " %s", sz);
	}
	if (t->hugetlb && t->page_kb && t->page_kb != 4) {
		text_size_kb(t->page_kb, a, sizeof(a));
		fprintf(f, " (on %s base pages)", a);
	}
	fprintf(f, "%s\n", t->hugetlb ? "" : " none (kernel without hugetlb)");
	if (t->warning[0])
		fprintf(f, "Note: %s\n", t->warning);
	fputs("Settings read:", f);
	for (unsigned i = 0; i < s->nsources; i++)
		fprintf(f, "%s %s", i ? "," : "", s->sources[i]);
	fprintf(f, "%s\n", s->nsources ? "" : " none");
	plan_text_basis(f, basis);
	plan_text_summary(f, s);
	fprintf(f, "\n%-6s %-6s %-16s %10s %10s %10s\n", "NODE", "CPUS", "CPULIST",
		"MEMTOTAL", "MEMFREE", "KEEP_FREE");
	for (unsigned n = 0; n < t->nnodes; n++) {
		const struct hp_node *nd = &t->nodes[n];
		char cpus[4096];

		if (idset_format(nd->cpus, cpus, sizeof(cpus)))
			strcpy(cpus, "...");
		if (!cpus[0])
			strcpy(cpus, "-");
		text_bytes(nd->mem_total, a, sizeof(a));
		text_bytes(nd->mem_free, b, sizeof(b));
		text_bytes(p->keep_free[n], c, sizeof(c));
		fprintf(f, "%-6u %-6u %-16s %10s %10s %10s\n", nd->id, nd->ncpus, cpus, a,
			b, c);
	}
}

/* The devices entries name, and the node each stands for. */
static void plan_text_devices(FILE *f, const struct hp_settings *s)
{
	if (!s->ndevices)
		return;
	fprintf(f, "\n%-20s %-16s %-6s %s\n", "DEVICE", "PCI", "NODE", "ENTRY");
	for (unsigned i = 0; i < s->ndevices; i++) {
		const struct hp_device_use *u = &s->devices[i];
		char node[16] = "-";

		if (u->node >= 0)
			snprintf(node, sizeof(node), "%d", u->node);
		fprintf(f, "%-20s %-16s %-6s %s (%s)%s\n", u->name,
			u->pci[0] ? u->pci : "-", node, u->entry, u->origin,
			u->node >= 0 ? "" : ": skipped, see the problems");
	}
}

/* The plan's line: its settings, and the threads it may start. */
static void plan_text_head(FILE *f, const struct hp_settings *s, const struct hp_plan *p)
{
	char kf[32], th[64];

	values_amount_format(&s->keep_free, kf, sizeof(kf));
	if (!p->workers_auto)
		snprintf(th, sizeof(th), "threads %u (set)", p->workers_total);
	else if (p->workers_total)
		snprintf(th, sizeof(th), "threads auto, up to %u at once",
			 p->workers_total);
	else
		snprintf(th, sizeof(th), "threads auto, none needed");
	fprintf(f, "\nPlan: mode %s, keep_free %s per node, timeout %llu.%03llus, %s\n",
		settings_mode_name(s->mode), kf, (unsigned long long)s->timeout_ms / 1000,
		(unsigned long long)s->timeout_ms % 1000, th);
}

/* The descriptors the plan's new pages give back, in kB, when the run optimizes. */
static uint64_t vmemmap_planned_kb(const struct hp_topology *t, const struct hp_plan *p)
{
	uint64_t kb = 0;

	for (unsigned n = 0; n < t->nnodes; n++)
		for (unsigned z = 0; z < t->nsizes; z++) {
			const struct hp_cell *c = plan_cell(p, n, z);

			if (c->target > c->current)
				kb += (c->target - c->current) * p->vmemmap.saving_kb[z];
		}
	return kb;
}

/* The vmemmap optimization, where the kernel offers it or the settings ask for it:
 * on or off and why, and what the new pages give back. */
static void plan_text_vmemmap(FILE *f, const struct hp_settings *s,
			      const struct hp_topology *t, const struct hp_plan *p)
{
	uint64_t kb = vmemmap_planned_kb(t, p);
	char all[32];

	if (!t->vmemmap_offered && s->vmemmap != HP_VMEMMAP_OPTIMIZE)
		return;
	fprintf(f, "Vmemmap optimization: %s", vmemmap_why_text(p->vmemmap.why));
	text_bytes(kb * 1024, all, sizeof(all));
	if (kb)
		fprintf(f, "; the new pages give %s of page descriptors back", all);
	fputc('\n', f);
}

/* Whether a cell has a line: an entry names it, or it has a pool. */
static bool cell_shown(const struct hp_cell *c)
{
	return c->requested_set || c->current;
}

/* One node and size: its pool, the request, the target and its memory, the change,
 * the threads and the note; without what would change when disabled. */
static void plan_text_cell(FILE *f, const struct hp_settings *s,
			   const struct hp_topology *t, const struct hp_plan *p,
			   unsigned n, unsigned z)
{
	const struct hp_cell *c = plan_cell(p, n, z);
	char req[32] = "-", mem[32], note[192], sz[16];
	uint64_t bytes;

	text_size_kb(t->sizes[z].kb, sz, sizeof(sz));
	if (c->requested_set)
		snprintf(req, sizeof(req), "%llu", (unsigned long long)c->requested);
	cellnote_of(c, note, sizeof(note));
	if (!p->parallel[z] && c->target > c->current && s->enabled)
		snprintf(note + strlen(note), sizeof(note) - strlen(note),
			 "%sper-node writes: no threads for %s pages before Linux 6.19",
			 note[0] ? "; " : "", sz);
	if (!s->enabled) {
		fprintf(f, "%-6u %-5s %10llu %10s%s%s\n", t->nodes[n].id, sz,
			(unsigned long long)c->current, req, note[0] ? "  " : "", note);
		return;
	}
	if (!mul_u64(c->target, t->sizes[z].kb * 1024, &bytes))
		bytes = UINT64_MAX;
	if (bytes)
		text_bytes(bytes, mem, sizeof(mem));
	else
		strcpy(mem, "0");
	fprintf(f, "%-6u %-5s %10llu %10s %10llu %8s %+10lld %8u%s%s\n", t->nodes[n].id,
		sz, (unsigned long long)c->current, req, (unsigned long long)c->target,
		mem, (long long)(c->target - c->current), c->workers, note[0] ? "  " : "",
		note);
}

/* Why counts were rounded, once under the table: the step and what it is for. */
static void plan_text_rounded(FILE *f, const struct hp_settings *s,
			      const struct hp_plan *p)
{
	char g[64];
	bool any = false;

	for (unsigned i = 0; i < p->nnodes * p->nsizes; i++) {
		const struct hp_cell *c = &p->cells[i];

		any |= c->rounded &&
		       c->unrounded > (c->cut == HP_CUT_NONE ? c->requested : c->target);
	}
	if (!any || !s->enabled)
		return;
	if (s->granularity_auto)
		strcpy(g, "auto");
	else
		values_amount_format(&s->granularity, g, sizeof(g));
	report_rounding(f, g);
}

void report_rounding(FILE *f, const char *granularity)
{
	if (strcmp(granularity, "auto") == 0)
		fputs(
		    "\nRounded down: shares and caps go down to a step of at most 1% of the "
		    "count\n(granularity auto), so that each boot of this machine gets the "
		    "same count while its\nmemory moves a little.\n",
		    f);
	else
		fprintf(f,
			"\nRounded down: shares and caps go down to a step of %s "
			"(granularity), so that each\nboot of this machine gets the same "
			"count while its memory moves a little.\n",
			granularity);
}

/* A list of problems or notices, with their count. */
static void report_problems(FILE *f, const char *title, const struct hp_problem *list,
			    unsigned n)
{
	if (!n)
		return;
	fprintf(f, "\n%s (%u):\n", title, n);
	for (unsigned i = 0; i < n; i++) {
		fputs("  ", f);
		report_problem_line(f, &list[i]);
	}
}

/* The plan: one line per node and size with something to do, the mounts, the
 * problems. */
static void plan_text_cells(FILE *f, const struct hp_settings *s,
			    const struct hp_topology *t, const struct hp_plan *p)
{
	unsigned rows = 0;

	if (s->enabled) {
		plan_text_head(f, s, p);
		plan_text_vmemmap(f, s, t, p);
	} else
		fputs("\nWhat the settings ask, when enabled:\n", f);
	for (unsigned n = 0; n < t->nnodes; n++)
		for (unsigned z = 0; z < t->nsizes; z++) {
			if (!cell_shown(plan_cell(p, n, z)))
				continue;
			if (rows++)
				;
			else if (s->enabled)
				fprintf(f, "%-6s %-5s %10s %10s %10s %8s %10s %8s  %s\n",
					"NODE", "SIZE", "BEFORE", "REQUESTED", "TARGET",
					"MEMORY", "CHANGE", "THREADS", "NOTE");
			else
				fprintf(f, "%-6s %-5s %10s %10s  %s\n", "NODE", "SIZE",
					"POOL", "REQUESTED", "NOTE");
			plan_text_cell(f, s, t, p, n, z);
		}
	if (!rows)
		fputs("Nothing to do: no pages asked for, and no pool on any node.\n", f);
	plan_text_rounded(f, s, p);
	for (unsigned i = 0; i < s->nmounts; i++)
		fprintf(f, "%sMount (hugepar verify, on the booted system): %s\n",
			i ? "" : "\n", s->mounts[i].text);
	report_problems(f, "Problems", s->problems, s->nproblems);
	report_problems(f, "Notices", s->notices, s->nnotices);
}

void report_plan_text(FILE *f, const struct hp_settings *s, const struct hp_topology *t,
		      const struct hp_plan *p, const struct record_basis *b)
{
	if (!s->enabled)
		fprintf(f,
			"Disabled by %s: the boot changes no pool (what the settings "
			"ask is below).\n",
			s->enabled_by ? s->enabled_by : "the settings");
	plan_text_machine(f, s, t, p, b);
	plan_text_devices(f, s);
	plan_text_cells(f, s, t, p);
}

static void topology_json(struct json_out *j, const struct hp_topology *t)
{
	json_open(j, "topology", '{');
	json_bool(j, "numa", t->numa);
	json_bool(j, "hugetlb", t->hugetlb);
	json_u64(j, "cpus_online", t->ncpus_online);
	json_open(j, "sizes_kb", '[');
	for (unsigned z = 0; z < t->nsizes; z++)
		json_u64(j, NULL, t->sizes[z].kb);
	json_close(j, ']');
	/* 0 when the kernel does not show it; the bound used then is x86's */
	json_u64(j, "page_kb", t->page_kb);
	json_u64(j, "gigantic_above_kb",
		 t->gigantic_kb ? t->gigantic_kb : HUGETLB_GIGANTIC_KB);
	json_open(j, "nodes", '[');
	for (unsigned n = 0; n < t->nnodes; n++) {
		const struct hp_node *nd = &t->nodes[n];
		char cpus[4096];

		if (idset_format(nd->cpus, cpus, sizeof(cpus)))
			strcpy(cpus, "...");
		json_open(j, NULL, '{');
		json_u64(j, "node", nd->id);
		json_u64(j, "cpus", nd->ncpus);
		json_str(j, "cpulist", cpus);
		json_bool(j, "has_memory", nd->has_memory);
		json_u64(j, "mem_total", nd->mem_total);
		json_u64(j, "mem_free", nd->mem_free);
		json_u64(j, "mem_basis", nd->mem_basis);
		json_str(j, "basis_from",
			 nd->basis_blocks ? "memory blocks" : "MemTotal");
		json_close(j, '}');
	}
	json_close(j, ']');
	json_str(j, "warning", t->warning);
	json_close(j, '}');
}

static void plan_json(struct json_out *j, const struct hp_topology *t,
		      const struct hp_plan *p)
{
	char sz[16];

	json_open(j, "plan", '{');
	json_u64(j, "threads", p->workers_total);
	json_bool(j, "threads_auto", p->workers_auto);
	json_open(j, "vmemmap", '{');
	json_bool(j, "on", p->vmemmap.on);
	json_bool(j, "turn_on", p->vmemmap.turn_on);
	json_str(j, "why", vmemmap_why_name(p->vmemmap.why));
	json_u64(j, "freed_kb", vmemmap_planned_kb(t, p));
	json_close(j, '}');
	json_open(j, "nodes", '[');
	for (unsigned n = 0; n < t->nnodes; n++) {
		json_open(j, NULL, '{');
		json_u64(j, "node", t->nodes[n].id);
		json_u64(j, "keep_free", p->keep_free[n]);
		json_u64(j, "work_bytes", p->work[n]);
		json_u64(j, "threads", p->workers[n]);
		json_open(j, "sizes", '[');
		for (unsigned z = 0; z < t->nsizes; z++) {
			const struct hp_cell *c = plan_cell(p, n, z);

			text_size_kb(t->sizes[z].kb, sz, sizeof(sz));
			json_open(j, NULL, '{');
			json_str(j, "size", sz);
			json_u64(j, "current", c->current);
			if (c->requested_set)
				json_u64(j, "requested", c->requested);
			else
				json_null(j, "requested");
			json_u64(j, "target", c->target);
			json_u64(j, "threads", c->workers);
			json_str(j, "cut", result_cause_name(result_cut_cause(c->cut)));
			json_u64(j, "granularity", c->granularity);
			if (c->rounded)
				json_u64(j, "unrounded", c->unrounded);
			else
				json_null(j, "unrounded");
			json_close(j, '}');
		}
		json_close(j, ']');
		json_close(j, '}');
	}
	json_close(j, ']');
	json_close(j, '}');
}

void report_plan_json(FILE *f, const struct hp_settings *s, const struct hp_topology *t,
		      const struct hp_plan *p, const struct record_basis *b,
		      const struct hp_setters *st)
{
	struct json_out j;

	json_begin(&j, f);
	json_open(&j, NULL, '{');
	if (b) {
		json_open(&j, "basis", '{');
		json_str(&j, "free_memory", b->boot ? "initramfs" : "now");
		json_str(&j, "record_dir", b->dir);
		if (b->boot)
			json_u64(&j, "started_boot_ms", b->boot_ms);
		else
			json_null(&j, "started_boot_ms");
		json_close(&j, '}');
	}
	topology_json(&j, t);
	record_settings_json(&j, s);
	plan_json(&j, t, p);
	record_setters_json(&j, st);
	json_close(&j, '}');
	json_end(&j);
}
