// SPDX-License-Identifier: GPL-2.0
/*
 * The user path's I/O target, as kmod/io_target.c: each command capsule
 * names the host's buffer; the target moves the data between that buffer
 * and a block of its own (RDMA WRITEs chained before the response for the
 * host's reads, RDMA READs and then the response for its writes) and
 * answers, invalidating the host's registration unless the host does
 * that itself. user space has no rdma_rw: a segment is one RDMA READ or
 * WRITE of one SGE, the block being virtually contiguous under one MR.
 *
 * One thread drives the connection and runs every completion handler,
 * so the handlers do the work themselves: a command that arrives while
 * every context is busy waits, in its receive buffer, in a FIFO of
 * receives; a context that sent its response takes the oldest. The
 * receive is posted again as soon as its command is copied out. There
 * are more receives than the host's credits and more contexts than them
 * too, as in the module, so that a host that keeps to its credits never
 * meets receiver-not-ready.
 *
 * A server started with srq N gives its I/O connections no receives of
 * their own: one shared receive queue of N capsules (struct
 * upath_io_srq, on a protection domain of the server's that the
 * connections share) serves them all, as nvmet-rdma's use_srq. A
 * receive's completion lands on the CQ of the connection whose QP took
 * it, so it is that connection's thread that queues and serves the
 * command and posts the receive back to the shared queue once the command
 * is copied out; the receives a connection took and did not post back
 * when it ends (waiting for a context, or still on its CQ) go back then.
 *
 * Every response carries the CPU time of that thread since the
 * connection's first response (CLOCK_THREAD_CPUTIME_ID): it does all the
 * target's work, and the host only takes differences.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/kvperf.h>
#include <linux/kvperf_wire.h>

#include "upath_io_target.h"

/**
 * struct upath_io_trx - one receive, for a command capsule and its data
 * @cqe: its completion
 * @t: the target whose QP it is posted to; NULL for a receive of @srq,
 *     whose connection is the one its completion arrives at
 * @srq: the shared receive queue it is posted to, or NULL
 * @p: its bytes, in the connection's receive buffer or @srq's
 * @size: how many
 * @lkey: their registration's
 * @len: bytes the command had
 */
struct upath_io_trx {
	struct upath_cqe cqe;
	struct upath_io_target *t;
	struct upath_io_srq *srq;
	uint8_t *p;
	uint32_t size;
	uint32_t lkey;
	uint32_t len;
};

/**
 * struct upath_io_tctx - one command context
 * @rw_cqe: completion of its RDMA READs
 * @rsp_cqe: completion of its response
 * @t: the target
 * @index: its response capsule and its data block
 * @cmd: the command, copied out of its receive
 * @status: the response's status
 */
struct upath_io_tctx {
	struct upath_cqe rw_cqe;
	struct upath_cqe rsp_cqe;
	struct upath_io_target *t;
	uint32_t index;
	struct kvperf_wire_io_cmd cmd;
	uint8_t status;
};

/**
 * struct upath_io_target - the target side of one I/O connection
 * @c: the connection: its receive buffer holds the receives, its send
 *     buffer the response capsules, its data buffer the contexts' blocks
 * @op: the run's op
 * @mixed: each command reads or writes, whatever @op says
 * @bs: the largest I/O
 * @credits: I/Os the host may keep outstanding
 * @segs: most segments of a command
 * @verify: fill and check the data
 * @inv_local: answer with a plain SEND
 * @inline_data: most in-capsule data of a write, 0 for none
 * @rx_stride: bytes of a receive: its capsule, then its data
 * @nctx: contexts
 * @ctx: the contexts
 * @free: the free contexts' indices, a stack
 * @nfree: entries in @free
 * @srq: the shared receive queue its commands arrive in, or NULL
 * @nrx: receives of its own (none with @srq)
 * @rx: the receives
 * @wait: arrived receives waiting for a context, a ring of @nwait_max
 * @nwait_max: the receives that may wait at most: @nrx, or all of @srq's
 * @wait_head: the oldest in @wait
 * @nwait: entries in @wait
 * @cpu0: the thread's CPU time at the first response, 0 before it
 * @served: counts the responses sent
 */
