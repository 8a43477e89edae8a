/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mounts.c - unit tests: the mount setting's options, and hugetlbfs mounts made. */
#include <errno.h>
#include <ftw.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "keys.h"
#include "mounts.h"
#include "settings.h"
#include "unit.h"

static struct hp_settings S;

static int str_eq(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

/* SIZE:/PATH and its options, as the settings keep them. */
UNIT_TEST(options, "mount = SIZE:/PATH with owner, group and mode, kept as copies")
{
	struct hp_settings *s = &S;
	char value[64];

	settings_free(s);
	keys_set(s, "mount", "2M:/mnt/huge", "/etc/hugepar.conf:2", false);
	CHECK(s->nmounts == 1 && s->nproblems == 0);
	if (s->nmounts != 1)
		return;
	CHECK(s->mounts[0].size_kb == 2048 && str_eq(s->mounts[0].path, "/mnt/huge"));
	CHECK(s->mounts[0].owner == NULL && s->mounts[0].group == NULL);
	CHECK(!s->mounts[0].has_mode && s->mounts[0].mode == 0);
	CHECK(str_eq(s->mounts[0].text, "2M:/mnt/huge"));
	CHECK(str_eq(s->mounts[0].origin, "/etc/hugepar.conf:2"));
	CHECK(str_eq(s->mounts[0].key, "mount"));

	/* the settings keep copies of their own: the caller's buffer may change */
	snprintf(value, sizeof(value),
		 "1G:/dev/hugepages1G,owner=qemu,group=kvm,mode=0770");
	keys_set(s, "rd.hugepar.mount", value, "kernel command line", true);
	memset(value, 'x', sizeof(value) - 1);
	CHECK(s->nmounts == 2 && s->nproblems == 0);
	if (s->nmounts != 2)
		return;
	CHECK(s->mounts[1].size_kb == 1048576);
	CHECK(str_eq(s->mounts[1].path, "/dev/hugepages1G"));
	CHECK(str_eq(s->mounts[1].owner, "qemu") && str_eq(s->mounts[1].group, "kvm"));
	CHECK(s->mounts[1].has_mode && s->mounts[1].mode == 0770);
	CHECK(str_eq(s->mounts[1].text,
		     "1G:/dev/hugepages1G,owner=qemu,group=kvm,mode=0770"));
	CHECK(str_eq(s->mounts[1].key, "rd.hugepar.mount"));
	CHECK(str_eq(s->mounts[1].origin, "kernel command line"));

	/* numbers; the last of an option given twice; the largest mode; an empty
	 * option between commas */
	keys_set(s, "mount", "2M:/a,owner=1000,owner=7,group=0,,mode=7777", "f", false);
	CHECK(s->nmounts == 3 && s->nproblems == 0);
	if (s->nmounts == 3) {
		CHECK(str_eq(s->mounts[2].owner, "7") && str_eq(s->mounts[2].group, "0"));
		CHECK(s->mounts[2].has_mode && s->mounts[2].mode == 07777);
		CHECK(str_eq(s->mounts[2].path, "/a"));
	}
	/* mode 0 is a mode */
	keys_set(s, "mount", "2M:/b,mode=0", "f", false);
	CHECK(s->nmounts == 4 && s->mounts[3].has_mode && s->mounts[3].mode == 0);
	settings_free(s);
	CHECK(s->nmounts == 0 && s->mounts == NULL);
}

/* Each bad value is one problem, with the value as written and why; no mount is
 * kept for it. */
UNIT_TEST(bad, "each bad mount value is one problem naming why; good ones stay")
{
	static const struct {
		const char *value, *message;
	} bad[] = {
	    {"2M", "expected SIZE:/PATH[,owner=U][,group=G][,mode=OCTAL]"},
	    {"2M:mnt/huge", "expected SIZE:/PATH[,owner=U][,group=G][,mode=OCTAL]"},
	    {":/mnt", "page size '' is malformed"},
	    {"2Q:/mnt", "page size '2Q' is malformed"},
	    {"1000:/mnt", "page size '1000' is malformed"},
	    {"1025:/mnt", "page size '1025' is malformed"},
	    {"2M:/mnt,mode=0778",
	     "option 'mode=0778': expected owner=, group= or mode=OCTAL"},
	    {"2M:/mnt,mode=10000",
	     "option 'mode=10000': expected owner=, group= or mode=OCTAL"},
	    {"2M:/mnt,mode=", "option 'mode=': expected owner=, group= or mode=OCTAL"},
	    {"2M:/mnt,mode=-1",
	     "option 'mode=-1': expected owner=, group= or mode=OCTAL"},
	    {"2M:/mnt,owner=", "option 'owner=': expected owner=, group= or mode=OCTAL"},
	    {"2M:/mnt,group=", "option 'group=': expected owner=, group= or mode=OCTAL"},
	    {"2M:/mnt,uid=0", "option 'uid=0': expected owner=, group= or mode=OCTAL"},
	    {"2M:/mnt,owner=a,size=1G",
	     "option 'size=1G': expected owner=, group= or mode=OCTAL"},
	};
	struct hp_settings *s = &S;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		settings_free(s);
		keys_set(s, "mount", bad[i].value, "/etc/hugepar.conf:9", false);
		CHECK(s->nmounts == 0 && s->nproblems == 1);
		if (s->nproblems != 1)
			continue;
		CHECK(str_eq(s->problems[0].key, "mount"));
		CHECK(str_eq(s->problems[0].value, bad[i].value));
		CHECK(str_eq(s->problems[0].origin, "/etc/hugepar.conf:9"));
		if (!str_eq(s->problems[0].message, bad[i].message))
			fprintf(stderr, "%s: '%s'\n", bad[i].value,
				s->problems[0].message);
		CHECK(str_eq(s->problems[0].message, bad[i].message));
	}
	/* a bad one after good ones: the good ones stay as they were */
	settings_free(s);
	for (unsigned i = 0; i < 40; i++) {
		char v[32];

		snprintf(v, sizeof(v), "2M:/m%u,owner=%u", i, i);
		keys_set(s, "mount", v, "f", false);
	}
	keys_set(s, "mount", "2M:/bad,mode=9", "f", false);
	CHECK(s->nmounts == 40 && s->nproblems == 1);
	if (s->nmounts == 40) {
		CHECK(str_eq(s->mounts[0].path, "/m0") &&
		      str_eq(s->mounts[0].owner, "0"));
		CHECK(str_eq(s->mounts[39].path, "/m39") &&
		      str_eq(s->mounts[39].owner, "39"));
		CHECK(str_eq(s->mounts[39].text, "2M:/m39,owner=39"));
	}
	settings_free(s);
}

