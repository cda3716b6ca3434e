// SPDX-License-Identifier: GPL-2.0
/*
 * The user-path server: a kvperf server in this process, until its
 * caller says stop. It accepts what the module's
 * server accepts (kmod/server.c), with the same rejects and limits, and
 * gives each connection a thread of its own that answers the client's
 * latency or bandwidth loop, kernel path or user path, until the client
 * disconnects. Each accepted connection's CM id moves to an event channel
 * of its own, so that its thread follows its events itself and tears it
 * down; this thread only listens and collects the threads that ended.
 *
 * With srq N, the I/O connections take their receives from one shared
 * receive queue of the listener's (upath_io_srq_create()), made when it
 * starts and freed when it stops, after every connection: this thread
 * grants each I/O connection its credits out of N as it accepts it and
 * takes them back as it collects its thread, when the connection has
 * given back every receive it held.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/kvperf.h>
#include <linux/kvperf_wire.h>

#include "compiler.h"
#include "fmt.h"
#include "server_cfg.h"
#include "upath.h"
#include "upath_bw.h"
#include "upath_conn.h"
#include "upath_io_target.h"
#include "upath_lat.h"
#include "upath_signal.h"
#include "upath_wire.h"

/* The module's limits and defaults: connections, pinned memory. */
#define UPATH_SERVER_CONNS_MAX	16
#define UPATH_PINNED_MAX	(256ULL << 20)

struct upath_server;

/**
 * struct upath_sconn - one connection the server accepted
 * @next: the next in the server's list
 * @srv: the server
 * @id: its number, for the output
 * @conn: the connection
 * @waiter: what its thread sleeps on
 * @bw: bandwidth runs, the connection's bandwidth state
 * @io: I/O runs, the target's state
 * @req: what the client asked for
 * @peer: the client's address, @peer_len bytes (4 or 16)
 * @peer_len: 4 or 16
 * @pinned: bytes of its buffers
 * @served: iterations or messages answered
 * @thread: its thread
 * @finished: the thread has freed the connection
 */
struct upath_sconn {
	struct upath_sconn *next;
	struct upath_server *srv;
	unsigned int id;
	struct upath_conn conn;
	struct upath_waiter waiter;
	struct upath_bw_qp bw;
	struct upath_io_target *io;
	struct upath_req req;
	uint8_t peer[16];
	size_t peer_len;
	size_t pinned;
	uint64_t served;
	pthread_t thread;
	bool finished;
};

/**
 * struct upath_server - the listener
 * @ops: what it reports, and when it stops
 * @ch: the listener's CM event channel
 * @listen_id: the listening CM id
 * @conns: the connections whose threads run or were not collected
 * @nconns: how many
 * @next_id: the number of the next connection
 * @pinned: bytes of all their buffers
 * @stopping: the server is going away: threads end
 * @lock: serializes the reports of the threads
 * @poll: enum kvperf_poll of every connection, the server's choice
 * @allow: the prefixes peers must be in
 * @nallow: how many
 * @keyed: connect requests must carry @key
 * @key: the shared secret
 * @conns_max: most connections at once
 * @peer_conns_max: most connections at once from one address
 * @count: the counters, as the module's listeners keep them
 * @srq: the shared receive queue of the I/O connections, or NULL
 * @srq_depth: its receives, 0 without one
 * @srq_granted: of which the connections not collected hold as credits
 */
struct upath_server {
	const struct upath_server_ops *ops;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id;
	struct upath_sconn *conns;
	unsigned int nconns;
	unsigned int next_id;
	size_t pinned;
	bool stopping;
	pthread_mutex_t lock;
	uint8_t poll;
	struct access_prefix allow[ACCESS_ALLOW_MAX];
	unsigned int nallow;
	bool keyed;
	uint8_t key[KVPERF_WIRE_KEY_LEN];
	unsigned int conns_max;
	unsigned int peer_conns_max;
	struct upath_server_counts count;
	struct upath_io_srq *srq;
	uint32_t srq_depth;
	uint32_t srq_granted;
};

/* What a connect request event said, kept past its acknowledgement. */
struct upath_conn_req {
	struct rdma_cm_id *id;
	uint8_t data[sizeof(struct kvperf_wire_req)];
	uint8_t len;
	uint8_t responder_resources;
	uint8_t initiator_depth;
};

