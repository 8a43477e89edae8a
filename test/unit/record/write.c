/* SPDX-License-Identifier: GPL-2.0-or-later */
/* write.c - unit tests: the record written, read back, replaced whole. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "file.h"
#include "json.h"
#include "macros.h"
#include "path.h"
#include "read.h"
#include "write.h"
#include "record_fixture.h"
#include "unit.h"
#include "version.h"

static void check_sizes(const struct json_val *a)
{
	const struct json_val *z;

	CHECK(a && a->type == JSON_ARR && a->n == 2);
	if (!a || a->n != 2)
		return;
	z = &a->kids[0];
	CHECK(keys_are(z, SIZE_KEYS));
	CHECK(str_is(z, "size", "2M") && num_is(z, "kb", 2048));
	CHECK(bool_is(z, "worked", true) && str_is(z, "error", ""));
	CHECK(str_is(z, "method", "parallel") && str_is(z, "method_note", ""));
	/* the plan's 3 on node 0 and 1 on node 2; 3 at once; 6 started in all */
	CHECK(num_is(z, "threads", 4) && num_is(z, "ms", 200));
	CHECK(num_is(z, "threads_peak", 3) && num_is(z, "threads_started", 6));
	CHECK(num_is(z, "start_ms", 0) && num_is(z, "pages_by_threads", 1619));
	CHECK(num_is(z, "overcommit_before", 0) && num_is(z, "overcommit_after", 0));
	CHECK(num_is(z, "surplus_before", 0) && num_is(z, "surplus_after", 0));
	CHECK(num_is(z, "chunks", 30) && num_is(z, "chunks_refused", 2));
	CHECK(num_is(z, "trimmed", 5) && num_is(z, "topped_up", 7));
	CHECK(str_is(z, "kernel_route", "")); /* 2M is not gigantic */
	z = &a->kids[1];
	CHECK(keys_are(z, SIZE_KEYS));
	CHECK(str_is(z, "size", "1G") && num_is(z, "kb", 1048576));
	CHECK(str_is(z, "method", "serial"));
	CHECK(str_is(z, "method_note", "gigantic pages: per-node writes"));
	CHECK(str_is(z, "error", "commit write failed; put back"));
	CHECK(num_is(z, "threads", 0) && num_is(z, "ms", 40));
	CHECK(num_is(z, "start_ms", 210));
	CHECK(num_is(z, "overcommit_before", 3) && num_is(z, "overcommit_after", 3));
	CHECK(num_is(z, "surplus_before", 1) && num_is(z, "surplus_after", 1));
	/* node 2 is short of its 2 pages; node 0 asked for none */
	CHECK(str_is(z, "kernel_route", "hugepagesz=1G hugepages=2:2"));
}

