/* SPDX-License-Identifier: GPL-2.0-or-later */
/* waiter.c - unit tests: the published pid, deadline and exit files; hugepar wait. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "file.h"
#include "path.h"
#include "waiter.h"
#include "unit.h"

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(p);
}

static void rm_rf(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void put(const char *dir, const char *name, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int file_is(const char *dir, const char *name, const char *want)
{
	char p[256], *text;
	const char *kind;
	size_t len;
	int ok;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (file_read_regular(p, 4096, &text, &len, &kind))
		return 0;
	ok = strcmp(text, want) == 0;
	free(text);
	return ok;
}

UNIT_TEST(files, "a run's published pid, deadline and exit: atomic, links not followed")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", p[256];
	uint64_t v = 7;
	struct stat st;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	CHECK(waiter_publish(dir, HP_PUB_PID, 1234) == 0);
	CHECK(waiter_publish(dir, HP_PUB_DEADLINE, UINT64_C(18446744073709551615)) == 0);
	CHECK(waiter_publish(dir, HP_PUB_EXIT, 0) == 0);
	CHECK(file_is(dir, "pid", "1234\n"));
	CHECK(file_is(dir, "deadline", "18446744073709551615\n"));
	CHECK(file_is(dir, "exit", "0\n"));
	snprintf(p, sizeof(p), "%s/pid", dir);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0644);
	snprintf(p, sizeof(p), "%s/.pid.new", dir);
	CHECK(access(p, F_OK) == -1 && errno == ENOENT); /* the temp file is gone */
	CHECK(waiter_published(dir, HP_PUB_PID, &v) == 0 && v == 1234);
	CHECK(waiter_published(dir, HP_PUB_DEADLINE, &v) == 0 && v == UINT64_MAX);
	CHECK(waiter_published(dir, HP_PUB_EXIT, &v) == 0 && v == 0);

	/* a new run clears what the last one published, but for the pid */
	waiter_clear(dir);
	CHECK(waiter_published(dir, HP_PUB_DEADLINE, &v) == -ENOENT);
	CHECK(waiter_published(dir, HP_PUB_EXIT, &v) == -ENOENT);
	CHECK(waiter_published(dir, HP_PUB_PID, &v) == 0 && v == 1234);
	waiter_clear(dir); /* nothing to clear: no harm */

	/* what a reader may find */
	put(dir, "exit", " 64 \n");
	CHECK(waiter_published(dir, HP_PUB_EXIT, &v) == 0 && v == 64);
	put(dir, "exit", "");
	CHECK(waiter_published(dir, HP_PUB_EXIT, &v) == -EINVAL);
	put(dir, "exit", "6x\n");
	CHECK(waiter_published(dir, HP_PUB_EXIT, &v) < 0);
	put(dir, "exit", "-1\n");
	CHECK(waiter_published(dir, HP_PUB_EXIT, &v) < 0);
	put(dir, "exit", "18446744073709551616\n");
	CHECK(waiter_published(dir, HP_PUB_EXIT, &v) < 0);
	snprintf(p, sizeof(p), "%s/exit", dir);
	unlink(p);
	CHECK(mkfifo(p, 0644) == 0); /* no writer: read at once, not waited on */
	CHECK(waiter_published(dir, HP_PUB_EXIT, &v) == -EINVAL);
	unlink(p);
	put(dir, "elsewhere", "5\n");
	CHECK(symlink("elsewhere", p) == 0); /* not followed */
	CHECK(waiter_published(dir, HP_PUB_EXIT, &v) == -ELOOP);
	/* published over the link: the link is replaced, its target kept */
	CHECK(waiter_publish(dir, HP_PUB_EXIT, 1) == 0);
	CHECK(lstat(p, &st) == 0 && S_ISREG(st.st_mode) && file_is(dir, "exit", "1\n"));
	CHECK(file_is(dir, "elsewhere", "5\n"));
	/* a link at the temp file's name is not written through */
	snprintf(p, sizeof(p), "%s/.exit.new", dir);
	CHECK(symlink("elsewhere", p) == 0);
	CHECK(waiter_publish(dir, HP_PUB_EXIT, 2) == -ELOOP);
	CHECK(file_is(dir, "elsewhere", "5\n") && file_is(dir, "exit", "1\n"));
	rm_rf(dir);
}

