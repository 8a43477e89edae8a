/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * children.c - unit tests: child processes: their reports, those that crash, exit
 * early or hold on, the stop at a deadline or on request and the SIGKILL after it,
 * children added while at work, a parent's death, and running out of descriptors.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "children.h"
#include "stop.h"
#include "unit.h"

struct report {
	uint32_t tag;
	uint32_t value;
};

/* What a child does: its arg. */
struct act {
	enum {
		REPORT,
		HALF,
		EXIT3,
		SEGV,
		ABORT,
		USR2,
		HOLD,
		IGNORE_TERM,
		WAIT,
		FDS
	} what;
	uint32_t value;
	int ready; /* a pipe's end: written once it is ready to be signalled, or -1 */
};

/* FDS: the children before it, and a descriptor of the parent's to keep */
static const struct children *fds_cs;
static int fds_keep = -1;

/* FDS: which of its siblings' pipes this child still has (bit 0: the descriptor to
 * keep is gone; bit 1: a sibling's report pipe is open; bit 2: a control pipe). */
static uint32_t fds_left(void)
{
	uint32_t v = fcntl(fds_keep, F_GETFD) < 0;

	for (unsigned i = 0; i < fds_cs->n; i++) {
		if (fcntl(fds_cs->c[i].rfd, F_GETFD) >= 0)
			v |= 2;
		if (fds_cs->c[i].ctl >= 0 && fcntl(fds_cs->c[i].ctl, F_GETFD) >= 0)
			v |= 4;
	}
	return v;
}

static void ready(const struct act *a)
{
	if (a->ready >= 0 && children_write_all(a->ready, "r", 1))
		_exit(1);
}

static void body(void *arg, int report_fd, int release_fd)
{
	const struct act *a = arg;
	struct report r = {a->value, a->value * 3};
	char c;

	switch (a->what) {
	case REPORT:
		children_write_all(report_fd, &r, sizeof(r));
		break;
	case HALF:
		children_write_all(report_fd, &r, sizeof(r) / 2);
		break;
	case EXIT3:
		_exit(3);
	case SEGV: /* as a crash would, with no sanitizer's handler in the way */
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		break;
	case ABORT:
		signal(SIGABRT, SIG_DFL);
		abort();
	case USR2:
		raise(SIGUSR2);
		break;
	case HOLD: /* report, then hold on until let go */
		children_write_all(report_fd, &r, sizeof(r));
		while (read(release_fd, &c, 1) != 0)
			;
		_exit(7);
	case FDS:
		r.value = fds_left();
		children_write_all(report_fd, &r, sizeof(r));
		break;
	case IGNORE_TERM:
		signal(SIGTERM, SIG_IGN);
		/* fall through */
	case WAIT:
		signal(SIGUSR1, SIG_DFL);
		ready(a);
		for (;;)
			pause();
	}
	_exit(0);
}

static const struct collect_policy patient = {
    .tell_at = UINT64_MAX, .sig = SIGTERM, .kill_after = 60000};

static int spawn(struct children *cs, struct act *a, struct report *r, bool hold)
{
	struct spawn sp = {.tag = a->value,
			   .report = r,
			   .len = sizeof(*r),
			   .hold = hold,
			   .pdeathsig = SIGKILL};

	return children_spawn(cs, &sp, body, a);
}

static bool described(const struct child *c, const char *want)
{
	char buf[64];

	children_describe(c, buf, sizeof(buf));
	if (strcmp(buf, want))
		fprintf(stderr, "  described \"%s\", not \"%s\"\n", buf, want);
	return strcmp(buf, want) == 0;
}

