// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf server: start, show and stop the in-kernel listeners that serve
 * runs, and the printing of a KVPERF_CMD_SERVER_GET reply.
 */
#include <errno.h>
#include <string.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "access.h"
#include "args.h"
#include "attrs.h"
#include "cli.h"
#include "compiler.h"
#include "fmt.h"
#include "json.h"
#include "keywords.h"
#include "kvperf.h"
#include "nl.h"
#include "print.h"
#include "run_model.h"
#include "server.h"
#include "show.h"
#include "upath.h"
#include "upath_signal.h"
#include "upath_wire.h"

static const char *const start_keywords[SKW_COUNT] = {
	[SKW_DEV]		= "dev",
	[SKW_ADDR]		= "addr",
	[SKW_PORT]		= "port",
	[SKW_PATH]		= "path",
	[SKW_POLL]		= "poll",
	[SKW_IDLE_TIMEOUT]	= "idle-timeout",
	[SKW_ALLOW]		= "allow",
	[SKW_KEY]		= "key",
	[SKW_KEY_FILE]		= "key-file",
	[SKW_CONNS_MAX]		= "conns-max",
	[SKW_PEER_CONNS_MAX]	= "peer-conns-max",
	[SKW_SRQ]		= "srq",
	[SKW_BIDIR]		= "bidir",
};


/* allow PREFIX | allow any (both 0.0.0.0/0 and ::/0) */
static int server_allow_parse(struct kvperf *kv, const char *val,
			      struct server_opts *o)
{
	unsigned int need = strcmp(val, "any") ? 1 : 2;
	int err;

	if (o->cfg.nallow + need > ACCESS_ALLOW_MAX)
		return kvperf_usage(kv, "server",
				    "too many allow prefixes (at most %d; any counts as 2)",
				    ACCESS_ALLOW_MAX);
	if (need == 2) {
		access_prefix_parse("0.0.0.0/0", &o->cfg.allow[o->cfg.nallow++]);
		access_prefix_parse("::/0", &o->cfg.allow[o->cfg.nallow++]);
		return KVPERF_EXIT_OK;
	}
	err = access_prefix_parse(val, &o->cfg.allow[o->cfg.nallow]);
	if (err == -ERANGE)
		return kvperf_usage(kv, "server",
				    "invalid allow '%s' (the length is at most 32 for IPv4, 128 for IPv6)",
				    val);
	if (err)
		return kvperf_usage(kv, "server",
				    "invalid allow '%s' (an IPv4 or IPv6 address, optionally /LEN, or any)",
				    val);
	o->cfg.nallow++;
	return KVPERF_EXIT_OK;
}

static int server_number(struct kvperf *kv, const char *kw, const char *val,
			 uint32_t min, uint32_t max, uint32_t *v)
{
	if (parse_u32(val, v) || *v < min || *v > max)
		return kvperf_usage(kv, "server",
				    "invalid %s '%s' (%u to %u)", kw, val, min,
				    max);
	return KVPERF_EXIT_OK;
}

/* A time as every time keyword takes it: 10, 0.5, 2s, 500ms. */
static int server_time(struct kvperf *kv, const char *kw, const char *val,
		       uint32_t min, uint32_t max, uint32_t *ms)
{
	char lo[PARSE_TIME_LEN], hi[PARSE_TIME_LEN];
	int err = parse_time_ms(val, ms);

	if (err == -EINVAL)
		return kvperf_usage(kv, "server",
				    "invalid %s '%s' (a time such as 10, 0.5, 2s or 500ms; no unit is seconds)",
				    kw, val);
	if (err || *ms < min || *ms > max)
		return kvperf_usage(kv, "server",
				    "%s '%s' is out of range (%s to %s)", kw,
				    val, fmt_time_ms(lo, sizeof(lo), min),
				    fmt_time_ms(hi, sizeof(hi), max));
	return KVPERF_EXIT_OK;
}

