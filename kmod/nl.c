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

enum kvperf_nl_mcgrp {
	KVPERF_NLGRP_EVENTS,
};

static const struct genl_multicast_group kvperf_nl_mcgrps[] = {
	[KVPERF_NLGRP_EVENTS] = { .name = KVPERF_MCGRP_EVENTS, },
};

static const struct nla_policy kvperf_dev_get_policy[KVPERF_A_DEV_NAME + 1] = {
	[KVPERF_A_DEV_NAME] = { .type = NLA_NUL_STRING,
				.len = IB_DEVICE_NAME_MAX - 1 },
};

static const struct genl_ops kvperf_nl_ops[] = {
	{
		.cmd = KVPERF_CMD_DEV_GET,
		.doit = kvperf_nl_dev_get_doit,
		.dumpit = kvperf_nl_dev_get_dumpit,
		.policy = kvperf_dev_get_policy,
		.maxattr = ARRAY_SIZE(kvperf_dev_get_policy) - 1,
	},
};

struct genl_family kvperf_nl_family __ro_after_init = {
	.name = KVPERF_FAMILY_NAME,
	.version = KVPERF_FAMILY_VERSION,
	.module = THIS_MODULE,
	.ops = kvperf_nl_ops,
	.n_ops = ARRAY_SIZE(kvperf_nl_ops),
	.resv_start_op = KVPERF_CMD_DEV_GET,
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
 * kvperf_nl_event_new() - start an event message
 * @cmd: the notification command
 * @hdr: set to the genetlink header, for genlmsg_end()
 *
 * Return: the message, or NULL when nobody listens or memory is short.
 */
struct sk_buff *kvperf_nl_event_new(u8 cmd, void **hdr)
{
	struct sk_buff *skb;

	if (!READ_ONCE(kvperf_nl_registered) ||
	    !genl_has_listeners(&kvperf_nl_family, &init_net,
				KVPERF_NLGRP_EVENTS))
		return NULL;

	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
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
