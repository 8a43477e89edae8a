/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c - hugepar: argument parsing, subcommands and exit codes. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "check.h"
#include "cmdline.h"
#include "engine.h"
#include "fault.h"
#include "hugetlb.h"
#include "journal.h"
#include "live.h"
#include "notify.h"
#include "path.h"
#include "plan.h"
#include "record.h"
#include "report.h"
#include "settings.h"
#include "stop.h"
#include "topology.h"
#include "version.h"
#include "waiter.h"
#ifdef HUGEPAR_TESTING
#include "sim.h"
#endif

#define DEFAULT_CONFIG "/etc/hugepar.conf"

/* Exit codes (hugepar(8)). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
	EXIT_NO_RECORD = 3,
	EXIT_BAD_RECORD = 4,
	EXIT_PARTIAL = 64,
	EXIT_DRIFT = 65,
	EXIT_BUSY = 75,
};

struct ctx {
	const char *command;
	const char *config;
	bool config_given;
	const char *cmdline; /* NULL: read /proc/cmdline */
	const char *record_dir;
	enum hp_format format;
	bool check;
	bool from_record;
	bool simulate;
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

static int load_settings(struct ctx *c)
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
	}
	settings_load_cmdline(&c->settings, c->cmdline);
	return 0;
}

static int load_machine(struct ctx *c)
{
	int rc = topology_read(&c->topo);

	if (rc) {
		fprintf(stderr, "hugepar: cannot read the topology under %s: %s\n",
			path_root(), c->topo.error[0] ? c->topo.error : strerror(-rc));
		return rc;
	}
	hugetlb_set_release(c->topo.release);
	plan_check_settings(&c->settings, &c->topo);
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
	if (load_settings(c) || load_machine(c))
		return EXIT_FAIL;
	if (c->format == HP_FORMAT_JSON)
		report_plan_json(stdout, &c->settings, &c->topo, &c->plan);
	else
		report_plan_text(stdout, &c->settings, &c->topo, &c->plan);
	if (fflush(stdout))
		return EXIT_FAIL;
	return c->settings.nproblems || c->settings.failed ? EXIT_PARTIAL : EXIT_OK;
}

static int exit_of(enum hp_status s)
{
	return s == HP_STATUS_OK || s == HP_STATUS_DISABLED ? EXIT_OK
	       : s == HP_STATUS_PARTIAL			    ? EXIT_PARTIAL
							    : EXIT_FAIL;
}

/* A run that cannot start: the record still says what was asked and why. */
static int apply_failed(struct ctx *c, const struct hp_recovery *rec, int code,
			const char *fmt, const char *arg)
{
	char why[320];

	snprintf(why, sizeof(why), fmt, arg);
	fprintf(stderr, "hugepar: %s\n", why);
	record_failure(c->record_dir, &c->settings, rec, why);
	record_log(LOG_ERR, "failed: %s; nothing done", why);
	return code;
}

static int apply(struct ctx *c, uint64_t deadline)
{
	struct hp_recovery rec = {0};
	struct hp_result res;
	int rc;

	rc = journal_lock(deadline);
	if (rc == -EAGAIN)
		return apply_failed(
		    c, &rec, EXIT_BUSY, "%s",
		    "another hugepar apply held the lock until the deadline");
	if (rc)
		return apply_failed(c, &rec, EXIT_FAIL, "cannot take the lock in %s",
				    HP_STATE_DIR);
	fault_at("lock");
	journal_recover(rec.fix, HP_MAX_SIZES, &rec.n);
	if (load_machine(c))
		return apply_failed(c, &rec, EXIT_FAIL, "cannot read the topology: %s",
				    c->topo.error);
	fault_at("topology");
	rc = engine_apply(&c->settings, &c->topo, &c->plan, c->method, deadline, &res);
	if (rc)
		fprintf(stderr, "hugepar: %s\n", res.error);
	fault_at("record");
	rc = record_write(c->record_dir, &c->settings, &c->topo, &c->plan, &res, &rec);
	if (rc)
		fprintf(stderr, "hugepar: cannot write the record in %s: %s\n",
			c->record_dir, strerror(-rc));
	record_kmsg(&c->topo, &c->plan, &res, &rec);
	fault_at("done");
	rc = exit_of(res.status);
	engine_result_free(&res);
	journal_unlock();
	return rc;
}

static int cmd_apply(struct ctx *c)
{
	uint64_t start = now_ms(), boot = boottime_ms(), deadline;
	int rc = state_dir_check(c->record_dir, true);

	if (rc) {
		fprintf(stderr, "hugepar: the record directory %s: %s\n", c->record_dir,
			rc == -EPERM ? "not owned by this user, or writable by others"
				     : strerror(-rc));
		return EXIT_FAIL;
	}
	publish_clear(c->record_dir);
	publish(c->record_dir, HP_PUB_PID, (uint64_t)getpid());
	stop_install();
	fault_init(getpid());
	fault_at("start");
	if (fault_flag("parallel")) /* the test build's boot tests: no probe */
		c->method = HP_METHOD_PARALLEL;
	if (load_settings(c)) {
		rc = EXIT_FAIL;
	} else {
		deadline = start + c->settings.timeout_ms;
		publish(c->record_dir, HP_PUB_DEADLINE, boot + c->settings.timeout_ms);
		/* systemd: the unit's start timeout is hugepar's own deadline */
		notify_extend_timeout(c->settings.timeout_ms + HP_WAIT_GRACE_MS);
		rc = apply(c, deadline);
	}
	publish(c->record_dir, HP_PUB_EXIT, (uint64_t)rc);
	notify_ready(rc);
	return rc;
}