static void check_nodes(const struct json_val *a)
{
	const struct json_val *nd, *c, *r;

	CHECK(a && a->type == JSON_ARR && a->n == 2);
	if (!a || a->n != 2)
		return;
	nd = &a->kids[0];
	CHECK(keys_are(nd, NODE_KEYS));
	CHECK(num_is(nd, "node", 0) && num_is(nd, "cpus", 4));
	CHECK(num_is(nd, "mem_total", UINT64_C(17179869184)));
	CHECK(num_is(nd, "mem_free", UINT64_C(10737418240)));
	CHECK(num_is(nd, "mem_basis", UINT64_C(17179869184)));
	CHECK(str_is(nd, "basis_from", "memory blocks"));
	CHECK(num_is(nd, "keep_free", 536870912) && num_is(nd, "threads", 3));
	r = json_get(nd, "sizes");
	CHECK(r && r->type == JSON_ARR && r->n == 2);
	if (!r || r->n != 2)
		return;
	c = &r->kids[0];
	CHECK(keys_are(c, CELL_KEYS));
	CHECK(str_is(c, "size", "2M") && num_is(c, "before", 10));
	CHECK(num_is(c, "requested", 100) && num_is(c, "target", 100));
	CHECK(num_is(c, "achieved", 100) && num_is(c, "threads", 3));
	CHECK(num_is(c, "threads_peak", 3) && num_is(c, "threads_started", 5) &&
	      num_is(c, "threads_settled", 2));
	/* its own 4 of the boot's earlier run, and the 90 it added */
	CHECK(num_is(c, "own", 94));
	r = json_get(c, "threads_rates");
	CHECK(r && r->type == JSON_ARR && r->n == 2);
	if (r && r->n == 2)
		CHECK(r->kids[0].type == JSON_ARR && r->kids[0].n == 2 &&
		      r->kids[0].kids[0].num == 1 && r->kids[0].kids[1].num == 500 &&
		      r->kids[1].kids[0].num == 2 && r->kids[1].kids[1].num == 900);
	CHECK(str_is(c, "threads_why", "two was the knee"));
	CHECK(num_is(c, "granularity", 1) && is(c, "unrounded", JSON_NULL));
	CHECK(num_is(c, "ms", 150) && str_is(c, "status", "ok") &&
	      str_is(c, "reason", "") && str_is(c, "cause", ""));
	c = &json_get(nd, "sizes")->kids[1];
	CHECK(keys_are(c, CELL_KEYS));
	CHECK(str_is(c, "size", "1G") && is(c, "requested", JSON_NULL));
	CHECK(num_is(c, "target", 0) && str_is(c, "status", "unchanged"));
	CHECK(json_get(c, "threads_rates") && json_get(c, "threads_rates")->n == 0);

	nd = &a->kids[1];
	CHECK(keys_are(nd, NODE_KEYS));
	CHECK(num_is(nd, "node", 2) && num_is(nd, "threads", 1));
	CHECK(num_is(nd, "mem_total", UINT64_C(8589934592)));
	CHECK(num_is(nd, "mem_free", UINT64_C(4294967296)));
	CHECK(str_is(nd, "basis_from", "MemTotal"));
	r = json_get(nd, "sizes");
	CHECK(r && r->n == 2);
	if (!r || r->n != 2)
		return;
	c = &r->kids[0];
	CHECK(num_is(c, "requested", 2000) && num_is(c, "target", 1536));
	CHECK(num_is(c, "granularity", 512) && num_is(c, "unrounded", 1600));
	CHECK(num_is(c, "achieved", 1536) && num_is(c, "ms", 90));
	CHECK(str_is(c, "status", "capped"));
	CHECK(str_is(c, "reason", "1536 of 2000 requested: capped by keep_free"));
	CHECK(str_is(c, "cause", "keep_free"));
	c = &r->kids[1];
	CHECK(str_is(c, "size", "1G") && num_is(c, "requested", 2));
	CHECK(num_is(c, "achieved", 1) && str_is(c, "status", "partial"));
	CHECK(str_is(c, "reason", "1 of 2: deadline reached"));
	CHECK(str_is(c, "cause", "deadline"));
}

/* Every field of doc/record.md, its type and its value, and no other field. */
UNIT_TEST(fields, "every field of doc/record.md, its type and value, and no other")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", file[128], names[256];
	struct hp_record r;
	struct json_val v;
	struct stat st;
	char *text;

	fixture();
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	CHECK(record_write(dir, &F.s, &F.t, &F.p, &F.res, &F.rec, NULL) == 0);
	snprintf(file, sizeof(file), "%s/status.json", dir);
	CHECK(stat(file, &st) == 0 && S_ISREG(st.st_mode) &&
	      (st.st_mode & 07777) == 0644);
	/* a directory that was there keeps its mode (mkdtemp's); no temp file is left */
	CHECK(stat(dir, &st) == 0 && (st.st_mode & 07777) == 0700);
	listing(dir, names, sizeof(names));
	CHECK(strcmp(names, "status.json") == 0);
	text = slurp(file, NULL);
	CHECK(text && json_parse(text, &v) == 0);
	if (!text || json_parse(text, &v)) {
		free(text);
		rm_rf(dir);
		return;
	}
	CHECK(keys_are(&v, TOP_KEYS));
	CHECK(num_is(&v, "format", 4));
	CHECK(str_is(&v, "version", HUGEPAR_VERSION));
	CHECK(str_is(&v, "kernel", "6.1.0-test"));
	CHECK(str_is(&v, "status", "partial"));
	CHECK(str_is(&v, "error", ""));
	CHECK(num_is(&v, "started_unix", 1700000000));
	CHECK(num_is(&v, "started_boot_ms", 4321));
	CHECK(num_is(&v, "duration_ms", 250));
	CHECK(bool_is(&v, "timed_out", true) && bool_is(&v, "interrupted", false));
	CHECK(bool_is(&v, "hugetlb", true));
	CHECK(str_is(&v, "boot_id", "0b5e9d0c-6f1f-4a8e-9a36-1c7a2f0e8d11"));
	CHECK(bool_is(&v, "initramfs", true));
	CHECK(num_is(&v, "threads", 4));
	check_settings(json_get(&v, "settings"));
	check_recovered(json_get(&v, "recovered"));
	check_sizes(json_get(&v, "sizes"));
	check_nodes(json_get(&v, "nodes"));
	json_free(&v);

	/* read back as hugepar status reads it */
	CHECK(record_load(dir, &r) == 0);
	CHECK(r.status == HP_STATUS_PARTIAL && strcmp(r.text, text) == 0);
	record_unload(&r);
	free(text);
	settings_free(&F.s);
	rm_rf(dir);
}

/* A size with nothing to do shows the pools as they were; a run without a
 * kernel release of its own names the running one. */
