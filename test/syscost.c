/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * syscost.c - for bench/whole.sh: what the things hugepar does before and after its
 * workers allocate cost on this machine (under emulation they are dear: a system call
 * that walks a path costs tens of microseconds there, a fork most of a millisecond).
 *   syscost    prints "COST NAME MICROSECONDS" for each, the mean of many
 * The sysfs files are hugetlb's own; nothing is changed (the writes write the value
 * that is there).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HP "/sys/kernel/mm/hugepages/hugepages-2048kB/"

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* the mean of n, from t0 until now */
static void show(const char *name, long long t0, int n)
{
	printf("COST %s %.1f\n", name, (double)(now_ns() - t0) / 1000.0 / n);
}

static void read_file(const char *file)
{
	char buf[64];
	int fd = open(file, O_RDONLY);

	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf)) < 0)
			perror(file);
		close(fd);
	}
}

/* System calls on hugetlb's sysfs files and on /run. */
static void file_costs(const char *now)
{
	long long t0 = now_ns();
	int fd;

	for (int i = 0; i < 200; i++)
		syscall(SYS_getppid);
	show("a-system-call-that-does-nothing", t0, 200);

	t0 = now_ns();
	for (int i = 0; i < 200; i++) {
		struct stat st;

		stat("/sys/devices/system/node", &st);
	}
	show("stat-of-a-sysfs-path", t0, 200);

	t0 = now_ns();
	for (int i = 0; i < 200; i++)
		read_file(HP "nr_hugepages");
	show("a-sysfs-file-read(open-read-close)", t0, 200);

	t0 = now_ns();
	for (int i = 0; i < 100; i++) {
		fd = open(HP "nr_overcommit_hugepages", O_WRONLY);
		if (fd >= 0) {
			if (write(fd, now, strlen(now)) < 0)
				perror("syscost: write");
			close(fd);
		}
	}
	show("a-sysfs-write-of-the-same-value", t0, 100);

	t0 = now_ns();
	for (int i = 0; i < 100; i++) {
		fd = open("/run/.syscost.new", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			if (write(fd, "1\n", 2) < 0)
				perror("syscost: write");
			close(fd);
		}
		rename("/run/.syscost.new", "/run/.syscost");
	}
	unlink("/run/.syscost");
	show("a-small-file-replaced-on-tmpfs(write-rename)", t0, 100);
}

/* Page faults, mappings made and unmapped (what malloc does for a block it frees),
 * forks. */
static int memory_costs(void)
{
	const int pages = 512;
	int go[2];
	char *m = mmap(NULL, pages * 4096L, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long long t0;

	if (m == MAP_FAILED)
		return 1;
	t0 = now_ns();
	for (int i = 0; i < pages; i++)
		m[i * 4096L] = 1;
	show("a-page-fault(first-touch-of-a-4K-page)", t0, pages);
	munmap(m, pages * 4096L);

	t0 = now_ns();
	for (int i = 0; i < 100; i++) {
		m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		if (m == MAP_FAILED)
			return 1;
		m[0] = 1;
		munmap(m, 4096);
	}
	show("a-4K-mapping-made-touched-and-unmapped(malloc's-churn)", t0, 100);

	/* the forks only: each child waits on a pipe (so that none runs its exit on the
	 * parent's CPU meanwhile), and all are let go and reaped after */
	if (pipe(go))
		return 1;
	t0 = now_ns();
	for (int i = 0; i < 50; i++)
		if (fork() == 0) {
			char c;

			close(go[1]);
			_exit(read(go[0], &c, 1) < 0);
		}
	show("a-fork(the-parent's-part)", t0, 50);
	close(go[1]);
	close(go[0]);
	while (wait(NULL) > 0)
		;
	return 0;
}

int main(void)
{
	char now[32] = "0\n";
	int fd, n;

	/* the value to write back unchanged */
	fd = open(HP "nr_overcommit_hugepages", O_RDONLY);
	if (fd < 0 || (n = (int)read(fd, now, sizeof(now) - 1)) <= 0) {
		perror("syscost: " HP "nr_overcommit_hugepages");
		return 1;
	}
	now[n] = '\0';
	close(fd);
	file_costs(now);
	return memory_costs();
}
