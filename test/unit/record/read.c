/* SPDX-License-Identifier: GPL-2.0-or-later */
/* read.c - unit tests: a record read back (hugepar status), hostile files, its text. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"
#include "read.h"
#include "write.h"
#include "print.h"
#include "unit.h"

/* A small record, written by hand: node 0 and node 2, 2M and 1G. */
static const char RECORD[] =
    "{\"format\": 3, \"version\": \"0.4\", \"kernel\": \"6.1.0-t\", \"status\": "
    "\"partial\", \"error\": \"\", \"started_unix\": 1700000000, \"started_boot_ms\": "
    "4321, \"duration_ms\": 1250, \"threads\": 4,\n"
    "\"settings\": {\"keep_free\": \"512M\", \"timeout_ms\": 60000, \"problems\": "
    "[{\"origin\": \"kernel command line\", \"key\": \"rd.hugepar.timeout\", "
    "\"value\": \"0\", \"message\": \"expected seconds\"}, {\"origin\": "
    "\"/etc/hugepar.conf\", \"key\": \"\", \"value\": \"\", \"message\": \"a "
    "FIFO\"}], \"notices\": [{\"origin\": \"/etc/hugepar.conf:2\", \"key\": "
    "\"reserve\", \"value\": \"1G\", \"message\": \"taken as keep_free\"}]},\n"
    "\"recovered\": [{\"note\": \"2M: put back\", \"ok\": true, \"malformed\": "
    "false}],\n"
    "\"sizes\": [{\"size\": \"2M\", \"kb\": 2048, \"method\": \"parallel\", "
    "\"method_note\": \"\", \"error\": \"\", \"threads\": 4, \"ms\": 1200, "
    "\"overcommit_before\": 0, \"overcommit_after\": 0, \"surplus_before\": 0, "
    "\"surplus_after\": 0, \"kernel_route\": \"\"},\n"
    "{\"size\": \"1G\", \"kb\": 1048576, \"method\": \"serial\", \"method_note\": "
    "\"gigantic\", \"error\": \"commit failed\", \"threads\": 0, \"ms\": 40, "
    "\"overcommit_before\": 3, \"overcommit_after\": 3, \"surplus_before\": 1, "
    "\"surplus_after\": 1, \"kernel_route\": \"hugepagesz=1G hugepages=2:2\"}],\n"
    "\"nodes\": [{\"node\": 0, \"sizes\": [{\"size\": \"2M\", \"before\": 10, "
    "\"requested\": 100, \"target\": 100, \"achieved\": 100, \"ms\": 150, \"status\": "
    "\"ok\", \"reason\": \"\", \"cause\": \"\"}, {\"size\": \"1G\", \"before\": 0, "
    "\"requested\": null, \"target\": 0, \"achieved\": 0, \"ms\": 0, \"status\": "
    "\"unchanged\", \"reason\": \"\", \"cause\": \"\"}]},\n"
    "{\"node\": 2, \"sizes\": [{\"size\": \"2M\", \"before\": 0, \"requested\": 2000, "
    "\"target\": 1536, \"achieved\": 1536, \"ms\": 90, \"status\": \"capped\", "
    "\"reason\": \"1536 of 2000 requested: capped by keep_free\", \"cause\": "
    "\"keep_free\"}, {\"size\": \"1G\", \"before\": 0, \"requested\": 2, "
    "\"target\": 2, \"achieved\": 1, \"ms\": 40, \"status\": \"partial\", \"reason\": "
    "\"1 of 2: deadline reached\", \"cause\": \"deadline\"}]}]}\n";

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(p);
}

