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

static char root[64];

/* A file under the root, and the directories above it. */
static void put(const char *rel, const char *text)
{
	char p[256], *slash;
	size_t len = strlen(text);
	int fd;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	slash = strrchr(p, '/');
	*slash = '\0';
	mkdir_p(p);
	*slash = '/';
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	CHECK(fd >= 0 && write(fd, text, len) == (ssize_t)len);
	if (fd >= 0)
		close(fd);
}

static char *at(const char *rel)
{
	static char p[256];

	snprintf(p, sizeof(p), "%s%s", root, rel);
	return p;
}

#define SYS_2M "/sys/kernel/mm/hugepages/hugepages-2048kB/"
#define NODE0  "/sys/devices/system/node/node0/"
#define NOTE   "/run/hugepar/restore-2048kB"

/*
 * A temp root: one node of two CPUs and 1G with 10 2M pages, nr_overcommit_hugepages
 * 5, as test/mkfixture.sh writes it, under the simulated kernel when sim is set.
 */
static void fixture(bool sim)
{
	strcpy(root, "/tmp/hugepar-restore.XXXXXX");
	if (!mkdtemp(root)) {
		CHECK(!"mkdtemp");
		exit(1);
	}
	put("/proc/meminfo", "MemTotal:       1048576 kB\nMemFree:        819200 kB\n"
			     "Hugepagesize:       2048 kB\n");
	put("/proc/sys/kernel/osrelease", "6.1.0\n");
	put("/sys/devices/system/cpu/online", "0-1\n");
	put("/sys/devices/system/node/online", "0\n");
	put("/sys/devices/system/node/possible", "0\n");
	put("/sys/devices/system/node/has_cpu", "0\n");
	put("/sys/devices/system/node/has_memory", "0\n");
	put(NODE0 "cpulist", "0-1\n");
	put(NODE0 "meminfo", "Node 0 MemTotal:       1048576 kB\n"
			     "Node 0 MemFree:        819200 kB\n"
			     "Node 0 MemUsed:        229376 kB\n");
	put(NODE0 "hugepages/hugepages-2048kB/nr_hugepages", "10\n");
	put(NODE0 "hugepages/hugepages-2048kB/free_hugepages", "10\n");
	put(NODE0 "hugepages/hugepages-2048kB/surplus_hugepages", "0\n");
	put(SYS_2M "nr_hugepages", "10\n");
	put(SYS_2M "free_hugepages", "10\n");
	put(SYS_2M "surplus_hugepages", "0\n");
	put(SYS_2M "resv_hugepages", "0\n");
	put(SYS_2M "nr_overcommit_hugepages", "5\n");
	path_set_root(root);
	if (sim) {
		CHECK(sim_open() == 0);
		hugetlb_use(&hugetlb_sim);
	}
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	return remove(p);
}

static void cleanup(void)
{
	run_unlock();
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The overcommit value the kernel has now, or a value no test sets. */
static uint64_t overcommit(void)
{
	struct hp_global g;

	return hugetlb_global(2048, &g) ? 999999 : g.overcommit;
}

static bool exists(const char *rel)
{
	struct stat st;

	return lstat(at(rel), &st) == 0;
}

/* The whole text of a file under the root, "" when it cannot be read. */
static const char *text_of(const char *rel)
{
	static char buf[256];

	if (path_read(buf, sizeof(buf), "%s", rel))
		buf[0] = '\0';
	return buf;
}

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

UNIT_TEST(lock_taken,
	  "the run lock: taken, its directory 0755 under any umask, taken again")
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

/* A note that cannot be read is said (rc) and left for someone to look at; the
 * overcommit value is not touched. Returns the fix's rc. */
static int hostile(const char *what)
{
	struct restore_fix fix[HUGETLB_MAX_SIZES];
	unsigned n = 77;

	CHECK(restore_recover(fix, HUGETLB_MAX_SIZES, &n) == 0);
	if (n != 1) {
		fprintf(stderr, "%s: %u notes\n", what, n);
		CHECK(n == 1);
		return 0;
	}
	CHECK(fix[0].kb == 2048);
	CHECK(overcommit() == 300);
	if (!fix[0].rc)
		fprintf(stderr, "%s: taken as a note\n", what);
	return fix[0].rc;
}

static void hostile_fixture(void)
{
	fixture(true);
	CHECK(run_lock(now_ms() + 1000) == 0);
	CHECK(hugetlb_set_overcommit(2048, 300) == 0);
}

UNIT_TEST(note_empty, "an empty restore note is refused and kept")
{
	hostile_fixture();
	put(NOTE, "");
	CHECK(hostile("empty") == -EINVAL);
	CHECK(exists(NOTE));
	cleanup();
}

UNIT_TEST(note_garbage, "garbage, fields out of order, signs, pid 0: the note refused")
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
	CHECK(exists(NOTE));
	cleanup();
}

/* A value of 20 digits past 2^64 - 1 is out of range, not the largest value. */
UNIT_TEST(note_overflow,
	  "note values past 2^64-1 or pid_t are out of range; the largest is not")
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
	CHECK(exists(NOTE));
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
UNIT_TEST(note_symlink, "a link in a note's place is not read, nor its target removed")
{
	hostile_fixture();
	put("/elsewhere", "before 5\nraised 300\npid 1\n");
	CHECK(symlink("../../elsewhere", at(NOTE)) == 0);
	CHECK(strcmp(text_of(NOTE), "before 5\nraised 300\npid 1\n") == 0);
	CHECK(hostile("symlink") == -ELOOP);
	CHECK(exists(NOTE) && exists("/elsewhere"));
	cleanup();
}

/* A FIFO (nothing writes to it) or a directory in a note's place: an error at once,
 * not a run that hangs in its open() until the boot's deadline. */
UNIT_TEST(note_fifo, "a FIFO or a directory in a note's place fails at once, no hang")
{
	hostile_fixture();
	CHECK(mkfifo(at(NOTE), 0644) == 0);
	CHECK(hostile("FIFO") == -EINVAL);
	CHECK(exists(NOTE));
	CHECK(unlink(at(NOTE)) == 0 && mkdir(at(NOTE), 0755) == 0);
	CHECK(hostile("directory") == -EINVAL);
	cleanup();
}

/* Names that are not a note of this form are not read: a temp file of a note half
 * written, another name. */
UNIT_TEST(note_names, "names not of a note's form are not read")
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
