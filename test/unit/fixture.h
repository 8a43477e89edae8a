/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fixture.h - for the engine's unit tests: a machine made by test/mkfixture.sh from
 * description lines, under a temp dir that becomes the path layer's root, with the
 * simulated kernel opened on it (doc/simulator.md), its topology read and a plan
 * made from settings. Header only: the files that include it use what they need.
 */
#ifndef HUGEPAR_UNIT_FIXTURE_H
#define HUGEPAR_UNIT_FIXTURE_H

#include <errno.h>
#include <stdbool.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hugetlb.h"
#include "job.h"
#include "keys.h"
#include "parse.h"
#include "path.h"
#include "planner.h"
#include "settings.h"
#include "sim.h"
#include "sys.h"
#include "topology.h"
#include "unit.h"

struct fixture {
	char dir[64];  /* the temp dir: the description and the tree */
	char root[96]; /* the tree: the path layer's root */
	struct hp_topology t;
	struct hp_settings s;
	struct hp_plan p;
	struct size_job j;
};

static inline int fixture_rm_one(const char *p, const struct stat *st, int flag,
				 struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(p);
}

static inline void fixture_remove(struct fixture *fx)
{
	if (fx->dir[0])
		nftw(fx->dir, fixture_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(fx->j.notes);
	fx->j.notes = NULL;
	if (fx->p.cells)
		plan_free(&fx->p);
	settings_free(&fx->s);
}

/* test/mkfixture.sh on the description lines (NULL ends them), in the repository's
 * root (where the unit tests run). */
static inline int fixture_tree(struct fixture *fx, const char *const *lines)
{
	char desc[96];
	int status;
	pid_t pid;
	FILE *f;

	snprintf(desc, sizeof(desc), "%s/machine.desc", fx->dir);
	f = fopen(desc, "w");
	if (!f)
		return -errno;
	for (; *lines; lines++)
		fprintf(f, "%s\n", *lines);
	fclose(f);
	pid = fork();
	if (pid == 0) {
		execlp("bash", "bash", "test/mkfixture.sh", desc, fx->root, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -EIO;
	return 0;
}

/* The machine, the simulated kernel on it, its topology. Returns 0 or -errno. Once
 * a process: the simulated kernel stays open on the first tree (-EBUSY after). */
static inline int fixture_make(struct fixture *fx, const char *const *lines)
{
	static bool made;
	char p[160];
	int rc;

	memset(fx, 0, sizeof(*fx));
	if (made)
		return -EBUSY;
	made = true;
	settings_init(&fx->s);
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/hugepar-unit.XXXXXX");
	if (!mkdtemp(fx->dir)) {
		fx->dir[0] = '\0';
		return -errno;
	}
	snprintf(fx->root, sizeof(fx->root), "%s/m", fx->dir);
	rc = fixture_tree(fx, lines);
	if (rc)
		return rc;
	/* where a run writes its restore notes (main makes it) */
	snprintf(p, sizeof(p), "%s/run", fx->root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/run/hugepar", fx->root);
	mkdir(p, 0755);
	path_set_root(fx->root);
	rc = sim_open();
	if (rc)
		return rc;
	hugetlb_use(&sim_hugetlb);
	rc = topology_read(&fx->t);
	hugetlb_set_release(fx->t.release);
	return rc;
}

/* A plan from settings lines ("pages = 2M:100", "threads = 1") and a job of size kb
 * on it, with the method given and an hour to go. */
static inline int fixture_job(struct fixture *fx, const char *const *settings,
			      uint64_t kb, enum hp_method method)
{
	int z = topology_size_index(&fx->t, kb), rc;

	for (; *settings; settings++) {
		char line[256], *eq;

		snprintf(line, sizeof(line), "%s", *settings);
		eq = strchr(line, '=');
		if (!eq)
			return -EINVAL;
		*eq = '\0';
		keys_set(&fx->s, parse_trim(line), parse_trim(eq + 1), "unit", false);
	}
	if (fx->s.nproblems || z < 0)
		return -EINVAL;
	rc = plan_make(&fx->s, &fx->t, &fx->p);
	if (rc)
		return rc;
	fx->j = (struct size_job){.t = &fx->t,
				  .p = &fx->p,
				  .z = (unsigned)z,
				  .kb = kb,
				  .method = method,
				  .deadline = sys_mono_ms() + 3600 * 1000};
	fx->j.notes = calloc(fx->t.nnodes, sizeof(*fx->j.notes));
	return fx->j.notes ? 0 : -ENOMEM;
}

/* A node's persistent pages of a size now (UINT64_MAX when unread). */
static inline uint64_t fixture_pages(unsigned node, uint64_t kb)
{
	uint64_t n;

	return hugetlb_node_persistent(node, kb, &n) ? UINT64_MAX : n;
}

/* A node's pool of a size now (all UINT64_MAX when unread). */
static inline struct hp_pool fixture_pool(unsigned node, uint64_t kb)
{
	struct hp_pool p;

	if (hugetlb_node(node, kb, &p))
		memset(&p, 0xff, sizeof(p));
	return p;
}

#endif
