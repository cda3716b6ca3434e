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
#include "faults.h"
#include "kvperf.h"
#include "lat.h"
#include "proto.h"
#include "run_events.h"
#include "server.h"

static LIST_HEAD(kvperf_servers);
static DEFINE_MUTEX(kvperf_servers_mutex);
static u32 kvperf_server_next_id = 1;
/* stops listeners whose device went away, outside the CM handler */
static struct workqueue_struct *kvperf_server_wq;

/*
 * Stops a listener whose device went away. It holds the id only: the
 * listener may be stopped by its owner meanwhile, and then it finds none.
 */
struct kvperf_server_remove {
	struct work_struct work;
	u32 id;
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

static unsigned int kvperf_servers_listed(void)
{
	struct kvperf_server *srv;
	unsigned int n = 0;

	lockdep_assert_held(&kvperf_servers_mutex);
	list_for_each_entry(srv, &kvperf_servers, node)
		n++;
	return n;
}

/**
 * kvperf_server_count() - listeners that exist
 *
 * Return: how many.
 */
unsigned int kvperf_server_count(void)
{
	unsigned int n;

	kvperf_servers_lock();
	n = kvperf_servers_listed();
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

/* Every idle timeout / 4, make sure a silent peer still acknowledges. */
static void kvperf_sconn_keepalive(struct work_struct *work)
{
	struct kvperf_sconn *sc = container_of(to_delayed_work(work),
					       struct kvperf_sconn, keepalive);
	struct kvperf_conn *c = &sc->conn;

	if (READ_ONCE(c->error) || READ_ONCE(sc->stop))
		return;
	if (kvperf_conn_probe(c))
		kvperf_conn_fail(c, -EIO, "cannot post a keep-alive probe");
	else
		queue_delayed_work(system_wq, &sc->keepalive,
				   msecs_to_jiffies(sc->srv->opts.idle_ms / 4));
}

/* Why the connection ended, in the server's counters and log. */
static void kvperf_sconn_count_end(struct kvperf_sconn *sc, int err)
{
	struct kvperf_server *srv = sc->srv;
	struct kvperf_conn *c = &sc->conn;

	if (c->peer_gone) {
		atomic64_inc(&srv->count.closed_dead);
		pr_info_ratelimited("server %u: closed the connection of %pISpc: it stopped acknowledging keep-alive probes\n",
				    srv->id, &sc->peer);
	} else if (err == -ETIMEDOUT) {
		atomic64_inc(&srv->count.closed_idle);
		pr_info_ratelimited("server %u: closed the connection of %pISpc: silent for more than %u ms\n",
				    srv->id, &sc->peer, srv->opts.idle_ms);
	}
}

/* Give back the connection's credits and its reference to the queue. */
static void kvperf_sconn_put_srq(struct kvperf_sconn *sc)
{
	if (!sc->srq)
		return;
	kvperf_io_srq_ungrant(sc->srq, sc->credits);
	kvperf_io_srq_put(sc->srq);
	sc->srq = NULL;
}

/* Free what the connection holds but its list entry; once. */
static void kvperf_sconn_teardown(struct kvperf_sconn *sc)
{
	struct kvperf_server *srv = sc->srv;
	struct kvperf_conn *c = &sc->conn;
	struct kvperf_footprint f = sc->footprint;

	/* no probe is posted once this returns */
	WRITE_ONCE(sc->stop, true);
	cancel_delayed_work_sync(&sc->keepalive);
	/*
	 * Accepted but not established yet (the connection failed at once):
	 * a disconnect now sends no DREQ, and the client, established on
	 * its side, ignores the reject that destroying the id sends. Give
	 * the client's RTU a moment to arrive, so that it is told. The CM
	 * handler wakes c->notify (a bandwidth connection's worker queue,
	 * not c->wq): wait there, or the wait always runs to its end. A
	 * server being stopped does not wait.
	 */
	wait_event_timeout(*c->notify, READ_ONCE(sc->established) ||
			   READ_ONCE(sc->cm_ended) ||
			   READ_ONCE(srv->stopping),
			   msecs_to_jiffies(KVPERF_SERVER_RTU_WAIT_MS));
	rdma_disconnect(c->cm_id);
	kvperf_conn_destroy(c);
	/* before the id: a device's removal waits for the ids, not for this */
	kvperf_io_target_free(sc->io);
	sc->io = NULL;
	kvperf_sconn_put_srq(sc);
	rdma_destroy_id(c->cm_id);
	kvperf_sconn_free_bw(sc);
	kvperf_unpin(KVPERF_PIN_SERVERS, &f);
	atomic64_sub(f.buf_bytes + f.queue_bytes, &srv->pinned);
	WRITE_ONCE(sc->finished, true);
}

static int kvperf_sconn_thread(void *arg)
{
	struct kvperf_sconn *sc = arg;
	struct kvperf_server *srv = sc->srv;
	struct kvperf_conn *c = &sc->conn;
	int err;

	err = kvperf_conn_wait(c, kvperf_sconn_established, sc);
	if (!err) {
		sc->announced = true;
		kvperf_conn_publish_accepted(sc);
		err = kvperf_conn_register(c);
	}
	if (!err)
		queue_delayed_work(system_wq, &sc->keepalive,
				   msecs_to_jiffies(srv->opts.idle_ms / 4));
	if (!err && sc->io)
		err = kvperf_io_target_serve(sc->io, &sc->served);
	else if (!err && sc->bw)
		err = kvperf_bw_serve(sc->bw, sc->verify, sc->bidir, &sc->served);
	else if (!err)
		err = kvperf_lat_serve(c, sc->op, sc->verify, &sc->served);
	pr_debug("server %u: connection ended: %s (%d)\n", srv->id,
		 c->reason ?: "stopped", err);
	kvperf_sconn_count_end(sc, err);
	kvperf_sconn_teardown(sc);
	if (sc->announced)
		kvperf_conn_publish_closed(sc);
	/* the reaper frees what is left; stopping the server waits for it */
	queue_work(kvperf_server_wq, &srv->reap_work);
	return 0;
}

static void kvperf_sconn_free(struct kvperf_sconn *sc)
{
	/*
	 * A thread stopped before it ever ran (the server stopped right
	 * after accepting) never reached its teardown: do it here, or the
	 * CM id lives on with its context freed.
	 */
	if (kthread_stop(sc->task) == -EINTR)
		kvperf_sconn_teardown(sc);
	put_task_struct(sc->task);
	kfree(sc);
}

/* Free the connections whose threads have ended; the server's lock held. */
static void kvperf_server_reap(struct kvperf_server *srv)
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

static void kvperf_server_reap_fn(struct work_struct *work)
{
	struct kvperf_server *srv = container_of(work, struct kvperf_server,
						 reap_work);

	mutex_lock(&srv->lock);
	kvperf_server_reap(srv);
	mutex_unlock(&srv->lock);
}

static int kvperf_server_reject(struct kvperf_server *srv,
				struct rdma_cm_id *id, u8 why,
				atomic64_t *counter)
{
	atomic64_inc(counter);
	pr_info_ratelimited("server %u: refused %pISc: %s\n", srv->id,
			    &id->route.addr.dst_addr,
			    kvperf_wire_reject_text(why));
	rdma_reject(id, &why, sizeof(why), IB_CM_REJ_CONSUMER_DEFINED);
	/* non-zero: the CM destroys the new id */
	return -ECONNREFUSED;
}

/*
 * An I/O run's request: a read or write of whole 512-byte units (a mixed
 * one says read), a queue depth, segment count and in-capsule data size
 * within the spec's and the wire's bounds, in-capsule data only for runs
 * that write.
 */
static bool kvperf_server_io_req_ok(const struct kvperf_wire_req *req)
{
	u32 bs = be32_to_cpu(req->size_max);
	u32 qd = be16_to_cpu(req->tx_depth);
	u32 segs = be16_to_cpu(req->post_list);

	return req->op != KVPERF_OP_SEND && req->op <= KVPERF_OP_READ &&
	       !(req->flags & ~(KVPERF_WIRE_VERIFY | KVPERF_WIRE_IO_INV_LOCAL |
				KVPERF_WIRE_IO_MIXED)) &&
	       (!(req->flags & KVPERF_WIRE_IO_MIXED) ||
		req->op == KVPERF_OP_READ) &&
	       bs >= KVPERF_IO_BS_MIN && bs <= KVPERF_IO_BS_MAX &&
	       !(bs % KVPERF_IO_BS_MIN) && qd && qd <= KVPERF_IO_QD_MAX &&
	       segs && segs <= KVPERF_WIRE_IO_SEGS_MAX &&
	       be32_to_cpu(req->inline_size) <= KVPERF_IO_INLINE_DATA_MAX &&
	       (!req->inline_size || req->op == KVPERF_OP_WRITE ||
		req->flags & KVPERF_WIRE_IO_MIXED);
}

/* An I/O run's request, as the target serves it. */
static void kvperf_server_io_params(const struct kvperf_wire_req *req,
				    struct kvperf_io_target_params *p)
{
	*p = (struct kvperf_io_target_params) {
		.op = req->op,
		.mixed = req->flags & KVPERF_WIRE_IO_MIXED,
		.bs = be32_to_cpu(req->size_max),
		.credits = be16_to_cpu(req->tx_depth),
		.segs = be16_to_cpu(req->post_list),
		.verify = req->flags & KVPERF_WIRE_VERIFY,
		.inv_local = req->flags & KVPERF_WIRE_IO_INV_LOCAL,
		.inline_data = be32_to_cpu(req->inline_size),
	};
}

/*
 * A bandwidth run's phases within the spec's ranges, as the client's own
 * netlink policy has them: a timed phase lasts at most an hour (the
 * warm-up ten minutes), a counted one at most as many messages as a run
 * may ask for. The server's silence allowance follows from these.
 */
static bool kvperf_server_phases_ok(const struct kvperf_wire_req *req)
{
	u32 count = be32_to_cpu(req->count), warmup = be32_to_cpu(req->warmup);

	if (!count || count > (req->flags & KVPERF_WIRE_TIMED ?
			       KVPERF_DURATION_MS_MAX : KVPERF_ITERATIONS_MAX))
		return false;
	return warmup <= (req->flags & KVPERF_WIRE_WARMUP_TIMED ?
			  KVPERF_WARMUP_MS_MAX : KVPERF_WARMUP_MAX);
}

/* Is the connect request one this server can serve? */
static bool kvperf_server_req_ok(const struct rdma_cm_event *ev)
{
	const struct kvperf_wire_req *req = ev->param.conn.private_data;
	u32 size_max, tx_depth, post_list, signal_every;

	if (ev->param.conn.private_data_len < sizeof(*req) ||
	    req->version != KVPERF_PROTO_VERSION)
		return false;
	if (req->type == KVPERF_RUN_TYPE_IO)
		return kvperf_server_io_req_ok(req);
	if (req->op > KVPERF_OP_READ || req->type > KVPERF_RUN_TYPE_BW ||
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
	return tx_depth && tx_depth <= KVPERF_TX_DEPTH_MAX &&
	       post_list && post_list <= min(tx_depth, KVPERF_POST_LIST_MAX) &&
	       signal_every && signal_every <= tx_depth &&
	       kvperf_server_phases_ok(req);
}

/*
 * The connection's queues; bandwidth runs keep their traffic in flight.
 * The server polls as its owner chose, whatever the client does.
 */
static void kvperf_server_conn_attr(const struct kvperf_server *srv,
				    const struct kvperf_wire_req *req,
				    const struct kvperf_io_target_params *iop,
				    struct kvperf_conn_attr *attr)
{
	u32 tx_depth = be16_to_cpu(req->tx_depth);

	attr->poll = srv->opts.poll;
	attr->node = NUMA_NO_NODE;
	if (req->type == KVPERF_RUN_TYPE_IO) {
		kvperf_io_target_conn_attr(iop, attr);
		return;
	}
	attr->op = req->op;
	attr->size_max = be32_to_cpu(req->size_max);
	/* the client's threshold, as far as this device inlines */
	attr->inline_size = min(be32_to_cpu(req->inline_size),
				srv->max_inline);
	/* and one slot for a keep-alive probe */
	attr->send_depth = KVPERF_SEND_DEPTH + 1;
	attr->recv_depth = KVPERF_RECV_DEPTH;
	attr->node = NUMA_NO_NODE;
	if (req->type != KVPERF_RUN_TYPE_BW)
		return;
	attr->any_vector = true;
	if (req->flags & KVPERF_WIRE_BIDIR)
		attr->send_depth += tx_depth;
	if (req->op == KVPERF_OP_SEND) {
		attr->recv_depth += tx_depth;
		attr->recv_slack = KVPERF_RECV_SLACK;
	}
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

/* Credits granted but not the connection's yet: give them back. */
static void kvperf_server_put_grant(struct kvperf_io_target_params *iop)
{
	if (!iop->srq)
		return;
	kvperf_io_srq_ungrant(iop->srq, iop->credits);
	kvperf_io_srq_put(iop->srq);
	iop->srq = NULL;
}

/* Live or being set up, from the same host as @peer; the server's lock held. */
static u32 kvperf_server_peer_conns(struct kvperf_server *srv,
				    const struct sockaddr *peer)
{
	struct kvperf_sconn *sc;
	u32 n = 0;

	lockdep_assert_held(&srv->lock);
	list_for_each_entry(sc, &srv->conns, node)
		if (!READ_ONCE(sc->finished) &&
		    kvperf_acl_same_host((struct sockaddr *)&sc->peer, peer))
			n++;
	list_for_each_entry(sc, &srv->pending, node)
		if (kvperf_acl_same_host((struct sockaddr *)&sc->peer, peer))
			n++;
	return n;
}

/*
 * Reserve a place for @sc, credits of the shared receive queue and the
 * memory it will pin; the listener's lock is held for this only, never
 * across an allocation. @sc waits on the pending list, counted against
 * conns_max and peer_conns_max, until kvperf_server_settle().
 *
 * Return: 0, or the reason to refuse the peer with @counter set.
 */
static u8 kvperf_server_reserve(struct kvperf_server *srv,
				struct kvperf_sconn *sc,
				const struct kvperf_wire_req *req,
				struct kvperf_io_target_params *iop,
				struct kvperf_conn_attr *attr,
				atomic64_t **counter)
{
	struct kvperf_server_counters *count = &srv->count;
	u8 why = 0;

	*counter = &count->refused_busy;
	mutex_lock(&srv->lock);
	kvperf_server_reap(srv);
	/* not live yet: its start may still fail */
	if (!srv->live || srv->stopping ||
	    srv->nconns >= srv->opts.conns_max) {
		why = KVPERF_WIRE_REJ_TOO_MANY;
		goto out;
	}
	if (kvperf_server_peer_conns(srv, (struct sockaddr *)&sc->peer) >=
	    srv->opts.peer_conns_max) {
		why = KVPERF_WIRE_REJ_PEER_BUSY;
		goto out;
	}
	/* the shared queue's receives not granted yet, as many as asked */
	if (req->type == KVPERF_RUN_TYPE_IO && srv->opts.srq) {
		iop->credits = srv->srq ?
			       kvperf_io_srq_grant(srv->srq, iop->credits) : 0;
		if (!iop->credits) {
			why = KVPERF_WIRE_REJ_SRQ_FULL;
			goto out;
		}
		iop->srq = kvperf_io_srq_get(srv->srq);
	}
	kvperf_server_conn_attr(srv, req, iop, attr);
	kvperf_conn_footprint(attr, &sc->footprint);
	if (req->type == KVPERF_RUN_TYPE_IO)
		sc->footprint.buf_bytes += kvperf_io_target_pinned(iop);
	if (!kvperf_pin(KVPERF_PIN_SERVERS, &sc->footprint)) {
		kvperf_server_put_grant(iop);
		*counter = &count->refused_memory;
		why = KVPERF_WIRE_REJ_MEMORY;
		goto out;
	}
	list_add_tail(&sc->node, &srv->pending);
	srv->nconns++;
	WRITE_ONCE(srv->npending, srv->npending + 1);
out:
	mutex_unlock(&srv->lock);
	return why;
}

/*
 * The reserved connection joins the listener's list, its thread started,
 * or (@ok false) gives its place back. A stop waits for this.
 */
static void kvperf_server_settle(struct kvperf_server *srv,
				 struct kvperf_sconn *sc, bool ok)
{
	mutex_lock(&srv->lock);
	list_del(&sc->node);
	WRITE_ONCE(srv->npending, srv->npending - 1);
	if (ok) {
		list_add_tail(&sc->node, &srv->conns);
		atomic64_add(sc->footprint.buf_bytes + sc->footprint.queue_bytes,
			     &srv->pinned);
		atomic64_inc(&srv->count.accepted);
		wake_up_process(sc->task);
	} else {
		srv->nconns--;
	}
	mutex_unlock(&srv->lock);
	wake_up_all(&srv->settled);
}

/*
 * The slow part, under no lock of the listener: the connection's queues
 * and buffers (tens of MiB at most), its thread and the accept.
 */
static int kvperf_sconn_setup(struct kvperf_sconn *sc, struct rdma_cm_id *id,
			      const struct rdma_cm_event *ev,
			      struct kvperf_io_target_params *iop,
			      const struct kvperf_conn_attr *attr)
{
	const struct kvperf_wire_req *req = ev->param.conn.private_data;
	struct kvperf_server *srv = sc->srv;
	struct rdma_conn_param param = {};
	struct kvperf_wire_rep rep = {};
	int err;

	lockdep_assert_not_held(&srv->lock);
	kvperf_fault_slow_accept();
	kvperf_conn_init(&sc->conn, msecs_to_jiffies(srv->opts.idle_ms),
			 kvperf_sconn_should_stop, sc);
	err = kvperf_sconn_init_bw(sc, req);
	if (err)
		return err;
	id->context = sc;

	err = kvperf_conn_create(&sc->conn, id, attr);
	if (err)
		goto err_conn;
	sc->conn.remote_rkey = be32_to_cpu(req->rkey);
	sc->conn.remote_addr = be64_to_cpu(req->addr);
	err = kvperf_conn_post_recvs(&sc->conn);
	if (err)
		goto err_conn;
	if (req->type == KVPERF_RUN_TYPE_IO) {
		sc->io = kvperf_io_target_create(&sc->conn, iop);
		if (IS_ERR(sc->io)) {
			err = PTR_ERR(sc->io);
			sc->io = NULL;
			goto err_conn;
		}
		err = kvperf_io_target_start(sc->io);
		if (err)
			goto err_conn;
		rep.credits = cpu_to_be16(iop->credits);
	}

	sc->task = kthread_create(kvperf_sconn_thread, sc, "kvperf-srv%u",
				  srv->id);
	if (IS_ERR(sc->task)) {
		err = PTR_ERR(sc->task);
		goto err_conn;
	}
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
	/* a vanished client fails a keep-alive probe within seconds */
	if (!err)
		err = rdma_set_ack_timeout(id, KVPERF_SERVER_ACK_TIMEOUT);
	if (!err)
		err = rdma_accept(id, &param);
	if (!err) {
		/* from here on the connection gives its credits back */
		sc->srq = iop->srq;
		sc->credits = iop->credits;
		iop->srq = NULL;
		return 0;
	}
	kthread_stop(sc->task);
	put_task_struct(sc->task);

err_conn:
	kvperf_conn_destroy(&sc->conn);
	kvperf_sconn_free_bw(sc);
	kvperf_io_target_free(sc->io);
	sc->io = NULL;
	return err;
}

static int kvperf_server_connect(struct kvperf_server *srv,
				 struct rdma_cm_id *id,
				 const struct rdma_cm_event *ev)
{
	const struct kvperf_wire_req *req = ev->param.conn.private_data;
	struct sockaddr *peer = (struct sockaddr *)&id->route.addr.dst_addr;
	struct kvperf_server_counters *count = &srv->count;
	struct kvperf_conn_attr attr = {};
	struct kvperf_io_target_params iop = {};
	struct kvperf_sconn *sc;
	atomic64_t *counter;
	u8 why;

	/* who may ask comes first: a stranger learns nothing more */
	if (!kvperf_acl_allows(&srv->opts, peer))
		return kvperf_server_reject(srv, id, KVPERF_WIRE_REJ_ADDRESS,
					    &count->refused_address);
	if (ev->param.conn.private_data_len < sizeof(*req) ||
	    req->version != KVPERF_PROTO_VERSION)
		return kvperf_server_reject(srv, id,
					    KVPERF_WIRE_REJ_BAD_REQUEST,
					    &count->refused_request);
	if (!kvperf_acl_key_ok(&srv->opts, req->key))
		return kvperf_server_reject(srv, id, KVPERF_WIRE_REJ_KEY,
					    &count->refused_key);
	if (!kvperf_server_req_ok(ev))
		return kvperf_server_reject(srv, id,
					    KVPERF_WIRE_REJ_BAD_REQUEST,
					    &count->refused_request);
	/* its owner may keep the listener from sending traffic back */
	if (req->type == KVPERF_RUN_TYPE_BW &&
	    req->flags & KVPERF_WIRE_BIDIR && !srv->opts.bidir)
		return kvperf_server_reject(srv, id, KVPERF_WIRE_REJ_BIDIR,
					    &count->refused_request);
	if (req->type == KVPERF_RUN_TYPE_IO) {
		kvperf_server_io_params(req, &iop);
		/* a shared queue's receives have room for a capsule only */
		if (srv->opts.srq && iop.inline_data)
			return kvperf_server_reject(srv, id,
						    KVPERF_WIRE_REJ_SRQ_INLINE,
						    &count->refused_request);
	}

	sc = kzalloc(sizeof(*sc), GFP_KERNEL);
	if (!sc)
		return kvperf_server_reject(srv, id, KVPERF_WIRE_REJ_RESOURCES,
					    &count->refused_memory);
	sc->srv = srv;
	sc->op = req->op;
	sc->type = req->type;
	sc->verify = req->flags & KVPERF_WIRE_VERIFY;
	sc->bidir = req->flags & KVPERF_WIRE_BIDIR;
	atomic64_set(&sc->served, 0);
	INIT_DELAYED_WORK(&sc->keepalive, kvperf_sconn_keepalive);
	memcpy(&sc->peer, peer, sizeof(sc->peer));

	why = kvperf_server_reserve(srv, sc, req, &iop, &attr, &counter);
	if (why) {
		kfree(sc);
		return kvperf_server_reject(srv, id, why, counter);
	}
	if (!kvperf_sconn_setup(sc, id, ev, &iop, &attr)) {
		kvperf_server_settle(srv, sc, true);
		return 0;
	}
	kvperf_server_settle(srv, sc, false);
	id->context = srv;
	kvperf_server_put_grant(&iop);
	kvperf_unpin(KVPERF_PIN_SERVERS, &sc->footprint);
	kfree(sc);
	return kvperf_server_reject(srv, id, KVPERF_WIRE_REJ_RESOURCES,
				    &count->refused_memory);
}

static void kvperf_server_remove_fn(struct work_struct *work)
{
	struct kvperf_server_remove *r =
		container_of(work, struct kvperf_server_remove, work);

	/* -ENOENT when it was stopped meanwhile: nothing left to do */
	kvperf_server_stop(r->id);
	kfree(r);
}

/* The listener's reference to its shared receive queue, taken off it. */
static void kvperf_server_put_srq(struct kvperf_server *srv,
				  struct kvperf_io_srq *srq)
{
	if (!srq)
		return;
	kvperf_io_srq_put(srq);
	kvperf_unpin(KVPERF_PIN_SERVERS, &srv->srq_footprint);
	atomic64_sub(srv->srq_footprint.buf_bytes +
		     srv->srq_footprint.queue_bytes, &srv->pinned);
}

/* With srq N: the shared receive queue, within the device's limits. */
static int kvperf_server_create_srq(struct kvperf_server *srv,
				    struct ib_device *ibdev,
				    struct netlink_ext_ack *extack)
{
	struct kvperf_footprint *f = &srv->srq_footprint;
	const char *why = NULL;
	u32 depth = srv->opts.srq;
	struct kvperf_io_srq *q;

	if (!depth)
		return 0;
	if (!ibdev->attrs.max_srq || !ibdev->attrs.max_srq_wr) {
		KVPERF_SET_ERR_MSG_FMT(extack,
				       "srq: the device has no shared receive queues",
				       "srq: %s has no shared receive queues",
				       srv->dev);
		return -EOPNOTSUPP;
	}
	if (depth > ibdev->attrs.max_srq_wr) {
		KVPERF_SET_ERR_MSG_FMT(extack,
				       "srq: more receives than the device's max_srq_wr",
				       "srq %u: %s takes at most %d receives per shared receive queue (max_srq_wr)",
				       depth, srv->dev,
				       ibdev->attrs.max_srq_wr);
		return -EINVAL;
	}
	kvperf_io_srq_footprint(depth, f);
	if (!kvperf_pin(KVPERF_PIN_SERVERS, f)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "srq: its capsules exceed max_server_pinned_mb");
		return -ENOMEM;
	}
	q = kvperf_io_srq_create(ibdev, depth, kvperf_io_target_srq_done,
				 &why);
	if (IS_ERR(q)) {
		kvperf_unpin(KVPERF_PIN_SERVERS, f);
		KVPERF_SET_ERR_MSG_FMT(extack, "srq: cannot create it",
				       "srq: %s", why);
		return PTR_ERR(q);
	}
	srv->srq = q;
	atomic64_add(f->buf_bytes + f->queue_bytes, &srv->pinned);
	return 0;
}

/*
 * The listener's device goes away. A listener cannot be stopped from its
 * own CM handler (stopping waits for its connections' handlers), so a
 * work item allocated at start does it; the handler lets the CM destroy
 * the listening id. While the listener is being started, its starter
 * finds @removed set and destroys the id itself. Nothing here touches
 * @srv after its lock is dropped: it may be freed at once.
 */
static int kvperf_server_listener_event(struct kvperf_server *srv,
					struct rdma_cm_id *id,
					const struct rdma_cm_event *ev)
{
	struct kvperf_server_remove *r = NULL;
	struct kvperf_io_srq *srq = NULL;
	u32 srv_id = 0;
	int destroy = 0;

	if (ev->event != RDMA_CM_EVENT_DEVICE_REMOVAL)
		return 0;
	mutex_lock(&srv->lock);
	if (!srv->live) {
		srv->removed = true;
	} else if (srv->listen_id == id) {
		srv->listen_id = NULL;
		srq = srv->srq;
		srv->srq = NULL;
		r = srv->remove_work;
		srv->remove_work = NULL;
		srv_id = srv->id;
		r->id = srv_id;
		destroy = 1;
	}
	mutex_unlock(&srv->lock);
	/* its connections hold theirs until their ids go */
	kvperf_server_put_srq(srv, srq);
	if (r) {
		pr_info("server %u: its device was removed; stopping it\n",
			srv_id);
		queue_work(kvperf_server_wq, &r->work);
	}
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
		WRITE_ONCE(sc->cm_ended, true);
		kvperf_conn_fail(&sc->conn, -ECONNRESET,
				 "the client disconnected");
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		WRITE_ONCE(sc->cm_ended, true);
		kvperf_conn_fail(&sc->conn, -ENODEV,
				 "the RDMA device was removed");
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		WRITE_ONCE(sc->cm_ended, true);
		kvperf_conn_fail(&sc->conn, -ECONNABORTED,
				 "the connection failed");
		break;
	default:
		break;
	}
	return 0;
}

/* Complete the options: the defaults, and the listening subnet. */
static int kvperf_server_opts_fill(struct kvperf_server *srv,
				   struct rdma_cm_id *cm_id,
				   struct netlink_ext_ack *extack)
{
	struct kvperf_server_opts *o = &srv->opts;
	int err;

	if (!o->idle_ms)
		o->idle_ms = KVPERF_IDLE_TIMEOUT_MS_DEFAULT;
	if (!o->conns_max)
		o->conns_max = KVPERF_SERVER_CONNS_MAX;
	/* one client may take them all, as a run of 16 queue pairs does */
	if (!o->peer_conns_max)
		o->peer_conns_max = o->conns_max;
	if (o->nallow)
		return 0;
	err = kvperf_acl_subnet(&srv->addr,
				cm_id->route.addr.dev_addr.bound_dev_if,
				&o->allow[0]);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack,
				   "cannot find the listening address's subnet: give allow prefixes");
		return err;
	}
	o->nallow = 1;
	return 0;
}

