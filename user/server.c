// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf server: start, show and stop the in-kernel listeners that serve
 * runs, and the printing of a KVPERF_CMD_SERVER_GET reply.
 */
#include <errno.h>
#include <string.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "args.h"
#include "attrs.h"
#include "compiler.h"
#include "fmt.h"
#include "kvperf.h"
#include "nl.h"
#include "print.h"
#include "run.h"
#include "server.h"
#include "show.h"
#include "upath.h"

/* The keywords of "server start", in the order prefixes resolve. */
enum { SKW_DEV, SKW_ADDR, SKW_PORT, SKW_PATH };

static const char *const start_keywords[] = {
	[SKW_DEV]	= "dev",
	[SKW_ADDR]	= "addr",
	[SKW_PORT]	= "port",
	[SKW_PATH]	= "path",
};

/**
 * server_start_parse() - the arguments of "server start"
 * @kv: the invocation
 * @a: the words after "start"
 * @o: filled in; the port defaults to 18515, the path to the kernel's
 *
 * Return: KVPERF_EXIT_OK, or KVPERF_EXIT_USAGE after reporting.
 */
int server_start_parse(struct kvperf *kv, struct args *a,
		       struct server_opts *o)
{
	unsigned int given = 0;
	const char *w, *val;
	uint32_t port;
	int kw, path;

	memset(o, 0, sizeof(*o));
	o->port = KVPERF_DEFAULT_PORT;
	while ((w = args_next(a))) {
		kw = args_keyword(start_keywords, ARRAY_SIZE(start_keywords),
				  w);
		if (kw < 0)
			return kvperf_usage(kv, "server",
					    "unknown keyword '%s'", w);
		if (given & (1U << kw))
			return kvperf_usage(kv, "server", "'%s' given twice",
					    start_keywords[kw]);
		given |= 1U << kw;
		val = args_next(a);
		if (!val)
			return kvperf_usage(kv, "server",
					    "missing value after '%s'",
					    start_keywords[kw]);
		switch (kw) {
		case SKW_DEV:
			if (!val[0] || strlen(val) > KVPERF_DEV_NAME_MAX)
				return kvperf_usage(kv, "server",
						    "invalid device name '%s' (1 to %d characters)",
						    val, KVPERF_DEV_NAME_MAX);
			o->dev = val;
			break;
		case SKW_ADDR:
			o->addr_len = parse_addr(val, o->addr);
			if (o->addr_len < 0)
				return kvperf_usage(kv, "server",
						    "invalid address '%s' (IPv4 or IPv6)",
						    val);
			break;
		case SKW_PORT:
			if (parse_u32(val, &port) || !port || port > 65535)
				return kvperf_usage(kv, "server",
						    "invalid port '%s' (1 to 65535)",
						    val);
			o->port = port;
			break;
		case SKW_PATH:
			path = run_path_parse(val);
			if (path < 0)
				return kvperf_usage(kv, "server",
						    "unknown path '%s' (kernel or user)",
						    val);
			o->path = path;
			break;
		}
	}
	if (!(given & (1U << SKW_ADDR)))
		return kvperf_usage(kv, "server", "missing addr");
	return KVPERF_EXIT_OK;
}

/**
 * server_start_put() - the attributes of a KVPERF_CMD_SERVER_START request
 * @msg: the request
 * @o: from server_start_parse()
 *
 * Return: 0, or -ENOMEM.
 */
int server_start_put(struct nl_msg *msg, const struct server_opts *o)
{
	if (nla_put(msg, KVPERF_A_SERVER_ADDR, o->addr_len, o->addr) < 0 ||
	    nla_put_u16(msg, KVPERF_A_SERVER_PORT, o->port) < 0 ||
	    (o->dev && nla_put_string(msg, KVPERF_A_SERVER_DEV, o->dev) < 0))
		return -ENOMEM;
	return 0;
}

/**
 * server_print_started() - what "server start" prints
 * @p: the printer
 * @id: the listener's id, from the kernel's reply
 * @o: what was asked for
 *
 * Text: "server 1 listening on 198.18.0.1:18515", and "dev rxe0" when one
 * was named; JSON: {"id":1,"addr":"198.18.0.1","port":18515}.
 */
