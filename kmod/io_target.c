// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: the target side of an I/O run, as nvmet-rdma serves a queue.
 * Each command capsule names the host's buffer; the target moves the data
 * with the kernel's rdma_rw API between that buffer and a block of its
 * own (RDMA WRITEs chained before the response for the host's reads, RDMA
 * READs and then the response for its writes) and answers, invalidating
 * the host's registration unless the host does that itself.
 *
 * Completion handlers run in the CQ's context and only queue events;
 * the connection's thread parses commands, sets up rdma_rw contexts
 * (which may sleep) and posts. Every context owns a response capsule and
 * a data block, and is free again once its response has been sent.
 * Receives are separate and more: a command waits in its receive buffer
 * until a context is free, and the receive is posted again once the
 * command is copied out. A host that keeps to its credits then never
 * meets receiver-not-ready, even while this side lags in reaping its
 * send completions (which free the contexts); one that ignores them
 * does, and waits, never causing a shortage here. With in-capsule data
 * each receive has a data block of its own after its capsule: a write
 * that came in its command is checked there (verify) before the receive
 * is posted again, and answered at once.
 *
 * With the listener's shared receive queue the receives are its, not the
 * connection's: a command arrives on the completion queue of the
 * connection whose queue pair took the receive, which goes back to the
 * shared queue once the command is copied out, or when the connection
 * ends with it unread.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kvperf_wire.h>
#include <linux/slab.h>

#include "io.h"

enum kvperf_io_stage {
	KVPERF_IO_IDLE,		/* free */
	KVPERF_IO_READING,	/* RDMA READs of a write in flight */
	KVPERF_IO_READ_DONE,	/* they completed */
	KVPERF_IO_ANSWERING,	/* response (after any WRITEs) in flight */
	KVPERF_IO_ANSWERED,	/* it completed */
};

/**
 * struct kvperf_io_tctx - one command context of the target
 * @t: the target
 * @index: its response capsule and its data block
 * @rw_cqe: completion of its RDMA READs
 * @rsp_cqe: completion of its response
 * @stage: enum kvperf_io_stage
 * @cmd: the command, copied out of the receive buffer
 * @nrw: rdma_rw contexts set up
 * @rw: one per segment
 * @sgt: the part of the data block each covers
 * @status: the response's status
 * @node: entry in the target's event list
 */
struct kvperf_io_tctx {
	struct kvperf_io_target *t;
	u32 index;
	struct ib_cqe rw_cqe;
	struct ib_cqe rsp_cqe;
	u8 stage;
	struct kvperf_wire_io_cmd cmd;
	u32 nrw;
	struct rdma_rw_ctx rw[KVPERF_WIRE_IO_SEGS_MAX];
	struct sg_table sgt[KVPERF_WIRE_IO_SEGS_MAX];
	u8 status;
	struct llist_node node;
};

/**
 * struct kvperf_io_target - the target side of one I/O connection
 * @c: the connection; its receive buffer holds the command capsules, its
 *     send buffer the response capsules
 * @p: what the host asked for
 * @nctx: contexts, @p.credits and a few spare
 * @ctx: the contexts
 * @free: the free contexts' indices, a stack; the thread's alone
 * @nfree: entries in @free
 * @nrx: receives, @p.credits and KVPERF_IO_RECV_SPARE more
 * @rx: the receives
 * @waiting: arrived commands, oldest first, waiting for a context; the
 *	     thread's alone
 * @slots: the contexts' data blocks
 * @inline_slots: with in-capsule data, each receive's data block, mapped
 * @events: contexts with news for the thread
 * @arrived: receives with a command, for the thread
 * @task: the thread that serves, once it serves
 * @runtime0: @task's runtime when it began serving
 * @handler_ns: completion handlers' time outside @task
 */
struct kvperf_io_target {
	struct kvperf_conn *c;
	struct kvperf_io_target_params p;
	u32 nctx;
	struct kvperf_io_tctx *ctx;
	u32 *free;
	u32 nfree;
	u32 nrx;
	struct kvperf_io_trx *rx;
	struct list_head waiting;
	struct kvperf_io_slots slots;
	struct kvperf_io_slots inline_slots;
	struct llist_head events;
	struct llist_head arrived;
	struct task_struct *task;
	u64 runtime0;
	atomic64_t handler_ns;
};

