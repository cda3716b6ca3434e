// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: the host side of an I/O run, as nvme-rdma drives a queue. Each
 * I/O takes an MR from the queue pair's pool, registers its block with a
 * REG_MR chained before the command SEND, and completes when the command
 * was sent, the response arrived and the registration is invalidated (by
 * the target's SEND with invalidate, or by a LOCAL_INV posted here).
 * With reg pre each slot's MR is registered once, at start, and kept:
 * an I/O is its command and its response alone. So is a write with
 * in-capsule data: its block goes as further SGEs of the command's SEND,
 * unregistered, as nvme-rdma sends small writes.
 *
 * Completion handlers run in the CQ's context and only count: the one
 * that completes an I/O stamps it and queues it for the run's thread,
 * which records it and submits the next one. Posting a LOCAL_INV is the
 * one post a handler makes, as nvme-rdma does.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kvperf_wire.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/mr_pool.h>

#include "io.h"

/**
 * struct kvperf_io_req - one I/O slot of the host
 * @h: the host
 * @index: the slot, also the command id
 * @reg_cqe: the REG_MR's completion (only failures complete: unsignaled)
 * @send_cqe: the command SEND's completion
 * @inv_cqe: the LOCAL_INV's completion
 * @mr: the registration of the I/O in flight, NULL when idle; with reg
 *	pre the slot's, for the whole run
 * @rkey: @mr's key for this I/O
 * @busy: an I/O is in flight in the slot
 * @in_capsule: the I/O is a write whose data travel in its command
 * @pending: events the I/O still waits for
 * @answered: the response arrived
 * @op: the I/O's direction
 * @seed: the I/O's pattern seed
 * @measured: the I/O counts in the results
 * @submit_ns: when it was submitted: before its MR was taken
 * @reg_ns: how long taking and mapping its MR took
 * @rsp_ns: inv local, when its response arrived
 * @inv_ns: inv local, how long its LOCAL_INV took after the response
 * @done_ns: when its last event arrived
 * @peer_cpu_ns: the target's CPU time its response reported
 * @node: entry in the host's done list
 */
struct kvperf_io_req {
	struct kvperf_io_host *h;
	u32 index;
	struct ib_cqe reg_cqe;
	struct ib_cqe send_cqe;
	struct ib_cqe inv_cqe;
	struct ib_mr *mr;
	u32 rkey;
	bool busy;
	bool in_capsule;
	atomic_t pending;
	bool answered;
	u8 op;
	u32 seed;
	bool measured;
	u64 submit_ns;
	u64 reg_ns;
	u64 rsp_ns;
	u64 inv_ns;
	u64 done_ns;
	u64 peer_cpu_ns;
	struct llist_node node;
};

/**
 * struct kvperf_io_rx - one receive for a response capsule
 * @h: the host
 * @index: its capsule in the receive buffer
 * @cqe: its completion
 */
struct kvperf_io_rx {
	struct kvperf_io_host *h;
	u32 index;
	struct ib_cqe cqe;
};

/**
 * struct kvperf_io_host - the host side of one I/O connection
 * @c: the connection; its send buffer holds the command capsules, its
 *     receive buffer the response capsules
 * @p: what to do
 * @slots: the data blocks, one per slot, mapped
 * @mrs: the queue pair's MR pool
 * @pool: @mrs was initialized
 * @pages: pages an MR of the pool maps at most
 * @reqs: the I/O slots
 * @rx: the receives
 * @credits: I/Os the target lets us keep outstanding
 * @rand: a mixed run's generator of directions (xorshift32, never 0)
 * @prereg_cqe: reg pre, the completion of the last registration at start
 * @preregistered: reg pre, every slot is registered
 * @done: I/Os whose last event arrived, for the thread
 * @task: the thread that runs the I/Os, while it runs them
 * @handler_ns: with stats on, completion handlers' time outside @task
 */
struct kvperf_io_host {
	struct kvperf_conn *c;
	struct kvperf_io_params p;
	struct kvperf_io_slots slots;
	struct list_head mrs;
	bool pool;
	u32 pages;
	struct kvperf_io_req *reqs;
	struct kvperf_io_rx *rx;
	u32 credits;
	u32 rand;
	struct ib_cqe prereg_cqe;
	bool preregistered;
	struct llist_head done;
	struct task_struct *task;
	atomic64_t handler_ns;
};

static size_t kvperf_io_capsule_off(u32 i)
{
	return (size_t)i * KVPERF_WIRE_IO_CAPSULE;
}

/**
 * kvperf_io_host_conn_attr() - the connection an I/O run's host needs
 * @p: the run
 * @poll: enum kvperf_poll
 * @attr: receives the shape
 *
 * The buffers hold a capsule per slot; each I/O may have a REG_MR, its
 * SEND and a LOCAL_INV on the send queue; the peer gets no access to
 * either buffer. With in-capsule data a SEND has the capsule's SGE and
 * the block's.
 */
void kvperf_io_host_conn_attr(const struct kvperf_io_params *p, u8 poll,
			      struct kvperf_conn_attr *attr)
{
	*attr = (struct kvperf_conn_attr) {
		.poll = poll,
		.op = KVPERF_OP_SEND,
		.size_max = p->qd * KVPERF_WIRE_IO_CAPSULE,
		.send_depth = 3 * p->qd,
		.recv_depth = p->qd,
		.node = NUMA_NO_NODE,
		.own_recvs = true,
		.send_sges = p->inline_data ? KVPERF_IO_INLINE_SGES : 0,
		.dma_block = p->bs,
	};
}

/**
 * kvperf_io_host_pinned() - the data blocks an I/O run's host pins
 * @p: the run
 *
 * Return: bytes, beyond the connection's own buffers.
 */
size_t kvperf_io_host_pinned(const struct kvperf_io_params *p)
{
	return kvperf_io_slots_bytes(p->qd, p->bs);
}

/* A completion handler's start: timed with stats on only. */
static u64 kvperf_io_cb_start(struct kvperf_io_host *h)
{
	return h->p.hist[0] ? kvperf_conn_cb_start(h->c, READ_ONCE(h->task)) :
			      0;
}

static void kvperf_io_complete_one(struct kvperf_io_req *r)
{
	struct kvperf_io_host *h = r->h;

	if (!atomic_dec_and_test(&r->pending))
		return;
	/* stats off: no clock per I/O */
	if (h->p.hist[0])
		r->done_ns = ktime_get_ns();
	llist_add(&r->node, &h->done);
	wake_up(h->c->notify);
}

static void kvperf_io_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvperf_conn *c = cq->cq_context;

	/* unsignaled: only a failure completes */
	kvperf_conn_wc_error(c, wc, "send queue flushed",
			     "the I/O's registration (REG_MR) failed");
}

