// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/lib/access.c: allow prefixes parsed, matched and
 * printed; keys from hex digits and from files, whose messages never
 * show the key; the constant-time comparison.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "access.h"
#include "args.h"
#include "kvperf.h"
#include "unit.h"

static const char *prefix_str(const char *s, int *err)
{
	static char buf[ACCESS_PREFIX_LEN];
	struct access_prefix p;

	memset(&p, 0xee, sizeof(p));
	*err = access_prefix_parse(s, &p);
	if (*err)
		return "";
	return access_prefix_fmt(buf, &p);
}

#define PREFIX_OK(s, want)						\
	do {								\
		int e_;							\
		CHECK_STR(prefix_str((s), &e_), (want));		\
		CHECK_INT(e_, 0);					\
	} while (0)

#define PREFIX_ERR(s, want)						\
	do {								\
		int e_;							\
		prefix_str((s), &e_);					\
		CHECK_INT(e_, (want));					\
	} while (0)

static void access_prefix_parsing(void)
{
	struct access_prefix p;

	PREFIX_OK("198.18.0.0/24", "198.18.0.0/24");
	/* no length: the address alone */
	PREFIX_OK("198.18.0.1", "198.18.0.1/32");
	PREFIX_OK("fd00::1", "fd00::1/128");
	/* host bits are cleared */
	PREFIX_OK("198.18.3.7/16", "198.18.0.0/16");
	PREFIX_OK("198.18.255.255/23", "198.18.254.0/23");
	PREFIX_OK("fd00:1:2:3:4::1/64", "fd00:1:2:3::/64");
	PREFIX_OK("fd00::ff/121", "fd00::80/121");
	/* the bounds */
	PREFIX_OK("10.1.2.3/0", "0.0.0.0/0");
	PREFIX_OK("10.1.2.3/32", "10.1.2.3/32");
	PREFIX_OK("::/0", "::/0");
	PREFIX_OK("fd00::1/128", "fd00::1/128");
	PREFIX_OK("fd00::1/007", "fc00::/7");
	PREFIX_ERR("10.1.2.3/33", -ERANGE);
	PREFIX_ERR("fd00::/129", -ERANGE);
	PREFIX_ERR("fd00::/1000", -ERANGE);
	PREFIX_ERR("10.0.0.0/99999999999", -ERANGE);
	/* not a prefix */
	PREFIX_ERR("", -EINVAL);
	PREFIX_ERR("/24", -EINVAL);
	PREFIX_ERR("10.0.0.0/", -EINVAL);
	PREFIX_ERR("10.0.0.0/-1", -EINVAL);
	PREFIX_ERR("10.0.0.0/+8", -EINVAL);
	PREFIX_ERR("10.0.0.0/ 8", -EINVAL);
	PREFIX_ERR("10.0.0.0/0x8", -EINVAL);
	PREFIX_ERR("10.0.0.0/8/8", -EINVAL);
	PREFIX_ERR("10.0.0/8", -EINVAL);
	PREFIX_ERR("10.0.0.256", -EINVAL);
	PREFIX_ERR("fe80::1%eth0/64", -EINVAL);
	PREFIX_ERR("any", -EINVAL);
	PREFIX_ERR("localhost", -EINVAL);
	PREFIX_ERR("198.18.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0/8",
		   -EINVAL);

	/* untouched on error */
	memset(&p, 0x5a, sizeof(p));
	CHECK_INT(access_prefix_parse("10.0.0.0/40", &p), -ERANGE);
	CHECK_INT(p.addr_len, 0x5a);
	CHECK_INT(access_prefix_parse("fd00::/48", &p), 0);
	CHECK_INT(p.addr_len, 16);
	CHECK_INT(p.len, 48);
}

static const uint8_t in6[16] = { 0xfd, 0, 0xab, [15] = 1 };
static const uint8_t out6[16] = { 0xfd, 1, [15] = 1 };
static const uint8_t mask64[16] = { 255, 255, 255, 255, 255, 255, 255, 255 };
static const uint8_t mask128[16] = {
	255, 255, 255, 255, 255, 255, 255, 255,
	255, 255, 255, 255, 255, 255, 255, 255,
};

