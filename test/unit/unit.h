/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit.h - the unit tests' check and their lists, a list per module of the binary
 * (test/unit/NAME.c tests src/.../NAME.c or lib/NAME.c). test/unit/main.c runs each
 * test in a forked child under a time limit, so that a crash or a hang is that
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

struct unit_test {
	const char *name;
	void (*fn)(void);
};

/* A module's tests: test/unit/NAME.c ends with UNIT_MODULE(NAME, its list), and the
 * runner finds it (a constructor adds it to the runner's list before main()). */
struct unit_module {
	const char *name;
	const struct unit_test *tests; /* ends with {NULL, NULL} */
	struct unit_module *next;
};

void unit_register(struct unit_module *m);

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

#define UNIT_MODULE(mod, list)                                                           \
	static struct unit_module unit_module_##mod = {#mod, list, NULL};                \
	__attribute__((constructor)) static void unit_register_##mod(void)               \
	{                                                                                \
		unit_register(&unit_module_##mod);                                       \
	}

#endif
