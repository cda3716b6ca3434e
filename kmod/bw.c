// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: bandwidth loops with perftest's semantics. Each queue pair
 * keeps up to tx_depth work requests in flight, posts them post_list at
 * a time, and asks for a completion at least every signal_every of them
 * (and whenever the send queue could not take another list without one),
 * the way xprtrdma batches its sends: every request carries an ib_cqe,
 * a signaled one the slot that says how many requests its completion
 * retires, so the send queue is accounted exactly and a flush finds a
 * handler for every request. Receives of send runs are posted again by
 * the receive handler itself.
 *
 * Around each message size the client sends control messages on every
 * queue pair: SIZE (the server prepares, clears its buffer), START (the
 * warm-up is over; the server resets its counters and, for bidir runs,
 * starts its own traffic) and END (the server answers with a REPORT
 * that counts what it received and sent).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/kvperf.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "bw.h"
#include "faults.h"
#include "lat.h"

/*
 * Busy polling spins this long without a completion before it polls with
 * short sleeps. Completions of large messages with selective signaling
 * come hundreds of milliseconds apart on a slow device, so the window is
 * longer than the latency loops' 10 ms.
 */
#define KVPERF_BW_SPIN_JIFFIES	HZ
/* Completions reaped per CQ and round when busy polling. */
#define KVPERF_BW_POLL_BUDGET	64
/* at most this much extra wait for a bidir server's report */
#define KVPERF_BW_REPORT_SLACK_NS	(600ULL * NSEC_PER_SEC)

/**
 * kvperf_bw_waiter_init() - prepare what a driving thread sleeps on
 * @w: the waiter
 * @task: the thread
 */
void kvperf_bw_waiter_init(struct kvperf_bw_waiter *w,
			   struct task_struct *task)
{
	init_waitqueue_head(&w->wq);
	atomic_set(&w->events, 0);
	w->task = task;
}

/* Callback time is charged here when the thread's runtime misses it. */
static bool kvperf_bw_outside(struct kvperf_bw_qp *q)
{
	return kvperf_conn_cb_outside(q->c, q->waiter->task);
}

static void kvperf_bw_wc_error(struct kvperf_bw_qp *q, struct ib_wc *wc)
{
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		pr_debug("bandwidth completion: %s\n",
			 ib_wc_status_msg(wc->status));
	kvperf_conn_fail(q->c, -EIO, wc->status == IB_WC_WR_FLUSH_ERR ?
			 "send queue flushed" : "send completion error");
	atomic_inc(&q->waiter->events);
	wake_up(&q->waiter->wq);
}

static void kvperf_bw_signaled_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvperf_bw_slot *slot =
		container_of(wc->wr_cqe, struct kvperf_bw_slot, cqe);
	struct kvperf_bw_qp *q = slot->qp;
	bool outside = kvperf_bw_outside(q);
	u64 now = ktime_get_ns();

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		kvperf_bw_wc_error(q, wc);
		return;
	}
	WRITE_ONCE(q->last_ns, now);
	/* the slot is read before the poster may reuse it */
	smp_mb__before_atomic();
	atomic64_add(slot->covered, &q->completed);
	atomic_inc(&q->waiter->events);
	if (q->c->poll_ctx != IB_POLL_DIRECT)
		wake_up(&q->waiter->wq);
	if (outside)
		atomic64_add(ktime_get_ns() - now, &q->handler_ns);
}

/* Unsignaled requests complete only when the queue is flushed. */
static void kvperf_bw_unsignaled_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvperf_bw_qp *q =
		container_of(wc->wr_cqe, struct kvperf_bw_qp, unsignaled_cqe);

	kvperf_bw_wc_error(q, wc);
}

/**
 * kvperf_bw_qp_init() - prepare a connection for bandwidth phases
 * @q: the queue pair's state
 * @c: its connection, created
 * @p: the traffic; checked by the caller
 * @w: what the driving thread sleeps on
 *
 * Return: 0 or -ENOMEM.
 */
int kvperf_bw_qp_init(struct kvperf_bw_qp *q, struct kvperf_conn *c,
		      const struct kvperf_bw_params *p,
		      struct kvperf_bw_waiter *w)
{
	u32 i;

