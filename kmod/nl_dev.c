// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: the dev-get command and device events. Each reply describes a
 * device, its ports with their GID entries in use, and the limits a
 * benchmark cares about: what ibv_devinfo and ibstat show, seen from the
 * kernel.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/kvperf.h>
#include <net/genetlink.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "compat.h"
#include "kvperf.h"
#include "nl.h"
#include "run_events.h"

/* Largest reply to a dev-get do; enough for hundreds of GID entries. */
#define KVPERF_DEV_MSG_MAX	(64 * 1024)

static u8 kvperf_node_type(u8 node_type)
{
	switch (node_type) {
	case RDMA_NODE_IB_CA:
		return KVPERF_NODE_TYPE_CA;
	case RDMA_NODE_IB_SWITCH:
		return KVPERF_NODE_TYPE_SWITCH;
	case RDMA_NODE_IB_ROUTER:
		return KVPERF_NODE_TYPE_ROUTER;
	case RDMA_NODE_RNIC:
		return KVPERF_NODE_TYPE_RNIC;
	case RDMA_NODE_USNIC:
		return KVPERF_NODE_TYPE_USNIC;
	case RDMA_NODE_USNIC_UDP:
		return KVPERF_NODE_TYPE_USNIC_UDP;
	case RDMA_NODE_UNSPECIFIED:
		return KVPERF_NODE_TYPE_UNSPECIFIED;
	default:
		return KVPERF_NODE_TYPE_UNKNOWN;
	}
}

static u8 kvperf_transport(struct ib_device *ibdev)
{
	u32 port = rdma_start_port(ibdev);

	if (rdma_protocol_roce(ibdev, port))
		return KVPERF_TRANSPORT_ROCE;
	if (rdma_protocol_iwarp(ibdev, port))
		return KVPERF_TRANSPORT_IWARP;
	if (rdma_protocol_ib(ibdev, port))
		return KVPERF_TRANSPORT_INFINIBAND;
	return KVPERF_TRANSPORT_OTHER;
}

static u8 kvperf_link_layer(struct ib_device *ibdev, u32 port)
{
	switch (rdma_port_get_link_layer(ibdev, port)) {
	case IB_LINK_LAYER_INFINIBAND:
		return KVPERF_LINK_LAYER_INFINIBAND;
	case IB_LINK_LAYER_ETHERNET:
		return KVPERF_LINK_LAYER_ETHERNET;
	default:
		return KVPERF_LINK_LAYER_UNSPECIFIED;
	}
}

static u8 kvperf_gid_type(enum ib_gid_type type)
{
	switch (type) {
	case IB_GID_TYPE_ROCE:
		return KVPERF_GID_TYPE_ROCE_V1;
	case IB_GID_TYPE_ROCE_UDP_ENCAP:
		return KVPERF_GID_TYPE_ROCE_V2;
	default:
		return KVPERF_GID_TYPE_IB;
	}
}

/* Per-lane speed and its nominal data rate, as ibstat reports it. */
static u8 kvperf_speed(u16 ib_speed, u32 *lane_mbps)
{
	static const struct {
		u16 ib;
		u8 speed;
		u32 mbps;
	} map[] = {
		{ IB_SPEED_SDR, KVPERF_SPEED_SDR, 2500 },
		{ IB_SPEED_DDR, KVPERF_SPEED_DDR, 5000 },
		{ IB_SPEED_QDR, KVPERF_SPEED_QDR, 10000 },
		{ IB_SPEED_FDR10, KVPERF_SPEED_FDR10, 10000 },
		{ IB_SPEED_FDR, KVPERF_SPEED_FDR, 14000 },
		{ IB_SPEED_EDR, KVPERF_SPEED_EDR, 25000 },
		{ IB_SPEED_HDR, KVPERF_SPEED_HDR, 50000 },
		{ IB_SPEED_NDR, KVPERF_SPEED_NDR, 100000 },
		{ KVPERF_IB_SPEED_XDR, KVPERF_SPEED_XDR, 200000 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		if (map[i].ib == ib_speed) {
			*lane_mbps = map[i].mbps;
			return map[i].speed;
		}
	}
	*lane_mbps = 0;
	return KVPERF_SPEED_UNKNOWN;
}

static int kvperf_fill_gid(struct sk_buff *skb, const struct ib_gid_attr *attr)
{
	struct net_device *ndev;
	struct nlattr *nest;
	int err = 0;

	nest = nla_nest_start(skb, KVPERF_A_PORT_GID);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, KVPERF_A_GID_INDEX, attr->index) ||
	    nla_put(skb, KVPERF_A_GID_VALUE, sizeof(attr->gid.raw),
		    attr->gid.raw) ||
	    nla_put_u8(skb, KVPERF_A_GID_TYPE, kvperf_gid_type(attr->gid_type)))
		goto err_cancel;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (!IS_ERR(ndev))
		err = nla_put_string(skb, KVPERF_A_GID_NETDEV, ndev->name);
	rcu_read_unlock();
	if (err)
		goto err_cancel;

	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* The GID entries in use, and the port's netdev: that of its first entry. */
