// SPDX-License-Identifier: GPL-2.0
/*
 * The wire protocol's private data and report, encoded and decoded for
 * the user path; kmod/run.c and kmod/server.c do the same for the kernel
 * path, so each side reads exactly what the other writes.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <linux/kvperf.h>

#include "upath_cfg.h"
#include "upath_wire.h"

/* The layout both sides rely on. */
_Static_assert(sizeof(struct kvperf_wire_req) == 56, "wire request size");
_Static_assert(offsetof(struct kvperf_wire_req, rkey) == 12, "rkey");
_Static_assert(offsetof(struct kvperf_wire_req, addr) == 16, "addr");
_Static_assert(offsetof(struct kvperf_wire_req, tx_depth) == 24, "tx_depth");
_Static_assert(offsetof(struct kvperf_wire_req, count) == 32, "count");
_Static_assert(offsetof(struct kvperf_wire_req, key) == 40, "key");
_Static_assert(sizeof(struct kvperf_wire_rep) == 16, "wire reply size");
_Static_assert(offsetof(struct kvperf_wire_rep, addr) == 8, "reply addr");
_Static_assert(sizeof(struct kvperf_wire_report) == 32, "report size");

/**
 * upath_wire_req_put() - a connect request's private data
 * @r: the request
 * @w: receives it, version set and reserved bytes zeroed
 */
void upath_wire_req_put(const struct upath_req *r, struct kvperf_wire_req *w)
{
	memset(w, 0, sizeof(*w));
	w->version = KVPERF_PROTO_VERSION;
	w->op = r->op;
	w->flags = r->flags & (KVPERF_WIRE_VERIFY | KVPERF_WIRE_BIDIR |
			       KVPERF_WIRE_IO_INV_LOCAL | KVPERF_WIRE_IO_MIXED);
	w->type = r->type;
	w->size_max = htobe32(r->size_max);
	w->inline_size = htobe32(r->inline_size);
	w->rkey = htobe32(r->rkey);
	w->addr = htobe64(r->addr);
	w->tx_depth = htobe16(r->tx_depth);
	w->post_list = htobe16(r->post_list);
	w->signal_every = htobe16(r->signal_every);
	if (r->duration_ms) {
		w->flags |= KVPERF_WIRE_TIMED;
		w->count = htobe32(r->duration_ms);
	} else {
		w->count = htobe32(r->iterations);
	}
	if (r->warmup_ms) {
		w->flags |= KVPERF_WIRE_WARMUP_TIMED;
		w->warmup = htobe32(r->warmup_ms);
	} else {
		w->warmup = htobe32(r->warmup);
	}
	memcpy(w->key, r->key, sizeof(w->key));
}

/**
 * upath_wire_req_get() - decode a connect request's private data
 * @data: the private data
 * @len: its length (the CM may pad it)
 * @r: receives the request
 *
 * Return: 0, or -EPROTO when it is too short or of another version.
 */
int upath_wire_req_get(const void *data, size_t len, struct upath_req *r)
{
	struct kvperf_wire_req w;

	if (!data || len < sizeof(w))
		return -EPROTO;
	memcpy(&w, data, sizeof(w));
	if (w.version != KVPERF_PROTO_VERSION)
		return -EPROTO;
	memset(r, 0, sizeof(*r));
	r->op = w.op;
	r->flags = w.flags;
	r->type = w.type;
	r->size_max = be32toh(w.size_max);
	r->inline_size = be32toh(w.inline_size);
	r->rkey = be32toh(w.rkey);
	r->addr = be64toh(w.addr);
	r->tx_depth = be16toh(w.tx_depth);
	r->credits = r->tx_depth;
	r->post_list = be16toh(w.post_list);
	r->signal_every = be16toh(w.signal_every);
	if (w.flags & KVPERF_WIRE_TIMED)
		r->duration_ms = be32toh(w.count);
	else
		r->iterations = be32toh(w.count);
	if (w.flags & KVPERF_WIRE_WARMUP_TIMED)
		r->warmup_ms = be32toh(w.warmup);
	else
		r->warmup = be32toh(w.warmup);
	memcpy(r->key, w.key, sizeof(r->key));
	return 0;
}

/*
 * A bandwidth run's phases within the ranges of the run's netlink
 * attributes: measured 1 to KVPERF_ITERATIONS_MAX messages or 1 ms to an
 * hour, warmed up at most KVPERF_WARMUP_MAX messages or ten minutes.
 */