static int exit_of_record(int status)
{
	return status == HP_STATUS_OK || status == HP_STATUS_DISABLED ? EXIT_OK
	       : status == HP_STATUS_PARTIAL			      ? EXIT_PARTIAL
								      : EXIT_FAIL;
}

static int cmd_status(struct ctx *c)
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
		record_print(&r, c->format);
	/* --check answers one question, whether the pools are as the run left them; how
	 * the run went against the settings is the record's status (and verify's). */
	if (c->check)
		rc = pc.drift ? EXIT_DRIFT : EXIT_OK;
	else
		rc = exit_of_record(r.status);
	record_unload(&r);
	return rc;
}

/* On the booted system (hugepar-verify.service): the pools against the record, the
 * hugetlbfs mounts, node_exporter's textfile; fails only when on_short = fail says. */
static int cmd_verify(struct ctx *c)
{
	struct hp_record r;
	struct verify_result vr;
	bool have;
	int rc;

	if (load_settings(c))
		return EXIT_FAIL;
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
static int cmd_cmdline(struct ctx *c)
{
	struct hp_record r;
	int rc;

	if (c->from_record) {
		rc = record_load(c->record_dir, &r);
		if (rc)
			return rc == -ENOENT ? EXIT_NO_RECORD : EXIT_BAD_RECORD;
		rc = cmdline_from_record(stdout, &r);
		if (rc)
			fprintf(stderr, "hugepar: the record in %s has no pools\n",
				c->record_dir);
		record_unload(&r);
		return rc ? EXIT_BAD_RECORD : EXIT_OK;
	}
	if (load_settings(c) || load_machine(c))
		return EXIT_FAIL;
	cmdline_from_plan(stdout, &c->topo, &c->plan);
	return c->settings.nproblems ? EXIT_PARTIAL : EXIT_OK;
}

/* Put back what killed runs left raised; the same as every apply does first. */
static int cmd_recover(struct ctx *c)
{
	struct hp_recovery rec = {0};
	int rc = journal_lock(now_ms() + 10000), failed = 0;

	if (rc) {
		fprintf(stderr, "hugepar: cannot take the lock in %s: %s\n", HP_STATE_DIR,
			rc == -EAGAIN ? "another hugepar apply is running"
				      : strerror(-rc));
		return rc == -EAGAIN ? EXIT_BUSY : EXIT_FAIL;
	}
	journal_recover(rec.fix, HP_MAX_SIZES, &rec.n);
	for (unsigned i = 0; i < rec.n; i++) {
		char line[256];

		recovery_describe(&rec.fix[i], line, sizeof(line));
		record_log(rec.fix[i].rc ? LOG_ERR : LOG_WARNING, "%s", line);
		failed += rec.fix[i].rc != 0;
	}
	journal_unlock();
	(void)c;
	return failed ? EXIT_FAIL : EXIT_OK;
}

/* For the boot hooks: wait for the background apply, stop it when it runs past its
 * deadline, put back what it may have left, and say what happened. */
static int cmd_wait(struct ctx *c)
{
	struct wait_result w;
	uint64_t fallback;

	/* A run that died before publishing its deadline: take the settings' own. */
	load_settings(c);
	fallback = boottime_ms() + c->settings.timeout_ms;
	wait_for_run(c->record_dir, fallback, &w);
	if (!w.started)
		return EXIT_OK;
	if (w.exited)
		return (int)MIN(w.exit_code, UINT64_C(255));
	record_log(LOG_WARNING, "%s after %llu ms; the boot goes on",
		   w.stopped
		       ? (w.killed ? "apply was still running past its deadline: killed"
				   : "apply was still running past its deadline: stopped")
		       : "apply ended without a result",
		   (unsigned long long)w.waited_ms);
	if (!w.stopped || w.killed) {
		struct hp_recovery rec = {0};

		if (journal_lock(now_ms() + 2000) == 0) {
			journal_recover(rec.fix, HP_MAX_SIZES, &rec.n);
			journal_unlock();
		}
		record_failure(c->record_dir, &c->settings, &rec,
			       w.killed
				   ? "stopped at the root switch: still running past its "
				     "deadline"
				   : "ended without a record");
	}
	return EXIT_FAIL;
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
	live_prepare();
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		if (strcmp(c.command, cmds[i].name) == 0)
			return cmds[i].fn(&c);
	fprintf(stderr, "hugepar: unknown command '%s'\n", c.command);
	usage(EXIT_USAGE);
}
