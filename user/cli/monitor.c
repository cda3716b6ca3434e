// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf monitor: subscribe to the events group and print one line per
 * event (devices and runs) until SIGINT or SIGTERM.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "args.h"
#include "attrs.h"
#include "cli.h"
#include "kvperf.h"
#include "monitor.h"
#include "nl.h"
#include "print.h"
#include "run_model.h"
#include "run_print.h"
#include "signals.h"

/* A run event: the run model's fields, as run_print_event() prints them. */
static int monitor_print_run(struct printer *p, const struct nlmsghdr *nlh,
			     FILE *err)
{
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct kv_run ev;
	int ret;

	ret = run_model_decode(&ev, nlh, err);
	if (!ret)
		run_print_event(p, g->cmd == KVPERF_CMD_RUN_FINISHED_NTF, &ev);
	else if (ret == -ENOMEM)
		fprintf(err, "kvperf: out of memory\n");
	run_model_free(&ev);
	return ret ? -EINVAL : 0;
}

/**
 * monitor_print_event() - print one event as a line of text or JSON
 * @p: a printer freshly set up for this event
 * @nlh: the notification
 * @err: where to report a malformed notification
 *
 * Text: "dev add 3: rxe2", "run 3 finished: done"; JSON:
 * {"event":"dev-add","ifindex":3,"ifname":"rxe2"}; run events as
 * run_print_event() prints them. Events this tool does not know are
 * printed by number ("event 99", {"event":99,...}) so that nothing the
 * module says is lost.
 *
 * Return: 0, or -EINVAL after reporting a malformed notification.
 */
int monitor_print_event(struct printer *p, const struct nlmsghdr *nlh,
			FILE *err)
{
	struct nlattr *tb[KVPERF_A_DEV_MAX + 1];
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct attr_error aerr;

	if (!genlmsg_valid_hdr((struct nlmsghdr *)nlh, 0)) {
		fprintf(err, "kvperf: malformed event from the kernel: message too short\n");
		return -EINVAL;
	}
	switch (g->cmd) {
	case KVPERF_CMD_RUN_FINISHED_NTF:
	case KVPERF_CMD_RUN_PROGRESS_NTF:
		return monitor_print_run(p, nlh, err);
	}
	/* dev-add-ntf and dev-del-ntf use a subset of the dev set */
	if (attrs_parse(&attrs_dev, tb, genlmsg_attrdata(g, 0),
			genlmsg_attrlen(g, 0), &aerr)) {
		attrs_report(err, &aerr);
		return -EINVAL;
	}

	pr_obj_open(p, NULL);
	switch (g->cmd) {
	case KVPERF_CMD_DEV_ADD_NTF:
		pr_str_as(p, "event", "%s", "dev-add", "dev add");
		break;
	case KVPERF_CMD_DEV_DEL_NTF:
		pr_str_as(p, "event", "%s", "dev-del", "dev del");
		break;
	default:
		pr_u64(p, "event", "event %s", g->cmd);
		break;
	}
	if (tb[KVPERF_A_DEV_INDEX])
		pr_u64(p, "ifindex", "%s:", attr_uint(tb[KVPERF_A_DEV_INDEX]));
	if (tb[KVPERF_A_DEV_NAME])
		pr_str(p, "ifname", "%s", nla_data(tb[KVPERF_A_DEV_NAME]));
	pr_obj_close(p);
	pr_finish(p);
	return 0;
}

static int monitor_event(struct nl_msg *msg, void *arg)
{
	struct kvperf *kv = arg;
	struct printer p;

	pr_init(&p, kv->out, kv->json, kv->pretty);
	monitor_print_event(&p, nlmsg_hdr(msg), kv->err);
	/* whoever reads us through a pipe wants each event as it happens */
	fflush(kv->out);
	return NL_OK;
}