static int kvperf_fill_gids(struct sk_buff *skb, struct ib_device *ibdev,
			    u32 port, int tbl_len)
{
	const struct ib_gid_attr *attr;
	bool have_netdev = false;
	int i, err = 0;

	for (i = 0; i < tbl_len && !err; i++) {
		attr = rdma_get_gid_attr(ibdev, port, i);
		if (IS_ERR(attr))
			continue;

		if (!have_netdev) {
			struct net_device *ndev;

			rcu_read_lock();
			ndev = rdma_read_gid_attr_ndev_rcu(attr);
			if (!IS_ERR(ndev)) {
				have_netdev = true;
				err = nla_put_string(skb, KVPERF_A_PORT_NETDEV,
						     ndev->name);
			}
			rcu_read_unlock();
		}
		if (!err)
			err = kvperf_fill_gid(skb, attr);
		rdma_put_gid_attr(attr);
	}
	return err ? -EMSGSIZE : 0;
}

static int kvperf_fill_port(struct sk_buff *skb, struct ib_device *ibdev,
			    u32 port)
{
	struct ib_port_attr pa;
	struct nlattr *nest;
	u32 lane_mbps;
	u8 link_layer, speed;
	int width, err;

	err = ib_query_port(ibdev, port, &pa);
	if (err)
		return err;

	link_layer = kvperf_link_layer(ibdev, port);
	speed = kvperf_speed(pa.active_speed, &lane_mbps);
	width = ib_width_enum_to_int(pa.active_width);
	if (width < 0)
		width = 0;

	nest = nla_nest_start(skb, KVPERF_A_DEV_PORT);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, KVPERF_A_PORT_NUMBER, port) ||
	    nla_put_u8(skb, KVPERF_A_PORT_STATE, pa.state) ||
	    nla_put_u8(skb, KVPERF_A_PORT_PHYS_STATE, pa.phys_state) ||
	    nla_put_u8(skb, KVPERF_A_PORT_LINK_LAYER, link_layer) ||
	    nla_put_u32(skb, KVPERF_A_PORT_ACTIVE_MTU,
			ib_mtu_enum_to_int(pa.active_mtu)) ||
	    nla_put_u32(skb, KVPERF_A_PORT_MAX_MTU,
			ib_mtu_enum_to_int(pa.max_mtu)) ||
	    nla_put_u8(skb, KVPERF_A_PORT_WIDTH, width) ||
	    nla_put_u8(skb, KVPERF_A_PORT_SPEED, speed) ||
	    nla_put_u32(skb, KVPERF_A_PORT_RATE_MBPS, width * lane_mbps) ||
	    nla_put_u32(skb, KVPERF_A_PORT_MAX_MSG_SIZE, pa.max_msg_sz) ||
	    nla_put_u32(skb, KVPERF_A_PORT_GID_TBL_LEN, pa.gid_tbl_len))
		goto err_cancel;

	if (link_layer == KVPERF_LINK_LAYER_INFINIBAND &&
	    (nla_put_u32(skb, KVPERF_A_PORT_LID, pa.lid) ||
	     nla_put_u32(skb, KVPERF_A_PORT_SM_LID, pa.sm_lid) ||
	     nla_put_u8(skb, KVPERF_A_PORT_LMC, pa.lmc)))
		goto err_cancel;

	if (kvperf_fill_gids(skb, ibdev, port, pa.gid_tbl_len))
		goto err_cancel;

	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/*
 * The inline limit takes QPs to probe: only a caller allowed to change
 * state starts the probe, before the device list lock is taken; others
 * see the limit once it is known.
 */
