// SPDX-License-Identifier: GPL-2.0
/*
 * libnl-genl plumbing: socket setup with extended ACKs, family lookup,
 * request/dump with error reporting, multicast group membership.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/kvperf.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>
#include <netlink/genl/genl.h>

#include "attrs.h"
#include "extack.h"
#include "kvperf.h"
#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

/**
 * knl_open() - connect to the kvperf generic netlink family
 * @kv: the invocation, for error messages
 * @nl: filled in on success; knl_close() it
 *
 * Return: an exit code: KVPERF_EXIT_OK, KVPERF_EXIT_NOMODULE if the family
 * is not registered, KVPERF_EXIT_ERROR otherwise; the error is printed.
 */
int knl_open(struct kvperf *kv, struct knl *nl)
{
	struct genl_family *fam;
	struct nl_cache *cache;
	unsigned int version;
	int one = 1, err, fd;

	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		kvperf_errorf(kv, "out of memory");
		return KVPERF_EXIT_ERROR;
	}
	err = genl_connect(nl->sk);
	if (err < 0) {
		kvperf_errorf(kv, "cannot open a generic netlink socket: %s",
			      nl_geterror(err));
		goto err_free;
	}

	/*
	 * Ask for the kernel's reason with every error, and no copy of our
	 * request in it. Kernels too old for either still answer, without
	 * the message, so failures here are not fatal.
	 */
	fd = nl_socket_get_fd(nl->sk);
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	/* a device with many GIDs can exceed libnl's default buffer */
	nl_socket_enable_msg_peek(nl->sk);

	err = genl_ctrl_alloc_cache(nl->sk, &cache);
	if (err < 0) {
		kvperf_errorf(kv, "cannot list generic netlink families: %s",
			      nl_geterror(err));
		goto err_free;
	}
	fam = genl_ctrl_search_by_name(cache, KVPERF_FAMILY_NAME);
	nl_cache_free(cache);
	if (!fam) {
		kvperf_errorf(kv, "the kvperf module is not loaded (try: sudo modprobe kvperf, or insmod kmod/kvperf.ko)");
		nl_socket_free(nl->sk);
		nl->sk = NULL;
		return KVPERF_EXIT_NOMODULE;
	}
	nl->family = genl_family_get_id(fam);
	version = genl_family_get_version(fam);
	genl_family_put(fam);

	if (version != KVPERF_FAMILY_VERSION)
		fprintf(kv->err,
			"kvperf: warning: the module speaks kvperf family version %u, this tool was built for version %d\n",
			version, KVPERF_FAMILY_VERSION);
	return KVPERF_EXIT_OK;

err_free:
	nl_socket_free(nl->sk);
	nl->sk = NULL;
	return KVPERF_EXIT_ERROR;
}

/** knl_close() - close what knl_open() opened */
void knl_close(struct knl *nl)
{
	nl_socket_free(nl->sk);
	nl->sk = NULL;
}

/**
 * knl_msg() - start a request of the kvperf family
 * @kv: the invocation, for error messages
 * @nl: the connection
 * @cmd: a KVPERF_CMD_*
 * @flags: extra netlink flags, e.g. NLM_F_DUMP
 *
 * Return: the message, to fill in with attributes and pass to
 * knl_request(), or NULL after printing an error.
 */
struct nl_msg *knl_msg(struct kvperf *kv, struct knl *nl, uint8_t cmd,
		       int flags)
{
	struct nl_msg *msg;

	msg = nlmsg_alloc();
	if (!msg)
		goto err;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, flags,
			 cmd, KVPERF_FAMILY_VERSION)) {
		nlmsg_free(msg);
		goto err;
	}
	return msg;
err:
	kvperf_errorf(kv, "out of memory");
	return NULL;
}

struct knl_req {
	struct kvperf *kv;
	const struct nlmsghdr *req;
	const struct attr_set *set;
	knl_reply_fn fn;
	void *arg;
	bool done;
	int status;
};

static int knl_valid(struct nl_msg *msg, void *arg)
{
	struct knl_req *r = arg;

	if (r->fn(nlmsg_hdr(msg), r->arg) < 0) {
		r->status = KVPERF_EXIT_ERROR;
		r->done = true;
		return NL_STOP;
	}
	return NL_OK;
}

