// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: runs, the client side. Each run has a thread that connects to
 * a kvperf server with RDMA CM (the run's parameters in the private
 * data), measures every message size in turn and tears the connection
 * down; the run and its results stay until deleted. A run owns its
 * thread, connection and histograms, and frees them on its own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/kvperf.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/genetlink.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "compat.h"
#include "io.h"
#include "kvperf.h"
#include "lat.h"
#include "proto.h"
#include "run.h"
#include "run_events.h"

static DEFINE_XARRAY_ALLOC1(kvperf_runs);
/* serializes starting and deleting runs, and the limits on them */
static DEFINE_MUTEX(kvperf_runs_mutex);
static u32 kvperf_runs_next;

/**
 * kvperf_run_divisor() - what the round trip is divided by
 * @run: the run
 *
 * Return: 2 for send and write latency (half the round trip, as
 * perftest), 1 for read latency (the full round trip). Samples are
 * divided before they are recorded, so every statistic, exact or from
 * the histogram, describes the same samples.
 */
u32 kvperf_run_divisor(const struct kvperf_run *run)
{
	return run->cfg.op == KVPERF_OP_READ ? 1 : 2;
}

/**
 * kvperf_run_should_stop() - should the calling thread of a run end?
 * @arg: the run
 *
 * Return: true when the run was stopped or is being deleted, when a
 * bandwidth or I/O run's thread failed, or when the caller is asked to
 * stop.
 */
bool kvperf_run_should_stop(void *arg)
{
	struct kvperf_run *run = arg;

	return READ_ONCE(run->stop) || READ_ONCE(run->bw.abort) ||
	       READ_ONCE(run->io.abort) || kthread_should_stop();
}

/**
 * kvperf_run_set_state() - move a run along its life cycle
 * @run: the run
 * @state: enum kvperf_run_state
 */
void kvperf_run_set_state(struct kvperf_run *run, u8 state)
{
	mutex_lock(&run->lock);
	run->state = state;
	mutex_unlock(&run->lock);
}

static const char *kvperf_reject_reason(const struct rdma_cm_event *ev)
{
	const u8 *why = ev->param.conn.private_data;

	if (ev->status != IB_CM_REJ_CONSUMER_DEFINED || !why ||
	    ev->param.conn.private_data_len < 1)
		return "connection rejected (is a kvperf server listening there?)";
	return kvperf_wire_reject_text(*why);
}

static int kvperf_run_cm_handler(struct rdma_cm_id *id,
				 struct rdma_cm_event *ev)
{
	struct kvperf_conn *c = id->context;
	const struct kvperf_wire_rep *rep;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		WRITE_ONCE(c->cm_event, ev->event);
		wake_up(c->notify);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		rep = ev->param.conn.private_data;
		if (ev->param.conn.private_data_len < sizeof(*rep) ||
		    rep->version != KVPERF_PROTO_VERSION) {
			kvperf_conn_fail(c, -EPROTO,
					 "the server is not a kvperf server of this version");
			break;
		}
		c->remote_rkey = be32_to_cpu(rep->rkey);
		c->remote_addr = be64_to_cpu(rep->addr);
		c->credits = be16_to_cpu(rep->credits);
		WRITE_ONCE(c->connecting, false);
		WRITE_ONCE(c->cm_event, ev->event);
		wake_up(c->notify);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		kvperf_conn_fail(c, -EHOSTUNREACH,
				 "cannot resolve the server address");
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		kvperf_conn_fail(c, -EHOSTUNREACH,
				 "cannot resolve a route to the server");
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
		kvperf_conn_fail(c, -EHOSTUNREACH,
				 "the server is unreachable or did not answer");
		break;
	case RDMA_CM_EVENT_REJECTED:
		kvperf_conn_fail(c, -ECONNREFUSED, kvperf_reject_reason(ev));
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
		kvperf_conn_fail(c, -ECONNABORTED, "connection error");
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		kvperf_conn_fail(c, -ECONNRESET,
				 "the server closed the connection");
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		kvperf_conn_fail(c, -ENODEV, "the RDMA device was removed");
		break;
	case RDMA_CM_EVENT_ADDR_CHANGE:
		kvperf_conn_fail(c, -ENETRESET, "the local address changed");
		break;
	default:
		break;
	}
	return 0;
}