static void rm_rf(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void put(const char *file, const char *text, size_t len)
{
	FILE *f = fopen(file, "w");

	if (!f || fwrite(text, 1, len, f) != len)
		CHECK(!"write");
	if (f)
		fclose(f);
}

static void put_str(const char *file, const char *text)
{
	put(file, text, strlen(text));
}

/* Standard output or error (fd) into a temp file, and back as a string to free. */
static int saved = -1;
static FILE *cap;

static void capture(int fd)
{
	fflush(NULL);
	cap = tmpfile();
	saved = dup(fd);
	dup2(fileno(cap), fd);
}

static char *captured(int fd)
{
	char *text;
	long n;

	fflush(NULL);
	dup2(saved, fd);
	close(saved);
	n = ftell(cap);
	text = calloc(1, n + 1);
	rewind(cap);
	if (text && fread(text, 1, n, cap) != (size_t)n)
		text[0] = '\0';
	fclose(cap);
	return text;
}

/* record_load, with what it said on stderr. */
static int load(const char *dir, struct hp_record *r, char **said)
{
	int rc;

	capture(2);
	rc = record_load(dir, r);
	*said = captured(2);
	return rc;
}

UNIT_TEST(load, "a record loaded: none, every status hugepar writes, one it does not")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", file[128];
	struct hp_record r;
	char *said;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(file, sizeof(file), "%s/status.json", dir);
	CHECK(load(dir, &r, &said) == -ENOENT && r.text == NULL);
	CHECK(strstr(said, "no record in ") && strstr(said, "No such file or directory"));
	free(said);
	record_unload(&r); /* harmless after a failure */

	put(file, RECORD, strlen(RECORD));
	CHECK(load(dir, &r, &said) == 0 && said[0] == '\0');
	CHECK(r.status == HP_STATUS_PARTIAL && strcmp(r.text, RECORD) == 0);
	CHECK(json_get_num(&r.v, "duration_ms") == 1250);
	free(said);
	record_unload(&r);
	CHECK(r.text == NULL);

	/* every status hugepar writes, and one it does not */
	put_str(file, "{\"status\": \"capped\"}");
	CHECK(load(dir, &r, &said) == 0 && r.status == HP_STATUS_CAPPED);
	free(said);
	record_unload(&r);
	put_str(file, "{\"status\": \"disabled\"}");
	CHECK(load(dir, &r, &said) == 0 && r.status == HP_STATUS_DISABLED);
	free(said);
	record_unload(&r);
	put_str(file, "{\"status\": \"unchanged\"}");
	CHECK(load(dir, &r, &said) == -EINVAL && r.text == NULL);
	CHECK(strstr(said, "is not a valid record"));
	free(said);
	put_str(file, "[\"ok\"]");
	CHECK(load(dir, &r, &said) == -EINVAL);
	free(said);
	rm_rf(dir);
}

/* A record's text from a buffer: taken and parsed as record_load() does; one that
 * is not a record (a NUL in it, a status hugepar does not write) is freed. */
UNIT_TEST(parse, "a record's text from a buffer: parsed, or refused and freed")
{
	static const char nul_in[] = "{\"status\": \"ok\"}\0{\"x\": 1}";
	struct hp_record r;
	char *t = strdup(RECORD);

	CHECK(t && record_parse(&r, t, strlen(RECORD)) == 0);
	CHECK(r.text == t && r.status == HP_STATUS_PARTIAL &&
	      json_get_num(&r.v, "threads") == 4);
	record_unload(&r);
	t = malloc(sizeof(nul_in));
	CHECK(t != NULL);
	if (!t)
		return;
	memcpy(t, nul_in, sizeof(nul_in));
	CHECK(record_parse(&r, t, sizeof(nul_in) - 1) == -EINVAL && r.text == NULL);
	t = strdup("{\"status\": \"unchanged\"}");
	CHECK(t && record_parse(&r, t, strlen(t)) == -EINVAL && r.text == NULL);
}

/* What may be at the record's place instead: nothing hangs, nothing half-read is
 * taken for a record. */
UNIT_TEST(hostile, "a FIFO, trailing bytes after a NUL, a huge file: no hang, no record")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", file[128];
	static const char nul_after[] = "{\"status\": \"ok\"}\0{\"x\": 1}";
	static const char nul_in[] = "{\"status\": \"o\0k\"}";
	struct hp_record r;
	char *said;
	int fd;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(file, sizeof(file), "%s/status.json", dir);

	CHECK(mkfifo(file, 0644) == 0); /* no writer: a blocking open would hang */
	CHECK(load(dir, &r, &said) == -EINVAL && strstr(said, "a FIFO"));
	free(said);
	unlink(file);

	CHECK(symlink("/nonexistent/status.json", file) == 0);
	CHECK(load(dir, &r, &said) == -ENOENT &&
	      strstr(said, "a symbolic link to nothing"));
	free(said);
	unlink(file);

	CHECK(mkdir(file, 0755) == 0);
	CHECK(load(dir, &r, &said) == -EINVAL && strstr(said, "a directory"));
	free(said);
	rmdir(file);

	put_str(file, "");
	CHECK(load(dir, &r, &said) == -EINVAL && strstr(said, "is not a valid record"));
	free(said);

	put(file, nul_in, sizeof(nul_in) - 1);
	CHECK(load(dir, &r, &said) == -EINVAL);
	free(said);

	/* a whole record and then a NUL and more: not JSON, not a record */
	put(file, nul_after, sizeof(nul_after) - 1);
	CHECK(load(dir, &r, &said) == -EINVAL && r.text == NULL);
	CHECK(strstr(said, "is not a valid record"));
	free(said);
	record_unload(&r);

	put(file, RECORD, strlen(RECORD) / 2);
	CHECK(load(dir, &r, &said) == -EINVAL);
	free(said);

	/* larger than any record: not read at all (sparse, so nothing is written) */
	fd = open(file, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && ftruncate(fd, (off_t)(65u << 20)) == 0);
	close(fd);
	CHECK(load(dir, &r, &said) == -EINVAL && strstr(said, "File too large"));
	free(said);
	rm_rf(dir);
}

