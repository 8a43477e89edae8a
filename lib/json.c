/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.c - a small JSON writer, and a reader for the record hugepar writes itself. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "json.h"
#include "macros.h"
#include "parse.h"

void json_begin(struct json_out *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first = true;
}

void json_end(struct json_out *j)
{
	fputc('\n', j->f);
}

/*
 * The writer puts its text with fwrite() in runs, and numbers without printf: a
 * record is a few hundred members, and a call to stdio per character or a printf per
 * number was most of the instructions of a small apply (callgrind), dear under
 * emulation.
 */
static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;
		size_t run = 0;

		while (s[run] && s[run] != '"' && s[run] != '\\' &&
		       (unsigned char)s[run] >= 0x20 && (unsigned char)s[run] < 0x7f)
			run++;
		if (run) {
			fwrite(s, 1, run, f);
			s += run - 1;
			continue;
		}
		if (c >= 0x80 && (run = text_utf8_len(s)) > 1) {
			/* valid UTF-8 is text: as it is ("hugé", not "hugÃ©") */
			fwrite(s, 1, run, f);
			s += run - 1;
		} else if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
		} else if (c == '\n') {
			fputs("\\n", f);
		} else if (c == '\t') {
			fputs("\\t", f);
		} else {
			/* A control character, DEL, or a byte that is not UTF-8: a setting
			 * may hold any byte, and the record must stay valid JSON (UTF-8)
			 * for strict readers. The reader turns \u00XX back into the byte. */
			fprintf(f, "\\u%04x", c);
		}
	}
	fputc('"', f);
}

/* A newline (after a comma, but for the first member) and the indent of depth. */
static void indent(FILE *f, int depth, bool comma)
{
	static const char spaces[] = "                                ";
	int n = 2 * depth;

	fputs(comma ? ",\n" : "\n", f);
	for (; n > 0; n -= (int)sizeof(spaces) - 1)
		fwrite(spaces, 1, MIN((size_t)n, sizeof(spaces) - 1), f);
}

static void put_u64(FILE *f, uint64_t v, bool minus)
{
	char buf[24], *p = buf + sizeof(buf);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	if (minus)
		*--p = '-';
	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), f);
}

static void member(struct json_out *j, const char *key)
{
	if (j->depth > 0)
		indent(j->f, j->depth, !j->first);
	j->first = false;
	if (key) {
		put_string(j->f, key);
		fputs(": ", j->f);
	}
}

void json_open(struct json_out *j, const char *key, char brace)
{
	member(j, key);
	fputc(brace, j->f);
	j->depth++;
	j->first = true;
}

void json_close(struct json_out *j, char brace)
{
	j->depth--;
	if (!j->first)
		indent(j->f, j->depth, false);
	fputc(brace, j->f);
	j->first = false;
}

void json_str(struct json_out *j, const char *key, const char *val)
{
	member(j, key);
	put_string(j->f, val);
}

void json_u64(struct json_out *j, const char *key, uint64_t val)
{
	member(j, key);
	put_u64(j->f, val, false);
}

void json_i64(struct json_out *j, const char *key, int64_t val)
{
	member(j, key);
	/* the magnitude of INT64_MIN is a uint64_t too */
	put_u64(j->f, val < 0 ? -(uint64_t)val : (uint64_t)val, val < 0);
}

void json_bool(struct json_out *j, const char *key, bool val)
{
	member(j, key);
	fputs(val ? "true" : "false", j->f);
}

void json_null(struct json_out *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

/* The reader: recursive descent, bounded depth. */
#define JSON_MAX_DEPTH 32

static void skip_ws(const char **p)
{
	while (isspace((unsigned char)**p))
		(*p)++;
}

/* The character an escape after a backslash stands for, advancing *s past it: -1 for
 * an escape JSON does not have. */
static int unescape(const char **s)
{
	char c = *(*s)++;
	unsigned v = 0;

	switch (c) {
	case 'n':
		return '\n';
	case 't':
		return '\t';
	case 'r':
		return '\r';
	case 'b':
		return '\b';
	case 'f':
		return '\f';
	case '"':
	case '\\':
	case '/':
		return c;
	case 'u':
		for (int i = 0; i < 4; i++, (*s)++) {
			if (!isxdigit((unsigned char)**s))
				return -1;
			v = v * 16 + (isdigit((unsigned char)**s)
					  ? **s - '0'
					  : (tolower((unsigned char)**s) - 'a' + 10));
		}
		/* the writer's escape of a byte (see put_string); never a NUL, which
		 * would cut the string short ("a\u0000b" read as "a") */
		return v == 0 ? -1 : v < 0x100 ? (int)v : '?';
	default:
		return -1;
	}
}

static int parse_string(const char **p, char **out)
{
	const char *s = *p + 1;
	size_t cap = 16, n = 0;
	char *buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		int c = (unsigned char)*s++;

		if (c == '\0' || c < 0x20)
			goto bad;
		if (c == '"')
			break;
		if (c == '\\' && (c = unescape(&s)) < 0)
			goto bad;
		if (n + 2 > cap) {
			char *nb = realloc(buf, cap *= 2);

			if (!nb)
				goto bad;
			buf = nb;
		}
		buf[n++] = (char)c;
	}
	buf[n] = '\0';
	*out = buf;
	*p = s;
	return 0;
bad:
	free(buf);
	return -EINVAL;
}

