/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status.c - hugepar status: what the boot's run did, and what to do where pages
 * are short. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "advice.h"
#include "cmd.h"
#include "prometheus.h"
#include "kinfo.h"
#include "parse.h"
#include "path.h"
#include "setfiles.h"
#include "compare.h"

/* The record's pools as setters_judge() takes them: what the run achieved. */
static bool record_pools(const struct record_run *run, struct setters_pools *p,
			 unsigned *ids, uint64_t *kb, uint64_t *pages, uint64_t *asked)
{
	if (!run->nodes_listed || !run->sizes_listed || run->nnodes > HP_MAX_NODES ||
	    run->nsizes > HP_MAX_SIZES)
		return false;
	p->nnodes = run->nnodes;
	p->nsizes = run->nsizes;
	for (unsigned z = 0; z < run->nsizes; z++)
		kb[z] = run->sizes[z].kb;
	for (unsigned n = 0; n < run->nnodes; n++) {
		const struct record_node *nd = &run->nodes[n];

		ids[n] = (unsigned)nd->node;
		for (unsigned z = 0; z < run->nsizes; z++) {
			const struct record_cell *c =
			    z < nd->ncells ? &nd->cells[z] : NULL;

			pages[n * run->nsizes + z] = c ? c->achieved : 0;
			asked[n * run->nsizes + z] =
			    c && c->requested_set ? c->requested : HP_NOT_ASKED;
		}
	}
	p->exact = run->settings.exact;
	return true;
}

/* On the booted system of the record's boot: the other setters its root and its
 * kernel command line show now, judged against what the run achieved. */
static void setters_now(const struct hp_record *r, struct hp_setters *now)
{
	static char cmdline[65536], text[16384];
	char boot_id[40];
	unsigned *ids = calloc(HP_MAX_NODES, sizeof(*ids));
	uint64_t *pages = calloc((size_t)HP_MAX_NODES * HP_MAX_SIZES, sizeof(*pages));
	uint64_t *asked = calloc((size_t)HP_MAX_NODES * HP_MAX_SIZES, sizeof(*asked));
	uint64_t kb[HP_MAX_SIZES], dkb;
	struct setfiles *f = calloc(1, sizeof(*f));
	struct setters_pools p = {.ids = ids, .kb = kb, .pages = pages, .asked = asked};
	int rc;

	memset(now, 0, sizeof(*now));
	if (!path_read(boot_id, sizeof(boot_id), "/proc/sys/kernel/random/boot_id") &&
	    !strcmp(parse_trim(boot_id), r->run.boot_id) && ids && pages && asked && f &&
	    record_pools(&r->run, &p, ids, kb, pages, asked) && !setfiles_read(f, NULL)) {
		if (path_read(cmdline, sizeof(cmdline), "/proc/cmdline"))
			cmdline[0] = '\0';
		rc = path_read(text, sizeof(text), "/proc/meminfo");
		if ((rc == 0 || rc == -EFBIG) &&
		    kinfo_meminfo_kb(text, "Hugepagesize", &dkb) == 0)
			p.default_kb = dkb;
		setters_judge(f, cmdline, &p, now);
	}
	free(ids);
	free(pages);
	free(asked);
	free(f);
}

int cmd_status(struct ctx *c)
{
	struct hp_record r;
	struct pool_check pc = {0};
	bool live;
	int rc = record_load(c->record_dir, &r);

	if (rc == -ENOENT)
		advice_no_record(stderr, c->record_dir);
	if (rc)
		return rc == -ENOENT ? EXIT_NO_RECORD : EXIT_BAD_RECORD;
	record_check_settings(&r, c->config_given ? c->config : NULL);
	/* the pools now: for --check, and beside the record in Prometheus' format */
	live = (c->check || c->format == HP_FORMAT_PROMETHEUS) &&
	       topology_read(&c->topo) == 0;
	if (c->check && !live) {
		fprintf(stderr, "hugepar: cannot read the pools now: %s\n",
			c->topo.error);
		record_unload(&r);
		return EXIT_FAIL;
	}
	if (c->check)
		compare_pools(&r, &c->topo, stdout, &pc);
	if (c->format == HP_FORMAT_TEXT && !c->check)
		setters_now(&r, &c->setters);
	if (c->format == HP_FORMAT_PROMETHEUS)
		prometheus_record(stdout, &r, live ? &c->topo : NULL);
	else if (!c->check || c->format == HP_FORMAT_JSON)
		print_record(stdout, &r, c->format, &c->setters);
	/* --check answers one question, whether the pools are as the run left them; how
	 * the run went against the settings is the record's status (and verify's). A
	 * record of no pools (a run that failed before it read them) answers nothing:
	 * its own status stands, so that a failed run is not taken for pools intact. */
	if (c->check && !pc.cells) {
		char line[512];

		snprintf(
		    line, sizeof(line),
		    "hugepar: the record has no pools to compare: the run was %s%s%s",
		    r.run.status_word, r.run.error[0] ? ": " : "", r.run.error);
		text_put_printable(stderr, line);
		fputc('\n', stderr);
		rc = context_exit_code(r.status);
	} else if (c->check) {
		rc = pc.drift ? EXIT_DRIFT : EXIT_OK;
	} else {
		rc = context_exit_code(r.status);
	}
	record_unload(&r);
	return rc;
}

const struct command status_command = {
    .name = "status",
    .summary = "show what the boot's run did, and what to do where pages are short",
    .about =
	"Print the record of the last apply (the boot's, under /run/hugepar): how it\n"
	"went, each node's pool before and after against its target, the problems of\n"
	"the settings, and for each shortfall its cause and what to do. --check\n"
	"compares the pools now with what the run left.\n",
    .options =
	OPT_SYSROOT | OPT_CONFIG | OPT_RECORD_DIR | OPT_JSON | OPT_FORMAT | OPT_CHECK,
    .examples =
	" hugepar status\n"
	"        what the boot did, and what to do next\n"
	" hugepar status --check\n"
	"        whether the pools are still what the boot left (exit 65 if not)\n"
	" hugepar status --format=prometheus\n"
	"        the record as gauges, as node_exporter's textfile gets them\n",
    .exits = "the record's: 0 ok, 64 partial, 1 failed; 3 no record, 4 a record that "
	     "cannot be read; --check: 0 or 65",
    .run = cmd_status,
};