/**
 * kvperf_io_target_ctxs() - the contexts a target keeps for @credits
 * @credits: the I/Os the host may keep outstanding
 *
 * Return: @credits and up to KVPERF_IO_SPARE_MAX more.
 */
u32 kvperf_io_target_ctxs(u32 credits)
{
	return credits + min_t(u32, credits, KVPERF_IO_SPARE_MAX);
}

/* Receives a target posts of its own for @p. */
static u32 kvperf_io_target_rxs(const struct kvperf_io_target_params *p)
{
	return p->srq ? 0 : p->credits + KVPERF_IO_RECV_SPARE;
}

/**
 * kvperf_io_target_pinned() - the data blocks a target pins
 * @p: the run
 *
 * Return: bytes, beyond the connection's own buffers.
 */
size_t kvperf_io_target_pinned(const struct kvperf_io_target_params *p)
{
	size_t bytes = kvperf_io_slots_bytes(kvperf_io_target_ctxs(p->credits),
					     p->bs);

	if (p->inline_data)
		bytes += kvperf_io_slots_bytes(kvperf_io_target_rxs(p),
					       p->inline_data);
	return bytes;
}

/**
 * kvperf_io_target_conn_attr() - the connection a target needs
 * @p: the run
 * @attr: has the server's choices (poll) and receives the rest
 *
 * A capsule per receive in the receive buffer and per context in the
 * send buffer (both as large: the connection has one size); a response
 * per context and a keep-alive probe on the send queue, and an rdma_rw
 * context per segment of every context (rdma_rw adds the send queue room
 * they need). With in-capsule data a receive has the capsule's SGE and
 * its data block's. With a shared receive queue the connection posts no
 * receive, but its completion queue has room for all of the shared
 * queue's: a host that ignores its credits may take every one.
 */
void kvperf_io_target_conn_attr(const struct kvperf_io_target_params *p,
				struct kvperf_conn_attr *attr)
{
	u32 n = kvperf_io_target_ctxs(p->credits);
	u32 nrx = kvperf_io_target_rxs(p);

	attr->op = KVPERF_OP_SEND;
	attr->size_max = max(n, nrx) * KVPERF_WIRE_IO_CAPSULE;
	attr->inline_size = 0;
	/*
	 * A response each, a probe, and the RDMA READ or WRITE requests of
	 * a block: one per piece of a segment at most, when the device
	 * takes one SGE per request; the segments split a block of at most
	 * KVPERF_IO_SLOT_PIECES_MAX pieces into at most segs + 1 (rdma_rw
	 * adds room for one per context itself, on top).
	 */
	attr->send_depth = n * (1 + p->segs + KVPERF_IO_SLOT_PIECES_MAX - 1) + 1;
	attr->recv_depth = nrx;
	attr->recv_slack = 0;
	attr->rdma_ctxs = n * p->segs;
	attr->own_recvs = true;
	attr->recv_sges = p->inline_data ? KVPERF_IO_INLINE_SGES : 0;
	attr->dma_block = p->bs;
	if (p->srq) {
		attr->recv_depth = p->srq->depth;
		attr->srq = p->srq->srq;
		attr->pd = p->srq->pd;
	}
}

static size_t kvperf_io_capsule_off(u32 i)
{
	return (size_t)i * KVPERF_WIRE_IO_CAPSULE;
}

/* The target's CPU time on the connection so far, from its thread. */
static u64 kvperf_io_cpu_ns(struct kvperf_io_target *t)
{
	return kvperf_thread_runtime_ns() - t->runtime0 +
	       atomic64_read(&t->handler_ns);
}

static void kvperf_io_event(struct kvperf_io_tctx *x, u8 stage)
{
	struct kvperf_io_target *t = x->t;

	x->stage = stage;
	llist_add(&x->node, &t->events);
	wake_up(t->c->notify);
}