static int server_value(struct kvperf *kv, enum server_kw kw,
			const char *val, struct server_opts *o)
{
	uint32_t port;
	int i;

	switch (kw) {
	case SKW_DEV:
		if (!val[0] || strlen(val) > KVPERF_DEV_NAME_MAX)
			return kvperf_usage(kv, "server",
					    "invalid device name '%s' (1 to %d characters)",
					    val, KVPERF_DEV_NAME_MAX);
		snprintf(o->cfg.dev, sizeof(o->cfg.dev), "%s", val);
		break;
	case SKW_ADDR:
		i = parse_addr(val, o->cfg.addr);
		if (i < 0)
			return kvperf_usage(kv, "server",
					    "invalid address '%s' (IPv4 or IPv6)",
					    val);
		o->cfg.addr_len = i;
		break;
	case SKW_PORT:
		if (parse_u32(val, &port) || !port || port > 65535)
			return kvperf_usage(kv, "server",
					    "invalid port '%s' (1 to 65535)",
					    val);
		o->cfg.port = port;
		break;
	case SKW_PATH:
		return cli_parse_name(kv, "server", "path", kv_run_path_names,
				      KV_RUN_PATHS, val, &o->path);
	case SKW_POLL:
		return cli_parse_name(kv, "server", "poll mode", fmt_poll.names,
				      fmt_poll.count, val, &o->cfg.poll);
	case SKW_IDLE_TIMEOUT:
		return server_time(kv, "idle-timeout", val,
				   SERVER_IDLE_TIMEOUT_MIN,
				   SERVER_IDLE_TIMEOUT_MAX,
				   &o->cfg.idle_timeout_ms);
	case SKW_ALLOW:
		return server_allow_parse(kv, val, o);
	case SKW_KEY:
		return access_key_arg(kv, "server", false, val, o->cfg.key);
	case SKW_KEY_FILE:
		/* read once the command line is known to be right */
		o->key_file = val;
		break;
	case SKW_CONNS_MAX:
		return server_number(kv, "conns-max", val, 1, SERVER_CONNS_MAX,
				     &o->cfg.conns_max);
	case SKW_PEER_CONNS_MAX:
		return server_number(kv, "peer-conns-max", val, 1,
				     SERVER_CONNS_MAX, &o->cfg.peer_conns_max);
	case SKW_SRQ:
		return server_number(kv, "srq", val, 1, SERVER_SRQ_MAX,
				     &o->cfg.srq);
	case SKW_BIDIR:
		return cli_parse_name(kv, "server", "bidir", fmt_bidir.names,
				      fmt_bidir.count, val, &o->cfg.bidir);
	case SKW_COUNT:
		break;
	}
	return KVPERF_EXIT_OK;
}

static int server_kw_value(struct kvperf *kv, int kw, const char *val,
			   void *arg)
{
	return server_value(kv, kw, val, arg);
}

/* The attribute each keyword sets; 0 for those of the command alone. */
static const uint8_t server_kw_attr[SKW_COUNT] = {
	[SKW_DEV]		= KVPERF_A_SERVER_DEV,
	[SKW_ADDR]		= KVPERF_A_SERVER_ADDR,
	[SKW_PORT]		= KVPERF_A_SERVER_PORT,
	[SKW_POLL]		= KVPERF_A_SERVER_POLL,
	[SKW_IDLE_TIMEOUT]	= KVPERF_A_SERVER_IDLE_TIMEOUT_MS,
	[SKW_ALLOW]		= KVPERF_A_SERVER_ALLOW,
	[SKW_KEY]		= KVPERF_A_SERVER_KEY,
	[SKW_KEY_FILE]		= KVPERF_A_SERVER_KEY,
	[SKW_CONNS_MAX]		= KVPERF_A_SERVER_CONNS_MAX,
	[SKW_PEER_CONNS_MAX]	= KVPERF_A_SERVER_PEER_CONNS_MAX,
	[SKW_SRQ]		= KVPERF_A_SERVER_SRQ,
	[SKW_BIDIR]		= KVPERF_A_SERVER_BIDIR,
};

/* The configuration's attributes, from the keywords given. */
static void server_given(struct server_opts *o)
{
	int kw;

	for (kw = 0; kw < SKW_COUNT; kw++)
		if (server_opt(o, kw) && server_kw_attr[kw])
			o->cfg.has |= 1ULL << server_kw_attr[kw];
}

