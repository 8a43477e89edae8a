/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stop.h - what stops a run: SIGTERM, SIGINT or SIGHUP, and the deadline. */
#ifndef HUGEPAR_STOP_H
#define HUGEPAR_STOP_H

#include <stdbool.h>
#include <stdint.h>

/* The main process and coordinators: SIGTERM, SIGINT and SIGHUP ask for a stop;
 * SIGALRM only interrupts a sysfs write at the deadline. No SA_RESTART: a signal
 * must cut a write short. */
void stop_install(void);
/* A worker: SIGUSR1 (its coordinator's stop) and SIGTERM. */
void stop_install_worker(void);

bool stop_requested(void);

/* Why a run ends early: none, the deadline, or a signal. */
enum stop_why { STOP_NONE, STOP_DEADLINE, STOP_SIGNAL };
enum stop_why stop_check(uint64_t deadline_ms);

/* A one-shot timer that interrupts a blocking write when the deadline comes. */
void stop_deadline_arm(uint64_t deadline_ms);
void stop_deadline_disarm(void);

#endif
