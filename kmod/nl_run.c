// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: the run-start, run-get, run-stop and run-delete commands, and
 * the run events.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/kvperf.h>
#include <linux/utsname.h>
#include <net/genetlink.h>

#include "compat.h"
#include "kvperf.h"
#include "proto.h"
#include "run.h"

#define KVPERF_DEFAULT_ITERATIONS	1000
#define KVPERF_DEFAULT_WARMUP		16
#define KVPERF_DEFAULT_TIMEOUT_MS	5000

static u32 kvperf_nl_u32(struct genl_info *info, int attr, u32 def)
{
	return info->attrs[attr] ? nla_get_u32(info->attrs[attr]) : def;
}

static int kvperf_nl_run_cfg(struct genl_info *info, struct kvperf_run_cfg *cfg)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **tb = info->attrs;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, KVPERF_A_RUN_OP)) {
		NL_SET_ERR_MSG_MOD(extack, "missing operation (send, write or read)");
		return -EINVAL;
	}
	if (GENL_REQ_ATTR_CHECK(info, KVPERF_A_RUN_ADDR)) {
		NL_SET_ERR_MSG_MOD(extack, "missing server address");
		return -EINVAL;
	}
	cfg->type = tb[KVPERF_A_RUN_TYPE] ? nla_get_u8(tb[KVPERF_A_RUN_TYPE]) :
					    KVPERF_RUN_TYPE_LAT;
	if (cfg->type != KVPERF_RUN_TYPE_LAT) {
		NL_SET_ERR_MSG_MOD(extack, "bandwidth runs are not implemented yet");
		NL_SET_BAD_ATTR(extack, tb[KVPERF_A_RUN_TYPE]);
		return -EOPNOTSUPP;
	}
	cfg->op = nla_get_u8(tb[KVPERF_A_RUN_OP]);
	err = kvperf_nl_parse_addr(tb[KVPERF_A_RUN_ADDR], tb[KVPERF_A_RUN_PORT],
				   &cfg->addr, extack);
	if (err)
		return err;

	cfg->size = kvperf_nl_u32(info, KVPERF_A_RUN_SIZE, 2);
	cfg->size_max = kvperf_nl_u32(info, KVPERF_A_RUN_SIZE_MAX, cfg->size);
	if (cfg->size_max < cfg->size) {
		NL_SET_ERR_MSG_MOD(extack, "size-max is smaller than size");
		NL_SET_BAD_ATTR(extack, tb[KVPERF_A_RUN_SIZE_MAX]);
		return -EINVAL;
	}
	if (tb[KVPERF_A_RUN_ITERATIONS] && tb[KVPERF_A_RUN_DURATION_MS]) {
		NL_SET_ERR_MSG_MOD(extack,
				   "iterations and duration-ms exclude each other");
		NL_SET_BAD_ATTR(extack, tb[KVPERF_A_RUN_DURATION_MS]);
		return -EINVAL;
	}
	cfg->duration_ms = kvperf_nl_u32(info, KVPERF_A_RUN_DURATION_MS, 0);
	cfg->iterations = kvperf_nl_u32(info, KVPERF_A_RUN_ITERATIONS,
					KVPERF_DEFAULT_ITERATIONS);
	cfg->warmup = kvperf_nl_u32(info, KVPERF_A_RUN_WARMUP,
				    KVPERF_DEFAULT_WARMUP);
	cfg->poll = tb[KVPERF_A_RUN_POLL] ? nla_get_u8(tb[KVPERF_A_RUN_POLL]) :
					    KVPERF_POLL_BUSY;
	cfg->inline_size = kvperf_nl_u32(info, KVPERF_A_RUN_INLINE, 0);
	if (cfg->inline_size && cfg->op == KVPERF_OP_READ) {
		NL_SET_ERR_MSG_MOD(extack, "inline applies to send and write only");
		NL_SET_BAD_ATTR(extack, tb[KVPERF_A_RUN_INLINE]);
		return -EINVAL;
	}
	cfg->verify = nla_get_flag(tb[KVPERF_A_RUN_VERIFY]);
	cfg->timeout_ms = kvperf_nl_u32(info, KVPERF_A_RUN_TIMEOUT_MS,
					KVPERF_DEFAULT_TIMEOUT_MS);
	cfg->cpu = -1;
	if (tb[KVPERF_A_RUN_CPU]) {
		u32 cpu = nla_get_u32(tb[KVPERF_A_RUN_CPU]);

		if (cpu >= nr_cpu_ids || !cpu_online(cpu)) {
			NL_SET_ERR_MSG_MOD(extack, "that CPU is not online");
			NL_SET_BAD_ATTR(extack, tb[KVPERF_A_RUN_CPU]);
			return -EINVAL;
		}
		cfg->cpu = cpu;
	}
	return 0;
}

