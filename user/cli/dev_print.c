// SPDX-License-Identifier: GPL-2.0
/*
 * Printing one KVPERF_CMD_DEV_GET reply: the device, its limits, its ports
 * and their GIDs, as text lines or as one JSON object.
 */
#include <errno.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "attrs.h"
#include "compiler.h"
#include "dev.h"
#include "fmt.h"
#include "print.h"
#include "show.h"

struct field {
	int type;
	const char *key;
	const char *fmt;
};

/* The "limits:" line, in spec order. */
static const struct field dev_limits[] = {
	{ KVPERF_A_DEV_MAX_QP,		"max_qp",	"max_qp %s" },
	{ KVPERF_A_DEV_MAX_QP_WR,	"max_qp_wr",	"max_qp_wr %s" },
	{ KVPERF_A_DEV_MAX_CQ,		"max_cq",	"max_cq %s" },
	{ KVPERF_A_DEV_MAX_CQE,		"max_cqe",	"max_cqe %s" },
	{ KVPERF_A_DEV_MAX_MR,		"max_mr",	"max_mr %s" },
	{ KVPERF_A_DEV_MAX_MR_SIZE,	"max_mr_size",	"max_mr_size %s" },
	{ KVPERF_A_DEV_MAX_PD,		"max_pd",	"max_pd %s" },
	{ KVPERF_A_DEV_MAX_SEND_SGE,	"max_send_sge",	"max_send_sge %s" },
	{ KVPERF_A_DEV_MAX_RECV_SGE,	"max_recv_sge",	"max_recv_sge %s" },
	{ KVPERF_A_DEV_MAX_SGE_RD,	"max_sge_rd",	"max_sge_rd %s" },
	{ KVPERF_A_DEV_MAX_QP_RD_ATOM,	"max_qp_rd_atom", "max_qp_rd_atom %s" },
	{ KVPERF_A_DEV_MAX_FAST_REG_PAGES, "max_fast_reg_pages",
					"max_fast_reg_pages %s" },
	{ KVPERF_A_DEV_MAX_INLINE,	"max_inline",	"max_inline %s" },
};

/* The second line of a port; speed and rate are printed apart. */
static const struct field port_mtus[] = {
	{ KVPERF_A_PORT_ACTIVE_MTU,	"active_mtu",	"active_mtu %s" },
	{ KVPERF_A_PORT_MAX_MTU,	"max_mtu",	"max_mtu %s" },
	{ KVPERF_A_PORT_WIDTH,		"width",	"width %sX" },
};

static const struct field port_ids[] = {
	{ KVPERF_A_PORT_LID,		"lid",		"lid %s" },
	{ KVPERF_A_PORT_SM_LID,		"sm_lid",	"sm_lid %s" },
	{ KVPERF_A_PORT_LMC,		"lmc",		"lmc %s" },
	{ KVPERF_A_PORT_MAX_MSG_SIZE,	"max_msg_size",	"max_msg_size %s" },
	{ KVPERF_A_PORT_GID_TBL_LEN,	"gid_tbl_len",	"gid_tbl_len %s" },
};

static void print_uints(struct printer *p, struct nlattr **tb,
			const struct field *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tb[f[i].type])
			pr_u64(p, f[i].key, f[i].fmt, attr_uint(tb[f[i].type]));
}

static bool any_of(struct nlattr **tb, const struct field *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tb[f[i].type])
			return true;
	return false;
}

static void print_guid(struct printer *p, const struct nlattr *nla,
		       const char *key, const char *fmt)
{
	char buf[FMT_GUID_LEN];

	if (nla)
		pr_str(p, key, fmt, fmt_guid(buf, attr_uint(nla)));
}

static int print_gid(struct printer *p, struct nlattr *nest,
		     struct attr_error *err)
{
	struct nlattr *tb[KVPERF_A_GID_MAX + 1];
	char buf[FMT_GID_LEN];

	if (attrs_parse(&attrs_gid, tb, nla_data(nest), nla_len(nest), err))
		return -EINVAL;

	pr_obj_open(p, NULL);
	pr_indent(p, 8);
	pr_text(p, "gid");
	show_uint(p, tb[KVPERF_A_GID_INDEX], "index", "%s");
	if (tb[KVPERF_A_GID_VALUE])
		pr_str(p, "gid", "%s",
		       fmt_gid(buf, nla_data(tb[KVPERF_A_GID_VALUE])));
	show_enum(p, tb[KVPERF_A_GID_TYPE], "type", "%s", &fmt_gid_type);
	show_string(p, tb[KVPERF_A_GID_NETDEV], "netdev", "%s");
	pr_eol(p);
	pr_obj_close(p);
	return 0;
}

static int print_port(struct printer *p, struct nlattr *nest,
		      struct attr_error *err)
{
	struct nlattr *tb[KVPERF_A_PORT_MAX + 1];
	struct nlattr *nla;
	char buf[FMT_RATE_LEN];
	uint32_t rate;
	int rem;

