// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the server object (user/cli/server.c): "server start" command
 * lines turned into KVPERF_CMD_SERVER_START requests, what start prints,
 * and KVPERF_CMD_SERVER_GET replies built here attribute by attribute,
 * printed as text and JSON and compared whole.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "args.h"
#include "attrs.h"
#include "cli.h"
#include "kvperf.h"
#include "print.h"
#include "server.h"
#include "unit.h"

/* The server and conn sets describe every attribute of the spec's. */
static void server_attr_sets(void)
{
	const struct attr_set *sets[] = { &attrs_server, &attrs_conn };
	const unsigned int max[] = { KVPERF_A_SERVER_MAX, KVPERF_A_CONN_MAX };
	unsigned int i, t;

	for (i = 0; i < ARRAY_SIZE(sets); i++) {
		CHECK_INT(sets[i]->max, max[i]);
		for (t = 1; t <= sets[i]->max; t++)
			if (!sets[i]->attrs[t].name ||
			    sets[i]->attrs[t].kind == ATTR_UNKNOWN)
				unit_fail(__FILE__, __LINE__,
					  "%s attribute %u is not described",
					  sets[i]->name, t);
	}
	CHECK(attrs_server.attrs[KVPERF_A_SERVER_CONN].nested == &attrs_conn);
	CHECK_STR(attrs_name(&attrs_server, KVPERF_A_SERVER_CONN_COUNT),
		  "conn-count");
	CHECK_STR(attrs_name(&attrs_conn, KVPERF_A_CONN_PEER_ADDR),
		  "peer-addr");
}

struct start {
	int ret;
	struct server_opts o;
	char err[512];
	char req[1024];
};

static void start_words(struct start *s, const char *const *words)
{
	struct kvperf kv = { 0 };
	struct capture out, err;
	struct nl_msg *msg;
	char *argv[40];
	struct args a;
	int argc = 0;

	while (*words && argc < 40)
		argv[argc++] = (char *)*words++;
	a.argc = argc;
	a.argv = argv;
	kv.out = cap_open(&out);
	kv.err = cap_open(&err);
	s->ret = server_start_parse(&kv, &a, &s->o);
	snprintf(s->err, sizeof(s->err), "%s", cap_str(&err));
	CHECK_STR(cap_str(&out), "");
	s->req[0] = '\0';
	if (!s->ret) {
		msg = unit_genl_msg(KVPERF_CMD_SERVER_START);
		CHECK_INT(server_cfg_put(msg, &s->o.cfg), 0);
		snprintf(s->req, sizeof(s->req), "%s",
			 unit_attrs_str(msg, &attrs_server));
		nlmsg_free(msg);
	}
	cap_close(&out);
	cap_close(&err);
}

#define START_OK(want, ...)						\
	do {								\
		struct start s_;					\
		start_words(&s_, (const char *const []){ __VA_ARGS__, NULL }); \
		CHECK_INT(s_.ret, KVPERF_EXIT_OK);			\
		CHECK_STR(s_.err, "");					\
		CHECK_STR(s_.req, (want));				\
	} while (0)

#define START_ERR(want, ...)						\
	do {								\
		struct start s_;					\
		start_words(&s_, (const char *const []){ __VA_ARGS__, NULL }); \
		CHECK_INT(s_.ret, KVPERF_EXIT_USAGE);			\
		CHECK_STR(s_.err, "kvperf: " want			\
			  " (try 'kvperf server help')\n");		\
	} while (0)

static void server_start_requests(void)
{
	START_OK("addr=198.18.0.1 port=18515", "addr", "198.18.0.1");
	START_OK("addr=fd00::1 port=20000 dev=\"rxe0\"",
		 "dev", "rxe0", "addr", "fd00::1", "port", "20000");
	/* abbreviated, any order */
	START_OK("addr=1.2.3.4 port=1 dev=\"mlx5_0\"",
		 "p", "1", "a", "1.2.3.4", "d", "mlx5_0");
	START_OK("addr=1.2.3.4 port=65535", "ad", "1.2.3.4", "po", "0xffff");
}

static const uint8_t srv6[16];

