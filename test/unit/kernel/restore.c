/* SPDX-License-Identifier: GPL-2.0-or-later */
/* restore.c - unit tests: the run lock, restore notes written, read back, undone. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "file.h"
#include "hugetlb.h"
#include "path.h"
#include "restore.h"
#include "sim.h"
#include "sys.h"
#include "unit.h"

#include "restore_fixture.h"

/* A child that takes the run lock, says so on a pipe and waits for a word back:
 * 'u' to unlock and wait on, EOF to exit. */
static pid_t holder(int *ctl)
{
	int up[2], down[2];
	char c = 0;
	pid_t pid;

	if (pipe(up) || pipe(down))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		c = restore_run_lock(sys_mono_ms() + 5000) == 0 ? 'L' : 'x';
		if (write(up[1], &c, 1) != 1)
			_exit(1);
		while (read(down[0], &c, 1) == 1)
			if (c == 'u')
				restore_run_unlock();
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	if (pid < 0 || read(up[0], &c, 1) != 1 || c != 'L') {
		CHECK(!"the holder took the run lock");
		return -1;
	}
	close(up[0]);
	*ctl = down[1];
	return pid;
}

UNIT_TEST(lock_taken,
	  "the run lock: taken, its directory 0755 under any umask, taken again")
{
	struct stat st;

	fixture(false);
	umask(077); /* a hook's umask: the directory is readable by all anyway */
	CHECK(restore_run_lock(sys_mono_ms() + 1000) == 0);
	CHECK(lstat(at("/run/hugepar"), &st) == 0 && S_ISDIR(st.st_mode) &&
	      (st.st_mode & 07777) == 0755);
	CHECK(lstat(at("/run/hugepar/lock"), &st) == 0 && S_ISREG(st.st_mode));
	restore_run_unlock();
	CHECK(restore_run_lock(sys_mono_ms() + 1000) ==
	      0); /* taken again after its unlock */
	restore_run_unlock();
	/* one that was there keeps its owner's mode */
	CHECK(chmod(at("/run/hugepar"), 01700) == 0 &&
	      restore_run_lock(sys_mono_ms() + 1000) == 0);
	CHECK(lstat(at("/run/hugepar"), &st) == 0 && (st.st_mode & 07777) == 01700);
	cleanup();
}

/* Refused while another process holds it, until the deadline; taken as soon as the
 * holder lets go. */
UNIT_TEST(lock_refused, "the lock is refused while held, until the deadline, then taken")
{
	int ctl, status;
	pid_t pid;

	fixture(false);
	pid = holder(&ctl);
	CHECK(pid > 0);
	CHECK(restore_run_lock(sys_mono_ms() + 100) == -EAGAIN);
	CHECK(restore_run_lock(sys_mono_ms()) == -EAGAIN);
	CHECK(write(ctl, "u", 1) == 1);
	CHECK(restore_run_lock(sys_mono_ms() + 30000) == 0);
	close(ctl);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
	cleanup();
}

/* A holder killed with the lock held: the kernel lets it go with the process. */
UNIT_TEST(lock_holder_dies, "a holder killed with the lock: the kernel lets it go")
{
	int ctl, status;
	pid_t pid;

	fixture(false);
	pid = holder(&ctl);
	CHECK(pid > 0);
	CHECK(restore_run_lock(sys_mono_ms() + 50) == -EAGAIN);
	kill(pid, SIGKILL);
	CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status));
	CHECK(restore_run_lock(sys_mono_ms() + 1000) == 0);
	close(ctl);
	cleanup();
}

UNIT_TEST(note_written, "a restore note is written whole, replaced whole, removed once")
{
	char want[128];

	fixture(false);
	CHECK(restore_run_lock(sys_mono_ms() + 1000) == 0); /* makes the directory */
	CHECK(restore_note_write(2048, 5, 300) == 0);
	snprintf(want, sizeof(want), "before 5\nraised 300\npid %ld\n", (long)getpid());
	CHECK(strcmp(text_of(NOTE), want) == 0);
	CHECK(!exists(NOTE ".new"));
	/* written again while there (a value not put back): kept, refused */
	CHECK(restore_note_write(2048, 300, 600) == -EEXIST);
	CHECK(strcmp(text_of(NOTE), want) == 0 && !exists(NOTE ".new"));
	CHECK(restore_note_exists(2048) && !restore_note_exists(4096));
	CHECK(restore_note_remove(2048) == 0);
	CHECK(restore_note_write(2048, 0, 18446744073709551615u) == 0);
	snprintf(want, sizeof(want), "before 0\nraised 18446744073709551615\npid %ld\n",
		 (long)getpid());
	CHECK(strcmp(text_of(NOTE), want) == 0);
	CHECK(restore_note_write(1048576, 2, 3) == 0);
	CHECK(exists("/run/hugepar/restore-1048576kB"));
	CHECK(restore_note_remove(2048) == 0);
	CHECK(!exists(NOTE));
	CHECK(exists("/run/hugepar/restore-1048576kB"));
	CHECK(restore_note_remove(2048) == 0); /* removed already */
	cleanup();
}