	if (attrs_parse(&attrs_port, tb, nla_data(nest), nla_len(nest), err))
		return -EINVAL;

	pr_obj_open(p, NULL);
	pr_indent(p, 4);
	pr_text(p, "port");
	show_uint(p, tb[KVPERF_A_PORT_NUMBER], "port", "%s:");
	show_enum(p, tb[KVPERF_A_PORT_STATE], "state", "state %s",
		  &fmt_port_state);
	show_enum(p, tb[KVPERF_A_PORT_PHYS_STATE], "physical_state",
		  "physical_state %s", &fmt_phys_state);
	show_enum(p, tb[KVPERF_A_PORT_LINK_LAYER], "link_layer",
		  "link_layer %s", &fmt_link_layer);
	show_string(p, tb[KVPERF_A_PORT_NETDEV], "netdev", "netdev %s");
	pr_eol(p);

	pr_indent(p, 8);
	print_uints(p, tb, port_mtus, ARRAY_SIZE(port_mtus));
	show_enum(p, tb[KVPERF_A_PORT_SPEED], "speed", "speed %s",
		  &fmt_speed);
	if (tb[KVPERF_A_PORT_RATE_MBPS]) {
		rate = attr_uint(tb[KVPERF_A_PORT_RATE_MBPS]);
		pr_u64_as(p, "rate_mbps", "rate %s Gb/s", rate,
			  fmt_rate(buf, rate));
	}
	print_uints(p, tb, port_ids, ARRAY_SIZE(port_ids));
	pr_eol(p);

	if (tb[KVPERF_A_PORT_GID]) {
		pr_arr_open(p, "gids");
		nla_for_each_nested(nla, nest, rem) {
			if (nla_type(nla) != KVPERF_A_PORT_GID)
				continue;
			if (print_gid(p, nla, err))
				return -EINVAL;
		}
		pr_arr_close(p);
	}
	pr_obj_close(p);
	return 0;
}

/**
 * dev_print() - print one device
 * @p: the printer; in JSON the device is one object, an array element
 * @nlh: a KVPERF_CMD_DEV_GET reply
 * @err: where to report a malformed reply
 *
 * Attributes the kernel did not send are left out; attributes this tool
 * does not know are ignored.
 *
 * Return: 0, or -EINVAL after reporting a malformed reply.
 */
int dev_print(struct printer *p, const struct nlmsghdr *nlh, FILE *err)
{
	struct nlattr *tb[KVPERF_A_DEV_MAX + 1];
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct attr_error aerr;
	struct nlattr *nla;
	const char *fw;
	int rem;

	if (attrs_parse_reply(nlh, &attrs_dev, tb, false, err))
		return -EINVAL;

	pr_obj_open(p, NULL);
	show_uint(p, tb[KVPERF_A_DEV_INDEX], "ifindex", "%s:");
	show_string(p, tb[KVPERF_A_DEV_NAME], "ifname", "%s:");
	show_enum(p, tb[KVPERF_A_DEV_NODE_TYPE], "node_type", "node_type %s",
		  &fmt_node_type);
	show_enum(p, tb[KVPERF_A_DEV_TRANSPORT], "transport", "transport %s",
		  &fmt_transport);
	if (tb[KVPERF_A_DEV_FW_VERSION]) {
		/* an empty version means none: JSON keeps it, text drops it */
		fw = nla_data(tb[KVPERF_A_DEV_FW_VERSION]);
		pr_str(p, "fw", fw[0] ? "fw %s" : NULL, fw);
	}
	print_guid(p, tb[KVPERF_A_DEV_NODE_GUID], "node_guid",
		   "node_guid %s");
	print_guid(p, tb[KVPERF_A_DEV_SYS_IMAGE_GUID], "sys_image_guid",
		   "sys_image_guid %s");
	/* text lists the ports themselves */
	show_uint(p, tb[KVPERF_A_DEV_PORT_COUNT], "port_count", NULL);
	pr_eol(p);

	if (any_of(tb, dev_limits, ARRAY_SIZE(dev_limits))) {
		pr_indent(p, 4);
		pr_text(p, "limits:");
		print_uints(p, tb, dev_limits, ARRAY_SIZE(dev_limits));
		pr_eol(p);
	}

	if (tb[KVPERF_A_DEV_PORT]) {
		pr_arr_open(p, "ports");
		nla_for_each_attr(nla, genlmsg_attrdata(g, 0),
				  genlmsg_attrlen(g, 0), rem) {
			if (nla_type(nla) != KVPERF_A_DEV_PORT)
				continue;
			if (print_port(p, nla, &aerr))
				goto malformed;
		}
		pr_arr_close(p);
	}
	pr_obj_close(p);
	return 0;

malformed:
	attrs_report(err, &aerr);
	return -EINVAL;
}