static void kvperf_io_cmd_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvperf_io_trx *r = container_of(wc->wr_cqe,
					       struct kvperf_io_trx, cqe);
	struct kvperf_conn *c = cq->cq_context;
	u64 start = kvperf_conn_cb_start(r->t->c, READ_ONCE(r->t->task));

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		kvperf_conn_wc_error(c, wc, "receive queue flushed",
				     "receive completion error");
		return;
	}
	atomic64_inc(&c->data_recvs);
	r->len = wc->byte_len;
	llist_add(&r->node, &r->t->arrived);
	wake_up(c->notify);
	kvperf_conn_cb_end(start, &r->t->handler_ns);
}

/**
 * kvperf_io_target_srq_done() - a receive of a shared receive queue completed
 * @cq: the completion queue of the connection whose queue pair took it
 * @wc: the completion
 *
 * The receive goes to that connection's target: its command to the
 * thread, or after an error back to the shared queue once the connection
 * ends.
 */
void kvperf_io_target_srq_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvperf_io_trx *r = container_of(wc->wr_cqe,
					       struct kvperf_io_trx, cqe);
	struct kvperf_conn *c = cq->cq_context;
	struct kvperf_io_target *t = c->recv_owner;
	u64 start = kvperf_conn_cb_start(c, READ_ONCE(t->task));

	r->t = t;
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		kvperf_conn_wc_error(c, wc, "receive flushed",
				     "receive completion error");
		/* an empty command: refused if read; returned at the end */
		r->len = 0;
		llist_add(&r->node, &t->arrived);
		return;
	}
	atomic64_inc(&c->data_recvs);
	r->len = wc->byte_len;
	llist_add(&r->node, &t->arrived);
	wake_up(c->notify);
	kvperf_conn_cb_end(start, &t->handler_ns);
}

static void kvperf_io_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvperf_io_tctx *x = container_of(wc->wr_cqe,
						struct kvperf_io_tctx, rw_cqe);
	u64 start = kvperf_conn_cb_start(x->t->c, READ_ONCE(x->t->task));

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		kvperf_conn_wc_error(cq->cq_context, wc, "send queue flushed",
				     "an RDMA READ of the host's buffer failed");
		return;
	}
	kvperf_io_event(x, KVPERF_IO_READ_DONE);
	kvperf_conn_cb_end(start, &x->t->handler_ns);
}

static void kvperf_io_rsp_sent(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvperf_io_tctx *x = container_of(wc->wr_cqe,
						struct kvperf_io_tctx,
						rsp_cqe);
	struct kvperf_conn *c = cq->cq_context;
	u64 start = kvperf_conn_cb_start(x->t->c, READ_ONCE(x->t->task));

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		kvperf_conn_wc_error(c, wc, "send queue flushed",
				     "a response SEND failed (or the RDMA WRITEs before it)");
		return;
	}
	atomic_inc(&c->sends_done);
	kvperf_io_event(x, KVPERF_IO_ANSWERED);
	kvperf_conn_cb_end(start, &x->t->handler_ns);
}

static int kvperf_io_post_cmd_recv(struct kvperf_io_trx *r)
{
	struct kvperf_io_target *t = r->t;
	struct kvperf_conn *c = t->c;
	struct ib_sge sge[KVPERF_IO_INLINE_SGES] = {
		{
			.addr = kvperf_buf_dma(&c->rx,
					       kvperf_io_capsule_off(r->index)),
			.length = KVPERF_WIRE_IO_CAPSULE,
			.lkey = c->pd->local_dma_lkey,
		},
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &r->cqe,
		.sg_list = sge,
		.num_sge = 1,
	};
	struct scatterlist *sg, *first;
	u32 nents, k;

	/* in-capsule data: the receive's block after its capsule */
	if (t->p.inline_data) {
		first = kvperf_io_slot_sg(&t->inline_slots, r->index, &nents);
		for_each_sg(first, sg, nents, k)
			sge[wr.num_sge++] = (struct ib_sge) {
				.addr = sg_dma_address(sg),
				.length = sg_dma_len(sg),
				.lkey = c->pd->local_dma_lkey,
			};
	}
	return ib_post_recv(c->cm_id->qp, &wr, NULL);
}