/**
 * server_start_parse() - the arguments of "server start"
 * @kv: the invocation
 * @a: the words after "start"
 * @o: filled in; the port defaults to 18515, the path to the kernel's
 *
 * Every keyword but allow (up to ACCESS_ALLOW_MAX prefixes) is given once
 * at most; key and key-file exclude each other. Nothing is sent before
 * all of them were checked.
 *
 * Return: KVPERF_EXIT_OK, KVPERF_EXIT_USAGE after reporting, or
 * KVPERF_EXIT_ERROR for a key file that cannot be used.
 */
int server_start_parse(struct kvperf *kv, struct args *a,
		       struct server_opts *o)
{
	static const int exclusive[][2] = {
		{ SKW_KEY, SKW_KEY_FILE },
		{ -1, -1 },
	};
	const struct cli_keywords k = {
		.obj = "server", .names = start_keywords,
		.count = ARRAY_SIZE(start_keywords),
		.repeatable = 1ULL << SKW_ALLOW, .exclusive = exclusive,
		.value = server_kw_value,
	};
	int ret;

	memset(o, 0, sizeof(*o));
	server_cfg_init(&o->cfg);
	ret = cli_parse_keywords(kv, a, &k, &o->given, o);
	if (ret)
		return ret;
	if (!server_opt(o, SKW_ADDR))
		return kvperf_usage(kv, "server", "missing addr");
	if (o->path == KV_RUN_PATH_USER && server_opt(o, SKW_IDLE_TIMEOUT))
		return kvperf_usage(kv, "server",
				    "idle-timeout applies to the kernel path only");
	if (o->path == KV_RUN_PATH_USER && server_opt(o, SKW_BIDIR))
		return kvperf_usage(kv, "server",
				    "bidir applies to the kernel path only");
	server_given(o);
	if (o->key_file)
		return access_key_arg(kv, "server", true, o->key_file,
				      o->cfg.key);
	return KVPERF_EXIT_OK;
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
		  fmt_addr(a, o->cfg.addr, o->cfg.addr_len),
		  fmt_addr_port(text, o->cfg.addr, o->cfg.addr_len, o->cfg.port));
	pr_u64(p, "port", NULL, o->cfg.port);
	if (o->cfg.dev[0])
		pr_str(p, "dev", "dev %s", o->cfg.dev);
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

/*
 * A shared receive queue, when the listener has one: "srq 64 (granted
 * 32)", JSON "srq":64,"srq_granted":32; nothing without one.
 */
static void print_srq(struct printer *p, struct nlattr **tb)
{
	if (!tb[KVPERF_A_SERVER_SRQ])
		return;
	show_uint(p, tb[KVPERF_A_SERVER_SRQ], "srq", "srq %s");
	show_uint(p, tb[KVPERF_A_SERVER_SRQ_GRANTED], "srq_granted",
		  "(granted %s)");
}

/* The settings of a listener: a line of their own. */
static void print_settings(struct printer *p, struct nlattr **tb, bool v3)
{
	pr_indent(p, 4);
	if (tb[KVPERF_A_SERVER_POLL])
		pr_enum(p, "poll", "poll %s",
			attr_uint(tb[KVPERF_A_SERVER_POLL]), &fmt_poll);
	show_uint(p, tb[KVPERF_A_SERVER_IDLE_TIMEOUT_MS], "idle_timeout_ms",
		  "idle_timeout_ms %s");
	if (v3 && p->json)
		pr_flag(p, "keyed", NULL, tb[KVPERF_A_SERVER_KEYED]);
	else if (v3)
		pr_text_field(p, "keyed %s",
			      tb[KVPERF_A_SERVER_KEYED] ? "yes" : "no");
	show_uint(p, tb[KVPERF_A_SERVER_CONNS_MAX], "conns_max",
		  "conns_max %s");
	show_uint(p, tb[KVPERF_A_SERVER_PEER_CONNS_MAX], "peer_conns_max",
		  "peer_conns_max %s");
	if (tb[KVPERF_A_SERVER_BIDIR])
		pr_enum(p, "bidir", "bidir %s",
			attr_uint(tb[KVPERF_A_SERVER_BIDIR]), &fmt_bidir);
	print_srq(p, tb);
	show_uint(p, tb[KVPERF_A_SERVER_PINNED], "pinned", "pinned %s");
	pr_eol(p);
}

