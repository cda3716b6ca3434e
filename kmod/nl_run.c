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
#include "nl.h"
#include "proto.h"
#include "run.h"
#include "run_events.h"
#include "timeout.h"

static u32 kvperf_nl_u32(struct genl_info *info, int attr, u32 def)
{
	return info->attrs[attr] ? nla_get_u32(info->attrs[attr]) : def;
}

/* Refuse a request for one of its attributes; @msg is a literal. */
#define kvperf_nl_refuse(info, attr, msg)				\
({									\
	struct genl_info *__info = (info);				\
									\
	NL_SET_ERR_MSG_MOD(__info->extack, msg);			\
	NL_SET_BAD_ATTR(__info->extack, __info->attrs[attr]);		\
	-EINVAL;							\
})

/*
 * Attributes that only bandwidth runs take (I/O runs take their queue
 * pairs, CPUs and interval too).
 */
static const int kvperf_bw_only[] = {
	KVPERF_A_RUN_TX_DEPTH, KVPERF_A_RUN_QPS, KVPERF_A_RUN_CPUS,
	KVPERF_A_RUN_POST_LIST, KVPERF_A_RUN_SIGNAL_EVERY, KVPERF_A_RUN_BIDIR,
	KVPERF_A_RUN_INTERVAL_MS,
};

/* Whether an I/O run takes one of kvperf_bw_only[]. */
static bool kvperf_io_takes(int attr)
{
	return attr == KVPERF_A_RUN_QPS || attr == KVPERF_A_RUN_CPUS ||
	       attr == KVPERF_A_RUN_INTERVAL_MS;
}

/* Attributes that only I/O runs take. */
static const int kvperf_io_only[] = {
	KVPERF_A_RUN_QD, KVPERF_A_RUN_INV, KVPERF_A_RUN_SEGMENTS,
	KVPERF_A_RUN_READ_PCT, KVPERF_A_RUN_REG, KVPERF_A_RUN_INLINE_DATA,
	KVPERF_A_RUN_BSS,
};

/* Attributes I/O runs refuse, besides the bandwidth runs' own. */
static const int kvperf_io_refuses[] = {
	KVPERF_A_RUN_SIZE_MAX, KVPERF_A_RUN_INLINE,
};

/*
 * The CPU list, when given: online CPUs, at most one thread per queue pair
 * (queue), and not with cpu.
 */
static int kvperf_nl_run_cpus(struct genl_info *info,
			      struct kvperf_run_cfg *cfg)
{
	cpumask_var_t mask;
	int cpu, err = 0;

	if (!info->attrs[KVPERF_A_RUN_CPUS])
		return 0;
	if (info->attrs[KVPERF_A_RUN_CPU])
		return kvperf_nl_refuse(info, KVPERF_A_RUN_CPUS,
					"cpu and cpus exclude each other");
	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	nla_strscpy(cfg->cpulist, info->attrs[KVPERF_A_RUN_CPUS],
		    sizeof(cfg->cpulist));
	err = cpulist_parse(cfg->cpulist, mask);
	if ((err && err != -ERANGE) || (!err && cpumask_empty(mask))) {
		err = kvperf_nl_refuse(info, KVPERF_A_RUN_CPUS,
				       "cpus is not a CPU list such as 0-3,6");
		goto out;
	}
	/* -ERANGE: a CPU number beyond the kernel's CPU masks */
	if (err || !cpumask_subset(mask, cpu_online_mask)) {
		err = kvperf_nl_refuse(info, KVPERF_A_RUN_CPUS,
				       "cpus names a CPU that is not online");
		goto out;
	}
	if (cpumask_weight(mask) > cfg->qps) {
		if (cfg->type == KVPERF_RUN_TYPE_IO)
			err = kvperf_nl_refuse(info, KVPERF_A_RUN_CPUS,
					       "more cpus than queues: each CPU's thread needs a queue");
		else
			err = kvperf_nl_refuse(info, KVPERF_A_RUN_CPUS,
					       "more cpus than qps: each CPU's thread needs a queue pair");
		goto out;
	}
	for_each_cpu(cpu, mask)
		cfg->cpus[cfg->ncpus++] = cpu;
out:
	free_cpumask_var(mask);
	return err;
}

/*
 * An I/O run: a read or a write of whole 512-byte units, one block size
 * or a sweep of powers of two, its queue depth and who invalidates.
 */
