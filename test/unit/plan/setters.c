/* SPDX-License-Identifier: GPL-2.0-or-later */
/* setters.c - unit tests: what the other setters of the pools will do, in words. */
#include <stdio.h>
#include <string.h>

#include "setters.h"
#include "unit.h"

/* Two nodes (0 and 1), 2M and 1G; hugepar leaves 96 and 40 2M pages. */
static const unsigned ids[2] = {0, 1};
static const uint64_t kb[2] = {2048, 1048576};
static const uint64_t pages[4] = {96, 0, 40, 0};
/* entries ask 96 and 40 2M pages; none asks 1G pages */
static const uint64_t asked[4] = {96, HP_NOT_ASKED, 40, HP_NOT_ASKED};
static const struct setters_pools pools = {.nnodes = 2,
					   .nsizes = 2,
					   .ids = ids,
					   .kb = kb,
					   .pages = pages,
					   .asked = asked,
					   .default_kb = 2048};

static struct setfile *line(struct setfiles *f, const char *path, unsigned n,
			    const char *key, const char *name, const char *value)
{
	struct setfile *e = &f->f[f->n++];

	memset(e, 0, sizeof(*e));
	e->kind = SETFILE_SYSCTL;
	snprintf(e->path, sizeof(e->path), "%s", path);
	e->line = n;
	snprintf(e->key, sizeof(e->key), "%s", key);
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->glob = strpbrk(name, "*?[") != NULL;
	e->has_value = value != NULL;
	snprintf(e->value, sizeof(e->value), "%s", value ? value : "");
	return e;
}

static bool has(const struct hp_setter *s, const char *origin, const char *setting,
		const char *effect, bool in_force)
{
	bool ok = !strcmp(s->origin, origin) && !strcmp(s->setting, setting) &&
		  strstr(s->effect, effect) && s->in_force == in_force;

	if (!ok)
		fprintf(stderr, "  got %s | %s | %s | %d\n", s->origin, s->setting,
			s->effect, s->in_force);
	return ok;
}

UNIT_TEST(sysctl, "vm.nr_hugepages: the last line wins, the kernel's change in words")
{
	static struct setfiles f;
	static struct hp_setters out;

	memset(&f, 0, sizeof(f));
	line(&f, "/usr/lib/sysctl.d/10-a.conf", 1, "vm.nr_hugepages", "vm/nr_hugepages",
	     "64");
	line(&f, "/etc/sysctl.d/90-hp.conf", 2, "vm/nr_hugepages", "vm/nr_hugepages",
	     "200");
	setters_judge(&f, NULL, &pools, &out);
	CHECK(out.n == 2 && setters_in_force(&out) == 1);
	CHECK(has(&out.s[0], "/usr/lib/sysctl.d/10-a.conf:1", "vm.nr_hugepages = 64",
		  "no effect: /etc/sysctl.d/90-hp.conf:2 sets it after this line",
		  false));
	CHECK(
	    has(&out.s[1], "/etc/sysctl.d/90-hp.conf:2", "vm/nr_hugepages = 200",
		"systemd-sysctl raises the 2M pool from 136 to 200 pages after the root "
		"switch: the kernel adds 64 more over the nodes in turn (about 32 a "
		"node), beside hugepar's (node 0: 96, node 1: 40)",
		true));
	/* lower: frees; the same total: no change */
	snprintf(f.f[1].value, sizeof(f.f[1].value), "100");
	setters_judge(&f, NULL, &pools, &out);
	CHECK(has(&out.s[1], "/etc/sysctl.d/90-hp.conf:2", "vm/nr_hugepages = 100",
		  "lowers the 2M pool from 136 to 100 pages after the root switch: the "
		  "kernel frees 36 free pages over the nodes in turn (about 18 a node), "
		  "shrinking hugepar's",
		  true));
	snprintf(f.f[1].value, sizeof(f.f[1].value), "136");
	setters_judge(&f, NULL, &pools, &out);
	CHECK(has(&out.s[1], "/etc/sysctl.d/90-hp.conf:2", "vm/nr_hugepages = 136",
		  "the total hugepar leaves, so nothing changes", false));
	/* a default size of 1G: the sysctl counts 1G pages, hugepar leaves none */
	{
		struct setters_pools g = pools;

		g.default_kb = 1048576;
		setters_judge(&f, NULL, &g, &out);
		CHECK(has(&out.s[1], "/etc/sysctl.d/90-hp.conf:2",
			  "vm/nr_hugepages = 136",
			  "raises the 1G pool from 0 to 136 pages", true));
	}
}