static bool kvperf_cm_reached(struct kvperf_conn *c, void *arg)
{
	return READ_ONCE(c->cm_event) == (uintptr_t)arg;
}

/* Wait for a connection step; a timeout says which step timed out. */
static int kvperf_run_wait_cm(struct kvperf_conn *c, int event,
			      const char *timeout_reason)
{
	int err = kvperf_conn_wait(c, kvperf_cm_reached, (void *)(uintptr_t)event);

	if (err == -ETIMEDOUT)
		WRITE_ONCE(c->reason, timeout_reason);
	return err;
}

/* What the server needs to know of the run, in the connect request. */
static void kvperf_run_wire_req(const struct kvperf_run *run,
				const struct kvperf_conn *c,
				struct kvperf_wire_req *req)
{
	const struct kvperf_run_cfg *cfg = &run->cfg;

	req->version = KVPERF_PROTO_VERSION;
	req->type = cfg->type;
	req->op = cfg->op;
	req->flags = (cfg->verify ? KVPERF_WIRE_VERIFY : 0) |
		     (cfg->bidir ? KVPERF_WIRE_BIDIR : 0);
	req->size_max = cpu_to_be32(cfg->size_max);
	req->inline_size = cpu_to_be32(cfg->inline_size);
	req->rkey = cpu_to_be32(c->mr->rkey);
	req->addr = cpu_to_be64(c->mr->iova);
	memcpy(req->key, cfg->key, sizeof(req->key));
	if (cfg->type == KVPERF_RUN_TYPE_IO) {
		/* the block size of this step of the run */
		req->size_max = cpu_to_be32(run->io.bs);
		req->tx_depth = cpu_to_be16(cfg->qd);
		/* the most segments of a command */
		req->post_list = cpu_to_be16(cfg->segments);
		/* the most in-capsule data of a write */
		req->inline_size = cpu_to_be32(cfg->inline_data);
		/* a registration made at connect: plain SEND responses */
		if (cfg->inv == KVPERF_IO_INV_LOCAL ||
		    cfg->reg == KVPERF_IO_REG_PRE)
			req->flags |= KVPERF_WIRE_IO_INV_LOCAL;
		if (cfg->read_pct)
			req->flags |= KVPERF_WIRE_IO_MIXED;
		return;
	}
	if (cfg->type != KVPERF_RUN_TYPE_BW)
		return;
	req->tx_depth = cpu_to_be16(cfg->tx_depth);
	req->post_list = cpu_to_be16(cfg->post_list);
	req->signal_every = cpu_to_be16(cfg->signal_every);
	if (cfg->duration_ms)
		req->flags |= KVPERF_WIRE_TIMED;
	req->count = cpu_to_be32(cfg->duration_ms ?: cfg->iterations);
	if (cfg->warmup_ms)
		req->flags |= KVPERF_WIRE_WARMUP_TIMED;
	req->warmup = cpu_to_be32(cfg->warmup_ms ?: cfg->warmup);
}

/* RDMA READs in flight: one for latency, what the device takes for bandwidth. */
static u8 kvperf_run_rd_atom(const struct kvperf_run *run,
			     const struct ib_device *dev)
{
	if (run->cfg.op != KVPERF_OP_READ)
		return 0;
	if (run->cfg.type != KVPERF_RUN_TYPE_BW)
		return 1;
	return min3(dev->attrs.max_qp_init_rd_atom, dev->attrs.max_qp_rd_atom,
		    255);
}

/*
 * The local ACK timeout of runs' queue pairs, as an exponent: 4.096 us
 * times 2^ack_timeout, retried 7 times. 0 keeps RDMA CM's (about half a
 * second on RoCE); a slow or emulated fabric that takes longer to answer
 * a deep queue (Soft-RoCE on a debug kernel) needs more.
 */
static unsigned int ack_timeout;

static int kvperf_ack_timeout_set(const char *val,
				  const struct kernel_param *kp)
{
	unsigned int v;
	int err = kstrtouint(val, 0, &v);

	if (err)
		return err;
	if (v > 31)
		return -ERANGE;
	return param_set_uint(val, kp);
}