static int kvperf_nl_run_io_cfg(struct genl_info *info,
				struct kvperf_run_cfg *cfg)
{
	struct nlattr **tb = info->attrs;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(kvperf_io_refuses); i++)
		if (tb[kvperf_io_refuses[i]])
			return kvperf_nl_refuse(info, kvperf_io_refuses[i],
						"that attribute does not apply to I/O runs");
	if (cfg->op == KVPERF_OP_SEND)
		return kvperf_nl_refuse(info, KVPERF_A_RUN_OP,
					"an I/O run reads or writes: op read or write");
	if (tb[KVPERF_A_RUN_BSS]) {
		cfg->bss = nla_get_u32(tb[KVPERF_A_RUN_BSS]);
		if (tb[KVPERF_A_RUN_SIZE])
			return kvperf_nl_refuse(info, KVPERF_A_RUN_BSS,
						"bss and size exclude each other: a sweep names its block sizes");
		if (!cfg->bss || (cfg->bss & ~KVPERF_IO_BSS_MASK))
			return kvperf_nl_refuse(info, KVPERF_A_RUN_BSS,
						"a sweep's block sizes are powers of two from 512 B to 1 MiB");
		cfg->size = 1U << __ffs(cfg->bss);
	}
	if (cfg->size < KVPERF_IO_BS_MIN || cfg->size > KVPERF_IO_BS_MAX ||
	    cfg->size % KVPERF_IO_BS_MIN)
		return kvperf_nl_refuse(info, KVPERF_A_RUN_SIZE,
					"an I/O run's block size is a multiple of 512 from 512 B to 1 MiB");
	cfg->size_max = cfg->bss ? 1U << __fls(cfg->bss) : cfg->size;
	cfg->segments = kvperf_nl_u32(info, KVPERF_A_RUN_SEGMENTS, 1);
	if (cfg->size % (KVPERF_IO_BS_MIN * cfg->segments))
		return kvperf_nl_refuse(info, KVPERF_A_RUN_SEGMENTS,
					"the block does not split into that many segments of whole 512-byte units");
	cfg->qd = kvperf_nl_u32(info, KVPERF_A_RUN_QD, KVPERF_IO_QD_DEFAULT);
	cfg->interval_ms = kvperf_nl_u32(info, KVPERF_A_RUN_INTERVAL_MS, 0);
	cfg->inv = tb[KVPERF_A_RUN_INV] ? nla_get_u8(tb[KVPERF_A_RUN_INV]) :
					  KVPERF_IO_INV_REMOTE;
	if (tb[KVPERF_A_RUN_READ_PCT]) {
		if (cfg->op != KVPERF_OP_READ)
			return kvperf_nl_refuse(info, KVPERF_A_RUN_READ_PCT,
						"read-pct mixes writes into a read run: it goes with op read");
		cfg->read_pct = nla_get_u8(tb[KVPERF_A_RUN_READ_PCT]);
	}
	cfg->reg = tb[KVPERF_A_RUN_REG] ? nla_get_u8(tb[KVPERF_A_RUN_REG]) :
					  KVPERF_IO_REG_FRWR;
	cfg->qps = kvperf_nl_u32(info, KVPERF_A_RUN_QPS, 1);
	/* memory windows are bound from user space: the policy stops at pre */
	BUILD_BUG_ON(KVPERF_IO_REG_KERNEL_MAX != KVPERF_IO_REG_PRE);
	if (cfg->reg == KVPERF_IO_REG_PRE && tb[KVPERF_A_RUN_INV])
		return kvperf_nl_refuse(info, KVPERF_A_RUN_INV,
					"inv applies to reg frwr: a registration made at connect is never invalidated");
	cfg->inline_data = kvperf_nl_u32(info, KVPERF_A_RUN_INLINE_DATA, 0);
	if (cfg->inline_data && cfg->op == KVPERF_OP_READ && !cfg->read_pct)
		return kvperf_nl_refuse(info, KVPERF_A_RUN_INLINE_DATA,
					"inline-data carries writes: a read run has none");
	return kvperf_nl_run_cpus(info, cfg);
}

/* Queue depth, lists, signaling, threads and interval of a bandwidth run. */
static int kvperf_nl_run_bw_cfg(struct genl_info *info,
				struct kvperf_run_cfg *cfg)
{
	struct nlattr **tb = info->attrs;

