/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * holdpages.c - for boot tests: hold huge pages as another program would, so that
 * a test can see how a kernel counts surplus pages held on another node.
 *   holdpages KB NODE PAGES [unbound|bind-all]
 *        run on NODE's CPUs, bind to NODE (with "unbound" keep the default policy,
 *        with "bind-all" bind to nodes 0 and 1), reserve PAGES with a hugetlb mapping,
 *        print "held" ("failed" when the kernel refuses them), and keep them until
 *        killed; the last two show where a kernel places surplus pages when the
 *        policy leaves it a choice
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#define MPOL_BIND 2

static void pin(unsigned node)
{
	char path[96], list[4096];
	cpu_set_t set;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/cpulist", node);
	f = fopen(path, "r");
	if (!f || !fgets(list, sizeof(list), f)) {
		if (f)
			fclose(f);
		return; /* a node without CPUs: stay where we are */
	}
	fclose(f);
	CPU_ZERO(&set);
	for (char *p = list; *p && *p != '\n';) {
		unsigned a = strtoul(p, &p, 10), b = a;

		if (*p == '-')
			b = strtoul(p + 1, &p, 10);
		for (unsigned c = a; c <= b && c < CPU_SETSIZE; c++)
			CPU_SET(c, &set);
		if (*p == ',')
			p++;
	}
	sched_setaffinity(0, sizeof(set), &set);
}

int main(int argc, char **argv)
{
	const char *policy = argc == 5 ? argv[4] : "bind";
	unsigned long kb, node, pages, mask;
	size_t psz;
	void *p;

	if ((argc != 4 && argc != 5) ||
	    (strcmp(policy, "bind") && strcmp(policy, "unbound") &&
	     strcmp(policy, "bind-all"))) {
		fprintf(stderr, "usage: holdpages KB NODE PAGES [unbound|bind-all]\n");
		return 2;
	}
	kb = strtoul(argv[1], NULL, 10);
	node = strtoul(argv[2], NULL, 10);
	pages = strtoul(argv[3], NULL, 10);
	psz = kb * 1024;
	pin(node);
	mask = strcmp(policy, "bind-all") ? 1UL << node : 3UL;
	if (strcmp(policy, "unbound") &&
	    syscall(SYS_set_mempolicy, MPOL_BIND, &mask, sizeof(mask) * 8 + 1))
		perror("holdpages: set_mempolicy");
	p = mmap(NULL, pages * psz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
		     ((63 - __builtin_clzl(psz)) << MAP_HUGE_SHIFT),
		 -1, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "holdpages: mmap: %s\n", strerror(errno));
		printf("failed\n"); /* for a reader waiting on its line */
		return 1;
	}
	printf("held\n");
	fflush(stdout);
	for (;;)
		pause();
}
