/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c - hugepar: the options, the kernel behind the pools, and the command. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "live.h"
#include "macros.h"
#include "path.h"
#include "version.h"
#ifdef HUGEPAR_TESTING
#include "sim.h"
#include "simclock.h"
#endif

#define DEFAULT_CONFIG "/etc/hugepar.conf"

static void __attribute__((noreturn)) usage(int rc)
{
	FILE *f = rc ? stderr : stdout;

	fputs(
	    "Usage:\n"
	    " hugepar plan    [options]  show the topology and the plan; change nothing\n"
	    " hugepar apply   [options]  reserve the planned huge pages, on every node in parallel\n"
	    " hugepar status  [options]  show the last record\n"
	    " hugepar wait    [options]  wait for a background apply, bounded by its deadline\n"
	    " hugepar recover [options]  put back what a killed apply left raised\n"
	    " hugepar verify  [options]  on the booted system: check the pools against the\n"
	    "                            record, make the mounts, write the textfile\n"
	    " hugepar cmdline [options]  print the kernel command line for the same pools\n"
	    "\nOptions:\n"
	    " -r, --sysroot DIR       read sysfs and procfs under DIR (default /)\n"
	    " -c, --config FILE       settings file (default " DEFAULT_CONFIG
	    "), then FILE.d/*.conf\n"
	    " -k, --cmdline STRING    take rd.hugepar.* keys from STRING, not /proc/cmdline\n"
	    " -m, --method METHOD     apply: auto, parallel or serial (default auto)\n"
	    " -d, --record-dir DIR    where the record lives (default " HP_RECORD_DIR
	    ")\n"
	    " -J, --json              plan, status: print JSON (--format=json)\n"
	    " -f, --format FORMAT     status: text, json or prometheus\n"
	    "     --check             status: compare the pools now with the record\n"
	    "     --if-changed        apply: only if the settings files are not those\n"
	    "                            the record's run read (the booted system)\n"
	    "     --from WHAT         cmdline: plan (default) or record\n"
	    " -h, --help              display this help\n"
	    " -V, --version           display version\n"
	    "\nExit status: 0 done, 1 failure, 2 usage error, 3 no record, 4 unreadable\n"
	    "record, 64 partial, 65 pools changed since the record, 75 another apply is\n"
	    "running.\n"
	    "See hugepar(8) and hugepar.conf(5).\n",
	    f);
	exit(rc);
}

static const struct option opts[] = {
    {"sysroot", required_argument, NULL, 'r'},
    {"config", required_argument, NULL, 'c'},
    {"cmdline", required_argument, NULL, 'k'},
    {"method", required_argument, NULL, 'm'},
    {"record-dir", required_argument, NULL, 'd'},
    {"json", no_argument, NULL, 'J'},
    {"format", required_argument, NULL, 'f'},
    {"check", no_argument, NULL, 'C'},
    {"if-changed", no_argument, NULL, 'I'},
    {"from", required_argument, NULL, 'F'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
#ifdef HUGEPAR_TESTING
    {"simulate", no_argument, NULL, 'S'},
#endif
    {NULL, 0, NULL, 0},
};

static int format_parse(const char *s, enum hp_format *f)
{
	if (strcmp(s, "text") == 0)
		*f = HP_FORMAT_TEXT;
	else if (strcmp(s, "json") == 0)
		*f = HP_FORMAT_JSON;
	else if (strcmp(s, "prometheus") == 0)
		*f = HP_FORMAT_PROMETHEUS;
	else
		return -EINVAL;
	return 0;
}

/* One option into the context: -1 to go on, or the exit code that ends the run. */
static int take_option(struct ctx *c, int opt, const char *arg)
{
	switch (opt) {
	case 'r':
		path_set_root(arg);
		break;
	case 'c':
		c->config = arg;
		c->config_given = true;
		break;
	case 'k':
		c->cmdline = arg;
		break;
	case 'm':
		if (method_parse(arg, &c->method)) {
			fprintf(
			    stderr,
			    "hugepar: --method %s: expected auto, parallel or serial\n",
			    arg);
			return EXIT_USAGE;
		}
		break;
	case 'd':
		c->record_dir = arg;
		break;
	case 'J':
		c->format = HP_FORMAT_JSON;
		break;
	case 'f':
		if (format_parse(arg, &c->format)) {
			fprintf(
			    stderr,
			    "hugepar: --format %s: expected text, json or prometheus\n",
			    arg);
			return EXIT_USAGE;
		}
		break;
	case 'C':
		c->check = true;
		break;
	case 'I':
		c->if_changed = true;
		break;
	case 'F':
		if (strcmp(arg, "plan") && strcmp(arg, "record")) {
			fprintf(stderr, "hugepar: --from %s: expected plan or record\n",
				arg);
			return EXIT_USAGE;
		}
		c->from_record = strcmp(arg, "record") == 0;
		break;
	case 'S':
		c->simulate = true;
		break;
	case 'h':
		usage(EXIT_OK);
	case 'V':
		printf("hugepar %s\n", HUGEPAR_VERSION);
		return EXIT_OK;
	default:
		usage(EXIT_USAGE);
	}
	return -1;
}

/* The kernel behind the pool files: the running one, or (test build) a simulated
 * one under the sysroot. */
static int choose_kernel(const struct ctx *c)
{
	hugetlb_use(&hugetlb_live);
#ifdef HUGEPAR_TESTING
	if (c->simulate) {
		int rc = sim_open();

		if (rc) {
			fprintf(stderr,
				"hugepar: cannot simulate a kernel under %s: %s\n",
				path_root(), strerror(-rc));
			return EXIT_FAIL;
		}
		hugetlb_use(&hugetlb_sim);
		/* an apply's processes on the simulated kernel's own clock */
		if (strcmp(c->command, "apply") == 0 && (rc = simclock_join())) {
			fprintf(stderr, "hugepar: cannot join the simulated clock: %s\n",
				strerror(-rc));
			return EXIT_FAIL;
		}
	}
#endif
	return -1;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(struct ctx *);
	} cmds[] = {{"plan", cmd_plan},	      {"apply", cmd_apply},
		    {"status", cmd_status},   {"verify", cmd_verify},
		    {"cmdline", cmd_cmdline}, {"wait", cmd_wait},
		    {"recover", cmd_recover}};
	static struct ctx c; /* large: keep it off the stack */
	int opt, rc;

	c.config = DEFAULT_CONFIG;
	c.record_dir = HP_RECORD_DIR;
	c.method = HP_METHOD_AUTO;
	while ((opt = getopt_long(argc, argv, "r:c:k:m:d:Jf:hV", opts, NULL)) != -1)
		if ((rc = take_option(&c, opt, optarg)) >= 0)
			return rc;
	if (optind != argc - 1) {
		fprintf(stderr, "hugepar: %s\n",
			optind == argc ? "a command is needed" : "one command only");
		usage(EXIT_USAGE);
	}
	c.command = argv[optind];
	if ((rc = choose_kernel(&c)) >= 0)
		return rc;
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		if (strcmp(c.command, cmds[i].name) == 0)
			return cmds[i].fn(&c);
	fprintf(stderr, "hugepar: unknown command '%s'\n", c.command);
	usage(EXIT_USAGE);
}
