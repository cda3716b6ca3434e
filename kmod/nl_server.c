// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: the server-start, server-get and server-stop commands.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kvperf.h>
#include <linux/stringify.h>
#include <net/genetlink.h>

#include "kvperf.h"
#include "nl.h"
#include "proto.h"
#include "server.h"

static int kvperf_nl_server_allow(struct genl_info *info,
				  struct kvperf_server_opts *o)
{
	struct nlattr *tb[KVPERF_A_PREFIX_LEN + 1];
	const struct nlattr *a;
	int rem, err;

	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(a) != KVPERF_A_SERVER_ALLOW)
			continue;
		if (o->nallow >= KVPERF_SERVER_ALLOW_MAX) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "too many allow prefixes (at most "
					    __stringify(KVPERF_SERVER_ALLOW_MAX) ")");
			return -E2BIG;
		}
		/* the policy checked the nest already */
		err = nla_parse_nested(tb, KVPERF_A_PREFIX_LEN, a, NULL,
				       info->extack);
		if (err)
			return err;
		if (!tb[KVPERF_A_PREFIX_ADDR] || !tb[KVPERF_A_PREFIX_LEN] ||
		    kvperf_prefix_set(&o->allow[o->nallow],
				      nla_data(tb[KVPERF_A_PREFIX_ADDR]),
				      nla_len(tb[KVPERF_A_PREFIX_ADDR]),
				      nla_get_u8(tb[KVPERF_A_PREFIX_LEN]))) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "an allow prefix is an address of 4 or 16 bytes and a length of at most 32 or 128 bits");
			return -EINVAL;
		}
		o->nallow++;
	}
	return 0;
}

static int kvperf_nl_server_opts(struct genl_info *info,
				 struct kvperf_server_opts *o)
{
	struct nlattr **tb = info->attrs;

	memset(o, 0, sizeof(*o));
	o->poll = tb[KVPERF_A_SERVER_POLL] ?
		  nla_get_u8(tb[KVPERF_A_SERVER_POLL]) : KVPERF_POLL_SOFTIRQ;
	if (tb[KVPERF_A_SERVER_IDLE_TIMEOUT_MS])
		o->idle_ms = nla_get_u32(tb[KVPERF_A_SERVER_IDLE_TIMEOUT_MS]);
	if (tb[KVPERF_A_SERVER_CONNS_MAX])
		o->conns_max = nla_get_u32(tb[KVPERF_A_SERVER_CONNS_MAX]);
	if (tb[KVPERF_A_SERVER_PEER_CONNS_MAX]) {
		o->peer_conns_max =
			nla_get_u32(tb[KVPERF_A_SERVER_PEER_CONNS_MAX]);
		if (o->conns_max && o->peer_conns_max > o->conns_max) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    tb[KVPERF_A_SERVER_PEER_CONNS_MAX],
					    "peer-conns-max is larger than conns-max");
			return -EINVAL;
		}
	}
	if (tb[KVPERF_A_SERVER_SRQ])
		o->srq = nla_get_u32(tb[KVPERF_A_SERVER_SRQ]);
	o->bidir = !tb[KVPERF_A_SERVER_BIDIR] ||
		   nla_get_u8(tb[KVPERF_A_SERVER_BIDIR]) == KVPERF_BIDIR_ON;
	if (tb[KVPERF_A_SERVER_KEY]) {
		/* a client without a key sends zeros: they would let it in */
		if (!memchr_inv(nla_data(tb[KVPERF_A_SERVER_KEY]), 0,
				sizeof(o->key))) {
			NL_SET_ERR_MSG_MOD(info->extack,
					   "the key is all zero, which means no key");
			NL_SET_BAD_ATTR(info->extack, tb[KVPERF_A_SERVER_KEY]);
			return -EINVAL;
		}
		o->keyed = true;
		nla_memcpy(o->key, tb[KVPERF_A_SERVER_KEY], sizeof(o->key));
	}
	return kvperf_nl_server_allow(info, o);
}

/**
 * kvperf_nl_server_start_doit() - server-start: start a listener
 * @skb: the request
 * @info: its attributes and extack
 *
 * Return: 0 or a negative errno, with an extack message.
 */
