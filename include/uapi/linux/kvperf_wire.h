/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * kvperf's wire protocol: what a kvperf client and a kvperf server say to
 * each other, whether either side runs in the kernel (kvperf.ko) or in
 * user space (the kvperf command's "path user"). Both sides build on these
 * definitions, so that any client works against any server.
 *
 * Connection. RDMA CM, port space TCP, an RC queue pair per connection.
 * The client connects with struct kvperf_wire_req as the private data:
 * the run's parameters and the rkey and address of the client's receive
 * buffer. The server accepts with struct kvperf_wire_rep (the rkey and
 * address of its own receive buffer) or rejects with one byte of private
 * data, a KVPERF_WIRE_REJ_* reason. Multi-byte fields are big-endian. The
 * address is whatever the peer's RDMA WRITE and READ requests must carry
 * to reach offset 0 of the buffer: an I/O virtual address in the kernel,
 * a virtual address in user space. Both sides ask for unlimited
 * receiver-not-ready retries (rnr_retry_count 7); the client asks for a
 * retry count of 3, an initiator depth of 1 for read latency and of the
 * device's limit for read bandwidth (0 otherwise), and the same as
 * responder resources for bidirectional runs; the server answers with the
 * client's values, bounded by its device's limits.
 *
 * Buffers. Each side has a send buffer and a receive buffer of size_max
 * bytes (at least KVPERF_BUF_MIN). Every receive posted covers the whole
 * receive buffer, so every message lands at offset 0; RDMA WRITEs and
 * READs address offset 0 of the peer's receive buffer.
 *
 * Control messages are SEND_WITH_IMM: the immediate data is
 * KVPERF_CTRL(op, arg), the payload empty except for REPORT, whose
 * payload is struct kvperf_wire_report (from the start of the server's
 * send buffer). Data messages never carry immediate data.
 *
 * Latency runs. Before each message size the client clears its receive
 * buffer, sends SIZE(size) and waits for ACK(size); the server clears its
 * receive buffer (send, write) and, for write runs without verification,
 * its send buffer. Then iterations, numbered from 1 in each size
 * (warm-up included):
 *
 * - send: the client SENDs size bytes; the server SENDs a message of the
 *   length it received back.
 * - write: the client WRITEs size bytes whose last byte is
 *   kvperf_wire_marker(seq) into the server's buffer and polls the last
 *   byte of its own receive buffer until it holds the same marker; the
 *   server waits for the marker of iteration seq and WRITEs the same way
 *   back. A control message may arrive instead (the next size).
 * - read: the client READs size bytes of the server's receive buffer,
 *   which the server fills with the pattern of seed 0 when the connection
 *   starts.
 *
 * With KVPERF_WIRE_VERIFY, payloads carry kvperf_wire_pattern() of the
 * iteration's number (the marker overwrites the last byte of a write).
 *
 * Bandwidth runs. For each message size, on each queue pair: SIZE(size)
 * and ACK(size) (the server clears the start of its receive buffer for
 * send and write runs; with KVPERF_WIRE_VERIFY the client fills its send
 * buffer with the pattern of seed size), the client's warm-up traffic,
 * START and ACK(0) (the server zeroes its counters; for
 * KVPERF_WIRE_BIDIR runs it then runs its own warm-up and measured
 * traffic with the request's parameters before it reads the next control
 * message), the client's measured traffic, END, and the server's REPORT:
 * the data messages it received since START (send runs post a receive
 * for every one), the messages of the wrong length plus, with
 * KVPERF_WIRE_VERIFY (send and write), one if its receive buffer does not
 * hold the size's pattern, and for bidirectional runs the messages it
 * completed and the time it took.
 *
 * I/O runs (type KVPERF_RUN_TYPE_IO), the data path of a storage
 * protocol. The request's op is the host's direction (KVPERF_OP_READ:
 * data moves from the target to the host; KVPERF_OP_WRITE: from the host
 * to the target), size_max the block size, tx_depth the I/Os the host
 * wants outstanding, flags KVPERF_WIRE_VERIFY and KVPERF_WIRE_IO_INV_LOCAL.
 * The accept's credits are the I/Os the target lets the host keep
 * outstanding (at most tx_depth, fewer when the target's receives are
 * a shared receive queue that other connections hold part of); the host
 * never exceeds them. Its rkey
 * and address are unused. For each I/O the host registers a buffer for
 * that I/O alone and SENDs a command capsule, struct kvperf_wire_io_cmd
 * (at most KVPERF_WIRE_IO_CAPSULE bytes), naming the buffer with one
 * keyed segment per part; the target moves len bytes with RDMA WRITE
 * (read) or RDMA READ (write), the segments in order, and answers with
 * struct kvperf_wire_io_rsp: with KVPERF_WIRE_IO_INV_LOCAL a SEND, and the
 * host invalidates the registration itself; otherwise a SEND with
 * invalidate of the first segment's rkey. With KVPERF_WIRE_VERIFY the
 * data of every I/O is kvperf_wire_pattern() of the command's seed: the
 * target writes it for reads and checks it for writes (status
 * KVPERF_WIRE_IO_MISMATCH when a byte differs). A command that is
 * malformed gets status KVPERF_WIRE_IO_BAD_COMMAND and no data moves.
 * The request's inline_size is the in-capsule data the host may send
 * (at most KVPERF_IO_INLINE_DATA_MAX, 0 for none): a write of at most
 * that many bytes may instead name no segment (nseg 0) and carry its len
 * bytes in the same SEND, right after the command's KVPERF_WIRE_IO_CAPSULE
 * bytes; the target takes them from its receive and answers with a plain
 * SEND, as there is no registration to invalidate. The target posts every
 * receive with room for a capsule and that much data. Every response
 * carries the target's CPU time on the connection so far (its thread's
 * runtime and its completion handlers' outside it), which the host reads
 * as the target's CPU per I/O.
 * Neither side sends control messages.
 */
#ifndef _UAPI_LINUX_KVPERF_WIRE_H
#define _UAPI_LINUX_KVPERF_WIRE_H

#include <linux/kvperf.h>
#include <linux/types.h>

#define KVPERF_PROTO_VERSION	8
/* perftest's port */
#define KVPERF_DEFAULT_PORT	18515

/* The shared secret a server may require: the spec's key-len bytes. */
#define KVPERF_WIRE_KEY_LEN	KVPERF_KEY_LEN

/**
 * struct kvperf_wire_req - connect request private data (client to server)
 * @version: KVPERF_PROTO_VERSION
 * @op: enum kvperf_op
 * @type: enum kvperf_run_type
 * @flags: KVPERF_WIRE_VERIFY, KVPERF_WIRE_BIDIR, KVPERF_WIRE_TIMED,
 *	   KVPERF_WIRE_WARMUP_TIMED
 * @size_max: largest message of the run
 * @inline_size: inline threshold of the run
 * @rkey: rkey of the client's receive buffer
 * @addr: address of the client's receive buffer for RDMA
 * @tx_depth: bandwidth runs, work requests in flight per queue pair
 * @post_list: bandwidth runs, work requests per post call
 * @signal_every: bandwidth runs, completion moderation
 * @reserved: zero
 * @count: bandwidth runs, messages per size, or with KVPERF_WIRE_TIMED
 *	   the time per size in ms
 * @warmup: bandwidth runs, warm-up messages per size, or with
 *	    KVPERF_WIRE_WARMUP_TIMED the warm-up time in ms
 * @key: the server's shared secret, all zero when the client has none
 *
 * The bandwidth fields tell a bidirectional bandwidth server what to send
 * back, and every server how long a timed phase lasts; latency runs leave
 * them zero. The server picks its own completion handling. 56 bytes: the
 * most an InfiniBand or RoCE connect request carries.
 */
struct kvperf_wire_req {
	__u8 version;
	__u8 op;
	__u8 type;
	__u8 flags;
	__be32 size_max;
	__be32 inline_size;
	__be32 rkey;
	__be64 addr;
	__be16 tx_depth;
	__be16 post_list;
	__be16 signal_every;
	__be16 reserved;
	__be32 count;
	__be32 warmup;
	__u8 key[KVPERF_WIRE_KEY_LEN];
} __attribute__((packed));

#define KVPERF_WIRE_VERIFY		0x1
#define KVPERF_WIRE_BIDIR		0x2
#define KVPERF_WIRE_TIMED		0x4
#define KVPERF_WIRE_WARMUP_TIMED	0x8
#define KVPERF_WIRE_IO_INV_LOCAL	0x10
#define KVPERF_WIRE_IO_MIXED		0x20

/**
 * struct kvperf_wire_rep - accept private data (server to client)
 * @version: KVPERF_PROTO_VERSION
 * @reserved: zero
 * @credits: I/O runs, the I/Os the host may keep outstanding; else zero
 * @rkey: rkey of the server's receive buffer
 * @addr: address of the server's receive buffer for RDMA
 */
struct kvperf_wire_rep {
	__u8 version;
	__u8 reserved;
	__be16 credits;
	__be32 rkey;
	__be64 addr;
} __attribute__((packed));

/**
 * struct kvperf_wire_report - the server's account of a bandwidth block,
 *			       the payload of its KVPERF_CTRL_REPORT
 * @received: send runs, data messages received after the start
 * @mismatches: messages of the wrong length, plus, with verification, a
 *		final payload that does not match the pattern
 * @tx_messages: bidir runs, messages the server completed
 * @tx_elapsed_ns: bidir runs, from its first post to its last completion
 */
struct kvperf_wire_report {
	__be64 received;
	__be64 mismatches;
	__be64 tx_messages;
	__be64 tx_elapsed_ns;
} __attribute__((packed));

/* Most keyed segments of one I/O command: the spec's io-segments-max. */
#define KVPERF_WIRE_IO_SEGS_MAX		KVPERF_IO_SEGMENTS_MAX
/* Every command and response capsule fits in this many bytes. */
#define KVPERF_WIRE_IO_CAPSULE		512

/**
 * struct kvperf_wire_io_seg - one part of an I/O's buffer on the host
 * @addr: its address for RDMA
 * @rkey: the key of the I/O's registration
 * @len: its bytes
 */
struct kvperf_wire_io_seg {
	__be64 addr;
	__be32 rkey;
	__be32 len;
} __attribute__((packed));

/**
 * struct kvperf_wire_io_cmd - an I/O command capsule (host to target)
 * @cid: the host's command id, echoed in the response
 * @opcode: KVPERF_OP_READ or KVPERF_OP_WRITE, the request's op
 * @nseg: entries used in @seg, 1 to KVPERF_WIRE_IO_SEGS_MAX; 0: a write
 *	  whose data follow the capsule (in-capsule data)
 * @len: the I/O's bytes, the sum of the segments' lengths, at most the
 *	 request's size_max
 * @seed: with KVPERF_WIRE_VERIFY, the pattern's seed for this I/O
 * @reserved: zero
 * @seg: the host's buffer
 */
struct kvperf_wire_io_cmd {
	__be16 cid;
	__u8 opcode;
	__u8 nseg;
	__be32 len;
	__be32 seed;
	__be32 reserved;
	struct kvperf_wire_io_seg seg[KVPERF_WIRE_IO_SEGS_MAX];
} __attribute__((packed));

/* The status of an I/O response. */
enum {
	KVPERF_WIRE_IO_OK = 0,
	KVPERF_WIRE_IO_BAD_COMMAND = 1,	/* malformed: no data moved */
	KVPERF_WIRE_IO_MISMATCH = 2,	/* verify: written data differ */
	KVPERF_WIRE_IO_FAILED = 3,	/* the target could not move the data */
};

/**
 * struct kvperf_wire_io_rsp - an I/O response capsule (target to host)
 * @cid: the command's id
 * @status: KVPERF_WIRE_IO_OK or why not
 * @reserved: zero
 * @cpu_ns: the target's CPU time on this connection so far, in ns
 */
struct kvperf_wire_io_rsp {
	__be16 cid;
	__u8 status;
	__u8 reserved;
	__be64 cpu_ns;
} __attribute__((packed));

/* Why a connect request was refused: the reject's one byte of private data. */
#define KVPERF_WIRE_REJ_BAD_REQUEST	1	/* a request this server cannot serve */
#define KVPERF_WIRE_REJ_TOO_MANY	2	/* no more connections */
#define KVPERF_WIRE_REJ_MEMORY		3	/* the pinned-memory bound */
#define KVPERF_WIRE_REJ_RESOURCES	4	/* allocating the connection failed */
#define KVPERF_WIRE_REJ_ADDRESS		5	/* the peer's address is not allowed */
#define KVPERF_WIRE_REJ_KEY		6	/* missing or wrong key */
#define KVPERF_WIRE_REJ_PEER_BUSY	7	/* no more connections from this address */
#define KVPERF_WIRE_REJ_SRQ_FULL	8	/* the shared receive queue is all granted */
#define KVPERF_WIRE_REJ_SRQ_INLINE	9	/* in-capsule data, with a shared receive queue */
#define KVPERF_WIRE_REJ_BIDIR		10	/* a bidirectional run, refused by the listener */

/*
 * What a client says when a kvperf server rejected it with reason @why,
 * the same words on both paths.
 */
static inline const char *kvperf_wire_reject_text(__u8 why)
{
	switch (why) {
	case KVPERF_WIRE_REJ_BAD_REQUEST:
		return "the server refused the run's parameters (or speaks another version)";
	case KVPERF_WIRE_REJ_TOO_MANY:
		return "the server has too many connections";
	case KVPERF_WIRE_REJ_MEMORY:
		return "the server's pinned-memory limit is reached";
	case KVPERF_WIRE_REJ_ADDRESS:
		return "the server does not allow this address (its allow list)";
	case KVPERF_WIRE_REJ_KEY:
		return "the server requires a key and this one is missing or wrong";
	case KVPERF_WIRE_REJ_PEER_BUSY:
		return "the server has too many connections from this address";
	case KVPERF_WIRE_REJ_SRQ_FULL:
		return "the server's shared receive queue has no credits left";
	case KVPERF_WIRE_REJ_SRQ_INLINE:
		return "the server's shared receive queue takes no in-capsule data (inline-data)";
	case KVPERF_WIRE_REJ_BIDIR:
		return "the server refuses bidirectional runs (its bidir off)";
	default:
		return "the server could not allocate the connection";
	}
}

/* Buffers hold at least this much, so a report always fits. */
#define KVPERF_BUF_MIN		64

/* Control messages: the immediate data, opcode in the top byte. */
#define KVPERF_CTRL_OP(imm)	((imm) >> 24)
#define KVPERF_CTRL_ARG(imm)	((imm) & 0xffffff)
#define KVPERF_CTRL(op, arg)	(((__u32)(op) << 24) | ((arg) & 0xffffff))
enum {
	KVPERF_CTRL_SIZE = 1,	/* next block uses this message size */
	KVPERF_CTRL_ACK = 2,	/* server is ready for the block */
	KVPERF_CTRL_START = 3,	/* bandwidth: warm-up over, counting starts */
	KVPERF_CTRL_END = 4,	/* bandwidth: the client's traffic is over */
	KVPERF_CTRL_REPORT = 5,	/* bandwidth: struct kvperf_wire_report */
};

/*
 * Sizes are sent in 24 bits: the spec's size-max (KVPERF_SIZE_MAX, 8 MiB)
 * must stay below 2^24.
 */

/*
 * The verification pattern: byte i of a payload of seed s is
 * (__u8)(s * 31 + i * 7 + (i >> 8)).
 */
static inline __u8 kvperf_wire_pattern(__u32 seed, __u64 i)
{
	return (__u8)(seed * 31 + i * 7 + (i >> 8));
}

/*
 * The write-latency marker of iteration seq (from 1): never 0, as a
 * cleared buffer is, and different from the previous iteration's.
 */
static inline __u8 kvperf_wire_marker(__u32 seq)
{
	return (__u8)(seq % 255 + 1);
}

#endif /* _UAPI_LINUX_KVPERF_WIRE_H */
