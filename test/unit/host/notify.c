/* SPDX-License-Identifier: GPL-2.0-or-later */
/* notify.c - unit tests: the datagrams sent to $NOTIFY_SOCKET, exactly. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "notify.h"
#include "unit.h"

/* A datagram socket bound at path ('@' first: in the abstract namespace). */
static int listener(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t len = strlen(path);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa,
			   offsetof(struct sockaddr_un, sun_path) + len)) {
		CHECK(!"bind");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* The next datagram, or "" when none is waiting. */
static const char *next(int fd)
{
	static char buf[256];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

UNIT_TEST(messages,
	  "sd_notify's messages for each exit; no socket or listener is no failure")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", path[128];
	int fd;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/notify", dir);
	fd = listener(path);
	setenv("NOTIFY_SOCKET", path, 1);
	notify_extend_timeout(70000);
	CHECK(strcmp(next(fd), "EXTEND_TIMEOUT_USEC=70000000") == 0);
	notify_ready(0);
	CHECK(strcmp(next(fd), "READY=1\nSTATUS=done (exit 0), see hugepar status") == 0);
	notify_ready(64);
	CHECK(strcmp(next(fd), "READY=1\nSTATUS=partial (exit 64), see hugepar status") ==
	      0);
	notify_ready(75);
	CHECK(strcmp(next(fd), "READY=1\nSTATUS=failed (exit 75), see hugepar status") ==
	      0);
	CHECK(strcmp(next(fd), "") == 0);

	/* no socket, an empty one, a relative path: nothing is sent, nothing fails */
	unsetenv("NOTIFY_SOCKET");
	notify_ready(0);
	setenv("NOTIFY_SOCKET", "", 1);
	notify_ready(0);
	CHECK(chdir(dir) == 0);
	setenv("NOTIFY_SOCKET", "notify", 1);
	notify_ready(0);
	CHECK(strcmp(next(fd), "") == 0);
	/* no listener there any more: the run goes on */
	close(fd);
	setenv("NOTIFY_SOCKET", path, 1);
	notify_ready(1);
	unlink(path);
	rmdir(dir);
}

/* systemd's own socket is often abstract: "@" stands for the leading NUL. */
UNIT_TEST(abstract, "an abstract socket name, and one too long is not cut to fit")
{
	char name[64], longer[200];
	int fd;

	snprintf(name, sizeof(name), "@hugepar-unit-%d", (int)getpid());
	fd = listener(name);
	setenv("NOTIFY_SOCKET", name, 1);
	notify_extend_timeout(1);
	CHECK(strcmp(next(fd), "EXTEND_TIMEOUT_USEC=1000") == 0);
	close(fd);
	/* a name too long for an address is not cut to the one that fits */
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	memcpy(longer, name, strlen(name));
	longer[sizeof(((struct sockaddr_un *)0)->sun_path) - 1] = '\0';
	fd = listener(longer);
	longer[strlen(longer)] = 'x';
	setenv("NOTIFY_SOCKET", longer, 1);
	notify_ready(0);
	CHECK(strcmp(next(fd), "") == 0);
	close(fd);
}
