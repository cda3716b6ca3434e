// SPDX-License-Identifier: GPL-2.0
/*
 * The user path's connections: the resources of kmod/conn.c built with
 * libibverbs in this process (a CQ on a completion channel unless
 * polling is busy, registered buffers instead of FRWR), and the same
 * primitives: post a message, reap completions, wait for a condition with
 * the run's timeout and stop request, and follow the connection's CM
 * events. A connection is driven by one thread, which reaps its CQ and
 * reads its CM events itself; there are no callbacks from elsewhere.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/kvperf.h>
#include <linux/kvperf_wire.h>

#include "upath_conn.h"
#include "upath_wire.h"

/* One wait spins this long before it naps between rounds. */
#define UPATH_SPIN_NS		(10 * UPATH_NS_PER_MS)
/* Busy loops look at CM events this often. */
#define UPATH_CM_EVERY_NS	(10 * UPATH_NS_PER_MS)
/* A sleep on the completion channel lasts at most this long. */
#define UPATH_SLEEP_MS		100
/* Completions reaped per round of a wait. */
#define UPATH_POLL_BUDGET	16
/* While spinning, empty CQ polls between clock reads and stop checks. */
#define UPATH_CHECK_EVERY	32
#define UPATH_WC_BATCH		16
#define UPATH_PAGE		4096

/**
 * upath_now_ns() - CLOCK_MONOTONIC in nanoseconds, as ktime_get_ns()
 *
 * Return: the time.
 */
uint64_t upath_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * UPATH_NS_PER_S + ts.tv_nsec;
}

/**
 * upath_nap() - let the CPU go for a moment, as usleep_range(20, 50)
 */
void upath_nap(void)
{
	struct timespec ts = { 0, 20000 };

	nanosleep(&ts, NULL);
}

static int upath_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ? -errno : 0;
}

/**
 * upath_buf_fill() - the verification pattern of a seed
 * @b: the buffer
 * @len: how much of it
 * @seed: the iteration, or the message size
 */
void upath_buf_fill(struct upath_buf *b, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		b->p[i] = kvperf_wire_pattern(seed, i);
}

/**
 * upath_buf_check() - does a payload hold the pattern of a seed?
 * @b: the buffer
 * @len: the payload's length
 * @seed: its seed
 *
 * Return: true if every byte matches.
 */
bool upath_buf_check(const struct upath_buf *b, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (b->p[i] != kvperf_wire_pattern(seed, i))
			return false;
	return true;
}

/*
 * Fault injection for the tests, as the module's debugfs corrupt_payloads:
 * KVPERF_FAULT_CORRUPT_PAYLOADS=N, read once per process, has the next N
 * payloads a verify check inspects get one byte flipped first.
 */
#define UPATH_FAULT_ENV		"KVPERF_FAULT_CORRUPT_PAYLOADS"

static atomic_uint upath_corrupt_left;
static pthread_once_t upath_fault_once = PTHREAD_ONCE_INIT;

/**
 * upath_fault_parse() - the value of KVPERF_FAULT_CORRUPT_PAYLOADS
 * @s: its text
 * @n: receives the count
 *
 * Return: 0, or -EINVAL unless @s is a decimal count up to UINT_MAX.
 */
int upath_fault_parse(const char *s, unsigned int *n)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > UINT_MAX)
		return -EINVAL;
	*n = v;
	return 0;
}

static void upath_fault_init(void)
{
	const char *s = getenv(UPATH_FAULT_ENV);
	unsigned int n;

	if (!s)
		return;
	if (upath_fault_parse(s, &n)) {
		fprintf(stderr, "kvperf: %s='%s' ignored: not a count\n",
			UPATH_FAULT_ENV, s);
		return;
	}
	atomic_store(&upath_corrupt_left, n);
}

/**
 * upath_buf_fault() - flip one byte of a received payload while
 *		       KVPERF_FAULT_CORRUPT_PAYLOADS asks for it
 * @b: the buffer
 * @len: the bytes the caller's verify check is about to compare with
 *	 their pattern
 *
 * Called by every payload check just before it compares, so that each
 * corruption handed out is exactly one mismatch; the count is taken
 * atomically (a server serves each connection from its own thread).
 * Which byte flips depends on what is left after taking one (2, 1, 0,
 * then again): the first, the middle, the last of the @len, as in the
 * module. A payload of no bytes takes nothing.
 *
 * Return: true when a byte was flipped.
 */
