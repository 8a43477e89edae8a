/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeit.c - for bench/qemu.sh: time one way of reserving pages with the monotonic
 * clock (the guest's /proc/uptime counts in 10 ms, its busybox date in seconds).
 *   timeit LABEL write FILE VALUE [FILE VALUE]...   write each VALUE to its FILE in
 *                                                   turn, as echo would
 *   timeit LABEL exec PROGRAM [ARG]...              run PROGRAM and wait for it
 * prints "BENCH LABEL MS START_US END_US" (MS with three decimals; START_US and
 * END_US on the monotonic clock, to set beside hugepar's trace lines). Exits with the
 * program's status, or 1 when a write failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long sys_mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int write_all(char **argv, int n)
{
	for (int i = 0; i + 1 < n; i += 2) {
		int fd = open(argv[i], O_WRONLY);
		size_t len = strlen(argv[i + 1]);

		if (fd < 0 || write(fd, argv[i + 1], len) != (ssize_t)len) {
			fprintf(stderr, "timeit: %s: %s\n", argv[i], strerror(errno));
			if (fd >= 0)
				close(fd);
			return 1;
		}
		close(fd);
	}
	return 0;
}

static int run(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, 1);
			close(null);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	long long t0, t1;
	int rc;

	if (argc < 4 || (strcmp(argv[2], "write") && strcmp(argv[2], "exec")) ||
	    (!strcmp(argv[2], "write") && (argc - 3) % 2)) {
		fprintf(stderr,
			"usage: timeit LABEL write FILE VALUE... | timeit LABEL exec "
			"PROGRAM [ARG]...\n");
		return 2;
	}
	t0 = sys_mono_us();
	rc = !strcmp(argv[2], "write") ? write_all(argv + 3, argc - 3) : run(argv + 3);
	t1 = sys_mono_us();
	printf("BENCH %s %.3f %lld %lld\n", argv[1], (t1 - t0) / 1000.0, t0, t1);
	return rc;
}
