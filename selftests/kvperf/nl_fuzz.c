// SPDX-License-Identifier: GPL-2.0
/*
 * A seeded fuzzer for the kvperf generic-netlink family, on raw netlink
 * sockets. It sends random requests: valid and invalid commands, random
 * attribute types, lengths and nests, random flags, truncated messages
 * and wrong lengths, and requests that pass the policy with random values
 * (servers on random addresses and ports, runs with small but plausible
 * configurations), so that many reach the handlers. Every request is
 * followed by a NOOP "ping" with an ack, and the socket is read until the
 * ping's ack (and any dump's end) arrives, so no reply is left unread and
 * a request the kernel never answers shows as a hang.
 *
 * The commands and which of them need CAP_NET_ADMIN come from the family's
 * own description (CTRL_CMD_GETFAMILY), the attributes each command takes,
 * their types and ranges from the kernel's policy dump
 * (CTRL_CMD_GETPOLICY), the attribute spaces from the UAPI header's
 * __KVPERF_A_*_MAX: attributes added later are fuzzed without a change
 * here.
 *
 * A forked child drops to uid/gid 65534 (nobody) and sends a share of
 * the requests through a socket opened as root and one opened as nobody:
 * every state-changing command must be refused with EPERM.
 *
 * At the end every run and server left is stopped and deleted.
 *
 * usage: nl_fuzz [-n COUNT] [-t SECONDS] [-s SEED] [-u PERCENT]
 *                [-a ADDR]... [-w SECONDS] [-x N] [-v]
 * Output: "key value" lines (see main()); exit 0 when every request was
 * answered and nothing unexpected happened, 1 otherwise.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/kvperf.h>

#define MSG_MAX		8192
#define RECV_MAX	65536
#define POL_MAX		32	/* policies the fuzzer keeps */
#define POL_ATTRS	128	/* attribute types per policy */
#define IDS_MAX		64	/* known run and server ids */
#define LIST_MAX	4096	/* ids a dump returns */
#define NEST_DEPTH	6
#define UNPRIV_UID	65534

/* The attribute space of each kind of command, from the UAPI header. */
#define DEV_ATTR_MAX	(__KVPERF_A_DEV_MAX - 1)
#define SERVER_ATTR_MAX	(__KVPERF_A_SERVER_MAX - 1)
#define RUN_ATTR_MAX	(__KVPERF_A_RUN_MAX - 1)
#define CMD_MAX		(__KVPERF_CMD_MAX - 1)

/* ---- options and state ---- */

static unsigned long opt_count = 20000;
static unsigned int opt_seconds = 60;
static unsigned int opt_unpriv = 5;	/* percent of the requests */
static unsigned int opt_wait = 20;	/* seconds to wait for a reply */
static long opt_dump = -1;		/* request to print in hex */
static int opt_verbose;
static uint64_t opt_seed;
static const char *opt_addrs[8];
static int n_addrs;

static uint64_t rng;
static int family;
static uint32_t seq_next = 1;

struct pol_attr {
	int present;
	uint32_t type;		/* NL_ATTR_TYPE_* */
	int has_u, has_s, has_len;
	uint64_t umin, umax;
	int64_t smin, smax;
	uint32_t minlen, maxlen;
	int nested;		/* policy index of a nest, or -1 */
	uint32_t mask;
};

struct policy {
	int used;
	int maxtype;
	struct pol_attr a[POL_ATTRS];
};

static struct policy pols[POL_MAX];
static int op_do_pol[256], op_dump_pol[256];
static uint32_t op_flags[256];	/* GENL_ADMIN_PERM, GENL_CMD_CAP_* */
static int op_exists[256];
static int n_ops, n_pol_attrs;

struct counters {
	unsigned long sent;		/* sends */
	unsigned long msgs;		/* netlink messages in them */
	unsigned long reached;		/* observed to reach a handler */
	unsigned long ok;		/* ack 0 or a reply */
	unsigned long silent;		/* no reply at all */
	unsigned long enobufs, truncated, stale;
	unsigned long runs, servers;	/* created */
	unsigned long housekeeping;
	unsigned long hangs;
	unsigned long errs[160];	/* by errno */
	unsigned long slow;		/* requests answered in more than 2 s */
	double slowest;
	unsigned long slowest_idx;
	/* the unprivileged child */
	unsigned long up_admin, up_eperm, up_other, up_violations;
	unsigned long up_gets, up_gets_answered;
	unsigned long fail;
};

static struct counters cnt;

/* ---- random numbers: xorshift64*, replayable from the seed ---- */

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1DULL;
}

static uint32_t rn(uint32_t n)
{
	return n ? rnd() % n : 0;
}

static int chance(unsigned int percent)
{
	return rn(100) < percent;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- building messages ---- */

struct msg {
	unsigned char buf[MSG_MAX];
	size_t len;		/* bytes to send */
	size_t nlh;		/* offset of the message being built */
	size_t nest[NEST_DEPTH + 2];
	int depth;
	uint8_t cmd;
	uint32_t seq_lo, seq_hi;
	int dump;		/* a dump may answer */
};

static struct nlmsghdr *cur_nlh(struct msg *m)
{
	return (struct nlmsghdr *)(m->buf + m->nlh);
}

static void msg_begin(struct msg *m, uint16_t type, uint16_t flags,
		      uint8_t cmd)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;

	m->nlh = NLMSG_ALIGN(m->len);
	nlh = cur_nlh(m);
	memset(nlh, 0, NLMSG_LENGTH(GENL_HDRLEN));
	nlh->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq_next++;
	g = NLMSG_DATA(nlh);
	g->cmd = cmd;
	g->version = 1;
	m->len = m->nlh + nlh->nlmsg_len;
	m->depth = 0;
	if (!m->seq_lo)
		m->seq_lo = nlh->nlmsg_seq;
	m->seq_hi = nlh->nlmsg_seq;
}

static void msg_init(struct msg *m)
{
	m->len = 0;
	m->nlh = 0;
	m->depth = 0;
	m->seq_lo = 0;
	m->seq_hi = 0;
	m->dump = 0;
}

/* Room for an attribute of LEN bytes, with some left for closing nests. */
static int msg_room(struct msg *m, size_t len)
{
	return NLA_ALIGN(m->len) + NLA_HDRLEN + NLA_ALIGN(len) + 64 < MSG_MAX;
}

static void msg_sync_len(struct msg *m)
{
	cur_nlh(m)->nlmsg_len = m->len - m->nlh;
}

static int put_attr(struct msg *m, uint16_t type, const void *data,
		    size_t len)
{
	struct nlattr *nla;

	if (len > 0xffff - NLA_HDRLEN || !msg_room(m, len))
		return -1;
	m->len = NLA_ALIGN(m->len);
	nla = (struct nlattr *)(m->buf + m->len);
	nla->nla_type = type;
	nla->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((char *)nla + NLA_HDRLEN, data, len);
	memset((char *)nla + NLA_HDRLEN + len, 0,
	       NLA_ALIGN(len) - len);
	m->len += NLA_ALIGN(nla->nla_len);
	msg_sync_len(m);
	return 0;
}

static void put_u8(struct msg *m, uint16_t type, uint8_t v)
{
	put_attr(m, type, &v, 1);
}

static void put_u16(struct msg *m, uint16_t type, uint16_t v)
{
	put_attr(m, type, &v, 2);
}

static void put_u32(struct msg *m, uint16_t type, uint32_t v)
{
	put_attr(m, type, &v, 4);
}

static void put_str(struct msg *m, uint16_t type, const char *s)
{
	put_attr(m, type, s, strlen(s) + 1);
}

static int nest_begin(struct msg *m, uint16_t type)
{
	if (m->depth > NEST_DEPTH || put_attr(m, type, NULL, 0))
		return -1;
	m->nest[m->depth++] = m->len - NLA_HDRLEN;
	return 0;
}

static void nest_end(struct msg *m)
{
	struct nlattr *nla = (struct nlattr *)(m->buf + m->nest[--m->depth]);

	nla->nla_len = m->len - m->nest[m->depth];
}