/* A run killed between its raise and the put back: the next one puts it back. */
UNIT_TEST(killed_run_undone,
	  "a run killed between raise and put back: the next one puts it back")
{
	struct restore_fix fix[HUGETLB_MAX_SIZES];
	char line[256], want[256];
	unsigned n = 77;
	int status;
	pid_t pid;

	fixture(true);
	CHECK(overcommit() == 5);
	CHECK(restore_run_lock(sys_mono_ms() + 1000) == 0);
	restore_run_unlock();
	pid = fork();
	if (pid == 0) {
		if (restore_note_write(2048, 5, 300) == 0 &&
		    hugetlb_set_overcommit(2048, 300) == 0)
			raise(SIGKILL);
		_exit(1);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
	      WTERMSIG(status) == SIGKILL);
	CHECK(overcommit() == 300);
	CHECK(exists(NOTE));

	CHECK(restore_run_lock(sys_mono_ms() + 1000) == 0);
	CHECK(restore_recover(fix, HUGETLB_MAX_SIZES, &n) == 0);
	CHECK(n == 1);
	CHECK(fix[0].kb == 2048 && fix[0].before == 5 && fix[0].raised == 300 &&
	      fix[0].found == 300 && fix[0].pid == pid && fix[0].rc == 0 &&
	      !fix[0].changed_since);
	CHECK(overcommit() == 5);
	CHECK(strcmp(text_of(SYS_2M "nr_overcommit_hugepages"), "5\n") == 0);
	CHECK(!exists(NOTE));
	restore_describe(&fix[0], line, sizeof(line));
	snprintf(want, sizeof(want),
		 "2M: nr_overcommit_hugepages left at 300 by pid %ld put back to 5",
		 (long)pid);
	CHECK(strcmp(line, want) == 0);
	/* nothing left for the run after */
	CHECK(restore_recover(fix, HUGETLB_MAX_SIZES, &n) == 0 && n == 0);
	cleanup();
}

/* A note whose value someone changed since, or that its run never raised to. */
UNIT_TEST(changed_since, "a note whose value someone changed since: theirs stands")
{
	struct restore_fix fix[HUGETLB_MAX_SIZES];
	char line[256];
	unsigned n = 77;

	fixture(true);
	CHECK(restore_run_lock(sys_mono_ms() + 1000) == 0);
	CHECK(hugetlb_set_overcommit(2048, 400) == 0);
	put(NOTE, "before 5\nraised 300\npid 4242\n");
	CHECK(restore_recover(fix, HUGETLB_MAX_SIZES, &n) == 0 && n == 1);
	CHECK(fix[0].rc == 0 && fix[0].changed_since && fix[0].found == 400);
	CHECK(overcommit() == 400); /* theirs stands */
	CHECK(!exists(NOTE));
	restore_describe(&fix[0], line, sizeof(line));
	CHECK(strcmp(line, "2M: nr_overcommit_hugepages raised by pid 4242 to 300 is 400 "
			   "now: left as it is") == 0);

	CHECK(hugetlb_set_overcommit(2048, 5) == 0);
	put(NOTE, "before 5\nraised 300\npid 4243\n");
	CHECK(restore_recover(fix, HUGETLB_MAX_SIZES, &n) == 0 && n == 1);
	CHECK(fix[0].rc == 0 && fix[0].changed_since && fix[0].found == 5);
	CHECK(overcommit() == 5 && !exists(NOTE));
	restore_describe(&fix[0], line, sizeof(line));
	CHECK(strcmp(line, "2M: pid 4243 ended before raising nr_overcommit_hugepages") ==
	      0);
	cleanup();
}

/* Restore notes that are not notes (garbage, values out of range, links, FIFOs, other
 * names) are named malformed, moved aside once, and block nothing; the note's parser. */