UNIT_TEST(idle, "an idle size shows its pools as they were; no release: the running one")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX";
	const struct json_val *z;
	struct hp_record r;

	fixture();
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	F.res.sizes[1] = (struct hp_size_result){.overcommit_before = 99};
	F.res.status = HP_STATUS_OK;
	snprintf(F.res.error, sizeof(F.res.error), "a \"quoted\"\nerror");
	F.t.hugetlb = false;
	F.t.release[0] = '\0';
	F.rec.n = 0;
	CHECK(record_write(dir, &F.s, &F.t, &F.p, &F.res, &F.rec, NULL) == 0);
	CHECK(record_load(dir, &r) == 0);
	if (r.text) {
		z = &json_get(&r.v, "sizes")->kids[1];
		CHECK(bool_is(z, "worked", false) && str_is(z, "method", "none"));
		CHECK(num_is(z, "overcommit_before", 3) &&
		      num_is(z, "overcommit_after", 3));
		CHECK(num_is(z, "surplus_before", 1) && num_is(z, "surplus_after", 1));
		CHECK(str_is(&r.v, "status", "ok") && r.status == HP_STATUS_OK);
		CHECK(str_is(&r.v, "error", "a \"quoted\"\nerror"));
		CHECK(bool_is(&r.v, "hugetlb", false));
		CHECK(json_get_str(&r.v, "kernel")[0] != '\0');
		CHECK(json_get(&r.v, "recovered")->type == JSON_ARR &&
		      json_get(&r.v, "recovered")->n == 0);
	}
	record_unload(&r);
	settings_free(&F.s);
	rm_rf(dir);
}

/* A run that could not start: only the fields marked "always". */
UNIT_TEST(failure, "a run that could not start writes only the fields marked always")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX";
	struct hp_record r;

	fixture();
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	F.rec.n = 1;
	CHECK(record_failure(dir, &F.s, &F.rec, "cannot read the topology: x") == 0);
	CHECK(record_load(dir, &r) == 0);
	if (r.text) {
		CHECK(keys_are(&r.v, "format version kernel status error started_boot_ms "
				     "settings recovered setters sizes nodes"));
		CHECK(num_is(&r.v, "format", 4) && str_is(&r.v, "status", "failed"));
		CHECK(r.status == HP_STATUS_FAILED);
		CHECK(str_is(&r.v, "version", HUGEPAR_VERSION));
		CHECK(json_get_str(&r.v, "kernel")[0] != '\0');
		CHECK(str_is(&r.v, "error", "cannot read the topology: x"));
		CHECK(is(&r.v, "started_boot_ms", JSON_NUM));
		CHECK(keys_are(json_get(&r.v, "settings"), SETTINGS_KEYS));
		CHECK(json_get(&r.v, "recovered")->n == 1);
		CHECK(str_is(&json_get(&r.v, "recovered")->kids[0], "size", "2M"));
		CHECK(json_get(&r.v, "sizes")->type == JSON_ARR &&
		      json_get(&r.v, "sizes")->n == 0);
		CHECK(json_get(&r.v, "nodes")->type == JSON_ARR &&
		      json_get(&r.v, "nodes")->n == 0);
	}
	record_unload(&r);
	/* no recovery at all: an empty list still */
	CHECK(record_failure(dir, &F.s, NULL, "x") == 0);
	CHECK(record_load(dir, &r) == 0);
	CHECK(r.text && json_get(&r.v, "recovered") &&
	      json_get(&r.v, "recovered")->n == 0);
	record_unload(&r);
	settings_free(&F.s);
	rm_rf(dir);
}

/* A write that fails half way (the file size limit) leaves the old record whole and
 * no temp file. */
UNIT_TEST(half_written,
	  "a write that fails half way leaves the old record whole, no temp file")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", file[128], names[256];
	struct rlimit lim = {4096, 4096};
	char *before, *after;
	size_t blen, alen;

	fixture();
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(file, sizeof(file), "%s/status.json", dir);
	CHECK(record_failure(dir, &F.s, NULL, "the old one") == 0);
	before = slurp(file, &blen);
	CHECK(before && blen < 4096);
	signal(SIGXFSZ, SIG_IGN);
	CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	/* the full record is larger than the limit */
	CHECK(record_write(dir, &F.s, &F.t, &F.p, &F.res, &F.rec, NULL) == -EFBIG);
	after = slurp(file, &alen);
	CHECK(after && alen == blen && memcmp(before, after, blen) == 0);
	listing(dir, names, sizeof(names));
	CHECK(strcmp(names, "status.json") == 0);
	free(before);
	free(after);
	settings_free(&F.s);
	rm_rf(dir);
}

/* A reader that reads while records of two lengths replace each other sees one or
 * the other, whole, every time. */