static void random_bytes(void *p, size_t len)
{
	unsigned char *b = p;

	while (len--)
		*b++ = rnd();
}

/* ---- parsing ---- */

static int attr_ok(const struct nlattr *nla, int rem)
{
	return rem >= NLA_HDRLEN && nla->nla_len >= NLA_HDRLEN &&
	       nla->nla_len <= rem;
}

static struct nlattr *attr_next(const struct nlattr *nla, int *rem)
{
	int len = NLA_ALIGN(nla->nla_len);

	*rem -= len;
	return (struct nlattr *)((char *)nla + len);
}

/* The type without NLA_F_NESTED and NLA_F_NET_BYTEORDER. */
static int attr_type(const struct nlattr *nla)
{
	return nla->nla_type & NLA_TYPE_MASK;
}

static void *attr_data(const struct nlattr *nla)
{
	return (char *)nla + NLA_HDRLEN;
}

static int attr_len(const struct nlattr *nla)
{
	return nla->nla_len - NLA_HDRLEN;
}

static uint64_t attr_uint(const struct nlattr *nla)
{
	uint64_t v = 0;
	uint32_t v32 = 0;
	uint16_t v16 = 0;

	switch (attr_len(nla)) {
	case 1:
		return *(uint8_t *)attr_data(nla);
	case 2:
		memcpy(&v16, attr_data(nla), 2);
		return v16;
	case 4:
		memcpy(&v32, attr_data(nla), 4);
		return v32;
	case 8:
		memcpy(&v, attr_data(nla), 8);
		return v;
	}
	return 0;
}

static struct nlattr *genl_attrs(struct nlmsghdr *nlh, int *rem)
{
	*rem = (int)nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	return (struct nlattr *)((char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
}

/* ---- sockets ---- */

static int nl_open(int rcvbuf, int strict)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = opt_wait };
	int one = 1, fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	if (strict)
		setsockopt(fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one,
			   sizeof(one));
	if (rcvbuf)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* What came back for one send. */
struct outcome {
	int nerr;		/* NLMSG_ERROR messages for the request */
	int err;		/* the last one's error */
	char msg[128];		/* and its extack message */
	int data;		/* messages of the family */
	int multi, done;	/* dump parts seen, dump ended */
	int enobufs, truncated;
	int uncertain;		/* replies may have been lost */
	uint32_t id;		/* a run or server id in a start reply */
	uint8_t reply_cmd;
	uint32_t *list;		/* ids of a dump, or NULL */
	int nlist;
};

static void parse_err(struct nlmsghdr *nlh, struct outcome *o)
{
	struct nlmsgerr *e = NLMSG_DATA(nlh);
	struct nlattr *nla;
	int rem;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
		return;
	o->nerr++;
	o->err = e->error;
	o->msg[0] = '\0';
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	/* NETLINK_CAP_ACK: the request is not echoed */
	nla = (struct nlattr *)((char *)e + sizeof(*e));
	rem = (char *)nlh + nlh->nlmsg_len - (char *)nla;
	for (; attr_ok(nla, rem); nla = attr_next(nla, &rem))
		if (attr_type(nla) == NLMSGERR_ATTR_MSG && attr_len(nla) > 0)
			snprintf(o->msg, sizeof(o->msg), "%.*s",
				 attr_len(nla), (char *)attr_data(nla));
}

static void parse_data(struct nlmsghdr *nlh, struct outcome *o)
{
	struct genlmsghdr *g = NLMSG_DATA(nlh);
	struct nlattr *nla;
	int rem;

	o->data++;
	if (nlh->nlmsg_flags & NLM_F_MULTI)
		o->multi = 1;
	if (nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return;
	o->reply_cmd = g->cmd;
	for (nla = genl_attrs(nlh, &rem); attr_ok(nla, rem);
	     nla = attr_next(nla, &rem)) {
		/* the id is attribute 1 of runs and servers alike */
		if (attr_type(nla) != KVPERF_A_RUN_ID || attr_len(nla) != 4)
			continue;
		o->id = attr_uint(nla);
		if (o->list && o->nlist < LIST_MAX)
			o->list[o->nlist++] = o->id;
	}
}

static int send_ping(int fd, uint32_t *ping)
{
	struct nlmsghdr nlh = {
		.nlmsg_len = NLMSG_HDRLEN,
		.nlmsg_type = NLMSG_NOOP,
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
	};

	*ping = nlh.nlmsg_seq = seq_next++;
	return send(fd, &nlh, sizeof(nlh), 0) == sizeof(nlh) ? 0 : -1;
}

/*
 * Send M on FD and read until the ping after it is acknowledged and a
 * dump it started has ended. RBUF is the receive buffer to use (small
 * ones truncate big replies). Returns 0, or -1 when the kernel stopped
 * answering.
 *
 * After ENOBUFS (replies dropped, maybe the ping's ack too) the socket
 * stays congested, dropping what comes, until its queue is empty: read
 * it empty, then ping again.
 */
static int exchange(int fd, struct msg *m, size_t rbuf, struct outcome *o)
{
	static unsigned char buf[RECV_MAX];
	uint32_t ping;
	int pinged = 0, tries = 0, resync = 0;
	double t0 = now();

	o->nerr = o->data = o->multi = o->done = 0;
	o->enobufs = o->truncated = o->uncertain = 0;
	o->err = 0;
	o->msg[0] = '\0';
	o->id = 0;
	o->reply_cmd = 0;
	o->nlist = 0;
	if (rbuf > sizeof(buf))
		rbuf = sizeof(buf);
	if (send(fd, m->buf, m->len, 0) < 0 && opt_verbose)
		printf("# send: %s\n", strerror(errno));
	if (send_ping(fd, &ping))
		return -1;
	while (!pinged || (o->multi && !o->done && !o->nerr)) {
		struct nlmsghdr *nlh;
		ssize_t n;
		int len;

		n = recv(fd, buf, rbuf, MSG_TRUNC | (resync ? MSG_DONTWAIT : 0));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {
			cnt.enobufs++;
			o->enobufs++;
			o->uncertain = 1;
			resync = 1;
			pinged = 0;
			if (++tries > 1000)
				return -1;
			continue;
		}
		if (n < 0 && errno == EAGAIN && resync) {
			resync = 0;
			if (send_ping(fd, &ping))
				return -1;
			continue;
		}
		if (n < 0 && errno == EAGAIN && pinged && o->uncertain)
			break;	/* the dump's end went with a lost reply */
		if (n < 0)
			return -1;
		len = n;
		if ((size_t)n > rbuf) {
			cnt.truncated++;
			o->truncated++;
			len = rbuf;
		}
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_seq == ping &&
			    nlh->nlmsg_type == NLMSG_ERROR) {
				pinged = 1;
				continue;
			}
			if (nlh->nlmsg_seq < m->seq_lo ||
			    nlh->nlmsg_seq > m->seq_hi) {
				cnt.stale++;
				continue;
			}
			if (nlh->nlmsg_type == NLMSG_ERROR)
				parse_err(nlh, o);
			else if (nlh->nlmsg_type == NLMSG_DONE)
				o->done = 1;
			else if (nlh->nlmsg_type == family)
				parse_data(nlh, o);
		}
	}
	if (now() - t0 > 2) {
		cnt.slow++;
		if (now() - t0 > cnt.slowest) {
			cnt.slowest = now() - t0;
			cnt.slowest_idx = cnt.sent;
		}
	}
	return 0;
}

/* ---- the family's description and policies ---- */

static void parse_ops(struct nlattr *ops)
{
	struct nlattr *op, *a;
	int rem = attr_len(ops), rem2;

	for (op = attr_data(ops); attr_ok(op, rem); op = attr_next(op, &rem)) {
		uint32_t id = 0, flags = 0;

		rem2 = attr_len(op);
		for (a = attr_data(op); attr_ok(a, rem2); a = attr_next(a, &rem2)) {
			if (attr_type(a) == CTRL_ATTR_OP_ID)
				id = attr_uint(a);
			else if (attr_type(a) == CTRL_ATTR_OP_FLAGS)
				flags = attr_uint(a);
		}
		if (id < 256) {
			op_exists[id] = 1;
			op_flags[id] = flags;
			n_ops++;
		}
	}
}