/* One of an I/O's send-queue events: its command sent, or its LOCAL_INV. */
static void kvperf_io_req_done(struct ib_cq *cq, struct ib_wc *wc,
			       struct kvperf_io_req *r, const char *failed)
{
	struct kvperf_conn *c = cq->cq_context;
	u64 start = kvperf_io_cb_start(r->h);

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		kvperf_conn_wc_error(c, wc, "send queue flushed", failed);
		return;
	}
	atomic_inc(&c->sends_done);
	kvperf_io_complete_one(r);
	kvperf_conn_cb_end(start, &r->h->handler_ns);
}

static void kvperf_io_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	kvperf_io_req_done(cq, wc, container_of(wc->wr_cqe,
						struct kvperf_io_req, send_cqe),
			   "the command SEND failed");
}

static void kvperf_io_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvperf_io_req *r = container_of(wc->wr_cqe,
					       struct kvperf_io_req, inv_cqe);

	/* stats off: no clock per I/O */
	if (r->h->p.hist[0])
		r->inv_ns = ktime_get_ns() - r->rsp_ns;
	kvperf_io_req_done(cq, wc, r, "the LOCAL_INV failed");
}

static int kvperf_io_post_rx(struct kvperf_io_host *h, struct kvperf_io_rx *x)
{
	struct kvperf_conn *c = h->c;
	size_t off = kvperf_io_capsule_off(x->index);
	struct ib_sge sge = {
		.addr = kvperf_buf_dma(&c->rx, off),
		.length = KVPERF_WIRE_IO_CAPSULE,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &x->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(c->cm_id->qp, &wr, NULL);
}

static int kvperf_io_post_inv(struct kvperf_io_host *h, struct kvperf_io_req *r)
{
	struct ib_send_wr wr = {
		.wr_cqe = &r->inv_cqe,
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = r->rkey,
	};

	return ib_post_send(h->c->cm_id->qp, &wr, NULL);
}

static const char *kvperf_io_status_text(u8 status)
{
	switch (status) {
	case KVPERF_WIRE_IO_BAD_COMMAND:
		return "the target refused an I/O command as malformed";
	case KVPERF_WIRE_IO_MISMATCH:
		return "the target found written data that differ from the pattern (verify)";
	default:
		return "the target could not move an I/O's data";
	}
}

/* A response: which I/O, and is its registration gone? */
static void kvperf_io_rsp_take(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvperf_io_rx *x = container_of(wc->wr_cqe, struct kvperf_io_rx,
					      cqe);
	struct kvperf_io_host *h = x->h;
	struct kvperf_conn *c = h->c;
	size_t off = kvperf_io_capsule_off(x->index);
	struct kvperf_wire_io_rsp rsp;
	struct kvperf_io_req *r;
	bool inv = wc->wc_flags & IB_WC_WITH_INVALIDATE;
	u16 cid;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		kvperf_conn_wc_error(c, wc, "receive queue flushed",
				     "receive completion error");
		return;
	}
	atomic64_inc(&c->data_recvs);
	if (wc->byte_len < sizeof(rsp)) {
		kvperf_conn_fail(c, -EPROTO, "the target sent a truncated response");
		return;
	}
	ib_dma_sync_single_for_cpu(c->ibdev, kvperf_buf_dma(&c->rx, off),
				   sizeof(rsp), DMA_BIDIRECTIONAL);
	memcpy(&rsp, kvperf_buf_ptr(&c->rx, off), sizeof(rsp));
	ib_dma_sync_single_for_device(c->ibdev, kvperf_buf_dma(&c->rx, off),
				      sizeof(rsp), DMA_BIDIRECTIONAL);
	cid = be16_to_cpu(rsp.cid);
	r = cid < h->p.qd ? &h->reqs[cid] : NULL;
	/* a hostile or broken target: nothing it says is trusted */
	if (!r || !READ_ONCE(r->busy) || r->answered) {
		kvperf_conn_fail(c, -EPROTO, "the target answered an I/O that is not outstanding");
		return;
	}
	if (rsp.status != KVPERF_WIRE_IO_OK) {
		kvperf_conn_fail(c, -EIO, kvperf_io_status_text(rsp.status));
		return;
	}
	if (inv && r->in_capsule) {
		kvperf_conn_fail(c, -EPROTO,
				 "the target invalidated a key for a write with in-capsule data, which has none");
		return;
	}
	if (inv && wc->ex.invalidate_rkey != r->rkey) {
		kvperf_conn_fail(c, -EPROTO, "the target invalidated a key that is not the I/O's");
		return;
	}
	if (inv && h->p.reg_pre) {
		kvperf_conn_fail(c, -EPROTO,
				 "the target invalidated a registration made at connect (reg pre)");
		return;
	}
	if (!inv && !h->p.inv_local && !h->p.reg_pre && !r->in_capsule) {
		kvperf_conn_fail(c, -EPROTO,
				 "the target's response did not invalidate the I/O's key");
		return;
	}
	r->answered = true;
	/* what the target says it spent: reported, never relied on */
	r->peer_cpu_ns = be64_to_cpu(rsp.cpu_ns);
	/* the capsule is read: receive the next response into it */
	if (kvperf_io_post_rx(h, x)) {
		kvperf_conn_fail(c, -EIO, "cannot post a receive");
		return;
	}
	if (!inv && !h->p.reg_pre && !r->in_capsule) {
		atomic_inc(&r->pending);
		if (h->p.hist[0])
			r->rsp_ns = ktime_get_ns();
		if (kvperf_io_post_inv(h, r)) {
			kvperf_conn_fail(c, -EIO, "cannot post a LOCAL_INV");
			return;
		}
	}
	kvperf_io_complete_one(r);
}

