/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vmemmap.c - whether a run turns the kernel's vmemmap optimization on, and what a
 * page gives back then (doc/kernel-notes.md, "The vmemmap optimization"). */
#include <stddef.h>

#include "kinfo.h"
#include "macros.h"
#include "vmemmap.h"

/* struct page, on every 64-bit configuration Debian builds */
#define STRUCT_PAGE_BYTES 64

uint64_t vmemmap_saving_kb(uint64_t huge_kb, uint64_t page_kb)
{
	uint64_t base = page_kb ? page_kb : 4, desc_kb, pages;

	desc_kb = huge_kb / base * STRUCT_PAGE_BYTES / 1024;
	pages = desc_kb / base;
	return pages >= 2 && desc_kb % base == 0 ? (pages - 1) * base : 0;
}

/* Linux 6.12 (6.12.118, Debian 13's) corrupts the descriptors of an optimized 2M page
 * when it frees it: "BUG: Bad page state", and the page never comes back to the
 * node. 6.1 and 7.2 give back every page. */
static bool leaks_on_free(const char *release)
{
	return kinfo_release_at_least(release, 6, 12) &&
	       !kinfo_release_at_least(release, 6, 13);
}

bool vmemmap_rcu_per_page(const char *release)
{
	return kinfo_release_at_least(release, 6, 10) && !kinfo_release_at_least(release, 7, 1);
}

void vmemmap_plan(const struct hp_settings *s, const struct hp_topology *t,
		  const bool *grows, struct hp_vmemmap_plan *v)
{
	bool grow = false, saves = false;

	*v = (struct hp_vmemmap_plan){.on = t->vmemmap_on};
	for (unsigned z = 0; z < t->nsizes; z++) {
		v->saving_kb[z] = vmemmap_saving_kb(t->sizes[z].kb, t->page_kb);
		grow |= grows[z];
		saves |= grows[z] && v->saving_kb[z];
	}
	if (!t->vmemmap_offered)
		v->why = HP_VMEMMAP_WHY_ABSENT;
	else if (t->vmemmap_on)
		v->why = HP_VMEMMAP_WHY_WAS_ON;
	else if (s->vmemmap == HP_VMEMMAP_KEEP)
		v->why = HP_VMEMMAP_WHY_KEEP;
	else if (!grow)
		v->why = HP_VMEMMAP_WHY_NOTHING;
	else if (!saves)
		v->why = HP_VMEMMAP_WHY_NO_SAVING;
	else if (s->vmemmap == HP_VMEMMAP_AUTO && leaks_on_free(t->release))
		v->why = HP_VMEMMAP_WHY_LEAKS;
	else
		v->why = HP_VMEMMAP_WHY_TURN_ON, v->on = v->turn_on = true;
	if (!v->on)
		for (unsigned z = 0; z < t->nsizes; z++)
			v->saving_kb[z] = 0;
}

static const struct {
	const char *name, *text;
} whys[] = {
    [HP_VMEMMAP_WHY_TURN_ON] = {"turned_on", "on: hugepar turns it on before its first page"},
    [HP_VMEMMAP_WHY_WAS_ON] = {"was_on", "on: it was on before hugepar (hugetlb_free_vmemmap=on, or the sysctl)"},
    [HP_VMEMMAP_WHY_KEEP] = {"keep", "off: vmemmap = keep leaves it as the kernel has it"},
    [HP_VMEMMAP_WHY_ABSENT] = {"absent", "off: this kernel does not offer it (no " HUGETLB_VMEMMAP_SYSCTL ")"},
    [HP_VMEMMAP_WHY_NO_SAVING] = {"no_saving", "off: no size to reserve gives descriptors back"},
    [HP_VMEMMAP_WHY_NOTHING] = {"nothing_to_reserve", "off: no pages to reserve"},
    [HP_VMEMMAP_WHY_LEAKS] = {"leaks_on_free", "off: Linux 6.12 loses optimized pages when a pool shrinks; vmemmap = optimize turns it on anyway"},
};

const char *vmemmap_why_text(enum hp_vmemmap_why why)
{
	return (unsigned)why < ARRAY_SIZE(whys) ? whys[why].text : "?";
}

const char *vmemmap_why_name(enum hp_vmemmap_why why)
{
	return (unsigned)why < ARRAY_SIZE(whys) ? whys[why].name : "?";
}
