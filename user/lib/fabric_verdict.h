/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdicts of a fabric run: which measurements are out of tolerance,
 * and from the pairs measured, which hosts and which links are bad.
 *
 * A pair is bad when its latency is above lat_x1000 / 1000 times the
 * fabric's lowest, or its bandwidth below bw_pct percent of the fabric's
 * highest (ClusterKit's defaults: 2.1 times, 93 %).
 *
 * A host is judged from the partners it was measured with (a pair's
 * last measurement counts): clean with no bad partner; bad with two
 * partners or more, all bad; fine but on a bad link with bad partners
 * and good ones; suspect with one partner, bad, and no good one (its
 * pair cannot tell the host from the link). A bad pair is a bad link
 * when neither end is bad or suspect. fabric_retest() pairs each suspect
 * host with a partner known good that it has not met, so that another
 * round tells.
 */
#ifndef KVPERF_FABRIC_VERDICT_H
#define KVPERF_FABRIC_VERDICT_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric_sched.h"

#define FABRIC_TOL_LAT_X1000	2100	/* 2.1 times the lowest */
#define FABRIC_TOL_BW_PCT	93	/* 93 % of the highest */

struct fabric_tol {
	uint32_t lat_x1000;	/* 1001 to 1000000 */
	uint32_t bw_pct;	/* 1 to 99 */
};

/* Is a latency of @ns bad when the fabric's lowest is @min_ns? */
bool fabric_lat_bad(const struct fabric_tol *tol, uint64_t ns,
		    uint64_t min_ns);

/* Is a bandwidth of @bps bad when the fabric's highest is @max_bps? */
bool fabric_bw_bad(const struct fabric_tol *tol, uint64_t bps,
		   uint64_t max_bps);

/* One pair measured, and whether it was within tolerance. */
struct fabric_meas {
	struct fabric_pair pair;
	bool bad;
};

enum fabric_host_state {
	FABRIC_HOST_CLEAN,	/* no bad partner */
	FABRIC_HOST_LINK,	/* bad partners and good ones */
	FABRIC_HOST_SUSPECT,	/* one partner, bad */
	FABRIC_HOST_BAD,	/* two partners or more, all bad */
};

/*
 * Judge the @nhosts hosts from the @nmeas measurements in @meas (later
 * ones of a pair replace earlier ones) into @state (nhosts entries).
 * Returns false, judging nothing, when a pair names a host out of range
 * or itself, or memory runs out.
 */
bool fabric_judge(unsigned int nhosts, const struct fabric_meas *meas,
		  unsigned int nmeas, enum fabric_host_state *state);

/* Is the bad pair @p a bad link, by the hosts' @state? */
bool fabric_link_bad(const enum fabric_host_state *state,
		     struct fabric_pair p);

/*
 * A round of re-tests into @out (room for nhosts / 2 pairs): each
 * suspect host, in list order, with the first host it has not been
 * measured with that is clean or on a bad link (known good) and not in
 * this round yet. Returns the pairs; 0 when no suspect can be paired
 * (or on an error, as fabric_judge()).
 */
unsigned int fabric_retest(unsigned int nhosts, const struct fabric_meas *meas,
			   unsigned int nmeas, struct fabric_pair *out);

#endif