static int kvperf_fill_limits(struct sk_buff *skb, struct kvperf_device *kdev)
{
	const struct ib_device_attr *a = &kdev->ibdev->attrs;
	u32 max_inline;

	if (nla_put_u32(skb, KVPERF_A_DEV_MAX_QP, a->max_qp) ||
	    nla_put_u32(skb, KVPERF_A_DEV_MAX_QP_WR, a->max_qp_wr) ||
	    nla_put_u32(skb, KVPERF_A_DEV_MAX_CQ, a->max_cq) ||
	    nla_put_u32(skb, KVPERF_A_DEV_MAX_CQE, a->max_cqe) ||
	    nla_put_u32(skb, KVPERF_A_DEV_MAX_MR, a->max_mr) ||
	    nla_put_u64_64bit(skb, KVPERF_A_DEV_MAX_MR_SIZE, a->max_mr_size,
			      KVPERF_A_DEV_PAD) ||
	    nla_put_u32(skb, KVPERF_A_DEV_MAX_PD, a->max_pd) ||
	    nla_put_u32(skb, KVPERF_A_DEV_MAX_SEND_SGE, a->max_send_sge) ||
	    nla_put_u32(skb, KVPERF_A_DEV_MAX_RECV_SGE, a->max_recv_sge) ||
	    nla_put_u32(skb, KVPERF_A_DEV_MAX_SGE_RD, a->max_sge_rd) ||
	    nla_put_u32(skb, KVPERF_A_DEV_MAX_QP_RD_ATOM, a->max_qp_rd_atom) ||
	    nla_put_u32(skb, KVPERF_A_DEV_MAX_FAST_REG_PAGES,
			a->max_fast_reg_page_list_len) ||
	    (kvperf_device_max_inline(kdev, &max_inline) &&
	     nla_put_u32(skb, KVPERF_A_DEV_MAX_INLINE, max_inline)))
		return -EMSGSIZE;
	return 0;
}

static int kvperf_fill_dev(struct sk_buff *skb, struct kvperf_device *kdev,
			   u32 portid, u32 seq, int flags)
{
	struct ib_device *ibdev = kdev->ibdev;
	char fw[IB_FW_VERSION_NAME_MAX] = "";
	void *hdr;
	u32 port;
	int err;

	hdr = genlmsg_put(skb, portid, seq, &kvperf_nl_family, flags,
			  KVPERF_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;

	ib_get_device_fw_str(ibdev, fw);
	if (nla_put_u32(skb, KVPERF_A_DEV_INDEX, ibdev->index) ||
	    nla_put_string(skb, KVPERF_A_DEV_NAME, dev_name(&ibdev->dev)) ||
	    nla_put_u64_64bit(skb, KVPERF_A_DEV_NODE_GUID,
			      be64_to_cpu(ibdev->node_guid), KVPERF_A_DEV_PAD) ||
	    nla_put_u64_64bit(skb, KVPERF_A_DEV_SYS_IMAGE_GUID,
			      be64_to_cpu(ibdev->attrs.sys_image_guid),
			      KVPERF_A_DEV_PAD) ||
	    nla_put_u8(skb, KVPERF_A_DEV_NODE_TYPE,
		       kvperf_node_type(ibdev->node_type)) ||
	    nla_put_u8(skb, KVPERF_A_DEV_TRANSPORT, kvperf_transport(ibdev)) ||
	    nla_put_string(skb, KVPERF_A_DEV_FW_VERSION, fw) ||
	    nla_put_u32(skb, KVPERF_A_DEV_PORT_COUNT, ibdev->phys_port_cnt)) {
		err = -EMSGSIZE;
		goto err_cancel;
	}

	err = kvperf_fill_limits(skb, kdev);
	if (err)
		goto err_cancel;

	rdma_for_each_port(ibdev, port) {
		err = kvperf_fill_port(skb, ibdev, port);
		if (err)
			goto err_cancel;
	}

	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return err;
}

/**
 * kvperf_nl_dev_get_doit() - dev-get do: one device, by name
 * @skb: the request
 * @info: the request's attributes and extack
 *
 * Return: 0 or a negative errno, with an extack message.
 */
int kvperf_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kvperf_device *kdev;
	size_t size = NLMSG_GOODSIZE;
	struct sk_buff *msg;
	const char *name;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, KVPERF_A_DEV_NAME)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "missing device name (KVPERF_A_DEV_NAME)");
		return -EINVAL;
	}
	name = nla_data(info->attrs[KVPERF_A_DEV_NAME]);

	/* -ENODEV is found again, with its message, under the lock */
	if (netlink_capable(skb, CAP_NET_ADMIN))
		kvperf_device_probe_inline(name, genl_info_net(info), NULL);
	kvperf_device_lock();
	kdev = kvperf_device_find(name);
	/* a device of another RDMA namespace is not this caller's */
	if (kdev && !rdma_dev_access_netns(kdev->ibdev, genl_info_net(info)))
		kdev = NULL;
	if (!kdev) {
		kvperf_device_unlock();
		KVPERF_SET_ERR_MSG_FMT(info->extack,
				       "no RDMA device with that name",
				       "no RDMA device named %s", name);
		NL_SET_BAD_ATTR(info->extack, info->attrs[KVPERF_A_DEV_NAME]);
		return -ENODEV;
	}

	/* Grow the reply until the device fits: GID tables vary widely. */
	for (;;) {
		msg = genlmsg_new(size, GFP_KERNEL);
		if (!msg) {
			err = -ENOMEM;
			break;
		}
		err = kvperf_fill_dev(msg, kdev, info->snd_portid,
				      info->snd_seq, 0);
		if (err != -EMSGSIZE || size >= KVPERF_DEV_MSG_MAX)
			break;
		nlmsg_free(msg);
		size *= 4;
	}
	kvperf_device_unlock();

	if (err) {
		nlmsg_free(msg);
		NL_SET_ERR_MSG_MOD(info->extack,
				   "failed to describe the device");
		return err;
	}
	return genlmsg_reply(msg, info);
}

