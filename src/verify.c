/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verify.c - on the booted system: the live pools against the record (pages can be
 * lost after boot: sysctl, another tool, memory hotplug), for `hugepar status
 * --check` and `hugepar verify`; and what verify does besides: the hugetlbfs mounts
 * and node_exporter's textfile.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"
#include "mounts.h"
#include "parse.h"
#include "verify.h"

void pools_compare(const struct hp_record *r, const struct hp_topology *t, FILE *out,
		   struct pool_check *pc)
{
	const struct json_val *nodes = json_get(&r->v, "nodes");

	memset(pc, 0, sizeof(*pc));
	for (unsigned i = 0; nodes && i < nodes->n; i++) {
		const struct json_val *nd = &nodes->kids[i], *zs = json_get(nd, "sizes");
		unsigned id = (unsigned)json_get_num(nd, "node");
		int n = topology_node_index(t, id);

		for (unsigned k = 0; zs && k < zs->n; k++) {
			const struct json_val *c = &zs->kids[k],
					      *rq = json_get(c, "requested");
			const char *sz = json_get_str(c, "size");
			uint64_t achieved = json_get_num(c, "achieved"), bytes, live = 0;
			int z = parse_bytes(sz, &bytes)
				    ? -1
				    : topology_size_index(t, bytes / 1024);

			if (n >= 0 && z >= 0)
				live = pool_persistent(&t->nodes[n].pool[z]);
			pc->cells++;
			if (live != achieved) {
				pc->drift++;
				if (out)
					fprintf(out,
						"hugepar: node %u %s: %llu pages now, "
						"%llu when the "
						"run ended\n",
						id, sz, (unsigned long long)live,
						(unsigned long long)achieved);
			}
			if (rq && rq->type == JSON_NUM && !rq->neg && live < rq->num) {
				pc->shortc++;
				if (out)
					fprintf(out,
						"hugepar: node %u %s: %llu of %llu pages "
						"asked for\n",
						id, sz, (unsigned long long)live,
						(unsigned long long)rq->num);
			}
		}
	}
}

struct textfile {
	const struct hp_record *r;
	const struct hp_topology *t;
};

static void textfile_body(FILE *f, const void *arg)
{
	const struct textfile *tf = arg;

	record_prometheus(f, tf->r, tf->t);
}

/* The textfile, atomically and readable by node_exporter: only where its directory
 * is (node_exporter installed); nothing is made for a tool that is not there. */
static int write_textfile(const char *file, const struct hp_record *r,
			  const struct hp_topology *t)
{
	const struct textfile tf = {r, t};
	char dir[4096];
	char *slash;

	if (xsnprintf(dir, sizeof(dir), "%s", file))
		return -ENAMETOOLONG;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (access(dir[0] ? dir : "/", W_OK))
		return -errno;
	return replace_file_with(file, textfile_body, &tf);
}

int verify(const struct hp_settings *s, const struct hp_record *r,
	   const struct hp_topology *t, struct verify_result *vr)
{
	const char *textfile = settings_textfile(s);
	char why[256];
	int rc;

	memset(vr, 0, sizeof(*vr));
	if (r) {
		pools_compare(r, t, stdout, &vr->pools);
	} else if (s->nentries) {
		vr->no_record = true;
		printf("hugepar: no record of a run at boot, but pages are configured: "
		       "is hugepar "
		       "in the initramfs?\n");
	}
	for (unsigned i = 0; i < s->nmounts; i++) {
		rc = mount_hugetlbfs(&s->mounts[i], t, why, sizeof(why));
		if (rc < 0)
			vr->mounts_failed++;
		printf("hugepar: %s: %s\n", s->mounts[i].path, why);
	}
	if (textfile && r) {
		rc = write_textfile(textfile, r, t);
		vr->textfile = rc == 0;
		if (rc && rc != -ENOENT)
			printf("hugepar: %s: %s\n", textfile, strerror(-rc));
	}
	vr->failed = s->on_short == HP_SHORT_FAIL &&
		     (vr->pools.shortc || vr->no_record || vr->mounts_failed);
	return vr->failed ? -EAGAIN : 0;
}
