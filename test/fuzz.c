/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz.c - libFuzzer target for the parsers: config lines, command lines, lists, JSON. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "idset.h"
#include "json.h"
#include "parse.h"
#include "settings.h"

static struct hp_settings S;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct hp_idset set;
	struct json_val v;
	uint64_t u;
	bool b;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	settings_free(&S);
	settings_load_cmdline(&S, s);
	settings_set(&S, "pages", s, "fuzz", false);
	settings_set(&S, "reserve", s, "fuzz", false);
	settings_set(&S, "timeout", s, "fuzz", false);
	parse_idlist(s, HP_MAX_CPUS, &set);
	parse_bytes(s, &u);
	parse_percent(s, &u);
	parse_seconds(s, &u);
	parse_bool(s, &b);
	if (json_parse(s, &v) == 0)
		json_free(&v);
	settings_free(&S);
	free(s);
	return 0;
}
