/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.c - strict parsers and small helpers shared by every part of hugepar. */
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

#include "util.h"

unsigned idset_count(const struct hp_idset *s)
{
	unsigned n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(s->bits); i++)
		n += __builtin_popcountll(s->bits[i]);
	return n;
}

void idset_and(struct hp_idset *s, const struct hp_idset *o)
{
	for (size_t i = 0; i < ARRAY_SIZE(s->bits); i++)
		s->bits[i] &= o->bits[i];
}

int idset_format(const struct hp_idset *s, char *buf, size_t len)
{
	size_t pos = 0;

	if (len == 0)
		return -ENOSPC;
	buf[0] = '\0';
	for (unsigned i = 0; i < HP_MAX_CPUS; i++) {
		unsigned j = i;
		int n;

		if (!idset_has(s, i))
			continue;
		while (j + 1 < HP_MAX_CPUS && idset_has(s, j + 1))
			j++;
		if (j == i)
			n = snprintf(buf + pos, len - pos, "%s%u", pos ? "," : "", i);
		else
			n = snprintf(buf + pos, len - pos, "%s%u-%u", pos ? "," : "", i,
				     j);
		if (n < 0 || (size_t)n >= len - pos)
			return -ENOSPC;
		pos += n;
		i = j;
	}
	return 0;
}

/* Parse a decimal number at *p, advancing it; at least one digit, no overflow. */
static int take_u64(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	while (isdigit((unsigned char)*s)) {
		if (!mul_u64(v, 10, &v) || !add_u64(v, *s - '0', &v))
			return -ERANGE;
		s++;
	}
	*p = s;
	*out = v;
	return 0;
}

