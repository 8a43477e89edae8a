/* SPDX-License-Identifier: GPL-2.0-or-later */
/* setfiles.c - unit tests: systemd-sysctl's files and dpdk.conf, read as they read
 * them, from a root of the test's own; hostile files named, never waited on. */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "setfiles.h"
#include "unit.h"

/* Each test runs in a child of its own: each makes its root. */
static char root[64];

static bool fresh(void)
{
	snprintf(root, sizeof(root), "/tmp/hugepar-setfiles.XXXXXX");
	return mkdtemp(root) != NULL;
}

/* A file of the root, its folders made. */
static void put(const char *path, const char *text)
{
	char p[512], *slash;
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", root, path);
	for (slash = strchr(p + strlen(root) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(p, 0755);
		*slash = '/';
	}
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void link_to(const char *target, const char *path)
{
	char p[512];

	snprintf(p, sizeof(p), "%s%s", root, path);
	CHECK(symlink(target, p) == 0);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(p);
}

/* The entry i as "PATH:LINE KEY=VALUE [flags]". */
static const char *entry(const struct setfiles *s, unsigned i)
{
	static char buf[700];
	const struct setfile *e = &s->f[i];

	snprintf(buf, sizeof(buf), "%s:%u %s%s%s%s%s%s%s%s", e->path, e->line, e->key,
		 e->has_value ? "=" : "", e->value, e->ignore_failure ? " ignore" : "",
		 e->glob ? " glob" : "", e->unread_by[0] ? " by " : "", e->unread_by,
		 e->masked	    ? " masked"
		 : e->conf_unlinked ? " unlinked"
				    : "");
	return buf;
}

static bool is(const struct setfiles *s, unsigned i, const char *want)
{
	if (i < s->n && !strcmp(entry(s, i), want))
		return true;
	fprintf(stderr, "  entry %u: got '%s', want '%s'\n", i,
		i < s->n ? entry(s, i) : "", want);
	return false;
}

UNIT_TEST(order, "sysctl.d by name, the earliest folder's; masks, links and forms")
{
	static struct setfiles s;
	char big[300 << 10];

	if (!fresh()) {
		CHECK(!"mkdtemp");
		return;
	}
	put("/usr/lib/sysctl.d/50-pid.conf", "kernel.pid_max = 4194304\n");
	put("/usr/lib/sysctl.d/90-hp.conf", "vm.nr_hugepages = 512\n");
	put("/etc/sysctl.d/90-hp.conf",
	    "# hugepar's now\n\n -vm/nr_hugepages =  1024 \n");
	put("/run/sysctl.d/20-glob.conf",
	    "vm.nr_huge* = 3\n; vm.nr_hugepages = 1\nnot one\n");
	put("/usr/lib/sysctl.d/30-empty.conf", "vm.nr_hugepages_mempolicy=\n");
	put("/etc/sysctl.d/40-masked.conf", "");
	put("/usr/lib/sysctl.d/40-masked.conf", "vm.nr_hugepages = 7\n");
	link_to("/dev/null", "/etc/sysctl.d/45-null.conf");
	put("/lib/sysctl.d/45-null.conf", "vm.nr_hugepages = 8\n");
	put("/etc/sysctl.d/.hidden.conf", "vm.nr_hugepages = 9\n");
	put("/etc/sysctl.d/60-not.txt", "vm.nr_hugepages = 9\n");
	put("/etc/sysctl.d/70-x.conf", "-vm.nr_hugepages\nvm.nr_hugepages.x = 1\n");
	put("/etc/sysctl.conf", "vm.nr_hugepages = 99999999999999999999\n");
	link_to("../sysctl.conf", "/etc/sysctl.d/99-sysctl.conf");
	CHECK(setfiles_read(&s, root) == 0);
	CHECK(s.n == 8 && !s.more);
	CHECK(is(&s, 0, "/run/sysctl.d/20-glob.conf:1 vm.nr_huge*=3 glob"));
	CHECK(is(&s, 1, "/usr/lib/sysctl.d/30-empty.conf:1 vm.nr_hugepages_mempolicy="));
	CHECK(is(&s, 2,
		 "/usr/lib/sysctl.d/40-masked.conf:1 vm.nr_hugepages=7 by "
		 "/etc/sysctl.d/40-masked.conf masked"));
	CHECK(is(&s, 3,
		 "/lib/sysctl.d/45-null.conf:1 vm.nr_hugepages=8 by "
		 "/etc/sysctl.d/45-null.conf masked"));
	CHECK(is(&s, 4, "/etc/sysctl.d/70-x.conf:1 vm.nr_hugepages"));
	CHECK(is(&s, 5, "/etc/sysctl.d/90-hp.conf:3 vm/nr_hugepages=1024 ignore"));
	CHECK(is(&s, 6,
		 "/usr/lib/sysctl.d/90-hp.conf:1 vm.nr_hugepages=512 by "
		 "/etc/sysctl.d/90-hp.conf"));
	CHECK(is(&s, 7,
		 "/etc/sysctl.d/99-sysctl.conf:1 vm.nr_hugepages=99999999999999999999"));
	CHECK(s.f[5].kind == SETFILE_SYSCTL && !strcmp(s.f[5].name, "vm/nr_hugepages"));

	/* a link of that name elsewhere is not to /etc/sysctl.conf */
	unlink(strcat(strcpy(big, root), "/etc/sysctl.d/99-sysctl.conf"));
	put("/usr/lib/sysctl.conf", "kernel.sysrq = 1\n");
	link_to("../sysctl.conf", "/usr/lib/sysctl.d/99-sysctl.conf");
	CHECK(setfiles_read(&s, root) == 0);
	CHECK(is(&s, s.n - 1,
		 "/etc/sysctl.conf:1 vm.nr_hugepages=99999999999999999999 unlinked"));
	unlink(strcat(strcpy(big, root), "/usr/lib/sysctl.d/99-sysctl.conf"));
	link_to("../sysctl.conf", "/etc/sysctl.d/99-sysctl.conf");

	/* without the link, /etc/sysctl.conf is named, not read at boot */
	unlink(strcat(strcpy(big, root), "/etc/sysctl.d/99-sysctl.conf"));
	CHECK(setfiles_read(&s, root) == 0);
	CHECK(is(&s, s.n - 1,
		 "/etc/sysctl.conf:1 vm.nr_hugepages=99999999999999999999 unlinked"));
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

UNIT_TEST(hostile,
	  "a FIFO, a link loop, a folder, a huge file in sysctl.d: named, no hang")
{
	static struct setfiles s;
	static char big[300 << 10];
	char p[512];

	if (!fresh()) {
		CHECK(!"mkdtemp");
		return;
	}
	memset(big, '#', sizeof(big) - 1);
	put("/etc/sysctl.d/10-big.conf", big);
	snprintf(p, sizeof(p), "%s/etc/sysctl.d/20-fifo.conf", root);
	CHECK(mkfifo(p, 0644) == 0);
	link_to("30-loop.conf", "/etc/sysctl.d/30-loop.conf");
	snprintf(p, sizeof(p), "%s/etc/sysctl.d/35-dir.conf", root);
	CHECK(mkdir(p, 0755) == 0);
	CHECK(setfiles_read(&s, root) == 0);
	CHECK(is(&s, 0, "/etc/sysctl.d/10-big.conf:0 larger than 256 KiB"));
	CHECK(s.f[0].kind == SETFILE_UNREAD && s.f[1].kind == SETFILE_UNREAD);
	CHECK(is(&s, 1,
		 "/etc/sysctl.d/20-fifo.conf:0 not a regular file (a FIFO, a device)"));
	CHECK(s.f[2].kind == SETFILE_UNREAD &&
	      !strcmp(s.f[2].path, "/etc/sysctl.d/30-loop.conf"));
	CHECK(s.n == 3);
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

UNIT_TEST(dpdk,
	  "dpdk.conf's NR_<SIZE>_PAGES where dpdk.service is installed, and if enabled")
{
	static struct setfiles s;
	unsigned n;

	if (!fresh()) {
		CHECK(!"mkdtemp");
		return;
	}
	put("/etc/dpdk/dpdk.conf",
	    "# NR_2M_PAGES=64\nNR_2M_PAGES=\"0 64\"\nNR_1G_PAGES=2\n"
	    "DROPCACHE_BEFORE_HP_ALLOC=1\n");
	CHECK(setfiles_read(&s, root) == 0);
	n = s.n;
	CHECK(n == 0); /* no unit: not read */
	put("/lib/systemd/system/dpdk.service", "[Service]\n");
	CHECK(setfiles_read(&s, root) == 0);
	CHECK(s.n == n + 2 && is(&s, n, "/etc/dpdk/dpdk.conf:2 NR_2M_PAGES=0 64") &&
	      is(&s, n + 1, "/etc/dpdk/dpdk.conf:3 NR_1G_PAGES=2") && !s.f[n].enabled);
	put("/etc/systemd/system/multi-user.target.wants/dpdk.service", "");
	CHECK(setfiles_read(&s, root) == 0);
	CHECK(s.n == n + 2 && s.f[n].enabled && s.f[n].kind == SETFILE_DPDK);
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