/* The new keywords, and what becomes of them. */
static void server_start_access(void)
{
	struct start s;
	char path[] = "/tmp/kvperf-unit-skey.XXXXXX";
	const char *w[16];
	int fd;

	START_OK("addr=198.18.0.1 port=18515 poll=0 idle-timeout-ms=1000 "
		 "allow=(16 bytes) allow=(28 bytes) key=(16 bytes) "
		 "conns-max=4 peer-conns-max=2",
		 "addr", "198.18.0.1", "poll", "busy", "idle-timeout", "1",
		 "allow", "198.18.0.0/16", "allow", "fd00::/64",
		 "key", "00112233445566778899aabbccddeeff", "conns-max", "4",
		 "peer-conns-max", "2");
	/* by prefixes: al is allow, k key, c conns-max, pe peer-conns-max */
	START_OK("addr=::1 port=18515 poll=2 idle-timeout-ms=600000 "
		 "allow=(16 bytes) conns-max=16 peer-conns-max=1",
		 "a", "::1", "pol", "workqueue", "i", "600000ms", "al", "10.0.0.1",
		 "c", "16", "pe", "1");
	/* any: both families' /0 */
	start_words(&s, (const char *const []){ "addr", "198.18.0.1",
		    "allow", "any", "allow", "192.0.2.0/24", NULL });
	CHECK_INT(s.ret, 0);
	CHECK_INT(s.o.cfg.nallow, 3);
	CHECK_INT(s.o.cfg.allow[0].addr_len, 4);
	CHECK_INT(s.o.cfg.allow[0].len, 0);
	CHECK_INT(s.o.cfg.allow[1].addr_len, 16);
	CHECK_INT(s.o.cfg.allow[1].len, 0);
	CHECK_INT(s.o.cfg.allow[2].len, 24);
	CHECK(!server_opt(&s.o, SKW_KEY));
	/* eight prefixes is the most */
	START_OK("addr=1.2.3.4 port=18515 allow=(16 bytes) allow=(16 bytes) "
		 "allow=(16 bytes) allow=(16 bytes) allow=(16 bytes) "
		 "allow=(16 bytes) allow=(16 bytes) allow=(28 bytes)",
		 "addr", "1.2.3.4", "allow", "1.0.0.0/8", "allow", "2.0.0.0/8",
		 "allow", "3.0.0.0/8", "allow", "4.0.0.0/8", "allow", "5.0.0.0/8",
		 "allow", "6.0.0.0/8", "allow", "any");

	/* key-file: the key from a file only its owner reads */
	fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, "00112233445566778899AABBCCDDEEFF\n", 33) == 33);
	close(fd);
	chmod(path, 0600);
	w[0] = "addr";
	w[1] = "1.2.3.4";
	w[2] = "key-file";
	w[3] = path;
	w[4] = NULL;
	start_words(&s, w);
	CHECK_INT(s.ret, 0);
	CHECK_STR(s.err, "");
	CHECK_STR(s.req, "addr=1.2.3.4 port=18515 key=(16 bytes)");
	CHECK_INT(s.o.cfg.key[0], 0x00);
	CHECK_INT(s.o.cfg.key[15], 0xff);
	chmod(path, 0640);
	start_words(&s, w);
	CHECK_INT(s.ret, KVPERF_EXIT_ERROR);
	CHECK(!strncmp(s.err, "kvperf: key file '/tmp/kvperf-unit-skey.", 40));
	CHECK(strstr(s.err, "': group or others may read or write it (mode 0640; chmod 600 it)\n"));
	unlink(path);
	start_words(&s, w);
	CHECK_INT(s.ret, KVPERF_EXIT_ERROR);
	CHECK(strstr(s.err, "': cannot open it: No such file or directory\n"));
}

/* srq N: a shared receive queue of N capsules, on either path. */
static void server_start_srq(void)
{
	struct start s;

	START_OK("addr=198.18.0.1 port=18515 srq=64",
		 "addr", "198.18.0.1", "srq", "64");
	/* the range's ends; s alone is srq */
	START_OK("addr=::1 port=18515 srq=1", "a", "::1", "s", "1");
	START_OK("addr=::1 port=18515 srq=4096", "a", "::1", "sr", "4096");
	/* the user path takes it too, as the same configuration */
	start_words(&s, (const char *const []){ "addr", "198.18.0.1",
		    "srq", "0x100", "path", "user", NULL });
	CHECK_INT(s.ret, 0);
	CHECK_STR(s.err, "");
	CHECK_INT(s.o.path, KV_RUN_PATH_USER);
	CHECK_INT(s.o.cfg.srq, 256);
	CHECK(server_opt(&s.o, SKW_SRQ));
	CHECK(s.o.cfg.has & (1ULL << KVPERF_A_SERVER_SRQ));
	/* without it: none asked for, none sent */
	start_words(&s, (const char *const []){ "addr", "198.18.0.1", NULL });
	CHECK_INT(s.o.cfg.srq, 0);
	CHECK(!(s.o.cfg.has & (1ULL << KVPERF_A_SERVER_SRQ)));
	CHECK_STR(s.req, "addr=198.18.0.1 port=18515");

	START_ERR("invalid srq '0' (1 to 4096)", "addr", "::1", "srq", "0");
	START_ERR("invalid srq '4097' (1 to 4096)",
		  "addr", "::1", "srq", "4097");
	START_ERR("invalid srq 'many' (1 to 4096)",
		  "addr", "::1", "srq", "many");
	START_ERR("invalid srq '-1' (1 to 4096)", "addr", "::1", "srq", "-1");
	START_ERR("invalid srq '64k' (1 to 4096)",
		  "addr", "::1", "srq", "64k");
	START_ERR("invalid srq '' (1 to 4096)", "addr", "::1", "srq", "");
	START_ERR("missing value after 'srq'", "addr", "::1", "srq");
	START_ERR("'srq' given twice", "addr", "::1", "srq", "8", "s", "16");
}

