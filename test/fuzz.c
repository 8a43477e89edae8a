/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz.c - the fuzz targets: each parser of text from outside hugepar, fed an input
 * (doc/fuzzing.md). settings: a settings file's text, then the plan and its reports;
 * cmdline: a kernel command line, the same way; values: the grammar of setting
 * values; sysfs: the kernel's files (lists, meminfo, buddyinfo, a pid's stat, a
 * number, a PCI address, a release); record: status.json as status, wait and cmdline
 * read it, and the JSON writer's strings read back; restore: a restore note; creds:
 * an SMBIOS type 11 entry's bytes and a kernel command line's credentials, each one
 * found read as settings.
 *
 * Built with clang and libFuzzer, -DFUZZ_TARGET=NAME gives the target NAME's
 * LLVMFuzzerTestOneInput (make fuzz). Built with -DFUZZ_REPLAY, main() feeds files
 * to a target by name: `fuzz-replay TARGET FILE|DIR...`, the corpus replayed in make
 * check (test/fuzz.sh). A target aborts where an invariant fails: what it wrote must
 * read back the same.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bootparams.h"
#include "creds.h"
#include "file.h"
#include "idset.h"
#include "json.h"
#include "kinfo.h"
#include "parse.h"
#include "path.h"
#include "planner.h"
#include "read.h"
#include "print.h"
#include "prometheus.h"
#include "report.h"
#include "resolve.h"
#include "restore.h"
#include "settings.h"
#include "sys.h"
#include "values.h"
#include "compare.h"

/* Where the reports go: written in full, then dropped. */
static FILE *sink;

/* A machine for the plan and the live pools: two nodes (ids 0 and 2, so that an
 * index taken for an id shows) of four CPUs and 8 GiB, 2M and 1G pages, Linux 6.12. */
static struct hp_topology T;
static struct hp_node nodes[2];
static struct hp_idset cpus[2];

static void fuzz_init(void)
{
	if (sink)
		return;
	sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	/* devices named by entries: read from nothing, so not found (a problem) */
	path_set_root("/nonexistent/hugepar-fuzz");
	T.numa = T.hugetlb = true;
	T.nnodes = 2;
	T.nodes = nodes;
	T.nsizes = 2;
	T.sizes[0].kb = 2048;
	T.sizes[1].kb = 1048576;
	T.default_kb = 2048;
	T.page_kb = 4;
	strcpy(T.release, "6.12.0");
	for (unsigned i = 0; i < 2; i++) {
		nodes[i].id = 2 * i;
		nodes[i].cpus = &cpus[i];
		for (unsigned c = 0; c < 4; c++)
			idset_add(&cpus[i], 4 * i + c);
		nodes[i].ncpus = 4;
		nodes[i].mem_total = nodes[i].mem_basis = UINT64_C(8) << 30;
		nodes[i].mem_free = UINT64_C(7) << 30;
		nodes[i].has_memory = true;
		nodes[i].pool[0].nr = 10 * i;
	}
	T.ncpus_online = 8;
}

