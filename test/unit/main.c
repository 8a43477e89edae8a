/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main.c - the unit test runner: every test of every module, each in a forked child
 * with a time limit; the child's counts come back through a pipe, and a child that
 * crashes, hangs or exits early is one failure of its own. Prints the failed checks
 * as they happen, a line for each test that did not end, and "unit: N passed, N
 * failed" (N counts checks).
 *   unit                 every test
 *   unit NAME...         the tests or modules named: "plan", "plan.rounding"
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

#define UNIT_TIME_LIMIT_S 60

unsigned unit_passed, unit_failed;

static const struct {
	const char *name;
	const struct unit_test *tests;
} modules[] = {
    {"parse", unit_parse},	 {"file", unit_file}, {"json", unit_json},
    {"settings", unit_settings}, {"plan", unit_plan}, {"result", unit_result},
    {"adapt", unit_adapt},
};

static bool wanted(int argc, char **argv, const char *module, const char *test)
{
	char full[128];

	if (argc < 2)
		return true;
	snprintf(full, sizeof(full), "%s.%s", module, test);
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], module) == 0 || strcmp(argv[i], full) == 0)
			return true;
	return false;
}

/* Run one test in a child; its counts are added to this process's. */
static void run(const char *module, const struct unit_test *t)
{
	unsigned counts[2] = {0, 0};
	int fds[2], status;
	ssize_t n = 0;
	pid_t pid;

	fflush(stderr);
	if (pipe(fds) || (pid = fork()) < 0) {
		fprintf(stderr, "FAIL %s.%s: cannot start: %s\n", module, t->name,
			strerror(errno));
		unit_failed++;
		return;
	}
	if (pid == 0) {
		close(fds[0]);
		unit_passed = unit_failed = 0; /* this test's own */
		alarm(UNIT_TIME_LIMIT_S);
		t->fn();
		counts[0] = unit_passed, counts[1] = unit_failed;
		fflush(stderr);
		_exit(write(fds[1], counts, sizeof(counts)) == sizeof(counts) ? 0 : 1);
	}
	close(fds[1]);
	while (n < (ssize_t)sizeof(counts)) {
		ssize_t r = read(fds[0], (char *)counts + n, sizeof(counts) - (size_t)n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n == sizeof(counts) && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		unit_passed += counts[0];
		unit_failed += counts[1];
		return;
	}
	unit_failed++;
	if (WIFSIGNALED(status))
		fprintf(stderr, "FAIL %s.%s: %s%s\n", module, t->name,
			WTERMSIG(status) == SIGALRM ? "past its time limit, " : "",
			strsignal(WTERMSIG(status)));
	else
		fprintf(stderr, "FAIL %s.%s: ended without its counts (exit %d)\n",
			module, t->name, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int main(int argc, char **argv)
{
	unsigned ran = 0;

	for (size_t m = 0; m < sizeof(modules) / sizeof(modules[0]); m++)
		for (const struct unit_test *t = modules[m].tests; t->name; t++)
			if (wanted(argc, argv, modules[m].name, t->name)) {
				run(modules[m].name, t);
				ran++;
			}
	if (!ran) {
		fprintf(stderr,
			"unit: no test named so (modules: parse file json settings "
			"plan result adapt)\n");
		return 2;
	}
	printf("unit: %u passed, %u failed\n", unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}