/* The allow nests and the key of a request, byte for byte. */
static void server_start_attr_bytes(void)
{
	struct nlattr *tb[KVPERF_A_SERVER_MAX + 1], *ptb[KVPERF_A_PREFIX_MAX + 1];
	struct start s;
	struct nl_msg *msg;
	struct genlmsghdr *g;
	struct nlattr *nla;
	int rem, n = 0;

	start_words(&s, (const char *const []){ "addr", "198.18.0.1",
		    "allow", "198.18.7.9/20", "allow", "fd00::1",
		    "key", "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf", NULL });
	CHECK_INT(s.ret, 0);
	msg = unit_genl_msg(KVPERF_CMD_SERVER_START);
	CHECK_INT(server_cfg_put(msg, &s.o.cfg), 0);
	g = nlmsg_data(nlmsg_hdr(msg));
	CHECK_INT(attrs_parse(&attrs_server, tb, genlmsg_attrdata(g, 0),
			      genlmsg_attrlen(g, 0), NULL), 0);
	CHECK(tb[KVPERF_A_SERVER_KEY] &&
	      !memcmp(nla_data(tb[KVPERF_A_SERVER_KEY]),
		      (const uint8_t []){ 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5,
					  0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab,
					  0xac, 0xad, 0xae, 0xaf }, 16));
	nla_for_each_attr(nla, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0),
			  rem) {
		if (nla_type(nla) != KVPERF_A_SERVER_ALLOW)
			continue;
		CHECK_INT(attrs_parse(&attrs_prefix, ptb, nla_data(nla),
				      nla_len(nla), NULL), 0);
		if (!n) {
			CHECK_INT(nla_len(ptb[KVPERF_A_PREFIX_ADDR]), 4);
			CHECK(!memcmp(nla_data(ptb[KVPERF_A_PREFIX_ADDR]),
				      (const uint8_t []){ 198, 18, 0, 0 }, 4));
			CHECK_U64(attr_uint(ptb[KVPERF_A_PREFIX_LEN]), 20);
		} else {
			CHECK_INT(nla_len(ptb[KVPERF_A_PREFIX_ADDR]), 16);
			CHECK(!memcmp(nla_data(ptb[KVPERF_A_PREFIX_ADDR]),
				      srv6, 16));
			CHECK_U64(attr_uint(ptb[KVPERF_A_PREFIX_LEN]), 128);
		}
		n++;
	}
	CHECK_INT(n, 2);
	nlmsg_free(msg);
}

static void server_start_usage_errors(void)
{
	START_ERR("missing addr", "port", "1");
	START_ERR("missing addr", "dev", "rxe0");
	START_ERR("unknown keyword 'ip'", "ip", "1.2.3.4");
	START_ERR("unknown keyword 'help'", "addr", "1.2.3.4", "help");
	START_ERR("missing value after 'addr'", "addr");
	START_ERR("missing value after 'port'", "addr", "1.2.3.4", "port");
	START_ERR("'addr' given twice", "a", "1.2.3.4", "addr", "::1");
	START_ERR("invalid address '1.2.3.4.5' (IPv4 or IPv6)",
		  "addr", "1.2.3.4.5");
	START_ERR("invalid address 'localhost' (IPv4 or IPv6)",
		  "addr", "localhost");
	START_ERR("invalid port '0' (1 to 65535)", "addr", "::1", "port", "0");
	START_ERR("invalid port '65536' (1 to 65535)",
		  "addr", "::1", "port", "65536");
	START_ERR("invalid port '18515x' (1 to 65535)",
		  "addr", "::1", "port", "18515x");
	START_ERR("invalid device name '' (1 to 63 characters)",
		  "dev", "", "addr", "::1");
	START_ERR("invalid device name "
		  "'a123456789b123456789c123456789d123456789e123456789f123456789abcd'"
		  " (1 to 63 characters)",
		  "dev",
		  "a123456789b123456789c123456789d123456789e123456789f123456789abcd");

	START_ERR("unknown poll mode 'spin' (busy, softirq or workqueue)",
		  "addr", "::1", "poll", "spin");
	START_ERR("idle-timeout '999ms' is out of range (1s to 600s)",
		  "addr", "::1", "idle-timeout", "999ms");
	START_ERR("idle-timeout '601' is out of range (1s to 600s)",
		  "addr", "::1", "idle-timeout", "601");
	START_ERR("idle-timeout '1000' is out of range (1s to 600s)",
		  "addr", "::1", "idle-timeout", "1000");
	START_ERR("invalid idle-timeout '10m' (a time such as 10, 0.5, 2s or 500ms; no unit is seconds)",
		  "addr", "::1", "idle-timeout", "10m");
	START_OK("addr=::1 port=18515 idle-timeout-ms=2500",
		 "addr", "::1", "idle-timeout", "2.5s");
	START_ERR("'idle-timeout' given twice",
		  "addr", "::1", "idle-timeout", "1", "i", "2");
	START_ERR("invalid conns-max '0' (1 to 16)",
		  "addr", "::1", "conns-max", "0");
	START_ERR("invalid conns-max '17' (1 to 16)",
		  "addr", "::1", "conns-max", "17");
	START_ERR("invalid peer-conns-max '17' (1 to 16)",
		  "addr", "::1", "peer-conns-max", "17");
	START_ERR("invalid allow '198.18.0.0/33' (the length is at most 32 for IPv4, 128 for IPv6)",
		  "addr", "::1", "allow", "198.18.0.0/33");
	START_ERR("invalid allow 'fd00::/129' (the length is at most 32 for IPv4, 128 for IPv6)",
		  "addr", "::1", "allow", "fd00::/129");
	START_ERR("invalid allow 'everyone' (an IPv4 or IPv6 address, optionally /LEN, or any)",
		  "addr", "::1", "allow", "everyone");
	START_ERR("invalid allow '10.0.0.0/' (an IPv4 or IPv6 address, optionally /LEN, or any)",
		  "addr", "::1", "allow", "10.0.0.0/");
	START_ERR("missing value after 'allow'", "addr", "::1", "allow");
	START_ERR("too many allow prefixes (at most 8; any counts as 2)",
		  "addr", "1.2.3.4", "allow", "1.0.0.0/8", "allow", "2.0.0.0/8",
		  "allow", "3.0.0.0/8", "allow", "4.0.0.0/8", "allow", "5.0.0.0/8",
		  "allow", "6.0.0.0/8", "allow", "7.0.0.0/8", "allow", "any");
	START_ERR("too many allow prefixes (at most 8; any counts as 2)",
		  "addr", "1.2.3.4", "allow", "1.0.0.0/8", "allow", "2.0.0.0/8",
		  "allow", "3.0.0.0/8", "allow", "4.0.0.0/8", "allow", "5.0.0.0/8",
		  "allow", "6.0.0.0/8", "allow", "7.0.0.0/8", "allow", "8.0.0.0/8",
		  "allow", "9.0.0.0/8");
	/* the key is never echoed */
	START_ERR("invalid key: not 32 characters long (a key is exactly 32 hex digits, 16 bytes)",
		  "addr", "::1", "key", "0011223344556677");
	START_ERR("invalid key: not all hex digits (a key is exactly 32 hex digits, 16 bytes)",
		  "addr", "::1", "key", "secretsecretsecretsecretsecret12");
	START_ERR("invalid key: all zero, which means no key",
		  "addr", "::1", "key", "00000000000000000000000000000000");
	START_ERR("key and key-file exclude each other",
		  "addr", "::1", "key", "00112233445566778899aabbccddeeff",
		  "key-file", "/nonexistent");
	START_ERR("key and key-file exclude each other",
		  "addr", "::1", "key-file", "/nonexistent",
		  "key", "00112233445566778899aabbccddeeff");
	START_ERR("'key' given twice",
		  "addr", "::1", "key", "00112233445566778899aabbccddeeff",
		  "key", "00112233445566778899aabbccddeeff");
	START_ERR("idle-timeout applies to the kernel path only",
		  "addr", "::1", "idle-timeout", "5", "path", "user");
}

