// SPDX-License-Identifier: GPL-2.0
/*
 * Malformed and invalid kvperf netlink requests, sent raw so nothing
 * in between can tidy them up. Each must be refused with its errno and
 * an extack message, and the module must keep answering afterwards.
 *
 * The device the requests name is $KVPERF_DEV0, else the first one the
 * module lists. Without the module (no family kvperf) or without a
 * device, the program skips (exit 4) saying which.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/kvperf.h>

#include "kselftest_harness.h"

#define BUF_SIZE 65536
#define DEV_NAME_MAX 64		/* IB_DEVICE_NAME_MAX */

/* the device the requests name, chosen in main() */
static char dev[DEV_NAME_MAX];

struct nl_reply {
	int error;		/* 0, or the negative errno of an error */
	char msg[256];		/* extack message */
	int bad_off;		/* offset of the bad attribute, or -1 */
	int miss_type;		/* type of the missing attribute, or -1 */
	int dev_msgs;		/* dev-get replies seen */
	int saw_dev;		/* one of them named dev */
	char first[DEV_NAME_MAX];	/* the first one's name */
};

struct req {
	struct nlmsghdr nlh;
	struct genlmsghdr genl;
	char attrs[512];
};

static int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1, fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

static void req_init(struct req *r, uint16_t type, uint16_t flags, uint8_t cmd)
{
	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nlh.nlmsg_type = type;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	r->nlh.nlmsg_seq = 1;
	r->genl.cmd = cmd;
	r->genl.version = 1;
}

/* Append an attribute; returns its offset from the start of the message. */
static int req_put(struct req *r, uint16_t type, const void *data, int len)
{
	struct nlattr *nla = (void *)((char *)r + NLMSG_ALIGN(r->nlh.nlmsg_len));
	int off = (char *)nla - (char *)r;

	nla->nla_type = type;
	nla->nla_len = NLA_HDRLEN + len;
	memcpy((char *)nla + NLA_HDRLEN, data, len);
	r->nlh.nlmsg_len = NLMSG_ALIGN(r->nlh.nlmsg_len) + NLA_ALIGN(nla->nla_len);
	return off;
}

static void parse_err(struct nlmsghdr *nlh, struct nl_reply *rep)
{
	struct nlmsgerr *err = NLMSG_DATA(nlh);
	struct nlattr *nla;
	int len;

	rep->error = err->error;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	/* with NETLINK_CAP_ACK the request is not echoed back */
	nla = (void *)((char *)err + sizeof(*err));
	len = (char *)nlh + nlh->nlmsg_len - (char *)nla;
	while (len >= NLA_HDRLEN && nla->nla_len >= NLA_HDRLEN &&
	       nla->nla_len <= len) {
		void *data = (char *)nla + NLA_HDRLEN;

		switch (nla->nla_type & NLA_TYPE_MASK) {
		case NLMSGERR_ATTR_MSG:
			snprintf(rep->msg, sizeof(rep->msg), "%s", (char *)data);
			break;
		case NLMSGERR_ATTR_OFFS:
			rep->bad_off = *(uint32_t *)data;
			break;
		case 5: /* NLMSGERR_ATTR_MISS_TYPE, 6.1 and later */
			rep->miss_type = *(uint32_t *)data;
			break;
		}
		len -= NLA_ALIGN(nla->nla_len);
		nla = (void *)((char *)nla + NLA_ALIGN(nla->nla_len));
	}
}