static int resolve_family(int fd)
{
	static unsigned char buf[RECV_MAX];
	struct msg *m = calloc(1, sizeof(*m));
	struct nlmsghdr *nlh;
	ssize_t n;
	int len;

	if (!m)
		return -1;
	msg_init(m);
	msg_begin(m, GENL_ID_CTRL, NLM_F_REQUEST, CTRL_CMD_GETFAMILY);
	put_str(m, CTRL_ATTR_FAMILY_NAME, KVPERF_FAMILY_NAME);
	n = send(fd, m->buf, m->len, 0);
	free(m);
	if (n < 0)
		return -1;
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0)
		return -1;
	len = n;
	for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, len);
	     nlh = NLMSG_NEXT(nlh, len)) {
		struct nlattr *nla;
		int rem;

		if (nlh->nlmsg_type != GENL_ID_CTRL)
			continue;
		for (nla = genl_attrs(nlh, &rem); attr_ok(nla, rem);
		     nla = attr_next(nla, &rem)) {
			if (attr_type(nla) == CTRL_ATTR_FAMILY_ID)
				family = attr_uint(nla);
			else if (attr_type(nla) == CTRL_ATTR_OPS)
				parse_ops(nla);
		}
	}
	return family ? 0 : -1;
}

static void parse_pol_attr(struct pol_attr *pa, struct nlattr *desc)
{
	struct nlattr *a;
	int rem = attr_len(desc);

	memset(pa, 0, sizeof(*pa));
	pa->present = 1;
	pa->nested = -1;
	for (a = attr_data(desc); attr_ok(a, rem); a = attr_next(a, &rem)) {
		switch (attr_type(a)) {
		case NL_POLICY_TYPE_ATTR_TYPE:
			pa->type = attr_uint(a);
			break;
		case NL_POLICY_TYPE_ATTR_MIN_VALUE_U:
			pa->umin = attr_uint(a);
			pa->has_u = 1;
			break;
		case NL_POLICY_TYPE_ATTR_MAX_VALUE_U:
			pa->umax = attr_uint(a);
			pa->has_u = 1;
			break;
		case NL_POLICY_TYPE_ATTR_MIN_VALUE_S:
			pa->smin = (int64_t)attr_uint(a);
			pa->has_s = 1;
			break;
		case NL_POLICY_TYPE_ATTR_MAX_VALUE_S:
			pa->smax = (int64_t)attr_uint(a);
			pa->has_s = 1;
			break;
		case NL_POLICY_TYPE_ATTR_MIN_LENGTH:
			pa->minlen = attr_uint(a);
			pa->has_len = 1;
			break;
		case NL_POLICY_TYPE_ATTR_MAX_LENGTH:
			pa->maxlen = attr_uint(a);
			pa->has_len = 1;
			break;
		case NL_POLICY_TYPE_ATTR_POLICY_IDX:
			pa->nested = attr_uint(a) < POL_MAX ? (int)attr_uint(a) : -1;
			break;
		case NL_POLICY_TYPE_ATTR_BITFIELD32_MASK:
			pa->mask = attr_uint(a);
			break;
		}
	}
}

static void parse_policy(struct nlattr *top)
{
	struct nlattr *p, *a;
	int rem = attr_len(top), rem2;

	for (p = attr_data(top); attr_ok(p, rem); p = attr_next(p, &rem)) {
		struct policy *pol;

		if (attr_type(p) >= POL_MAX)
			continue;
		pol = &pols[attr_type(p)];
		pol->used = 1;
		rem2 = attr_len(p);
		for (a = attr_data(p); attr_ok(a, rem2); a = attr_next(a, &rem2)) {
			if (attr_type(a) >= POL_ATTRS)
				continue;
			parse_pol_attr(&pol->a[attr_type(a)], a);
			if (attr_type(a) > pol->maxtype)
				pol->maxtype = attr_type(a);
			n_pol_attrs++;
		}
	}
}

static void parse_op_policy(struct nlattr *top)
{
	struct nlattr *op, *a;
	int rem = attr_len(top), rem2;

	for (op = attr_data(top); attr_ok(op, rem); op = attr_next(op, &rem)) {
		if (attr_type(op) >= 256)
			continue;
		rem2 = attr_len(op);
		for (a = attr_data(op); attr_ok(a, rem2); a = attr_next(a, &rem2)) {
			if (attr_type(a) == CTRL_ATTR_POLICY_DO &&
			    attr_uint(a) < POL_MAX)
				op_do_pol[attr_type(op)] = attr_uint(a);
			if (attr_type(a) == CTRL_ATTR_POLICY_DUMP &&
			    attr_uint(a) < POL_MAX)
				op_dump_pol[attr_type(op)] = attr_uint(a);
		}
	}
}

/* The kernel's policy of every command; without it only the header counts. */
static void load_policies(int fd)
{
	static unsigned char buf[RECV_MAX];
	struct nlmsghdr *nlh;
	struct msg *m = calloc(1, sizeof(*m));
	int done = 0;
	ssize_t n;

	if (!m)
		return;
	msg_init(m);
	msg_begin(m, GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_DUMP,
		  CTRL_CMD_GETPOLICY);
	put_u16(m, CTRL_ATTR_FAMILY_ID, family);
	n = send(fd, m->buf, m->len, 0);
	free(m);
	while (n >= 0 && !done) {
		int len;

		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			break;
		len = n;
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			struct nlattr *nla;
			int rem;

			if (nlh->nlmsg_type == NLMSG_DONE ||
			    nlh->nlmsg_type == NLMSG_ERROR) {
				done = 1;
				break;
			}
			for (nla = genl_attrs(nlh, &rem); attr_ok(nla, rem);
			     nla = attr_next(nla, &rem)) {
				if (attr_type(nla) == CTRL_ATTR_POLICY)
					parse_policy(nla);
				else if (attr_type(nla) == CTRL_ATTR_OP_POLICY)
					parse_op_policy(nla);
			}
		}
	}
}

static int admin_op(uint8_t cmd)
{
	return op_exists[cmd] && (op_flags[cmd] & GENL_ADMIN_PERM);
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

static int cmd_attr_max(uint8_t cmd)
{
	switch (cmd) {
	case KVPERF_CMD_DEV_GET:
		return DEV_ATTR_MAX;
	case KVPERF_CMD_SERVER_START:
	case KVPERF_CMD_SERVER_GET:
	case KVPERF_CMD_SERVER_STOP:
		return SERVER_ATTR_MAX;
	case KVPERF_CMD_RUN_START:
	case KVPERF_CMD_RUN_GET:
	case KVPERF_CMD_RUN_STOP:
	case KVPERF_CMD_RUN_DELETE:
		return RUN_ATTR_MAX;
	}
	/* an unknown command: the largest attribute space */
	return max_int(max_int(DEV_ATTR_MAX, SERVER_ATTR_MAX), RUN_ATTR_MAX);
}

/* ---- known ids ---- */

struct idring {
	uint32_t id[IDS_MAX];
	int n;
};

static struct idring runs, servers;

static void ids_add(struct idring *r, uint32_t id)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (r->id[i] == id)
			return;
	if (r->n == IDS_MAX) {
		memmove(r->id, r->id + 1, sizeof(r->id[0]) * (IDS_MAX - 1));
		r->n--;
	}
	r->id[r->n++] = id;
}

static void ids_del(struct idring *r, uint32_t id)
{
	int i;

	for (i = 0; i < r->n; i++) {
		if (r->id[i] != id)
			continue;
		memmove(r->id + i, r->id + i + 1,
			sizeof(r->id[0]) * (r->n - i - 1));
		r->n--;
		return;
	}
}

static uint32_t pick_id(struct idring *r)
{
	uint32_t any = r->n ? r->id[rn(r->n)] : 1;

	switch (rn(10)) {
	case 0:
		return 0;
	case 1:
		return rn(2) ? 0xffffffffu : 0x80000000u + rn(8);
	case 2:
	case 3:
	case 4:
		return 1 + rn(40);
	}
	return any;
}