bool upath_buf_fault(struct upath_buf *b, size_t len)
{
	unsigned int n;
	size_t off;

	pthread_once(&upath_fault_once, upath_fault_init);
	n = atomic_load(&upath_corrupt_left);
	do {
		if (!n || !len)
			return false;
	} while (!atomic_compare_exchange_weak(&upath_corrupt_left, &n,
					       n - 1));
	switch ((n - 1) % 3) {
	case 2:
		off = 0;
		break;
	case 1:
		off = len / 2;
		break;
	default:
		off = len - 1;
		break;
	}
	b->p[off] ^= 0xff;
	return true;
}

/**
 * upath_buf_clear() - zero the start of a buffer
 * @b: the buffer
 * @len: how much of it
 */
void upath_buf_clear(struct upath_buf *b, size_t len)
{
	memset(b->p, 0, len);
}

/**
 * upath_cm_channel_why() - why rdma_create_event_channel() failed
 * @err: its errno, negative
 *
 * librdmacm says ENODEV when it finds no RDMA device, and opening
 * /dev/infiniband/rdma_cm says ENOENT when rdma_ucm is not loaded: the
 * reason names both, rather than leave the errno to explain itself.
 *
 * Return: static text for the user.
 */
const char *upath_cm_channel_why(int err)
{
	if (err == -ENODEV || err == -ENOENT)
		return "cannot create an RDMA CM event channel: no RDMA device on this host, or the rdma_ucm module is not loaded";
	return "cannot create an RDMA CM event channel";
}

/**
 * upath_conn_fail() - record the first error of a connection
 * @c: the connection
 * @err: negative errno
 * @reason: static text for the user
 */
void upath_conn_fail(struct upath_conn *c, int err, const char *reason)
{
	if (c->error)
		return;
	c->error = err;
	c->reason = reason;
}

static void upath_send_done(struct upath_conn *c, const struct ibv_wc *wc)
{
	if (wc->status != IBV_WC_SUCCESS)
		upath_conn_fail(c, -EIO, wc->status == IBV_WC_WR_FLUSH_ERR ?
				"send queue flushed" :
				"send completion error");
	c->sends_done++;
}

/* A data message of a bandwidth run: count it and receive the next. */
static void upath_recv_data(struct upath_conn *c, const struct ibv_wc *wc)
{
	int err;

	c->data_recvs++;
	if (wc->byte_len != c->expect_len)
		c->bad_recvs++;
	if (c->error)
		return;
	err = upath_conn_post_recv(c);
	if (err)
		upath_conn_fail(c, err, "cannot post a receive");
}

static void upath_recv_done(struct upath_conn *c, const struct ibv_wc *wc)
{
	struct upath_recv *r;

	if (wc->status != IBV_WC_SUCCESS) {
		upath_conn_fail(c, -EIO, wc->status == IBV_WC_WR_FLUSH_ERR ?
				"receive queue flushed" :
				"receive completion error");
		return;
	}
	if (c->count_data && !(wc->wc_flags & IBV_WC_WITH_IMM)) {
		upath_recv_data(c, wc);
		return;
	}
	r = &c->ring[c->recvs_done % UPATH_RECV_DEPTH];
	r->byte_len = wc->byte_len;
	r->has_imm = wc->wc_flags & IBV_WC_WITH_IMM;
	r->imm = r->has_imm ? be32toh(wc->imm_data) : 0;
	c->recvs_done++;
}

/**
 * upath_conn_init() - prepare a connection before its CM id exists
 * @c: the connection
 * @timeout_ns: longest wait for a completion or event, 0 for none
 * @stop: called while waiting; true ends the wait with -EINTR
 * @stop_arg: its argument
 * @w: what the driving thread sleeps on
 */
void upath_conn_init(struct upath_conn *c, uint64_t timeout_ns,
		     bool (*stop)(void *arg), void *stop_arg,
		     struct upath_waiter *w)
{
	memset(c, 0, sizeof(*c));
	c->cm_event = -1;	/* RDMA_CM_EVENT_ADDR_RESOLVED is 0 */
	c->timeout_ns = timeout_ns;
	c->stop = stop;
	c->stop_arg = stop_arg;
	c->waiter = w;
	c->send_cqe.done = upath_send_done;
	c->recv_cqe.done = upath_recv_done;
}

/**
 * upath_buf_reg() - allocate and register a buffer
 * @pd: the protection domain to register it on
 * @b: receives it
 * @len: usable bytes; at least KVPERF_BUF_MIN are, rounded up to pages
 * @access: IBV_ACCESS_*
 * @why: receives what failed, static text
 *
 * Return: 0, or a negative errno with @why set.
 */
