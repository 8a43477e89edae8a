/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * desc.h - a fixture tree made by test/mkfixture.sh from a machine description's
 * text, set as the path layer's root: for the unit tests that read a machine whole
 * (topology, hugetlb). The unit binary runs from the repository's top.
 */
#ifndef HUGEPAR_UNIT_DESC_H
#define HUGEPAR_UNIT_DESC_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "unit.h"

/* dir: a mkdtemp() template, made on first use; the tree goes to dir/root, written
 * to root. Returns 0, or -1 after a failed check. */
static inline int fixture_from_desc(char *dir, char *root, size_t rlen, const char *desc)
{
	char p[512];
	FILE *f;

	if (strstr(dir, "XXXXXX") && !mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return -1;
	}
	snprintf(p, sizeof(p), "%s/desc", dir);
	snprintf(root, rlen, "%s/root", dir);
	f = fopen(p, "w");
	if (!f) {
		CHECK(!"desc");
		return -1;
	}
	fputs(desc, f);
	fclose(f);
	snprintf(p, sizeof(p), "bash test/mkfixture.sh '%s/desc' '%s'", dir, root);
	if (system(p) != 0) {
		CHECK(!"mkfixture.sh");
		return -1;
	}
	path_set_root(root);
	return 0;
}

#endif
