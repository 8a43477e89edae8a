/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apply.c - hugepar apply: the plan carried out, under the run lock, and the record
 * written; the boot hooks run it in the background and wait for it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "text.h"
#include "clock.h"
#include "cmd.h"
#include "kmsg.h"
#include "path.h"
#include "log.h"
#include "engine.h"
#include "fault.h"
#include "file.h"
#include "notify.h"
#include "parse.h"
#include "stop.h"
#include "sys.h"
#include "waiter.h"

/* In a capture kernel: nothing but the record of why, and one line. */
static int stand_aside(struct ctx *c, const char *why)
{
	int rc = record_aside(c->record_dir, &c->settings, why);

	log_line(LOG_INFO, "%s: nothing done, its memory is the dump's", why);
	if (rc)
		log_line(LOG_ERR, "cannot write the record in %s: %s", c->record_dir,
			 strerror(-rc));
	return rc ? EXIT_FAIL : EXIT_OK;
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
	log_line(LOG_ERR, "failed: %s; nothing done", why);
	if (rc)
		log_line(LOG_ERR, "cannot write the record in %s: %s", c->record_dir,
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
		restore_describe(f, line, sizeof(line));
		/* (the note's own words are cut, not the end that says what to do) */
		snprintf(res->error, sizeof(res->error),
			 "%.140s; its restore note is kept for hugepar recover", line);
	}
}

/* Pages were asked for and no entry could be used: nothing of the intent is done,
 * and the run has failed, not "nothing to do". */
static void rejected_fold(const struct hp_settings *s, struct hp_result *res)
{
	unsigned n = settings_pages_rejected(s);

	if (s->nentries || !n || !s->enabled)
		return;
	res->status = HP_STATUS_FAILED;
	if (!res->error[0])
		snprintf(res->error, sizeof(res->error),
			 "no pages entry could be used: %s %u given %s rejected (hugepar "
			 "status names %s)",
			 n == 1 ? "the" : "all", n, n == 1 ? "was" : "were",
			 n == 1 ? "it" : "them");
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
	if (context_capture_kernel(c, why, sizeof(why)))
		return stand_aside(c, why);
	restore_recover(rec.fix, HP_MAX_SIZES, &rec.n);
	if (context_load_machine(c))
		return apply_failed(c, &rec, EXIT_FAIL, "cannot read the topology: %s",
				    c->topo.error);
	fault_at("topology");
	if (c->topo.warning[0]) /* (plan shows it as its "Note:") */
		fprintf(stderr, "hugepar: note: %s\n", c->topo.warning);
	rc = engine_apply(&c->settings, &c->topo, &c->plan, c->method, deadline, &res);
	recovery_fold(&rec, &res);
	rejected_fold(&c->settings, &res);
	if (rc)
		fprintf(stderr, "hugepar: %s\n", res.error);
	context_load_setters(c, &res);
	rc = fault_at("record");
	if (!rc)
		rc = record_write(c->record_dir, &c->settings, &c->topo, &c->plan, &res,
				  &rec, &c->setters);
	kmsg_summary(&c->topo, &c->plan, &res, &rec);
	kmsg_setters(&c->setters);
	/* the record is what the booted system reads: a run without one has failed,
	 * whatever it reserved */
	if (rc)
		log_line(LOG_ERR, "cannot write the record in %s: %s", c->record_dir,
			 strerror(-rc));
	fault_at("done");
	rc = rc ? EXIT_FAIL : context_exit_code(res.status);
	engine_result_free(&res);
	return rc;
}

/* Take the run lock, then (only then: a run that waits for it, or fails before it,
 * must not speak for the one that holds it) publish what wait reads. */
static int apply(struct ctx *c, uint64_t deadline, uint64_t boot_deadline)
{
	struct hp_recovery none = {0};
	uint64_t ticks;
	int rc = restore_run_lock(deadline);

	if (rc == -EAGAIN)
		return apply_failed(
		    c, &none, EXIT_BUSY, "%s",
		    "another hugepar apply held the lock until the deadline");
	if (rc)
		return apply_failed(c, &none, EXIT_FAIL,
				    "cannot take the lock in " HP_RUN_DIR ": %s",
				    restore_dir_error(rc));
	waiter_clear(c->record_dir);
	if (sys_self_start(&ticks) ==
	    0) /* before the pid: wait checks one by the other */
		publish(c, HP_PUB_START, ticks);
	publish(c, HP_PUB_PID, (uint64_t)getpid());
	publish(c, HP_PUB_DEADLINE, boot_deadline);
	rc = apply_locked(c, deadline);
	publish(c, HP_PUB_EXIT, (uint64_t)rc);
	restore_run_unlock();
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
	changed = strcmp(r.run.settings.digest, now) != 0;
	record_unload(&r);
	return changed;
}

/* After a run that took settings the initramfs has not: HP_STALE_MARK in the record
 * directory, their digest in it, for hugepar-initramfs.service to build it again. */
static void mark_initramfs_stale(const struct ctx *c, const char *digest)
{
	char p[4096], tmp[4200], text[80];
	int n = snprintf(text, sizeof(text), "%s\n", digest), rc;

	if (text_snprintf(p, sizeof(p), "%s/%s", c->record_dir, HP_STALE_MARK) ||
	    text_snprintf(tmp, sizeof(tmp), "%s/.%s.new", c->record_dir, HP_STALE_MARK))
		rc = -ENAMETOOLONG;
	else
		rc = file_replace(p, tmp, text, (size_t)n);
	if (rc)
		fprintf(stderr, "hugepar: cannot write %s: %s\n", p, strerror(-rc));
}

int cmd_apply(struct ctx *c)
{
	uint64_t start = clock_now_ms(), boot = sys_boottime_ms();
	int rc = restore_dir_check(c->record_dir, true);
	char digest[64];

	if (rc) {
		fprintf(stderr, "hugepar: the record directory %s: %s\n", c->record_dir,
			restore_dir_error(rc));
		return EXIT_FAIL;
	}
	stop_install();
	fault_init(getpid());
	fault_at("start");
	if (fault_flag("parallel")) /* the test build's boot tests: no probe */
		c->method = HP_METHOD_PARALLEL;
	if (context_load_settings(c)) {
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
			log_line(LOG_NOTICE,
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

const struct command apply_command = {
    .name = "apply",
    .summary = "reserve the planned huge pages now, on every node in parallel",
    .about =
	"Carry the plan out: on every node at once, threads (worker processes)\n"
	"pinned to it reserve the pages, one write makes them the pool's, each node is\n"
	"read back and topped up or trimmed. The record goes to the record directory\n"
	"and one line to the kernel log. The initramfs runs it at every boot; on a\n"
	"running system it takes what the settings ask now.\n",
    .options = OPT_SYSROOT | OPT_CONFIG | OPT_CMDLINE | OPT_METHOD | OPT_RECORD_DIR |
	       OPT_IF_CHANGED | OPT_ROOT,
    .examples = " hugepar apply\n"
		"        the settings now, on this running system (as root)\n"
		" hugepar apply --cmdline 'rd.hugepar.pages=2M:4096'\n"
		"        once, with a value that is in no file\n"
		" hugepar apply --if-changed\n"
		"        only if the settings files differ from those the boot read\n"
		" hugepar apply --root /sysroot --if-changed\n"
		"        in the initramfs, the root's files (Ignition wrote them)\n",
    .exits = "0 every request met, 64 partial, 1 failed, 75 another apply held the lock",
    .run = cmd_apply,
};
