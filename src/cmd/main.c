/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main.c - hugepar: the command and its options, the kernel behind the pools, and
 * the help. Each command takes its own options (cmd.h) and has its own --help; a
 * wrong command or option gets one line that says what to type instead.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "keyname.h"
#include "keys.h"
#include "live.h"
#include "macros.h"
#include "path.h"
#include "version.h"
#ifdef HUGEPAR_TESTING
#include "sim.h"
#include "simclock.h"
#endif

#define DEFAULT_CONFIG "/etc/hugepar.conf"

const struct command *const cmd_list[] = {
    &plan_command,   &apply_command, &status_command,  &verify_command,
    &cmdline_command, &wait_command,  &recover_command,
};
const unsigned cmd_count = ARRAY_SIZE(cmd_list);

/* An option: its long form, its letter (0: none), its argument, the commands' bit
 * (0: every command's), its line in a command's help. */
static const struct {
	struct option o;
	char letter;
	unsigned bit;
	const char *arg, *help;
} opts[] = {
    {{"sysroot", required_argument, NULL, 'r'}, 'r', OPT_SYSROOT, "DIR",
     "read sysfs and procfs under DIR (default /)"},
    {{"config", required_argument, NULL, 'c'}, 'c', OPT_CONFIG, "FILE",
     "the settings file, then FILE.d/ (default " DEFAULT_CONFIG ")"},
    {{"root", required_argument, NULL, 'R'}, 0, OPT_ROOT, "DIR",
     "the settings files under DIR, the root to be (/sysroot)"},
    {{"cmdline", required_argument, NULL, 'k'}, 'k', OPT_CMDLINE, "STRING",
     "rd.hugepar.* keys from STRING, not /proc/cmdline"},
    {{"method", required_argument, NULL, 'm'}, 'm', OPT_METHOD, "METHOD",
     "auto, parallel or serial (default auto)"},
    {{"record-dir", required_argument, NULL, 'd'}, 'd', OPT_RECORD_DIR, "DIR",
     "where the record lives (default " HP_RUN_DIR ")"},
    {{"now", no_argument, NULL, 'N'}, 0, OPT_NOW, NULL,
     "the memory free now, not the boot's"},
    {{"json", no_argument, NULL, 'J'}, 'J', OPT_JSON, NULL, "print JSON (--format=json)"},
    {{"format", required_argument, NULL, 'f'}, 'f', OPT_FORMAT, "FORMAT",
     "text or json; status: prometheus too"},
    {{"check", no_argument, NULL, 'C'}, 0, OPT_CHECK, NULL,
     "compare the pools now with what the run left"},
    {{"if-changed", no_argument, NULL, 'I'}, 0, OPT_IF_CHANGED, NULL,
     "only if the settings files changed since the run"},
    {{"from", required_argument, NULL, 'F'}, 0, OPT_FROM, "WHAT",
     "plan (default), or record: what the last run was asked"},
    {{"help", no_argument, NULL, 'h'}, 'h', 0, NULL, "display this help"},
    {{"version", no_argument, NULL, 'V'}, 'V', 0, NULL, "display version"},
#ifdef HUGEPAR_TESTING
    {{"simulate", no_argument, NULL, 'S'}, 0, 0, NULL, NULL},
#endif
};

static void help_options(FILE *f, unsigned bits)
{
	fputs("\nOptions:\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		char left[40];

		if (!opts[i].help || (opts[i].bit && !(bits & opts[i].bit)))
			continue;
		snprintf(left, sizeof(left), "%c%c%c --%s%s%s", opts[i].letter ? '-' : ' ',
			 opts[i].letter ? opts[i].letter : ' ', opts[i].letter ? ',' : ' ',
			 opts[i].o.name, opts[i].arg ? " " : "",
			 opts[i].arg ? opts[i].arg : "");
		fprintf(f, " %-24s%s\n", left, opts[i].help);
	}
}

/* The keys of hugepar.conf(5), each with what it is for. */
static void help_keys(FILE *f)
{
	const char *key, *what;

	fputs("\nSettings (hugepar.conf(5); rd.hugepar.KEY= on the kernel command line, "
	      "rd.hugepar=0\nfor enabled):\n",
	      f);
	for (unsigned i = 0; (key = keys_name(i, &what)); i++)
		fprintf(f, " %-13s %s\n", key, what);
}

