// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/cli/args.c: prefix matching, number and address parsing.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "kvperf.h"
#include "unit.h"

static void args_matches_prefixes(void)
{
	CHECK(args_matches("d", "dev"));
	CHECK(args_matches("de", "dev"));
	CHECK(args_matches("dev", "dev"));
	CHECK(!args_matches("devx", "dev"));
	CHECK(!args_matches("e", "dev"));
	CHECK(!args_matches("", "dev"));
	CHECK(!args_matches("Dev", "dev"));
}

static const struct kvperf_cmd c_server = { .name = "server" };
static const struct kvperf_cmd c_show = { .name = "show" };
static const struct kvperf_cmd c_showall = { .name = "showall" };
static const struct kvperf_cmd c_run = { .name = "run" };

static void cli_lookup_table_order(void)
{
	static const struct kvperf_cmd *const t[] = {
		&c_server, &c_showall, &c_show, &c_run, NULL,
	};

	/* an exact match beats an earlier entry it is a prefix of */
	CHECK(cli_lookup(t, "show") == &c_show);
	/* otherwise the first entry in table order */
	CHECK(cli_lookup(t, "s") == &c_server);
	CHECK(cli_lookup(t, "sh") == &c_showall);
	CHECK(cli_lookup(t, "se") == &c_server);
	CHECK(cli_lookup(t, "r") == &c_run);
	CHECK(cli_lookup(t, "runs") == NULL);
	CHECK(cli_lookup(t, "x") == NULL);
	CHECK(cli_lookup(t, "") == NULL);
}

static void parse_u64_valid(void)
{
	uint64_t v;

	CHECK_INT(parse_u64("0", &v), 0);
	CHECK_U64(v, 0);
	CHECK_INT(parse_u64("42", &v), 0);
	CHECK_U64(v, 42);
	/* a leading zero is not octal */
	CHECK_INT(parse_u64("010", &v), 0);
	CHECK_U64(v, 10);
	CHECK_INT(parse_u64("0x10", &v), 0);
	CHECK_U64(v, 16);
	CHECK_INT(parse_u64("0XfF", &v), 0);
	CHECK_U64(v, 255);
	CHECK_INT(parse_u64("18446744073709551615", &v), 0);
	CHECK_U64(v, UINT64_MAX);
	CHECK_INT(parse_u64("0xffffffffffffffff", &v), 0);
	CHECK_U64(v, UINT64_MAX);
}

static void parse_u64_invalid(void)
{
	static const char *const bad[] = {
		"", " 1", "1 ", "-1", "+1", "1x", "12abc", "0x", "0xg",
		"x10", "1.5", "1e3", "--1", "0x-1", "0x 1", "0x0x1", "0x+1",
	};
	uint64_t v = 1234;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (parse_u64(bad[i], &v) != -EINVAL)
			unit_fail(__FILE__, __LINE__,
				  "parse_u64(\"%s\") did not return -EINVAL",
				  bad[i]);
	}
	CHECK_INT(parse_u64("18446744073709551616", &v), -ERANGE);
	CHECK_INT(parse_u64("0x10000000000000000", &v), -ERANGE);
	CHECK_INT(parse_u64("99999999999999999999999", &v), -ERANGE);
	/* errors leave the result alone */
	CHECK_U64(v, 1234);
}

static void parse_u32_range(void)
{
	uint32_t v = 7;

	CHECK_INT(parse_u32("4294967295", &v), 0);
	CHECK_U64(v, UINT32_MAX);
	CHECK_INT(parse_u32("0x1000", &v), 0);
	CHECK_U64(v, 4096);
	CHECK_INT(parse_u32("4294967296", &v), -ERANGE);
	CHECK_INT(parse_u32("0x100000000", &v), -ERANGE);
	CHECK_INT(parse_u32("-0", &v), -EINVAL);
	CHECK_U64(v, 4096);
}