static void kvperf_io_rsp_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvperf_io_host *h = container_of(wc->wr_cqe,
						struct kvperf_io_rx, cqe)->h;
	u64 start = kvperf_io_cb_start(h);

	kvperf_io_rsp_take(cq, wc);
	kvperf_conn_cb_end(start, &h->handler_ns);
}

/* What the target may do to a block: write a read's, read a write's. */
static int kvperf_io_access(u8 op, bool mixed)
{
	int write = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;

	if (mixed)
		return write | IB_ACCESS_REMOTE_READ;
	return op == KVPERF_OP_READ ? write : IB_ACCESS_REMOTE_READ;
}

/* Map slot @r's block on @mr: 0, or why it failed, the pool's MR put back. */
static int kvperf_io_map(struct kvperf_io_host *h, struct kvperf_io_req *r,
			 struct ib_mr *mr)
{
	struct scatterlist *sg;
	u32 nents;
	int n;

	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	sg = kvperf_io_slot_sg(&h->slots, r->index, &nents);
	n = ib_map_mr_sg(mr, sg, nents, NULL, PAGE_SIZE);
	if (n == nents)
		return 0;
	ib_mr_pool_put(h->c->cm_id->qp, &h->mrs, mr);
	kvperf_conn_fail(h->c, n < 0 ? n : -EINVAL,
			 "cannot map an I/O's block for FRWR");
	return n < 0 ? n : -EINVAL;
}

