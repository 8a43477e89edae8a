/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run.c - the commands that run: plan, apply, and for the boot hooks wait and
 * recover. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "clock.h"
#include "commands.h"
#include "engine.h"
#include "fault.h"
#include "file.h"
#include "macros.h"
#include "notify.h"
#include "parse.h"
#include "report.h"
#include "stop.h"
#include "sys.h"
#include "waiter.h"

/* In a capture kernel: nothing but the record of why, and one line. */
static int stand_aside(struct ctx *c, const char *why)
{
	int rc = record_aside(c->record_dir, &c->settings, why);

	record_log(LOG_INFO, "%s: nothing done, its memory is the dump's", why);
	if (rc)
		record_log(LOG_ERR, "cannot write the record in %s: %s", c->record_dir,
			   strerror(-rc));
	return rc ? EXIT_FAIL : EXIT_OK;
}

int cmd_plan(struct ctx *c)
{
	if (load_settings(c) || load_machine(c))
		return EXIT_FAIL;
	if (c->format == HP_FORMAT_JSON)
		report_plan_json(stdout, &c->settings, &c->topo, &c->plan);
	else
		report_plan_text(stdout, &c->settings, &c->topo, &c->plan);
	if (fflush(stdout))
		return EXIT_FAIL;
	return c->settings.nproblems || c->settings.failed ? EXIT_PARTIAL : EXIT_OK;
}

/* A run that cannot start: the record still says what was asked and why. */
static int apply_failed(struct ctx *c, const struct hp_recovery *rec, int code,
			const char *fmt, const char *arg)
{
	char why[320];

	int rc;

	snprintf(why, sizeof(why), fmt, arg);
	fprintf(stderr, "hugepar: %s\n", why);
	rc = record_failure(c->record_dir, &c->settings, rec, why);
	record_log(LOG_ERR, "failed: %s; nothing done", why);
	if (rc)
		record_log(LOG_ERR, "cannot write the record in %s: %s", c->record_dir,
			   strerror(-rc));
	return code;
}

/* A value an earlier run left raised that is still not put back (its restore note is
 * still there: the engine tries again at its end) fails the run, whatever the pools. */
static void recovery_fold(const struct hp_recovery *rec, struct hp_result *res)
{
	char line[256];

	for (unsigned i = 0; i < rec->n; i++) {
		const struct restore_fix *f = &rec->fix[i];

		if (!restore_fix_failed(f) || !restore_note_exists(f->kb))
			continue;
		res->status = HP_STATUS_FAILED;
		if (res->error[0])
			continue;
		recovery_describe(f, line, sizeof(line));
		/* (the note's own words are cut, not the end that says what to do) */
		snprintf(res->error, sizeof(res->error),
			 "%.140s; its restore note is kept for hugepar recover", line);
	}
}

/* One number for wait; a failure is said (wait then finds no run, or none ended). */
static void publish(const struct ctx *c, const char *name, uint64_t value)
{
	int rc = waiter_publish(c->record_dir, name, value);

	if (rc)
		fprintf(stderr, "hugepar: cannot publish %s in %s: %s\n", name,
			c->record_dir, strerror(-rc));
}

/* The run under its lock: undo what killed runs left, read the machine, carry the
 * plan out, write the record. Returns the exit code. */
static int apply_locked(struct ctx *c, uint64_t deadline)
{
	struct hp_recovery rec = {0};
	struct hp_result res;
	char why[96];
	int rc;

	fault_at("lock");
	if (capture_kernel(c, why, sizeof(why)))
		return stand_aside(c, why);
	restore_recover(rec.fix, HP_MAX_SIZES, &rec.n);
	if (load_machine(c))
		return apply_failed(c, &rec, EXIT_FAIL, "cannot read the topology: %s",
				    c->topo.error);
	fault_at("topology");
	if (c->topo.warning[0]) /* (plan shows it as its "Note:") */
		fprintf(stderr, "hugepar: note: %s\n", c->topo.warning);
	rc = engine_apply(&c->settings, &c->topo, &c->plan, c->method, deadline, &res);
	recovery_fold(&rec, &res);
	if (rc)
		fprintf(stderr, "hugepar: %s\n", res.error);
	rc = fault_at("record");
	if (!rc)
		rc = record_write(c->record_dir, &c->settings, &c->topo, &c->plan, &res,
				  &rec);
	record_kmsg(&c->topo, &c->plan, &res, &rec);
	/* the record is what the booted system reads: a run without one has failed,
	 * whatever it reserved */
	if (rc)
		record_log(LOG_ERR, "cannot write the record in %s: %s", c->record_dir,
			   strerror(-rc));
	fault_at("done");
	rc = rc ? EXIT_FAIL : exit_of(res.status);
	engine_result_free(&res);
	return rc;
}

/* Take the run lock, then (only then: a run that waits for it, or fails before it,
 * must not speak for the one that holds it) publish what wait reads. */
static int apply(struct ctx *c, uint64_t deadline, uint64_t boot_deadline)
{
	struct hp_recovery none = {0};
	uint64_t ticks;
	int rc = run_lock(deadline);

	if (rc == -EAGAIN)
		return apply_failed(
		    c, &none, EXIT_BUSY, "%s",
		    "another hugepar apply held the lock until the deadline");
	if (rc)
		return apply_failed(c, &none, EXIT_FAIL,
				    "cannot take the lock in " HP_STATE_DIR ": %s",
				    state_dir_error(rc));
	waiter_clear(c->record_dir);
	if (self_start(&ticks) == 0) /* before the pid: wait checks one by the other */
		publish(c, HP_PUB_START, ticks);
	publish(c, HP_PUB_PID, (uint64_t)getpid());
	publish(c, HP_PUB_DEADLINE, boot_deadline);
	rc = apply_locked(c, deadline);
	publish(c, HP_PUB_EXIT, (uint64_t)rc);
	run_unlock();
	return rc;
}