static const struct kernel_param_ops kvperf_ack_timeout_ops = {
	.set = kvperf_ack_timeout_set,
	.get = param_get_uint,
};

module_param_cb(ack_timeout, &kvperf_ack_timeout_ops, &ack_timeout, 0644);
MODULE_PARM_DESC(ack_timeout,
		 "Local ACK timeout of runs' queue pairs, 4.096 us * 2^N, N 1 to 31; 0 for RDMA CM's default (default 0)");

static int kvperf_run_resolve(struct kvperf_run *run, struct kvperf_conn *c)
{
	struct rdma_cm_id *id;
	int err;

	id = rdma_create_id(&init_net, kvperf_run_cm_handler, c,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		c->reason = "cannot create an RDMA CM id";
		return PTR_ERR(id);
	}
	c->cm_id = id;
	if (READ_ONCE(ack_timeout)) {
		err = rdma_set_ack_timeout(id, READ_ONCE(ack_timeout));
		if (err) {
			kvperf_conn_fail(c, err, "cannot set the ACK timeout");
			return err;
		}
	}

	err = rdma_resolve_addr(id, NULL, (struct sockaddr *)&run->cfg.addr,
				run->cfg.timeout_ms);
	if (err) {
		kvperf_conn_fail(c, err, "cannot resolve the server address");
		return err;
	}
	err = kvperf_run_wait_cm(c, RDMA_CM_EVENT_ADDR_RESOLVED,
				 "timed out resolving the server address");
	if (err)
		return err;
	err = rdma_resolve_route(id, run->cfg.timeout_ms);
	if (err) {
		kvperf_conn_fail(c, err, "cannot resolve a route to the server");
		return err;
	}
	return kvperf_run_wait_cm(c, RDMA_CM_EVENT_ROUTE_RESOLVED,
				  "timed out resolving a route to the server");
}

/**
 * kvperf_run_connect() - connect one of a run's connections to the server
 * @run: the run
 * @c: the connection, from kvperf_conn_init()
 * @attr: its resources
 *
 * Resolves the address and route, creates the resources, connects with
 * the run's parameters in the private data and registers the receive
 * buffer; the posts that follow are made in the run's post context. The
 * caller tears down whatever exists on failure too.
 *
 * Return: 0 or a negative errno with @c->reason set.
 */
int kvperf_run_connect(struct kvperf_run *run, struct kvperf_conn *c,
		       const struct kvperf_conn_attr *attr)
{
	struct kvperf_wire_req req = {};
	struct rdma_conn_param param = {};
	struct ib_qp_init_attr init;
	struct ib_qp_attr qattr;
	int err;

	err = kvperf_run_resolve(run, c);
	if (err)
		return err;

	mutex_lock(&run->lock);
	strscpy(run->dev, dev_name(&c->cm_id->device->dev), sizeof(run->dev));
	mutex_unlock(&run->lock);

	WRITE_ONCE(c->connecting, true);
	err = kvperf_conn_create(c, c->cm_id, attr);
	if (!err)
		err = kvperf_conn_post_recvs(c);
	if (err) {
		kvperf_conn_fail(c, err, c->reason);
		return err;
	}

	kvperf_run_wire_req(run, c, &req);
	param.private_data = &req;
	param.private_data_len = sizeof(req);
	param.initiator_depth = kvperf_run_rd_atom(run, c->ibdev);
	param.responder_resources = run->cfg.bidir ? param.initiator_depth : 0;
	/* an I/O target READs the data of writes */
	if (run->cfg.type == KVPERF_RUN_TYPE_IO) {
		param.initiator_depth = 0;
		param.responder_resources = run->cfg.op == KVPERF_OP_WRITE ||
					    run->cfg.read_pct ?
			min3(c->ibdev->attrs.max_qp_rd_atom, (int)run->cfg.qd,
			     255) : 0;
	}
	/* a silent peer is the run's timeout's job, not long CM retries */
	param.retry_count = 3;
	param.rnr_retry_count = 7;
	err = rdma_set_min_rnr_timer(c->cm_id, KVPERF_MIN_RNR_TIMER);
	if (!err)
		err = rdma_connect(c->cm_id, &param);
	/* the CM copied the request, key included */
	memzero_explicit(&req, sizeof(req));
	if (err) {
		kvperf_conn_fail(c, err, "cannot connect");
		return err;
	}
	err = kvperf_run_wait_cm(c, RDMA_CM_EVENT_ESTABLISHED,
				 "timed out connecting: the server did not answer");
	if (err)
		return err;

	if (!ib_query_qp(c->cm_id->qp, &qattr, IB_QP_PATH_MTU, &init)) {
		mutex_lock(&run->lock);
		run->mtu = ib_mtu_enum_to_int(qattr.path_mtu);
		mutex_unlock(&run->lock);
	}
	err = kvperf_conn_register(c);
	/* set up: from here on the loops post in the run's context */
	if (!err)
		c->post_bh = run->cfg.post_context == KVPERF_POST_CONTEXT_BH;
	return err;
}

