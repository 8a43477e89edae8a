/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * job.c - unit tests: one size's per-node steps over the simulated kernel: what a
 * node lacks, a per-node write and one cut short, what stops a job, its notes.
 */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/time.h>

#include "fixture.h"
#include "job.h"
#include "stop.h"

static const char *const two_nodes[] = {
    "sizes 2048 1048576", "release 6.12.0", "node 0 cpus 0-3 mem 8G free 7G",
    "node 1 cpus 4-7 mem 8G free 7G pool 2048:50", NULL};
static const char *const pages_100[] = {"pages = 2M:100", "threads = 1", NULL};

static struct fixture fx;

UNIT_TEST(lack, "what a node lacks, read after each write; an unknown node fails")
{
	struct size_job *j = &fx.j;
	uint64_t have = 99;

	CHECK(fixture_make(&fx, two_nodes) == 0);
	CHECK(fixture_job(&fx, pages_100, 2048, HP_METHOD_SERIAL) == 0);
	CHECK(plan_cell(&fx.p, 1, 0)->current == 50 &&
	      plan_cell(&fx.p, 1, 0)->target == 100);
	CHECK(job_node_now(j, 0, &have) == 0 && have == 0);
	CHECK(job_node_now(j, 1, &have) == 0 && have == 50);
	CHECK(job_node_lack(j, 0) == 100 && job_node_lack(j, 1) == 50);

	/* writes, and what is read after them */
	CHECK(job_node_write(j, 0, 30, j->deadline) == 0);
	CHECK(fixture_pages(0, 2048) == 30 && fixture_pages(1, 2048) == 50);
	CHECK(job_node_lack(j, 0) == 70);
	CHECK(job_node_write(j, 0, 150, j->deadline) == 0);
	CHECK(fixture_pages(0, 2048) == 150 && job_node_lack(j, 0) == 0);
	CHECK(job_node_write(j, 1, 0, j->deadline) == 0);
	CHECK(fixture_pages(1, 2048) == 0 && job_node_lack(j, 1) == 100);

	/* a node the kernel does not know: the write fails, and what it lacks is what
	 * the plan says */
	fx.t.nodes[1].id = 7;
	CHECK(job_node_now(j, 1, &have) == -ENOENT);
	CHECK(job_node_write(j, 1, 10, j->deadline) == -ENOENT);
	CHECK(job_node_lack(j, 1) == 50);
	/* no growth planned: nothing lacks, and nothing is read */
	plan_cell(&fx.p, 1, 0)->target = 40;
	CHECK(job_node_lack(j, 1) == 0);
	fx.t.nodes[1].id = 1;
	CHECK(job_node_lack(j, 1) == 0);
	fixture_remove(&fx);
}

/* The deadline, then a stop request; the note says which. */
UNIT_TEST(stop, "the deadline, then a stop request: the note says which")
{
	struct size_job j = {.deadline = sys_mono_ms() + 3600 * 1000};
	struct cell_note notes[2] = {0};
	char long_[200];

	j.notes = notes;
	CHECK(!job_out_of_time(&j) && !j.rep.timed_out && !j.rep.interrupted);
	j.deadline = 0;
	CHECK(job_out_of_time(&j) && j.rep.timed_out && !j.rep.interrupted);
	job_note_stopped(&j, 1);
	CHECK(strcmp(notes[1].note, "deadline reached") == 0 &&
	      notes[1].stop == HP_CAUSE_DEADLINE);
	j.rep.timed_out = 0;
	j.deadline = sys_mono_ms() + 3600 * 1000;
	stop_install();
	raise(SIGTERM);
	CHECK(job_out_of_time(&j) && j.rep.interrupted && !j.rep.timed_out);
	job_note_stopped(&j, 1);
	CHECK(strcmp(notes[1].note, "interrupted") == 0 &&
	      notes[1].stop == HP_CAUSE_INTERRUPTED);

	job_note(&j, 1, "%s after %d pages", "stopped", 12);
	CHECK(strcmp(notes[1].note, "stopped after 12 pages") == 0 &&
	      notes[1].stop == HP_CAUSE_KERNEL_ERROR && notes[0].note[0] == 0);
	memset(long_, 'x', sizeof(long_) - 1);
	long_[sizeof(long_) - 1] = '\0';
	job_note(&j, 0, "%s", long_);
	CHECK(strlen(notes[0].note) == sizeof(notes[0].note) - 1);
}

/* A write the kernel cuts short at a signal counts as done (the caller reads back
 * what it got): the seam's EINTR, before the write reaches the kernel. */
UNIT_TEST(eintr, "a node write cut short by a signal counts as done")
{
	setenv("HUGEPAR_FAULT", "write-node:1=EINTR", 1);
	CHECK(fixture_make(&fx, two_nodes) == 0);
	CHECK(fixture_job(&fx, pages_100, 2048, HP_METHOD_SERIAL) == 0);
	CHECK(job_node_write(&fx.j, 0, 100, fx.j.deadline) == 0);
	CHECK(fixture_pages(0, 2048) == 0);
	CHECK(job_node_write(&fx.j, 0, 100, fx.j.deadline) == 0); /* the seam's 2nd */
	CHECK(fixture_pages(0, 2048) == 100);
	fixture_remove(&fx);
}

/* At a deadline already past, a slow write (100 pages a second) is cut short by
 * the timer; a second process sends SIGALRM as well, in case the timer fired
 * before the write slept. It leaves what it got, under the target. */
UNIT_TEST(cut, "a slow write past its deadline is cut short with what it got")
{
	static const char *const slow[] = {"sizes 2048", "release 6.12.0",
					   "node 0 cpus 0-3 mem 8G free 7G",
					   "sim rate 2048 1:100", NULL};
	struct itimerval limit;
	uint64_t got;
	pid_t me = getpid(), pinger;

	CHECK(getitimer(ITIMER_REAL, &limit) == 0);
	CHECK(fixture_make(&fx, slow) == 0);
	CHECK(fixture_job(&fx, pages_100, 2048, HP_METHOD_SERIAL) == 0);
	stop_install();
	pinger = fork();
	if (pinger == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (unsigned i = 0; i < 500; i++) {
			kill(me, SIGALRM);
			usleep(20000);
		}
		_exit(0);
	}
	CHECK(job_node_write(&fx.j, 0, 1000, sys_mono_ms()) == 0);
	kill(pinger, SIGKILL);
	waitpid(pinger, NULL, 0);
	got = fixture_pages(0, 2048);
	CHECK(got < 1000);
	CHECK(!stop_requested());
	setitimer(ITIMER_REAL, &limit, NULL);
	fixture_remove(&fx);
}
