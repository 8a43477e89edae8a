/* SPDX-License-Identifier: GPL-2.0-or-later */
/* job.c - the per-node steps of one size's job (job.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "clock.h"
#include "hugetlb.h"
#include "job.h"
#include "stop.h"
#include "sys.h"

void job_note(struct size_job *j, unsigned n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(j->notes[n].note, sizeof(j->notes[n].note), fmt, ap);
	va_end(ap);
	j->notes[n].stop = HP_CAUSE_KERNEL_ERROR;
}

bool job_out_of_time(struct size_job *j)
{
	switch (stop_check(j->deadline)) {
	case STOP_SIGNAL:
		j->rep.interrupted = 1;
		return true;
	case STOP_DEADLINE:
		j->rep.timed_out = 1;
		return true;
	case STOP_NONE:
		break;
	}
	return false;
}

void job_note_stopped(struct size_job *j, unsigned n)
{
	enum hp_cause c = j->rep.interrupted ? HP_CAUSE_INTERRUPTED : HP_CAUSE_DEADLINE;

	job_note(j, n, "%s", result_cause_text(c));
	j->notes[n].stop = c;
}

/* One node to 'target' with a per-node write, cut short at the deadline. */
int job_node_write(struct size_job *j, unsigned n, uint64_t target, uint64_t deadline)
{
	uint64_t t0 = clock_now_ms();
	int rc;

	stop_deadline_arm(deadline);
	rc = hugetlb_set_node(j->t->nodes[n].id, j->kb, target);
	stop_deadline_disarm();
	j->notes[n].ms += clock_now_ms() - t0;
	return rc == -EINTR ? 0 : rc;
}

int job_node_now(struct size_job *j, unsigned n, uint64_t *have)
{
	return hugetlb_node_persistent(j->t->nodes[n].id, j->kb, have);
}

uint64_t job_node_lack(struct size_job *j, unsigned n)
{
	const struct hp_cell *c = plan_cell(j->p, n, j->z);
	uint64_t have = c->current;

	if (c->target <= c->current)
		return 0;
	if (job_node_now(j, n, &have))
		have = c->current;
	return c->target > have ? c->target - have : 0;
}
