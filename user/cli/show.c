// SPDX-License-Identifier: GPL-2.0
/*
 * Plumbing shared by the server and run objects: the ID argument, requests
 * on one object, and show commands.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "args.h"
#include "attrs.h"
#include "fmt.h"
#include "cli.h"
#include "kvperf.h"
#include "nl.h"
#include "print.h"
#include "show.h"

/**
 * show_cmd_help() - "OBJ CMD help": the object's help, as one level up
 * @kv: the invocation
 * @a: the words after the command
 * @obj: the object
 * @keywords: the command's keywords, which win over "help" for a prefix
 * @count: how many
 *
 * Return: -1 if the next word does not ask for help (nothing consumed),
 * else the exit code: the help printed, or a usage error.
 */
int show_cmd_help(struct kvperf *kv, struct args *a,
		  const struct kvperf_cmd *obj, const char *const *keywords,
		  size_t count)
{
	const char *w = args_peek(a);

	if (!w || (strcmp(w, "help") &&
		   (args_keyword(keywords, count, w) >= 0 ||
		    !args_matches(w, "help"))))
		return -1;
	args_next(a);
	if (!args_empty(a))
		return kvperf_no_more_args(kv, a, obj->name);
	obj->help(kv->out);
	return KVPERF_EXIT_OK;
}

/**
 * show_id_arg() - the ID argument of a command, and nothing after it
 * @kv: the invocation
 * @a: the words after the command
 * @obj: the object, for usage hints
 * @id: receives the id
 * @given: receives whether there was one; NULL when the ID is required
 *
 * Return: KVPERF_EXIT_OK, or KVPERF_EXIT_USAGE after reporting.
 */
int show_id_arg(struct kvperf *kv, struct args *a, const char *obj,
		uint32_t *id, bool *given)
{
	const char *w = args_next(a);

	if (given)
		*given = w != NULL;
	if (!w) {
		if (given)
			return KVPERF_EXIT_OK;
		return kvperf_usage(kv, obj, "missing %s ID", obj);
	}
	if (parse_u32(w, id))
		return kvperf_usage(kv, obj, "invalid %s ID '%s'", obj, w);
	return kvperf_no_more_args(kv, a, obj);
}

/**
 * show_endpoint() - print an address attribute and its port attribute
 * @p: the printer
 * @addr: the address attribute (checked by attrs_parse()), or NULL
 * @port: the port attribute, or NULL
 * @addr_key: JSON key of the address, a string such as "198.18.0.1"
 * @port_key: JSON key of the port, a number
 * @fmt: text format of the two as one field, "198.18.0.1:18515" or
 *       "[fe80::1]:18515"
 */
void show_endpoint(struct printer *p, const struct nlattr *addr,
		   const struct nlattr *port, const char *addr_key,
		   const char *port_key, const char *fmt)
{
	char a[FMT_ADDR_LEN], text[FMT_ADDR_LEN];

	if (addr) {
		fmt_addr(a, nla_data(addr), nla_len(addr));
		if (port)
			fmt_addr_port(text, nla_data(addr), nla_len(addr),
				      attr_uint(port));
		pr_str_as(p, addr_key, fmt, a, port ? text : a);
	}
	/* text shows the port with the address, or alone without one */
	if (port)
		pr_u64(p, port_key, addr ? NULL : "port %s", attr_uint(port));
}

/**
 * show_uint() - print an unsigned integer attribute, if it is there
 * @p: the printer
 * @nla: the attribute (checked by attrs_parse()), or NULL
 * @key: JSON key
 * @fmt: text format with one %s, or NULL for JSON only
 */
void show_uint(struct printer *p, const struct nlattr *nla, const char *key,
	       const char *fmt)
{
	if (nla)
		pr_u64(p, key, fmt, attr_uint(nla));
}

/**
 * show_string() - print a string attribute, if it is there
 * @p: the printer
 * @nla: the attribute (checked by attrs_parse()), or NULL
 * @key: JSON key
 * @fmt: text format with one %s, or NULL for JSON only
 */
