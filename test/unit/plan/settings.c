/* SPDX-License-Identifier: GPL-2.0-or-later */
/* settings.c - unit tests: merging the settings sources, and their limits. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "parse.h"
#include "settings.h"
#include "topology.h"
#include "unit.h"

static struct hp_settings S;

UNIT_TEST(settings, "pages entries, commas, bad entries, the off switch, odd values")
{
	struct hp_settings *s = &S;

	settings_free(s);
	keys_set(s, "pages", "2M:512 1G:4@0,2-3;2M:50%@1", "f:1", false);
	CHECK(s->nentries == 3 && s->nproblems == 0);
	CHECK(s->entries[0].size_kb == 2048 &&
	      s->entries[0].amount.kind == HP_AMOUNT_COUNT &&
	      s->entries[0].amount.value == 512 && s->entries[0].all_nodes);
	CHECK(s->entries[1].size_kb == 1048576 && !s->entries[1].all_nodes &&
	      idset_count(&s->entries[1].nodes) == 3 &&
	      idset_has(&s->entries[1].nodes, 2));
	CHECK(s->entries[2].amount.kind == HP_AMOUNT_PERCENT &&
	      s->entries[2].amount.value == 5000);

	/* Commas separate entries only where a new SIZE:AMOUNT starts. */
	settings_free(s);
	sources_load_cmdline(
	    s, "quiet rd.hugepar.pages=2M:50%,1G:2@0,1,2M:64G@2 root=/dev/x");
	CHECK(s->nentries == 3 && s->nproblems == 0);
	CHECK(idset_count(&s->entries[1].nodes) == 2);
	CHECK(s->entries[2].amount.kind == HP_AMOUNT_BYTES &&
	      s->entries[2].amount.value == UINT64_C(64) << 30);

	/* A bad entry is skipped and recorded; the good ones stay, and so does an
	 * earlier good value of a key whose later value is bad. */
	settings_free(s);
	sources_load_cmdline(
	    s, "rd.hugepar.threads=3 rd.hugepar.pages=2M:10,2M:x,1G:1@a "
	       "rd.hugepar.threads=0 "
	       "rd.hugepar.timeout=5 rd.hugepar.mode=fast rd.hugepar.bogus=1");
	CHECK(s->nentries == 1 && s->nproblems == 5);
	CHECK(strcmp(s->problems[0].key, "rd.hugepar.pages") == 0 &&
	      strcmp(s->problems[0].value, "2M:x") == 0);
	CHECK(strcmp(s->problems[1].value, "1G:1@a") == 0);
	CHECK(strcmp(s->problems[2].key, "rd.hugepar.threads") == 0);
	CHECK(strcmp(s->problems[3].key, "rd.hugepar.mode") == 0);
	CHECK(strcmp(s->problems[4].message, "unknown key") == 0);
	CHECK(s->timeout_ms == 5000 && s->workers == 3 && s->mode == HP_MODE_GROW);

	/* Off switch, quotes, and "--" ends the kernel's part. */
	settings_free(s);
	sources_load_cmdline(
	    s, "rd.hugepar=0 \"rd.hugepar.pages=2M:1 1G:1\" -- rd.hugepar.threads=3");
	CHECK(!s->enabled && s->nentries == 2 && s->workers == 0);
	settings_free(s);
	sources_load_cmdline(s, "rd.hugepar rd.hugeparx=1");
	CHECK(s->enabled && s->nproblems == 0 && s->nsources == 1);

	/* Overflowing and odd values. */
	settings_free(s);
	keys_set(s, "pages", "2M:99999999999999999999 3K:1 1G:1@1024 1G:1@0-", "f:2",
		 false);
	CHECK(s->nentries == 1 && s->nproblems == 3); /* 3K is well formed */
	keys_set(s, "keep_free", "5%", "f:3", false);
	CHECK(s->keep_free.kind == HP_AMOUNT_PERCENT && s->keep_free.value == 500);
	keys_set(s, "keep_free", "1073741824", "f:4", false);
	CHECK(s->keep_free.kind == HP_AMOUNT_BYTES && s->keep_free.value == 1u << 30);
	keys_set(s, "threads", "4097", "f:5", false);
	keys_set(s, "timeout", "3601", "f:6", false);
	CHECK(s->nproblems == 5 && s->workers == 0 &&
	      s->timeout_ms == HP_DEFAULT_TIMEOUT);
}

