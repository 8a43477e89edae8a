/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sources.c - unit tests: where settings come from: a file, its .d in name order, the
 * keys baked into an initramfs (under the path layer's root), the kernel command
 * line; later wins, and a bad entry or file is named with where it was.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path.h"
#include "settings.h"
#include "unit.h"

static struct hp_settings S;
static char dir[64];

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	return remove(p);
}

static void tmpdir_make(void)
{
	snprintf(dir, sizeof(dir), "/tmp/hugepar-unit-sources.XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
}

static void tmpdir_remove(void)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* dir/rel, in a buffer of its own (two at a time). */
static const char *at(const char *rel)
{
	static char p[2][256];
	static unsigned k;

	k = !k;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, rel);
	return p[k];
}

/* Write len bytes (or the string, len 0) to dir/rel; returns the whole path. */
static const char *put(const char *rel, const char *text, size_t len)
{
	const char *p = at(rel);
	FILE *f = fopen(p, "w");

	CHECK(f != NULL);
	if (f) {
		fwrite(text, 1, len ? len : strlen(text), f);
		fclose(f);
	}
	return p;
}

/* A path under dir as the tests name it: "/hugepar.conf:6". */
static const char *rel(const char *p)
{
	size_t n = strlen(dir);

	return strncmp(p, dir, n) == 0 ? p + n : p;
}

/* The problem i says this: its origin (under dir), key, value and message. */
static bool problem(unsigned i, const char *origin, const char *key, const char *value,
		    const char *message)
{
	const struct hp_problem *p = &S.problems[i];

	if (i >= S.nproblems)
		return false;
	return strcmp(rel(p->origin), origin) == 0 && strcmp(p->key, key) == 0 &&
	       strcmp(p->value, value) == 0 && strcmp(p->message, message) == 0;
}

/* The source i is this (under dir). */
static bool source(unsigned i, const char *name)
{
	return i < S.nsources && strcmp(rel(S.sources[i]), name) == 0;
}

/* One file: comments, blanks, spaces and CRs around keys and values, a line without
 * '=', a bad value, a NUL byte; each problem names the file and line. */
UNIT_TEST(file, "one settings file: comments, blanks, CRs, bad lines, each named")
{
	static const char text[] = "# settings\n"
				   "pages = 2M:512 1G:2@1   # two sizes\n"
				   "threads=2\n"
				   "\n"
				   "  timeout =  30\r\n"
				   "bogus line\n"
				   "threads = lots\n"
				   "mo\0de = exact\n"
				   "textfile = /a=b\n"
				   "= 5\n"
				   "on_short = fail";
	const char *f;
	char origin[128];

	tmpdir_make();
	settings_free(&S);
	f = put("hugepar.conf", text, sizeof(text) - 1);
	CHECK(sources_load_file(&S, f) == 0);
	CHECK(S.nentries == 2 && S.entries[0].size_kb == 2048 &&
	      S.entries[1].size_kb == 1048576);
	snprintf(origin, sizeof(origin), "%s:2", f);
	CHECK(S.nentries == 2 && strcmp(S.entries[1].origin, origin) == 0 &&
	      strcmp(S.entries[1].key, "pages") == 0 &&
	      strcmp(S.entries[1].text, "1G:2@1") == 0);
	CHECK(S.workers == 2 && S.timeout_ms == 30000 && S.mode == HP_MODE_GROW);
	CHECK(S.textfile && strcmp(S.textfile, "/a=b") == 0);
	CHECK(S.on_short == HP_SHORT_FAIL); /* the last line needs no newline */
	CHECK(S.nproblems == 4);
	CHECK(problem(0, "/hugepar.conf:6", "bogus line", "", "expected KEY = VALUE"));
	CHECK(problem(1, "/hugepar.conf:7", "threads", "lots",
		      "expected 'auto' or a count from 1 to 4096"));
	CHECK(problem(2, "/hugepar.conf:8", "", "", "a NUL byte in the line: not read"));
	CHECK(problem(3, "/hugepar.conf:10", "", "5", "unknown key"));
	CHECK(S.nsources == 1 && source(0, "/hugepar.conf"));

	/* a missing file is -ENOENT, and neither a problem nor a source */
	settings_free(&S);
	snprintf(origin, sizeof(origin), "%s/none.conf", dir);
	CHECK(sources_load_file(&S, origin) == -ENOENT);
	CHECK(S.nproblems == 0 && S.nsources == 0);

	/* an empty file is read, and is a source */
	CHECK(sources_load_file(&S, put("empty.conf", "", 0)) == 0);
	CHECK(S.nproblems == 0 && S.nsources == 1);
	settings_free(&S);
	tmpdir_remove();
}

