/* SPDX-License-Identifier: GPL-2.0-or-later */
/* recover.c - hugepar recover: put back what a killed apply left raised. */
#include <errno.h>
#include <stdio.h>
#include <syslog.h>

#include "clock.h"
#include "cmd.h"
#include "path.h"
#include "log.h"
#include "restore.h"

/* Put back what killed runs left raised; the same as every apply does first. */
int cmd_recover(struct ctx *c)
{
	struct hp_recovery rec = {0};
	int rc = restore_run_lock(clock_now_ms() + 10000), failed = 0;

	if (rc) {
		fprintf(stderr, "hugepar: cannot take the lock in %s: %s\n", HP_RUN_DIR,
			rc == -EAGAIN ? "another hugepar apply is running"
				      : restore_dir_error(rc));
		return rc == -EAGAIN ? EXIT_BUSY : EXIT_FAIL;
	}
	restore_recover(rec.fix, HP_MAX_SIZES, &rec.n);
	for (unsigned i = 0; i < rec.n; i++) {
		char line[256];

		restore_describe(&rec.fix[i], line, sizeof(line));
		log_line(restore_fix_failed(&rec.fix[i]) ? LOG_ERR : LOG_WARNING, "%s",
			 line);
		failed += restore_fix_failed(&rec.fix[i]);
	}
	restore_run_unlock();
	(void)c;
	return failed ? EXIT_FAIL : EXIT_OK;
}

const struct command recover_command = {
    .name = "recover",
    .summary = "put back what a killed apply left raised",
    .about =
	"Take the run lock and put back every nr_overcommit_hugepages value that a\n"
	"killed apply left raised (its restore note says which), one kernel log line\n"
	"each. Every apply does the same first; the initramfs's unit runs it when it\n"
	"stops.\n",
    .options = OPT_SYSROOT,
    .examples = " hugepar recover\n"
		"        after an apply was killed (SIGKILL, the OOM killer)\n"
		" journalctl -k | grep 'hugepar:.*put back'\n"
		"        what it and the runs before it put back\n",
    .exits = "0 nothing left raised, 1 a value could not be put back (its note is kept), "
	     "75 an apply is running",
    .run = cmd_recover,
};