/* ---- values ---- */

/* One of the host's addresses (-a), IPv4 or IPv6. */
static void put_host_addr(struct msg *m, uint16_t type)
{
	const char *s = opt_addrs[rn(n_addrs)];
	unsigned char a[16];

	if (inet_pton(AF_INET, s, a) == 1)
		put_attr(m, type, a, 4);
	else if (inet_pton(AF_INET6, s, a) == 1)
		put_attr(m, type, a, 16);
}

static void pick_addr(struct msg *m, uint16_t type)
{
	unsigned char a[20];
	struct in_addr in;
	int k = rn(16);

	if (k < 8 && n_addrs) {
		put_host_addr(m, type);
		return;
	}
	switch (k) {
	case 8:
		inet_pton(AF_INET, "127.0.0.1", &in);
		put_attr(m, type, &in, 4);
		return;
	case 9:
		inet_pton(AF_INET, "0.0.0.0", &in);
		put_attr(m, type, &in, 4);
		return;
	case 10:	/* elsewhere in the benchmarking range */
		inet_pton(AF_INET, "198.18.0.0", &in);
		in.s_addr |= htonl(rn(0x20000));
		put_attr(m, type, &in, 4);
		return;
	case 11:
		memset(a, 0, 16);
		a[15] = rn(2);	/* :: or ::1 */
		put_attr(m, type, a, 16);
		return;
	case 12:
		random_bytes(a, 16);
		put_attr(m, type, a, 16);
		return;
	case 13:	/* neither 4 nor 16 bytes */
		random_bytes(a, sizeof(a));
		put_attr(m, type, a, 5 + rn(11));
		return;
	}
	random_bytes(a, 4);
	put_attr(m, type, a, 4);
}

static uint16_t pick_port(void)
{
	switch (rn(10)) {
	case 0:
		return 0;
	case 1:
		return rnd();
	case 2:
		return 1 + rn(1024);
	}
	return 18515 + rn(8);
}

static void pick_dev(struct msg *m, uint16_t type)
{
	static const char * const names[] = { "rxe0", "rxe1", "rxe2", "lo",
					      "nosuchdev", "" };
	char s[80];

	if (chance(80)) {
		put_str(m, type, names[rn(6)]);
		return;
	}
	memset(s, 'a' + rn(26), sizeof(s));
	put_attr(m, type, s, rn(sizeof(s)));	/* maybe no NUL */
}

static void pick_cpus(struct msg *m, uint16_t type)
{
	static const char * const lists[] = { "0", "1", "0-1", "0,1", "1-0",
					      "7", "0-255", "", "x", "0-" };

	put_str(m, type, lists[rn(10)]);
}

/* A random value in [lo, hi], the bounds and small ones often. */
static uint64_t pick_between(uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return lo;
	if (hi - lo == ~0ULL)
		return rn(2) ? rn(16) : rnd();
	switch (rn(6)) {
	case 0:
		return lo;
	case 1:
		return hi;
	case 2:
		return lo + rn(hi - lo < 16 ? hi - lo + 1 : 16);
	}
	return lo + rnd() % (hi - lo + 1);
}

static int type_bytes(uint32_t t)
{
	switch (t) {
	case NL_ATTR_TYPE_U8:
	case NL_ATTR_TYPE_S8:
		return 1;
	case NL_ATTR_TYPE_U16:
	case NL_ATTR_TYPE_S16:
		return 2;
	case NL_ATTR_TYPE_U32:
	case NL_ATTR_TYPE_S32:
		return 4;
	case NL_ATTR_TYPE_U64:
	case NL_ATTR_TYPE_S64:
		return 8;
	}
	return 0;
}

static void random_attrs(struct msg *m, int max, int depth);

/* An attribute described by policy PA: valid unless BAD. */
static void policy_value(struct msg *m, uint16_t type,
			 const struct pol_attr *pa, int bad, int depth)
{
	unsigned char b[320];
	uint64_t v, lo, hi, top;
	int w = type_bytes(pa->type);
	size_t len;

	if (w) {
		top = w == 8 ? ~0ULL : (1ULL << (8 * w)) - 1;
		lo = pa->has_u ? pa->umin : 0;
		hi = pa->has_u ? pa->umax : top;
		if (pa->has_s) {	/* signed: keep to the non-negative part */
			lo = pa->smin > 0 ? (uint64_t)pa->smin : 0;
			hi = pa->smax > 0 ? (uint64_t)pa->smax : 0;
		}
		v = pick_between(lo, hi);
		if (bad && chance(60) && (lo > 0 || hi < top))
			v = lo > 0 && (hi == top || rn(2)) ? lo - 1 - rn(lo) :
			    hi + 1 + rn(top - hi);
		else if (bad)
			w = rn(9);	/* the wrong size */
		put_attr(m, type, &v, w);
		return;
	}
	switch (pa->type) {
	case NL_ATTR_TYPE_FLAG:
		random_bytes(b, 8);
		put_attr(m, type, b, bad ? 1 + rn(8) : 0);
		return;
	case NL_ATTR_TYPE_NESTED:
	case NL_ATTR_TYPE_NESTED_ARRAY:
		if (nest_begin(m, type | (chance(50) ? NLA_F_NESTED : 0)))
			return;
		if (pa->nested >= 0 && pols[pa->nested].used && !bad)
			random_attrs(m, -1 - pa->nested, depth + 1);
		else
			random_attrs(m, 8, depth + 1);
		nest_end(m);
		return;
	case NL_ATTR_TYPE_BITFIELD32:
		v = rnd() & (bad ? ~0u : pa->mask);
		memcpy(b, &v, 4);
		v = rnd() & (bad ? ~0u : pa->mask);
		memcpy(b + 4, &v, 4);
		put_attr(m, type, b, bad ? rn(12) : 8);
		return;
	}
	/* strings and binary: a length in (or out of) the bounds */
	lo = pa->has_len ? pa->minlen : 0;
	hi = pa->has_len && pa->maxlen ? pa->maxlen : 64;
	if (hi > sizeof(b) - 2)
		hi = sizeof(b) - 2;
	len = pick_between(lo, hi);
	if (bad)
		len = lo > 0 && rn(2) ? rn(lo) : hi + 1 + rn(8);
	if (len > sizeof(b) - 1)
		len = sizeof(b) - 1;
	random_bytes(b, len);
	if (pa->type == NL_ATTR_TYPE_NUL_STRING || pa->type == NL_ATTR_TYPE_STRING) {
		memset(b, 'a' + rn(26), len);
		if (!bad || rn(2))
			b[len++] = '\0';
	}
	put_attr(m, type, b, len);
}

/*
 * A value for attribute TYPE of command CMD as the handlers would want it
 * (small runs, the guest's addresses); 0 when the fuzzer has no idea.
 */
