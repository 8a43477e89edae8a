/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * simcore.c - the simulated kernel's state and machinery: the shared file and its
 * two copies, the locks, the processes that hold pages and what exit gives back, the
 * cost model. The accounting rules are sim.c; doc/simulator.md.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "macros.h"
#include "path.h"
#include "clock.h"
#include "sim.h"
#include "simclock.h"
#include "simcore.h"
#include "sys.h"

static struct sim_file *shared;
struct sim_state *sim_cur; /* the copy this operation works on */
static int lock_fd = -1, resize_fd = -1;
static pid_t lock_pid, resize_pid;
int sim_my_bind = -1, sim_my_cpu = -1;

struct sim_state *sim_state(void)
{
	return sim_cur;
}

int sim_node_index(unsigned id)
{
	for (unsigned i = 0; sim_cur && i < sim_cur->nnodes; i++)
		if (sim_cur->nodes[i].id == id)
			return i;
	return -1;
}

int sim_size_index(uint64_t kb)
{
	for (unsigned i = 0; sim_cur && i < sim_cur->nsizes; i++)
		if (sim_cur->sizes[i].kb == kb)
			return i;
	return -1;
}

/* A lock fd of this process's own: flock() belongs to an open file, which a fork
 * would share with the parent. */
int sim_own_fd(int *fd, pid_t *owner, const char *name)
{
	char p[4096];

	if (*fd >= 0 && *owner == getpid())
		return 0;
	if (*fd >= 0)
		close(*fd);
	if (path_build(p, sizeof(p), "/.sim/%s", name))
		return -ENAMETOOLONG;
	*fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	*owner = getpid();
	return *fd < 0 ? -errno : 0;
}

