/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fault.h - the test build's fault seam (make hugepar-test; absent from hugepar).
 *
 * HUGEPAR_FAULT is a comma-separated list of POINT[:N][=ACTION] items and flags.
 * POINT is a call to the kernel (reserve, bind, overcommit, write-node, write-global,
 * read-node, read-global; "write" and "read" match both of theirs) or a phase of a
 * run (start, lock, topology, probe, estimate, raise, spawn, collect, commit,
 * restore, release, reconcile, record, done). N fires on the Nth time this process
 * reaches it (default: every time).
 * ACTION is an errno name (EIO, ENOMEM, EINVAL, EINTR, EBUSY) to fail the call with,
 * kill (SIGKILL this process), term (SIGTERM to the main process), killmain (SIGKILL
 * to it), delay:MS (sleep, cut short by a signal, then go on) or hang:MS (sleep
 * through signals: a process stuck in the kernel). Without one a call
 * fails with its usual error (reserve ENOMEM, overcommit EINVAL, others EIO) and a
 * phase does nothing. The flag "misplace" runs every worker on the next node,
 * "parallel" makes apply take the parallel path (as --method=parallel), "trace" prints
 * each phase reached (and start, topology, done) with the monotonic clock in
 * microseconds on standard error.
 * Without HUGEPAR_FAULT, hugepar.fault=SPEC on the kernel command line is read (for
 * boot tests, where the initramfs sets the environment).
 */
#ifndef HUGEPAR_FAULT_H
#define HUGEPAR_FAULT_H

#include <stdbool.h>
#include <sys/types.h>

#ifdef HUGEPAR_TESTING
/* The process that "term" and "killmain" aim at. */
void fault_init(pid_t main_pid);
/* Returns 0, or the -errno the point must fail with. */
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
