/* SPDX-License-Identifier: GPL-2.0-or-later */
/* commands.c - what the commands share (commands.h): the settings and the machine
 * loaded, whether this is a crash capture kernel, and the exit code of a status. The
 * commands that run (run.c) and those on a booted system (booted.c) both use them. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "hugetlb.h"
#include "kinfo.h"
#include "path.h"
#include "report.h"
#include "resolve.h"

int load_settings(struct ctx *c)
{
	static char cmdline[65536]; /* c->cmdline may point here */
	int rc;

	settings_init(&c->settings);
	rc = settings_load_config(&c->settings, c->config, c->config_given);
	if (rc) {
		fprintf(stderr, "hugepar: %s: %s\n", c->config, strerror(-rc));
		return rc;
	}
	settings_load_baked(&c->settings);
	if (!c->cmdline) {
		rc = path_read(cmdline, sizeof(cmdline), "/proc/cmdline");
		c->cmdline = rc ? "" : cmdline;
		if (rc && rc != -ENOENT)
			fprintf(stderr, "hugepar: %s/proc/cmdline: %s: not read\n",
				path_root()[1] ? path_root() : "", path_strerror(rc));
	}
	settings_load_cmdline(&c->settings, c->cmdline);
	return 0;
}

bool capture_kernel(const struct ctx *c, char *why, size_t len)
{
	if (c->cmdline && kinfo_capture_cmdline(c->cmdline))
		snprintf(why, len,
			 "a crash capture kernel (elfcorehdr= on its command line)");
	else if (path_exists("/proc/vmcore"))
		snprintf(why, len, "a crash capture kernel (/proc/vmcore is there)");
	else
		return false;
	return true;
}

int load_machine(struct ctx *c)
{
	int rc = topology_read(&c->topo);

	if (rc) {
		fprintf(stderr, "hugepar: cannot read the topology under %s: %s\n",
			path_root(), c->topo.error[0] ? c->topo.error : strerror(-rc));
		return rc;
	}
	hugetlb_set_release(c->topo.release);
	plan_check_settings(&c->settings, &c->topo);
	resolve_devices(&c->settings, &c->topo);
	for (unsigned i = 0; i < c->settings.nproblems; i++) {
		fputs("hugepar: ", stderr);
		report_problem_line(stderr, &c->settings.problems[i]);
	}
	rc = plan_make(&c->settings, &c->topo, &c->plan);
	if (rc)
		fprintf(stderr, "hugepar: cannot make the plan: %s\n", strerror(-rc));
	return rc;
}

int exit_of(enum hp_status s)
{
	return s == HP_STATUS_OK || s == HP_STATUS_DISABLED ? EXIT_OK
	       : s == HP_STATUS_PARTIAL			    ? EXIT_PARTIAL
							    : EXIT_FAIL;
}
