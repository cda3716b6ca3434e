// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: the "kvperf" generic-netlink family, its policies and its
 * events multicast group. Documentation/netlink/specs/kvperf.yaml
 * describes what is here.
 *
 * Gets and dumps are open to every user; every operation that changes
 * state carries GENL_ADMIN_PERM, so it needs CAP_NET_ADMIN.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>
#include <linux/kvperf.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>

#include "kvperf.h"
#include "nl.h"
#include "proto.h"
#include "run.h"
#include "server.h"

enum kvperf_nl_mcgrp {
	KVPERF_NLGRP_EVENTS,
};

static const struct genl_multicast_group kvperf_nl_mcgrps[] = {
	[KVPERF_NLGRP_EVENTS] = { .name = KVPERF_MCGRP_EVENTS, },
};

/*
 * The policies follow the spec's checks: every range is one of its
 * constants (<linux/kvperf.h>), as the spec's own checks name them, and
 * selftests/spec/spec_test.sh compares the two.
 */
static_assert(KVPERF_DEV_NAME_MAX + 1 == IB_DEVICE_NAME_MAX);

static const struct nla_policy kvperf_dev_get_policy[KVPERF_A_DEV_NAME + 1] = {
	[KVPERF_A_DEV_NAME] = { .type = NLA_NUL_STRING,
				.len = KVPERF_DEV_NAME_MAX },
};

static const struct nla_policy kvperf_prefix_policy[KVPERF_A_PREFIX_LEN + 1] = {
	[KVPERF_A_PREFIX_ADDR] = NLA_POLICY_RANGE(NLA_BINARY, 4, 16),
	[KVPERF_A_PREFIX_LEN] = NLA_POLICY_MAX(NLA_U8, 128),
};

/* not const: 6.1's NLA_POLICY_FULL_RANGE() takes a plain pointer */
static struct netlink_range_validation kvperf_idle_range = {
	.min = KVPERF_IDLE_TIMEOUT_MS_MIN, .max = KVPERF_IDLE_TIMEOUT_MS_MAX,
};

static const struct nla_policy kvperf_server_start_policy[KVPERF_A_SERVER_BIDIR + 1] = {
	[KVPERF_A_SERVER_ADDR] = NLA_POLICY_RANGE(NLA_BINARY, 4, 16),
	[KVPERF_A_SERVER_PORT] = NLA_POLICY_MIN(NLA_U16, 1),
	[KVPERF_A_SERVER_DEV] = { .type = NLA_NUL_STRING,
				  .len = KVPERF_DEV_NAME_MAX },
	[KVPERF_A_SERVER_POLL] = NLA_POLICY_MAX(NLA_U8, KVPERF_POLL_WORKQUEUE),
	[KVPERF_A_SERVER_IDLE_TIMEOUT_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &kvperf_idle_range),
	[KVPERF_A_SERVER_ALLOW] = NLA_POLICY_NESTED(kvperf_prefix_policy),
	[KVPERF_A_SERVER_KEY] = NLA_POLICY_EXACT_LEN(KVPERF_KEY_LEN),
	[KVPERF_A_SERVER_CONNS_MAX] =
		NLA_POLICY_RANGE(NLA_U32, 1, KVPERF_SERVER_CONNS_MAX),
	[KVPERF_A_SERVER_PEER_CONNS_MAX] =
		NLA_POLICY_RANGE(NLA_U32, 1, KVPERF_SERVER_CONNS_MAX),
	[KVPERF_A_SERVER_SRQ] =
		NLA_POLICY_RANGE(NLA_U32, 1, KVPERF_SERVER_SRQ_MAX),
	[KVPERF_A_SERVER_BIDIR] = NLA_POLICY_MAX(NLA_U8, KVPERF_BIDIR_ON),
};

