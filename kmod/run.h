/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: benchmark runs, the client side.
 */
#ifndef _KVPERF_RUN_H
#define _KVPERF_RUN_H

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <rdma/ib_verbs.h>

#include "bw.h"
#include "conn.h"
#include "stats.h"

#define KVPERF_RUNS_MAX		32
#define KVPERF_RUNS_ACTIVE_MAX	8
#define KVPERF_RUN_ERROR_MAX	128
/* Histograms cover ten minutes per sample; longer ones count as that. */
#define KVPERF_HIST_MAX_NS	(600ULL * NSEC_PER_SEC)
/* Longest CPU list a bandwidth run takes, as text with its NUL. */
#define KVPERF_CPULIST_MAX	(KVPERF_CPUS_LEN_MAX + 1)
/* Rate samples kept per bandwidth run (an hour of the default windows). */
#define KVPERF_BW_SERIES_MAX	3600
/* Sampling window of bandwidth runs that ask for no interval. */
#define KVPERF_BW_WINDOW_MS	1000

/**
 * struct kvperf_run_cfg - what a run was asked to do
 * @type: enum kvperf_run_type
 * @op: enum kvperf_op
 * @poll: enum kvperf_poll
 * @verify: check every received payload
 * @stats: enum kvperf_stats_mode: latency runs, per-iteration statistics
 * @post_context: enum kvperf_post_context: the context the client's
 *		  data-path work requests are posted from
 * @size: (smallest) message size
 * @size_max: largest message size; the powers of two between are swept
 * @iterations: measured iterations per size (when @duration_ms is 0)
 * @duration_ms: time per size instead
 * @warmup: unmeasured iterations per size
 * @warmup_ms: warm up for this long instead, when not 0
 * @inline_size: inline threshold
 * @timeout_ms: longest silence before the run fails
 * @cpu: CPU of the run's thread, or -1
 * @addr: server address and port
 * @tx_depth: bandwidth, work requests in flight per queue pair
 * @qps: bandwidth, queue pairs
 * @post_list: bandwidth, work requests per post call
 * @signal_every: bandwidth, completion moderation
 * @interval_ms: bandwidth, progress interval (0: none asked)
 * @bidir: bandwidth, traffic in both directions
 * @ncpus: bandwidth, entries in @cpus (0: one thread, on @cpu if set)
 * @cpus: bandwidth, the CPU of each thread
 * @cpulist: bandwidth, @cpus as the user wrote them
 * @qd: I/O runs, I/Os kept outstanding
 * @inv: I/O runs, enum kvperf_io_inv
 * @segments: I/O runs, keyed segments per command
 * @read_pct: I/O runs, percent of reads of a mixed run; 0: every I/O is @op
 * @reg: I/O runs, enum kvperf_io_reg
 * @inline_data: I/O runs, most bytes of a write carried in its command
 *		 (0: none)
 * @bss: I/O runs, a sweep: bit n measures blocks of 2^n bytes, each in
 *	 turn (@size the smallest, @size_max the largest); 0: @size only
 * @key: the server's shared secret, zero without one; never reported
 */
struct kvperf_run_cfg {
	u8 type;
	u8 op;
	u8 poll;
	bool verify;
	u8 stats;
	u8 post_context;
	u32 size;
	u32 size_max;
	u32 iterations;
	u32 duration_ms;
	u32 warmup;
	u32 warmup_ms;
	u32 inline_size;
	u32 timeout_ms;
	s32 cpu;
	struct sockaddr_storage addr;
	u32 tx_depth;
	u32 qps;
	u32 post_list;
	u32 signal_every;
	u32 interval_ms;
	bool bidir;
	u8 ncpus;
	s16 cpus[KVPERF_QPS_MAX];
	char cpulist[KVPERF_CPULIST_MAX];
	u32 qd;
	u8 inv;
	u32 segments;
	u8 read_pct;
	u8 reg;
	u32 inline_data;
	u32 bss;
	u8 key[KVPERF_WIRE_KEY_LEN];
};

/**
 * struct kvperf_bw_qp_result - one queue pair in one size of a bandwidth run
 * @cpu: CPU of the thread that drove it, -1 when not bound
 * @messages: measured messages completed
 * @bytes: their bytes
 * @elapsed_ns: its first measured post to its last completion
 * @start_ns: its first measured post (ktime_get_ns())
 * @end_ns: its last completion
 * @peer_messages: send runs, what the server received on it
 */
struct kvperf_bw_qp_result {
	s32 cpu;
	u64 messages;
	u64 bytes;
	u64 elapsed_ns;
	u64 start_ns;
	u64 end_ns;
	u64 peer_messages;
};

