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

/* The checks passed and failed in this process (a test's child). */
extern unsigned unit_passed, unit_failed;

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

#define UNIT_MODULE(mod, list)                                                           \
	static struct unit_module unit_module_##mod = {#mod, list, NULL};                \
	__attribute__((constructor)) static void unit_register_##mod(void)               \
	{                                                                                \
		unit_register(&unit_module_##mod);                                       \
	}

#endif
