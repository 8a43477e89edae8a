/* SPDX-License-Identifier: GPL-2.0-or-later */
/* idset.c - unit tests: id sets, their count, intersection and list form. */
#include <errno.h>
#include <string.h>

#include "idset.h"
#include "unit.h"

/* Every edge of the bitmap: the first and last id, and the words' seams. */
UNIT_TEST(members, "membership at every edge of the bitmap, and none past it")
{
	struct hp_idset s;

	memset(&s, 0, sizeof(s));
	CHECK(idset_count(&s) == 0 && !idset_has(&s, 0) && !idset_has(&s, 8191));
	idset_add(&s, 0);
	idset_add(&s, 63);
	idset_add(&s, 64);
	idset_add(&s, 8191);
	idset_add(&s, 64); /* twice is once */
	CHECK(idset_count(&s) == 4);
	CHECK(idset_has(&s, 0) && idset_has(&s, 63) && idset_has(&s, 64));
	CHECK(!idset_has(&s, 1) && !idset_has(&s, 62) && !idset_has(&s, 65));
	CHECK(idset_has(&s, 8191) && !idset_has(&s, 8190));
	/* past the bitmap: not a member, and no read beyond it */
	CHECK(!idset_has(&s, 8192) && !idset_has(&s, 8192 + 64) && !idset_has(&s, ~0u));
	memset(&s, 0xff, sizeof(s));
	CHECK(idset_count(&s) == 8192 && HP_MAX_CPUS == 8192);
}

UNIT_TEST(and, "the intersection keeps common ids and leaves the other set alone")
{
	struct hp_idset a, b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	for (unsigned i = 0; i < 8; i++)
		idset_add(&a, i); /* a node's cpulist 0-7 */
	idset_add(&a, 4000);
	idset_add(&b, 0);
	idset_add(&b, 1);
	idset_add(&b, 4);
	idset_add(&b, 9);
	idset_add(&b, 4000); /* cpu/online 0-1,4,9,4000 */
	idset_and(&a, &b);
	CHECK(idset_count(&a) == 4);
	CHECK(idset_has(&a, 0) && idset_has(&a, 1) && idset_has(&a, 4) &&
	      idset_has(&a, 4000));
	CHECK(!idset_has(&a, 2) && !idset_has(&a, 9));
	CHECK(idset_count(&b) == 5); /* the other set is left alone */
	memset(&b, 0, sizeof(b));
	idset_and(&a, &b);
	CHECK(idset_count(&a) == 0);
}

UNIT_TEST(format, "the cpulist form of a set, and -ENOSPC for a buffer too small")
{
	struct hp_idset s;
	char buf[64];

	memset(&s, 0, sizeof(s));
	memset(buf, 'x', sizeof(buf));
	CHECK(idset_format(&s, buf, sizeof(buf)) == 0 && strcmp(buf, "") == 0);
	idset_add(&s, 5);
	CHECK(idset_format(&s, buf, sizeof(buf)) == 0 && strcmp(buf, "5") == 0);
	idset_add(&s, 6);
	CHECK(idset_format(&s, buf, sizeof(buf)) == 0 && strcmp(buf, "5-6") == 0);
	for (unsigned i = 62; i <= 66; i++)
		idset_add(&s, i);
	idset_add(&s, 0);
	idset_add(&s, 8191);
	CHECK(idset_format(&s, buf, sizeof(buf)) == 0 &&
	      strcmp(buf, "0,5-6,62-66,8191") == 0);
	/* "0,5-6,62-66,8191" is 16 characters: 17 bytes fit, 16 do not */
	CHECK(idset_format(&s, buf, 17) == 0 && strcmp(buf, "0,5-6,62-66,8191") == 0);
	CHECK(idset_format(&s, buf, 16) == -ENOSPC);
	CHECK(idset_format(&s, buf, 1) == -ENOSPC);
	CHECK(idset_format(&s, buf, 0) == -ENOSPC);
	memset(&s, 0, sizeof(s));
	CHECK(idset_format(&s, buf, 1) == 0 && buf[0] == '\0');
	memset(&s, 0xff, sizeof(s));
	CHECK(idset_format(&s, buf, sizeof(buf)) == 0 && strcmp(buf, "0-8191") == 0);
	/* every other id: the longest list, far over the buffer */
	memset(&s, 0x55, sizeof(s));
	CHECK(idset_count(&s) == 4096 && idset_format(&s, buf, sizeof(buf)) == -ENOSPC);
}