	cfg->tx_depth = kvperf_nl_u32(info, KVPERF_A_RUN_TX_DEPTH,
				      KVPERF_TX_DEPTH_DEFAULT);
	cfg->qps = kvperf_nl_u32(info, KVPERF_A_RUN_QPS, 1);
	cfg->post_list = kvperf_nl_u32(info, KVPERF_A_RUN_POST_LIST, 1);
	cfg->signal_every = kvperf_nl_u32(info, KVPERF_A_RUN_SIGNAL_EVERY,
					  min(KVPERF_SIGNAL_EVERY_DEFAULT,
					      cfg->tx_depth));
	cfg->bidir = nla_get_flag(tb[KVPERF_A_RUN_BIDIR]);
	cfg->interval_ms = kvperf_nl_u32(info, KVPERF_A_RUN_INTERVAL_MS, 0);
	if (cfg->post_list > cfg->tx_depth)
		return kvperf_nl_refuse(info, KVPERF_A_RUN_POST_LIST,
					"post-list is larger than tx-depth");
	if (cfg->signal_every > cfg->tx_depth)
		return kvperf_nl_refuse(info, KVPERF_A_RUN_SIGNAL_EVERY,
					"signal-every is larger than tx-depth");
	if (cfg->verify && cfg->op == KVPERF_OP_READ)
		return kvperf_nl_refuse(info, KVPERF_A_RUN_VERIFY,
					"verify applies to send and write bandwidth only");
	/* a bandwidth run times no iteration: there is nothing to turn off */
	if (cfg->stats == KVPERF_STATS_MODE_OFF)
		return kvperf_nl_refuse(info, KVPERF_A_RUN_STATS,
					"stats off applies to latency runs only: bandwidth runs take no per-iteration statistics");
	return kvperf_nl_run_cpus(info, cfg);
}