struct upath_io_target {
	struct upath_conn *c;
	uint8_t op;
	bool mixed;
	uint32_t bs;
	uint32_t credits;
	uint32_t segs;
	bool verify;
	bool inv_local;
	uint32_t inline_data;
	uint32_t rx_stride;
	uint32_t nctx;
	struct upath_io_tctx *ctx;
	uint32_t *free;
	uint32_t nfree;
	struct upath_io_srq *srq;
	uint32_t nrx;
	struct upath_io_trx *rx;
	struct upath_io_trx **wait;
	uint32_t nwait_max;
	uint32_t wait_head;
	uint32_t nwait;
	uint64_t cpu0;
	uint64_t *served;
};

/**
 * upath_io_target_conn_attr() - the connection a target needs
 * @r: the request, admitted (its credits decided)
 * @srq: the server's shared receive queue when @r->srq, else NULL
 * @attr: has the server's choices (poll) and receives the rest
 *
 * A response and a READ or WRITE per segment for every context, and a
 * receive per receive buffer; nothing goes inline. With @srq, the QP
 * takes its receives from it, on its protection domain, and the CQ has
 * room for the completions of every one of them, so that even a host
 * that sends beyond its credits cannot overflow it.
 */
void upath_io_target_conn_attr(const struct upath_req *r,
			       const struct upath_io_srq *srq,
			       struct upath_conn_attr *attr)
{
	uint32_t n = upath_wire_io_ctxs(r->credits);

	attr->size_max = upath_wire_io_buf_len(r);
	attr->inline_size = 0;
	attr->send_depth = n * (1 + r->post_list) + 1;
	attr->recv_depth = upath_wire_io_rxs(r->credits);
	attr->recv_slack = 0;
	attr->any_vector = true;
	if (!srq)
		return;
	attr->recv_depth = srq->depth;
	attr->pd = srq->pd;
	attr->srq = srq->srq;
}

static uint64_t upath_io_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * UPATH_NS_PER_S + ts.tv_nsec;
}

static uint8_t *upath_io_block(struct upath_io_target *t, uint32_t i)
{
	return t->c->data.p + (size_t)i * t->bs;
}

static void upath_io_fill(uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = kvperf_wire_pattern(seed, i);
}

/* Does @p hold the pattern? The fault injection flips a byte first. */
static bool upath_io_check(uint8_t *p, uint32_t len, uint32_t seed)
{
	struct upath_buf b = { .p = p, .len = len };
	uint32_t i;

	upath_buf_fault(&b, len);
	for (i = 0; i < len; i++)
		if (p[i] != kvperf_wire_pattern(seed, i))
			return false;
	return true;
}

/* Post a receive to its connection's QP, or back to its shared queue. */
static int upath_io_post_recv(struct upath_io_trx *r)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->p,
		.length = r->size,
		.lkey = r->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = (uintptr_t)&r->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;
	int err = r->srq ? ibv_post_srq_recv(r->srq->srq, &wr, &bad) :
			   ibv_post_recv(r->t->c->id->qp, &wr, &bad);

	return err > 0 ? -err : err;
}

/*
 * Is the command one this connection serves? Its segments fit the block;
 * in-capsule data (no segment) are a write's, within the bounds asked
 * for, and exactly what followed the capsule in the @rx_len bytes.
 */