static bool match(const char *prefix, const char *addr)
{
	struct access_prefix p, a;

	if (access_prefix_parse(prefix, &p) || access_prefix_parse(addr, &a))
		unit_fail(__FILE__, __LINE__, "bad test input %s %s", prefix,
			  addr);
	return access_prefix_match(&p, a.addr, a.addr_len);
}

static void access_prefix_matching(void)
{
	struct access_prefix list[3];

	CHECK(match("198.18.0.0/24", "198.18.0.1"));
	CHECK(match("198.18.0.0/24", "198.18.0.255"));
	CHECK(!match("198.18.0.0/24", "198.18.1.0"));
	CHECK(match("198.18.0.0/15", "198.19.255.255"));
	CHECK(!match("198.18.0.0/15", "198.20.0.0"));
	CHECK(match("198.18.0.1/25", "198.18.0.127"));
	CHECK(!match("198.18.0.1/25", "198.18.0.128"));
	/* /0 matches everything of its family */
	CHECK(match("0.0.0.0/0", "1.2.3.4"));
	CHECK(match("0.0.0.0/0", "255.255.255.255"));
	CHECK(match("::/0", "fd00::1"));
	/* /32 and /128: that address alone */
	CHECK(match("10.0.0.1/32", "10.0.0.1"));
	CHECK(!match("10.0.0.1/32", "10.0.0.0"));
	CHECK(!match("10.0.0.1", "10.0.0.3"));
	CHECK(match("fd00::1", "fd00::1"));
	CHECK(!match("fd00::1/128", "fd00::2"));
	CHECK(!match("fd00::1/128", "fd00::1:0:0:1"));
	CHECK(match("fd00::/64", "fd00::ffff:ffff:ffff:ffff"));
	CHECK(!match("fd00::/64", "fd00:0:0:1::"));
	CHECK(match("fd00::80/121", "fd00::ff"));
	CHECK(!match("fd00::80/121", "fd00::7f"));
	/* families never mix, not even at /0 or mapped */
	CHECK(!match("0.0.0.0/0", "fd00::1"));
	CHECK(!match("::/0", "198.18.0.1"));
	CHECK(!match("198.18.0.1", "::ffff:198.18.0.1"));
	CHECK(!match("::ffff:198.18.0.1", "198.18.0.1"));

	/* a list: any of them */
	access_prefix_parse("10.0.0.0/8", &list[0]);
	access_prefix_parse("fd00::/16", &list[1]);
	access_prefix_parse("192.0.2.7", &list[2]);
	CHECK(access_allowed(list, 3, (const uint8_t []){ 10, 9, 8, 7 }, 4));
	CHECK(access_allowed(list, 3, (const uint8_t []){ 192, 0, 2, 7 }, 4));
	CHECK(!access_allowed(list, 3, (const uint8_t []){ 192, 0, 2, 8 },
			      4));
	CHECK(access_allowed(list, 3, in6, 16));
	CHECK(!access_allowed(list, 3, out6, 16));
	/* an empty list allows nobody; a length not 4 or 16 is nobody */
	CHECK(!access_allowed(list, 0, (const uint8_t []){ 10, 0, 0, 1 }, 4));
	CHECK(!access_allowed(list, 3, (const uint8_t []){ 10, 0, 0, 1 }, 0));
}

static void access_masks(void)
{
	CHECK_INT(access_mask_len((const uint8_t []){ 255, 255, 255, 0 }, 4),
		  24);
	CHECK_INT(access_mask_len((const uint8_t []){ 255, 255, 254, 0 }, 4),
		  23);
	CHECK_INT(access_mask_len((const uint8_t []){ 0, 0, 0, 0 }, 4), 0);
	CHECK_INT(access_mask_len((const uint8_t []){ 255, 255, 255, 255 },
				  4), 32);
	CHECK_INT(access_mask_len(mask64, 16), 64);
	CHECK_INT(access_mask_len(mask128, 16), 128);
}

static const uint8_t key1[16] = {
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
	0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
};