static int plausible_value(struct msg *m, uint8_t cmd, uint16_t type)
{
	int run = cmd == KVPERF_CMD_RUN_START || cmd == KVPERF_CMD_RUN_GET ||
		  cmd == KVPERF_CMD_RUN_STOP || cmd == KVPERF_CMD_RUN_DELETE;
	int server = cmd == KVPERF_CMD_SERVER_START ||
		     cmd == KVPERF_CMD_SERVER_GET ||
		     cmd == KVPERF_CMD_SERVER_STOP;

	if (cmd == KVPERF_CMD_DEV_GET && type == KVPERF_A_DEV_NAME) {
		pick_dev(m, type);
		return 1;
	}
	if (server) {
		switch (type) {
		case KVPERF_A_SERVER_ID:
			put_u32(m, type, pick_id(&servers));
			return 1;
		case KVPERF_A_SERVER_ADDR:
			pick_addr(m, type);
			return 1;
		case KVPERF_A_SERVER_PORT:
			put_u16(m, type, pick_port());
			return 1;
		case KVPERF_A_SERVER_DEV:
			pick_dev(m, type);
			return 1;
		}
		return 0;
	}
	if (!run)
		return 0;
	switch (type) {
	case KVPERF_A_RUN_ID:
		put_u32(m, type, pick_id(&runs));
		return 1;
	case KVPERF_A_RUN_ADDR:
		pick_addr(m, type);
		return 1;
	case KVPERF_A_RUN_PORT:
		put_u16(m, type, pick_port());
		return 1;
	case KVPERF_A_RUN_TYPE:
		put_u8(m, type, chance(70) ? KVPERF_RUN_TYPE_LAT :
					     KVPERF_RUN_TYPE_BW);
		return 1;
	case KVPERF_A_RUN_OP:
	case KVPERF_A_RUN_POLL:
		put_u8(m, type, rn(3));
		return 1;
	case KVPERF_A_RUN_STATS:
	case KVPERF_A_RUN_POST_CONTEXT:
		put_u8(m, type, rn(2));
		return 1;
	case KVPERF_A_RUN_SIZE:
	case KVPERF_A_RUN_SIZE_MAX:
		put_u32(m, type, chance(90) ? 1u << rn(13) : 1 + rn(65536));
		return 1;
	case KVPERF_A_RUN_ITERATIONS:
		put_u32(m, type, 1 + rn(200));
		return 1;
	case KVPERF_A_RUN_DURATION_MS:
		put_u32(m, type, 1 + rn(100));
		return 1;
	case KVPERF_A_RUN_WARMUP:
		put_u32(m, type, rn(16));
		return 1;
	case KVPERF_A_RUN_WARMUP_MS:
		put_u32(m, type, 1 + rn(50));
		return 1;
	case KVPERF_A_RUN_INLINE:
		put_u32(m, type, rn(3) ? 0 : rn(257));
		return 1;
	case KVPERF_A_RUN_CPU:
		put_u32(m, type, rn(4));
		return 1;
	case KVPERF_A_RUN_TIMEOUT_MS:
		put_u32(m, type, 10 + rn(2000));
		return 1;
	case KVPERF_A_RUN_TX_DEPTH:
		put_u32(m, type, 1 + rn(256));
		return 1;
	case KVPERF_A_RUN_QPS:
		put_u32(m, type, 1 + rn(4));
		return 1;
	case KVPERF_A_RUN_POST_LIST:
	case KVPERF_A_RUN_SIGNAL_EVERY:
		put_u32(m, type, 1 + rn(16));
		return 1;
	case KVPERF_A_RUN_INTERVAL_MS:
		put_u32(m, type, 10 + rn(100));
		return 1;
	case KVPERF_A_RUN_CPUS:
		pick_cpus(m, type);
		return 1;
	}
	return 0;
}

/* One attribute of random type, length and content; maybe a nest. */
static void random_attr(struct msg *m, int max, int depth)
{
	static const size_t lens[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16 };
	unsigned char b[320];
	uint16_t type;
	size_t len;

	if (chance(85))
		type = rn(max + 3);
	else
		type = rnd();
	type &= NLA_TYPE_MASK;
	if (chance(15))
		type |= NLA_F_NESTED;
	if (chance(5))
		type |= NLA_F_NET_BYTEORDER;
	if (depth < NEST_DEPTH && chance((type & NLA_F_NESTED) ? 70 : 10)) {
		if (nest_begin(m, type))
			return;
		random_attrs(m, max, depth + 1);
		nest_end(m);
		return;
	}
	len = chance(70) ? lens[rn(11)] : rn(rn(2) ? 64 : 300);
	random_bytes(b, len);
	if (len && chance(20))
		b[len - 1] = '\0';
	put_attr(m, type, b, len);
}

/*
 * Random attributes. MAX >= 0: types up to MAX; MAX < 0: the attributes
 * of policy -1 - MAX, mostly valid.
 */
static void random_attrs(struct msg *m, int max, int depth)
{
	int n = rn(rn(4) ? 5 : 12), i;

	for (i = 0; i < n; i++) {
		if (max < 0) {
			const struct policy *p = &pols[-1 - max];
			uint16_t t = rn(p->maxtype + 1);

			if (p->a[t].present && chance(80)) {
				policy_value(m, t, &p->a[t], chance(15), depth);
				continue;
			}
			random_attr(m, p->maxtype, depth);
			continue;
		}
		random_attr(m, max, depth);
	}
}

static uint16_t random_flags(int dump_pct)
{
	uint16_t f = chance(96) ? NLM_F_REQUEST : 0;

	if (chance(60))
		f |= NLM_F_ACK;
	if (chance(dump_pct))
		f |= NLM_F_DUMP;
	else if (chance(5))
		f |= rn(2) ? NLM_F_ROOT : NLM_F_MATCH;
	if (chance(5))
		f |= 1 << (3 + rn(13));
	return f;
}

static uint8_t random_cmd(void)
{
	switch (rn(8)) {
	case 0:
		return 0;
	case 1:
		return CMD_MAX + 1 + rn(4);
	case 2:
		return rnd();
	}
	return 1 + rn(CMD_MAX);
}

/* The commands plausible requests use, weighted. */
static uint8_t plausible_cmd(void)
{
	static const uint8_t w[] = {
		KVPERF_CMD_RUN_START, KVPERF_CMD_RUN_START,
		KVPERF_CMD_RUN_START, KVPERF_CMD_RUN_START,
		KVPERF_CMD_RUN_START, KVPERF_CMD_SERVER_START,
		KVPERF_CMD_SERVER_START, KVPERF_CMD_RUN_GET,
		KVPERF_CMD_RUN_GET, KVPERF_CMD_RUN_STOP, KVPERF_CMD_RUN_STOP,
		KVPERF_CMD_RUN_DELETE, KVPERF_CMD_RUN_DELETE,
		KVPERF_CMD_SERVER_GET, KVPERF_CMD_SERVER_STOP,
		KVPERF_CMD_SERVER_STOP, KVPERF_CMD_DEV_GET,
	};
	int c;

	/* now and then any command the kernel has, new ones included */
	if (chance(8))
		for (c = 0; c < 20; c++) {
			int cmd = 1 + rn(255);

			if (op_exists[cmd])
				return cmd;
		}
	return w[rn(sizeof(w))];
}

static int bw_only(uint16_t t)
{
	return t == KVPERF_A_RUN_TX_DEPTH || t == KVPERF_A_RUN_QPS ||
	       t == KVPERF_A_RUN_CPUS || t == KVPERF_A_RUN_POST_LIST ||
	       t == KVPERF_A_RUN_SIGNAL_EVERY || t == KVPERF_A_RUN_BIDIR ||
	       t == KVPERF_A_RUN_INTERVAL_MS;
}

static void guest_addr(struct msg *m, uint16_t type)
{
	if (n_addrs && chance(85))
		put_host_addr(m, type);
	else
		pick_addr(m, type);
}

/* A run the handlers should accept: small, to one of this host's addresses. */
static void clean_run_start(struct msg *m, int bw)
{
	uint32_t size = 1u << rn(bw ? 13 : 10);

	guest_addr(m, KVPERF_A_RUN_ADDR);
	put_u8(m, KVPERF_A_RUN_OP, rn(3));
	if (chance(30))
		put_u16(m, KVPERF_A_RUN_PORT, chance(70) ? 18515 : pick_port());
	put_u32(m, KVPERF_A_RUN_SIZE, size);
	if (chance(20))
		put_u32(m, KVPERF_A_RUN_SIZE_MAX, size << rn(3));
	put_u32(m, KVPERF_A_RUN_ITERATIONS, 1 + rn(bw ? 500 : 100));
	put_u8(m, KVPERF_A_RUN_POLL, rn(3));
	put_u32(m, KVPERF_A_RUN_WARMUP, rn(4));
	put_u32(m, KVPERF_A_RUN_TIMEOUT_MS, 50 + rn(1000));
	if (bw) {
		put_u32(m, KVPERF_A_RUN_TX_DEPTH, 16 << rn(3));
		put_u32(m, KVPERF_A_RUN_QPS, 1 + rn(2));
	}
}

