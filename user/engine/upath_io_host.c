// SPDX-License-Identifier: GPL-2.0
/*
 * The user path's I/O host, as kmod/io_host.c with reg pre: every slot's
 * block is part of one registration made at start, and an I/O is its
 * command SEND and the target's response, a plain SEND (the request
 * says so: there is no per-I/O key to invalidate). A write of at most
 * inline-data bytes carries its block in the command, as a second SGE.
 *
 * With reg mw, as kmod/io_host.c with FRWR: the registration made at
 * start grants the target nothing, and each slot has a type 2 memory
 * window. An I/O binds it over its block with a new key and only the
 * access the target needs (BIND_MW chained before the command SEND),
 * and completes once the window is invalidated again: by the target's
 * SEND with invalidate, or by a LOCAL_INV posted here after the
 * response (inv local).
 *
 * One thread drives the queue and runs its completion handlers, so the
 * handlers count an I/O's two events themselves; the one that sees the
 * last stamps the I/O and queues it for the loop, which records it and
 * submits the next one into its slot.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/kvperf.h>
#include <linux/kvperf_wire.h>

#include "upath_io_host.h"

/*
 * Soft-RoCE's vendor id. rxe writes its user CQEs itself, with the
 * kernel's flags: a SEND with invalidate has IB_WC_WITH_INVALIDATE
 * (1 << 2), the bit libibverbs calls IBV_WC_IP_CSUM_OK, not
 * IBV_WC_WITH_INV (1 << 3). An RC receive has no checksum flag to report.
 */
#define UPATH_RXE_VENDOR_ID	0xffffff

/**
 * struct upath_io_req - one I/O slot
 * @send_cqe: its command SEND's completion
 * @bind_cqe: reg mw, its BIND_MW's (unsignaled: only a failure completes)
 * @inv_cqe: reg mw, inv local, its LOCAL_INV's
 * @h: the host
 * @index: the slot, also the command id
 * @mw: reg mw, the slot's memory window
 * @rkey: reg mw, @mw's key for the I/O in flight
 * @busy: an I/O is in flight in the slot
 * @in_capsule: the I/O is a write whose data travel in its command
 * @answered: its response arrived
 * @pending: events it still waits for: its SEND, its response, its
 *	     LOCAL_INV
 * @op: its direction
 * @seed: its pattern's seed
 * @measured: it counts in the results
 * @submit_ns: when it was submitted (stats on), before its bind
 * @reg_ns: reg mw (stats on), how long preparing its bind took
 * @rsp_ns: inv local (stats on), when its response arrived
 * @inv_ns: inv local (stats on), how long its LOCAL_INV took after that
 * @done_ns: when its last event arrived (stats on)
 * @peer_cpu_ns: the target's CPU time its response reported
 */
struct upath_io_req {
	struct upath_cqe send_cqe;
	struct upath_cqe bind_cqe;
	struct upath_cqe inv_cqe;
	struct upath_io_host *h;
	uint32_t index;
	struct ibv_mw *mw;
	uint32_t rkey;
	bool busy;
	bool in_capsule;
	bool answered;
	uint8_t pending;
	uint8_t op;
	uint32_t seed;
	bool measured;
	uint64_t submit_ns;
	uint64_t reg_ns;
	uint64_t rsp_ns;
	uint64_t inv_ns;
	uint64_t done_ns;
	uint64_t peer_cpu_ns;
};

/**
 * struct upath_io_rx - one receive, for a response capsule
 * @cqe: its completion
 * @h: the host
 * @index: its capsule in the receive buffer
 */
struct upath_io_rx {
	struct upath_cqe cqe;
	struct upath_io_host *h;
	uint32_t index;
};

