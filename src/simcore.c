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

#include "path.h"
#include "sim.h"
#include "simcore.h"

static struct sim_file *F;
struct sim_state *sim_cur; /* the copy this operation works on */
static int lock_fd = -1, resize_fd = -1;
static pid_t lock_pid, resize_pid;
int sim_my_bind = -1, sim_my_cpu = -1;

struct sim_state *sim_state(void)
{
	return S;
}

int sim_node_index(unsigned id)
{
	for (unsigned i = 0; S && i < S->nnodes; i++)
		if (S->nodes[i].id == id)
			return i;
	return -1;
}

int sim_size_index(uint64_t kb)
{
	for (unsigned i = 0; S && i < S->nsizes; i++)
		if (S->sizes[i].kb == kb)
			return i;
	return -1;
}

/* A lock fd of this process's own: flock() belongs to an open file, which a fork
 * would share with the parent. */
static int own_fd(int *fd, pid_t *owner, const char *name)
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

static int flock_retry(int fd, int op)
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
	uint32_t cur = __atomic_load_n(&F->cur, __ATOMIC_ACQUIRE) & 1;
	const struct sim_state *from = &F->st[cur];
	unsigned nn = from->nnodes;

	S = &F->st[!cur];
	/* only what is in use: the node arrays are sized for the most nodes */
	memcpy(S, from, offsetof(struct sim_state, nodes));
	memcpy(S->nodes, from->nodes, nn * sizeof(S->nodes[0]));
	memcpy(S->shown, from->shown, nn * sizeof(S->shown[0]));
	memcpy(S->shown_global, from->shown_global, sizeof(S->shown_global));
	memcpy(S->shown_free, from->shown_free, nn * sizeof(S->shown_free[0]));
	S->reaped_ms = from->reaped_ms;
	S->rendered_ms = from->rendered_ms;
	S->nholders = from->nholders;
	memcpy(S->holders, from->holders, from->nholders * sizeof(S->holders[0]));
}

/* Make the copy current: one store. */
static void commit(void)
{
	__atomic_store_n(&F->cur, (uint32_t)(S - F->st), __ATOMIC_RELEASE);
}

/* Time this process lost to the simulation itself (sleeping past the time asked,
 * waiting for the state's lock): the next sleeps are that much shorter, so that a
 * node's rate is the machine's and not this host's. */
static double debt_s;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int sim_lock_for(bool worker)
{
	int rc = own_fd(&lock_fd, &lock_pid, "lock");
	double t0 = now_s();
	uint64_t now;

	if (!rc)
		rc = flock_retry(lock_fd, LOCK_EX);
	if (rc)
		return rc;
	if (worker) /* a wait the kernel would not have had */
		debt_s = MIN(debt_s + now_s() - t0, SIM_DEBT_MAX_S);
	begin();
	/* The kernel gives back what a process held when it exits. Looking for dead
	 * processes costs a /proc read each: a worker's reservation looks at most
	 * every SIM_REAP_MS, everything else each time (the coordinator's reads then
	 * see what the kernel would). */
	now = now_ms();
	if (worker && now - S->reaped_ms < SIM_REAP_MS)
		return 0;
	S->reaped_ms = now;
	for (unsigned i = 0; i < S->nholders;)
		if (pid_gone(S->holders[i].pid))
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
	for (unsigned i = 0; i < S->nholders;) {
		const struct sim_holder *h = &S->holders[i];
		bool empty = h->pid == getpid() && !h->resv && h->active < 0;

		for (unsigned k = 0; empty && k < h->non; k++)
			empty = !h->on[k].used && !h->on[k].inflight;
		if (empty)
			S->holders[i] = S->holders[--S->nholders];
		else
			i++;
	}
}

void sim_unlock_for(bool worker)
{
	uint64_t now = now_ms();

	tidy();
	commit();
	/* The files are for people and plan; writing them takes longer than the
	 * operation: a worker's reservation writes them at most every SIM_RENDER_MS,
	 * every other operation each time (the last one of a run leaves them true). */
	if (!worker || now - S->rendered_ms >= SIM_RENDER_MS) {
		S->rendered_ms = now;
		simfile_render();
	}
	flock(lock_fd, LOCK_UN);
}

