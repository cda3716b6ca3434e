// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf monitor: subscribe to the events group and print one line per
 * event (devices, listeners and their connections, runs; a run's progress
 * only when asked for) until SIGINT or SIGTERM.
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
#include "fmt.h"
#include "kvperf.h"
#include "monitor.h"
#include "nl.h"
#include "print.h"
#include "run_model.h"
#include "run_print.h"
#include "show.h"
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

/*
 * A listener or connection event: "server 1 started: 198.18.0.1:18515 dev
 * rxe0", "server 1 conn accepted: peer 198.18.0.2:40112 op send size_max
 * 64"; JSON {"event":"server-started","id":1,"addr":"198.18.0.1",
 * "port":18515,"dev":"rxe0"}, the connection's fields as server show
 * names them.
 */
static int monitor_print_server(struct printer *p, const struct nlmsghdr *nlh,
				FILE *err)
{
	static const char *const names[][2] = {
		{ "server-started", "started:" },
		{ "server-stopped", "stopped:" },
		{ "conn-accepted", "conn accepted:" },
		{ "conn-closed", "conn closed:" },
	};
	struct nlattr *tb[KVPERF_A_SERVER_MAX + 1];
	struct nlattr *ctb[KVPERF_A_CONN_MAX + 1];
	struct genlmsghdr *g = nlmsg_data(nlh);
	const char *const *name;
	bool conn;

	if (attrs_parse_reply(nlh, &attrs_server, tb, true, err))
		return -EINVAL;
	name = names[g->cmd - KVPERF_CMD_SERVER_STARTED_NTF];
	conn = g->cmd >= KVPERF_CMD_CONN_ACCEPTED_NTF;
	pr_obj_open(p, NULL);
	pr_str_as(p, "event", "%s", name[0], "server");
	show_uint(p, tb[KVPERF_A_SERVER_ID], "id", "%s");
	pr_text_field(p, "%s", name[1]);
	/* text: a connection's listener is its id; JSON has it all */
	if (conn)
		show_endpoint(p, tb[KVPERF_A_SERVER_ADDR],
			      tb[KVPERF_A_SERVER_PORT], "addr", "port", NULL);
	else
		show_endpoint(p, tb[KVPERF_A_SERVER_ADDR],
			      tb[KVPERF_A_SERVER_PORT], "addr", "port", "%s");
	show_string(p, tb[KVPERF_A_SERVER_DEV], "dev", "dev %s");
	if (conn && tb[KVPERF_A_SERVER_CONN]) {
		/* attrs_parse_reply() checked the nest */
		attrs_parse(&attrs_conn, ctb, nla_data(tb[KVPERF_A_SERVER_CONN]),
			    nla_len(tb[KVPERF_A_SERVER_CONN]), NULL);
		show_endpoint(p, ctb[KVPERF_A_CONN_PEER_ADDR],
			      ctb[KVPERF_A_CONN_PEER_PORT], "peer_addr",
			      "peer_port", "peer %s");
		show_enum(p, ctb[KVPERF_A_CONN_OP], "op", "op %s", &fmt_op);
		show_uint(p, ctb[KVPERF_A_CONN_SIZE_MAX], "size_max",
			  "size_max %s");
		/* 0 when accepted: text says it once there is something */
		if (g->cmd == KVPERF_CMD_CONN_CLOSED_NTF)
			show_uint(p, ctb[KVPERF_A_CONN_ITERATIONS],
				  "iterations", "iterations %s");
	}
	pr_obj_close(p);
	pr_finish(p);
	return 0;
}

/**
 * monitor_shows() - does the monitor print this event?
 * @nlh: the notification
 * @progress: "monitor progress" was asked for
 *
 * Return: false for a run's progress unless @progress: a run reports it
 * about once a second, or every interval, and a log of events is not the
 * place for it unless asked.
 */
bool monitor_shows(const struct nlmsghdr *nlh, bool progress)
{
	const struct genlmsghdr *g = nlmsg_data(nlh);

	return progress || nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) ||
	       g->cmd != KVPERF_CMD_RUN_PROGRESS_NTF;
}

/**
 * monitor_print_event() - print one event as a line of text or JSON
 * @p: a printer freshly set up for this event
 * @nlh: the notification
 * @err: where to report a malformed notification
 *
 * Text: "dev add 3: rxe2", "run 3 finished: done"; JSON:
 * {"event":"dev-add","ifindex":3,"ifname":"rxe2"}; run events as
 * run_print_event() prints them, listener and connection events as
 * monitor_print_server() does. Events this tool does not know are
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
	case KVPERF_CMD_SERVER_STARTED_NTF:
	case KVPERF_CMD_SERVER_STOPPED_NTF:
	case KVPERF_CMD_CONN_ACCEPTED_NTF:
	case KVPERF_CMD_CONN_CLOSED_NTF:
		return monitor_print_server(p, nlh, err);
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

/* What the event callback needs. */
struct monitor {
	struct kvperf *kv;
	bool progress;
};

