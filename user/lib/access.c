// SPDX-License-Identifier: GPL-2.0
/*
 * Who may use a kvperf server: the prefixes of an allow list, parsed,
 * matched and printed; the subnet of the listening address; the shared
 * key, from hex digits or a file, and its constant-time comparison. The
 * key is never printed: every message here says what is wrong with it
 * without its characters.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/stat.h>

#include "access.h"
#include "parse.h"

/* Clear the bits of @addr past the first @len. */
static void access_mask(uint8_t *addr, size_t addr_len, unsigned int len)
{
	size_t i;

	for (i = 0; i < addr_len; i++, len = len > 8 ? len - 8 : 0)
		if (len < 8)
			addr[i] &= (uint8_t)(0xff00 >> len);
}

/**
 * access_prefix_parse() - parse an address prefix
 * @s: an IPv4 or IPv6 address, optionally followed by /LEN (decimal, at
 *     most 32 or 128); without /LEN the address alone (/32 or /128)
 * @p: receives the prefix, its host bits cleared; untouched on error
 *
 * Return: 0, -EINVAL if @s is not an address with an optional length,
 * -ERANGE if LEN is longer than the address.
 */
int access_prefix_parse(const char *s, struct access_prefix *p)
{
	const char *slash = strchr(s, '/');
	char text[ACCESS_PREFIX_LEN];
	struct access_prefix q;
	uint32_t len;
	size_t n;
	int alen;

	n = slash ? (size_t)(slash - s) : strlen(s);
	if (!n || n >= sizeof(text))
		return -EINVAL;
	memcpy(text, s, n);
	text[n] = '\0';
	memset(&q, 0, sizeof(q));
	alen = parse_addr(text, q.addr);
	if (alen < 0)
		return -EINVAL;
	q.addr_len = alen;
	len = 8 * alen;
	if (slash) {
		/* digits only: no 0x, no sign, no blanks */
		if (!isdigit((unsigned char)slash[1]) ||
		    strspn(slash + 1, "0123456789") != strlen(slash + 1))
			return -EINVAL;
		if (strlen(slash + 1) > 3 || parse_u32(slash + 1, &len))
			return -ERANGE;
		if (len > 8U * alen)
			return -ERANGE;
	}
	q.len = len;
	access_mask(q.addr, q.addr_len, q.len);
	*p = q;
	return 0;
}

/**
 * access_prefix_match() - is an address in a prefix?
 * @p: the prefix
 * @addr: the address, network order
 * @addr_len: 4 or 16; an address of the other family never matches
 *
 * Return: true when the first @p->len bits of @addr are @p's.
 */
bool access_prefix_match(const struct access_prefix *p, const void *addr,
			 size_t addr_len)
{
	const uint8_t *a = addr;
	unsigned int bits = p->len;
	size_t i;

	if (addr_len != p->addr_len)
		return false;
	for (i = 0; bits; i++, bits = bits > 8 ? bits - 8 : 0) {
		uint8_t m = bits >= 8 ? 0xff : (uint8_t)(0xff00 >> bits);

		if ((a[i] & m) != (p->addr[i] & m))
			return false;
	}
	return true;
}

/**
 * access_allowed() - is an address in one of the prefixes of a list?
 * @allow: the prefixes
 * @n: how many
 * @addr: the address, network order
 * @addr_len: 4 or 16
 *
 * Return: true if one of them matches.
 */
bool access_allowed(const struct access_prefix *allow, unsigned int n,
		    const void *addr, size_t addr_len)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (access_prefix_match(&allow[i], addr, addr_len))
			return true;
	return false;
}

/**
 * access_prefix_fmt() - a prefix as text
 * @buf: ACCESS_PREFIX_LEN bytes
 * @p: the prefix
 *
 * Return: @buf, e.g. "198.18.0.0/24", "fd00::/64", "0.0.0.0/0".
 */
char *access_prefix_fmt(char *buf, const struct access_prefix *p)
{
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(p->addr_len == 4 ? AF_INET : AF_INET6, p->addr, a,
		       sizeof(a)))
		snprintf(a, sizeof(a), "?");
	snprintf(buf, ACCESS_PREFIX_LEN, "%s/%u", a, p->len);
	return buf;
}

/**
 * access_mask_len() - the prefix length of a netmask
 * @mask: the mask, network order
 * @len: its bytes
 *
 * Return: the number of leading one bits.
 */
unsigned int access_mask_len(const void *mask, size_t len)
{
	const uint8_t *m = mask;
	unsigned int bits = 0;
	size_t i;

	for (i = 0; i < len && m[i] == 0xff; i++)
		bits += 8;
	if (i < len)
		for (uint8_t b = m[i]; b & 0x80; b <<= 1)
			bits++;
	return bits;
}

/**
 * access_local_prefix() - the subnet of one of this host's addresses
 * @addr: the address, network order
 * @addr_len: 4 or 16
 * @p: receives the address's subnet, as its interface has it
 *
 * The allow list of a listener that was given none.
 *
 * Return: 0, -ENOENT when no interface has @addr, or -errno from
 * getifaddrs().
 */
int access_local_prefix(const void *addr, size_t addr_len,
			struct access_prefix *p)
{
	int family = addr_len == 4 ? AF_INET : AF_INET6;
	struct ifaddrs *ifa, *i;
	const void *a, *m;
	int err = -ENOENT;