void cmd_help_print(FILE *f, const struct command *cmd)
{
	if (cmd) {
		fprintf(f, "Usage:\n hugepar %s [options]\n\n%s", cmd->name, cmd->about);
		help_options(f, cmd->options);
		if (cmd->keys)
			help_keys(f);
		fprintf(f, "\nExamples:\n%s\nExit status: %s.\nSee hugepar(8) and "
			   "hugepar.conf(5).\n",
			cmd->examples, cmd->exits);
		return;
	}
	fputs("Usage:\n hugepar COMMAND [options]\n\nReserve huge pages on every NUMA "
	      "node, in parallel, from the initramfs.\n\nCommands:\n",
	      f);
	for (unsigned i = 0; i < cmd_count; i++)
		fprintf(f, " %-9s %s\n", cmd_list[i]->name, cmd_list[i]->summary);
	fputs("\nOptions:\n"
	      " -h, --help     display this help; hugepar COMMAND --help: the command's\n"
	      " -V, --version  display version\n"
	      "\nExamples:\n"
	      " hugepar plan           what the next boot will reserve on each node\n"
	      " hugepar status         what this boot's run did, and what to do if pages\n"
	      "                        are short\n"
	      " hugepar plan --help    plan's options and examples\n"
	      "\nSettings: /etc/hugepar.conf; build every kernel's initramfs again after a "
	      "change.\nSee hugepar(8) and hugepar.conf(5).\n",
	      f);
}

/* One line on a usage error, with where to look; the exit code of one. */
static int usage_error(const char *who, const char *fmt, const char *arg)
{
	fprintf(stderr, "hugepar%s%s: ", who ? " " : "", who ? who : "");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "; try 'hugepar%s%s --help'\n", who ? " " : "", who ? who : "");
	return EXIT_USAGE;
}

static const struct command *command_named(const char *name)
{
	for (unsigned i = 0; i < cmd_count; i++)
		if (strcmp(name, cmd_list[i]->name) == 0)
			return cmd_list[i];
	return NULL;
}

/* An unknown command, and the one it is close to. */
static int unknown_command(const char *name)
{
	const char *names[ARRAY_SIZE(cmd_list)], *meant;
	char what[160];

	for (unsigned i = 0; i < cmd_count; i++)
		names[i] = cmd_list[i]->name;
	meant = keyname_meant(name, names, cmd_count);
	snprintf(what, sizeof(what), "unknown command '%%s'%s%s%s",
		 meant && command_named(meant) ? " (did you mean '" : "",
		 meant && command_named(meant) ? meant : "",
		 meant && command_named(meant) ? "'?)" : "");
	return usage_error(NULL, what, name);
}

/* The option a long one as typed names ("--sys" for --sysroot, as getopt_long takes
 * a unique abbreviation; the name ends at '=' or the word's end): its index in
 * opts[], -1 for none, -2 for more than one. */
static int long_named(const char *word)
{
	size_t n = strcspn(word + 2, "=");
	int found = -1;

	for (size_t k = 0; k < ARRAY_SIZE(opts); k++) {
		if (strncmp(word + 2, opts[k].o.name, n))
			continue;
		if (!opts[k].o.name[n])
			return (int)k; /* the whole name */
		found = found == -1 ? (int)k : -2;
	}
	return found;
}

/* Whether the option word a takes the next word as its value: a long option (or
 * its abbreviation) with a value and no '=', or a cluster of letters whose last
 * takes one ("-r DIR", "-Jr DIR"). */
static bool takes_next(const char *a)
{
	int k;

	if (a[1] == '-') {
		k = long_named(a);
		return k >= 0 && opts[k].o.has_arg && !strchr(a, '=');
	}
	for (const char *l = a + 1; *l; l++)
		for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
			if (opts[i].letter == *l && opts[i].o.has_arg)
				return !l[1]; /* else the rest is its value */
	return false;
}

/* The command of the line: its first word that is no option nor an option's value
 * (getopt moves the words, so that options may come before it or after); the
 * second such word, if any, in *other. */
