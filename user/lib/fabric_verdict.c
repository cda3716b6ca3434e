// SPDX-License-Identifier: GPL-2.0
/*
 * The verdicts of a fabric run (see fabric_verdict.h).
 */
#include <stdlib.h>

#include "fabric_verdict.h"

bool fabric_lat_bad(const struct fabric_tol *tol, uint64_t ns,
		    uint64_t min_ns)
{
	/* ns > min * x / 1000, in 128 bits: no product overflows */
	return (__uint128_t)ns * 1000 >
	       (__uint128_t)min_ns * tol->lat_x1000;
}

bool fabric_bw_bad(const struct fabric_tol *tol, uint64_t bps,
		   uint64_t max_bps)
{
	return (__uint128_t)bps * 100 <
	       (__uint128_t)max_bps * tol->bw_pct;
}

/* A bit per ordered pair of places, a < b: a * n + b. */
static uint8_t *fabric_bits(unsigned int nhosts)
{
	return calloc((size_t)nhosts * nhosts / 8 + 1, 1);
}

static bool fabric_bit(const uint8_t *bits, unsigned int nhosts,
		       struct fabric_pair p)
{
	size_t i = (size_t)p.a * nhosts + p.b;

	return bits[i / 8] & (1u << (i % 8));
}

static void fabric_bit_set(uint8_t *bits, unsigned int nhosts,
			   struct fabric_pair p)
{
	size_t i = (size_t)p.a * nhosts + p.b;

	bits[i / 8] |= 1u << (i % 8);
}

static bool fabric_pair_ok(unsigned int nhosts, struct fabric_pair p)
{
	return p.a < p.b && p.b < nhosts;
}

/*
 * The pairs measured, each once by its last measurement, into @met (a
 * bit each); each host's good and bad partners counted.
 */
static bool fabric_count(unsigned int nhosts, const struct fabric_meas *meas,
			 unsigned int nmeas, uint8_t *met, uint32_t *good,
			 uint32_t *bad)
{
	unsigned int i;

	for (i = 0; i < nmeas; i++)
		if (!fabric_pair_ok(nhosts, meas[i].pair))
			return false;
	for (i = nmeas; i-- > 0;) {
		struct fabric_pair p = meas[i].pair;
		uint32_t *count = meas[i].bad ? bad : good;

		if (fabric_bit(met, nhosts, p))
			continue;
		fabric_bit_set(met, nhosts, p);
		count[p.a]++;
		count[p.b]++;
	}
	return true;
}

static bool fabric_judge_met(unsigned int nhosts,
			     const struct fabric_meas *meas,
			     unsigned int nmeas, enum fabric_host_state *state,
			     uint8_t *met)
{
	uint32_t *good = calloc(nhosts, sizeof(*good));
	uint32_t *bad = calloc(nhosts, sizeof(*bad));
	bool ok = good && bad &&
		  fabric_count(nhosts, meas, nmeas, met, good, bad);
	unsigned int h;

	for (h = 0; ok && h < nhosts; h++) {
		if (!bad[h])
			state[h] = FABRIC_HOST_CLEAN;
		else if (good[h])
			state[h] = FABRIC_HOST_LINK;
		else if (bad[h] == 1)
			state[h] = FABRIC_HOST_SUSPECT;
		else
			state[h] = FABRIC_HOST_BAD;
	}
	free(good);
	free(bad);
	return ok;
}

bool fabric_judge(unsigned int nhosts, const struct fabric_meas *meas,
		  unsigned int nmeas, enum fabric_host_state *state)
{
	uint8_t *met;
	bool ok;

	if (!fabric_hosts_ok(nhosts))
		return false;
	met = fabric_bits(nhosts);
	ok = met && fabric_judge_met(nhosts, meas, nmeas, state, met);
	free(met);
	return ok;
}

bool fabric_link_bad(const enum fabric_host_state *state,
		     struct fabric_pair p)
{
	return state[p.a] == FABRIC_HOST_LINK && state[p.b] == FABRIC_HOST_LINK;
}

static bool fabric_known_good(enum fabric_host_state s)
{
	return s == FABRIC_HOST_CLEAN || s == FABRIC_HOST_LINK;
}

unsigned int fabric_retest(unsigned int nhosts, const struct fabric_meas *meas,
			   unsigned int nmeas, struct fabric_pair *out)
{
	enum fabric_host_state *state;
	uint8_t *met, *busy;
	unsigned int s, p, n = 0;

	if (!fabric_hosts_ok(nhosts))
		return 0;
	state = calloc(nhosts, sizeof(*state));
	met = fabric_bits(nhosts);
	busy = calloc(nhosts, 1);
	if (!state || !met || !busy ||
	    !fabric_judge_met(nhosts, meas, nmeas, state, met))
		goto out;
	for (s = 0; s < nhosts; s++) {
		if (state[s] != FABRIC_HOST_SUSPECT || busy[s])
			continue;
		for (p = 0; p < nhosts; p++) {
			struct fabric_pair q = {
				.a = s < p ? s : p,
				.b = s < p ? p : s,
			};

			if (p == s || busy[p] || !fabric_known_good(state[p]) ||
			    fabric_bit(met, nhosts, q))
				continue;
			out[n++] = q;
			busy[s] = busy[p] = 1;
			break;
		}
	}
out:
	free(state);
	free(met);
	free(busy);
	return n;
}