int sim_flock(int fd, int op)
{
	while (flock(fd, op) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

static void holder_gone(unsigned i);

/* Work on a copy of the current state. */
static void begin(void)
{
	uint32_t cur = __atomic_load_n(&shared->cur, __ATOMIC_ACQUIRE) & 1;
	const struct sim_state *from = &shared->st[cur];
	unsigned nn = from->nnodes;

	sim_cur = &shared->st[!cur];
	/* only what is in use: the node arrays are sized for the most nodes */
	memcpy(sim_cur, from, offsetof(struct sim_state, nodes));
	memcpy(sim_cur->nodes, from->nodes, nn * sizeof(sim_cur->nodes[0]));
	memcpy(sim_cur->shown, from->shown, nn * sizeof(sim_cur->shown[0]));
	memcpy(sim_cur->shown_global, from->shown_global, sizeof(sim_cur->shown_global));
	memcpy(sim_cur->shown_free, from->shown_free,
	       nn * sizeof(sim_cur->shown_free[0]));
	sim_cur->reaped_ms = from->reaped_ms;
	sim_cur->rendered_ms = from->rendered_ms;
	sim_cur->nholders = from->nholders;
	memcpy(sim_cur->holders, from->holders,
	       from->nholders * sizeof(sim_cur->holders[0]));
}

/* Make the copy current: one store. */
static void make_current(void)
{
	__atomic_store_n(&shared->cur, (uint32_t)(sim_cur - shared->st),
			 __ATOMIC_RELEASE);
}

/* Time this process lost to the simulation itself (sleeping past the time asked,
 * waiting for the state's lock): the next sleeps are that much shorter, so that a
 * node's rate is the machine's and not this host's. */
static double debt_s;
/* Set by sim_reap(): on the simulated clock, the lock looks for dead holders only
 * then. */
static bool reap_asked;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int sim_lock_for(bool worker)
{
	int rc = sim_own_fd(&lock_fd, &lock_pid, "lock");
	double t0 = now_s();
	uint64_t now;

	if (!rc)
		rc = sim_flock(lock_fd, LOCK_EX);
	if (rc)
		return rc;
	if (worker) /* a wait the kernel would not have had */
		debt_s = MIN(debt_s + now_s() - t0, SIM_DEBT_MAX_S);
	begin();
	/* The kernel gives back what a process held when it exits. Looking for dead
	 * processes costs a /proc read each: a worker's reservation looks at most
	 * every SIM_REAP_MS, everything else each time (the coordinator's reads then
	 * see what the kernel would). */
	now = sys_mono_ms();
	if (worker && now - sim_cur->reaped_ms < SIM_REAP_MS)
		return 0;
	/* On the simulated clock every end of a process goes through the clock,
	 * which gives its pages back then (sim_exit_pid, sim_reap): a look is only
	 * asked for there, and thousands of holders are not read at each lock. */
	if (simclock_on() && !reap_asked)
		return 0;
	sim_cur->reaped_ms = now;
	for (unsigned i = 0; i < sim_cur->nholders;)
		if (sys_pid_gone(sim_cur->holders[i].pid))
			holder_gone(i);
		else
			i++;
	return 0;
}

int sim_lock(void)
{
	return sim_lock_for(false);
}

/* Drop this process's holders that hold nothing. */
static void tidy(void)
{
	pid_t me = getpid();

	for (unsigned i = 0; i < sim_cur->nholders;) {
		const struct sim_holder *h = &sim_cur->holders[i];
		bool empty = h->pid == me && !h->resv && h->active < 0;

		for (unsigned k = 0; empty && k < h->non; k++)
			empty = !h->on[k].used && !h->on[k].inflight;
		if (empty)
			sim_cur->holders[i] = sim_cur->holders[--sim_cur->nholders];
		else
			i++;
	}
}

void sim_unlock_for(bool worker)
{
	uint64_t now = sys_mono_ms();

	tidy();
	make_current();
	/* The files are for people and plan; writing them takes longer than the
	 * operation: a worker's reservation writes them at most every SIM_RENDER_MS,
	 * every other operation each time (the last one of a run leaves them true). */
	if (!worker || now - sim_cur->rendered_ms >= SIM_RENDER_MS) {
		sim_cur->rendered_ms = now;
		simfile_render(sim_cur);
	}
	flock(lock_fd, LOCK_UN);
}

void sim_unlock(void)
{
	sim_unlock_for(false);
}

unsigned long sim_all_nodes(void)
{
	return sim_cur->nnodes >= 64 ? ~0UL : (1UL << sim_cur->nnodes) - 1;
}

uint64_t sim_psz(unsigned z)
{
	return sim_cur->sizes[z].kb * 1024;
}

struct hp_pool sim_total(unsigned z)
{
	struct hp_pool t = {0};

	for (unsigned n = 0; n < sim_cur->nnodes; n++) {
		t.nr += sim_cur->nodes[n].pool[z].nr;
		t.free += sim_cur->nodes[n].pool[z].free;
		t.surplus += sim_cur->nodes[n].pool[z].surplus;
	}
	return t;
}

uint64_t sim_persistent(unsigned z)
{
	struct hp_pool t = sim_total(z);

	return pool_persistent(&t);
}

/* hstate_next_node_to_alloc/free: the cursor's node, then move it on. */
int sim_cursor_next(unsigned *cursor, unsigned long mask)
{
	for (unsigned k = 0; k < sim_cur->nnodes; k++) {
		unsigned n = (*cursor + k) % sim_cur->nnodes;

		if (mask >> n & 1) {
			*cursor = (n + 1) % sim_cur->nnodes;
			return n;
		}
	}
	return -1;
}

bool sim_node_can_give(unsigned n, unsigned z)
{
	return sim_cur->nodes[n].has_memory && sim_cur->nodes[n].mem_free >= sim_psz(z);
}

void sim_page_new(unsigned n, unsigned z, bool surplus)
{
	sim_cur->nodes[n].mem_free -= sim_psz(z) - sim_vmemmap_page(n, z, 1);
	sim_cur->nodes[n].pool[z].nr++;
	sim_cur->nodes[n].pool[z].surplus += surplus;
}

void sim_page_destroy(unsigned n, unsigned z, bool surplus)
{
	sim_cur->nodes[n].mem_free += sim_psz(z) - sim_vmemmap_page(n, z, -1);
	sim_cur->nodes[n].pool[z].nr--;
	if (surplus)
		sim_cur->nodes[n].pool[z].surplus--;
}

/* remove_pool_huge_page: free one free page, round robin over the nodes. */
int sim_remove_pool_page(unsigned z, unsigned long mask, bool acct_surplus)
{
	for (unsigned k = 0; k < sim_cur->nnodes; k++) {
		int n = sim_cursor_next(&sim_cur->sizes[z].next_free, mask);
		struct hp_pool *p;

		if (n < 0)
			return -1;
		p = &sim_cur->nodes[n].pool[z];
		if ((!acct_surplus || p->surplus) && p->free) {
			if (!acct_surplus && sim_vmemmap_refuses(n, z))
				return p->surplus++, n; /* kept, as surplus (Linux 6.1) */
			p->free--;
			sim_page_destroy(n, z, acct_surplus);
			return n;
		}
	}
	return -1;
}

/* return_unused_surplus_pages */
void sim_return_unused_surplus(unsigned z, uint64_t unused)
{
	struct sim_size *sz = &sim_cur->sizes[z];
	uint64_t n = MIN(unused, sim_total(z).surplus);

	sz->resv = sz->resv > unused ? sz->resv - unused : 0;
	while (n-- && sim_remove_pool_page(z, sim_all_nodes(), true) >= 0)
		;
}

/* What exit does: pages in use are freed (surplus ones leave the pool), then the
 * rest of the reservation is returned. */
static void holder_gone(unsigned i)
{
	struct sim_holder *h = &sim_cur->holders[i];

	if (h->active >= 0)
		sim_cur->nodes[h->active].active--;
	for (unsigned k = 0; k < h->non; k++) {
		unsigned n = h->on[k].node;

		for (; h->on[k].inflight; h->on[k].inflight--)
			sim_page_destroy(n, h->z, true);
		for (; h->on[k].used; h->on[k].used--) {
			if (sim_cur->nodes[n].pool[h->z].surplus)
				sim_page_destroy(n, h->z, true);
			else
				sim_cur->nodes[n].pool[h->z].free++;
		}
	}
	sim_return_unused_surplus(h->z, h->resv);
	*h = sim_cur->holders[--sim_cur->nholders];
}

struct sim_on *sim_holder_on(struct sim_holder *h, unsigned n)
{
	for (unsigned k = 0; k < h->non; k++)
		if (h->on[k].node == n)
			return &h->on[k];
	if (h->non == SIM_HOLDER_NODES)
		return NULL;
	h->on[h->non] = (struct sim_on){.node = n};
	return &h->on[h->non++];
}

struct sim_holder *sim_holder_of(unsigned z, bool add)
{
	pid_t me = getpid();

	for (unsigned i = 0; i < sim_cur->nholders; i++)
		if (sim_cur->holders[i].pid == me && sim_cur->holders[i].z == z)
			return &sim_cur->holders[i];
	if (!add || sim_cur->nholders == SIM_MAX_HOLDERS)
		return NULL;
	memset(&sim_cur->holders[sim_cur->nholders], 0, sizeof(sim_cur->holders[0]));
	sim_cur->holders[sim_cur->nholders].pid = me;
	sim_cur->holders[sim_cur->nholders].z = z;
	sim_cur->holders[sim_cur->nholders].active = -1;
	return &sim_cur->holders[sim_cur->nholders++];
}

int sim_resize_lock(unsigned z, int op)
{
	int rc = sim_own_fd(&resize_fd, &resize_pid, "resize");
	struct flock fl = {.l_type = op == LOCK_UN ? F_UNLCK : F_WRLCK,
			   .l_whence = SEEK_SET,
			   .l_start = z,
			   .l_len = 1};

	if (rc)
		return rc;
	/* On the simulated clock, no wait outside it: try, and try again later. */
	while (fcntl(resize_fd, simclock_on() ? F_OFD_SETLK : F_OFD_SETLKW, &fl) < 0) {
		if (errno == EAGAIN || errno == EACCES)
			clock_sleep_ms(1);
		else if (errno != EINTR)
			return -errno;
	}
	return 0;
}

/* ---- the cost model ---------------------------------------------------------- */

/* The lock dropped while simulated time passes, so that others work meanwhile: the
 * state made current, then a copy of it worked on again. */
static void drop(void)
{
	make_current();
	flock(lock_fd, LOCK_UN);
}

static void retake(void)
{
	sim_flock(lock_fd, LOCK_EX);
	begin();
}

/* The host's clock: sleep the time the pages take, less what the simulation itself
 * cost before. False when a signal cut a write short. */
static bool host_spend(unsigned n, unsigned z, uint64_t pages, bool write)
{
	double s = pages * sim_page_seconds(n, z, sim_cur->nodes[n].active) /
		   (sim_cur->scale > 0 ? sim_cur->scale : 1);
	double paid = MIN(s, debt_s), t0;
	struct timespec ts, left;
	bool cut = false;

	debt_s -= paid;
	s -= paid;
	drop();
	t0 = now_s();
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &left) < 0 && errno == EINTR) {
		if (write) {
			cut = true;
			break;
		}
		ts = left;
	}
	retake();
	if (!cut)
		debt_s = MIN(debt_s + MAX(now_s() - t0 - s, 0.0), SIM_DEBT_MAX_S);
	return !cut;
}