/* Bind the listener's id to its address and check the device. */
static int kvperf_server_bind(struct kvperf_server *srv,
			      struct rdma_cm_id *cm_id, const char *dev,
			      struct netlink_ext_ack *extack)
{
	bool known;
	int err;

	err = rdma_bind_addr(cm_id, (struct sockaddr *)&srv->addr);
	if (err) {
		if (err == -EADDRINUSE)
			NL_SET_ERR_MSG_MOD(extack,
					   "address and port already in use");
		else
			NL_SET_ERR_MSG_MOD(extack,
					   "cannot bind: no RDMA device has that address");
		return err;
	}
	if (!cm_id->device) {
		NL_SET_ERR_MSG_MOD(extack,
				   "no RDMA device has that address (a wildcard address is not supported)");
		return -EADDRNOTAVAIL;
	}
	strscpy(srv->dev, dev_name(&cm_id->device->dev), sizeof(srv->dev));
	if (rdma_protocol_iwarp(cm_id->device, cm_id->port_num)) {
		KVPERF_SET_ERR_MSG_FMT(extack, "iWARP devices are not supported",
				       "%s is an iWARP device: not supported",
				       srv->dev);
		return -EOPNOTSUPP;
	}
	if (dev && dev[0] && strcmp(dev, srv->dev)) {
		kvperf_device_lock();
		known = kvperf_device_find(dev);
		kvperf_device_unlock();
		if (!known) {
			KVPERF_SET_ERR_MSG_FMT(extack,
					       "no RDMA device with that name",
					       "no RDMA device named %s", dev);
			return -ENODEV;
		}
		KVPERF_SET_ERR_MSG_FMT(extack,
				       "the address belongs to another device",
				       "the address belongs to %s, not %s",
				       srv->dev, dev);
		return -EINVAL;
	}
	/* a device gone meanwhile fails the listen; it inlines nothing */
	if (kvperf_device_probe_inline(srv->dev, &init_net, &srv->max_inline))
		srv->max_inline = 0;
	return 0;
}

