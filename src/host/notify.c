/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * notify.c - the systemd notification protocol (sd_notify(3)) without libsystemd:
 * one datagram to $NOTIFY_SOCKET. The initramfs unit uses it so that its start
 * timeout follows hugepar's own deadline instead of a second, fixed one.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "notify.h"

static void notify(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t len;
	int fd;

	if (!path || !path[0] || (path[0] != '/' && path[0] != '@'))
		return;
	len = strlen(path);
	if (len >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0'; /* an abstract socket */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	/* best effort: without a listener the run goes on the same */
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   offsetof(struct sockaddr_un, sun_path) + len) < 0)
		len = 0;
	close(fd);
}

void notify_extend_timeout(uint64_t ms)
{
	char msg[64];

	snprintf(msg, sizeof(msg), "EXTEND_TIMEOUT_USEC=%llu",
		 (unsigned long long)ms * 1000);
	notify(msg);
}

void notify_ready(int rc)
{
	char msg[96];

	snprintf(msg, sizeof(msg), "READY=1\nSTATUS=%s (exit %d), see hugepar status",
		 rc == 0    ? "done"
		 : rc == 64 ? "partial"
			    : "failed",
		 rc);
	notify(msg);
}