static const struct nla_policy kvperf_server_id_policy[KVPERF_A_SERVER_ID + 1] = {
	[KVPERF_A_SERVER_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

static struct netlink_range_validation kvperf_size_range = {
	.min = KVPERF_SIZE_MIN, .max = KVPERF_SIZE_MAX,
};

static struct netlink_range_validation kvperf_iterations_range = {
	.min = 1, .max = KVPERF_ITERATIONS_MAX,
};

static struct netlink_range_validation kvperf_duration_range = {
	.min = 1, .max = KVPERF_DURATION_MS_MAX,
};

static struct netlink_range_validation kvperf_warmup_range = {
	.min = 0, .max = KVPERF_WARMUP_MAX,
};

static struct netlink_range_validation kvperf_timeout_range = {
	.min = KVPERF_TIMEOUT_MS_MIN, .max = KVPERF_TIMEOUT_MS_MAX,
};

static struct netlink_range_validation kvperf_tx_depth_range = {
	.min = 1, .max = KVPERF_TX_DEPTH_MAX,
};

static struct netlink_range_validation kvperf_bss_range = {
	.min = 0, .max = KVPERF_IO_BSS_MASK,
};

static struct netlink_range_validation kvperf_warmup_ms_range = {
	.min = 1, .max = KVPERF_WARMUP_MS_MAX,
};

static struct netlink_range_validation kvperf_interval_range = {
	.min = KVPERF_INTERVAL_MS_MIN, .max = KVPERF_INTERVAL_MS_MAX,
};

static const struct nla_policy kvperf_run_start_policy[KVPERF_A_RUN_BSS + 1] = {
	[KVPERF_A_RUN_TYPE] = NLA_POLICY_MAX(NLA_U8, KVPERF_RUN_TYPE_IO),
	[KVPERF_A_RUN_OP] = NLA_POLICY_MAX(NLA_U8, KVPERF_OP_READ),
	[KVPERF_A_RUN_ADDR] = NLA_POLICY_RANGE(NLA_BINARY, 4, 16),
	[KVPERF_A_RUN_PORT] = NLA_POLICY_MIN(NLA_U16, 1),
	[KVPERF_A_RUN_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U32, &kvperf_size_range),
	[KVPERF_A_RUN_SIZE_MAX] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &kvperf_size_range),
	[KVPERF_A_RUN_ITERATIONS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &kvperf_iterations_range),
	[KVPERF_A_RUN_DURATION_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &kvperf_duration_range),
	[KVPERF_A_RUN_WARMUP] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &kvperf_warmup_range),
	[KVPERF_A_RUN_POLL] = NLA_POLICY_MAX(NLA_U8, KVPERF_POLL_WORKQUEUE),
	[KVPERF_A_RUN_INLINE] = NLA_POLICY_MAX(NLA_U32, KVPERF_INLINE_MAX),
	[KVPERF_A_RUN_VERIFY] = { .type = NLA_FLAG },
	[KVPERF_A_RUN_CPU] = { .type = NLA_U32 },
	[KVPERF_A_RUN_TIMEOUT_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &kvperf_timeout_range),
	[KVPERF_A_RUN_TX_DEPTH] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &kvperf_tx_depth_range),
	[KVPERF_A_RUN_QPS] = NLA_POLICY_RANGE(NLA_U32, 1, KVPERF_QPS_MAX),
	[KVPERF_A_RUN_CPUS] = { .type = NLA_NUL_STRING,
				.len = KVPERF_CPUS_LEN_MAX },
	[KVPERF_A_RUN_POST_LIST] =
		NLA_POLICY_RANGE(NLA_U32, 1, KVPERF_POST_LIST_MAX),
	[KVPERF_A_RUN_SIGNAL_EVERY] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &kvperf_tx_depth_range),
	[KVPERF_A_RUN_BIDIR] = { .type = NLA_FLAG },
	[KVPERF_A_RUN_INTERVAL_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &kvperf_interval_range),
	[KVPERF_A_RUN_WARMUP_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &kvperf_warmup_ms_range),
	[KVPERF_A_RUN_STATS] = NLA_POLICY_MAX(NLA_U8, KVPERF_STATS_MODE_OFF),
	[KVPERF_A_RUN_KEY] = NLA_POLICY_EXACT_LEN(KVPERF_KEY_LEN),
	[KVPERF_A_RUN_POST_CONTEXT] =
		NLA_POLICY_MAX(NLA_U8, KVPERF_POST_CONTEXT_BH),
	[KVPERF_A_RUN_QD] =
		NLA_POLICY_RANGE(NLA_U32, KVPERF_IO_QD_MIN, KVPERF_IO_QD_MAX),
	[KVPERF_A_RUN_INV] = NLA_POLICY_MAX(NLA_U8, KVPERF_IO_INV_LOCAL),
	[KVPERF_A_RUN_SEGMENTS] = NLA_POLICY_RANGE(NLA_U32, KVPERF_IO_SEGMENTS_MIN,
						   KVPERF_IO_SEGMENTS_MAX),
	[KVPERF_A_RUN_INLINE_DATA] = NLA_POLICY_MAX(NLA_U32,
						    KVPERF_IO_INLINE_DATA_MAX),
	[KVPERF_A_RUN_READ_PCT] = NLA_POLICY_RANGE(NLA_U8, KVPERF_IO_READ_PCT_MIN,
						   KVPERF_IO_READ_PCT_MAX),
	[KVPERF_A_RUN_REG] = NLA_POLICY_MAX(NLA_U8, KVPERF_IO_REG_KERNEL_MAX),
	[KVPERF_A_RUN_BSS] = NLA_POLICY_FULL_RANGE(NLA_U32, &kvperf_bss_range),
};

