/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * waiter.h - what a background `hugepar apply` publishes in its record directory
 * (its pid, its deadline, its exit status) and `hugepar wait`, which waits on that,
 * so that boot hooks need no arithmetic of their own.
 */
#ifndef HUGEPAR_WAITER_H
#define HUGEPAR_WAITER_H

#include <stdbool.h>
#include <stdint.h>

#define HP_PUB_PID "pid"
/* When that process started (field 22 of /proc/PID/stat): written before pid, so
 * that wait can tell the run from a process given its pid later. */
#define HP_PUB_START	"pid-start"
#define HP_PUB_DEADLINE "deadline" /* CLOCK_BOOTTIME milliseconds */
#define HP_PUB_EXIT	"exit"

/* A run past its deadline gets this long before SIGTERM, and as long again before
 * SIGKILL. */
#define HP_WAIT_GRACE_MS 10000

/* Write one number to dir/name atomically. */
int waiter_publish(const char *dir, const char *name, uint64_t value);
int waiter_published(const char *dir, const char *name, uint64_t *value);
/* Remove what an earlier run published (at the start of a run). */
void waiter_clear(const char *dir);

struct wait_result {
	bool started;  /* a run was there to wait for */
	bool stopped;  /* it had to be stopped (SIGTERM, then SIGKILL) */
	bool killed;   /* SIGKILL was needed */
	bool exited;   /* it published its exit status */
	bool foreign;  /* the pid was not shown to be the run's: nothing was signalled */
	char why[192]; /* when foreign: why */
	uint64_t pid;
	uint64_t exit_code;
	uint64_t waited_ms;
};

/* Wait for the run that published in dir, at most until its deadline (or
 * fallback_deadline_boot_ms when it published none) plus the grace. Only a process
 * whose start time (read under the path layer's root) is the one published with its
 * pid is signalled; never pid 1. */
int waiter_wait_run(const char *dir, uint64_t fallback_deadline_boot_ms,
		    struct wait_result *w);

#endif