/**
 * kvperf_nl_run_start_doit() - run-start: start a run
 * @skb: the request
 * @info: its attributes and extack
 *
 * Return: 0 or a negative errno, with an extack message.
 */
int kvperf_nl_run_start_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kvperf_run_cfg cfg = {};
	struct sk_buff *msg;
	void *hdr;
	u32 id;
	int err;

	err = kvperf_nl_run_cfg(info, &cfg);
	if (err)
		return err;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &kvperf_nl_family, 0,
				KVPERF_CMD_RUN_START);
	if (!hdr) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	err = kvperf_run_start(&cfg, info->extack, &id);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	if (nla_put_u32(msg, KVPERF_A_RUN_ID, id)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int kvperf_fill_result(struct sk_buff *skb,
			      const struct kvperf_result *res)
{
	const struct kvperf_stats *st = &res->stats;
	struct nlattr *nest;

	nest = nla_nest_start(skb, KVPERF_A_RUN_RESULT);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, KVPERF_A_RESULT_SIZE, res->size) ||
	    nla_put_u64_64bit(skb, KVPERF_A_RESULT_ITERATIONS, st->count,
			      KVPERF_A_RESULT_PAD) ||
	    nla_put_u64_64bit(skb, KVPERF_A_RESULT_MIN_NS, st->min_ns,
			      KVPERF_A_RESULT_PAD) ||
	    nla_put_u64_64bit(skb, KVPERF_A_RESULT_MAX_NS, st->max_ns,
			      KVPERF_A_RESULT_PAD) ||
	    nla_put_u64_64bit(skb, KVPERF_A_RESULT_MEAN_PS, st->mean_ps,
			      KVPERF_A_RESULT_PAD) ||
	    nla_put_u64_64bit(skb, KVPERF_A_RESULT_STDEV_PS, st->stdev_ps,
			      KVPERF_A_RESULT_PAD) ||
	    nla_put_u64_64bit(skb, KVPERF_A_RESULT_P50_NS, st->p50_ns,
			      KVPERF_A_RESULT_PAD) ||
	    nla_put_u64_64bit(skb, KVPERF_A_RESULT_P90_NS, st->p90_ns,
			      KVPERF_A_RESULT_PAD) ||
	    nla_put_u64_64bit(skb, KVPERF_A_RESULT_P99_NS, st->p99_ns,
			      KVPERF_A_RESULT_PAD) ||
	    nla_put_u64_64bit(skb, KVPERF_A_RESULT_P999_NS, st->p999_ns,
			      KVPERF_A_RESULT_PAD) ||
	    nla_put_u64_64bit(skb, KVPERF_A_RESULT_P9999_NS, st->p9999_ns,
			      KVPERF_A_RESULT_PAD) ||
	    nla_put_u64_64bit(skb, KVPERF_A_RESULT_MISMATCHES, res->mismatches,
			      KVPERF_A_RESULT_PAD) ||
	    nla_put_u32(skb, KVPERF_A_RESULT_HIST_REL_ERR_PPM, st->rel_err_ppm) ||
	    nla_put_u64_64bit(skb, KVPERF_A_RESULT_ELAPSED_NS, res->elapsed_ns,
			      KVPERF_A_RESULT_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int kvperf_fill_run_cfg(struct sk_buff *skb, const struct kvperf_run *run)
{
	const struct kvperf_run_cfg *cfg = &run->cfg;

	if (nla_put_u8(skb, KVPERF_A_RUN_TYPE, cfg->type) ||
	    nla_put_u8(skb, KVPERF_A_RUN_OP, cfg->op) ||
	    kvperf_nl_put_addr(skb, KVPERF_A_RUN_ADDR, KVPERF_A_RUN_PORT,
			       &cfg->addr) ||
	    nla_put_u32(skb, KVPERF_A_RUN_SIZE, cfg->size) ||
	    nla_put_u32(skb, KVPERF_A_RUN_SIZE_MAX, cfg->size_max) ||
	    (cfg->duration_ms ?
	     nla_put_u32(skb, KVPERF_A_RUN_DURATION_MS, cfg->duration_ms) :
	     nla_put_u32(skb, KVPERF_A_RUN_ITERATIONS, cfg->iterations)) ||
	    nla_put_u32(skb, KVPERF_A_RUN_WARMUP, cfg->warmup) ||
	    nla_put_u8(skb, KVPERF_A_RUN_POLL, cfg->poll) ||
	    nla_put_u32(skb, KVPERF_A_RUN_INLINE, cfg->inline_size) ||
	    (cfg->verify && nla_put_flag(skb, KVPERF_A_RUN_VERIFY)) ||
	    (cfg->cpu >= 0 && nla_put_u32(skb, KVPERF_A_RUN_CPU, cfg->cpu)) ||
	    nla_put_u32(skb, KVPERF_A_RUN_TIMEOUT_MS, cfg->timeout_ms))
		return -EMSGSIZE;
	return 0;
}

static int kvperf_fill_run(struct sk_buff *skb, struct kvperf_run *run,
			   u32 portid, u32 seq, int flags, u8 cmd)
{
	void *hdr;
	u32 i;

	hdr = genlmsg_put(skb, portid, seq, &kvperf_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;

	mutex_lock(&run->lock);
	if (nla_put_u32(skb, KVPERF_A_RUN_ID, run->id) ||
	    kvperf_fill_run_cfg(skb, run) ||
	    nla_put_u8(skb, KVPERF_A_RUN_STATE, run->state) ||
	    (run->error[0] &&
	     nla_put_string(skb, KVPERF_A_RUN_ERROR, run->error)) ||
	    (run->dev[0] && nla_put_string(skb, KVPERF_A_RUN_DEV, run->dev)) ||
	    nla_put_string(skb, KVPERF_A_RUN_KERNEL, init_utsname()->release) ||
	    (run->mtu && nla_put_u32(skb, KVPERF_A_RUN_MTU, run->mtu)) ||
	    nla_put_u64_64bit(skb, KVPERF_A_RUN_PROGRESS,
			      atomic64_read(&run->progress), KVPERF_A_RUN_PAD))
		goto err;
	for (i = 0; i < run->ndone; i++)
		if (kvperf_fill_result(skb, &run->results[i]))
			goto err;
	mutex_unlock(&run->lock);
	genlmsg_end(skb, hdr);
	return 0;

err:
	mutex_unlock(&run->lock);
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static size_t kvperf_run_msg_size(const struct kvperf_run *run)
{
	return NLMSG_GOODSIZE + 256 * run->nresults;
}

static struct kvperf_run *kvperf_nl_run_lookup(struct genl_info *info)
{
	struct kvperf_run *run;

	if (GENL_REQ_ATTR_CHECK(info, KVPERF_A_RUN_ID)) {
		NL_SET_ERR_MSG_MOD(info->extack, "missing run id");
		return NULL;
	}
	run = kvperf_run_get(nla_get_u32(info->attrs[KVPERF_A_RUN_ID]));
	if (!run) {
		NL_SET_ERR_MSG_MOD(info->extack, "no run with that id");
		NL_SET_BAD_ATTR(info->extack, info->attrs[KVPERF_A_RUN_ID]);
	}
	return run;
}

/**
 * kvperf_nl_run_get_doit() - run-get do: one run
 * @skb: the request
 * @info: its attributes and extack
 *
 * Return: 0 or a negative errno, with an extack message.
 */
int kvperf_nl_run_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kvperf_run *run = kvperf_nl_run_lookup(info);
	struct sk_buff *msg;
	int err;

	if (!run)
		return info->attrs[KVPERF_A_RUN_ID] ? -ENOENT : -EINVAL;
	msg = genlmsg_new(kvperf_run_msg_size(run), GFP_KERNEL);
	if (!msg) {
		kvperf_run_put(run);
		return -ENOMEM;
	}
	err = kvperf_fill_run(msg, run, info->snd_portid, info->snd_seq, 0,
			      KVPERF_CMD_RUN_GET);
	kvperf_run_put(run);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/**
 * kvperf_nl_run_get_dumpit() - run-get dump: every run
 * @skb: the message being filled
 * @cb: dump state; args[0] is the next run id to send
 *
 * Return: the message length, or a negative errno.
 */
int kvperf_nl_run_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct kvperf_run *run;
	u32 id = cb->args[0] ? cb->args[0] : 1;
	int err = 0;

	while ((run = kvperf_run_next(&id))) {
		err = kvperf_fill_run(skb, run, NETLINK_CB(cb->skb).portid,
				      cb->nlh->nlmsg_seq, NLM_F_MULTI,
				      KVPERF_CMD_RUN_GET);
		kvperf_run_put(run);
		if (err)
			break;
		id++;
	}
	cb->args[0] = id;
	if (err && !skb->len)
		return err;
	return skb->len;
}

/**
 * kvperf_nl_run_stop_doit() - run-stop: stop a run
 * @skb: the request
 * @info: its attributes and extack
 *
 * Return: 0 or a negative errno, with an extack message.
 */
int kvperf_nl_run_stop_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kvperf_run *run = kvperf_nl_run_lookup(info);

	if (!run)
		return info->attrs[KVPERF_A_RUN_ID] ? -ENOENT : -EINVAL;
	kvperf_run_put(run);
	return kvperf_run_stop(nla_get_u32(info->attrs[KVPERF_A_RUN_ID]));
}

/**
 * kvperf_nl_run_delete_doit() - run-delete: delete a run
 * @skb: the request
 * @info: its attributes and extack
 *
 * Return: 0 or a negative errno, with an extack message.
 */
int kvperf_nl_run_delete_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kvperf_run *run = kvperf_nl_run_lookup(info);

	if (!run)
		return info->attrs[KVPERF_A_RUN_ID] ? -ENOENT : -EINVAL;
	kvperf_run_put(run);
	if (kvperf_run_delete(nla_get_u32(info->attrs[KVPERF_A_RUN_ID]))) {
		NL_SET_ERR_MSG_MOD(info->extack, "no run with that id");
		return -ENOENT;
	}
	return 0;
}

/**
 * kvperf_nl_run_finished() - announce that a run ended
 * @run: the run
 */
void kvperf_nl_run_finished(struct kvperf_run *run)
{
	struct sk_buff *skb;

	skb = kvperf_nl_event_alloc(kvperf_run_msg_size(run));
	if (!skb)
		return;
	if (kvperf_fill_run(skb, run, 0, 0, 0, KVPERF_CMD_RUN_FINISHED_NTF)) {
		nlmsg_free(skb);
		return;
	}
	kvperf_nl_notify(skb);
}

/**
 * kvperf_nl_run_progress() - report a running run's progress
 * @run: the run
 */
void kvperf_nl_run_progress(struct kvperf_run *run)
{
	struct sk_buff *skb;
	void *hdr;

	skb = kvperf_nl_event_alloc(NLMSG_GOODSIZE);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &kvperf_nl_family, 0,
			  KVPERF_CMD_RUN_PROGRESS_NTF);
	if (!hdr || nla_put_u32(skb, KVPERF_A_RUN_ID, run->id) ||
	    nla_put_u8(skb, KVPERF_A_RUN_STATE, READ_ONCE(run->state)) ||
	    nla_put_u64_64bit(skb, KVPERF_A_RUN_PROGRESS,
			      atomic64_read(&run->progress), KVPERF_A_RUN_PAD)) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	kvperf_nl_notify(skb);
}