/* The text of a file, read from a buffer, is read as the file: the same entries,
 * problems (a NUL byte's line too), lines, source and digest. */
UNIT_TEST(text, "a settings file's text from a buffer: read as the file of that name")
{
	static const char text[] = "pages = 2M:8\nbogus\nmo\0de = exact\nthreads = 3";
	struct hp_settings t;
	char buf[sizeof(text)], a[64], b[64];
	const char *f;

	tmpdir_make();
	settings_free(&S);
	f = put("hugepar.conf", text, sizeof(text) - 1);
	CHECK(sources_load_file(&S, f) == 0);
	memcpy(buf, text, sizeof(text));
	settings_init(&t);
	sources_load_text(&t, f, buf, sizeof(text) - 1);
	CHECK(t.nentries == 1 && t.workers == 3 && t.nproblems == 2 && t.nsources == 1);
	CHECK(t.nproblems == S.nproblems && t.nentries == S.nentries);
	for (unsigned i = 0; i < t.nproblems && i < S.nproblems; i++)
		CHECK(strcmp(t.problems[i].origin, S.problems[i].origin) == 0 &&
		      strcmp(t.problems[i].message, S.problems[i].message) == 0);
	settings_digest(&S, a, sizeof(a));
	settings_digest(&t, b, sizeof(b));
	CHECK(strcmp(a, b) == 0 && strcmp(t.sources[0], f) == 0);
	settings_free(&t);
	settings_free(&S);
	tmpdir_remove();
}

/* FILE, then FILE.d/ *.conf in byte order of their names, then the kernel command
 * line: later wins. Hidden files and other names are not read; what is not a regular
 * file is named and skipped. */
