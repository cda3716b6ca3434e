/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: what the client and the server say to each other. The run's
 * parameters and each side's buffer travel in the RDMA CM private data;
 * during the run, zero-byte SEND_WITH_IMM messages carry control
 * requests (the next message size, the end) and their acknowledgements,
 * so data messages stay exactly the size being measured.
 */
#ifndef _KVPERF_PROTO_H
#define _KVPERF_PROTO_H

#include <linux/types.h>

#define KVPERF_PROTO_VERSION	2
#define KVPERF_DEFAULT_PORT	18515

/**
 * struct kvperf_wire_req - connect request private data (client to server)
 * @version: KVPERF_PROTO_VERSION
 * @op: enum kvperf_op
 * @poll: enum kvperf_poll the server should use too
 * @flags: KVPERF_WIRE_VERIFY
 * @size_max: largest message of the run
 * @inline_size: inline threshold of the run
 * @rkey: rkey of the client's receive buffer
 * @addr: address of the client's receive buffer for RDMA
 * @type: enum kvperf_run_type
 * @reserved: zero
 * @tx_depth: bandwidth runs, work requests in flight per queue pair
 * @post_list: bandwidth runs, work requests per post call
 * @signal_every: bandwidth runs, completion moderation
 * @iterations: bandwidth runs, messages per size (0 with @duration_ms)
 * @duration_ms: bandwidth runs, time per size
 * @warmup: bandwidth runs, warm-up messages per size
 * @warmup_ms: bandwidth runs, warm-up time per size instead
 *
 * The last fields tell a bidirectional bandwidth server what to send
 * back. 56 bytes: the most an InfiniBand or RoCE connect request carries.
 */
struct kvperf_wire_req {
	u8 version;
	u8 op;
	u8 poll;
	u8 flags;
	__be32 size_max;
	__be32 inline_size;
	__be32 rkey;
	__be64 addr;
	u8 type;
	u8 reserved[3];
	__be32 tx_depth;
	__be32 post_list;
	__be32 signal_every;
	__be32 iterations;
	__be32 duration_ms;
	__be32 warmup;
	__be32 warmup_ms;
} __packed;

#define KVPERF_WIRE_VERIFY	0x1
#define KVPERF_WIRE_BIDIR	0x2

/**
 * struct kvperf_wire_report - the server's account of a bandwidth block,
 *			       the payload of its KVPERF_CTRL_REPORT
 * @received: send runs, data messages received after the start
 * @mismatches: verify runs, messages of the wrong length plus a final
 *		payload that does not match the pattern
 * @tx_messages: bidir runs, messages the server completed
 * @tx_elapsed_ns: bidir runs, from its first post to its last completion
 */
struct kvperf_wire_report {
	__be64 received;
	__be64 mismatches;
	__be64 tx_messages;
	__be64 tx_elapsed_ns;
} __packed;

/* Buffers hold at least this much, so a report always fits. */
#define KVPERF_BUF_MIN		64

/**
 * struct kvperf_wire_rep - accept private data (server to client)
 * @version: KVPERF_PROTO_VERSION
 * @reserved: zero
 * @rkey: rkey of the server's receive buffer
 * @addr: address of the server's receive buffer for RDMA
 */
struct kvperf_wire_rep {
	u8 version;
	u8 reserved[3];
	__be32 rkey;
	__be64 addr;
} __packed;

/* Control messages: the immediate data, opcode in the top byte. */
#define KVPERF_CTRL_OP(imm)	((imm) >> 24)
#define KVPERF_CTRL_ARG(imm)	((imm) & 0xffffff)
#define KVPERF_CTRL(op, arg)	(((u32)(op) << 24) | ((arg) & 0xffffff))
enum {
	KVPERF_CTRL_SIZE = 1,	/* next block uses this message size */
	KVPERF_CTRL_ACK = 2,	/* server is ready for the block */
	KVPERF_CTRL_START = 3,	/* bandwidth: warm-up over, counting starts */
	KVPERF_CTRL_END = 4,	/* bandwidth: the client's traffic is over */
	KVPERF_CTRL_REPORT = 5,	/* bandwidth: struct kvperf_wire_report */
};

/* Sizes are sent in 24 bits: 8 MiB (2^23) is the largest. */
#define KVPERF_SIZE_MAX		(8U << 20)

#endif /* _KVPERF_PROTO_H */