/**
 * struct kvperf_bw_result - one size of a bandwidth run, all queue pairs
 * @size: message size
 * @messages: measured messages completed, client to server
 * @bytes: their bytes
 * @elapsed_ns: first measured post to last completion, any queue pair
 * @peak_bps: highest rate of a sampling window, bytes per second
 * @cpu_ns: CPU time of the threads and outside completion callbacks
 * @mismatches: verify runs, what the server found wrong
 * @peer_messages: send runs, messages the server received
 * @rx_messages: bidir runs, messages the server completed
 * @rx_bytes: their bytes
 * @rx_elapsed_ns: the server's longest measured phase
 * @qp: one entry per queue pair
 */
struct kvperf_bw_result {
	u32 size;
	u64 messages;
	u64 bytes;
	u64 elapsed_ns;
	u64 peak_bps;
	u64 cpu_ns;
	u64 mismatches;
	u64 peer_messages;
	u64 rx_messages;
	u64 rx_bytes;
	u64 rx_elapsed_ns;
	struct kvperf_bw_qp_result *qp;
};

/**
 * struct kvperf_bw_sample - one sampling window of a bandwidth run
 * @size: message size
 * @t_ns: end of the window, since the run started
 * @ns: length of the window
 * @messages: messages completed in it
 */
struct kvperf_bw_sample {
	u32 size;
	u64 t_ns;
	u64 ns;
	u64 messages;
};

/**
 * struct kvperf_run_qp - a queue pair of a bandwidth run
 * @conn: its connection
 * @bw: its bandwidth state
 * @index: its number in the run
 * @cpu: CPU of its thread, or -1
 */
struct kvperf_run_qp {
	struct kvperf_conn conn;
	struct kvperf_bw_qp bw;
	u32 index;
	int cpu;
};

/**
 * struct kvperf_bw_worker - a thread of a bandwidth run
 * @run: the run
 * @index: its number
 * @cpu: its CPU, or -1
 * @task: the thread; holds a reference
 * @waiter: what it sleeps on
 * @qps: its queue pairs
 * @nqps: how many
 */
struct kvperf_bw_worker {
	struct kvperf_run *run;
	u32 index;
	int cpu;
	struct task_struct *task;
	struct kvperf_bw_waiter waiter;
	struct kvperf_bw_qp *qps[KVPERF_QPS_MAX];
	unsigned int nqps;
};

/**
 * struct kvperf_run_bw - the bandwidth part of a run
 * @qps: its queue pairs
 * @workers: its threads
 * @nworkers: how many
 * @results: one per size
 * @wq: the run thread and the workers wait on each other here
 * @connected: workers whose queue pairs are all connected
 * @ready: workers ready to measure, cumulated over the sizes
 * @done: workers done measuring, cumulated over the sizes
 * @next: sizes the workers may begin
 * @go: sizes whose measured phase has begun
 * @go_ns: when the current one began
 * @abort: a worker failed or the run is stopping: all end
 * @err: the first failure
 * @reason: its text
 * @start_ns: when the run's thread started
 * @bytes: measured bytes so far, all sizes
 * @series: the sampling windows; under the run's lock
 * @nseries: entries in @series
 * @series_dropped: windows that did not fit
 */
struct kvperf_run_bw {
	struct kvperf_run_qp *qps;
	struct kvperf_bw_worker *workers;
	u32 nworkers;
	struct kvperf_bw_result *results;
	wait_queue_head_t wq;
	atomic_t connected;
	atomic_t ready;
	atomic_t done;
	atomic_t next;
	atomic_t go;
	u64 go_ns;
	bool abort;
	int err;
	const char *reason;
	u64 start_ns;
	atomic64_t bytes;
	struct kvperf_bw_sample *series;
	u32 nseries;
	u64 series_dropped;
};

/**
 * struct kvperf_io_queue_result - one queue of an I/O run, one direction
 * @cpu: CPU of its thread, or -1 when not bound
 * @ios: measured I/Os completed
 * @elapsed_ns: its first measured submission to its last completion
 * @mismatches: reads whose data were wrong (verify)
 * @stats: its I/Os' latencies (stats on), or its rate (stats off)
 * @cpu_ns: the host's CPU time for the queue, both directions (stats on)
 * @target_cpu_ns: the target's for the queue, both directions
 */
struct kvperf_io_queue_result {
	s32 cpu;
	u64 ios;
	u64 elapsed_ns;
	u64 mismatches;
	struct kvperf_stats stats;
	u64 cpu_ns;
	u64 target_cpu_ns;
};

/**
 * struct kvperf_run_io - the queues of an I/O run, while it runs
 * @bs: the block size being measured (one step of a sweep)
 * @ios_before: I/Os of the sweep's steps before this one
 * @queues: one per connection (run_io.c)
 * @wq: the run's thread and the queues' threads wait on it
 * @connected: queues connected and ready to measure
 * @go: set when every queue is ready: they start together
 * @done: queues that finished their I/Os
 * @abort: a queue failed: every one ends
 * @err: the first failure
 * @reason: its reason
 */
