/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kinfo.c - unit tests: meminfo figures and kernel releases as the kernel writes them. */
#include <errno.h>
#include <stdint.h>

#include "kinfo.h"
#include "unit.h"

UNIT_TEST(meminfo, "a meminfo key is a whole name; hostile figures refused, not cut")
{
	static const char proc[] = "MemTotal:       16303092 kB\n"
				   "MemFree:         1234 kB\n"
				   "MemAvailable:    999 kB\n"
				   "HugePages_Total:       0\n"
				   "Hugepagesize:       2048 kB\n";
	static const char node[] = "Node 0 MemTotal:       4194304 kB\n"
				   "Node 0 MemFree:        3145728 kB\n"
				   "Node 0 MemUsed:        1048576 kB\n";
	uint64_t kb = 77;

	CHECK(kinfo_meminfo_kb(proc, "MemTotal", &kb) == 0 && kb == 16303092);
	CHECK(kinfo_meminfo_kb(proc, "MemFree", &kb) == 0 && kb == 1234);
	CHECK(kinfo_meminfo_kb(proc, "Hugepagesize", &kb) == 0 && kb == 2048);
	CHECK(kinfo_meminfo_kb(proc, "HugePages_Total", &kb) == 0 && kb == 0);
	CHECK(kinfo_meminfo_kb(node, "MemTotal", &kb) == 0 && kb == 4194304);
	CHECK(kinfo_meminfo_kb(node, "MemUsed", &kb) == 0 && kb == 1048576);
	CHECK(kinfo_meminfo_kb("Node 12 MemFree:\t77 kB", "MemFree", &kb) == 0 &&
	      kb == 77);
	CHECK(kinfo_meminfo_kb("Node 3   MemFree:  5 kB\n", "MemFree", &kb) == 0 &&
	      kb == 5);

	/* a key is a whole name at the start of a line */
	kb = 77;
	CHECK(kinfo_meminfo_kb(proc, "Mem", &kb) == -ENOENT && kb == 77);
	CHECK(kinfo_meminfo_kb(proc, "MemFreeX", &kb) == -ENOENT);
	CHECK(kinfo_meminfo_kb(proc, "emTotal", &kb) == -ENOENT);
	CHECK(kinfo_meminfo_kb("XMemTotal: 5 kB\n", "MemTotal", &kb) == -ENOENT);
	CHECK(kinfo_meminfo_kb("Node 0 Mem: 5 kB\nMemTotal 6 kB\n", "MemTotal", &kb) ==
	      -ENOENT);
	CHECK(kinfo_meminfo_kb("", "MemTotal", &kb) == -ENOENT);
	CHECK(kinfo_meminfo_kb("\n\n", "MemTotal", &kb) == -ENOENT);
	/* the first of two, a line with no newline, blank lines before */
	CHECK(kinfo_meminfo_kb("MemTotal: 1 kB\nMemTotal: 2 kB\n", "MemTotal", &kb) ==
		  0 &&
	      kb == 1);
	CHECK(kinfo_meminfo_kb("\n\nMemFree: 3 kB", "MemFree", &kb) == 0 && kb == 3);

	/* hostile figures */
	CHECK(kinfo_meminfo_kb("MemTotal: kB\n", "MemTotal", &kb) == -EINVAL);
	CHECK(kinfo_meminfo_kb("MemTotal:\n", "MemTotal", &kb) == -EINVAL);
	CHECK(kinfo_meminfo_kb("MemTotal: -5 kB\n", "MemTotal", &kb) == -EINVAL);
	CHECK(kinfo_meminfo_kb("MemTotal: +5 kB\n", "MemTotal", &kb) == -EINVAL);
	CHECK(kinfo_meminfo_kb("MemTotal: 18446744073709551615 kB\n", "MemTotal", &kb) ==
		  0 &&
	      kb == UINT64_MAX);
	CHECK(kinfo_meminfo_kb("MemTotal: 18446744073709551616 kB\n", "MemTotal", &kb) ==
	      -ERANGE);
	CHECK(kinfo_meminfo_kb("MemTotal: 99999999999999999999 kB\n", "MemTotal", &kb) ==
	      -ERANGE);
	CHECK(kinfo_meminfo_kb("MemTotal: 0042 kB\n", "MemTotal", &kb) == 0 && kb == 42);
}

