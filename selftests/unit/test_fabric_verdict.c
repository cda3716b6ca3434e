// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/lib/fabric_verdict.c: the tolerances at their edges
 * and without overflow; a bad host and a bad link told apart on a full
 * schedule; on a quick one, a bad pair's two hosts re-tested with known
 * good partners, and the next round telling the host from the link;
 * a pair's last measurement counting; bad pairs refused.
 */
#include <stdint.h>
#include <string.h>

#include "fabric_verdict.h"
#include "unit.h"

/* room for a round of re-tests of up to 8 hosts */
static struct fabric_pair room[4];

static const struct fabric_tol tol = {
	.lat_x1000 = FABRIC_TOL_LAT_X1000,
	.bw_pct = FABRIC_TOL_BW_PCT,
};

static void tolerances(void)
{
	/* 2.1 x 1000 ns: 2100 is within, 2101 is not */
	CHECK(!fabric_lat_bad(&tol, 2100, 1000));
	CHECK(fabric_lat_bad(&tol, 2101, 1000));
	CHECK(!fabric_lat_bad(&tol, 1000, 1000));
	/* 93 % of 100: 93 is within, 92 is not */
	CHECK(!fabric_bw_bad(&tol, 93, 100));
	CHECK(fabric_bw_bad(&tol, 92, 100));
	CHECK(!fabric_bw_bad(&tol, 100, 100));
	/* no product overflows 64 bits */
	CHECK(!fabric_lat_bad(&tol, UINT64_MAX, UINT64_MAX));
	CHECK(fabric_lat_bad(&tol, UINT64_MAX, UINT64_MAX / 3));
	CHECK(!fabric_bw_bad(&tol, UINT64_MAX, UINT64_MAX));
	CHECK(fabric_bw_bad(&tol, UINT64_MAX / 2, UINT64_MAX));
}

/*
 * full NHOSTS HOST A B M: every pair of the full schedule into M, bad if
 * it has HOST or is A-B (-1: none); returns how many.
 */
static unsigned int full(unsigned int n, int host, int a, int b,
			 struct fabric_meas *m)
{
	struct fabric_pair p[8];
	unsigned int r, i, k, nm = 0;

	for (r = 0; r < fabric_rounds(n, false); r++) {
		k = fabric_round(n, false, r, p);
		for (i = 0; i < k; i++) {
			m[nm].pair = p[i];
			m[nm].bad = p[i].a == host || p[i].b == host ||
				    (p[i].a == a && p[i].b == b);
			nm++;
		}
	}
	return nm;
}

static void states(const enum fabric_host_state *s, unsigned int n,
		   char *buf)
{
	static const char code[] = { 'c', 'l', 's', 'B' };
	unsigned int h;

	for (h = 0; h < n; h++)
		buf[h] = code[s[h]];
	buf[n] = '\0';
}

static void full_bad_host(void)
{
	struct fabric_meas m[64];
	enum fabric_host_state s[8];
	unsigned int nm = full(8, 5, -1, -1, m);
	char buf[9];

	CHECK(fabric_judge(8, m, nm, s));
	states(s, 8, buf);
	/* host 5 bad; the others fine, each with one bad partner (5) */
	CHECK_STR(buf, "lllllBll");
	CHECK(!fabric_link_bad(s, (struct fabric_pair){ 2, 5 }));
	CHECK_INT(fabric_retest(8, m, nm, room), 0);
}

static void full_bad_link(void)
{
	struct fabric_meas m[64];
	enum fabric_host_state s[8];
	unsigned int nm = full(8, -1, 2, 6, m);
	char buf[9];

	CHECK(fabric_judge(8, m, nm, s));
	states(s, 8, buf);
	/* hosts 2 and 6 fine, each with one bad partner; their link bad */
	CHECK_STR(buf, "cclccclc");
	CHECK(fabric_link_bad(s, (struct fabric_pair){ 2, 6 }));
	CHECK_INT(fabric_retest(8, m, nm, room), 0);
}