UNIT_TEST(
    devices,
    "a PCI address's colons: after a comma 'pci:' and 'net:' stay on the entry, a SIZE starts one")
{
	struct hp_settings *s = &S;

	settings_free(s);
	sources_load_cmdline(s, "rd.hugepar.pages=2M:1G@pci:0000:3b:00.0,1G:4@1");
	CHECK(s->nentries == 2 && s->nproblems == 0);
	CHECK(s->nentries == 2 && s->entries[0].device == HP_DEVICE_PCI &&
	      strcmp(s->entries[0].text, "2M:1G@pci:0000:3b:00.0") == 0 &&
	      strcmp(s->entries[0].device_name, "0000:3b:00.0") == 0 &&
	      s->entries[1].device == HP_DEVICE_NONE &&
	      idset_has(&s->entries[1].nodes, 1) && s->entries[1].size_kb == 1048576);

	settings_free(s);
	sources_load_cmdline(s, "rd.hugepar.pages=2M:512@net:eth0,1G:2@pci:0000:af:00.1,"
				"2M:50%,1G:1@0,1");
	CHECK(s->nentries == 4 && s->nproblems == 0);
	CHECK(s->nentries == 4 && s->entries[0].device == HP_DEVICE_NET &&
	      s->entries[1].device == HP_DEVICE_PCI &&
	      strcmp(s->entries[2].text, "2M:50%") == 0 &&
	      idset_count(&s->entries[3].nodes) == 2);

	/* nodes and a device, or two devices, in one entry: one problem, the entry whole */
	settings_free(s);
	sources_load_cmdline(
	    s,
	    "rd.hugepar.pages=2M:1G@0,pci:0000:3b:00.0,1G:4,"
	    "2M:1@pci:0000:3b:00.0,pci:0000:3b:00.1 rd.hugepar.pages=2M:1@net:eth0,net:eth1");
	CHECK(s->nentries == 1 && s->nproblems == 3);
	CHECK(s->nproblems == 3 &&
	      strcmp(s->problems[0].value, "2M:1G@0,pci:0000:3b:00.0") == 0 &&
	      strcmp(s->problems[1].value, "2M:1@pci:0000:3b:00.0,pci:0000:3b:00.1") ==
		  0 &&
	      strcmp(s->problems[2].value, "2M:1@net:eth0,net:eth1") == 0);

	/* in a file too, separated by spaces; a malformed address is named */
	settings_free(s);
	keys_set(s, "pages", "2M:1G@pci:0000:3b:00.0 1G:4@pci:0000:3b:0.0", "f:1", false);
	CHECK(s->nentries == 1 && s->nproblems == 1 &&
	      strstr(s->problems[0].message, "PCI address '0000:3b:0.0' is malformed"));
	settings_free(s);
}

/* Nothing is cut: long words, long node lists, many entries; a bare key is not a
 * value; NUL bytes in a file are found and say so. */
UNIT_TEST(limits, "nothing cut: long words and lists, many entries; bare keys; NULs")
{
	struct hp_settings *s = &S;
	char word[4096], *big;
	size_t n;

	/* A padded word longer than any buffer keeps its meaning. */
	n = (size_t)snprintf(word, sizeof(word), "rd.hugepar.pages=2M:1@0;");
	memset(word + n, ';', 3000);
	snprintf(word + n + 3000, sizeof(word) - n - 3000, "2M:123456@1");
	settings_free(s);
	sources_load_cmdline(s, word);
	CHECK(s->nentries == 2 && s->nproblems == 0);
	CHECK(s->nentries == 2 && s->entries[1].amount.value == 123456 &&
	      idset_has(&s->entries[1].nodes, 1));

	/* "@0,1,...,31" is longer than 63 bytes and is one entry. */
	settings_free(s);
	n = (size_t)snprintf(word, sizeof(word), "2M:10@");
	for (unsigned i = 0; i < 32; i++)
		n +=
		    (size_t)snprintf(word + n, sizeof(word) - n, "%s%u", i ? "," : "", i);
	keys_set(s, "pages", word, "f:1", false);
	CHECK(s->nentries == 1 && idset_count(&s->entries[0].nodes) == 32);

	/* More than 64 entries, more than 32 problems, more than 16 sources. */
	settings_free(s);
	big = malloc(200 * 16);
	n = 0;
	for (unsigned i = 0; i < 200; i++)
		n += (size_t)sprintf(big + n, "2M:%u@%u ", i, i % 4);
	keys_set(s, "pages", big, "f:1", false);
	CHECK(s->nentries == 200);
	for (unsigned i = 0; i < 50; i++)
		keys_set(s, "threads", "lots", "f:2", false);
	CHECK(s->nproblems == 50);
	for (unsigned i = 0; i < 20; i++) {
		char origin[32];

		snprintf(origin, sizeof(origin), "file %u", i);
		sources_load_cmdline_from(s, "rd.hugepar.mode=exact", origin);
	}
	CHECK(s->nsources == 20);
	free(big);

	/* A bare key is not "=1"; a bare rd.hugepar is on, as getargbool says. */
	settings_free(s);
	sources_load_cmdline(s, "rd.hugepar.pages rd.hugepar");
	CHECK(s->nentries == 0 && s->nproblems == 1 && s->enabled);
	CHECK(s->nproblems == 1 &&
	      strstr(s->problems[0].message, "rd.hugepar.pages=VALUE"));

	/* A long bad value is shown shortened, with its length. */
	settings_free(s);
	memset(word, 'x', 1000);
	word[1000] = '\0';
	keys_set(s, "mode", word, "f:1", false);
	CHECK(s->nproblems == 1 && strstr(s->problems[0].value, "(1000 bytes)") &&
	      strlen(s->problems[0].value) < 120);
	settings_free(s);
}