static int kvperf_nl_run_cfg(struct genl_info *info, struct kvperf_run_cfg *cfg)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **tb = info->attrs;
	bool bw, io;
	int err;
	u32 i;

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
	bw = cfg->type == KVPERF_RUN_TYPE_BW;
	io = cfg->type == KVPERF_RUN_TYPE_IO;
	for (i = 0; !bw && i < ARRAY_SIZE(kvperf_bw_only); i++) {
		bool io_too = kvperf_io_takes(kvperf_bw_only[i]);

		if (!tb[kvperf_bw_only[i]] || (io && io_too))
			continue;
		if (io_too)
			return kvperf_nl_refuse(info, kvperf_bw_only[i],
						"that attribute applies to bandwidth and I/O runs only");
		return kvperf_nl_refuse(info, kvperf_bw_only[i],
					"that attribute applies to bandwidth runs only");
	}
	for (i = 0; !io && i < ARRAY_SIZE(kvperf_io_only); i++)
		if (tb[kvperf_io_only[i]])
			return kvperf_nl_refuse(info, kvperf_io_only[i],
						"that attribute applies to I/O runs only");
	cfg->op = nla_get_u8(tb[KVPERF_A_RUN_OP]);
	err = kvperf_nl_parse_addr(tb[KVPERF_A_RUN_ADDR], tb[KVPERF_A_RUN_PORT],
				   &cfg->addr, extack);
	if (err)
		return err;

	cfg->size = kvperf_nl_u32(info, KVPERF_A_RUN_SIZE,
				  bw ? KVPERF_BW_SIZE_DEFAULT :
				  io ? KVPERF_IO_BS_DEFAULT :
				       KVPERF_SIZE_DEFAULT);
	cfg->size_max = kvperf_nl_u32(info, KVPERF_A_RUN_SIZE_MAX, cfg->size);
	if (cfg->size_max < cfg->size)
		return kvperf_nl_refuse(info, KVPERF_A_RUN_SIZE_MAX,
					"size-max is smaller than size");
	if (tb[KVPERF_A_RUN_ITERATIONS] && tb[KVPERF_A_RUN_DURATION_MS])
		return kvperf_nl_refuse(info, KVPERF_A_RUN_DURATION_MS,
					"iterations and duration-ms exclude each other");
	if (tb[KVPERF_A_RUN_WARMUP] && tb[KVPERF_A_RUN_WARMUP_MS])
		return kvperf_nl_refuse(info, KVPERF_A_RUN_WARMUP_MS,
					"warmup and warmup-ms exclude each other");
	cfg->duration_ms = kvperf_nl_u32(info, KVPERF_A_RUN_DURATION_MS, 0);
	cfg->iterations = kvperf_nl_u32(info, KVPERF_A_RUN_ITERATIONS,
					bw ? KVPERF_BW_ITERATIONS_DEFAULT :
					     KVPERF_LAT_ITERATIONS_DEFAULT);
	cfg->warmup_ms = kvperf_nl_u32(info, KVPERF_A_RUN_WARMUP_MS, 0);
	cfg->warmup = cfg->warmup_ms ? 0 :
		      kvperf_nl_u32(info, KVPERF_A_RUN_WARMUP,
				    KVPERF_WARMUP_DEFAULT);
	cfg->poll = tb[KVPERF_A_RUN_POLL] ? nla_get_u8(tb[KVPERF_A_RUN_POLL]) :
					    KVPERF_POLL_BUSY;
	cfg->inline_size = kvperf_nl_u32(info, KVPERF_A_RUN_INLINE, 0);
	if (cfg->inline_size && cfg->op == KVPERF_OP_READ)
		return kvperf_nl_refuse(info, KVPERF_A_RUN_INLINE,
					"inline applies to send and write only");
	cfg->verify = nla_get_flag(tb[KVPERF_A_RUN_VERIFY]);
	cfg->stats = tb[KVPERF_A_RUN_STATS] ?
		     nla_get_u8(tb[KVPERF_A_RUN_STATS]) : KVPERF_STATS_MODE_ON;
	cfg->post_context = tb[KVPERF_A_RUN_POST_CONTEXT] ?
			    nla_get_u8(tb[KVPERF_A_RUN_POST_CONTEXT]) :
			    KVPERF_POST_CONTEXT_PROCESS;
	if (tb[KVPERF_A_RUN_KEY])
		nla_memcpy(cfg->key, tb[KVPERF_A_RUN_KEY], sizeof(cfg->key));
	cfg->cpu = -1;
	if (tb[KVPERF_A_RUN_CPU]) {
		u32 cpu = nla_get_u32(tb[KVPERF_A_RUN_CPU]);

		if (cpu >= nr_cpu_ids || !cpu_online(cpu))
			return kvperf_nl_refuse(info, KVPERF_A_RUN_CPU,
						"that CPU is not online");
		cfg->cpu = cpu;
	}
	if (io)
		err = kvperf_nl_run_io_cfg(info, cfg);
	else if (bw)
		err = kvperf_nl_run_bw_cfg(info, cfg);
	if (err)
		return err;
	/* after the type's own settings: what is in flight depends on them */
	if (tb[KVPERF_A_RUN_TIMEOUT_MS])
		cfg->timeout_ms = nla_get_u32(tb[KVPERF_A_RUN_TIMEOUT_MS]);
	else
		cfg->timeout_ms = kvperf_timeout_default_ms(cfg->type,
							    cfg->size_max,
							    io ? cfg->qd :
							    cfg->tx_depth,
							    cfg->qps,
							    cfg->bidir);
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
		goto wipe;
	err = -ENOMEM;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto wipe;
	err = -EMSGSIZE;
	hdr = genlmsg_put_reply(msg, info, &kvperf_nl_family, 0,
				KVPERF_CMD_RUN_START);
	if (!hdr)
		goto free;
	err = kvperf_run_start(&cfg, info->extack, &id);
	if (err)
		goto free;
	/* the run has its copy of the key */
	memzero_explicit(cfg.key, sizeof(cfg.key));
	if (nla_put_u32(msg, KVPERF_A_RUN_ID, id)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

free:
	nlmsg_free(msg);
wipe:
	memzero_explicit(cfg.key, sizeof(cfg.key));
	return err;
}

static int kvperf_put_u64(struct sk_buff *skb, int attr, u64 v, int pad)
{
	return nla_put_u64_64bit(skb, attr, v, pad);
}

/* What only per-iteration samples give: none with stats off. */
static int kvperf_fill_samples(struct sk_buff *skb,
			       const struct kvperf_stats *st)
{
	const int pad = KVPERF_A_RESULT_PAD;

	if (kvperf_put_u64(skb, KVPERF_A_RESULT_MIN_NS, st->min_ns, pad) ||
	    kvperf_put_u64(skb, KVPERF_A_RESULT_MAX_NS, st->max_ns, pad) ||
	    kvperf_put_u64(skb, KVPERF_A_RESULT_STDEV_PS, st->stdev_ps, pad) ||
	    kvperf_put_u64(skb, KVPERF_A_RESULT_P50_NS, st->p50_ns, pad) ||
	    kvperf_put_u64(skb, KVPERF_A_RESULT_P90_NS, st->p90_ns, pad) ||
	    kvperf_put_u64(skb, KVPERF_A_RESULT_P99_NS, st->p99_ns, pad) ||
	    kvperf_put_u64(skb, KVPERF_A_RESULT_P999_NS, st->p999_ns, pad) ||
	    kvperf_put_u64(skb, KVPERF_A_RESULT_P9999_NS, st->p9999_ns, pad) ||
	    nla_put_u32(skb, KVPERF_A_RESULT_HIST_REL_ERR_PPM, st->rel_err_ppm))
		return -EMSGSIZE;
	return 0;
}