static void kvperf_run_tick(void *arg)
{
	kvperf_run_publish_progress(arg, NULL);
}

static int kvperf_run_measure(struct kvperf_run *run)
{
	struct kvperf_conn *c = &run->conn;
	u32 i;
	int err;

	for (i = 0; i < run->nresults; i++) {
		struct kvperf_result *res = &run->results[i];
		struct kvperf_lat_block b = {
			.size = res->size,
			.iterations = run->cfg.iterations,
			.duration_ns = (u64)run->cfg.duration_ms * NSEC_PER_MSEC,
			.warmup = run->cfg.warmup,
			.warmup_ns = (u64)run->cfg.warmup_ms * NSEC_PER_MSEC,
			.op = run->cfg.op,
			.verify = run->cfg.verify,
			.stats = run->cfg.stats == KVPERF_STATS_MODE_ON,
			.divisor = kvperf_run_divisor(run),
			.hist = &res->hist,
			.progress = &run->progress,
			.tick = kvperf_run_tick,
			.tick_arg = run,
		};

		err = kvperf_lat_run_block(c, &b);
		if (err)
			return err;
		mutex_lock(&run->lock);
		res->mismatches = b.mismatches;
		res->elapsed_ns = b.elapsed_ns;
		if (b.stats)
			kvperf_hist_summarize(&res->hist, &res->stats);
		else
			kvperf_stats_from_elapsed(&res->stats, b.count,
						  b.elapsed_ns, b.divisor);
		run->ndone = i + 1;
		mutex_unlock(&run->lock);
	}
	return 0;
}

static void kvperf_run_lat_conn_attr(const struct kvperf_run_cfg *cfg,
				     struct kvperf_conn_attr *attr)
{
	*attr = (struct kvperf_conn_attr) {
		.poll = cfg->poll,
		.op = cfg->op,
		/* a write's server writes back; a read's server does nothing */
		.local_only = cfg->op != KVPERF_OP_WRITE,
		.size_max = cfg->size_max,
		.inline_size = cfg->inline_size,
		.send_depth = KVPERF_SEND_DEPTH,
		.recv_depth = KVPERF_RECV_DEPTH,
		.node = NUMA_NO_NODE,
	};
}

/* What a run's connections hold: its claim on the runs' pool. */
static void kvperf_run_footprint(const struct kvperf_run_cfg *cfg,
				 struct kvperf_footprint *f)
{
	struct kvperf_conn_attr attr;
	u32 qps = 1;

	if (cfg->type == KVPERF_RUN_TYPE_IO) {
		kvperf_run_io_footprint(cfg, f);
		return;
	}
	if (cfg->type == KVPERF_RUN_TYPE_BW) {
		kvperf_run_bw_conn_attr(cfg, NUMA_NO_NODE, &attr);
		qps = cfg->qps;
	} else {
		kvperf_run_lat_conn_attr(cfg, &attr);
	}
	kvperf_conn_footprint(&attr, f);
	f->buf_bytes *= qps;
	f->queue_bytes *= qps;
}

