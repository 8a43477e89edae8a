/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmdline.c - hugepar cmdline: the kernel parameters that reserve the same pools at
 * boot. */
#include <errno.h>
#include <stdio.h>

#include "bootparams.h"
#include "cmd.h"

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
	c->basis_wanted = true;
	if (load_settings(c) || load_machine(c))
		return EXIT_FAIL;
	bootparams_from_plan(stdout, &c->topo, &c->plan);
	return c->settings.nproblems ? EXIT_PARTIAL : EXIT_OK;
}

const struct command command_cmdline = {
    .name = "cmdline",
    .summary = "print the kernel command line for the same pools",
    .about = "Print the kernel's own boot parameters (hugepagesz= hugepages=N:M,...) that\n"
	     "reserve the planned pools at boot, largest size first, or with --from=record\n"
	     "those the last run achieved: for 1G pages that a fragmented node cannot give\n"
	     "at run time, or to compare.\n",
    .options = OPT_SYSROOT | OPT_CONFIG | OPT_CMDLINE | OPT_RECORD_DIR | OPT_FROM |
	       OPT_NOW,
    .examples = " hugepar cmdline\n"
		"        the parameters for the plan\n"
		" hugepar cmdline --from=record\n"
		"        those for what the boot achieved\n",
    .exits = "0, 64 a setting was bad, 1 the machine could not be read, 3 no record, 4 a "
	     "record without pools",
    .run = cmd_cmdline,
};