void show_string(struct printer *p, const struct nlattr *nla,
		 const char *key, const char *fmt)
{
	if (nla)
		pr_str(p, key, fmt, nla_data(nla));
}

/**
 * show_enum() - print an enum attribute by name, if it is there
 * @p: the printer
 * @nla: the attribute (checked by attrs_parse()), or NULL
 * @key: JSON key
 * @fmt: text format with one %s, or NULL for JSON only
 * @names: the enum's names; values without one print as numbers
 */
void show_enum(struct printer *p, const struct nlattr *nla, const char *key,
	       const char *fmt, const struct name_table *names)
{
	if (nla)
		pr_enum(p, key, fmt, attr_uint(nla), names);
}

/**
 * show_id_request() - a command that acts on one object: OBJ CMD ID
 * @kv: the invocation
 * @a: the words after the command
 * @obj: the object, for help and usage hints
 * @cmd: the request, e.g. KVPERF_CMD_RUN_STOP
 * @set: its attribute set
 * @id_attr: the id attribute in @set
 *
 * Prints nothing on success, as ip and rdma do.
 *
 * Return: the exit code.
 */
int show_id_request(struct kvperf *kv, struct args *a,
		    const struct kvperf_cmd *obj, uint8_t cmd,
		    const struct attr_set *set, int id_attr)
{
	struct knl nl;
	uint32_t id;
	int ret;

	ret = show_cmd_help(kv, a, obj, NULL, 0);
	if (ret >= 0)
		return ret;
	ret = show_id_arg(kv, a, obj->name, &id, NULL);
	if (ret)
		return ret;
	ret = knl_open(kv, &nl);
	if (ret)
		return ret;
	ret = knl_request_id(kv, &nl, cmd, set, id_attr, id, NULL, NULL);
	knl_close(&nl);
	return ret;
}

struct show_ctx {
	const struct show_req *req;
	struct printer *p;
	FILE *err;
	unsigned int count;
	struct nlmsghdr *pending;	/* an object that may go on */
};

static int show_print(struct show_ctx *ctx, const struct nlmsghdr *nlh)
{
	if (ctx->count++ && ctx->req->blank_line && !ctx->p->json)
		fputc('\n', ctx->p->f);
	return ctx->req->print(ctx->p, nlh, ctx->err);
}

/* Print the object held back, if any. */
static int show_flush(struct show_ctx *ctx)
{
	struct nlmsghdr *nlh = ctx->pending;
	int ret;

	if (!nlh)
		return 0;
	ctx->pending = NULL;
	ret = show_print(ctx, nlh);
	free(nlh);
	return ret;
}

static bool show_merged(const struct show_req *req, int type)
{
	return type && (type == req->merge[0] || type == req->merge[1]);
}

/* Append @nlh's merge attributes to the pending object's message. */
static int show_merge(struct show_ctx *ctx, const struct nlmsghdr *nlh)
{
	struct genlmsghdr *g = nlmsg_data(nlh);
	size_t len = ctx->pending->nlmsg_len, add = 0;
	struct nlmsghdr *m;
	struct nlattr *nla;
	int rem;

	nla_for_each_attr(nla, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0),
			  rem)
		if (show_merged(ctx->req, nla_type(nla)))
			add += NLA_ALIGN(nla->nla_len);
	m = realloc(ctx->pending, NLMSG_ALIGN(len) + add);
	if (!m) {
		fprintf(ctx->err, "kvperf: out of memory\n");
		return -ENOMEM;
	}
	len = NLMSG_ALIGN(len);
	nla_for_each_attr(nla, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0),
			  rem) {
		if (!show_merged(ctx->req, nla_type(nla)))
			continue;
		memcpy((char *)m + len, nla, nla->nla_len);
		memset((char *)m + len + nla->nla_len, 0,
		       NLA_ALIGN(nla->nla_len) - nla->nla_len);
		len += NLA_ALIGN(nla->nla_len);
	}
	m->nlmsg_len = len;
	ctx->pending = m;
	return 0;
}