static bool upath_wire_phases_ok(const struct upath_req *r)
{
	if (r->duration_ms ? r->duration_ms > KVPERF_DURATION_MS_MAX :
	    !r->iterations || r->iterations > KVPERF_ITERATIONS_MAX)
		return false;
	return r->warmup_ms ? r->warmup_ms <= KVPERF_WARMUP_MS_MAX :
			      r->warmup <= KVPERF_WARMUP_MAX;
}

/**
 * upath_wire_req_ok() - is this a request the server can serve?
 * @r: the request, decoded
 *
 * The module's server accepts exactly the same (kvperf_server_req_ok()).
 *
 * Return: true if it is.
 */
bool upath_wire_req_ok(const struct upath_req *r)
{
	uint32_t list_max;

	/*
	 * an I/O run: whole 512-byte units (a mixed one says read), its
	 * depth, segments and in-capsule data bounded, the latter only for
	 * runs that write
	 */
	if (r->type == KVPERF_RUN_TYPE_IO)
		return r->op != KVPERF_OP_SEND && r->op <= KVPERF_OP_READ &&
		       !(r->flags & ~(KVPERF_WIRE_VERIFY |
				      KVPERF_WIRE_IO_INV_LOCAL |
				      KVPERF_WIRE_IO_MIXED)) &&
		       (!(r->flags & KVPERF_WIRE_IO_MIXED) ||
			r->op == KVPERF_OP_READ) &&
		       r->size_max >= KVPERF_IO_BS_MIN &&
		       r->size_max <= KVPERF_IO_BS_MAX &&
		       !(r->size_max % KVPERF_IO_BS_MIN) && r->tx_depth &&
		       r->tx_depth <= KVPERF_IO_QD_MAX && r->post_list &&
		       r->post_list <= KVPERF_WIRE_IO_SEGS_MAX &&
		       r->inline_size <= KVPERF_IO_INLINE_DATA_MAX &&
		       (!r->inline_size || r->op == KVPERF_OP_WRITE ||
			r->flags & KVPERF_WIRE_IO_MIXED);
	if (r->op > KVPERF_OP_READ || r->type > KVPERF_RUN_TYPE_BW ||
	    r->flags & ~(KVPERF_WIRE_VERIFY | KVPERF_WIRE_BIDIR |
			 KVPERF_WIRE_TIMED | KVPERF_WIRE_WARMUP_TIMED))
		return false;
	if (!r->size_max || r->size_max > KVPERF_SIZE_MAX ||
	    r->inline_size > UPATH_INLINE_MAX)
		return false;
	if (r->type != KVPERF_RUN_TYPE_BW)
		return true;
	list_max = r->tx_depth < UPATH_POST_LIST_MAX ? r->tx_depth :
						       UPATH_POST_LIST_MAX;
	return r->tx_depth && r->tx_depth <= UPATH_TX_DEPTH_MAX &&
	       r->post_list && r->post_list <= list_max &&
	       r->signal_every && r->signal_every <= r->tx_depth &&
	       upath_wire_phases_ok(r);
}

/**
 * upath_wire_rep_put() - the accept's private data
 * @rkey: the server's receive buffer
 * @addr: its address
 * @credits: I/O runs, the I/Os the host may keep outstanding; 0 otherwise
 * @w: receives it
 */
void upath_wire_rep_put(uint32_t rkey, uint64_t addr, uint16_t credits,
			struct kvperf_wire_rep *w)
{
	memset(w, 0, sizeof(*w));
	w->version = KVPERF_PROTO_VERSION;
	w->credits = htobe16(credits);
	w->rkey = htobe32(rkey);
	w->addr = htobe64(addr);
}

/**
 * upath_wire_rep_get() - decode the accept's private data
 * @data: the private data
 * @len: its length
 * @rkey: receives the server's rkey
 * @addr: receives its buffer's address
 * @credits: receives the I/Os an I/O run's host may keep outstanding
 *
 * Return: 0, or -EPROTO when it is not a kvperf server's of this version.
 */
int upath_wire_rep_get(const void *data, size_t len, uint32_t *rkey,
		       uint64_t *addr, uint32_t *credits)
{
	struct kvperf_wire_rep w;

	if (!data || len < sizeof(w))
		return -EPROTO;
	memcpy(&w, data, sizeof(w));
	if (w.version != KVPERF_PROTO_VERSION)
		return -EPROTO;
	*rkey = be32toh(w.rkey);
	*addr = be64toh(w.addr);
	*credits = be16toh(w.credits);
	return 0;
}

