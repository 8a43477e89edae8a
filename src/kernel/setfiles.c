/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * setfiles.c - the files by which other programs set the pools after the root switch
 * (setfiles.h): systemd-sysctl's sysctl.d folders, read in its order and with its
 * rules (doc/setters.md), and dpdk.service's /etc/dpdk/dpdk.conf. Only read here;
 * what each does is the plan's judgement (setters.h).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse.h"
#include "path.h"
#include "setfiles.h"

/* A file larger than this is named, not read: sysctl.d files are a few lines. */
#define SETFILES_FILE_MAX (256u << 10)
#define SETFILES_NAMES	  512

static const char *const sysctl_dirs[] = {SETFILES_SYSCTL_DIRS};

static struct setfile *setfile_add(struct setfiles *s, enum setfile_kind kind,
				   const char *path, unsigned line)
{
	struct setfile *f;

	if (s->n >= SETFILES_MAX) {
		s->more = true;
		return NULL;
	}
	f = &s->f[s->n++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->line = line;
	return f;
}

/* systemd's sysctl_normalize(): the first separator decides; with a dot, dots and
 * slashes swap; then no empty components and no leading slash. */
static void sysctl_name(const char *key, char *out, size_t len)
{
	char *n, *w;

	snprintf(out, len, "%s", key);
	n = strpbrk(out, "/.");
	if (n && *n == '.')
		for (; n; n = strpbrk(n + 1, "/."))
			*n = *n == '.' ? '/' : '.';
	for (n = w = out; *n; n++)
		if (!(*n == '/' && (w == out || w[-1] == '/')))
			*w++ = *n;
	*w = '\0';
	if (w > out && w[-1] == '/')
		w[-1] = '\0';
}

/* Whether a name (slash form) is one of the pools' sysctls, or a glob matching one. */
static bool pool_name(const char *name, bool *glob)
{
	static const char *const pools[] = {"vm/nr_hugepages",
					    "vm/nr_hugepages_mempolicy"};

	*glob = strpbrk(name, "*?[") != NULL;
	for (unsigned i = 0; i < 2; i++)
		if (*glob ? fnmatch(name, pools[i], FNM_PATHNAME) == 0
			  : strcmp(name, pools[i]) == 0)
			return true;
	return false;
}

/* One line of a sysctl file as systemd-sysctl's parse_line() takes it. */
static void sysctl_line(struct setfiles *s, const struct setfile *tmpl, char *l,
			unsigned line)
{
	char *eq, *key = l, name[64];
	bool dash = false, glob;
	struct setfile *f;

	l = parse_trim(l);
	if (!*l || *l == '#' || *l == ';')
		return;
	eq = strchr(l, '=');
	if (*l == '-') {
		dash = true;
		l++;
	}
	if (!eq && !dash)
		return; /* not an assignment: systemd-sysctl says so, and skips it */
	if (eq)
		*eq = '\0';
	key = parse_trim(l);
	sysctl_name(key, name, sizeof(name));
	if (!pool_name(name, &glob) ||
	    !(f = setfile_add(s, SETFILE_SYSCTL, tmpl->path, line)))
		return;
	snprintf(f->unread_by, sizeof(f->unread_by), "%s", tmpl->unread_by);
	f->masked = tmpl->masked;
	f->conf_unlinked = tmpl->conf_unlinked;
	snprintf(f->key, sizeof(f->key), "%s", key);
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->glob = glob;
	f->has_value = eq != NULL;
	f->ignore_failure = dash && eq;
	if (eq)
		snprintf(f->value, sizeof(f->value), "%s", parse_trim(eq + 1));
}

/* A file's text (malloc'd), or -errno. */
static int read_text(const char *base, const char *path, char **text)
{
	int rc;

	*text = malloc(SETFILES_FILE_MAX);
	if (!*text)
		return -ENOMEM;
	rc = path_read_under(base, *text, SETFILES_FILE_MAX, "%s", path);
	if (rc) {
		free(*text);
		*text = NULL;
	}
	return rc;
}

/* The lines of one sysctl file, each with what tmpl says of the file. */
static void sysctl_file(struct setfiles *s, const char *base, const struct setfile *tmpl)
{
	char *text, *l, *next;
	unsigned line = 0;
	struct setfile *f;
	int rc = read_text(base, tmpl->path, &text);

	if (rc == -ENOENT && tmpl->conf_unlinked)
		return;
	if (rc) {
		if ((f = setfile_add(s, SETFILE_UNREAD, tmpl->path, 0)))
			snprintf(f->value, sizeof(f->value), "%s",
				 rc == -EFBIG ? "larger than 256 KiB"
					      : path_strerror(rc));
		return;
	}
	for (l = text; l; l = next) {
		next = strchr(l, '\n');
		if (next)
			*next++ = '\0';
		sysctl_line(s, tmpl, l, ++line);
	}
	free(text);
}

struct sysctl_entry {
	char name[128];
	unsigned dir;
};

static int entry_cmp(const void *a, const void *b)
{
	const struct sysctl_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (int)x->dir - (int)y->dir;
}

/* The .conf files of every folder (not hidden), by name, then folder. */
static unsigned sysctl_list(const char *base, struct sysctl_entry *e, unsigned max)
{
	unsigned n = 0;

	for (unsigned d = 0; d < sizeof(sysctl_dirs) / sizeof(*sysctl_dirs); d++) {
		struct path_dir dir;
		const char *name;

		if (path_dir_open_under(&dir, base, "%s", sysctl_dirs[d]))
			continue;
		while ((name = path_dir_next(&dir)) && n < max) {
			size_t len = strlen(name);

			if (name[0] == '.' || len < 6 || len >= sizeof(e->name) ||
			    strcmp(name + len - 5, ".conf"))
				continue;
			snprintf(e[n].name, sizeof(e[n].name), "%s", name);
			e[n++].dir = d;
		}
		path_dir_close(&dir);
	}
	qsort(e, n, sizeof(*e), entry_cmp);
	return n;
}

/* What a file is: 0 a file to read, 1 masked (empty, or a device: /dev/null), 2 a
 * folder (not a file: skipped), or -errno (-EBADFD: a FIFO, a socket). Whether it
 * is a link to /etc/sysctl.conf in *conf. */
static int sysctl_kind(const char *base, const char *path, bool *conf)
{
	char p[4096], to[256];
	struct stat st;
	ssize_t n;

	*conf = false;
	if (path_build_under(base, p, sizeof(p), "%s", path))
		return -ENAMETOOLONG;
	n = readlink(p, to, sizeof(to) - 1);
	if (n > 0) {
		to[n] = '\0';
		/* (../sysctl.conf is /etc's only from /etc/sysctl.d) */
		*conf = !strcmp(to, "/etc/sysctl.conf") ||
			(!strcmp(to, "../sysctl.conf") &&
			 !strncmp(path, "/etc/sysctl.d/", 14));
	}
	if (stat(p, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return 2;
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ||
	    (S_ISREG(st.st_mode) && st.st_size == 0))
		return 1;
	return S_ISREG(st.st_mode) ? 0 : -EBADFD;
}

/* The sysctl.d files in systemd-sysctl's order: of each name, the earliest folder's
 * (unless masked); then the later folders' of that name, which it does not read.
 * Whether a file read is a link to /etc/sysctl.conf in *conf. */
static void sysctl_files(struct setfiles *s, const char *base,
			 const struct sysctl_entry *e, unsigned n, bool *conf)
{
	struct setfile tmpl;
	char winner[256] = "";
	int kind = 0;

	for (unsigned i = 0; i < n; i++) {
		bool first = i == 0 || strcmp(e[i].name, e[i - 1].name);
		bool link = false;

		memset(&tmpl, 0, sizeof(tmpl));
		snprintf(tmpl.path, sizeof(tmpl.path), "%s/%s", sysctl_dirs[e[i].dir],
			 e[i].name);
		if (first) {
			snprintf(winner, sizeof(winner), "%s", tmpl.path);
			kind = sysctl_kind(base, tmpl.path, &link);
			*conf |= link && kind == 0;
		} else {
			snprintf(tmpl.unread_by, sizeof(tmpl.unread_by), "%s", winner);
			tmpl.masked = kind == 1;
		}
		if (first && kind < 0) {
			struct setfile *f = setfile_add(s, SETFILE_UNREAD, tmpl.path, 0);

			if (f)
				snprintf(f->value, sizeof(f->value), "%s",
					 path_strerror(kind));
		} else if (!first || kind == 0) {
			sysctl_file(s, base, &tmpl);
		}
	}
}

/* dpdk.service (Debian's dpdk) runs /lib/dpdk/dpdk-init at boot, which sources
 * /etc/dpdk/dpdk.conf and writes each NR_<SIZE>_PAGES to the pool: one count the
 * global pool, several the nodes' in turn. */
static void dpdk_conf(struct setfiles *s, const char *base)
{
	static const char *const units[] = {"/lib/systemd/system/dpdk.service",
					    "/usr/lib/systemd/system/dpdk.service"};
	char p[4096], *text, *l, *next;
	unsigned line = 0;
	bool installed = false, enabled;
	struct stat st;

	for (unsigned i = 0; i < 2; i++)
		installed |= !path_build_under(base, p, sizeof(p), "%s", units[i]) &&
			     stat(p, &st) == 0;
	if (!installed || read_text(base, "/etc/dpdk/dpdk.conf", &text))
		return;
	enabled = !path_build_under(
		      base, p, sizeof(p), "%s",
		      "/etc/systemd/system/multi-user.target.wants/dpdk.service") &&
		  stat(p, &st) == 0;
	for (l = text; l; l = next) {
		char *v, *eq;
		struct setfile *f;
		size_t n;

		next = strchr(l, '\n');
		if (next)
			*next++ = '\0';
		line++;
		l = parse_trim(l);
		eq = strchr(l, '=');
		if (strncmp(l, "NR_", 3) || !eq || eq - l < 10 ||
		    strncmp(eq - 6, "_PAGES", 6))
			continue;
		*eq = '\0';
		if (!(f = setfile_add(s, SETFILE_DPDK, "/etc/dpdk/dpdk.conf", line)))
			break;
		snprintf(f->key, sizeof(f->key), "%s", l);
		v = parse_trim(eq + 1);
		n = strlen(v);
		if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
			v[n - 1] = '\0';
			v++;
		}
		snprintf(f->value, sizeof(f->value), "%s", v);
		f->has_value = true;
		f->enabled = enabled;
	}
	free(text);
}

int setfiles_read(struct setfiles *s, const char *base)
{
	struct sysctl_entry *e = calloc(SETFILES_NAMES, sizeof(*e));
	struct setfile conf = {.conf_unlinked = true};
	bool linked = false;
	unsigned n;

	memset(s, 0, sizeof(*s));
	if (!e)
		return -ENOMEM;
	n = sysctl_list(base, e, SETFILES_NAMES);
	sysctl_files(s, base, e, n, &linked);
	free(e);
	/* read by systemd-sysctl only through a link in /etc/sysctl.d (Debian's
	 * systemd ships 99-sysctl.conf); procps' sysctl --system reads it last */
	if (!linked) {
		snprintf(conf.path, sizeof(conf.path), "/etc/sysctl.conf");
		sysctl_file(s, base, &conf);
	}
	dpdk_conf(s, base);
	return 0;
}