static int show_reply(const struct nlmsghdr *nlh, void *arg)
{
	struct show_ctx *ctx = arg;
	struct genlmsghdr *g = nlmsg_data(nlh);
	int ret;

	if (!ctx->req->continued_attr)
		return show_print(ctx, nlh);
	if (ctx->pending && genlmsg_valid_hdr((struct nlmsghdr *)nlh, 0) &&
	    nla_find(genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0),
		     ctx->req->continued_attr))
		return show_merge(ctx, nlh);
	ret = show_flush(ctx);
	if (ret)
		return ret;
	ctx->pending = malloc(nlh->nlmsg_len);
	if (!ctx->pending) {
		fprintf(ctx->err, "kvperf: out of memory\n");
		return -ENOMEM;
	}
	memcpy(ctx->pending, nlh, nlh->nlmsg_len);
	return 0;
}

/**
 * show_buffered() - print a JSON array (or text) only if it all works out
 * @kv: the invocation
 * @fill: prints the elements; returns an exit code
 * @arg: argument of @fill
 *
 * Output is collected first so that a failure leaves nothing
 * half-printed on stdout, only the error on stderr.
 *
 * Return: @fill's exit code, or KVPERF_EXIT_ERROR when memory is short.
 */
int show_buffered(struct kvperf *kv,
		  int (*fill)(struct kvperf *kv, struct printer *p, void *arg),
		  void *arg)
{
	struct printer p;
	char *buf = NULL;
	size_t size = 0;
	FILE *mem;
	int ret;

	mem = open_memstream(&buf, &size);
	if (!mem) {
		kvperf_errorf(kv, "out of memory");
		return KVPERF_EXIT_ERROR;
	}
	pr_init(&p, mem, kv->json, kv->pretty);
	pr_arr_open(&p, NULL);
	ret = fill(kv, &p, arg);
	pr_arr_close(&p);
	pr_finish(&p);
	if (fclose(mem)) {
		kvperf_errorf(kv, "out of memory");
		ret = KVPERF_EXIT_ERROR;
	}
	if (!ret)
		fwrite(buf, 1, size, kv->out);
	free(buf);
	return ret;
}

struct show_fill {
	struct knl *nl;
	struct nl_msg *msg;	/* knl_request() consumes it */
	struct show_ctx *ctx;
};

static int show_fill(struct kvperf *kv, struct printer *p, void *arg)
{
	struct show_fill *f = arg;
	struct nl_msg *msg = f->msg;

	int ret;

	f->msg = NULL;
	f->ctx->p = p;
	ret = knl_request(kv, f->nl, msg, f->ctx->req->set, show_reply,
			  f->ctx);
	if (!ret && show_flush(f->ctx))
		ret = KVPERF_EXIT_ERROR;
	free(f->ctx->pending);
	f->ctx->pending = NULL;
	return ret;
}

/**
 * show_run() - a show command: OBJ show [ID]
 * @kv: the invocation
 * @a: the words after "show"
 * @req: the object's get request and printer
 *
 * Without ID, all objects (a dump), with it the one (a do request); JSON
 * is an array either way, printed through show_buffered().
 *
 * Return: the exit code.
 */
int show_run(struct kvperf *kv, struct args *a, const struct show_req *req)
{
	struct show_ctx ctx = { .req = req, .err = kv->err };
	struct show_fill f = { .ctx = &ctx };
	struct knl nl;
	bool given;
	uint32_t id;
	int ret;

	ret = show_cmd_help(kv, a, req->obj, NULL, 0);
	if (ret >= 0)
		return ret;
	ret = show_id_arg(kv, a, req->obj->name, &id, &given);
	if (ret)
		return ret;
	ret = knl_open(kv, &nl);
	if (ret)
		return ret;
	f.nl = &nl;
	f.msg = knl_id_msg(kv, &nl, req->cmd, req->id_attr, given ? &id : NULL);
	if (!f.msg) {
		knl_close(&nl);
		return KVPERF_EXIT_ERROR;
	}
	ret = show_buffered(kv, show_fill, &f);
	if (f.msg)	/* never sent */
		nlmsg_free(f.msg);
	knl_close(&nl);
	return ret;
}