/* Reports that come whole, and the ways a child ends without one. */
UNIT_TEST(reports, "a whole report, and each way a child ends without one, described")
{
	struct children cs = {0};
	struct act acts[7] = {{REPORT, 5, -1}, {HALF, 6, -1},  {EXIT3, 7, -1},
			      {SEGV, 8, -1},   {ABORT, 9, -1}, {USR2, 10, -1},
			      {REPORT, 11, -1}};
	struct report reps[7] = {{0}};
	char want[64];

	for (unsigned i = 0; i < 7; i++)
		CHECK(spawn(&cs, &acts[i], &reps[i], false) == (int)i);
	children_collect(&cs, &patient);
	CHECK(cs.n == 7 && !cs.told && !cs.killed);
	CHECK(cs.c[0].reported && reps[0].tag == 5 && reps[0].value == 15 &&
	      cs.c[0].tag == 5 && cs.c[0].got == sizeof(struct report));
	CHECK(described(&cs.c[0], "reported"));
	CHECK(cs.c[6].reported && reps[6].value == 33 && cs.c[6].tag == 11);
	CHECK(!cs.c[1].reported && cs.c[1].gone &&
	      cs.c[1].got == sizeof(struct report) / 2);
	CHECK(described(&cs.c[1], "exited with 0 without a report"));
	CHECK(described(&cs.c[2], "exited with 3 without a report"));
	CHECK(described(&cs.c[3], "killed by SIGSEGV"));
	CHECK(described(&cs.c[4], "killed by SIGABRT"));
	snprintf(want, sizeof(want), "killed by signal %d", SIGUSR2);
	CHECK(described(&cs.c[5], want));
	children_release(&cs);
	for (unsigned i = 0; i < 7; i++)
		CHECK(cs.c[i].gone && cs.c[i].rfd == -1);
	CHECK(WIFEXITED(cs.c[0].status) && WEXITSTATUS(cs.c[0].status) == 0);
	children_free(&cs);
	CHECK(cs.n == 0 && cs.c == NULL && cs.cap == 0);
}

/* A holding child stays after its report until it is let go. */
UNIT_TEST(hold, "a holding child stays after its report until it is let go")
{
	struct children cs = {0};
	struct act a[2] = {{HOLD, 1, -1}, {HOLD, 2, -1}};
	struct report r[2];
	int status;

	CHECK(spawn(&cs, &a[0], &r[0], true) == 0);
	CHECK(spawn(&cs, &a[1], &r[1], true) == 1);
	CHECK(described(&cs.c[0], "still running"));
	children_collect(&cs, &patient);
	CHECK(cs.c[0].reported && cs.c[1].reported && r[1].value == 6);
	CHECK(waitpid(cs.c[0].pid, &status, WNOHANG) == 0); /* still holding */
	CHECK(waitpid(cs.c[1].pid, &status, WNOHANG) == 0);
	children_let_go(&cs);
	CHECK(cs.c[0].ctl == -1 && cs.c[1].ctl == -1);
	CHECK(waitpid(cs.c[0].pid, &status, 0) == cs.c[0].pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 7);
	cs.c[0].gone = true; /* reaped here */
	children_release(&cs);
	CHECK(cs.c[1].gone && WIFEXITED(cs.c[1].status) &&
	      WEXITSTATUS(cs.c[1].status) == 7);
	children_free(&cs);
}

/* Past tell_at, children at work get the signal; kill_after later, SIGKILL. */
UNIT_TEST(deadline, "past the deadline, SIGTERM to children at work, then SIGKILL")
{
	struct children cs = {0};
	int fds[2];
	struct act a[2];
	struct report r[2];
	struct collect_policy now = {.tell_at = 0, .sig = SIGTERM, .kill_after = 0};
	char c;

	CHECK(pipe(fds) == 0);
	a[0] = (struct act){WAIT, 1, fds[1]};
	a[1] = (struct act){IGNORE_TERM, 2, fds[1]};
	for (unsigned i = 0; i < 2; i++)
		CHECK(spawn(&cs, &a[i], &r[i], false) == (int)i);
	for (unsigned i = 0; i < 2; i++) /* both are ready for the signal */
		CHECK(read(fds[0], &c, 1) == 1);
	children_collect(&cs, &now);
	CHECK(cs.told && cs.killed);
	/* (under qemu-user the SIGKILL may overtake it: unit.h) */
	CHECK(described(&cs.c[0], unit_qemu_user() && WIFSIGNALED(cs.c[0].status) &&
					  WTERMSIG(cs.c[0].status) == SIGKILL
				      ? "killed by SIGKILL"
				      : "killed by SIGTERM"));
	CHECK(described(&cs.c[1], "killed by SIGKILL"));
	children_release(&cs);
	children_free(&cs);
	close(fds[0]);
	close(fds[1]);
}

