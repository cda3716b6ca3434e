/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The schedule of a fabric run: which hosts of a list measure each other
 * in which round. A round's pairs are disjoint (no host in two of them),
 * so that they run at once; hosts are numbered by their place in the
 * list, 0 to n - 1.
 *
 * full:  every pair of the n hosts exactly once, in the rounds of the
 *        circle method: n - 1 rounds of n / 2 pairs for n even; n rounds
 *        of (n - 1) / 2 pairs for n odd, each host sitting one round out.
 * quick: one round, the lower half of the list against the upper half
 *        (host i with host i + n / 2); for n odd the last host sits out.
 */
#ifndef KVPERF_FABRIC_SCHED_H
#define KVPERF_FABRIC_SCHED_H

#include <stdbool.h>
#include <stdint.h>

/* The most hosts a fabric run takes. */
#define FABRIC_HOSTS_MAX	4096

struct fabric_pair {
	uint16_t a;	/* the lower place in the list */
	uint16_t b;
};

/* Does a schedule of @nhosts hosts exist (2 to FABRIC_HOSTS_MAX)? */
bool fabric_hosts_ok(unsigned int nhosts);

/* The rounds of a schedule of @nhosts hosts; 0 for a count out of range. */
unsigned int fabric_rounds(unsigned int nhosts, bool quick);

/* The most pairs of a round of that schedule (each holds that many). */
unsigned int fabric_round_pairs(unsigned int nhosts, bool quick);

/*
 * The pairs of round @round (0 to fabric_rounds() - 1) into @out, which
 * holds fabric_round_pairs(); returns how many, 0 for a round or a count
 * out of range.
 */
unsigned int fabric_round(unsigned int nhosts, bool quick,
			  unsigned int round, struct fabric_pair *out);

/*
 * The time a schedule takes when each round takes @round_ns: its rounds
 * times that, saturated at UINT64_MAX.
 */
uint64_t fabric_sched_ns(unsigned int nhosts, bool quick, uint64_t round_ns);

#endif