static bool upath_io_cmd_ok(const struct upath_io_target *t,
			    const struct kvperf_wire_io_cmd *cmd,
			    uint32_t rx_len)
{
	uint32_t len = be32toh(cmd->len), sum = 0, i;
	bool op_ok = cmd->opcode == t->op ||
		     (t->mixed && (cmd->opcode == KVPERF_OP_READ ||
				   cmd->opcode == KVPERF_OP_WRITE));

	if (!op_ok || !len || len > t->bs)
		return false;
	if (!cmd->nseg)
		return cmd->opcode == KVPERF_OP_WRITE &&
		       len <= t->inline_data &&
		       rx_len == KVPERF_WIRE_IO_CAPSULE + len;
	if (cmd->nseg > t->segs)
		return false;
	for (i = 0; i < cmd->nseg; i++) {
		uint32_t n = be32toh(cmd->seg[i].len);

		if (!n || n > len - sum)
			return false;
		sum += n;
	}
	return sum == len;
}

/*
 * Copy @r's command into @x, judge it, check its in-capsule data
 * (verify), and receive the next one into @r (post it back to the shared
 * receive queue).
 */
static int upath_io_take_cmd(struct upath_io_target *t,
			     struct upath_io_trx *r, struct upath_io_tctx *x)
{
	uint8_t *p = r->p;
	uint32_t len = r->len < sizeof(x->cmd) ? r->len : sizeof(x->cmd);

	/* what the host did not send reads as zero: a malformed command */
	memset(&x->cmd, 0, sizeof(x->cmd));
	memcpy(&x->cmd, p, len);
	x->status = KVPERF_WIRE_IO_OK;
	if (!upath_io_cmd_ok(t, &x->cmd, r->len))
		x->status = KVPERF_WIRE_IO_BAD_COMMAND;
	else if (!x->cmd.nseg && t->verify &&
		 !upath_io_check(p + KVPERF_WIRE_IO_CAPSULE,
				 be32toh(x->cmd.len), be32toh(x->cmd.seed)))
		x->status = KVPERF_WIRE_IO_MISMATCH;
	return upath_io_post_recv(r);
}

/* The work request moving segment @i between the host and the block. */
static void upath_io_seg_wr(struct upath_io_tctx *x, uint32_t i,
			    uint32_t off, struct ibv_sge *sge,
			    struct ibv_send_wr *wr)
{
	struct upath_io_target *t = x->t;
	const struct kvperf_wire_io_seg *seg = &x->cmd.seg[i];

	*sge = (struct ibv_sge) {
		.addr = (uintptr_t)(upath_io_block(t, x->index) + off),
		.length = be32toh(seg->len),
		.lkey = t->c->data.mr->lkey,
	};
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = (uintptr_t)&x->rw_cqe;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = x->cmd.opcode == KVPERF_OP_READ ? IBV_WR_RDMA_WRITE :
						       IBV_WR_RDMA_READ;
	wr->wr.rdma.remote_addr = be64toh(seg->addr);
	wr->wr.rdma.rkey = be32toh(seg->rkey);
}

static int upath_io_post(struct upath_io_target *t, struct ibv_send_wr *first)
{
	struct ibv_send_wr *bad;
	int err = ibv_post_send(t->c->id->qp, first, &bad);

	return err > 0 ? -err : err;
}

/*
 * The response, after the WRITEs of a read when @data: a SEND with
 * invalidate of the host's key, unless the host invalidates itself or
 * the command named no key.
 */