void server_print_started(struct printer *p, uint32_t id,
			  const struct server_opts *o)
{
	char a[FMT_ADDR_LEN], text[FMT_ADDR_LEN];

	pr_obj_open(p, NULL);
	pr_u64(p, "id", "server %s", id);
	pr_str_as(p, "addr", "listening on %s",
		  fmt_addr(a, o->addr, o->addr_len),
		  fmt_addr_port(text, o->addr, o->addr_len, o->port));
	pr_u64(p, "port", NULL, o->port);
	if (o->dev)
		pr_str(p, "dev", "dev %s", o->dev);
	pr_obj_close(p);
	pr_finish(p);
}

static void print_conn(struct printer *p, struct nlattr **tb)
{
	pr_obj_open(p, NULL);
	pr_indent(p, 4);
	show_endpoint(p, tb[KVPERF_A_CONN_PEER_ADDR],
		      tb[KVPERF_A_CONN_PEER_PORT], "peer_addr", "peer_port",
		      "peer %s");
	if (tb[KVPERF_A_CONN_OP])
		pr_enum(p, "op", "op %s", attr_uint(tb[KVPERF_A_CONN_OP]),
			&fmt_op);
	show_uint(p, tb[KVPERF_A_CONN_SIZE_MAX], "size_max", "size_max %s");
	show_uint(p, tb[KVPERF_A_CONN_ITERATIONS], "iterations",
		  "iterations %s");
	pr_eol(p);
	pr_obj_close(p);
}

/**
 * server_print() - print one listener and its connections
 * @p: the printer; in JSON the listener is one object, an array element
 * @nlh: a KVPERF_CMD_SERVER_GET reply
 * @err: where to report a malformed reply
 *
 * Text: "1: 198.18.0.1:18515 dev rxe0 conns 2", then one line per
 * connection, "    peer 198.18.1.1:34567 op send size_max 64 iterations
 * 10016". JSON: {"id","addr","port","dev","conn_count","conns":[{
 * "peer_addr","peer_port","op","size_max","iterations"}]}. Attributes the
 * kernel did not send are left out; "conns" is always there.
 *
 * Return: 0, or -EINVAL after reporting a malformed reply; nothing is
 * printed then.
 */
int server_print(struct printer *p, const struct nlmsghdr *nlh, FILE *err)
{
	struct nlattr *tb[KVPERF_A_SERVER_MAX + 1];
	struct nlattr *ctb[KVPERF_A_CONN_MAX + 1];
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct nlattr *nla;
	int rem;

	/* every connection is checked before anything is printed */
	if (attrs_parse_reply(nlh, &attrs_server, tb, true, err))
		return -EINVAL;

	pr_obj_open(p, NULL);
	show_uint(p, tb[KVPERF_A_SERVER_ID], "id", "%s:");
	show_endpoint(p, tb[KVPERF_A_SERVER_ADDR], tb[KVPERF_A_SERVER_PORT],
		      "addr", "port", "%s");
	if (tb[KVPERF_A_SERVER_DEV])
		pr_str(p, "dev", "dev %s", nla_data(tb[KVPERF_A_SERVER_DEV]));
	show_uint(p, tb[KVPERF_A_SERVER_CONN_COUNT], "conn_count",
		  "conns %s");
	pr_eol(p);
	pr_arr_open(p, "conns");
	nla_for_each_attr(nla, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0),
			  rem) {
		if (nla_type(nla) != KVPERF_A_SERVER_CONN)
			continue;
		attrs_parse(&attrs_conn, ctb, nla_data(nla), nla_len(nla),
			    NULL);
		print_conn(p, ctb);
	}
	pr_arr_close(p);
	pr_obj_close(p);
	return 0;
}