/* A stop request sends the signal at once, whatever the deadline. */
UNIT_TEST(stop, "a stop request signals the children at once, whatever the deadline")
{
	struct children cs = {0};
	struct collect_policy p = {
	    .tell_at = UINT64_MAX, .sig = SIGUSR1, .kill_after = 60000};
	int fds[2];
	struct act a;
	struct report r;
	char c;

	CHECK(pipe(fds) == 0);
	a = (struct act){WAIT, 1, fds[1]};
	CHECK(spawn(&cs, &a, &r, false) == 0);
	CHECK(read(fds[0], &c, 1) == 1);
	stop_install();
	raise(SIGTERM);
	children_collect(&cs, &p);
	CHECK(cs.told && !cs.killed);
	CHECK(described(&cs.c[0], "killed by SIGUSR1"));
	children_release(&cs);
	children_free(&cs);
}

/* A tick may add children while the others work; more than the first room for them. */
struct ticks {
	struct children *cs;
	struct act act;
	struct report rep;
	unsigned calls;
};

static bool add_one(void *arg)
{
	struct ticks *t = arg;

	t->calls++;
	CHECK(spawn(t->cs, &t->act, &t->rep, false) >= 0);
	return false; /* no more ticks */
}

UNIT_TEST(many, "40 children at once, and one added by the tick while they run")
{
	struct children cs = {0};
	struct act a[40];
	struct report r[40];
	struct ticks t = {.cs = &cs, .act = {REPORT, 99, -1}};
	struct collect_policy p = patient;

	p.tick = add_one;
	p.tick_arg = &t;
	p.tick_ms = 0;
	for (unsigned i = 0; i < 40; i++) {
		a[i] = (struct act){REPORT, 100 + i, -1};
		CHECK(spawn(&cs, &a[i], &r[i], false) == (int)i);
	}
	children_collect(&cs, &p);
	CHECK(t.calls == 1 && cs.n == 41);
	for (unsigned i = 0; i < 40; i++)
		CHECK(cs.c[i].reported && cs.c[i].tag == 100 + i && r[i].tag == 100 + i &&
		      r[i].value == 3 * (100 + i));
	CHECK(cs.n == 41 && cs.c[40].reported && t.rep.value == 297);
	children_release(&cs);
	children_free(&cs);
}

/* A child dies with the process that made it (its pdeathsig). */
UNIT_TEST(orphan, "a child dies with the process that made it (its pdeathsig)")
{
	int fds[2], status;
	pid_t mid, kid = 0;

	if (unit_qemu_user() && unit_skip())
		return;
	CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0); /* orphans come back here */
	CHECK(pipe(fds) == 0);
	mid = fork();
	if (mid == 0) {
		struct children cs = {0};
		struct act a = {WAIT, 1, -1};
		struct report r;

		close(fds[0]);
		if (spawn(&cs, &a, &r, true) != 0 ||
		    children_write_all(fds[1], &cs.c[0].pid, sizeof(pid_t)))
			_exit(1);
		_exit(0); /* without letting it go */
	}
	close(fds[1]);
	CHECK(read(fds[0], &kid, sizeof(kid)) == sizeof(kid));
	CHECK(waitpid(mid, &status, 0) == mid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
	CHECK(kid > 0 && waitpid(kid, &status, 0) == kid && WIFSIGNALED(status) &&
	      WTERMSIG(status) == SIGKILL);
	close(fds[0]);
}

