/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit.c - the unit test runner: every test of every module, each in a forked child
 * with a time limit; the child's counts come back through a pipe, and a child that
 * crashes, hangs or exits early is one failure of its own. A test is named
 * MODULE.TEST ("plan/planner.rounding": UNIT_TEST(rounding, ...) in
 * test/unit/plan/planner.c).
 * Prints the failed checks as they happen, a line for each test that did not end,
 * and "unit: N passed, N failed[, N skipped]" (N counts checks).
 *   unit                 every test
 *   unit PATTERN...      the tests whose name, or whose module's, matches one of
 *                        these globs: "plan/planner", "plan/planner.rounding"
 *   unit --list          each test's name and description, "MODULE.TEST<TAB>TEXT"
 * With no PATTERN, HUGEPAR_CASES (test/run.sh's TESTS=unit:PATTERN) gives them, and
 * HUGEPAR_LIST=FILE writes the list to FILE and runs nothing (TESTS=list reads the
 * sources instead: test/unit/list.sh).
 * HUGEPAR_UNIT_QEMU_USER=1 (test/arm64-user.sh): under qemu-user, which has no
 * subreapers and acts on fatal signals later than a kernel (unit.h: unit_qemu_user).
 */
#include <errno.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"

#define UNIT_TIME_LIMIT_S 60

unsigned unit_passed, unit_failed, unit_skipped;

static struct unit_test *tests;

/* The module of a test: its file's path under test/unit/ without ".c" (kernel/path:
 * the tests of src/kernel/path.c) */
static const char *module_of(const struct unit_test *t, int *len)
{
	const char *base =
	    strstr(t->file, "test/unit/") ? strstr(t->file, "test/unit/") + 10 : t->file;
	const char *dot = strrchr(base, '.');

	*len = dot ? (int)(dot - base) : (int)strlen(base);
	return base;
}

/* Before: in a module of a smaller name, or on an earlier line of the same file. */
static bool before(const struct unit_test *a, const struct unit_test *b)
{
	int la, lb, c;
	const char *ma = module_of(a, &la), *mb = module_of(b, &lb);

	c = strncmp(ma, mb, (size_t)(la < lb ? la : lb));
	if (c || la != lb)
		return c ? c < 0 : la < lb;
	return a->line < b->line;
}

/* Keep the list sorted by module, and a module's tests in the order of its file, so
 * that the order does not follow the link's or the constructors'. */
void unit_register(struct unit_test *t)
{
	struct unit_test **p = &tests;

	while (*p && before(*p, t))
		p = &(*p)->next;
	t->next = *p;
	*p = t;
}

bool unit_qemu_user(void)
{
	const char *e = getenv("HUGEPAR_UNIT_QEMU_USER");
	int on = 0;

	if (!e || strcmp(e, "1"))
		return false;
	if (prctl(PR_GET_CHILD_SUBREAPER, &on) == 0 || errno != EINVAL) {
		unit_failed++;
		fprintf(stderr, "FAIL HUGEPAR_UNIT_QEMU_USER=1, but this is a kernel's "
				"PR_GET_CHILD_SUBREAPER\n");
		return false;
	}
	return true;
}

bool unit_skip(void)
{
	unit_skipped++;
	return true;
}

const char *unit_errtext(const char *prefix, int e)
{
	static char buf[4][256];
	static unsigned next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "%s%s", prefix, strerror(e));
	return b;
}

/* "plan/planner.rounding" for the test rounding of test/unit/plan/planner.c */
static void test_name(char *buf, size_t len, const struct unit_test *t)
{
	int n;
	const char *m = module_of(t, &n);

	snprintf(buf, len, "%.*s.%s", n, m, t->name);
}

static bool wanted(char **patterns, size_t npatterns, const struct unit_test *t,
		   const char *full)
{
	char module[64];
	int n;
	const char *m = module_of(t, &n);

	if (!npatterns)
		return true;
	snprintf(module, sizeof(module), "%.*s", n, m);
	for (size_t i = 0; i < npatterns; i++)
		if (fnmatch(patterns[i], module, 0) == 0 ||
		    fnmatch(patterns[i], full, 0) == 0)
			return true;
	return false;
}