static bool upath_given(const struct kv_server_cfg *o, int attr)
{
	return (o->has >> attr) & 1;
}

static bool upath_sconn_should_stop(void *arg)
{
	struct upath_sconn *sc = arg;

	return upath_signalled() ||
	       __atomic_load_n(&sc->srv->stopping, __ATOMIC_ACQUIRE);
}

/* A line for stderr: the caller's, or nowhere. */
__printf(2, 3)
static void upath_server_error(struct upath_server *srv, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!srv->ops->error)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	srv->ops->error(srv->ops->arg, msg);
}

/*
 * The client's address ("198.18.0.1", "2001:2::1") and the address with
 * its port as one endpoint ("198.18.0.1:34567", "[2001:2::1]:34567").
 */
static uint16_t upath_peer(struct rdma_cm_id *id, char *addr, char *text)
{
	return fmt_sockaddr(addr, text, rdma_get_peer_addr(id));
}

/* Report an accepted connection. */
static void upath_report_conn(struct upath_server *srv,
			      const struct upath_sconn *sc)
{
	const struct upath_req *r = &sc->req;
	struct upath_server_conn c = {
		.id = sc->id, .type = r->type, .op = r->op, .poll = srv->poll,
		.size_max = r->size_max,
		.verify = r->flags & KVPERF_WIRE_VERIFY,
		.bidir = r->flags & KVPERF_WIRE_BIDIR,
	};

	if (!srv->ops->conn)
		return;
	c.peer_port = upath_peer(sc->conn.id, c.peer_addr, c.peer);
	pthread_mutex_lock(&srv->lock);
	srv->ops->conn(srv->ops->arg, &c);
	pthread_mutex_unlock(&srv->lock);
}

/* Report a refused connect request. */
static void upath_report_refused(struct upath_server *srv,
				 struct rdma_cm_id *id, uint8_t why)
{
	struct upath_server_refusal r = { .why = why };

	if (!srv->ops->refused)
		return;
	r.peer_port = upath_peer(id, r.peer_addr, r.peer);
	pthread_mutex_lock(&srv->lock);
	srv->ops->refused(srv->ops->arg, &r);
	pthread_mutex_unlock(&srv->lock);
}

/* Count a refused request, say so, reject it; the id is the caller's. */
static void upath_refuse(struct upath_server *srv, struct rdma_cm_id *id,
			 uint8_t why)
{
	switch (why) {
	case KVPERF_WIRE_REJ_BAD_REQUEST:
	case KVPERF_WIRE_REJ_SRQ_INLINE:
		srv->count.refused_request++;
		break;
	case KVPERF_WIRE_REJ_ADDRESS:
		srv->count.refused_address++;
		break;
	case KVPERF_WIRE_REJ_KEY:
		srv->count.refused_key++;
		break;
	case KVPERF_WIRE_REJ_TOO_MANY:
	case KVPERF_WIRE_REJ_PEER_BUSY:
	case KVPERF_WIRE_REJ_SRQ_FULL:
		srv->count.refused_busy++;
		break;
	default:
		srv->count.refused_memory++;
		break;
	}
	upath_report_refused(srv, id, why);
	rdma_reject(id, &why, sizeof(why));
}

static bool upath_sconn_established(struct upath_conn *c, void *arg)
{
	(void)arg;
	return c->established;
}