static int upath_io_respond(struct upath_io_tctx *x, bool data)
{
	struct upath_io_target *t = x->t;
	struct kvperf_wire_io_rsp *rsp = (void *)(t->c->tx.p +
		(size_t)x->index * KVPERF_WIRE_IO_CAPSULE);
	struct ibv_sge sges[KVPERF_WIRE_IO_SEGS_MAX + 1];
	struct ibv_send_wr wrs[KVPERF_WIRE_IO_SEGS_MAX + 1];
	struct ibv_send_wr *wr = &wrs[0];
	uint32_t i, off = 0;
	uint64_t now;

	if (data) {
		for (i = 0; i < x->cmd.nseg; i++) {
			upath_io_seg_wr(x, i, off, &sges[i], &wrs[i]);
			off += sges[i].length;
			wrs[i].next = &wrs[i + 1];
		}
		wr = &wrs[x->cmd.nseg];
	}
	rsp->cid = x->cmd.cid;
	rsp->status = x->status;
	rsp->reserved = 0;
	now = upath_io_thread_cpu_ns();
	if (!t->cpu0)
		t->cpu0 = now;
	rsp->cpu_ns = htobe64(now - t->cpu0);
	sges[data ? x->cmd.nseg : 0] = (struct ibv_sge) {
		.addr = (uintptr_t)rsp,
		.length = sizeof(*rsp),
		.lkey = t->c->tx.mr->lkey,
	};
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = (uintptr_t)&x->rsp_cqe;
	wr->sg_list = &sges[data ? x->cmd.nseg : 0];
	wr->num_sge = 1;
	wr->opcode = IBV_WR_SEND;
	wr->send_flags = IBV_SEND_SIGNALED;
	if (!t->inv_local && x->cmd.nseg) {
		wr->opcode = IBV_WR_SEND_WITH_INV;
		wr->invalidate_rkey = be32toh(x->cmd.seg[0].rkey);
	}
	return upath_io_post(t, &wrs[0]);
}

/* A new command, judged: move its data (or refuse it) and answer. */
static int upath_io_handle_cmd(struct upath_io_tctx *x)
{
	struct upath_io_target *t = x->t;
	struct ibv_sge sges[KVPERF_WIRE_IO_SEGS_MAX];
	struct ibv_send_wr wrs[KVPERF_WIRE_IO_SEGS_MAX];
	uint32_t i, off = 0;

	if (x->status == KVPERF_WIRE_IO_BAD_COMMAND) {
		/* no key of it is trusted: nothing to invalidate */
		x->cmd.nseg = 0;
		return upath_io_respond(x, false);
	}
	/* in-capsule data: taken (and checked) on arrival */
	if (!x->cmd.nseg)
		return upath_io_respond(x, false);
	if (x->cmd.opcode == KVPERF_OP_READ) {
		if (t->verify)
			upath_io_fill(upath_io_block(t, x->index),
				      be32toh(x->cmd.len),
				      be32toh(x->cmd.seed));
		return upath_io_respond(x, true);
	}
	/* a write: READ every segment, the last one signaled */
	for (i = 0; i < x->cmd.nseg; i++) {
		upath_io_seg_wr(x, i, off, &sges[i], &wrs[i]);
		off += sges[i].length;
		wrs[i].next = i + 1 < x->cmd.nseg ? &wrs[i + 1] : NULL;
	}
	wrs[x->cmd.nseg - 1].send_flags = IBV_SEND_SIGNALED;
	return upath_io_post(t, &wrs[0]);
}

/* Arrived commands, oldest first, into free contexts. */
static void upath_io_dispatch(struct upath_io_target *t)
{
	struct upath_conn *c = t->c;
	struct upath_io_tctx *x;
	struct upath_io_trx *r;
	int err;

	while (t->nfree && t->nwait && !c->error) {
		r = t->wait[t->wait_head];
		t->wait_head = (t->wait_head + 1) % t->nwait_max;
		t->nwait--;
		x = &t->ctx[t->free[--t->nfree]];
		err = upath_io_take_cmd(t, r, x);
		if (!err)
			err = upath_io_handle_cmd(x);
		if (err)
			upath_conn_fail(c, err,
					"cannot post an I/O's work requests");
	}
}

