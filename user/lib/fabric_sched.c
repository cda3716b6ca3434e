// SPDX-License-Identifier: GPL-2.0
/*
 * The schedule of a fabric run (see fabric_sched.h).
 *
 * The circle method: with m = n rounded up to even, the last place m - 1
 * stays fixed and the others turn one step a round. In round r, place r
 * meets the fixed one and, for k = 1 to m / 2 - 1, place r + k meets place
 * r - k (modulo m - 1). Each round is a perfect matching of the m places,
 * and over the m - 1 rounds every two places meet once: places p and q
 * (neither fixed) meet in the one round r with 2r = p + q (mod m - 1),
 * which exists and is unique because m - 1 is odd. For n odd the fixed
 * place is a phantom: whoever meets it sits that round out.
 */
#include <stdint.h>

#include "fabric_sched.h"

bool fabric_hosts_ok(unsigned int nhosts)
{
	return nhosts >= 2 && nhosts <= FABRIC_HOSTS_MAX;
}

/* The places of the circle: the hosts, plus a phantom for an odd count. */
static unsigned int fabric_places(unsigned int nhosts)
{
	return nhosts + (nhosts & 1);
}

unsigned int fabric_rounds(unsigned int nhosts, bool quick)
{
	if (!fabric_hosts_ok(nhosts))
		return 0;
	return quick ? 1 : fabric_places(nhosts) - 1;
}

unsigned int fabric_round_pairs(unsigned int nhosts, bool quick)
{
	(void)quick;	/* a quick round pairs as many */
	return fabric_hosts_ok(nhosts) ? nhosts / 2 : 0;
}

static void fabric_put(struct fabric_pair *p, unsigned int x, unsigned int y)
{
	p->a = x < y ? x : y;
	p->b = x < y ? y : x;
}

unsigned int fabric_round(unsigned int nhosts, bool quick,
			  unsigned int round, struct fabric_pair *out)
{
	unsigned int m, turn, k, n = 0, half = nhosts / 2;

	if (round >= fabric_rounds(nhosts, quick))
		return 0;
	if (quick) {
		for (k = 0; k < half; k++)
			fabric_put(&out[n++], k, k + half);
		return n;
	}
	m = fabric_places(nhosts);
	turn = m - 1;
	/* the fixed place; for an odd count the phantom, so round sits out */
	if (m - 1 < nhosts)
		fabric_put(&out[n++], round, m - 1);
	for (k = 1; k < m / 2; k++)
		fabric_put(&out[n++], (round + k) % turn,
			   (round + turn - k) % turn);
	return n;
}

uint64_t fabric_sched_ns(unsigned int nhosts, bool quick, uint64_t round_ns)
{
	uint64_t rounds = fabric_rounds(nhosts, quick);

	if (rounds && round_ns > UINT64_MAX / rounds)
		return UINT64_MAX;
	return rounds * round_ns;
}
