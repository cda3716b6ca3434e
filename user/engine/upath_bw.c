// SPDX-License-Identifier: GPL-2.0
/*
 * The bandwidth loops of the user path, work request for work request
 * those of kmod/bw.c: each queue pair keeps up to tx_depth requests in
 * flight, posts them post_list at a time, and asks for a completion at
 * least every signal_every of them and whenever the send queue could not
 * take another list without one. A signaled request's wr_id is a slot
 * that says how many requests its completion retires, so the queue is
 * accounted exactly. The control exchange around each size (SIZE, START,
 * END and the REPORT) and the server's side are the module's too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kvperf.h>
#include <linux/kvperf_wire.h>

#include "upath_bw.h"

/*
 * Busy polling spins this long without a completion before it naps:
 * completions of large messages with selective signaling come hundreds
 * of milliseconds apart on a slow device.
 */
#define UPATH_BW_SPIN_NS	UPATH_NS_PER_S
#define UPATH_BW_POLL_BUDGET	64
#define UPATH_BW_CM_EVERY_NS	(10 * UPATH_NS_PER_MS)

static void upath_bw_wc_error(struct upath_bw_qp *q, const struct ibv_wc *wc)
{
	upath_conn_fail(q->c, -EIO, wc->status == IBV_WC_WR_FLUSH_ERR ?
			"send queue flushed" : "send completion error");
	q->c->waiter->events++;
}

static void upath_bw_signaled_done(struct upath_conn *c,
				   const struct ibv_wc *wc)
{
	struct upath_bw_slot *slot =
		container_of((struct upath_cqe *)(uintptr_t)wc->wr_id,
			     struct upath_bw_slot, cqe);
	struct upath_bw_qp *q = slot->q;

	if (wc->status != IBV_WC_SUCCESS) {
		upath_bw_wc_error(q, wc);
		return;
	}
	q->last_ns = upath_now_ns();
	__atomic_store_n(&q->completed, q->completed + slot->covered,
			 __ATOMIC_RELEASE);
	c->waiter->events++;
}

/* Unsignaled requests complete only when something went wrong. */
static void upath_bw_unsignaled_done(struct upath_conn *c,
				     const struct ibv_wc *wc)
{
	struct upath_bw_qp *q =
		container_of((struct upath_cqe *)(uintptr_t)wc->wr_id,
			     struct upath_bw_qp, unsignaled_cqe);

	(void)c;
	upath_bw_wc_error(q, wc);
}

/**
 * upath_bw_qp_init() - prepare a connection for bandwidth phases
 * @q: the queue pair's state
 * @c: its connection
 * @p: the traffic; checked by the caller
 *
 * Return: 0 or -ENOMEM.
 */
int upath_bw_qp_init(struct upath_bw_qp *q, struct upath_conn *c,
		     const struct upath_bw_params *p)
{
	uint32_t i;

	memset(q, 0, sizeof(*q));
	q->c = c;
	q->p = *p;
	q->unsignaled_cqe.done = upath_bw_unsignaled_done;
	q->slots = calloc(p->tx_depth, sizeof(*q->slots));
	q->wrs = calloc(p->post_list, sizeof(*q->wrs));
	if (!q->slots || !q->wrs) {
		upath_bw_qp_destroy(q);
		return -ENOMEM;
	}
	for (i = 0; i < p->tx_depth; i++) {
		q->slots[i].cqe.done = upath_bw_signaled_done;
		q->slots[i].q = q;
	}
	return 0;
}

/**
 * upath_bw_qp_destroy() - free what upath_bw_qp_init() allocated
 * @q: the queue pair's state
 */
void upath_bw_qp_destroy(struct upath_bw_qp *q)
{
	free(q->slots);
	q->slots = NULL;
	free(q->wrs);
	q->wrs = NULL;
}

/**
 * upath_bw_completed() - requests completed in the current phase
 * @q: the queue pair; any thread may ask
 *
 * Return: the count.
 */
uint64_t upath_bw_completed(const struct upath_bw_qp *q)
{
	return __atomic_load_n(&q->completed, __ATOMIC_ACQUIRE);
}

static enum ibv_wr_opcode upath_bw_opcode(uint8_t op)
{
	switch (op) {
	case KVPERF_OP_WRITE:
		return IBV_WR_RDMA_WRITE;
	case KVPERF_OP_READ:
		return IBV_WR_RDMA_READ;
	default:
		return IBV_WR_SEND;
	}
}

/**
 * upath_bw_phase_start() - reset a queue pair for a warm-up or measured
 *			    phase
 * @q: the queue pair, with nothing in flight
 * @size: message size
 * @warmup: the phase is the warm-up
 */
