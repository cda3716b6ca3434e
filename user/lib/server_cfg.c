// SPDX-License-Identifier: GPL-2.0
/*
 * A server's configuration as a server-start request, and the kernel's
 * listeners through the module's netlink family: start, stop, find.
 */
#include <errno.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "attrs.h"
#include "kvperf.h"
#include "nl.h"
#include "server_cfg.h"

/**
 * server_cfg_init() - an empty configuration
 * @cfg: set to the default port, nothing else given
 */
void server_cfg_init(struct kv_server_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->port = KVPERF_DEFAULT_PORT;
	cfg->has = 1ULL << KVPERF_A_SERVER_PORT;
}

static int server_cfg_put_allow(struct nl_msg *msg,
				const struct kv_server_cfg *cfg)
{
	const struct access_prefix *p;
	struct nlattr *nest;

	for (p = cfg->allow; p < cfg->allow + cfg->nallow; p++) {
		nest = nla_nest_start(msg, KVPERF_A_SERVER_ALLOW);
		if (!nest ||
		    nla_put(msg, KVPERF_A_PREFIX_ADDR, p->addr_len,
			    p->addr) < 0 ||
		    nla_put_u8(msg, KVPERF_A_PREFIX_LEN, p->len) < 0)
			return -ENOMEM;
		nla_nest_end(msg, nest);
	}
	return 0;
}

static bool given(const struct kv_server_cfg *cfg, int attr)
{
	return (cfg->has >> attr) & 1;
}

/**
 * server_cfg_put() - the attributes of a KVPERF_CMD_SERVER_START request
 * @msg: the request
 * @cfg: the configuration
 *
 * Address and port always, the device when named; the rest only when
 * given, so that the kernel's defaults apply: poll, idle-timeout-ms, one
 * allow nest per prefix, the key, conns-max, peer-conns-max, srq and
 * bidir.
 *
 * Return: 0, or -ENOMEM.
 */
int server_cfg_put(struct nl_msg *msg, const struct kv_server_cfg *cfg)
{
	if (nla_put(msg, KVPERF_A_SERVER_ADDR, cfg->addr_len, cfg->addr) < 0 ||
	    nla_put_u16(msg, KVPERF_A_SERVER_PORT, cfg->port) < 0 ||
	    (cfg->dev[0] &&
	     nla_put_string(msg, KVPERF_A_SERVER_DEV, cfg->dev) < 0))
		return -ENOMEM;
	if ((given(cfg, KVPERF_A_SERVER_POLL) &&
	     nla_put_u8(msg, KVPERF_A_SERVER_POLL, cfg->poll) < 0) ||
	    (given(cfg, KVPERF_A_SERVER_IDLE_TIMEOUT_MS) &&
	     nla_put_u32(msg, KVPERF_A_SERVER_IDLE_TIMEOUT_MS,
			 cfg->idle_timeout_ms) < 0) ||
	    server_cfg_put_allow(msg, cfg) ||
	    (given(cfg, KVPERF_A_SERVER_KEY) &&
	     nla_put(msg, KVPERF_A_SERVER_KEY, sizeof(cfg->key),
		     cfg->key) < 0) ||
	    (given(cfg, KVPERF_A_SERVER_CONNS_MAX) &&
	     nla_put_u32(msg, KVPERF_A_SERVER_CONNS_MAX, cfg->conns_max) < 0) ||
	    (given(cfg, KVPERF_A_SERVER_PEER_CONNS_MAX) &&
	     nla_put_u32(msg, KVPERF_A_SERVER_PEER_CONNS_MAX,
			 cfg->peer_conns_max) < 0) ||
	    (given(cfg, KVPERF_A_SERVER_SRQ) &&
	     nla_put_u32(msg, KVPERF_A_SERVER_SRQ, cfg->srq) < 0) ||
	    (given(cfg, KVPERF_A_SERVER_BIDIR) &&
	     nla_put_u8(msg, KVPERF_A_SERVER_BIDIR, cfg->bidir) < 0))
		return -ENOMEM;
	return 0;
}

/**
 * server_cfg_clear() - forget the key
 * @cfg: the configuration, its key zeroed where the compiler cannot skip it
 */