static void *upath_sconn_thread(void *arg)
{
	struct upath_sconn *sc = arg;
	struct upath_conn *c = &sc->conn;
	bool verify = sc->req.flags & KVPERF_WIRE_VERIFY;
	int err;

	err = upath_conn_wait(c, upath_sconn_established, NULL);
	if (!err && sc->req.type == KVPERF_RUN_TYPE_IO)
		err = upath_io_target_serve(sc->io);
	else if (!err && sc->req.type == KVPERF_RUN_TYPE_BW)
		err = upath_bw_serve(&sc->bw, verify,
				     sc->req.flags & KVPERF_WIRE_BIDIR,
				     &sc->served);
	else if (!err)
		err = upath_lat_serve(c, sc->req.op, verify, &sc->served);
	if (err != -EINTR && err != -ECONNRESET) {
		pthread_mutex_lock(&sc->srv->lock);
		upath_server_error(sc->srv, "connection %u ended: %s", sc->id,
				   c->reason ?: "failed");
		pthread_mutex_unlock(&sc->srv->lock);
	}
	upath_conn_close(c);
	upath_io_target_free(sc->io);
	upath_bw_qp_destroy(&sc->bw);
	upath_waiter_destroy(&sc->waiter);
	__atomic_store_n(&sc->finished, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Collect the threads that ended; all of them when @all. */
static void upath_server_reap(struct upath_server *srv, bool all)
{
	struct upath_sconn **pp = &srv->conns, *sc;

	while ((sc = *pp)) {
		if (!all && !__atomic_load_n(&sc->finished, __ATOMIC_ACQUIRE)) {
			pp = &sc->next;
			continue;
		}
		pthread_join(sc->thread, NULL);
		*pp = sc->next;
		srv->nconns--;
		srv->pinned -= sc->pinned;
		/* its shared receives all went back as it ended */
		if (sc->req.srq)
			srv->srq_granted -= sc->req.credits;
		free(sc);
	}
}

/* The connection's queues; bandwidth runs keep their traffic in flight. */
static void upath_sconn_attr(const struct upath_server *srv,
			     const struct upath_req *r,
			     struct upath_conn_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->poll = srv->poll;		/* the server's own choice */
	attr->size_max = r->size_max;
	attr->inline_size = r->inline_size;
	attr->send_depth = UPATH_SEND_DEPTH;
	attr->recv_depth = UPATH_RECV_DEPTH;
	if (r->type == KVPERF_RUN_TYPE_IO)
		upath_io_target_conn_attr(r, r->srq ? srv->srq : NULL, attr);
	if (r->type != KVPERF_RUN_TYPE_BW)
		return;
	attr->any_vector = true;
	if (r->flags & KVPERF_WIRE_BIDIR)
		attr->send_depth += r->tx_depth;
	if (r->op == KVPERF_OP_SEND) {
		attr->recv_depth += r->tx_depth;
		attr->recv_slack = UPATH_RECV_SLACK;
	}
}

/* A bandwidth run's connection: what a bidir run sends back. */
static int upath_sconn_init_bw(struct upath_sconn *sc)
{
	const struct upath_req *r = &sc->req;
	struct upath_bw_params p = {
		.op = r->op,
		.tx_depth = r->tx_depth,
		.post_list = r->post_list,
		.signal_every = r->signal_every,
		.iterations = r->iterations,
		.duration_ns = r->duration_ms * UPATH_NS_PER_MS,
		.warmup = r->warmup,
		.warmup_ns = r->warmup_ms * UPATH_NS_PER_MS,
	};

	if (r->type != KVPERF_RUN_TYPE_BW)
		return 0;
	sc->conn.count_data = r->op == KVPERF_OP_SEND;
	return upath_bw_qp_init(&sc->bw, &sc->conn, &p);
}

/*
 * The receives of a new connection: an I/O run's target posts its own,
 * one per command capsule, or takes them from the shared receive queue.
 */
static int upath_sconn_recvs(struct upath_sconn *sc)
{
	if (sc->req.type != KVPERF_RUN_TYPE_IO)
		return upath_conn_post_recvs(&sc->conn);
	sc->io = upath_io_target_create(&sc->conn, &sc->req,
					sc->req.srq ? sc->srv->srq : NULL,
					&sc->served);
	return sc->io ? upath_io_target_start(sc->io) : -ENOMEM;
}

static int upath_sconn_accept(struct upath_sconn *sc,
			      const struct upath_conn_req *cr)
{
	struct upath_conn *c = &sc->conn;

	/*
	 * an I/O run's host may keep as many I/Os outstanding as it asked,
	 * or as the shared receive queue had left; the event's values are
	 * the client's, seen from this side
	 */
	return upath_conn_accept(c, sc->req.type == KVPERF_RUN_TYPE_IO ?
				 sc->req.credits : 0,
				 cr->responder_resources < c->max_rd_atom ?
				 cr->responder_resources : c->max_rd_atom,
				 cr->initiator_depth < c->max_init_rd_atom ?
				 cr->initiator_depth : c->max_init_rd_atom);
}

/*
 * Set up, accept and start a connection. On failure the request is
 * refused here, after the id moved to the connection's channel perhaps,
 * and the id destroyed with everything else.
 */
static void upath_server_accept(struct upath_server *srv,
				const struct upath_conn_req *cr,
				const struct upath_req *req, size_t pinned,
				const uint8_t *peer, size_t peer_len)
{
	uint8_t why = KVPERF_WIRE_REJ_RESOURCES;
	struct upath_conn_attr attr;
	struct upath_sconn *sc;

	sc = calloc(1, sizeof(*sc));
	if (!sc) {
		upath_refuse(srv, cr->id, why);
		rdma_destroy_id(cr->id);
		return;
	}
	sc->srv = srv;
	sc->pinned = pinned;
	sc->req = *req;
	explicit_bzero(sc->req.key, sizeof(sc->req.key));
	memcpy(sc->peer, peer, peer_len);
	sc->peer_len = peer_len;
	upath_conn_init(&sc->conn, 0, upath_sconn_should_stop, sc,
			&sc->waiter);
	sc->conn.server = true;
	sc->conn.id = cr->id;
	cr->id->context = sc;
	sc->conn.remote_rkey = req->rkey;
	sc->conn.remote_addr = req->addr;
	upath_sconn_attr(srv, req, &attr);
	if (upath_sconn_init_bw(sc) || upath_conn_create(&sc->conn, &attr) ||
	    upath_sconn_recvs(sc) || upath_conn_own_channel(&sc->conn) ||
	    upath_sconn_accept(sc, cr))
		goto err;
	sc->id = ++srv->next_id;
	upath_report_conn(srv, sc);
	if (pthread_create(&sc->thread, NULL, upath_sconn_thread, sc)) {
		upath_server_error(srv, "connection %u: cannot start its thread",
				   sc->id);
		goto err;
	}
	sc->next = srv->conns;
	srv->conns = sc;
	srv->nconns++;
	srv->pinned += pinned;
	if (sc->req.srq)
		srv->srq_granted += sc->req.credits;
	srv->count.accepted++;
	return;

err:
	if (!sc->id)
		upath_refuse(srv, cr->id, why);
	else
		rdma_reject(cr->id, &why, sizeof(why));
	upath_conn_close(&sc->conn);
	upath_io_target_free(sc->io);
	upath_bw_qp_destroy(&sc->bw);
	upath_waiter_destroy(&sc->waiter);
	free(sc);
}

/* The peer's address, network order: its length, 0 if not IP. */
static size_t upath_peer_addr(struct rdma_cm_id *id, uint8_t addr[16])
{
	const struct sockaddr *sa = rdma_get_peer_addr(id);

	if (sa->sa_family == AF_INET) {
		memcpy(addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return 4;
	}
	if (sa->sa_family == AF_INET6) {
		memcpy(addr, &((const struct sockaddr_in6 *)sa)->sin6_addr,
		       16);
		return 16;
	}
	return 0;
}

/* The live connections from one address. */
static unsigned int upath_peer_conns(const struct upath_server *srv,
				     const uint8_t *peer, size_t len)
{
	const struct upath_sconn *sc;
	unsigned int n = 0;

	for (sc = srv->conns; sc; sc = sc->next)
		n += sc->peer_len == len && !memcmp(sc->peer, peer, len);
	return n;
}

/* A connect request: accept it, or reject it saying why. */
static void upath_server_request(struct upath_server *srv,
				 const struct upath_conn_req *cr)
{
	struct upath_admit a = {
		.allow = srv->allow, .nallow = srv->nallow,
		.key = srv->keyed ? srv->key : NULL,
		.conns_max = srv->conns_max,
		.peer_conns_max = srv->peer_conns_max,
		.pinned_max = UPATH_PINNED_MAX,
		.srq = srv->srq_depth,
		.srq_granted = srv->srq_granted,
	};
	struct upath_req req;
	size_t pinned = 0, peer_len;
	uint8_t peer[16], why;

	upath_server_reap(srv, false);
	peer_len = upath_peer_addr(cr->id, peer);
	a.conns = srv->nconns;
	a.peer_conns = upath_peer_conns(srv, peer, peer_len);
	a.pinned = srv->pinned;
	why = upath_wire_admit(&a, peer, peer_len, cr->data, cr->len, &req,
			       &pinned);
	if (!why) {
		upath_server_accept(srv, cr, &req, pinned, peer, peer_len);
	} else {
		upath_refuse(srv, cr->id, why);
		rdma_destroy_id(cr->id);
	}
	explicit_bzero(req.key, sizeof(req.key));
}

/* The events of the listener: connect requests, the device going away. */
static int upath_server_events(struct upath_server *srv)
{
	struct rdma_cm_event *ev;
	struct upath_conn_req cr;

	while (!rdma_get_cm_event(srv->ch, &ev)) {
		if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL &&
		    ev->id == srv->listen_id) {
			rdma_ack_cm_event(ev);
			upath_server_error(srv, "the RDMA device was removed");
			return -ENODEV;
		}
		if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
			rdma_ack_cm_event(ev);
			continue;
		}
		memset(&cr, 0, sizeof(cr));
		cr.id = ev->id;
		cr.len = ev->param.conn.private_data_len < sizeof(cr.data) ?
			 ev->param.conn.private_data_len : sizeof(cr.data);
		if (ev->param.conn.private_data)
			memcpy(cr.data, ev->param.conn.private_data, cr.len);
		cr.responder_resources = ev->param.conn.responder_resources;
		cr.initiator_depth = ev->param.conn.initiator_depth;
		/* acknowledged first: the id may move to a channel of its own */
		rdma_ack_cm_event(ev);
		upath_server_request(srv, &cr);
	}
	return 0;
}

static void upath_sockaddr(const struct kv_server_cfg *o,
			   struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (o->addr_len == 4) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(o->port);
		memcpy(&sin->sin_addr, o->addr, 4);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(o->port);
		memcpy(&sin6->sin6_addr, o->addr, 16);
	}
}

