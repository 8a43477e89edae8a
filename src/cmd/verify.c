/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verify.c - hugepar verify: on the booted system, the pools against the record and
 * the settings, the hugetlbfs mounts, node_exporter's textfile. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "cmd.h"
#include "log.h"
#include "compare.h"
#include "file.h"
#include "mounts.h"
#include "prometheus.h"
#include "text.h"

struct textfile {
	const struct hp_record *r;
	const struct hp_topology *t;
};

static void textfile_body(FILE *f, const void *arg)
{
	const struct textfile *tf = arg;

	prometheus_record(f, tf->r, tf->t);
}

/* The textfile, atomically and readable by node_exporter: only where its directory
 * is (node_exporter installed); nothing is made for a tool that is not there. */
static int write_textfile(const char *file, const struct hp_record *r,
			  const struct hp_topology *t)
{
	const struct textfile tf = {r, t};
	char dir[4096];
	char *slash;

	if (text_snprintf(dir, sizeof(dir), "%s", file))
		return -ENAMETOOLONG;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (access(dir[0] ? dir : "/", W_OK))
		return -errno;
	return file_replace_with(file, textfile_body, &tf);
}

int verify_run(const struct hp_settings *s, const struct hp_record *r,
	       const struct hp_topology *t, struct verify_result *vr)
{
	const char *textfile = settings_textfile(s);
	char why[256];
	int rc;

	memset(vr, 0, sizeof(*vr));
	if (r) {
		compare_pools(r, t, stdout, &vr->pools);
	} else if (s->nentries) {
		vr->no_record = true;
		printf("hugepar: no record of a run at boot, but pages are configured: "
		       "is hugepar "
		       "in the initramfs?\n");
	}
	for (unsigned i = 0; i < s->nmounts; i++) {
		rc = mounts_hugetlbfs(&s->mounts[i], t, why, sizeof(why));
		if (rc < 0)
			vr->mounts_failed++;
		printf("hugepar: %s: %s\n", s->mounts[i].path, why);
	}
	if (textfile && r) {
		rc = write_textfile(textfile, r, t);
		vr->textfile = rc == 0;
		if (rc && rc != -ENOENT)
			printf("hugepar: %s: %s\n", textfile, strerror(-rc));
	}
	vr->failed = s->on_short == HP_SHORT_FAIL &&
		     (vr->pools.shortc || vr->no_record || vr->mounts_failed);
	return vr->failed ? -EAGAIN : 0;
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

	if (context_load_settings(c))
		return EXIT_FAIL;
	if (context_capture_kernel(c, why, sizeof(why))) {
		log_line(LOG_INFO, "verify: %s: nothing checked", why);
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
	rc = verify_run(&c->settings, have ? &r : NULL, &c->topo, &vr);
	log_line(
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

const struct command verify_command = {
    .name = "verify",
    .summary =
	"on the booted system: check the pools, make the mounts, write the textfile",
    .about =
	"What hugepar-verify.service runs before the services that use the pages:\n"
	"compare each node's pool with the record and the settings, make the\n"
	"hugetlbfs mounts (mount =), and write node_exporter's textfile (textfile =).\n"
	"It fails only where on_short = fail says so.\n",
    .options = OPT_SYSROOT | OPT_CONFIG | OPT_CMDLINE | OPT_RECORD_DIR,
    .examples = " hugepar verify\n"
		"        as hugepar-verify.service runs it\n"
		" systemctl status hugepar-verify.service\n"
		"        what it said at this boot\n",
    .exits =
	"0, or 1 when on_short = fail and pages are short, a mount failed, or no boot "
	"run is recorded",
    .run = cmd_verify,
};