static void access_key_parsing(void)
{
	uint8_t key[16];

	memset(key, 0x5a, sizeof(key));
	CHECK_INT(access_key_parse("00112233445566778899aabbccddeeff", key),
		  0);
	CHECK(!memcmp(key, key1, 16));
	memset(key, 0x5a, sizeof(key));
	CHECK_INT(access_key_parse("00112233445566778899AABBCCDDEEFF", key),
		  0);
	CHECK(!memcmp(key, key1, 16));

	memset(key, 0x5a, sizeof(key));
	/* 31, 33 and 0 digits */
	CHECK_INT(access_key_parse("00112233445566778899aabbccddeef", key),
		  -EMSGSIZE);
	CHECK_INT(access_key_parse("00112233445566778899aabbccddeeff0", key),
		  -EMSGSIZE);
	CHECK_INT(access_key_parse("", key), -EMSGSIZE);
	/* not hex: anywhere, with a prefix, with blanks */
	CHECK_INT(access_key_parse("g0112233445566778899aabbccddeeff", key),
		  -EILSEQ);
	CHECK_INT(access_key_parse("00112233445566778899aabbccddeefg", key),
		  -EILSEQ);
	CHECK_INT(access_key_parse("0x112233445566778899aabbccddeeff", key),
		  -EILSEQ);
	CHECK_INT(access_key_parse("00112233445566778899aabbccddee f", key),
		  -EILSEQ);
	/* all zero means no key */
	CHECK_INT(access_key_parse("00000000000000000000000000000000", key),
		  -EDOM);
	/* untouched on error */
	CHECK_INT(key[0], 0x5a);
	CHECK_INT(key[15], 0x5a);

	CHECK_STR(access_key_error(-EMSGSIZE),
		  "not 32 characters long (a key is exactly 32 hex digits, 16 bytes)");
	CHECK_STR(access_key_error(-EILSEQ),
		  "not all hex digits (a key is exactly 32 hex digits, 16 bytes)");
	CHECK_STR(access_key_error(-EDOM), "all zero, which means no key");
}

