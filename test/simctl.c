/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * simctl.c - drive the simulated kernel from a test, as another program would:
 *   simctl DIR show                  print the state
 *   simctl DIR hold KB NODE PAGES [unbound]
 *                                    reserve PAGES bound to NODE (with "unbound": on
 *                                    NODE's CPUs, no policy), print "held" and hold
 *                                    them until stdin closes or a signal comes
 *   simctl DIR use KB NODE PAGES     the same, with the pages in use (faulted in)
 *   simctl DIR write KB NODE|-1 VAL  write nr_hugepages of a node, or the global one
 *   simctl DIR overcommit KB VAL     write nr_overcommit_hugepages
 *   simctl DIR setnode KB NODE VAL   hugepar's exact per-node write (hugetlb_set_node)
 *                                    with the rule of the fixture's release
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hugetlb.h"
#include "idset.h"
#include "parse.h"
#include "path.h"
#include "sim.h"

static int num(const char *s, uint64_t *v)
{
	if (parse_u64(s, v)) {
		fprintf(stderr, "simctl: '%s' is not a number\n", s);
		return -1;
	}
	return 0;
}

static int hold(int argc, char **argv, bool use)
{
	uint64_t kb, node, pages;
	struct hugetlb_resv r;
	char c;
	int rc;

	if ((argc != 6 && !(argc == 7 && !use && !strcmp(argv[6], "unbound"))) ||
	    num(argv[3], &kb) || num(argv[4], &node) || num(argv[5], &pages))
		return 2;
	if (argc == 7) {
		rc = sim_run_on((unsigned)node);
		if (!rc)
			rc = hugetlb_reserve(kb, pages, &r);
	} else if (use) {
		rc = sim_use(kb, pages, (unsigned)node);
	} else {
		struct hp_idset cpu = {0};
		int i = sim_node_index((unsigned)node);

		/* on the node's CPUs too: 6.1 places by CPU */
		idset_add(&cpu, i >= 0 ? sim_state()->nodes[i].cpu0 : 0);
		rc = hugetlb_bind((unsigned)node, &cpu);
		if (!rc)
			rc = hugetlb_reserve(kb, pages, &r);
	}
	if (rc) {
		fprintf(stderr, "simctl: %s: %s\n", argv[2], strerror(-rc));
		return 1;
	}
	/* a reservation writes the files at most every SIM_RENDER_MS: show it now */
	if (!sim_lock())
		sim_unlock();
	printf("held\n");
	fflush(stdout);
	/* until stdin ends or a signal ends it: the pages go back when it is gone, as
	 * the kernel gives them back */
	while (read(0, &c, 1) > 0)
		;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t kb, node, val;
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: simctl DIR show|hold|use|write|overcommit ...\n");
		return 2;
	}
	path_set_root(argv[1]);
	rc = sim_open();
	if (rc) {
		fprintf(stderr, "simctl: %s: %s\n", argv[1], strerror(-rc));
		return 1;
	}
	hugetlb_use(&sim_hugetlb);
	if (strcmp(argv[2], "show") == 0) {
		sim_show(stdout);
		return 0;
	}
	if (strcmp(argv[2], "hold") == 0 || strcmp(argv[2], "use") == 0)
		return hold(argc, argv, strcmp(argv[2], "use") == 0);
	if (strcmp(argv[2], "write") == 0 && argc == 6 && !num(argv[3], &kb) &&
	    !num(argv[5], &val)) {
		if (strcmp(argv[4], "-1") == 0)
			rc = hugetlb_set_global(kb, val);
		else if (!num(argv[4], &node))
			rc = sim_hugetlb.write_nr((int)node, kb, val);
		else
			return 2;
		if (rc)
			fprintf(stderr, "simctl: write: %s\n", strerror(-rc));
		return rc ? 1 : 0;
	}
	if (strcmp(argv[2], "setnode") == 0 && argc == 6 && !num(argv[3], &kb) &&
	    !num(argv[4], &node) && !num(argv[5], &val)) {
		char release[65] = "";

		if (path_read(release, sizeof(release), "/proc/sys/kernel/osrelease") ==
		    0)
			parse_trim(release);
		hugetlb_set_release(release);
		rc = hugetlb_set_node((unsigned)node, kb, val);
		if (rc)
			fprintf(stderr, "simctl: setnode: %s\n", strerror(-rc));
		return rc ? 1 : 0;
	}
	if (strcmp(argv[2], "overcommit") == 0 && argc == 5 && !num(argv[3], &kb) &&
	    !num(argv[4], &val)) {
		rc = hugetlb_set_overcommit(kb, val);
		if (rc)
			fprintf(stderr, "simctl: overcommit: %s\n", strerror(-rc));
		return rc ? 1 : 0;
	}
	fprintf(stderr, "simctl: bad arguments\n");
	return 2;
}