/**
 * kvperf_server_start() - start a listener
 * @addr: address to listen on (with port)
 * @dev: device the address must belong to, or NULL
 * @opts: its options; zero fields take their defaults
 * @extack: for the reason of a refusal
 * @id: receives the server's id
 *
 * Return: 0 or a negative errno, with an extack message.
 */
int kvperf_server_start(const struct sockaddr_storage *addr, const char *dev,
			const struct kvperf_server_opts *opts,
			struct netlink_ext_ack *extack, u32 *id)
{
	struct kvperf_server *srv;
	struct rdma_cm_id *cm_id;
	bool removed;
	int err;

	if (kvperf_server_count() >= KVPERF_SERVERS_MAX) {
		NL_SET_ERR_MSG_MOD(extack, "too many listeners (at most 8)");
		return -ENOSPC;
	}
	srv = kzalloc(sizeof(*srv), GFP_KERNEL);
	if (!srv)
		return -ENOMEM;
	srv->remove_work = kzalloc(sizeof(*srv->remove_work), GFP_KERNEL);
	if (!srv->remove_work) {
		kfree_sensitive(srv);
		return -ENOMEM;
	}
	INIT_WORK(&srv->remove_work->work, kvperf_server_remove_fn);
	INIT_WORK(&srv->reap_work, kvperf_server_reap_fn);
	srv->ctx.listener = true;
	mutex_init(&srv->lock);
	INIT_LIST_HEAD(&srv->conns);
	INIT_LIST_HEAD(&srv->pending);
	init_waitqueue_head(&srv->settled);
	memcpy(&srv->addr, addr, sizeof(*addr));
	srv->opts = *opts;

