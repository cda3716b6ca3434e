// SPDX-License-Identifier: GPL-2.0
/*
 * The latency loops of the user path, message for message those of
 * kmod/lat.c, so that either side can be the kernel's. send: the client
 * SENDs, the server SENDs the same length back (half the round trip);
 * write: each side RDMA WRITEs into the peer's receive buffer and polls
 * its own for the last byte to change (half the round trip); read: the
 * client RDMA READs the server's receive buffer (the full round trip).
 * Before each size, SIZE and ACK control messages.
 */
#include <errno.h>
#include <linux/kvperf.h>
#include <linux/kvperf_wire.h>

#include "upath_conn.h"
#include "upath_lat.h"
#include "upath_stats.h"

static int upath_lat_control(struct upath_conn *c, uint32_t size)
{
	struct upath_recv r;
	int err;

	err = upath_conn_post_send(c, IBV_WR_SEND_WITH_IMM, 0,
				   KVPERF_CTRL(KVPERF_CTRL_SIZE, size));
	if (!err)
		err = upath_conn_wait_sends(c);
	if (!err)
		err = upath_conn_wait_recv(c, &r);
	if (err)
		return err;
	if (!r.has_imm || KVPERF_CTRL_OP(r.imm) != KVPERF_CTRL_ACK ||
	    KVPERF_CTRL_ARG(r.imm) != size) {
		upath_conn_fail(c, -EPROTO, "unexpected answer from the server");
		return -EPROTO;
	}
	return 0;
}

/* Fill what goes out in iteration @seq of a block. */
static void upath_lat_prepare(struct upath_conn *c, uint8_t op, bool verify,
			      uint32_t size, uint32_t seq)
{
	if (op == KVPERF_OP_READ || (!verify && op != KVPERF_OP_WRITE))
		return;
	if (verify)
		upath_buf_fill(&c->tx, size, seq);
	if (op == KVPERF_OP_WRITE)
		c->tx.p[size - 1] = kvperf_wire_marker(seq);
}

/* Did iteration @seq's payload arrive intact? */
static bool upath_lat_intact(struct upath_conn *c, uint8_t op, uint32_t size,
			     uint32_t seq, uint32_t byte_len)
{
	uint32_t len = size, seed = seq;

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
	upath_buf_fault(&c->rx, len);
	return upath_buf_check(&c->rx, len, seed);
}

static int upath_lat_iteration(struct upath_conn *c, uint8_t op,
			       uint32_t size, uint32_t seq,
			       uint32_t *byte_len)
{
	struct upath_recv r = { 0 };
	int err;

	switch (op) {
	case KVPERF_OP_SEND:
		err = upath_conn_post_send(c, IBV_WR_SEND, size, 0);
		if (!err)
			err = upath_conn_wait_recv(c, &r);
		if (!err && r.has_imm) {
			upath_conn_fail(c, -EPROTO, "unexpected control message");
			err = -EPROTO;
		}
		*byte_len = r.byte_len;
		break;
	case KVPERF_OP_WRITE:
		err = upath_conn_post_send(c, IBV_WR_RDMA_WRITE, size, 0);
		if (!err)
			err = upath_conn_wait_marker(c, size - 1,
						     kvperf_wire_marker(seq),
						     false);
		break;
	default:
		err = upath_conn_post_send(c, IBV_WR_RDMA_READ, size, 0);
		break;
	}
	if (!err)
		err = upath_conn_wait_sends(c);
	return err;
}

/**
 * upath_lat_run_block() - measure one message size, client side
 * @c: the connection, connected
 * @b: what to measure, and where the results go
 *
 * Without @b->stats no clock is read around the iterations and @b->hist
 * is left alone: @b->count and @b->elapsed_ns are all the block measures.
 *
 * Return: 0, or a negative errno with the connection's reason set
 * (-EINTR when the run was stopped).
 */