/**
 * kvperf_nl_dev_get_dumpit() - dev-get dump: every device
 * @skb: the message being filled
 * @cb: dump state; args[0] counts the devices already sent
 *
 * Return: the message length, 0 at the end, or a negative errno.
 */
int kvperf_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct kvperf_device *kdev;
	long skip = cb->args[0], n = 0;
	int err = 0;

	if (!skip && netlink_capable(cb->skb, CAP_NET_ADMIN))
		kvperf_devices_probe_inline(sock_net(skb->sk));
	kvperf_device_lock();
	list_for_each_entry(kdev, kvperf_device_list(), node) {
		if (!rdma_dev_access_netns(kdev->ibdev, sock_net(skb->sk)))
			continue;
		if (n++ < skip)
			continue;
		err = kvperf_fill_dev(skb, kdev, NETLINK_CB(cb->skb).portid,
				      cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err) {
			n--;
			break;
		}
	}
	kvperf_device_unlock();
	cb->args[0] = n;

	/* A device too large for an empty message can never be sent. */
	if (err && !skb->len) {
		NL_SET_ERR_MSG_MOD(cb->extack,
				   "device description too large for a dump");
		return err;
	}
	return skb->len;
}

/* Announce a device on the events group: @cmd DEV_ADD_NTF or DEV_DEL_NTF. */
static void kvperf_nl_dev_notify(struct kvperf_device *kdev, u8 cmd)
{
	struct ib_device *ibdev = kdev->ibdev;
	struct sk_buff *skb;
	void *hdr;

	skb = kvperf_nl_event_new(cmd, &hdr);
	if (!skb)
		return;
	if (nla_put_u32(skb, KVPERF_A_DEV_INDEX, ibdev->index) ||
	    nla_put_string(skb, KVPERF_A_DEV_NAME, dev_name(&ibdev->dev))) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	kvperf_nl_notify(skb);
}

/* Device added, with the device list lock held. */
static void kvperf_nl_dev_added(struct kvperf_device *kdev)
{
	kvperf_nl_dev_notify(kdev, KVPERF_CMD_DEV_ADD_NTF);
}

/* Device removed, with the device list lock held. */
static void kvperf_nl_dev_removed(struct kvperf_device *kdev)
{
	kvperf_nl_dev_notify(kdev, KVPERF_CMD_DEV_DEL_NTF);
}

/* The device events; registered by module init. */
struct kvperf_run_observer kvperf_nl_dev_observer = {
	.name = "netlink devices",
	.dev_added = kvperf_nl_dev_added,
	.dev_removed = kvperf_nl_dev_removed,
};