UNIT_TEST(order, "FILE, then FILE.d/*.conf in byte order, then the command line")
{
	char file[128];

	tmpdir_make();
	snprintf(file, sizeof(file), "%s", at("hugepar.conf"));
	put("hugepar.conf", "threads = 2\npages = 2M:100\n", 0);
	CHECK(mkdir(at("hugepar.conf.d"), 0755) == 0);
	put("hugepar.conf.d/10-a.conf", "threads = 3\npages = 2M:200@1\n", 0);
	put("hugepar.conf.d/9-b.conf", "threads = 4\n", 0); /* after 10-a */
	put("hugepar.conf.d/.hidden.conf", "threads = 99\n", 0);
	put("hugepar.conf.d/notes.txt", "threads = 98\n", 0);
	put("hugepar.conf.d/old.conf~", "threads = 97\n", 0);
	put("hugepar.conf.d/.conf", "threads = 96\n", 0);
	put("hugepar.conf.d/conf", "threads = 95\n", 0);
	CHECK(mkdir(at("hugepar.conf.d/5-dir.conf"), 0755) == 0);
	CHECK(mkfifo(at("hugepar.conf.d/6-fifo.conf"), 0644) == 0);
	CHECK(symlink("nothing", at("hugepar.conf.d/7-link.conf")) == 0);
	CHECK(truncate(put("hugepar.conf.d/8-big.conf", "threads = 94\n", 0),
		       (1 << 20) + 1) == 0);

	settings_free(&S);
	CHECK(sources_load_config(&S, file, true) == 0);
	CHECK(S.workers == 4 && S.nentries == 2);
	CHECK(S.nentries == 2 && S.entries[1].amount.value == 200 &&
	      idset_has(&S.entries[1].nodes, 1));
	CHECK(S.nsources == 3 && source(0, "/hugepar.conf") &&
	      source(1, "/hugepar.conf.d/10-a.conf") &&
	      source(2, "/hugepar.conf.d/9-b.conf"));
	CHECK(S.nproblems == 4);
	CHECK(problem(0, "/hugepar.conf.d/5-dir.conf", "", "",
		      "a directory, not a regular file: not read"));
	CHECK(problem(1, "/hugepar.conf.d/6-fifo.conf", "", "",
		      "a FIFO, not a regular file: not read"));
	CHECK(problem(2, "/hugepar.conf.d/7-link.conf", "", "",
		      "a symbolic link to nothing: not read"));
	CHECK(problem(3, "/hugepar.conf.d/8-big.conf", "", "",
		      "larger than 1048576 bytes: not read"));
	CHECK(S.config && strcmp(S.config, file) == 0);

	/* the kernel command line comes last, and wins */
	sources_load_cmdline(&S, "BOOT_IMAGE=/vmlinuz rd.hugepar.threads=5 quiet\n");
	CHECK(S.workers == 5 && S.nsources == 4 && source(3, "kernel command line"));

	/* without FILE its .d is read all the same, unless FILE was asked for */
	unlink(file);
	settings_free(&S);
	CHECK(sources_load_config(&S, file, false) == 0);
	CHECK(S.workers == 4 && S.nsources == 2);
	settings_free(&S);
	CHECK(sources_load_config(&S, file, true) == -ENOENT);
	CHECK(S.workers == 0 && S.nsources == 0 && S.nproblems == 0);

	/* a .d that is no directory is named */
	settings_free(&S);
	put("other.conf", "threads = 6\n", 0);
	put("other.conf.d", "threads = 7\n", 0);
	CHECK(sources_load_config(&S, at("other.conf"), false) == 0);
	CHECK(S.workers == 6 && S.nproblems == 1 &&
	      problem(0, "/other.conf.d", "", "",
		      "cannot read the directory: Not a directory"));
	settings_free(&S);
	tmpdir_remove();
}

/* The digest is of the settings files, names and bytes: not of the command line. */
UNIT_TEST(digest,
	  "the digest covers the settings files' names and bytes, not the cmdline")
{
	char none[64], a[64], b[64];

	tmpdir_make();
	settings_free(&S);
	settings_digest(&S, none, sizeof(none));
	CHECK(strcmp(none, "fnv1a64:cbf29ce484222325") == 0);
	put("hugepar.conf", "threads = 2\n", 0);
	CHECK(sources_load_config(&S, at("hugepar.conf"), false) == 0);
	settings_digest(&S, a, sizeof(a));
	CHECK(strncmp(a, "fnv1a64:", 8) == 0 && strlen(a) == 24 && strcmp(a, none));

	/* the same files: the same digest, whatever the command lines say */
	settings_free(&S);
	sources_load_baked(&S);
	CHECK(sources_load_config(&S, at("hugepar.conf"), false) == 0);
	sources_load_cmdline(&S, "rd.hugepar.threads=3");
	settings_digest(&S, b, sizeof(b));
	CHECK(strcmp(a, b) == 0 && S.workers == 3);

	/* a byte changed, a drop-in added, or the same bytes under another name */
	settings_free(&S);
	put("hugepar.conf", "threads = 3\n", 0);
	CHECK(sources_load_config(&S, at("hugepar.conf"), false) == 0);
	settings_digest(&S, b, sizeof(b));
	CHECK(strcmp(a, b) && strcmp(b, none));
	put("hugepar.conf", "threads = 2\n", 0);
	CHECK(mkdir(at("hugepar.conf.d"), 0755) == 0);
	put("hugepar.conf.d/a.conf", "", 0);
	settings_free(&S);
	CHECK(sources_load_config(&S, at("hugepar.conf"), false) == 0);
	settings_digest(&S, b, sizeof(b));
	CHECK(strcmp(a, b) && S.nsources == 2);
	put("other.conf", "threads = 2\n", 0);
	settings_free(&S);
	CHECK(sources_load_config(&S, at("other.conf"), false) == 0);
	settings_digest(&S, b, sizeof(b));
	CHECK(strcmp(a, b) && S.workers == 2);
	settings_free(&S);
	tmpdir_remove();
}