static void kvperf_io_prereg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvperf_conn *c = cq->cq_context;
	struct kvperf_io_host *h = container_of(wc->wr_cqe,
						struct kvperf_io_host,
						prereg_cqe);

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		kvperf_conn_wc_error(c, wc, "send queue flushed",
				     "registering the blocks at start (reg pre) failed");
		return;
	}
	WRITE_ONCE(h->preregistered, true);
	wake_up(c->notify);
}

static bool kvperf_io_preregistered(struct kvperf_conn *c, void *arg)
{
	struct kvperf_io_host *h = arg;

	return READ_ONCE(h->preregistered);
}

/*
 * reg pre: register every slot's block once, for the whole run, the
 * last registration signaled; the send queue completes them in order.
 */
static int kvperf_io_preregister(struct kvperf_io_host *h)
{
	struct kvperf_conn *c = h->c;
	u32 i;
	int err;

	for (i = 0; i < h->p.qd; i++) {
		struct kvperf_io_req *r = &h->reqs[i];
		struct ib_mr *mr = ib_mr_pool_get(c->cm_id->qp, &h->mrs);
		struct ib_reg_wr reg = {
			.wr = {
				.wr_cqe = &r->reg_cqe,
				.opcode = IB_WR_REG_MR,
			},
			.access = kvperf_io_access(h->p.op, h->p.read_pct != 0),
		};

		if (WARN_ON_ONCE(!mr))
			return -EIO;
		err = kvperf_io_map(h, r, mr);
		if (err)
			return err;
		r->mr = mr;
		r->rkey = mr->rkey;
		reg.mr = mr;
		reg.key = mr->rkey;
		if (i == h->p.qd - 1) {
			reg.wr.wr_cqe = &h->prereg_cqe;
			reg.wr.send_flags = IB_SEND_SIGNALED;
		}
		err = kvperf_conn_post_wrs(c, &reg.wr);
		if (err) {
			kvperf_conn_fail(c, err, "cannot post a registration");
			return err;
		}
	}
	return kvperf_conn_wait(c, kvperf_io_preregistered, h);
}

/* Return every MR to the pool and free it: the queue pair is drained. */
static void kvperf_io_host_drained(struct kvperf_conn *c, void *arg)
{
	struct kvperf_io_host *h = arg;
	u32 i;

	if (!h->pool)
		return;
	for (i = 0; i < h->p.qd; i++) {
		if (h->reqs[i].mr)
			ib_mr_pool_put(c->cm_id->qp, &h->mrs, h->reqs[i].mr);
		h->reqs[i].mr = NULL;
	}
	ib_mr_pool_destroy(c->cm_id->qp, &h->mrs);
	h->pool = false;
}