int upath_buf_reg(struct ibv_pd *pd, struct upath_buf *b, size_t len,
		  int access, const char **why)
{
	size_t alloc;
	void *p;

	len = len > KVPERF_BUF_MIN ? len : KVPERF_BUF_MIN;
	alloc = (len + UPATH_PAGE - 1) & ~(size_t)(UPATH_PAGE - 1);
	if (posix_memalign(&p, UPATH_PAGE, alloc)) {
		*why = "cannot allocate the message buffers";
		return -ENOMEM;
	}
	memset(p, 0, alloc);
	b->p = p;
	b->len = len;
	errno = 0;
	b->mr = ibv_reg_mr(pd, p, len, access);
	if (!b->mr) {
		free(p);
		b->p = NULL;
		*why = "cannot register the message buffers (the locked-memory limit, ulimit -l?)";
		return errno ? -errno : -ENOMEM;
	}
	return 0;
}

static int upath_buf_alloc(struct upath_conn *c, struct upath_buf *b,
			   size_t len, int access)
{
	return upath_buf_reg(c->pd, b, len, access, &c->reason);
}

/**
 * upath_buf_free() - deregister and free a buffer
 * @b: the buffer, or an empty one
 */
void upath_buf_free(struct upath_buf *b)
{
	if (b->mr)
		ibv_dereg_mr(b->mr);
	b->mr = NULL;
	free(b->p);
	b->p = NULL;
}

/* Bandwidth CQs take the completion vectors in turn. */
static int upath_next_vector(struct ibv_context *ctx)
{
	static unsigned int next;
	unsigned int n = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);

	return ctx->num_comp_vectors > 1 ? n % ctx->num_comp_vectors : 0;
}

static int upath_conn_create_cq(struct upath_conn *c,
				const struct upath_conn_attr *attr)
{
	struct ibv_context *ctx = c->id->verbs;
	struct upath_waiter *w = c->waiter;
	int depth = attr->send_depth + attr->recv_depth + 2;

	if (attr->poll != KVPERF_POLL_BUSY && !w->ch) {
		w->ch = ibv_create_comp_channel(ctx);
		if (!w->ch || upath_nonblock(w->ch->fd)) {
			c->reason = "cannot create a completion channel";
			return -ENOMEM;
		}
	}
	c->cq = ibv_create_cq(ctx, depth, c,
			      attr->poll != KVPERF_POLL_BUSY ? w->ch : NULL,
			      attr->any_vector ? upath_next_vector(ctx) : 0);
	if (!c->cq) {
		c->reason = "cannot allocate a completion queue";
		return -ENOMEM;
	}
	return 0;
}

static int upath_conn_create_qp(struct upath_conn *c,
				const struct upath_conn_attr *attr,
				uint32_t max_qp_wr)
{
	struct ibv_qp_init_attr qa = {
		.qp_context = c,
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.cap = {
			.max_send_wr = attr->send_depth + 1,
			.max_recv_wr = attr->recv_depth + 1,
			.max_send_sge = attr->send_sges ? attr->send_sges : 1,
			.max_recv_sge = 1,
			.max_inline_data = attr->inline_size,
		},
		.qp_type = IBV_QPT_RC,
	};

	if (attr->srq) {
		/* its receives are the shared queue's */
		qa.srq = attr->srq;
		qa.cap.max_recv_wr = 0;
		qa.cap.max_recv_sge = 0;
	}
	if (attr->send_depth + 1 > max_qp_wr ||
	    (!attr->srq && attr->recv_depth + 1 > max_qp_wr)) {
		c->reason = "the queue depth exceeds the device's max_qp_wr";
		return -EINVAL;
	}
	if (rdma_create_qp(c->id, c->pd, &qa)) {
		c->reason = "cannot create the queue pair (inline size too large?)";
		return -EINVAL;
	}
	return 0;
}

/**
 * upath_conn_recv_room() - the receive slack a device has room for
 * @dattr: the device's limits
 * @attr: the connection's shape, its slack not yet added
 *
 * A depth beyond the device's queue pair or completion queue limits is no
 * error: the connection just keeps fewer receives posted.
 *
 * Return: the part of @attr->recv_slack that fits both.
 */
uint32_t upath_conn_recv_room(const struct ibv_device_attr *dattr,
			      const struct upath_conn_attr *attr)
{
	int64_t cq = (int64_t)attr->send_depth + attr->recv_depth + 2;
	int64_t qp_room = (int64_t)dattr->max_qp_wr - (attr->recv_depth + 1);
	int64_t cq_room = dattr->max_cqe - cq;
	int64_t room = attr->recv_slack;

	if (qp_room < room)
		room = qp_room;
	if (cq_room < room)
		room = cq_room;
	return room > 0 ? (uint32_t)room : 0;
}

