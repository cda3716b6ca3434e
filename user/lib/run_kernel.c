// SPDX-License-Identifier: GPL-2.0
/*
 * Runs on the kernel path, through the module's netlink family: start a
 * run from its configuration, wait for its end while its events arrive,
 * stop and delete it. Nothing here prints but errors; what progress
 * looks like is the caller's (struct run_wait's callbacks).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <linux/kvperf.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "attrs.h"
#include "kvperf.h"
#include "nl.h"
#include "run_cfg.h"
#include "run_kernel.h"
#include "run_model.h"

/* How often a wait asks for the run's state: events get lost. */
#define RUN_CHECK_MS	2000
/* What a wait reads of the events queued when a run-get saw the end. */
#define RUN_LATE_READS	64

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The run's id and state, from a message whose attributes are valid. */
static int run_peek(const struct nlmsghdr *nlh, struct nlattr **tb,
		    FILE *err)
{
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct attr_error aerr;

	if (!genlmsg_valid_hdr((struct nlmsghdr *)nlh, 0)) {
		fprintf(err, "kvperf: malformed message from the kernel: too short\n");
		return -EINVAL;
	}
	if (attrs_parse(&attrs_run, tb, genlmsg_attrdata(g, 0),
			genlmsg_attrlen(g, 0), &aerr)) {
		attrs_report(err, &aerr);
		return -EINVAL;
	}
	return 0;
}

static bool run_ended(struct nlattr **tb)
{
	uint64_t state;

	if (!tb[KVPERF_A_RUN_STATE])
		return false;
	state = attr_uint(tb[KVPERF_A_RUN_STATE]);
	return state == KVPERF_RUN_STATE_DONE ||
	       state == KVPERF_RUN_STATE_FAILED ||
	       state == KVPERF_RUN_STATE_STOPPED;
}

static int run_keep(struct run_wait *w, const struct nlmsghdr *nlh)
{
	w->final = malloc(nlh->nlmsg_len);
	if (!w->final) {
		fprintf(w->err, "kvperf: out of memory\n");
		return -ENOMEM;
	}
	memcpy(w->final, nlh, nlh->nlmsg_len);
	return 1;
}


/**
 * run_wait_event() - look at an event while waiting for a run
 * @w: the wait, @w->id the run
 * @nlh: a message from the events group
 *
 * The run-finished event of the run ends the wait: @w->final gets a copy
 * of it, unless a run-get's reply is there already. Its progress events go
 * to @w->progress, when set, also those read after that reply (they were
 * sent before the run ended). Everything else (other runs, devices,
 * malformed events) is ignored.
 *
 * Return: 1 when the run ended, 0 to go on waiting, -ENOMEM.
 */
int run_wait_event(struct run_wait *w, const struct nlmsghdr *nlh)
{
	struct nlattr *tb[KVPERF_A_RUN_MAX + 1];
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct kv_run ev;

	if (!genlmsg_valid_hdr((struct nlmsghdr *)nlh, 0) ||
	    (g->cmd != KVPERF_CMD_RUN_FINISHED_NTF &&
	     g->cmd != KVPERF_CMD_RUN_PROGRESS_NTF))
		return 0;
	if (run_peek(nlh, tb, w->err) || !tb[KVPERF_A_RUN_ID] ||
	    attr_uint(tb[KVPERF_A_RUN_ID]) != w->id)
		return 0;
	/* after a run-get that found it ended: only the late progress */
	if (g->cmd == KVPERF_CMD_RUN_FINISHED_NTF)
		return w->final ? 1 : run_keep(w, nlh);
	/* a progress event has no results: nothing to free */
	if (run_model_decode(&ev, nlh, w->err))
		return 0;
	if (w->progress)
		w->progress(w->arg, &ev);
	run_model_free(&ev);
	return 0;
}

/**
 * run_wait_reply() - look at the reply of the run-get that checks on a run
 * @w: the wait
 * @nlh: the reply
 *
 * A run that ended ends the wait as its run-finished event would have:
 * the event may have been lost when the socket's buffer overflowed.
 *
 * Return: 1 when the run ended, 0 to go on waiting, -EINVAL after
 * reporting a malformed reply, -ENOMEM.
 */
int run_wait_reply(struct run_wait *w, const struct nlmsghdr *nlh)
{
	struct nlattr *tb[KVPERF_A_RUN_MAX + 1];

	if (run_peek(nlh, tb, w->err))
		return -EINVAL;
	return run_ended(tb) ? run_keep(w, nlh) : 0;
}

static int wait_event_cb(struct nl_msg *msg, void *arg)
{
	struct run_wait *w = arg;

	return run_wait_event(w, nlmsg_hdr(msg)) < 0 ? NL_STOP : NL_OK;
}

static int wait_reply_cb(const struct nlmsghdr *nlh, void *arg)
{
	return run_wait_reply(arg, nlh) < 0 ? -EINVAL : 0;
}

