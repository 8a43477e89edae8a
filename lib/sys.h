/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sys.h - clocks, and a process: whether it is gone, and when it started. */
#ifndef HUGEPAR_SYS_H
#define HUGEPAR_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A process that has exited: gone, or a zombie nobody has reaped yet (its memory,
 * and so its huge page reservations, are released at exit, before reaping). */
bool sys_pid_gone(pid_t pid);

/* When a process started (field 22 of a /proc/PID/stat text, clock ticks after boot):
 * with its pid, what tells the process apart from a later one given the same pid.
 * 0, or -EINVAL for a text not in that form. */
int sys_proc_start(const char *text, uint64_t *ticks);
/* This process's own start, from /proc/self/stat. */
int sys_self_start(uint64_t *ticks);

/* Monotonic and boot clocks in milliseconds. */
uint64_t sys_mono_ms(void);
uint64_t sys_mono_us(void);
uint64_t sys_boottime_ms(void);

#endif
