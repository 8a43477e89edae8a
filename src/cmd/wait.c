/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wait.c - hugepar wait: for the boot hooks, the background apply waited for, no
 * longer than its deadline, and what it left put back. */
#include <stdio.h>
#include <syslog.h>

#include "clock.h"
#include "cmd.h"
#include "log.h"
#include "macros.h"
#include "restore.h"
#include "sys.h"
#include "waiter.h"

/* After a run that ended without its exit status, or was killed: put back what it
 * left raised, and write a record that says why. */
static void wait_settle(struct ctx *c, const char *why)
{
	struct hp_recovery rec = {0};

	if (restore_run_lock(clock_now_ms() + 2000) == 0) {
		restore_recover(rec.fix, HP_MAX_SIZES, &rec.n);
		restore_run_unlock();
	}
	record_failure(c->record_dir, &c->settings, &rec, why);
}

/* For the boot hooks: wait for the background apply, stop it when it runs past its
 * deadline, put back what it may have left, and say what happened. */
int cmd_wait(struct ctx *c)
{
	struct wait_result w;
	uint64_t fallback;
	char why[256];

	/* A run that died before publishing its deadline: take the settings' own. */
	context_load_settings(c);
	fallback = sys_boottime_ms() + c->settings.timeout_ms;
	waiter_wait_run(c->record_dir, fallback, &w);
	if (!w.started)
		return EXIT_OK;
	if (w.exited)
		return (int)MIN(w.exit_code, UINT64_C(255));
	if (w.foreign) {
		/* not shown to be hugepar's run: never signalled, and its lock (if it
		 * still runs) keeps what it does from being undone here */
		log_line(LOG_WARNING, "no result from apply: %s; the boot goes on",
			 w.why);
		snprintf(why, sizeof(why), "no result: %s", w.why);
		wait_settle(c, why);
		return EXIT_FAIL;
	}
	log_line(LOG_WARNING, "%s after %llu ms; the boot goes on",
		 w.stopped
		     ? (w.killed ? "apply was still running past its deadline: killed"
				 : "apply was still running past its deadline: stopped")
		     : "apply ended without a result",
		 (unsigned long long)w.waited_ms);
	if (!w.stopped || w.killed)
		wait_settle(c, w.killed
				   ? "stopped at the root switch: still running past "
				     "its deadline"
				   : "ended without a record");
	return EXIT_FAIL;
}

const struct command wait_command = {
    .name = "wait",
    .summary =
	"for the boot hooks: wait for a background apply, no longer than its deadline",
    .about =
	"Wait for the apply that the boot hooks started in the background, as long as\n"
	"its published deadline and 10 s more; then stop it. A run that ended without\n"
	"its result, or had to be stopped, is recorded as such and what it left raised\n"
	"is put back. The boot goes on whatever happened.\n",
    .options = OPT_SYSROOT | OPT_CONFIG | OPT_CMDLINE | OPT_RECORD_DIR,
    .examples = " hugepar apply & hugepar wait\n"
		"        as the hooks do it\n"
		" hugepar wait; echo $?\n"
		"        the run's exit status (0 when none was started)\n",
    .exits = "the run's exit status; 1 when it was stopped or gave none; 0 when none was "
	     "started",
    .run = cmd_wait,
};
