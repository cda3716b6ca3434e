// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: in-kernel RDMA CM listeners. Each accepted connection gets its
 * resources in the CONNECT_REQUEST handler and a thread that answers the
 * client's latency loop until the client disconnects or the server is
 * stopped. A listener owns its connections; a connection owns its CM id,
 * QP, CQ, PD, MR and buffers and frees them itself.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/kvperf.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "compat.h"
#include "kvperf.h"
#include "lat.h"
#include "proto.h"
#include "server.h"

static LIST_HEAD(kvperf_servers);
static DEFINE_MUTEX(kvperf_servers_mutex);
static u32 kvperf_server_next_id = 1;
/* stops listeners whose device went away, outside the CM handler */
static struct workqueue_struct *kvperf_server_wq;

struct kvperf_server_reaper {
	struct work_struct work;
	u32 id;
};

/* Why a connect request was refused, in the reject's private data. */
enum {
	KVPERF_REJ_BAD_REQUEST = 1,
	KVPERF_REJ_TOO_MANY = 2,
	KVPERF_REJ_MEMORY = 3,
	KVPERF_REJ_RESOURCES = 4,
};

/**
 * kvperf_servers_lock() - take the server list lock
 */
void kvperf_servers_lock(void)
{
	mutex_lock(&kvperf_servers_mutex);
}

/**
 * kvperf_servers_unlock() - release the server list lock
 */
void kvperf_servers_unlock(void)
{
	mutex_unlock(&kvperf_servers_mutex);
}

/**
 * kvperf_server_list() - the servers
 *
 * Return: the list; walk it with the server list lock held.
 */
struct list_head *kvperf_server_list(void)
{
	lockdep_assert_held(&kvperf_servers_mutex);
	return &kvperf_servers;
}

/**
 * kvperf_server_count() - listeners that exist
 *
 * Return: how many.
 */
unsigned int kvperf_server_count(void)
{
	struct kvperf_server *srv;
	unsigned int n = 0;

	kvperf_servers_lock();
	list_for_each_entry(srv, &kvperf_servers, node)
		n++;
	kvperf_servers_unlock();
	return n;
}

/**
 * kvperf_server_find() - look a server up by id
 * @id: its id
 *
 * Return: the server or NULL; call with the server list lock held.
 */
struct kvperf_server *kvperf_server_find(u32 id)
{
	struct kvperf_server *srv;

	lockdep_assert_held(&kvperf_servers_mutex);
	list_for_each_entry(srv, &kvperf_servers, node)
		if (srv->id == id)
			return srv;
	return NULL;
}

static bool kvperf_sconn_should_stop(void *arg)
{
	struct kvperf_sconn *sc = arg;

	return READ_ONCE(sc->stop) || kthread_should_stop();
}

static bool kvperf_sconn_established(struct kvperf_conn *c, void *arg)
{
	struct kvperf_sconn *sc = arg;

	return READ_ONCE(sc->established);
}

static void kvperf_sconn_free_bw(struct kvperf_sconn *sc)
{
	if (!sc->bw)
		return;
	kvperf_bw_qp_destroy(sc->bw);
	kfree(sc->bw);
	sc->bw = NULL;
}

static int kvperf_sconn_thread(void *arg)
{
	struct kvperf_sconn *sc = arg;
	struct kvperf_conn *c = &sc->conn;
	int err;

	err = kvperf_conn_wait(c, kvperf_sconn_established, sc);
	if (!err)
		err = kvperf_conn_register(c);
	if (!err && sc->bw)
		err = kvperf_bw_serve(sc->bw, sc->verify, sc->bidir, &sc->served);
	else if (!err)
		err = kvperf_lat_serve(c, sc->op, sc->verify, &sc->served);
	pr_debug("server %u: connection ended: %s (%d)\n", sc->srv->id,
		 c->reason ?: "stopped", err);

	rdma_disconnect(c->cm_id);
	kvperf_conn_destroy(c);
	rdma_destroy_id(c->cm_id);
	kvperf_sconn_free_bw(sc);
	kvperf_unpin(sc->pinned);
	sc->pinned = 0;
	WRITE_ONCE(sc->finished, true);
	return 0;
}

static void kvperf_sconn_free(struct kvperf_sconn *sc)
{
	kthread_stop(sc->task);
	put_task_struct(sc->task);
	kfree(sc);
}