/**
 * upath_conn_create() - a connection's PD, CQ, buffers and QP
 * @c: the connection, its CM id's address resolved
 * @attr: what to allocate
 *
 * The receive buffer is registered for the peer's writes and reads; its
 * virtual address is what the peer addresses.
 *
 * Return: 0 or a negative errno with @c->reason set; upath_conn_close()
 * frees what exists either way.
 */
int upath_conn_create(struct upath_conn *c, const struct upath_conn_attr *attr)
{
	struct ibv_context *ctx = c->id->verbs;
	struct upath_conn_attr shape = *attr;
	struct ibv_device_attr dattr;
	int err;

	snprintf(c->dev, sizeof(c->dev), "%s",
		 ibv_get_device_name(ctx->device));
	if (ibv_query_device(ctx, &dattr)) {
		c->reason = "cannot query the RDMA device";
		return -EIO;
	}
	/* from here on the slack is part of the depth, or gone */
	shape.recv_depth += upath_conn_recv_room(&dattr, attr);
	shape.recv_slack = 0;
	attr = &shape;
	if (attr->mw && !(dattr.device_cap_flags &
			  (IBV_DEVICE_MEM_WINDOW_TYPE_2A |
			   IBV_DEVICE_MEM_WINDOW_TYPE_2B))) {
		snprintf(c->why, sizeof(c->why),
			 "reg mw: device %s has no type 2 memory windows",
			 c->dev);
		c->reason = c->why;
		return -EOPNOTSUPP;
	}
	c->vendor_id = dattr.vendor_id;
	c->max_rd_atom = dattr.max_qp_rd_atom;
	c->max_init_rd_atom = dattr.max_qp_init_rd_atom;
	c->size_max = attr->size_max;
	c->inline_size = attr->inline_size;
	c->recv_depth = attr->recv_depth;

	if (attr->pd && attr->pd->context != ctx) {
		c->reason = "the connection's RDMA device is not its server's";
		return -EINVAL;
	}
	c->shared_pd = attr->pd != NULL;
	c->pd = attr->pd ?: ibv_alloc_pd(ctx);
	if (!c->pd) {
		c->reason = "cannot allocate a protection domain";
		return -ENOMEM;
	}
	c->srq = attr->srq;
	err = upath_conn_create_cq(c, attr);
	if (err)
		return err;
	err = upath_buf_alloc(c, &c->tx, attr->size_max, IBV_ACCESS_LOCAL_WRITE);
	if (!err)
		err = upath_buf_alloc(c, &c->rx, attr->size_max,
				      IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_REMOTE_WRITE |
				      IBV_ACCESS_REMOTE_READ);
	if (err)
		return err;
	return upath_conn_create_qp(c, attr, dattr.max_qp_wr);
}

/**
 * upath_conn_alloc_data() - a connection's data blocks
 * @c: the connection, created
 * @len: bytes
 * @access: what the local side and the peer may do to them (IBV_ACCESS_*)
 *
 * They live as long as the connection: upath_conn_close() deregisters
 * them once the QP, which may still refer to them, is gone.
 *
 * Return: 0 or a negative errno with @c->reason set.
 */
int upath_conn_alloc_data(struct upath_conn *c, size_t len, int access)
{
	return upath_buf_alloc(c, &c->data, len, access);
}

/* Hand every completion left on the CQ to @c->drain. */
static void upath_conn_drain(struct upath_conn *c)
{
	struct ibv_wc wc[UPATH_WC_BATCH];
	int n, i;

	while ((n = ibv_poll_cq(c->cq, UPATH_WC_BATCH, wc)) > 0)
		for (i = 0; i < n; i++)
			c->drain(c, &wc[i]);
}

/**
 * upath_conn_close() - disconnect and free everything a connection has
 * @c: the connection; its CM id and event channel go too
 */
void upath_conn_close(struct upath_conn *c)
{
	if (c->id && c->id->qp)
		rdma_disconnect(c->id);
	/* what is bound to the QP and the buffers goes first: windows */
	if (c->unbind)
		c->unbind(c, c->unbind_arg);
	c->unbind = NULL;
	c->unbind_arg = NULL;
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	/* the shared receives the QP took go back, the QP being gone */
	if (c->drain && c->cq)
		upath_conn_drain(c);
	c->drain = NULL;
	upath_buf_free(&c->data);
	upath_buf_free(&c->rx);
	upath_buf_free(&c->tx);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	c->cq = NULL;
	if (c->pd && !c->shared_pd)
		ibv_dealloc_pd(c->pd);
	c->pd = NULL;
	c->srq = NULL;
	if (c->id)
		rdma_destroy_id(c->id);
	c->id = NULL;
	if (c->cm_ch)
		rdma_destroy_event_channel(c->cm_ch);
	c->cm_ch = NULL;
}

