/* SPDX-License-Identifier: GPL-2.0-or-later */
/* restore_note.c - unit tests: restore notes that are not notes (garbage, values out of
 * range, links, FIFOs, other names) are named malformed, moved aside once, and block
 * nothing; the note's parser. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "restore_fixture.h"
#include "sys.h"

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
	recovery_describe(&fix[0], line, sizeof(line));
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
	CHECK(run_lock(now_ms() + 1000) == 0);
	CHECK(hugetlb_set_overcommit(2048, 300) == 0);
}

UNIT_TEST(empty, "an empty note is named malformed, moved aside once, and blocks nothing")
{
	hostile_fixture();
	put(NOTE, "");
	CHECK(hostile("empty") == -EINVAL);
	cleanup();
}

UNIT_TEST(garbage, "garbage, fields out of order, a missing pid or a sign: each a malformed note")
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
UNIT_TEST(overflow, "a value of 20 digits past 2^64 - 1 is out of range, not the largest value")
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
UNIT_TEST(symlink, "a link in a note's place is not read: the value it names is not put back")
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
	recovery_describe(&fix[0], line, sizeof(line));
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
UNIT_TEST(names, "only names of a note's form are read: not a half-written temp file, not others")
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
