/* SPDX-License-Identifier: GPL-2.0-or-later */
/* version.h - the one place hugepar's version is written (the Makefile reads it). */
#ifndef HUGEPAR_VERSION_H
#define HUGEPAR_VERSION_H

#define HUGEPAR_VERSION "0.5"

#endif