/* A latency run: one connection, one size after the other. */
static int kvperf_run_lat(struct kvperf_run *run, const char **reason)
{
	struct kvperf_conn *c = &run->conn;
	struct kvperf_conn_attr attr;
	int err;

	kvperf_run_lat_conn_attr(&run->cfg, &attr);

	err = kvperf_run_connect(run, c, &attr);
	if (!err) {
		kvperf_run_set_state(run, KVPERF_RUN_STATE_RUNNING);
		err = kvperf_run_measure(run);
	}

	if (c->cm_id) {
		rdma_disconnect(c->cm_id);
		kvperf_conn_destroy(c);
		rdma_destroy_id(c->cm_id);
	}
	*reason = c->reason;
	return err;
}

static int kvperf_run_thread(void *arg)
{
	struct kvperf_run *run = arg;
	const char *reason = NULL;
	int err;
	u8 state;

	if (run->cpu_offline) {
		err = -ENODEV;
		reason = "its CPU went offline before it started";
	} else if (run->cfg.type == KVPERF_RUN_TYPE_BW) {
		err = kvperf_run_bw(run);
		reason = run->bw.reason;
	} else if (run->cfg.type == KVPERF_RUN_TYPE_IO) {
		err = kvperf_run_io(run);
		reason = run->io.reason;
	} else {
		err = kvperf_run_lat(run, &reason);
	}
	kvperf_unpin(KVPERF_PIN_RUNS, &run->pinned);
	memset(&run->pinned, 0, sizeof(run->pinned));

	if (!err)
		state = KVPERF_RUN_STATE_DONE;
	else if (err == -EINTR)
		state = KVPERF_RUN_STATE_STOPPED;
	else
		state = KVPERF_RUN_STATE_FAILED;
	mutex_lock(&run->lock);
	run->state = state;
	if (state == KVPERF_RUN_STATE_FAILED) {
		if (err == -ETIMEDOUT)
			snprintf(run->error, sizeof(run->error),
				 "%s (%u ms)", reason ?: "timed out",
				 run->cfg.timeout_ms);
		else
			snprintf(run->error, sizeof(run->error), "%s (%pe)",
				 reason ?: "failed", ERR_PTR(err));
	}
	mutex_unlock(&run->lock);
	pr_debug("run %u ended: state %u err %d\n", run->id, state, err);
	kvperf_run_publish_finished(run);
	return 0;
}

static int kvperf_run_results(struct kvperf_run *run)
{
	bool io = run->cfg.type == KVPERF_RUN_TYPE_IO;
	u32 size, n = 0, i, dirs = 1;
	int err;

	for (size = run->cfg.size; size <= run->cfg.size_max; size *= 2) {
		n++;
		if (size > KVPERF_SIZE_MAX / 2)
			break;
	}
	if (run->cfg.type == KVPERF_RUN_TYPE_BW) {
		run->nresults = n;
		return kvperf_run_bw_alloc(run);
	}
	/* an I/O run: per block size the reads' result, then the writes' */
	if (io) {
		dirs = kvperf_io_dirs(run->cfg.read_pct);
		n = kvperf_io_sizes(run->cfg.bss) * dirs;
	}
	run->results = kcalloc(n, sizeof(*run->results), GFP_KERNEL);
	if (!run->results)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct kvperf_result *res = &run->results[i];

		res->size = io ? kvperf_io_size(run->cfg.bss, run->cfg.size,
						i / dirs) :
				 run->cfg.size << i;
		res->op = io && i % dirs ? KVPERF_OP_WRITE : run->cfg.op;
		if (io) {
			res->queue = kcalloc(run->cfg.qps, sizeof(*res->queue),
					     GFP_KERNEL);
			if (!res->queue)
				return -ENOMEM;
		}
		/* stats off: nothing records, so no buckets */
		if (run->cfg.stats == KVPERF_STATS_MODE_ON) {
			err = kvperf_hist_init(&res->hist, KVPERF_HIST_MAX_NS);
			if (err)
				return err;
		}
		run->nresults++;
	}
	return 0;
}

static unsigned int kvperf_runs_count(void)
{
	struct kvperf_run *run;
	unsigned long id;
	unsigned int n = 0;

	lockdep_assert_held(&kvperf_runs_mutex);
	xa_for_each(&kvperf_runs, id, run)
		n++;
	return n;
}

/**
 * kvperf_run_count() - runs that exist, whatever their state
 *
 * Return: how many.
 */
