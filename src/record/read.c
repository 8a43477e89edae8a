/* SPDX-License-Identifier: GPL-2.0-or-later */
/* read.c - a run's record read back: the last run's result, for every command. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file.h"
#include "json.h"
#include "read.h"
#include "result.h"
#include "settings.h"
#include "text.h"

/* Larger than the record of any machine: 1024 nodes and their measures take ~2 MiB. */
#define HP_RECORD_MAX (64u << 20)

/* A run's status: any but a cell's own (unchanged). */
static int status_of(const char *name)
{
	enum hp_status st;

	return result_status_parse(name, &st) || st == HP_STATUS_UNCHANGED ? -EINVAL
									   : (int)st;
}

/* Whether the settings files a record's run used are still what they are now; the
 * initramfs holds copies made when it was built, so a change needs a new one. */
void record_check_settings(const struct hp_record *r, const char *config)
{
	const char *used = r->run.settings.digest;
	struct hp_settings now;
	char digest[64];

	if (!config)
		config = r->run.settings.config;
	if (!used[0] || !config[0])
		return;
	settings_init(&now);
	sources_load_config(&now, config, false);
	settings_digest(&now, digest, sizeof(digest));
	if (strcmp(digest, used))
		fprintf(
		    stderr,
		    "hugepar: warning: %s or %s.d has changed since this run read it: "
		    "the next boot still uses the copy in its initramfs until you build "
		    "it again: " HP_REBUILD "\n",
		    config, config);
	settings_free(&now);
}

/* Read dir's record: 0, or -errno with what it was (kind) when not a regular file. */
static int record_read_file(const char *dir, struct hp_record *r, const char **kind)
{
	char file[4096];
	char *text;
	size_t len;
	int rc;

	memset(r, 0, sizeof(*r));
	if (text_snprintf(file, sizeof(file), "%s/%s", dir, HP_RECORD_FILE))
		return -ENAMETOOLONG;
	rc = file_read_regular(file, HP_RECORD_MAX, &text, &len, kind);
	return rc ? rc : record_parse(r, text, len);
}

int record_read(const char *dir, struct hp_record *r)
{
	const char *kind = NULL;

	return record_read_file(dir, r, &kind);
}

int record_load(const char *dir, struct hp_record *r)
{
	const char *kind = NULL;
	int rc = record_read_file(dir, r, &kind);

	if (rc == -EINVAL && !kind)
		fprintf(stderr, "hugepar: %s/%s is not a valid record\n", dir,
			HP_RECORD_FILE);
	else if (rc)
		fprintf(stderr, "hugepar: no record in %s: %s%s%s\n", dir, strerror(-rc),
			kind ? ": " : "", kind ? kind : "");
	return rc == -ENOENT ? -ENOENT : rc ? -EINVAL : 0;
}

int record_parse(struct hp_record *r, char *text, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->text = text;
	/* a NUL ends the text the parser sees: whatever follows it would pass unread */
	if (strlen(text) != len || json_parse(text, &r->v) ||
	    (r->status = status_of(json_get_str(&r->v, "status"))) < 0 ||
	    record_run_read(&r->v, &r->run)) {
		json_free(&r->v); /* parsed, but not a record */
		free(text);
		r->text = NULL;
		return -EINVAL;
	}
	return 0;
}

void record_unload(struct hp_record *r)
{
	if (r->text) {
		record_run_free(&r->run);
		json_free(&r->v);
	}
	free(r->text);
	memset(r, 0, sizeof(*r));
}