/* Spend the time 'pages' take on node n, on the simulated kernel's own clock or the
 * host's. Returns false when a signal cut a write short (the kernel bails out of its
 * allocation loop on a pending signal; a reservation does not). */
bool sim_spend(unsigned n, unsigned z, uint64_t pages, bool write)
{
	struct sim_holder *h = sim_holder_of(z, true);
	bool done;

	if (!sim_node_rate(n, z, 1) || !pages || !h)
		return true;
	sim_cur->nodes[n].active++;
	h->active = n;
	if (simclock_on()) {
		drop();
		done = simclock_spend(n, z, (double)pages, write);
		retake();
	} else {
		done = host_spend(n, z, pages, write);
	}
	h = sim_holder_of(z, true);
	sim_cur->nodes[n].active--;
	if (h)
		h->active = -1;
	return done;
}

void sim_exit_pid(pid_t pid)
{
	/* (as a reservation does: the look for other dead processes at most every
	 * SIM_REAP_MS, a worker's exit being as frequent) */
	if (sim_lock_for(true))
		return;
	for (unsigned i = 0; i < sim_cur->nholders;)
		if (sim_cur->holders[i].pid == pid)
			holder_gone(i);
		else
			i++;
	sim_unlock_for(true);
}

void sim_reap(void)
{
	reap_asked = true;
	if (!sim_lock())
		sim_unlock();
	reap_asked = false;
}

int sim_open(void)
{
	char p[4096];
	int fd, rc;

	if (shared)
		return 0;
	if (path_build(p, sizeof(p), "/.sim"))
		return -ENAMETOOLONG;
	if (mkdir(p, 0755) && errno != EEXIST)
		return -errno;
	rc = sim_own_fd(&lock_fd, &lock_pid, "lock");
	if (rc || (rc = sim_flock(lock_fd, LOCK_EX)))
		return rc;
	path_build(p, sizeof(p), "/.sim/state");
	if (access(p, F_OK))
		rc = simfile_create(p);
	fd = rc ? -1 : open(p, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED,
			      fd, 0);
		if (shared == MAP_FAILED ||
		    memcmp(shared->magic, SIM_MAGIC, sizeof(SIM_MAGIC))) {
			rc = shared == MAP_FAILED ? -errno : -EINVAL;
			shared = NULL;
		}
		close(fd);
	} else if (!rc) {
		rc = -errno;
	}
	if (shared)
		sim_cur = &shared->st[shared->cur & 1];
	flock(lock_fd, LOCK_UN);
	return rc;
}