int kvperf_nl_server_start_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kvperf_server_opts *opts;
	struct sockaddr_storage addr;
	struct sk_buff *msg;
	const char *dev = NULL;
	void *hdr;
	u32 id;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, KVPERF_A_SERVER_ADDR)) {
		NL_SET_ERR_MSG_MOD(info->extack, "missing address to listen on");
		return -EINVAL;
	}
	err = kvperf_nl_parse_addr(info->attrs[KVPERF_A_SERVER_ADDR],
				   info->attrs[KVPERF_A_SERVER_PORT], &addr,
				   info->extack);
	if (err)
		return err;
	if (info->attrs[KVPERF_A_SERVER_DEV])
		dev = nla_data(info->attrs[KVPERF_A_SERVER_DEV]);
	opts = kzalloc(sizeof(*opts), GFP_KERNEL);
	if (!opts)
		return -ENOMEM;
	err = kvperf_nl_server_opts(info, opts);
	if (err)
		goto out;

	err = -ENOMEM;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto out;
	err = kvperf_server_start(&addr, dev, opts, info->extack, &id);
	if (err) {
		nlmsg_free(msg);
		goto out;
	}
	hdr = genlmsg_put_reply(msg, info, &kvperf_nl_family, 0,
				KVPERF_CMD_SERVER_START);
	if (!hdr || nla_put_u32(msg, KVPERF_A_SERVER_ID, id)) {
		nlmsg_free(msg);
		kvperf_server_stop(id);
		err = -EMSGSIZE;
		goto out;
	}
	genlmsg_end(msg, hdr);
	err = genlmsg_reply(msg, info);
out:
	kfree_sensitive(opts);
	return err;
}

