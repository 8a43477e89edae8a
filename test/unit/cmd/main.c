/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c - unit tests: the commands (src/cmd/): status and cmdline on a record, their
 * exit codes and output; each command's help. */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "unit.h"

static void put(const char *dir, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/status.json", dir);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A command's exit code, with standard output and error into out (to free). */
static int command(int (*cmd)(struct ctx *), struct ctx *c, char **out)
{
	FILE *cap = tmpfile();
	int o = dup(1), e = dup(2), rc;
	long n;

	fflush(NULL);
	dup2(fileno(cap), 1);
	dup2(fileno(cap), 2);
	rc = cmd(c);
	fflush(NULL);
	dup2(o, 1);
	dup2(e, 2);
	close(o);
	close(e);
	n = ftell(cap);
	*out = calloc(1, n + 1);
	rewind(cap);
	if (fread(*out, 1, n, cap) != (size_t)n)
		(*out)[0] = '\0';
	fclose(cap);
	return rc;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(p);
}

/* hugepar status: the record's status is the exit code (hugepar(8)). */
UNIT_TEST(status, "status exits with the record's status, none and unreadable told apart")
{
	static const struct {
		const char *status;
		int code;
	} codes[] = {{"ok", 0}, {"disabled", 0}, {"partial", 64}, {"failed", 1}};
	char dir[] = "/tmp/hugepar-unit.XXXXXX", text[128], *out;
	struct ctx c = {.record_dir = dir, .format = HP_FORMAT_JSON};

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	CHECK(command(cmd_status, &c, &out) == EXIT_NO_RECORD);
	free(out);
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		snprintf(text, sizeof(text), "{\"status\": \"%s\"}\n", codes[i].status);
		put(dir, text);
		CHECK(command(cmd_status, &c, &out) == codes[i].code);
		CHECK(strcmp(out, text) == 0); /* --format=json: the record as it is */
		free(out);
	}
	put(dir, "{\"status\": \"ok\"");
	CHECK(command(cmd_status, &c, &out) == EXIT_BAD_RECORD);
	CHECK(strstr(out, "is not a valid record"));
	free(out);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* hugepar cmdline --from-record */
UNIT_TEST(cmdline, "cmdline --from-record prints each node's achieved pools")
{
	char dir[] = "/tmp/hugepar-unit.XXXXXX", *out;
	struct ctx c = {.record_dir = dir, .from_record = true};

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	CHECK(command(cmd_cmdline, &c, &out) == EXIT_NO_RECORD);
	free(out);
	put(dir,
	    "{\"status\": \"ok\", \"sizes\": [{\"kb\": 2048}], \"nodes\": [{\"node\": 0, "
	    "\"sizes\": [{\"target\": 8, \"achieved\": 8}]}, {\"node\": 1, \"sizes\": "
	    "[{\"target\": 0, \"achieved\": 0}]}]}");
	CHECK(command(cmd_cmdline, &c, &out) == EXIT_OK);
	CHECK(strcmp(out, "hugepagesz=2M hugepages=0:8\n") == 0);
	free(out);
	put(dir, "{\"status\": \"failed\", \"sizes\": [], \"nodes\": []}");
	CHECK(command(cmd_cmdline, &c, &out) == EXIT_BAD_RECORD);
	CHECK(strstr(out, "has no pools"));
	free(out);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