UNIT_TEST(sysctl_hostile,
	  "values the kernel refuses, '-' prefixes, globs, exclusions, unread files")
{
	static struct setfiles f;
	static struct hp_setters out;

	memset(&f, 0, sizeof(f));
	line(&f, "/etc/sysctl.d/a.conf", 1, "vm.nr_hugepages", "vm/nr_hugepages",
	     "99999999999999999999");
	setters_judge(&f, NULL, &pools, &out);
	CHECK(has(
	    &out.s[0], "/etc/sysctl.d/a.conf:1", "vm.nr_hugepages = 99999999999999999999",
	    "the kernel refuses '99999999999999999999' (not a count of pages it can "
	    "read): the pool stays as hugepar leaves it; systemd-sysctl logs an error",
	    false));
	snprintf(f.f[0].value, sizeof(f.f[0].value), "%s", "");
	f.f[0].ignore_failure = true;
	setters_judge(&f, NULL, &pools, &out);
	CHECK(has(&out.s[0], "/etc/sysctl.d/a.conf:1",
		  "-vm.nr_hugepages = ", "the kernel refuses ''", false));
	CHECK(!strstr(out.s[0].effect, "logs an error"));
	/* the kernel's reading: base 0, a blank ends the count */
	snprintf(f.f[0].value, sizeof(f.f[0].value), "%s", "0x10 # sixteen");
	setters_judge(&f, NULL, &pools, &out);
	CHECK(has(
	    &out.s[0], "/etc/sysctl.d/a.conf:1", "-vm.nr_hugepages = 0x10 # sixteen",
	    "the kernel reads '0x10 # sixteen' as 16: systemd-sysctl lowers the 2M pool "
	    "from 136 to 16",
	    true));
	snprintf(f.f[0].value, sizeof(f.f[0].value), "%s", "08");
	setters_judge(&f, NULL, &pools, &out);
	CHECK(has(&out.s[0], "/etc/sysctl.d/a.conf:1", "-vm.nr_hugepages = 08",
		  "the kernel refuses '08'", false));
	snprintf(f.f[0].value, sizeof(f.f[0].value), "%s", "18446744073709551615");
	setters_judge(&f, NULL, &pools, &out);
	CHECK(has(&out.s[0], "/etc/sysctl.d/a.conf:1",
		  "-vm.nr_hugepages = 18446744073709551615",
		  "raises the 2M pool from 136 to 18446744073709551615 pages", true));
}