static void upath_io_cmd_done(struct upath_conn *c, const struct ibv_wc *wc)
{
	struct upath_io_trx *r = container_of((struct upath_cqe *)
					      (uintptr_t)wc->wr_id,
					      struct upath_io_trx, cqe);
	/* a shared receive's connection is the one whose CQ it is on */
	struct upath_io_target *t = r->t ?: c->ctx;

	if (wc->status != IBV_WC_SUCCESS) {
		/* a shared receive the QP took goes back for the others */
		if (r->srq)
			upath_io_post_recv(r);
		upath_conn_fail(c, -EIO, wc->status == IBV_WC_WR_FLUSH_ERR ?
				"receive queue flushed" :
				"receive completion error");
		return;
	}
	c->data_recvs++;
	r->len = wc->byte_len;
	/* at most every receive waits: the ring has room for each */
	t->wait[(t->wait_head + t->nwait) % t->nwait_max] = r;
	t->nwait++;
	upath_io_dispatch(t);
}

static void upath_io_read_done(struct upath_conn *c, const struct ibv_wc *wc)
{
	struct upath_io_tctx *x = container_of((struct upath_cqe *)
					       (uintptr_t)wc->wr_id,
					       struct upath_io_tctx, rw_cqe);
	struct upath_io_target *t = x->t;
	int err;

	if (wc->status != IBV_WC_SUCCESS) {
		upath_conn_fail(c, -EIO, wc->status == IBV_WC_WR_FLUSH_ERR ?
				"send queue flushed" :
				"an RDMA READ of the host's buffer failed");
		return;
	}
	if (t->verify &&
	    !upath_io_check(upath_io_block(t, x->index), be32toh(x->cmd.len),
			    be32toh(x->cmd.seed)))
		x->status = KVPERF_WIRE_IO_MISMATCH;
	err = upath_io_respond(x, false);
	if (err)
		upath_conn_fail(c, err, "cannot post an I/O's work requests");
}

static void upath_io_rsp_sent(struct upath_conn *c, const struct ibv_wc *wc)
{
	struct upath_io_tctx *x = container_of((struct upath_cqe *)
					       (uintptr_t)wc->wr_id,
					       struct upath_io_tctx, rsp_cqe);
	struct upath_io_target *t = x->t;

	if (wc->status != IBV_WC_SUCCESS) {
		upath_conn_fail(c, -EIO, wc->status == IBV_WC_WR_FLUSH_ERR ?
				"send queue flushed" :
				"a response SEND failed (or the RDMA WRITEs before it)");
		return;
	}
	(*t->served)++;
	t->free[t->nfree++] = x->index;
	upath_io_dispatch(t);
}

/*
 * What upath_conn_close() finds on the CQ once the QP is gone: the shared
 * receives the QP took and nobody reaped go back to their queue.
 */
static void upath_io_drain(struct upath_conn *c, const struct ibv_wc *wc)
{
	struct upath_cqe *cqe = (struct upath_cqe *)(uintptr_t)wc->wr_id;
	struct upath_io_trx *r;

	(void)c;
	if (cqe->done != upath_io_cmd_done)
		return;
	r = container_of(cqe, struct upath_io_trx, cqe);
	if (r->srq)
		upath_io_post_recv(r);
}

/**
 * upath_io_target_create() - the target side of an I/O connection
 * @c: the connection, created with upath_io_target_conn_attr()
 * @r: what the host asked for, a valid I/O request, admitted
 * @srq: the shared receive queue its commands arrive in when @r->srq
 *	 (the one @c's QP was created on), else NULL
 * @served: counts the I/Os answered
 *
 * With @srq the target posts no receives of its own; it answers the
 * commands of the shared receives its QP takes and gives them back (see
 * upath_io_target_free()).
 *
 * Return: the target, or NULL with @c->reason set. Its data blocks are
 * the connection's and go with it.
 */