/**
 * struct upath_io_host - the host side of one I/O connection
 * @c: the connection: its send buffer holds the command capsules, its
 *     receive buffer the responses, its data buffer the blocks
 * @p: what to do
 * @reqs: the slots
 * @rx: the receives
 * @credits: I/Os the target lets us keep outstanding
 * @rand: a mix's generator (xorshift32, never 0)
 * @done: slots whose I/O completed, for the loop, @ndone of them
 * @ndone: entries in @done
 * @wc_inv: the completion flags that say a receive invalidated a key
 */
struct upath_io_host {
	struct upath_conn *c;
	struct upath_io_params p;
	struct upath_io_req *reqs;
	struct upath_io_rx *rx;
	uint32_t credits;
	uint32_t rand;
	uint32_t *done;
	uint32_t ndone;
	unsigned int wc_inv;
};

static uint8_t *upath_io_capsule(struct upath_buf *b, uint32_t i)
{
	return b->p + (size_t)i * KVPERF_WIRE_IO_CAPSULE;
}

static uint8_t *upath_io_block(struct upath_io_host *h, uint32_t i)
{
	return h->c->data.p + (size_t)i * h->p.bs;
}

static uint64_t upath_io_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * UPATH_NS_PER_S + ts.tv_nsec;
}

/**
 * upath_io_host_conn_attr() - the connection one queue needs
 * @p: the run
 * @poll: enum kvperf_poll
 * @attr: receives the shape
 *
 * A capsule per slot in each buffer, a SEND per slot on the send queue
 * (two SGEs with in-capsule data), with reg mw a BIND_MW and a LOCAL_INV
 * too, a receive per slot posted by the host itself.
 */
void upath_io_host_conn_attr(const struct upath_io_params *p, uint8_t poll,
			     struct upath_conn_attr *attr)
{
	*attr = (struct upath_conn_attr) {
		.poll = poll,
		.size_max = p->qd * KVPERF_WIRE_IO_CAPSULE,
		.send_depth = p->mw ? 3 * p->qd : p->qd,
		.recv_depth = p->qd,
		.any_vector = true,
		.send_sges = p->inline_data ? 2 : 1,
		.own_recvs = true,
		.mw = p->mw,
	};
}

static void upath_io_complete_one(struct upath_io_req *r)
{
	struct upath_io_host *h = r->h;

	if (--r->pending)
		return;
	/* stats off: no clock per I/O */
	if (h->p.hist[0])
		r->done_ns = upath_now_ns();
	h->done[h->ndone++] = r->index;
}

/* A send-queue completion: true when it succeeded, else the run fails. */
static bool upath_io_wc_ok(struct upath_conn *c, const struct ibv_wc *wc,
			   const char *failed)
{
	if (wc->status == IBV_WC_SUCCESS)
		return true;
	upath_conn_fail(c, -EIO, wc->status == IBV_WC_WR_FLUSH_ERR ?
			"send queue flushed" : failed);
	return false;
}

static void upath_io_send_done(struct upath_conn *c, const struct ibv_wc *wc)
{
	struct upath_io_req *r = container_of((struct upath_cqe *)
					      (uintptr_t)wc->wr_id,
					      struct upath_io_req, send_cqe);

	if (upath_io_wc_ok(c, wc, "the command SEND failed"))
		upath_io_complete_one(r);
}

static void upath_io_bind_done(struct upath_conn *c, const struct ibv_wc *wc)
{
	/* unsignaled: only a failure completes */
	upath_io_wc_ok(c, wc, "the I/O's memory window bind (BIND_MW) failed");
}

static void upath_io_inv_done(struct upath_conn *c, const struct ibv_wc *wc)
{
	struct upath_io_req *r = container_of((struct upath_cqe *)
					      (uintptr_t)wc->wr_id,
					      struct upath_io_req, inv_cqe);

	if (!upath_io_wc_ok(c, wc,
			    "the LOCAL_INV of the I/O's memory window failed"))
		return;
	/* stats off: no clock per I/O */
	if (r->h->p.hist[0])
		r->inv_ns = upath_now_ns() - r->rsp_ns;
	upath_io_complete_one(r);
}