/* A child closes its siblings' pipes, and nothing else of its parent's. */
UNIT_TEST(sibling_fds,
	  "a child has none of its siblings' pipes, and its parent's other descriptors")
{
	struct children cs = {0};
	struct act a[6];
	struct report r[6];

	fds_cs = &cs;
	for (unsigned i = 0; i < 6; i++) {
		/* a descriptor of the parent's between the siblings' pipes */
		if (i == 3)
			CHECK((fds_keep = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0);
		a[i] = (struct act){i == 5 ? FDS : i % 2 ? REPORT : HOLD, 20 + i, -1};
		CHECK(spawn(&cs, &a[i], &r[i], i % 2 == 0 && i < 5) == (int)i);
	}
	children_collect(&cs, &patient);
	CHECK(cs.c[5].reported && r[5].tag == 25);
	CHECK(r[5].value == 0);
	children_let_go(&cs);
	children_release(&cs);
	for (unsigned i = 0; i < 5; i++)
		CHECK(cs.c[i].gone && WIFEXITED(cs.c[i].status) &&
		      WEXITSTATUS(cs.c[i].status) == (i % 2 == 0 ? 7 : 0));
	children_free(&cs);
	close(fds_keep);
}

/* Out of descriptors: -EMFILE, nothing added, nothing left open. */
UNIT_TEST(no_fds, "out of descriptors: -EMFILE, nothing added and nothing left open")
{
	struct children cs = {0};
	struct rlimit rl = {.rlim_cur = 32, .rlim_max = 32};
	struct act a = {REPORT, 1, -1};
	struct report r;
	int fds[32], n = 0, p[2];

	CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	while (n < 32 && (fds[n] = open("/dev/null", O_RDONLY)) >= 0)
		n++;
	CHECK(n > 2 && n < 32);
	close(fds[--n]); /* one left: not enough for a pipe */
	CHECK(spawn(&cs, &a, &r, false) == -EMFILE && cs.n == 0);
	close(fds[--n]); /* two: the report's pipe, not the holding one's */
	CHECK(spawn(&cs, &a, &r, true) == -EMFILE && cs.n == 0);
	CHECK(pipe(p) == 0); /* what it had opened was closed */
	close(p[0]);
	close(p[1]);
	CHECK(spawn(&cs, &a, &r, false) == 0 && cs.n == 1);
	children_collect(&cs, &patient);
	CHECK(cs.c[0].reported && r.value == 3);
	children_release(&cs);
	children_free(&cs);
	while (n > 0)
		close(fds[--n]);
}

UNIT_TEST(children_write_all,
	  "children_write_all writes more than a pipe holds whole, and returns -errno")
{
	char buf[100000], back[100000];
	int p[2];
	pid_t pid;
	size_t got = 0;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7);
	CHECK(pipe(p) == 0);
	pid = fork(); /* more than a pipe holds: a reader at the other end */
	if (pid == 0) {
		close(p[0]);
		_exit(children_write_all(p[1], buf, sizeof(buf)) ? 1 : 0);
	}
	close(p[1]);
	while (got < sizeof(back)) {
		ssize_t n = read(p[0], back + got, sizeof(back) - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	CHECK(got == sizeof(buf) && memcmp(buf, back, sizeof(buf)) == 0);
	close(p[0]);
	CHECK(waitpid(pid, NULL, 0) == pid);

	signal(SIGPIPE, SIG_IGN);
	CHECK(pipe(p) == 0);
	close(p[0]);
	CHECK(children_write_all(p[1], "x", 1) == -EPIPE);
	close(p[1]);
	CHECK(children_write_all(-1, "x", 1) == -EBADF);
	CHECK(children_write_all(-1, "x", 0) == 0);
}