/* A child that publishes its exit status (or not) and ends, or waits for a signal. */
static pid_t run(const char *dir, int publish, bool linger)
{
	pid_t pid = fork();
	uint64_t start;

	if (pid == 0) {
		signal(SIGTERM, SIG_DFL);
		if (publish >= 0)
			waiter_publish(dir, HP_PUB_EXIT, (uint64_t)publish);
		if (linger)
			for (;;)
				pause();
		_exit(0);
	}
	if (pid > 0 && path_read_start(pid, &start) == 0)
		waiter_publish(dir, HP_PUB_START, start);
	if (pid > 0)
		waiter_publish(dir, HP_PUB_PID, (uint64_t)pid);
	return pid;
}

UNIT_TEST(wait, "waiting for a run: none, its exit, no exit, past its deadline")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX";
	struct wait_result w;
	int status;
	pid_t pid;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	/* nothing published: nothing to wait for */
	CHECK(waiter_wait_run(dir, 0, &w) == 0 && !w.started);
	CHECK(waiter_publish(dir, HP_PUB_PID, 0) == 0);
	CHECK(waiter_wait_run(dir, 0, &w) == 0 && !w.started);

	/* a run that publishes its exit status (and stays, so that this does not
	 * depend on the order waiter_wait_run() looks in) */
	pid = run(dir, 64, true);
	CHECK(waiter_wait_run(dir, UINT64_MAX / 2, &w) == 0);
	CHECK(w.started && w.exited && w.exit_code == 64 && !w.stopped && !w.killed);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	waiter_clear(dir);

	/* a run that ends without one */
	pid = run(dir, -1, false);
	CHECK(waiter_wait_run(dir, UINT64_MAX / 2, &w) == 0);
	CHECK(w.started && !w.exited && !w.stopped && !w.killed);
	waitpid(pid, &status, 0);

	/* a run past its deadline and the grace (published: 0) gets SIGTERM */
	pid = run(dir, -1, true);
	CHECK(waiter_publish(dir, HP_PUB_DEADLINE, 0) == 0);
	CHECK(waiter_wait_run(dir, UINT64_MAX / 2, &w) == 0);
	CHECK(w.started && w.stopped && !w.killed && !w.exited);
	CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
	      WTERMSIG(status) == SIGTERM);

	/* none published: the caller's fallback deadline stands in */
	waiter_clear(dir);
	pid = run(dir, -1, true);
	CHECK(waiter_wait_run(dir, 0, &w) == 0);
	CHECK(w.started && w.stopped && !w.killed);
	CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
	      WTERMSIG(status) == SIGTERM);
	rm_rf(dir);
}

/* past its deadline, but not shown to be the run: never signalled */
static void foreign(const char *dir, pid_t pid, const char *start, const char *why)
{
	struct wait_result w;
	int status;

	waiter_clear(dir);
	if (start)
		put(dir, HP_PUB_START, start);
	CHECK(waiter_publish(dir, HP_PUB_DEADLINE, 0) == 0);
	CHECK(waiter_wait_run(dir, 0, &w) == 0);
	CHECK(w.started && w.foreign && !w.stopped && !w.killed && !w.exited);
	CHECK(strstr(w.why, why) != NULL);
	if (pid > 1) {
		CHECK(waitpid(pid, &status, WNOHANG) == 0); /* still there */
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
}

/* A pid that names another process (reused, or written by someone else) or pid 1
 * is not signalled, whatever the deadline says. */
UNIT_TEST(
    foreign,
    "a pid of another process (reused, or written by another) or pid 1 is never signalled")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", ticks[32];
	uint64_t start;
	pid_t pid;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	pid = run(dir, -1, true);
	CHECK(path_read_start(pid, &start) == 0);
	snprintf(ticks, sizeof(ticks), "%llu\n", (unsigned long long)start + 1);
	foreign(dir, pid, ticks, "is another process now");
	pid = run(dir, -1, true);
	foreign(dir, pid, NULL, "published without its start time");
	CHECK(waiter_publish(dir, HP_PUB_PID, 1) == 0);
	foreign(dir, 1, "1\n", "pid 1 names no run of hugepar");
	rm_rf(dir);
}