/* The kernel's words: any whitespace between them, quotes, later wins, words that
 * only look like ours, and "--". */
UNIT_TEST(cmdline,
	  "the kernel's words: whitespace, quotes, look-alikes, and -- ending ours")
{
	settings_free(&S);
	sources_load_cmdline(&S, "");
	sources_load_cmdline(&S, " \t\n");
	sources_load_cmdline(&S, "quiet rd.hugeparx=1 rd.hugepar_threads=2 "
				 "xrd.hugepar.threads=3 rd.hugepar-threads=4");
	CHECK(S.nsources == 0 && S.nproblems == 0 && S.workers == 0);

	sources_load_cmdline_from(&S,
				  "a\trd.hugepar.threads=2\nrd.hugepar.mode=exact\n"
				  "rd.hugepar.threads=3 rd.hugepar.mode=fast",
				  "/etc/cmdline");
	CHECK(S.workers == 3 && S.mode == HP_MODE_EXACT && S.nsources == 1 &&
	      source(0, "/etc/cmdline"));
	CHECK(problem(0, "/etc/cmdline", "rd.hugepar.mode", "fast",
		      "expected 'grow' or 'exact'"));

	/* quotes join words and go; an unclosed one runs to the end */
	settings_free(&S);
	sources_load_cmdline(&S, "rd.hugepar.pages=\"2M:1 1G:2\" "
				 "\"rd.hugepar.pages=2M:3 rd.hugepar.threads=3");
	CHECK(S.nentries == 3 && S.workers == 0 && S.nproblems == 1);
	CHECK(S.nentries == 3 && strcmp(S.entries[1].text, "1G:2") == 0 &&
	      S.entries[2].amount.value == 3);
	CHECK(problem(0, "kernel command line", "rd.hugepar.pages",
		      "rd.hugepar.threads=3",
		      "expected SIZE:AMOUNT[@NODES] or SIZE:AMOUNT@DEVICE"));

	/* the off switch is rd.hugepar=, not a key of its own */
	settings_free(&S);
	sources_load_cmdline(&S, "rd.hugepar.enabled=0 rd.hugepar.=1 rd.hugepar=maybe");
	CHECK(S.enabled && S.nproblems == 3);
	CHECK(problem(0, "kernel command line", "rd.hugepar.enabled", "0",
		      "unknown key: did you mean 'rd.hugepar' (the off switch: "
		      "rd.hugepar=0)?"));
	CHECK(problem(1, "kernel command line", "rd.hugepar.", "1", "unknown key"));
	CHECK(problem(2, "kernel command line", "rd.hugepar", "maybe",
		      "expected 0/1, no/yes, off/on, false/true"));
	sources_load_cmdline(&S, "rd.hugepar=off rd.hugepar=yes rd.hugepar=0");
	CHECK(!S.enabled && S.nsources == 1);

	/* what follows "--" is init's */
	settings_free(&S);
	sources_load_cmdline(&S, "rd.hugepar.threads=2 -- rd.hugepar.threads=3 single");
	CHECK(S.workers == 2 && S.nproblems == 0);
	settings_free(&S);
}

/* dracut's baked keys: /etc/cmdline, then /etc/cmdline.d/ *.conf in name order, under
 * the path layer's root; the running kernel's line comes after them. */