static int monitor_loop(struct kvperf *kv, struct knl *nl, int sfd)
{
	struct pollfd fds[2] = {
		{ .fd = nl_socket_get_fd(nl->sk), .events = POLLIN },
		{ .fd = sfd, .events = POLLIN },
	};
	struct nl_cb *cb;
	int ret = KVPERF_EXIT_ERROR;
	int err;

	cb = knl_event_cb(kv);
	if (!cb)
		return KVPERF_EXIT_ERROR;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, monitor_event, kv);

	for (;;) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			kvperf_errorf(kv, "poll: %s", strerror(errno));
			break;
		}
		if (fds[1].revents) {
			ret = KVPERF_EXIT_OK;
			break;
		}
		if (!fds[0].revents)
			continue;
		/* the socket is non-blocking: read until it is drained */
		do {
			err = nl_recvmsgs(nl->sk, cb);
		} while (err >= 0);
		if (err == -NLE_AGAIN)
			continue;
		if (err == -NLE_NOMEM) {
			/* ENOBUFS: the receive queue overflowed */
			fprintf(kv->err, "kvperf: warning: events were lost (receive buffer overrun)\n");
			continue;
		}
		kvperf_errorf(kv, "cannot receive events: %s",
			      nl_geterror(err));
		break;
	}
	nl_cb_put(cb);
	return ret;
}

static int monitor_run(struct kvperf *kv, struct args *a)
{
	const char *w = args_next(a);
	struct knl nl;
	int ret, sfd;

	/* no commands (yet): nothing or help */
	if (w && !args_matches(w, "help"))
		return kvperf_usage(kv, "monitor", "unexpected argument '%s'",
				    w);
	ret = kvperf_no_more_args(kv, a, "monitor");
	if (ret)
		return ret;
	if (w) {
		monitor_object.help(kv->out);
		return KVPERF_EXIT_OK;
	}

	ret = knl_open(kv, &nl);
	if (ret)
		return ret;
	ret = knl_subscribe(kv, &nl, KVPERF_MCGRP_EVENTS);
	if (ret)
		goto out_close;
	/* events are not replies to anything we sent */
	nl_socket_disable_seq_check(nl.sk);
	nl_socket_set_buffer_size(nl.sk, 1 << 20, 0);
	if (nl_socket_set_nonblocking(nl.sk) < 0) {
		kvperf_errorf(kv, "cannot make the socket non-blocking");
		ret = KVPERF_EXIT_ERROR;
		goto out_close;
	}
	sfd = cli_signalfd(kv);
	if (sfd < 0) {
		ret = KVPERF_EXIT_ERROR;
		goto out_close;
	}

	fprintf(kv->err, "monitoring kvperf events\n");
	ret = monitor_loop(kv, &nl, sfd);
	close(sfd);
out_close:
	knl_close(&nl);
	return ret;
}

static void monitor_help(FILE *f)
{
	fputs("Usage: kvperf [-j [-p]] monitor\n"
	      "       kvperf monitor help\n"
	      "\n"
	      "Print one line per kvperf event until interrupted (SIGINT or\n"
	      "SIGTERM, then exit status 0). Output is flushed after every\n"
	      "event. \"monitoring kvperf events\" goes to stderr once the\n"
	      "subscription is in place.\n"
	      "\n"
	      "Events:\n"
	      "  dev add INDEX: NAME         an RDMA device appeared\n"
	      "  dev del INDEX: NAME         an RDMA device went away\n"
	      "  run ID finished: STATE      a run ended: done, failed (then\n"
	      "                              \": ERROR\") or stopped\n"
	      "  run ID progress N           N iterations done, about once a\n"
	      "                              second while the run runs;\n"
	      "                              bandwidth runs add size S,\n"
	      "                              bytes B and the last interval's\n"
	      "                              interval-bytes, interval-messages\n"
	      "                              and interval-ns (every interval\n"
	      "                              ms when the run asked for one)\n"
	      "\n"
	      "With -j, one JSON object per line:\n"
	      "  {\"event\":\"dev-add\",\"index\":3,\"name\":\"rxe2\"}\n"
	      "  {\"event\":\"run-finished\",\"id\":3,\"state\":\"done\"}\n"
	      "  {\"event\":\"run-progress\",\"id\":3,\"progress\":5000}\n"
	      "\n"
	      "Examples:\n"
	      "  kvperf monitor\n"
	      "  kvperf -j monitor > events.jsonl\n"
	      "  kvperf m\n", f);
}

const struct kvperf_cmd monitor_object = {
	.name = "monitor",
	.summary = "print device and run events as they happen",
	.run = monitor_run,
	.help = monitor_help,
};