/**
 * upath_waiter_destroy() - free a waiter's channel
 * @w: the waiter, the CQs on its channel destroyed
 */
void upath_waiter_destroy(struct upath_waiter *w)
{
	if (w->ch)
		ibv_destroy_comp_channel(w->ch);
	w->ch = NULL;
}

/**
 * upath_conn_set_rnr_timer() - set the RNR NAK timer of a connected QP
 * @c: the connection, its QP in RTS
 *
 * librdmacm has no option for it (the kernel's rdma_set_min_rnr_timer()
 * is not exported to user space), so it is changed after the connection
 * is up: an RTS to RTS transition may carry it.
 *
 * Return: 0 or a negative errno, with @c->reason set.
 */
int upath_conn_set_rnr_timer(struct upath_conn *c)
{
	struct ibv_qp_attr qa = { .min_rnr_timer = UPATH_MIN_RNR_TIMER };
	int err = ibv_modify_qp(c->id->qp, &qa, IBV_QP_MIN_RNR_TIMER);

	if (err) {
		upath_conn_fail(c, err > 0 ? -err : err,
				"cannot set the QP's RNR timer");
		return c->error;
	}
	return 0;
}

/**
 * upath_conn_own_channel() - give an accepted connection's CM id an event
 *			      channel of its own
 * @c: the connection, its CM id a listener's connect request's
 *
 * From then on the id's events (ESTABLISHED, DISCONNECTED) are read by
 * the connection's own waits, not by the listener; the channel does not
 * block, and upath_conn_close() destroys it.
 *
 * Return: 0 or a negative errno.
 */
int upath_conn_own_channel(struct upath_conn *c)
{
	int fl;

	c->cm_ch = rdma_create_event_channel();
	if (!c->cm_ch)
		return -ENOMEM;
	fl = fcntl(c->cm_ch->fd, F_GETFL);
	if (fl < 0 || fcntl(c->cm_ch->fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    rdma_migrate_id(c->id, c->cm_ch))
		return -EIO;
	return 0;
}

/**
 * upath_conn_accept() - accept a connect request with a kvperf answer
 * @c: the connection, created on the request's CM id, its receives posted
 * @credits: I/O runs, the I/Os the client may keep outstanding; else 0
 * @resp: RDMA READs the client may have in flight to us (the responder
 *	  resources)
 * @init: RDMA READs we may have in flight to the client (the initiator
 *	  depth); the client's QP takes as many of ours
 *
 * The accept's private data (struct kvperf_wire_rep) names @c's receive
 * buffer. Sends wait for the client's receives as long as it takes (RNR
 * retry 7), after the kernel path's RNR timer.
 *
 * Return: 0 or a negative errno.
 */
int upath_conn_accept(struct upath_conn *c, uint16_t credits, uint8_t resp,
		      uint8_t init)
{
	struct rdma_conn_param param;
	struct kvperf_wire_rep rep;

	upath_wire_rep_put(c->rx.mr->rkey, (uintptr_t)c->rx.p, credits, &rep);
	memset(&param, 0, sizeof(param));
	param.private_data = &rep;
	param.private_data_len = sizeof(rep);
	param.responder_resources = resp;
	param.initiator_depth = init;
	/* bidir sends wait for the client's receives as long as it takes */
	param.rnr_retry_count = 7;
	if (rdma_accept(c->id, &param))
		return -EIO;
	/* librdmacm moved the QP to RTS before accepting */
	return upath_conn_set_rnr_timer(c);
}

/**
 * upath_conn_post_recv() - post a receive for the whole receive buffer
 * @c: the connection
 *
 * Return: 0 or a negative errno.
 */
int upath_conn_post_recv(struct upath_conn *c)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->rx.p,
		.length = c->rx.len,
		.lkey = c->rx.mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = (uintptr_t)&c->recv_cqe,
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;
	int err = ibv_post_recv(c->id->qp, &wr, &bad);

	return err > 0 ? -err : err;
}

/**
 * upath_conn_post_recvs() - post every receive of a new connection
 * @c: the connection, created
 *
 * Return: 0 or a negative errno, with @c->reason set.
 */