static int upath_io_post_inv(struct upath_io_host *h, struct upath_io_req *r)
{
	struct ibv_send_wr wr = {
		.wr_id = (uintptr_t)&r->inv_cqe,
		.opcode = IBV_WR_LOCAL_INV,
		.send_flags = IBV_SEND_SIGNALED,
		.invalidate_rkey = r->rkey,
	}, *bad;
	int err = ibv_post_send(h->c->id->qp, &wr, &bad);

	return err > 0 ? -err : err;
}

static int upath_io_post_rx(struct upath_io_host *h, struct upath_io_rx *x)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)upath_io_capsule(&h->c->rx, x->index),
		.length = KVPERF_WIRE_IO_CAPSULE,
		.lkey = h->c->rx.mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = (uintptr_t)&x->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;
	int err = ibv_post_recv(h->c->id->qp, &wr, &bad);

	return err > 0 ? -err : err;
}

static const char *upath_io_status_text(uint8_t status)
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

/* A response: which I/O? Nothing a target says is trusted. */
static void upath_io_rsp_done(struct upath_conn *c, const struct ibv_wc *wc)
{
	struct upath_io_rx *x = container_of((struct upath_cqe *)
					     (uintptr_t)wc->wr_id,
					     struct upath_io_rx, cqe);
	struct upath_io_host *h = x->h;
	bool inv = wc->wc_flags & h->wc_inv;
	struct kvperf_wire_io_rsp rsp;
	struct upath_io_req *r;
	bool keyed;
	uint16_t cid;

	if (wc->status != IBV_WC_SUCCESS) {
		upath_conn_fail(c, -EIO, wc->status == IBV_WC_WR_FLUSH_ERR ?
				"receive queue flushed" :
				"receive completion error");
		return;
	}
	if (wc->byte_len < sizeof(rsp)) {
		upath_conn_fail(c, -EPROTO, "the target sent a truncated response");
		return;
	}
	memcpy(&rsp, upath_io_capsule(&c->rx, x->index), sizeof(rsp));
	cid = be16toh(rsp.cid);
	r = cid < h->p.qd ? &h->reqs[cid] : NULL;
	if (!r || !r->busy || r->answered) {
		upath_conn_fail(c, -EPROTO, "the target answered an I/O that is not outstanding");
		return;
	}
	if (rsp.status != KVPERF_WIRE_IO_OK) {
		upath_conn_fail(c, -EIO, upath_io_status_text(rsp.status));
		return;
	}
	/* reg mw: the I/O's window, unless its data were in the command */
	keyed = h->p.mw && !r->in_capsule;
	if (inv && r->in_capsule) {
		upath_conn_fail(c, -EPROTO,
				"the target invalidated a key for a write with in-capsule data, which has none");
		return;
	}
	if (inv && !h->p.mw) {
		upath_conn_fail(c, -EPROTO,
				"the target invalidated a registration made at connect (reg pre)");
		return;
	}
	if (inv && wc->invalidated_rkey != r->rkey) {
		upath_conn_fail(c, -EPROTO,
				"the target invalidated a key that is not the I/O's memory window's");
		return;
	}
	if (!inv && keyed && !h->p.inv_local) {
		upath_conn_fail(c, -EPROTO,
				"the target's response did not invalidate the I/O's memory window (reg mw, inv remote)");
		return;
	}
	r->answered = true;
	/* what the target says it spent: reported, never relied on */
	r->peer_cpu_ns = be64toh(rsp.cpu_ns);
	if (upath_io_post_rx(h, x)) {
		upath_conn_fail(c, -EIO, "cannot post a receive");
		return;
	}
	/* inv local: the window goes before the I/O completes */
	if (!inv && keyed) {
		r->pending++;
		if (h->p.hist[0])
			r->rsp_ns = upath_now_ns();
		if (upath_io_post_inv(h, r)) {
			upath_conn_fail(c, -EIO, "cannot post a LOCAL_INV");
			return;
		}
	}
	upath_io_complete_one(r);
}

