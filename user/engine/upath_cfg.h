/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user-path run's configuration: the run's configuration with the
 * module's defaults filled in and the module's checks applied, so that the
 * same request means the same run on either path.
 */
#ifndef KVPERF_UPATH_CFG_H
#define KVPERF_UPATH_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/kvperf_wire.h>

struct kv_run_cfg;

/* The module's defaults and limits: the spec's constants. */
#define UPATH_DEFAULT_ITERATIONS	KVPERF_LAT_ITERATIONS_DEFAULT
#define UPATH_DEFAULT_BW_ITERATIONS	KVPERF_BW_ITERATIONS_DEFAULT
#define UPATH_DEFAULT_WARMUP		KVPERF_WARMUP_DEFAULT
#define UPATH_DEFAULT_TX_DEPTH		KVPERF_TX_DEPTH_DEFAULT
#define UPATH_DEFAULT_SIGNAL_EVERY	KVPERF_SIGNAL_EVERY_DEFAULT
#define UPATH_ITERATIONS_MAX		KVPERF_ITERATIONS_MAX
#define UPATH_WARMUP_MAX		KVPERF_WARMUP_MAX
#define UPATH_INLINE_MAX		KVPERF_INLINE_MAX
#define UPATH_TIMEOUT_MS_MIN		KVPERF_TIMEOUT_MS_MIN
#define UPATH_TIMEOUT_MS_MAX		KVPERF_TIMEOUT_MS_MAX
#define UPATH_QPS_MAX			KVPERF_QPS_MAX
#define UPATH_TX_DEPTH_MAX		KVPERF_TX_DEPTH_MAX
#define UPATH_POST_LIST_MAX		KVPERF_POST_LIST_MAX
/* Sampling window of bandwidth runs without an interval. */
#define UPATH_WINDOW_MS			1000

/**
 * struct upath_cfg - what a user-path run does, as struct kvperf_run_cfg
 * @type: enum kvperf_run_type
 * @op: enum kvperf_op
 * @poll: enum kvperf_poll: busy polls the CQ, the others sleep on a
 *	  completion channel
 * @verify: check payloads
 * @stats: enum kvperf_stats_mode: latency, per-iteration statistics
 * @bidir: bandwidth, traffic both ways
 * @addr: the server's address, @addr_len bytes (4 or 16)
 * @addr_len: 4 or 16
 * @port: the server's port
 * @size: smallest message
 * @size_max: largest message
 * @iterations: per size, when @duration_ms is 0
 * @duration_ms: time per size instead
 * @warmup: unmeasured iterations per size
 * @warmup_ms: warm up for this long instead, when not 0
 * @inline_size: inline threshold
 * @timeout_ms: longest silence
 * @cpu: CPU of the measuring thread, or -1
 * @tx_depth: bandwidth, requests in flight per queue pair
 * @qps: bandwidth, queue pairs
 * @post_list: bandwidth, requests per post
 * @signal_every: bandwidth, completion moderation
 * @interval_ms: bandwidth, live-line interval (0: none asked)
 * @ncpus: bandwidth, entries in @cpus (0: one thread, on @cpu if set)
 * @cpus: bandwidth, each thread's CPU, ascending
 * @cpulist: bandwidth, @cpus as written, or ""
 * @key: the server's shared secret, all zero when none was given
 * @qd: I/O runs, I/Os outstanding per queue (@qps queues, @cpus theirs)
 * @segments: I/O runs, keyed segments per command
 * @read_pct: I/O runs, a mix's share of reads, 0 when not mixed
 * @reg: I/O runs, enum kvperf_io_reg: pre (registered once) or mw
 * @inv: I/O runs with reg mw, enum kvperf_io_inv: who invalidates
 * @inline_data: I/O runs, most in-capsule data of a write
 * @bss: I/O runs, a sweep of block sizes, bit n for 2^n bytes (@size
 *	 the smallest, @size_max the largest); 0: @size only
 */
struct upath_cfg {
	uint8_t type;
	uint8_t op;
	uint8_t poll;
	bool verify;
	uint8_t stats;
	bool bidir;
	uint8_t addr[16];
	int addr_len;
	uint16_t port;
	uint32_t size;
	uint32_t size_max;
	uint32_t iterations;
	uint32_t duration_ms;
	uint32_t warmup;
	uint32_t warmup_ms;
	uint32_t inline_size;
	uint32_t timeout_ms;
	int32_t cpu;
	uint32_t tx_depth;
	uint32_t qps;
	uint32_t post_list;
	uint32_t signal_every;
	uint32_t interval_ms;
	uint32_t ncpus;
	int16_t cpus[UPATH_QPS_MAX];
	char cpulist[256];
	uint8_t key[KVPERF_WIRE_KEY_LEN];
	uint32_t qd;
	uint32_t segments;
	uint8_t read_pct;
	uint8_t reg;
	uint8_t inv;
	uint32_t inline_data;
	uint32_t bss;
};

int upath_cfg_init(struct upath_cfg *cfg, const struct kv_run_cfg *o,
		   char *why, size_t len);
uint32_t upath_default_signal_every(uint32_t tx_depth);
uint32_t upath_cfg_nsizes(const struct upath_cfg *cfg);

#endif /* KVPERF_UPATH_CFG_H */