/* settings_free() leaves the settings as settings_init() does, holding nothing: a
 * caller may drop them then (status reads the settings files again to compare, and
 * drops them). The textfile: the default until set, a path, or none. */
UNIT_TEST(free, "settings_free leaves nothing held; the textfile: default, a path, none")
{
	struct hp_settings s;

	settings_init(&s);
	CHECK(!s.textfile && strcmp(settings_textfile(&s), HP_DEFAULT_TEXTFILE) == 0);
	keys_set(&s, "textfile", "none", "f:1", false);
	CHECK(settings_textfile(&s) == NULL);
	keys_set(&s, "textfile", "/x/hugepar.prom", "f:2", false);
	CHECK(settings_textfile(&s) &&
	      strcmp(settings_textfile(&s), "/x/hugepar.prom") == 0);
	keys_set(&s, "pages", "2M:1 3K:1", "f:3", false);
	sources_load_cmdline(&s, "rd.hugepar.mount=2M:/mnt/h");
	settings_free(&s);
	CHECK(!s.textfile && !s.entries && !s.problems && !s.sources && !s.mounts &&
	      !s.devices && !s.config);
	CHECK(strcmp(settings_textfile(&s), HP_DEFAULT_TEXTFILE) == 0);
}

/* Lists as people write them: a comma, spaces, or both, in a file and on the
 * kernel command line; a comma and spaces inside a node list keep it whole. */
UNIT_TEST(lists, "a comma, spaces or both separate entries; '0, 1' stays a node list")
{
	static const char *const same[] = {"2M:512, 1G:4", "2M:512,1G:4", "2M:512 1G:4",
					   "2M:512 ,  1G:4,", " 2M:512;1G:4 "};
	struct hp_settings *s = &S;

	for (size_t i = 0; i < sizeof(same) / sizeof(*same); i++) {
		settings_free(s);
		keys_set(s, "pages", same[i], "f:1", false);
		CHECK(s->nentries == 2 && s->nproblems == 0);
		CHECK(s->nentries == 2 && strcmp(s->entries[0].text, "2M:512") == 0 &&
		      strcmp(s->entries[1].text, "1G:4") == 0);
	}
	settings_free(s);
	keys_set(s, "pages", "1G:4@0, 1, 2M:64", "f:1", false);
	CHECK(s->nentries == 2 && strcmp(s->entries[0].text, "1G:4@0,1") == 0 &&
	      idset_count(&s->entries[0].nodes) == 2);
	/* the kernel splits a value at its spaces: the words after it that are
	 * entries are the rest of the list, said once */
	settings_free(s);
	sources_load_cmdline(s, "rd.hugepar.pages=2M:512, 1G:4 1G:2@1 quiet 2M:9");
	CHECK(s->nentries == 3 && s->nproblems == 0 && s->nnotices == 1);
	CHECK(s->nentries == 3 && strcmp(s->entries[2].text, "1G:2@1") == 0);
	CHECK(s->nnotices == 1 &&
	      strcmp(s->notices[0].value, "2M:512, 1G:4 1G:2@1") == 0);
	/* not after another key, and not a word with '=' */
	settings_free(s);
	sources_load_cmdline(s,
			     "rd.hugepar.threads=2 1G:4 rd.hugepar.pages=2M:1 ip=1::2");
	CHECK(s->nentries == 1 && s->nnotices == 0);
}