/* Tear down the context's rdma_rw work: its work requests are done. */
static void kvperf_io_rw_destroy(struct kvperf_io_tctx *x)
{
	struct kvperf_conn *c = x->t->c;
	enum dma_data_direction dir = x->cmd.opcode == KVPERF_OP_READ ?
				      DMA_TO_DEVICE : DMA_FROM_DEVICE;

	while (x->nrw) {
		x->nrw--;
		rdma_rw_ctx_destroy(&x->rw[x->nrw], c->cm_id->qp,
				    c->cm_id->port_num, x->sgt[x->nrw].sgl,
				    x->sgt[x->nrw].orig_nents, dir);
		sg_free_table(&x->sgt[x->nrw]);
	}
}

/*
 * Is the command one this connection serves? Its segments fit the block;
 * in-capsule data (no segment) are a write's, within the bounds asked
 * for, and exactly what followed the capsule in the @rx_len bytes
 * received.
 */
static bool kvperf_io_cmd_ok(struct kvperf_io_target *t,
			     const struct kvperf_wire_io_cmd *cmd, u32 rx_len)
{
	u32 len = be32_to_cpu(cmd->len), sum = 0, i;
	/* a mixed run's commands read or write, each its own way */
	bool op_ok = cmd->opcode == t->p.op ||
		     (t->p.mixed && (cmd->opcode == KVPERF_OP_READ ||
				     cmd->opcode == KVPERF_OP_WRITE));

	if (!op_ok || !len || len > t->p.bs)
		return false;
	if (!cmd->nseg)
		return cmd->opcode == KVPERF_OP_WRITE &&
		       len <= t->p.inline_data &&
		       rx_len == KVPERF_WIRE_IO_CAPSULE + len;
	if (cmd->nseg > t->p.segs)
		return false;
	for (i = 0; i < cmd->nseg; i++) {
		u32 n = be32_to_cpu(cmd->seg[i].len);

		if (!n || n > len - sum)
			return false;
		sum += n;
	}
	return sum == len;
}

/*
 * Copy the command of @r into @x, judge it, check its in-capsule data
 * (verify), and receive the next one into @r.
 */
static int kvperf_io_take_cmd(struct kvperf_io_trx *r, struct kvperf_io_tctx *x)
{
	struct kvperf_io_target *t = r->t;
	struct kvperf_conn *c = t->c;
	size_t off = kvperf_io_capsule_off(r->index);
	u32 len = min_t(u32, r->len, sizeof(x->cmd));

	/* what the host did not send reads as zero: a malformed command */
	memset(&x->cmd, 0, sizeof(x->cmd));
	if (r->srq) {
		kvperf_io_slot_for_cpu(&r->srq->slots, r->index);
		memcpy(&x->cmd, kvperf_io_slot_ptr(&r->srq->slots, r->index),
		       len);
		kvperf_io_slot_for_device(&r->srq->slots, r->index);
	} else {
		ib_dma_sync_single_for_cpu(c->ibdev,
					   kvperf_buf_dma(&c->rx, off), len,
					   DMA_BIDIRECTIONAL);
		memcpy(&x->cmd, kvperf_buf_ptr(&c->rx, off), len);
		ib_dma_sync_single_for_device(c->ibdev,
					      kvperf_buf_dma(&c->rx, off),
					      len, DMA_BIDIRECTIONAL);
	}
	x->status = KVPERF_WIRE_IO_OK;
	if (!kvperf_io_cmd_ok(t, &x->cmd, r->len)) {
		x->status = KVPERF_WIRE_IO_BAD_COMMAND;
	} else if (!x->cmd.nseg && t->p.verify) {
		kvperf_io_slot_for_cpu(&t->inline_slots, r->index);
		if (!kvperf_io_slot_check(&t->inline_slots, r->index,
					  be32_to_cpu(x->cmd.len),
					  be32_to_cpu(x->cmd.seed)))
			x->status = KVPERF_WIRE_IO_MISMATCH;
		kvperf_io_slot_for_device(&t->inline_slots, r->index);
	}
	if (r->srq)
		return kvperf_io_srq_post(r->srq, r);
	return kvperf_io_post_cmd_recv(r);
}