	memset(q, 0, sizeof(*q));
	q->c = c;
	q->p = *p;
	q->waiter = w;
	atomic64_set(&q->completed, 0);
	atomic64_set(&q->handler_ns, 0);
	q->unsignaled_cqe.done = kvperf_bw_unsignaled_done;
	q->slots = kvcalloc(p->tx_depth, sizeof(*q->slots), GFP_KERNEL);
	q->wrs = kcalloc(p->post_list, sizeof(*q->wrs), GFP_KERNEL);
	if (!q->slots || !q->wrs) {
		kvperf_bw_qp_destroy(q);
		return -ENOMEM;
	}
	for (i = 0; i < p->tx_depth; i++) {
		q->slots[i].cqe.done = kvperf_bw_signaled_done;
		q->slots[i].qp = q;
	}
	c->notify = &w->wq;
	return 0;
}

/**
 * kvperf_bw_qp_destroy() - free what kvperf_bw_qp_init() allocated
 * @q: the queue pair's state; its connection is destroyed (drained)
 *     first
 */
void kvperf_bw_qp_destroy(struct kvperf_bw_qp *q)
{
	kvfree(q->slots);
	q->slots = NULL;
	kfree(q->wrs);
	q->wrs = NULL;
}

static enum ib_wr_opcode kvperf_bw_opcode(u8 op)
{
	switch (op) {
	case KVPERF_OP_WRITE:
		return IB_WR_RDMA_WRITE;
	case KVPERF_OP_READ:
		return IB_WR_RDMA_READ;
	default:
		return IB_WR_SEND;
	}
}

/**
 * kvperf_bw_phase_start() - reset a queue pair for a warm-up or measured
 *			     phase
 * @q: the queue pair, with nothing in flight
 * @size: message size
 * @warmup: the phase is the warm-up
 */
void kvperf_bw_phase_start(struct kvperf_bw_qp *q, u32 size, bool warmup)
{
	struct kvperf_conn *c = q->c;
	u8 op = q->p.op;
	u32 i;

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
	atomic64_set(&q->completed, 0);
	atomic64_set(&q->handler_ns, 0);

	q->inline_send = op != KVPERF_OP_READ && size <= c->inline_size;
	if (q->inline_send)
		q->nsge = kvperf_conn_inline_sges(&c->tx, size, q->sge);
	else
		q->nsge = kvperf_conn_sges(c, op == KVPERF_OP_READ ?
					   &c->rx : &c->tx, size, q->sge);
	for (i = 0; i < q->p.post_list; i++) {
		struct ib_rdma_wr *wr = &q->wrs[i];

		memset(wr, 0, sizeof(*wr));
		wr->wr.opcode = kvperf_bw_opcode(op);
		wr->wr.sg_list = q->sge;
		wr->wr.num_sge = q->nsge;
		if (q->inline_send)
			wr->wr.send_flags = IB_SEND_INLINE;
		if (op != KVPERF_OP_SEND) {
			wr->remote_addr = c->remote_addr;
			wr->rkey = c->remote_rkey;
		}
	}
}

