// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/cli/dev_print.c: KVPERF_CMD_DEV_GET replies built here
 * attribute by attribute, printed as text and JSON and compared whole.
 */
#include <errno.h>
#include <string.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "dev.h"
#include "print.h"
#include "unit.h"

static const uint8_t gid_ll[16] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0,
	0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56,
};

static const uint8_t gid_v4[16] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 1,
};

static void put_gid(struct nl_msg *msg, uint32_t index, const uint8_t *gid,
		    uint8_t type, const char *netdev)
{
	struct nlattr *nest = nla_nest_start(msg, KVPERF_A_PORT_GID);

	nla_put_u32(msg, KVPERF_A_GID_INDEX, index);
	nla_put(msg, KVPERF_A_GID_VALUE, 16, gid);
	nla_put_u8(msg, KVPERF_A_GID_TYPE, type);
	if (netdev)
		nla_put_string(msg, KVPERF_A_GID_NETDEV, netdev);
	nla_nest_end(msg, nest);
}

/* What the module sends for an rxe device on dummy0. */
static struct nl_msg *rxe0_msg(void)
{
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_DEV_GET);
	struct nlattr *port;

	nla_put_u32(msg, KVPERF_A_DEV_INDEX, 1);
	nla_put_string(msg, KVPERF_A_DEV_NAME, "rxe0");
	nla_put(msg, KVPERF_A_DEV_PAD, 0, NULL);
	nla_put_u64(msg, KVPERF_A_DEV_NODE_GUID, 0x505400fffe123456ULL);
	nla_put(msg, KVPERF_A_DEV_PAD, 0, NULL);
	nla_put_u64(msg, KVPERF_A_DEV_SYS_IMAGE_GUID, 0x505400fffe123456ULL);
	nla_put_u8(msg, KVPERF_A_DEV_NODE_TYPE, KVPERF_NODE_TYPE_RNIC);
	nla_put_u8(msg, KVPERF_A_DEV_TRANSPORT, KVPERF_TRANSPORT_ROCE);
	nla_put_string(msg, KVPERF_A_DEV_FW_VERSION, "0.0.0");
	nla_put_u32(msg, KVPERF_A_DEV_PORT_COUNT, 1);

	port = nla_nest_start(msg, KVPERF_A_DEV_PORT);
	nla_put_u32(msg, KVPERF_A_PORT_NUMBER, 1);
	nla_put_u8(msg, KVPERF_A_PORT_STATE, KVPERF_PORT_STATE_ACTIVE);
	nla_put_u8(msg, KVPERF_A_PORT_PHYS_STATE, KVPERF_PHYS_STATE_LINK_UP);
	nla_put_u8(msg, KVPERF_A_PORT_LINK_LAYER, KVPERF_LINK_LAYER_ETHERNET);
	nla_put_u32(msg, KVPERF_A_PORT_ACTIVE_MTU, 1024);
	nla_put_u32(msg, KVPERF_A_PORT_MAX_MTU, 4096);
	nla_put_u8(msg, KVPERF_A_PORT_WIDTH, 1);
	nla_put_u8(msg, KVPERF_A_PORT_SPEED, KVPERF_SPEED_SDR);
	nla_put_u32(msg, KVPERF_A_PORT_RATE_MBPS, 2500);
	nla_put_u32(msg, KVPERF_A_PORT_LID, 0);
	nla_put_u32(msg, KVPERF_A_PORT_SM_LID, 0);
	nla_put_u8(msg, KVPERF_A_PORT_LMC, 0);
	nla_put_u32(msg, KVPERF_A_PORT_MAX_MSG_SIZE, 2147483648U);
	nla_put_u32(msg, KVPERF_A_PORT_GID_TBL_LEN, 1024);
	nla_put_string(msg, KVPERF_A_PORT_NETDEV, "dummy0");
	put_gid(msg, 0, gid_ll, KVPERF_GID_TYPE_ROCE_V2, "dummy0");
	put_gid(msg, 1, gid_v4, KVPERF_GID_TYPE_ROCE_V2, "dummy0");
	nla_nest_end(msg, port);

	nla_put_u32(msg, KVPERF_A_DEV_MAX_QP, 1048560);
	nla_put_u32(msg, KVPERF_A_DEV_MAX_QP_WR, 1048576);
	nla_put_u32(msg, KVPERF_A_DEV_MAX_CQ, 16384);
	nla_put_u32(msg, KVPERF_A_DEV_MAX_CQE, 32767);
	nla_put_u32(msg, KVPERF_A_DEV_MAX_MR, 262144);
	nla_put(msg, KVPERF_A_DEV_PAD, 0, NULL);
	nla_put_u64(msg, KVPERF_A_DEV_MAX_MR_SIZE, UINT64_MAX);
	nla_put_u32(msg, KVPERF_A_DEV_MAX_PD, 1048576);
	nla_put_u32(msg, KVPERF_A_DEV_MAX_SEND_SGE, 32);
	nla_put_u32(msg, KVPERF_A_DEV_MAX_RECV_SGE, 32);
	nla_put_u32(msg, KVPERF_A_DEV_MAX_SGE_RD, 32);
	nla_put_u32(msg, KVPERF_A_DEV_MAX_QP_RD_ATOM, 128);
	nla_put_u32(msg, KVPERF_A_DEV_MAX_FAST_REG_PAGES, 512);
	nla_put_u32(msg, KVPERF_A_DEV_MAX_INLINE, 400);
	return msg;
}