int upath_conn_post_recvs(struct upath_conn *c)
{
	uint32_t i;
	int err = 0;

	for (i = 0; i < c->recv_depth && !err; i++)
		err = upath_conn_post_recv(c);
	if (err)
		c->reason = "cannot post receives";
	return err;
}

/**
 * upath_conn_post_send() - post one signaled send-queue work request
 * @c: the connection
 * @opcode: IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE or
 *	    IBV_WR_RDMA_READ
 * @len: payload length (0 for a control message)
 * @imm: immediate data for IBV_WR_SEND_WITH_IMM, host order
 *
 * SENDs and WRITEs go out of @c->tx (inline when short enough), READs
 * land in @c->rx; WRITEs and READs address the peer's receive buffer.
 *
 * Return: 0 or a negative errno.
 */
int upath_conn_post_send(struct upath_conn *c, enum ibv_wr_opcode opcode,
			 uint32_t len, uint32_t imm)
{
	struct upath_buf *b = opcode == IBV_WR_RDMA_READ ? &c->rx : &c->tx;
	struct ibv_sge sge = {
		.addr = (uintptr_t)b->p,
		.length = len,
		.lkey = b->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = (uintptr_t)&c->send_cqe,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
		.opcode = opcode,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int err;

	if (opcode == IBV_WR_SEND_WITH_IMM)
		wr.imm_data = htobe32(imm);
	if (len && len <= c->inline_size && opcode != IBV_WR_RDMA_READ)
		wr.send_flags |= IBV_SEND_INLINE;
	if (opcode == IBV_WR_RDMA_WRITE || opcode == IBV_WR_RDMA_READ) {
		wr.wr.rdma.remote_addr = c->remote_addr;
		wr.wr.rdma.rkey = c->remote_rkey;
	}
	err = ibv_post_send(c->id->qp, &wr, &bad);
	if (err)
		return err > 0 ? -err : err;
	c->sends_posted++;
	return 0;
}

/**
 * upath_conn_poll() - reap completions of a connection's CQ
 * @c: the connection
 * @budget: at most this many
 *
 * Each completion runs the handler its work request named.
 *
 * Return: how many were reaped, or a negative errno.
 */
int upath_conn_poll(struct upath_conn *c, int budget)
{
	struct ibv_wc wc[UPATH_WC_BATCH];
	int total = 0, n, i, ask;

	while (total < budget) {
		ask = budget - total < UPATH_WC_BATCH ? budget - total :
							UPATH_WC_BATCH;
		n = ibv_poll_cq(c->cq, ask, wc);
		if (n < 0) {
			upath_conn_fail(c, -EIO, "cannot poll the completion queue");
			return -EIO;
		}
		for (i = 0; i < n; i++) {
			const struct upath_cqe *cqe =
				(const struct upath_cqe *)(uintptr_t)wc[i].wr_id;

			cqe->done(c, &wc[i]);
		}
		total += n;
		if (n < ask)
			break;
	}
	return total;
}

static void upath_conn_established(struct upath_conn *c,
				   const struct rdma_cm_event *ev)
{
	if (!c->server &&
	    upath_wire_rep_get(ev->param.conn.private_data,
			       ev->param.conn.private_data_len,
			       &c->remote_rkey, &c->remote_addr, &c->credits)) {
		upath_conn_fail(c, -EPROTO,
				"the server is not a kvperf server of this version");
		return;
	}
	c->established = true;
	c->cm_event = ev->event;
}

/* What a CM event means for the connection, as kmod/run.c and server.c. */
static void upath_conn_cm_event(struct upath_conn *c,
				const struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		c->cm_event = ev->event;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		upath_conn_established(c, ev);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		upath_conn_fail(c, -EHOSTUNREACH,
				"cannot resolve the server address");
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		upath_conn_fail(c, -EHOSTUNREACH,
				"cannot resolve a route to the server");
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		if (c->server)
			upath_conn_fail(c, -ECONNABORTED, "the connection failed");
		else if (ev->event == RDMA_CM_EVENT_UNREACHABLE)
			upath_conn_fail(c, -EHOSTUNREACH,
					"the server is unreachable or did not answer");
		else
			upath_conn_fail(c, -ECONNABORTED, "connection error");
		break;
	case RDMA_CM_EVENT_REJECTED:
		upath_conn_fail(c, c->server ? -ECONNABORTED : -ECONNREFUSED,
				c->server ? "the connection failed" :
				upath_wire_reject_reason(ev->status,
							 ev->param.conn.private_data,
							 ev->param.conn.private_data_len));
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		upath_conn_fail(c, -ECONNRESET, c->server ?
				"the client disconnected" :
				"the server closed the connection");
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		upath_conn_fail(c, -ENODEV, "the RDMA device was removed");
		break;
	case RDMA_CM_EVENT_ADDR_CHANGE:
		upath_conn_fail(c, -ENETRESET, "the local address changed");
		break;
	default:
		break;
	}
}