static const struct nla_policy kvperf_run_id_policy[KVPERF_A_RUN_ID + 1] = {
	[KVPERF_A_RUN_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

static const struct genl_ops kvperf_nl_ops[] = {
	{
		.cmd = KVPERF_CMD_DEV_GET,
		.doit = kvperf_nl_dev_get_doit,
		.dumpit = kvperf_nl_dev_get_dumpit,
		.policy = kvperf_dev_get_policy,
		.maxattr = ARRAY_SIZE(kvperf_dev_get_policy) - 1,
	},
	{
		.cmd = KVPERF_CMD_SERVER_START,
		.doit = kvperf_nl_server_start_doit,
		.policy = kvperf_server_start_policy,
		.maxattr = ARRAY_SIZE(kvperf_server_start_policy) - 1,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = KVPERF_CMD_SERVER_GET,
		.doit = kvperf_nl_server_get_doit,
		.dumpit = kvperf_nl_server_get_dumpit,
		.policy = kvperf_server_id_policy,
		.maxattr = ARRAY_SIZE(kvperf_server_id_policy) - 1,
	},
	{
		.cmd = KVPERF_CMD_SERVER_STOP,
		.doit = kvperf_nl_server_stop_doit,
		.policy = kvperf_server_id_policy,
		.maxattr = ARRAY_SIZE(kvperf_server_id_policy) - 1,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = KVPERF_CMD_RUN_START,
		.doit = kvperf_nl_run_start_doit,
		.policy = kvperf_run_start_policy,
		.maxattr = ARRAY_SIZE(kvperf_run_start_policy) - 1,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = KVPERF_CMD_RUN_GET,
		.doit = kvperf_nl_run_get_doit,
		.dumpit = kvperf_nl_run_get_dumpit,
		.policy = kvperf_run_id_policy,
		.maxattr = ARRAY_SIZE(kvperf_run_id_policy) - 1,
	},
	{
		.cmd = KVPERF_CMD_RUN_STOP,
		.doit = kvperf_nl_run_stop_doit,
		.policy = kvperf_run_id_policy,
		.maxattr = ARRAY_SIZE(kvperf_run_id_policy) - 1,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = KVPERF_CMD_RUN_DELETE,
		.doit = kvperf_nl_run_delete_doit,
		.policy = kvperf_run_id_policy,
		.maxattr = ARRAY_SIZE(kvperf_run_id_policy) - 1,
		.flags = GENL_ADMIN_PERM,
	},
};

/**
 * kvperf_nl_parse_addr() - an address and port attribute as a sockaddr
 * @addr: 4 (IPv4) or 16 (IPv6) bytes, network order
 * @port: u16 port, or NULL for the default
 * @ss: receives the address
 * @extack: for the reason of a refusal
 *
 * Return: 0 or -EINVAL with an extack message.
 */
int kvperf_nl_parse_addr(const struct nlattr *addr, const struct nlattr *port,
			 struct sockaddr_storage *ss,
			 struct netlink_ext_ack *extack)
{
	__be16 p = htons(port ? nla_get_u16(port) : KVPERF_DEFAULT_PORT);

	memset(ss, 0, sizeof(*ss));
	if (nla_len(addr) == 4) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = p;
		memcpy(&sin->sin_addr, nla_data(addr), 4);
		return 0;
	}
	if (nla_len(addr) == 16) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = p;
		memcpy(&sin6->sin6_addr, nla_data(addr), 16);
		return 0;
	}
	NL_SET_ERR_MSG_MOD(extack, "an address is 4 (IPv4) or 16 (IPv6) bytes");
	NL_SET_BAD_ATTR(extack, addr);
	return -EINVAL;
}

