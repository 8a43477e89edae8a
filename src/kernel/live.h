/* SPDX-License-Identifier: GPL-2.0-or-later */
/* live.h - the live kernel behind hugetlb.h. */
#ifndef HUGEPAR_LIVE_H
#define HUGEPAR_LIVE_H

#include "hugetlb.h"

extern const struct hugetlb_ops live_hugetlb;

#endif
