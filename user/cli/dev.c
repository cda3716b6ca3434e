// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf dev: the object's commands, and the requests behind them.
 */
#include <stdlib.h>
#include <string.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "args.h"
#include "attrs.h"
#include "dev.h"
#include "show.h"
#include "cli.h"
#include "kvperf.h"
#include "nl.h"
#include "print.h"

/* the spec's max-len of the name attribute */
#define DEV_NAME_MAX	63

struct dev_show_ctx {
	struct printer *p;
	FILE *err;
};

static int dev_show_reply(const struct nlmsghdr *nlh, void *arg)
{
	struct dev_show_ctx *ctx = arg;

	return dev_print(ctx->p, nlh, ctx->err);
}

static int dev_show_request(struct kvperf *kv, struct printer *p,
			    const char *name)
{
	struct dev_show_ctx ctx = { .p = p, .err = kv->err };
	struct nl_msg *msg;
	struct knl nl;
	int ret;

	ret = knl_open(kv, &nl);
	if (ret)
		return ret;
	msg = knl_msg(kv, &nl, KVPERF_CMD_DEV_GET, name ? 0 : NLM_F_DUMP);
	if (!msg) {
		ret = KVPERF_EXIT_ERROR;
		goto out;
	}
	if (name && nla_put_string(msg, KVPERF_A_DEV_NAME, name) < 0) {
		nlmsg_free(msg);
		kvperf_errorf(kv, "out of memory");
		ret = KVPERF_EXIT_ERROR;
		goto out;
	}
	ret = knl_request(kv, &nl, msg, &attrs_dev, dev_show_reply, &ctx);
out:
	knl_close(&nl);
	return ret;
}

static int dev_show_fill(struct kvperf *kv, struct printer *p, void *arg)
{
	return dev_show_request(kv, p, arg);
}

/*
 * dev show [DEV]: all devices (a dump) or the one named (a do request),
 * through show_buffered(); JSON is an array either way.
 */
static int dev_show(struct kvperf *kv, struct args *a)
{
	const char *name = args_next(a);
	int ret;

	ret = kvperf_no_more_args(kv, a, "dev");
	if (ret)
		return ret;
	if (name && !name[0])
		return kvperf_usage(kv, "dev", "empty device name");
	if (name && strlen(name) > DEV_NAME_MAX)
		return kvperf_usage(kv, "dev",
				    "device name '%s' is longer than %d characters",
				    name, DEV_NAME_MAX);

	return show_buffered(kv, dev_show_fill, (void *)name);
}

static const struct kvperf_cmd dev_show_cmd = {
	.name = "show",
	.summary = "show all devices, or the one named",
	.run = dev_show,
};

static const struct kvperf_cmd *const dev_cmds[] = {
	&dev_show_cmd,		/* the default */
	NULL,
};

static int dev_run(struct kvperf *kv, struct args *a)
{
	return kvperf_dispatch(kv, a, &dev_object, dev_cmds);
}

static void dev_help(FILE *f)
{
	fputs("Usage: kvperf [-j [-p]] dev [show [DEV]]\n"
	      "       kvperf dev help\n"
	      "\n"
	      "Show the RDMA devices the kvperf module sees: identity, limits,\n"
	      "ports and GID tables. Without DEV, all of them; show is the\n"
	      "default command. With -j, a JSON array of device objects (one\n"
	      "element when DEV is given).\n"
	      "\n"
	      "Examples:\n"
	      "  kvperf dev\n"
	      "  kvperf dev show rxe0\n"
	      "  kvperf d sh rxe0\n"
	      "  kvperf -j -p dev show rxe0\n", f);
}

const struct kvperf_cmd dev_object = {
	.name = "dev",
	.summary = "RDMA devices the module sees",
	.run = dev_run,
	.help = dev_help,
};
