/* SPDX-License-Identifier: GPL-2.0-or-later */
/* restore.c - the run lock, and the restore notes that undo a killed run's raise. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "text.h"
#include "file.h"
#include "clock.h"
#include "hugetlb.h"
#include "parse.h"
#include "path.h"
#include "restore.h"
#include "sys.h"

static int lock_fd = -1;

int restore_dir_check(const char *dir, bool make)
{
	struct stat st;
	bool made = false;

	if (lstat(dir, &st) && errno == ENOENT && make) {
		int rc = file_mkdir_p(dir);

		if (rc)
			return rc;
		made = true;
	}
	if (lstat(dir, &st))
		return -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != geteuid() || (st.st_mode & 022))
		return -EPERM;
	/* one made here is readable by all, whatever the umask; one that was there
	 * keeps the mode its owner gave it (0700, a sticky bit) */
	if (made && (st.st_mode & 07777) != 0755 && chmod(dir, 0755))
		return -errno;
	return 0;
}

const char *restore_dir_error(int rc)
{
	return rc == -ELOOP	? "a symbolic link: not followed"
	       : rc == -EPERM	? "not owned by this user, or writable by others"
	       : rc == -ENOTDIR ? "not a directory"
				: strerror(-rc);
}

/* The state directory, checked once and held open while the lock is: every name in
 * it is reached from this descriptor with O_NOFOLLOW, so that a link put in its
 * place, or in the place of a name in it, is never followed. */
static int state_fd = -1;

static int state_open(void)
{
	char p[4096];
	int rc;

	if (state_fd >= 0)
		return state_fd;
	if (path_build(p, sizeof(p), "%s", HP_RUN_DIR))
		return -ENAMETOOLONG;
	rc = restore_dir_check(p, true);
	if (rc)
		return rc;
	state_fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return state_fd < 0 ? -errno : state_fd;
}