/*
 * The end of a request: the ACK of a do, or NLMSG_DONE of a dump, which
 * carries the error of a dump that failed part-way. Success may come with
 * a message too, a warning.
 */
static int knl_end(struct nl_msg *msg, void *arg)
{
	struct knl_req *r = arg;
	struct extack ext;

	r->done = true;
	if (extack_parse(nlmsg_hdr(msg), &ext))
		return NL_STOP;
	if (ext.error < 0) {
		extack_report(r->kv->err, &ext, r->req, GENL_HDRLEN, r->set);
		r->status = KVPERF_EXIT_ERROR;
	} else if (ext.msg && ext.msg[0]) {
		fprintf(r->kv->err, "kvperf: warning from the kernel: %s\n",
			ext.msg);
	}
	return NL_STOP;
}

static int knl_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	/* libnl hands us the payload; the TLVs need the whole message */
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct knl_req *r = arg;
	struct extack ext;

	(void)nla;
	r->done = true;
	r->status = KVPERF_EXIT_ERROR;
	if (extack_parse(nlh, &ext))
		ext.error = e->error;
	extack_report(r->kv->err, &ext, r->req, GENL_HDRLEN, r->set);
	return NL_STOP;
}

/**
 * knl_request() - send a request and receive every reply to it
 * @kv: the invocation, for error messages
 * @nl: the connection
 * @msg: from knl_msg(); freed here
 * @set: the attribute set of @msg's attributes, to name the one the kernel
 *       refuses
 * @fn: called for each reply message
 * @arg: passed to @fn
 *
 * A do request ends with the kernel's ACK, a dump (NLM_F_DUMP) with
 * NLMSG_DONE. Errors, the kernel's included, are printed here.
 *
 * Return: KVPERF_EXIT_OK or KVPERF_EXIT_ERROR.
 */
int knl_request(struct kvperf *kv, struct knl *nl, struct nl_msg *msg,
		const struct attr_set *set, knl_reply_fn fn, void *arg)
{
	struct knl_req r = {
		.kv = kv,
		.req = nlmsg_hdr(msg),
		.set = set,
		.fn = fn,
		.arg = arg,
	};
	struct nl_cb *cb;
	int err;

	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		kvperf_errorf(kv, "out of memory");
		return KVPERF_EXIT_ERROR;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, knl_valid, &r);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, knl_end, &r);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, knl_end, &r);
	nl_cb_err(cb, NL_CB_CUSTOM, knl_error, &r);

	err = nl_send_auto(nl->sk, msg);
	if (err < 0) {
		kvperf_errorf(kv, "cannot send the request: %s",
			      nl_geterror(err));
		r.status = KVPERF_EXIT_ERROR;
		goto out;
	}
	while (!r.done) {
		err = nl_recvmsgs(nl->sk, cb);
		if (err < 0)
			break;
	}
	if (r.status)
		goto out;
	if (err == -NLE_DUMP_INTR) {
		kvperf_errorf(kv, "the list changed while it was read; try again");
		r.status = KVPERF_EXIT_ERROR;
	} else if (err < 0) {
		kvperf_errorf(kv, "cannot receive the reply: %s",
			      nl_geterror(err));
		r.status = KVPERF_EXIT_ERROR;
	}
out:
	nl_cb_put(cb);
	nlmsg_free(msg);
	return r.status;
}

/**
 * knl_subscribe() - join one of the family's multicast groups
 * @kv: the invocation, for error messages
 * @nl: the connection
 * @group: the group's name, e.g. KVPERF_MCGRP_EVENTS
 *
 * Return: KVPERF_EXIT_OK or KVPERF_EXIT_ERROR.
 */
int knl_subscribe(struct kvperf *kv, struct knl *nl, const char *group)
{
	int grp, err;

	grp = genl_ctrl_resolve_grp(nl->sk, KVPERF_FAMILY_NAME, group);
	if (grp < 0) {
		kvperf_errorf(kv, "the kvperf module has no \"%s\" multicast group: %s",
			      group, nl_geterror(grp));
		return KVPERF_EXIT_ERROR;
	}
	err = nl_socket_add_membership(nl->sk, grp);
	if (err < 0) {
		kvperf_errorf(kv, "cannot join multicast group \"%s\": %s",
			      group, nl_geterror(err));
		return KVPERF_EXIT_ERROR;
	}
	return KVPERF_EXIT_OK;
}