static void quick_then_retest(void)
{
	/* quick round of 6: 0-3 1-4 2-5; host 4 bad */
	struct fabric_meas m[16] = {
		{ { 0, 3 }, false }, { { 1, 4 }, true }, { { 2, 5 }, false },
	};
	struct fabric_pair p[3];
	enum fabric_host_state s[6];
	unsigned int nm = 3, k, i;
	char buf[7];

	CHECK(fabric_judge(6, m, nm, s));
	states(s, 6, buf);
	/* 1 and 4: one partner each, bad; host or link cannot be told */
	CHECK_STR(buf, "csccsc");
	CHECK(!fabric_link_bad(s, (struct fabric_pair){ 1, 4 }));
	/* each suspect with the first known-good host it has not met */
	k = fabric_retest(6, m, nm, p);
	CHECK_INT(k, 2);
	CHECK(k == 2 && p[0].a == 0 && p[0].b == 1);
	CHECK(k == 2 && p[1].a == 2 && p[1].b == 4);
	/* host 4 is bad with its new partner too, host 1 is not */
	for (i = 0; i < k; i++) {
		m[nm].pair = p[i];
		m[nm].bad = p[i].a == 4 || p[i].b == 4;
		nm++;
	}
	CHECK(fabric_judge(6, m, nm, s));
	states(s, 6, buf);
	CHECK_STR(buf, "cllcBc");
	CHECK(!fabric_link_bad(s, (struct fabric_pair){ 1, 4 }));
	CHECK_INT(fabric_retest(6, m, nm, p), 0);
}

static void quick_bad_link(void)
{
	/* the same round; 1-4 is a bad link: both hosts good elsewhere */
	struct fabric_meas m[8] = {
		{ { 0, 3 }, false }, { { 1, 4 }, true }, { { 2, 5 }, false },
		{ { 0, 1 }, false }, { { 2, 4 }, false },
	};
	enum fabric_host_state s[6];
	char buf[7];

	CHECK(fabric_judge(6, m, 5, s));
	states(s, 6, buf);
	CHECK_STR(buf, "clcclc");
	CHECK(fabric_link_bad(s, (struct fabric_pair){ 1, 4 }));
}

static void last_counts(void)
{
	/* 0-1 bad, then good when measured again */
	struct fabric_meas m[3] = {
		{ { 0, 1 }, true }, { { 0, 2 }, false }, { { 0, 1 }, false },
	};
	enum fabric_host_state s[3];
	char buf[4];

	CHECK(fabric_judge(3, m, 3, s));
	states(s, 3, buf);
	CHECK_STR(buf, "ccc");
	m[2].bad = true;
	m[0].bad = false;
	CHECK(fabric_judge(3, m, 3, s));
	states(s, 3, buf);
	CHECK_STR(buf, "lsc");
}

static void refused(void)
{
	struct fabric_meas m[1] = { { { 1, 1 }, false } };
	enum fabric_host_state s[4] = { FABRIC_HOST_BAD };

	CHECK(!fabric_judge(4, m, 1, s));
	m[0].pair = (struct fabric_pair){ 2, 1 };
	CHECK(!fabric_judge(4, m, 1, s));
	m[0].pair = (struct fabric_pair){ 1, 4 };
	CHECK(!fabric_judge(4, m, 1, s));
	CHECK(!fabric_judge(1, m, 0, s));
	/* nothing judged */
	CHECK_INT(s[0], FABRIC_HOST_BAD);
	CHECK_INT(fabric_retest(4, m, 1, room), 0);
}

const struct unit_test unit_tests[] = {
	UNIT(tolerances),
	UNIT(full_bad_host),
	UNIT(full_bad_link),
	UNIT(quick_then_retest),
	UNIT(quick_bad_link),
	UNIT(last_counts),
	UNIT(refused),
	{ NULL },
};