struct upath_io_target *upath_io_target_create(struct upath_conn *c,
					       const struct upath_req *r,
					       struct upath_io_srq *srq,
					       uint64_t *served)
{
	struct upath_io_target *t = calloc(1, sizeof(*t));
	uint32_t i;

	if (!t)
		goto nomem;
	t->c = c;
	t->served = served;
	t->op = r->op;
	t->mixed = r->flags & KVPERF_WIRE_IO_MIXED;
	t->bs = r->size_max;
	t->credits = r->credits;
	t->segs = r->post_list;
	t->verify = r->flags & KVPERF_WIRE_VERIFY;
	t->inv_local = r->flags & KVPERF_WIRE_IO_INV_LOCAL;
	t->inline_data = srq ? 0 : r->inline_size;
	t->rx_stride = upath_wire_io_rx_stride(r);
	t->nctx = upath_wire_io_ctxs(r->credits);
	t->srq = srq;
	t->nrx = srq ? 0 : upath_wire_io_rxs(r->credits);
	t->nwait_max = srq ? srq->depth : t->nrx;
	t->ctx = calloc(t->nctx, sizeof(*t->ctx));
	t->free = calloc(t->nctx, sizeof(*t->free));
	t->rx = calloc(t->nrx ?: 1, sizeof(*t->rx));
	t->wait = calloc(t->nwait_max, sizeof(*t->wait));
	if (!t->ctx || !t->free || !t->rx || !t->wait)
		goto nomem;
	if (upath_conn_alloc_data(c, (size_t)t->nctx * t->bs,
				  IBV_ACCESS_LOCAL_WRITE)) {
		upath_io_target_free(t);
		return NULL;
	}
	for (i = 0; i < t->nctx; i++) {
		struct upath_io_tctx *x = &t->ctx[i];

		x->t = t;
		x->index = i;
		x->rw_cqe.done = upath_io_read_done;
		x->rsp_cqe.done = upath_io_rsp_sent;
		t->free[t->nfree++] = t->nctx - 1 - i;
	}
	for (i = 0; i < t->nrx; i++) {
		t->rx[i].t = t;
		t->rx[i].p = c->rx.p + (size_t)i * t->rx_stride;
		t->rx[i].size = t->rx_stride;
		t->rx[i].lkey = c->rx.mr->lkey;
		t->rx[i].cqe.done = upath_io_cmd_done;
	}
	if (srq) {
		c->ctx = t;
		c->drain = upath_io_drain;
	}
	return t;

nomem:
	upath_io_target_free(t);
	c->reason = "cannot allocate the I/O target's state";
	return NULL;
}

/**
 * upath_io_target_start() - post every receive
 * @t: the target; with a shared receive queue there is nothing to post
 *
 * Return: 0 or a negative errno with the connection's reason set.
 */
int upath_io_target_start(struct upath_io_target *t)
{
	uint32_t i;
	int err = 0;

	for (i = 0; i < t->nrx && !err; i++)
		err = upath_io_post_recv(&t->rx[i]);
	if (err)
		t->c->reason = "cannot post receives";
	return err;
}

static bool upath_io_never(struct upath_conn *c, void *arg)
{
	(void)c;
	(void)arg;
	return false;
}

/**
 * upath_io_target_serve() - serve the host's I/Os until the connection ends
 * @t: the target, started, driven by the calling thread alone
 *
 * Commands that arrive while that thread waits for something else (the
 * connection's establishment) are served there already.
 *
 * Return: the reason the connection ended, as upath_conn_wait() says it.
 */
int upath_io_target_serve(struct upath_io_target *t)
{
	return upath_conn_wait(t->c, upath_io_never, NULL);
}

/**
 * upath_io_target_free() - free the target side
 * @t: the target, or NULL; its connection closed (upath_conn_close())
 *
 * The shared receives whose commands still waited for a context go back
 * to their queue (those still on the CQ went back as the connection
 * closed).
 */
void upath_io_target_free(struct upath_io_target *t)
{
	if (!t)
		return;
	while (t->srq && t->nwait) {
		upath_io_post_recv(t->wait[t->wait_head]);
		t->wait_head = (t->wait_head + 1) % t->nwait_max;
		t->nwait--;
	}
	free(t->wait);
	free(t->rx);
	free(t->free);
	free(t->ctx);
	free(t);
}