/**
 * upath_conn_cm_poll() - handle the connection's pending CM events
 * @c: the connection; its event channel is non-blocking
 */
void upath_conn_cm_poll(struct upath_conn *c)
{
	struct rdma_cm_event *ev;

	while (c->cm_ch && !rdma_get_cm_event(c->cm_ch, &ev)) {
		upath_conn_cm_event(c, ev);
		rdma_ack_cm_event(ev);
	}
}

/* Reap what the CQs have; true if there was something. */
static bool upath_poll_all(struct upath_conn **cs, unsigned int n)
{
	bool got = false;
	unsigned int i;

	for (i = 0; i < n; i++)
		got |= upath_conn_poll(cs[i], 64) > 0;
	return got;
}

/*
 * Take the completion events of the armed CQs; those CQs need arming
 * again. An armed CQ has at most one event, so @armed reads suffice and
 * the usual case, one CQ, takes one read(2) and no EAGAIN one; an event
 * left over is read in a later call, when poll(2) reports it.
 */
static void upath_waiter_events(struct upath_waiter *w, unsigned int armed)
{
	struct upath_conn *c;
	struct ibv_cq *cq;
	void *ctx;

	while (armed-- && !ibv_get_cq_event(w->ch, &cq, &ctx)) {
		ibv_ack_cq_events(cq, 1);
		c = ctx;
		c->armed = false;
	}
}

/**
 * upath_waiter_sleep() - reap completions, or sleep until some arrive
 * @w: the waiter, with a completion channel
 * @cs: the connections whose CQs are on it
 * @n: how many (at most 16)
 *
 * Arms the CQs that are not, reaps them once more (a completion may have
 * come before the arming), and only then sleeps on the channel and the
 * connections' CM events, for at most 100 ms. Whatever woke it is handled
 * before it returns: the completion events, and the CM events of the
 * connections whose channel poll(2) reported (the others have none to
 * read, and asking costs a system call each).
 */
void upath_waiter_sleep(struct upath_waiter *w, struct upath_conn **cs,
			unsigned int n)
{
	struct pollfd fds[1 + 16];
	unsigned int conn_of[1 + 16];
	bool armed = false;
	unsigned int i, nfds = 1, narmed = 0;

	if (upath_poll_all(cs, n))
		return;
	for (i = 0; i < n; i++) {
		if (cs[i]->armed)
			continue;
		if (ibv_req_notify_cq(cs[i]->cq, 0)) {
			upath_conn_fail(cs[i], -EIO, "cannot arm the completion queue");
			return;
		}
		cs[i]->armed = true;
		armed = true;
	}
	if (armed && upath_poll_all(cs, n))
		return;

	fds[0].fd = w->ch->fd;
	fds[0].events = POLLIN;
	for (i = 0; i < n && i < 16; i++) {
		if (!cs[i]->cm_ch)
			continue;
		fds[nfds].fd = cs[i]->cm_ch->fd;
		fds[nfds].events = POLLIN;
		conn_of[nfds] = i;
		nfds++;
	}
	if (poll(fds, nfds, UPATH_SLEEP_MS) <= 0)
		return;
	if (fds[0].revents) {
		for (i = 0; i < n; i++)
			narmed += cs[i]->armed;
		upath_waiter_events(w, narmed ? narmed : 1);
	}
	for (i = 1; i < nfds; i++)
		if (fds[i].revents)
			upath_conn_cm_poll(cs[conn_of[i]]);
	upath_poll_all(cs, n);
}

/**
 * upath_conn_wait() - wait until a condition holds
 * @c: the connection
 * @cond: the condition, evaluated repeatedly
 * @arg: its argument
 *
 * With busy polling (and while @c->spin is set) this spins on the CQ,
 * reading the clock, checking for a stop and for CM events only every
 * UPATH_CHECK_EVERY rounds, and after 10 ms without a completion napping
 * between rounds; otherwise it
 * sleeps on the completion channel until a completion or CM event comes.
 *
 * Return: 0 when @cond held, -EINTR when the owner stops the loop,
 * -ETIMEDOUT after @c->timeout_ns without it, or the connection's error.
 */
