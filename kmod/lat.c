// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: latency loops with perftest's semantics. send: the client
 * SENDs, the server SENDs the message back on receiving it (half the
 * round trip is the latency); write: each side RDMA WRITEs into the
 * peer's buffer and polls its own memory for the last byte to change
 * (half the round trip); read: the client RDMA READs the server's buffer
 * (the full round trip). Before each message size the client tells the
 * server the size with a control message and waits for its answer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/kvperf.h>
#include <linux/ktime.h>
#include <linux/delay.h>

#include "faults.h"
#include "lat.h"
#include "proto.h"

static int kvperf_lat_control(struct kvperf_conn *c, u32 size)
{
	struct kvperf_recv r;
	int err;

	err = kvperf_conn_post_send(c, IB_WR_SEND_WITH_IMM, 0,
				    KVPERF_CTRL(KVPERF_CTRL_SIZE, size));
	if (!err)
		err = kvperf_conn_wait_sends(c);
	if (!err)
		err = kvperf_conn_wait_recv(c, &r);
	if (err)
		return err;
	if (!r.has_imm || KVPERF_CTRL_OP(r.imm) != KVPERF_CTRL_ACK ||
	    KVPERF_CTRL_ARG(r.imm) != size) {
		kvperf_conn_fail(c, -EPROTO, "unexpected answer from the server");
		return -EPROTO;
	}
	return 0;
}

/* Fill what goes out in iteration @seq of a block. */
static void kvperf_lat_prepare(struct kvperf_conn *c, u8 op, bool verify,
			       u32 size, u32 seq)
{
	if (op == KVPERF_OP_READ || (!verify && op != KVPERF_OP_WRITE))
		return;
	if (verify)
		kvperf_buf_fill(&c->tx, size, seq);
	if (op == KVPERF_OP_WRITE)
		*kvperf_buf_ptr(&c->tx, size - 1) = kvperf_marker(seq);
	kvperf_buf_for_device(c, &c->tx, size);
}

/* Did iteration @seq's payload arrive intact? */
static bool kvperf_lat_intact(struct kvperf_conn *c, u8 op, u32 size,
			      u32 seq, u32 byte_len)
{
	u32 len = size, seed = seq;

	kvperf_buf_for_cpu(c, &c->rx, size);
	switch (op) {
	case KVPERF_OP_SEND:
		if (byte_len != size)
			return false;
		break;
	case KVPERF_OP_WRITE:
		/* the last byte is the arrival marker */
		len = size - 1;
		break;
	default:
		/* the server's buffer holds the pattern of iteration 0 */
		seed = 0;
		break;
	}
	kvperf_buf_fault(c, &c->rx, len);
	return kvperf_buf_check(&c->rx, len, seed);
}

static int kvperf_lat_iteration(struct kvperf_conn *c, u8 op, u32 size,
				u32 seq, u32 *byte_len)
{
	struct kvperf_recv r = {};
	int err;

	switch (op) {
	case KVPERF_OP_SEND:
		err = kvperf_conn_post_send(c, IB_WR_SEND, size, 0);
		if (!err)
			err = kvperf_conn_wait_recv(c, &r);
		if (!err && r.has_imm) {
			kvperf_conn_fail(c, -EPROTO,
					 "unexpected control message");
			err = -EPROTO;
		}
		*byte_len = r.byte_len;
		break;
	case KVPERF_OP_WRITE:
		err = kvperf_conn_post_send(c, IB_WR_RDMA_WRITE, size, 0);
		if (!err)
			err = kvperf_conn_wait_marker(c, size - 1,
						      kvperf_marker(seq),
						      false);
		break;
	default:
		err = kvperf_conn_post_send(c, IB_WR_RDMA_READ, size, 0);
		break;
	}
	if (!err)
		err = kvperf_conn_wait_sends(c);
	return err;
}

/**
 * kvperf_lat_run_block() - measure one message size, client side
 * @c: the connection, registered
 * @b: what to measure, and where the results go
 *
 * Without @b->stats no clock is read around the iterations and @b->hist
 * is left alone: @b->count and @b->elapsed_ns are all the block measures.
 *
 * Return: 0, or a negative errno with the connection's reason set
 * (-EINTR when the run was stopped).
 */
