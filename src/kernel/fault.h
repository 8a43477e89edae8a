/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fault.h - the test build's fault seam (make hugepar-test; absent from hugepar):
 * HUGEPAR_FAULT's calls that fail and phases that stop (doc/simulator.md "Faults"). */
#ifndef HUGEPAR_FAULT_H
#define HUGEPAR_FAULT_H

#include <stdbool.h>
#include <sys/types.h>

#ifdef HUGEPAR_TESTING
/* The process that "term" and "killmain" aim at. */
void fault_init(pid_t main_pid);
/* Returns 0, or the -errno the point must fail with. HUGEPAR_FAULT, or without it
 * hugepar.fault= on the kernel command line (boot tests, where the initramfs sets
 * the environment), says which points fail, the Nth time or every time, and how. */
int fault_at(const char *point);
bool fault_flag(const char *name);
#else
static inline void fault_init(pid_t main_pid)
{
	(void)main_pid;
}

static inline int fault_at(const char *point)
{
	(void)point;
	return 0;
}

static inline bool fault_flag(const char *name)
{
	(void)name;
	return false;
}
#endif

#endif