static const char rxe0_text[] =
	"1: rxe0: node_type RNIC transport RoCE fw 0.0.0 "
	"node_guid 5054:00ff:fe12:3456 sys_image_guid 5054:00ff:fe12:3456\n"
	"    limits: max_qp 1048560 max_qp_wr 1048576 max_cq 16384 "
	"max_cqe 32767 max_mr 262144 max_mr_size 18446744073709551615 "
	"max_pd 1048576 max_send_sge 32 max_recv_sge 32 max_sge_rd 32 "
	"max_qp_rd_atom 128 max_fast_reg_pages 512 max_inline 400\n"
	"    port 1: state ACTIVE physical_state LINK_UP link_layer Ethernet "
	"netdev dummy0\n"
	"        active_mtu 1024 max_mtu 4096 width 1X speed SDR "
	"rate 2.5 Gb/s lid 0 sm_lid 0 lmc 0 max_msg_size 2147483648 "
	"gid_tbl_len 1024\n"
	"        gid 0 fe80:0000:0000:0000:5054:00ff:fe12:3456 RoCEv2 dummy0\n"
	"        gid 1 0000:0000:0000:0000:0000:ffff:c612:0001 RoCEv2 dummy0\n";

static const char rxe0_json[] =
	"{\"ifindex\":1,\"ifname\":\"rxe0\",\"node_type\":\"RNIC\","
	"\"transport\":\"RoCE\",\"fw\":\"0.0.0\","
	"\"node_guid\":\"5054:00ff:fe12:3456\","
	"\"sys_image_guid\":\"5054:00ff:fe12:3456\",\"port_count\":1,"
	"\"max_qp\":1048560,\"max_qp_wr\":1048576,\"max_cq\":16384,"
	"\"max_cqe\":32767,\"max_mr\":262144,"
	"\"max_mr_size\":18446744073709551615,\"max_pd\":1048576,"
	"\"max_send_sge\":32,\"max_recv_sge\":32,\"max_sge_rd\":32,"
	"\"max_qp_rd_atom\":128,\"max_fast_reg_pages\":512,"
	"\"max_inline\":400,"
	"\"ports\":[{\"port\":1,\"state\":\"ACTIVE\","
	"\"physical_state\":\"LINK_UP\",\"link_layer\":\"Ethernet\","
	"\"netdev\":\"dummy0\",\"active_mtu\":1024,\"max_mtu\":4096,"
	"\"width\":1,\"speed\":\"SDR\",\"rate_mbps\":2500,\"lid\":0,"
	"\"sm_lid\":0,\"lmc\":0,\"max_msg_size\":2147483648,"
	"\"gid_tbl_len\":1024,"
	"\"gids\":[{\"index\":0,"
	"\"gid\":\"fe80:0000:0000:0000:5054:00ff:fe12:3456\","
	"\"type\":\"RoCEv2\",\"netdev\":\"dummy0\"},"
	"{\"index\":1,\"gid\":\"0000:0000:0000:0000:0000:ffff:c612:0001\","
	"\"type\":\"RoCEv2\",\"netdev\":\"dummy0\"}]}]}";

/* Print messages the way "dev show" does: an array of devices. */
static int print_devs(struct capture *c, bool json, bool pretty,
		      struct nl_msg **msgs, int n, struct capture *err)
{
	struct printer p;
	int i, ret = 0;

	pr_init(&p, cap_open(c), json, pretty);
	cap_open(err);
	pr_arr_open(&p, NULL);
	for (i = 0; i < n && !ret; i++)
		ret = dev_print(&p, nlmsg_hdr(msgs[i]), err->f);
	pr_arr_close(&p);
	pr_finish(&p);
	cap_str(c);
	cap_str(err);
	return ret;
}

