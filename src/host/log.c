/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.c - the program's log lines: the kernel log and standard output, or the journal. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "macros.h"
#include "parse.h"
#include "path.h"
#include "text.h"

/* Whether standard output is the journal: systemd names the stream it connects a
 * service's output to in JOURNAL_STREAM, as "DEVICE:INODE" (systemd.exec(5)). */
bool log_to_journal(void)
{
	const char *p = getenv("JOURNAL_STREAM");
	uint64_t dev, ino;
	struct stat st;

	if (!p || parse_u64_at(&p, &dev) || *p++ != ':' || parse_u64_at(&p, &ino) || *p)
		return false;
	return fstat(STDOUT_FILENO, &st) == 0 && (uint64_t)st.st_dev == dev &&
	       (uint64_t)st.st_ino == ino;
}

/* One line to standard output and to the kernel log (when it can be opened). Where
 * standard output is the journal, the journal also reads the kernel log, so the line
 * goes there once, from the unit, its level in systemd's "<N>" prefix. */
void log_line(int level, const char *fmt, ...)
{
	char line[LOG_LINE_MAX], kmsg[4096];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	text_printable(line); /* a setting's bytes must not drive a terminal */
	if (log_to_journal()) {
		printf("<%d>hugepar: %s\n", level, line);
		fflush(stdout);
		return;
	}
	printf("hugepar: %s\n", line);
	fflush(stdout);
	if (path_build(kmsg, sizeof(kmsg), "/dev/kmsg"))
		return;
	fd = open(kmsg, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return;
	/* One write is one kernel log record. */
	n = snprintf(kmsg, sizeof(kmsg), "<%d>hugepar: %s\n", level, line);
	if (n > 0 && write(fd, kmsg, MIN((size_t)n, sizeof(kmsg) - 1)) < 0)
		n = -errno; /* the log is best effort */
	close(fd);
}