void server_cfg_clear(struct kv_server_cfg *cfg)
{
	explicit_bzero(cfg->key, sizeof(cfg->key));
}

/**
 * server_kernel_start() - start a listener in the module
 * @kv: the invocation
 * @cfg: what it is to be
 * @id: receives the listener's id
 *
 * Return: KVPERF_EXIT_OK, or an exit code after saying why (the kernel's
 * refusal with its reason).
 */
int server_kernel_start(struct kvperf *kv, const struct kv_server_cfg *cfg,
			uint32_t *id)
{
	struct knl_reply_id r = {
		.set = &attrs_server, .attr = KVPERF_A_SERVER_ID, .err = kv->err,
	};
	struct nl_msg *msg;
	struct knl nl;
	int ret;

	ret = knl_open(kv, &nl);
	if (ret)
		return ret;
	msg = knl_msg(kv, &nl, KVPERF_CMD_SERVER_START, 0);
	if (!msg) {
		ret = KVPERF_EXIT_ERROR;
		goto out;
	}
	if (server_cfg_put(msg, cfg)) {
		nlmsg_free(msg);
		kvperf_errorf(kv, "out of memory");
		ret = KVPERF_EXIT_ERROR;
		goto out;
	}
	ret = knl_request(kv, &nl, msg, &attrs_server, knl_get_id, &r);
	if (!ret && !r.found) {
		kvperf_errorf(kv, "the kernel did not say the listener's id");
		ret = KVPERF_EXIT_ERROR;
	}
	if (!ret)
		*id = r.id;
out:
	knl_close(&nl);
	return ret;
}

/**
 * server_kernel_stop() - stop a listener of the module
 * @kv: the invocation
 * @id: the listener
 *
 * Return: KVPERF_EXIT_OK, or an exit code after saying why.
 */
int server_kernel_stop(struct kvperf *kv, uint32_t id)
{
	struct knl nl;
	int ret;

	ret = knl_open(kv, &nl);
	if (ret)
		return ret;
	ret = knl_request_id(kv, &nl, KVPERF_CMD_SERVER_STOP, &attrs_server,
			      KVPERF_A_SERVER_ID, id, NULL, NULL);
	knl_close(&nl);
	return ret;
}

/* What server_kernel_find() looks for, and whether a reply has it. */
struct server_find {
	const uint8_t *addr;
	uint8_t addr_len;
	uint16_t port;
	FILE *err;
	bool found;
};

static int server_find_reply(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[KVPERF_A_SERVER_MAX + 1];
	struct server_find *f = arg;
	const struct nlattr *a, *p;

	if (attrs_parse_reply(nlh, &attrs_server, tb, false, f->err))
		return -EINVAL;
	a = tb[KVPERF_A_SERVER_ADDR];
	p = tb[KVPERF_A_SERVER_PORT];
	if (a && p && nla_len(a) == f->addr_len &&
	    !memcmp(nla_data(a), f->addr, f->addr_len) &&
	    attr_uint(p) == f->port)
		f->found = true;
	return 0;
}

/**
 * server_kernel_find() - is there a listener of the module on an address?
 * @kv: the invocation
 * @addr: the address, @addr_len bytes
 * @addr_len: 4 or 16
 * @port: the port
 * @found: receives whether one listens there
 *
 * Return: KVPERF_EXIT_OK, or an exit code after saying why.
 */
int server_kernel_find(struct kvperf *kv, const uint8_t *addr,
		       uint8_t addr_len, uint16_t port, bool *found)
{
	struct server_find f = {
		.addr = addr, .addr_len = addr_len, .port = port,
		.err = kv->err,
	};
	struct nl_msg *msg;
	struct knl nl;
	int ret;

	ret = knl_open(kv, &nl);
	if (ret)
		return ret;
	msg = knl_msg(kv, &nl, KVPERF_CMD_SERVER_GET, NLM_F_DUMP);
	if (!msg)
		ret = KVPERF_EXIT_ERROR;
	else
		ret = knl_request(kv, &nl, msg, &attrs_server,
				  server_find_reply, &f);
	knl_close(&nl);
	*found = f.found;
	return ret;
}