/* server start [dev DEV] addr ADDR [port PORT] [path {kernel|user}] */
static int server_start(struct kvperf *kv, struct args *a)
{
	struct show_reply_id r = {
		.set = &attrs_server, .attr = KVPERF_A_SERVER_ID, .err = kv->err,
	};
	struct server_opts o;
	struct nl_msg *msg;
	struct printer p;
	struct knl nl;
	int ret;

	ret = show_cmd_help(kv, a, &server_object, start_keywords,
			    ARRAY_SIZE(start_keywords));
	if (ret >= 0)
		return ret;
	ret = server_start_parse(kv, a, &o);
	if (ret)
		return ret;
	if (o.path == RUN_PATH_USER)
		return upath_serve(kv, &o);
	ret = knl_open(kv, &nl);
	if (ret)
		return ret;
	msg = knl_msg(kv, &nl, KVPERF_CMD_SERVER_START, 0);
	if (!msg) {
		ret = KVPERF_EXIT_ERROR;
		goto out;
	}
	if (server_start_put(msg, &o)) {
		nlmsg_free(msg);
		kvperf_errorf(kv, "out of memory");
		ret = KVPERF_EXIT_ERROR;
		goto out;
	}
	ret = knl_request(kv, &nl, msg, &attrs_server, show_get_id, &r);
	if (ret)
		goto out;
	if (!r.found) {
		kvperf_errorf(kv, "the kernel did not say the listener's id");
		ret = KVPERF_EXIT_ERROR;
		goto out;
	}
	pr_init(&p, kv->out, kv->json, kv->pretty);
	server_print_started(&p, r.id, &o);
out:
	knl_close(&nl);
	return ret;
}

static int server_show(struct kvperf *kv, struct args *a)
{
	static const struct show_req req = {
		.obj = &server_object,
		.cmd = KVPERF_CMD_SERVER_GET,
		.set = &attrs_server,
		.id_attr = KVPERF_A_SERVER_ID,
		.print = server_print,
	};

	return show_run(kv, a, &req);
}

static int server_stop(struct kvperf *kv, struct args *a)
{
	return show_id_request(kv, a, &server_object,
			       KVPERF_CMD_SERVER_STOP, &attrs_server,
			       KVPERF_A_SERVER_ID);
}

static const struct kvperf_cmd server_show_cmd = {
	.name = "show",
	.summary = "show all listeners, or the one given",
	.run = server_show,
};

static const struct kvperf_cmd server_start_cmd = {
	.name = "start",
	.summary = "start a listener",
	.run = server_start,
};

static const struct kvperf_cmd server_stop_cmd = {
	.name = "stop",
	.summary = "stop a listener and close its connections",
	.run = server_stop,
};

static const struct kvperf_cmd *const server_cmds[] = {
	&server_show_cmd,	/* the default */
	&server_start_cmd,
	&server_stop_cmd,
	NULL,
};

static int server_run(struct kvperf *kv, struct args *a)
{
	return kvperf_dispatch(kv, a, &server_object, server_cmds);
}

static void server_help(FILE *f)
{
	fputs("Usage: kvperf [-j [-p]] server start [dev DEV] addr ADDR [port PORT]\n"
	      "                                 [path {kernel|user}]\n"
	      "       kvperf [-j [-p]] server [show [ID]]\n"
	      "       kvperf server stop ID\n"
	      "       kvperf server help\n"
	      "\n"
	      "In-kernel RDMA CM listeners that serve the runs of kvperf\n"
	      "clients (kvperf run) on other hosts.\n"
	      "\n"
	      "  start   listen on ADDR (IPv4 or IPv6) and PORT (default 18515,\n"
	      "          perftest's); with DEV, refuse an address that is not\n"
	      "          on that RDMA device. Prints the listener's id.\n"
	      "          path user: serve from this process instead, with\n"
	      "          libibverbs, in the foreground until ^C or SIGTERM\n"
	      "          (exit status 0); a line when listening and one per\n"
	      "          connection. It accepts what the kernel's server\n"
	      "          accepts, kernel-path and user-path clients alike.\n"
	      "  show    the listeners and their connections; show is the\n"
	      "          default command. With -j, a JSON array.\n"
	      "  stop    stop a listener and close its connections.\n"
	      "\n"
	      "Keywords and commands may be abbreviated to any prefix.\n"
	      "\n"
	      "Examples:\n"
	      "  kvperf server start addr 198.18.0.1\n"
	      "  kvperf server start dev rxe0 addr fd00::1 port 20000\n"
	      "  kvperf s sta a 198.18.0.1\n"
	      "  kvperf server start addr 198.18.0.1 path user\n"
	      "  kvperf server\n"
	      "  kvperf -j -p server show 1\n"
	      "  kvperf server stop 1\n", f);
}

const struct kvperf_cmd server_object = {
	.name = "server",
	.summary = "in-kernel listeners that serve runs",
	.run = server_run,
	.help = server_help,
};
