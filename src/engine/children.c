/* SPDX-License-Identifier: GPL-2.0-or-later */
/* children.c - child processes: fork, collect one report each, stop, release, reap. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "children.h"
#include "clock.h"
#include "macros.h"
#include "stop.h"
#include "sys.h"

int children_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

int children_report(int fd, const void *buf, size_t len)
{
	int rc = children_write_all(fd, buf, len);

	clock_wake(getppid());
	return rc;
}

void children_hold(int ctl)
{
	struct pollfd pf = {.fd = ctl, .events = POLLIN};
	char c;

	for (;;) {
		if (clock_poll(&pf, 1, -1) < 0 && errno != EINTR)
			return;
		if (pf.revents && (read(ctl, &c, 1) >= 0 || errno != EINTR))
			return;
	}
}

/* Close fds lo..hi: one close_range(2) (Linux 5.9), else one close a number. */
static void close_run(int lo, int hi)
{
#ifdef SYS_close_range
	if (!syscall(SYS_close_range, (unsigned)lo, (unsigned)hi, 0))
		return;
#endif
	for (int fd = lo; fd <= hi; fd++)
		close(fd);
}

/* In a new child: close the pipes of the children forked before it (a sibling's
 * control pipe left open here would never see its coordinator close it). A
 * coordinator of thousands of workers holds two pipes of each, mostly in runs of
 * adjacent numbers: each run is closed at once, not a system call a number. */
static void close_siblings(const struct children *cs)
{
	unsigned char *open_here;
	int top = -1;

	for (unsigned i = 0; i < cs->n; i++)
		top = MAX(top, MAX(cs->c[i].rfd, cs->c[i].ctl));
	if (top < 0)
		return;
	open_here = calloc((size_t)top + 1, 1);
	for (unsigned i = 0; i < cs->n; i++) {
		int fds[2] = {cs->c[i].rfd, cs->c[i].ctl};

		for (unsigned k = 0; k < 2; k++) {
			if (fds[k] < 0)
				continue;
			if (open_here)
				open_here[fds[k]] = 1;
			else /* no memory for the map: one at a time */
				close_run(fds[k], fds[k]);
		}
	}
	for (int fd = 0; open_here && fd <= top; fd++) {
		int end = fd;

		if (!open_here[fd])
			continue;
		while (end < top && open_here[end + 1])
			end++;
		close_run(fd, end);
		fd = end;
	}
	free(open_here);
}

int children_spawn(struct children *cs, const struct spawn *sp, child_fn fn, void *arg)
{
	int rp[2], cp[2] = {-1, -1};
	pid_t pid;
	struct child *c;

	if (cs->n == cs->cap) {
		unsigned cap = cs->cap ? cs->cap * 2 : 16;
		struct child *nc = realloc(cs->c, cap * sizeof(*nc));

		if (!nc)
			return -ENOMEM;
		cs->c = nc;
		cs->cap = cap;
	}
	if (pipe2(rp, O_CLOEXEC))
		return -errno;
	if (sp->hold && pipe2(cp, O_CLOEXEC)) {
		close(rp[0]);
		close(rp[1]);
		return -errno;
	}
	fflush(NULL);
	pid = clock_fork(sp->pdeathsig);
	if (pid == 0) {
		close_siblings(cs);
		close(rp[0]);
		if (cp[1] >= 0)
			close(cp[1]);
		fn(arg, rp[1], cp[0]);
		clock_exit(0);
	}
	close(rp[1]);
	if (cp[0] >= 0)
		close(cp[0]);
	if (pid < 0) {
		int rc = -errno;

		close(rp[0]);
		if (cp[1] >= 0)
			close(cp[1]);
		return rc;
	}
	c = &cs->c[cs->n];
	memset(c, 0, sizeof(*c));
	c->pid = pid;
	c->rfd = rp[0];
	c->ctl = cp[1];
	c->tag = sp->tag;
	c->report = sp->report;
	c->want = sp->len;
	return cs->n++;
}

static void reap(struct child *c)
{
	while (!c->gone) {
		if (clock_waitpid(c->pid, &c->status, 0) == c->pid || errno != EINTR)
			c->gone = true;
	}
}

