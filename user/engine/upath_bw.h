/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user path's bandwidth loops: work requests kept in flight on a set
 * of queue pairs with post lists and selective signaling, and the control
 * exchange around each message size, client and server side, as
 * kmod/bw.c.
 */
#ifndef KVPERF_UPATH_BW_H
#define KVPERF_UPATH_BW_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "upath_conn.h"
#include "upath_wire.h"

/**
 * struct upath_bw_params - the traffic of a bandwidth run
 * @op: enum kvperf_op
 * @tx_depth: work requests in flight per queue pair at most
 * @post_list: work requests per ibv_post_send() call
 * @signal_every: ask for a completion at least this often
 * @iterations: measured messages per queue pair, when @duration_ns is 0
 * @duration_ns: measure for this long instead
 * @warmup: unmeasured messages per queue pair first
 * @warmup_ns: warm up for this long instead, when not 0
 */
struct upath_bw_params {
	uint8_t op;
	uint32_t tx_depth;
	uint32_t post_list;
	uint32_t signal_every;
	uint32_t iterations;
	uint64_t duration_ns;
	uint32_t warmup;
	uint64_t warmup_ns;
};

struct upath_bw_qp;

/**
 * struct upath_bw_slot - a signaled work request in flight
 * @cqe: its completion
 * @q: the queue pair
 * @covered: work requests its completion retires (itself and the
 *	     unsignaled ones posted before it)
 */
struct upath_bw_slot {
	struct upath_cqe cqe;
	struct upath_bw_qp *q;
	uint32_t covered;
};

/**
 * struct upath_bw_qp - one queue pair's part of a bandwidth phase
 * @c: its connection
 * @p: the traffic
 * @size: message size of the phase
 * @target: work requests to post in the phase, 0 to post until the
 *	    deadline
 * @posted: work requests posted in the phase
 * @unsignaled: posted since the last signaled one
 * @nsignaled: signaled ones posted in the phase (indexes @slots)
 * @finished: the phase posts nothing more
 * @completed: work requests completed in the phase; read by the run's
 *	       sampling thread too
 * @start_ns: first post of the phase
 * @last_ns: last completion of the phase
 * @slots: @p.tx_depth of them
 * @unsignaled_cqe: completion of an unsignaled request (errors only)
 * @wrs: @p.post_list requests, chained
 * @sge: the one SGE every request of the phase uses
 */
struct upath_bw_qp {
	struct upath_conn *c;
	struct upath_bw_params p;
	uint32_t size;
	uint64_t target;
	uint64_t posted;
	uint32_t unsignaled;
	uint64_t nsignaled;
	bool finished;
	uint64_t completed;
	uint64_t start_ns;
	uint64_t last_ns;
	struct upath_bw_slot *slots;
	struct upath_cqe unsignaled_cqe;
	struct ibv_send_wr *wrs;
	struct ibv_sge sge;
};

/**
 * struct upath_bw_block - one size on one queue pair, as the client saw it
 * @messages: measured messages completed
 * @elapsed_ns: first measured post to last completion
 * @start_ns: the first measured post
 * @end_ns: the last completion
 * @report: the server's account
 */
struct upath_bw_block {
	uint64_t messages;
	uint64_t elapsed_ns;
	uint64_t start_ns;
	uint64_t end_ns;
	struct upath_report report;
};

int upath_bw_qp_init(struct upath_bw_qp *q, struct upath_conn *c,
		     const struct upath_bw_params *p);
void upath_bw_qp_destroy(struct upath_bw_qp *q);
uint64_t upath_bw_completed(const struct upath_bw_qp *q);
void upath_bw_phase_start(struct upath_bw_qp *q, uint32_t size, bool warmup);
int upath_bw_drive(struct upath_bw_qp **qps, unsigned int n,
		   struct upath_waiter *w, uint64_t deadline_ns,
		   uint64_t timeout_ns);
int upath_bw_control(struct upath_conn *c, uint8_t op, uint32_t arg);
int upath_bw_finish(struct upath_bw_qp *q, struct upath_bw_block *b);
int upath_bw_serve(struct upath_bw_qp *q, bool verify, bool bidir,
		   uint64_t *served);

#endif /* KVPERF_UPATH_BW_H */