UNIT_TEST(sysctl_lines,
	  "globs and exclusions, files not read, an unlinked /etc/sysctl.conf")
{
	static struct setfiles f;
	static struct hp_setters out;
	struct setfile *e;

	/* a glob is in force where no line names the sysctl itself */
	memset(&f, 0, sizeof(f));
	line(&f, "/etc/sysctl.d/g.conf", 3, "vm.nr_huge*", "vm/nr_huge*", "8");
	setters_judge(&f, NULL, &pools, &out);
	CHECK(
	    has(&out.s[0], "/etc/sysctl.d/g.conf:3", "vm.nr_huge* = 8",
		"its pattern matches vm.nr_hugepages: systemd-sysctl lowers the 2M pool "
		"from 136 to 8",
		true));
	/* ... and "-vm.nr_hugepages" alone, after it, takes that name out of it: the
	 * glob still matches vm.nr_hugepages_mempolicy */
	line(&f, "/etc/sysctl.d/h.conf", 1, "vm.nr_hugepages", "vm/nr_hugepages", NULL);
	setters_judge(&f, NULL, &pools, &out);
	CHECK(out.n == 2 && setters_in_force(&out) == 1);
	CHECK(has(&out.s[0], "/etc/sysctl.d/g.conf:3", "vm.nr_huge* = 8",
		  "its pattern matches vm.nr_hugepages_mempolicy: systemd-sysctl lowers",
		  true));
	CHECK(has(&out.s[1], "/etc/sysctl.d/h.conf:1", "-vm.nr_hugepages",
		  "excludes the name from the patterns", false));
	/* a shadowed, a masked, an unlinked /etc/sysctl.conf, an unreadable file */
	memset(&f, 0, sizeof(f));
	e = line(&f, "/usr/lib/sysctl.d/90-hp.conf", 1, "vm.nr_hugepages",
		 "vm/nr_hugepages", "4");
	snprintf(e->unread_by, sizeof(e->unread_by), "/etc/sysctl.d/90-hp.conf");
	e->masked = true;
	e = line(&f, "/etc/sysctl.conf", 7, "vm.nr_hugepages", "vm/nr_hugepages", "5");
	e->conf_unlinked = true;
	e = &f.f[f.n++];
	memset(e, 0, sizeof(*e));
	e->kind = SETFILE_UNREAD;
	snprintf(e->path, sizeof(e->path), "/etc/sysctl.d/loop.conf");
	snprintf(e->value, sizeof(e->value), "Symbolic link loop");
	setters_judge(&f, NULL, &pools, &out);
	CHECK(out.n == 3 && setters_in_force(&out) == 0);
	CHECK(has(&out.s[0], "/usr/lib/sysctl.d/90-hp.conf:1", "vm.nr_hugepages = 4",
		  "not read: /etc/sysctl.d/90-hp.conf, of the same name, masks it",
		  false));
	CHECK(
	    has(&out.s[1], "/etc/sysctl.conf:7", "vm.nr_hugepages = 5",
		"not read at boot: systemd-sysctl reads /etc/sysctl.conf only through a "
		"link",
		false));
	CHECK(has(&out.s[2], "/etc/sysctl.d/loop.conf", "",
		  "hugepar cannot read it (Symbolic link loop)", false));
}