	/*
	 * Bound, the id receives device-removal events: from here on the
	 * handler sees it as the listener's and, until the listener is live,
	 * leaves it to this function.
	 */
	cm_id = rdma_create_id(&init_net, kvperf_server_cm_handler, srv,
			       RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(cm_id)) {
		err = PTR_ERR(cm_id);
		NL_SET_ERR_MSG_MOD(extack, "cannot create an RDMA CM id");
		goto err_free;
	}
	srv->listen_id = cm_id;

	err = kvperf_server_bind(srv, cm_id, dev, extack);
	if (!err)
		err = kvperf_server_opts_fill(srv, cm_id, extack);
	if (!err)
		err = kvperf_server_create_srq(srv, cm_id->device, extack);
	if (err)
		goto err_id;
	err = rdma_listen(cm_id, srv->opts.conns_max);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "rdma_listen failed");
		goto err_id;
	}

	/* a new listener stops none: the servers lock only guards the list */
	kvperf_servers_lock();
	if (kvperf_servers_listed() >= KVPERF_SERVERS_MAX) {
		kvperf_servers_unlock();
		NL_SET_ERR_MSG_MOD(extack, "too many listeners (at most 8)");
		err = -ENOSPC;
		goto err_id;
	}
	mutex_lock(&srv->lock);
	removed = srv->removed;
	if (!removed) {
		srv->id = kvperf_server_next_id++;
		srv->live = true;
	}
	mutex_unlock(&srv->lock);
	if (!removed) {
		list_add_tail(&srv->node, &kvperf_servers);
		*id = srv->id;
		/* under the list lock: no stop can free it meanwhile */
		kvperf_server_publish_started(srv);
	}
	kvperf_servers_unlock();
	if (!removed)
		return 0;
	NL_SET_ERR_MSG_MOD(extack, "the RDMA device was removed");
	err = -ENODEV;

