/* SPDX-License-Identifier: GPL-2.0-or-later */
/* waiter.c - a run's published pid, deadline and exit status; `hugepar wait`. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "file.h"
#include "macros.h"
#include "parse.h"
#include "sys.h"
#include "waiter.h"

int waiter_publish(const char *dir, const char *name, uint64_t value)
{
	char p[4096], tmp[4200], text[32];
	int n;

	if (xsnprintf(p, sizeof(p), "%s/%s", dir, name) ||
	    xsnprintf(tmp, sizeof(tmp), "%s/.%s.new", dir, name))
		return -ENAMETOOLONG;
	n = snprintf(text, sizeof(text), "%llu\n", (unsigned long long)value);
	return replace_file(p, tmp, text, (size_t)n);
}

int waiter_published(const char *dir, const char *name, uint64_t *value)
{
	char p[4096], buf[32];
	ssize_t n;
	int fd;

	if (xsnprintf(p, sizeof(p), "%s/%s", dir, name))
		return -ENAMETOOLONG;
	fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	buf[n] = '\0';
	return parse_u64(strtrim(buf), value);
}

void waiter_clear(const char *dir)
{
	static const char *const names[] = {HP_PUB_DEADLINE, HP_PUB_EXIT};
	char p[4096];

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!xsnprintf(p, sizeof(p), "%s/%s", dir, names[i]))
			unlink(p);
}

static void pause_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

int wait_for_run(const char *dir, uint64_t fallback, struct wait_result *w)
{
	uint64_t pid, deadline, start = boottime_ms(), term_at = 0;

	memset(w, 0, sizeof(*w));
	if (waiter_published(dir, HP_PUB_PID, &pid) || pid == 0 || pid > INT32_MAX)
		return 0; /* nothing was started */
	w->started = true;
	for (;;) {
		uint64_t now = boottime_ms();

		if (waiter_published(dir, HP_PUB_EXIT, &w->exit_code) == 0) {
			w->exited = true;
			break;
		}
		if (pid_gone((pid_t)pid)) {
			/* it may have published its exit and ended since the look above:
			 * without a second look, a run that ended well would be taken
			 * for one that ended without a result */
			w->exited = waiter_published(dir, HP_PUB_EXIT, &w->exit_code) == 0;
			break;
		}
		/* Read each time: the run publishes its deadline once it has read its
		 * settings, which may be after this wait began. */
		if (waiter_published(dir, HP_PUB_DEADLINE, &deadline))
			deadline = fallback;
		if (!term_at && now >= deadline + HP_WAIT_GRACE_MS) {
			kill((pid_t)pid, SIGTERM);
			w->stopped = true;
			term_at = now;
		}
		if (term_at && !w->killed && now >= term_at + HP_WAIT_GRACE_MS) {
			kill((pid_t)pid, SIGKILL);
			w->killed = true;
		}
		pause_ms(50);
	}
	w->waited_ms = boottime_ms() - start;
	return 0;
}
