/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: the bandwidth loops - keeping work requests in flight on a set
 * of queue pairs, with post lists and selective signaling - and the
 * control exchange around each message size, client and server side.
 */
#ifndef _KVPERF_BW_H
#define _KVPERF_BW_H

#include <linux/atomic.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>

#include "conn.h"
#include "proto.h"

/**
 * struct kvperf_bw_params - the traffic of a bandwidth run
 * @op: enum kvperf_op
 * @tx_depth: work requests in flight per queue pair at most
 * @post_list: work requests per ib_post_send() call
 * @signal_every: ask for a completion at least this often
 * @iterations: measured messages per queue pair, when @duration_ns is 0
 * @duration_ns: measure for this long instead
 * @warmup: unmeasured messages per queue pair first
 * @warmup_ns: warm up for this long instead, when not 0
 */
struct kvperf_bw_params {
	u8 op;
	u32 tx_depth;
	u32 post_list;
	u32 signal_every;
	u32 iterations;
	u64 duration_ns;
	u32 warmup;
	u64 warmup_ns;
};

/**
 * struct kvperf_bw_slot - a signaled work request in flight
 * @cqe: its completion
 * @qp: the queue pair
 * @covered: work requests its completion retires (itself and the
 *	     unsignaled ones posted before it)
 */
struct kvperf_bw_slot {
	struct ib_cqe cqe;
	struct kvperf_bw_qp *qp;
	u32 covered;
};

/**
 * struct kvperf_bw_waiter - what the thread driving queue pairs sleeps on
 * @wq: woken by their completions and errors
 * @events: completions seen, to sleep without missing one
 * @task: the thread; completions outside it count as handler time
 */
struct kvperf_bw_waiter {
	wait_queue_head_t wq;
	atomic_t events;
	struct task_struct *task;
};

/**
 * struct kvperf_bw_qp - one queue pair's part of a bandwidth phase
 * @c: its connection
 * @p: the traffic
 * @waiter: the thread that drives it
 * @size: message size of the phase
 * @target: work requests to post in the phase, 0 to post until the
 *	    deadline
 * @posted: work requests posted in the phase
 * @unsignaled: posted since the last signaled one
 * @nsignaled: signaled ones posted in the phase (indexes @slots)
 * @finished: the phase posts nothing more
 * @completed: work requests completed in the phase
 * @start_ns: first post of the phase
 * @last_ns: last completion of the phase
 * @handler_ns: time spent in completion callbacks outside the thread
 * @slots: @p.tx_depth of them
 * @unsignaled_cqe: completion of an unsignaled request (only when
 *		    flushed)
 * @wrs: @p.post_list requests, chained
 * @sge: the SGEs every request of the phase uses
 * @nsge: entries in @sge
 * @inline_send: the messages go inline (@sge holds CPU addresses)
 */
struct kvperf_bw_qp {
	struct kvperf_conn *c;
	struct kvperf_bw_params p;
	struct kvperf_bw_waiter *waiter;
	u32 size;
	u64 target;
	u64 posted;
	u32 unsignaled;
	u64 nsignaled;
	bool finished;
	atomic64_t completed;
	u64 start_ns;
	u64 last_ns;
	atomic64_t handler_ns;
	struct kvperf_bw_slot *slots;
	struct ib_cqe unsignaled_cqe;
	struct ib_rdma_wr *wrs;
	struct ib_sge sge[KVPERF_MAX_SGE];
	u32 nsge;
	bool inline_send;
};

/**
 * struct kvperf_bw_block - one message size on one queue pair, as the
 *			    client sees it
 * @messages: measured messages completed
 * @elapsed_ns: first measured post to last completion
 * @start_ns: the first measured post
 * @end_ns: the last completion
 * @handler_ns: completion callback time outside the thread
 * @report: the server's account, host order
 */
struct kvperf_bw_block {
	u64 messages;
	u64 elapsed_ns;
	u64 start_ns;
	u64 end_ns;
	u64 handler_ns;
	struct {
		u64 received;
		u64 mismatches;
		u64 tx_messages;
		u64 tx_elapsed_ns;
	} report;
};

void kvperf_bw_waiter_init(struct kvperf_bw_waiter *w,
			   struct task_struct *task);
int kvperf_bw_qp_init(struct kvperf_bw_qp *q, struct kvperf_conn *c,
		      const struct kvperf_bw_params *p,
		      struct kvperf_bw_waiter *w);
void kvperf_bw_qp_destroy(struct kvperf_bw_qp *q);
void kvperf_bw_phase_start(struct kvperf_bw_qp *q, u32 size, bool warmup);
int kvperf_bw_drive(struct kvperf_bw_qp **qps, unsigned int n,
		    struct kvperf_bw_waiter *w, u64 deadline_ns,
		    unsigned long timeout);
int kvperf_bw_control(struct kvperf_conn *c, u8 op, u32 arg);
int kvperf_bw_finish(struct kvperf_bw_qp *q, struct kvperf_bw_block *b);
int kvperf_bw_serve(struct kvperf_bw_qp *q, bool verify, bool bidir,
		    atomic64_t *served);

#endif /* _KVPERF_BW_H */
