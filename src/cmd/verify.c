/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verify.c - hugepar verify: on the booted system, the pools against the record and
 * the settings, the hugetlbfs mounts, node_exporter's textfile. */
#include <stdio.h>
#include <syslog.h>

#include "cmd.h"
#include "verify.h"

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
	    "verify: %u pools (a node's, of a size), %u with fewer pages than asked, %u "
	    "changed since boot, %u of %u mounts failed%s",
	    vr.pools.cells, vr.pools.shortc, vr.pools.drift, vr.mounts_failed,
	    c->settings.nmounts, rc ? "; on_short = fail: failing" : "");
	if (have)
		record_unload(&r);
	return rc ? EXIT_FAIL : EXIT_OK;
}


const struct command command_verify = {
    .name = "verify",
    .summary = "on the booted system: check the pools, make the mounts, write the textfile",
    .about = "What hugepar-verify.service runs before the services that use the pages:\n"
	     "compare each node's pool with the record and the settings, make the\n"
	     "hugetlbfs mounts (mount =), and write node_exporter's textfile (textfile =).\n"
	     "It fails only where on_short = fail says so.\n",
    .options = OPT_SYSROOT | OPT_CONFIG | OPT_CMDLINE | OPT_RECORD_DIR,
    .examples = " hugepar verify\n"
		"        as hugepar-verify.service runs it\n"
		" systemctl status hugepar-verify.service\n"
		"        what it said at this boot\n",
    .exits = "0, or 1 when on_short = fail and pages are short, a mount failed, or no boot "
	     "run is recorded",
    .run = cmd_verify,
};
