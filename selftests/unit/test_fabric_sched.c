// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/lib/fabric_sched.c: every schedule of 2 to 300 hosts
 * and of the counts around powers of two up to 4096 pairs every two hosts
 * exactly once, in rounds of disjoint pairs, as many rounds and pairs as
 * documented; the quick round matches the lower half of the list with
 * the upper; counts out of range have no schedule; the time a schedule
 * takes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fabric_sched.h"
#include "unit.h"

/*
 * check_full NHOSTS: each round disjoint, each pair once in all; returns
 * false (after the first failure reported) when not.
 */
static bool check_full(unsigned int n)
{
	unsigned int rounds = fabric_rounds(n, false);
	unsigned int per = fabric_round_pairs(n, false);
	unsigned int want = n % 2 ? n : n - 1, r, i, got, seen_pairs = 0;
	struct fabric_pair *pairs = calloc(per ? per : 1, sizeof(*pairs));
	uint8_t *met = calloc((size_t)n * n / 8 + 1, 1);
	uint32_t *in_round = calloc(n, sizeof(*in_round));
	bool ok = pairs && met && in_round;

	if (!ok)
		unit_fail(__FILE__, __LINE__, "%u hosts: out of memory", n);
	if (ok && (rounds != want || per != n / 2)) {
		unit_fail(__FILE__, __LINE__,
			  "%u hosts: %u rounds of %u pairs, want %u of %u", n,
			  rounds, per, want, n / 2);
		ok = false;
	}
	for (r = 0; ok && r < rounds; r++) {
		got = fabric_round(n, false, r, pairs);
		if (got != (n % 2 ? (n - 1) / 2 : n / 2)) {
			unit_fail(__FILE__, __LINE__,
				  "%u hosts, round %u: %u pairs", n, r, got);
			ok = false;
		}
		for (i = 0; ok && i < got; i++) {
			unsigned int a = pairs[i].a, b = pairs[i].b;
			size_t bit = (size_t)a * n + b;

			if (a >= b || b >= n) {
				unit_fail(__FILE__, __LINE__,
					  "%u hosts, round %u: pair %u-%u", n,
					  r, a, b);
				ok = false;
			} else if (in_round[a] == r + 1 || in_round[b] == r + 1) {
				unit_fail(__FILE__, __LINE__,
					  "%u hosts, round %u: %u-%u, a host twice",
					  n, r, a, b);
				ok = false;
			} else if (met[bit / 8] & (1u << (bit % 8))) {
				unit_fail(__FILE__, __LINE__,
					  "%u hosts, round %u: %u-%u again", n,
					  r, a, b);
				ok = false;
			}
			in_round[a] = in_round[b] = r + 1;
			met[bit / 8] |= 1u << (bit % 8);
			seen_pairs++;
		}
	}
	if (ok && seen_pairs != n * (n - 1) / 2) {
		unit_fail(__FILE__, __LINE__, "%u hosts: %u pairs, want %u", n,
			  seen_pairs, n * (n - 1) / 2);
		ok = false;
	}
	/* past the last round there is none */
	if (ok && fabric_round(n, false, rounds, pairs) != 0) {
		unit_fail(__FILE__, __LINE__, "%u hosts: a round %u", n, rounds);
		ok = false;
	}
	free(pairs);
	free(met);
	free(in_round);
	return ok;
}

static void full_small(void)
{
	unsigned int n;

	for (n = 2; n <= 300; n++)
		if (!check_full(n))
			return;
}

static void full_large(void)
{
	static const unsigned int counts[] = {
		511, 512, 513, 1000, 1023, 1024, 1025, 2047, 2048, 4095, 4096,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(counts); i++)
		if (!check_full(counts[i]))
			return;
}

static void full_four(void)
{
	struct fabric_pair p[2];
	unsigned int r, got;
	char buf[64];
	/* the circle method's rounds for hosts 0-3, as pairs */
	static const char *const want[] = { "0-3 1-2", "1-3 0-2", "2-3 0-1" };

	for (r = 0; r < 3; r++) {
		got = fabric_round(4, false, r, p);
		CHECK_INT(got, 2);
		snprintf(buf, sizeof(buf), "%u-%u %u-%u", p[0].a, p[0].b,
			 p[1].a, p[1].b);
		CHECK_STR(buf, want[r]);
	}
}

static void full_odd_sits_out(void)
{
	struct fabric_pair p[2];
	unsigned int r, i, got, sat[5] = { 0 };

	/* five hosts: five rounds of two pairs, each host out once */
	for (r = 0; r < 5; r++) {
		unsigned int in = 0;

		got = fabric_round(5, false, r, p);
		CHECK_INT(got, 2);
		for (i = 0; i < got; i++)
			in |= 1u << p[i].a | 1u << p[i].b;
		for (i = 0; i < 5; i++)
			sat[i] += !(in & 1u << i);
	}
	for (i = 0; i < 5; i++)
		CHECK_INT(sat[i], 1);
}

static void quick_round(void)
{
	struct fabric_pair p[FABRIC_HOSTS_MAX / 2];
	static const unsigned int counts[] = { 2, 3, 4, 7, 8, 100, 4095, 4096 };
	unsigned int i, k, n, got;

	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		n = counts[i];
		CHECK_INT(fabric_rounds(n, true), 1);
		got = fabric_round(n, true, 0, p);
		CHECK_INT(got, n / 2);
		for (k = 0; k < got; k++)
			if (p[k].a != k || p[k].b != k + n / 2) {
				unit_fail(__FILE__, __LINE__,
					  "%u hosts, the quick round's pair %u: %u-%u", n,
					  k, p[k].a, p[k].b);
				return;
			}
		CHECK_INT(fabric_round(n, true, 1, p), 0);
	}
}

static void out_of_range(void)
{
	struct fabric_pair p[1];

	CHECK(!fabric_hosts_ok(0));
	CHECK(!fabric_hosts_ok(1));
	CHECK(fabric_hosts_ok(2));
	CHECK(fabric_hosts_ok(FABRIC_HOSTS_MAX));
	CHECK(!fabric_hosts_ok(FABRIC_HOSTS_MAX + 1));
	CHECK_INT(fabric_rounds(1, false), 0);
	CHECK_INT(fabric_rounds(1, true), 0);
	CHECK_INT(fabric_rounds(FABRIC_HOSTS_MAX + 1, false), 0);
	CHECK_INT(fabric_round_pairs(FABRIC_HOSTS_MAX + 1, false), 0);
	CHECK_INT(fabric_round(1, false, 0, p), 0);
	CHECK_INT(fabric_round(FABRIC_HOSTS_MAX + 1, true, 0, p), 0);
}

static void durations(void)
{
	/* a second a round: 4096 hosts take 4095 s, quick 1 s */
	CHECK_U64(fabric_sched_ns(4096, false, 1000000000ULL),
		  4095000000000ULL);
	CHECK_U64(fabric_sched_ns(4096, true, 1000000000ULL), 1000000000ULL);
	CHECK_U64(fabric_sched_ns(5, false, 3), 15);
	CHECK_U64(fabric_sched_ns(1, false, 3), 0);
	CHECK_U64(fabric_sched_ns(4096, false, UINT64_MAX / 2), UINT64_MAX);
}

const struct unit_test unit_tests[] = {
	UNIT(full_four),
	UNIT(full_odd_sits_out),
	UNIT(full_small),
	UNIT(full_large),
	UNIT(quick_round),
	UNIT(out_of_range),
	UNIT(durations),
	{ NULL },
};