UNIT_TEST(baked, "dracut's baked /etc/cmdline and cmdline.d, before the running kernel's")
{
	static const char nul[] = "rd.hugepar.threads=9\0rd.hugepar.threads=8";

	tmpdir_make();
	path_set_root(dir);
	settings_free(&S);
	sources_load_baked(&S); /* nothing there: nothing to say */
	CHECK(S.nsources == 0 && S.nproblems == 0);

	CHECK(mkdir(at("etc"), 0755) == 0 && mkdir(at("etc/cmdline.d"), 0755) == 0);
	put("etc/cmdline", "root=/dev/sda rd.hugepar.threads=2 rd.hugepar.pages=2M:10\n",
	    0);
	put("etc/cmdline.d/20-b.conf", "rd.hugepar.threads=4\n", 0);
	put("etc/cmdline.d/10-a.conf",
	    "rd.hugepar.threads=3 rd.hugepar.mode=exact rd.hugepar.mode=fast\n", 0);
	put("etc/cmdline.d/30-c.conf", nul, sizeof(nul) - 1);
	put("etc/cmdline.d/x.conf.bak", "rd.hugepar.threads=7\n", 0);
	CHECK(mkfifo(at("etc/cmdline.d/40-fifo.conf"), 0644) == 0);
	sources_load_baked(&S);
	CHECK(S.workers == 4 && S.mode == HP_MODE_EXACT);
	CHECK(S.nentries == 1 && strcmp(S.entries[0].origin, "/etc/cmdline") == 0 &&
	      strcmp(S.entries[0].key, "rd.hugepar.pages") == 0);
	CHECK(S.nsources == 3 && source(0, "/etc/cmdline") &&
	      source(1, "/etc/cmdline.d/10-a.conf") &&
	      source(2, "/etc/cmdline.d/20-b.conf"));
	CHECK(S.nproblems == 3);
	CHECK(problem(0, "/etc/cmdline.d/10-a.conf", "rd.hugepar.mode", "fast",
		      "expected 'grow' or 'exact'"));
	CHECK(problem(1, "/etc/cmdline.d/30-c.conf", "", "",
		      "a NUL byte in the file: not read"));
	CHECK(problem(2, "/etc/cmdline.d/40-fifo.conf", "", "",
		      "a FIFO, not a regular file: not read"));
	sources_load_cmdline(&S, "rd.hugepar.threads=5");
	CHECK(S.workers == 5 && S.nsources == 4);
	path_set_root(NULL);
	settings_free(&S);
	tmpdir_remove();
}

/* A byte-order mark (U+FEFF, which some editors put first) says nothing: dropped at
 * the start of a file, of a line, of a credential's text and of a baked file. */
UNIT_TEST(bom,
	  "a UTF-8 byte-order mark is dropped: files, lines, a lone one, baked files")
{
	char text[] = "\xef\xbb\xbfpages = 2M:8\n\xef\xbb\xbf\nthreads = 3\n";

	tmpdir_make();
	settings_free(&S);
	sources_load_text(&S, "credential", text, sizeof(text) - 1);
	CHECK(S.nentries == 1 && S.workers == 3 && S.nproblems == 0 && S.nnotices == 0);
	settings_free(&S);
	CHECK(sources_load_file(&S, put("lone.conf", "\xef\xbb\xbf", 0)) == 0);
	CHECK(S.nproblems == 0 && S.nsources == 1);
	/* only a whole mark: a stray byte of one is still named */
	CHECK(sources_load_file(&S, put("half.conf", "\xef\xbbpages = 2M:8\n", 0)) == 0);
	CHECK(S.nproblems == 1 && S.nentries == 0);
	settings_free(&S);
	path_set_root(dir);
	CHECK(mkdir(at("etc"), 0755) == 0);
	put("etc/cmdline", "\xef\xbb\xbfrd.hugepar.threads=2\n", 0);
	sources_load_baked(&S);
	CHECK(S.workers == 2 && S.nproblems == 0);
	path_set_root(NULL);
	settings_free(&S);
	tmpdir_remove();
}