/* A key that is not one, answered with the key meant: another case, '-' for '_',
 * a slip of the fingers, or another name for it. */
UNIT_TEST(key_meant, "an unknown key close to one, or another name for one, names it")
{
	static const struct {
		const char *key, *meant;
	} cases[] = {
	    {"floor", "keep_free"},	{"workers", "threads"},
	    {"Pages", "pages"},		{"treads", "threads"},
	    {"keep-free", "keep_free"}, {"timeuot", "timeout"},
	    {"nr_hugepages", "pages"},	{"on-short", "on_short"},
	    {"reserv", "keep_free"},
	};
	struct hp_settings *s = &S;
	char want[160];

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		settings_free(s);
		keys_set(s, cases[i].key, "1", "f:1", false);
		snprintf(want, sizeof(want), "unknown key: did you mean '%s' (",
			 cases[i].meant);
		CHECK(s->nproblems == 1 &&
		      strncmp(s->problems[0].message, want, strlen(want)) == 0);
	}
	settings_free(s);
	keys_set(s, "colour", "blue", "f:1", false);
	sources_load_cmdline(s, "rd.hugepar.workers=8");
	CHECK(s->nproblems == 2 && strcmp(s->problems[0].message, "unknown key") == 0);
	CHECK(s->nproblems == 2 &&
	      strcmp(s->problems[1].message,
		     "unknown key: did you mean 'rd.hugepar.threads' (the number of "
		     "threads, worker processes)?") == 0);
}

/* keep_free's old name is taken, and said: it reads as the opposite. */
UNIT_TEST(old_key, "reserve is still taken as keep_free, with a notice")
{
	struct hp_settings *s = &S;

	settings_free(s);
	keys_set(s, "reserve", "2G", "f:3", false);
	CHECK(s->keep_free.value == UINT64_C(2) << 30 && s->nproblems == 0);
	CHECK(s->nnotices == 1 && strcmp(s->notices[0].key, "reserve") == 0 &&
	      strstr(s->notices[0].message, "taken as keep_free") != NULL);
	CHECK(strcmp(s->keep_free_origin, "f:3") == 0);
	sources_load_cmdline(s, "rd.hugepar.reserve=5%");
	CHECK(s->keep_free.kind == HP_AMOUNT_PERCENT && s->nnotices == 2 &&
	      strstr(s->notices[1].message, "rd.hugepar.keep_free") != NULL);
	/* a bad value is a problem, not a notice */
	keys_set(s, "reserve", "lots", "f:4", false);
	CHECK(s->nnotices == 2 && s->nproblems == 1);
	/* the problems of pages entries count the entries not taken */
	keys_set(s, "pages", "2M:x 2M:1 3M", "f:5", false);
	sources_load_cmdline(s, "rd.hugepar.pages");
	CHECK(settings_pages_rejected(s) == 3);
}

/* Quotes around a value are dropped, with a notice: no value is quoted; one quote
 * without its pair is a problem, and nothing of the value is taken. */
UNIT_TEST(quotes, "quotes around a value dropped with a notice; a lone quote refused")
{
	struct hp_settings *s = &S;

	settings_free(s);
	keys_set(s, "pages", "\"2M:50%\"", "f:1", false);
	keys_set(s, "threads", "'2'", "f:2", false);
	keys_set(s, "mode", "\"exact", "f:3", false);
	keys_set(s, "keep_free", "1G'", "f:4", false);
	sources_load_cmdline(s, "rd.hugepar.timeout='5' rd.hugepar.pages=\"1G:1@1\"");
	CHECK(s->nentries == 2 && s->workers == 2 && s->timeout_ms == 5000);
	CHECK(s->nentries == 2 && strcmp(s->entries[0].text, "2M:50%") == 0 &&
	      strcmp(s->entries[1].text, "1G:1@1") == 0);
	CHECK(s->mode == HP_MODE_GROW && s->keep_free.value == HP_DEFAULT_KEEP_FREE);
	CHECK(s->nnotices == 3 && s->nproblems == 2);
	CHECK(s->nnotices == 3 && strcmp(s->notices[0].value, "\"2M:50%\"") == 0 &&
	      strcmp(s->notices[0].message,
		     "taken as '2M:50%': write values without quotes") == 0);
	CHECK(s->nproblems == 2 &&
	      strcmp(s->problems[0].message,
		     "a quote without its pair: remove the quote") == 0 &&
	      strcmp(s->problems[1].value, "1G'") == 0);
	/* a list of quoted entries; a quoted nothing is an empty value */
	settings_free(s);
	keys_set(s, "pages", "'2M:512' \"1G:4\"", "f:1", false);
	keys_set(s, "threads", "\"\"", "f:2", false);
	CHECK(s->nentries == 2 && s->nnotices == 2 && s->nproblems == 1);
	settings_free(s);
}