/*
 * The socket for the events, apart from the one for requests: an event
 * arriving among the replies to a request would break the request.
 */
/**
 * run_events_open() - a socket for the events of runs
 * @kv: the invocation
 * @ev: receives the socket, subscribed to the events group, non-blocking
 * @family: the kvperf family's id
 *
 * Return: KVPERF_EXIT_OK, or KVPERF_EXIT_ERROR after saying why.
 */
int run_events_open(struct kvperf *kv, struct knl *ev, int family)
{
	int ret;

	ev->family = family;
	ev->sk = nl_socket_alloc();
	if (!ev->sk) {
		kvperf_errorf(kv, "out of memory");
		return KVPERF_EXIT_ERROR;
	}
	ret = genl_connect(ev->sk);
	if (ret < 0) {
		kvperf_errorf(kv, "cannot open a generic netlink socket: %s",
			      nl_geterror(ret));
		goto err;
	}
	/* a run-finished event of a sweep is larger than a page */
	nl_socket_enable_msg_peek(ev->sk);
	nl_socket_set_buffer_size(ev->sk, 1 << 20, 0);
	ret = knl_subscribe(kv, ev, KVPERF_MCGRP_EVENTS);
	if (ret)
		goto err;
	/* events are not replies to anything we sent */
	nl_socket_disable_seq_check(ev->sk);
	if (nl_socket_set_nonblocking(ev->sk) < 0) {
		kvperf_errorf(kv, "cannot make the socket non-blocking");
		goto err;
	}
	return KVPERF_EXIT_OK;
err:
	knl_close(ev);
	return KVPERF_EXIT_ERROR;
}

/* Read the events that are there; ask for the state if some were lost. */
static int run_drain_events(struct kvperf *kv, struct knl *ev,
			    struct nl_cb *cb, struct run_wait *w, bool *check)
{
	int err;

	do {
		err = nl_recvmsgs(ev->sk, cb);
	} while (err >= 0 && !w->final);
	if (w->final || err == -NLE_AGAIN)
		return KVPERF_EXIT_OK;
	if (err == -NLE_NOMEM) {
		/* ENOBUFS: the run-finished event may be among the lost */
		*check = true;
		return KVPERF_EXIT_OK;
	}
	kvperf_errorf(kv, "cannot receive events: %s", nl_geterror(err));
	return KVPERF_EXIT_ERROR;
}

/*
 * A run-get found the run ended: its progress events still queued came
 * before its end (an interval's line, say); show them before its result.
 * Other runs' events may keep coming: a bounded number of reads.
 */
static void run_drain_late_events(struct knl *ev, struct nl_cb *cb)
{
	int i;

	for (i = 0; i < RUN_LATE_READS; i++)
		if (nl_recvmsgs(ev->sk, cb) < 0)
			break;
}

/**
 * run_wait_loop() - wait for a run to end
 * @kv: the invocation
 * @nl: the connection for requests
 * @ev: the connection subscribed to the events group, non-blocking
 * @sfd: readable when SIGINT or SIGTERM arrived (a signalfd)
 * @w: the wait: the run's id, and @w->final once it ended
 *
 * The run ends with its run-finished event, or with a run-get every
 * @w->check_ms that finds it ended: an event can be lost when the socket's
 * buffer overflows, and then the run-get is sent at once. The first signal
 * stops the run, which then ends as stopped with what it measured; a
 * second one gives up waiting.
 *
 * Return: KVPERF_EXIT_OK with @w->final set, or KVPERF_EXIT_ERROR after
 * printing why.
 */
int run_wait_loop(struct kvperf *kv, struct knl *nl, struct knl *ev,
		  int sfd, struct run_wait *w)
{
	struct pollfd fds[2] = {
		{ .fd = nl_socket_get_fd(ev->sk), .events = POLLIN },
		{ .fd = sfd, .events = POLLIN },
	};
	int64_t next = now_ms() + w->check_ms, left;
	struct signalfd_siginfo si;
	bool check = false, stopping = false;
	struct nl_cb *cb;
	int ret = KVPERF_EXIT_OK;

	cb = knl_event_cb(kv);
	if (!cb)
		return KVPERF_EXIT_ERROR;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, wait_event_cb, w);

	while (!w->final && !ret) {
		fds[0].revents = 0;
		fds[1].revents = 0;
		left = next - now_ms();
		if (!check && left > 0 &&
		    poll(fds, 2, left > w->check_ms ? w->check_ms : left) < 0) {
			if (errno == EINTR)
				continue;
			kvperf_errorf(kv, "poll: %s", strerror(errno));
			ret = KVPERF_EXIT_ERROR;
			break;
		}
		if (fds[1].revents & POLLIN) {
			/* consume it: SIGINT and SIGTERM mean the same */
			if (read(sfd, &si, sizeof(si)) < 0)
				kvperf_errorf(kv, "cannot read the signal: %s",
					      strerror(errno));
			if (stopping) {
				kvperf_errorf(kv, "not waiting for run %u any longer; see 'kvperf run show %u'",
					      w->id, w->id);
				ret = KVPERF_EXIT_ERROR;
				break;
			}
			stopping = true;
			if (w->quiet)
				w->quiet(w->arg);
			fprintf(kv->err, "kvperf: stopping run %u\n", w->id);
			/* a run that just ended cannot be stopped: wait on */
			knl_request_id(kv, nl, KVPERF_CMD_RUN_STOP, &attrs_run,
					KVPERF_A_RUN_ID, w->id, NULL, NULL);
		}
		if (fds[0].revents) {
			ret = run_drain_events(kv, ev, cb, w, &check);
			if (ret || w->final)
				break;
		}
		if (check || now_ms() >= next) {
			check = false;
			next = now_ms() + w->check_ms;
			ret = knl_request_id(kv, nl, KVPERF_CMD_RUN_GET,
					      &attrs_run, KVPERF_A_RUN_ID,
					      w->id, wait_reply_cb, w);
			if (!ret && w->final)
				run_drain_late_events(ev, cb);
		}
	}
	nl_cb_put(cb);
	if (w->quiet)
		w->quiet(w->arg);
	return ret;
}