/*
 * What the target may do to the blocks: write reads', read writes'. With
 * reg mw nothing: each I/O's window grants what it needs; binding one
 * for remote writes takes local write on the registration.
 */
static int upath_io_access(const struct upath_io_params *p)
{
	int write = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

	if (p->mw)
		return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND;
	if (p->read_pct)
		return write | IBV_ACCESS_REMOTE_READ;
	return p->op == KVPERF_OP_READ ? write :
	       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ;
}

/* An I/O's window: the remote access its direction needs, no more. */
static unsigned int upath_io_mw_access(uint8_t op)
{
	return op == KVPERF_OP_READ ? IBV_ACCESS_REMOTE_WRITE :
				      IBV_ACCESS_REMOTE_READ;
}

/* Free the slots' windows: before the registration they are bound to. */
static void upath_io_mws_free(struct upath_io_host *h)
{
	uint32_t i;

	for (i = 0; h->reqs && i < h->p.qd; i++) {
		if (h->reqs[i].mw)
			ibv_dealloc_mw(h->reqs[i].mw);
		h->reqs[i].mw = NULL;
	}
}

/*
 * upath_conn_close(): the QP is disconnected; the windows go before it
 * (a bound type 2 window holds it: rxe waits for them in vain) and before
 * the blocks' registration.
 */
static void upath_io_host_unbind(struct upath_conn *c, void *arg)
{
	(void)c;
	upath_io_mws_free(arg);
}

/* reg mw: a type 2 window per slot, freed when the connection closes. */
static int upath_io_mws_alloc(struct upath_io_host *h)
{
	struct upath_conn *c = h->c;
	uint32_t i;

	c->unbind = upath_io_host_unbind;
	c->unbind_arg = h;
	for (i = 0; i < h->p.qd; i++) {
		struct upath_io_req *r = &h->reqs[i];

		r->mw = ibv_alloc_mw(c->pd, IBV_MW_TYPE_2);
		if (!r->mw) {
			c->reason = "cannot allocate a memory window per slot (the device's max_mw?)";
			return errno ? -errno : -ENOMEM;
		}
		r->rkey = r->mw->rkey;
	}
	return 0;
}

/**
 * upath_io_host_create() - the host side of one queue's connection
 * @c: the connection, connected
 * @p: what to do
 *
 * Registers every slot's block, once, for the whole run; with reg mw
 * allocates a memory window per slot too, which upath_conn_close()
 * frees before it destroys the QP.
 *
 * Return: the host, or NULL with @c->reason set; its blocks are the
 * connection's and go with it.
 */
struct upath_io_host *upath_io_host_create(struct upath_conn *c,
					   const struct upath_io_params *p)
{
	struct upath_io_host *h = calloc(1, sizeof(*h));
	uint32_t i;

	if (!h)
		goto nomem;
	h->c = c;
	h->p = *p;
	h->rand = p->seed | 1;
	h->wc_inv = IBV_WC_WITH_INV;
	if (c->vendor_id == UPATH_RXE_VENDOR_ID)
		h->wc_inv |= IBV_WC_IP_CSUM_OK;
	h->reqs = calloc(p->qd, sizeof(*h->reqs));
	h->rx = calloc(p->qd, sizeof(*h->rx));
	h->done = calloc(p->qd, sizeof(*h->done));
	if (!h->reqs || !h->rx || !h->done)
		goto nomem;
	for (i = 0; i < p->qd; i++) {
		h->reqs[i].h = h;
		h->reqs[i].index = i;
		h->reqs[i].send_cqe.done = upath_io_send_done;
		h->reqs[i].bind_cqe.done = upath_io_bind_done;
		h->reqs[i].inv_cqe.done = upath_io_inv_done;
		h->rx[i].h = h;
		h->rx[i].index = i;
		h->rx[i].cqe.done = upath_io_rsp_done;
	}
	if (upath_conn_alloc_data(c, (size_t)p->qd * p->bs,
				  upath_io_access(p)) ||
	    (p->mw && upath_io_mws_alloc(h))) {
		upath_io_host_free(h);
		return NULL;
	}
	return h;

nomem:
	upath_io_host_free(h);
	c->reason = "cannot allocate the I/O state";
	return NULL;
}