unsigned int kvperf_run_count(void)
{
	unsigned int n;

	mutex_lock(&kvperf_runs_mutex);
	n = kvperf_runs_count();
	mutex_unlock(&kvperf_runs_mutex);
	return n;
}

static unsigned int kvperf_runs_active(void)
{
	struct kvperf_run *run;
	unsigned long id;
	unsigned int n = 0;

	lockdep_assert_held(&kvperf_runs_mutex);
	xa_for_each(&kvperf_runs, id, run)
		if (READ_ONCE(run->state) <= KVPERF_RUN_STATE_RUNNING)
			n++;
	return n;
}

/**
 * kvperf_run_start() - start a run
 * @cfg: its configuration, checked against the netlink policy
 * @extack: for the reason of a refusal
 * @id: receives the run's id
 *
 * Return: 0 or a negative errno, with an extack message.
 */
int kvperf_run_start(const struct kvperf_run_cfg *cfg,
		     struct netlink_ext_ack *extack, u32 *id)
{
	struct kvperf_run *run;
	struct xa_limit limit = XA_LIMIT(1, INT_MAX);
	struct kvperf_footprint pinned;
	int err;

	mutex_lock(&kvperf_runs_mutex);
	if (kvperf_runs_count() >= KVPERF_RUNS_MAX) {
		NL_SET_ERR_MSG_MOD(extack,
				   "too many runs kept (at most 32): delete finished runs");
		err = -ENOSPC;
		goto out;
	}
	if (kvperf_runs_active() >= KVPERF_RUNS_ACTIVE_MAX) {
		NL_SET_ERR_MSG_MOD(extack,
				   "too many runs in progress (at most 8)");
		err = -EBUSY;
		goto out;
	}
	kvperf_run_footprint(cfg, &pinned);
	if (!kvperf_pin(KVPERF_PIN_RUNS, &pinned)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "pinned-memory limit reached (module parameter max_pinned_mb)");
		err = -ENOMEM;
		goto out;
	}

	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run) {
		kvperf_unpin(KVPERF_PIN_RUNS, &pinned);
		err = -ENOMEM;
		goto out;
	}
	run->cfg = *cfg;
	run->pinned = pinned;
	mutex_init(&run->lock);
	atomic64_set(&run->progress, 0);
	init_waitqueue_head(&run->bw.wq);
	init_waitqueue_head(&run->io.wq);
	run->state = KVPERF_RUN_STATE_CONNECTING;
	kref_init(&run->ref);
	kvperf_conn_init(&run->conn, msecs_to_jiffies(cfg->timeout_ms),
			 kvperf_run_should_stop, run);

	/* from here on the last reference's release frees everything */
	err = kvperf_run_results(run);
	if (err)
		goto err_put;

	err = xa_alloc_cyclic(&kvperf_runs, &run->id, run, limit,
			      &kvperf_runs_next, GFP_KERNEL);
	if (err < 0)
		goto err_put;

	err = kvperf_run_publish_added(run);
	if (err)
		goto err_erase;

	run->task = kthread_create(kvperf_run_thread, run, "kvperf-run%u",
				   run->id);
	if (IS_ERR(run->task)) {
		err = PTR_ERR(run->task);
		run->task = NULL;
		goto err_removed;
	}
	get_task_struct(run->task);
	*id = run->id;
	/* the CPU was online when the request was checked; is it still? */
	cpus_read_lock();
	if (cfg->cpu >= 0 && cpu_online(cfg->cpu))
		kthread_bind(run->task, cfg->cpu);
	else if (cfg->cpu >= 0)
		run->cpu_offline = true;
	wake_up_process(run->task);
	cpus_read_unlock();
	err = 0;
	goto out;

err_removed:
	kvperf_run_publish_removed(run);
err_erase:
	xa_erase(&kvperf_runs, run->id);
err_put:
	NL_SET_ERR_MSG_MOD(extack, "cannot allocate the run");
	kvperf_run_put(run);
out:
	mutex_unlock(&kvperf_runs_mutex);
	return err;
}

/**
 * kvperf_run_get() - find a run and take a reference on it
 * @id: its id
 *
 * Return: the run, or NULL. Release it with kvperf_run_put().
 */
struct kvperf_run *kvperf_run_get(u32 id)
{
	struct kvperf_run *run;