/* The allow list in force: "    allow 198.18.0.0/24 fd00::/64". */
static void print_allow(struct printer *p, const struct nlmsghdr *nlh)
{
	struct nlattr *ptb[KVPERF_A_PREFIX_MAX + 1];
	struct genlmsghdr *g = nlmsg_data(nlh);
	char text[ACCESS_PREFIX_LEN];
	struct access_prefix pfx;
	struct nlattr *nla;
	int rem;

	pr_indent(p, 4);
	pr_text(p, "allow");
	pr_arr_open(p, "allow");
	nla_for_each_attr(nla, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0),
			  rem) {
		if (nla_type(nla) != KVPERF_A_SERVER_ALLOW)
			continue;
		attrs_parse(&attrs_prefix, ptb, nla_data(nla), nla_len(nla),
			    NULL);
		if (!ptb[KVPERF_A_PREFIX_ADDR])
			continue;
		memset(&pfx, 0, sizeof(pfx));
		pfx.addr_len = nla_len(ptb[KVPERF_A_PREFIX_ADDR]);
		memcpy(pfx.addr, nla_data(ptb[KVPERF_A_PREFIX_ADDR]),
		       pfx.addr_len);
		pfx.len = ptb[KVPERF_A_PREFIX_LEN] ?
			  attr_uint(ptb[KVPERF_A_PREFIX_LEN]) :
			  8 * pfx.addr_len;
		access_prefix_fmt(text, &pfx);
		if (p->json)
			json_str(&p->jw, text);
		else
			pr_text_field(p, "%s", text);
	}
	pr_arr_close(p);
	pr_eol(p);
}

/* The listener's counters, text and JSON keys alike. */
static const struct {
	int attr;
	const char *key;
	const char *fmt;
} server_counters[] = {
	{ KVPERF_A_SERVER_ACCEPTED, "accepted", "accepted %s" },
	{ KVPERF_A_SERVER_REFUSED_REQUEST, "refused_request",
	  "refused_request %s" },
	{ KVPERF_A_SERVER_REFUSED_ADDRESS, "refused_address",
	  "refused_address %s" },
	{ KVPERF_A_SERVER_REFUSED_KEY, "refused_key", "refused_key %s" },
	{ KVPERF_A_SERVER_REFUSED_BUSY, "refused_busy", "refused_busy %s" },
	{ KVPERF_A_SERVER_REFUSED_MEMORY, "refused_memory",
	  "refused_memory %s" },
	{ KVPERF_A_SERVER_CLOSED_IDLE, "closed_idle", "closed_idle %s" },
	{ KVPERF_A_SERVER_CLOSED_DEAD, "closed_dead", "closed_dead %s" },
};

static void print_counters(struct printer *p, struct nlattr **tb)
{
	size_t i;

	pr_indent(p, 4);
	for (i = 0; i < ARRAY_SIZE(server_counters); i++)
		show_uint(p, tb[server_counters[i].attr],
			  server_counters[i].key, server_counters[i].fmt);
	pr_eol(p);
}

/**
 * server_print() - print one listener and its connections
 * @p: the printer; in JSON the listener is one object, an array element
 * @nlh: a KVPERF_CMD_SERVER_GET reply
 * @err: where to report a malformed reply
 *
 * Text: "1: 198.18.0.1:18515 dev rxe0 conns 2"; then, from a module that
 * reports them, a line of settings ("    poll softirq idle_timeout_ms
 * 10000 keyed no conns_max 16 peer_conns_max 8 srq 64 (granted 32)
 * pinned 16384", srq for a listener with a shared receive queue only),
 * the allow list in force ("    allow 198.18.0.0/24 fd00::/64") and the
 * counters ("    accepted 3 refused_request 0 refused_address 1
 * refused_key 0 refused_busy 0 refused_memory 0 closed_idle 0
 * closed_dead 0"); then one line per connection, "    peer
 * 198.18.1.1:34567 op send size_max 64 iterations 10016". JSON: {"id",
 * "addr","port","dev","conn_count","poll","idle_timeout_ms","keyed",
 * "conns_max","peer_conns_max","srq","srq_granted","pinned",
 * "allow":["198.18.0.0/24"],"accepted","refused_request",
 * "refused_address","refused_key","refused_busy","refused_memory",
 * "closed_idle","closed_dead","conns":[{"peer_addr","peer_port","op",
 * "size_max","iterations"}]}. Attributes the kernel did not send are left
 * out; "conns" is always there, "keyed" and "allow" whenever the module
 * reports a listener's settings.
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
	bool v3;
	int rem;

	/* every connection is checked before anything is printed */
	if (attrs_parse_reply(nlh, &attrs_server, tb, true, err))
		return -EINVAL;
	/* a module that knows of keys and allow lists says these */
	v3 = tb[KVPERF_A_SERVER_POLL] || tb[KVPERF_A_SERVER_CONNS_MAX] ||
	     tb[KVPERF_A_SERVER_KEYED] || tb[KVPERF_A_SERVER_ALLOW];

	pr_obj_open(p, NULL);
	show_uint(p, tb[KVPERF_A_SERVER_ID], "id", "%s:");
	show_endpoint(p, tb[KVPERF_A_SERVER_ADDR], tb[KVPERF_A_SERVER_PORT],
		      "addr", "port", "%s");
	if (tb[KVPERF_A_SERVER_DEV])
		pr_str(p, "dev", "dev %s", nla_data(tb[KVPERF_A_SERVER_DEV]));
	show_uint(p, tb[KVPERF_A_SERVER_CONN_COUNT], "conn_count",
		  "conns %s");
	pr_eol(p);
	print_settings(p, tb, v3);
	if (v3)
		print_allow(p, nlh);
	print_counters(p, tb);
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