/**
 * kvperf_server_reap() - free the connections whose clients are gone
 * @srv: the server; its lock held
 */
void kvperf_server_reap(struct kvperf_server *srv)
{
	struct kvperf_sconn *sc, *tmp;

	lockdep_assert_held(&srv->lock);
	list_for_each_entry_safe(sc, tmp, &srv->conns, node) {
		if (!READ_ONCE(sc->finished))
			continue;
		list_del(&sc->node);
		srv->nconns--;
		kvperf_sconn_free(sc);
	}
}

static int kvperf_server_reject(struct rdma_cm_id *id, u8 why)
{
	rdma_reject(id, &why, sizeof(why), IB_CM_REJ_CONSUMER_DEFINED);
	/* non-zero: the CM destroys the new id */
	return -ECONNREFUSED;
}

/* Is the connect request one this server can serve? */
static bool kvperf_server_req_ok(const struct rdma_cm_event *ev)
{
	const struct kvperf_wire_req *req = ev->param.conn.private_data;
	u32 size_max, tx_depth, post_list, signal_every;

	if (ev->param.conn.private_data_len < sizeof(*req) ||
	    req->version != KVPERF_PROTO_VERSION ||
	    req->op > KVPERF_OP_READ || req->type > KVPERF_RUN_TYPE_BW ||
	    req->flags & ~(KVPERF_WIRE_VERIFY | KVPERF_WIRE_BIDIR |
			   KVPERF_WIRE_TIMED | KVPERF_WIRE_WARMUP_TIMED))
		return false;
	size_max = be32_to_cpu(req->size_max);
	if (!size_max || size_max > KVPERF_SIZE_MAX ||
	    be32_to_cpu(req->inline_size) > KVPERF_INLINE_MAX)
		return false;
	if (req->type != KVPERF_RUN_TYPE_BW)
		return true;
	tx_depth = be16_to_cpu(req->tx_depth);
	post_list = be16_to_cpu(req->post_list);
	signal_every = be16_to_cpu(req->signal_every);
	return tx_depth && tx_depth <= KVPERF_BW_TX_DEPTH_MAX &&
	       post_list && post_list <= min(tx_depth, KVPERF_BW_POST_LIST_MAX) &&
	       signal_every && signal_every <= tx_depth && req->count;
}

/* The connection's queues; bandwidth runs keep their traffic in flight. */
static void kvperf_server_conn_attr(const struct kvperf_wire_req *req,
				    struct kvperf_conn_attr *attr)
{
	u32 tx_depth = be16_to_cpu(req->tx_depth);

	attr->poll = KVPERF_POLL_SOFTIRQ;
	attr->op = req->op;
	attr->size_max = be32_to_cpu(req->size_max);
	attr->inline_size = be32_to_cpu(req->inline_size);
	attr->send_depth = KVPERF_SEND_DEPTH;
	attr->recv_depth = KVPERF_RECV_DEPTH;
	attr->node = NUMA_NO_NODE;
	if (req->type != KVPERF_RUN_TYPE_BW)
		return;
	attr->any_vector = true;
	if (req->flags & KVPERF_WIRE_BIDIR)
		attr->send_depth += tx_depth;
	if (req->op == KVPERF_OP_SEND)
		attr->recv_depth += tx_depth;
}

/* A bandwidth run's connection: what a bidir run sends back. */
static int kvperf_sconn_init_bw(struct kvperf_sconn *sc,
				const struct kvperf_wire_req *req)
{
	u32 count = be32_to_cpu(req->count), warmup = be32_to_cpu(req->warmup);
	struct kvperf_bw_params p = {
		.op = req->op,
		.tx_depth = be16_to_cpu(req->tx_depth),
		.post_list = be16_to_cpu(req->post_list),
		.signal_every = be16_to_cpu(req->signal_every),
	};
	int err;

	if (req->type != KVPERF_RUN_TYPE_BW)
		return 0;
	if (req->flags & KVPERF_WIRE_TIMED)
		p.duration_ns = (u64)count * NSEC_PER_MSEC;
	else
		p.iterations = count;
	if (req->flags & KVPERF_WIRE_WARMUP_TIMED)
		p.warmup_ns = (u64)warmup * NSEC_PER_MSEC;
	else
		p.warmup = warmup;
	sc->bw = kzalloc(sizeof(*sc->bw), GFP_KERNEL);
	if (!sc->bw)
		return -ENOMEM;
	kvperf_bw_waiter_init(&sc->waiter, NULL);
	err = kvperf_bw_qp_init(sc->bw, &sc->conn, &p, &sc->waiter);
	if (err) {
		kfree(sc->bw);
		sc->bw = NULL;
		return err;
	}
	sc->conn.count_data = req->op == KVPERF_OP_SEND;
	return 0;
}

