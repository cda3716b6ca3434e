// SPDX-License-Identifier: GPL-2.0
/*
 * Connecting a user-path client to a kvperf server, as kmod/run.c does
 * for the kernel path: RDMA CM in the TCP port space, address and route
 * resolved within the run's timeout, the run's parameters and the
 * receive buffer's key and address in the connect request, the same
 * initiator depth, responder resources and retry counts.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/kvperf.h>

#include "upath_cfg.h"
#include "upath_client.h"
#include "upath_conn.h"
#include "upath_wire.h"

/* The error of a failed library call, never 0. */
static int upath_errno(void)
{
	return errno ? -errno : -EIO;
}

/* Wait for a connection step; a timeout says which step timed out. */
static int upath_client_wait_cm(struct upath_conn *c, int event,
				const char *timeout_reason)
{
	uint64_t deadline = upath_now_ns() + c->timeout_ns;
	struct pollfd pfd = { .fd = c->cm_ch->fd, .events = POLLIN };

	for (;;) {
		upath_conn_cm_poll(c);
		if (c->cm_event == event)
			return 0;
		if (c->error)
			return c->error;
		if (c->stop(c->stop_arg))
			return -EINTR;
		if (upath_now_ns() > deadline) {
			upath_conn_fail(c, -ETIMEDOUT, timeout_reason);
			return -ETIMEDOUT;
		}
		poll(&pfd, 1, 100);
	}
}

static void upath_sockaddr(const struct upath_cfg *cfg,
			   struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (cfg->addr_len == 4) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(cfg->port);
		memcpy(&sin->sin_addr, cfg->addr, 4);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(cfg->port);
		memcpy(&sin6->sin6_addr, cfg->addr, 16);
	}
}

static int upath_client_resolve(struct upath_conn *c,
				const struct upath_cfg *cfg)
{
	struct sockaddr_storage ss;
	int fl, err;

	c->cm_ch = rdma_create_event_channel();
	if (!c->cm_ch) {
		err = upath_errno();
		upath_conn_fail(c, err, upath_cm_channel_why(err));
		return c->error;
	}
	fl = fcntl(c->cm_ch->fd, F_GETFL);
	if (fl < 0 || fcntl(c->cm_ch->fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    rdma_create_id(c->cm_ch, &c->id, c, RDMA_PS_TCP)) {
		upath_conn_fail(c, upath_errno(),
				"cannot create an RDMA CM id");
		return c->error;
	}
	upath_sockaddr(cfg, &ss);
	if (rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&ss,
			      cfg->timeout_ms)) {
		upath_conn_fail(c, upath_errno(), "cannot resolve the server address");
		return c->error;
	}
	if (upath_client_wait_cm(c, RDMA_CM_EVENT_ADDR_RESOLVED,
				 "timed out resolving the server address"))
		return c->error;
	if (rdma_resolve_route(c->id, cfg->timeout_ms)) {
		upath_conn_fail(c, upath_errno(),
				"cannot resolve a route to the server");
		return c->error;
	}
	return upath_client_wait_cm(c, RDMA_CM_EVENT_ROUTE_RESOLVED,
				    "timed out resolving a route to the server");
}

/* RDMA READs in flight: one for latency, what the device takes for bandwidth. */
static uint8_t upath_rd_atom(const struct upath_conn *c,
			     const struct upath_cfg *cfg)
{
	uint32_t n = c->max_init_rd_atom;

	if (cfg->op != KVPERF_OP_READ)
		return 0;
	if (cfg->type != KVPERF_RUN_TYPE_BW)
		return 1;
	if (c->max_rd_atom < n)
		n = c->max_rd_atom;
	return n < 255 ? n : 255;
}

/* What an I/O host lets its target READ at once. */
static uint8_t upath_io_rd_res(uint32_t dev_max, uint32_t qd)
{
	uint32_t n = dev_max < qd ? dev_max : qd;

	return n < 255 ? n : 255;
}