static const char *command_word(int argc, char **argv, int *count, const char **other)
{
	const char *word = NULL;

	*count = 0;
	*other = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0)
			break;
		if (a[0] != '-' || !a[1]) {
			if (!(*count)++)
				word = a;
			else if (!*other)
				*other = a;
			continue;
		}
		if (takes_next(a))
			i++; /* its value */
	}
	return word;
}

static int format_parse(const struct command *cmd, const char *s, enum hp_format *f)
{
	if (strcmp(s, "text") == 0)
		*f = HP_FORMAT_TEXT;
	else if (strcmp(s, "json") == 0)
		*f = HP_FORMAT_JSON;
	else if (strcmp(s, "prometheus") == 0 && cmd == &status_command)
		*f = HP_FORMAT_PROMETHEUS;
	else
		return -EINVAL;
	return 0;
}

/* One option's value into the context: -1 to go on, or the exit code of a usage
 * error. */
static int take_value(struct ctx *c, const struct command *cmd, int opt, const char *arg)
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
	case 'R':
		c->root = arg;
		break;
	case 'm':
		if (result_method_parse(arg, &c->method))
			return usage_error(cmd->name,
					   "--method %s: expected auto, parallel or serial",
					   arg);
		break;
	case 'd':
		c->record_dir = arg;
		break;
	case 'J':
		c->format = HP_FORMAT_JSON;
		break;
	case 'f':
		if (format_parse(cmd, arg, &c->format))
			return usage_error(cmd->name,
					   cmd == &status_command
					       ? "--format %s: expected text, json or prometheus"
					       : "--format %s: expected text or json",
					   arg);
		break;
	case 'F':
		if (strcmp(arg, "plan") && strcmp(arg, "record"))
			return usage_error(cmd->name, "--from %s: expected plan or record",
					   arg);
		c->from_record = strcmp(arg, "record") == 0;
		break;
	}
	return -1;
}

/* An option the command does not take: whose it is. */
static int not_its_option(const struct command *cmd, const char *name, unsigned bit)
{
	char whose[160] = "", what[224];

	for (unsigned i = 0; i < cmd_count; i++)
		if (cmd_list[i]->options & bit)
			snprintf(whose + strlen(whose), sizeof(whose) - strlen(whose),
				 "%s%s", whose[0] ? ", " : "", cmd_list[i]->name);
	snprintf(what, sizeof(what), "--%%s is not an option of %s (it is %s's)",
		 cmd->name, whose);
	return usage_error(cmd->name, what, name);
}

/* The options of opts[] whose names start as the word typed, for an ambiguous one. */
static void names_like(const char *typed, char *buf, size_t len)
{
	size_t n = strcspn(typed + 2, "="), at = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < ARRAY_SIZE(opts) && at < len; k++)
		if (opts[k].help && strncmp(typed + 2, opts[k].o.name, n) == 0)
			at += (size_t)snprintf(buf + at, len - at, "%s--%s",
					       at ? ", " : "", opts[k].o.name);
}

/* A wrong option, named as it was typed: unknown, ambiguous, a value given to one
 * that takes none, or none to one that needs it. The exit code of a usage error. */
static int option_error(const char *who, int opt, const char *typed)
{
	char what[320], names[160];
	int n, k;

	/* a letter: optopt names it (getopt may have moved past the word then) */
	if (!typed || strncmp(typed, "--", 2)) {
		snprintf(what, sizeof(what), "unknown option '-%c'", optopt);
		for (k = 0; opt == ':' && k < (int)ARRAY_SIZE(opts); k++)
			if (opts[k].letter == optopt)
				snprintf(what, sizeof(what),
					 "-%c needs a value (--%s %s)", optopt,
					 opts[k].o.name, opts[k].arg);
		return usage_error(who, "%s", what);
	}
	n = MIN((int)strcspn(typed, "="), 64);
	k = long_named(typed);
	if (k == -2) {
		names_like(typed, names, sizeof(names));
		snprintf(what, sizeof(what), "option '%.*s' is ambiguous (%s)", n, typed,
			 names);
	} else if (k < 0) {
		snprintf(what, sizeof(what), "unknown option '%.*s'", n, typed);
	} else if (opt == ':' && strcmp(typed + 2, opts[k].o.name)) {
		snprintf(what, sizeof(what), "%.*s needs a value (--%s %s)", n, typed,
			 opts[k].o.name, opts[k].arg);
	} else if (opt == ':') {
		snprintf(what, sizeof(what), "%.*s needs a value", n, typed);
	} else {
		snprintf(what, sizeof(what), "%.80s: --%s takes no value", typed,
			 opts[k].o.name);
	}
	return usage_error(who, "%s", what);
}

