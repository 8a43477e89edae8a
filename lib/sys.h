/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sys.h - clocks, and whether a process is gone. */
#ifndef HUGEPAR_SYS_H
#define HUGEPAR_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A process that has exited: gone, or a zombie nobody has reaped yet (its memory,
 * and so its huge page reservations, are released at exit, before reaping). */
bool pid_gone(pid_t pid);

/* Monotonic and boot clocks in milliseconds. */
uint64_t now_ms(void);
uint64_t now_us(void);
uint64_t boottime_ms(void);

#endif
