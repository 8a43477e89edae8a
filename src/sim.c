/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim.c - the simulated kernel's hugetlb accounting, rule by rule as mm/hugetlb.c
 * keeps it (the functions are named after the kernel's): per-node nr/free/surplus,
 * reservations that gather surplus pages up to the overcommit limit, the admission
 * check against the bound nodes' free pages, writes that convert surplus first, and
 * the two per-node write rules. doc/simulator.md maps each rule to what was observed.
 */
#include <errno.h>
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

#define GIGANTIC_KB 4096 /* above the buddy allocator's largest block on x86 */

static struct sim_file *F;
static struct sim_state *S; /* the copy this operation works on */
static int lock_fd = -1, resize_fd = -1;
static pid_t lock_pid, resize_pid;
/* This process's binding, inherited at fork as CPU affinity and mempolicy are. */
static int my_bind = -1, my_cpu = -1;

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

	S = &F->st[!cur];
	memcpy(S, &F->st[cur], sizeof(*S));
}

/* Make the copy current: one store. */
static void commit(void)
{
	__atomic_store_n(&F->cur, (uint32_t)(S - F->st), __ATOMIC_RELEASE);
}

int sim_lock(void)
{
	int rc = own_fd(&lock_fd, &lock_pid, "lock");

	if (!rc)
		rc = flock_retry(lock_fd, LOCK_EX);
	if (rc)
		return rc;
	begin();
	/* The kernel gives back what a process held when it exits. */
	for (unsigned i = 0; i < S->nholders;)
		if (pid_gone(S->holders[i].pid))
			holder_gone(i);
		else
			i++;
	return 0;
}

/* Drop this process's holders that hold nothing. */
static void tidy(void)
{
	for (unsigned i = 0; i < S->nholders;) {
		const struct sim_holder *h = &S->holders[i];
		bool empty = h->pid == getpid() && !h->resv && h->active < 0;

		for (unsigned n = 0; empty && n < S->nnodes; n++)
			empty = !h->used[n] && !h->inflight[n];
		if (empty)
			S->holders[i] = S->holders[--S->nholders];
		else
			i++;
	}
}

void sim_unlock(void)
{
	tidy();
	commit();
	simfile_render();
	flock(lock_fd, LOCK_UN);
}

static unsigned long all_nodes(void)
{
	return S->nnodes >= 64 ? ~0UL : (1UL << S->nnodes) - 1;
}

static uint64_t psz(unsigned z)
{
	return S->sizes[z].kb * 1024;
}

static struct hp_pool total(unsigned z)
{
	struct hp_pool t = {0};

	for (unsigned n = 0; n < S->nnodes; n++) {
		t.nr += S->nodes[n].pool[z].nr;
		t.free += S->nodes[n].pool[z].free;
		t.surplus += S->nodes[n].pool[z].surplus;
	}
	return t;
}

static uint64_t persistent(unsigned z)
{
	struct hp_pool t = total(z);

	return pool_persistent(&t);
}

/* hstate_next_node_to_alloc/free: the cursor's node, then move it on. */
static int cursor_next(unsigned *cursor, unsigned long mask)
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

static bool node_can_give(unsigned n, unsigned z)
{
	return S->nodes[n].has_memory && S->nodes[n].mem_free >= psz(z);
}

static void page_new(unsigned n, unsigned z, bool surplus)
{
	S->nodes[n].mem_free -= psz(z);
	S->nodes[n].pool[z].nr++;
	S->nodes[n].pool[z].surplus += surplus;
}

static void page_destroy(unsigned n, unsigned z, bool surplus)
{
	S->nodes[n].mem_free += psz(z);
	S->nodes[n].pool[z].nr--;
	if (surplus)
		S->nodes[n].pool[z].surplus--;
}

/* adjust_pool_surplus: one page out of (delta -1) or into (+1) the surplus state. */
static bool adjust_pool_surplus(unsigned z, unsigned long mask, int delta)
{
	struct sim_size *sz = &S->sizes[z];

	for (unsigned k = 0; k < S->nnodes; k++) {
		int n = cursor_next(delta < 0 ? &sz->next_alloc : &sz->next_free, mask);
		struct hp_pool *p;

		if (n < 0)
			return false;
		p = &S->nodes[n].pool[z];
		if (delta < 0 ? p->surplus > 0 : p->surplus < p->nr) {
			p->surplus += delta;
			return true;
		}
	}
	return false;
}

