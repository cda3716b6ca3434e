// SPDX-License-Identifier: GPL-2.0
/*
 * Host lists (see fabric_hosts.h): expanding "a[1-3,7]b,c" into names.
 * A list of more than FABRIC_HOSTS_MAX names, a name twice, an empty
 * name, a bracket left open or a range that is not one (letters, a first
 * bound above the last) is refused, saying which and where.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "fabric_hosts.h"
#include "fabric_sched.h"

__printf(3, 4)
static int hosts_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Characters a host name may have (a DNS name, an address). */
static bool hosts_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '.' ||
	       c == '_' || c == ':';
}

int fabric_hosts_find(const struct fabric_hosts *h, const char *name)
{
	unsigned int i;

	for (i = 0; i < h->n; i++)
		if (!strcmp(h->name[i], name))
			return (int)i;
	return -1;
}

static int hosts_put(struct fabric_hosts *h, const char *name, char *err,
		     size_t len)
{
	void *p;

	if (!*name)
		return hosts_err(err, len, "an empty host name");
	if (fabric_hosts_find(h, name) >= 0)
		return hosts_err(err, len, "host %s is in the list twice",
				 name);
	if (h->n >= FABRIC_HOSTS_MAX)
		return hosts_err(err, len, "more than %d hosts",
				 FABRIC_HOSTS_MAX);
	if (!(h->n & (h->n - 1)) || !h->n) {
		p = realloc(h->name, (h->n ? h->n * 2 : 1) * sizeof(*h->name));
		if (!p)
			return hosts_err(err, len, "out of memory");
		h->name = p;
	}
	if (strlen(name) > FABRIC_HOST_LEN)
		return hosts_err(err, len, "a host name longer than %d characters",
				 FABRIC_HOST_LEN);
	memcpy(h->name[h->n++], name, strlen(name) + 1);
	return 0;
}

/*
 * Expand @item (no top-level comma) with @prefix before it: the part
 * before its first bracket, each number of that bracket's ranges, then
 * the rest, recursively.
 */
static int hosts_expand(struct fabric_hosts *h, const char *prefix,
			const char *item, char *err, size_t len)
{
	/* room for any prefix and item: lengths are checked before use */
	char name[2 * FABRIC_HOST_LEN + 1100], digits[24];
	const char *open, *close, *r, *next;
	unsigned long lo, hi, v;
	size_t plen, width;
	char *end;
	int ret;

	open = strchr(item, '[');
	if (!open) {
		if (strchr(item, ']'))
			return hosts_err(err, len, "']' without '[' in '%s'",
					 item);
		if (strlen(prefix) + strlen(item) > FABRIC_HOST_LEN)
			return hosts_err(err, len, "a host name longer than %d characters",
					 FABRIC_HOST_LEN);
		snprintf(name, sizeof(name), "%s%s", prefix, item);
		name[FABRIC_HOST_LEN] = '\0';
		return hosts_put(h, name, err, len);
	}
	close = strchr(open, ']');
	if (!close)
		return hosts_err(err, len, "'[' not closed in '%s'", item);
	plen = strlen(prefix) + (size_t)(open - item);
	if (plen > FABRIC_HOST_LEN)
		return hosts_err(err, len, "a host name longer than %d characters",
				 FABRIC_HOST_LEN);
	for (r = open + 1; r <= close; r = next + 1) {
		next = r;
		while (next < close && *next != ',')
			next++;
		if (next == r)
			return hosts_err(err, len, "an empty range in '%s'",
					 item);
		if (!isdigit((unsigned char)*r))
			return hosts_err(err, len, "range '%.*s' in '%s' is not NUMBER or NUMBER-NUMBER",
					 (int)(next - r), r, item);
		width = 0;
		while (r + width < next && isdigit((unsigned char)r[width]))
			width++;
		errno = 0;
		lo = strtoul(r, &end, 10);
		hi = lo;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				end = (char *)r;
			else
				hi = strtoul(end + 1, &end, 10);
		}
		if (end != next || errno || width > 9 || lo > hi)
			return hosts_err(err, len, "range '%.*s' in '%s' is not NUMBER or NUMBER-NUMBER (low to high)",
					 (int)(next - r), r, item);
		if (hi - lo >= FABRIC_HOSTS_MAX)
			return hosts_err(err, len, "more than %d hosts",
					 FABRIC_HOSTS_MAX);
		for (v = lo; v <= hi; v++) {
			snprintf(digits, sizeof(digits), "%0*lu", (int)width,
				 v);
			if (plen + strlen(digits) > FABRIC_HOST_LEN)
				return hosts_err(err, len, "a host name longer than %d characters",
						 FABRIC_HOST_LEN);
			snprintf(name, sizeof(name), "%s%.*s%s", prefix,
				 (int)(open - item), item, digits);
			name[FABRIC_HOST_LEN] = '\0';
			ret = hosts_expand(h, name, close + 1, err, len);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/**
 * fabric_hosts_add() - append the hosts of a list
 * @h: the list so far (zeroed for an empty one)
 * @list: names and ranges, comma-separated
 * @err: the reason on failure
 * @errlen: room in @err
 *
 * Return: 0, or -EINVAL with @err set; @h may then hold some of the
 * list's hosts.
 */
int fabric_hosts_add(struct fabric_hosts *h, const char *list, char *err,
		     size_t errlen)
{
	char item[1024];
	const char *s, *e;
	int depth, ret;

	for (s = list; *s; s++)
		if (!hosts_name_char(*s) && !strchr("[],", *s))
			return hosts_err(err, errlen,
					 "character '%c' in host list '%s'",
					 isprint((unsigned char)*s) ? *s : '?',
					 list);
	for (s = list; ; s = e + 1) {
		depth = 0;
		for (e = s; *e && (*e != ',' || depth); e++)
			depth += *e == '[' ? 1 : *e == ']' ? -1 : 0;
		if (e == s)
			return hosts_err(err, errlen,
					 "an empty host name in '%s'", list);
		if ((size_t)(e - s) >= sizeof(item))
			return hosts_err(err, errlen, "a host list item longer than %zu characters",
					 sizeof(item) - 1);
		memcpy(item, s, (size_t)(e - s));
		item[e - s] = '\0';
		ret = hosts_expand(h, "", item, err, errlen);
		if (ret)
			return ret;
		if (!*e)
			return 0;
	}
}

/**
 * fabric_hosts_parse() - a host list, expanded
 * @h: filled in; fabric_hosts_free() it, on failure too
 * @list: the list
 * @err: the reason on failure
 * @errlen: room in @err
 *
 * Return: 0, or -EINVAL for an empty or malformed list (@err says why).
 */
int fabric_hosts_parse(struct fabric_hosts *h, const char *list, char *err,
		       size_t errlen)
{
	memset(h, 0, sizeof(*h));
	if (!*list)
		return hosts_err(err, errlen, "an empty host list");
	return fabric_hosts_add(h, list, err, errlen);
}

/**
 * fabric_hosts_free() - free a host list
 * @h: the list; empty after
 */
void fabric_hosts_free(struct fabric_hosts *h)
{
	free(h->name);
	memset(h, 0, sizeof(*h));
}