static void parse_size_units(void)
{
	uint64_t v = 0;

	CHECK_INT(parse_size("64", &v), 0);
	CHECK_U64(v, 64);
	CHECK_INT(parse_size("4K", &v), 0);
	CHECK_U64(v, 4096);
	CHECK_INT(parse_size("4k", &v), 0);
	CHECK_U64(v, 4096);
	CHECK_INT(parse_size("8m", &v), 0);
	CHECK_U64(v, 8ULL << 20);
	CHECK_INT(parse_size("2G", &v), 0);
	CHECK_U64(v, 2ULL << 30);
	CHECK_INT(parse_size("1T", &v), 0);
	CHECK_U64(v, 1ULL << 40);
	CHECK_INT(parse_size("0x10k", &v), 0);
	CHECK_U64(v, 16384);
	CHECK_INT(parse_size("16777215T", &v), 0);
	CHECK_U64(v, 16777215ULL << 40);
	CHECK_INT(parse_size("16777216T", &v), -ERANGE);
	CHECK_INT(parse_size("17179869184G", &v), -ERANGE);
	CHECK_INT(parse_size("1KB", &v), -EINVAL);
	CHECK_INT(parse_size("K", &v), -EINVAL);
	CHECK_INT(parse_size("1P", &v), -EINVAL);
	CHECK_INT(parse_size("1 K", &v), -EINVAL);
	CHECK_INT(parse_size("", &v), -EINVAL);
	CHECK_U64(v, 16777215ULL << 40);
}

/*
 * parse_addr(@s) returns @len and writes @want, nothing past it; or
 * returns -EINVAL (@len) and writes nothing.
 */
static void check_addr(const char *s, int len, const uint8_t *want)
{
	uint8_t addr[16], untouched[16];
	int got;

	memset(addr, 0xaa, sizeof(addr));
	memset(untouched, 0xaa, sizeof(untouched));
	got = parse_addr(s, addr);
	if (got != len) {
		unit_fail(__FILE__, __LINE__, "parse_addr(\"%s\") is %d, want %d",
			  s, got, len);
		return;
	}
	if (len < 0) {
		if (memcmp(addr, untouched, sizeof(addr)))
			unit_fail(__FILE__, __LINE__,
				  "parse_addr(\"%s\") failed but wrote", s);
		return;
	}
	if (memcmp(addr, want, len))
		unit_fail(__FILE__, __LINE__, "parse_addr(\"%s\"): wrong bytes",
			  s);
	if (memcmp(addr + len, untouched, sizeof(addr) - len))
		unit_fail(__FILE__, __LINE__,
			  "parse_addr(\"%s\") wrote past %d bytes", s, len);
}

static void parse_addr_v4_v6(void)
{
	static const uint8_t v4[4] = { 198, 18, 0, 1 };
	static const uint8_t bench6[16] = {
		0x20, 0x01, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	};
	static const uint8_t bench6_1[16] = {
		0x20, 0x01, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1,
	};
	static const uint8_t mapped[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 1,
	};
	static const uint8_t ones[16] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	static const uint8_t none[16];
	static const char *const bad[] = {
		"", "198.18.0", "198.18.0.256", "198.18.0.1.1", " 198.18.0.1",
		"198.18.0.1 ", "2001:2::1::1", "2001:2::g", "[2001:2::1]",
		"[2001:2::1]:18515", "2001:2::1%kvd0", "fe80::1%1",
		"198.18.0.1:18515", "localhost", "2001:2:0:0:0:0:0:0:1",
	};
	size_t i;

	check_addr("198.18.0.1", 4, v4);
	check_addr("2001:2::1", 16, bench6);
	check_addr("2001:2:0:1::1", 16, bench6_1);
	check_addr("2001:0002:0000:0001:0000:0000:0000:0001", 16, bench6_1);
	check_addr("2001:2:0:1:0:0:0:1", 16, bench6_1);
	check_addr("::ffff:198.18.0.1", 16, mapped);
	check_addr("::", 16, none);
	check_addr("FFFF:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 16, ones);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		check_addr(bad[i], -EINVAL, NULL);
}

const struct unit_test unit_tests[] = {
	UNIT(args_matches_prefixes),
	UNIT(cli_lookup_table_order),
	UNIT(parse_u64_valid),
	UNIT(parse_u64_invalid),
	UNIT(parse_u32_range),
	UNIT(parse_size_units),
	UNIT(parse_addr_v4_v6),
	{ NULL },
};