/* remove_pool_huge_page: free one free page, round robin over the nodes. */
static int remove_pool_page(unsigned z, unsigned long mask, bool acct_surplus)
{
	for (unsigned k = 0; k < S->nnodes; k++) {
		int n = cursor_next(&S->sizes[z].next_free, mask);
		struct hp_pool *p;

		if (n < 0)
			return -1;
		p = &S->nodes[n].pool[z];
		if ((!acct_surplus || p->surplus) && p->free) {
			p->free--;
			page_destroy(n, z, acct_surplus);
			return n;
		}
	}
	return -1;
}

/* return_unused_surplus_pages */
static void return_unused_surplus(unsigned z, uint64_t unused)
{
	struct sim_size *sz = &S->sizes[z];
	uint64_t n = MIN(unused, total(z).surplus);

	sz->resv = sz->resv > unused ? sz->resv - unused : 0;
	while (n-- && remove_pool_page(z, all_nodes(), true) >= 0)
		;
}

/* What exit does: pages in use are freed (surplus ones leave the pool), then the
 * rest of the reservation is returned. */
static void holder_gone(unsigned i)
{
	struct sim_holder *h = &S->holders[i];

	if (h->active >= 0)
		S->nodes[h->active].active--;
	for (unsigned n = 0; n < S->nnodes; n++)
		for (; h->inflight[n]; h->inflight[n]--)
			page_destroy(n, h->z, true);
	for (unsigned n = 0; n < S->nnodes; n++)
		for (; h->used[n]; h->used[n]--) {
			if (S->nodes[n].pool[h->z].surplus)
				page_destroy(n, h->z, true);
			else
				S->nodes[n].pool[h->z].free++;
		}
	return_unused_surplus(h->z, h->resv);
	*h = S->holders[--S->nholders];
}

static struct sim_holder *holder(unsigned z, bool add)
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
static bool spend(unsigned n, unsigned z, uint64_t pages, bool write)
{
	struct sim_holder *h = holder(z, true);
	struct timespec ts, left;
	bool cut = false;
	double s;

	if (!S->sizes[z].nrate || !pages || !h)
		return true;
	S->nodes[n].active++;
	h->active = n;
	s = pages * page_seconds(z, S->nodes[n].active) / (S->scale > 0 ? S->scale : 1);
	commit();
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
	h = holder(z, true);
	S->nodes[n].active--;
	if (h)
		h->active = -1;
	return !cut;
}

/* Pages to do between two sleeps: about a millisecond of work. */
static uint64_t batch(unsigned z, unsigned n)
{
	double s = page_seconds(z, S->nodes[n].active + 1) / (S->scale > 0 ? S->scale : 1);

	return s > 0 ? MAX((uint64_t)(0.001 / s), UINT64_C(1)) : UINT64_MAX;
}

/* ---- writes: set_max_huge_pages ---------------------------------------------- */

static int resize_lock(unsigned z, int op)
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

static void set_max_huge_pages(unsigned z, uint64_t count, int ni)
{
	unsigned long mask = ni >= 0 ? 1UL << ni : all_nodes();
	uint64_t min_count;

	if (ni >= 0) {
		struct hp_pool t = total(z), *np = &S->nodes[ni].pool[z];
		uint64_t rest = S->rule == SIM_RULE_NR
				    ? t.nr - np->nr
				    : pool_persistent(&t) - pool_persistent(np);

		count = count + rest < count ? UINT64_MAX : count + rest;
	}
	while (total(z).surplus && count > persistent(z))
		if (!adjust_pool_surplus(z, mask, -1))
			break;
	while (count > persistent(z)) {
		int n = -1;
		uint64_t b = 0, want = count - persistent(z);

		/* alloc_pool_huge_page: round robin, each page on exactly its node */
		for (unsigned k = 0; k < S->nnodes && n < 0; k++) {
			int c = cursor_next(&S->sizes[z].next_alloc, mask);

			if (c >= 0 && node_can_give(c, z))
				n = c;
		}
		if (n < 0)
			break;
		for (uint64_t lim = MIN(batch(z, n), want); b < lim && node_can_give(n, z); b++) {
			page_new(n, z, false);
			S->nodes[n].pool[z].free++;
		}
		if (!spend(n, z, b, true))
			break;
	}
	min_count = S->sizes[z].resv + total(z).nr - total(z).free;
	min_count = MAX(min_count, count);
	while (min_count < persistent(z))
		if (remove_pool_page(z, mask, false) < 0)
			break;
	while (count < persistent(z))
		if (!adjust_pool_surplus(z, mask, 1))
			break;
}