/* A credential one letter off in its key, prefix or name is not read, and what to
 * write is said; another's credential is not this one's business. */
UNIT_TEST(credential_misses,
	  "near misses of the key, prefix or name: a problem with systemd's form")
{
	static const char raw[] = "\x0b\x05\x00\x00\x03"
				  "io.systemd.credentials:hugepar.conf=pages = 2M:1\0"
				  "io.systemd.credential:Hugepar.config=pages = 2M:1\0"
				  "io.systemd.credential:pool=x\0"
				  "io.systemd.credential.binery:hugepar.conf=eA==\0";

	tmpdir_make();
	path_set_root(dir);
	CHECK(mkdir(at("sys"), 0755) == 0 && mkdir(at("sys/firmware"), 0755) == 0 &&
	      mkdir(at("sys/firmware/dmi"), 0755) == 0 &&
	      mkdir(at("sys/firmware/dmi/entries"), 0755) == 0 &&
	      mkdir(at("sys/firmware/dmi/entries/11-0"), 0755) == 0);
	put("sys/firmware/dmi/entries/11-0/raw", raw, sizeof(raw));
	settings_free(&S);
	sources_load_credentials(
	    &S, "systemd.set_credentials=hugepar.conf:pages=2M:1 "
		"systemd.set_credential=hugepar:x=1 "
		"systemd.set_credential=passwd.plaintext-password.root:x "
		"systemd.set_credential=hugepar.conf:threads=2");
	CHECK(S.workers == 2 && S.nentries == 0 && S.nproblems == 5);
	CHECK(problem(0, "credential hugepar.conf (smbios)",
		      "io.systemd.credentials:hugepar.conf", "",
		      "not read: write io.systemd.credential:hugepar.conf=..."));
	CHECK(problem(1, "credential hugepar.conf (smbios)",
		      "io.systemd.credential:Hugepar.config", "",
		      "not read: write io.systemd.credential:hugepar.conf=..."));
	CHECK(problem(2, "credential hugepar.conf (smbios)",
		      "io.systemd.credential.binery:hugepar.conf", "",
		      "not read: write io.systemd.credential.binary:hugepar.conf=..."));
	CHECK(problem(3, "credential hugepar.conf (kernel command line)",
		      "systemd.set_credentials=hugepar.conf", "",
		      "not read: write systemd.set_credential=hugepar.conf:..."));
	CHECK(problem(4, "credential hugepar.conf (kernel command line)",
		      "systemd.set_credential=hugepar", "",
		      "not read: write systemd.set_credential=hugepar.conf:..."));
	path_set_root(NULL);
	settings_free(&S);
	tmpdir_remove();
}

/* One line with "\n" in it, where a line break was meant: not read, and the form
 * that holds lines named for where it came from. */
UNIT_TEST(credential_one_line,
	  "a backslash and n in a one-line credential: not read, the binary form named")
{
	tmpdir_make();
	path_set_root(dir);
	settings_free(&S);
	sources_load_credentials(
	    &S, "systemd.set_credential=hugepar.conf:pages=2M:1\\nthreads=2");
	CHECK(S.nentries == 0 && S.workers == 0 && S.nproblems == 1);
	CHECK(problem(
	    0, "credential hugepar.conf (kernel command line)", "", "",
	    "one line with '\\n' in it, which is no line break: give the lines "
	    "in the binary form, systemd.set_credential_binary=hugepar.conf:BASE64 "
	    "(base64 -w0 of the file): not read"));
	settings_free(&S);
	/* a real line break, or a backslash that is no "\n": read */
	sources_load_credentials(&S, "systemd.set_credential=hugepar.conf:pages=2M:1\\t");
	CHECK(S.nproblems == 1 && S.nentries == 0); /* the value's own problem */
	CHECK(S.nproblems == 1 && strstr(S.problems[0].message, "one line") == NULL);
	path_set_root(NULL);
	settings_free(&S);
	tmpdir_remove();
}
