/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * worker.c - unit tests: a worker over the simulated kernel: it binds to its node,
 * claims pages of the node's shared work, reserves them as surplus pages, reports
 * once and holds them until let go; it halves a claim the kernel refuses, stops when
 * told, and says when its bind failed (its pages may then land elsewhere).
 */
#include <signal.h>
#include <sys/mman.h>

#include "children.h"
#include "fixture.h"
#include "worker.h"

static const char *const two_nodes[] = {"sizes 2048 1048576", "release 6.12.0",
					"node 0 cpus 0-3 mem 8G free 7G",
					"node 1 cpus 4-7 mem 8G free 7G", NULL};

static struct fixture fx;

/* Workers of one node and what they share. */
struct crew {
	struct node_work *work;
	struct worker_slot *slot; /* per worker */
	struct worker_job job[4];
	struct worker_report rep[4];
	struct children kids;
	unsigned n;
};

/* Shared work of 'pages' in claims of 'claim' (split: 0 while measured). */
static void crew_init(struct crew *c, uint64_t pages, uint64_t claim, uint32_t split)
{
	memset(c, 0, sizeof(*c));
	c->work =
	    mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(c->work != MAP_FAILED);
	c->slot = (struct worker_slot *)(c->work + 1);
	c->work->remaining = (int64_t)pages;
	c->work->claim = claim;
	c->work->split = split;
}

/* One more worker for the node of this id and CPUs, reserving size kb. */
static void crew_add_on(struct crew *c, unsigned id, const struct hp_idset *cpus,
			uint64_t kb, uint64_t deadline)
{
	unsigned s = c->n++;
	struct spawn sp = {.tag = s,
			   .report = &c->rep[s],
			   .len = sizeof(c->rep[s]),
			   .hold = true,
			   .pdeathsig = SIGKILL};

	c->job[s] = (struct worker_job){.node = id,
					.cpus = cpus,
					.kb = kb,
					.deadline = deadline,
					.work = c->work,
					.slot = &c->slot[s]};
	CHECK(children_spawn(&c->kids, &sp, worker_main, &c->job[s]) == (int)s);
}

/* ... for node 'node' (an index in the topology). */
static void crew_add(struct crew *c, unsigned node, uint64_t kb)
{
	crew_add_on(c, fx.t.nodes[node].id, fx.t.nodes[node].cpus, kb,
		    sys_mono_ms() + 3600 * 1000);
}

static void crew_collect(struct crew *c)
{
	struct collect_policy p = {
	    .tell_at = UINT64_MAX, .sig = SIGUSR1, .kill_after = 60000};

	children_collect(&c->kids, &p);
	for (unsigned i = 0; i < c->n; i++)
		CHECK(c->kids.c[i].reported);
}

static void crew_free(struct crew *c)
{
	children_release(&c->kids);
	children_free(&c->kids);
	munmap(c->work, 4096);
}

/* Claims of 10 pages until the work is gone; the pages are the node's surplus until
 * the worker is let go. */
UNIT_TEST(reserve, "claims of 10 pages until the work is gone, held as surplus")
{
	struct crew c;

	CHECK(fixture_make(&fx, two_nodes) == 0);
	CHECK(hugetlb_set_overcommit(2048, 1000) == 0);
	crew_init(&c, 100, 10, 0);
	crew_add(&c, 1, 2048);
	crew_collect(&c);
	CHECK(c.rep[0].err == 0 && c.rep[0].held == 100 && c.rep[0].chunks == 10 &&
	      c.rep[0].refused == 0);
	CHECK(c.slot[0].held == 100 && c.slot[0].started == 10 && c.slot[0].ended == 10);
	CHECK(c.work->remaining == 0 && c.work->done == 100);
	CHECK(fixture_pool(1, 2048).surplus == 100 && fixture_pool(1, 2048).nr == 100);
	CHECK(fixture_pool(0, 2048).nr == 0);
	crew_free(&c);
	/* gone with the worker */
	CHECK(fixture_pool(1, 2048).nr == 0 && fixture_pool(1, 2048).surplus == 0);
	fixture_remove(&fx);
}

/* Once the count is settled, a claim is what is left over split: 25, 18, 14, 10, 8,
 * 6, 4, 3, 3, 2 and seven of 1. */
UNIT_TEST(split, "once the count is settled, claims split what is left")
{
	struct crew c;

	CHECK(fixture_make(&fx, two_nodes) == 0);
	CHECK(hugetlb_set_overcommit(2048, 1000) == 0);
	crew_init(&c, 100, 1, 4);
	crew_add(&c, 0, 2048);
	crew_collect(&c);
	CHECK(c.rep[0].err == 0 && c.rep[0].held == 100 && c.rep[0].chunks == 17);
	CHECK(fixture_pool(0, 2048).surplus == 100);
	crew_free(&c);
	fixture_remove(&fx);
}

/* The kernel gives 30 surplus pages: claims of 64, 32 refused, 16 taken, 16 refused,
 * 8 taken... down to 1 refused, which ends the worker; the refused pages go back to
 * the work. */
UNIT_TEST(enomem, "claims halve after ENOMEM down to one page; refused pages go back")
{
	struct crew c;

	CHECK(fixture_make(&fx, two_nodes) == 0);
	CHECK(hugetlb_set_overcommit(2048, 30) == 0);
	crew_init(&c, 100, 64, 0);
	crew_add(&c, 1, 2048);
	crew_collect(&c);
	CHECK(c.rep[0].err == -ENOMEM && c.rep[0].held == 30 && c.rep[0].chunks == 11 &&
	      c.rep[0].refused == 7);
	CHECK(c.work->remaining == 70 && c.work->done == 30 && c.slot[0].held == 30);
	CHECK(fixture_pool(1, 2048).surplus == 30);
	crew_free(&c);
	fixture_remove(&fx);
}