/**
 * kvperf_nl_put_addr() - put a sockaddr as address and port attributes
 * @skb: the message
 * @addr_attr: attribute type of the address
 * @port_attr: attribute type of the port
 * @ss: the address, AF_INET or AF_INET6
 *
 * Return: 0 or -EMSGSIZE.
 */
int kvperf_nl_put_addr(struct sk_buff *skb, int addr_attr, int port_attr,
		       const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *sin6 = (const void *)ss;
	const struct sockaddr_in *sin = (const void *)ss;

	if (ss->ss_family == AF_INET6)
		return nla_put(skb, addr_attr, 16, &sin6->sin6_addr) ?:
		       nla_put_u16(skb, port_attr, ntohs(sin6->sin6_port));
	return nla_put(skb, addr_attr, 4, &sin->sin_addr) ?:
	       nla_put_u16(skb, port_attr, ntohs(sin->sin_port));
}

struct genl_family kvperf_nl_family __ro_after_init = {
	.name = KVPERF_FAMILY_NAME,
	.version = KVPERF_FAMILY_VERSION,
	.module = THIS_MODULE,
	.ops = kvperf_nl_ops,
	.n_ops = ARRAY_SIZE(kvperf_nl_ops),
	.resv_start_op = KVPERF_CMD_DEV_GET,
	/* the module's own locks; a long teardown stalls no other family */
	.parallel_ops = true,
	.mcgrps = kvperf_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(kvperf_nl_mcgrps),
};

/*
 * Events may be raised before the family is registered and after it is
 * gone (ib_core calls the client callbacks from module init and exit);
 * they are dropped then.
 */
static DEFINE_MUTEX(kvperf_nl_ntf_lock);
static bool kvperf_nl_registered;

/**
 * kvperf_nl_event_alloc() - allocate an event message
 * @size: payload size
 *
 * Return: the message, or NULL when nobody listens or memory is short.
 */
struct sk_buff *kvperf_nl_event_alloc(size_t size)
{
	if (!READ_ONCE(kvperf_nl_registered) ||
	    !genl_has_listeners(&kvperf_nl_family, &init_net,
				KVPERF_NLGRP_EVENTS))
		return NULL;
	return genlmsg_new(size, GFP_KERNEL);
}

/**
 * kvperf_nl_event_new() - start an event message
 * @cmd: the notification command
 * @hdr: set to the genetlink header, for genlmsg_end()
 *
 * Return: the message, or NULL when nobody listens or memory is short.
 */
struct sk_buff *kvperf_nl_event_new(u8 cmd, void **hdr)
{
	struct sk_buff *skb;

	skb = kvperf_nl_event_alloc(NLMSG_GOODSIZE);
	if (!skb)
		return NULL;
	*hdr = genlmsg_put(skb, 0, 0, &kvperf_nl_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

/**
 * kvperf_nl_notify() - send a finished event message to the events group
 * @skb: the message from kvperf_nl_event_new(); consumed
 */
void kvperf_nl_notify(struct sk_buff *skb)
{
	mutex_lock(&kvperf_nl_ntf_lock);
	if (kvperf_nl_registered)
		genlmsg_multicast(&kvperf_nl_family, skb, 0,
				  KVPERF_NLGRP_EVENTS, GFP_KERNEL);
	else
		nlmsg_free(skb);
	mutex_unlock(&kvperf_nl_ntf_lock);
}

/**
 * kvperf_nl_init() - register the generic-netlink family
 *
 * Return: 0 or a negative errno.
 */
int kvperf_nl_init(void)
{
	int err;

	err = genl_register_family(&kvperf_nl_family);
	if (err)
		return err;

	mutex_lock(&kvperf_nl_ntf_lock);
	WRITE_ONCE(kvperf_nl_registered, true);
	mutex_unlock(&kvperf_nl_ntf_lock);
	return 0;
}

/**
 * kvperf_nl_exit() - unregister the generic-netlink family
 */
void kvperf_nl_exit(void)
{
	mutex_lock(&kvperf_nl_ntf_lock);
	WRITE_ONCE(kvperf_nl_registered, false);
	mutex_unlock(&kvperf_nl_ntf_lock);

	genl_unregister_family(&kvperf_nl_family);
}