/* A note that is not one is named malformed (rc says why), moved aside once as
 * restore-2048kB.bad, and blocks nothing: the overcommit value is not touched, and
 * the next look finds no note. Returns the fix's rc. */
static int hostile(const char *what)
{
	struct restore_fix fix[HUGETLB_MAX_SIZES];
	char line[256];
	unsigned n = 77;

	CHECK(restore_recover(fix, HUGETLB_MAX_SIZES, &n) == 0);
	if (n != 1) {
		fprintf(stderr, "%s: %u notes\n", what, n);
		CHECK(n == 1);
		return 0;
	}
	CHECK(fix[0].kb == 2048 && fix[0].found == 300);
	CHECK(overcommit() == 300);
	if (!fix[0].rc)
		fprintf(stderr, "%s: taken as a note\n", what);
	CHECK(fix[0].malformed && fix[0].aside_rc == 0 && !restore_fix_failed(&fix[0]));
	CHECK(!exists(NOTE) && exists(NOTE ".bad"));
	restore_describe(&fix[0], line, sizeof(line));
	CHECK(strstr(line, "2M: the restore note restore-2048kB is malformed (") == line);
	CHECK(strstr(line,
		     "): moved aside as restore-2048kB.bad; nr_overcommit_hugepages "
		     "left at 300"));
	CHECK(restore_recover(fix, HUGETLB_MAX_SIZES, &n) == 0 && n == 0);
	return fix[0].rc;
}

static void hostile_fixture(void)
{
	fixture(true);
	CHECK(restore_run_lock(sys_mono_ms() + 1000) == 0);
	CHECK(hugetlb_set_overcommit(2048, 300) == 0);
}

UNIT_TEST(empty, "an empty note is named malformed, moved aside once, and blocks nothing")
{
	hostile_fixture();
	put(NOTE, "");
	CHECK(hostile("empty") == -EINVAL);
	cleanup();
}

UNIT_TEST(garbage,
	  "garbage, fields out of order, a missing pid or a sign: each a malformed note")
{
	hostile_fixture();
	put(NOTE, "\x7f"
		  "ELF\x02\x01\x01");
	CHECK(hostile("garbage") == -EINVAL);
	put(NOTE, "raised 300\nbefore 5\npid 1\n");
	CHECK(hostile("fields out of order") == -EINVAL);
	put(NOTE, "before 5\nraised 300\n");
	CHECK(hostile("no pid") == -EINVAL);
	put(NOTE, "before -5\nraised 300\npid 1\n");
	CHECK(hostile("a sign") == -EINVAL);
	put(NOTE, "before  5\nraised 300\npid 1\n");
	CHECK(hostile("two spaces") == -EINVAL);
	put(NOTE, "before 5\nraised 300\npid 1\nbefore 6\n");
	CHECK(hostile("more after the pid") == -EINVAL);
	put(NOTE, "before 5\nraised 300\npid 0\n");
	CHECK(hostile("pid 0") == -EINVAL);
	cleanup();
}

/* A value of 20 digits past 2^64 - 1 is out of range, not the largest value. */
UNIT_TEST(overflow,
	  "a value of 20 digits past 2^64 - 1 is out of range, not the largest value")
{
	hostile_fixture();
	put(NOTE, "before 99999999999999999999\nraised 300\npid 1\n");
	CHECK(hostile("before of 20 digits") == -ERANGE);
	put(NOTE, "before 18446744073709551616\nraised 300\npid 1\n");
	CHECK(hostile("before of 2^64") == -ERANGE);
	put(NOTE, "before 5\nraised 300\npid 99999999999999999999\n");
	CHECK(hostile("pid of 20 digits") == -ERANGE);
	put(NOTE, "before 5\nraised 300\npid 2147483648\n");
	CHECK(hostile("pid past pid_t") == -ERANGE);
	/* the largest value is a value */
	put(NOTE, "before 18446744073709551615\nraised 18446744073709551615\npid 1\n");
	{
		struct restore_fix fix[HUGETLB_MAX_SIZES];
		unsigned n = 77;

		CHECK(restore_recover(fix, HUGETLB_MAX_SIZES, &n) == 0 && n == 1);
		CHECK(fix[0].rc == 0 && fix[0].before == UINT64_MAX &&
		      fix[0].raised == UINT64_MAX && fix[0].changed_since);
		CHECK(overcommit() == 300 && !exists(NOTE));
	}
	cleanup();
}

/* A note is a file of its own: a link to a note elsewhere is not read (the value it
 * names is not put back, what it points to is not removed). */