static int kvperf_server_connect(struct kvperf_server *srv,
				 struct rdma_cm_id *id,
				 const struct rdma_cm_event *ev)
{
	const struct kvperf_wire_req *req = ev->param.conn.private_data;
	struct rdma_conn_param param = {};
	struct kvperf_wire_rep rep = {};
	struct kvperf_conn_attr attr = {};
	struct kvperf_sconn *sc;
	size_t pinned;
	int err;

	if (!kvperf_server_req_ok(ev))
		return kvperf_server_reject(id, KVPERF_REJ_BAD_REQUEST);
	kvperf_server_conn_attr(req, &attr);
	/* the client's threshold, as far as this device inlines */
	attr.inline_size = min(attr.inline_size, srv->max_inline);

	mutex_lock(&srv->lock);
	kvperf_server_reap(srv);
	if (srv->stopping || srv->nconns >= KVPERF_SERVER_CONNS_MAX) {
		mutex_unlock(&srv->lock);
		return kvperf_server_reject(id, KVPERF_REJ_TOO_MANY);
	}
	pinned = kvperf_conn_pinned(attr.size_max);
	if (!kvperf_pin(pinned)) {
		mutex_unlock(&srv->lock);
		return kvperf_server_reject(id, KVPERF_REJ_MEMORY);
	}

	sc = kzalloc(sizeof(*sc), GFP_KERNEL);
	if (!sc)
		goto err_unpin;
	sc->srv = srv;
	sc->op = req->op;
	sc->type = req->type;
	sc->verify = req->flags & KVPERF_WIRE_VERIFY;
	sc->bidir = req->flags & KVPERF_WIRE_BIDIR;
	sc->pinned = pinned;
	atomic64_set(&sc->served, 0);
	memcpy(&sc->peer, &id->route.addr.dst_addr, sizeof(sc->peer));
	kvperf_conn_init(&sc->conn, MAX_JIFFY_OFFSET, kvperf_sconn_should_stop,
			 sc);
	if (kvperf_sconn_init_bw(sc, req))
		goto err_free;
	id->context = sc;

	err = kvperf_conn_create(&sc->conn, id, &attr);
	if (err)
		goto err_conn;
	sc->conn.remote_rkey = be32_to_cpu(req->rkey);
	sc->conn.remote_addr = be64_to_cpu(req->addr);
	if (kvperf_conn_post_recvs(&sc->conn))
		goto err_conn;

	sc->task = kthread_create(kvperf_sconn_thread, sc, "kvperf-srv%u",
				  srv->id);
	if (IS_ERR(sc->task))
		goto err_conn;
	get_task_struct(sc->task);
	sc->waiter.task = sc->task;

	rep.version = KVPERF_PROTO_VERSION;
	rep.rkey = cpu_to_be32(sc->conn.mr->rkey);
	rep.addr = cpu_to_be64(sc->conn.mr->iova);
	param.private_data = &rep;
	param.private_data_len = sizeof(rep);
	/* the event's values are the client's, seen from this side */
	param.responder_resources = min_t(u32,
					  ev->param.conn.responder_resources,
					  id->device->attrs.max_qp_rd_atom);
	param.initiator_depth = min_t(u32, ev->param.conn.initiator_depth,
				      id->device->attrs.max_qp_init_rd_atom);
	/* bidir sends wait for the client's receives as long as it takes */
	param.rnr_retry_count = 7;
	err = rdma_set_min_rnr_timer(id, KVPERF_MIN_RNR_TIMER);
	if (!err)
		err = rdma_accept(id, &param);
	if (err) {
		kthread_stop(sc->task);
		put_task_struct(sc->task);
		goto err_conn;
	}

	list_add_tail(&sc->node, &srv->conns);
	srv->nconns++;
	wake_up_process(sc->task);
	mutex_unlock(&srv->lock);
	return 0;

err_conn:
	kvperf_conn_destroy(&sc->conn);
	kvperf_sconn_free_bw(sc);
err_free:
	id->context = srv;
	kfree(sc);
err_unpin:
	kvperf_unpin(pinned);
	mutex_unlock(&srv->lock);
	return kvperf_server_reject(id, KVPERF_REJ_RESOURCES);
}

