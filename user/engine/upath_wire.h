/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user path's side of the wire protocol (<linux/kvperf_wire.h>): the
 * connect request, the accept and reject private data and the bandwidth
 * report, between their big-endian wire form and host order.
 */
#ifndef KVPERF_UPATH_WIRE_H
#define KVPERF_UPATH_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/kvperf_wire.h>

#include "access.h"

/**
 * struct upath_req - a connect request in host order
 * @op: enum kvperf_op
 * @poll: enum kvperf_poll
 * @flags: KVPERF_WIRE_VERIFY, KVPERF_WIRE_BIDIR; I/O runs KVPERF_WIRE_IO_*
 * @type: enum kvperf_run_type
 * @size_max: largest message
 * @inline_size: inline threshold
 * @rkey: the client's receive buffer
 * @addr: its address
 * @tx_depth: bandwidth, requests in flight
 * @post_list: bandwidth, requests per post
 * @signal_every: bandwidth, completion moderation
 * @iterations: bandwidth, messages per size (0: @duration_ms)
 * @duration_ms: bandwidth, time per size
 * @warmup: bandwidth, warm-up messages
 * @warmup_ms: bandwidth, warm-up time instead
 * @key: the server's shared secret, zero when there is none
 * @credits: I/O runs, the I/Os the server lets the host keep outstanding:
 *	     @tx_depth, or fewer when the server's receives are a shared
 *	     receive queue (upath_wire_admit())
 * @srq: I/O runs, the server's receives are its shared receive queue's
 *
 * @poll, @credits and @srq are the side's own choice; the wire does not
 * carry them in the request.
 */
struct upath_req {
	uint8_t op;
	uint8_t poll;
	uint8_t flags;
	uint8_t type;
	uint32_t size_max;
	uint32_t inline_size;
	uint32_t rkey;
	uint64_t addr;
	uint32_t tx_depth;
	uint32_t post_list;
	uint32_t signal_every;
	uint32_t iterations;
	uint32_t duration_ms;
	uint32_t warmup;
	uint32_t warmup_ms;
	uint8_t key[KVPERF_WIRE_KEY_LEN];
	uint32_t credits;
	bool srq;
};

/* A bandwidth block's report, host order. */
struct upath_report {
	uint64_t received;
	uint64_t mismatches;
	uint64_t tx_messages;
	uint64_t tx_elapsed_ns;
};

/* IB_CM_REJ_CONSUMER_DEFINED: the reject carries the server's reason */
#define UPATH_REJ_CONSUMER_DEFINED	28

void upath_wire_req_put(const struct upath_req *r, struct kvperf_wire_req *w);
int upath_wire_req_get(const void *data, size_t len, struct upath_req *r);
bool upath_wire_req_ok(const struct upath_req *r);
void upath_wire_rep_put(uint32_t rkey, uint64_t addr, uint16_t credits,
			struct kvperf_wire_rep *w);
int upath_wire_rep_get(const void *data, size_t len, uint32_t *rkey,
		       uint64_t *addr, uint32_t *credits);
void upath_wire_report_put(const struct upath_report *r,
			   struct kvperf_wire_report *w);
void upath_wire_report_get(const struct kvperf_wire_report *w,
			   struct upath_report *r);
const char *upath_wire_reject_reason(int status, const void *data,
				     size_t len);
const char *upath_wire_reject_name(uint8_t why);

/**
 * struct upath_admit - what a server admits, and what it has
 * @allow: the prefixes a peer must be in
 * @nallow: how many
 * @key: the key requests must carry, or NULL for none
 * @conns: connections now
 * @conns_max: most connections at once
 * @peer_conns: connections now from the peer's address
 * @peer_conns_max: most connections at once from one address
 * @pinned: bytes the connections hold now
 * @pinned_max: most bytes they may hold
 * @srq: the receives of the server's shared receive queue for I/O runs,
 *	 0 for none
 * @srq_granted: of which the live connections hold as credits
 */
struct upath_admit {
	const struct access_prefix *allow;
	unsigned int nallow;
	const uint8_t *key;
	unsigned int conns;
	unsigned int conns_max;
	unsigned int peer_conns;
	unsigned int peer_conns_max;
	size_t pinned;
	size_t pinned_max;
	uint32_t srq;
	uint32_t srq_granted;
};

/*
 * What the target of an I/O run keeps (upath_io_target.c): contexts
 * beyond the host's credits, at most, and receives beyond them, the
 * module's numbers (kmod/io.h), for the same reasons.
 */
#define UPATH_IO_SPARE_CTXS	8
#define UPATH_IO_RECV_SPARE	64

uint32_t upath_wire_io_ctxs(uint32_t credits);
uint32_t upath_wire_io_rxs(uint32_t credits);
uint32_t upath_wire_io_rx_stride(const struct upath_req *r);
uint32_t upath_wire_io_buf_len(const struct upath_req *r);
size_t upath_wire_io_pinned(const struct upath_req *r);

uint8_t upath_wire_admit(const struct upath_admit *a, const void *peer,
			 size_t peer_len, const void *data, size_t len,
			 struct upath_req *req, size_t *pinned);
size_t upath_wire_pinned(uint32_t size_max);

#endif /* KVPERF_UPATH_WIRE_H */