static void clean_server_start(struct msg *m)
{
	struct in_addr any = { 0 };

	if (chance(15))
		put_attr(m, KVPERF_A_SERVER_ADDR, &any, 4);
	else
		guest_addr(m, KVPERF_A_SERVER_ADDR);
	if (chance(70))
		put_u16(m, KVPERF_A_SERVER_PORT,
			chance(50) ? 18515 : 18515 + rn(8));
}

/* A request of command CMD that should mostly pass the policy. */
static void plausible_msg(struct msg *m, uint8_t cmd, uint16_t flags)
{
	int pol = (flags & NLM_F_DUMP) == NLM_F_DUMP ? op_dump_pol[cmd] :
						      op_do_pol[cmd];
	int max = pol >= 0 ? pols[pol].maxtype : cmd_attr_max(cmd);
	int want = chance(8) ? 5 : 95;	/* required ones */
	int other = chance(50) ? 10 : 40;
	int t, bw = chance(30);

	msg_begin(m, family, flags, cmd);
	if (cmd == KVPERF_CMD_RUN_START && chance(40)) {
		clean_run_start(m, bw);
		other = 2;
	}
	if (cmd == KVPERF_CMD_SERVER_START && chance(40)) {
		clean_server_start(m);
		other = 2;
	}
	if (cmd == KVPERF_CMD_RUN_START && bw)
		put_u8(m, KVPERF_A_RUN_TYPE, KVPERF_RUN_TYPE_BW);
	if (cmd == KVPERF_CMD_RUN_START && chance(want)) {
		plausible_value(m, cmd, KVPERF_A_RUN_ADDR);
		plausible_value(m, cmd, KVPERF_A_RUN_OP);
		if (chance(90))
			plausible_value(m, cmd, chance(80) ?
					KVPERF_A_RUN_ITERATIONS :
					KVPERF_A_RUN_DURATION_MS);
	}
	if (cmd == KVPERF_CMD_SERVER_START && chance(want))
		plausible_value(m, cmd, KVPERF_A_SERVER_ADDR);
	if ((cmd == KVPERF_CMD_RUN_GET || cmd == KVPERF_CMD_RUN_STOP ||
	     cmd == KVPERF_CMD_RUN_DELETE) && chance(want))
		plausible_value(m, cmd, KVPERF_A_RUN_ID);
	if ((cmd == KVPERF_CMD_SERVER_GET || cmd == KVPERF_CMD_SERVER_STOP) &&
	    chance(want))
		plausible_value(m, cmd, KVPERF_A_SERVER_ID);
	if (cmd == KVPERF_CMD_DEV_GET && chance(want))
		plausible_value(m, cmd, KVPERF_A_DEV_NAME);
	for (t = 1; t <= max; t++) {
		const struct pol_attr *pa = pol >= 0 ? &pols[pol].a[t] : NULL;

		if (pa && !pa->present && !chance(1))
			continue;
		if (!chance(other))
			continue;
		if (cmd == KVPERF_CMD_RUN_START && !bw && bw_only(t) &&
		    chance(90))
			continue;
		if (pa && pa->present && chance(10)) {
			policy_value(m, t, pa, 1, 0);
			continue;
		}
		if (plausible_value(m, cmd, t))
			continue;
		if (pa && pa->present)
			policy_value(m, t, pa, chance(5), 0);
		else
			random_attr(m, max, 0);
	}
	if (chance(4))
		random_attr(m, max, 0);
}

/* A request of random command and attributes. */
static void random_msg(struct msg *m)
{
	uint8_t cmd = random_cmd();

	msg_begin(m, family, random_flags(15), cmd);
	if (op_exists[cmd] && op_do_pol[cmd] >= 0 && chance(40))
		random_attrs(m, -1 - op_do_pol[cmd], 0);
	else
		random_attrs(m, cmd_attr_max(cmd), 0);
}

/* Break a built message: lengths, truncation, bytes, headers. */
static void mangle(struct msg *m)
{
	struct nlmsghdr *nlh = cur_nlh(m);
	struct genlmsghdr *g = NLMSG_DATA(nlh);
	size_t body = m->nlh + NLMSG_LENGTH(GENL_HDRLEN), i, n;
	struct nlattr *nla;
	uint32_t l;

	switch (rn(9)) {
	case 0:		/* the message claims more than is sent */
		nlh->nlmsg_len += 1 + rn(64);
		break;
	case 1:		/* fewer bytes sent than the message claims */
		if (m->len > m->nlh + 1)
			m->len = m->nlh + 1 + rn(m->len - m->nlh - 1);
		break;
	case 2:		/* shorter than its headers, or than its attributes */
		l = rn(nlh->nlmsg_len + 1);
		nlh->nlmsg_len = l;
		/* what is left is parsed as a message: keep it ours */
		if (NLMSG_ALIGN(l) >= NLMSG_HDRLEN &&
		    m->len >= m->nlh + NLMSG_ALIGN(l) + NLMSG_HDRLEN) {
			struct nlmsghdr *next = (struct nlmsghdr *)
				((char *)nlh + NLMSG_ALIGN(l));

			next->nlmsg_len = m->len - m->nlh - NLMSG_ALIGN(l);
			next->nlmsg_type = family;
			next->nlmsg_flags = NLM_F_REQUEST | (rn(2) ? NLM_F_ACK : 0);
			next->nlmsg_seq = nlh->nlmsg_seq;
		} else if (NLMSG_ALIGN(l) < NLMSG_HDRLEN) {
			m->len = m->nlh + NLMSG_HDRLEN;
		}
		break;
	case 3:		/* odd lengths */
		nlh->nlmsg_len -= 1 + rn(3);
		break;
	case 4:		/* bytes flipped after the headers */
		n = 1 + rn(4);
		for (i = 0; i < n && m->len > body; i++)
			m->buf[body + rn(m->len - body)] ^= 1 << rn(8);
		break;
	case 5:		/* an attribute's length */
		if (m->len < body + NLA_HDRLEN)
			break;
		nla = (struct nlattr *)(m->buf + body);
		nla->nla_len = rn(3) ? rn(NLA_HDRLEN) : nla->nla_len + 4 + rn(300);
		break;
	case 6:
		g->version = rnd();
		break;
	case 7:
		g->reserved = 1 + rn(0xffff);
		break;
	case 8:		/* a control message type */
		nlh->nlmsg_type = rn(NLMSG_MIN_TYPE);
		break;
	}
}

/* ---- counting what came back ---- */

static int handler_errno(int e)
{
	return e != EINVAL && e != ERANGE && e != EOPNOTSUPP && e != EPERM &&
	       e != EMSGSIZE;
}

static int reached(const struct outcome *o)
{
	if (o->data)
		return 1;
	if (!o->nerr)
		return 0;
	return !o->err || !strncmp(o->msg, "kvperf: ", 8) ||
	       handler_errno(-o->err);
}

static void count(const struct outcome *o)
{
	if (!o->nerr && !o->data)
		cnt.silent++;
	if (o->data || (o->nerr && !o->err))
		cnt.ok++;
	if (o->nerr && o->err < 0 && -o->err < 160)
		cnt.errs[-o->err]++;
	if (reached(o))
		cnt.reached++;
}

static void hexdump(const char *what, const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t i;

	printf("# %s (%zu bytes):", what, len);
	for (i = 0; i < len; i++)
		printf("%s%02x", i % 32 ? " " : "\n#  ", b[i]);
	printf("\n");
}

static void report_hang(const struct msg *m, unsigned long idx)
{
	cnt.hangs++;
	cnt.fail++;
	printf("# FAIL: request %lu (seed %llu) got no answer in %u s\n",
	       idx, (unsigned long long)opt_seed, opt_wait);
	hexdump("request", m->buf, m->len);
}

/* Send M (or note the hang), and learn run and server ids from replies. */
static int fuzz_one(int fd, struct msg *m, size_t rbuf, unsigned long idx,
		    struct outcome *o)
{
	int i;

