/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kinfo.c - the kernel's own text: meminfo figures, the release, the command line. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "kinfo.h"
#include "parse.h"

unsigned kinfo_buddyinfo_orders(const char *text)
{
	const char *nl = strchr(text, '\n'), *p = strstr(text, " zone ");
	unsigned n = 0;

	if (strncmp(text, "Node ", 5) || !p || (nl && p > nl))
		return 0;
	p += 6;
	while (*p == ' ')
		p++;
	while (*p && *p != ' ' && *p != '\n') /* the zone's name */
		p++;
	for (;;) {
		while (*p == ' ')
			p++;
		if (!isdigit((unsigned char)*p))
			break;
		while (isdigit((unsigned char)*p))
			p++;
		n++;
	}
	return *p == '\n' || !*p ? n : 0;
}

int kinfo_meminfo_kb(const char *text, const char *key, uint64_t *kb)
{
	size_t klen = strlen(key);

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		const char *k = line;

		if (strncmp(k, "Node ", 5) == 0) {
			k += 5;
			while (isdigit((unsigned char)*k))
				k++;
			while (*k == ' ')
				k++;
		}
		if (strncmp(k, key, klen) == 0 && k[klen] == ':') {
			k += klen + 1;
			while (*k == ' ' || *k == '\t')
				k++;
			return parse_u64_at(&k, kb);
		}
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

int kinfo_vmstat(const char *text, const char *key, uint64_t *n)
{
	size_t klen = strlen(key);

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n'), *v = line + klen + 1;

		if (strncmp(line, key, klen) == 0 && line[klen] == ' ')
			return parse_u64_at(&v, n) || (*v && *v != '\n') ? -EINVAL : 0;
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

/* Strictly digits: sscanf's %u took "-6.7" or " 6.7" and wrapped what overflowed,
 * and a release it misread as newer picks the riskier rule. */
bool kinfo_release_at_least(const char *r, unsigned major, unsigned minor)
{
	uint64_t ma, mi = 0;

	if (parse_u64_at(&r, &ma) || (*r == '.' && (r++, parse_u64_at(&r, &mi))))
		return false;
	return ma > major || (ma == major && mi >= minor);
}

bool kinfo_capture_cmdline(const char *p)
{
	static const char key[] = "elfcorehdr=";

	for (;;) {
		size_t n;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			return false;
		n = strcspn(p, " \t\n");
		if (n == 2 && strncmp(p, "--", 2) == 0)
			return false;
		/* a word may be quoted whole ("elfcorehdr=...") */
		if (strncmp(p + (*p == '"'), key, sizeof(key) - 1) == 0)
			return true;
		p += n;
	}
}
