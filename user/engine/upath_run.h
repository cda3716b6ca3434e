/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user-path run: its configuration, state and results while it runs,
 * shaped as the module's struct kvperf_run; once it ended, the run model's
 * struct kv_run, which the kernel path's runs decode into too.
 */
#ifndef KVPERF_UPATH_RUN_H
#define KVPERF_UPATH_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "upath_cfg.h"
#include "upath_stats.h"

struct kv_run;
struct kv_run_cfg;

/**
 * struct upath_run_ops - what a user-path run reports while it runs
 * @progress: a bandwidth run closed a sampling window: @ev has the
 *	      interval's bytes, messages and length, the size and the
 *	      bytes so far (as the module's progress event); called on the
 *	      run's thread, may be NULL
 * @should_stop: polled while the run runs, from its threads; true stops
 *		 it (a signal caught by upath_catch_signals() does too); may
 *		 be NULL
 * @arg: passed to both
 */
struct upath_run_ops {
	void (*progress)(void *arg, const struct kv_run *ev);
	bool (*should_stop)(void *arg);
	void *arg;
};

/**
 * struct upath_lat_result - one message size of a latency run
 * @size: message size
 * @hist: its samples; NULL with stats off
 * @stats: their summary, once the size is done; with stats off only the
 *	   count and the mean
 * @mismatches: payloads that failed verification
 * @elapsed_ns: wall time of the measured iterations
 */
struct upath_lat_result {
	uint32_t size;
	struct upath_hist *hist;
	struct upath_stats stats;
	uint64_t mismatches;
	uint64_t elapsed_ns;
};

/**
 * struct upath_bw_qp_result - one queue pair in one size
 * @cpu: CPU of the thread that drove it, -1 when not bound
 * @messages: measured messages completed
 * @bytes: their bytes
 * @elapsed_ns: its first measured post to its last completion
 * @start_ns: its first measured post
 * @end_ns: its last completion
 * @peer_messages: send runs, what the server received on it
 */
struct upath_bw_qp_result {
	int32_t cpu;
	uint64_t messages;
	uint64_t bytes;
	uint64_t elapsed_ns;
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t peer_messages;
};

/**
 * struct upath_bw_result - one size of a bandwidth run, all queue pairs
 * @size: message size
 * @messages: measured messages completed, client to server
 * @bytes: their bytes
 * @elapsed_ns: first measured post to last completion, any queue pair
 * @peak_bps: best sampling window, bytes per second
 * @cpu_ns: CPU time of the worker threads in the measured phase
 * @mismatches: what the server found wrong
 * @peer_messages: send runs, messages the server received
 * @rx_messages: bidir runs, messages the server completed
 * @rx_bytes: their bytes
 * @rx_elapsed_ns: the server's longest measured phase
 * @qp: one entry per queue pair
 */
struct upath_bw_result {
	uint32_t size;
	uint64_t messages;
	uint64_t bytes;
	uint64_t elapsed_ns;
	uint64_t peak_bps;
	uint64_t cpu_ns;
	uint64_t mismatches;
	uint64_t peer_messages;
	uint64_t rx_messages;
	uint64_t rx_bytes;
	uint64_t rx_elapsed_ns;
	struct upath_bw_qp_result *qp;
};

/**
 * struct upath_io_queue_result - one queue's part of an I/O result
 * @cpu: CPU of its thread, -1 when not bound
 * @ios: its measured I/Os of the result's direction
 * @elapsed_ns: its first measured submission to its last completion
 * @mismatches: its reads whose data were wrong
 * @stats: its latencies' summary (stats off: the count and the mean)
 * @cpu_ns: its thread's CPU time (stats on)
 * @target_cpu_ns: the target's, as its responses said
 */
struct upath_io_queue_result {
	int32_t cpu;
	uint64_t ios;
	uint64_t elapsed_ns;
	uint64_t mismatches;
	struct upath_stats stats;
	uint64_t cpu_ns;
	uint64_t target_cpu_ns;
};

/**
 * struct upath_io_dir_result - an I/O run's result for one block size:
 *				 all of it, or a mix's reads' or writes'
 * @size: its block size
 * @op: its direction
 * @hist: its latencies, all queues' (stats on)
 * @stats: their summary (stats off: the count and the mean)
 * @elapsed_ns: the run's first measured submission to its last completion
 * @mismatches: reads whose data were wrong
 * @cpu_ns: the queues' threads' CPU time (stats on), the run's
 * @reg_ns: reg mw (stats on), the measured I/Os' time binding windows
 * @inv_ns: reg mw, inv local (stats on), their time invalidating them
 * @target_cpu_ns: the target's, the run's
 * @queue: one entry per queue
 */
struct upath_io_dir_result {
	uint32_t size;
	uint8_t op;
	struct upath_hist *hist;
	struct upath_stats stats;
	uint64_t elapsed_ns;
	uint64_t mismatches;
	uint64_t cpu_ns;
	uint64_t reg_ns;
	uint64_t inv_ns;
	uint64_t target_cpu_ns;
	struct upath_io_queue_result *queue;
};

/**
 * struct upath_run - one run of the user path
 * @cfg: what it does
 * @state: enum kvperf_run_state
 * @error: why it failed
 * @dev: the client's device
 * @kernel: the release of the running kernel
 * @mtu: the path MTU
 * @progress: latency: iterations done, warm-ups included; bandwidth:
 *	      measured messages; I/O: I/Os completed, warm-up included
 * @bytes: bandwidth, measured bytes
 * @nresults: sizes
 * @ndone: sizes done
 * @lat: latency results, @nresults of them
 * @bw: bandwidth results, @nresults of them
 * @io: I/O results, @nresults of them (a mix: the reads', the writes')
 * @ops: its reports, or NULL
 * @start_ns: when the run started
 * @reason: why it failed, when a queue's words outlive the queue
 */
struct upath_run {
	struct upath_cfg cfg;
	uint8_t state;
	char error[128];
	char dev[64];
	char kernel[65];
	uint32_t mtu;
	uint64_t progress;
	uint64_t bytes;
	uint32_t nresults;
	uint32_t ndone;
	struct upath_lat_result *lat;
	struct upath_bw_result *bw;
	struct upath_io_dir_result *io;
	const struct upath_run_ops *ops;
	uint64_t start_ns;
	char reason[128];
};

/* upath_run_io.c */
int upath_run_io(struct upath_run *run, const char **reason);

/* upath_run_bw.c */
int upath_run_bw(struct upath_run *run, const char **reason);

/* upath_run.c */
int upath_pin(int cpu);
void upath_run_progress(const struct upath_run *run, uint32_t size,
			uint64_t bytes, uint64_t messages, uint64_t ns);
bool upath_run_stopping(const struct upath_run *run);
int upath_run_result(const struct upath_run *run, struct kv_run *out);
int upath_run_exec(const struct kv_run_cfg *cfg,
		   const struct upath_run_ops *ops, struct kv_run *out,
		   const char **why);

#endif /* KVPERF_UPATH_RUN_H */