static int parse_value(const char **p, struct json_val *v, int depth);

static int add_kid(struct json_val *v, char *key)
{
	struct json_val *k = realloc(v->kids, (v->n + 1) * sizeof(*k));

	if (!k)
		return -ENOMEM;
	v->kids = k;
	memset(&k[v->n], 0, sizeof(k[0]));
	if (v->type == JSON_OBJ) {
		char **ks = realloc(v->keys, (v->n + 1) * sizeof(*ks));

		if (!ks)
			return -ENOMEM;
		v->keys = ks;
		ks[v->n] = key;
	}
	v->n++;
	return 0;
}

static int parse_container(const char **p, struct json_val *v, int depth, char close)
{
	(*p)++;
	skip_ws(p);
	if (**p == close) {
		(*p)++;
		return 0;
	}
	for (;;) {
		char *key = NULL;
		int rc;

		skip_ws(p);
		if (close == '}') {
			if (**p != '"' || parse_string(p, &key))
				return -EINVAL;
			skip_ws(p);
			if (**p != ':') {
				free(key);
				return -EINVAL;
			}
			(*p)++;
		}
		rc = add_kid(v, key);
		if (rc) {
			free(key);
			return rc;
		}
		rc = parse_value(p, &v->kids[v->n - 1], depth + 1);
		if (rc)
			return rc;
		skip_ws(p);
		if (**p == ',') {
			(*p)++;
			continue;
		}
		if (**p == close) {
			(*p)++;
			return 0;
		}
		return -EINVAL;
	}
}

static int parse_value(const char **p, struct json_val *v, int depth)
{
	if (depth > JSON_MAX_DEPTH)
		return -EINVAL;
	skip_ws(p);
	switch (**p) {
	case '{':
		v->type = JSON_OBJ;
		return parse_container(p, v, depth, '}');
	case '[':
		v->type = JSON_ARR;
		return parse_container(p, v, depth, ']');
	case '"':
		v->type = JSON_STR;
		return parse_string(p, &v->str);
	case 't':
	case 'f':
	case 'n': {
		static const char *const words[] = {"true", "false", "null"};

		for (int i = 0; i < 3; i++) {
			size_t n = strlen(words[i]);

			if (strncmp(*p, words[i], n) == 0) {
				v->type = i == 2 ? JSON_NULL : JSON_BOOL;
				v->b = i == 0;
				*p += n;
				return 0;
			}
		}
		return -EINVAL;
	}
	default: {
		const char *s = *p;
		char *end;

		v->neg = *s == '-';
		s += v->neg;
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		/* The whole unsigned 64-bit range: counts go that far. */
		errno = 0;
		v->num = strtoull(s, &end, 10);
		if (errno || end == s)
			return -EINVAL;
		/* Fractions are not written by hugepar; skip them if present. */
		if (*end == '.' || *end == 'e' || *end == 'E')
			strtod(s, &end);
		v->type = JSON_NUM;
		*p = end;
		return 0;
	}
	}
}

int json_parse(const char *text, struct json_val *v)
{
	const char *p = text;
	int rc;

	memset(v, 0, sizeof(*v));
	rc = parse_value(&p, v, 0);
	if (!rc) {
		skip_ws(&p);
		if (*p)
			rc = -EINVAL;
	}
	if (rc) {
		json_free(v);
		return -EINVAL;
	}
	return 0;
}

void json_free(struct json_val *v)
{
	for (unsigned i = 0; i < v->n; i++) {
		json_free(&v->kids[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->kids);
	free(v->keys);
	free(v->str);
	memset(v, 0, sizeof(*v));
}

const struct json_val *json_get(const struct json_val *v, const char *key)
{
	if (!v || v->type != JSON_OBJ)
		return NULL;
	for (unsigned i = 0; i < v->n; i++)
		if (v->keys[i] && strcmp(v->keys[i], key) == 0)
			return &v->kids[i];
	return NULL;
}

const char *json_get_str(const struct json_val *v, const char *key)
{
	const struct json_val *m = json_get(v, key);

	return m && m->type == JSON_STR ? m->str : "";
}

uint64_t json_get_num(const struct json_val *v, const char *key)
{
	const struct json_val *m = json_get(v, key);

	return m && m->type == JSON_NUM && !m->neg ? m->num : 0;
}
