/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.c - carry a plan out on the live kernel: per-node workers, commit, reconcile.
 *
 * Writes to nr_hugepages are serialised by the kernel's per-size resize_lock, so the
 * parallel path does not write sysfs: it raises nr_overcommit_hugepages and lets
 * worker processes, pinned to a node's CPUs and bound to it, reserve surplus pages with
 * hugetlb mmap()s, which are made under each process's own mmap_lock. One global write
 * then turns the surplus into pool pages, the overcommit value is put back, and the
 * mappings are dropped. Per-node writes correct placement afterwards. See DESIGN.md.
 *
 * Process tree: hugepar -> one coordinator per page size (sizes run concurrently) ->
 * the workers of that size. Every coordinator restores what it changed on every path;
 * the main process checks the overcommit values again at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <numa.h>

#include "engine.h"
#include "path.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

#define HP_DIR	"/sys/kernel/mm/hugepages/hugepages-%llukB"
#define NODE_HP "/sys/devices/system/node/node%u/hugepages/hugepages-%llukB"
/* Past the deadline, coordinators are told again, then killed. */
#define GRACE_MS 5000

static volatile sig_atomic_t g_stop; /* SIGTERM/SIGINT/SIGHUP, or SIGUSR1 for a worker */

static void on_stop(int sig)
{
	(void)sig;
	g_stop = 1;
}

static void on_alarm(int sig)
{
	(void)sig; /* only there to interrupt a sysfs write */
}

static void set_handler(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL); /* no SA_RESTART: a signal must cut a write short */
}

int method_parse(const char *s, enum hp_method *m)
{
	if (strcmp(s, "auto") == 0)
		*m = HP_METHOD_AUTO;
	else if (strcmp(s, "parallel") == 0)
		*m = HP_METHOD_PARALLEL;
	else if (strcmp(s, "serial") == 0)
		*m = HP_METHOD_SERIAL;
	else
		return -EINVAL;
	return 0;
}

const char *method_name(enum hp_method m)
{
	return m == HP_METHOD_PARALLEL ? "parallel"
	       : m == HP_METHOD_SERIAL ? "serial"
				       : "auto";
}

const char *status_name(enum hp_status s)
{
	static const char *const names[] = {"ok",     "partial",  "capped",
					    "failed", "disabled", "unchanged"};

	return s < ARRAY_SIZE(names) ? names[s] : "?";
}

/*
 * Fault injection for tests: HUGEPAR_FAULT="mmap:N,write:N,overcommit" makes the Nth
 * reservation (per worker) or the Nth nr_hugepages write (per coordinator) fail, or
 * the kernel refuse the overcommit raise; a name without ":N" fails every time.
 * "misplace" runs every worker on the next node, to drive the trim and top-up.
 * Built into test binaries only (make hugepar-test).
 */
#ifdef HUGEPAR_TESTING
/* HUGEPAR_FAULT="delay:MS" also sleeps MS after each reservation, to stop a run midway.
 */
static void fault_delay(void)
{
	const char *env = getenv("HUGEPAR_FAULT");
	const char *p = env ? strstr(env, "delay:") : NULL;

	if (p)
		usleep(strtoul(p + 6, NULL, 10) * 1000);
}

static bool fault(const char *what)
{
	static unsigned counts[4];
	static const char *const names[] = {"mmap", "write", "overcommit", "misplace"};
	const char *env = getenv("HUGEPAR_FAULT");
	size_t len = strlen(what);

	for (unsigned i = 0; env && i < ARRAY_SIZE(names); i++) {
		const char *p;

		if (strcmp(names[i], what))
			continue;
		counts[i]++;
		for (p = env; (p = strstr(p, what)); p += len) {
			if ((p == env || p[-1] == ',') && p[len] == ':')
				return strtoul(p + len + 1, NULL, 10) == counts[i];
			if ((p == env || p[-1] == ',') && (p[len] == ',' || !p[len]))
				return true;
		}
	}
	return false;
}
#else
static inline bool fault(const char *what)
{
	(void)what;
	return false;
}

static inline void fault_delay(void)
{
}
#endif

/* Read, write: full transfers over pipes (single writer per pipe). */
static int xwrite(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -errno;
		p += n;
		len -= n;
	}
	return 0;
}