/**
 * kvperf_io_host_create() - the host side of an I/O run's connection
 * @c: the connection, created (its queue pair exists)
 * @p: what to do
 *
 * Allocates and maps the data blocks and the queue pair's MR pool; the
 * pool goes back when @c is destroyed, which must happen before
 * kvperf_io_host_free().
 *
 * Return: the host, or an ERR_PTR() with @c->reason set.
 */
struct kvperf_io_host *kvperf_io_host_create(struct kvperf_conn *c,
					     const struct kvperf_io_params *p)
{
	struct kvperf_io_host *h;
	u32 i;
	int err;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h) {
		c->reason = "cannot allocate the I/O state";
		return ERR_PTR(-ENOMEM);
	}
	h->c = c;
	h->p = *p;
	INIT_LIST_HEAD(&h->mrs);
	init_llist_head(&h->done);
	atomic64_set(&h->handler_ns, 0);
	h->rand = get_random_u32() | 1;
	h->prereg_cqe.done = kvperf_io_prereg_done;
	h->reqs = kcalloc(p->qd, sizeof(*h->reqs), GFP_KERNEL);
	h->rx = kcalloc(p->qd, sizeof(*h->rx), GFP_KERNEL);
	if (!h->reqs || !h->rx) {
		c->reason = "cannot allocate the I/O state";
		err = -ENOMEM;
		goto err;
	}
	for (i = 0; i < p->qd; i++) {
		h->reqs[i] = (struct kvperf_io_req) {
			.h = h,
			.index = i,
			.reg_cqe.done = kvperf_io_reg_done,
			.send_cqe.done = kvperf_io_send_done,
			.inv_cqe.done = kvperf_io_inv_done,
		};
		h->rx[i] = (struct kvperf_io_rx) {
			.h = h,
			.index = i,
			.cqe.done = kvperf_io_rsp_done,
		};
	}
	err = kvperf_io_slots_alloc(&h->slots, c->ibdev, p->qd, p->bs,
				    NUMA_NO_NODE) ?:
	      kvperf_io_slots_map(&h->slots, c->ibdev);
	if (err) {
		c->reason = "cannot allocate the I/O data buffers";
		goto err;
	}
	/* a block may start inside a page: one page more */
	h->pages = DIV_ROUND_UP(p->bs, PAGE_SIZE) + 1;
	if (h->pages > c->ibdev->attrs.max_fast_reg_page_list_len) {
		c->reason = "the block has more pages than the device's max_fast_reg_page_list_len";
		err = -EINVAL;
		goto err;
	}
	err = ib_mr_pool_init(c->cm_id->qp, &h->mrs, p->qd, IB_MR_TYPE_MEM_REG,
			      h->pages, 0);
	if (err) {
		c->reason = "cannot allocate the fast-registration MR pool";
		goto err;
	}
	h->pool = true;
	c->drained = kvperf_io_host_drained;
	c->drained_arg = h;
	return h;

err:
	kvperf_io_host_free(h);
	return ERR_PTR(err);
}

/**
 * kvperf_io_host_start() - post the response receives; with reg pre,
 *			    register every block
 * @h: the host
 * @credits: what the target granted, at most the queue depth
 *
 * Return: 0 or a negative errno with the connection's reason set.
 */
int kvperf_io_host_start(struct kvperf_io_host *h, u32 credits)
{
	struct kvperf_conn *c = h->c;
	u32 i;
	int err = 0;

	if (!credits || credits > h->p.qd) {
		kvperf_conn_fail(c, -EPROTO, "the target granted no credits or more than asked");
		return -EPROTO;
	}
	h->credits = credits;
	for (i = 0; i < h->p.qd && !err; i++)
		err = kvperf_io_post_rx(h, &h->rx[i]);
	if (err) {
		kvperf_conn_fail(c, err, "cannot post receives");
		return err;
	}
	return h->p.reg_pre ? kvperf_io_preregister(h) : 0;
}

