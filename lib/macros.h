/* SPDX-License-Identifier: GPL-2.0-or-later */
/* macros.h - ARRAY_SIZE, MIN and MAX. */
#ifndef HUGEPAR_MACROS_H
#define HUGEPAR_MACROS_H

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b)     ((a) < (b) ? (a) : (b))
#define MAX(a, b)     ((a) > (b) ? (a) : (b))

#endif