UNIT_TEST(symlink,
	  "a link in a note's place is not read: the value it names is not put back")
{
	hostile_fixture();
	put("/elsewhere", "before 5\nraised 300\npid 1\n");
	CHECK(symlink("../../elsewhere", at(NOTE)) == 0);
	CHECK(strcmp(text_of(NOTE), "before 5\nraised 300\npid 1\n") == 0);
	CHECK(hostile("symlink") == -ELOOP);
	CHECK(exists("/elsewhere") &&
	      strcmp(text_of("/elsewhere"), "before 5\nraised 300\npid 1\n") == 0);
	cleanup();
}

/* A FIFO (nothing writes to it) or a directory in a note's place: an error at once,
 * not a run that hangs in its open() until the boot's deadline. */
UNIT_TEST(fifo, "a FIFO or a directory in a note's place is an error at once, not a hang")
{
	hostile_fixture();
	CHECK(mkfifo(at(NOTE), 0644) == 0);
	CHECK(hostile("FIFO") == -EINVAL);
	CHECK(unlink(at(NOTE ".bad")) == 0 && mkdir(at(NOTE), 0755) == 0);
	CHECK(hostile("directory") == -EINVAL);
	cleanup();
}

/* A note that cannot be moved aside (a directory of that name there) is said so, and
 * still blocks nothing: no value is put back, no failure counted. */
UNIT_TEST(stuck, "a note that cannot be moved aside is said so, and still blocks")
{
	struct restore_fix fix[HUGETLB_MAX_SIZES];
	char line[256];
	unsigned n = 77;

	hostile_fixture();
	put(NOTE ".bad/x", "");
	put(NOTE, "garbage\n");
	CHECK(restore_recover(fix, HUGETLB_MAX_SIZES, &n) == 0 && n == 1);
	CHECK(fix[0].malformed && fix[0].aside_rc == -EISDIR &&
	      !restore_fix_failed(&fix[0]));
	CHECK(overcommit() == 300 && exists(NOTE));
	restore_describe(&fix[0], line, sizeof(line));
	CHECK(strstr(line, ") and could not be moved aside (") != NULL);
	CHECK(restore_note_write(2048, 300, 400) == -EEXIST); /* still not written over */
	cleanup();
}

/* The parser alone: only the form restore_note_write() writes. */
UNIT_TEST(parse, "the parser alone: only the form restore_note_write() writes")
{
	struct restore_fix f = {0};

	CHECK(restore_note_parse("before 5\nraised 300\npid 12\n", &f) == 0 &&
	      f.before == 5 && f.raised == 300 && f.pid == 12);
	CHECK(restore_note_parse("before 5\nraised 300\npid 12", &f) == -EINVAL);
	CHECK(restore_note_parse("before 5\r\nraised 300\npid 12\n", &f) == -EINVAL);
	CHECK(restore_note_parse("before 05\nraised 300\npid 12\n", &f) == -EINVAL);
	CHECK(restore_note_parse("before 0\nraised 0\npid 1\n", &f) == 0 &&
	      f.before == 0);
	CHECK(restore_note_parse("", &f) == -EINVAL);
}

/* Names that are not a note of this form are not read: a temp file of a note half
 * written, another name. */
UNIT_TEST(
    names,
    "only names of a note's form are read: not a half-written temp file, not others")
{
	struct restore_fix fix[HUGETLB_MAX_SIZES];
	unsigned n = 77;

	hostile_fixture();
	put(NOTE ".new", "before 5\nraised 300\npid 1\n");
	put("/run/hugepar/restore-2048kBx", "before 5\nraised 300\npid 1\n");
	put("/run/hugepar/restore-kB", "before 5\nraised 300\npid 1\n");
	put("/run/hugepar/restored-2048kB", "before 5\nraised 300\npid 1\n");
	/* names the note of 2048kB is not written as, so it would never be removed */
	put("/run/hugepar/restore-02048kB", "before 5\nraised 300\npid 1\n");
	put("/run/hugepar/restore-+2048kB", "before 5\nraised 300\npid 1\n");
	put("/run/hugepar/restore- 2048kB", "before 5\nraised 300\npid 1\n");
	put("/run/hugepar/restore--1kB", "before 5\nraised 300\npid 1\n");
	CHECK(restore_recover(fix, HUGETLB_MAX_SIZES, &n) == 0 && n == 0);
	CHECK(overcommit() == 300);
	cleanup();
}