int upath_lat_run_block(struct upath_conn *c, struct upath_lat_block *b)
{
	uint64_t t0 = 0, t1 = 0, start = 0, warm_start;
	uint32_t seq, byte_len = 0, warm = 0;
	int err;

	upath_buf_clear(&c->rx, b->size);
	err = upath_lat_control(c, b->size);
	if (err)
		return err;

	warm_start = upath_now_ns();
	for (seq = 1; ; seq++) {
		bool measured = start || (b->warmup_ns ?
			upath_now_ns() - warm_start >= b->warmup_ns :
			seq > b->warmup);

		if (!measured)
			warm = seq;
		if (measured && !start)
			start = upath_now_ns();
		if (measured && (b->duration_ns ?
				 upath_now_ns() - start >= b->duration_ns :
				 seq - warm > b->iterations))
			break;

		upath_lat_prepare(c, b->op, b->verify, b->size, seq);
		if (b->stats)
			t0 = upath_now_ns();
		err = upath_lat_iteration(c, b->op, b->size, seq, &byte_len);
		if (b->stats)
			t1 = upath_now_ns();
		if (err)
			return err;

		if (measured && b->stats)
			upath_hist_record(b->hist, (t1 - t0) / b->divisor);
		if (b->verify &&
		    !upath_lat_intact(c, b->op, b->size, seq, byte_len))
			b->mismatches++;
		(*b->progress)++;
	}
	b->elapsed_ns = upath_now_ns() - start;
	/* the first measured iteration was warm + 1; seq did not run */
	b->count = seq - 1 - warm;
	return 0;
}

static int upath_serve_control(struct upath_conn *c, uint8_t op, bool verify,
			       uint32_t imm, uint32_t *size)
{
	uint32_t arg = KVPERF_CTRL_ARG(imm);

	if (KVPERF_CTRL_OP(imm) != KVPERF_CTRL_SIZE || !arg ||
	    arg > c->size_max) {
		upath_conn_fail(c, -EPROTO, "bad control message");
		return -EPROTO;
	}
	*size = arg;
	if (op != KVPERF_OP_READ)
		upath_buf_clear(&c->rx, arg);
	if (op == KVPERF_OP_WRITE && !verify)
		upath_buf_clear(&c->tx, arg);
	return upath_conn_post_send(c, IBV_WR_SEND_WITH_IMM, 0,
				    KVPERF_CTRL(KVPERF_CTRL_ACK, arg));
}

/* The server's side of a write iteration: the client's write arrived. */
static int upath_serve_write(struct upath_conn *c, bool verify,
			     uint32_t size, uint32_t seq)
{
	int err;

	upath_lat_prepare(c, KVPERF_OP_WRITE, verify, size, seq);
	err = upath_conn_post_send(c, IBV_WR_RDMA_WRITE, size, 0);
	if (!err)
		err = upath_conn_wait_sends(c);
	return err;
}

/**
 * upath_lat_serve() - answer a client's latency run, server side
 * @c: the connection, established
 * @op: enum kvperf_op of the client's run
 * @verify: the client verifies payloads, so send it the patterns
 * @served: counts the iterations answered
 *
 * Return: the reason the loop ended: the connection's error, or -EINTR
 * when the server is stopped.
 */
int upath_lat_serve(struct upath_conn *c, uint8_t op, bool verify,
		    uint64_t *served)
{
	struct upath_recv r;
	uint32_t size = 0, seq = 0;
	int err;

	if (op == KVPERF_OP_READ)
		upath_buf_fill(&c->rx, c->size_max, 0);

	for (;;) {
		if (op == KVPERF_OP_WRITE && size) {
			/* the next write, or a control message */
			err = upath_conn_wait_marker(c, size - 1,
						     kvperf_wire_marker(seq + 1),
						     true);
			if (err)
				return err;
			if (!upath_conn_recv_pending(c)) {
				seq++;
				err = upath_serve_write(c, verify, size, seq);
				if (err)
					return err;
				(*served)++;
				continue;
			}
		}

		err = upath_conn_wait_recv(c, &r);
		if (err)
			return err;
		if (r.has_imm) {
			err = upath_serve_control(c, op, verify, r.imm, &size);
			seq = 0;
		} else {
			/* a send-latency ping: answer with the same size */
			seq++;
			if (r.byte_len > c->size_max || !r.byte_len) {
				upath_conn_fail(c, -EPROTO, "bad message size");
				return -EPROTO;
			}
			upath_lat_prepare(c, op, verify, r.byte_len, seq);
			err = upath_conn_post_send(c, IBV_WR_SEND, r.byte_len, 0);
			(*served)++;
		}
		if (!err)
			err = upath_conn_wait_sends(c);
		if (err)
			return err;
	}
}