UNIT_TEST(atomic, "a reader racing two records of different lengths sees one whole")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX";
	int status, go[2];
	pid_t pid;
	char c;

	fixture();
	if (!mkdtemp(dir) || pipe(go)) {
		CHECK(!"mkdtemp");
		return;
	}
	CHECK(record_failure(dir, &F.s, NULL, "short") == 0);
	pid = fork();
	if (pid == 0) {
		unsigned bad = 0, reads = 0;
		struct hp_record r;

		close(go[1]);
		fcntl(go[0], F_SETFL, O_NONBLOCK);
		/* read until the writer closes its end, and a last time after */
		for (int done = 0; done < 2; reads++) {
			if (read(go[0], &c, 1) == 0)
				done++;
			if (record_load(dir, &r) || (r.status != HP_STATUS_FAILED &&
						     r.status != HP_STATUS_PARTIAL))
				bad++;
			record_unload(&r);
		}
		_exit(bad ? 1 : reads < 2 ? 2 : 0);
	}
	close(go[0]);
	for (unsigned i = 0; i < 300; i++)
		if (i % 2 ? record_write(dir, &F.s, &F.t, &F.p, &F.res, &F.rec, NULL)
			  : record_failure(dir, &F.s, NULL, "short"))
			CHECK(!"write");
	close(go[1]);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
	settings_free(&F.s);
	rm_rf(dir);
}

/* What is at the record's place is replaced, never written through: a FIFO (no
 * reader: opening it would hang), a link (its target stays), an empty file, a file
 * with a NUL. A directory there fails. */
UNIT_TEST(hostile, "a FIFO, link, empty or NUL file at the record's place is replaced")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", file[128], other[128];
	char names[256], *text;
	struct stat st;
	FILE *f;

	fixture();
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(file, sizeof(file), "%s/status.json", dir);
	snprintf(other, sizeof(other), "%s/other", dir);

	CHECK(mkfifo(file, 0644) == 0);
	CHECK(record_failure(dir, &F.s, NULL, "over a fifo") == 0);
	CHECK(lstat(file, &st) == 0 && S_ISREG(st.st_mode));

	f = fopen(other, "w");
	fputs("theirs\n", f);
	fclose(f);
	unlink(file);
	CHECK(symlink(other, file) == 0);
	CHECK(record_failure(dir, &F.s, NULL, "over a link") == 0);
	CHECK(lstat(file, &st) == 0 && S_ISREG(st.st_mode));
	text = slurp(other, NULL);
	CHECK(text && strcmp(text, "theirs\n") == 0);
	free(text);
	unlink(other);

	f = fopen(file, "w");
	fclose(f);
	CHECK(record_failure(dir, &F.s, NULL, "over an empty file") == 0);
	text = slurp(file, NULL);
	CHECK(text && strstr(text, "over an empty file"));
	free(text);

	f = fopen(file, "w");
	fputs("{\"status\": \"ok\"}", f);
	fputc('\0', f);
	fclose(f);
	CHECK(record_failure(dir, &F.s, NULL, "over a NUL") == 0);
	text = slurp(file, NULL);
	CHECK(text && strstr(text, "over a NUL"));
	free(text);

	unlink(file);
	CHECK(mkdir(file, 0755) == 0);
	CHECK(record_failure(dir, &F.s, NULL, "over a directory") == -EISDIR);
	listing(dir, names, sizeof(names));
	CHECK(strcmp(names, "status.json") == 0); /* no temp file left */
	settings_free(&F.s);
	rm_rf(dir);
}

/* The record's directory: a link, a file, writable by others; made when missing. */
UNIT_TEST(hostile_dir,
	  "a record directory that is a link, a file or open to all is refused")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", sub[160];
	struct stat st;
	FILE *f;

	fixture();
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(sub, sizeof(sub), "%s/link", dir);
	CHECK(symlink(dir, sub) == 0);
	CHECK(record_failure(sub, &F.s, NULL, "x") == -ELOOP);
	unlink(sub);
	snprintf(sub, sizeof(sub), "%s/plain", dir);
	f = fopen(sub, "w");
	fclose(f);
	CHECK(record_failure(sub, &F.s, NULL, "x") == -ENOTDIR);
	unlink(sub);
	snprintf(sub, sizeof(sub), "%s/open", dir);
	CHECK(mkdir(sub, 0755) == 0 && chmod(sub, 0777) == 0);
	CHECK(record_failure(sub, &F.s, NULL, "x") == -EPERM);
	rmdir(sub);
	snprintf(sub, sizeof(sub), "%s/a/b", dir);
	CHECK(record_failure(sub, &F.s, NULL, "x") == 0);
	CHECK(stat(sub, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0755);
	settings_free(&F.s);
	rm_rf(dir);
}