static ssize_t xread(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

struct size_pool {
	uint64_t nr, surplus, overcommit;
};

static int read_global(uint64_t kb, struct size_pool *sp)
{
	unsigned long long k = kb;
	int rc = path_read_u64(&sp->nr, HP_DIR "/nr_hugepages", k);

	if (!rc)
		rc = path_read_u64(&sp->surplus, HP_DIR "/surplus_hugepages", k);
	if (!rc)
		rc = path_read_u64(&sp->overcommit, HP_DIR "/nr_overcommit_hugepages", k);
	return rc;
}

static int write_sysfs(uint64_t val, const char *fmt, unsigned long long kb,
		       unsigned node)
{
	char file[256];

	if (fault("write"))
		return -EIO;
	if (strstr(fmt, "node%u"))
		snprintf(file, sizeof(file), fmt, node, kb);
	else
		snprintf(file, sizeof(file), fmt, kb);
	return path_write_u64(val, "%s", file);
}

/* Persistent pages of a node (the node file counts surplus pages too). */
static int node_persistent(unsigned node, uint64_t kb, uint64_t *out, uint64_t *surplus)
{
	unsigned long long k = kb;
	uint64_t nr, sur;
	int rc = path_read_u64(&nr, NODE_HP "/nr_hugepages", node, k);

	if (!rc)
		rc = path_read_u64(&sur, NODE_HP "/surplus_hugepages", node, k);
	if (rc)
		return rc;
	*out = nr > sur ? nr - sur : 0;
	if (surplus)
		*surplus = sur;
	return 0;
}

/* Persistent pages of topology node n now: its node files, or the global ones when
 * the kernel has no NUMA sysfs (one node). */
static int pool_now(const struct hp_topology *t, unsigned z, unsigned n, uint64_t *out)
{
	struct size_pool gp;
	int rc;

	if (t->numa)
		return node_persistent(t->nodes[n].id, t->sizes[z].kb, out, NULL);
	rc = read_global(t->sizes[z].kb, &gp);
	if (!rc)
		*out = gp.nr > gp.surplus ? gp.nr - gp.surplus : 0;
	return rc;
}

/* Arm a one-shot timer that interrupts a blocking write at the deadline. */
static void arm_deadline(uint64_t deadline)
{
	struct itimerval it = {0};
	uint64_t now = now_ms(), left = deadline > now ? deadline - now : 1;

	it.it_value.tv_sec = left / 1000;
	it.it_value.tv_usec = (left % 1000) * 1000 + 1;
	setitimer(ITIMER_REAL, &it, NULL);
}

static void disarm(void)
{
	struct itimerval it = {0};

	setitimer(ITIMER_REAL, &it, NULL);
}

/*
 * Set a node's persistent pool to 'target' with one per-node write (exact placement,
 * serialised by the kernel). The kernel reads the value against the node's count,
 * surplus included, and against the global count: adjust so surplus elsewhere does
 * not turn into extra pages here (DESIGN.md fact 4). A signal or the deadline cuts
 * the kernel's allocation loop short; the caller reads back what it got.
 */
static int node_set(const struct hp_topology *t, unsigned z, unsigned node,
		    uint64_t target, uint64_t deadline)
{
	uint64_t kb = t->sizes[z].kb, have, node_sur;
	struct size_pool gp;
	uint64_t val;
	int rc;

	if (!t->numa) {
		/* One node without NUMA sysfs: the global file is the node's. */
		rc = read_global(kb, &gp);
		if (rc)
			return rc;
		val = target + gp.surplus;
		arm_deadline(deadline);
		rc = write_sysfs(val, HP_DIR "/nr_hugepages", kb, 0);
		disarm();
		return rc;
	}
	rc = node_persistent(node, kb, &have, &node_sur);
	if (!rc)
		rc = read_global(kb, &gp);
	if (rc)
		return rc;
	val = target + node_sur;
	val = val > gp.surplus ? val - gp.surplus : 0;
	arm_deadline(deadline);
	rc = write_sysfs(val, NODE_HP "/nr_hugepages", kb, node);
	disarm();
	return rc == -EINTR ? 0 : rc;
}

/* ---- workers ---------------------------------------------------------------- */

struct wmsg {
	uint32_t done;
	int32_t err;
	uint64_t held;
	uint64_t chunks, enomem;
	uint64_t ms;
};

struct worker {
	pid_t pid;
	int rfd, ctl; /* reports from it; its release pipe (closed to release) */
	unsigned node_idx;
	struct wmsg last;
	bool done;
};

#define MAX_MAPPINGS 60000

/*
 * Reserve up to 'quota' pages of one size while bound to one node, in chunks that
 * start large (few mappings: vm.max_map_count) and halve on ENOMEM (a mapping's
 * reservation is all or nothing). Hold them until the coordinator releases us.
 */
static void __attribute__((noreturn))
worker_main(const struct hp_node *nd, uint64_t kb, uint64_t quota, uint64_t deadline,
	    int wfd, int ctl)
{
	size_t psz = (size_t)kb * 1024;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
		    ((63 - __builtin_clzll(psz)) << MAP_HUGE_SHIFT);
	uint64_t chunk = MAX(quota / 8, MAX(quota / 1024, UINT64_C(1)));
	uint64_t start = now_ms();
	struct wmsg m = {0};
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	set_handler(SIGUSR1, on_stop);
	set_handler(SIGTERM, on_stop);

	if (nd->ncpus) {
		cpu_set_t *set = CPU_ALLOC(HP_MAX_CPUS);
		size_t sz = CPU_ALLOC_SIZE(HP_MAX_CPUS);

		if (set) {
			CPU_ZERO_S(sz, set);
			for (unsigned cpu = 0; cpu < HP_MAX_CPUS; cpu++)
				if (idset_has(nd->cpus, cpu))
					CPU_SET_S(cpu, sz, set);
			if (sched_setaffinity(0, sz, set))
				m.err = -errno;
			CPU_FREE(set);
		}
	}
	if (numa_available() >= 0) {
		struct bitmask *bm = numa_allocate_nodemask();

		numa_bitmask_setbit(bm, nd->id);
		numa_set_membind(bm);
		numa_free_nodemask(bm);
	}

	while (m.held < quota && !g_stop && now_ms() < deadline) {
		uint64_t n = MIN(chunk, quota - m.held);
		void *addr;

		m.chunks++;
		if (fault("mmap")) {
			addr = MAP_FAILED;
			errno = ENOMEM;
		} else {
			addr = mmap(NULL, n * psz, PROT_READ | PROT_WRITE, flags, -1, 0);
		}
		if (addr == MAP_FAILED) {
			m.enomem++;
			/* Only a short node is worth a smaller try; anything else (no
			 * MAP_HUGETLB for this size, say) ends the worker. */
			if (chunk == 1 || errno != ENOMEM) {
				m.err = -errno;
				break;
			}
			chunk = (chunk + 1) / 2;
			continue;
		}
		m.held += n;
		fault_delay();
		/* Each mapping is a VMA of this process: stay under vm.max_map_count
		 * (65530 by default); the coordinator's per-node top-up does the rest. */
		if (m.chunks >= MAX_MAPPINGS)
			break;
	}
	/* One report at the end: on a machine with few CPUs every wake-up of the
	 * coordinator would take a CPU from a worker. */
	m.done = 1;
	m.ms = now_ms() - start;
	xwrite(wfd, &m, sizeof(m));
	/* Hold the reservations until released; exit drops the mappings. */
	while (read(ctl, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/* ---- one page size ---------------------------------------------------------- */

struct node_note {
	uint64_t ms;
	char note[96];
};

struct size_report {
	struct hp_size_result sr;
	uint32_t timed_out, interrupted;
};

struct size_job {
	const struct hp_topology *t;
	const struct hp_plan *p;
	unsigned z;
	enum hp_method method;
	uint64_t deadline;
	struct node_note *notes; /* per node */
	struct size_report rep;
};

static void note(struct size_job *j, unsigned n, const char *fmt, const char *arg)
{
	snprintf(j->notes[n].note, sizeof(j->notes[n].note), fmt, arg);
}

static bool out_of_time(struct size_job *j)
{
	if (g_stop) {
		j->rep.interrupted = 1;
		return true;
	}
	if (now_ms() >= j->deadline) {
		j->rep.timed_out = 1;
		return true;
	}
	return false;
}

/* Per-node writes of the targets, one node after the other. */
static void run_serial(struct size_job *j, bool shrink)
{
	const struct hp_topology *t = j->t;

	for (unsigned n = 0; n < t->nnodes; n++) {
		const struct hp_cell *c = plan_cell(j->p, n, j->z);
		uint64_t have, t0;
		int rc;

		if (shrink ? c->target >= c->current : c->target <= c->current)
			continue;
		if (t->numa &&
		    node_persistent(t->nodes[n].id, t->sizes[j->z].kb, &have, NULL))
			continue;
		if (t->numa && (shrink ? have <= c->target : have >= c->target))
			continue;
		if (out_of_time(j)) {
			note(j, n, "%s",
			     j->rep.interrupted ? "interrupted" : "deadline reached");
			continue;
		}
		t0 = now_ms();
		rc = node_set(t, j->z, t->nodes[n].id, c->target, j->deadline);
		j->notes[n].ms += now_ms() - t0;
		if (rc)
			note(j, n, "nr_hugepages write failed: %s", strerror(-rc));
		else if (g_stop || now_ms() >= j->deadline)
			out_of_time(j);
	}
}

/* The parallel path. Returns 0, or -errno when the kernel refuses it (then nothing
 * has changed and the caller goes serial). */
static int run_parallel(struct size_job *j)
{
	const struct hp_topology *t = j->t;
	const struct hp_plan *p = j->p;
	uint64_t kb = t->sizes[j->z].kb, deficit = 0, held = 0, raised, *need;
	struct size_pool gp;
	struct worker *w;
	unsigned nw = 0, left;
	bool lacking = false;
	int rc;

	/* What each node still lacks: the auto probe may already have added some. */
	need = calloc(t->nnodes, sizeof(*need));
	if (!need)
		return -ENOMEM;
	for (unsigned n = 0; n < t->nnodes; n++) {
		const struct hp_cell *c = plan_cell(p, n, j->z);
		uint64_t have = c->current;

		if (c->target <= c->current)
			continue;
		if (pool_now(t, j->z, n, &have))
			have = c->current;
		if (c->target <= have)
			continue;
		lacking = true;
		if (!c->workers)
			continue; /* a CPU-less node: topped up by per-node writes */
		need[n] = c->target - have;
		deficit += need[n];
		nw += c->workers;
	}
	if (nw == 0) {
		free(need);
		return lacking ? -ENODEV : 0; /* nothing left: the probe did it all */
	}
	rc = read_global(kb, &gp);
	if (!rc) {
		j->rep.sr.overcommit_before = gp.overcommit;
		raised = MAX(gp.overcommit, gp.surplus) + deficit;
		rc = fault("overcommit")
			 ? -EINVAL
			 : write_sysfs(raised, HP_DIR "/nr_overcommit_hugepages", kb, 0);
	}
	w = rc ? NULL : calloc(nw, sizeof(*w));
	if (!rc && !w) {
		write_sysfs(gp.overcommit, HP_DIR "/nr_overcommit_hugepages", kb, 0);
		rc = -ENOMEM;
	}
	if (rc) {
		free(need);
		return rc;
	}
	nw = 0;
	for (unsigned n = 0; n < t->nnodes; n++) {
		const struct hp_cell *c = plan_cell(p, n, j->z);

		if (!need[n])
			continue;
		for (unsigned k = 0; k < c->workers; k++) {
			uint64_t quota =
			    need[n] / c->workers + (k < need[n] % c->workers);
			int rp[2], cp[2];
			pid_t pid;

			if (quota == 0)
				continue;
			if (pipe2(rp, O_CLOEXEC))
				break;
			if (pipe2(cp, O_CLOEXEC)) {
				close(rp[0]);
				close(rp[1]);
				break;
			}
			pid = fork();
			if (pid == 0) {
				close(rp[0]);
				close(cp[1]);
				for (unsigned i = 0; i < nw; i++) {
					close(w[i].rfd);
					close(w[i].ctl);
				}
				worker_main(
				    &t->nodes[fault("misplace") ? (n + 1) % t->nnodes
								: n],
				    kb, quota, j->deadline, rp[1], cp[0]);
			}
			close(rp[1]);
			close(cp[0]);
			if (pid < 0) {
				close(rp[0]);
				close(cp[1]);
				break;
			}
			w[nw].pid = pid;
			w[nw].rfd = rp[0];
			w[nw].ctl = cp[1];
			w[nw].node_idx = n;
			nw++;
		}
	}
	j->rep.sr.workers = nw;
	free(need);

	/* Collect reports until every worker is done; stop them at the deadline. */
	left = nw;
	{
		struct pollfd *pf = calloc(nw ? nw : 1, sizeof(*pf));
		bool told = false;

		while (left && pf) {
			uint64_t now = now_ms();
			int timeout = told ? 1000
				      : now >= j->deadline
					  ? 0
					  : (int)MIN(j->deadline - now, 1000);
			for (unsigned i = 0; i < nw; i++) {
				pf[i].fd = w[i].done ? -1 : w[i].rfd;
				pf[i].events = POLLIN;
				pf[i].revents = 0;
			}
			if (!told && out_of_time(j)) {
				for (unsigned i = 0; i < nw; i++)
					if (!w[i].done)
						kill(w[i].pid, SIGUSR1);
				told = true;
			}
			if (poll(pf, nw, timeout) < 0 && errno != EINTR)
				break;
			for (unsigned i = 0; i < nw; i++) {
				struct wmsg m;

				if (w[i].done || !(pf[i].revents & (POLLIN | POLLHUP)))
					continue;
				if (xread(w[i].rfd, &m, sizeof(m)) != sizeof(m)) {
					w[i].done = true; /* died: its mappings are gone
							     with it */
					w[i].last.held = 0;
					left--;
					continue;
				}
				w[i].last = m;
				if (m.done) {
					w[i].done = true;
					left--;
				}
			}
		}
		free(pf);
	}

	/* Commit: turn the surplus we hold into pool pages, then put overcommit back. */
	for (unsigned i = 0; i < nw; i++) {
		struct node_note *nn = &j->notes[w[i].node_idx];

		held += w[i].last.held;
		j->rep.sr.chunks += w[i].last.chunks;
		j->rep.sr.enomem += w[i].last.enomem;
		nn->ms = MAX(nn->ms, w[i].last.ms);
	}
	rc = read_global(kb, &gp);
	if (!rc && held) {
		uint64_t convert = MIN(held, gp.surplus);

		rc = write_sysfs(gp.nr - gp.surplus + convert, HP_DIR "/nr_hugepages", kb,
				 0);
	}
	write_sysfs(j->rep.sr.overcommit_before, HP_DIR "/nr_overcommit_hugepages", kb,
		    0);
	/* Release: workers exit, their reservations end, the pages stay in the pool. */
	for (unsigned i = 0; i < nw; i++) {
		close(w[i].ctl);
		close(w[i].rfd);
	}
	for (unsigned i = 0; i < nw; i++)
		while (waitpid(w[i].pid, NULL, 0) < 0 && errno == EINTR)
			;
	free(w);
	return rc;
}

/* Trim nodes that got pages meant for others; top up short nodes exactly. */
static void reconcile(struct size_job *j)
{
	const struct hp_topology *t = j->t;
	uint64_t *have;

	have = t->numa ? calloc(t->nnodes, sizeof(*have)) : NULL;
	for (unsigned n = 0; have && n < t->nnodes; n++) {
		const struct hp_cell *c = plan_cell(j->p, n, j->z);
		uint64_t t0;

		if (pool_now(t, j->z, n, &have[n])) {
			have[n] = UINT64_MAX;
			continue;
		}
		if (have[n] > c->target && c->target >= c->current) {
			t0 = now_ms();
			node_set(t, j->z, t->nodes[n].id, c->target, now_ms() + 10000);
			j->notes[n].ms += now_ms() - t0;
			j->rep.sr.trimmed += have[n] - c->target;
			if (pool_now(t, j->z, n, &have[n]))
				have[n] = UINT64_MAX;
		}
	}
	run_serial(j, false);
	for (unsigned n = 0; have && n < t->nnodes; n++) {
		uint64_t now;

		if (have[n] != UINT64_MAX && pool_now(t, j->z, n, &now) == 0 &&
		    now > have[n])
			j->rep.sr.topped_up += now - have[n];
	}
	free(have);
}

/*
 * method=auto: is the parallel path worth its fixed cost here? Reserve the first
 * pages of every node with an exact per-node write (useful work in any case), time
 * them, time one worker's life (fork, exit, wait), and compare
 *   serial:   the rest of every node, one node after the other, at the measured rate
 *   parallel: forking every worker, then the slowest node's share per worker
 * Cheap pages on a small pool stay serial; zeroed pages, many nodes or big pools go
 * parallel. See doc/threads.md.
 */
#define PROBE_MIN 4
#define PROBE_MAX 32

static bool auto_parallel(struct size_job *j, char *why, size_t wlen)
{
	const struct hp_topology *t = j->t;
	uint64_t ser = 0, par_node = 0, par_rest = 0, fork_us, t0;
	unsigned workers = 0;
	pid_t pid;

	for (unsigned n = 0; n < t->nnodes; n++) {
		const struct hp_cell *c = plan_cell(j->p, n, j->z);
		uint64_t have = c->current, got, k, dt, dt1, rest, per;

		if (c->target <= c->current || out_of_time(j))
			continue;
		k = MIN(c->target - c->current,
			MAX(PROBE_MIN, (c->target - c->current) / 100));
		k = MIN(k, PROBE_MAX);
		/* A write that changes nothing gives the fixed cost of a write; the
		 * probe's time beyond it is the cost of its pages. */
		t0 = now_us();
		node_set(t, j->z, t->nodes[n].id, c->current, j->deadline);
		dt1 = now_us() - t0;
		t0 = now_us();
		node_set(t, j->z, t->nodes[n].id, c->current + k, j->deadline);
		dt = now_us() - t0;
		j->notes[n].ms += (dt1 + dt) / 1000;
		pool_now(t, j->z, n, &have);
		got = have > c->current ? have - c->current : 0;
		if (!got)
			continue; /* the node gives nothing: reconcile will say so */
		per = dt > dt1 ? (dt - dt1) / got : 0;
		rest = c->target > have ? c->target - have : 0;
		ser += rest * per;
		if (c->workers) {
			par_node = MAX(par_node, rest * per / c->workers);
			workers += c->workers;
		} else {
			par_rest += rest * per; /* served by per-node writes either way */
		}
	}
	if (!workers)
		return false;
	t0 = now_us();
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	fork_us = now_us() - t0;
	snprintf(why, wlen, "auto: serial %llu ms, parallel %llu ms estimated",
		 (unsigned long long)ser / 1000,
		 (unsigned long long)(workers * fork_us + par_node + par_rest) / 1000);
	return (workers * fork_us + par_node + par_rest) * 10 < ser * 9;
}

static bool size_grows(const struct hp_plan *p, unsigned z)
{
	for (unsigned n = 0; n < p->nnodes; n++)
		if (plan_cell(p, n, z)->target > plan_cell(p, n, z)->current)
			return true;
	return false;
}

static void size_run(struct size_job *j)
{
	const struct hp_topology *t = j->t;
	uint64_t kb = t->sizes[j->z].kb, t0 = now_ms();
	struct size_pool gp;
	char sz[16];
	int rc;

	format_size_kb(kb, sz, sizeof(sz));
	if (read_global(kb, &gp) == 0) {
		j->rep.sr.overcommit_before = gp.overcommit;
		j->rep.sr.surplus_before = gp.surplus;
	}
	/* Exact mode: shrink first, so the memory serves the growth of other sizes. */
	run_serial(j, true);

	j->rep.sr.method =
	    j->method == HP_METHOD_SERIAL ? HP_METHOD_SERIAL : HP_METHOD_PARALLEL;
	if (!size_grows(j->p, j->z))
		j->rep.sr.method =
		    HP_METHOD_SERIAL; /* only shrinking: writes are the way */
	else if (j->method == HP_METHOD_AUTO && t->sizes[j->z].parallel &&
		 !auto_parallel(j, j->rep.sr.method_note, sizeof(j->rep.sr.method_note)))
		j->rep.sr.method = HP_METHOD_SERIAL;
	if (j->rep.sr.method == HP_METHOD_PARALLEL) {
		rc = run_parallel(j);
		if (rc == -ENODEV) {
			j->rep.sr.method = HP_METHOD_SERIAL;
			snprintf(j->rep.sr.method_note, sizeof(j->rep.sr.method_note),
				 "no node with work has CPUs for workers");
		} else if (rc == -EINVAL) {
			j->rep.sr.method = HP_METHOD_SERIAL;
			snprintf(j->rep.sr.method_note, sizeof(j->rep.sr.method_note),
				 "kernel refuses overcommit of %s pages", sz);
		} else if (rc) {
			snprintf(j->rep.sr.method_note, sizeof(j->rep.sr.method_note),
				 "parallel path failed (%s); finished serially",
				 strerror(-rc));
		}
	}
	if (j->rep.sr.method == HP_METHOD_PARALLEL)
		reconcile(j);
	else
		run_serial(j, false);

	if (read_global(kb, &gp) == 0) {
		j->rep.sr.overcommit_after = gp.overcommit;
		j->rep.sr.surplus_after = gp.surplus;
	}
	j->rep.sr.ms = now_ms() - t0;
}

/* A coordinator process for one size, when several sizes run concurrently. */
static void __attribute__((noreturn)) size_main(struct size_job *j, int outfd)
{
	size_run(j);
	xwrite(outfd, &j->rep, sizeof(j->rep));
	xwrite(outfd, j->notes, j->t->nnodes * sizeof(*j->notes));
	_exit(0);
}

/* ---- the whole run ------------------------------------------------------------ */

enum hp_status engine_cell_status(const struct hp_cell *c, uint64_t achieved)
{
	bool shrink = c->target < c->current;
	bool met = shrink ? achieved <= c->target : achieved >= c->target;

	if (!c->requested_set)
		return HP_STATUS_UNCHANGED;
	if (met)
		return c->cut == HP_CUT_NONE || c->cut == HP_CUT_GROW ? HP_STATUS_OK
								      : HP_STATUS_CAPPED;
	if (shrink ? achieved < c->current : achieved > c->current)
		return HP_STATUS_PARTIAL;
	return HP_STATUS_FAILED;
}

static bool size_has_work(const struct hp_plan *p, unsigned z)
{
	for (unsigned n = 0; n < p->nnodes; n++)
		if (plan_cell(p, n, z)->target != plan_cell(p, n, z)->current)
			return true;
	return false;
}

static void take_report(struct hp_result *res, unsigned z, const struct size_report *rep)
{
	res->sizes[z] = rep->sr;
	res->sizes[z].worked = true;
	res->timed_out |= rep->timed_out;
	res->interrupted |= rep->interrupted;
}

struct coord {
	pid_t pid;
	int fd;
	unsigned z; /* the page size it works on */
	bool done;
};

int engine_apply(const struct hp_settings *s, const struct hp_topology *t,
		 const struct hp_plan *p, enum hp_method method, struct hp_result *res)
{
	struct coord co[HP_MAX_SIZES] = {0};
	struct node_note *notes;
	struct hp_topology after;
	uint64_t start = now_ms(), deadline = start + s->timeout_ms;
	unsigned ncoord = 0, live, worked = 0, bad = 0, failed = 0, nwork = 0;
	bool told = false, killed = false;

	memset(res, 0, sizeof(*res));
	res->started_unix = time(NULL);
	res->started_boot_ms = boottime_ms();
	res->nnodes = t->nnodes;
	res->nsizes = t->nsizes;
	res->cells =
	    calloc((size_t)t->nnodes * (t->nsizes ? t->nsizes : 1), sizeof(*res->cells));
	notes = calloc((size_t)t->nnodes * HP_MAX_SIZES, sizeof(*notes));
	if (!res->cells || !notes) {
		free(notes);
		res->status = HP_STATUS_FAILED;
		snprintf(res->error, sizeof(res->error), "out of memory");
		return -ENOMEM;
	}
	for (unsigned n = 0; n < t->nnodes; n++)
		for (unsigned z = 0; z < t->nsizes; z++) {
			res->cells[n * t->nsizes + z].before =
			    plan_cell(p, n, z)->current;
			res->cells[n * t->nsizes + z].achieved =
			    plan_cell(p, n, z)->current;
		}
	if (!s->enabled) {
		res->status = HP_STATUS_DISABLED;
		free(notes);
		return 0;
	}
	if (!t->hugetlb) {
		res->status = HP_STATUS_FAILED;
		snprintf(res->error, sizeof(res->error),
			 "the kernel offers no huge pages (built without hugetlb?)");
		free(notes);
		return -ENOSYS;
	}

	g_stop = 0;
	set_handler(SIGTERM, on_stop);
	set_handler(SIGINT, on_stop);
	set_handler(SIGHUP, on_stop);
	set_handler(SIGALRM, on_alarm);
	/* Make sure libnuma's state is set up before the workers are forked. */
	(void)numa_available();

	for (unsigned z = 0; z < t->nsizes; z++)
		nwork += size_has_work(p, z);
	for (unsigned z = 0; z < t->nsizes; z++) {
		struct size_job j = {.t = t,
				     .p = p,
				     .z = z,
				     .method = method,
				     .deadline = deadline,
				     .notes = notes + z * t->nnodes};
		int fds[2];
		pid_t pid;

		res->sizes[z].method =
		    method == HP_METHOD_SERIAL ? HP_METHOD_SERIAL : HP_METHOD_PARALLEL;
		if (!size_has_work(p, z))
			continue;
		res->sizes[z].worked = true;
		if (nwork == 1) {
			/* One size: no need for a coordinator process of its own. */
			size_run(&j);
			take_report(res, z, &j.rep);
			continue;
		}
		if (pipe2(fds, O_CLOEXEC))
			continue;
		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			close(fds[0]);
			for (unsigned i = 0; i < ncoord; i++)
				close(co[i].fd);
			size_main(&j, fds[1]);
		}
		close(fds[1]);
		if (pid < 0) {
			close(fds[0]);
			snprintf(res->error, sizeof(res->error), "fork: %s",
				 strerror(errno));
			continue;
		}
		co[ncoord].pid = pid;
		co[ncoord].fd = fds[0];
		co[ncoord].z = z;
		ncoord++;
	}

	/* Wait for the coordinators; pass a stop on; kill them well past the deadline. */
	live = ncoord;
	while (live) {
		struct pollfd pf[HP_MAX_SIZES];
		uint64_t now = now_ms();

		if (!told && (g_stop || now > deadline + GRACE_MS)) {
			for (unsigned i = 0; i < ncoord; i++)
				kill(co[i].pid, SIGTERM);
			told = true;
		}
		if (!killed && now > deadline + 6 * GRACE_MS) {
			for (unsigned i = 0; i < ncoord; i++)
				if (!co[i].done)
					kill(co[i].pid, SIGKILL);
			killed = true;
		}
		for (unsigned i = 0; i < ncoord; i++) {
			pf[i].fd = co[i].done ? -1 : co[i].fd;
			pf[i].events = POLLIN;
			pf[i].revents = 0;
		}
		if (poll(pf, ncoord, 500) < 0 && errno != EINTR)
			break;
		for (unsigned i = 0; i < ncoord; i++) {
			struct size_report rep;
			unsigned z = co[i].z;

			if (co[i].done || !pf[i].revents)
				continue;
			co[i].done = true;
			live--;
			if (xread(co[i].fd, &rep, sizeof(rep)) == sizeof(rep) &&
			    xread(co[i].fd, notes + z * t->nnodes,
				  t->nnodes * sizeof(*notes)) ==
				(ssize_t)(t->nnodes * sizeof(*notes))) {
				take_report(res, z, &rep);
			} else {
				snprintf(res->sizes[z].method_note,
					 sizeof(res->sizes[z].method_note),
					 "coordinator ended without a report");
			}
			close(co[i].fd);
		}
	}
	for (unsigned i = 0; i < ncoord; i++)
		while (waitpid(co[i].pid, NULL, 0) < 0 && errno == EINTR)
			;
	res->interrupted |= g_stop != 0;

	/* Last line of defence: every overcommit value back where it was. */
	for (unsigned z = 0; z < t->nsizes; z++) {
		struct size_pool gp;

		if (!res->sizes[z].worked || read_global(t->sizes[z].kb, &gp))
			continue;
		if (gp.overcommit != t->sizes[z].overcommit) {
			write_sysfs(t->sizes[z].overcommit,
				    HP_DIR "/nr_overcommit_hugepages", t->sizes[z].kb, 0);
			read_global(t->sizes[z].kb, &gp);
		}
		res->sizes[z].overcommit_before = t->sizes[z].overcommit;
		res->sizes[z].overcommit_after = gp.overcommit;
		res->sizes[z].surplus_after = gp.surplus;
	}

	/* Read back every node and judge each cell against the plan. */
	after = *t;
	after.nodes = malloc(t->nnodes * sizeof(*after.nodes));
	if (after.nodes) {
		memcpy(after.nodes, t->nodes, t->nnodes * sizeof(*after.nodes));
		topology_read_pools(&after);
	}
	for (unsigned n = 0; n < t->nnodes; n++) {
		for (unsigned z = 0; z < t->nsizes; z++) {
			const struct hp_cell *c = plan_cell(p, n, z);
			struct hp_cell_result *r = &res->cells[n * t->nsizes + z];
			const struct node_note *nn = &notes[z * t->nnodes + n];
			char sz[16];

			if (after.nodes) {
				const struct hp_pool *pl = &after.nodes[n].pool[z];

				r->achieved =
				    pl->nr > pl->surplus ? pl->nr - pl->surplus : 0;
			}
			r->ms = nn->ms;
			r->status = engine_cell_status(c, r->achieved);
			format_size_kb(t->sizes[z].kb, sz, sizeof(sz));
			if (r->status == HP_STATUS_UNCHANGED)
				continue;
			if (c->target != c->current)
				worked++;
			if (r->status == HP_STATUS_CAPPED)
				snprintf(r->reason, sizeof(r->reason),
					 "%s: %llu of %llu requested", cut_name(c->cut),
					 (unsigned long long)c->target,
					 (unsigned long long)c->requested);
			else if (r->status == HP_STATUS_PARTIAL ||
				 r->status == HP_STATUS_FAILED)
				snprintf(r->reason, sizeof(r->reason), "%llu of %llu: %s",
					 (unsigned long long)r->achieved,
					 (unsigned long long)c->target,
					 nn->note[0]	    ? nn->note
					 : res->timed_out   ? "deadline reached"
					 : res->interrupted ? "interrupted"
							    : "node out of memory");
			else if (c->cut == HP_CUT_GROW)
				snprintf(r->reason, sizeof(r->reason),
					 "grow mode kept the larger pool");
			if (r->status == HP_STATUS_FAILED)
				failed++;
			if (r->status != HP_STATUS_OK)
				bad++;
		}
	}
	free(after.nodes);
	free(notes);
	res->duration_ms = now_ms() - start;
	if (worked && failed == worked)
		res->status = HP_STATUS_FAILED;
	else if (bad || s->nproblems)
		res->status = HP_STATUS_PARTIAL;
	else
		res->status = HP_STATUS_OK;
	if (res->timed_out)
		snprintf(res->error, sizeof(res->error), "deadline of %llu ms reached",
			 (unsigned long long)s->timeout_ms);
	else if (res->interrupted)
		snprintf(res->error, sizeof(res->error), "interrupted by a signal");
	return 0;
}

void engine_result_free(struct hp_result *res)
{
	free(res->cells);
	res->cells = NULL;
}