/**
 * upath_io_srq_create() - a server's shared receive queue for I/O runs
 * @ctx: the device of the server's listener
 * @depth: its receives, command capsules
 * @srqp: receives it
 * @why: receives what went wrong, naming the device
 * @why_len: room in @why
 *
 * A protection domain of its own, which the connections that take their
 * receives from it share; one buffer of @depth capsules registered on
 * it; every receive posted. The device must have shared receive queues
 * of @depth receives (max_srq, max_srq_wr).
 *
 * Return: 0, or a negative errno with @why set.
 */
int upath_io_srq_create(struct ibv_context *ctx, uint32_t depth,
			struct upath_io_srq **srqp, char *why, size_t why_len)
{
	const char *dev = ibv_get_device_name(ctx->device);
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = depth, .max_sge = 1 },
	};
	struct ibv_device_attr dattr;
	struct upath_io_srq *q;
	const char *reason;
	uint32_t i;
	int err;

	*srqp = NULL;
	if (ibv_query_device(ctx, &dattr)) {
		snprintf(why, why_len, "cannot query the RDMA device %s", dev);
		return -EIO;
	}
	if (dattr.max_srq <= 0 || dattr.max_srq_wr <= 0) {
		snprintf(why, why_len,
			 "srq: device %s has no shared receive queues (max_srq %d)",
			 dev, dattr.max_srq);
		return -EOPNOTSUPP;
	}
	if (depth > (uint32_t)dattr.max_srq_wr) {
		snprintf(why, why_len,
			 "srq %u: device %s takes at most %d receives in a shared receive queue (max_srq_wr)",
			 depth, dev, dattr.max_srq_wr);
		return -EINVAL;
	}
	q = calloc(1, sizeof(*q));
	if (q)
		q->rx = calloc(depth, sizeof(*q->rx));
	if (!q || !q->rx) {
		snprintf(why, why_len, "srq: out of memory");
		err = -ENOMEM;
		goto err;
	}
	q->depth = depth;
	q->pd = ibv_alloc_pd(ctx);
	if (!q->pd) {
		snprintf(why, why_len,
			 "srq: cannot allocate a protection domain on %s", dev);
		err = -ENOMEM;
		goto err;
	}
	err = upath_buf_reg(q->pd, &q->buf,
			    (size_t)depth * KVPERF_WIRE_IO_CAPSULE,
			    IBV_ACCESS_LOCAL_WRITE, &reason);
	if (err) {
		snprintf(why, why_len, "srq: %s", reason);
		goto err;
	}
	q->srq = ibv_create_srq(q->pd, &sa);
	if (!q->srq) {
		snprintf(why, why_len,
			 "srq %u: cannot create a shared receive queue on %s: %s",
			 depth, dev, strerror(errno));
		err = errno ? -errno : -ENOMEM;
		goto err;
	}
	for (i = 0; i < depth && !err; i++) {
		struct upath_io_trx *r = &q->rx[i];

		r->srq = q;
		r->p = q->buf.p + (size_t)i * KVPERF_WIRE_IO_CAPSULE;
		r->size = KVPERF_WIRE_IO_CAPSULE;
		r->lkey = q->buf.mr->lkey;
		r->cqe.done = upath_io_cmd_done;
		err = upath_io_post_recv(r);
	}
	if (err) {
		snprintf(why, why_len,
			 "srq %u: cannot post its receives on %s: %s", depth,
			 dev, strerror(-err));
		goto err;
	}
	*srqp = q;
	return 0;

err:
	upath_io_srq_free(q);
	return err;
}

/**
 * upath_io_srq_free() - free a shared receive queue
 * @q: the queue, or NULL; every QP that took receives from it destroyed
 */
void upath_io_srq_free(struct upath_io_srq *q)
{
	if (!q)
		return;
	if (q->srq)
		ibv_destroy_srq(q->srq);
	upath_buf_free(&q->buf);
	if (q->pd)
		ibv_dealloc_pd(q->pd);
	free(q->rx);
	free(q);
}