static void server_started_output(void)
{
	struct server_opts o = {
		.cfg = { .addr = { 198, 18, 0, 1 }, .addr_len = 4,
			 .port = 18515 },
	};
	struct capture c;
	struct printer p;

	pr_init(&p, cap_open(&c), false, false);
	server_print_started(&p, 1, &o);
	CHECK_STR(cap_str(&c), "server 1 listening on 198.18.0.1:18515\n");
	cap_close(&c);

	pr_init(&p, cap_open(&c), true, false);
	server_print_started(&p, 1, &o);
	CHECK_STR(cap_str(&c),
		  "{\"id\":1,\"addr\":\"198.18.0.1\",\"port\":18515}\n");
	cap_close(&c);

	memset(o.cfg.addr, 0, sizeof(o.cfg.addr));
	o.cfg.addr[0] = 0xfd;
	o.cfg.addr[15] = 1;
	o.cfg.addr_len = 16;
	o.cfg.port = 20000;
	snprintf(o.cfg.dev, sizeof(o.cfg.dev), "rxe0");
	pr_init(&p, cap_open(&c), false, false);
	server_print_started(&p, 2, &o);
	CHECK_STR(cap_str(&c),
		  "server 2 listening on [fd00::1]:20000 dev rxe0\n");
	cap_close(&c);

	pr_init(&p, cap_open(&c), true, false);
	server_print_started(&p, 2, &o);
	CHECK_STR(cap_str(&c), "{\"id\":2,\"addr\":\"fd00::1\",\"port\":20000,"
		  "\"dev\":\"rxe0\"}\n");
	CHECK_JSON(c.buf, "assert d == {'id': 2, 'addr': 'fd00::1', "
		   "'port': 20000, 'dev': 'rxe0'}\n");
	cap_close(&c);
}

static void put_conn(struct nl_msg *msg, const void *addr, int len,
		     uint16_t port, uint8_t op, uint32_t size_max,
		     uint64_t iters)
{
	struct nlattr *nest = nla_nest_start(msg, KVPERF_A_SERVER_CONN);

	nla_put(msg, KVPERF_A_CONN_PEER_ADDR, len, addr);
	nla_put_u16(msg, KVPERF_A_CONN_PEER_PORT, port);
	nla_put_u8(msg, KVPERF_A_CONN_OP, op);
	nla_put_u32(msg, KVPERF_A_CONN_SIZE_MAX, size_max);
	nla_put_u64(msg, KVPERF_A_CONN_ITERATIONS, iters);
	nla_nest_end(msg, nest);
}

static struct nl_msg *server_msg(uint32_t id, const void *addr, int len,
				 uint16_t port, const char *dev,
				 uint32_t conns)
{
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_SERVER_GET);

	nla_put_u32(msg, KVPERF_A_SERVER_ID, id);
	nla_put(msg, KVPERF_A_SERVER_ADDR, len, addr);
	nla_put_u16(msg, KVPERF_A_SERVER_PORT, port);
	nla_put_string(msg, KVPERF_A_SERVER_DEV, dev);
	nla_put_u32(msg, KVPERF_A_SERVER_CONN_COUNT, conns);
	return msg;
}

