/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user path's I/O host: one queue of an I/O run, as kmod/io_host.c
 * drives one, on libibverbs. There is no FRWR in user space: every block
 * is registered once, at start (the kernel path's reg pre); with reg mw
 * each I/O binds a type 2 memory window over its block instead, as the
 * kernel host's FRWR registers one.
 */
#ifndef KVPERF_UPATH_IO_HOST_H
#define KVPERF_UPATH_IO_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "upath_conn.h"
#include "upath_stats.h"

/* A mixed run's results: reads first, then writes (kmod/io.h). */
#define UPATH_IO_DIRS	2

/**
 * struct upath_io_params - what one queue of an I/O run does
 * @op: KVPERF_OP_READ or KVPERF_OP_WRITE
 * @read_pct: a mix: each I/O reads with this chance in percent; 0: @op
 * @bs: bytes per I/O
 * @qd: I/Os kept outstanding
 * @segments: keyed segments per command
 * @iterations: measured I/Os (when @duration_ns is 0)
 * @duration_ns: measure for this long instead
 * @warmup: unmeasured I/Os first
 * @warmup_ns: warm up for this long instead, when not 0
 * @verify: every byte of every I/O is checked
 * @inline_data: writes of at most this many bytes go in their command
 * @mw: reg mw: each I/O binds its slot's memory window over its block
 * @inv_local: with @mw, the host invalidates the window itself
 * @hist: the measured I/Os' latencies per direction; NULL: stats off
 * @seed: a mix's generator's start, not 0
 */
struct upath_io_params {
	uint8_t op;
	uint8_t read_pct;
	uint32_t bs;
	uint32_t qd;
	uint32_t segments;
	uint32_t iterations;
	uint64_t duration_ns;
	uint32_t warmup;
	uint64_t warmup_ns;
	bool verify;
	uint32_t inline_data;
	bool mw;
	bool inv_local;
	struct upath_hist *hist[UPATH_IO_DIRS];
	uint32_t seed;
};

/**
 * struct upath_io_result - what one queue measured, per direction
 * @ios: measured I/Os completed
 * @start_ns: the first measured submission
 * @elapsed_ns: from @start_ns to the last measured completion
 * @mismatches: reads whose data were wrong (verify)
 * @cpu_ns: with a histogram, the thread's CPU time from the first
 *	    measured submission to the end (its completions are its own)
 * @peer_cpu_ns: the target's CPU time, as its responses report it, from
 *		 the last response before the first measured submission to
 *		 the last measured one's
 * @reg_ns: reg mw, with a histogram: the measured I/Os' time preparing
 *	    their windows' binds, per direction
 * @inv_ns: reg mw, inv local, with a histogram: their time from the
 *	    response to the LOCAL_INV's completion, per direction
 */
struct upath_io_result {
	uint64_t ios[UPATH_IO_DIRS];
	uint64_t start_ns;
	uint64_t elapsed_ns;
	uint64_t mismatches[UPATH_IO_DIRS];
	uint64_t cpu_ns;
	uint64_t peer_cpu_ns;
	uint64_t reg_ns[UPATH_IO_DIRS];
	uint64_t inv_ns[UPATH_IO_DIRS];
};

struct upath_io_host;

void upath_io_host_conn_attr(const struct upath_io_params *p, uint8_t poll,
			     struct upath_conn_attr *attr);
struct upath_io_host *upath_io_host_create(struct upath_conn *c,
					   const struct upath_io_params *p);
int upath_io_host_start(struct upath_io_host *h);
int upath_io_host_run(struct upath_io_host *h, struct upath_io_result *r,
		      uint64_t *progress);
void upath_io_host_free(struct upath_io_host *h);

#endif /* KVPERF_UPATH_IO_HOST_H */