static int monitor_event(struct nl_msg *msg, void *arg)
{
	struct monitor *m = arg;
	struct kvperf *kv = m->kv;
	struct printer p;

	if (!monitor_shows(nlmsg_hdr(msg), m->progress))
		return NL_OK;
	pr_init(&p, kv->out, kv->json, kv->pretty);
	monitor_print_event(&p, nlmsg_hdr(msg), kv->err);
	/* whoever reads us through a pipe wants each event as it happens */
	fflush(kv->out);
	return NL_OK;
}

static int monitor_loop(struct monitor *m, struct knl *nl, int sfd)
{
	struct kvperf *kv = m->kv;
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
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, monitor_event, m);

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
	struct monitor m = { .kv = kv };
	const char *w = args_next(a);
	struct knl nl;
	int ret, sfd;

	/* nothing, progress or help */
	if (w && args_matches(w, "progress"))
		m.progress = true;
	else if (w && !args_matches(w, "help"))
		return kvperf_usage(kv, "monitor",
				    "unexpected argument '%s' (want progress or help)",
				    w);
	ret = kvperf_no_more_args(kv, a, "monitor");
	if (ret)
		return ret;
	if (w && !m.progress) {
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
	ret = monitor_loop(&m, &nl, sfd);
	close(sfd);
out_close:
	knl_close(&nl);
	return ret;
}

static void monitor_help(FILE *f)
{
	fputs("Usage: kvperf [-j [-p]] monitor [progress]\n"
	      "       kvperf monitor help\n"
	      "\n"
	      "Print one line per kvperf event until interrupted (SIGINT or\n"
	      "SIGTERM, then exit status 0). Output is flushed after every\n"
	      "event. \"monitoring kvperf events\" goes to stderr once the\n"
	      "subscription is in place. A run's progress is shown only with\n"
	      "progress.\n"
	      "\n"
	      "Events:\n"
	      "  dev add INDEX: NAME         an RDMA device appeared\n"
	      "  dev del INDEX: NAME         an RDMA device went away\n"
	      "  server ID started: ADDR:PORT dev DEV\n"
	      "                              a listener started\n"
	      "  server ID stopped: ADDR:PORT dev DEV\n"
	      "                              a listener stopped (server stop,\n"
	      "                              its device went, module unload)\n"
	      "  server ID conn accepted: peer ADDR:PORT op OP size_max S\n"
	      "                              a client connected to it\n"
	      "  server ID conn closed: peer ADDR:PORT ... iterations N\n"
	      "                              that connection closed, having\n"
	      "                              served N iterations\n"
	      "  run ID finished: STATE      a run ended: done, failed (then\n"
	      "                              \": ERROR\") or stopped\n"
	      "  run ID progress N           with progress only: N iterations\n"
	      "                              done, about once a second while\n"
	      "                              the run runs; bandwidth runs add\n"
	      "                              size S, bytes B and the last\n"
	      "                              interval's interval-bytes,\n"
	      "                              interval-messages and interval-ns\n"
	      "                              (every interval when the run\n"
	      "                              asked for one)\n"
	      "\n"
	      "With -j, one JSON object per line:\n"
	      "  {\"event\":\"dev-add\",\"ifindex\":3,\"ifname\":\"rxe2\"}\n"
	      "  {\"event\":\"server-started\",\"id\":1,\"addr\":\"198.18.0.1\",\n"
	      "   \"port\":18515,\"dev\":\"rxe0\"}\n"
	      "  {\"event\":\"conn-closed\",\"id\":1,...,\"peer_addr\":\"198.18.0.2\",\n"
	      "   \"peer_port\":40112,\"op\":\"send\",\"size_max\":64,\"iterations\":1000}\n"
	      "  {\"event\":\"run-finished\",\"id\":3,\"state\":\"done\"}\n"
	      "  {\"event\":\"run-progress\",\"id\":3,\"progress\":5000}\n"
	      "\n"
	      "Examples:\n"
	      "  kvperf monitor\n"
	      "  kvperf monitor progress\n"
	      "  kvperf -j monitor > events.jsonl\n"
	      "  kvperf m\n", f);
}

const struct kvperf_cmd monitor_object = {
	.name = "monitor",
	.summary = "print device, server and run events as they happen",
	.run = monitor_run,
	.help = monitor_help,
};