/* Another refusal than ENOMEM (a size the kernel has not) ends it at once. */
UNIT_TEST(refused, "a refusal other than ENOMEM ends the worker at once")
{
	struct crew c;

	CHECK(fixture_make(&fx, two_nodes) == 0);
	crew_init(&c, 100, 10, 0);
	crew_add(&c, 0, 4096);
	crew_collect(&c);
	CHECK(c.rep[0].err == -EINVAL && c.rep[0].held == 0 && c.rep[0].chunks == 1 &&
	      c.rep[0].refused == 1);
	CHECK(c.work->remaining == 100 && c.work->done == 0);
	crew_free(&c);
	fixture_remove(&fx);
}

/* A failed bind is reported, and the worker reserves all the same: unbound, its
 * pages land on the lowest node (the 6.12 rule), not on its own. */
UNIT_TEST(bind_failed, "a failed bind is reported, and the worker reserves unbound")
{
	struct crew c;

	setenv("HUGEPAR_FAULT", "bind=EIO", 1);
	CHECK(fixture_make(&fx, two_nodes) == 0);
	CHECK(hugetlb_set_overcommit(2048, 1000) == 0);
	crew_init(&c, 100, 10, 0);
	crew_add(&c, 1, 2048);
	crew_collect(&c);
	CHECK(c.rep[0].bind_err == -EIO && c.rep[0].err == 0 && c.rep[0].held == 100 &&
	      c.rep[0].refused == 0);
	CHECK(fixture_pool(0, 2048).surplus == 100 && fixture_pool(1, 2048).surplus == 0);
	crew_free(&c);
	fixture_remove(&fx);
}

/* A node the kernel does not know: the bind fails with the kernel's own error. */
UNIT_TEST(bind_unknown, "a node the kernel does not know: the bind fails with its error")
{
	struct crew c;

	CHECK(fixture_make(&fx, two_nodes) == 0);
	CHECK(hugetlb_set_overcommit(2048, 1000) == 0);
	crew_init(&c, 20, 10, 0);
	crew_add_on(&c, 9, fx.t.nodes[1].cpus, 2048, sys_mono_ms() + 3600 * 1000);
	crew_collect(&c);
	CHECK(c.rep[0].bind_err == -EINVAL && c.rep[0].err == 0 && c.rep[0].held == 20);
	crew_free(&c);
	fixture_remove(&fx);
}

/* Told to stop before it starts, or past its deadline: no claim. */
UNIT_TEST(stopped, "a worker told to stop first, or past its deadline, claims nothing")
{
	struct crew c;

	CHECK(fixture_make(&fx, two_nodes) == 0);
	CHECK(hugetlb_set_overcommit(2048, 1000) == 0);
	crew_init(&c, 100, 10, 0);
	c.slot[0].stop = 1;
	crew_add(&c, 0, 2048);
	crew_add_on(&c, fx.t.nodes[1].id, fx.t.nodes[1].cpus, 2048, 0);
	crew_collect(&c);
	for (unsigned i = 0; i < 2; i++)
		CHECK(c.rep[i].err == 0 && c.rep[i].held == 0 && c.rep[i].chunks == 0);
	CHECK(c.work->remaining == 100 && c.work->done == 0);
	crew_free(&c);
	fixture_remove(&fx);
}

/* Workers of a node share its work: whatever each took, they took it all once. */
UNIT_TEST(share, "a node's workers share its work: all of it taken, once")
{
	struct crew c;
	uint64_t held = 0;

	CHECK(fixture_make(&fx, two_nodes) == 0);
	CHECK(hugetlb_set_overcommit(2048, 1000) == 0);
	crew_init(&c, 500, 7, 0);
	for (unsigned i = 0; i < 4; i++)
		crew_add(&c, 1, 2048);
	crew_collect(&c);
	for (unsigned i = 0; i < 4; i++) {
		CHECK(c.rep[i].err == 0 && c.rep[i].held == c.slot[i].held);
		held += c.rep[i].held;
	}
	CHECK(held == 500 && c.work->remaining == 0 && c.work->done == 500);
	CHECK(fixture_pool(1, 2048).surplus == 500);
	crew_free(&c);
	CHECK(fixture_pool(1, 2048).surplus == 0);
	fixture_remove(&fx);
}

/* SIGUSR1 (its coordinator's stop) once it is at work on a slow node (100 pages a
 * second): it ends the claim it is in, claims no more, and reports what it holds;
 * the rest of the work is left to others. */
UNIT_TEST(signal, "SIGUSR1 ends the claim in progress; the worker reports what it holds")
{
	static const char *const slow[] = {"sizes 2048", "release 6.12.0",
					   "node 0 cpus 0-3 mem 8G free 7G",
					   "sim rate 2048 1:100", NULL};
	struct crew c;

	CHECK(fixture_make(&fx, slow) == 0);
	CHECK(hugetlb_set_overcommit(2048, 1000) == 0);
	crew_init(&c, 1000, 10, 0);
	crew_add(&c, 0, 2048);
	for (unsigned i = 0;
	     i < 10000 && !__atomic_load_n(&c.slot[0].started, __ATOMIC_RELAXED); i++)
		usleep(1000);
	CHECK(kill(c.kids.c[0].pid, SIGUSR1) == 0);
	crew_collect(&c);
	CHECK(c.rep[0].err == 0 && c.rep[0].held < 1000 && c.rep[0].held % 10 == 0);
	CHECK(c.rep[0].held == c.rep[0].chunks * 10);
	CHECK((uint64_t)c.work->remaining == 1000 - c.rep[0].held);
	CHECK(fixture_pool(0, 2048).surplus == c.rep[0].held);
	crew_free(&c);
	fixture_remove(&fx);
}
