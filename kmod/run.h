/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: benchmark runs, the client side.
 */
#ifndef _KVPERF_RUN_H
#define _KVPERF_RUN_H

#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <rdma/ib_verbs.h>

#include "conn.h"
#include "stats.h"

#define KVPERF_RUNS_MAX		32
#define KVPERF_RUNS_ACTIVE_MAX	8
#define KVPERF_RUN_ERROR_MAX	128
/* Histograms cover ten minutes per sample; longer ones count as that. */
#define KVPERF_HIST_MAX_NS	(600ULL * NSEC_PER_SEC)

/**
 * struct kvperf_run_cfg - what a run was asked to do
 * @type: enum kvperf_run_type
 * @op: enum kvperf_op
 * @poll: enum kvperf_poll
 * @verify: check every received payload
 * @size: (smallest) message size
 * @size_max: largest message size; the powers of two between are swept
 * @iterations: measured iterations per size (when @duration_ms is 0)
 * @duration_ms: time per size instead
 * @warmup: unmeasured iterations per size
 * @inline_size: inline threshold
 * @timeout_ms: longest silence before the run fails
 * @cpu: CPU of the run's thread, or -1
 * @addr: server address and port
 */
struct kvperf_run_cfg {
	u8 type;
	u8 op;
	u8 poll;
	bool verify;
	u32 size;
	u32 size_max;
	u32 iterations;
	u32 duration_ms;
	u32 warmup;
	u32 inline_size;
	u32 timeout_ms;
	s32 cpu;
	struct sockaddr_storage addr;
};

/**
 * struct kvperf_result - the statistics of one message size
 * @size: message size
 * @hist: the samples: latencies (half the round trip for send and write)
 * @stats: their summary, filled when the size completes
 * @mismatches: payloads that failed verification
 * @elapsed_ns: wall time of the measured iterations
 */
struct kvperf_result {
	u32 size;
	struct kvperf_hist hist;
	struct kvperf_stats stats;
	u64 mismatches;
	u64 elapsed_ns;
};

/**
 * struct kvperf_run - one run
 * @kobj: /sys/kernel/kvperf/runs/<id>; its release frees the run
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
 * @conn: the connection
 * @debugfs: /sys/kernel/debug/kvperf/runs/<id>
 * @pinned: bytes accounted with kvperf_pin()
 */
struct kvperf_run {
	struct kobject kobj;
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
	struct dentry *debugfs;
	size_t pinned;
};

int kvperf_run_start(const struct kvperf_run_cfg *cfg,
		     struct netlink_ext_ack *extack, u32 *id);
struct kvperf_run *kvperf_run_get(u32 id);
void kvperf_run_put(struct kvperf_run *run);
struct kvperf_run *kvperf_run_next(u32 *id);
int kvperf_run_stop(u32 id);
int kvperf_run_delete(u32 id);
void kvperf_runs_exit(void);
unsigned int kvperf_run_count(void);
u32 kvperf_run_divisor(const struct kvperf_run *run);

/* run_sysfs.c */
int kvperf_run_sysfs_add(struct kvperf_run *run);
extern const struct kobj_type kvperf_run_ktype;

#endif /* _KVPERF_RUN_H */
