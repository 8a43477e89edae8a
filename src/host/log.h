/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.h - the program's log lines: the kernel log and standard output, or the journal. */
#ifndef HUGEPAR_LOG_H
#define HUGEPAR_LOG_H

#include <stdbool.h>

/* A log_line() line, at most. */
#define LOG_LINE_MAX 512

/* One line, "hugepar: " first, to /dev/kmsg at a syslog level and to stdout; only to
 * stdout, with a "<level>" prefix, where stdout is the journal. */
void log_line(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether stdout is the journal's stream, as JOURNAL_STREAM names it. */
bool log_to_journal(void);

#endif