/* One queue of an I/O run's result; its percentiles with stats on. */
static int kvperf_fill_io_queue(struct sk_buff *skb, u32 index,
				const struct kvperf_io_queue_result *qr,
				bool stats)
{
	struct nlattr *nest = nla_nest_start(skb, KVPERF_A_RESULT_QUEUE);
	const struct kvperf_stats *st = &qr->stats;
	const int pad = KVPERF_A_IO_QUEUE_PAD;

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, KVPERF_A_IO_QUEUE_INDEX, index) ||
	    nla_put_s32(skb, KVPERF_A_IO_QUEUE_CPU, qr->cpu) ||
	    kvperf_put_u64(skb, KVPERF_A_IO_QUEUE_ITERATIONS, qr->ios, pad) ||
	    kvperf_put_u64(skb, KVPERF_A_IO_QUEUE_ELAPSED_NS, qr->elapsed_ns,
			   pad) ||
	    kvperf_put_u64(skb, KVPERF_A_IO_QUEUE_MISMATCHES, qr->mismatches,
			   pad) ||
	    kvperf_put_u64(skb, KVPERF_A_IO_QUEUE_MEAN_PS, st->mean_ps, pad) ||
	    kvperf_put_u64(skb, KVPERF_A_IO_QUEUE_TARGET_CPU_NS,
			   qr->target_cpu_ns, pad) ||
	    (stats &&
	     (kvperf_put_u64(skb, KVPERF_A_IO_QUEUE_CPU_NS, qr->cpu_ns, pad) ||
	      kvperf_put_u64(skb, KVPERF_A_IO_QUEUE_MIN_NS, st->min_ns, pad) ||
	      kvperf_put_u64(skb, KVPERF_A_IO_QUEUE_P50_NS, st->p50_ns, pad) ||
	      kvperf_put_u64(skb, KVPERF_A_IO_QUEUE_P99_NS, st->p99_ns, pad) ||
	      kvperf_put_u64(skb, KVPERF_A_IO_QUEUE_MAX_NS, st->max_ns,
			     pad)))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int kvperf_fill_result(struct sk_buff *skb,
			      const struct kvperf_run *run,
			      const struct kvperf_result *res)
{
	bool stats = run->cfg.stats == KVPERF_STATS_MODE_ON;
	bool io = run->cfg.type == KVPERF_RUN_TYPE_IO;
	const struct kvperf_stats *st = &res->stats;
	const int pad = KVPERF_A_RESULT_PAD;
	struct nlattr *nest;
	u32 i;

	nest = nla_nest_start(skb, KVPERF_A_RUN_RESULT);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, KVPERF_A_RESULT_SIZE, res->size) ||
	    kvperf_put_u64(skb, KVPERF_A_RESULT_ITERATIONS, st->count, pad) ||
	    kvperf_put_u64(skb, KVPERF_A_RESULT_MEAN_PS, st->mean_ps, pad) ||
	    kvperf_put_u64(skb, KVPERF_A_RESULT_MISMATCHES, res->mismatches,
			   pad) ||
	    kvperf_put_u64(skb, KVPERF_A_RESULT_ELAPSED_NS, res->elapsed_ns,
			   pad) ||
	    (io && nla_put_u8(skb, KVPERF_A_RESULT_OP, res->op)) ||
	    (io && stats &&
	     (kvperf_put_u64(skb, KVPERF_A_RESULT_REG_NS, res->reg_ns, pad) ||
	      kvperf_put_u64(skb, KVPERF_A_RESULT_INV_NS, res->inv_ns, pad) ||
	      kvperf_put_u64(skb, KVPERF_A_RESULT_CPU_NS, res->cpu_ns, pad))) ||
	    (io && kvperf_put_u64(skb, KVPERF_A_RESULT_TARGET_CPU_NS,
				  res->target_cpu_ns, pad)) ||
	    (stats && kvperf_fill_samples(skb, st)))
		goto err;
	for (i = 0; io && i < run->cfg.qps; i++)
		if (kvperf_fill_io_queue(skb, i, &res->queue[i], stats))
			goto err;
	nla_nest_end(skb, nest);
	return 0;
err:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int kvperf_fill_bw_qp(struct sk_buff *skb, u32 index,
			     const struct kvperf_bw_qp_result *qr)
{
	struct nlattr *nest = nla_nest_start(skb, KVPERF_A_BW_RESULT_QP);
	const int pad = KVPERF_A_BW_QP_PAD;

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, KVPERF_A_BW_QP_INDEX, index) ||
	    nla_put_s32(skb, KVPERF_A_BW_QP_CPU, qr->cpu) ||
	    kvperf_put_u64(skb, KVPERF_A_BW_QP_MESSAGES, qr->messages, pad) ||
	    kvperf_put_u64(skb, KVPERF_A_BW_QP_BYTES, qr->bytes, pad) ||
	    kvperf_put_u64(skb, KVPERF_A_BW_QP_ELAPSED_NS, qr->elapsed_ns,
			   pad) ||
	    kvperf_put_u64(skb, KVPERF_A_BW_QP_PEER_MESSAGES,
			   qr->peer_messages, pad)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int kvperf_fill_bw_result(struct sk_buff *skb,
				 const struct kvperf_run *run,
				 const struct kvperf_bw_result *res)
{
	struct nlattr *nest = nla_nest_start(skb, KVPERF_A_RUN_BW_RESULT);
	const int pad = KVPERF_A_BW_RESULT_PAD;
	u32 i;

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, KVPERF_A_BW_RESULT_SIZE, res->size) ||
	    kvperf_put_u64(skb, KVPERF_A_BW_RESULT_MESSAGES, res->messages,
			   pad) ||
	    kvperf_put_u64(skb, KVPERF_A_BW_RESULT_BYTES, res->bytes, pad) ||
	    kvperf_put_u64(skb, KVPERF_A_BW_RESULT_ELAPSED_NS,
			   res->elapsed_ns, pad) ||
	    kvperf_put_u64(skb, KVPERF_A_BW_RESULT_PEAK_BPS, res->peak_bps,
			   pad) ||
	    kvperf_put_u64(skb, KVPERF_A_BW_RESULT_CPU_NS, res->cpu_ns, pad) ||
	    kvperf_put_u64(skb, KVPERF_A_BW_RESULT_MISMATCHES,
			   res->mismatches, pad) ||
	    (run->cfg.op == KVPERF_OP_SEND &&
	     kvperf_put_u64(skb, KVPERF_A_BW_RESULT_PEER_MESSAGES,
			    res->peer_messages, pad)) ||
	    (run->cfg.bidir &&
	     (kvperf_put_u64(skb, KVPERF_A_BW_RESULT_RX_MESSAGES,
			     res->rx_messages, pad) ||
	      kvperf_put_u64(skb, KVPERF_A_BW_RESULT_RX_BYTES, res->rx_bytes,
			     pad) ||
	      kvperf_put_u64(skb, KVPERF_A_BW_RESULT_RX_ELAPSED_NS,
			     res->rx_elapsed_ns, pad))))
		goto err;
	for (i = 0; i < run->cfg.qps; i++)
		if (kvperf_fill_bw_qp(skb, i, &res->qp[i]))
			goto err;
	nla_nest_end(skb, nest);
	return 0;
err:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int kvperf_fill_run_bw_cfg(struct sk_buff *skb,
				  const struct kvperf_run_cfg *cfg)
{
	if (nla_put_u32(skb, KVPERF_A_RUN_TX_DEPTH, cfg->tx_depth) ||
	    nla_put_u32(skb, KVPERF_A_RUN_QPS, cfg->qps) ||
	    (cfg->ncpus &&
	     nla_put_string(skb, KVPERF_A_RUN_CPUS, cfg->cpulist)) ||
	    nla_put_u32(skb, KVPERF_A_RUN_POST_LIST, cfg->post_list) ||
	    nla_put_u32(skb, KVPERF_A_RUN_SIGNAL_EVERY, cfg->signal_every) ||
	    (cfg->bidir && nla_put_flag(skb, KVPERF_A_RUN_BIDIR)) ||
	    (cfg->interval_ms &&
	     nla_put_u32(skb, KVPERF_A_RUN_INTERVAL_MS, cfg->interval_ms)))
		return -EMSGSIZE;
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
	    (cfg->warmup_ms ?
	     nla_put_u32(skb, KVPERF_A_RUN_WARMUP_MS, cfg->warmup_ms) :
	     nla_put_u32(skb, KVPERF_A_RUN_WARMUP, cfg->warmup)) ||
	    nla_put_u8(skb, KVPERF_A_RUN_POLL, cfg->poll) ||
	    (cfg->type != KVPERF_RUN_TYPE_IO &&
	     nla_put_u32(skb, KVPERF_A_RUN_INLINE, cfg->inline_size)) ||
	    (cfg->verify && nla_put_flag(skb, KVPERF_A_RUN_VERIFY)) ||
	    (cfg->cpu >= 0 && nla_put_u32(skb, KVPERF_A_RUN_CPU, cfg->cpu)) ||
	    nla_put_u32(skb, KVPERF_A_RUN_TIMEOUT_MS, cfg->timeout_ms) ||
	    nla_put_u8(skb, KVPERF_A_RUN_POST_CONTEXT, cfg->post_context))
		return -EMSGSIZE;
	if (cfg->type == KVPERF_RUN_TYPE_BW)
		return kvperf_fill_run_bw_cfg(skb, cfg);
	if (cfg->type == KVPERF_RUN_TYPE_IO &&
	    (nla_put_u32(skb, KVPERF_A_RUN_QD, cfg->qd) ||
	     nla_put_u8(skb, KVPERF_A_RUN_REG, cfg->reg) ||
	     (cfg->reg == KVPERF_IO_REG_FRWR &&
	      nla_put_u8(skb, KVPERF_A_RUN_INV, cfg->inv)) ||
	     nla_put_u32(skb, KVPERF_A_RUN_SEGMENTS, cfg->segments) ||
	     nla_put_u32(skb, KVPERF_A_RUN_QPS, cfg->qps) ||
	     (cfg->ncpus &&
	      nla_put_string(skb, KVPERF_A_RUN_CPUS, cfg->cpulist)) ||
	     (cfg->read_pct &&
	      nla_put_u8(skb, KVPERF_A_RUN_READ_PCT, cfg->read_pct)) ||
	     (cfg->inline_data &&
	      nla_put_u32(skb, KVPERF_A_RUN_INLINE_DATA, cfg->inline_data)) ||
	     (cfg->bss && nla_put_u32(skb, KVPERF_A_RUN_BSS, cfg->bss)) ||
	     (cfg->interval_ms &&
	      nla_put_u32(skb, KVPERF_A_RUN_INTERVAL_MS, cfg->interval_ms))))
		return -EMSGSIZE;
	return nla_put_u8(skb, KVPERF_A_RUN_STATS, cfg->stats);
}

/*
 * The results from the @first-th on, as many as fit; *@next receives the
 * index of the first that did not, 0 when all did. -EMSGSIZE when not
 * even the @first-th fits.
 */
static int kvperf_fill_run_results(struct sk_buff *skb,
				   const struct kvperf_run *run, u32 first,
				   u32 *next)
{
	bool bw = run->cfg.type == KVPERF_RUN_TYPE_BW;
	int err;
	u32 i;

	*next = 0;
	if (bw && kvperf_put_u64(skb, KVPERF_A_RUN_BYTES,
				 atomic64_read(&run->bw.bytes),
				 KVPERF_A_RUN_PAD))
		return -EMSGSIZE;
	if (first && nla_put_u32(skb, KVPERF_A_RUN_RESULTS_FROM, first))
		return -EMSGSIZE;
	for (i = first; i < run->ndone; i++) {
		if (bw)
			err = kvperf_fill_bw_result(skb, run, &run->bw.results[i]);
		else
			err = kvperf_fill_result(skb, run, &run->results[i]);
		if (err) {
			if (i == first)
				return -EMSGSIZE;
			*next = i;
			break;
		}
	}
	return 0;
}

/*
 * A run with its results from the @first-th on; *@next as
 * kvperf_fill_run_results() says. A reply to a do passes 0 and a message
 * kvperf_run_msg_size() long, which always has room for all.
 */