static int sim_write_nr(int node, uint64_t kb, uint64_t val)
{
	int z = sim_size_index(kb), n = node < 0 ? -1 : sim_node_index(node), rc;

	if (z < 0 || (node >= 0 && (n < 0 || !S->nodes[n].has_memory)))
		return -ENOENT;
	rc = resize_lock(z, LOCK_EX);
	if (!rc)
		rc = sim_lock();
	if (rc)
		return rc;
	set_max_huge_pages(z, val, n);
	sim_unlock();
	resize_lock(z, LOCK_UN);
	return 0;
}

static int sim_write_overcommit(uint64_t kb, uint64_t val)
{
	int z = sim_size_index(kb), rc;

	if (z < 0)
		return -ENOENT;
	if (kb > GIGANTIC_KB && !S->gigantic_overcommit)
		return -EINVAL;
	rc = sim_lock();
	if (rc)
		return rc;
	S->sizes[z].overcommit = val;
	sim_unlock();
	return 0;
}

/* ---- reservations: hugetlb_acct_memory --------------------------------------- */

/* alloc_surplus_huge_page with the placement of the kernel simulated: 6.1 takes
 * the node of the CPU, 6.12 the lowest node the bind allows; both fall back to any
 * node with memory. */
static int alloc_surplus_page(unsigned z)
{
	int first = -1;

	if (total(z).surplus >= S->sizes[z].overcommit)
		return -1;
	if (S->sizes[z].kb > GIGANTIC_KB && !S->gigantic_overcommit)
		return -1;
	if (S->place == SIM_PLACE_CPU) {
		first = my_cpu;
		for (unsigned n = 0; first < 0 && n < S->nnodes; n++)
			if (S->nodes[n].has_cpus)
				first = n;
	} else {
		for (unsigned n = 0; first < 0 && n < S->nnodes; n++)
			if ((my_bind < 0 || (int)n == my_bind) && node_can_give(n, z))
				first = n;
	}
	if (first < 0 || !node_can_give(first, z))
		for (unsigned n = 0; n < S->nnodes && (first < 0 || !node_can_give(first, z));
		     n++)
			first = n;
	if (!node_can_give(first, z))
		return -1;
	page_new(first, z, true);
	return first;
}

/* gather_surplus_pages: make the free pages cover every reservation. The pages it
 * allocates are this process's in flight until they join the pool. */
static int gather_surplus_pages(unsigned z, uint64_t delta)
{
	uint64_t allocated = 0;
	int64_t needed = (int64_t)(S->sizes[z].resv + delta) - (int64_t)total(z).free;
	struct sim_holder *h;
	bool ok = true;

	if (needed <= 0) {
		S->sizes[z].resv += delta;
		return 0;
	}
	for (;;) {
		uint64_t pending = 0;
		int last = 0;

		for (int64_t i = 0; i < needed; i++) {
			int n = (h = holder(z, true)) ? alloc_surplus_page(z) : -1;

			if (n < 0) {
				ok = false;
				break;
			}
			h->inflight[n]++;
			allocated++;
			last = n;
			if (++pending >= batch(z, n)) {
				spend(n, z, pending, false);
				pending = 0;
			}
		}
		spend(last, z, pending, false);
		needed = (int64_t)(S->sizes[z].resv + delta) -
			 (int64_t)(total(z).free + allocated);
		if (needed <= 0 || !ok)
			break;
	}
	h = holder(z, true);
	if (!h)
		return -ENOMEM;
	if (needed > 0) {
		for (unsigned n = 0; n < S->nnodes; n++)
			for (; h->inflight[n]; h->inflight[n]--)
				page_destroy(n, z, true);
		return -ENOMEM;
	}
	needed += allocated;
	S->sizes[z].resv += delta;
	for (unsigned n = 0; n < S->nnodes; n++)
		for (; h->inflight[n]; h->inflight[n]--) {
			if (needed-- > 0)
				S->nodes[n].pool[z].free++;
			else
				page_destroy(n, z, true);
		}
	return 0;
}

