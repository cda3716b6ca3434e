// SPDX-License-Identifier: GPL-2.0
/*
 * Values as people write them: decimal (or 0x hex) numbers, sizes with K
 * and M suffixes, IPv4 and IPv6 addresses, times with an optional unit. The command line and the
 * model's checks parse with these alike.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "parse.h"

/*
 * Decimal, or hex after 0x; stops at the first character that is not a
 * digit. Base 0 of strtoull is avoided: it reads a leading 0 as octal,
 * which would make "010" mean 8.
 */
static int parse_digits(const char *s, uint64_t *val, char **end)
{
	unsigned long long v;
	int base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
		/* base 16 strtoull would take a second 0x, as in 0x0x1 */
		if (!isxdigit((unsigned char)s[0]) || s[1] == 'x' ||
		    s[1] == 'X')
			return -EINVAL;
	} else if (!isdigit((unsigned char)*s)) {
		/* strtoull would accept leading blanks and a sign */
		return -EINVAL;
	}
	errno = 0;
	v = strtoull(s, end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno)
		return -EINVAL;
	*val = v;
	return 0;
}

/**
 * parse_u64() - parse an unsigned 64-bit number
 * @s: decimal, or hex with a 0x prefix; nothing before or after it
 * @val: where to store the value; untouched on error
 *
 * Return: 0, -EINVAL if @s is not a number, -ERANGE if it does not fit.
 */
int parse_u64(const char *s, uint64_t *val)
{
	uint64_t v;
	char *end;
	int err;

	err = parse_digits(s, &v, &end);
	if (err)
		return err;
	if (*end)
		return -EINVAL;
	*val = v;
	return 0;
}

/**
 * parse_u32() - parse an unsigned 32-bit number
 * @s: as for parse_u64()
 * @val: where to store the value; untouched on error
 *
 * Return: 0, -EINVAL if @s is not a number, -ERANGE if it does not fit.
 */
int parse_u32(const char *s, uint32_t *val)
{
	uint64_t v;
	int err;

	err = parse_u64(s, &v);
	if (err)
		return err;
	if (v > UINT32_MAX)
		return -ERANGE;
	*val = v;
	return 0;
}

/**
 * parse_size() - parse a byte count with an optional binary unit
 * @s: a number as for parse_u64(), optionally followed by one of K, M, G,
 *     T (any case, powers of 1024)
 * @val: where to store the byte count; untouched on error
 *
 * Return: 0, -EINVAL if @s is not a size, -ERANGE if it does not fit.
 */
int parse_size(const char *s, uint64_t *val)
{
	static const char units[] = "kmgt";
	const char *unit;
	unsigned int shift;
	uint64_t v;
	char *end;
	int err;

	err = parse_digits(s, &v, &end);
	if (err)
		return err;
	if (*end) {
		unit = strchr(units, tolower((unsigned char)*end));
		if (!unit || end[1])
			return -EINVAL;
		shift = 10 * (unit - units + 1);
		if (v > UINT64_MAX >> shift)
			return -ERANGE;
		v <<= shift;
	}
	*val = v;
	return 0;
}

/**
 * parse_addr() - parse an IPv4 or IPv6 address
 * @s: dotted quad, or IPv6 text notation (no brackets, no scope)
 * @addr: receives the address, network byte order; untouched on error
 *
 * Return: 4 or 16, the length of the address, or -EINVAL.
 */
int parse_addr(const char *s, uint8_t addr[16])
{
	uint8_t buf[16];

	if (inet_pton(AF_INET, s, buf) == 1) {
		memcpy(addr, buf, 4);
		return 4;
	}
	if (inet_pton(AF_INET6, s, buf) == 1) {
		memcpy(addr, buf, 16);
		return 16;
	}
	return -EINVAL;
}

/**
 * parse_time_ms() - a time, as every time keyword takes it
 * @s: a number with an optional unit: "10", "0.5", "2s" (seconds, at
 *     most 3 decimals; no unit means seconds) or "500ms" (whole
 *     milliseconds)
 * @ms: receives the milliseconds; untouched on error
 *
 * Return: 0, -EINVAL if @s is not such a time ("1.5ms", "0.0005", "2m",
 * "-1"), -ERANGE if it is longer than UINT32_MAX ms.
 */
int parse_time_ms(const char *s, uint32_t *ms)
{
	uint64_t whole = 0, frac = 0, v;
	size_t len = strlen(s);
	unsigned int digits = 0;
	bool in_ms = false;
	const char *end;

	if (len > 2 && !strcmp(s + len - 2, "ms")) {
		in_ms = true;
		len -= 2;
	} else if (len > 1 && s[len - 1] == 's') {
		len--;
	}
	end = s + len;
	if (s == end || !isdigit((unsigned char)*s))
		return -EINVAL;
	for (; s < end && isdigit((unsigned char)*s); s++)
		/* saturate: too large is a range error, not an overflow */
		if (whole <= UINT32_MAX)
			whole = whole * 10 + (*s - '0');
	if (s < end && *s == '.') {
		if (in_ms || ++s == end)
			return -EINVAL;
		for (; s < end && isdigit((unsigned char)*s); s++, digits++) {
			if (digits < 3)
				frac = frac * 10 + (*s - '0');
			else if (*s != '0')
				return -EINVAL;
		}
	}
	if (s != end)
		return -EINVAL;
	if (in_ms) {
		v = whole;
	} else {
		for (; digits < 3; digits++)
			frac *= 10;
		v = whole > UINT32_MAX ? whole : whole * 1000 + frac;
	}
	if (v > UINT32_MAX)
		return -ERANGE;
	*ms = v;
	return 0;
}

/**
 * fmt_time_ms() - a time as parse_time_ms() reads it back
 * @buf: receives it, at least 16 bytes
 * @len: room in @buf
 * @ms: the time
 *
 * Return: @buf: "600s", "1.5s", "10ms".
 */
char *fmt_time_ms(char *buf, size_t len, uint32_t ms)
{
	if (ms >= 1000 && ms % 1000 == 0)
		snprintf(buf, len, "%us", ms / 1000);
	else if (ms >= 1000 && ms % 100 == 0)
		snprintf(buf, len, "%u.%us", ms / 1000, ms % 1000 / 100);
	else
		snprintf(buf, len, "%ums", ms);
	return buf;
}
