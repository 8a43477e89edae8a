/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vmemmap.h - whether a run turns the kernel's vmemmap optimization on, and what a
 * page gives back then. */
#ifndef HUGEPAR_VMEMMAP_H
#define HUGEPAR_VMEMMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "settings.h"
#include "topology.h"

/* Why the optimization is on or off for a run. */
enum hp_vmemmap_why {
	HP_VMEMMAP_WHY_TURN_ON,	   /* hugepar turns it on before its first page */
	HP_VMEMMAP_WHY_WAS_ON,	   /* on before hugepar: the kernel's parameter, sysctl */
	HP_VMEMMAP_WHY_KEEP,	   /* vmemmap = keep: left as the kernel has it */
	HP_VMEMMAP_WHY_ABSENT,	   /* the kernel does not offer it */
	HP_VMEMMAP_WHY_NO_SAVING,  /* no size to reserve gives anything back */
	HP_VMEMMAP_WHY_NOTHING,	   /* no pages to reserve */
	HP_VMEMMAP_WHY_LEAKS,	   /* auto, on Linux 6.12: freed optimized pages leak */
};

struct hp_vmemmap_plan {
	bool on;		      /* pages reserved by the run are optimized */
	bool turn_on;		      /* the run turns it on first */
	/* the pools asked for, reserved by the kernel at boot, would be optimized:
	 * hugepar cmdline adds hugetlb_free_vmemmap=on */
	bool boot;
	enum hp_vmemmap_why why;
	uint64_t saving_kb[HP_MAX_SIZES]; /* given back per page of each size (when on) */
};

/* The descriptors a page of huge_kb gives back when optimized, in kB, with base
 * pages of page_kb (0: 4): all but one page of them, where they fill two or more
 * pages (struct page of 64 bytes); else none. 28 for 2M pages, 16380 for 1G. */
uint64_t vmemmap_saving_kb(uint64_t huge_kb, uint64_t page_kb);
/* The run's choice, from the setting, the kernel, and which sizes grow (grows[z]). */
void vmemmap_plan(const struct hp_settings *s, const struct hp_topology *t,
		  const bool *grows, struct hp_vmemmap_plan *v);
/* Whether the kernel waits for an RCU grace period for each page it optimizes alone
 * (a worker's reservation), where a write's pages share one: Linux 6.10 to 7.0. */
bool vmemmap_rcu_per_page(const char *release);
/* In words, for plan and status: "on: turned on by hugepar before its first page". */
const char *vmemmap_why_text(enum hp_vmemmap_why why);
/* The record's word for it: "turned_on", "was_on", "keep", "absent", ... */
const char *vmemmap_why_name(enum hp_vmemmap_why why);

#endif