	if (getifaddrs(&ifa))
		return -errno;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || !i->ifa_netmask ||
		    i->ifa_addr->sa_family != family)
			continue;
		if (family == AF_INET) {
			a = &((struct sockaddr_in *)i->ifa_addr)->sin_addr;
			m = &((struct sockaddr_in *)i->ifa_netmask)->sin_addr;
		} else {
			a = &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
			m = &((struct sockaddr_in6 *)i->ifa_netmask)->sin6_addr;
		}
		if (memcmp(a, addr, addr_len))
			continue;
		memset(p, 0, sizeof(*p));
		memcpy(p->addr, addr, addr_len);
		p->addr_len = addr_len;
		p->len = access_mask_len(m, addr_len);
		access_mask(p->addr, addr_len, p->len);
		err = 0;
		break;
	}
	freeifaddrs(ifa);
	return err;
}

static int access_hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/**
 * access_key_parse() - a key from its hex digits
 * @s: exactly 2 * KVPERF_WIRE_KEY_LEN hex digits, any case
 * @key: receives the key; untouched on error
 *
 * Return: 0; -EMSGSIZE if @s is not 32 characters long, -EILSEQ if one
 * is not a hex digit, -EDOM if the key is all zero (which means no key on
 * the wire). access_key_error() says it in words.
 */
int access_key_parse(const char *s, uint8_t key[KVPERF_WIRE_KEY_LEN])
{
	uint8_t k[KVPERF_WIRE_KEY_LEN], any = 0;
	int hi, lo, err = 0;
	size_t i;

	if (strlen(s) != 2 * KVPERF_WIRE_KEY_LEN)
		return -EMSGSIZE;
	for (i = 0; i < KVPERF_WIRE_KEY_LEN; i++) {
		hi = access_hex((unsigned char)s[2 * i]);
		lo = access_hex((unsigned char)s[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			err = -EILSEQ;
			break;
		}
		k[i] = hi << 4 | lo;
		any |= k[i];
	}
	if (!err && !any)
		err = -EDOM;
	if (!err)
		memcpy(key, k, sizeof(k));
	explicit_bzero(k, sizeof(k));
	return err;
}

/**
 * access_key_error() - what access_key_parse() found wrong, in words
 * @err: its return value
 *
 * Return: static text, without any character of the key.
 */
const char *access_key_error(int err)
{
	switch (err) {
	case -EMSGSIZE:
		return "not 32 characters long (a key is exactly 32 hex digits, 16 bytes)";
	case -EILSEQ:
		return "not all hex digits (a key is exactly 32 hex digits, 16 bytes)";
	case -EDOM:
		return "all zero, which means no key";
	default:
		return "not a key";
	}
}

/* A key file's hex digits, with white space around them, and no more. */
#define ACCESS_KEY_FILE_MAX	256

/**
 * access_key_file() - read a key from a file
 * @path: the file: the key's 32 hex digits, white space (a newline)
 *	  before and after allowed
 * @key: receives the key; untouched on error
 * @why: ACCESS_WHY_LEN bytes, what is wrong on error
 *
 * The file must be a regular file that neither group nor others may read
 * or write (chmod 600): a key others can read is no key.
 *
 * Return: 0, or a negative errno with @why set.
 */
int access_key_file(const char *path, uint8_t key[KVPERF_WIRE_KEY_LEN],
		    char *why)
{
	char buf[ACCESS_KEY_FILE_MAX + 1], *s, *e;
	struct stat st;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		err = -errno;
		snprintf(why, ACCESS_WHY_LEN, "cannot open it: %s",
			 strerror(-err));
		return err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		snprintf(why, ACCESS_WHY_LEN, "cannot stat it: %s",
			 strerror(-err));
		goto out;
	}
	err = -EINVAL;
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, ACCESS_WHY_LEN, "not a regular file");
		goto out;
	}
	/* read or write by group or others */
	if (st.st_mode & 0066) {
		err = -EPERM;
		snprintf(why, ACCESS_WHY_LEN,
			 "group or others may read or write it (mode %04o; chmod 600 it)",
			 (unsigned int)(st.st_mode & 07777));
		goto out;
	}
	n = read(fd, buf, sizeof(buf));
	if (n < 0) {
		err = -errno;
		snprintf(why, ACCESS_WHY_LEN, "cannot read it: %s",
			 strerror(-err));
		goto out;
	}
	if (n > ACCESS_KEY_FILE_MAX) {
		snprintf(why, ACCESS_WHY_LEN,
			 "longer than a key (32 hex digits) can be");
		goto out;
	}
	buf[n] = '\0';
	for (s = buf; isspace((unsigned char)*s); s++)
		;
	for (e = s + strlen(s); e > s && isspace((unsigned char)e[-1]); e--)
		;
	*e = '\0';
	err = access_key_parse(s, key);
	if (err)
		snprintf(why, ACCESS_WHY_LEN, "%s", access_key_error(err));
out:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return err;
}

/**
 * access_key_equal() - compare two keys in constant time
 * @a: one
 * @b: the other
 * @len: their length
 *
 * Every byte is looked at whatever the first difference: the time taken
 * says nothing about how much of a guessed key is right.
 *
 * Return: true if they are the same.
 */
bool access_key_equal(const uint8_t *a, const uint8_t *b, size_t len)
{
	uint8_t diff = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		diff |= a[i] ^ b[i];
		/* the compiler cannot know diff, so cannot stop early */
		__asm__ __volatile__("" : "+r" (diff));
	}
	return !diff;
}