/**
 * upath_io_host_start() - post the response receives
 * @h: the host
 *
 * Return: 0 or a negative errno with the connection's reason set.
 */
int upath_io_host_start(struct upath_io_host *h)
{
	struct upath_conn *c = h->c;
	uint32_t i;
	int err = 0;

	if (!c->credits || c->credits > h->p.qd) {
		upath_conn_fail(c, -EPROTO, "the target granted no credits or more than asked");
		return -EPROTO;
	}
	h->credits = c->credits;
	for (i = 0; i < h->p.qd && !err; i++)
		err = upath_io_post_rx(h, &h->rx[i]);
	if (err)
		upath_conn_fail(c, err, "cannot post receives");
	return err;
}

/* The next I/O's direction: a mix draws it. */
static uint8_t upath_io_next_op(struct upath_io_host *h)
{
	uint32_t x = h->rand;

	if (!h->p.read_pct)
		return h->p.op;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	h->rand = x;
	/* x scaled to 0..99 */
	return ((uint64_t)x * 100 >> 32) < h->p.read_pct ? KVPERF_OP_READ :
							   KVPERF_OP_WRITE;
}

/*
 * Send slot @r's command, naming its part of the one registration; with
 * reg mw bind the slot's window over its block first, chained, and name
 * the window; a write with in-capsule data sends the whole capsule and
 * then the block, with no window.
 */
