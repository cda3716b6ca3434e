/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user path's latency loops, client and server side, as kmod/lat.c.
 */
#ifndef KVPERF_UPATH_LAT_H
#define KVPERF_UPATH_LAT_H

#include <stdbool.h>
#include <stdint.h>

struct upath_conn;
struct upath_hist;

/**
 * struct upath_lat_block - one message size of a latency run
 * @size: message size
 * @iterations: measured iterations, when @duration_ns is 0
 * @duration_ns: measure for this long instead
 * @warmup: unmeasured iterations first
 * @warmup_ns: warm up for this long instead, when not 0
 * @op: enum kvperf_op
 * @verify: check every received payload
 * @stats: time every iteration and record the measured ones in @hist;
 *	   when false no clock is read per iteration but to end a timed phase
 * @divisor: each sample is the round trip divided by this, rounded down
 * @hist: receives the sample of every measured iteration (@stats only)
 * @count: measured iterations
 * @mismatches: payloads that failed verification
 * @elapsed_ns: wall time of the measured iterations
 * @progress: counts every iteration
 */
struct upath_lat_block {
	uint32_t size;
	uint32_t iterations;
	uint64_t duration_ns;
	uint32_t warmup;
	uint64_t warmup_ns;
	uint8_t op;
	bool verify;
	bool stats;
	uint32_t divisor;
	struct upath_hist *hist;
	uint64_t count;
	uint64_t mismatches;
	uint64_t elapsed_ns;
	uint64_t *progress;
};

int upath_lat_run_block(struct upath_conn *c, struct upath_lat_block *b);
int upath_lat_serve(struct upath_conn *c, uint8_t op, bool verify,
		    uint64_t *served);

#endif /* KVPERF_UPATH_LAT_H */