static void dev_text_full(void)
{
	struct nl_msg *msg = rxe0_msg();
	struct capture c, err;

	CHECK_INT(print_devs(&c, false, false, &msg, 1, &err), 0);
	CHECK_STR(c.buf, rxe0_text);
	CHECK_STR(err.buf, "");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

static void dev_json_full(void)
{
	struct nl_msg *msg = rxe0_msg();
	struct capture c, err;
	char want[2048];

	snprintf(want, sizeof(want), "[%s]\n", rxe0_json);
	CHECK_INT(print_devs(&c, true, false, &msg, 1, &err), 0);
	CHECK_STR(c.buf, want);
	CHECK_JSON(c.buf,
		   "assert isinstance(d, list) and len(d) == 1\n"
		   "v = d[0]\n"
		   "assert v['max_mr_size'] == 18446744073709551615\n"
		   "assert v['node_guid'] == '5054:00ff:fe12:3456'\n"
		   "p = v['ports'][0]\n"
		   "assert p['rate_mbps'] == 2500 and p['width'] == 1\n"
		   "assert p['max_msg_size'] == 2147483648\n"
		   "assert [g['index'] for g in p['gids']] == [0, 1]\n"
		   "assert p['gids'][0]['type'] == 'RoCEv2'\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

static void dev_json_pretty_two_devices(void)
{
	struct nl_msg *msgs[2] = { rxe0_msg(), unit_genl_msg(1) };
	struct capture c, err;

	nla_put_u32(msgs[1], KVPERF_A_DEV_INDEX, 2);
	nla_put_string(msgs[1], KVPERF_A_DEV_NAME, "siw0");
	CHECK_INT(print_devs(&c, true, true, msgs, 2, &err), 0);
	CHECK(!strncmp(c.buf, "[\n    {\n        \"ifindex\": 1,\n", 30));
	CHECK_JSON(c.buf,
		   "assert [v['ifname'] for v in d] == ['rxe0', 'siw0']\n"
		   "assert d[1] == {'ifindex': 2, 'ifname': 'siw0'}\n"
		   "assert d[0]['ports'][0]['gids'][1]['gid'] == "
		   "'0000:0000:0000:0000:0000:ffff:c612:0001'\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msgs[0]);
	nlmsg_free(msgs[1]);
}

/* Only what the kernel sent is printed. */
static void dev_missing_attrs_omitted(void)
{
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_DEV_GET);
	struct capture c, err;
	struct nlattr *port;

	nla_put_u32(msg, KVPERF_A_DEV_INDEX, 5);
	nla_put_string(msg, KVPERF_A_DEV_NAME, "mlx5_0");
	nla_put_u32(msg, KVPERF_A_DEV_MAX_QP, 7);
	port = nla_nest_start(msg, KVPERF_A_DEV_PORT);
	nla_put_u32(msg, KVPERF_A_PORT_NUMBER, 2);
	nla_nest_end(msg, port);

	CHECK_INT(print_devs(&c, false, false, &msg, 1, &err), 0);
	CHECK_STR(c.buf, "5: mlx5_0:\n    limits: max_qp 7\n    port 2:\n");
	cap_close(&c);
	cap_close(&err);

	CHECK_INT(print_devs(&c, true, false, &msg, 1, &err), 0);
	CHECK_STR(c.buf, "[{\"ifindex\":5,\"ifname\":\"mlx5_0\",\"max_qp\":7,"
		  "\"ports\":[{\"port\":2}]}]\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);

	/* no limits at all: no "limits:" line */
	msg = unit_genl_msg(KVPERF_CMD_DEV_GET);
	nla_put_u32(msg, KVPERF_A_DEV_INDEX, 5);
	CHECK_INT(print_devs(&c, false, false, &msg, 1, &err), 0);
	CHECK_STR(c.buf, "5:\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

/* A newer module: unknown attributes ignored, unknown enums as numbers. */
static void dev_forward_compatible(void)
{
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_DEV_GET);
	struct capture c, err;
	struct nlattr *port, *gid;

	nla_put_u32(msg, KVPERF_A_DEV_INDEX, 9);
	nla_put_u32(msg, KVPERF_A_DEV_MAX + 5, 1234);
	nla_put_u8(msg, KVPERF_A_DEV_NODE_TYPE, 42);
	nla_put_u8(msg, KVPERF_A_DEV_TRANSPORT, 200);
	port = nla_nest_start(msg, KVPERF_A_DEV_PORT);
	nla_put_u32(msg, KVPERF_A_PORT_NUMBER, 1);
	nla_put_string(msg, KVPERF_A_PORT_MAX + 3, "future");
	nla_put_u8(msg, KVPERF_A_PORT_STATE, 6);
	nla_put_u8(msg, KVPERF_A_PORT_SPEED, 10);
	gid = nla_nest_start(msg, KVPERF_A_PORT_GID);
	nla_put_u32(msg, KVPERF_A_GID_INDEX, 3);
	nla_put_u8(msg, KVPERF_A_GID_TYPE, 3);
	nla_put_u64(msg, KVPERF_A_GID_MAX + 1, 1);
	nla_nest_end(msg, gid);
	nla_nest_end(msg, port);

	CHECK_INT(print_devs(&c, false, false, &msg, 1, &err), 0);
	CHECK_STR(c.buf, "9: node_type 42 transport 200\n"
		  "    port 1: state 6\n"
		  "        speed 10\n"
		  "        gid 3 3\n");
	cap_close(&c);
	cap_close(&err);

	CHECK_INT(print_devs(&c, true, false, &msg, 1, &err), 0);
	CHECK_STR(c.buf, "[{\"ifindex\":9,\"node_type\":42,\"transport\":200,"
		  "\"ports\":[{\"port\":1,\"state\":6,\"speed\":10,"
		  "\"gids\":[{\"index\":3,\"type\":3}]}]}]\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

static void dev_empty_fw_version(void)
{
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_DEV_GET);
	struct capture c, err;

	nla_put_u32(msg, KVPERF_A_DEV_INDEX, 1);
	nla_put_string(msg, KVPERF_A_DEV_FW_VERSION, "");
	nla_put_u8(msg, KVPERF_A_DEV_NODE_TYPE, KVPERF_NODE_TYPE_CA);
	CHECK_INT(print_devs(&c, false, false, &msg, 1, &err), 0);
	CHECK_STR(c.buf, "1: node_type CA\n");
	cap_close(&c);
	cap_close(&err);
	CHECK_INT(print_devs(&c, true, false, &msg, 1, &err), 0);
	CHECK_STR(c.buf, "[{\"ifindex\":1,\"node_type\":\"CA\","
		  "\"fw\":\"\"}]\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

static void dev_malformed(void)
{
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_DEV_GET);
	struct capture c, err;
	struct nlattr *port, *gid;
	uint16_t u16 = 5;

	nla_put_u32(msg, KVPERF_A_DEV_INDEX, 1);
	nla_put(msg, KVPERF_A_DEV_MAX_QP, sizeof(u16), &u16);
	CHECK_INT(print_devs(&c, false, false, &msg, 1, &err), -EINVAL);
	CHECK_STR(c.buf, "");
	CHECK_STR(err.buf, "kvperf: malformed reply from the kernel: "
		  "attribute dev.max-qp has length 2\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);

	/* deep inside: a GID of 4 bytes */
	msg = unit_genl_msg(KVPERF_CMD_DEV_GET);
	port = nla_nest_start(msg, KVPERF_A_DEV_PORT);
	gid = nla_nest_start(msg, KVPERF_A_PORT_GID);
	nla_put(msg, KVPERF_A_GID_VALUE, 4, "\xfe\x80\0\0");
	nla_nest_end(msg, gid);
	nla_nest_end(msg, port);
	CHECK_INT(print_devs(&c, true, false, &msg, 1, &err), -EINVAL);
	CHECK_STR(err.buf, "kvperf: malformed reply from the kernel: "
		  "attribute gid.value has length 4\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);

	/* too short for a genetlink header */
	{
		struct nl_msg *m = nlmsg_alloc_simple(0x20, 0);

		CHECK_INT(print_devs(&c, false, false, &m, 1, &err), -EINVAL);
		CHECK_STR(err.buf, "kvperf: malformed reply from the kernel: "
			  "message too short\n");
		cap_close(&c);
		cap_close(&err);
		nlmsg_free(m);
	}
}

/* Names from the kernel are data: anything in them stays valid JSON. */
static void dev_tricky_names_json(void)
{
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_DEV_GET);
	struct capture c, err;
	struct nlattr *port;

	nla_put_string(msg, KVPERF_A_DEV_NAME, "r\"x\\e\n\x01\xff%s");
	nla_put_string(msg, KVPERF_A_DEV_FW_VERSION, "1.2\t\xc3\xa9");
	port = nla_nest_start(msg, KVPERF_A_DEV_PORT);
	nla_put_string(msg, KVPERF_A_PORT_NETDEV, "</eth0>");
	nla_nest_end(msg, port);
	CHECK_INT(print_devs(&c, true, false, &msg, 1, &err), 0);
	CHECK_JSON(c.buf,
		   "assert d[0]['ifname'] == 'r\"x\\\\e\\n\\x01\\ufffd%s'\n"
		   "assert d[0]['fw'] == '1.2\\t\\u00e9'\n"
		   "assert d[0]['ports'][0]['netdev'] == '</eth0>'\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

const struct unit_test unit_tests[] = {
	UNIT(dev_text_full),
	UNIT(dev_json_full),
	UNIT(dev_json_pretty_two_devices),
	UNIT(dev_missing_attrs_omitted),
	UNIT(dev_forward_compatible),
	UNIT(dev_empty_fw_version),
	UNIT(dev_malformed),
	UNIT(dev_tricky_names_json),
	{ NULL },
};