/**
 * upath_wire_report_put() - a report as it travels
 * @r: the report
 * @w: receives it
 */
void upath_wire_report_put(const struct upath_report *r,
			   struct kvperf_wire_report *w)
{
	w->received = htobe64(r->received);
	w->mismatches = htobe64(r->mismatches);
	w->tx_messages = htobe64(r->tx_messages);
	w->tx_elapsed_ns = htobe64(r->tx_elapsed_ns);
}

/**
 * upath_wire_report_get() - a report as it arrived, in host order
 * @w: the report
 * @r: receives it
 */
void upath_wire_report_get(const struct kvperf_wire_report *w,
			   struct upath_report *r)
{
	r->received = be64toh(w->received);
	r->mismatches = be64toh(w->mismatches);
	r->tx_messages = be64toh(w->tx_messages);
	r->tx_elapsed_ns = be64toh(w->tx_elapsed_ns);
}

/**
 * upath_wire_reject_reason() - why the server refused, for the user
 * @status: the REJECTED event's status (the CM's reject reason)
 * @data: its private data, or NULL
 * @len: its length
 *
 * Return: the text the kernel path reports for the same reject.
 */
const char *upath_wire_reject_reason(int status, const void *data,
				     size_t len)
{
	if (status != UPATH_REJ_CONSUMER_DEFINED || !data || len < 1)
		return "connection rejected (is a kvperf server listening there?)";
	return kvperf_wire_reject_text(*(const uint8_t *)data);
}

/**
 * upath_wire_reject_name() - a server's reject reason in a few words
 * @why: KVPERF_WIRE_REJ_*
 *
 * Return: static text.
 */
const char *upath_wire_reject_name(uint8_t why)
{
	switch (why) {
	case KVPERF_WIRE_REJ_BAD_REQUEST:
		return "bad request";
	case KVPERF_WIRE_REJ_TOO_MANY:
		return "too many connections";
	case KVPERF_WIRE_REJ_MEMORY:
		return "memory limit";
	case KVPERF_WIRE_REJ_ADDRESS:
		return "address not allowed";
	case KVPERF_WIRE_REJ_KEY:
		return "key missing or wrong";
	case KVPERF_WIRE_REJ_PEER_BUSY:
		return "too many connections from this address";
	case KVPERF_WIRE_REJ_SRQ_FULL:
		return "shared receive queue all granted";
	case KVPERF_WIRE_REJ_SRQ_INLINE:
		return "in-capsule data with a shared receive queue";
	default:
		return "out of resources";
	}
}

/* A page, as the module rounds a connection's buffers. */
#define UPATH_WIRE_PAGE	4096

/**
 * upath_wire_pinned() - what a server's connection pins
 * @size_max: the largest message of its run
 *
 * Return: both buffers, each at least KVPERF_BUF_MIN, rounded up to pages.
 */
size_t upath_wire_pinned(uint32_t size_max)
{
	size_t len = size_max > KVPERF_BUF_MIN ? size_max : KVPERF_BUF_MIN;

	return 2 * ((len + UPATH_WIRE_PAGE - 1) &
		    ~(size_t)(UPATH_WIRE_PAGE - 1));
}

/**
 * upath_wire_io_ctxs() - the contexts an I/O target keeps
 * @credits: the I/Os the host may keep outstanding
 *
 * Return: @credits and up to UPATH_IO_SPARE_CTXS more.
 */
uint32_t upath_wire_io_ctxs(uint32_t credits)
{
	return credits + (credits < UPATH_IO_SPARE_CTXS ? credits :
			  UPATH_IO_SPARE_CTXS);
}

/**
 * upath_wire_io_rxs() - the receives an I/O target keeps posted
 * @credits: the I/Os the host may keep outstanding
 *
 * Return: @credits and UPATH_IO_RECV_SPARE more.
 */
uint32_t upath_wire_io_rxs(uint32_t credits)
{
	return credits + UPATH_IO_RECV_SPARE;
}

/**
 * upath_wire_io_rx_stride() - the bytes of one of an I/O target's receives
 * @r: the request
 *
 * Return: a command capsule and the most in-capsule data after it (none
 * from a shared receive queue: such a request is refused).
 */