void upath_bw_phase_start(struct upath_bw_qp *q, uint32_t size, bool warmup)
{
	struct upath_conn *c = q->c;
	uint8_t op = q->p.op;
	struct upath_buf *b = op == KVPERF_OP_READ ? &c->rx : &c->tx;
	uint32_t i;

	q->size = size;
	if (warmup)
		q->target = q->p.warmup_ns ? 0 : q->p.warmup;
	else
		q->target = q->p.duration_ns ? 0 : q->p.iterations;
	q->posted = 0;
	q->unsignaled = 0;
	q->nsignaled = 0;
	q->finished = false;
	q->start_ns = 0;
	q->last_ns = 0;
	__atomic_store_n(&q->completed, 0, __ATOMIC_RELEASE);

	q->sge.addr = (uintptr_t)b->p;
	q->sge.length = size;
	q->sge.lkey = b->mr->lkey;
	for (i = 0; i < q->p.post_list; i++) {
		struct ibv_send_wr *wr = &q->wrs[i];

		memset(wr, 0, sizeof(*wr));
		wr->opcode = upath_bw_opcode(op);
		wr->sg_list = &q->sge;
		wr->num_sge = 1;
		if (op != KVPERF_OP_READ && size <= c->inline_size)
			wr->send_flags = IBV_SEND_INLINE;
		if (op != KVPERF_OP_SEND) {
			wr->wr.rdma.remote_addr = c->remote_addr;
			wr->wr.rdma.rkey = c->remote_rkey;
		}
	}
}

/* Mark request @i of a list of @n signaled or not. */
static void upath_bw_signal(struct upath_bw_qp *q, uint32_t i, uint32_t n,
			    bool last_signaled)
{
	struct ibv_send_wr *wr = &q->wrs[i];

	q->unsignaled++;
	wr->next = i + 1 < n ? &q->wrs[i + 1] : NULL;
	if (q->unsignaled >= q->p.signal_every ||
	    (i + 1 == n && last_signaled)) {
		struct upath_bw_slot *slot =
			&q->slots[q->nsignaled++ % q->p.tx_depth];

		slot->covered = q->unsignaled;
		q->unsignaled = 0;
		wr->wr_id = (uintptr_t)&slot->cqe;
		wr->send_flags |= IBV_SEND_SIGNALED;
	} else {
		wr->wr_id = (uintptr_t)&q->unsignaled_cqe;
		wr->send_flags &= ~IBV_SEND_SIGNALED;
	}
}

/*
 * Post the next list if the send queue has room for it. After the
 * deadline a phase that ended on unsignaled requests posts one more,
 * signaled, so that every request it posted is seen completing.
 *
 * Return: requests posted (0 when there was no room or nothing left to
 * post), or a negative errno.
 */
static int upath_bw_post(struct upath_bw_qp *q, bool expired)
{
	uint64_t outstanding = q->posted - q->completed;
	uint32_t room = q->p.tx_depth - outstanding;
	struct ibv_send_wr *bad;
	bool last_signaled;
	uint32_t i, n;
	int err;

	if (q->finished)
		return 0;
	if (!q->target && expired) {
		if (!q->unsignaled) {
			q->finished = true;
			return 0;
		}
		n = 1;
		last_signaled = true;
	} else {
		n = q->p.post_list;
		if (q->target && q->target - q->posted < n)
			n = q->target - q->posted;
		/* a full queue needs a signaled request to drain */
		last_signaled = (q->target && q->posted + n == q->target) ||
				room < n + q->p.post_list;
	}
	if (room < n)
		return 0;

	for (i = 0; i < n; i++)
		upath_bw_signal(q, i, n, last_signaled);
	if (!q->start_ns)
		q->start_ns = upath_now_ns();
	err = ibv_post_send(q->c->id->qp, q->wrs, &bad);
	if (err) {
		err = err > 0 ? -err : err;
		upath_conn_fail(q->c, err, "cannot post a work request");
		return err;
	}
	q->posted += n;
	if ((q->target && q->posted == q->target) || (!q->target && expired))
		q->finished = true;
	return n;
}

/* Fill the send queue. */
static int upath_bw_fill(struct upath_bw_qp *q, bool expired)
{
	int n;

	do {
		n = upath_bw_post(q, expired);
	} while (n > 0);
	return n;
}

static bool upath_bw_idle(const struct upath_bw_qp *q)
{
	return q->finished && q->completed == q->posted;
}

/* Errors and stop requests of the queue pairs; 0 while all is well. */
static int upath_bw_check(struct upath_bw_qp **qps, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (qps[i]->c->error)
			return qps[i]->c->error;
	if (qps[0]->c->stop(qps[0]->c->stop_arg))
		return -EINTR;
	return 0;
}