static const uint8_t srv4[4] = { 198, 18, 0, 1 };
static const uint8_t peer4[4] = { 198, 18, 1, 1 };
static const uint8_t srv6[16] = { 0xfd, 0, [15] = 1 };	/* fd00::1 */
static const uint8_t peer6[16] = { 0xfd, 0, [14] = 1, [15] = 2 };

/* Print messages the way "server show" does: an array of listeners. */
static int print_servers(struct capture *c, bool json, struct nl_msg **msgs,
			 int n, struct capture *err)
{
	struct printer p;
	int i, ret = 0;

	pr_init(&p, cap_open(c), json, false);
	cap_open(err);
	pr_arr_open(&p, NULL);
	for (i = 0; i < n && !ret; i++)
		ret = server_print(&p, nlmsg_hdr(msgs[i]), err->f);
	pr_arr_close(&p);
	pr_finish(&p);
	cap_str(c);
	cap_str(err);
	return ret;
}

static void server_show_output(void)
{
	struct nl_msg *msgs[2] = {
		server_msg(1, srv4, 4, 18515, "rxe0", 2),
		server_msg(2, srv6, 16, 20000, "siw0", 0),
	};
	struct capture c, err;

	put_conn(msgs[0], peer4, 4, 34567, KVPERF_OP_SEND, 64, 10016);
	put_conn(msgs[0], peer6, 16, 40000, KVPERF_OP_READ, 8388608, 0);

	CHECK_INT(print_servers(&c, false, msgs, 2, &err), 0);
	CHECK_STR(c.buf,
		  "1: 198.18.0.1:18515 dev rxe0 conns 2\n"
		  "    peer 198.18.1.1:34567 op send size_max 64 iterations 10016\n"
		  "    peer [fd00::102]:40000 op read size_max 8388608 iterations 0\n"
		  "2: [fd00::1]:20000 dev siw0 conns 0\n");
	CHECK_STR(err.buf, "");
	cap_close(&c);
	cap_close(&err);

	CHECK_INT(print_servers(&c, true, msgs, 2, &err), 0);
	CHECK_STR(c.buf,
		  "[{\"id\":1,\"addr\":\"198.18.0.1\",\"port\":18515,"
		  "\"dev\":\"rxe0\",\"conn_count\":2,"
		  "\"conns\":[{\"peer_addr\":\"198.18.1.1\",\"peer_port\":34567,"
		  "\"op\":\"send\",\"size_max\":64,\"iterations\":10016},"
		  "{\"peer_addr\":\"fd00::102\",\"peer_port\":40000,"
		  "\"op\":\"read\",\"size_max\":8388608,\"iterations\":0}]},"
		  "{\"id\":2,\"addr\":\"fd00::1\",\"port\":20000,"
		  "\"dev\":\"siw0\",\"conn_count\":0,\"conns\":[]}]\n");
	CHECK_JSON(c.buf,
		   "assert [s['id'] for s in d] == [1, 2]\n"
		   "assert d[0]['conns'][0] == {'peer_addr': '198.18.1.1', "
		   "'peer_port': 34567, 'op': 'send', 'size_max': 64, "
		   "'iterations': 10016}\n"
		   "assert d[1]['conns'] == []\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msgs[0]);
	nlmsg_free(msgs[1]);
}

static void put_prefix(struct nl_msg *msg, const void *addr, int len,
		       uint8_t plen)
{
	struct nlattr *nest = nla_nest_start(msg, KVPERF_A_SERVER_ALLOW);

	nla_put(msg, KVPERF_A_PREFIX_ADDR, len, addr);
	nla_put_u8(msg, KVPERF_A_PREFIX_LEN, plen);
	nla_nest_end(msg, nest);
}

/* What a module that knows of keys and allow lists says of a listener. */
static void put_access(struct nl_msg *msg, bool keyed, uint64_t base)
{
	static const uint8_t net4[4] = { 198, 18, 0, 0 };
	static const uint8_t net6[16] = { 0xfd, 0 };

	nla_put_u8(msg, KVPERF_A_SERVER_POLL, KVPERF_POLL_SOFTIRQ);
	nla_put_u32(msg, KVPERF_A_SERVER_IDLE_TIMEOUT_MS, 10000);
	put_prefix(msg, net4, 4, 24);
	put_prefix(msg, net6, 16, 64);
	if (keyed)
		nla_put_flag(msg, KVPERF_A_SERVER_KEYED);
	nla_put_u32(msg, KVPERF_A_SERVER_CONNS_MAX, 16);
	nla_put_u32(msg, KVPERF_A_SERVER_PEER_CONNS_MAX, 8);
	nla_put_u64(msg, KVPERF_A_SERVER_PINNED, 16384);
	nla_put_u64(msg, KVPERF_A_SERVER_ACCEPTED, base + 1);
	nla_put_u64(msg, KVPERF_A_SERVER_REFUSED_REQUEST, base + 2);
	nla_put_u64(msg, KVPERF_A_SERVER_REFUSED_ADDRESS, base + 3);
	nla_put_u64(msg, KVPERF_A_SERVER_REFUSED_KEY, base + 4);
	nla_put_u64(msg, KVPERF_A_SERVER_REFUSED_BUSY, base + 5);
	nla_put_u64(msg, KVPERF_A_SERVER_REFUSED_MEMORY, base + 6);
	nla_put_u64(msg, KVPERF_A_SERVER_CLOSED_IDLE, base + 7);
	nla_put_u64(msg, KVPERF_A_SERVER_CLOSED_DEAD, base + 8);
}

static void server_show_access(void)
{
	struct nl_msg *msgs[2] = {
		server_msg(1, srv4, 4, 18515, "rxe0", 1),
		server_msg(2, srv6, 16, 20000, "siw0", 0),
	};
	struct capture c, err;

	put_access(msgs[0], true, 0);
	put_conn(msgs[0], peer4, 4, 34567, KVPERF_OP_SEND, 64, 10016);
	put_access(msgs[1], false, 10);

	CHECK_INT(print_servers(&c, false, msgs, 2, &err), 0);
	CHECK_STR(c.buf,
		  "1: 198.18.0.1:18515 dev rxe0 conns 1\n"
		  "    poll softirq idle_timeout_ms 10000 keyed yes conns_max 16 peer_conns_max 8 pinned 16384\n"
		  "    allow 198.18.0.0/24 fd00::/64\n"
		  "    accepted 1 refused_request 2 refused_address 3 refused_key 4 refused_busy 5 refused_memory 6 closed_idle 7 closed_dead 8\n"
		  "    peer 198.18.1.1:34567 op send size_max 64 iterations 10016\n"
		  "2: [fd00::1]:20000 dev siw0 conns 0\n"
		  "    poll softirq idle_timeout_ms 10000 keyed no conns_max 16 peer_conns_max 8 pinned 16384\n"
		  "    allow 198.18.0.0/24 fd00::/64\n"
		  "    accepted 11 refused_request 12 refused_address 13 refused_key 14 refused_busy 15 refused_memory 16 closed_idle 17 closed_dead 18\n");
	CHECK_STR(err.buf, "");
	cap_close(&c);
	cap_close(&err);

	CHECK_INT(print_servers(&c, true, msgs, 2, &err), 0);
	CHECK_STR(c.buf,
		  "[{\"id\":1,\"addr\":\"198.18.0.1\",\"port\":18515,"
		  "\"dev\":\"rxe0\",\"conn_count\":1,\"poll\":\"softirq\","
		  "\"idle_timeout_ms\":10000,\"keyed\":true,\"conns_max\":16,"
		  "\"peer_conns_max\":8,\"pinned\":16384,"
		  "\"allow\":[\"198.18.0.0/24\",\"fd00::/64\"],"
		  "\"accepted\":1,\"refused_request\":2,\"refused_address\":3,"
		  "\"refused_key\":4,\"refused_busy\":5,\"refused_memory\":6,"
		  "\"closed_idle\":7,\"closed_dead\":8,"
		  "\"conns\":[{\"peer_addr\":\"198.18.1.1\",\"peer_port\":34567,"
		  "\"op\":\"send\",\"size_max\":64,\"iterations\":10016}]},"
		  "{\"id\":2,\"addr\":\"fd00::1\",\"port\":20000,"
		  "\"dev\":\"siw0\",\"conn_count\":0,\"poll\":\"softirq\","
		  "\"idle_timeout_ms\":10000,\"keyed\":false,\"conns_max\":16,"
		  "\"peer_conns_max\":8,\"pinned\":16384,"
		  "\"allow\":[\"198.18.0.0/24\",\"fd00::/64\"],"
		  "\"accepted\":11,\"refused_request\":12,\"refused_address\":13,"
		  "\"refused_key\":14,\"refused_busy\":15,\"refused_memory\":16,"
		  "\"closed_idle\":17,\"closed_dead\":18,\"conns\":[]}]\n");
	CHECK_JSON(c.buf,
		   "assert d[0]['keyed'] is True and d[1]['keyed'] is False\n"
		   "assert d[0]['allow'] == ['198.18.0.0/24', 'fd00::/64']\n"
		   "assert d[1]['refused_key'] == 14\n"
		   "assert d[0]['poll'] == 'softirq'\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msgs[0]);
	nlmsg_free(msgs[1]);
}

/*
 * A listener with a shared receive queue: its depth and the credits
 * granted, in the settings line; one without has neither, in text or
 * JSON.
 */
static void server_show_srq(void)
{
	struct nl_msg *msgs[3] = {
		server_msg(1, srv4, 4, 18515, "rxe0", 1),
		server_msg(2, srv6, 16, 20000, "siw0", 0),
		server_msg(3, srv4, 4, 18516, "rxe0", 0),
	};
	struct capture c, err;

	put_access(msgs[0], false, 0);
	nla_put_u32(msgs[0], KVPERF_A_SERVER_SRQ, 64);
	nla_put_u32(msgs[0], KVPERF_A_SERVER_SRQ_GRANTED, 32);
	put_conn(msgs[0], peer4, 4, 34567, KVPERF_OP_READ, 4096, 100);
	put_access(msgs[1], false, 0);
	/* a depth without the granted credits: the depth alone */
	nla_put_u8(msgs[2], KVPERF_A_SERVER_POLL, KVPERF_POLL_BUSY);
	nla_put_u32(msgs[2], KVPERF_A_SERVER_SRQ, 4096);

	CHECK_INT(print_servers(&c, false, msgs, 3, &err), 0);
	CHECK_STR(c.buf,
		  "1: 198.18.0.1:18515 dev rxe0 conns 1\n"
		  "    poll softirq idle_timeout_ms 10000 keyed no conns_max 16 peer_conns_max 8 srq 64 (granted 32) pinned 16384\n"
		  "    allow 198.18.0.0/24 fd00::/64\n"
		  "    accepted 1 refused_request 2 refused_address 3 refused_key 4 refused_busy 5 refused_memory 6 closed_idle 7 closed_dead 8\n"
		  "    peer 198.18.1.1:34567 op read size_max 4096 iterations 100\n"
		  "2: [fd00::1]:20000 dev siw0 conns 0\n"
		  "    poll softirq idle_timeout_ms 10000 keyed no conns_max 16 peer_conns_max 8 pinned 16384\n"
		  "    allow 198.18.0.0/24 fd00::/64\n"
		  "    accepted 1 refused_request 2 refused_address 3 refused_key 4 refused_busy 5 refused_memory 6 closed_idle 7 closed_dead 8\n"
		  "3: 198.18.0.1:18516 dev rxe0 conns 0\n"
		  "    poll busy keyed no srq 4096\n"
		  "    allow\n");
	CHECK_STR(err.buf, "");
	cap_close(&c);
	cap_close(&err);

	CHECK_INT(print_servers(&c, true, msgs, 3, &err), 0);
	CHECK(strstr(c.buf, "\"conns_max\":16,\"peer_conns_max\":8,"
		     "\"srq\":64,\"srq_granted\":32,\"pinned\":16384,"));
	CHECK_JSON(c.buf,
		   "assert d[0]['srq'] == 64 and d[0]['srq_granted'] == 32\n"
		   "assert 'srq' not in d[1] and 'srq_granted' not in d[1]\n"
		   "assert d[2]['srq'] == 4096 and 'srq_granted' not in d[2]\n"
		   "assert d[1]['pinned'] == 16384\n");
	CHECK_STR(err.buf, "");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msgs[0]);
	nlmsg_free(msgs[1]);
	nlmsg_free(msgs[2]);
}

/* A module that allows any peer: both /0; no key attribute ever shown. */
static void server_show_any(void)
{
	static const uint8_t zero[16];
	struct nl_msg *msg = server_msg(4, srv4, 4, 18515, "rxe0", 0);
	struct capture c, err;

	nla_put_u8(msg, KVPERF_A_SERVER_POLL, KVPERF_POLL_BUSY);
	put_prefix(msg, zero, 4, 0);
	put_prefix(msg, zero, 16, 0);
	/* a key in a reply (the spec says never) is not printed either */
	nla_put(msg, KVPERF_A_SERVER_KEY, 16, "0123456789abcdef");
	CHECK_INT(print_servers(&c, false, &msg, 1, &err), 0);
	CHECK_STR(c.buf, "4: 198.18.0.1:18515 dev rxe0 conns 0\n"
		  "    poll busy keyed no\n"
		  "    allow 0.0.0.0/0 ::/0\n");
	cap_close(&c);
	cap_close(&err);
	CHECK_INT(print_servers(&c, true, &msg, 1, &err), 0);
	CHECK_STR(c.buf, "[{\"id\":4,\"addr\":\"198.18.0.1\",\"port\":18515,"
		  "\"dev\":\"rxe0\",\"conn_count\":0,\"poll\":\"busy\","
		  "\"keyed\":false,\"allow\":[\"0.0.0.0/0\",\"::/0\"],"
		  "\"conns\":[]}]\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

static void server_show_partial(void)
{
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_SERVER_GET);
	struct capture c, err;
	struct nlattr *nest;

	/* only what was sent, an op from the future, unknown attributes */
	nla_put_u32(msg, KVPERF_A_SERVER_ID, 3);
	nla_put_u16(msg, KVPERF_A_SERVER_PORT, 7);
	nla_put_u64(msg, KVPERF_A_SERVER_MAX + 1, 1);
	nest = nla_nest_start(msg, KVPERF_A_SERVER_CONN);
	nla_put_u8(msg, KVPERF_A_CONN_OP, 9);
	nla_put_string(msg, KVPERF_A_CONN_MAX + 1, "x");
	nla_nest_end(msg, nest);
	CHECK_INT(print_servers(&c, false, &msg, 1, &err), 0);
	CHECK_STR(c.buf, "3: port 7\n    op 9\n");
	cap_close(&c);
	cap_close(&err);
	CHECK_INT(print_servers(&c, true, &msg, 1, &err), 0);
	CHECK_STR(c.buf, "[{\"id\":3,\"port\":7,\"conns\":[{\"op\":9}]}]\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

static void server_show_malformed(void)
{
	struct nl_msg *msg = server_msg(1, srv4, 4, 18515, "rxe0", 1);
	struct capture c, err;
	struct nlattr *nest;

	nest = nla_nest_start(msg, KVPERF_A_SERVER_CONN);
	nla_put_u32(msg, KVPERF_A_CONN_PEER_PORT, 1);
	nla_nest_end(msg, nest);
	CHECK_INT(print_servers(&c, false, &msg, 1, &err), -EINVAL);
	CHECK_STR(c.buf, "");
	CHECK_STR(err.buf, "kvperf: malformed reply from the kernel: "
		  "attribute conn.peer-port has length 4\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);

	msg = server_msg(1, srv4, 3, 18515, "rxe0", 0);
	CHECK_INT(print_servers(&c, false, &msg, 1, &err), -EINVAL);
	CHECK_STR(err.buf, "kvperf: malformed reply from the kernel: "
		  "attribute server.addr has length 3\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

static const struct kvperf_cmd *const objects[] = {
	&dev_object, &monitor_object, &server_object, &run_object, NULL,
};

static void server_cli(void)
{
	static const struct {
		const char *words[8];
		int ret;
		const char *out;	/* the start of stdout */
		const char *err;
	} cases[] = {
		{ { "s", "sta" }, KVPERF_EXIT_USAGE, "",
		  "kvperf: missing addr (try 'kvperf server help')\n" },
		{ { "server", "start", "addr", "1.2.3.4", "port", "0" },
		  KVPERF_EXIT_USAGE, "",
		  "kvperf: invalid port '0' (1 to 65535) (try 'kvperf server help')\n" },
		{ { "server", "stop" }, KVPERF_EXIT_USAGE, "",
		  "kvperf: missing server ID (try 'kvperf server help')\n" },
		{ { "se", "sto", "one" }, KVPERF_EXIT_USAGE, "",
		  "kvperf: invalid server ID 'one' (try 'kvperf server help')\n" },
		{ { "server", "show", "1", "2" }, KVPERF_EXIT_USAGE, "",
		  "kvperf: unexpected argument '2' (try 'kvperf server help')\n" },
		{ { "server", "list" }, KVPERF_EXIT_USAGE, "",
		  "kvperf: unknown server command 'list' (try 'kvperf server help')\n" },
		{ { "server", "help" }, KVPERF_EXIT_OK,
		  "Usage: kvperf [-j [-p]] server start", "" },
		{ { "s", "st", "help" }, KVPERF_EXIT_OK,
		  "Usage: kvperf [-j [-p]] server start", "" },
		{ { "server", "show", "h" }, KVPERF_EXIT_OK,
		  "Usage: kvperf [-j [-p]] server start", "" },
		{ { "server", "stop", "help" }, KVPERF_EXIT_OK,
		  "Usage: kvperf [-j [-p]] server start", "" },
		{ { "help", "server" }, KVPERF_EXIT_OK,
		  "Usage: kvperf [-j [-p]] server start", "" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kvperf kv = { 0 };
		struct capture out, err;
		char *argv[10] = { "kvperf" };
		int argc = 1, ret;

		while (argc < 9 && cases[i].words[argc - 1]) {
			argv[argc] = (char *)cases[i].words[argc - 1];
			argc++;
		}
		kv.out = cap_open(&out);
		kv.err = cap_open(&err);
		ret = kvperf_main(&kv, argc, argv, objects);
		if (!CHECK_INT(ret, cases[i].ret) ||
		    !CHECK_STR(cap_str(&err), cases[i].err) ||
		    strncmp(cap_str(&out), cases[i].out,
			    strlen(cases[i].out)) ||
		    (!cases[i].out[0] && out.buf[0]))
			unit_fail(__FILE__, __LINE__, "case %zu: stdout '%.60s'",
				  i, out.buf);
		cap_close(&out);
		cap_close(&err);
	}
}

static void server_help_examples(void)
{
	struct capture c;

	server_object.help(cap_open(&c));
	CHECK(strstr(cap_str(&c), "Examples:\n") != NULL);
	CHECK(strstr(c.buf, "  kvperf server start addr 198.18.0.1\n"));
	CHECK(strstr(c.buf, "  kvperf s sta a 198.18.0.1\n"));
	CHECK(strstr(c.buf, "              [allow PREFIX]... [key HEX | key-file PATH]\n"));
	CHECK(strstr(c.buf, "  kvperf server start addr 198.18.0.1 allow 198.18.0.0/16 allow fd00::/64\n"));
	CHECK(strstr(c.buf, "  kvperf server start addr 198.18.0.1 allow any key-file /etc/kvperf.key\n"));
	CHECK(strstr(c.buf, "  peer-conns-max  most connections at once from one address"));
	CHECK(strstr(c.buf, "(chmod 600)"));
	CHECK(strstr(c.buf, "[conns-max N] [peer-conns-max N] [srq N]\n"));
	CHECK(strstr(c.buf, "  srq             I/O runs' commands arrive in one shared receive\n"));
	CHECK(strstr(c.buf, "  kvperf server start addr 198.18.0.1 srq 256\n"));
	cap_close(&c);
}

const struct unit_test unit_tests[] = {
	UNIT(server_attr_sets),
	UNIT(server_start_requests),
	UNIT(server_start_access),
	UNIT(server_start_srq),
	UNIT(server_start_attr_bytes),
	UNIT(server_start_usage_errors),
	UNIT(server_started_output),
	UNIT(server_show_output),
	UNIT(server_show_access),
	UNIT(server_show_srq),
	UNIT(server_show_any),
	UNIT(server_show_partial),
	UNIT(server_show_malformed),
	UNIT(server_cli),
	UNIT(server_help_examples),
	{ NULL },
};