static void kvperf_server_reaper_fn(struct work_struct *work)
{
	struct kvperf_server_reaper *r =
		container_of(work, struct kvperf_server_reaper, work);

	/* -ENOENT when it was stopped meanwhile: nothing left to do */
	kvperf_server_stop(r->id);
	kfree(r);
}

/*
 * The server cannot be stopped from its own CM handler (stopping waits
 * for its connections' handlers), so a work item does it.
 */
static void kvperf_server_reap_later(u32 id)
{
	struct kvperf_server_reaper *r = kmalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return;
	INIT_WORK(&r->work, kvperf_server_reaper_fn);
	r->id = id;
	queue_work(kvperf_server_wq, &r->work);
}

static int kvperf_server_listener_event(struct kvperf_server *srv,
					struct rdma_cm_id *id,
					const struct rdma_cm_event *ev)
{
	int destroy = 0;

	if (ev->event != RDMA_CM_EVENT_DEVICE_REMOVAL)
		return 0;
	/* the device goes: let the CM destroy the listening id now */
	mutex_lock(&srv->lock);
	if (srv->listen_id == id) {
		srv->listen_id = NULL;
		destroy = 1;
	}
	mutex_unlock(&srv->lock);
	if (destroy)
		kvperf_server_reap_later(srv->id);
	pr_info("server %u: its device was removed; stopping it\n", srv->id);
	return destroy;
}

static int kvperf_server_cm_handler(struct rdma_cm_id *id,
				    struct rdma_cm_event *ev)
{
	struct kvperf_cm_ctx *ctx = id->context;
	struct kvperf_sconn *sc;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return kvperf_server_connect(id->context, id, ev);
	if (ctx->listener)
		return kvperf_server_listener_event(id->context, id, ev);

	sc = container_of(ctx, struct kvperf_sconn, ctx);
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		WRITE_ONCE(sc->established, true);
		wake_up(sc->conn.notify);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		kvperf_conn_fail(&sc->conn, -ECONNRESET,
				 "the client disconnected");
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		kvperf_conn_fail(&sc->conn, -ENODEV,
				 "the RDMA device was removed");
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		kvperf_conn_fail(&sc->conn, -ECONNABORTED,
				 "the connection failed");
		break;
	default:
		break;
	}
	return 0;
}

/**
 * kvperf_server_start() - start a listener
 * @addr: address to listen on (with port)
 * @dev: device the address must belong to, or NULL
 * @extack: for the reason of a refusal
 * @id: receives the server's id
 *
 * Return: 0 or a negative errno, with an extack message.
 */
int kvperf_server_start(const struct sockaddr_storage *addr, const char *dev,
			struct netlink_ext_ack *extack, u32 *id)
{
	struct kvperf_device *kdev;
	struct kvperf_server *srv;
	struct rdma_cm_id *cm_id;
	unsigned int n = 0;
	int err;

	kvperf_servers_lock();
	list_for_each_entry(srv, &kvperf_servers, node)
		n++;
	if (n >= KVPERF_SERVERS_MAX) {
		kvperf_servers_unlock();
		NL_SET_ERR_MSG_MOD(extack, "too many listeners (at most 8)");
		return -ENOSPC;
	}

	srv = kzalloc(sizeof(*srv), GFP_KERNEL);
	if (!srv) {
		kvperf_servers_unlock();
		return -ENOMEM;
	}
	srv->ctx.listener = true;
	mutex_init(&srv->lock);
	INIT_LIST_HEAD(&srv->conns);
	memcpy(&srv->addr, addr, sizeof(*addr));

	cm_id = rdma_create_id(&init_net, kvperf_server_cm_handler, srv,
			       RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(cm_id)) {
		err = PTR_ERR(cm_id);
		NL_SET_ERR_MSG_MOD(extack, "cannot create an RDMA CM id");
		goto err_free;
	}