static void upath_client_req(const struct upath_conn *c,
			     const struct upath_cfg *cfg,
			     struct kvperf_wire_req *w)
{
	struct upath_req r = {
		.op = cfg->op,
		.poll = cfg->poll,
		.flags = (cfg->verify ? KVPERF_WIRE_VERIFY : 0) |
			 (cfg->bidir ? KVPERF_WIRE_BIDIR : 0),
		.type = cfg->type,
		.size_max = cfg->size_max,
		.inline_size = cfg->inline_size,
		.rkey = c->rx.mr->rkey,
		.addr = (uintptr_t)c->rx.p,
	};

	if (cfg->type == KVPERF_RUN_TYPE_IO) {
		/* queue depth, most segments, most in-capsule data */
		r.tx_depth = cfg->qd;
		r.post_list = cfg->segments;
		r.inline_size = cfg->inline_data;
		/*
		 * registered once: responses are plain SENDs; memory
		 * windows: SENDs with invalidate unless inv local
		 */
		if (cfg->reg != KVPERF_IO_REG_MW ||
		    cfg->inv == KVPERF_IO_INV_LOCAL)
			r.flags |= KVPERF_WIRE_IO_INV_LOCAL;
		if (cfg->read_pct)
			r.flags |= KVPERF_WIRE_IO_MIXED;
	}
	if (cfg->type == KVPERF_RUN_TYPE_BW) {
		r.tx_depth = cfg->tx_depth;
		r.post_list = cfg->post_list;
		r.signal_every = cfg->signal_every;
		r.iterations = cfg->duration_ms ? 0 : cfg->iterations;
		r.duration_ms = cfg->duration_ms;
		r.warmup = cfg->warmup_ms ? 0 : cfg->warmup;
		r.warmup_ms = cfg->warmup_ms;
	}
	memcpy(r.key, cfg->key, sizeof(r.key));
	upath_wire_req_put(&r, w);
	explicit_bzero(r.key, sizeof(r.key));
}

static void upath_client_mtu(struct upath_conn *c)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr qa;

	if (!ibv_query_qp(c->id->qp, &qa, IBV_QP_PATH_MTU, &init) &&
	    qa.path_mtu >= IBV_MTU_256 && qa.path_mtu <= IBV_MTU_4096)
		c->mtu = 128U << qa.path_mtu;
}

/**
 * upath_connect() - connect one of a run's connections to the server
 * @c: the connection, from upath_conn_init()
 * @cfg: the run
 * @attr: its resources
 *
 * The caller closes the connection whatever happens.
 *
 * Return: 0 or a negative errno with @c->reason set.
 */
int upath_connect(struct upath_conn *c, const struct upath_cfg *cfg,
		  const struct upath_conn_attr *attr)
{
	struct rdma_conn_param param;
	struct kvperf_wire_req req;
	int err;

	err = upath_client_resolve(c, cfg);
	if (err)
		return err;
	err = upath_conn_create(c, attr);
	if (!err && !attr->own_recvs)
		err = upath_conn_post_recvs(c);
	if (err) {
		upath_conn_fail(c, err, c->reason);
		return err;
	}

	upath_client_req(c, cfg, &req);
	memset(&param, 0, sizeof(param));
	param.private_data = &req;
	param.private_data_len = sizeof(req);
	param.initiator_depth = upath_rd_atom(c, cfg);
	param.responder_resources = cfg->bidir ? param.initiator_depth : 0;
	/* an I/O target READs the data of writes */
	if (cfg->type == KVPERF_RUN_TYPE_IO) {
		param.initiator_depth = 0;
		param.responder_resources = 0;
		if (cfg->op == KVPERF_OP_WRITE || cfg->read_pct)
			param.responder_resources =
				upath_io_rd_res(c->max_rd_atom, cfg->qd);
	}
	/* a silent peer is the run's timeout's job, not long CM retries */
	param.retry_count = 3;
	param.rnr_retry_count = 7;
	if (rdma_connect(c->id, &param)) {
		upath_conn_fail(c, upath_errno(), "cannot connect");
		return c->error;
	}
	err = upath_client_wait_cm(c, RDMA_CM_EVENT_ESTABLISHED,
				   "timed out connecting: the server did not answer");
	if (!err)
		err = upath_conn_set_rnr_timer(c);
	if (err)
		return err;
	upath_client_mtu(c);
	return 0;
}
