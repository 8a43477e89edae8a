/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare.c - the pools now against the record: pages lost or added since its run. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "text.h"
#include "file.h"
#include "mounts.h"
#include "parse.h"
#include "compare.h"

void compare_pools(const struct hp_record *r, const struct hp_topology *t, FILE *out,
		   struct pool_check *pc)
{
	memset(pc, 0, sizeof(*pc));
	for (unsigned i = 0; i < r->run.nnodes; i++) {
		const struct record_node *nd = &r->run.nodes[i];
		unsigned id = (unsigned)nd->node;
		int n = topology_node_index(t, id);

		for (unsigned k = 0; k < nd->ncells; k++) {
			const struct record_cell *c = &nd->cells[k];
			const char *sz = c->size;
			uint64_t achieved = c->achieved, bytes, live = 0;
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
			if (c->requested_set && !c->requested_neg &&
			    live < c->requested) {
				pc->shortc++;
				if (out)
					fprintf(out,
						"hugepar: node %u %s: %llu of %llu pages "
						"asked for\n",
						id, sz, (unsigned long long)live,
						(unsigned long long)c->requested);
			}
		}
	}
}