	err = rdma_bind_addr(cm_id, (struct sockaddr *)&srv->addr);
	if (err) {
		if (err == -EADDRINUSE)
			NL_SET_ERR_MSG_MOD(extack,
					   "address and port already in use");
		else
			NL_SET_ERR_MSG_MOD(extack,
					   "cannot bind: no RDMA device has that address");
		goto err_id;
	}
	if (!cm_id->device) {
		err = -EADDRNOTAVAIL;
		NL_SET_ERR_MSG_MOD(extack,
				   "no RDMA device has that address (a wildcard address is not supported)");
		goto err_id;
	}
	strscpy(srv->dev, dev_name(&cm_id->device->dev), sizeof(srv->dev));
	if (rdma_protocol_iwarp(cm_id->device, cm_id->port_num)) {
		err = -EOPNOTSUPP;
		KVPERF_SET_ERR_MSG_FMT(extack, "iWARP devices are not supported",
				       "%s is an iWARP device: not supported",
				       srv->dev);
		goto err_id;
	}
	if (dev && dev[0] && strcmp(dev, srv->dev)) {
		bool known;

		kvperf_device_lock();
		known = kvperf_device_find(dev);
		kvperf_device_unlock();
		if (!known) {
			err = -ENODEV;
			KVPERF_SET_ERR_MSG_FMT(extack,
					       "no RDMA device with that name",
					       "no RDMA device named %s", dev);
			goto err_id;
		}
		err = -EINVAL;
		KVPERF_SET_ERR_MSG_FMT(extack,
				       "the address belongs to another device",
				       "the address belongs to %s, not %s",
				       srv->dev, dev);
		goto err_id;
	}
	kvperf_device_lock();
	kdev = kvperf_device_find(srv->dev);
	srv->max_inline = kdev ? kvperf_device_max_inline(kdev) : 0;
	kvperf_device_unlock();

	err = rdma_listen(cm_id, KVPERF_SERVER_CONNS_MAX);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "rdma_listen failed");
		goto err_id;
	}

	srv->listen_id = cm_id;
	srv->id = kvperf_server_next_id++;
	list_add_tail(&srv->node, &kvperf_servers);
	*id = srv->id;
	kvperf_servers_unlock();
	return 0;

err_id:
	rdma_destroy_id(cm_id);
err_free:
	kfree(srv);
	kvperf_servers_unlock();
	return err;
}

/* Stop a server taken off the list: no lock held. */
static void kvperf_server_destroy(struct kvperf_server *srv)
{
	struct kvperf_sconn *sc, *tmp;
	struct rdma_cm_id *listen_id;
	LIST_HEAD(conns);

	mutex_lock(&srv->lock);
	srv->stopping = true;
	listen_id = srv->listen_id;
	srv->listen_id = NULL;
	mutex_unlock(&srv->lock);

	/* after this no connect request handler runs any more */
	if (listen_id)
		rdma_destroy_id(listen_id);

	mutex_lock(&srv->lock);
	list_splice_init(&srv->conns, &conns);
	srv->nconns = 0;
	mutex_unlock(&srv->lock);

	list_for_each_entry_safe(sc, tmp, &conns, node) {
		WRITE_ONCE(sc->stop, true);
		wake_up(sc->conn.notify);
		list_del(&sc->node);
		kvperf_sconn_free(sc);
	}
	kfree(srv);
}

/**
 * kvperf_server_stop() - stop a listener and close its connections
 * @id: the server's id
 *
 * Return: 0, or -ENOENT when there is no such server.
 */
int kvperf_server_stop(u32 id)
{
	struct kvperf_server *srv;

	kvperf_servers_lock();
	srv = kvperf_server_find(id);
	if (srv)
		list_del(&srv->node);
	kvperf_servers_unlock();
	if (!srv)
		return -ENOENT;
	kvperf_server_destroy(srv);
	return 0;
}

/**
 * kvperf_servers_init() - prepare for listeners, at module init
 *
 * Return: 0 or -ENOMEM.
 */
int kvperf_servers_init(void)
{
	kvperf_server_wq = alloc_workqueue("kvperf_server", 0, 0);
	return kvperf_server_wq ? 0 : -ENOMEM;
}

/**
 * kvperf_servers_exit() - stop every server, at module exit
 */
void kvperf_servers_exit(void)
{
	struct kvperf_server *srv, *tmp;
	LIST_HEAD(servers);

	kvperf_servers_lock();
	list_splice_init(&kvperf_servers, &servers);
	kvperf_servers_unlock();
	list_for_each_entry_safe(srv, tmp, &servers, node)
		kvperf_server_destroy(srv);
	/* no listener is left to queue work; wait for what was queued */
	destroy_workqueue(kvperf_server_wq);
}