UNIT_TEST(release, "kernel releases compared by number; anything else is the older rule")
{
	CHECK(kinfo_release_at_least("6.7.0", 6, 7));
	CHECK(kinfo_release_at_least("6.7", 6, 7));
	CHECK(kinfo_release_at_least("6.7-rc1", 6, 7));
	CHECK(!kinfo_release_at_least("6.6.99", 6, 7));
	CHECK(kinfo_release_at_least("6.10.0-1-amd64", 6, 7)); /* numbers, not text */
	CHECK(!kinfo_release_at_least("6.9.12", 6, 10));
	CHECK(kinfo_release_at_least("10.0", 6, 19));
	CHECK(!kinfo_release_at_least("5.19.0", 6, 0));
	CHECK(kinfo_release_at_least("7.0.0-rc3", 6, 19));
	CHECK(kinfo_release_at_least("6", 6, 0) && !kinfo_release_at_least("6", 6, 1));
	CHECK(kinfo_release_at_least("6.1.0-57-amd64", 6, 1));
	/* not a release: the older rules (the safe side) */
	CHECK(!kinfo_release_at_least("", 0, 0));
	CHECK(!kinfo_release_at_least("abc", 0, 0));
	CHECK(!kinfo_release_at_least("v6.7", 6, 7));
	CHECK(!kinfo_release_at_least(" 6.7", 6, 7));
	CHECK(!kinfo_release_at_least("-6.7", 6, 7));
	CHECK(!kinfo_release_at_least("+6.7", 6, 7));
	CHECK(!kinfo_release_at_least("6.-7", 6, 7));
	CHECK(!kinfo_release_at_least("6.+7", 6, 7));
	CHECK(!kinfo_release_at_least("6.18446744073709551616", 6, 7));
	CHECK(!kinfo_release_at_least("99999999999999999999.0", 6, 7));
	CHECK(!kinfo_release_at_least("6.", 6, 0) &&
	      !kinfo_release_at_least("6.x", 6, 0));
}

/* The orders of /proc/buddyinfo's first line: MAX_PAGE_ORDER + 1. */
UNIT_TEST(buddyinfo,
	  "the page orders in /proc/buddyinfo's first line, or none if not its form")
{
	/* x86 and arm64 4K (MAX_PAGE_ORDER 10), arm64 16K (11), 64K (13) */
	CHECK(kinfo_buddyinfo_orders(
		  "Node 0, zone      DMA      0      0      0      0      0      0"
		  "      0      0      1      1      3 \n"
		  "Node 0, zone    DMA32      2      2      3      1      2      2"
		  "      1      4      4      2    751 \n") == 11);
	CHECK(kinfo_buddyinfo_orders(
		  "Node 0, zone   Normal 1 2 3 4 5 6 7 8 9 10 11 12\n") == 12);
	CHECK(kinfo_buddyinfo_orders(
		  "Node 1, zone  Movable 0 0 0 0 0 0 0 0 0 0 0 0 0 7") == 14);
	/* not the kernel's form: none */
	CHECK(kinfo_buddyinfo_orders("") == 0);
	CHECK(kinfo_buddyinfo_orders("\n") == 0);
	CHECK(kinfo_buddyinfo_orders("Node 0, zone   Normal\n") == 0);
	CHECK(kinfo_buddyinfo_orders("Node 0, zone   Normal 1 2 x 4\n") == 0);
	CHECK(kinfo_buddyinfo_orders("Node 0, zone   Normal 1 2 -3\n") == 0);
	CHECK(kinfo_buddyinfo_orders("Nodes 0, zone   Normal 1 2\n") == 0);
	CHECK(kinfo_buddyinfo_orders("Node 0\nzone   Normal 1 2\n") == 0);
	CHECK(kinfo_buddyinfo_orders(
		  "Node 0, zone Normal 00012 99999999999999999999\n") == 2);
}

/* A capture kernel's command line: the word elfcorehdr=, a kernel parameter. */
UNIT_TEST(capture,
	  "a capture kernel's command line: the word elfcorehdr=, a kernel parameter")
{
	CHECK(
	    kinfo_capture_cmdline("BOOT_IMAGE=/vmlinuz elfcorehdr=0x7d000000 nr_cpus=1"));
	CHECK(kinfo_capture_cmdline("elfcorehdr=2048M@0x1000\n"));
	CHECK(kinfo_capture_cmdline("quiet \t\"elfcorehdr=0x1000\" irqpoll"));
	CHECK(!kinfo_capture_cmdline(""));
	CHECK(!kinfo_capture_cmdline("quiet crashkernel=512M rd.hugepar.pages=2M:10"));
	CHECK(!kinfo_capture_cmdline("noelfcorehdr=0x1 xelfcorehdr= elfcorehdr"));
	CHECK(!kinfo_capture_cmdline(
	    "quiet -- elfcorehdr=0x1")); /* init's, not the kernel's */
}
