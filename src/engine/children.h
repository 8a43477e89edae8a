/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * children.h - child processes: fork them, collect one report from each, stop them at a
 * deadline, let them go, and say how those that gave no report ended. Used for the
 * workers and for the coordinators of page sizes alike.
 */
#ifndef HUGEPAR_CHILDREN_H
#define HUGEPAR_CHILDREN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct child {
	pid_t pid;
	int rfd;      /* its report */
	int ctl;      /* closed to let a holding child go; -1 for the others */
	unsigned tag; /* the caller's */
	void *report; /* where its report lands */
	size_t want, got;
	int status;    /* waitpid() status once it is gone */
	bool reported; /* the whole report came */
	bool gone;     /* it ended and was reaped */
};

struct children {
	struct child *c;
	unsigned n, cap;
	bool told, killed;
	uint64_t told_at;
};

/* A child's body: write one report of its size to report_fd; a holding child then
 * reads release_fd until EOF before it exits. Never returns. */
typedef void (*child_fn)(void *arg, int report_fd, int release_fd);

struct spawn {
	unsigned tag;
	void *report;
	size_t len;
	bool hold;     /* waits after its report until children_release() */
	int pdeathsig; /* what it gets when this process dies */
};

/* Returns the child's index, or -errno. */
int children_spawn(struct children *cs, const struct spawn *sp, child_fn fn, void *arg);

struct collect_policy {
	uint64_t tell_at;    /* monotonic ms: send 'sig' to children still at work... */
	int sig;	     /* (a stop request sends it at once) */
	uint64_t kill_after; /* ...and SIGKILL this many ms later */
	/* Called every tick_ms while children are at work (it may spawn more), until
	 * it returns false. */
	bool (*tick)(void *arg);
	void *tick_arg;
	unsigned tick_ms;
};

/* Until every child has reported or ended. */
void children_collect(struct children *cs, const struct collect_policy *p);
/* Tell holding children to exit, without waiting for them. */
void children_let_go(struct children *cs);
/* Let holding children go, and reap every child. */
void children_release(struct children *cs);
void children_free(struct children *cs);

/* How a child ended that gave no report: "killed by SIGKILL", "exited with 1". */
void children_describe(const struct child *c, char *buf, size_t len);

/* Whole transfers over pipes. */
int children_write_all(int fd, const void *buf, size_t len);
/* A child's report to its parent: written whole, and the parent woken. */
int children_report(int fd, const void *buf, size_t len);
/* A holding child: wait until release_fd is closed. */
void children_hold(int release_fd);

#endif