static int kvperf_fill_sconn(struct sk_buff *skb, struct kvperf_sconn *sc)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, KVPERF_A_SERVER_CONN);
	if (!nest)
		return -EMSGSIZE;
	if (kvperf_nl_put_addr(skb, KVPERF_A_CONN_PEER_ADDR,
			       KVPERF_A_CONN_PEER_PORT, &sc->peer) ||
	    nla_put_u8(skb, KVPERF_A_CONN_OP, sc->op) ||
	    nla_put_u32(skb, KVPERF_A_CONN_SIZE_MAX, sc->conn.size_max) ||
	    nla_put_u64_64bit(skb, KVPERF_A_CONN_ITERATIONS,
			      atomic64_read(&sc->served),
			      KVPERF_A_CONN_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int kvperf_fill_prefix(struct sk_buff *skb,
			      const struct kvperf_prefix *p)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, KVPERF_A_SERVER_ALLOW);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put(skb, KVPERF_A_PREFIX_ADDR, p->alen, p->addr) ||
	    nla_put_u8(skb, KVPERF_A_PREFIX_LEN, p->len)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int kvperf_fill_server_opts(struct sk_buff *skb,
				   const struct kvperf_server *srv)
{
	const struct kvperf_server_opts *o = &srv->opts;
	const struct kvperf_server_counters *n = &srv->count;
	unsigned int i;

	if (nla_put_u8(skb, KVPERF_A_SERVER_POLL, o->poll) ||
	    nla_put_u32(skb, KVPERF_A_SERVER_IDLE_TIMEOUT_MS, o->idle_ms) ||
	    nla_put_u32(skb, KVPERF_A_SERVER_CONNS_MAX, o->conns_max) ||
	    nla_put_u32(skb, KVPERF_A_SERVER_PEER_CONNS_MAX,
			o->peer_conns_max) ||
	    nla_put_u8(skb, KVPERF_A_SERVER_BIDIR,
		       o->bidir ? KVPERF_BIDIR_ON : KVPERF_BIDIR_OFF) ||
	    (o->keyed && nla_put_flag(skb, KVPERF_A_SERVER_KEYED)))
		return -EMSGSIZE;
	/* the listener's lock held: its queue stays until it is dropped */
	if (o->srq &&
	    (nla_put_u32(skb, KVPERF_A_SERVER_SRQ, o->srq) ||
	     nla_put_u32(skb, KVPERF_A_SERVER_SRQ_GRANTED,
			 srv->srq ? kvperf_io_srq_granted(srv->srq) : 0)))
		return -EMSGSIZE;
	for (i = 0; i < o->nallow; i++)
		if (kvperf_fill_prefix(skb, &o->allow[i]))
			return -EMSGSIZE;
#define KVPERF_PUT_COUNT(attr, v) \
	nla_put_u64_64bit(skb, attr, atomic64_read(v), KVPERF_A_SERVER_PAD)
	if (KVPERF_PUT_COUNT(KVPERF_A_SERVER_PINNED, &srv->pinned) ||
	    KVPERF_PUT_COUNT(KVPERF_A_SERVER_ACCEPTED, &n->accepted) ||
	    KVPERF_PUT_COUNT(KVPERF_A_SERVER_REFUSED_REQUEST,
			     &n->refused_request) ||
	    KVPERF_PUT_COUNT(KVPERF_A_SERVER_REFUSED_ADDRESS,
			     &n->refused_address) ||
	    KVPERF_PUT_COUNT(KVPERF_A_SERVER_REFUSED_KEY, &n->refused_key) ||
	    KVPERF_PUT_COUNT(KVPERF_A_SERVER_REFUSED_BUSY, &n->refused_busy) ||
	    KVPERF_PUT_COUNT(KVPERF_A_SERVER_REFUSED_MEMORY,
			     &n->refused_memory) ||
	    KVPERF_PUT_COUNT(KVPERF_A_SERVER_CLOSED_IDLE, &n->closed_idle) ||
	    KVPERF_PUT_COUNT(KVPERF_A_SERVER_CLOSED_DEAD, &n->closed_dead))
		return -EMSGSIZE;
#undef KVPERF_PUT_COUNT
	return 0;
}

/*
 * A listener with its live connections. At most KVPERF_SERVER_CONNS_MAX
 * of about 60 bytes each and the listener's own 8 prefixes and counters:
 * about 1.7 KiB, so one always fits in a message of NLMSG_GOODSIZE.
 * Reading changes nothing: ended connections are the reaper's.
 */
static int kvperf_fill_server(struct sk_buff *skb, struct kvperf_server *srv,
			      u32 portid, u32 seq, int flags)
{
	struct kvperf_sconn *sc;
	u32 live = 0;
	void *hdr;
	int err = -EMSGSIZE;

	hdr = genlmsg_put(skb, portid, seq, &kvperf_nl_family, flags,
			  KVPERF_CMD_SERVER_GET);
	if (!hdr)
		return -EMSGSIZE;

	mutex_lock(&srv->lock);
	list_for_each_entry(sc, &srv->conns, node)
		if (!READ_ONCE(sc->finished))
			live++;
	if (nla_put_u32(skb, KVPERF_A_SERVER_ID, srv->id) ||
	    kvperf_nl_put_addr(skb, KVPERF_A_SERVER_ADDR, KVPERF_A_SERVER_PORT,
			       &srv->addr) ||
	    nla_put_string(skb, KVPERF_A_SERVER_DEV, srv->dev) ||
	    nla_put_u32(skb, KVPERF_A_SERVER_CONN_COUNT, live) ||
	    kvperf_fill_server_opts(skb, srv))
		goto out;
	list_for_each_entry(sc, &srv->conns, node)
		if (!READ_ONCE(sc->finished) && kvperf_fill_sconn(skb, sc))
			goto out;
	err = 0;
out:
	mutex_unlock(&srv->lock);
	if (err) {
		genlmsg_cancel(skb, hdr);
		return err;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/**
 * kvperf_nl_server_get_doit() - server-get do: one listener
 * @skb: the request
 * @info: its attributes and extack
 *
 * Return: 0 or a negative errno, with an extack message.
 */
int kvperf_nl_server_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kvperf_server *srv;
	struct sk_buff *msg;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, KVPERF_A_SERVER_ID)) {
		NL_SET_ERR_MSG_MOD(info->extack, "missing server id");
		return -EINVAL;
	}
	msg = genlmsg_new(2 * NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	kvperf_servers_lock();
	srv = kvperf_server_find(nla_get_u32(info->attrs[KVPERF_A_SERVER_ID]));
	if (!srv) {
		kvperf_servers_unlock();
		nlmsg_free(msg);
		NL_SET_ERR_MSG_MOD(info->extack, "no server with that id");
		NL_SET_BAD_ATTR(info->extack, info->attrs[KVPERF_A_SERVER_ID]);
		return -ENOENT;
	}
	err = kvperf_fill_server(msg, srv, info->snd_portid, info->snd_seq, 0);
	kvperf_servers_unlock();
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/**
 * kvperf_nl_server_get_dumpit() - server-get dump: every listener
 * @skb: the message being filled
 * @cb: dump state; args[0] is the next server id to send
 *
 * Return: the message length, or a negative errno.
 */
int kvperf_nl_server_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	struct kvperf_server *srv;
	int err = 0;

	kvperf_servers_lock();
	list_for_each_entry(srv, kvperf_server_list(), node) {
		if (srv->id < cb->args[0])
			continue;
		err = kvperf_fill_server(skb, srv, NETLINK_CB(cb->skb).portid,
					 cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err)
			break;
		cb->args[0] = srv->id + 1;
	}
	kvperf_servers_unlock();
	if (err && !skb->len)
		return err;
	return skb->len;
}

/**
 * kvperf_nl_server_stop_doit() - server-stop: stop a listener
 * @skb: the request
 * @info: its attributes and extack
 *
 * Return: 0 or a negative errno, with an extack message.
 */
int kvperf_nl_server_stop_doit(struct sk_buff *skb, struct genl_info *info)
{
	if (GENL_REQ_ATTR_CHECK(info, KVPERF_A_SERVER_ID)) {
		NL_SET_ERR_MSG_MOD(info->extack, "missing server id");
		return -EINVAL;
	}
	if (kvperf_server_stop(nla_get_u32(info->attrs[KVPERF_A_SERVER_ID]))) {
		NL_SET_ERR_MSG_MOD(info->extack, "no server with that id");
		NL_SET_BAD_ATTR(info->extack, info->attrs[KVPERF_A_SERVER_ID]);
		return -ENOENT;
	}
	return 0;
}

/*
 * The listener and connection events. The events group needs no
 * privilege to join, so they carry only what server-get shows every
 * user: never the key, the allow list or the counters. Their rate is
 * bounded by the listeners' (at most 8, each started and stopped by
 * CAP_NET_ADMIN) and by the connections a listener accepts (at most
 * conns-max at once, each set up through the RDMA CM); a listener
 * receiving too slowly loses events (ENOBUFS), never blocks the module.
 *
 * A listener's event (@sc NULL) carries its device; a connection's the
 * connection's nest, as server-get has it.
 */
static void kvperf_nl_server_notify(struct kvperf_server *srv,
				    struct kvperf_sconn *sc, u8 cmd)
{
	struct sk_buff *skb;
	void *hdr;

	skb = kvperf_nl_event_new(cmd, &hdr);
	if (!skb)
		return;
	if (nla_put_u32(skb, KVPERF_A_SERVER_ID, srv->id) ||
	    kvperf_nl_put_addr(skb, KVPERF_A_SERVER_ADDR, KVPERF_A_SERVER_PORT,
			       &srv->addr) ||
	    (sc ? kvperf_fill_sconn(skb, sc) :
		  nla_put_string(skb, KVPERF_A_SERVER_DEV, srv->dev))) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	kvperf_nl_notify(skb);
}

static void kvperf_nl_server_started(struct kvperf_server *srv)
{
	kvperf_nl_server_notify(srv, NULL, KVPERF_CMD_SERVER_STARTED_NTF);
}

static void kvperf_nl_server_stopped(struct kvperf_server *srv)
{
	kvperf_nl_server_notify(srv, NULL, KVPERF_CMD_SERVER_STOPPED_NTF);
}

static void kvperf_nl_conn_accepted(struct kvperf_sconn *sc)
{
	kvperf_nl_server_notify(sc->srv, sc, KVPERF_CMD_CONN_ACCEPTED_NTF);
}

static void kvperf_nl_conn_closed(struct kvperf_sconn *sc)
{
	kvperf_nl_server_notify(sc->srv, sc, KVPERF_CMD_CONN_CLOSED_NTF);
}

/* The listener and connection events; registered by module init. */
struct kvperf_run_observer kvperf_nl_server_observer = {
	.name = "netlink servers",
	.server_started = kvperf_nl_server_started,
	.server_stopped = kvperf_nl_server_stopped,
	.conn_accepted = kvperf_nl_conn_accepted,
	.conn_closed = kvperf_nl_conn_closed,
};