	if ((long)idx == opt_dump)
		hexdump("request", m->buf, m->len);
	cnt.sent++;
	for (i = 0; i + NLMSG_HDRLEN <= (int)m->len; ) {
		const struct nlmsghdr *nlh = (const void *)(m->buf + i);

		cnt.msgs++;
		if (nlh->nlmsg_len < NLMSG_HDRLEN)
			break;
		i += NLMSG_ALIGN(nlh->nlmsg_len);
	}
	if (exchange(fd, m, rbuf, o)) {
		report_hang(m, idx);
		return -1;
	}
	if (o->data && o->id && o->reply_cmd == KVPERF_CMD_RUN_START) {
		ids_add(&runs, o->id);
		cnt.runs++;
	}
	if (o->data && o->id && o->reply_cmd == KVPERF_CMD_SERVER_START) {
		ids_add(&servers, o->id);
		cnt.servers++;
	}
	if ((long)idx == opt_dump || opt_verbose)
		printf("# %lu: cmd %u -> err %d data %d \"%s\"\n", idx, m->cmd,
		       o->err, o->data, o->msg);
	return 0;
}

/* A do request with one u32 attribute, acknowledged. */
static int simple(int fd, uint8_t cmd, uint16_t attr, uint32_t v,
		  struct outcome *o)
{
	static struct msg m;

	msg_init(&m);
	msg_begin(&m, family, NLM_F_REQUEST | NLM_F_ACK, cmd);
	put_u32(&m, attr, v);
	m.cmd = cmd;
	return exchange(fd, &m, RECV_MAX, o);
}

/* The ids a dump of CMD lists (attribute 1 of each reply). */
static int dump_ids(int fd, uint8_t cmd, uint32_t *list, int *n)
{
	static struct msg m;
	struct outcome o = { .list = list };

	msg_init(&m);
	msg_begin(&m, family, NLM_F_REQUEST | NLM_F_DUMP, cmd);
	if (exchange(fd, &m, RECV_MAX, &o) || o.nerr || !o.done)
		return -1;
	*n = o.nlist;
	return 0;
}

/*
 * Keep under the module's limits (32 runs, 8 in progress, 8 servers) so
 * that starts keep reaching the handlers: delete runs and stop servers
 * the fuzzer knows of when many exist.
 */
static void housekeeping(int fd, const struct outcome *last, uint8_t cmd)
{
	struct outcome o = { 0 };
	int full_runs = runs.n >= 20 ||
		(cmd == KVPERF_CMD_RUN_START && last->nerr &&
		 (last->err == -ENOSPC || last->err == -EBUSY));
	int full_servers = servers.n >= 6 ||
		(cmd == KVPERF_CMD_SERVER_START && last->nerr &&
		 last->err == -ENOSPC);

	while (full_runs && runs.n > 4) {
		uint32_t id = runs.id[0];

		ids_del(&runs, id);
		cnt.housekeeping++;
		if (simple(fd, KVPERF_CMD_RUN_DELETE, KVPERF_A_RUN_ID, id, &o))
			return;
	}
	while (full_servers && servers.n > 2) {
		uint32_t id = servers.id[0];

		ids_del(&servers, id);
		cnt.housekeeping++;
		if (simple(fd, KVPERF_CMD_SERVER_STOP, KVPERF_A_SERVER_ID, id,
			   &o))
			return;
	}
	/* a dump now and then: ids the fuzzer lost track of */
	if ((full_runs || full_servers) && chance(20)) {
		static uint32_t list[LIST_MAX];
		int n = 0, i;

		if (!dump_ids(fd, KVPERF_CMD_RUN_GET, list, &n))
			for (i = 0; i < n; i++)
				ids_add(&runs, list[i]);
		if (!dump_ids(fd, KVPERF_CMD_SERVER_GET, list, &n))
			for (i = 0; i < n; i++)
				ids_add(&servers, list[i]);
	}
}

/* One request of the privileged fuzzing. */
static void build_request(struct msg *m, size_t *rbuf)
{
	static const size_t rbufs[] = { 256, 1024, 4096, RECV_MAX };
	int k = rn(100), i, n;
	uint8_t cmd;

	msg_init(m);
	*rbuf = RECV_MAX;
	if (k < 50) {
		cmd = plausible_cmd();
		plausible_msg(m, cmd, random_flags(
			cmd == KVPERF_CMD_RUN_GET || cmd == KVPERF_CMD_SERVER_GET ||
			cmd == KVPERF_CMD_DEV_GET ? 40 : 3));
	} else if (k < 80) {
		random_msg(m);
	} else if (k < 94) {
		if (rn(2)) {
			cmd = plausible_cmd();
			plausible_msg(m, cmd, random_flags(10));
		} else {
			random_msg(m);
		}
		mangle(m);
	} else {	/* a batch of requests in one send, no dumps */
		n = 2 + rn(3);
		for (i = 0; i < n; i++) {
			cmd = plausible_cmd();
			plausible_msg(m, cmd, random_flags(0));
		}
	}
	m->cmd = ((struct genlmsghdr *)NLMSG_DATA((struct nlmsghdr *)m->buf))->cmd;
	m->dump = (cur_nlh(m)->nlmsg_flags & NLM_F_DUMP) != 0;
	/* a small receive buffer sometimes, not for dumps (their end) */
	if (!m->dump && chance(15))
		*rbuf = rbufs[rn(3)];
}

/* ---- the unprivileged child ---- */

/* One request from nobody; admin commands must get EPERM. */
static void unpriv_one(int fd, struct msg *m, unsigned long idx)
{
	struct outcome o = { 0 };
	uint8_t cmd;
	uint16_t flags;
	int admin, dump;

	msg_init(m);
	cmd = chance(70) ? plausible_cmd() : random_cmd();
	flags = NLM_F_REQUEST | (chance(70) ? NLM_F_ACK : 0) |
		(chance(15) ? NLM_F_DUMP : 0);
	if (op_exists[cmd] && chance(85))
		plausible_msg(m, cmd, flags);
	else
		random_msg(m);
	cur_nlh(m)->nlmsg_flags = flags;
	cmd = ((struct genlmsghdr *)NLMSG_DATA(cur_nlh(m)))->cmd;
	m->cmd = cmd;
	admin = admin_op(cmd);
	dump = (flags & NLM_F_DUMP) == NLM_F_DUMP;
	if (fuzz_one(fd, m, RECV_MAX, idx, &o))
		return;
	if (admin) {
		cnt.up_admin++;
		if (o.nerr && o.err == -EPERM && !o.data) {
			cnt.up_eperm++;
			return;
		}
		/* a dump of a command that has none is refused before */
		if (dump && o.nerr && o.err == -EOPNOTSUPP && !o.data) {
			cnt.up_other++;
			return;
		}
		cnt.up_violations++;
		cnt.fail++;
		printf("# FAIL: unprivileged request %lu (seed %llu), command %u: error %d, %d replies \"%s\"\n",
		       idx, (unsigned long long)opt_seed, cmd, o.err, o.data,
		       o.msg);
		hexdump("request", m->buf, m->len);
		return;
	}
	if (op_exists[cmd]) {
		cnt.up_gets++;
		if (o.data || (o.nerr && o.err != -EPERM))
			cnt.up_gets_answered++;
	}
}

static int drop_privileges(void)
{
	if (setgroups(0, NULL) || setresgid(UNPRIV_UID, UNPRIV_UID, UNPRIV_UID) ||
	    setresuid(UNPRIV_UID, UNPRIV_UID, UNPRIV_UID))
		return -1;
	return geteuid() == UNPRIV_UID ? 0 : -1;
}

/*
 * The child: a socket opened as root, then nobody, then a socket opened
 * as nobody; the requests alternate between them. Its counters go back
 * through PIPEFD.
 */