/* server start ...: the kernel's listener */
static int server_start_kernel(struct kvperf *kv, const struct server_opts *o)
{
	struct printer p;
	uint32_t id;
	int ret;

	ret = server_kernel_start(kv, &o->cfg, &id);
	if (ret)
		return ret;
	pr_init(&p, kv->out, kv->json, kv->pretty);
	server_print_started(&p, id, o);
	return KVPERF_EXIT_OK;
}

/* What "server start ... path user" prints: one line, or object, each. */
struct server_user {
	struct kvperf *kv;
};

static void server_user_start(struct server_user *u, struct printer *p)
{
	pr_init(p, u->kv->out, u->kv->json, false);
	pr_obj_open(p, NULL);
}

static void server_user_end(struct server_user *u, struct printer *p)
{
	pr_obj_close(p);
	pr_finish(p);
	fflush(u->kv->out);
}

/* JSON true or false; text ", NAME" when set */
static void server_user_flag(struct printer *p, const char *name, bool val)
{
	if (val)
		pr_text(p, ",");
	pr_flag(p, name, name, val);
}

/*
 * "server listening on 198.18.1.1:18515 (user path), poll busy, allow
 * 198.18.1.0/24, conns-max 16, peer-conns-max 16, keyed", with ", srq 64"
 * after peer-conns-max when I/O runs share a receive queue (JSON "srq",
 * left out without one)
 */
static void server_user_listening(void *arg,
				  const struct upath_server_info *info)
{
	char a[FMT_ADDR_LEN], text[FMT_ADDR_LEN], pfx[ACCESS_PREFIX_LEN + 1];
	const struct kv_server_cfg *o = info->cfg;
	struct server_user *u = arg;
	struct printer p;
	unsigned int i;

	server_user_start(u, &p);
	pr_str(&p, "event", NULL, "listening");
	pr_str_as(&p, "addr", "server listening on %s",
		  fmt_addr(a, o->addr, o->addr_len),
		  fmt_addr_port(text, o->addr, o->addr_len, o->port));
	pr_u64(&p, "port", NULL, o->port);
	pr_str(&p, "dev", NULL, info->dev);
	pr_str(&p, "path", "(%s path),", "user");
	pr_enum(&p, "poll", "poll %s,", info->poll, &fmt_poll);
	pr_text_field(&p, "%s", "allow");
	pr_arr_open(&p, "allow");
	for (i = 0; i < info->nallow; i++) {
		access_prefix_fmt(pfx, &info->allow[i]);
		if (p.json)
			json_str(&p.jw, pfx);
		else
			pr_text_field(&p, i + 1 < info->nallow ? "%s" : "%s,",
				      pfx);
	}
	pr_arr_close(&p);
	pr_u64(&p, "conns_max", "conns-max %s,", info->conns_max);
	pr_u64(&p, "peer_conns_max", "peer-conns-max %s,",
	       info->peer_conns_max);
	if (info->srq)
		pr_u64(&p, "srq", "srq %s,", info->srq);
	pr_flag(&p, "keyed", NULL, info->keyed);
	pr_text_field(&p, "%s", info->keyed ? "keyed" : "no key");
	server_user_end(u, &p);
}