/**
 * run_kernel_start() - start a run in the module
 * @kv: the invocation
 * @nl: the connection for requests
 * @cfg: what the run is to do
 * @id: receives the run's id
 *
 * Return: KVPERF_EXIT_OK, or an exit code after saying why (the kernel's
 * refusal with its reason).
 */
int run_kernel_start(struct kvperf *kv, struct knl *nl,
		     const struct kv_run_cfg *cfg, uint32_t *id)
{
	struct knl_reply_id r = {
		.set = &attrs_run, .attr = KVPERF_A_RUN_ID, .err = kv->err,
	};
	struct nl_msg *msg;
	int ret;

	msg = knl_msg(kv, nl, KVPERF_CMD_RUN_START, 0);
	if (!msg)
		return KVPERF_EXIT_ERROR;
	if (run_cfg_put(msg, cfg)) {
		nlmsg_free(msg);
		kvperf_errorf(kv, "out of memory");
		return KVPERF_EXIT_ERROR;
	}
	ret = knl_request(kv, nl, msg, &attrs_run, knl_get_id, &r);
	if (ret)
		return ret;
	if (!r.found) {
		kvperf_errorf(kv, "the kernel did not say the run's id");
		return KVPERF_EXIT_ERROR;
	}
	*id = r.id;
	return KVPERF_EXIT_OK;
}

/**
 * run_kernel_delete() - delete a run, stopping it first if it runs
 * @kv: the invocation
 * @id: the run
 *
 * Return: KVPERF_EXIT_OK, or an exit code after saying why.
 */
int run_kernel_delete(struct kvperf *kv, uint32_t id)
{
	struct knl nl;
	int ret;

	ret = knl_open(kv, &nl);
	if (ret)
		return ret;
	ret = knl_request_id(kv, &nl, KVPERF_CMD_RUN_DELETE, &attrs_run,
			      KVPERF_A_RUN_ID, id, NULL, NULL);
	knl_close(&nl);
	return ret;
}

/**
 * run_kernel_exec() - start a run in the module and wait for its end
 * @kv: the invocation
 * @cfg: what the run is to do
 * @sfd: readable when the run is to stop (a signalfd), or -1
 * @w: the wait's callbacks, @w->id and @w->final are set here
 * @out: the run once it ended, with its id; run_model_free() it
 *
 * The run stays in the module: run_kernel_delete() it.
 *
 * Return: KVPERF_EXIT_OK with @out set, or an exit code after saying why.
 */
int run_kernel_exec(struct kvperf *kv, const struct kv_run_cfg *cfg,
		    int sfd, struct run_wait *w, struct kv_run *out)
{
	struct knl nl, ev = { 0 };
	int ret, dec;

	memset(out, 0, sizeof(*out));
	ret = knl_open(kv, &nl);
	if (ret)
		return ret;
	/* listen before starting: the run may end before the reply is read */
	ret = run_events_open(kv, &ev, nl.family);
	if (!ret)
		ret = run_kernel_start(kv, &nl, cfg, &w->id);
	if (!ret) {
		w->final = NULL;
		if (!w->err)
			w->err = kv->err;
		if (!w->check_ms)
			w->check_ms = RUN_CHECK_MS;
		ret = run_wait_loop(kv, &nl, &ev, sfd, w);
	}
	if (!ret) {
		dec = run_model_decode(out, w->final, kv->err);
		if (dec == -ENOMEM)
			kvperf_errorf(kv, "out of memory");
		if (dec)
			ret = KVPERF_EXIT_ERROR;
	}
	free(w->final);
	w->final = NULL;
	if (ev.sk)
		knl_close(&ev);
	knl_close(&nl);
	return ret;
}