int upath_conn_wait(struct upath_conn *c,
		    bool (*cond)(struct upath_conn *c, void *arg), void *arg)
{
	uint64_t now = upath_now_ns();
	uint64_t deadline = c->timeout_ns ? now + c->timeout_ns : 0;
	uint64_t spin_until = now + UPATH_SPIN_NS;
	bool direct = !c->waiter->ch, progress = false, napping = false;
	unsigned int polls = 0;

	for (;;) {
		if (cond(c, arg))
			return 0;
		if (c->error)
			return c->error;
		if (direct || c->spin) {
			/*
			 * Spinning: the CQ every round, the rest every few
			 * rounds only, so that a completion is seen without a
			 * clock read and a stop check in between.
			 */
			if (upath_conn_poll(c, UPATH_POLL_BUDGET) > 0)
				progress = true;
			if (!napping && polls++ % UPATH_CHECK_EVERY)
				continue;
		}
		if (c->stop(c->stop_arg))
			return -EINTR;
		now = upath_now_ns();
		/* completions are progress: the silence starts anew */
		if (progress && direct) {
			deadline = c->timeout_ns ? now + c->timeout_ns : 0;
			spin_until = now + UPATH_SPIN_NS;
		}
		progress = false;
		if (deadline && now > deadline) {
			upath_conn_fail(c, -ETIMEDOUT,
					"no completion or event within the timeout");
			return -ETIMEDOUT;
		}
		if (!direct && !c->spin) {
			upath_waiter_sleep(c->waiter, &c, 1);
			continue;
		}
		if (now >= c->cm_next_ns) {
			upath_conn_cm_poll(c);
			c->cm_next_ns = now + UPATH_CM_EVERY_NS;
		}
		napping = now > spin_until;
		if (napping)
			upath_nap();
	}
}

static bool upath_sends_idle(struct upath_conn *c, void *arg)
{
	(void)arg;
	return c->sends_done == c->sends_posted;
}

/**
 * upath_conn_wait_sends() - wait for every request upath_conn_post_send()
 *			     posted
 * @c: the connection
 *
 * Return: as upath_conn_wait().
 */
int upath_conn_wait_sends(struct upath_conn *c)
{
	return upath_conn_wait(c, upath_sends_idle, NULL);
}

/**
 * upath_conn_recv_pending() - has a message arrived that is not consumed?
 * @c: the connection
 *
 * Return: true if upath_conn_wait_recv() would return at once.
 */
bool upath_conn_recv_pending(const struct upath_conn *c)
{
	return c->recvs_done != c->recvs_seen;
}

static bool upath_recv_ready(struct upath_conn *c, void *arg)
{
	(void)arg;
	return upath_conn_recv_pending(c);
}

/**
 * upath_conn_wait_recv() - wait for the next received message
 * @c: the connection
 * @r: receives what its completion said
 *
 * The receive is posted again before this returns.
 *
 * Return: as upath_conn_wait(), or the error of posting the receive.
 */
int upath_conn_wait_recv(struct upath_conn *c, struct upath_recv *r)
{
	int err = upath_conn_wait(c, upath_recv_ready, NULL);

	if (err)
		return err;
	*r = c->ring[c->recvs_seen % UPATH_RECV_DEPTH];
	c->recvs_seen++;
	return upath_conn_post_recv(c);
}

struct upath_marker_wait {
	const uint8_t *byte;
	uint8_t marker;
	bool or_recv;
};

static bool upath_marker_arrived(struct upath_conn *c, void *arg)
{
	const struct upath_marker_wait *w = arg;

	if (w->or_recv && upath_conn_recv_pending(c))
		return true;
	return __atomic_load_n(w->byte, __ATOMIC_ACQUIRE) == w->marker;
}

/**
 * upath_conn_wait_marker() - spin until a byte of the receive buffer
 *			      changes to a marker, as perftest's write
 *			      latency does
 * @c: the connection
 * @off: offset of the byte
 * @marker: the value to wait for
 * @or_recv: also return when a message arrives
 *
 * Spins whatever the poll mode: the arrival is seen in memory.
 *
 * Return: as upath_conn_wait().
 */
int upath_conn_wait_marker(struct upath_conn *c, uint32_t off, uint8_t marker,
			   bool or_recv)
{
	struct upath_marker_wait w = {
		.byte = c->rx.p + off,
		.marker = marker,
		.or_recv = or_recv,
	};
	int err;

	c->spin = true;
	err = upath_conn_wait(c, upath_marker_arrived, &w);
	c->spin = false;
	return err;
}