static struct hp_mount mount_of(const char *value)
{
	struct hp_mount m = {0};

	settings_free(&S);
	keys_set(&S, "mount", value, "t", false);
	if (S.nmounts == 1)
		m = S.mounts[0];
	return m;
}

/* What is refused before anything is made or mounted. */
UNIT_TEST(refused, "no such size, user or group, a busy or impossible path: refused")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", v[128], why[256];
	struct hp_topology t = {.nsizes = 1};
	struct hp_mount m;
	struct stat st;
	FILE *f;

	t.sizes[0].kb = 2048;
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(v, sizeof(v), "1G:%s/m", dir);
	m = mount_of(v);
	CHECK(mounts_hugetlbfs(&m, &t, why, sizeof(why)) == -EINVAL);
	CHECK(strcmp(why, "the kernel offers no 1G pages") == 0);

	snprintf(v, sizeof(v), "2M:%s/m,owner=no-such-user-hugepar", dir);
	m = mount_of(v);
	CHECK(mounts_hugetlbfs(&m, &t, why, sizeof(why)) == -ENOENT);
	CHECK(strcmp(why, "no such user 'no-such-user-hugepar'") == 0);
	snprintf(v, sizeof(v), "2M:%s/m,owner=0,group=no-such-group-hugepar", dir);
	m = mount_of(v);
	CHECK(mounts_hugetlbfs(&m, &t, why, sizeof(why)) == -ENOENT);
	CHECK(strcmp(why, "no such group 'no-such-group-hugepar'") == 0);
	/* nothing was made for them */
	snprintf(v, sizeof(v), "%s/m", dir);
	CHECK(stat(v, &st) == -1 && errno == ENOENT);

	/* something else mounted there already */
	m = mount_of("2M:/proc,owner=root,group=root");
	CHECK(mounts_hugetlbfs(&m, &t, why, sizeof(why)) == -EBUSY);
	CHECK(strncmp(why, "already a mount of proc (", 25) == 0 &&
	      strstr(why, "), not hugetlbfs for 2M"));

	/* a path that cannot be a directory */
	snprintf(v, sizeof(v), "%s/file", dir);
	f = fopen(v, "w");
	fclose(f);
	snprintf(v, sizeof(v), "2M:%s/file/m", dir);
	m = mount_of(v);
	CHECK(mounts_hugetlbfs(&m, &t, why, sizeof(why)) == -ENOTDIR);
	CHECK(strcmp(why, "cannot make the directory: Not a directory") == 0);
	settings_free(&S);
	snprintf(v, sizeof(v), "%s/file", dir);
	unlink(v);
	rmdir(dir);
}