/* The next I/O's direction: a mixed run draws it. */
static u8 kvperf_io_next_op(struct kvperf_io_host *h)
{
	u32 x = h->rand;

	if (!h->p.read_pct)
		return h->p.op;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	h->rand = x;
	/* x scaled to 0..99 */
	return ((u64)x * 100 >> 32) < h->p.read_pct ? KVPERF_OP_READ :
						      KVPERF_OP_WRITE;
}

/* Slot @slot's block, mapped, as SGEs of a SEND in @sge: how many. */
static u32 kvperf_io_block_sges(struct kvperf_io_host *h, u32 slot,
				struct ib_sge *sge)
{
	struct scatterlist *sg, *first;
	u32 nents, k;

	first = kvperf_io_slot_sg(&h->slots, slot, &nents);
	for_each_sg(first, sg, nents, k)
		sge[k] = (struct ib_sge) {
			.addr = sg_dma_address(sg),
			.length = sg_dma_len(sg),
			.lkey = h->c->pd->local_dma_lkey,
		};
	return nents;
}

/*
 * Register slot @r's block and send its command, chained; with reg pre
 * the command alone, naming the slot's standing registration; a write
 * with in-capsule data sends the whole capsule and then the block, with
 * no registration.
 */
static int kvperf_io_submit(struct kvperf_io_host *h, struct kvperf_io_req *r,
			    u32 seed, bool measured)
{
	u8 op = kvperf_io_next_op(h);
	struct kvperf_conn *c = h->c;
	struct ib_qp *qp = c->cm_id->qp;
	size_t off = kvperf_io_capsule_off(r->index);
	struct kvperf_wire_io_cmd *cmd = (void *)kvperf_buf_ptr(&c->tx, off);
	bool in_capsule = op == KVPERF_OP_WRITE && h->p.bs <= h->p.inline_data;
	u32 nseg = in_capsule ? 0 : h->p.segments;
	u32 seg_len = h->p.bs / h->p.segments, i;
	u32 len = in_capsule ? KVPERF_WIRE_IO_CAPSULE :
			       offsetof(struct kvperf_wire_io_cmd, seg) +
			       nseg * sizeof(struct kvperf_wire_io_seg);
	struct ib_mr *mr = NULL;
	struct ib_sge sge[KVPERF_IO_INLINE_SGES];
	struct ib_send_wr send = {
		.wr_cqe = &r->send_cqe,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
		.sg_list = sge,
		.num_sge = 1,
	};
	struct ib_reg_wr reg = {
		.wr = {
			.wr_cqe = &r->reg_cqe,
			.opcode = IB_WR_REG_MR,
			.next = &send,
		},
		.access = kvperf_io_access(op, false),
	};
	struct ib_send_wr *first = &send;
	u64 submit_ns = 0;
	int n;

	/* the I/O's time starts with its registration */
	if (h->p.hist[0])
		submit_ns = ktime_get_ns();
	if (in_capsule) {
		r->reg_ns = 0;
	} else if (h->p.reg_pre) {
		/* the slot's, registered at start */
		mr = r->mr;
	} else {
		mr = ib_mr_pool_get(qp, &h->mrs);
		if (WARN_ON_ONCE(!mr))
			return -EIO;
		n = kvperf_io_map(h, r, mr);
		if (n)
			return n;
		if (submit_ns)
			r->reg_ns = ktime_get_ns() - submit_ns;
		reg.mr = mr;
		reg.key = mr->rkey;
		first = &reg.wr;
	}
	if (h->p.verify && op == KVPERF_OP_WRITE) {
		kvperf_io_slot_for_cpu(&h->slots, r->index);
		kvperf_io_slot_fill(&h->slots, r->index, h->p.bs, seed);
		kvperf_io_slot_for_device(&h->slots, r->index);
	}

	ib_dma_sync_single_for_cpu(c->ibdev, kvperf_buf_dma(&c->tx, off), len,
				   DMA_BIDIRECTIONAL);
	memset(cmd, 0, len);
	cmd->cid = cpu_to_be16(r->index);
	cmd->opcode = op;
	cmd->nseg = nseg;
	cmd->len = cpu_to_be32(h->p.bs);
	cmd->seed = cpu_to_be32(seed);
	/* the block in equal parts, in order, all under the one key */
	for (i = 0; i < nseg; i++) {
		cmd->seg[i].addr = cpu_to_be64(mr->iova + (u64)i * seg_len);
		cmd->seg[i].rkey = cpu_to_be32(mr->rkey);
		cmd->seg[i].len = cpu_to_be32(seg_len);
	}
	ib_dma_sync_single_for_device(c->ibdev, kvperf_buf_dma(&c->tx, off),
				      len, DMA_BIDIRECTIONAL);
	sge[0] = (struct ib_sge) {
		.addr = kvperf_buf_dma(&c->tx, off),
		.length = len,
		.lkey = c->pd->local_dma_lkey,
	};
	if (in_capsule)
		send.num_sge += kvperf_io_block_sges(h, r->index, &sge[1]);

	r->rkey = mr ? mr->rkey : 0;
	r->in_capsule = in_capsule;
	r->op = op;
	r->seed = seed;
	r->measured = measured;
	r->answered = false;
	r->inv_ns = 0;
	atomic_set(&r->pending, 2);
	/* reg pre: the slot keeps its registration */
	if (!h->p.reg_pre)
		WRITE_ONCE(r->mr, mr);
	WRITE_ONCE(r->busy, true);
	r->submit_ns = submit_ns;
	n = kvperf_conn_post_wrs(c, first);
	if (n) {
		kvperf_conn_fail(c, n, "cannot post an I/O");
		return n;
	}
	c->sends_posted++;
	return 0;
}

