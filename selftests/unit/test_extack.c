// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/lib/extack.c: reading NLMSG_ERROR and NLMSG_DONE with
 * extended ACK TLVs, laid out as the kernel's netlink_ack() and
 * netlink_dump_done() lay them out, and the messages the user sees.
 */
#include <errno.h>
#include <string.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "attrs.h"
#include "extack.h"
#include "unit.h"

/* Our request: dev-get with a name, as "kvperf dev show nosuchdev" sends. */
static struct nl_msg *name_request(void)
{
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_DEV_GET);

	nla_put_string(msg, KVPERF_A_DEV_NAME, "nosuchdev");
	return msg;
}

static uint32_t offset_of(struct nl_msg *msg, const struct nlattr *nla)
{
	return (const char *)nla - (const char *)nlmsg_hdr(msg);
}

/*
 * The kernel's answer to @req: error, the request (whole, or capped to its
 * header), then TLVs; @msg_text NULL for none, @offs 0 for none.
 */
static struct nl_msg *error_reply(struct nl_msg *req, int error, bool capped,
				  const char *msg_text, uint32_t offs)
{
	struct nlmsghdr *rh = nlmsg_hdr(req);
	int flags = capped ? NLM_F_CAPPED : 0;
	struct nl_msg *msg;
	struct nlmsgerr *e;
	size_t len;

	if (msg_text || offs)
		flags |= NLM_F_ACK_TLVS;
	len = sizeof(*e) + (capped ? 0 : rh->nlmsg_len - NLMSG_HDRLEN);
	msg = nlmsg_alloc_simple(NLMSG_ERROR, flags);
	e = nlmsg_reserve(msg, len, NLMSG_ALIGNTO);
	e->error = error;
	memcpy(&e->msg, rh, capped ? sizeof(*rh) : rh->nlmsg_len);
	if (msg_text)
		nla_put_string(msg, NLMSGERR_ATTR_MSG, msg_text);
	if (offs)
		nla_put_u32(msg, NLMSGERR_ATTR_OFFS, offs);
	return msg;
}

static void extack_parse_capped(void)
{
	struct nl_msg *req = name_request();
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(req));
	uint32_t offs = offset_of(req, genlmsg_attrdata(g, 0));
	struct nl_msg *rep;
	struct extack ext;

	rep = error_reply(req, -ENODEV, true, "no RDMA device named nosuchdev",
			  offs);
	CHECK_INT(extack_parse(nlmsg_hdr(rep), &ext), 0);
	CHECK_INT(ext.error, -ENODEV);
	CHECK_STR(ext.msg, "no RDMA device named nosuchdev");
	CHECK(ext.has_offs);
	CHECK_INT(ext.offs, 20);
	CHECK(!ext.has_miss_type);
	nlmsg_free(rep);
	nlmsg_free(req);
}

/* Without NETLINK_CAP_ACK the request comes back whole before the TLVs. */
static void extack_parse_uncapped(void)
{
	struct nl_msg *req = name_request();
	struct nl_msg *rep;
	struct extack ext;

	rep = error_reply(req, -EINVAL, false, "bad name", 20);
	CHECK_INT(extack_parse(nlmsg_hdr(rep), &ext), 0);
	CHECK_INT(ext.error, -EINVAL);
	CHECK_STR(ext.msg, "bad name");
	CHECK(ext.has_offs);
	CHECK_INT(ext.offs, 20);
	nlmsg_free(rep);
	nlmsg_free(req);
}