/* The options into the context: -1 to go on, or the exit code that ends the run. */
static int take_options(struct ctx *c, const struct command *cmd, int argc, char **argv)
{
	struct option lo[ARRAY_SIZE(opts) + 1] = {{0}};
	const char *who = cmd ? cmd->name : NULL;
	int opt, idx;

	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		lo[i] = opts[i].o;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":r:c:k:m:d:Jf:hV", lo, &idx)) != -1) {
		const char *bad = argv[optind - 1];
		int rc;

		if (opt == '?' || opt == ':')
			return option_error(who, opt, bad);
		if (opt == 'h') {
			cmd_help_print(stdout, cmd);
			return EXIT_OK;
		}
		if (opt == 'V') {
			printf("hugepar %s\n", HUGEPAR_VERSION);
			return EXIT_OK;
		}
		for (size_t k = 0; k < ARRAY_SIZE(opts); k++)
			if (opts[k].o.val == opt && opts[k].bit &&
			    !(cmd && cmd->options & opts[k].bit))
				return cmd ? not_its_option(cmd, opts[k].o.name, opts[k].bit)
					   : usage_error(NULL, "%s: a command is needed first",
							 bad);
		if (opt == 'S') {
			c->simulate = true;
			continue;
		}
		if (opt == 'N') {
			c->now = true;
			continue;
		}
		if (opt == 'C' || opt == 'I') {
			*(opt == 'C' ? &c->check : &c->if_changed) = true;
			continue;
		}
		if ((rc = take_value(c, cmd, opt, optarg)) >= 0)
			return rc;
	}
	return -1;
}

/* The kernel behind the pool files: the running one, or (test build) a simulated
 * one under the sysroot. */
static int choose_kernel(const struct ctx *c)
{
	hugetlb_use(&live_hugetlb);
#ifdef HUGEPAR_TESTING
	if (c->simulate) {
		int rc = sim_open();

		if (rc) {
			fprintf(stderr,
				"hugepar: cannot simulate a kernel under %s: %s\n",
				path_root(), strerror(-rc));
			return EXIT_FAIL;
		}
		hugetlb_use(&sim_hugetlb);
		/* an apply's processes on the simulated kernel's own clock */
		if (strcmp(c->command, "apply") == 0 && (rc = sim_clock_join())) {
			fprintf(stderr, "hugepar: cannot join the simulated clock: %s\n",
				strerror(-rc));
			return EXIT_FAIL;
		}
	}
#endif
	return -1;
}

/* "hugepar help [COMMAND]": the help of hugepar or of the command. */
static int help_command(int argc, char **argv)
{
	const struct command *cmd = NULL;
	int i = 1;

	while (i < argc && strcmp(argv[i], "help"))
		i++;
	if (i + 1 < argc && !(cmd = command_named(argv[i + 1])))
		return unknown_command(argv[i + 1]);
	cmd_help_print(stdout, cmd);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	static struct ctx c; /* large: keep it off the stack */
	const struct command *cmd = NULL;
	int words, rc;
	const char *other, *word = command_word(argc, argv, &words, &other);

	if (word && strcmp(word, "help") == 0)
		return help_command(argc, argv);
	if (word && !(cmd = command_named(word)))
		return unknown_command(word);
	c.config = DEFAULT_CONFIG;
	c.record_dir = HP_RUN_DIR;
	c.method = HP_METHOD_AUTO;
	if ((rc = take_options(&c, cmd, argc, argv)) >= 0)
		return rc;
	if (!cmd)
		return usage_error(NULL, "%sa command is needed", "");
	if (words > 1)
		return usage_error(cmd->name, "one command only, not '%s' too", other);
	c.command = cmd->name;
	if ((rc = choose_kernel(&c)) >= 0)
		return rc;
	return cmd->run(&c);
}
