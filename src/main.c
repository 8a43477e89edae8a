/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c - hugepar: argument parsing, subcommands and exit codes. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "path.h"
#include "plan.h"
#include "record.h"
#include "report.h"
#include "settings.h"
#include "topology.h"

#ifndef HUGEPAR_VERSION
#define HUGEPAR_VERSION "0.1"
#endif

#define DEFAULT_CONFIG "/etc/hugepar.conf"

struct ctx {
	const char *command;
	const char *config;
	const char *cmdline; /* NULL: read /proc/cmdline */
	const char *record_dir;
	bool json;
	enum hp_method method;
	struct hp_settings settings;
	struct hp_topology topo;
	struct hp_plan plan;
};

static void __attribute__((noreturn)) usage(int rc)
{
	FILE *f = rc ? stderr : stdout;

	fputs(
	    "Usage:\n"
	    " hugepar plan   [options]   show the topology and the plan; change nothing\n"
	    " hugepar apply  [options]   reserve the planned huge pages, on every node "
	    "in parallel\n"
	    " hugepar status [options]   show the last record\n"
	    "\nOptions:\n"
	    " -r, --sysroot DIR       read sysfs and procfs under DIR (default /)\n"
	    " -c, --config FILE       settings file (default " DEFAULT_CONFIG
	    "), then FILE.d/*.conf\n"
	    " -k, --cmdline STRING    take rd.hugepar.* keys from STRING, not "
	    "/proc/cmdline\n"
	    " -m, --method METHOD     apply: auto, parallel or serial (default auto)\n"
	    " -d, --record-dir DIR    apply, status: where the record lives "
	    "(default " HP_RECORD_DIR ")\n"
	    " -J, --json              plan, status: print JSON\n"
	    " -h, --help              display this help\n"
	    " -V, --version           display version\n"
	    "\nExit status: 0 done, 1 failure, 2 usage error, 64 partial (apply: a "
	    "target not met).\n"
	    "See hugepar(8) and hugepar.conf(5).\n",
	    f);
	exit(rc);
}

static int load(struct ctx *c)
{
	static char cmdline[4096]; /* c->cmdline may point here */
	int rc;

	/* Settings first: a record of a failed run still says what was asked. */
	settings_init(&c->settings);
	settings_load_config(&c->settings, c->config);
	if (!c->cmdline) {
		rc = path_read(cmdline, sizeof(cmdline), "/proc/cmdline");
		c->cmdline = rc && rc != -EFBIG ? "" : cmdline;
	}
	settings_load_cmdline(&c->settings, c->cmdline);
	rc = topology_read(&c->topo);
	if (rc) {
		fprintf(stderr, "hugepar: cannot read the topology under %s: %s\n",
			path_root(), strerror(-rc));
		return rc;
	}
	settings_validate(&c->settings, &c->topo);
	for (unsigned i = 0; i < c->settings.nproblems; i++) {
		fputs("hugepar: ", stderr);
		report_problem_line(stderr, &c->settings.problems[i]);
	}
	rc = plan_make(&c->settings, &c->topo, &c->plan);
	if (rc)
		fprintf(stderr, "hugepar: cannot make the plan: %s\n", strerror(-rc));
	return rc;
}

static int cmd_plan(struct ctx *c)
{
	if (load(c))
		return 1;
	if (c->json)
		report_plan_json(stdout, &c->settings, &c->topo, &c->plan);
	else
		report_plan_text(stdout, &c->settings, &c->topo, &c->plan);
	return fflush(stdout) ? 1 : 0;
}

static int cmd_apply(struct ctx *c)
{
	struct hp_result res;
	int rc;

	if (load(c)) {
		record_failure(c->record_dir, &c->settings, "cannot read the topology");
		record_log(3, "failed: cannot read the topology; nothing done");
		return 1;
	}
	rc = engine_apply(&c->settings, &c->topo, &c->plan, c->method, &res);
	if (rc)
		fprintf(stderr, "hugepar: %s\n", res.error);
	rc = record_write(c->record_dir, &c->settings, &c->topo, &c->plan, &res);
	if (rc)
		fprintf(stderr, "hugepar: cannot write the record in %s: %s\n",
			c->record_dir, strerror(-rc));
	record_kmsg(&c->topo, &c->plan, &res);
	rc = res.status == HP_STATUS_OK || res.status == HP_STATUS_DISABLED ? 0
	     : res.status == HP_STATUS_PARTIAL				    ? 64
									    : 1;
	engine_result_free(&res);
	return rc;
}

static int cmd_status(struct ctx *c)
{
	return record_show(c->record_dir, c->json) ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"sysroot", required_argument, NULL, 'r'},
	    {"config", required_argument, NULL, 'c'},
	    {"cmdline", required_argument, NULL, 'k'},
	    {"method", required_argument, NULL, 'm'},
	    {"record-dir", required_argument, NULL, 'd'},
	    {"json", no_argument, NULL, 'J'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	static struct ctx c; /* large: keep it off the stack */
	int opt;

	c.config = DEFAULT_CONFIG;
	c.record_dir = HP_RECORD_DIR;
	c.method = HP_METHOD_AUTO;
	while ((opt = getopt_long(argc, argv, "r:c:k:m:d:JhV", opts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			path_set_root(optarg);
			break;
		case 'c':
			c.config = optarg;
			break;
		case 'k':
			c.cmdline = optarg;
			break;
		case 'm':
			if (method_parse(optarg, &c.method)) {
				fprintf(stderr,
					"hugepar: --method %s: expected auto, parallel "
					"or serial\n",
					optarg);
				return 2;
			}
			break;
		case 'd':
			c.record_dir = optarg;
			break;
		case 'J':
			c.json = true;
			break;
		case 'h':
			usage(0);
		case 'V':
			printf("hugepar %s\n", HUGEPAR_VERSION);
			return 0;
		default:
			usage(2);
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "hugepar: %s\n",
			optind == argc ? "a command is needed" : "one command only");
		usage(2);
	}
	c.command = argv[optind];
	if (strcmp(c.command, "plan") == 0)
		return cmd_plan(&c);
	if (strcmp(c.command, "apply") == 0)
		return cmd_apply(&c);
	if (strcmp(c.command, "status") == 0)
		return cmd_status(&c);
	fprintf(stderr, "hugepar: unknown command '%s'\n", c.command);
	usage(2);
}