/*
 * "connection 3 from 198.18.0.1:34567: bw write, size-max 65536, ..."
 * ("from [2001:2::1]:34567:" for IPv6)
 */
static void server_user_conn(void *arg, const struct upath_server_conn *c)
{
	char text[FMT_ADDR_LEN + 1];
	struct server_user *u = arg;
	struct printer p;

	snprintf(text, sizeof(text), "%s:", c->peer);
	server_user_start(u, &p);
	pr_str(&p, "event", NULL, "connection");
	pr_u64(&p, "id", "connection %s", c->id);
	pr_str_as(&p, "peer_addr", "from %s", c->peer_addr, text);
	pr_u64(&p, "peer_port", NULL, c->peer_port);
	pr_enum(&p, "type", "%s", c->type, &fmt_run_type);
	pr_enum(&p, "op", "%s,", c->op, &fmt_op);
	pr_enum(&p, "poll", "poll %s,", c->poll, &fmt_poll);
	pr_u64(&p, "size_max", "size-max %s", c->size_max);
	server_user_flag(&p, "verify", c->verify);
	server_user_flag(&p, "bidir", c->bidir);
	server_user_end(u, &p);
}

/* "connection from 198.18.0.1:34567 refused: too many connections" */
static void server_user_refused(void *arg,
				const struct upath_server_refusal *r)
{
	struct server_user *u = arg;
	struct printer p;

	server_user_start(u, &p);
	pr_str(&p, "event", "connection", "refused");
	pr_str_as(&p, "peer_addr", "from %s", r->peer_addr, r->peer);
	pr_u64(&p, "peer_port", NULL, r->peer_port);
	pr_str(&p, "reason", "refused: %s", upath_wire_reject_name(r->why));
	server_user_end(u, &p);
}

/*
 * When it stops: "server stopped: accepted 12, refused_request 0, ..."
 * (the kernel's listener counters but closed_idle and closed_dead: the
 * user-path server has no idle timeout).
 */
static void server_user_stopped(void *arg,
				const struct upath_server_counts *n)
{
	struct server_user *u = arg;
	struct printer p;

	server_user_start(u, &p);
	pr_str(&p, "event", "server %s:", "stopped");
	pr_u64(&p, "accepted", "accepted %s,", n->accepted);
	pr_u64(&p, "refused_request", "refused_request %s,",
	       n->refused_request);
	pr_u64(&p, "refused_address", "refused_address %s,",
	       n->refused_address);
	pr_u64(&p, "refused_key", "refused_key %s,", n->refused_key);
	pr_u64(&p, "refused_busy", "refused_busy %s,", n->refused_busy);
	pr_u64(&p, "refused_memory", "refused_memory %s", n->refused_memory);
	server_user_end(u, &p);
}

static void server_user_error(void *arg, const char *msg)
{
	struct server_user *u = arg;

	kvperf_errorf(u->kv, "%s", msg);
}

/*
 * server start ... path user: a server in this process, in the
 * foreground until SIGINT or SIGTERM, a line (with -j, one JSON object
 * per line, "event" listening, connection, refused, stopped) for each
 * thing that happens.
 */
static int server_start_user(struct kvperf *kv, const struct server_opts *o)
{
	struct server_user u = { .kv = kv };
	const struct upath_server_ops ops = {
		.listening = server_user_listening,
		.conn = server_user_conn,
		.refused = server_user_refused,
		.stopped = server_user_stopped,
		.error = server_user_error,
		.arg = &u,
	};
	int err;

	err = upath_catch_signals();
	if (err) {
		kvperf_errorf(kv, "cannot catch signals: %s", strerror(-err));
		return KVPERF_EXIT_ERROR;
	}
	return upath_serve(&o->cfg, &ops) ? KVPERF_EXIT_ERROR :
					    KVPERF_EXIT_OK;
}

