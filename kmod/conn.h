/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: one RDMA connection's resources and the primitives the latency
 * loops are built from (posting, waiting for completions).
 */
#ifndef _KVPERF_CONN_H
#define _KVPERF_CONN_H

#include <linux/atomic.h>
#include <linux/scatterlist.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "chunks.h"
#include "proto.h"

#define KVPERF_RECV_DEPTH	8
/*
 * Receives a data receiver (the target of a SEND bandwidth run) keeps
 * posted beyond the sender's window, where the device has room: it
 * reposts from its completion handler, and a handler that runs late
 * must not find the queue empty, or the sender waits out an RNR timer
 * and the run measures that timer (perftest posts 512 by default too).
 */
#define KVPERF_RECV_SLACK	512
/*
 * What a receiver tells a sender that found no receive posted: retry in
 * 0.64 ms. The CM default, 0, means 655 ms, and one such wait dwarfs a
 * whole send bandwidth measurement.
 */
#define KVPERF_MIN_RNR_TIMER	IB_RNR_TIMER_000_64
#define KVPERF_SEND_DEPTH	8
/*
 * A peer doing one-sided work (RDMA READ latency, WRITE or READ bandwidth)
 * sends the server nothing until its phase ends; a phase counted in
 * messages may last this long, the longest a timed phase may ask for.
 */
#define KVPERF_SERVER_PHASE_MAX_MS	3600000
/* What kvperf_conn_footprint() counts per queue entry. */
#define KVPERF_SEND_WQE_BYTES	256
#define KVPERF_RECV_WQE_BYTES	64
#define KVPERF_CQE_BYTES	64
/*
 * SGEs of one request at most: a message of the largest size in chunks of
 * 256 KiB, what swiotlb maps in one piece. A buffer in more pieces (a
 * smaller DMA limit, or high-order pages short) is refused by name.
 */
#define KVPERF_MAX_SGE		(KVPERF_SIZE_MAX >> 18)

/**
 * struct kvperf_buf - a DMA-mapped buffer made of physically contiguous chunks
 * @chunks: the chunks' first pages
 * @nchunks: number of chunks
 * @chunk_shift: log2 of a chunk's size
 * @len: usable length (the requested one)
 * @sgt: one entry per chunk, DMA-mapped
 * @nents: mapped entries
 */
struct kvperf_buf {
	struct page **chunks;
	unsigned int nchunks;
	unsigned int chunk_shift;
	size_t len;
	struct sg_table sgt;
	int nents;
};

/**
 * struct kvperf_conn_attr - the shape of a connection's resources
 * @poll: enum kvperf_poll
 * @size_max: largest message
 * @inline_size: send inline up to this size
 * @send_depth: send work requests in flight at most (one more is kept
 *		for ib_drain_qp())
 * @recv_depth: receives kept posted (one more slot for ib_drain_qp())
 * @recv_slack: more receives kept posted as far as the device's queue
 *		and completion queue limits leave room
 * @node: NUMA node of the buffers, or NUMA_NO_NODE
 * @any_vector: spread the CQ over the completion vectors
 *		(ib_alloc_cq_any()) instead of vector 0
 * @op: enum kvperf_op of the run: what the peer may do to the receive
 *	buffer, and whether READs post its SGEs
 * @local_only: the peer never reaches the receive buffer (a client whose
 *		server sends nothing back by RDMA): it is registered for
 *		local access only, whatever @op
 * @rdma_ctxs: rdma_rw contexts the queue pair must have room for (the
 *	       send queue grows by what they need; an I/O target's)
 * @own_recvs: the owner posts its receives with its own completion
 *	       entries; kvperf_conn_post_recvs() posts none (I/O runs)
 * @send_sges: SGEs the owner's sends carry at most, beyond what its
 *	       buffers need (an I/O host's in-capsule data)
 * @recv_sges: likewise for its receives (an I/O target's)
 * @srq: the queue pair takes its receives from this shared receive queue
 *	 (an I/O target's) and has none of its own; @recv_depth then sizes
 *	 only the CQ, for as many receive completions as @srq can give
 * @pd: with @srq, its protection domain, shared; else the connection
 *	allocates its own
 * @dma_block: an I/O block its owner maps, in one DMA segment at most
 *	       (0: none): a device that maps less is refused up front
 */