static void extack_parse_plain_and_bad(void)
{
	struct nl_msg *req = name_request();
	struct nl_msg *rep;
	struct extack ext;

	/* no TLVs: an old kernel, or no EXT_ACK */
	rep = error_reply(req, -EPERM, true, NULL, 0);
	CHECK_INT(extack_parse(nlmsg_hdr(rep), &ext), 0);
	CHECK_INT(ext.error, -EPERM);
	CHECK(ext.msg == NULL);
	CHECK(!ext.has_offs);
	nlmsg_free(rep);

	/* a message that is not NUL-terminated is not used */
	rep = error_reply(req, -EPERM, true, NULL, 0);
	nlmsg_hdr(rep)->nlmsg_flags |= NLM_F_ACK_TLVS;
	nla_put(rep, NLMSGERR_ATTR_MSG, 4, "oops");
	nla_put_u16(rep, NLMSGERR_ATTR_OFFS, 20);
	CHECK_INT(extack_parse(nlmsg_hdr(rep), &ext), 0);
	CHECK(ext.msg == NULL);
	CHECK(!ext.has_offs);
	nlmsg_free(rep);

	/* too short to hold an nlmsgerr */
	rep = nlmsg_alloc_simple(NLMSG_ERROR, 0);
	nlmsg_reserve(rep, 8, NLMSG_ALIGNTO);
	CHECK_INT(extack_parse(nlmsg_hdr(rep), &ext), -1);
	nlmsg_free(rep);
	nlmsg_free(req);
}

/* A dump that fails part-way ends with NLMSG_DONE carrying the error. */
static void extack_parse_done(void)
{
	struct nl_msg *done = nlmsg_alloc_simple(NLMSG_DONE,
						 NLM_F_MULTI | NLM_F_ACK_TLVS);
	int *error = nlmsg_reserve(done, sizeof(int), NLMSG_ALIGNTO);
	struct extack ext;

	*error = -EMSGSIZE;
	nla_put_string(done, NLMSGERR_ATTR_MSG, "device vanished");
	CHECK_INT(extack_parse(nlmsg_hdr(done), &ext), 0);
	CHECK_INT(ext.error, -EMSGSIZE);
	CHECK_STR(ext.msg, "device vanished");
	nlmsg_free(done);

	/* the normal end of a dump */
	done = nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI);
	error = nlmsg_reserve(done, sizeof(int), NLMSG_ALIGNTO);
	*error = 0;
	CHECK_INT(extack_parse(nlmsg_hdr(done), &ext), 0);
	CHECK_INT(ext.error, 0);
	CHECK(ext.msg == NULL);
	nlmsg_free(done);
}

static void extack_report_nosuchdev(void)
{
	struct nl_msg *req = name_request();
	struct nl_msg *rep;
	struct extack ext;
	struct capture c;

	rep = error_reply(req, -ENODEV, true, "no RDMA device named nosuchdev",
			  20);
	extack_parse(nlmsg_hdr(rep), &ext);
	extack_report(cap_open(&c), &ext, nlmsg_hdr(req), GENL_HDRLEN,
		      &attrs_dev);
	/* 6.2 and later: the message names the device, once */
	CHECK_STR(cap_str(&c),
		  "kvperf: kernel refused the request: no RDMA device named nosuchdev (No such device)\n");
	cap_close(&c);
	nlmsg_free(rep);

	/* 6.1 has no formatted messages: the tool names it, on one line */
	rep = error_reply(req, -ENODEV, true,
			  "kvperf: no RDMA device with that name", 20);
	extack_parse(nlmsg_hdr(rep), &ext);
	extack_report(cap_open(&c), &ext, nlmsg_hdr(req), GENL_HDRLEN,
		      &attrs_dev);
	CHECK_STR(cap_str(&c),
		  "kvperf: kernel refused the request: no RDMA device with that "
		  "name: name \"nosuchdev\" (No such device)\n");
	cap_close(&c);
	nlmsg_free(rep);

	/* no message at all: the attribute on a line of its own */
	rep = error_reply(req, -ENODEV, true, NULL, 20);
	extack_parse(nlmsg_hdr(rep), &ext);
	extack_report(cap_open(&c), &ext, nlmsg_hdr(req), GENL_HDRLEN,
		      &attrs_dev);
	CHECK_STR(cap_str(&c),
		  "kvperf: kernel refused the request: No such device\n"
		  "kvperf: offending attribute: name \"nosuchdev\"\n");
	cap_close(&c);
	nlmsg_free(rep);

	/* no message, an offset outside the request: the errno alone */
	rep = error_reply(req, -ENODEV, true, NULL, 4000);
	extack_parse(nlmsg_hdr(rep), &ext);
	extack_report(cap_open(&c), &ext, nlmsg_hdr(req), GENL_HDRLEN,
		      &attrs_dev);
	CHECK_STR(cap_str(&c),
		  "kvperf: kernel refused the request: No such device\n");
	cap_close(&c);
	nlmsg_free(rep);
	nlmsg_free(req);
}

