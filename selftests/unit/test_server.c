// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the server object (user/server.c): "server start" command
 * lines turned into KVPERF_CMD_SERVER_START requests, what start prints,
 * and KVPERF_CMD_SERVER_GET replies built here attribute by attribute,
 * printed as text and JSON and compared whole.
 */
#include <errno.h>
#include <string.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "args.h"
#include "attrs.h"
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
	char req[512];
};

static void start_words(struct start *s, const char *const *words)
{
	struct kvperf kv = { 0 };
	struct capture out, err;
	struct nl_msg *msg;
	char *argv[16];
	struct args a;
	int argc = 0;

	while (*words && argc < 16)
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
		CHECK_INT(server_start_put(msg, &s->o), 0);
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
}

static void server_started_output(void)
{
	struct server_opts o = { .addr = { 198, 18, 0, 1 }, .addr_len = 4,
				 .port = 18515 };
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

	memset(o.addr, 0, sizeof(o.addr));
	o.addr[0] = 0xfd;
	o.addr[15] = 1;
	o.addr_len = 16;
	o.port = 20000;
	o.dev = "rxe0";
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
static const uint8_t srv6[16] = { 0xfd, 0, [15] = 1 };
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
	cap_close(&c);
}

const struct unit_test server_tests[] = {
	UNIT(server_attr_sets),
	UNIT(server_start_requests),
	UNIT(server_start_usage_errors),
	UNIT(server_started_output),
	UNIT(server_show_output),
	UNIT(server_show_partial),
	UNIT(server_show_malformed),
	UNIT(server_cli),
	UNIT(server_help_examples),
	{ NULL },
};