struct kvperf_conn_attr {
	u8 poll;
	u8 op;
	bool local_only;
	u32 size_max;
	u32 inline_size;
	u32 send_depth;
	u32 recv_depth;
	u32 recv_slack;
	int node;
	bool any_vector;
	u32 rdma_ctxs;
	bool own_recvs;
	u32 send_sges;
	u32 recv_sges;
	struct ib_srq *srq;
	struct ib_pd *pd;
	u32 dma_block;
};

/**
 * struct kvperf_recv - what a receive completion said
 * @byte_len: payload length
 * @imm: immediate data, host order
 * @has_imm: the message carried immediate data (a control message)
 */
struct kvperf_recv {
	u32 byte_len;
	u32 imm;
	bool has_imm;
};

/**
 * struct kvperf_conn - one RC connection and everything it owns
 * @cm_id: RDMA CM id; owned by the client run or the server connection
 * @ibdev: device of @cm_id
 * @pd: protection domain
 * @pd_shared: @pd is not the connection's own (a shared receive queue's)
 * @cq: the one CQ for sends and receives
 * @mr: FRWR MR that gives the peer access to @rx
 * @mr_access: the access @mr grants (IB_ACCESS_*), what the run's op needs
 * @tx: what we send or write from
 * @rx: what we receive into, what the peer writes to and reads from
 * @poll_ctx: poll context of @cq
 * @spin: the current wait polls memory, so it must not sleep
 * @spin_bounded: a server's connection: its memory polls spin briefly,
 *		  then sleep between polls (see kvperf_conn_wait())
 * @size_max: largest message
 * @dma_shift: log2 of the largest chunk the device maps in one piece
 *	       (kvperf_chunk_shift_dma()), taken once at create
 * @inline_size: send inline up to this size
 * @remote_rkey: rkey of the peer's @rx
 * @remote_addr: RDMA address of the peer's @rx
 * @credits: I/O runs, the I/Os the server lets the client keep outstanding
 * @send_cqe: completions of the send queue (SEND, WRITE, READ, REG_MR)
 * @recv_cqe: completions of the receive queue
 * @sends_posted: signaled send-queue work requests posted
 * @sends_done: of which completed
 * @recvs_done: receive completions, consumed through @recv_ring
 * @recvs_seen: receive completions consumed
 * @recv_ring: the last receive completions (control messages only when
 *	       @count_data is set)
 * @count_data: bandwidth mode: the receive handler counts data messages
 *		in @data_recvs (those not @expect_len long also in
 *		@bad_recvs) and posts their receives again itself
 * @expect_len: length of a data message, with @count_data
 * @data_recvs: data messages received, with @count_data
 * @bad_recvs: of which had the wrong length
 * @recv_depth: receives posted
 * @notify: woken by completions, CM events and errors; &@wq unless the
 *	    owner waits on several connections at once
 * @error: first error (negative errno), 0 while all is well
 * @reason: what went wrong, for the user; static text
 * @cm_event: last connection event the CM handler saw
 * @connecting: a client between rdma_connect() and the established
 *		event: the CM moves the QP to the error state before it
 *		reports a reject, so flushed work requests then do not fail
 *		the connection; the CM event that follows says why
 * @wq: woken by completions and CM events
 * @timeout: longest wait for any completion or event, in jiffies
 * @stop: returns true when the owner wants the loop to end
 * @stop_arg: argument of @stop
 * @live: created and not yet destroyed (counted in kvperf_conns_live_count())
 * @probe_cqe: completion of a keep-alive probe
 * @probe_busy: bit 0, a probe is in flight
 * @peer_gone: a probe failed: the peer stopped acknowledging
 * @post_bh: the owner's thread posts its work requests with bottom halves
 *	     disabled (post-context bh); completion handlers post as they are
 * @own_recvs: see struct kvperf_conn_attr
 * @drained: when set, called by kvperf_conn_destroy() once the queue pair
 *	     is drained and before it is destroyed: nothing completes any
 *	     more, and what still refers to the queue pair (rdma_rw
 *	     contexts, MR pools) is released here
 * @drained_arg: argument of @drained
 * @recv_owner: with a shared receive queue, whom the connection's receive
 *		completions go to (its I/O target)
 */
