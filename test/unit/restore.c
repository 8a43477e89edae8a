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
		c = run_lock(now_ms() + 5000) == 0 ? 'L' : 'x';
		if (write(up[1], &c, 1) != 1)
			_exit(1);
		while (read(down[0], &c, 1) == 1)
			if (c == 'u')
				run_unlock();
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

UNIT_TEST(lock_taken, "the run lock: taken, its directory 0755 under any umask, taken again")
{
	struct stat st;

	fixture(false);
	umask(077); /* a hook's umask: the directory is readable by all anyway */
	CHECK(run_lock(now_ms() + 1000) == 0);
	CHECK(lstat(at("/run/hugepar"), &st) == 0 && S_ISDIR(st.st_mode) &&
	      (st.st_mode & 07777) == 0755);
	CHECK(lstat(at("/run/hugepar/lock"), &st) == 0 && S_ISREG(st.st_mode));
	run_unlock();
	CHECK(run_lock(now_ms() + 1000) == 0); /* taken again after its unlock */
	run_unlock();
	/* one that was there keeps its owner's mode */
	CHECK(chmod(at("/run/hugepar"), 01700) == 0 && run_lock(now_ms() + 1000) == 0);
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
	CHECK(run_lock(now_ms() + 100) == -EAGAIN);
	CHECK(run_lock(now_ms()) == -EAGAIN);
	CHECK(write(ctl, "u", 1) == 1);
	CHECK(run_lock(now_ms() + 30000) == 0);
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
	CHECK(run_lock(now_ms() + 50) == -EAGAIN);
	kill(pid, SIGKILL);
	CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status));
	CHECK(run_lock(now_ms() + 1000) == 0);
	close(ctl);
	cleanup();
}

UNIT_TEST(note_written, "a restore note is written whole, replaced whole, removed once")
{
	char want[128];

	fixture(false);
	CHECK(run_lock(now_ms() + 1000) == 0); /* makes the directory */
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
UNIT_TEST(killed_run_undone, "a run killed between raise and put back: the next one puts it back")
{
	struct restore_fix fix[HUGETLB_MAX_SIZES];
	char line[256], want[256];
	unsigned n = 77;
	int status;
	pid_t pid;

	fixture(true);
	CHECK(overcommit() == 5);
	CHECK(run_lock(now_ms() + 1000) == 0);
	run_unlock();
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

	CHECK(run_lock(now_ms() + 1000) == 0);
	CHECK(restore_recover(fix, HUGETLB_MAX_SIZES, &n) == 0);
	CHECK(n == 1);
	CHECK(fix[0].kb == 2048 && fix[0].before == 5 && fix[0].raised == 300 &&
	      fix[0].found == 300 && fix[0].pid == pid && fix[0].rc == 0 &&
	      !fix[0].changed_since);
	CHECK(overcommit() == 5);
	CHECK(strcmp(text_of(SYS_2M "nr_overcommit_hugepages"), "5\n") == 0);
	CHECK(!exists(NOTE));
	recovery_describe(&fix[0], line, sizeof(line));
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
	CHECK(run_lock(now_ms() + 1000) == 0);
	CHECK(hugetlb_set_overcommit(2048, 400) == 0);
	put(NOTE, "before 5\nraised 300\npid 4242\n");
	CHECK(restore_recover(fix, HUGETLB_MAX_SIZES, &n) == 0 && n == 1);
	CHECK(fix[0].rc == 0 && fix[0].changed_since && fix[0].found == 400);
	CHECK(overcommit() == 400); /* theirs stands */
	CHECK(!exists(NOTE));
	recovery_describe(&fix[0], line, sizeof(line));
	CHECK(strcmp(line, "2M: nr_overcommit_hugepages raised by pid 4242 to 300 is 400 "
			   "now: left as it is") == 0);

	CHECK(hugetlb_set_overcommit(2048, 5) == 0);
	put(NOTE, "before 5\nraised 300\npid 4243\n");
	CHECK(restore_recover(fix, HUGETLB_MAX_SIZES, &n) == 0 && n == 1);
	CHECK(fix[0].rc == 0 && fix[0].changed_since && fix[0].found == 5);
	CHECK(overcommit() == 5 && !exists(NOTE));
	recovery_describe(&fix[0], line, sizeof(line));
	CHECK(strcmp(line, "2M: pid 4243 ended before raising nr_overcommit_hugepages") ==
	      0);
	cleanup();
}