/* allowed_mems_nr: the free pages of the nodes this process may take pages from. */
static uint64_t allowed_free(unsigned z)
{
	uint64_t nr = 0;

	for (unsigned n = 0; n < S->nnodes; n++)
		if (my_bind < 0 || (int)n == my_bind)
			nr += S->nodes[n].pool[z].free;
	return nr;
}

static int sim_reserve(uint64_t kb, uint64_t pages, struct hugetlb_resv *r)
{
	int z = sim_size_index(kb), rc;
	struct sim_holder *h;

	if (z < 0)
		return -EINVAL;
	rc = sim_lock();
	if (rc)
		return rc;
	rc = gather_surplus_pages(z, pages);
	if (!rc && pages > allowed_free(z)) {
		return_unused_surplus(z, pages);
		rc = -ENOMEM;
	}
	if (!rc && !(h = holder(z, true))) {
		return_unused_surplus(z, pages);
		rc = -ENOMEM;
	} else if (!rc) {
		h->resv += pages;
		r->kb = kb;
		r->pages = pages;
	}
	sim_unlock();
	return rc;
}

static void sim_release(struct hugetlb_resv *r)
{
	int z = sim_size_index(r->kb);
	struct sim_holder *h;

	if (z < 0 || sim_lock())
		return;
	h = holder(z, false);
	if (h) {
		uint64_t n = MIN(h->resv, r->pages);

		h->resv -= n;
		return_unused_surplus(z, n);
	}
	sim_unlock();
}

/* Fault 'pages' of a reservation in: they leave the free lists of the bound node
 * (any node when unbound) and stay in use until this process exits. */
int sim_use(uint64_t kb, uint64_t pages, unsigned node)
{
	struct hugetlb_resv r;
	struct sim_holder *h;
	int z = sim_size_index(kb), rc;

	if (z < 0)
		return -EINVAL;
	my_bind = my_cpu = sim_node_index(node);
	rc = sim_reserve(kb, pages, &r);
	if (rc || (rc = sim_lock()))
		return rc;
	h = holder(z, false);
	for (uint64_t i = 0; h && i < pages; i++) {
		int n = my_bind >= 0 && S->nodes[my_bind].pool[z].free ? my_bind : -1;

		for (unsigned k = 0; n < 0 && k < S->nnodes; k++)
			if (S->nodes[k].pool[z].free)
				n = k;
		if (n < 0)
			break;
		S->nodes[n].pool[z].free--;
		S->sizes[z].resv--;
		h->resv--;
		h->used[n]++;
	}
	sim_unlock();
	return 0;
}

/* ---- reads and binding ------------------------------------------------------- */

static int sim_read_global(uint64_t kb, struct hp_global *g)
{
	int z = sim_size_index(kb), rc;

	if (z < 0)
		return -ENOENT;
	rc = sim_lock();
	if (rc)
		return rc;
	g->pool = total(z);
	g->resv = S->sizes[z].resv;
	g->overcommit = S->sizes[z].overcommit;
	sim_unlock();
	return 0;
}

static int sim_read_node(unsigned node, uint64_t kb, struct hp_pool *p)
{
	int z = sim_size_index(kb), n = sim_node_index(node), rc;

	if (z < 0 || n < 0 || !S->nodes[n].has_memory)
		return -ENOENT;
	rc = sim_lock();
	if (rc)
		return rc;
	*p = S->nodes[n].pool[z];
	sim_unlock();
	return 0;
}

static int sim_bind(unsigned node, const struct hp_idset *cpus)
{
	int n = sim_node_index(node);

	if (n < 0)
		return -EINVAL;
	my_bind = n;
	if (cpus && idset_count(cpus))
		my_cpu = n;
	return 0;
}

const struct hugetlb_ops hugetlb_sim = {
    .name = "simulated",
    .read_global = sim_read_global,
    .read_node = sim_read_node,
    .write_nr = sim_write_nr,
    .write_overcommit = sim_write_overcommit,
    .bind = sim_bind,
    .reserve = sim_reserve,
    .release = sim_release,
};

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
