/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sys.c - clocks, and a process: whether it is gone, and when it started. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "parse.h"
#include "sys.h"

static uint64_t clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t sys_mono_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

uint64_t sys_mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

uint64_t sys_boottime_ms(void)
{
	return clock_ms(CLOCK_BOOTTIME);
}

bool sys_pid_gone(pid_t pid)
{
	char p[64], buf[512], *rp;
	ssize_t n;
	int fd;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return true;
	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	return rp && (rp[2] == 'Z' || rp[2] == 'X');
}

int sys_proc_start(const char *text, uint64_t *ticks)
{
	/* the name (field 2) may hold anything, ')' and spaces too: count from its end */
	const char *p = strrchr(text, ')');

	if (!p || p[1] != ' ')
		return -EINVAL;
	p += 2;
	for (unsigned field = 3; field < 22; field++) {
		p = strchr(p, ' ');
		if (!p)
			return -EINVAL;
		p++;
	}
	if (parse_u64_at(&p, ticks) || (*p != ' ' && *p != '\n' && *p))
		return -EINVAL;
	return 0;
}

int sys_self_start(uint64_t *ticks)
{
	char buf[1024];
	ssize_t n;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EINVAL;
	buf[n] = '\0';
	return sys_proc_start(buf, ticks);
}
