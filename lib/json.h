/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.h - a small JSON writer, and a reader for the record hugepar writes itself. */
#ifndef HUGEPAR_JSON_H
#define HUGEPAR_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_out {
	FILE *f;
	int depth;
	bool first; /* no member written yet at this depth */
};

void json_begin(struct json_out *j, FILE *f);
void json_end(struct json_out *j);
/* Open an object or array; key is NULL inside arrays and at the top. */
void json_open(struct json_out *j, const char *key, char brace);
void json_close(struct json_out *j, char brace);
void json_str(struct json_out *j, const char *key, const char *val);
void json_u64(struct json_out *j, const char *key, uint64_t val);
void json_i64(struct json_out *j, const char *key, int64_t val);
void json_bool(struct json_out *j, const char *key, bool val);
void json_null(struct json_out *j, const char *key);

/* A parsed JSON value (the reader keeps integers as a sign and 64 bits). */
enum json_type { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ };

struct json_val {
	enum json_type type;
	bool b;
	bool neg;
	uint64_t num;
	char *str;
	unsigned n;  /* members or elements */
	char **keys; /* object keys */
	struct json_val *kids;
};

/* Parse text into v; returns 0 or -EINVAL. */
int json_parse(const char *text, struct json_val *v);
void json_free(struct json_val *v);
/* Member of an object by key, or NULL. */
const struct json_val *json_get(const struct json_val *v, const char *key);
const char *json_get_str(const struct json_val *v, const char *key);
/* A non-negative integer member, 0 when absent. */
uint64_t json_get_num(const struct json_val *v, const char *key);

#endif