/* timeout as people write times: seconds, or with systemd's units; the message of a
 * wrong one names the forms. */
UNIT_TEST(timeout_units,
	  "timeout = 90s, 1m, 2min, 1m30s taken; 2 hours refused, the forms named")
{
	static const struct {
		const char *v;
		uint64_t ms;
	} ok[] = {{"90s", 90000},   {"1m", 60000}, {"2min", 120000},
		  {"1m30s", 90000}, {"0.5", 500},  {"1h", 3600000}};
	struct hp_settings *s = &S;

	for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++) {
		settings_free(s);
		keys_set(s, "timeout", ok[i].v, "f:1", false);
		CHECK(s->nproblems == 0 && s->timeout_ms == ok[i].ms);
	}
	settings_free(s);
	keys_set(s, "timeout", "2h", "f:1", false);
	keys_set(s, "timeout", "1 minute", "f:2", false);
	CHECK(s->nproblems == 2 && s->timeout_ms == HP_DEFAULT_TIMEOUT);
	CHECK(s->nproblems == 2 &&
	      strcmp(s->problems[1].message,
		     "expected seconds (90, 90s) or a time with units (2min, 1m30s, "
		     "500ms), more than 0 and at most 3600s (1h)") == 0);
	settings_free(s);
}

/* keep_free and granularity refused say what to write, as a pages entry does. */
UNIT_TEST(hints, "keep_free = 1.5G: write 1536M; 150%: the range; granularity = 1gib")
{
	struct hp_settings *s = &S;

	settings_free(s);
	keys_set(s, "keep_free", "1.5G", "f:1", false);
	keys_set(s, "keep_free", "150%", "f:2", false);
	keys_set(s, "keep_free", "lots", "f:3", false);
	keys_set(s, "granularity", "1gib", "f:4", false);
	keys_set(s, "granularity", "0G", "f:5", false);
	CHECK(s->nproblems == 5 && s->keep_free.value == HP_DEFAULT_KEEP_FREE);
	if (s->nproblems != 5)
		return;
	CHECK(strcmp(s->problems[0].message, "malformed: write 1536M") == 0);
	CHECK(strcmp(s->problems[1].message,
		     "out of range: a share is from 0% to 100%") == 0);
	CHECK(strcmp(s->problems[2].message,
		     "malformed: expected a size like 512M or a share like 2%") == 0);
	CHECK(strcmp(s->problems[3].message, "expected 'auto', a size like 1G or a share "
					     "like 2%: write 1G") == 0);
	CHECK(strcmp(s->problems[4].message,
		     "expected 'auto', a size like 1G or a share like 2%") == 0);
	settings_free(s);
}

/* An entry is whole or refused whole: spaces around its '@' or ':' dropped with a
 * notice of how it was written; a number after a node list keeps its space, and the
 * entry is refused; a word of its own is an entry of its own. */
