/* SPDX-License-Identifier: GPL-2.0-or-later */
/* file.c - unit tests: settings files and the files helpers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"
#include "settings.h"
#include "unit.h"

static struct hp_settings S;

static void test_files(void)
{
	struct hp_settings *s = &S;
	char dir[] = "/tmp/hugepar-unit.XXXXXX", p[256];
	FILE *f;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	/* A NUL byte spoils its own line only. */
	snprintf(p, sizeof(p), "%s/a.conf", dir);
	f = fopen(p, "w");
	fputs("threads = 3\nmode = ex", f);
	fputc('\0', f);
	fputs("act\ntimeout = 7\n", f);
	fclose(f);
	settings_free(s);
	CHECK(settings_load_file(s, p) == 0);
	CHECK(s->threads == 3 && s->timeout_ms == 7000 && s->mode == HP_MODE_GROW);
	CHECK(s->nproblems == 1 && strstr(s->problems[0].message, "NUL") &&
	      strstr(s->problems[0].origin, "a.conf:2"));

	/* Only regular files are read: a FIFO, a link to nothing, a directory. */
	snprintf(p, sizeof(p), "%s/fifo.conf", dir);
	CHECK(mkfifo(p, 0644) == 0);
	settings_free(s);
	CHECK(settings_load_file(s, p) != 0);
	CHECK(s->nproblems == 1 && strstr(s->problems[0].message, "a FIFO"));
	unlink(p);
	snprintf(p, sizeof(p), "%s/dangling.conf", dir);
	CHECK(symlink("/nonexistent/x", p) == 0);
	settings_free(s);
	settings_load_file(s, p);
	CHECK(s->nproblems == 1 && strstr(s->problems[0].message, "link to nothing"));
	unlink(p);
	snprintf(p, sizeof(p), "%s/zero.conf", dir);
	CHECK(symlink("/dev/zero", p) == 0);
	settings_free(s);
	settings_load_file(s, p);
	CHECK(s->nproblems == 1 && strstr(s->problems[0].message, "character device"));
	unlink(p);
	snprintf(p, sizeof(p), "%s/a.conf", dir);
	unlink(p);
	settings_free(s);
	CHECK(settings_load_config(s, p, true) == -ENOENT);
	CHECK(settings_load_config(s, p, false) == 0);
	rmdir(dir);
	settings_free(s);
}

const struct unit_test unit_file[] = {
    {"files", test_files},
    {NULL, NULL},
};