/* Set up one rdma_rw context per segment over the block's matching part. */
static int kvperf_io_rw_init(struct kvperf_io_tctx *x)
{
	struct kvperf_io_target *t = x->t;
	struct kvperf_conn *c = t->c;
	enum dma_data_direction dir = x->cmd.opcode == KVPERF_OP_READ ?
				      DMA_TO_DEVICE : DMA_FROM_DEVICE;
	u32 off = 0, i;
	int ret;

	for (i = 0; i < x->cmd.nseg; i++) {
		const struct kvperf_wire_io_seg *seg = &x->cmd.seg[i];
		u32 len = be32_to_cpu(seg->len);

		ret = kvperf_io_slot_sg_range(&t->slots, x->index, off, len,
					      &x->sgt[i]);
		if (ret)
			return ret;
		ret = rdma_rw_ctx_init(&x->rw[i], c->cm_id->qp,
				       c->cm_id->port_num, x->sgt[i].sgl,
				       x->sgt[i].orig_nents, 0,
				       be64_to_cpu(seg->addr),
				       be32_to_cpu(seg->rkey), dir);
		if (ret < 0) {
			sg_free_table(&x->sgt[i]);
			return ret;
		}
		x->nrw++;
		off += len;
	}
	return 0;
}

/*
 * The response, after @chain's work requests (the WRITEs of a read) if
 * any: a SEND with invalidate of the host's key unless the host
 * invalidates itself or the command named no key.
 */