/* --if-changed: whether the settings files differ from those the record's run read,
 * or there is no record to say (hugepar was not in the initramfs). Files written
 * after the initramfs was built, cloud-init's user data above all, are then taken
 * on the booted system. */
static bool settings_changed(const struct ctx *c, char *now, size_t len)
{
	struct hp_record r;
	bool changed;

	settings_digest(&c->settings, now, len);
	if (record_load(c->record_dir, &r))
		return true;
	changed = strcmp(json_get_str(json_get(&r.v, "settings"), "digest"), now) != 0;
	record_unload(&r);
	return changed;
}

/* After a run that took settings the initramfs has not: HP_STALE_MARK in the record
 * directory, their digest in it, for hugepar-initramfs.service to build it again. */
static void mark_initramfs_stale(const struct ctx *c, const char *digest)
{
	char p[4096], tmp[4200], text[80];
	int n = snprintf(text, sizeof(text), "%s\n", digest), rc;

	if (xsnprintf(p, sizeof(p), "%s/%s", c->record_dir, HP_STALE_MARK) ||
	    xsnprintf(tmp, sizeof(tmp), "%s/.%s.new", c->record_dir, HP_STALE_MARK))
		rc = -ENAMETOOLONG;
	else
		rc = replace_file(p, tmp, text, (size_t)n);
	if (rc)
		fprintf(stderr, "hugepar: cannot write %s: %s\n", p, strerror(-rc));
}

int cmd_apply(struct ctx *c)
{
	uint64_t start = clock_now_ms(), boot = boottime_ms();
	int rc = state_dir_check(c->record_dir, true);
	char digest[64];

	if (rc) {
		fprintf(stderr, "hugepar: the record directory %s: %s\n", c->record_dir,
			state_dir_error(rc));
		return EXIT_FAIL;
	}
	stop_install();
	fault_init(getpid());
	fault_at("start");
	if (fault_flag("parallel")) /* the test build's boot tests: no probe */
		c->method = HP_METHOD_PARALLEL;
	if (load_settings(c)) {
		rc = EXIT_FAIL;
	} else if (c->if_changed && !settings_changed(c, digest, sizeof(digest))) {
		printf("hugepar: the settings files are those the last run read (%s): "
		       "nothing to do\n",
		       digest);
		rc = EXIT_OK;
	} else {
		/* systemd: the unit's start timeout is hugepar's own deadline */
		notify_extend_timeout(c->settings.timeout_ms + HP_WAIT_GRACE_MS);
		if (c->if_changed)
			record_log(LOG_NOTICE,
				   "the settings files are not those the initramfs "
				   "read (%s): applying them now",
				   digest);
		rc = apply(c, start + c->settings.timeout_ms,
			   boot + c->settings.timeout_ms);
		if (c->if_changed)
			mark_initramfs_stale(c, digest);
	}
	notify_ready(rc);
	return rc;
}

/* Put back what killed runs left raised; the same as every apply does first. */
int cmd_recover(struct ctx *c)
{
	struct hp_recovery rec = {0};
	int rc = run_lock(clock_now_ms() + 10000), failed = 0;

	if (rc) {
		fprintf(stderr, "hugepar: cannot take the lock in %s: %s\n", HP_STATE_DIR,
			rc == -EAGAIN ? "another hugepar apply is running"
				      : state_dir_error(rc));
		return rc == -EAGAIN ? EXIT_BUSY : EXIT_FAIL;
	}
	restore_recover(rec.fix, HP_MAX_SIZES, &rec.n);
	for (unsigned i = 0; i < rec.n; i++) {
		char line[256];

		recovery_describe(&rec.fix[i], line, sizeof(line));
		record_log(restore_fix_failed(&rec.fix[i]) ? LOG_ERR : LOG_WARNING, "%s",
			   line);
		failed += restore_fix_failed(&rec.fix[i]);
	}
	run_unlock();
	(void)c;
	return failed ? EXIT_FAIL : EXIT_OK;
}

/* After a run that ended without its exit status, or was killed: put back what it
 * left raised, and write a record that says why. */
static void wait_settle(struct ctx *c, const char *why)
{
	struct hp_recovery rec = {0};

	if (run_lock(clock_now_ms() + 2000) == 0) {
		restore_recover(rec.fix, HP_MAX_SIZES, &rec.n);
		run_unlock();
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
	load_settings(c);
	fallback = boottime_ms() + c->settings.timeout_ms;
	wait_for_run(c->record_dir, fallback, &w);
	if (!w.started)
		return EXIT_OK;
	if (w.exited)
		return (int)MIN(w.exit_code, UINT64_C(255));
	if (w.foreign) {
		/* not shown to be hugepar's run: never signalled, and its lock (if it
		 * still runs) keeps what it does from being undone here */
		record_log(LOG_WARNING, "no result from apply: %s; the boot goes on",
			   w.why);
		snprintf(why, sizeof(why), "no result: %s", w.why);
		wait_settle(c, why);
		return EXIT_FAIL;
	}
	record_log(LOG_WARNING, "%s after %llu ms; the boot goes on",
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
