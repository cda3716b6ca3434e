// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: the server-start, server-get and server-stop commands.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kvperf.h>
#include <net/genetlink.h>

#include "kvperf.h"
#include "proto.h"
#include "server.h"

/**
 * kvperf_nl_server_start_doit() - server-start: start a listener
 * @skb: the request
 * @info: its attributes and extack
 *
 * Return: 0 or a negative errno, with an extack message.
 */
int kvperf_nl_server_start_doit(struct sk_buff *skb, struct genl_info *info)
{
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

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = kvperf_server_start(&addr, dev, info->extack, &id);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	hdr = genlmsg_put_reply(msg, info, &kvperf_nl_family, 0,
				KVPERF_CMD_SERVER_START);
	if (!hdr || nla_put_u32(msg, KVPERF_A_SERVER_ID, id)) {
		nlmsg_free(msg);
		kvperf_server_stop(id);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
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
	kvperf_server_reap(srv);
	list_for_each_entry(sc, &srv->conns, node)
		live++;
	if (nla_put_u32(skb, KVPERF_A_SERVER_ID, srv->id) ||
	    kvperf_nl_put_addr(skb, KVPERF_A_SERVER_ADDR, KVPERF_A_SERVER_PORT,
			       &srv->addr) ||
	    nla_put_string(skb, KVPERF_A_SERVER_DEV, srv->dev) ||
	    nla_put_u32(skb, KVPERF_A_SERVER_CONN_COUNT, live))
		goto out;
	list_for_each_entry(sc, &srv->conns, node)
		if (kvperf_fill_sconn(skb, sc))
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