/* The input and a NUL (malloc'd): a C string that a NUL of its own ends early. */
static char *text_of(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* What f wrote (a memstream) must read back as JSON. */
static void json_must_parse(FILE *f, char **buf)
{
	struct json_val v;

	if (fclose(f) || json_parse(*buf, &v))
		abort();
	json_free(&v);
	free(*buf);
}

/* Settings as run.c takes them: checked against the machine, devices resolved, the
 * plan made and reported as plan does; its JSON must read back. */
static void plan_report(struct hp_settings *s)
{
	struct hp_plan p;
	char digest[64], *buf = NULL;
	size_t len = 0;
	FILE *mem;

	plan_check_settings(s, &T);
	resolve_devices(s, &T);
	settings_note_replaced(s, &T);
	settings_digest(s, digest, sizeof(digest));
	for (unsigned i = 0; i < s->nproblems; i++)
		report_problem_line(sink, &s->problems[i]);
	if (plan_make(s, &T, &p))
		return;
	report_plan_text(sink, s, &T, &p, NULL);
	mem = open_memstream(&buf, &len);
	if (!mem)
		abort();
	report_plan_json(mem, s, &T, &p, NULL, NULL);
	json_must_parse(mem, &buf);
	plan_free(&p);
}

static void fuzz_settings(const uint8_t *data, size_t size)
{
	struct hp_settings s;
	char *text = text_of(data, size); /* all of it: a line with a NUL is named */

	settings_init(&s);
	sources_load_text(&s, "/etc/hugepar.conf", text, size);
	plan_report(&s);
	settings_free(&s);
	free(text);
}

static void fuzz_cmdline(const uint8_t *data, size_t size)
{
	struct hp_settings s;
	char *text = text_of(data, size);

	settings_init(&s);
	sources_load_cmdline(&s, text);
	kinfo_capture_cmdline(text);
	plan_report(&s);
	settings_free(&s);
	free(text);
}

/* An amount that reads must be written as it reads back: exactly, for a count and a
 * percentage (a size is written with one decimal, "1.5G"). */
static void amount_again(const struct hp_amount *a)
{
	struct hp_amount b;
	char buf[48];

	values_amount_format(a, buf, sizeof(buf));
	if (a->kind != HP_AMOUNT_BYTES &&
	    (values_amount(buf, &b) || b.kind != a->kind || b.value != a->value))
		abort();
}

static void fuzz_values(const uint8_t *data, size_t size)
{
	char *text = text_of(data, size), *copy, why[256];
	struct hp_amount a;
	struct hp_entry e;
	struct hp_mount m;
	uint64_t u;
	bool b;

	if (values_amount(text, &a) == 0)
		amount_again(&a);
	memset(&e, 0, sizeof(e));
	copy = strdup(text);
	if (!copy)
		abort();
	values_entry(copy, &e, why, sizeof(why));
	strcpy(copy, text);
	memset(&m, 0, sizeof(m));
	values_mount(copy, &m, why, sizeof(why));
	settings_drop_mount(&m);
	free(copy);
	parse_bytes(text, &u);
	parse_percent(text, &u);
	parse_seconds(text, &u);
	parse_octal(text, &u);
	parse_bool(text, &b);
	free(text);
}

/* A list that reads must be written as it reads back. */
static void idlist_again(const struct hp_idset *set)
{
	static char buf[HP_MAX_CPUS * 6];
	static struct hp_idset again;

	if (idset_format(set, buf, sizeof(buf)) ||
	    parse_idlist(buf, HP_MAX_CPUS, &again) || memcmp(set, &again, sizeof(again)))
		abort();
}

/* A PCI address that reads is written as the kernel writes it, which reads the same. */
static void pci_again(const char *text)
{
	char canon[24], again[24];

	if (parse_pci_addr(text, canon, sizeof(canon)) == 0 &&
	    (parse_pci_addr(canon, again, sizeof(again)) || strcmp(canon, again)))
		abort();
}

static void fuzz_sysfs(const uint8_t *data, size_t size)
{
	static const char *const keys[] = {"MemTotal", "MemFree", "Hugepagesize",
					   "HugePages_Total"};
	static struct hp_idset set;
	char *text = text_of(data, size);
	uint64_t u;

	if (parse_idlist(text, HP_MAX_CPUS, &set) == 0)
		idlist_again(&set);
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		kinfo_meminfo_kb(text, keys[i], &u);
	kinfo_buddyinfo_orders(text);
	sys_proc_start(text, &u);
	parse_hex(text, &u);
	pci_again(text);
	kinfo_release_at_least(text, 6, 19);
	parse_u64(parse_trim(text), &u);
	free(text);
}

/* A string the writer puts in the record reads back as the same bytes. */
static void string_again(const char *s)
{
	struct json_out j;
	struct json_val v;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (!mem)
		abort();
	json_begin(&j, mem);
	json_str(&j, NULL, s);
	if (fclose(mem) || json_parse(buf, &v) || v.type != JSON_STR || strcmp(v.str, s))
		abort();
	json_free(&v);
	free(buf);
}

static void fuzz_record(const uint8_t *data, size_t size)
{
	struct hp_record r;
	struct pool_check pc;
	char *text = text_of(data, size);

	string_again(text);
	/* the text is the record's from here */
	if (record_parse(&r, text, size))
		return;
	print_record(sink, &r, HP_FORMAT_TEXT, NULL);
	print_record(sink, &r, HP_FORMAT_JSON, NULL);
	prometheus_record(sink, &r, &T);
	bootparams_from_record(sink, &r);
	compare_pools(&r, &T, sink, &pc);
	record_unload(&r);
}

static void fuzz_restore(const uint8_t *data, size_t size)
{
	struct restore_fix f;
	char *text = text_of(data, size), again[128], line[512];
	int rc;

	memset(&f, 0, sizeof(f));
	f.kb = 2048;
	rc = restore_note_parse(text, &f);
	/* a note reads only as restore_note_write() writes it */
	if (rc == 0) {
		snprintf(again, sizeof(again), "before %llu\nraised %llu\npid %ld\n",
			 (unsigned long long)f.before, (unsigned long long)f.raised,
			 f.pid);
		if (strcmp(again, text))
			abort();
	}
	f.rc = rc;
	f.malformed = rc != 0;
	restore_describe(&f, line, sizeof(line));
	f.found = f.raised;
	f.changed_since = true;
	restore_describe(&f, line, sizeof(line));
	free(text);
}

/* What a credential reader found: its bytes and their NUL, or why not; each one
 * found then read as a settings file's text, and planned. */
static void creds_check(struct cred_list *l)
{
	for (unsigned i = 0; i < l->n; i++) {
		struct hp_settings s;

		if (!l->v[i].data) {
			if (!l->v[i].why[0])
				abort();
			continue;
		}
		if (l->v[i].len > HP_CRED_MAX || l->v[i].data[l->v[i].len])
			abort();
		settings_init(&s);
		sources_load_text(&s, "credential hugepar.conf (smbios)", l->v[i].data,
				  l->v[i].len);
		plan_report(&s);
		settings_free(&s);
	}
	creds_free(l);
}

static void fuzz_creds(const uint8_t *data, size_t size)
{
	struct cred_list l = {0};
	char *text = text_of(data, size);

	if (creds_smbios_entry((const char *)data, size, HP_CRED_NAME, &l))
		abort();
	creds_check(&l);
	if (creds_cmdline(text, HP_CRED_NAME, &l))
		abort();
	creds_check(&l);
	free(text);
}

struct fuzz_target {
	const char *name;
	void (*run)(const uint8_t *data, size_t size);
};

static const struct fuzz_target targets[] = {
    {"settings", fuzz_settings}, {"cmdline", fuzz_cmdline}, {"values", fuzz_values},
    {"sysfs", fuzz_sysfs},	 {"record", fuzz_record},   {"restore", fuzz_restore},
    {"creds", fuzz_creds},
};

static const struct fuzz_target *target_named(const char *name)
{
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (strcmp(targets[i].name, name) == 0)
			return &targets[i];
	return NULL;
}

#ifdef FUZZ_TARGET
#define FUZZ_NAME_(t) #t
#define FUZZ_NAME(t)  FUZZ_NAME_(t)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct fuzz_target *t;

	if (!t) {
		t = target_named(FUZZ_NAME(FUZZ_TARGET));
		if (!t)
			abort();
		fuzz_init();
	}
	t->run(data, size);
	return 0;
}
#endif