UNIT_TEST(whole,
	  "'1G:4 @1' is one entry, said; '1G:4@0 1' refused whole; tabs, a lone '@'")
{
	struct hp_settings *s = &S;

	settings_free(s);
	keys_set(s, "pages", "1G:4 @1 2M :8@ 0\t1G:\t2 @", "f:1", false);
	CHECK(s->nentries == 2 && s->nproblems == 1 && s->nnotices == 2);
	CHECK(s->nentries == 2 && strcmp(s->entries[0].text, "1G:4@1") == 0 &&
	      strcmp(s->entries[1].text, "2M:8@0") == 0 &&
	      idset_count(&s->entries[0].nodes) == 1 && !s->entries[0].all_nodes);
	CHECK(s->nnotices == 2 && strcmp(s->notices[0].value, "1G:4 @1") == 0 &&
	      strcmp(s->notices[0].message,
		     "taken as 1G:4@1: write an entry without spaces") == 0 &&
	      strcmp(s->notices[1].value, "2M :8@ 0") == 0);
	CHECK(s->nproblems == 1 && strcmp(s->problems[0].value, "1G:\t2 @") == 0);
	settings_free(s);
	keys_set(s, "pages", "1G:4@0 1 2M:8@0-1 2-3,4 2M:1", "f:1", false);
	CHECK(s->nentries == 1 && s->nproblems == 2 && s->nnotices == 0);
	CHECK(s->nproblems == 2 &&
	      strcmp(s->problems[0].message, "node list '0 1' is malformed: an entry "
					     "has no spaces (write 0,1)") == 0 &&
	      strcmp(s->problems[1].value, "2M:8@0-1 2-3,4") == 0);
	/* not a node list before it, or not a number: entries of their own */
	settings_free(s);
	keys_set(s, "pages", "2M:8 1 2M:9@1 x", "f:1", false);
	CHECK(s->nentries == 2 && s->nproblems == 2 && s->nnotices == 0);
	/* on the kernel command line, the words after the value */
	settings_free(s);
	sources_load_cmdline(s, "rd.hugepar.pages=1G:4 @1 quiet rd.hugepar.pages=1G:2@ 0 "
				"rd.hugepar.pages=1G:1@0 1");
	CHECK(s->nentries == 2 && s->nproblems == 1);
	CHECK(s->nentries == 2 && strcmp(s->entries[0].text, "1G:4@1") == 0 &&
	      strcmp(s->entries[1].text, "1G:2@0") == 0);
	settings_free(s);
}

/* 'pages =' with nothing after it drops the entries before it (a drop-in's reset,
 * as systemd's), and says which; nothing to drop, nothing to say. */
UNIT_TEST(cleared,
	  "an empty pages value drops the entries before it, named; alone, silent")
{
	struct hp_settings *s = &S;

	settings_free(s);
	keys_set(s, "pages", "", "f:1", false);
	CHECK(s->nentries == 0 && s->nproblems == 0 && s->nnotices == 0);
	keys_set(s, "pages", "2M:1 2M:2 2M:3 2M:4", "f:2", false);
	keys_set(s, "pages", "", "f:3", false);
	keys_set(s, "pages", "1G:1", "f:4", false);
	CHECK(s->nentries == 1 && s->nproblems == 0 && s->nnotices == 1);
	CHECK(s->nnotices == 1 && strcmp(s->notices[0].message,
					 "empty: drops the 4 pages entries before it, "
					 "2M:1 (f:2), 2M:2 (f:2), 2M:3 (f:2), ...") == 0);
	sources_load_cmdline(s, "rd.hugepar.pages= rd.hugepar.pages=;");
	CHECK(s->nentries == 0 && s->nnotices == 2 && s->nproblems == 1);
	settings_free(s);
}

/* Entries that later ones of their size replace: on all their nodes (not done), or
 * on some of a list's; a default that later entries make exceptions to is as meant. */
UNIT_TEST(
    replaced,
    "an entry replaced later is named with the nearest; a default with exceptions is not")
{
	static struct hp_node nd[3] = {{.id = 0}, {.id = 1}, {.id = 4}};
	struct hp_topology t = {.nnodes = 3, .nodes = nd};
	struct hp_settings *s = &S;

	settings_free(s);
	keys_set(s, "pages", "2M:512@0 2M:50% 2M:10@1 1G:1 2M:8@0,4 2M:9@4", "f:1",
		 false);
	keys_set(s, "pages", "1G:2@0-1,4", "f:2", false);
	keys_set(s, "pages", "1G:3@9", "f:3", false); /* no node 9: replaces none */
	settings_note_replaced(s, &t);
	CHECK(s->nnotices == 4);
	if (s->nnotices != 4)
		return;
	CHECK(strcmp(s->notices[0].value, "2M:512@0") == 0 &&
	      strcmp(s->notices[0].message, "not done: replaced by 2M:50% (f:1), written "
					    "after it") == 0);
	CHECK(strcmp(s->notices[1].value, "2M:50%") == 0 &&
	      strcmp(s->notices[1].message, "not done: replaced by 2M:10@1 (f:1) and "
					    "others, written after it") == 0);
	CHECK(strcmp(s->notices[2].value, "1G:1") == 0 &&
	      strcmp(s->notices[2].message,
		     "not done: replaced by 1G:2@0-1,4 (f:2), written after it") == 0);
	CHECK(strcmp(s->notices[3].value, "2M:8@0,4") == 0 &&
	      strcmp(s->notices[3].message,
		     "not done on node 4: replaced by 2M:9@4 (f:1), "
		     "written after it") == 0);
	settings_free(s);
}