uint32_t upath_wire_io_rx_stride(const struct upath_req *r)
{
	return KVPERF_WIRE_IO_CAPSULE + r->inline_size;
}

/**
 * upath_wire_io_buf_len() - an I/O target's connection buffers
 * @r: the request, its credits decided
 *
 * Return: the bytes of each: the receives (none of the connection's own
 * with a shared receive queue), or a response capsule per context,
 * whichever is larger.
 */
uint32_t upath_wire_io_buf_len(const struct upath_req *r)
{
	size_t rx = r->srq ? 0 : (size_t)upath_wire_io_rxs(r->credits) *
				 upath_wire_io_rx_stride(r);
	size_t tx = (size_t)upath_wire_io_ctxs(r->credits) *
		    KVPERF_WIRE_IO_CAPSULE;

	return rx > tx ? rx : tx;
}

/**
 * upath_wire_io_pinned() - what an I/O connection of a server pins
 * @r: the request, a valid I/O run's, its credits decided
 *
 * Return: bytes: the two connection buffers and a block per context (the
 * shared receive queue's are the server's own).
 */
size_t upath_wire_io_pinned(const struct upath_req *r)
{
	return upath_wire_pinned(upath_wire_io_buf_len(r)) +
	       (size_t)upath_wire_io_ctxs(r->credits) * r->size_max;
}

/*
 * An I/O run from a server with a shared receive queue: no in-capsule
 * data (its receives hold a capsule only), and the credits not granted
 * yet, at most what the host asked for; none left is a refusal.
 */
static uint8_t upath_wire_admit_srq(const struct upath_admit *a,
				    struct upath_req *req)
{
	uint32_t left = a->srq > a->srq_granted ? a->srq - a->srq_granted : 0;

	if (req->inline_size)
		return KVPERF_WIRE_REJ_SRQ_INLINE;
	req->srq = true;
	req->credits = req->tx_depth < left ? req->tx_depth : left;
	return req->credits ? 0 : KVPERF_WIRE_REJ_SRQ_FULL;
}

/**
 * upath_wire_admit() - should a server accept a connect request?
 * @a: what the server admits and has
 * @peer: the peer's address, network order
 * @peer_len: 4 or 16
 * @data: the request's private data
 * @len: its length
 * @req: receives the request, when it could be read
 * @pinned: receives what the connection would pin
 *
 * The checks go in this order, each before the next: the peer's address
 * (the allow list), the request's length and version, the key (compared
 * in constant time), the run's parameters, then the server's room:
 * connections, connections from that address, for an I/O run from a
 * server with a shared receive queue its in-capsule data (none) and the
 * credits left, pinned memory. A peer that is not allowed, or has no
 * key, learns nothing more. An I/O run's @req->credits are its
 * @req->tx_depth, or from a shared receive queue what is left of it.
 *
 * Return: 0 to accept, or the KVPERF_WIRE_REJ_* reason to refuse with.
 */
uint8_t upath_wire_admit(const struct upath_admit *a, const void *peer,
			 size_t peer_len, const void *data, size_t len,
			 struct upath_req *req, size_t *pinned)
{
	uint8_t why;

	if (!access_allowed(a->allow, a->nallow, peer, peer_len))
		return KVPERF_WIRE_REJ_ADDRESS;
	if (upath_wire_req_get(data, len, req))
		return KVPERF_WIRE_REJ_BAD_REQUEST;
	if (a->key && !access_key_equal(a->key, req->key, sizeof(req->key)))
		return KVPERF_WIRE_REJ_KEY;
	if (!upath_wire_req_ok(req))
		return KVPERF_WIRE_REJ_BAD_REQUEST;
	if (a->conns >= a->conns_max)
		return KVPERF_WIRE_REJ_TOO_MANY;
	if (a->peer_conns >= a->peer_conns_max)
		return KVPERF_WIRE_REJ_PEER_BUSY;
	if (req->type == KVPERF_RUN_TYPE_IO && a->srq) {
		why = upath_wire_admit_srq(a, req);
		if (why)
			return why;
	}
	*pinned = req->type == KVPERF_RUN_TYPE_IO ?
		  upath_wire_io_pinned(req) :
		  upath_wire_pinned(req->size_max);
	if (a->pinned + *pinned > a->pinned_max)
		return KVPERF_WIRE_REJ_MEMORY;
	return 0;
}
