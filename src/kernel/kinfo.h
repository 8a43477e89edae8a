/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kinfo.h - the kernel's own text: meminfo figures, the release, the command line. */
#ifndef HUGEPAR_KINFO_H
#define HUGEPAR_KINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kB figure of "Key:" in a meminfo text, node form ("Node 0 MemFree:") or /proc
 * form. -ENOENT when the key is not there. */
int kinfo_meminfo_kb(const char *text, const char *key, uint64_t *kb);

/* The count of "KEY N" in a /proc/vmstat text: -ENOENT when the key is not there. */
int kinfo_vmstat(const char *text, const char *key, uint64_t *n);

/* How many orders the first line of a /proc/buddyinfo text counts ("Node 0, zone
 * DMA 1 0 ...": MAX_PAGE_ORDER + 1); 0 when it is not in that form. */
unsigned kinfo_buddyinfo_orders(const char *text);

/* Whether a kernel command line is a crash (kdump) capture kernel's: it has the word
 * elfcorehdr=, which kexec adds for the kernel it loads to save a dump (before a
 * "--": the words after it are init's). */
bool kinfo_capture_cmdline(const char *cmdline);

/* Whether a kernel release ("6.12.48+deb13-amd64") is at least major.minor. */
bool kinfo_release_at_least(const char *release, unsigned major, unsigned minor);

#endif
