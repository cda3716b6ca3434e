// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/lib/attrs.c: the transcribed attribute sets and the
 * checking parser.
 */
#include <errno.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "attrs.h"
#include "unit.h"

static void check_set(const struct attr_set *set, unsigned int max)
{
	unsigned int t;

	CHECK_INT(set->max, max);
	for (t = 1; t <= set->max; t++) {
		if (!set->attrs[t].name || set->attrs[t].kind == ATTR_UNKNOWN)
			unit_fail(__FILE__, __LINE__,
				  "%s attribute %u is not described",
				  set->name, t);
		if (set->attrs[t].kind == ATTR_NEST && !set->attrs[t].nested)
			unit_fail(__FILE__, __LINE__,
				  "%s attribute %u has no nested set",
				  set->name, t);
	}
}

static void attrs_sets_complete(void)
{
	check_set(&attrs_dev, KVPERF_A_DEV_MAX);
	check_set(&attrs_port, KVPERF_A_PORT_MAX);
	check_set(&attrs_gid, KVPERF_A_GID_MAX);
	CHECK_STR(attrs_name(&attrs_dev, KVPERF_A_DEV_NAME), "name");
	CHECK_STR(attrs_name(&attrs_dev, KVPERF_A_DEV_MAX_FAST_REG_PAGES),
		  "max-fast-reg-pages");
	CHECK_STR(attrs_name(&attrs_port, KVPERF_A_PORT_GID_TBL_LEN),
		  "gid-tbl-len");
	CHECK_STR(attrs_name(&attrs_gid, KVPERF_A_GID_VALUE), "value");
	CHECK(attrs_name(&attrs_dev, 0) == NULL);
	CHECK(attrs_name(&attrs_dev, KVPERF_A_DEV_MAX + 1) == NULL);
	CHECK(attrs_dev.attrs[KVPERF_A_DEV_PORT].nested == &attrs_port);
	CHECK(attrs_port.attrs[KVPERF_A_PORT_GID].nested == &attrs_gid);
}

static int parse_msg(struct nl_msg *msg, const struct attr_set *set,
		     struct nlattr **tb, struct attr_error *err)
{
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));

	return attrs_parse(set, tb, genlmsg_attrdata(g, 0),
			   genlmsg_attrlen(g, 0), err);
}

static void attrs_parse_accepts(void)
{
	struct nlattr *tb[KVPERF_A_DEV_MAX + 1];
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_DEV_GET);
	struct attr_error err = { 0 };

	nla_put_u32(msg, KVPERF_A_DEV_INDEX, 3);
	nla_put_string(msg, KVPERF_A_DEV_NAME, "rxe2");
	nla_put_u8(msg, KVPERF_A_DEV_NODE_TYPE, 4);
	nla_put(msg, KVPERF_A_DEV_PAD, 0, NULL);
	nla_put_u64(msg, KVPERF_A_DEV_MAX_MR_SIZE, UINT64_MAX);
	/* a newer module's attributes are skipped, whatever their size */
	nla_put(msg, KVPERF_A_DEV_MAX + 1, 3, "abc");
	nla_put_u16(msg, 200, 7);
	/* the last of a repeated attribute is the one indexed */
	nla_put_u32(msg, KVPERF_A_DEV_MAX_QP, 1);
	nla_put_u32(msg, KVPERF_A_DEV_MAX_QP, 2);

	CHECK_INT(parse_msg(msg, &attrs_dev, tb, &err), 0);
	CHECK_U64(attr_uint(tb[KVPERF_A_DEV_INDEX]), 3);
	CHECK_STR(nla_data(tb[KVPERF_A_DEV_NAME]), "rxe2");
	CHECK_U64(attr_uint(tb[KVPERF_A_DEV_NODE_TYPE]), 4);
	CHECK_U64(attr_uint(tb[KVPERF_A_DEV_MAX_MR_SIZE]), UINT64_MAX);
	CHECK_U64(attr_uint(tb[KVPERF_A_DEV_MAX_QP]), 2);
	CHECK(tb[KVPERF_A_DEV_TRANSPORT] == NULL);
	CHECK(tb[KVPERF_A_DEV_PORT] == NULL);
	nlmsg_free(msg);
}

/* Put one attribute with a bad length into a fresh message; parse it. */
static void check_rejects(const struct attr_set *set, int type,
			  const void *data, int len)
{
	struct nlattr *tb[KVPERF_A_DEV_MAX + 1];
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_DEV_GET);
	struct attr_error err = { 0 };

	nla_put_u32(msg, 1, 1);
	nla_put(msg, type, len, data);
	CHECK_INT(parse_msg(msg, set, tb, &err), -EINVAL);
	CHECK(err.set == set);
	CHECK_INT(err.type, type);
	CHECK_INT(err.len, len);
	nlmsg_free(msg);
}

static void attrs_parse_rejects(void)
{
	static const char gid15[15];
	struct attr_error err = { &attrs_dev, KVPERF_A_DEV_MAX_QP, 2 };
	struct capture c;

	check_rejects(&attrs_dev, KVPERF_A_DEV_MAX_QP, "\1\0", 2);
	check_rejects(&attrs_dev, KVPERF_A_DEV_MAX_QP, "\1\0\0\0\0\0\0\0", 8);
	check_rejects(&attrs_dev, KVPERF_A_DEV_NODE_GUID, "\1\0\0\0", 4);
	check_rejects(&attrs_dev, KVPERF_A_DEV_NODE_TYPE, "\1\0\0\0", 4);
	check_rejects(&attrs_dev, KVPERF_A_DEV_NODE_TYPE, "", 0);
	/* strings must be NUL-terminated */
	check_rejects(&attrs_dev, KVPERF_A_DEV_NAME, "rxe0", 4);
	check_rejects(&attrs_dev, KVPERF_A_DEV_NAME, "", 0);
	check_rejects(&attrs_gid, KVPERF_A_GID_VALUE, gid15, 15);
	check_rejects(&attrs_port, KVPERF_A_PORT_WIDTH, "\1\0", 2);

	cap_open(&c);
	attrs_report(c.f, &err);
	CHECK_STR(cap_str(&c), "kvperf: malformed reply from the kernel: "
		  "attribute dev.max-qp has length 2\n");
	cap_close(&c);
}

const struct unit_test unit_tests[] = {
	UNIT(attrs_sets_complete),
	UNIT(attrs_parse_accepts),
	UNIT(attrs_parse_rejects),
	{ NULL },
};