/* A mount made, in a mount namespace of this test's own (nothing outside sees it;
 * a hugetlbfs mount with no size reserves no pages), then kept when asked again with
 * its root's owner and mode set. Needs root: skipped without. */
UNIT_TEST(made, "a hugetlbfs mount made with owner and mode, then kept (root only)")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", v[160], path[128], want[256], why[256];
	struct hp_topology t = {.nsizes = 2};
	struct hp_mount m;
	struct stat st;

	t.sizes[0].kb = 2048;
	t.sizes[1].kb = 1048576;
	if (geteuid() != 0 || unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    access("/sys/kernel/mm/hugepages/hugepages-2048kB", F_OK)) {
		fprintf(stderr,
			"mounts.made: skipped: no mount namespace or no 2M pages\n");
		return;
	}
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/a/b", dir);
	snprintf(v, sizeof(v), "2M:%s,owner=1,group=2,mode=0750", path);
	m = mount_of(v);
	CHECK(mounts_hugetlbfs(&m, &t, why, sizeof(why)) == 0);
	CHECK(strcmp(why,
		     "hugetlbfs for 2M mounted (pagesize=2048K,mode=750,uid=1,gid=2)") ==
	      0);
	CHECK(stat(path, &st) == 0 && st.st_uid == 1 && st.st_gid == 2 &&
	      (st.st_mode & 07777) == 0750);

	/* again: kept, with the owner and mode asked for now; the group stays */
	snprintf(v, sizeof(v), "2M:%s,owner=3,mode=0700", path);
	m = mount_of(v);
	CHECK(mounts_hugetlbfs(&m, &t, why, sizeof(why)) == 1);
	CHECK(strcmp(why, "hugetlbfs for 2M mounted already") == 0);
	CHECK(stat(path, &st) == 0 && st.st_uid == 3 && st.st_gid == 2 &&
	      (st.st_mode & 07777) == 0700);

	/* another size at the same place: refused */
	snprintf(v, sizeof(v), "1G:%s", path);
	m = mount_of(v);
	CHECK(mounts_hugetlbfs(&m, &t, why, sizeof(why)) == -EBUSY);
	snprintf(want, sizeof(want), "already a mount of hugetlbfs (");
	CHECK(strncmp(why, want, strlen(want)) == 0 &&
	      strstr(why, "), not hugetlbfs for 1G"));
	CHECK(umount(path) == 0);

	/* the defaults: root's, mode 0755 */
	snprintf(v, sizeof(v), "2M:%s", path);
	m = mount_of(v);
	CHECK(mounts_hugetlbfs(&m, &t, why, sizeof(why)) == 0);
	CHECK(strcmp(why,
		     "hugetlbfs for 2M mounted (pagesize=2048K,mode=755,uid=0,gid=0)") ==
	      0);
	CHECK(umount(path) == 0);
	settings_free(&S);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/a", dir);
	rmdir(path);
	rmdir(dir);
}
