/* SPDX-License-Identifier: GPL-2.0-or-later */
/* waiter.c - a run's published pid, deadline and exit status; `hugepar wait`. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "text.h"
#include "file.h"
#include "macros.h"
#include "parse.h"
#include "path.h"
#include "sys.h"
#include "waiter.h"

int waiter_publish(const char *dir, const char *name, uint64_t value)
{
	char p[4096], tmp[4200], text[32];
	int n;

	if (text_snprintf(p, sizeof(p), "%s/%s", dir, name) ||
	    text_snprintf(tmp, sizeof(tmp), "%s/.%s.new", dir, name))
		return -ENAMETOOLONG;
	n = snprintf(text, sizeof(text), "%llu\n", (unsigned long long)value);
	return file_replace(p, tmp, text, (size_t)n);
}

int waiter_published(const char *dir, const char *name, uint64_t *value)
{
	char p[4096], buf[32];
	ssize_t n;
	int fd;

	if (text_snprintf(p, sizeof(p), "%s/%s", dir, name))
		return -ENAMETOOLONG;
	fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	buf[n] = '\0';
	return parse_u64(parse_trim(buf), value);
}

void waiter_clear(const char *dir)
{
	static const char *const names[] = {HP_PUB_DEADLINE, HP_PUB_EXIT, HP_PUB_START};
	char p[4096];

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!text_snprintf(p, sizeof(p), "%s/%s", dir, names[i]))
			unlink(p);
}

static void pause_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/* Whether pid is still the process that published it in dir: 1 yes, 0 not known
 * (its stat cannot be read), -1 no (why says so). */
static int run_identity(const char *dir, uint64_t pid, char *why, size_t len)
{
	uint64_t want, got, again;
	int rc;

	if (pid <= 1 || pid == (uint64_t)getpid()) {
		snprintf(why, len, "pid %llu names no run of hugepar: not signalled",
			 (unsigned long long)pid);
		return -1;
	}
	if (waiter_published(dir, HP_PUB_START, &want) ||
	    waiter_published(dir, HP_PUB_PID, &again) || again != pid) {
		snprintf(why, len,
			 "pid %llu was published without its start time: not signalled",
			 (unsigned long long)pid);
		return -1;
	}
	rc = path_read_start((long)pid, &got);
	if (rc) {
		snprintf(why, len,
			 "pid %llu could not be shown to be the run (its start time: "
			 "%s): not signalled",
			 (unsigned long long)pid, strerror(-rc));
		return 0;
	}
	if (got == want)
		return 1;
	snprintf(why, len,
		 "pid %llu is another process now (started at tick %llu, the run at "
		 "%llu): not signalled",
		 (unsigned long long)pid, (unsigned long long)got,
		 (unsigned long long)want);
	return -1;
}

/* Signal the run when it is past its deadline (SIGTERM) and the grace after that
 * (SIGKILL), once it is shown to be the run; false when it is not. */
static bool stop_run(const char *dir, uint64_t deadline, uint64_t *term_at,
		     struct wait_result *w)
{
	uint64_t now = sys_boottime_ms();
	int sig = 0;

	if (!*term_at && now >= deadline + HP_WAIT_GRACE_MS)
		sig = SIGTERM;
	else if (*term_at && !w->killed && now >= *term_at + HP_WAIT_GRACE_MS)
		sig = SIGKILL;
	if (!sig)
		return true;
	if (run_identity(dir, w->pid, w->why, sizeof(w->why)) != 1)
		return false;
	kill((pid_t)w->pid, sig);
	w->stopped = true;
	w->killed = sig == SIGKILL;
	if (sig == SIGTERM)
		*term_at = now;
	return true;
}

int waiter_wait_run(const char *dir, uint64_t fallback, struct wait_result *w)
{
	uint64_t deadline, start = sys_boottime_ms(), term_at = 0;

	memset(w, 0, sizeof(*w));
	if (waiter_published(dir, HP_PUB_PID, &w->pid) || w->pid == 0 ||
	    w->pid > INT32_MAX)
		return 0; /* nothing was started */
	w->started = true;
	for (;;) {
		if (waiter_published(dir, HP_PUB_EXIT, &w->exit_code) == 0) {
			w->exited = true;
			break;
		}
		/* a pid that names another process is a run that ended without its
		 * exit status (or never was one) */
		if (run_identity(dir, w->pid, w->why, sizeof(w->why)) < 0) {
			w->foreign = true;
			break;
		}
		if (sys_pid_gone((pid_t)w->pid)) {
			/* it may have published its exit and ended since the look above:
			 * without a second look, a run that ended well would be taken
			 * for one that ended without a result */
			w->exited =
			    waiter_published(dir, HP_PUB_EXIT, &w->exit_code) == 0;
			break;
		}
		/* Read each time: the run publishes its deadline once it has read its
		 * settings, which may be after this wait began. */
		if (waiter_published(dir, HP_PUB_DEADLINE, &deadline))
			deadline = fallback;
		if (!stop_run(dir, deadline, &term_at, w)) {
			w->foreign = true;
			break;
		}
		pause_ms(50);
	}
	w->waited_ms = sys_boottime_ms() - start;
	return 0;
}