/* Mark request @i of a list of @n signaled or not. */
static void kvperf_bw_signal(struct kvperf_bw_qp *q, u32 i, u32 n,
			     bool last_signaled)
{
	struct ib_send_wr *wr = &q->wrs[i].wr;

	q->unsignaled++;
	wr->next = i + 1 < n ? &q->wrs[i + 1].wr : NULL;
	if (q->unsignaled >= q->p.signal_every ||
	    (i + 1 == n && last_signaled)) {
		struct kvperf_bw_slot *slot =
			&q->slots[q->nsignaled++ % q->p.tx_depth];

		slot->covered = q->unsignaled;
		q->unsignaled = 0;
		wr->wr_cqe = &slot->cqe;
		wr->send_flags |= IB_SEND_SIGNALED;
	} else {
		wr->wr_cqe = &q->unsignaled_cqe;
		wr->send_flags &= ~IB_SEND_SIGNALED;
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
static int kvperf_bw_post(struct kvperf_bw_qp *q, bool expired)
{
	u64 outstanding = q->posted - atomic64_read(&q->completed);
	u32 room = q->p.tx_depth - outstanding;
	bool last_signaled;
	u32 i, n;
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
		if (q->target)
			n = min_t(u64, n, q->target - q->posted);
		/* a full queue needs a signaled request to drain */
		last_signaled = (q->target && q->posted + n == q->target) ||
				room < n + q->p.post_list;
	}
	if (room < n)
		return 0;

	for (i = 0; i < n; i++)
		kvperf_bw_signal(q, i, n, last_signaled);
	if (!q->start_ns)
		q->start_ns = ktime_get_ns();
	err = kvperf_conn_post_wrs(q->c, &q->wrs[0].wr);
	if (err) {
		kvperf_conn_fail(q->c, err, "cannot post a work request");
		return err;
	}
	q->posted += n;
	if ((q->target && q->posted == q->target) || (!q->target && expired))
		q->finished = true;
	return n;
}

/* Fill the send queue. */
static int kvperf_bw_fill(struct kvperf_bw_qp *q, bool expired)
{
	int n;

	do {
		n = kvperf_bw_post(q, expired);
	} while (n > 0);
	return n;
}

static bool kvperf_bw_idle(struct kvperf_bw_qp *q)
{
	return q->finished && atomic64_read(&q->completed) == q->posted;
}

/* Errors and stop requests of the queue pairs; 0 while all is well. */
static int kvperf_bw_check(struct kvperf_bw_qp **qps, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (READ_ONCE(qps[i]->c->error))
			return READ_ONCE(qps[i]->c->error);
	if (qps[0]->c->stop(qps[0]->c->stop_arg))
		return -EINTR;
	return 0;
}

static bool kvperf_bw_woken(struct kvperf_bw_qp **qps, unsigned int n,
			    struct kvperf_bw_waiter *w, int seen)
{
	return atomic_read(&w->events) != seen || kvperf_bw_check(qps, n);
}

/**
 * kvperf_bw_drive() - run a phase on a set of queue pairs to its end
 * @qps: the queue pairs, each from kvperf_bw_phase_start()
 * @n: how many
 * @w: what their completions wake
 * @deadline_ns: ktime_get_ns() at which timed phases stop posting
 * @timeout: fail after this long without a completion, in jiffies
 *
 * Busy polling reaps the CQs here, yielding with cond_resched(); the
 * other poll contexts sleep until a completion callback wakes @w.
 *
 * Return: 0 when every request posted has completed, -EINTR when
 * stopped, -ETIMEDOUT, or the first connection error.
 */
int kvperf_bw_drive(struct kvperf_bw_qp **qps, unsigned int n,
		    struct kvperf_bw_waiter *w, u64 deadline_ns,
		    unsigned long timeout)
{
	unsigned long silent_until = jiffies + timeout;
	unsigned long spin_until = jiffies + KVPERF_BW_SPIN_JIFFIES;
	bool direct = qps[0]->c->poll_ctx == IB_POLL_DIRECT;
	int seen = atomic_read(&w->events);
	unsigned int i;
	int err;

	for (;;) {
		bool expired = deadline_ns && ktime_get_ns() >= deadline_ns;
		bool idle = true;

		err = kvperf_bw_check(qps, n);
		if (err)
			return err;
		for (i = 0; i < n; i++) {
			err = kvperf_bw_fill(qps[i], expired);
			if (err)
				return err;
			idle &= kvperf_bw_idle(qps[i]);
		}
		if (idle)
			return 0;

		if (direct)
			for (i = 0; i < n; i++)
				ib_process_cq_direct(qps[i]->c->cq,
						     KVPERF_BW_POLL_BUDGET);
		else if (atomic_read(&w->events) == seen)
			wait_event_timeout(w->wq,
					   kvperf_bw_woken(qps, n, w, seen),
					   HZ / 10);

		if (atomic_read(&w->events) != seen) {
			seen = atomic_read(&w->events);
			silent_until = jiffies + timeout;
			spin_until = jiffies + KVPERF_BW_SPIN_JIFFIES;
		} else if (time_after(jiffies, silent_until)) {
			kvperf_conn_fail(qps[0]->c, -ETIMEDOUT,
					 "no completion within the timeout");
			return -ETIMEDOUT;
		}
		if (direct && time_after(jiffies, spin_until))
			usleep_range(20, 50);
		else
			cond_resched();
	}
}

static int kvperf_bw_send_ctrl(struct kvperf_conn *c, u8 op, u32 arg,
			       u32 len)
{
	int err = kvperf_conn_post_send(c, IB_WR_SEND_WITH_IMM, len,
					KVPERF_CTRL(op, arg));

	if (err) {
		kvperf_conn_fail(c, err, "cannot post a control message");
		return err;
	}
	return kvperf_conn_wait_sends(c);
}

/* The next control message; data messages are the handler's. */
static int kvperf_bw_recv_ctrl(struct kvperf_conn *c, struct kvperf_recv *r)
{
	int err = kvperf_conn_wait_recv(c, r);

	if (!err && !r->has_imm) {
		kvperf_conn_fail(c, -EPROTO, "unexpected data message");
		err = -EPROTO;
	}
	return err;
}

/**
 * kvperf_bw_control() - send SIZE or START and wait for the server's ACK
 * @c: the connection
 * @op: KVPERF_CTRL_SIZE or KVPERF_CTRL_START
 * @arg: the size, or 0
 *
 * Return: 0 or a negative errno with the connection's reason set.
 */
int kvperf_bw_control(struct kvperf_conn *c, u8 op, u32 arg)
{
	struct kvperf_recv r;
	int err;

	err = kvperf_bw_send_ctrl(c, op, arg, 0);
	if (!err)
		err = kvperf_bw_recv_ctrl(c, &r);
	if (err)
		return err;
	if (KVPERF_CTRL_OP(r.imm) != KVPERF_CTRL_ACK ||
	    KVPERF_CTRL_ARG(r.imm) != arg) {
		kvperf_conn_fail(c, -EPROTO, "unexpected answer from the server");
		return -EPROTO;
	}
	return 0;
}

/**
 * kvperf_bw_finish() - end a measured phase: collect the queue pair's
 *			numbers, send END and read the server's REPORT
 * @q: the queue pair, its phase driven to the end
 * @b: receives the numbers
 *
 * Return: 0 or a negative errno with the connection's reason set.
 */
int kvperf_bw_finish(struct kvperf_bw_qp *q, struct kvperf_bw_block *b)
{
	struct kvperf_conn *c = q->c;
	struct kvperf_wire_report rep;
	unsigned long timeout, slack;
	struct kvperf_recv r;
	int err;

	b->messages = atomic64_read(&q->completed);
	b->start_ns = q->start_ns;
	b->end_ns = READ_ONCE(q->last_ns);
	b->elapsed_ns = b->end_ns > b->start_ns ? b->end_ns - b->start_ns : 0;
	b->handler_ns = atomic64_read(&q->handler_ns);

	/*
	 * A bidir server reads END only when its own traffic is done: give
	 * it twice what ours took (warmup included) on top of the timeout.
	 */
	slack = nsecs_to_jiffies(min_t(u64, 2 * (b->elapsed_ns +
						  q->p.warmup_ns),
				       KVPERF_BW_REPORT_SLACK_NS));
	err = kvperf_bw_send_ctrl(c, KVPERF_CTRL_END, 0, 0);
	if (!err) {
		timeout = c->timeout;
		c->timeout += slack;
		err = kvperf_bw_recv_ctrl(c, &r);
		c->timeout = timeout;
	}
	if (err)
		return err;
	if (KVPERF_CTRL_OP(r.imm) != KVPERF_CTRL_REPORT ||
	    r.byte_len != sizeof(rep)) {
		kvperf_conn_fail(c, -EPROTO, "unexpected answer from the server");
		return -EPROTO;
	}
	kvperf_buf_for_cpu(c, &c->rx, sizeof(rep));
	memcpy(&rep, kvperf_buf_ptr(&c->rx, 0), sizeof(rep));
	b->report.received = be64_to_cpu(rep.received);
	b->report.mismatches = be64_to_cpu(rep.mismatches);
	b->report.tx_messages = be64_to_cpu(rep.tx_messages);
	b->report.tx_elapsed_ns = be64_to_cpu(rep.tx_elapsed_ns);
	return 0;
}

/* Server: a bidir run's traffic back to the client for one size. */
static int kvperf_bw_serve_bidir(struct kvperf_bw_qp *q, u32 size,
				 struct kvperf_wire_report *rep)
{
	struct kvperf_conn *c = q->c;
	u64 deadline = 0;
	int err;

	if (q->p.warmup || q->p.warmup_ns) {
		kvperf_bw_phase_start(q, size, true);
		if (q->p.warmup_ns)
			deadline = ktime_get_ns() + q->p.warmup_ns;
		err = kvperf_bw_drive(&q, 1, q->waiter, deadline, c->timeout);
		if (err)
			return err;
	}
	kvperf_bw_phase_start(q, size, false);
	deadline = q->p.duration_ns ? ktime_get_ns() + q->p.duration_ns : 0;
	err = kvperf_bw_drive(&q, 1, q->waiter, deadline, c->timeout);
	if (err)
		return err;
	rep->tx_messages = cpu_to_be64(atomic64_read(&q->completed));
	rep->tx_elapsed_ns = cpu_to_be64(READ_ONCE(q->last_ns) - q->start_ns);
	return 0;
}

/* Server: the END of a size. Send the REPORT out of the send buffer. */
static int kvperf_bw_serve_end(struct kvperf_bw_qp *q, u32 size,
			       bool verify, struct kvperf_wire_report *rep)
{
	struct kvperf_conn *c = q->c;
	u64 bad = atomic64_read(&c->bad_recvs);

	if (verify && size && q->p.op != KVPERF_OP_READ) {
		kvperf_buf_for_cpu(c, &c->rx, size);
		kvperf_buf_fault(c, &c->rx, size);
		if (!kvperf_buf_check(&c->rx, size, size))
			bad++;
	}
	rep->received = cpu_to_be64(atomic64_read(&c->data_recvs));
	rep->mismatches = cpu_to_be64(bad);
	memcpy(kvperf_buf_ptr(&c->tx, 0), rep, sizeof(*rep));
	kvperf_buf_for_device(c, &c->tx, sizeof(*rep));
	return kvperf_bw_send_ctrl(c, KVPERF_CTRL_REPORT, 0, sizeof(*rep));
}

/*
 * How long a client's phase may keep the server without a message: the
 * phase's own length when it is timed and one-sided; one counted in
 * messages of one-sided work may last up to KVPERF_SERVER_PHASE_MAX_MS.
 * Sends are messages, so a send phase is never silent.
 */
static u64 kvperf_bw_silent_ns(const struct kvperf_bw_params *p, bool warmup)
{
	u64 timed = warmup ? p->warmup_ns : p->duration_ns;
	bool counted = warmup ? p->warmup : p->iterations;

	if (p->op == KVPERF_OP_SEND)
		return 0;
	if (timed)
		return timed;
	return counted ? (u64)KVPERF_SERVER_PHASE_MAX_MS * NSEC_PER_MSEC : 0;
}

/**
 * kvperf_bw_serve() - answer a client's bandwidth run, server side
 * @q: the connection's bandwidth state, registered
 * @verify: the client sends patterns; check them
 * @bidir: send the same traffic back
 * @served: counts the messages received and sent
 *
 * The connection's timeout is the server's idle timeout, how long the
 * client may stay silent, extended by kvperf_bw_silent_ns() while the
 * client's one-sided traffic runs.
 *
 * Return: the reason the loop ended: the connection's error, or -EINTR
 * when the server is stopped.
 */
int kvperf_bw_serve(struct kvperf_bw_qp *q, bool verify, bool bidir,
		    atomic64_t *served)
{
	struct kvperf_wire_report rep = {};
	struct kvperf_conn *c = q->c;
	unsigned long idle = c->timeout;
	u64 phase_ns = 0;
	struct kvperf_recv r;
	u32 size = 0, arg;
	int err;

	for (;;) {
		c->timeout = idle + nsecs_to_jiffies(phase_ns);
		err = kvperf_bw_recv_ctrl(c, &r);
		if (err)
			return err;
		kvperf_serve_stall(c);
		arg = KVPERF_CTRL_ARG(r.imm);
		switch (KVPERF_CTRL_OP(r.imm)) {
		case KVPERF_CTRL_SIZE:
			if (!arg || arg > c->size_max) {
				kvperf_conn_fail(c, -EPROTO, "bad control message");
				return -EPROTO;
			}
			size = arg;
			WRITE_ONCE(c->expect_len, size);
			if (q->p.op != KVPERF_OP_READ) {
				kvperf_buf_clear(&c->rx, size);
				kvperf_buf_for_device(c, &c->rx, size);
			}
			err = kvperf_bw_send_ctrl(c, KVPERF_CTRL_ACK, size, 0);
			phase_ns = kvperf_bw_silent_ns(&q->p, true);
			break;
		case KVPERF_CTRL_START:
			if (!size) {
				kvperf_conn_fail(c, -EPROTO, "bad control message");
				return -EPROTO;
			}
			memset(&rep, 0, sizeof(rep));
			atomic64_set(&c->data_recvs, 0);
			atomic64_set(&c->bad_recvs, 0);
			err = kvperf_bw_send_ctrl(c, KVPERF_CTRL_ACK, 0, 0);
			if (!err && bidir)
				err = kvperf_bw_serve_bidir(q, size, &rep);
			phase_ns = kvperf_bw_silent_ns(&q->p, false);
			break;
		case KVPERF_CTRL_END:
			err = kvperf_bw_serve_end(q, size, verify, &rep);
			atomic64_add(atomic64_read(&c->data_recvs) +
				     be64_to_cpu(rep.tx_messages), served);
			phase_ns = 0;
			break;
		default:
			kvperf_conn_fail(c, -EPROTO, "bad control message");
			return -EPROTO;
		}
		if (err)
			return err;
	}
}