int parse_u64(const char *str, uint64_t *out)
{
	const char *p = str;
	uint64_t v;
	int rc = take_u64(&p, &v);

	if (rc)
		return rc;
	if (*p)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_octal(const char *str, uint64_t *out)
{
	uint64_t v = 0;

	if (!*str)
		return -EINVAL;
	for (const char *p = str; *p; p++) {
		if (*p < '0' || *p > '7')
			return -EINVAL;
		if (v >> 60)
			return -ERANGE;
		v = v << 3 | (uint64_t)(*p - '0');
	}
	*out = v;
	return 0;
}

int parse_hex(const char *str, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = str;

	if (strncmp(p, "0x", 2) == 0)
		p += 2;
	if (!isxdigit((unsigned char)*p))
		return -EINVAL;
	for (; *p; p++) {
		unsigned d;

		if (!isxdigit((unsigned char)*p))
			return -EINVAL;
		d = isdigit((unsigned char)*p) ? *p - '0'
					       : tolower((unsigned char)*p) - 'a' + 10;
		if (v >> 60)
			return -ERANGE;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

int parse_idlist(const char *str, unsigned limit, struct hp_idset *out)
{
	const char *p = str;

	memset(out, 0, sizeof(*out));
	if (limit > HP_MAX_CPUS)
		limit = HP_MAX_CPUS;
	if (*p == '\0' || strcmp(p, "\n") == 0)
		return 0;
	for (;;) {
		uint64_t a, b;
		int rc = take_u64(&p, &a);

		if (rc)
			return rc;
		b = a;
		if (*p == '-') {
			p++;
			rc = take_u64(&p, &b);
			if (rc)
				return rc;
			if (b < a)
				return -EINVAL;
		}
		if (b >= limit)
			return -ERANGE;
		for (uint64_t i = a; i <= b; i++)
			idset_add(out, (unsigned)i);
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '\n' && p[1] == '\0')
			return 0;
		return *p ? -EINVAL : 0;
	}
}

int parse_bytes(const char *str, uint64_t *out)
{
	static const char units[] = "KMGTP";
	const char *p = str;
	const char *u;
	uint64_t v, mult = 1;
	int rc = take_u64(&p, &v);

	if (rc)
		return rc;
	if (*p) {
		if (strcmp(p, "kB") == 0) {
			mult = 1024;
		} else {
			u = strchr(units, toupper((unsigned char)*p));
			if (!u)
				return -EINVAL;
			for (const char *q = units; q <= u; q++)
				mult *= 1024;
			p++;
			if (strcmp(p, "") && strcmp(p, "B") && strcmp(p, "iB"))
				return -EINVAL;
		}
	}
	if (!mul_u64(v, mult, out))
		return -ERANGE;
	return 0;
}

/* Fixed-point decimal: digits, optional '.', at most 'decimals' fraction digits. */
static int parse_fixed(const char **p, unsigned decimals, uint64_t *out)
{
	uint64_t v;
	unsigned n = 0;
	int rc = take_u64(p, &v);

	if (rc)
		return rc;
	if (**p == '.') {
		(*p)++;
		if (!isdigit((unsigned char)**p))
			return -EINVAL;
		while (isdigit((unsigned char)**p)) {
			if (++n > decimals)
				return -EINVAL;
			if (!mul_u64(v, 10, &v) || !add_u64(v, **p - '0', &v))
				return -ERANGE;
			(*p)++;
		}
	}
	for (; n < decimals; n++)
		if (!mul_u64(v, 10, &v))
			return -ERANGE;
	*out = v;
	return 0;
}

int parse_percent(const char *str, uint64_t *out)
{
	const char *p = str;
	uint64_t v;
	int rc = parse_fixed(&p, 2, &v);

	if (rc)
		return rc;
	if (strcmp(p, "%"))
		return -EINVAL;
	if (v > 10000)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_seconds(const char *str, uint64_t *out_ms)
{
	const char *p = str;
	uint64_t v;
	int rc = parse_fixed(&p, 3, &v);

	if (rc)
		return rc;
	if (*p && strcmp(p, "s"))
		return -EINVAL;
	*out_ms = v;
	return 0;
}

int parse_bool(const char *str, bool *out)
{
	static const char *const yes[] = {"1", "yes", "on", "true"};
	static const char *const no[] = {"0", "no", "off", "false"};

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcasecmp(str, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(str, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

int meminfo_kb(const char *text, const char *key, uint64_t *kb)
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
			return take_u64(&k, kb);
		}
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

bool release_at_least(const char *r, unsigned major, unsigned minor)
{
	unsigned ma = 0, mi = 0;

	if (sscanf(r, "%u.%u", &ma, &mi) < 1)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

void format_size_kb(uint64_t kb, char *buf, size_t len)
{
	static const char units[] = "KMGTP";
	int u = 0;

	while (kb >= 1024 && kb % 1024 == 0 && units[u + 1]) {
		kb /= 1024;
		u++;
	}
	snprintf(buf, len, "%llu%c", (unsigned long long)kb, units[u]);
}

void format_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "BKMGTPE";
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && units[u + 1]) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%lluB", (unsigned long long)bytes);
	else if (v == (double)(uint64_t)v)
		snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
	else
		snprintf(buf, len, "%.1f%c", v, units[u]);
}

char *strtrim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int xsnprintf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	return 0;
}

static uint64_t clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

uint64_t boottime_ms(void)
{
	return clock_ms(CLOCK_BOOTTIME);
}

static const char *file_kind(mode_t m)
{
	return S_ISDIR(m)    ? "a directory"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
			     : "not a plain file";
}

int read_regular(const char *file, size_t max, char **out, size_t *len, const char **kind)
{
	struct stat st;
	size_t got = 0;
	char *buf;
	int fd, rc = 0;

	*out = NULL;
	*len = 0;
	*kind = NULL;
	fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		rc = -errno;
		if (rc == -ENOENT && lstat(file, &st) == 0 && S_ISLNK(st.st_mode))
			*kind = "a symbolic link to nothing";
		return rc;
	}
	if (fstat(fd, &st)) {
		rc = -errno;
	} else if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) {
		st.st_size = 0; /* /dev/null: "no file", as tools take it */
	} else if (!S_ISREG(st.st_mode)) {
		*kind = file_kind(st.st_mode);
		rc = -EINVAL;
	} else if ((uint64_t)st.st_size > max) {
		rc = -EFBIG;
	}
	buf = rc ? NULL : malloc((size_t)st.st_size + 1);
	if (!rc && !buf)
		rc = -ENOMEM;
	/* read to the end, or to one byte past the size seen: a file that grows
	 * while it is read is still bounded by max */
	while (!rc) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = -errno;
		else if (n == 0)
			break;
		else if ((got += n) > (size_t)st.st_size)
			rc = -EFBIG;
	}
	close(fd);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[got] = '\0';
	*out = buf;
	*len = got;
	return 0;
}

bool pid_gone(pid_t pid)
{
	char p[64], buf[512], *rp;
	ssize_t n;
	int fd;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return true;
	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	return rp && (rp[2] == 'Z' || rp[2] == 'X');
}

uint64_t fnv1a64(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

int mkdir_p(const char *path)
{
	char buf[4096];

	if (xsnprintf(buf, sizeof(buf), "%s", path))
		return -ENAMETOOLONG;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(buf, 0755) && errno != EEXIST ? -errno : 0;
}

int replace_file(const char *file, const char *tmp, const char *text, size_t len)
{
	int fd, rc = 0;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		rc = -EIO;
	/* /run is a tmpfs: the rename is what makes the file whole */
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, file))
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}
