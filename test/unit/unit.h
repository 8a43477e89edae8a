/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit.h - the unit tests' check and their declaration, a file per module of the
 * binary, by its path: test/unit/kernel/path.c tests src/kernel/path.c, test/unit/lib/
 * json.c lib/json.c, test/unit/sim/ the simulated kernel. test/unit/unit.c runs
 * each test in a forked child under a time limit, so that a crash or a hang is that
 * test's failure and the others still run.
 */
#ifndef HUGEPAR_UNIT_H
#define HUGEPAR_UNIT_H

#include <stdio.h>

#include <stdbool.h>

/* The checks passed, failed and skipped in this process (a test's child). */
extern unsigned unit_passed, unit_failed, unit_skipped;

#define CHECK(cond)                                                                      \
	do {                                                                             \
		if (cond) {                                                              \
			unit_passed++;                                                   \
		} else {                                                                 \
			unit_failed++;                                                   \
			fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);  \
		}                                                                        \
	} while (0)

/* A test, declared by UNIT_TEST: its module is its file's path under test/unit/
 * (test/unit/plan/planner.c: plan/planner), and the runner keeps a module's tests in the order of their lines. */
struct unit_test {
	const char *file, *name, *description;
	int line;
	void (*fn)(void);
	struct unit_test *next;
};

void unit_register(struct unit_test *t);

/* PREFIX followed by the C library's text for the error E ("...: I/O error" with
 * musl, "...: Input/output error" with glibc): what the binary writes, from the
 * library the tests are built with. Four buffers in turn. */
const char *unit_errtext(const char *prefix, int e);

/* Whether the tests run under qemu-user (HUGEPAR_UNIT_QEMU_USER=1, test/arm64-user.sh),
 * checked: qemu-user 7.2 refuses prctl(PR_SET_CHILD_SUBREAPER) with EINVAL, which no
 * kernel since 3.4 does; said where it is not so, and a failure. Two things differ
 * there: no process is a subreaper (the checks that need one are skipped, counted by
 * unit_skip()), and a signal whose default action kills is acted on by the emulator
 * in the process, later than by a kernel: a SIGKILL sent just after can overtake it. */
bool unit_qemu_user(void);
/* Count a skipped check; true, for CHECK(... || unit_skip()). */
bool unit_skip(void);

/*
 * UNIT_TEST(NAME, "DESCRIPTION") { ... }: the test MODULE.NAME ("plan.rounding" in
 * test/unit/plan/planner.c), declared once with a one-line description, as kmod's
 * DEFINE_TEST. It defines the test's function and registers it (a constructor adds
 * it to the runner's list before main()). test/unit/list.sh reads the same lines from
 * the sources, so the name and its description stay on the line of UNIT_TEST( or the
 * next, a plain string.
 */
#define UNIT_TEST(name_, desc)                                                           \
	static void test_##name_(void);                                                  \
	static struct unit_test unit_test_##name_ = {.file = __FILE__,                   \
						     .name = #name_,                     \
						     .description = desc,                \
						     .line = __LINE__,                   \
						     .fn = test_##name_};                \
	__attribute__((constructor)) static void unit_register_##name_(void)             \
	{                                                                                \
		unit_register(&unit_test_##name_);                                       \
	}                                                                                \
	static void test_##name_(void)

#endif