static int kvperf_io_respond(struct kvperf_io_tctx *x, bool chain)
{
	struct kvperf_io_target *t = x->t;
	struct kvperf_conn *c = t->c;
	struct ib_qp *qp = c->cm_id->qp;
	size_t off = kvperf_io_capsule_off(x->index);
	struct kvperf_wire_io_rsp *rsp = (void *)kvperf_buf_ptr(&c->tx, off);
	struct ib_sge sge = {
		.addr = kvperf_buf_dma(&c->tx, off),
		.length = sizeof(*rsp),
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &x->rsp_cqe,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ib_send_wr *first = &wr;
	int i, err;

	ib_dma_sync_single_for_cpu(c->ibdev, sge.addr, sizeof(*rsp),
				   DMA_BIDIRECTIONAL);
	rsp->cid = x->cmd.cid;
	rsp->status = x->status;
	rsp->reserved = 0;
	rsp->cpu_ns = cpu_to_be64(kvperf_io_cpu_ns(t));
	ib_dma_sync_single_for_device(c->ibdev, sge.addr, sizeof(*rsp),
				      DMA_BIDIRECTIONAL);
	if (!t->p.inv_local && x->cmd.nseg) {
		wr.opcode = IB_WR_SEND_WITH_INV;
		wr.ex.invalidate_rkey = be32_to_cpu(x->cmd.seg[0].rkey);
	}
	for (i = chain ? x->nrw - 1 : -1; i >= 0; i--)
		first = rdma_rw_ctx_wrs(&x->rw[i], qp, c->cm_id->port_num,
					NULL, first);
	x->stage = KVPERF_IO_ANSWERING;
	err = kvperf_conn_post_wrs(c, first);
	if (!err)
		c->sends_posted++;
	return err;
}

/* A new command, judged: move its data (or refuse it) and answer. */
static int kvperf_io_handle_cmd(struct kvperf_io_tctx *x)
{
	struct kvperf_io_target *t = x->t;
	struct kvperf_conn *c = t->c;
	struct ib_send_wr *first = NULL;
	int i, ret;

	if (x->status == KVPERF_WIRE_IO_BAD_COMMAND) {
		/* no key of it is trusted: nothing to invalidate */
		x->cmd.nseg = 0;
		return kvperf_io_respond(x, false);
	}
	/* in-capsule data: taken (and checked) on arrival */
	if (!x->cmd.nseg)
		return kvperf_io_respond(x, false);
	if (t->p.verify && x->cmd.opcode == KVPERF_OP_READ)
		kvperf_io_slot_fill(&t->slots, x->index,
				    be32_to_cpu(x->cmd.len),
				    be32_to_cpu(x->cmd.seed));
	ret = kvperf_io_rw_init(x);
	if (ret) {
		kvperf_io_rw_destroy(x);
		x->status = KVPERF_WIRE_IO_FAILED;
		return kvperf_io_respond(x, false);
	}
	if (x->cmd.opcode == KVPERF_OP_READ)
		return kvperf_io_respond(x, true);
	/* a write: READ every segment, the last one signaled */
	for (i = x->nrw - 1; i >= 0; i--)
		first = rdma_rw_ctx_wrs(&x->rw[i], c->cm_id->qp,
					c->cm_id->port_num,
					i == x->nrw - 1 ? &x->rw_cqe : NULL,
					first);
	x->stage = KVPERF_IO_READING;
	ret = kvperf_conn_post_wrs(c, first);
	if (!ret)
		c->sends_posted++;
	return ret;
}

/* A write's data arrived: check them if asked, and answer. */
static int kvperf_io_handle_read_done(struct kvperf_io_tctx *x)
{
	struct kvperf_io_target *t = x->t;

	/* unmapping hands the block to the CPU */
	kvperf_io_rw_destroy(x);
	if (t->p.verify &&
	    !kvperf_io_slot_check(&t->slots, x->index, be32_to_cpu(x->cmd.len),
				  be32_to_cpu(x->cmd.seed)))
		x->status = KVPERF_WIRE_IO_MISMATCH;
	return kvperf_io_respond(x, false);
}

static bool kvperf_io_has_events(struct kvperf_conn *c, void *arg)
{
	struct kvperf_io_target *t = arg;

	return !llist_empty(&t->events) || !llist_empty(&t->arrived);
}

/* The contexts' news: data read, responses sent (contexts free again). */
static int kvperf_io_handle_events(struct kvperf_io_target *t,
				   atomic64_t *served)
{
	struct llist_node *list;
	struct kvperf_io_tctx *x, *tmp;
	int err = 0;

	list = llist_reverse_order(llist_del_all(&t->events));
	llist_for_each_entry_safe(x, tmp, list, node) {
		if (err)
			continue;
		if (x->stage == KVPERF_IO_READ_DONE) {
			err = kvperf_io_handle_read_done(x);
			continue;
		}
		/* answered: the context is free */
		kvperf_io_rw_destroy(x);
		atomic64_inc(served);
		x->stage = KVPERF_IO_IDLE;
		t->free[t->nfree++] = x->index;
	}
	return err;
}

/* Arrived commands, oldest first, into free contexts. */
static int kvperf_io_handle_cmds(struct kvperf_io_target *t)
{
	struct llist_node *list;
	struct kvperf_io_trx *r, *tmp;
	struct kvperf_io_tctx *x;
	int err;

	list = llist_reverse_order(llist_del_all(&t->arrived));
	llist_for_each_entry_safe(r, tmp, list, node)
		list_add_tail(&r->wait, &t->waiting);
	while (t->nfree && !list_empty(&t->waiting)) {
		r = list_first_entry(&t->waiting, struct kvperf_io_trx, wait);
		list_del(&r->wait);
		x = &t->ctx[t->free[--t->nfree]];
		err = kvperf_io_take_cmd(r, x);
		if (!err)
			err = kvperf_io_handle_cmd(x);
		if (err)
			return err;
	}
	return 0;
}

/**
 * kvperf_io_target_serve() - serve the host's I/Os until the connection ends
 * @t: the target, started
 * @served: counts the I/Os answered
 *
 * Every response carries the connection's CPU time since this call: the
 * calling thread's runtime (as the scheduler last accounted it, a tick
 * late at worst) and the completion handlers' time outside it.
 *
 * Return: the reason the connection ended (its error, -EINTR when the
 * server stops it, -ETIMEDOUT when the host was silent too long).
 */
int kvperf_io_target_serve(struct kvperf_io_target *t, atomic64_t *served)
{
	struct kvperf_conn *c = t->c;
	int err;

	t->runtime0 = kvperf_thread_runtime_ns();
	WRITE_ONCE(t->task, current);
	for (;;) {
		err = kvperf_conn_wait(c, kvperf_io_has_events, t);
		if (err)
			return err;
		err = kvperf_io_handle_events(t, served);
		if (!err)
			err = kvperf_io_handle_cmds(t);
		if (err) {
			kvperf_conn_fail(c, err, "cannot post an I/O's work requests");
			return err;
		}
		cond_resched();
	}
}

/* Nothing completes any more: release what still refers to the QP. */
static void kvperf_io_target_drained(struct kvperf_conn *c, void *arg)
{
	struct kvperf_io_target *t = arg;
	u32 i;

	for (i = 0; i < t->nctx; i++)
		kvperf_io_rw_destroy(&t->ctx[i]);
}

/**
 * kvperf_io_target_create() - the target side of an I/O connection
 * @c: the connection, created
 * @p: what the host asked for
 *
 * Return: the target, or an ERR_PTR() with @c->reason set. Its rdma_rw
 * contexts are released when @c is destroyed, which must happen before
 * kvperf_io_target_free().
 */
struct kvperf_io_target *
kvperf_io_target_create(struct kvperf_conn *c,
			const struct kvperf_io_target_params *p)
{
	struct kvperf_io_target *t;
	int err;
	u32 i;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		goto nomem;
	t->c = c;
	t->p = *p;
	t->nctx = kvperf_io_target_ctxs(p->credits);
	t->nrx = kvperf_io_target_rxs(p);
	init_llist_head(&t->events);
	init_llist_head(&t->arrived);
	INIT_LIST_HEAD(&t->waiting);
	atomic64_set(&t->handler_ns, 0);
	t->ctx = kvcalloc(t->nctx, sizeof(*t->ctx), GFP_KERNEL);
	t->free = kcalloc(t->nctx, sizeof(*t->free), GFP_KERNEL);
	t->rx = kcalloc(t->nrx, sizeof(*t->rx), GFP_KERNEL);
	if (!t->ctx || !t->free || !t->rx)
		goto nomem;
	err = kvperf_io_slots_alloc(&t->slots, c->ibdev, t->nctx, p->bs,
				    NUMA_NO_NODE);
	if (!err && p->inline_data)
		err = kvperf_io_slots_alloc(&t->inline_slots, c->ibdev, t->nrx,
					    p->inline_data, NUMA_NO_NODE) ?:
		      kvperf_io_slots_map(&t->inline_slots, c->ibdev);
	if (err)
		goto nomem;
	for (i = 0; i < t->nctx; i++) {
		struct kvperf_io_tctx *x = &t->ctx[i];

		x->t = t;
		x->index = i;
		x->rw_cqe.done = kvperf_io_read_done;
		x->rsp_cqe.done = kvperf_io_rsp_sent;
		t->free[t->nfree++] = t->nctx - 1 - i;
	}
	for (i = 0; i < t->nrx; i++) {
		t->rx[i].t = t;
		t->rx[i].index = i;
		t->rx[i].cqe.done = kvperf_io_cmd_done;
	}
	c->drained = kvperf_io_target_drained;
	c->drained_arg = t;
	c->recv_owner = t;
	return t;

nomem:
	kvperf_io_target_free(t);
	c->reason = "cannot allocate the I/O target's state";
	return ERR_PTR(-ENOMEM);
}

/**
 * kvperf_io_target_start() - post a receive for every context
 * @t: the target
 *
 * Return: 0 or a negative errno with the connection's reason set.
 */
int kvperf_io_target_start(struct kvperf_io_target *t)
{
	u32 i;
	int err = 0;

	for (i = 0; i < t->nrx && !err; i++)
		err = kvperf_io_post_cmd_recv(&t->rx[i]);
	if (err)
		t->c->reason = "cannot post receives";
	return err;
}

/**
 * kvperf_io_target_free() - free the target side
 * @t: the target, NULL or an ERR_PTR(); its connection destroyed
 */
void kvperf_io_target_free(struct kvperf_io_target *t)
{
	struct kvperf_io_trx *r, *tmp;
	struct llist_node *list;

	if (IS_ERR_OR_NULL(t))
		return;
	/* the shared queue's receives that took commands never read */
	list = llist_del_all(&t->arrived);
	llist_for_each_entry_safe(r, tmp, list, node)
		list_add_tail(&r->wait, &t->waiting);
	list_for_each_entry_safe(r, tmp, &t->waiting, wait) {
		list_del(&r->wait);
		if (r->srq && kvperf_io_srq_post(r->srq, r))
			pr_warn_ratelimited("cannot return a receive to the shared receive queue\n");
	}
	kvperf_io_slots_free(&t->inline_slots);
	kvperf_io_slots_free(&t->slots);
	kfree(t->rx);
	kfree(t->free);
	kvfree(t->ctx);
	kfree(t);
}