/* A request with nests, to name attributes deep inside. */
static struct nl_msg *nested_request(uint32_t *offs_value, uint32_t *offs_port,
				     uint32_t *offs_unknown)
{
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_DEV_GET);
	struct nlattr *port, *gid, *nla;

	nla_put_string(msg, KVPERF_A_DEV_NAME, "rxe0");
	port = nla_nest_start(msg, KVPERF_A_DEV_PORT);
	nla_put_u32(msg, KVPERF_A_PORT_NUMBER, 1);
	gid = nla_nest_start(msg, KVPERF_A_PORT_GID);
	nla_put_u32(msg, KVPERF_A_GID_INDEX, 0);
	nla = (struct nlattr *)nlmsg_tail(nlmsg_hdr(msg));
	nla_put(msg, KVPERF_A_GID_VALUE, 16, "0123456789abcdef");
	*offs_value = offset_of(msg, nla);
	nla_nest_end(msg, gid);
	nla_nest_end(msg, port);
	*offs_port = offset_of(msg, port);
	nla = (struct nlattr *)nlmsg_tail(nlmsg_hdr(msg));
	nla_put_u32(msg, 99, 1);
	*offs_unknown = offset_of(msg, nla);
	return msg;
}

static void extack_attr_paths(void)
{
	uint32_t value, port, unknown;
	struct nl_msg *req = nested_request(&value, &port, &unknown);
	const struct attr_spec *spec;
	char path[64];

	CHECK(extack_attr_path(nlmsg_hdr(req), GENL_HDRLEN, &attrs_dev, value,
			       path, sizeof(path), &spec));
	CHECK_STR(path, "port.gid.value");
	CHECK(spec == &attrs_gid.attrs[KVPERF_A_GID_VALUE]);

	/* an offset inside the payload of a leaf names the leaf */
	CHECK(extack_attr_path(nlmsg_hdr(req), GENL_HDRLEN, &attrs_dev,
			       value + 7, path, sizeof(path), NULL));
	CHECK_STR(path, "port.gid.value");

	/* the nest itself */
	CHECK(extack_attr_path(nlmsg_hdr(req), GENL_HDRLEN, &attrs_dev, port,
			       path, sizeof(path), &spec));
	CHECK_STR(path, "port");
	CHECK(spec == &attrs_dev.attrs[KVPERF_A_DEV_PORT]);

	CHECK(extack_attr_path(nlmsg_hdr(req), GENL_HDRLEN, &attrs_dev,
			       unknown, path, sizeof(path), &spec));
	CHECK_STR(path, "99");
	CHECK(spec == NULL);

	/* in the headers, or past the end: no attribute */
	CHECK(!extack_attr_path(nlmsg_hdr(req), GENL_HDRLEN, &attrs_dev, 4,
				path, sizeof(path), NULL));
	CHECK(!extack_attr_path(nlmsg_hdr(req), GENL_HDRLEN, &attrs_dev,
				nlmsg_hdr(req)->nlmsg_len, path, sizeof(path),
				NULL));
	nlmsg_free(req);
}

