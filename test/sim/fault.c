/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fault.c - the test build's fault seam: see fault.h for HUGEPAR_FAULT. */
#ifdef HUGEPAR_TESTING
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "text.h"
#include "clock.h"
#include "fault.h"
#include "macros.h"
#include "parse.h"
#include "path.h"
#include "sys.h"

enum action {
	ACT_DEFAULT,
	ACT_ERRNO,
	ACT_KILL,
	ACT_TERM,
	ACT_KILLMAIN,
	ACT_DELAY,
	ACT_HANG
};

struct item {
	char point[32];
	unsigned nth; /* 0: every time */
	unsigned seen;
	enum action act;
	int err;
	unsigned delay_ms;
};

static struct item items[16];
static unsigned nitems;
static bool parsed;
static pid_t main_pid;

static const struct {
	const char *name;
	int err;
} errnos[] = {{"EIO", EIO},	{"ENOMEM", ENOMEM}, {"EINVAL", EINVAL},
	      {"EINTR", EINTR}, {"EBUSY", EBUSY},   {"ENOSPC", ENOSPC}};

void fault_init(pid_t pid)
{
	main_pid = pid;
}

static void parse_action(struct item *it, const char *a)
{
	uint64_t ms;

	if (strcmp(a, "kill") == 0)
		it->act = ACT_KILL;
	else if (strcmp(a, "term") == 0)
		it->act = ACT_TERM;
	else if (strcmp(a, "killmain") == 0)
		it->act = ACT_KILLMAIN;
	else if (strncmp(a, "delay:", 6) == 0 && parse_u64(a + 6, &ms) == 0) {
		it->act = ACT_DELAY;
		it->delay_ms = (unsigned)MIN(ms, UINT64_C(3600000));
	} else if (strncmp(a, "hang:", 5) == 0 && parse_u64(a + 5, &ms) == 0) {
		it->act = ACT_HANG;
		it->delay_ms = (unsigned)MIN(ms, UINT64_C(3600000));
	}
	for (size_t i = 0; i < ARRAY_SIZE(errnos); i++)
		if (strcmp(a, errnos[i].name) == 0) {
			it->act = ACT_ERRNO;
			it->err = errnos[i].err;
		}
}

/* A boot test cannot set the environment of the initramfs: there the seam reads
 * hugepar.fault=SPEC from the kernel command line instead. */
static const char *from_cmdline(char *buf, size_t len)
{
	char line[4096], *p;
	int rc = path_read(line, sizeof(line), "/proc/cmdline");

	if (rc || !(p = strstr(line, "hugepar.fault=")))
		return NULL;
	p += 14;
	snprintf(buf, len, "%.*s", (int)strcspn(p, " \n"), p);
	return buf;
}

static void parse(void)
{
	static char cmd[512];
	const char *env = getenv("HUGEPAR_FAULT");
	char buf[512], *save = NULL;

	parsed = true;
	if (!env)
		env = from_cmdline(cmd, sizeof(cmd));
	if (!env || text_snprintf(buf, sizeof(buf), "%s", env))
		return;
	for (char *tok = strtok_r(buf, ",", &save); tok && nitems < ARRAY_SIZE(items);
	     tok = strtok_r(NULL, ",", &save)) {
		struct item *it = &items[nitems++];
		char *eq = strchr(tok, '='), *colon;
		uint64_t n;

		memset(it, 0, sizeof(*it));
		if (eq) {
			*eq = '\0';
			parse_action(it, eq + 1);
		}
		colon = strchr(tok, ':');
		if (colon) {
			*colon = '\0';
			if (parse_u64(colon + 1, &n) == 0)
				it->nth = (unsigned)MIN(n, UINT64_C(1) << 30);
		}
		snprintf(it->point, sizeof(it->point), "%s", tok);
	}
}

/* "write" matches write-node and write-global; a full name only itself. */
static bool matches(const char *spec, const char *point)
{
	size_t n = strlen(spec);

	return strncmp(spec, point, n) == 0 && (point[n] == '\0' || point[n] == '-');
}

static int default_err(const char *point)
{
	if (strcmp(point, "reserve") == 0)
		return ENOMEM;
	if (strcmp(point, "overcommit") == 0)
		return EINVAL;
	if (strncmp(point, "write", 5) == 0 || strncmp(point, "read", 4) == 0 ||
	    strcmp(point, "bind") == 0)
		return EIO;
	return 0; /* a phase */
}

/* The flag "trace": each phase reached (a point that is no call to the kernel), with
 * the monotonic clock's microseconds and the process, on standard error
 * (bench/whole.sh's breakdown of a run). */
static void trace(const char *point)
{
	if (!default_err(point))
		fprintf(stderr, "hugepar-trace %s %llu %d\n", point,
			(unsigned long long)clock_now_us(), (int)getpid());
}

int fault_at(const char *point)
{
	struct item *fire = NULL;
	uint64_t until;

	if (!parsed)
		parse();
	if (fault_flag("trace"))
		trace(point);
	/* Every item counts the point, whichever fires. */
	for (unsigned i = 0; i < nitems; i++) {
		struct item *it = &items[i];

		if (!matches(it->point, point))
			continue;
		it->seen++;
		if (!fire && (!it->nth || it->seen == it->nth))
			fire = it;
	}
	if (!fire)
		return 0;
	switch (fire->act) {
	case ACT_DEFAULT:
		return -default_err(point);
	case ACT_ERRNO:
		return -fire->err;
	case ACT_KILL:
		clock_kill(getpid(), SIGKILL);
		break;
	case ACT_TERM:
		clock_kill(main_pid ? main_pid : getpid(), SIGTERM);
		break;
	case ACT_KILLMAIN:
		clock_kill(main_pid ? main_pid : getpid(), SIGKILL);
		break;
	case ACT_DELAY:
	case ACT_HANG:
		/* a signal ends a delay early, as a stop should; a hang goes on: a
		 * process stuck where no signal but SIGKILL reaches it */
		until = clock_now_ms() + fire->delay_ms;
		while (clock_sleep_ms(until - MIN(clock_now_ms(), until)) == -EINTR &&
		       fire->act == ACT_HANG)
			;
		break;
	}
	return 0;
}

bool fault_flag(const char *name)
{
	if (!parsed)
		parse();
	for (unsigned i = 0; i < nitems; i++)
		if (strcmp(items[i].point, name) == 0)
			return true;
	return false;
}
#endif