UNIT_TEST(cmdline, "hugepages= on the kernel command line, by the kernel's reading of it")
{
	static struct hp_setters out;

	setters_judge(NULL,
		      "quiet hugepagesz=1G hugepages=16 hugepages=0:1 -- hugepages=9",
		      &pools, &out);
	CHECK(out.n == 2 && setters_in_force(&out) == 0);
	CHECK(
	    has(&out.s[0], "kernel command line", "hugepagesz=1G hugepages=16",
		"the kernel reserves 16 1G pages at boot, over the nodes in turn, before "
		"hugepar runs; hugepar counts them as the pool before and has no entry "
		"for the size: they stay",
		false));
	CHECK(has(&out.s[1], "kernel command line", "hugepages=0:1",
		  "a second hugepages= for the size", false));
	/* more than an entry asks on a node: grow mode keeps them (in force) */
	setters_judge(NULL, "hugepages=0:200", &pools, &out);
	CHECK(out.n == 1 &&
	      has(&out.s[0], "kernel command line", "hugepages=0:200",
		  "keeps them where they are more than it asks (mode = grow: "
		  "node 0: 200 of 96)",
		  true));
	/* a total, spread over the nodes: 68 a node, above node 1's 40 */
	setters_judge(NULL, "hugepages=136", &pools, &out);
	CHECK(has(&out.s[0], "kernel command line", "hugepages=136", "node 1: 68 of 40)",
		  true));
	/* at or below the requests (what hugepar cmdline prints): hugepar completes */
	setters_judge(NULL, "hugepagesz=2M hugepages=0:96,1:20", &pools, &out);
	CHECK(has(&out.s[0], "kernel command line", "hugepagesz=2M hugepages=0:96,1:20",
		  "adds what its entries ask beyond them", false));
	/* the default size, named anywhere on the line; exact mode */
	{
		struct setters_pools x = pools;

		x.exact = true;
		setters_judge(NULL, "hugepages=0:800,1:4 default_hugepagesz=2M", &x,
			      &out);
		CHECK(out.n == 2);
		CHECK(has(
		    &out.s[0], "kernel command line", "hugepages=0:800,1:4",
		    "the kernel reserves 804 2M pages at boot, on the nodes named "
		    "(0:800,1:4), before hugepar runs; hugepar counts them as the pool "
		    "before and sets each node it has an entry for to its request",
		    false));
		CHECK(has(&out.s[1], "kernel command line", "default_hugepagesz=2M",
			  "the default huge page size is 2M", false));
		setters_judge(NULL, "default_hugepagesz=1G hugepages=3", &x, &out);
		CHECK(has(&out.s[1], "kernel command line", "hugepages=3",
			  "the kernel reserves 3 1G pages", false));
	}
	/* a size not offered, a lone size, a count the kernel cannot read, quotes */
	setters_judge(NULL, "hugepagesz=4M hugepages=2 hugepagesz=2M \"hugepages=x y\"",
		      &pools, &out);
	CHECK(out.n == 2 && setters_in_force(&out) == 0);
	CHECK(has(&out.s[0], "kernel command line", "hugepagesz=4M hugepages=2",
		  "hugepagesz=4M is not a size this kernel offers", false));
	CHECK(has(&out.s[1], "kernel command line", "hugepagesz=2M hugepages=x y",
		  "the kernel cannot read 'x y'", false));
	setters_judge(NULL, "hugepagesz=1G", &pools, &out);
	CHECK(out.n == 1 && has(&out.s[0], "kernel command line", "hugepagesz=1G",
				"no hugepages= follows it", false));
	setters_judge(NULL, "", &pools, &out);
	CHECK(out.n == 0);
}

UNIT_TEST(dpdk, "dpdk.service's NR_<SIZE>_PAGES: the whole pool, or node by node")
{
	static struct setfiles f;
	static struct hp_setters out;
	struct setfile *e;

	memset(&f, 0, sizeof(f));
	e = &f.f[f.n++];
	memset(e, 0, sizeof(*e));
	e->kind = SETFILE_DPDK;
	snprintf(e->path, sizeof(e->path), "/etc/dpdk/dpdk.conf");
	e->line = 6;
	snprintf(e->key, sizeof(e->key), "NR_2M_PAGES");
	snprintf(e->value, sizeof(e->value), "0 64");
	e->has_value = e->enabled = true;
	setters_judge(&f, NULL, &pools, &out);
	CHECK(has(
	    &out.s[0], "/etc/dpdk/dpdk.conf:6", "NR_2M_PAGES=0 64",
	    "dpdk.service writes each node's 2M pool after the root switch, in node "
	    "order (0 64; 0 leaves a node as it is), replacing hugepar's (node 0: 96, "
	    "node 1: 40)",
	    true));
	snprintf(e->value, sizeof(e->value), "136");
	setters_judge(&f, NULL, &pools, &out);
	CHECK(has(&out.s[0], "/etc/dpdk/dpdk.conf:6", "NR_2M_PAGES=136",
		  "dpdk.service sets the 2M pool to 136 pages", false));
	e->enabled = false;
	snprintf(e->value, sizeof(e->value), "512");
	setters_judge(&f, NULL, &pools, &out);
	CHECK(has(&out.s[0], "/etc/dpdk/dpdk.conf:6", "NR_2M_PAGES=512",
		  "installed but not enabled", false));
	e->enabled = true;
	snprintf(e->value, sizeof(e->value), "lots");
	setters_judge(&f, NULL, &pools, &out);
	CHECK(has(&out.s[0], "/etc/dpdk/dpdk.conf:6", "NR_2M_PAGES=lots",
		  "dpdk-init cannot read 'lots'", false));
}