/* The heap in use, where the C library says (glibc's mallinfo2(); under ASan it says
 * nothing, and musl has none: 0, and unit-san's leak check stands in). */
static size_t heap_in_use(void)
{
#ifdef __GLIBC__
	return mallinfo2().uordblks;
#else
	return 0;
#endif
}

/* A record refused after it parsed (a status hugepar does not write) keeps none of
 * what was parsed: the heap in use does not grow with each refusal. */
UNIT_TEST(refused, "a record refused after it parsed keeps nothing: the heap stays flat")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", file[128];
	size_t before, after;
	struct hp_record r;
	unsigned refused = 0;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(file, sizeof(file), "%s/status.json", dir);
	put_str(file, "{\"status\": \"maybe\", \"sizes\": [{\"a\": \"b\"}, 2, 3]}");
	capture(2);
	CHECK(record_load(dir, &r) == -EINVAL);
	before = heap_in_use();
	for (unsigned i = 0; i < 200; i++)
		refused += record_load(dir, &r) == -EINVAL && r.text == NULL;
	after = heap_in_use();
	free(captured(2));
	CHECK(refused == 200);
	/* the allocator's own caches take a little once; a parsed tree kept would be
	 * hundreds of bytes a refusal */
	CHECK(after < before + 200 * 32);
	rm_rf(dir);
}

/* hugepar status: the run's line, notes, problems, the sizes and the cells that
 * say something, a route for what fell short; a record of format 3, which did not
 * count the threads at work at once ("-"). */
UNIT_TEST(text, "hugepar status's text: the run, notes, problems, cells, what to do")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", file[128], *out, *said;
	struct hp_record r;
	const char *want =
	    "hugepar 0.4 on Linux 6.1.0-t: partial in 1250 ms, started 4.321 s after "
	    "boot\n"
	    "left by an earlier run: 2M: put back\n"
	    "\n"
	    "Problems in the settings:\n"
	    "  kernel command line: rd.hugepar.timeout=0: expected seconds\n"
	    "  /etc/hugepar.conf: a FIFO\n"
	    "\n"
	    "Notices:\n"
	    "  /etc/hugepar.conf:2: reserve=1G: taken as keep_free\n"
	    "\n"
	    "SIZE  METHOD     THREADS      TIME  NOTE\n"
	    "2M    parallel         -   1200 ms\n"
	    "1G    serial           -     40 ms  gigantic\n"
	    "1G: commit failed\n"
	    "\n"
	    "NODE  SIZE    BEFORE REQUESTED   TARGET ACHIEVED   MEMORY      TIME  STATUS    "
	    "REASON\n"
	    "0     2M          10       100      100      100     200M    150 ms  ok\n"
	    "2     2M           0      2000     1536     1536       3G     90 ms  capped    "
	    "1536 of 2000 requested: capped by keep_free\n"
	    "2     1G           0         2        2        1       1G     40 ms  partial   "
	    "1 of 2: deadline reached\n"
	    "\n"
	    "What to do:\n"
	    "  node 2 2M: capped by keep_free (512M): lower keep_free, or ask for fewer "
	    "pages; 'hugepar plan' shows what fits\n"
	    "  node 2 1G: the deadline (timeout, 60 s) came first: raise timeout in "
	    "hugepar.conf or with rd.hugepar.timeout=\n"
	    "  1G pages short: at the next boot the kernel's own allocation would reserve "
	    "them before memory fragments: add 'hugepagesz=1G hugepages=2:2' to the "
	    "kernel command line\n"
	    "  correct the settings under Problems (each names its file and line), check "
	    "them with 'hugepar plan', then build the initramfs again: update-initramfs "
	    "-u -k all (initramfs-tools), dracut --regenerate-all --force (dracut)\n"
	    "  correct the rd.hugepar keys under Problems where the kernel command line is "
	    "set (the boot loader), and check a line with 'hugepar plan --cmdline LINE'\n"
	    "  read the Notices: each says what was taken, dropped or not read, and what "
	    "to write\n";

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(file, sizeof(file), "%s/status.json", dir);
	put(file, RECORD, strlen(RECORD));
	CHECK(load(dir, &r, &said) == 0);
	free(said);
	capture(1);
	print_record(stdout, &r, HP_FORMAT_TEXT, NULL);
	out = captured(1);
	if (strcmp(out, want))
		fprintf(stderr, "got:\n%s", out);
	CHECK(strcmp(out, want) == 0);
	free(out);
	/* JSON: the record's own bytes */
	capture(1);
	print_record(stdout, &r, HP_FORMAT_JSON, NULL);
	out = captured(1);
	CHECK(strcmp(out, RECORD) == 0);
	free(out);
	record_unload(&r);
	rm_rf(dir);
}