struct kvperf_run_io {
	u32 bs;
	u64 ios_before;
	struct kvperf_io_queue *queues;
	wait_queue_head_t wq;
	atomic_t connected;
	bool go;
	atomic_t done;
	bool abort;
	int err;
	const char *reason;
};

/**
 * struct kvperf_result - the statistics of one message size
 * @size: message size
 * @op: I/O runs, the direction of the result's I/Os
 * @hist: the samples: latencies (half the round trip for send and write);
 *	  no buckets when the run has stats off
 * @stats: their summary, filled when the size completes; with stats off
 *	   only the count and the mean
 * @mismatches: payloads that failed verification
 * @elapsed_ns: wall time of the measured iterations
 * @reg_ns: I/O runs, the I/Os' time registering, summed (stats on)
 * @inv_ns: I/O runs, the I/Os' time waiting for a LOCAL_INV, summed
 * @cpu_ns: I/O runs, the host's CPU time, all queues (stats on)
 * @target_cpu_ns: I/O runs, the target's CPU time, all queues
 * @queue: I/O runs, each queue's part (cfg.qps of them)
 */
struct kvperf_result {
	u32 size;
	u8 op;
	struct kvperf_hist hist;
	struct kvperf_stats stats;
	u64 mismatches;
	u64 elapsed_ns;
	u64 reg_ns;
	u64 inv_ns;
	u64 cpu_ns;
	u64 target_cpu_ns;
	struct kvperf_io_queue_result *queue;
};

/**
 * struct kvperf_run - one run
 * @ref: references: the run table's, kvperf_run_get()'s and
 *	 kvperf_run_hold()'s; the last kvperf_run_put() frees the run
 * @id: the run's id
 * @cfg: its configuration
 * @lock: protects the fields below that change while it runs
 * @state: enum kvperf_run_state
 * @error: why it failed
 * @dev: device it uses
 * @mtu: path MTU of its connection
 * @results: one per size
 * @nresults: entries in @results
 * @ndone: sizes completed; their results no longer change
 * @progress: iterations completed, all sizes
 * @task: the run's thread; holds a reference
 * @stop: a stop was requested
 * @conn: the connection (latency runs)
 * @bw: the queue pairs, threads and results of bandwidth runs
 * @io: the queues and threads of I/O runs
 * @sysfs: the sysfs observer's objects of the run; the engine never
 *	   looks at them
 * @debugfs: the debugfs observer's directory of the run; the same
 * @pinned: what it accounted for with kvperf_pin() in the runs' pool
 * @cpu_offline: its CPU went offline between the check and the start
 */
struct kvperf_run {
	struct kref ref;
	u32 id;
	struct kvperf_run_cfg cfg;
	struct mutex lock;	/* see the kernel-doc above */
	u8 state;
	char error[KVPERF_RUN_ERROR_MAX];
	char dev[IB_DEVICE_NAME_MAX];
	u32 mtu;
	struct kvperf_result *results;
	u32 nresults;
	u32 ndone;
	atomic64_t progress;
	struct task_struct *task;
	bool stop;
	struct kvperf_conn conn;
	struct kvperf_run_bw bw;
	struct kvperf_run_io io;
	struct kvperf_run_sysfs *sysfs;
	struct dentry *debugfs;
	struct kvperf_footprint pinned;
	bool cpu_offline;
};

int kvperf_run_start(const struct kvperf_run_cfg *cfg,
		     struct netlink_ext_ack *extack, u32 *id);
struct kvperf_run *kvperf_run_get(u32 id);
struct kvperf_run *kvperf_run_hold(struct kvperf_run *run);
void kvperf_run_put(struct kvperf_run *run);
struct kvperf_run *kvperf_run_next(u32 *id);
int kvperf_run_stop(u32 id);
int kvperf_run_delete(u32 id);
void kvperf_runs_exit(void);
unsigned int kvperf_run_count(void);
u32 kvperf_run_divisor(const struct kvperf_run *run);
bool kvperf_run_should_stop(void *arg);
void kvperf_run_set_state(struct kvperf_run *run, u8 state);
int kvperf_run_connect(struct kvperf_run *run, struct kvperf_conn *c,
		       const struct kvperf_conn_attr *attr);

/* run_bw.c */
int kvperf_run_bw_alloc(struct kvperf_run *run);
void kvperf_run_bw_free(struct kvperf_run *run);
int kvperf_run_bw(struct kvperf_run *run);
void kvperf_run_bw_conn_attr(const struct kvperf_run_cfg *cfg, int node,
			     struct kvperf_conn_attr *attr);

/* run_io.c */
int kvperf_run_io(struct kvperf_run *run);
void kvperf_run_io_footprint(const struct kvperf_run_cfg *cfg,
			     struct kvperf_footprint *f);

#endif /* _KVPERF_RUN_H */
