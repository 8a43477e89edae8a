/* SPDX-License-Identifier: GPL-2.0-or-later */
/* booted.c - the commands for the booted system: status, verify, cmdline. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "bootparams.h"
#include "commands.h"
#include "parse.h"
#include "verify.h"

int cmd_status(struct ctx *c)
{
	struct hp_record r;
	struct pool_check pc = {0};
	bool live;
	int rc = record_load(c->record_dir, &r);

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
		pools_compare(&r, &c->topo, stdout, &pc);
	if (c->format == HP_FORMAT_PROMETHEUS)
		record_prometheus(stdout, &r, live ? &c->topo : NULL);
	else if (!c->check || c->format == HP_FORMAT_JSON)
		record_print(stdout, &r, c->format);
	/* --check answers one question, whether the pools are as the run left them; how
	 * the run went against the settings is the record's status (and verify's). A
	 * record of no pools (a run that failed before it read them) answers nothing:
	 * its own status stands, so that a failed run is not taken for pools intact. */
	if (c->check && !pc.cells) {
		char line[512];

		snprintf(
		    line, sizeof(line),
		    "hugepar: the record has no pools to compare: the run was %s%s%s",
		    json_get_str(&r.v, "status"),
		    json_get_str(&r.v, "error")[0] ? ": " : "",
		    json_get_str(&r.v, "error"));
		put_printable(stderr, line);
		fputc('\n', stderr);
		rc = exit_of(r.status);
	} else if (c->check) {
		rc = pc.drift ? EXIT_DRIFT : EXIT_OK;
	} else {
		rc = exit_of(r.status);
	}
	record_unload(&r);
	return rc;
}

/* On the booted system (hugepar-verify.service): the pools against the record, the
 * hugetlbfs mounts, node_exporter's textfile; fails only when on_short = fail says. */
int cmd_verify(struct ctx *c)
{
	struct hp_record r;
	struct verify_result vr;
	char why[96];
	bool have;
	int rc;

	if (load_settings(c))
		return EXIT_FAIL;
	if (capture_kernel(c, why, sizeof(why))) {
		record_log(LOG_INFO, "verify: %s: nothing checked", why);
		return EXIT_OK;
	}
	rc = record_load(c->record_dir, &r);
	have = rc == 0;
	if (topology_read(&c->topo)) {
		fprintf(stderr, "hugepar: cannot read the pools: %s\n", c->topo.error);
		if (have)
			record_unload(&r);
		return EXIT_FAIL;
	}
	rc = verify(&c->settings, have ? &r : NULL, &c->topo, &vr);
	record_log(
	    vr.pools.shortc || vr.pools.drift || vr.mounts_failed || vr.no_record
		? LOG_WARNING
		: LOG_INFO,
	    "verify: %u cells, %u with fewer pages than asked, %u changed since boot, "
	    "%u of %u mounts failed%s",
	    vr.pools.cells, vr.pools.shortc, vr.pools.drift, vr.mounts_failed,
	    c->settings.nmounts, rc ? "; on_short = fail: failing" : "");
	if (have)
		record_unload(&r);
	return rc ? EXIT_FAIL : EXIT_OK;
}

/* The kernel command line that would reserve the same pools at boot. */
int cmd_cmdline(struct ctx *c)
{
	struct hp_record r;
	int rc;

	if (c->from_record) {
		rc = record_load(c->record_dir, &r);
		if (rc)
			return rc == -ENOENT ? EXIT_NO_RECORD : EXIT_BAD_RECORD;
		rc = bootparams_from_record(stdout, &r);
		if (rc)
			fprintf(stderr, "hugepar: the record in %s has no pools\n",
				c->record_dir);
		record_unload(&r);
		return rc ? EXIT_BAD_RECORD : EXIT_OK;
	}
	if (load_settings(c) || load_machine(c))
		return EXIT_FAIL;
	bootparams_from_plan(stdout, &c->topo, &c->plan);
	return c->settings.nproblems ? EXIT_PARTIAL : EXIT_OK;
}