static bool kvperf_io_any_done(struct kvperf_conn *c, void *arg)
{
	struct kvperf_io_host *h = arg;

	return !llist_empty(&h->done);
}

/**
 * kvperf_io_host_run() - run the I/Os
 * @h: the host, started
 * @r: receives what was measured
 *
 * Keeps min(qd, credits) I/Os outstanding: the warm-up's first, then the
 * measured ones, until their count or time is reached; waits for every
 * outstanding I/O before it returns. An I/O's latency runs from just
 * before it takes its MR from the pool to the completion handler that
 * saw its last event; the registration's part (the MR taken and mapped)
 * and, with inv local, the invalidation's (the response's arrival to
 * the LOCAL_INV's completion) are summed apart. Without a histogram
 * (stats off) no clock is read per I/O: the measured time ends with the
 * batch of completions that held the last measured I/O, and the time
 * checks (a timed run, the warm-up's end) read the clock once per batch.
 * Progress is counted in @h's params' counters for whoever reports it.
 * The CPU times: with a histogram, the calling thread's runtime and the
 * completion handlers' time outside it, from the first measured
 * submission to the end; always, the target's as its responses report
 * it, from the last one before the first measured submission to the
 * last measured one.
 *
 * Return: 0, -EINTR when stopped, or the connection's error.
 */
