/* SPDX-License-Identifier: GPL-2.0-or-later */
/* context.c - what the commands share: the settings and the machine loaded, whether
 * this is a crash capture kernel, and the exit code of a status. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "basis.h"
#include "context.h"
#include "hugetlb.h"
#include "kinfo.h"
#include "macros.h"
#include "parse.h"
#include "path.h"
#include "report.h"
#include "resolve.h"
#include "setfiles.h"

int context_load_settings(struct ctx *c)
{
	static char cmdline[65536]; /* c->cmdline may point here */
	int rc;

	settings_init(&c->settings);
	if (!c->cmdline) {
		rc = path_read(cmdline, sizeof(cmdline), "/proc/cmdline");
		c->cmdline = rc ? "" : cmdline;
		if (rc && rc != -ENOENT)
			fprintf(stderr, "hugepar: %s/proc/cmdline: %s: not read\n",
				path_root()[1] ? path_root() : "", path_strerror(rc));
	}
	/* the files, then the credentials, then the kernel command line: a later
	 * setting wins (hugepar.conf(5)) */
	rc = sources_load_config_at(&c->settings, c->root ? c->root : "", c->config,
				    c->config_given);
	if (rc) {
		fprintf(stderr, "hugepar: %s: %s\n", c->config, strerror(-rc));
		return rc;
	}
	sources_load_baked(&c->settings);
	sources_load_credentials(&c->settings, c->cmdline);
	sources_load_cmdline(&c->settings, c->cmdline);
	return 0;
}

bool context_capture_kernel(const struct ctx *c, char *why, size_t len)
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

int context_load_machine(struct ctx *c)
{
	int rc = topology_read(&c->topo);

	if (rc) {
		fprintf(stderr, "hugepar: cannot read the topology under %s: %s\n",
			path_root(), c->topo.error[0] ? c->topo.error : strerror(-rc));
		return rc;
	}
	hugetlb_set_release(c->topo.release);
	if (c->basis_wanted)
		basis_read(&c->basis, &c->topo, c->record_dir, c->now);
	if (!c->basis.boot)
		basis_own_read(&c->topo, c->record_dir);
	plan_check_settings(&c->settings, &c->topo);
	resolve_devices(&c->settings, &c->topo);
	settings_note_replaced(&c->settings, &c->topo);
	for (unsigned i = 0; i < c->settings.nproblems; i++) {
		fputs("hugepar: ", stderr);
		report_problem_line(stderr, &c->settings.problems[i]);
	}
	rc = plan_make(&c->settings, &c->topo, &c->plan);
	if (rc)
		fprintf(stderr, "hugepar: cannot make the plan: %s\n", strerror(-rc));
	return rc;
}

void context_load_setters(struct ctx *c, const struct hp_result *res)
{
	const struct hp_topology *t = &c->topo;
	size_t cells = (size_t)t->nnodes * t->nsizes;
	struct setfiles *f = calloc(1, sizeof(*f));
	uint64_t *pages = calloc(cells ? cells : 1, sizeof(*pages)), kb[HP_MAX_SIZES];
	uint64_t *asked = calloc(cells ? cells : 1, sizeof(*asked));
	unsigned *ids = calloc(t->nnodes ? t->nnodes : 1, sizeof(*ids));
	struct setters_pools p = {.nnodes = t->nnodes,
				  .nsizes = t->nsizes,
				  .ids = ids,
				  .kb = kb,
				  .pages = pages,
				  .asked = asked,
				  .default_kb = t->default_kb,
				  .exact = c->settings.mode == HP_MODE_EXACT};

	memset(&c->setters, 0, sizeof(c->setters));
	if (f && pages && asked && ids && setfiles_read(f, c->root) == 0) {
		for (unsigned z = 0; z < t->nsizes; z++)
			kb[z] = t->sizes[z].kb;
		for (unsigned n = 0; n < t->nnodes; n++) {
			ids[n] = t->nodes[n].id;
			for (unsigned z = 0; z < t->nsizes; z++) {
				const struct hp_cell *cl = plan_cell(&c->plan, n, z);
				size_t i = (size_t)n * t->nsizes + z;

				pages[i] = res ? res->cells[i].achieved : cl->target;
				asked[i] =
				    cl->requested_set ? cl->requested : HP_NOT_ASKED;
			}
		}
		setters_judge(f, c->cmdline, &p, &c->setters);
	}
	free(f);
	free(pages);
	free(asked);
	free(ids);
}

int context_exit_code(enum hp_status s)
{
	return s == HP_STATUS_OK || s == HP_STATUS_DISABLED ? EXIT_OK
	       : s == HP_STATUS_PARTIAL			    ? EXIT_PARTIAL
							    : EXIT_FAIL;
}