static void unpriv_child(int pipefd, unsigned long n, double end)
{
	static struct msg m;
	int fds[2];
	unsigned long i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	memset(&cnt, 0, sizeof(cnt));
	rng = opt_seed ^ 0x9e3779b97f4a7c15ULL;
	fds[0] = nl_open(0, 0);
	if (fds[0] < 0 || drop_privileges()) {
		printf("# FAIL: cannot open a socket and become uid %d: %s\n",
		       UNPRIV_UID, strerror(errno));
		cnt.fail++;
		goto out;
	}
	fds[1] = nl_open(0, 0);
	if (fds[1] < 0) {
		printf("# FAIL: no socket as uid %d: %s\n", UNPRIV_UID,
		       strerror(errno));
		cnt.fail++;
		goto out;
	}
	for (i = 0; i < n && now() < end && !cnt.hangs; i++)
		unpriv_one(fds[i & 1], &m, i);
out:
	fflush(stdout);
	if (write(pipefd, &cnt, sizeof(cnt)) != sizeof(cnt))
		_exit(1);
	_exit(0);
}

/* ---- cleaning up ---- */

/* Delete every run and stop every server; returns what is left. */
static int clean_up(int fd, int *nruns, int *nservers)
{
	static uint32_t list[LIST_MAX];
	struct outcome o = { 0 };
	double end = now() + 60;
	int n, i, round, deleted = 0, stopped = 0;

	for (round = 0; now() < end; round++) {
		if (dump_ids(fd, KVPERF_CMD_RUN_GET, list, &n))
			return -1;
		*nruns = n;
		for (i = 0; i < n; i++) {
			if (simple(fd, KVPERF_CMD_RUN_DELETE, KVPERF_A_RUN_ID,
				   list[i], &o))
				return -1;
			deleted += o.nerr && !o.err;
		}
		if (dump_ids(fd, KVPERF_CMD_SERVER_GET, list, &n))
			return -1;
		*nservers = n;
		for (i = 0; i < n; i++) {
			if (simple(fd, KVPERF_CMD_SERVER_STOP,
				   KVPERF_A_SERVER_ID, list[i], &o))
				return -1;
			stopped += o.nerr && !o.err;
		}
		if (!*nruns && !*nservers)
			break;
		usleep(100000);
	}
	printf("cleanup_runs %d\ncleanup_servers %d\ncleanup_rounds %d\n",
	       deleted, stopped, round);
	return 0;
}

static int dev_count(int fd)
{
	static struct msg m;
	struct outcome o = { 0 };

	msg_init(&m);
	msg_begin(&m, family, NLM_F_REQUEST | NLM_F_DUMP, KVPERF_CMD_DEV_GET);
	if (exchange(fd, &m, RECV_MAX, &o) || o.nerr || !o.done)
		return -1;
	return o.data;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"Usage: %s [-n COUNT] [-t SECONDS] [-s SEED] [-u PERCENT] [-a ADDR]... [-w SECONDS] [-x N] [-v]\n"
		"  -n  requests to send (default 20000)\n"
		"  -t  at most this long (default 60 s)\n"
		"  -s  seed (default: from the clock); printed, for a replay\n"
		"  -u  percent sent by an unprivileged child (default 5)\n"
		"  -a  an address of this host for servers and runs\n"
		"  -w  seconds to wait for an answer before calling it a hang (20)\n"
		"  -x  print request N in hex and its outcome\n"
		"  -v  one line per request\n", prog);
	exit(2);
}

static void print_errnos(void)
{
	int e;

	for (e = 1; e < 160; e++)
		if (cnt.errs[e])
			printf("errno %s %lu\n", strerrorname_np(e) ?: "?",
			       cnt.errs[e]);
}

int main(int argc, char **argv)
{
	static struct msg m;
	struct counters up = { 0 };
	int fd, small, c, pipefd[2], status, nruns = -1, nservers = -1;
	unsigned long i, n_up;
	double start, end;
	pid_t child;

	opt_seed = (uint64_t)time(NULL) * 1000003u ^ getpid();
	while ((c = getopt(argc, argv, "n:t:s:u:a:w:x:v")) != -1) {
		switch (c) {
		case 'n':
			opt_count = strtoul(optarg, NULL, 0);
			break;
		case 't':
			opt_seconds = strtoul(optarg, NULL, 0);
			break;
		case 's':
			opt_seed = strtoull(optarg, NULL, 0);
			break;
		case 'u':
			opt_unpriv = strtoul(optarg, NULL, 0);
			break;
		case 'a':
			if (n_addrs < 8)
				opt_addrs[n_addrs++] = optarg;
			break;
		case 'w':
			opt_wait = strtoul(optarg, NULL, 0);
			break;
		case 'x':
			opt_dump = strtol(optarg, NULL, 0);
			break;
		case 'v':
			opt_verbose = 1;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (optind != argc || opt_unpriv > 100 || !opt_wait)
		usage(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("seed %llu\n", (unsigned long long)opt_seed);
	rng = opt_seed ? opt_seed : 1;
	for (c = 0; c < 256; c++)
		op_do_pol[c] = op_dump_pol[c] = -1;

	fd = nl_open(0, 0);
	small = nl_open(1, 1);	/* the smallest receive buffer there is */
	if (fd < 0 || small < 0 || resolve_family(fd)) {
		printf("# FAIL: generic-netlink family %s not found\n",
		       KVPERF_FAMILY_NAME);
		return 1;
	}
	load_policies(fd);
	printf("family %d\nops %d\npolicy_attrs %d\n", family, n_ops,
	       n_pol_attrs);
	for (c = 1; c <= CMD_MAX; c++)
		if (op_exists[c])
			printf("op %d flags 0x%x do_policy %d dump_policy %d\n",
			       c, op_flags[c], op_do_pol[c], op_dump_pol[c]);

	start = now();
	end = start + opt_seconds;
	n_up = opt_count * opt_unpriv / 100;
	if (pipe(pipefd))
		return 1;
	child = n_up ? fork() : 0;
	if (child < 0)
		return 1;
	if (n_up && !child) {
		close(pipefd[0]);
		unpriv_child(pipefd[1], n_up, end);
	}
	close(pipefd[1]);

	for (i = 0; i < opt_count - n_up && now() < end; i++) {
		struct outcome o = { 0 };
		size_t rbuf;

		build_request(&m, &rbuf);
		if (fuzz_one(chance(15) ? small : fd, &m, rbuf, i, &o))
			break;
		count(&o);
		housekeeping(fd, &o, m.cmd);
		if (cnt.hangs)
			break;
	}
	printf("sent %lu\nmessages %lu\nreached %lu\nanswered_ok %lu\nsilent %lu\n",
	       cnt.sent, cnt.msgs, cnt.reached, cnt.ok, cnt.silent);
	printf("runs_started %lu\nservers_started %lu\nhousekeeping %lu\n",
	       cnt.runs, cnt.servers, cnt.housekeeping);
	printf("enobufs %lu\ntruncated %lu\nstale %lu\nslow %lu\n",
	       cnt.enobufs, cnt.truncated, cnt.stale, cnt.slow);
	if (cnt.slow)
		printf("slowest %.1f s, request %lu\n", cnt.slowest,
		       cnt.slowest_idx);
	print_errnos();
	printf("seconds %.1f\n", now() - start);

	if (child > 0) {
		if (read(pipefd[0], &up, sizeof(up)) != sizeof(up)) {
			printf("# FAIL: the unprivileged child reported nothing\n");
			up.fail++;
		}
		waitpid(child, &status, 0);
	}
	printf("unpriv_sent %lu\nunpriv_admin %lu\nunpriv_eperm %lu\n",
	       up.sent, up.up_admin, up.up_eperm);
	printf("unpriv_dump_refused %lu\nunpriv_violations %lu\n",
	       up.up_other, up.up_violations);
	printf("unpriv_gets %lu\nunpriv_gets_answered %lu\n", up.up_gets,
	       up.up_gets_answered);

	if (clean_up(fd, &nruns, &nservers))
		printf("# FAIL: cleaning up got no answer\n");
	printf("left_runs %d\nleft_servers %d\n", nruns, nservers);
	printf("devices %d\n", dev_count(fd));
	cnt.fail += up.fail;
	printf("failures %lu\n", cnt.fail);
	return cnt.fail || cnt.hangs || nruns || nservers;
}