static int kvperf_fill_run(struct sk_buff *skb, struct kvperf_run *run,
			   u32 portid, u32 seq, int flags, u8 cmd, u32 first,
			   u32 *next)
{
	void *hdr;

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
			      atomic64_read(&run->progress), KVPERF_A_RUN_PAD) ||
	    kvperf_fill_run_results(skb, run, first, next))
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
	u32 qps = run->cfg.type == KVPERF_RUN_TYPE_BW ? run->cfg.qps : 0;

	/*
	 * An I/O run's queue: a nest of two 4-byte and at most eight 8-byte
	 * attributes, each of those padded: under 192 bytes.
	 */
	if (run->cfg.type == KVPERF_RUN_TYPE_IO)
		qps = 3 * run->cfg.qps;
	return NLMSG_GOODSIZE + (256 + 64 * qps) * run->nresults;
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
	u32 next;
	int err;

	if (!run)
		return info->attrs[KVPERF_A_RUN_ID] ? -ENOENT : -EINVAL;
	msg = genlmsg_new(kvperf_run_msg_size(run), GFP_KERNEL);
	if (!msg) {
		kvperf_run_put(run);
		return -ENOMEM;
	}
	err = kvperf_fill_run(msg, run, info->snd_portid, info->snd_seq, 0,
			      KVPERF_CMD_RUN_GET, 0, &next);
	kvperf_run_put(run);
	if (!err && next)
		err = -EMSGSIZE;
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/**
 * kvperf_nl_run_get_dumpit() - run-get dump: every run
 * @skb: the message being filled
 * @cb: dump state; args[0] is the next run id to send, args[1] the
 *	index of its first result not sent yet
 *
 * Return: the message length, or a negative errno.
 */
int kvperf_nl_run_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct kvperf_run *run;
	u32 id = cb->args[0] ? cb->args[0] : 1;
	u32 first = cb->args[1], next = 0, cont = id;
	int err = 0;

	while ((run = kvperf_run_next(&id))) {
		/* the run to continue may have been deleted meanwhile */
		if (id != cont)
			first = 0;
		err = kvperf_fill_run(skb, run, NETLINK_CB(cb->skb).portid,
				      cb->nlh->nlmsg_seq, NLM_F_MULTI,
				      KVPERF_CMD_RUN_GET, first, &next);
		kvperf_run_put(run);
		if (err)
			break;
		/* a run too large for one message goes on in the next */
		first = next;
		if (next)
			break;
		id++;
	}
	cb->args[0] = id;
	cb->args[1] = first;
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

/* Finished: announce that a run ended. */
static void kvperf_nl_run_finished(struct kvperf_run *run)
{
	struct sk_buff *skb;
	u32 next;

	skb = kvperf_nl_event_alloc(kvperf_run_msg_size(run));
	if (!skb)
		return;
	if (kvperf_fill_run(skb, run, 0, 0, 0, KVPERF_CMD_RUN_FINISHED_NTF, 0,
			    &next) || next) {
		nlmsg_free(skb);
		return;
	}
	kvperf_nl_notify(skb);
}

/* The last interval of a bandwidth run's progress event. */
static int kvperf_put_bw_progress(struct sk_buff *skb,
				  const struct kvperf_run_bw_progress *p)
{
	const int pad = KVPERF_A_RUN_PAD;

	if (nla_put_u32(skb, KVPERF_A_RUN_CUR_SIZE, p->size) ||
	    kvperf_put_u64(skb, KVPERF_A_RUN_BYTES, p->bytes, pad) ||
	    kvperf_put_u64(skb, KVPERF_A_RUN_INTERVAL_BYTES, p->interval_bytes,
			   pad) ||
	    kvperf_put_u64(skb, KVPERF_A_RUN_INTERVAL_MESSAGES,
			   p->interval_messages, pad) ||
	    kvperf_put_u64(skb, KVPERF_A_RUN_INTERVAL_NS, p->interval_ns, pad))
		return -EMSGSIZE;
	return 0;
}

/* Progress: report a running run's progress; @bw NULL for latency. */
static void kvperf_nl_run_progress(struct kvperf_run *run,
				   const struct kvperf_run_bw_progress *bw)
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
			      atomic64_read(&run->progress), KVPERF_A_RUN_PAD) ||
	    (bw && kvperf_put_bw_progress(skb, bw))) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	kvperf_nl_notify(skb);
}

/* The run events; registered by module init. */
struct kvperf_run_observer kvperf_nl_run_observer = {
	.name = "netlink runs",
	.run_progress = kvperf_nl_run_progress,
	.run_finished = kvperf_nl_run_finished,
};
