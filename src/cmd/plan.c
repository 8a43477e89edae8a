/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan.c - hugepar plan: the machine, the settings and what the next boot will
 * reserve on each node; nothing is changed. */
#include <stdio.h>

#include "cmd.h"
#include "report.h"
#include "setlist.h"

int cmd_plan(struct ctx *c)
{
	c->basis_wanted = true;
	if (context_load_settings(c) || context_load_machine(c))
		return EXIT_FAIL;
	context_load_setters(c, NULL);
	if (c->format == HP_FORMAT_JSON) {
		report_plan_json(stdout, &c->settings, &c->topo, &c->plan, &c->basis,
				 &c->setters);
	} else {
		report_plan_text(stdout, &c->settings, &c->topo, &c->plan, &c->basis);
		setlist_text(stdout, &c->setters);
	}
	if (fflush(stdout))
		return EXIT_FAIL;
	/* as apply's run: pages asked for, and no entry usable, has failed */
	if (c->settings.enabled && !c->settings.nentries &&
	    settings_pages_rejected(&c->settings))
		return EXIT_FAIL;
	return c->settings.nproblems || c->settings.failed ? EXIT_PARTIAL : EXIT_OK;
}

const struct command plan_command = {
    .name = "plan",
    .summary = "show what the next boot will reserve on each node; change nothing",
    .about =
	"Read the machine and the settings (hugepar.conf, its .d, the kernel command\n"
	"line) and show, per node and page size, the pool before, what is asked,\n"
	"the target and the threads, with a note where a target is cut. The free\n"
	"memory is what this boot's initramfs found (its record), so that the plan is\n"
	"the next boot's; --now takes the memory free now.\n",
    .options = OPT_SYSROOT | OPT_CONFIG | OPT_CMDLINE | OPT_RECORD_DIR | OPT_NOW |
	       OPT_JSON | OPT_FORMAT | OPT_ROOT,
    .examples = " hugepar plan\n"
		"        what the next boot will do with the settings as they are now\n"
		" hugepar plan --cmdline 'rd.hugepar.pages=1G:16@0,1 2M:50%'\n"
		"        the same with a kernel command line, before rebooting with it\n"
		" hugepar plan --json | jq '.plan.nodes[] | {node, keep_free}'\n"
		"        the plan as JSON\n",
    .exits = "0 a plan, 64 a setting was bad and skipped, 1 every pages entry was "
	     "rejected or the machine could not be read",
    .run = cmd_plan,
    .keys = true,
};
