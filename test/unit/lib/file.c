/* SPDX-License-Identifier: GPL-2.0-or-later */
/* file.c - unit tests: settings files and the files helpers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"
#include "path.h"
#include "settings.h"
#include "unit.h"

static struct hp_settings S;

UNIT_TEST(files, "a NUL spoils its own line; a FIFO, dangling link or device not read")
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
	CHECK(sources_load_file(s, p) == 0);
	CHECK(s->workers == 3 && s->timeout_ms == 7000 && s->mode == HP_MODE_GROW);
	CHECK(s->nproblems == 1 && strstr(s->problems[0].message, "NUL") &&
	      strstr(s->problems[0].origin, "a.conf:2"));

	/* Only regular files are read: a FIFO, a link to nothing, a directory. */
	snprintf(p, sizeof(p), "%s/fifo.conf", dir);
	CHECK(mkfifo(p, 0644) == 0);
	settings_free(s);
	CHECK(sources_load_file(s, p) != 0);
	CHECK(s->nproblems == 1 && strstr(s->problems[0].message, "a FIFO"));
	unlink(p);
	snprintf(p, sizeof(p), "%s/dangling.conf", dir);
	CHECK(symlink("/nonexistent/x", p) == 0);
	settings_free(s);
	sources_load_file(s, p);
	CHECK(s->nproblems == 1 && strstr(s->problems[0].message, "link to nothing"));
	unlink(p);
	snprintf(p, sizeof(p), "%s/zero.conf", dir);
	CHECK(symlink("/dev/zero", p) == 0);
	settings_free(s);
	sources_load_file(s, p);
	CHECK(s->nproblems == 1 && strstr(s->problems[0].message, "character device"));
	unlink(p);
	snprintf(p, sizeof(p), "%s/a.conf", dir);
	unlink(p);
	settings_free(s);
	CHECK(sources_load_config(s, p, true) == -ENOENT);
	CHECK(sources_load_config(s, p, false) == 0);
	rmdir(dir);
	settings_free(s);
}

/* A file whose size fstat() says is 0 (a procfs file) is read to its end; one past
 * the limit, whatever fstat() said, is -EFBIG; /dev/null is empty. */
UNIT_TEST(
    sizeless,
    "a file whose size says 0 (procfs) is read to its end; one past the limit is refused")
{
	const char *kind;
	char *text;
	size_t len;

	CHECK(file_read_regular("/proc/self/status", 1 << 20, &text, &len, &kind) == 0 &&
	      len > 0 && strlen(text) == len && strncmp(text, "Name:", 5) == 0);
	free(text);
	CHECK(file_read_regular("/proc/self/status", 64, &text, &len, &kind) == -EFBIG &&
	      !text);
	CHECK(file_read_regular("/dev/null", 64, &text, &len, &kind) == 0 && len == 0 &&
	      text && !text[0]);
	free(text);
}

static void big_body(FILE *f, const void *arg)
{
	for (unsigned i = 0; i < *(const unsigned *)arg; i++)
		fprintf(f, "line %u\n", i);
}

/* A directory of more entries than one getdents64() buffer holds: each seen once,
 * "." and ".." not at all; a file replaced whole from what a body prints. */
UNIT_TEST(dir, "a directory larger than a getdents64 buffer; a file replaced whole")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", p[256];
	static bool seen[400];
	unsigned lines = 30000, n = 0, other = 0;
	struct path_dir d;
	const char *name, *kind;
	char *text = NULL;
	size_t len;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	for (unsigned i = 0; i < 400; i++) {
		snprintf(p, sizeof(p), "%s/entry-with-a-longish-name-%u", dir, i);
		fclose(fopen(p, "w"));
	}
	CHECK(path_dir_open(&d, "%s", dir) == 0);
	while ((name = path_dir_next(&d))) {
		unsigned i;

		if (sscanf(name, "entry-with-a-longish-name-%u", &i) == 1 && i < 400 &&
		    !seen[i])
			seen[i] = true, n++;
		else
			other++;
	}
	path_dir_close(&d);
	CHECK(n == 400 && other == 0);
	CHECK(path_dir_open(&d, "%s/none", dir) == -ENOENT);
	path_dir_close(&d);
	for (unsigned i = 0; i < 400; i++) {
		snprintf(p, sizeof(p), "%s/entry-with-a-longish-name-%u", dir, i);
		unlink(p);
	}

	/* 30000 lines (about 300 KB), whole, mode 0644, no temp file left */
	snprintf(p, sizeof(p), "%s/out.txt", dir);
	CHECK(file_replace_with(p, big_body, &lines) == 0);
	CHECK(file_read_regular(p, 1 << 20, &text, &len, &kind) == 0);
	CHECK(text && len > 200000 && strncmp(text, "line 0\n", 7) == 0 &&
	      strstr(text, "\nline 29999\n") && text[len - 1] == '\n');
	free(text);
	{
		struct stat st;

		CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0644);
	}
	CHECK(path_dir_open(&d, "%s", dir) == 0);
	n = 0;
	while ((name = path_dir_next(&d)))
		n += strcmp(name, "out.txt") != 0;
	path_dir_close(&d);
	CHECK(n == 0);
	unlink(p);
	snprintf(p, sizeof(p), "%s/none/out.txt", dir);
	CHECK(file_replace_with(p, big_body, &lines) == -ENOENT);
	rmdir(dir);
}
