/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.c - unit tests: the run's log lines, to the kernel log or the journal. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "macros.h"
#include "path.h"
#include "log.h"
#include "kmsg.h"
#include "record_fixture.h"
#include "unit.h"

/* A root of its own under dir (a mkdtemp template), whose /dev/kmsg is a FIFO that
 * keeps each write apart, as the kernel's log does: its read end, non-blocking, or -1. */
static int kmsg_root(char *dir)
{
	char kmsg[128];

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return -1;
	}
	snprintf(kmsg, sizeof(kmsg), "%s/dev", dir);
	mkdir(kmsg, 0755);
	snprintf(kmsg, sizeof(kmsg), "%s/dev/kmsg", dir);
	CHECK(mkfifo(kmsg, 0600) == 0);
	return open(kmsg, O_RDONLY | O_NONBLOCK);
}

/* The kernel log: a summary line at the run's level, a warning per short cell, the
 * 1G route, a line per recovery; each one write to /dev/kmsg under the root. */
UNIT_TEST(kmsg_summary, "the kernel log: summary, short cells, the 1G route, recoveries")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", buf[4096], want[2048];
	const char *fmt =
	    "<4>hugepar: 2M: nr_overcommit_hugepages left at 300 by pid 77 put back to "
	    "0\n"
	    "<3>hugepar: 1G: nr_overcommit_hugepages left at 9 by pid 78 could not be "
	    "put back to 1: %s\n"
	    "<4>hugepar: partial in 250 ms on 2 nodes, 2M 1636/1636 pages "
	    "(parallel, 3 threads at once, 2100 asked: capped), 1G 1/2 pages (serial)\n"
	    "<4>hugepar: node 2 2M: capped, 1536 of 2000 requested: capped by keep_free\n"
	    "<4>hugepar: node 2 1G: partial, 1 of 2: deadline reached\n"
	    "<4>hugepar: 1G pages short: the kernel's own boot-time allocation would "
	    "reserve them before memory fragments: add 'hugepagesz=1G hugepages=2:2' to "
	    "the kernel command line\n";
	ssize_t n, got = 0;
	int fd;

	snprintf(want, sizeof(want), fmt, strerror(EIO));
	fixture();
	if ((fd = kmsg_root(dir)) < 0)
		return;
	path_set_root(dir);
	freopen("/dev/null", "w", stdout);
	kmsg_summary(&F.t, &F.p, &F.res, &F.rec);
	while ((n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	buf[got > 0 ? got : 0] = '\0';
	if (strcmp(buf, want))
		fprintf(stderr, "kmsg:\n%s", buf);
	CHECK(strcmp(buf, want) == 0);

	/* disabled: one line; an error is said after the sizes */
	got = 0;
	F.rec.n = 0;
	F.res.status = HP_STATUS_DISABLED;
	kmsg_summary(&F.t, &F.p, &F.res, &F.rec);
	F.res.status = HP_STATUS_FAILED;
	memset(F.res.sizes, 0, sizeof(F.res.sizes));
	memset(F.cr, 0, sizeof(F.cr));
	F.cr[3].achieved = 2; /* no 1G route */
	strcpy(F.res.error, "no memory");
	kmsg_summary(&F.t, &F.p, &F.res, &F.rec);
	while ((n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	buf[got > 0 ? got : 0] = '\0';
	CHECK(strcmp(buf, "<6>hugepar: disabled, nothing done\n"
			  "<3>hugepar: failed in 250 ms on 2 nodes, nothing to do: no "
			  "memory\n") == 0);
	close(fd);
	path_set_root(NULL);
	settings_free(&F.s);
	rm_rf(dir);
}

/* Under systemd, stdout is the journal, which reads the kernel log too: a line goes
 * to stdout alone, its level in systemd's prefix. Any other JOURNAL_STREAM (another
 * stream's, malformed, overflowing) leaves both. */
UNIT_TEST(record_journal,
	  "under systemd a line goes to the journal alone, its level prefixed")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", path[128], buf[512], env[64];
	static const char *const other[] = {
	    "", ":", "1:", ":1", "1:2x", " 1:2", "1:-2", "99999999999999999999:1",
	};
	struct stat st;
	ssize_t n;
	int fd, out;

	if ((fd = kmsg_root(dir)) < 0)
		return;
	snprintf(path, sizeof(path), "%s/out", dir);
	CHECK(freopen(path, "w", stdout) != NULL);
	out = open(path, O_RDONLY);
	CHECK(fstat(STDOUT_FILENO, &st) == 0);
	path_set_root(dir);

	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", env, 1);
	CHECK(log_to_journal());
	log_line(LOG_WARNING, "short by %d", 3);
	n = read(fd, buf, sizeof(buf));
	CHECK(n == 0); /* nothing in the kernel log: no writer came */
	n = read(out, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	CHECK(strcmp(buf, "<4>hugepar: short by 3\n") == 0);

	/* another stream's numbers, or none */
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + 1);
	setenv("JOURNAL_STREAM", env, 1);
	CHECK(!log_to_journal());
	for (size_t i = 0; i < ARRAY_SIZE(other); i++) {
		setenv("JOURNAL_STREAM", other[i], 1);
		CHECK(!log_to_journal());
	}
	unsetenv("JOURNAL_STREAM");
	CHECK(!log_to_journal());
	log_line(LOG_INFO, "ok");
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	CHECK(strcmp(buf, "<6>hugepar: ok\n") == 0);
	n = read(out, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	CHECK(strcmp(buf, "hugepar: ok\n") == 0);

	close(out);
	close(fd);
	freopen("/dev/null", "w", stdout);
	path_set_root(NULL);
	rm_rf(dir);
}