int restore_run_lock(uint64_t deadline)
{
	int dfd = state_open();

	if (dfd < 0)
		return dfd;
	lock_fd = openat(dfd, "lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (lock_fd < 0)
		return -errno;
	while (flock(lock_fd, LOCK_EX | LOCK_NB) < 0) {
		int rc = errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;

		if (!rc && clock_now_ms() >= deadline)
			rc = -EAGAIN;
		if (rc) {
			restore_run_unlock();
			return rc;
		}
		clock_sleep_ms(20);
	}
	return 0;
}

void restore_run_unlock(void)
{
	if (lock_fd >= 0)
		close(lock_fd);
	if (state_fd >= 0)
		close(state_fd);
	lock_fd = state_fd = -1;
}

static void note_name_of(char *buf, size_t len, uint64_t kb)
{
	snprintf(buf, len, "restore-%llukB", (unsigned long long)kb);
}

int restore_note_write(uint64_t kb, uint64_t before, uint64_t raised)
{
	char name[64], tmp[72], text[128];
	int n, fd, rc = 0, dfd = state_open();

	if (dfd < 0)
		return dfd;
	note_name_of(name, sizeof(name), kb);
	snprintf(tmp, sizeof(tmp), "%s.new", name);
	n = snprintf(text, sizeof(text), "before %llu\nraised %llu\npid %ld\n",
		     (unsigned long long)before, (unsigned long long)raised,
		     (long)getpid());
	fd =
	    openat(dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	errno = 0;
	if (write(fd, text, (size_t)n) != n)
		rc = errno ? -errno : -EIO;
	if (close(fd) && !rc)
		rc = -errno;
	/* written whole, then linked in: a note already there (an earlier run's value
	 * that could not be put back) is never replaced by one with a later value */
	if (!rc && linkat(dfd, tmp, dfd, name, 0))
		rc = -errno;
	unlinkat(dfd, tmp, 0);
	return rc;
}

bool restore_note_exists(uint64_t kb)
{
	char name[64];
	struct stat st;
	int dfd = state_open();

	note_name_of(name, sizeof(name), kb);
	return dfd >= 0 && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

int restore_note_remove(uint64_t kb)
{
	char name[64];
	int dfd = state_open();

	if (dfd < 0)
		return dfd;
	note_name_of(name, sizeof(name), kb);
	return unlinkat(dfd, name, 0) && errno != ENOENT ? -errno : 0;
}

/* "KEY N\n" at *p, advancing past it. */
static int note_field(const char **p, const char *key, uint64_t *v)
{
	size_t n = strlen(key);
	int rc;

	if (strncmp(*p, key, n) || (*p)[n] != ' ')
		return -EINVAL;
	*p += n + 1;
	if ((*p)[0] == '0' && (*p)[1] != '\n') /* never written so */
		return -EINVAL;
	rc = parse_u64_at(p, v);
	if (rc)
		return rc;
	if (**p != '\n')
		return -EINVAL;
	(*p)++;
	return 0;
}

/* A note's text: a regular file of its own, not through a link, and opened without
 * blocking, so that a FIFO in its place cannot hang the run that recovers. */
static int read_note_text(int dfd, const char *name, char *buf, size_t len)
{
	struct stat st;
	size_t got = 0;
	int rc = 0,
	    fd = openat(dfd, name,
			O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		rc = -errno;
	else if (!S_ISREG(st.st_mode))
		rc = -EINVAL;
	while (!rc && got + 1 < len) {
		ssize_t n = read(fd, buf + got, len - 1 - got);

		if (n < 0 && errno != EINTR)
			rc = -errno;
		else if (n == 0)
			break;
		else if (n > 0)
			got += (size_t)n;
	}
	close(fd);
	if (!rc && got + 1 >= len)
		rc = -EFBIG;
	buf[rc ? 0 : got] = '\0';
	return rc;
}

/* A note is read as restore_note_write() writes it, and nothing else: a value out of
 * range must not be put back as the largest one (sscanf's %llu would). */
int restore_note_parse(const char *text, struct restore_fix *f)
{
	const char *p = text;
	uint64_t before, raised, pid;
	int rc = note_field(&p, "before", &before);

	if (!rc)
		rc = note_field(&p, "raised", &raised);
	if (!rc)
		rc = note_field(&p, "pid", &pid);
	if (!rc && (*p || pid == 0))
		rc = -EINVAL;
	if (!rc && pid > INT_MAX)
		rc = -ERANGE;
	if (rc)
		return rc;
	f->before = before;
	f->raised = raised;
	f->pid = (long)pid;
	return 0;
}

/* The size of a note's name, only as note_name_of() writes it: another name (a temp
 * file, a leading zero or sign) is not a note, and would never be removed. */
static bool note_name(const char *name, uint64_t *kb)
{
	const char *p = name + 8;
	char canon[64];

	if (strncmp(name, "restore-", 8) || parse_u64_at(&p, kb) || strcmp(p, "kB"))
		return false;
	snprintf(canon, sizeof(canon), "restore-%llukB", (unsigned long long)*kb);
	return strcmp(canon, name) == 0;
}

/* A note that is not one (garbage, a link, a FIFO): moved aside once, so that it
 * blocks no run and is said once; its value is left as it is. */
static void set_aside(int dfd, const char *name, struct restore_fix *f)
{
	char bad[72];
	struct hp_global g;

	f->malformed = true;
	if (hugetlb_global(f->kb, &g) == 0)
		f->found = g.overcommit;
	snprintf(bad, sizeof(bad), "%s.bad", name);
	f->aside_rc = renameat(dfd, name, dfd, bad) ? -errno : 0;
}

/* One note: put its value back, unless someone set another since. */
static void recover_one(int dfd, const char *name, struct restore_fix *f)
{
	char text[256];
	struct hp_global g;

	f->rc = read_note_text(dfd, name, text, sizeof(text));
	if (!f->rc)
		f->rc = restore_note_parse(text, f);
	if (f->rc && f->rc != -ENOENT) {
		set_aside(dfd, name, f);
		return;
	}
	if (!f->rc)
		f->rc = hugetlb_global(f->kb, &g);
	if (!f->rc) {
		f->found = g.overcommit;
		/* Someone set another value since: theirs stands. */
		f->changed_since = g.overcommit != f->raised;
		if (!f->changed_since)
			f->rc = hugetlb_set_overcommit(f->kb, f->before);
	}
	if (!f->rc)
		f->rc = restore_note_remove(f->kb);
}

int restore_recover(struct restore_fix *fixes, unsigned max, unsigned *n)
{
	struct path_dir d;
	const char *name;
	int dfd = state_open(), rc;

	*n = 0;
	if (dfd < 0)
		return dfd;
	rc = path_dir_at(&d, dfd, ".");
	if (rc)
		return rc;
	while (*n < max && (name = path_dir_next(&d))) {
		struct restore_fix *f = &fixes[*n];
		uint64_t kb;

		if (!note_name(name, &kb))
			continue;
		memset(f, 0, sizeof(*f));
		f->kb = kb;
		recover_one(dfd, name, f);
		if (f->rc != -ENOENT) /* (gone since the listing: no note) */
			(*n)++;
	}
	path_dir_close(&d);
	return 0;
}

bool restore_fix_failed(const struct restore_fix *f)
{
	return f->rc && !f->malformed;
}

void restore_describe(const struct restore_fix *f, char *buf, size_t len)
{
	char sz[16];

	text_size_kb(f->kb, sz, sizeof(sz));
	if (f->malformed && f->aside_rc)
		snprintf(
		    buf, len,
		    "%s: the restore note restore-%llukB is malformed (%s) and could "
		    "not be moved aside (%s); nr_overcommit_hugepages left at %llu",
		    sz, (unsigned long long)f->kb, strerror(-f->rc),
		    strerror(-f->aside_rc), (unsigned long long)f->found);
	else if (f->malformed)
		snprintf(
		    buf, len,
		    "%s: the restore note restore-%llukB is malformed (%s): moved "
		    "aside as restore-%llukB.bad; nr_overcommit_hugepages left at %llu",
		    sz, (unsigned long long)f->kb, strerror(-f->rc),
		    (unsigned long long)f->kb, (unsigned long long)f->found);
	else if (f->rc)
		snprintf(
		    buf, len,
		    "%s: nr_overcommit_hugepages left at %llu by pid %ld could not be "
		    "put back to %llu: %s",
		    sz, (unsigned long long)f->found, f->pid,
		    (unsigned long long)f->before, strerror(-f->rc));
	else if (f->changed_since && f->found == f->before)
		snprintf(buf, len,
			 "%s: pid %ld ended before raising nr_overcommit_hugepages", sz,
			 f->pid);
	else if (f->changed_since)
		snprintf(
		    buf, len,
		    "%s: nr_overcommit_hugepages raised by pid %ld to %llu is %llu now: "
		    "left as it is",
		    sz, f->pid, (unsigned long long)f->raised,
		    (unsigned long long)f->found);
	else
		snprintf(buf, len,
			 "%s: nr_overcommit_hugepages left at %llu by pid %ld put back "
			 "to %llu",
			 sz, (unsigned long long)f->found, f->pid,
			 (unsigned long long)f->before);
}