	xa_lock(&kvperf_runs);
	run = xa_load(&kvperf_runs, id);
	if (run)
		kref_get(&run->ref);
	xa_unlock(&kvperf_runs);
	return run;
}

/**
 * kvperf_run_next() - the run with the smallest id at or after one
 * @id: where to start; receives the run's id
 *
 * Return: the run with a reference taken, or NULL at the end.
 */
struct kvperf_run *kvperf_run_next(u32 *id)
{
	struct kvperf_run *run;
	unsigned long index = *id;

	xa_lock(&kvperf_runs);
	run = xa_find(&kvperf_runs, &index, ULONG_MAX, XA_PRESENT);
	if (run)
		kref_get(&run->ref);
	xa_unlock(&kvperf_runs);
	*id = index;
	return run;
}

/**
 * kvperf_run_hold() - take another reference on a run
 * @run: a run the caller holds a reference on, or one being published
 *	 to the observers (see run_events.h)
 *
 * For observers whose objects outlive their run_removed callback, such
 * as a kobject whose files may still be open. Release it with
 * kvperf_run_put().
 *
 * Return: @run.
 */
struct kvperf_run *kvperf_run_hold(struct kvperf_run *run)
{
	kref_get(&run->ref);
	return run;
}

static void kvperf_run_release(struct kref *ref)
{
	struct kvperf_run *run = container_of(ref, struct kvperf_run, ref);
	u32 i;

	for (i = 0; run->results && i < run->nresults; i++) {
		kvperf_hist_destroy(&run->results[i].hist);
		kfree(run->results[i].queue);
	}
	kfree(run->results);
	kvperf_run_bw_free(run);
	if (run->task)
		put_task_struct(run->task);
	kvperf_unpin(KVPERF_PIN_RUNS, &run->pinned);
	/* its configuration holds the key */
	kfree_sensitive(run);
}

/**
 * kvperf_run_put() - release a reference from kvperf_run_get() or
 *		      kvperf_run_hold()
 * @run: the run; freed with the last reference
 *
 * Context: may sleep.
 */
void kvperf_run_put(struct kvperf_run *run)
{
	kref_put(&run->ref, kvperf_run_release);
}

/**
 * kvperf_run_stop() - ask a run to stop
 * @id: its id
 *
 * The run ends as stopped within a bounded time (its thread checks at
 * every completion and every 100 ms while waiting).
 *
 * Return: 0, or -ENOENT when there is no such run.
 */
int kvperf_run_stop(u32 id)
{
	struct kvperf_run *run = kvperf_run_get(id);

	if (!run)
		return -ENOENT;
	WRITE_ONCE(run->stop, true);
	wake_up(&run->conn.wq);
	wake_up(&run->bw.wq);
	wake_up(&run->io.wq);
	kvperf_run_put(run);
	return 0;
}

static void kvperf_run_destroy(struct kvperf_run *run)
{
	WRITE_ONCE(run->stop, true);
	wake_up(&run->conn.wq);
	wake_up(&run->bw.wq);
	wake_up(&run->io.wq);
	/* returns at once when the thread has already ended */
	kthread_stop(run->task);
	kvperf_run_publish_removed(run);
	kvperf_run_put(run);
}

/**
 * kvperf_run_delete() - delete a run, stopping it first if need be
 * @id: its id
 *
 * Return: 0, or -ENOENT when there is no such run.
 */
int kvperf_run_delete(u32 id)
{
	struct kvperf_run *run;

	mutex_lock(&kvperf_runs_mutex);
	run = xa_erase(&kvperf_runs, id);
	mutex_unlock(&kvperf_runs_mutex);
	if (!run)
		return -ENOENT;
	kvperf_run_destroy(run);
	return 0;
}

/**
 * kvperf_runs_exit() - stop and delete every run, at module exit
 */
void kvperf_runs_exit(void)
{
	struct kvperf_run *run;
	unsigned long id;

	mutex_lock(&kvperf_runs_mutex);
	xa_for_each(&kvperf_runs, id, run) {
		xa_erase(&kvperf_runs, id);
		kvperf_run_destroy(run);
	}
	mutex_unlock(&kvperf_runs_mutex);
}
