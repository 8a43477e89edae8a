/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmdline.c - hugepar cmdline: the kernel parameters that reserve the pools asked for
 * at boot. */
#include <errno.h>
#include <stdio.h>

#include "bootparams.h"
#include "cmd.h"

/* The kernel command line that would reserve the pools asked for at boot. */
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
	if (context_load_settings(c) || context_load_machine(c))
		return EXIT_FAIL;
	bootparams_from_plan(stdout, &c->topo, &c->plan);
	return c->settings.nproblems ? EXIT_PARTIAL : EXIT_OK;
}

const struct command cmdline_command = {
    .name = "cmdline",
    .summary = "print the kernel command line for the pools asked for",
    .about =
	"Print the kernel's own boot parameters (hugepagesz= hugepages=N:M,...) that\n"
	"reserve the pools asked for at boot, largest size first: each node's target,\n"
	"and where the free memory of a run or keep_free capped a node, its request,\n"
	"keeping keep_free of the node's installed memory (MemTotal). --from=plan\n"
	"(default): the settings as they are now; --from=record: those the last run\n"
	"read (the initramfs's copies), as its record has them. For pages a node's free\n"
	"memory or fragments cannot give at run time.\n",
    .options =
	OPT_SYSROOT | OPT_CONFIG | OPT_CMDLINE | OPT_RECORD_DIR | OPT_FROM | OPT_NOW,
    .examples = " hugepar cmdline\n"
		"        the parameters for the settings as they are now\n"
		" hugepar cmdline --from=record\n"
		"        those for what the boot's run was asked\n",
    .exits = "0, 64 a setting was bad, 1 the machine could not be read, 3 no record, 4 a "
	     "record without pools",
    .run = cmd_cmdline,
};