struct kvperf_conn {
	struct rdma_cm_id *cm_id;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	bool pd_shared;
	struct ib_cq *cq;
	struct ib_mr *mr;
	int mr_access;
	struct kvperf_buf tx;
	struct kvperf_buf rx;
	enum ib_poll_context poll_ctx;
	bool spin;
	bool spin_bounded;
	u32 size_max;
	unsigned int dma_shift;
	u32 inline_size;
	u32 remote_rkey;
	u64 remote_addr;
	u32 credits;
	struct ib_cqe send_cqe;
	struct ib_cqe recv_cqe;
	u32 sends_posted;
	atomic_t sends_done;
	atomic_t recvs_done;
	u32 recvs_seen;
	struct kvperf_recv recv_ring[KVPERF_RECV_DEPTH];
	bool count_data;
	u32 expect_len;
	atomic64_t data_recvs;
	atomic64_t bad_recvs;
	u32 recv_depth;
	wait_queue_head_t *notify;
	int error;
	const char *reason;
	int cm_event;
	bool connecting;
	wait_queue_head_t wq;
	unsigned long timeout;
	bool (*stop)(void *arg);
	void *stop_arg;
	bool live;
	struct ib_cqe probe_cqe;
	unsigned long probe_busy;
	bool peer_gone;
	bool post_bh;
	bool own_recvs;
	void (*drained)(struct kvperf_conn *c, void *arg);
	void *drained_arg;
	void *recv_owner;
};

struct task_struct;

int kvperf_conns_live_count(void);
bool kvperf_conn_cb_outside(const struct kvperf_conn *c,
			    const struct task_struct *task);
u64 kvperf_conn_cb_start(const struct kvperf_conn *c,
			 const struct task_struct *task);
void kvperf_conn_cb_end(u64 start, atomic64_t *sum);
u64 kvperf_thread_runtime_ns(void);
u64 kvperf_thread_cpu_ns(void);
void kvperf_conn_init(struct kvperf_conn *c, unsigned long timeout,
		      bool (*stop)(void *arg), void *stop_arg);
void kvperf_conn_fail(struct kvperf_conn *c, int err, const char *reason);
void kvperf_conn_wc_error(struct kvperf_conn *c, struct ib_wc *wc,
			  const char *flushed, const char *failed);
int kvperf_conn_create(struct kvperf_conn *c, struct rdma_cm_id *cm_id,
		       const struct kvperf_conn_attr *attr);
int kvperf_conn_post_recvs(struct kvperf_conn *c);
void kvperf_conn_destroy(struct kvperf_conn *c);
size_t kvperf_conn_pinned(u32 size_max);
struct kvperf_footprint;
void kvperf_conn_footprint(const struct kvperf_conn_attr *attr,
			   struct kvperf_footprint *f);
u32 kvperf_conn_inline_sges(struct kvperf_buf *b, u32 len, struct ib_sge *sge);
u32 kvperf_conn_sges(struct kvperf_conn *c, struct kvperf_buf *b, u32 len,
		     struct ib_sge *sge);
int kvperf_conn_post_recv(struct kvperf_conn *c);
int kvperf_conn_post_send(struct kvperf_conn *c, enum ib_wr_opcode opcode,
			  u32 len, u32 imm);
int kvperf_conn_post_wrs(struct kvperf_conn *c, const struct ib_send_wr *wr);
int kvperf_conn_register(struct kvperf_conn *c);
int kvperf_conn_probe(struct kvperf_conn *c);
int kvperf_conn_wait(struct kvperf_conn *c,
		     bool (*cond)(struct kvperf_conn *c, void *arg),
		     void *arg);
int kvperf_conn_wait_sends(struct kvperf_conn *c);
int kvperf_conn_wait_recv(struct kvperf_conn *c, struct kvperf_recv *r);
int kvperf_conn_wait_marker(struct kvperf_conn *c, u32 off, u8 marker,
			    bool or_recv);
bool kvperf_conn_recv_pending(struct kvperf_conn *c);
u8 *kvperf_buf_ptr(struct kvperf_buf *b, size_t off);
dma_addr_t kvperf_buf_dma(struct kvperf_buf *b, size_t off);
size_t kvperf_buf_mapped(struct kvperf_buf *b);
void kvperf_buf_for_cpu(struct kvperf_conn *c, struct kvperf_buf *b,
			size_t len);
void kvperf_buf_for_device(struct kvperf_conn *c, struct kvperf_buf *b,
			   size_t len);
void kvperf_buf_fill(struct kvperf_buf *b, size_t len, u32 seed);
bool kvperf_buf_check(struct kvperf_buf *b, size_t len, u32 seed);
void kvperf_buf_clear(struct kvperf_buf *b, size_t len);
u8 kvperf_marker(u32 seq);

#endif /* _KVPERF_CONN_H */