/**
 * upath_bw_drive() - run a phase on a set of queue pairs to its end
 * @qps: the queue pairs, each from upath_bw_phase_start()
 * @n: how many, at most 16
 * @w: what their completions wake (the driving thread's waiter)
 * @deadline_ns: upath_now_ns() at which timed phases stop posting
 * @timeout_ns: fail after this long without a completion, 0 for never
 *
 * Busy polling reaps the CQs here, with ibv_poll_cq(); the other modes
 * sleep on the completion channel until a completion arrives.
 *
 * Return: 0 when every request posted has completed, -EINTR when
 * stopped, -ETIMEDOUT, or the first connection error.
 */
int upath_bw_drive(struct upath_bw_qp **qps, unsigned int n,
		   struct upath_waiter *w, uint64_t deadline_ns,
		   uint64_t timeout_ns)
{
	uint64_t now = upath_now_ns();
	uint64_t silent_until = timeout_ns ? now + timeout_ns : 0;
	uint64_t spin_until = now + UPATH_BW_SPIN_NS, cm_next = now;
	uint64_t seen = w->events;
	bool direct = !w->ch;
	struct upath_conn *cs[16];
	unsigned int i;
	int err;

	for (i = 0; i < n; i++)
		cs[i] = qps[i]->c;
	for (;;) {
		bool expired, idle = true;

		now = upath_now_ns();
		expired = deadline_ns && now >= deadline_ns;
		err = upath_bw_check(qps, n);
		if (err)
			return err;
		for (i = 0; i < n; i++) {
			err = upath_bw_fill(qps[i], expired);
			if (err < 0)
				return err;
			idle &= upath_bw_idle(qps[i]);
		}
		if (idle)
			return 0;

		if (direct)
			for (i = 0; i < n; i++)
				upath_conn_poll(cs[i], UPATH_BW_POLL_BUDGET);
		else if (w->events == seen)
			upath_waiter_sleep(w, cs, n);

		if (w->events != seen) {
			seen = w->events;
			silent_until = timeout_ns ? now + timeout_ns : 0;
			spin_until = now + UPATH_BW_SPIN_NS;
		} else if (silent_until && now > silent_until) {
			upath_conn_fail(cs[0], -ETIMEDOUT,
					"no completion within the timeout");
			return -ETIMEDOUT;
		}
		if (direct && now >= cm_next) {
			for (i = 0; i < n; i++)
				upath_conn_cm_poll(cs[i]);
			cm_next = now + UPATH_BW_CM_EVERY_NS;
		}
		if (direct && now > spin_until)
			upath_nap();
	}
}

static int upath_bw_send_ctrl(struct upath_conn *c, uint8_t op, uint32_t arg,
			      uint32_t len)
{
	int err = upath_conn_post_send(c, IBV_WR_SEND_WITH_IMM, len,
				       KVPERF_CTRL(op, arg));

	if (err) {
		upath_conn_fail(c, err, "cannot post a control message");
		return err;
	}
	return upath_conn_wait_sends(c);
}

/* The next control message; data messages are the handler's. */
static int upath_bw_recv_ctrl(struct upath_conn *c, struct upath_recv *r)
{
	int err = upath_conn_wait_recv(c, r);

	if (!err && !r->has_imm) {
		upath_conn_fail(c, -EPROTO, "unexpected data message");
		err = -EPROTO;
	}
	return err;
}

/**
 * upath_bw_control() - send SIZE or START and wait for the server's ACK
 * @c: the connection
 * @op: KVPERF_CTRL_SIZE or KVPERF_CTRL_START
 * @arg: the size, or 0
 *
 * Return: 0 or a negative errno with the connection's reason set.
 */
int upath_bw_control(struct upath_conn *c, uint8_t op, uint32_t arg)
{
	struct upath_recv r;
	int err;

	err = upath_bw_send_ctrl(c, op, arg, 0);
	if (!err)
		err = upath_bw_recv_ctrl(c, &r);
	if (err)
		return err;
	if (KVPERF_CTRL_OP(r.imm) != KVPERF_CTRL_ACK ||
	    KVPERF_CTRL_ARG(r.imm) != arg) {
		upath_conn_fail(c, -EPROTO, "unexpected answer from the server");
		return -EPROTO;
	}
	return 0;
}

/**
 * upath_bw_finish() - end a measured phase: collect the queue pair's
 *		       numbers, send END and read the server's REPORT
 * @q: the queue pair, its phase driven to the end
 * @b: receives the numbers
 *
 * Return: 0 or a negative errno with the connection's reason set.
 */