int kvperf_io_host_run(struct kvperf_io_host *h, struct kvperf_io_result *r)
{
	const struct kvperf_io_params *p = &h->p;
	struct kvperf_conn *c = h->c;
	u32 depth = min(p->qd, h->credits), inflight = 0, i;
	u64 submitted = 0, warm_done = 0, measured_sub = 0, now;
	u64 start_ns = 0, warm_end_ns = 0;
	u64 cpu0 = 0, handler0 = 0, peer_seen = 0, peer0 = 0, peer_end = 0;
	bool warm = p->warmup || p->warmup_ns;
	bool submitting = true;
	u32 *idle;
	u32 nidle = 0;
	int err = 0;

	memset(r, 0, sizeof(*r));
	idle = kcalloc(depth, sizeof(*idle), GFP_KERNEL);
	if (!idle)
		return -ENOMEM;
	for (i = 0; i < depth; i++)
		idle[nidle++] = depth - 1 - i;
	if (p->warmup_ns)
		warm_end_ns = ktime_get_ns() + p->warmup_ns;
	WRITE_ONCE(h->task, current);

	now = ktime_get_ns();
	for (;;) {
		struct llist_node *list;
		struct kvperf_io_req *q, *tmp;
		bool measured_done = false;

		/* submit into every idle slot while there is work left */
		while (submitting && nidle) {
			bool measured = !warm;

			if (measured && !start_ns) {
				/*
				 * the CPU snapshot may yield: before the clock
				 * that starts the measured time
				 */
				if (p->hist[0]) {
					cpu0 = kvperf_thread_cpu_ns();
					handler0 = atomic64_read(&h->handler_ns);
					now = ktime_get_ns();
				}
				start_ns = now;
				r->start_ns = now;
				peer0 = peer_seen;
			}
			if (measured && p->duration_ns &&
			    now - start_ns >= p->duration_ns) {
				submitting = false;
				break;
			}
			if (measured && !p->duration_ns &&
			    measured_sub >= p->iterations) {
				submitting = false;
				break;
			}
			/* during the warm-up, no more than it needs */
			if (!measured && p->warmup && !p->warmup_ns &&
			    submitted >= p->warmup)
				break;
			err = kvperf_io_submit(h, &h->reqs[idle[--nidle]],
					       (u32)submitted + 1, measured);
			if (err)
				goto out;
			submitted++;
			inflight++;
			if (measured)
				measured_sub++;
		}
		if (!inflight)
			break;
		err = kvperf_conn_wait(c, kvperf_io_any_done, h);
		if (err)
			goto out;
		list = llist_reverse_order(llist_del_all(&h->done));
		llist_for_each_entry_safe(q, tmp, list, node) {
			u32 dir = kvperf_io_dir(p->read_pct, q->op);

			if (!p->reg_pre && q->mr) {
				ib_mr_pool_put(c->cm_id->qp, &h->mrs, q->mr);
				WRITE_ONCE(q->mr, NULL);
			}
			WRITE_ONCE(q->busy, false);
			inflight--;
			idle[nidle++] = q->index;
			atomic64_inc(p->progress);
			peer_seen = max(peer_seen, q->peer_cpu_ns);
			if (p->verify && q->op == KVPERF_OP_READ) {
				kvperf_io_slot_for_cpu(&h->slots, q->index);
				if (!kvperf_io_slot_check(&h->slots, q->index,
							  p->bs, q->seed))
					r->mismatches[dir]++;
				kvperf_io_slot_for_device(&h->slots, q->index);
			}
			if (!q->measured) {
				warm_done++;
				continue;
			}
			r->ios[dir]++;
			atomic64_inc(p->measured);
			measured_done = true;
			peer_end = peer_seen;
			if (!p->hist[dir])
				continue;
			r->elapsed_ns = max(r->elapsed_ns,
					    q->done_ns - start_ns);
			kvperf_hist_record(p->hist[dir],
					   q->done_ns - q->submit_ns);
			r->reg_ns[dir] += q->reg_ns;
			r->inv_ns[dir] += q->inv_ns;
		}
		/* one clock read per batch of completions */
		now = ktime_get_ns();
		/* stats off: the batch's end ends the measured time so far */
		if (measured_done && !p->hist[0])
			r->elapsed_ns = now - start_ns;
		if (warm && ((p->warmup_ns && now >= warm_end_ns) ||
			     (!p->warmup_ns && warm_done >= p->warmup)))
			warm = false;
		cond_resched();
	}
	if (peer_end > peer0)
		r->peer_cpu_ns = peer_end - peer0;
	if (start_ns && p->hist[0])
		r->cpu_ns = kvperf_thread_cpu_ns() - cpu0 +
			    atomic64_read(&h->handler_ns) - handler0;
out:
	WRITE_ONCE(h->task, NULL);
	kfree(idle);
	return err;
}

/**
 * kvperf_io_host_free() - free the host side
 * @h: the host, or an ERR_PTR() or NULL; its connection destroyed
 */
void kvperf_io_host_free(struct kvperf_io_host *h)
{
	if (IS_ERR_OR_NULL(h))
		return;
	WARN_ON_ONCE(h->pool);
	kvperf_io_slots_free(&h->slots);
	kfree(h->rx);
	kfree(h->reqs);
	kfree(h);
}