static int knl_any_seq(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

/**
 * knl_event_cb() - callbacks for receiving multicast events
 * @kv: the invocation, for error messages
 *
 * Events carry sequence number 0, not that of a request of ours. A
 * callback set of its own does not inherit nl_socket_disable_seq_check(),
 * so this one turns the check off itself; set NL_CB_VALID on it.
 *
 * Return: the callbacks, to nl_cb_put() after use, or NULL after printing
 * an error.
 */
struct nl_cb *knl_event_cb(struct kvperf *kv)
{
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);

	if (!cb) {
		kvperf_errorf(kv, "out of memory");
		return NULL;
	}
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, knl_any_seq, NULL);
	return cb;
}

/**
 * knl_get_id() - knl_reply_fn of a start command: read the new id
 * @nlh: the reply
 * @arg: a struct knl_reply_id
 *
 * Return: 0, or -EINVAL after reporting a malformed reply.
 */
int knl_get_id(const struct nlmsghdr *nlh, void *arg)
{
	struct knl_reply_id *r = arg;
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct attr_error aerr;
	struct nlattr **tb;
	int ret = -EINVAL;

	if (!genlmsg_valid_hdr((struct nlmsghdr *)nlh, 0)) {
		fprintf(r->err, "kvperf: malformed reply from the kernel: message too short\n");
		return -EINVAL;
	}
	tb = calloc(r->set->max + 1, sizeof(*tb));
	if (!tb) {
		fprintf(r->err, "kvperf: out of memory\n");
		return -ENOMEM;
	}
	if (attrs_parse(r->set, tb, genlmsg_attrdata(g, 0),
			genlmsg_attrlen(g, 0), &aerr)) {
		attrs_report(r->err, &aerr);
		goto out;
	}
	if (tb[r->attr]) {
		r->id = attr_uint(tb[r->attr]);
		r->found = true;
	}
	ret = 0;
out:
	free(tb);
	return ret;
}

/**
 * knl_id_msg() - a get or do request for one object, or a dump of all
 * @kv: the invocation
 * @nl: the connection
 * @cmd: the request
 * @id_attr: the id attribute of its set
 * @id: the object's id; NULL for a dump
 *
 * Return: the message, or NULL after printing an error.
 */
struct nl_msg *knl_id_msg(struct kvperf *kv, struct knl *nl, uint8_t cmd,
			  int id_attr, const uint32_t *id)
{
	struct nl_msg *msg;

	msg = knl_msg(kv, nl, cmd, id ? 0 : NLM_F_DUMP);
	if (msg && id && nla_put_u32(msg, id_attr, *id) < 0) {
		nlmsg_free(msg);
		kvperf_errorf(kv, "out of memory");
		return NULL;
	}
	return msg;
}

static int no_reply(const struct nlmsghdr *nlh, void *arg)
{
	(void)nlh;
	(void)arg;
	return 0;
}

/**
 * knl_request_id() - a do request that names one object, on an open
 * connection
 * @kv: the invocation
 * @nl: the connection
 * @cmd: the request, e.g. KVPERF_CMD_RUN_GET
 * @set: its attribute set
 * @id_attr: the id attribute in @set
 * @id: the object's id
 * @fn: called for the reply, if any; NULL when none is expected
 * @arg: passed to @fn
 *
 * Return: KVPERF_EXIT_OK or KVPERF_EXIT_ERROR, the error printed.
 */
int knl_request_id(struct kvperf *kv, struct knl *nl, uint8_t cmd,
		    const struct attr_set *set, int id_attr, uint32_t id,
		    int (*fn)(const struct nlmsghdr *nlh, void *arg),
		    void *arg)
{
	struct nl_msg *msg = knl_id_msg(kv, nl, cmd, id_attr, &id);

	if (!msg)
		return KVPERF_EXIT_ERROR;
	return knl_request(kv, nl, msg, set, fn ? fn : no_reply, arg);
}
