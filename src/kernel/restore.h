/* SPDX-License-Identifier: GPL-2.0-or-later */
/* restore.h - the run lock (one run at a time changes the pools) and the restore
 * notes, under the path layer's root. */
#ifndef HUGEPAR_RESTORE_H
#define HUGEPAR_RESTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hugetlb.h"

/* A directory hugepar writes in must be ours: a real directory (not a link), owned
 * by this user, writable by no one else. Made (0755) when missing; one that is there
 * keeps its mode. The path is taken as it is, not under the root. */
int restore_dir_check(const char *dir, bool make);
/* What restore_dir_check()'s error (or restore_run_lock()'s) says about the directory. */
const char *restore_dir_error(int rc);

/* Take the run lock, waiting until deadline_ms. -EAGAIN: another run held it. */
int restore_run_lock(uint64_t deadline_ms);
void restore_run_unlock(void);

/* A size's restore note (HP_RUN_DIR/restore-<kB>kB, the value to put back): written
 * (atomically) before a run raises its nr_overcommit_hugepages, removed after the
 * value is back; a run killed in between leaves it, and the next run (or `hugepar
 * recover`) puts the value back; a note that is not there is removed already.
 * -EEXIST: a note is there already (a value an earlier run left that could not be
 * put back): it is kept, and the size must not be raised. */
int restore_note_write(uint64_t kb, uint64_t before, uint64_t raised);
int restore_note_remove(uint64_t kb);
bool restore_note_exists(uint64_t kb);

struct restore_fix {
	uint64_t kb;
	uint64_t before, raised, found; /* found: the value when the note was read */
	long pid;			/* the run that left it */
	int rc;				/* 0: put back (or someone else had) */
	bool changed_since;		/* found != raised: left as it was */
	bool malformed;			/* not a note (rc says why): moved aside */
	int aside_rc;			/* when malformed: the move's -errno, or 0 */
};

/* A note's text, as restore_note_write() writes it: before, raised and pid into f.
 * -EINVAL or -ERANGE for anything else. */
int restore_note_parse(const char *text, struct restore_fix *f);

/* Put back what dead runs left raised, as their restore notes say, and remove the
 * notes (the run lock must be held). A value that cannot be put back is a fix with
 * rc, its note kept. A note that is not one (garbage, a link, a FIFO) is a fix with
 * rc and malformed set, renamed restore-<kB>kB.bad, its value left as found. */
int restore_recover(struct restore_fix *fixes, unsigned max, unsigned *n);
/* A value that could not be put back (not a malformed note, which blocks nothing). */
bool restore_fix_failed(const struct restore_fix *f);

/* What a run found left behind and did about it, for the record. */
struct hp_recovery {
	unsigned n;
	struct restore_fix fix[HUGETLB_MAX_SIZES];
};

/* One line: "2048kB: nr_overcommit_hugepages put back from 300 to 0, left by pid 12" */
void restore_describe(const struct restore_fix *f, char *buf, size_t len);

#endif
