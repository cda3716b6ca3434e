/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: the latency loops, client and server side.
 */
#ifndef _KVPERF_LAT_H
#define _KVPERF_LAT_H

#include <linux/atomic.h>
#include <linux/types.h>

#include "conn.h"
#include "stats.h"

/**
 * struct kvperf_lat_block - one message size of a latency run
 * @size: message size
 * @iterations: measured iterations, when @duration_ns is 0
 * @duration_ns: measure for this long instead
 * @warmup: unmeasured iterations first
 * @warmup_ns: warm up for this long instead, when not 0
 * @op: enum kvperf_op
 * @verify: check every received payload
 * @stats: time every iteration and record the measured ones in @hist;
 *	   when false the loop reads no clock per iteration but to end a
 *	   timed phase
 * @divisor: each sample is the round trip divided by this (2 for half
 *	     the round trip), rounded down to the nanosecond
 * @hist: receives the sample of every measured iteration (@stats only)
 * @count: measured iterations
 * @mismatches: payloads that failed verification
 * @elapsed_ns: wall time of the measured iterations
 * @progress: counts every iteration, for the run's progress report
 * @tick: called about once a second while the block runs
 * @tick_arg: argument of @tick
 */
struct kvperf_lat_block {
	u32 size;
	u32 iterations;
	u64 duration_ns;
	u32 warmup;
	u64 warmup_ns;
	u8 op;
	bool verify;
	bool stats;
	u32 divisor;
	struct kvperf_hist *hist;
	u64 count;
	u64 mismatches;
	u64 elapsed_ns;
	atomic64_t *progress;
	void (*tick)(void *arg);
	void *tick_arg;
};

int kvperf_lat_run_block(struct kvperf_conn *c, struct kvperf_lat_block *b);
int kvperf_lat_serve(struct kvperf_conn *c, u8 op, bool verify,
		     atomic64_t *served);

#endif /* _KVPERF_LAT_H */