/* A record of a run that did not reach the pools, in format 2. */
UNIT_TEST(text_error, "an error and no tables, in a record of format 2")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", file[128], *out, *said;
	struct hp_record r;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(file, sizeof(file), "%s/status.json", dir);
	put_str(file,
		"{\"status\": \"failed\", \"version\": \"0.2\", \"kernel\": \"k\", "
		"\"error\": \"no topology\", \"started_boot_ms\": 12, \"workers\": 3, "
		"\"sizes\": [], \"nodes\": []}");
	CHECK(load(dir, &r, &said) == 0);
	free(said);
	capture(1);
	print_record(stdout, &r, HP_FORMAT_TEXT, NULL);
	out = captured(1);
	CHECK(strcmp(out,
		     "hugepar 0.2 on Linux k: failed in 0 ms, started 0.012 s after "
		     "boot\nerror: no topology\n\nWhat to do:\n  the run did "
		     "not reach the pools (the error above says why): 'hugepar plan' "
		     "shows how hugepar reads this machine, and the boot's journal more, "
		     "journalctl -b -t hugepar\n") == 0);
	free(out);
	record_unload(&r);
	rm_rf(dir);
}

/* The settings files a run read against those there now: said when they differ. */
UNIT_TEST(settings, "the settings files a run read against those there now")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", conf[128], *said;
	struct hp_settings s;
	struct hp_topology t = {0};
	struct hp_plan p = {0};
	struct hp_result res = {0};
	struct hp_record r;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(conf, sizeof(conf), "%s/hugepar.conf", dir);
	put_str(conf, "pages = 2M:10\n");
	settings_init(&s);
	CHECK(sources_load_config(&s, conf, true) == 0);
	CHECK(record_write(dir, &s, &t, &p, &res, NULL, NULL) == 0);
	settings_free(&s);
	CHECK(load(dir, &r, &said) == 0);
	free(said);

	/* the same files: nothing to say, with the record's own config or this one */
	capture(2);
	record_check_settings(&r, NULL);
	record_check_settings(&r, conf);
	said = captured(2);
	CHECK(said[0] == '\0');
	free(said);

	put_str(conf, "pages = 2M:20\n");
	capture(2);
	record_check_settings(&r, NULL);
	said = captured(2);
	CHECK(strstr(said, "hugepar: warning: ") && strstr(said, conf) &&
	      strstr(said, "has changed since this run read it"));
	free(said);
	record_unload(&r);

	/* a record without a digest: nothing to compare */
	snprintf(conf, sizeof(conf), "%s/status.json", dir);
	put_str(conf, "{\"status\": \"ok\", \"settings\": {\"config\": \"/x\"}}");
	CHECK(load(dir, &r, &said) == 0);
	free(said);
	capture(2);
	record_check_settings(&r, NULL);
	said = captured(2);
	CHECK(said[0] == '\0');
	free(said);
	record_unload(&r);
	rm_rf(dir);
}