#ifdef FUZZ_REPLAY
/* One file of a corpus to the target: 0, or 1 when it cannot be read. */
static int replay_file(const struct fuzz_target *t, const char *file)
{
	const char *kind;
	char *text;
	size_t len;
	int rc = file_read_regular(file, HP_MAX_FILE, &text, &len, &kind);

	if (rc) {
		fprintf(stderr, "fuzz-replay: %s: %s\n", file, strerror(-rc));
		return 1;
	}
	t->run((const uint8_t *)text, len);
	free(text);
	return 0;
}

static int is_file(const struct dirent *de)
{
	return de->d_name[0] != '.';
}

/* Each file of a folder, in name order; the count run in *n. */
static int replay_dir(const struct fuzz_target *t, const char *dir, unsigned *n)
{
	struct dirent **list;
	int m = scandir(dir, &list, is_file, alphasort), bad = 0;

	if (m < 0) { /* a file */
		if (replay_file(t, dir))
			return 1;
		++*n;
		return 0;
	}
	for (int i = 0; i < m; i++) {
		char p[4096];

		snprintf(p, sizeof(p), "%s/%s", dir, list[i]->d_name);
		if (replay_file(t, p))
			bad = 1;
		else
			++*n;
		free(list[i]);
	}
	free(list);
	return bad;
}

int main(int argc, char **argv)
{
	const struct fuzz_target *t = argc > 2 ? target_named(argv[1]) : NULL;
	unsigned n = 0;
	int bad = 0;

	if (!t) {
		fprintf(stderr,
			"usage: fuzz-replay TARGET FILE|DIR... (TARGET: settings, "
			"cmdline, values, sysfs, record, restore)\n");
		return 2;
	}
	fuzz_init();
	for (int i = 2; i < argc; i++)
		bad |= replay_dir(t, argv[i], &n);
	printf("%s: %u inputs run\n", t->name, n);
	fclose(sink);
	return bad;
}
#endif