void sim_unlock(void)
{
	sim_unlock_for(false);
}

unsigned long sim_all_nodes(void)
{
	return S->nnodes >= 64 ? ~0UL : (1UL << S->nnodes) - 1;
}

uint64_t sim_psz(unsigned z)
{
	return S->sizes[z].kb * 1024;
}

struct hp_pool sim_total(unsigned z)
{
	struct hp_pool t = {0};

	for (unsigned n = 0; n < S->nnodes; n++) {
		t.nr += S->nodes[n].pool[z].nr;
		t.free += S->nodes[n].pool[z].free;
		t.surplus += S->nodes[n].pool[z].surplus;
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
	for (unsigned k = 0; k < S->nnodes; k++) {
		unsigned n = (*cursor + k) % S->nnodes;

		if (mask >> n & 1) {
			*cursor = (n + 1) % S->nnodes;
			return n;
		}
	}
	return -1;
}

bool sim_node_can_give(unsigned n, unsigned z)
{
	return S->nodes[n].has_memory && S->nodes[n].mem_free >= sim_psz(z);
}

void sim_page_new(unsigned n, unsigned z, bool surplus)
{
	S->nodes[n].mem_free -= sim_psz(z);
	S->nodes[n].pool[z].nr++;
	S->nodes[n].pool[z].surplus += surplus;
}

void sim_page_destroy(unsigned n, unsigned z, bool surplus)
{
	S->nodes[n].mem_free += sim_psz(z);
	S->nodes[n].pool[z].nr--;
	if (surplus)
		S->nodes[n].pool[z].surplus--;
}

/* remove_pool_huge_page: free one free page, round robin over the nodes. */
int sim_remove_pool_page(unsigned z, unsigned long mask, bool acct_surplus)
{
	for (unsigned k = 0; k < S->nnodes; k++) {
		int n = sim_cursor_next(&S->sizes[z].next_free, mask);
		struct hp_pool *p;

		if (n < 0)
			return -1;
		p = &S->nodes[n].pool[z];
		if ((!acct_surplus || p->surplus) && p->free) {
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
	struct sim_size *sz = &S->sizes[z];
	uint64_t n = MIN(unused, sim_total(z).surplus);

	sz->resv = sz->resv > unused ? sz->resv - unused : 0;
	while (n-- && sim_remove_pool_page(z, sim_all_nodes(), true) >= 0)
		;
}

/* What exit does: pages in use are freed (surplus ones leave the pool), then the
 * rest of the reservation is returned. */
static void holder_gone(unsigned i)
{
	struct sim_holder *h = &S->holders[i];

	if (h->active >= 0)
		S->nodes[h->active].active--;
	for (unsigned k = 0; k < h->non; k++) {
		unsigned n = h->on[k].node;

		for (; h->on[k].inflight; h->on[k].inflight--)
			sim_page_destroy(n, h->z, true);
		for (; h->on[k].used; h->on[k].used--) {
			if (S->nodes[n].pool[h->z].surplus)
				sim_page_destroy(n, h->z, true);
			else
				S->nodes[n].pool[h->z].free++;
		}
	}
	sim_return_unused_surplus(h->z, h->resv);
	*h = S->holders[--S->nholders];
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

	for (unsigned i = 0; i < S->nholders; i++)
		if (S->holders[i].pid == me && S->holders[i].z == z)
			return &S->holders[i];
	if (!add || S->nholders == SIM_MAX_HOLDERS)
		return NULL;
	memset(&S->holders[S->nholders], 0, sizeof(S->holders[0]));
	S->holders[S->nholders].pid = me;
	S->holders[S->nholders].z = z;
	S->holders[S->nholders].active = -1;
	return &S->holders[S->nholders++];
}

int sim_resize_lock(unsigned z, int op)
{
	int rc = own_fd(&resize_fd, &resize_pid, "resize");
	struct flock fl = {.l_type = op == LOCK_UN ? F_UNLCK : F_WRLCK,
			   .l_whence = SEEK_SET,
			   .l_start = z,
			   .l_len = 1};

	if (rc)
		return rc;
	while (fcntl(resize_fd, F_OFD_SETLKW, &fl) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

/* ---- the cost model ---------------------------------------------------------- */

/* Seconds one allocator spends on a page while 'k' allocate on the node: the rate
 * table gives the node's pages per second with k at work, shared among them. */
static double page_seconds(unsigned z, int k)
{
	const struct sim_size *sz = &S->sizes[z];
	double rate;
	unsigned i;

	if (!sz->nrate)
		return 0;
	k = k < 1 ? 1 : k;
	for (i = 0; i + 1 < sz->nrate && sz->rate[i + 1].workers <= (unsigned)k; i++)
		;
	rate = sz->rate[i].pages_per_s;
	if ((unsigned)k < sz->rate[0].workers)
		rate = sz->rate[0].pages_per_s * k / sz->rate[0].workers;
	else if (i + 1 < sz->nrate) {
		const struct sim_rate *a = &sz->rate[i], *b = &sz->rate[i + 1];

		rate = a->pages_per_s + (b->pages_per_s - a->pages_per_s) *
					    (k - a->workers) / (b->workers - a->workers);
	}
	return rate > 0 ? k / rate : 0;
}

/* Spend the time 'pages' take on node n, with the lock dropped so that others work
 * meanwhile. Returns false when a signal cut a write short (the kernel bails out of
 * its allocation loop on a pending signal; a reservation does not). */
bool sim_spend(unsigned n, unsigned z, uint64_t pages, bool write)
{
	struct sim_holder *h = sim_holder_of(z, true);
	struct timespec ts, left;
	bool cut = false;
	double s, paid, t0;

	if (!S->sizes[z].nrate || !pages || !h)
		return true;
	S->nodes[n].active++;
	h->active = n;
	s = pages * page_seconds(z, S->nodes[n].active) / (S->scale > 0 ? S->scale : 1);
	paid = MIN(s, debt_s);
	debt_s -= paid;
	s -= paid;
	commit();
	t0 = now_s();
	flock(lock_fd, LOCK_UN);
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &left) < 0 && errno == EINTR) {
		if (write) {
			cut = true;
			break;
		}
		ts = left;
	}
	flock_retry(lock_fd, LOCK_EX);
	begin();
	if (!cut)
		debt_s = MIN(debt_s + MAX(now_s() - t0 - s, 0.0), SIM_DEBT_MAX_S);
	h = sim_holder_of(z, true);
	S->nodes[n].active--;
	if (h)
		h->active = -1;
	return !cut;
}

/* Pages to do between two sleeps: about a millisecond of work. */
uint64_t sim_batch(unsigned z, unsigned n)
{
	double s =
	    page_seconds(z, S->nodes[n].active + 1) / (S->scale > 0 ? S->scale : 1);

	/* Each sleep drops and retakes the lock and copies the state: sleep in stretches
	 * of about 10 ms, which a claim of a few tens of pages fits in. */
	return s > 0 ? MAX((uint64_t)(SIM_BATCH_S / s), UINT64_C(1)) : UINT64_MAX;
}

int sim_open(void)
{
	char p[4096];
	int fd, rc;

	if (F)
		return 0;
	if (path_build(p, sizeof(p), "/.sim"))
		return -ENAMETOOLONG;
	if (mkdir(p, 0755) && errno != EEXIST)
		return -errno;
	rc = own_fd(&lock_fd, &lock_pid, "lock");
	if (rc || (rc = flock_retry(lock_fd, LOCK_EX)))
		return rc;
	path_build(p, sizeof(p), "/.sim/state");
	if (access(p, F_OK))
		rc = simfile_create(p);
	fd = rc ? -1 : open(p, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		F = mmap(NULL, sizeof(*F), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (F == MAP_FAILED || memcmp(F->magic, SIM_MAGIC, sizeof(SIM_MAGIC))) {
			rc = F == MAP_FAILED ? -errno : -EINVAL;
			F = NULL;
		}
		close(fd);
	} else if (!rc) {
		rc = -errno;
	}
	if (F)
		S = &F->st[F->cur & 1];
	flock(lock_fd, LOCK_UN);
	return rc;
}