/* server start [dev DEV] addr ADDR [port PORT] ... [path {kernel|user}] */
static int server_start(struct kvperf *kv, struct args *a)
{
	struct server_opts o;
	int ret;

	ret = show_cmd_help(kv, a, &server_object, start_keywords,
			    ARRAY_SIZE(start_keywords));
	if (ret >= 0)
		return ret;
	ret = server_start_parse(kv, a, &o);
	if (!ret && o.path == KV_RUN_PATH_USER)
		ret = server_start_user(kv, &o);
	else if (!ret)
		ret = server_start_kernel(kv, &o);
	server_cfg_clear(&o.cfg);
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
	      "              [poll {busy|softirq|workqueue}] [idle-timeout TIME]\n"
	      "              [allow PREFIX]... [key HEX | key-file PATH]\n"
	      "              [conns-max N] [peer-conns-max N] [srq N]\n"
	      "              [bidir {on|off}] [path {kernel|user}]\n"
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
	      "          (exit status 0); a line when listening, one per\n"
	      "          connection accepted or refused, and the counters at\n"
	      "          the end. It accepts what the kernel's server accepts,\n"
	      "          kernel-path and user-path clients alike.\n"
	      "  show    the listeners, their settings, allow list and\n"
	      "          counters, and their connections; show is the default\n"
	      "          command. With -j, a JSON array.\n"
	      "  stop    stop a listener and close its connections.\n"
	      "\n"
	      "  poll            how the server reaps its completions (default\n"
	      "                  softirq; path user: busy); clients do not choose\n"
	      "  idle-timeout    close a connection whose peer is silent this\n"
	      "                  long, 1s to 600s (default 10s; kernel path only);\n"
	      "                  a number with an optional unit: 10, 2.5s, 1500ms\n"
	      "  allow           peers that may connect: an IPv4 or IPv6 address,\n"
	      "                  with /LEN a prefix (198.18.0.0/16, fd00::/64),\n"
	      "                  or any (0.0.0.0/0 and ::/0); up to 8, any counts\n"
	      "                  as 2. Default: the listening address's subnet\n"
	      "  key             a shared secret, exactly 32 hex digits (16 bytes),\n"
	      "                  that clients must send (kvperf run ... key); it\n"
	      "                  is an access token in clear text on the fabric,\n"
	      "                  not encryption, and is never printed\n"
	      "  key-file        read the key from PATH instead (the 32 hex digits,\n"
	      "                  white space around them ignored); refused unless\n"
	      "                  only its owner may read it (chmod 600). Prefer it\n"
	      "                  to key: a command line is visible to other users\n"
	      "  conns-max       most connections at once, 1 to 16 (default 16)\n"
	      "  peer-conns-max  most connections at once from one address, 1 to\n"
	      "                  16 (default conns-max)\n"
	      "  srq             I/O runs' commands arrive in one shared receive\n"
	      "                  queue of N capsules, 1 to 4096 (nvmet-rdma's\n"
	      "                  use_srq): a connection gets the credits not\n"
	      "                  granted yet, at most its qd, and is refused when\n"
	      "                  none are left or when it asks for inline-data;\n"
	      "                  latency and bandwidth runs keep their own\n"
	      "                  receives. Default: none, each I/O connection\n"
	      "                  posts its own\n"
	      "  bidir           off: refuse bidirectional bandwidth runs, which\n"
	      "                  make the server send traffic back (default on;\n"
	      "                  kernel path only)\n"
	      "\n"
	      "Keywords and commands may be abbreviated to any prefix; values\n"
	      "are spelled out (poll busy, path user).\n"
	      "\n"
	      "Examples:\n"
	      "  kvperf server start addr 198.18.0.1\n"
	      "  kvperf server start dev rxe0 addr fd00::1 port 20000\n"
	      "  kvperf s sta a 198.18.0.1\n"
	      "  kvperf server start addr 198.18.0.1 path user\n"
	      "  kvperf server start addr 198.18.0.1 allow 198.18.0.0/16 allow fd00::/64\n"
	      "  kvperf server start addr 198.18.0.1 allow any key-file /etc/kvperf.key\n"
	      "  kvperf server start addr 198.18.0.1 poll busy conns-max 4 peer-conns-max 2\n"
	      "  kvperf server start addr 198.18.0.1 srq 256\n"
	      "  kvperf server start addr 198.18.0.1 allow any bidir off\n"
	      "  kvperf server start addr 198.18.0.1 srq 64 path user\n"
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