/* Bind and listen as kvperf_server_start() does, with its messages. */
static int upath_server_listen(struct upath_server *srv,
			       const struct kv_server_cfg *o)
{
	struct sockaddr_storage ss;
	const char *dev;
	char why[192];
	int fl, err;

	srv->ch = rdma_create_event_channel();
	if (!srv->ch) {
		err = errno;
		upath_server_error(srv, "%s (%s)", upath_cm_channel_why(-err),
				   strerror(err));
		return -ENODEV;
	}
	fl = fcntl(srv->ch->fd, F_GETFL);
	if (fl < 0 || fcntl(srv->ch->fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    rdma_create_id(srv->ch, &srv->listen_id, srv, RDMA_PS_TCP)) {
		upath_server_error(srv, "cannot create an RDMA CM id: %s",
			      strerror(errno));
		return -ENOMEM;
	}
	upath_sockaddr(o, &ss);
	if (rdma_bind_addr(srv->listen_id, (struct sockaddr *)&ss)) {
		upath_server_error(srv, errno == EADDRINUSE ?
			      "address and port already in use" :
			      "cannot bind: no RDMA device has that address");
		return -EADDRINUSE;
	}
	if (!srv->listen_id->verbs) {
		upath_server_error(srv, "no RDMA device has that address (a wildcard address is not supported)");
		return -EADDRNOTAVAIL;
	}
	dev = ibv_get_device_name(srv->listen_id->verbs->device);
	if (o->dev[0] && strcmp(o->dev, dev)) {
		upath_server_error(srv, "the address belongs to %s, not %s", dev,
			      o->dev);
		return -EINVAL;
	}
	if (!srv->nallow) {
		/* the default: the listening address's own subnet */
		err = access_local_prefix(o->addr, o->addr_len, srv->allow);
		if (err) {
			upath_server_error(srv, "cannot find the subnet of the listening address (for the default allow list): %s",
				      strerror(-err));
			return err;
		}
		srv->nallow = 1;
	}
	if (srv->srq_depth) {
		err = upath_io_srq_create(srv->listen_id->verbs, srv->srq_depth,
					  &srv->srq, why, sizeof(why));
		if (err) {
			upath_server_error(srv, "%s", why);
			return err;
		}
	}
	if (rdma_listen(srv->listen_id, UPATH_SERVER_CONNS_MAX)) {
		upath_server_error(srv, "rdma_listen failed: %s",
			      strerror(errno));
		return -EIO;
	}
	return 0;
}

/* Report that the server listens, with the settings in force. */
static void upath_report_listening(struct upath_server *srv,
				   const struct kv_server_cfg *o)
{
	struct upath_server_info info = {
		.cfg = o,
		.dev = ibv_get_device_name(srv->listen_id->verbs->device),
		.poll = srv->poll, .allow = srv->allow, .nallow = srv->nallow,
		.conns_max = srv->conns_max,
		.peer_conns_max = srv->peer_conns_max, .keyed = srv->keyed,
		.srq = srv->srq_depth,
	};

	if (srv->ops->listening)
		srv->ops->listening(srv->ops->arg, &info);
}

/* The server's settings: the options given, the module's defaults. */
static void upath_server_init(struct upath_server *srv,
			      const struct upath_server_ops *ops,
			      const struct kv_server_cfg *o)
{
	memset(srv, 0, sizeof(*srv));
	srv->ops = ops;
	pthread_mutex_init(&srv->lock, NULL);
	srv->poll = upath_given(o, KVPERF_A_SERVER_POLL) ? o->poll :
							   KVPERF_POLL_BUSY;
	srv->nallow = o->nallow;
	memcpy(srv->allow, o->allow, sizeof(srv->allow));
	srv->keyed = upath_given(o, KVPERF_A_SERVER_KEY);
	memcpy(srv->key, o->key, sizeof(srv->key));
	srv->conns_max = upath_given(o, KVPERF_A_SERVER_CONNS_MAX) ?
			 o->conns_max : UPATH_SERVER_CONNS_MAX;
	/* one client may take them all, as a run of 16 queue pairs does */
	srv->peer_conns_max = upath_given(o, KVPERF_A_SERVER_PEER_CONNS_MAX) ?
			      o->peer_conns_max : srv->conns_max;
	srv->srq_depth = upath_given(o, KVPERF_A_SERVER_SRQ) ? o->srq : 0;
}

static bool upath_server_should_stop(struct upath_server *srv)
{
	return upath_signalled() ||
	       (srv->ops->should_stop && srv->ops->should_stop(srv->ops->arg));
}

/**
 * upath_serve() - serve kvperf clients from this process
 * @o: the listener's configuration
 * @ops: what it reports, and when it stops
 *
 * Serves kvperf clients, kernel or user path, until a signal caught by
 * upath_catch_signals() arrives or @ops->should_stop says so. Reports
 * when it listens (the settings in force: the poll mode, the allow list,
 * the limits, the shared receive queue's depth, whether a key is
 * checked, never the key), each connection
 * accepted or refused, and when it stops, its counters. The allow list
 * defaults to the listening address's subnet, as getifaddrs() has it.
 * There is no idle timeout on this path. Reports come from this thread
 * and the connections' threads, one at a time.
 *
 * Return: 0 once stopped, or a negative errno when the listener could not
 * start or its device went away, after @ops->error said why.
 */
int upath_serve(const struct kv_server_cfg *o,
		const struct upath_server_ops *ops)
{
	struct upath_server srv;
	struct pollfd pfd;
	int err;

	upath_server_init(&srv, ops, o);
	err = upath_server_listen(&srv, o);
	if (!err) {
		upath_report_listening(&srv, o);
		pfd.fd = srv.ch->fd;
		pfd.events = POLLIN;
		while (!err && !upath_server_should_stop(&srv)) {
			poll(&pfd, 1, 200);
			err = upath_server_events(&srv);
			upath_server_reap(&srv, false);
		}
	}
	__atomic_store_n(&srv.stopping, true, __ATOMIC_RELEASE);
	upath_server_reap(&srv, true);
	if (srv.listen_id && srv.listen_id->verbs && !err && ops->stopped)
		ops->stopped(ops->arg, &srv.count);
	/* every QP that took its receives is gone */
	upath_io_srq_free(srv.srq);
	if (srv.listen_id)
		rdma_destroy_id(srv.listen_id);
	if (srv.ch)
		rdma_destroy_event_channel(srv.ch);
	pthread_mutex_destroy(&srv.lock);
	explicit_bzero(srv.key, sizeof(srv.key));
	return err;
}
