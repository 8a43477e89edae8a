/* SPDX-License-Identifier: GPL-2.0-or-later */
/* notify.h - the systemd notification protocol, when NOTIFY_SOCKET is set. */
#ifndef HUGEPAR_NOTIFY_H
#define HUGEPAR_NOTIFY_H

#include <stdint.h>

/* The unit's start may take this long from now: hugepar's own deadline. */
void notify_extend_timeout(uint64_t ms);
/* Done: READY=1 and a STATUS= line. */
void notify_ready(int exit_code);

#endif