static void extack_report_missing(void)
{
	uint32_t value, port, unknown;
	struct nl_msg *req = nested_request(&value, &port, &unknown);
	struct extack ext = { .error = -EINVAL };
	struct capture c;

	/* missing at the top level */
	ext.msg = "missing attribute";
	ext.has_miss_type = true;
	ext.miss_type = KVPERF_A_DEV_NAME;
	extack_report(cap_open(&c), &ext, nlmsg_hdr(req), GENL_HDRLEN,
		      &attrs_dev);
	CHECK_STR(cap_str(&c),
		  "kvperf: kernel refused the request: missing attribute (Invalid argument)\n"
		  "kvperf: missing attribute: name\n");
	cap_close(&c);

	/* missing inside the port nest */
	ext.has_miss_nest = true;
	ext.miss_nest = port;
	ext.miss_type = KVPERF_A_PORT_NUMBER;
	extack_report(cap_open(&c), &ext, nlmsg_hdr(req), GENL_HDRLEN,
		      &attrs_dev);
	CHECK_STR(cap_str(&c),
		  "kvperf: kernel refused the request: missing attribute (Invalid argument)\n"
		  "kvperf: missing attribute: port.number\n");
	cap_close(&c);

	/* a type this tool does not know */
	ext.miss_type = 77;
	ext.has_offs = true;
	ext.offs = value;
	extack_report(cap_open(&c), &ext, nlmsg_hdr(req), GENL_HDRLEN,
		      &attrs_dev);
	CHECK_STR(cap_str(&c),
		  "kvperf: kernel refused the request: missing attribute (Invalid argument)\n"
		  "kvperf: offending attribute: port.gid.value\n"
		  "kvperf: missing attribute: port.77\n");
	cap_close(&c);
	nlmsg_free(req);
}

/*
 * Generic netlink's own refusals carry no message: EPERM of a command
 * that needs CAP_NET_ADMIN, ENOENT of a family that went away (rmmod
 * while the tool waited). The module's own ENOENT says what it is.
 */
static void extack_report_generic_netlink(void)
{
	struct nl_msg *req = unit_genl_msg(KVPERF_CMD_RUN_GET);
	struct nl_msg *rep;
	struct extack ext;
	struct capture c;

	rep = error_reply(req, -EPERM, true, NULL, 0);
	extack_parse(nlmsg_hdr(rep), &ext);
	extack_report(cap_open(&c), &ext, nlmsg_hdr(req), GENL_HDRLEN,
		      &attrs_run);
	CHECK_STR(cap_str(&c),
		  "kvperf: kernel refused the request: Operation not permitted: "
		  "it needs CAP_NET_ADMIN (run as root or with sudo)\n");
	cap_close(&c);
	nlmsg_free(rep);

	rep = error_reply(req, -ENOENT, true, NULL, 0);
	extack_parse(nlmsg_hdr(rep), &ext);
	extack_report(cap_open(&c), &ext, nlmsg_hdr(req), GENL_HDRLEN,
		      &attrs_run);
	CHECK_STR(cap_str(&c),
		  "kvperf: the kvperf module was unloaded (the kernel answered: "
		  "No such file or directory); load it again with 'sudo modprobe kvperf'\n");
	cap_close(&c);
	nlmsg_free(rep);

	rep = error_reply(req, -ENOENT, true, "kvperf: no run with that id", 0);
	extack_parse(nlmsg_hdr(rep), &ext);
	extack_report(cap_open(&c), &ext, nlmsg_hdr(req), GENL_HDRLEN,
		      &attrs_run);
	CHECK_STR(cap_str(&c),
		  "kvperf: kernel refused the request: no run with that id "
		  "(No such file or directory)\n");
	cap_close(&c);
	nlmsg_free(rep);
	nlmsg_free(req);
}

const struct unit_test unit_tests[] = {
	UNIT(extack_parse_capped),
	UNIT(extack_parse_uncapped),
	UNIT(extack_parse_plain_and_bad),
	UNIT(extack_parse_done),
	UNIT(extack_report_nosuchdev),
	UNIT(extack_attr_paths),
	UNIT(extack_report_missing),
	UNIT(extack_report_generic_netlink),
	{ NULL },
};