/* A key file with @text, mode @mode; its path in @path. */
static void key_file(char *path, const char *text, mode_t mode)
{
	int fd;

	snprintf(path, 64, "/tmp/kvperf-unit-key.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    fchmod(fd, mode))
		unit_fail(__FILE__, __LINE__, "cannot write a key file");
	if (fd >= 0)
		close(fd);
}

static int read_key(const char *text, mode_t mode, uint8_t *key, char *why)
{
	char path[64];
	int err;

	key_file(path, text, mode);
	why[0] = '\0';
	err = access_key_file(path, key, why);
	unlink(path);
	return err;
}

static void access_key_files(void)
{
	char why[ACCESS_WHY_LEN];
	uint8_t key[16];

	memset(key, 0, sizeof(key));
	CHECK_INT(read_key("00112233445566778899aabbccddeeff\n", 0600, key,
			   why), 0);
	CHECK(!memcmp(key, key1, 16));
	CHECK_STR(why, "");
	memset(key, 0, sizeof(key));
	CHECK_INT(read_key("  \t00112233445566778899AABBCCDDEEFF \r\n\n", 0400,
			   key, why), 0);
	CHECK(!memcmp(key, key1, 16));

	/* readable or writable by others: refused, whatever it holds */
	CHECK_INT(read_key("00112233445566778899aabbccddeeff\n", 0644, key,
			   why), -EPERM);
	CHECK_STR(why, "group or others may read or write it (mode 0644; chmod 600 it)");
	CHECK_INT(read_key("00112233445566778899aabbccddeeff\n", 0640, key,
			   why), -EPERM);
	CHECK_INT(read_key("00112233445566778899aabbccddeeff\n", 0604, key,
			   why), -EPERM);
	CHECK_INT(read_key("00112233445566778899aabbccddeeff\n", 0620, key,
			   why), -EPERM);
	CHECK_STR(why, "group or others may read or write it (mode 0620; chmod 600 it)");

	/* the format; the messages have none of the file's characters */
	CHECK_INT(read_key("", 0600, key, why), -EMSGSIZE);
	CHECK_STR(why, access_key_error(-EMSGSIZE));
	CHECK_INT(read_key("00112233445566778899aabbccddeef\n", 0600, key,
			   why), -EMSGSIZE);
	CHECK_INT(read_key("0011223344556677 8899aabbccddeeff\n", 0600, key,
			   why), -EMSGSIZE);
	CHECK_INT(read_key("secretsecretsecretsecretsecret12", 0600, key,
			   why), -EILSEQ);
	CHECK(!strstr(why, "secret"));
	CHECK_INT(read_key("00000000000000000000000000000000\n", 0600, key,
			   why), -EDOM);
	CHECK_INT(read_key("00112233445566778899aabbccddeeff\n"
			   "00112233445566778899aabbccddeeff\n", 0600, key,
			   why), -EMSGSIZE);

	/* what is not a readable file */
	CHECK_INT(access_key_file("/nonexistent/kvperf.key", key, why),
		  -ENOENT);
	CHECK_STR(why, "cannot open it: No such file or directory");
	CHECK_INT(access_key_file("/", key, why), -EINVAL);
	CHECK_STR(why, "not a regular file");
	if (geteuid()) {
		/* root reads what it may not */
		CHECK_INT(read_key("00112233445566778899aabbccddeeff\n", 0200,
				   key, why), -EACCES);
		CHECK_STR(why, "cannot open it: Permission denied");
	}
}

static void access_key_args(void)
{
	struct kvperf kv = { 0 };
	struct capture out, err;
	char path[64];
	uint8_t key[16];

	kv.out = cap_open(&out);
	kv.err = cap_open(&err);
	CHECK_INT(access_key_arg(&kv, "run", false,
				 "00112233445566778899aabbccddeeff", key),
		  KVPERF_EXIT_OK);
	CHECK(!memcmp(key, key1, 16));
	CHECK_INT(access_key_arg(&kv, "run", false,
				 "0011223344556677zz99aabbccddeeff", key),
		  KVPERF_EXIT_USAGE);
	CHECK_STR(cap_str(&err),
		  "kvperf: invalid key: not all hex digits (a key is exactly 32 hex digits, 16 bytes) (try 'kvperf run help')\n");
	cap_close(&err);

	kv.err = cap_open(&err);
	key_file(path, "00112233445566778899aabbccddeeff\n", 0644);
	CHECK_INT(access_key_arg(&kv, "server", true, path, key),
		  KVPERF_EXIT_ERROR);
	CHECK(strstr(cap_str(&err), "': group or others may read or write it (mode 0644; chmod 600 it)\n"));
	CHECK(!strstr(err.buf, "0011"));
	unlink(path);
	CHECK_STR(cap_str(&out), "");
	cap_close(&out);
	cap_close(&err);
}

static void access_key_compare(void)
{
	uint8_t a[16], b[16];
	size_t i;

	memcpy(a, key1, 16);
	memcpy(b, key1, 16);
	CHECK(access_key_equal(a, b, 16));
	CHECK(access_key_equal(a, b, 0));
	/* a difference anywhere, in any bit */
	for (i = 0; i < 16 * 8; i++) {
		b[i / 8] ^= 1 << (i % 8);
		if (access_key_equal(a, b, 16))
			unit_fail(__FILE__, __LINE__, "bit %zu not seen", i);
		b[i / 8] ^= 1 << (i % 8);
	}
	/* all different, and differences that cancel out in a sum */
	memset(b, 0, 16);
	CHECK(!access_key_equal(a, b, 16));
	memcpy(b, key1, 16);
	b[0]++;
	b[1]--;
	CHECK(!access_key_equal(a, b, 16));
	/* the length bounds it */
	memcpy(b, key1, 16);
	b[15] ^= 0x80;
	CHECK(access_key_equal(a, b, 15));
}

const struct unit_test unit_tests[] = {
	UNIT(access_prefix_parsing),
	UNIT(access_prefix_matching),
	UNIT(access_masks),
	UNIT(access_key_parsing),
	UNIT(access_key_files),
	UNIT(access_key_args),
	UNIT(access_key_compare),
	{ NULL },
};