int upath_bw_finish(struct upath_bw_qp *q, struct upath_bw_block *b)
{
	struct upath_conn *c = q->c;
	struct kvperf_wire_report rep;
	struct upath_recv r;
	int err;

	b->messages = q->completed;
	b->start_ns = q->start_ns;
	b->end_ns = q->last_ns;
	b->elapsed_ns = b->end_ns > b->start_ns ? b->end_ns - b->start_ns : 0;

	err = upath_bw_send_ctrl(c, KVPERF_CTRL_END, 0, 0);
	if (!err)
		err = upath_bw_recv_ctrl(c, &r);
	if (err)
		return err;
	if (KVPERF_CTRL_OP(r.imm) != KVPERF_CTRL_REPORT ||
	    r.byte_len != sizeof(rep)) {
		upath_conn_fail(c, -EPROTO, "unexpected answer from the server");
		return -EPROTO;
	}
	memcpy(&rep, c->rx.p, sizeof(rep));
	upath_wire_report_get(&rep, &b->report);
	return 0;
}

/* Server: a bidir run's traffic back to the client for one size. */
static int upath_bw_serve_bidir(struct upath_bw_qp *q, uint32_t size,
				struct upath_report *rep)
{
	struct upath_waiter *w = q->c->waiter;
	uint64_t deadline = 0;
	int err;

	if (q->p.warmup || q->p.warmup_ns) {
		upath_bw_phase_start(q, size, true);
		if (q->p.warmup_ns)
			deadline = upath_now_ns() + q->p.warmup_ns;
		err = upath_bw_drive(&q, 1, w, deadline, q->c->timeout_ns);
		if (err)
			return err;
	}
	upath_bw_phase_start(q, size, false);
	deadline = q->p.duration_ns ? upath_now_ns() + q->p.duration_ns : 0;
	err = upath_bw_drive(&q, 1, w, deadline, q->c->timeout_ns);
	if (err)
		return err;
	rep->tx_messages = q->completed;
	rep->tx_elapsed_ns = q->last_ns - q->start_ns;
	return 0;
}

/* Server: the END of a size. Send the REPORT out of the send buffer. */
static int upath_bw_serve_end(struct upath_bw_qp *q, uint32_t size,
			      bool verify, struct upath_report *rep)
{
	struct upath_conn *c = q->c;
	struct kvperf_wire_report w;
	uint64_t bad = c->bad_recvs;

	if (verify && size && q->p.op != KVPERF_OP_READ) {
		upath_buf_fault(&c->rx, size);
		if (!upath_buf_check(&c->rx, size, size))
			bad++;
	}
	rep->received = c->data_recvs;
	rep->mismatches = bad;
	upath_wire_report_put(rep, &w);
	memcpy(c->tx.p, &w, sizeof(w));
	return upath_bw_send_ctrl(c, KVPERF_CTRL_REPORT, 0, sizeof(w));
}

static int upath_bw_bad_ctrl(struct upath_conn *c)
{
	upath_conn_fail(c, -EPROTO, "bad control message");
	return -EPROTO;
}

/**
 * upath_bw_serve() - answer a client's bandwidth run, server side
 * @q: the connection's bandwidth state
 * @verify: the client sends patterns; check them
 * @bidir: send the same traffic back
 * @served: counts the messages received and sent
 *
 * Return: the reason the loop ended: the connection's error, or -EINTR
 * when the server is stopped.
 */
int upath_bw_serve(struct upath_bw_qp *q, bool verify, bool bidir,
		   uint64_t *served)
{
	struct upath_report rep = { 0 };
	struct upath_conn *c = q->c;
	struct upath_recv r;
	uint32_t size = 0, arg;
	int err;

	for (;;) {
		err = upath_bw_recv_ctrl(c, &r);
		if (err)
			return err;
		arg = KVPERF_CTRL_ARG(r.imm);
		switch (KVPERF_CTRL_OP(r.imm)) {
		case KVPERF_CTRL_SIZE:
			if (!arg || arg > c->size_max)
				return upath_bw_bad_ctrl(c);
			size = arg;
			c->expect_len = size;
			if (q->p.op != KVPERF_OP_READ)
				upath_buf_clear(&c->rx, size);
			err = upath_bw_send_ctrl(c, KVPERF_CTRL_ACK, size, 0);
			break;
		case KVPERF_CTRL_START:
			if (!size)
				return upath_bw_bad_ctrl(c);
			memset(&rep, 0, sizeof(rep));
			c->data_recvs = 0;
			c->bad_recvs = 0;
			err = upath_bw_send_ctrl(c, KVPERF_CTRL_ACK, 0, 0);
			if (!err && bidir)
				err = upath_bw_serve_bidir(q, size, &rep);
			break;
		case KVPERF_CTRL_END:
			err = upath_bw_serve_end(q, size, verify, &rep);
			*served += c->data_recvs + rep.tx_messages;
			break;
		default:
			return upath_bw_bad_ctrl(c);
		}
		if (err)
			return err;
	}
}