int kvperf_lat_run_block(struct kvperf_conn *c, struct kvperf_lat_block *b)
{
	unsigned long next_tick = jiffies + HZ;
	u64 t0 = 0, t1 = 0, start = 0, warm_start;
	u32 seq, byte_len = 0, warm = 0;
	int err;

	kvperf_buf_clear(&c->rx, b->size);
	kvperf_buf_for_device(c, &c->rx, b->size);
	err = kvperf_lat_control(c, b->size);
	if (err)
		return err;

	warm_start = ktime_get_ns();
	for (seq = 1; ; seq++) {
		bool measured = start || (b->warmup_ns ?
			ktime_get_ns() - warm_start >= b->warmup_ns :
			seq > b->warmup);

		if (!measured)
			warm = seq;

		if (measured && !start)
			start = ktime_get_ns();
		if (measured && (b->duration_ns ?
				 ktime_get_ns() - start >= b->duration_ns :
				 seq - warm > b->iterations))
			break;

		kvperf_lat_prepare(c, b->op, b->verify, b->size, seq);
		if (b->stats)
			t0 = ktime_get_ns();
		err = kvperf_lat_iteration(c, b->op, b->size, seq, &byte_len);
		if (b->stats)
			t1 = ktime_get_ns();
		if (err)
			return err;

		if (measured && b->stats)
			kvperf_hist_record(b->hist, (t1 - t0) / b->divisor);
		if (b->verify &&
		    !kvperf_lat_intact(c, b->op, b->size, seq, byte_len))
			b->mismatches++;
		atomic64_inc(b->progress);
		if (time_after(jiffies, next_tick)) {
			next_tick = jiffies + HZ;
			b->tick(b->tick_arg);
		}
		cond_resched();
	}
	b->elapsed_ns = ktime_get_ns() - start;
	/* the first measured iteration was warm + 1; seq did not run */
	b->count = seq - 1 - warm;
	return 0;
}

static int kvperf_serve_control(struct kvperf_conn *c, u8 op, bool verify,
				u32 imm, u32 *size)
{
	u32 arg = KVPERF_CTRL_ARG(imm);

	if (KVPERF_CTRL_OP(imm) != KVPERF_CTRL_SIZE || !arg ||
	    arg > c->size_max) {
		kvperf_conn_fail(c, -EPROTO, "bad control message");
		return -EPROTO;
	}
	*size = arg;
	if (op != KVPERF_OP_READ) {
		kvperf_buf_clear(&c->rx, arg);
		kvperf_buf_for_device(c, &c->rx, arg);
	}
	if (op == KVPERF_OP_WRITE && !verify)
		kvperf_buf_clear(&c->tx, arg);
	return kvperf_conn_post_send(c, IB_WR_SEND_WITH_IMM, 0,
				     KVPERF_CTRL(KVPERF_CTRL_ACK, arg));
}

/**
 * kvperf_lat_serve() - answer a client's latency run, server side
 * @c: the connection, registered
 * @op: enum kvperf_op of the client's run
 * @verify: the client verifies payloads, so send it the patterns
 * @served: counts the iterations answered
 *
 * The connection's timeout is the server's idle timeout: how long the
 * client may stay silent; a read client's blocks may last up to
 * KVPERF_SERVER_PHASE_MAX_MS longer, since the server sees nothing of them.
 *
 * Return: the reason the loop ended: the connection's error, or -EINTR
 * when the server is stopped.
 */
int kvperf_lat_serve(struct kvperf_conn *c, u8 op, bool verify,
		     atomic64_t *served)
{
	unsigned long idle = c->timeout;
	struct kvperf_recv r;
	u32 size = 0, seq = 0;
	int err;

	if (op == KVPERF_OP_READ) {
		kvperf_buf_fill(&c->rx, c->size_max, 0);
		kvperf_buf_for_device(c, &c->rx, c->size_max);
	}
	/* a client must not be able to keep this thread spinning */
	c->spin_bounded = true;

	for (;;) {
		if (op == KVPERF_OP_WRITE && size) {
			/* the next write, or a control message */
			err = kvperf_conn_wait_marker(c, size - 1,
						      kvperf_marker(seq + 1),
						      true);
			if (err)
				return err;
			if (!kvperf_conn_recv_pending(c)) {
				kvperf_serve_stall(c);
				seq++;
				kvperf_lat_prepare(c, op, verify, size, seq);
				err = kvperf_conn_post_send(c, IB_WR_RDMA_WRITE,
							    size, 0);
				if (!err)
					err = kvperf_conn_wait_sends(c);
				if (err)
					return err;
				atomic64_inc(served);
				continue;
			}
		}

		/* a client reading a block sends nothing until the next size */
		c->timeout = idle;
		if (op == KVPERF_OP_READ && size)
			c->timeout += msecs_to_jiffies(KVPERF_SERVER_PHASE_MAX_MS);
		err = kvperf_conn_wait_recv(c, &r);
		if (err)
			return err;
		if (r.has_imm) {
			err = kvperf_serve_control(c, op, verify, r.imm, &size);
			seq = 0;
		} else {
			/* a send-latency ping: answer with the same size */
			kvperf_serve_stall(c);
			seq++;
			if (r.byte_len > c->size_max || !r.byte_len) {
				kvperf_conn_fail(c, -EPROTO, "bad message size");
				return -EPROTO;
			}
			kvperf_lat_prepare(c, op, verify, r.byte_len, seq);
			err = kvperf_conn_post_send(c, IB_WR_SEND, r.byte_len, 0);
			atomic64_inc(served);
		}
		if (!err)
			err = kvperf_conn_wait_sends(c);
		if (err)
			return err;
	}
}