static int upath_io_submit(struct upath_io_host *h, struct upath_io_req *r,
			   uint32_t seed, bool measured)
{
	uint8_t op = upath_io_next_op(h);
	struct upath_conn *c = h->c;
	struct kvperf_wire_io_cmd *cmd =
		(void *)upath_io_capsule(&c->tx, r->index);
	bool in_capsule = op == KVPERF_OP_WRITE && h->p.bs <= h->p.inline_data;
	uint32_t nseg = in_capsule ? 0 : h->p.segments;
	uint32_t seg_len = h->p.bs / h->p.segments, i;
	uint32_t len = in_capsule ? KVPERF_WIRE_IO_CAPSULE :
			       offsetof(struct kvperf_wire_io_cmd, seg) +
			       nseg * sizeof(struct kvperf_wire_io_seg);
	uint8_t *block = upath_io_block(h, r->index);
	struct ibv_sge sge[2] = {
		{
			.addr = (uintptr_t)cmd,
			.length = len,
			.lkey = c->tx.mr->lkey,
		},
		{
			.addr = (uintptr_t)block,
			.length = h->p.bs,
			.lkey = c->data.mr->lkey,
		},
	};
	struct ibv_send_wr wr = {
		.wr_id = (uintptr_t)&r->send_cqe,
		.sg_list = sge,
		.num_sge = in_capsule ? 2 : 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_send_wr bind = {
		.wr_id = (uintptr_t)&r->bind_cqe,
		.next = &wr,
		.opcode = IBV_WR_BIND_MW,
	}, *first = &wr;
	uint32_t rkey = c->data.mr->rkey;
	uint64_t addr = (uintptr_t)block;
	int err;

	/* the I/O's time starts before its window and its data */
	r->submit_ns = h->p.hist[0] ? upath_now_ns() : 0;
	r->reg_ns = 0;
	if (h->p.mw && !in_capsule) {
		/* a new key: the last I/O's is invalid, this one's not yet */
		r->rkey = ibv_inc_rkey(r->rkey);
		bind.bind_mw.mw = r->mw;
		bind.bind_mw.rkey = r->rkey;
		bind.bind_mw.bind_info = (struct ibv_mw_bind_info) {
			.mr = c->data.mr,
			.addr = addr,
			.length = h->p.bs,
			.mw_access_flags = upath_io_mw_access(op),
		};
		rkey = r->rkey;
		first = &bind;
		if (r->submit_ns)
			r->reg_ns = upath_now_ns() - r->submit_ns;
	}
	if (h->p.verify && op == KVPERF_OP_WRITE) {
		struct upath_buf b = { .p = block, .len = h->p.bs };

		upath_buf_fill(&b, h->p.bs, seed);
	}
	memset(cmd, 0, len);
	cmd->cid = htobe16(r->index);
	cmd->opcode = op;
	cmd->nseg = nseg;
	cmd->len = htobe32(h->p.bs);
	cmd->seed = htobe32(seed);
	/* the block in equal parts, in order, all under the one key */
	for (i = 0; i < nseg; i++) {
		cmd->seg[i].addr = htobe64(addr + (uint64_t)i * seg_len);
		cmd->seg[i].rkey = htobe32(rkey);
		cmd->seg[i].len = htobe32(seg_len);
	}
	r->in_capsule = in_capsule;
	r->inv_ns = 0;
	r->op = op;
	r->seed = seed;
	r->measured = measured;
	r->answered = false;
	r->pending = 2;
	r->busy = true;
	err = ibv_post_send(c->id->qp, first, &bad);
	if (err) {
		upath_conn_fail(c, err > 0 ? -err : err, "cannot post an I/O");
		return c->error;
	}
	/*
	 * the window's key is now the bind's: a provider names the window
	 * by it in the next bind (rxe checks it against its own)
	 */
	if (first == &bind)
		r->mw->rkey = r->rkey;
	return 0;
}

static bool upath_io_any_done(struct upath_conn *c, void *arg)
{
	struct upath_io_host *h = arg;

	(void)c;
	return h->ndone;
}

/*
 * The completed I/Os: record them, check reads' data, free their slots.
 * Return: whether a measured one was among them.
 */
static bool upath_io_reap(struct upath_io_host *h, struct upath_io_result *r,
			  uint32_t *idle, uint32_t *nidle, uint64_t start_ns,
			  uint64_t *warm_done, uint64_t *peer_seen,
			  uint64_t *peer_end, uint64_t *progress)
{
	const struct upath_io_params *p = &h->p;
	bool measured_done = false;
	uint32_t k;

	for (k = 0; k < h->ndone; k++) {
		struct upath_io_req *q = &h->reqs[h->done[k]];
		uint32_t dir = p->read_pct && q->op == KVPERF_OP_WRITE;

		q->busy = false;
		idle[(*nidle)++] = q->index;
		__atomic_fetch_add(progress, 1, __ATOMIC_RELAXED);
		if (q->peer_cpu_ns > *peer_seen)
			*peer_seen = q->peer_cpu_ns;
		if (p->verify && q->op == KVPERF_OP_READ) {
			struct upath_buf b = {
				.p = upath_io_block(h, q->index),
				.len = p->bs,
			};

			upath_buf_fault(&b, p->bs);
			if (!upath_buf_check(&b, p->bs, q->seed))
				r->mismatches[dir]++;
		}
		if (!q->measured) {
			(*warm_done)++;
			continue;
		}
		r->ios[dir]++;
		measured_done = true;
		*peer_end = *peer_seen;
		if (!p->hist[dir])
			continue;
		if (q->done_ns - start_ns > r->elapsed_ns)
			r->elapsed_ns = q->done_ns - start_ns;
		upath_hist_record(p->hist[dir], q->done_ns - q->submit_ns);
		r->reg_ns[dir] += q->reg_ns;
		r->inv_ns[dir] += q->inv_ns;
	}
	h->ndone = 0;
	return measured_done;
}

/**
 * upath_io_host_run() - run the I/Os
 * @h: the host, started
 * @r: receives what was measured
 * @progress: counts every completed I/O, warm-up included
 *
 * As kvperf_io_host_run(): min(qd, credits) I/Os outstanding, the
 * warm-up's first; an I/O's latency runs from its submission (before its
 * window's bind, reg mw) to the handler that saw its last event; with
 * reg mw the bind's part (preparing it) and, with inv local, the
 * invalidation's (the response's arrival to the LOCAL_INV's completion)
 * are summed apart. Stats off reads no
 * clock per I/O: the measured time ends with the batch of completions
 * that held the last measured I/O. The host's CPU time (stats on) is
 * this thread's, which runs every completion handler.
 *
 * Return: 0, -EINTR when stopped, or the connection's error.
 */
int upath_io_host_run(struct upath_io_host *h, struct upath_io_result *r,
		      uint64_t *progress)
{
	const struct upath_io_params *p = &h->p;
	struct upath_conn *c = h->c;
	uint32_t depth = p->qd < h->credits ? p->qd : h->credits;
	uint32_t inflight = 0, nidle = 0, i, *idle;
	uint64_t submitted = 0, warm_done = 0, measured_sub = 0, now;
	uint64_t start_ns = 0, warm_end_ns = 0, cpu0 = 0;
	uint64_t peer_seen = 0, peer0 = 0, peer_end = 0;
	bool warm = p->warmup || p->warmup_ns, submitting = true;
	int err = 0;

	memset(r, 0, sizeof(*r));
	idle = calloc(depth, sizeof(*idle));
	if (!idle)
		return -ENOMEM;
	for (i = 0; i < depth; i++)
		idle[nidle++] = depth - 1 - i;
	now = upath_now_ns();
	if (p->warmup_ns)
		warm_end_ns = now + p->warmup_ns;
	for (;;) {
		while (submitting && nidle) {
			bool measured = !warm;

			if (measured && !start_ns) {
				if (p->hist[0]) {
					cpu0 = upath_io_thread_cpu_ns();
					now = upath_now_ns();
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
			err = upath_io_submit(h, &h->reqs[idle[--nidle]],
					      (uint32_t)submitted + 1, measured);
			if (err)
				goto out;
			submitted++;
			inflight++;
			if (measured)
				measured_sub++;
		}
		if (!inflight)
			break;
		err = upath_conn_wait(c, upath_io_any_done, h);
		if (err)
			goto out;
		inflight -= h->ndone;
		if (upath_io_reap(h, r, idle, &nidle, start_ns, &warm_done,
				  &peer_seen, &peer_end, progress) &&
		    !p->hist[0])
			r->elapsed_ns = upath_now_ns() - start_ns;
		/* one clock read per batch of completions */
		now = upath_now_ns();
		if (warm && ((p->warmup_ns && now >= warm_end_ns) ||
			     (!p->warmup_ns && warm_done >= p->warmup)))
			warm = false;
	}
	if (peer_end > peer0)
		r->peer_cpu_ns = peer_end - peer0;
	if (start_ns && p->hist[0])
		r->cpu_ns = upath_io_thread_cpu_ns() - cpu0;
out:
	free(idle);
	return err;
}

/**
 * upath_io_host_free() - free the host side
 * @h: the host, or NULL
 */
void upath_io_host_free(struct upath_io_host *h)
{
	if (!h)
		return;
	/* not closed yet (a setup that failed): the windows go now */
	if (h->c->unbind_arg == h) {
		upath_io_mws_free(h);
		h->c->unbind = NULL;
		h->c->unbind_arg = NULL;
	}
	free(h->done);
	free(h->rx);
	free(h->reqs);
	free(h);
}