/* Run one test in a child; its counts are added to this process's. */
static void run(const char *name, const struct unit_test *t)
{
	unsigned counts[3] = {0, 0, 0};
	int fds[2], status, limit = UNIT_TIME_LIMIT_S;
	time_t started = time(NULL);
	bool timed_out = false;
	ssize_t n = 0;
	pid_t pid;

	fflush(stderr);
	if (pipe(fds) || (pid = fork()) < 0) {
		fprintf(stderr, "FAIL %s: cannot start: %s\n", name, strerror(errno));
		unit_failed++;
		return;
	}
	if (pid == 0) {
		close(fds[0]);
		unit_passed = unit_failed = unit_skipped = 0; /* this test's own */
		t->fn();
		counts[0] = unit_passed, counts[1] = unit_failed,
		counts[2] = unit_skipped;
		fflush(stderr);
		_exit(write(fds[1], counts, sizeof(counts)) == sizeof(counts) ? 0 : 1);
	}
	close(fds[1]);
	/* The time limit is kept here, not by an alarm in the child: the code under
	 * test arms and disarms the same timer (the engine's deadline). */
	while (n < (ssize_t)sizeof(counts)) {
		struct pollfd pf = {.fd = fds[0], .events = POLLIN};
		int left = (int)(limit - (time(NULL) - started)) * 1000;
		ssize_t r;

		if (left <= 0 || poll(&pf, 1, left) == 0) {
			kill(pid, SIGKILL);
			timed_out = true;
			break;
		}
		r = read(fds[0], (char *)counts + n, sizeof(counts) - (size_t)n);
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
		unit_skipped += counts[2];
		return;
	}
	unit_failed++;
	if (timed_out)
		fprintf(stderr, "FAIL %s: past its time limit of %d s\n", name, limit);
	else if (WIFSIGNALED(status))
		fprintf(stderr, "FAIL %s: %s\n", name, strsignal(WTERMSIG(status)));
	else
		fprintf(stderr, "FAIL %s: ended without its counts (exit %d)\n", name,
			WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int main(int argc, char **argv)
{
	char *patterns[64], *cases = NULL, *save = NULL, name[128];
	size_t npatterns = 0;
	const char *list_file = getenv("HUGEPAR_LIST");
	FILE *list = NULL;
	unsigned ran = 0;

	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		list = stdout;
	} else if (argc > 1) {
		for (int i = 1; i < argc && npatterns < 64; i++)
			patterns[npatterns++] = argv[i];
	} else if (list_file && *list_file) {
		list = fopen(list_file, "a");
		if (!list) {
			fprintf(stderr, "unit: %s: %s\n", list_file, strerror(errno));
			return 2;
		}
	} else if (getenv("HUGEPAR_CASES") && *getenv("HUGEPAR_CASES")) {
		cases = strdup(getenv("HUGEPAR_CASES"));
		for (char *p = strtok_r(cases, " \t", &save); p && npatterns < 64;
		     p = strtok_r(NULL, " \t", &save))
			patterns[npatterns++] = p;
	}
	for (const struct unit_test *t = tests; t; t = t->next) {
		test_name(name, sizeof(name), t);
		if (list) {
			fprintf(list, "%s\t%s\n", name, t->description);
		} else if (wanted(patterns, npatterns, t, name)) {
			run(name, t);
			ran++;
		}
	}
	free(cases);
	if (list) {
		if (list != stdout)
			fclose(list);
		if (list_file && list != stdout)
			printf("unit: 0 passed, 0 failed\n");
		return 0;
	}
	if (!ran) {
		fprintf(stderr, "unit: no test named so (unit --list names them)\n");
		return 2;
	}
	if (unit_skipped)
		printf("unit: %u passed, %u failed, %u skipped\n", unit_passed,
		       unit_failed, unit_skipped);
	else
		printf("unit: %u passed, %u failed\n", unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}