err_id:
	/*
	 * Not live: no connection took a reference. The queue goes before
	 * the id, whose destruction lets a device's removal go on.
	 */
	kvperf_server_put_srq(srv, srv->srq);
	rdma_destroy_id(cm_id);
err_free:
	kfree(srv->remove_work);
	kfree_sensitive(srv);
	return err;
}

/* Stop a server taken off the list: no lock held. */
static void kvperf_server_destroy(struct kvperf_server *srv)
{
	struct kvperf_sconn *sc, *tmp;
	struct rdma_cm_id *listen_id;
	struct kvperf_io_srq *srq;
	LIST_HEAD(conns);

	/*
	 * Stopping, the listener refuses every new connection under its
	 * lock: once none is being set up, the list taken here is the
	 * last. Its id is destroyed last of all, once no connection and no
	 * queue of its device is left: a device's removal waits for the
	 * ids only.
	 */
	mutex_lock(&srv->lock);
	WRITE_ONCE(srv->stopping, true);
	mutex_unlock(&srv->lock);
	/* a connection being set up joins the list or gives up first */
	wait_event(srv->settled, !READ_ONCE(srv->npending));
	mutex_lock(&srv->lock);
	list_splice_init(&srv->conns, &conns);
	srv->nconns = 0;
	mutex_unlock(&srv->lock);

	/* every thread told first, so that they end side by side */
	list_for_each_entry(sc, &conns, node) {
		WRITE_ONCE(sc->stop, true);
		wake_up(sc->conn.notify);
	}
	list_for_each_entry_safe(sc, tmp, &conns, node) {
		list_del(&sc->node);
		kvperf_sconn_free(sc);
	}
	/* every thread has ended: none queues the reaper any more */
	cancel_work_sync(&srv->reap_work);
	mutex_lock(&srv->lock);
	srq = srv->srq;
	srv->srq = NULL;
	listen_id = srv->listen_id;
	srv->listen_id = NULL;
	mutex_unlock(&srv->lock);
	kvperf_server_put_srq(srv, srq);
	/* after this no connect request handler runs any more */
	if (listen_id)
		rdma_destroy_id(listen_id);
	kvperf_server_publish_stopped(srv);
	kfree(srv->remove_work);
	kfree_sensitive(srv);
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

/* A listener bound to @ibdev; the server list lock held. */
static struct kvperf_server *kvperf_server_on_device(struct ib_device *ibdev)
{
	struct kvperf_server *srv;
	bool on;

	lockdep_assert_held(&kvperf_servers_mutex);
	list_for_each_entry(srv, &kvperf_servers, node) {
		mutex_lock(&srv->lock);
		on = srv->listen_id && srv->listen_id->device == ibdev;
		mutex_unlock(&srv->lock);
		if (on)
			return srv;
	}
	return NULL;
}

/**
 * kvperf_servers_remove_device() - stop the listeners of a device that goes
 * @ibdev: the device
 *
 * From the ib_client remove callback, before the RDMA CM hears of the
 * removal (as nvmet-rdma does): every listener bound to @ibdev is
 * stopped, and its connections, shared receive queue and CM ids freed,
 * before this returns. A listener still being started is not listed yet:
 * its id hears of the removal from the RDMA CM and its starter fails.
 * Runs need nothing here: the RDMA CM's own remove callback waits for
 * every CM id of the device, and a run frees its queues, memory regions
 * and protection domain before its id.
 *
 * Context: may sleep for as long as the listeners' connections take to
 * close.
 */
void kvperf_servers_remove_device(struct ib_device *ibdev)
{
	struct kvperf_server *srv;

	for (;;) {
		kvperf_servers_lock();
		srv = kvperf_server_on_device(ibdev);
		if (srv)
			list_del(&srv->node);
		kvperf_servers_unlock();
		if (!srv)
			return;
		pr_info("server %u: its device %s is being removed; stopping it\n",
			srv->id, dev_name(&ibdev->dev));
		kvperf_server_destroy(srv);
	}
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