static void signal_working(struct children *cs, int sig)
{
	for (unsigned i = 0; i < cs->n; i++)
		if (!cs->c[i].reported && !cs->c[i].gone)
			clock_kill(cs->c[i].pid, sig);
}

void children_collect(struct children *cs, const struct collect_policy *p)
{
	struct pollfd *pf = NULL;
	unsigned cap = 0;
	uint64_t next_tick = clock_now_ms() + p->tick_ms;
	bool ticking = p->tick != NULL;

	for (;;) {
		uint64_t now = clock_now_ms(), next = now + 1000;
		unsigned working = 0;

		if (ticking && now >= next_tick && !cs->told) {
			ticking = p->tick(p->tick_arg);
			next_tick = clock_now_ms() + p->tick_ms;
		}
		if (!cs->told && (stop_requested() || now >= p->tell_at)) {
			signal_working(cs, p->sig);
			cs->told = true;
			cs->told_at = now;
		}
		if (cs->told && !cs->killed && now >= cs->told_at + p->kill_after) {
			signal_working(cs, SIGKILL);
			cs->killed = true;
		}
		next = MIN(next, cs->told ? cs->told_at + p->kill_after : p->tell_at);
		if (ticking && !cs->told)
			next = MIN(next, next_tick);
		if (cap < cs->n) { /* a tick may have added children */
			struct pollfd *np = realloc(pf, cs->n * sizeof(*pf));

			if (!np)
				break;
			pf = np;
			cap = cs->n;
		}
		for (unsigned i = 0; i < cs->n; i++) {
			struct child *c = &cs->c[i];

			pf[i].fd = c->reported || c->gone ? -1 : c->rfd;
			pf[i].events = POLLIN;
			pf[i].revents = 0;
			working += pf[i].fd >= 0;
		}
		if (!working)
			break;
		if (clock_poll(pf, cs->n, next > now ? (int)MIN(next - now, 1000) : 0) < 0 &&
		    errno != EINTR)
			break;
		for (unsigned i = 0; i < cs->n; i++) {
			struct child *c = &cs->c[i];
			ssize_t n;

			if (pf[i].fd < 0 ||
			    !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(c->rfd, (char *)c->report + c->got, c->want - c->got);
			if (n < 0 && errno == EINTR)
				continue;
			if (n > 0) {
				c->got += n;
				c->reported = c->got == c->want;
				continue;
			}
			/* It ended before its report was whole: what it held died with it
			 * (reap now, so the kernel's accounting of it is done too). */
			reap(c);
		}
	}
	free(pf);
}

void children_let_go(struct children *cs)
{
	for (unsigned i = 0; i < cs->n; i++) {
		if (cs->c[i].ctl < 0)
			continue;
		close(cs->c[i].ctl);
		cs->c[i].ctl = -1;
		clock_wake(cs->c[i].pid);
	}
}

void children_release(struct children *cs)
{
	children_let_go(cs);
	for (unsigned i = 0; i < cs->n; i++) {
		close(cs->c[i].rfd);
		cs->c[i].rfd = -1;
		reap(&cs->c[i]);
	}
}

void children_free(struct children *cs)
{
	free(cs->c);
	memset(cs, 0, sizeof(*cs));
}

static const char *signame(int sig)
{
	switch (sig) {
	case SIGKILL:
		return "SIGKILL";
	case SIGTERM:
		return "SIGTERM";
	case SIGSEGV:
		return "SIGSEGV";
	case SIGABRT:
		return "SIGABRT";
	case SIGBUS:
		return "SIGBUS";
	case SIGUSR1:
		return "SIGUSR1";
	}
	return NULL;
}

void children_describe(const struct child *c, char *buf, size_t len)
{
	if (c->reported)
		snprintf(buf, len, "reported");
	else if (!c->gone)
		snprintf(buf, len, "still running");
	else if (WIFSIGNALED(c->status) && signame(WTERMSIG(c->status)))
		snprintf(buf, len, "killed by %s", signame(WTERMSIG(c->status)));
	else if (WIFSIGNALED(c->status))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(c->status));
	else
		snprintf(buf, len, "exited with %d without a report",
			 WEXITSTATUS(c->status));
}