static void parse_dev(struct nlmsghdr *nlh, struct nl_reply *rep)
{
	struct nlattr *nla = (void *)((char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
	int len = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

	rep->dev_msgs++;
	while (len >= NLA_HDRLEN && nla->nla_len >= NLA_HDRLEN &&
	       nla->nla_len <= len) {
		const char *name = (char *)nla + NLA_HDRLEN;

		if (nla->nla_type == KVPERF_A_DEV_NAME &&
		    nla->nla_len > NLA_HDRLEN &&
		    memchr(name, '\0', nla->nla_len - NLA_HDRLEN)) {
			if (!rep->first[0])
				snprintf(rep->first, sizeof(rep->first), "%s", name);
			if (!strcmp(name, dev))
				rep->saw_dev = 1;
		}
		len -= NLA_ALIGN(nla->nla_len);
		nla = (void *)((char *)nla + NLA_ALIGN(nla->nla_len));
	}
}

/* Send raw bytes; collect replies until the ack, error or dump end. */
static int nl_talk(int fd, const void *msg, size_t len, struct nl_reply *rep)
{
	static char buf[BUF_SIZE];
	ssize_t n;

	memset(rep, 0, sizeof(*rep));
	rep->bad_off = -1;
	rep->miss_type = -1;
	if (send(fd, msg, len, 0) != (ssize_t)len)
		return -1;
	for (;;) {
		struct nlmsghdr *nlh;

		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			return -1;
		for (nlh = (void *)buf; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				parse_err(nlh, rep);
				return 0;
			}
			if (nlh->nlmsg_type == NLMSG_DONE)
				return 0;
			parse_dev(nlh, rep);
		}
	}
}

/* The RDMA devices ib_core has: the module lists each. */
static int ib_devices(void)
{
	DIR *d = opendir("/sys/class/infiniband");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static int family_id(int fd)
{
	static char buf[BUF_SIZE];
	struct req r;
	struct nlmsghdr *nlh;
	ssize_t n;
	int id = -1;

	req_init(&r, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY);
	r.nlh.nlmsg_flags = NLM_F_REQUEST;
	req_put(&r, CTRL_ATTR_FAMILY_NAME, KVPERF_FAMILY_NAME,
		sizeof(KVPERF_FAMILY_NAME));
	if (send(fd, &r, r.nlh.nlmsg_len, 0) < 0)
		return -1;
	n = recv(fd, buf, sizeof(buf), 0);
	for (nlh = (void *)buf; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
		struct nlattr *nla;
		int len;

		if (nlh->nlmsg_type != GENL_ID_CTRL)
			continue;
		nla = (void *)((char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
		len = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
		while (len >= NLA_HDRLEN && nla->nla_len <= len) {
			if (nla->nla_type == CTRL_ATTR_FAMILY_ID)
				id = *(uint16_t *)((char *)nla + NLA_HDRLEN);
			len -= NLA_ALIGN(nla->nla_len);
			nla = (void *)((char *)nla + NLA_ALIGN(nla->nla_len));
		}
	}
	return id;
}

FIXTURE(kvperf_nl) {
	int fd;
	int family;
	struct req req;
	struct nl_reply rep;
};

FIXTURE_SETUP(kvperf_nl)
{
	self->fd = nl_open();
	ASSERT_LE(0, self->fd);
	self->family = family_id(self->fd);
	ASSERT_LT(0, self->family);
}

FIXTURE_TEARDOWN(kvperf_nl)
{
	struct nl_reply rep;

	/* whatever the test sent, the module still answers a dump */
	req_init(&self->req, self->family, NLM_F_DUMP, KVPERF_CMD_DEV_GET);
	EXPECT_EQ(0, nl_talk(self->fd, &self->req, self->req.nlh.nlmsg_len, &rep));
	EXPECT_EQ(0, rep.error);
	EXPECT_TRUE(rep.saw_dev);
	close(self->fd);
}

static int talk_logged(struct __test_metadata *_metadata, int fd,
		       struct req *r, struct nl_reply *rep)
{
	int ret = nl_talk(fd, r, r->nlh.nlmsg_len, rep);

	TH_LOG("error %d, message \"%s\", bad attr at %d, missing type %d",
	       rep->error, rep->msg, rep->bad_off, rep->miss_type);
	return ret;
}

#define send_req(_metadata, self) \
	talk_logged(_metadata, (self)->fd, &(self)->req, &(self)->rep)

TEST_F(kvperf_nl, dump_lists_devices)
{
	TH_LOG("requests name %s%s", dev,
	       getenv("KVPERF_DEV0") ? " ($KVPERF_DEV0)" : " (the first listed)");
	req_init(&self->req, self->family, NLM_F_DUMP, KVPERF_CMD_DEV_GET);
	ASSERT_EQ(0, send_req(_metadata, self));
	EXPECT_EQ(0, self->rep.error);
	EXPECT_EQ(ib_devices(), self->rep.dev_msgs);
	EXPECT_TRUE(self->rep.saw_dev);
}

TEST_F(kvperf_nl, get_known_device)
{
	req_init(&self->req, self->family, 0, KVPERF_CMD_DEV_GET);
	req_put(&self->req, KVPERF_A_DEV_NAME, dev, strlen(dev) + 1);
	ASSERT_EQ(0, send_req(_metadata, self));
	EXPECT_EQ(1, self->rep.dev_msgs);
	EXPECT_TRUE(self->rep.saw_dev);
}

TEST_F(kvperf_nl, unknown_device)
{
	int off;

	req_init(&self->req, self->family, 0, KVPERF_CMD_DEV_GET);
	off = req_put(&self->req, KVPERF_A_DEV_NAME, "nosuchdev", 10);
	ASSERT_EQ(0, send_req(_metadata, self));
	EXPECT_EQ(-ENODEV, self->rep.error);
	EXPECT_NE(NULL, strstr(self->rep.msg, "no RDMA device"));
	EXPECT_EQ(off, self->rep.bad_off);
}

TEST_F(kvperf_nl, missing_name)
{
	req_init(&self->req, self->family, 0, KVPERF_CMD_DEV_GET);
	ASSERT_EQ(0, send_req(_metadata, self));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_NE(NULL, strstr(self->rep.msg, "missing device name"));
	EXPECT_EQ(KVPERF_A_DEV_NAME, self->rep.miss_type);
}

TEST_F(kvperf_nl, name_not_terminated)
{
	int off;

	req_init(&self->req, self->family, 0, KVPERF_CMD_DEV_GET);
	off = req_put(&self->req, KVPERF_A_DEV_NAME, dev, strlen(dev));
	ASSERT_EQ(0, send_req(_metadata, self));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_NE(0, self->rep.msg[0]);
	EXPECT_EQ(off, self->rep.bad_off);
}

TEST_F(kvperf_nl, name_too_long)
{
	char name[80];
	int off;

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	req_init(&self->req, self->family, 0, KVPERF_CMD_DEV_GET);
	off = req_put(&self->req, KVPERF_A_DEV_NAME, name, sizeof(name));
	ASSERT_EQ(0, send_req(_metadata, self));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_NE(0, self->rep.msg[0]);
	EXPECT_EQ(off, self->rep.bad_off);
}

TEST_F(kvperf_nl, unsupported_attribute)
{
	uint32_t index = 1;
	int off;

	/* dev-get takes only a name; an index is not accepted */
	req_init(&self->req, self->family, 0, KVPERF_CMD_DEV_GET);
	req_put(&self->req, KVPERF_A_DEV_NAME, dev, strlen(dev) + 1);
	off = req_put(&self->req, KVPERF_A_DEV_INDEX, &index, sizeof(index));
	ASSERT_EQ(0, send_req(_metadata, self));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_NE(0, self->rep.msg[0]);
	EXPECT_EQ(off, self->rep.bad_off);
}

TEST_F(kvperf_nl, unknown_attribute_type)
{
	uint32_t v = 7;
	int off;

	req_init(&self->req, self->family, 0, KVPERF_CMD_DEV_GET);
	req_put(&self->req, KVPERF_A_DEV_NAME, dev, strlen(dev) + 1);
	off = req_put(&self->req, 200, &v, sizeof(v));
	ASSERT_EQ(0, send_req(_metadata, self));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_NE(0, self->rep.msg[0]);
	EXPECT_EQ(off, self->rep.bad_off);
}

TEST_F(kvperf_nl, truncated_attribute)
{
	struct nlattr *nla;

	req_init(&self->req, self->family, 0, KVPERF_CMD_DEV_GET);
	req_put(&self->req, KVPERF_A_DEV_NAME, dev, strlen(dev) + 1);
	/* the attribute claims more bytes than the message holds */
	nla = (void *)((char *)&self->req + NLMSG_LENGTH(GENL_HDRLEN));
	nla->nla_len = 200;
	ASSERT_EQ(0, send_req(_metadata, self));
	EXPECT_EQ(-EINVAL, self->rep.error);
}

TEST_F(kvperf_nl, reserved_header_field)
{
	req_init(&self->req, self->family, 0, KVPERF_CMD_DEV_GET);
	req_put(&self->req, KVPERF_A_DEV_NAME, dev, strlen(dev) + 1);
	self->req.genl.reserved = 1;
	ASSERT_EQ(0, send_req(_metadata, self));
	EXPECT_EQ(-EINVAL, self->rep.error);
}

TEST_F(kvperf_nl, unknown_command)
{
	req_init(&self->req, self->family, 0, 200);
	ASSERT_EQ(0, send_req(_metadata, self));
	EXPECT_EQ(-EOPNOTSUPP, self->rep.error);
}

TEST_F(kvperf_nl, short_header)
{
	req_init(&self->req, self->family, 0, KVPERF_CMD_DEV_GET);
	self->req.nlh.nlmsg_len = NLMSG_LENGTH(2);	/* half a genl header */
	ASSERT_EQ(0, send_req(_metadata, self));
	EXPECT_EQ(-EINVAL, self->rep.error);
}

/*
 * Skip, with the reason, where there is nothing to test: no module, no
 * device. Otherwise pick the device and run the tests.
 */
int main(int argc, char **argv)
{
	const char *env = getenv("KVPERF_DEV0");
	struct nl_reply rep;
	struct req r;
	int fd, family;

	fd = nl_open();
	if (fd < 0)
		ksft_exit_fail_msg("netlink socket: %s\n", strerror(errno));
	family = family_id(fd);
	if (family < 0) {
		ksft_print_header();
		ksft_exit_skip("the kvperf module is not loaded (no generic netlink family %s)\n",
			       KVPERF_FAMILY_NAME);
	}
	if (env && *env) {
		snprintf(dev, sizeof(dev), "%s", env);
	} else {
		req_init(&r, family, NLM_F_DUMP, KVPERF_CMD_DEV_GET);
		if (nl_talk(fd, &r, r.nlh.nlmsg_len, &rep) || rep.error)
			ksft_exit_fail_msg("dev-get dump: error %d %s\n",
					   rep.error, rep.msg);
		if (!rep.first[0]) {
			ksft_print_header();
			ksft_exit_skip("the kvperf module lists no RDMA device\n");
		}
		snprintf(dev, sizeof(dev), "%s", rep.first);
	}
	close(fd);
	return test_harness_run(argc, argv);
}
