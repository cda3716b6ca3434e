// SPDX-License-Identifier: GPL-2.0
/*
 * A user-path run described as the module describes its runs: the
 * attributes of a run-get reply (the run attribute set with nested
 * results), in a message built in memory, so that the tool's printers show
 * it exactly as they show a kernel-path run; and its interval lines,
 * through the printer of the kernel path's progress events.
 */
#include <errno.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "attrs.h"
#include "run.h"
#include "upath_conn.h"
#include "upath_run.h"

/* Not a family the kernel assigns; the printers never look. */
#define UPATH_MSG_TYPE		NLMSG_MIN_TYPE

/* What only per-iteration samples give: none with stats off. */
static int upath_put_samples(struct nl_msg *msg, const struct upath_stats *st)
{
	if (nla_put_u64(msg, KVPERF_A_RESULT_MIN_NS, st->min_ns) ||
	    nla_put_u64(msg, KVPERF_A_RESULT_MAX_NS, st->max_ns) ||
	    nla_put_u64(msg, KVPERF_A_RESULT_STDEV_PS, st->stdev_ps) ||
	    nla_put_u64(msg, KVPERF_A_RESULT_P50_NS, st->p50_ns) ||
	    nla_put_u64(msg, KVPERF_A_RESULT_P90_NS, st->p90_ns) ||
	    nla_put_u64(msg, KVPERF_A_RESULT_P99_NS, st->p99_ns) ||
	    nla_put_u64(msg, KVPERF_A_RESULT_P999_NS, st->p999_ns) ||
	    nla_put_u64(msg, KVPERF_A_RESULT_P9999_NS, st->p9999_ns) ||
	    nla_put_u32(msg, KVPERF_A_RESULT_HIST_REL_ERR_PPM,
			st->rel_err_ppm))
		return -EMSGSIZE;
	return 0;
}

static int upath_put_result(struct nl_msg *msg,
			    const struct upath_lat_result *res, bool stats)
{
	const struct upath_stats *st = &res->stats;
	struct nlattr *nest = nla_nest_start(msg, KVPERF_A_RUN_RESULT);

	if (!nest ||
	    nla_put_u32(msg, KVPERF_A_RESULT_SIZE, res->size) ||
	    nla_put_u64(msg, KVPERF_A_RESULT_ITERATIONS, st->count) ||
	    nla_put_u64(msg, KVPERF_A_RESULT_MEAN_PS, st->mean_ps) ||
	    nla_put_u64(msg, KVPERF_A_RESULT_MISMATCHES, res->mismatches) ||
	    nla_put_u64(msg, KVPERF_A_RESULT_ELAPSED_NS, res->elapsed_ns) ||
	    (stats && upath_put_samples(msg, st)))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int upath_put_bw_qp(struct nl_msg *msg, uint32_t index,
			   const struct upath_bw_qp_result *qr)
{
	struct nlattr *nest = nla_nest_start(msg, KVPERF_A_BW_RESULT_QP);

	if (!nest ||
	    nla_put_u32(msg, KVPERF_A_BW_QP_INDEX, index) ||
	    nla_put_s32(msg, KVPERF_A_BW_QP_CPU, qr->cpu) ||
	    nla_put_u64(msg, KVPERF_A_BW_QP_MESSAGES, qr->messages) ||
	    nla_put_u64(msg, KVPERF_A_BW_QP_BYTES, qr->bytes) ||
	    nla_put_u64(msg, KVPERF_A_BW_QP_ELAPSED_NS, qr->elapsed_ns) ||
	    nla_put_u64(msg, KVPERF_A_BW_QP_PEER_MESSAGES, qr->peer_messages))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int upath_put_bw_result(struct nl_msg *msg, const struct upath_run *run,
			       const struct upath_bw_result *res)
{
	struct nlattr *nest = nla_nest_start(msg, KVPERF_A_RUN_BW_RESULT);
	const struct upath_cfg *cfg = &run->cfg;
	uint32_t i;

	if (!nest ||
	    nla_put_u32(msg, KVPERF_A_BW_RESULT_SIZE, res->size) ||
	    nla_put_u64(msg, KVPERF_A_BW_RESULT_MESSAGES, res->messages) ||
	    nla_put_u64(msg, KVPERF_A_BW_RESULT_BYTES, res->bytes) ||
	    nla_put_u64(msg, KVPERF_A_BW_RESULT_ELAPSED_NS, res->elapsed_ns) ||
	    nla_put_u64(msg, KVPERF_A_BW_RESULT_PEAK_BPS, res->peak_bps) ||
	    nla_put_u64(msg, KVPERF_A_BW_RESULT_CPU_NS, res->cpu_ns) ||
	    nla_put_u64(msg, KVPERF_A_BW_RESULT_MISMATCHES, res->mismatches))
		return -EMSGSIZE;
	if (cfg->op == KVPERF_OP_SEND &&
	    nla_put_u64(msg, KVPERF_A_BW_RESULT_PEER_MESSAGES,
			res->peer_messages))
		return -EMSGSIZE;
	if (cfg->bidir &&
	    (nla_put_u64(msg, KVPERF_A_BW_RESULT_RX_MESSAGES,
			 res->rx_messages) ||
	     nla_put_u64(msg, KVPERF_A_BW_RESULT_RX_BYTES, res->rx_bytes) ||
	     nla_put_u64(msg, KVPERF_A_BW_RESULT_RX_ELAPSED_NS,
			 res->rx_elapsed_ns)))
		return -EMSGSIZE;
	for (i = 0; i < cfg->qps; i++)
		if (upath_put_bw_qp(msg, i, &res->qp[i]))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/* The run's configuration, as kvperf_fill_run_cfg() puts it. */
static int upath_put_cfg(struct nl_msg *msg, const struct upath_cfg *cfg)
{
	if (nla_put_u8(msg, KVPERF_A_RUN_TYPE, cfg->type) ||
	    nla_put_u8(msg, KVPERF_A_RUN_OP, cfg->op) ||
	    nla_put(msg, KVPERF_A_RUN_ADDR, cfg->addr_len, cfg->addr) ||
	    nla_put_u16(msg, KVPERF_A_RUN_PORT, cfg->port) ||
	    nla_put_u32(msg, KVPERF_A_RUN_SIZE, cfg->size) ||
	    nla_put_u32(msg, KVPERF_A_RUN_SIZE_MAX, cfg->size_max) ||
	    (cfg->duration_ms ?
	     nla_put_u32(msg, KVPERF_A_RUN_DURATION_MS, cfg->duration_ms) :
	     nla_put_u32(msg, KVPERF_A_RUN_ITERATIONS, cfg->iterations)) ||
	    (cfg->warmup_ms ?
	     nla_put_u32(msg, KVPERF_A_RUN_WARMUP_MS, cfg->warmup_ms) :
	     nla_put_u32(msg, KVPERF_A_RUN_WARMUP, cfg->warmup)) ||
	    nla_put_u8(msg, KVPERF_A_RUN_POLL, cfg->poll) ||
	    nla_put_u32(msg, KVPERF_A_RUN_INLINE, cfg->inline_size) ||
	    (cfg->verify && nla_put_flag(msg, KVPERF_A_RUN_VERIFY)) ||
	    (cfg->cpu >= 0 && nla_put_u32(msg, KVPERF_A_RUN_CPU, cfg->cpu)) ||
	    nla_put_u32(msg, KVPERF_A_RUN_TIMEOUT_MS, cfg->timeout_ms))
		return -EMSGSIZE;
	if (cfg->type != KVPERF_RUN_TYPE_BW)
		return nla_put_u8(msg, KVPERF_A_RUN_STATS, cfg->stats);
	if (nla_put_u32(msg, KVPERF_A_RUN_TX_DEPTH, cfg->tx_depth) ||
	    nla_put_u32(msg, KVPERF_A_RUN_QPS, cfg->qps) ||
	    (cfg->ncpus &&
	     nla_put_string(msg, KVPERF_A_RUN_CPUS, cfg->cpulist)) ||
	    nla_put_u32(msg, KVPERF_A_RUN_POST_LIST, cfg->post_list) ||
	    nla_put_u32(msg, KVPERF_A_RUN_SIGNAL_EVERY, cfg->signal_every) ||
	    (cfg->bidir && nla_put_flag(msg, KVPERF_A_RUN_BIDIR)) ||
	    (cfg->interval_ms &&
	     nla_put_u32(msg, KVPERF_A_RUN_INTERVAL_MS, cfg->interval_ms)))
		return -EMSGSIZE;
	return 0;
}

static int upath_put_results(struct nl_msg *msg, const struct upath_run *run)
{
	uint32_t i;

	if (run->cfg.type == KVPERF_RUN_TYPE_BW) {
		if (nla_put_u64(msg, KVPERF_A_RUN_BYTES, run->bytes))
			return -EMSGSIZE;
		for (i = 0; i < run->ndone; i++)
			if (upath_put_bw_result(msg, run, &run->bw[i]))
				return -EMSGSIZE;
		return 0;
	}
	for (i = 0; i < run->ndone; i++)
		if (upath_put_result(msg, &run->lat[i],
				     run->cfg.stats == KVPERF_STATS_MODE_ON))
			return -EMSGSIZE;
	return 0;
}

/**
 * upath_result_msg() - a run as the module's run-get reply would have it
 * @run: the run
 *
 * The attributes are those kvperf_fill_run() puts, but the id: a run of
 * the user path is no kernel object and has none.
 *
 * Return: the message (nlmsg_free() it), or NULL when out of memory.
 */
struct nl_msg *upath_result_msg(const struct upath_run *run)
{
	size_t qps = run->cfg.type == KVPERF_RUN_TYPE_BW ? run->cfg.qps : 0;
	struct nl_msg *msg;

	msg = nlmsg_alloc_size(8192 + (256 + 64 * qps) * run->nresults);
	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, 0, 0, UPATH_MSG_TYPE, 0, 0, KVPERF_CMD_RUN_GET,
			 KVPERF_FAMILY_VERSION) ||
	    upath_put_cfg(msg, &run->cfg) ||
	    nla_put_u8(msg, KVPERF_A_RUN_STATE, run->state) ||
	    (run->error[0] &&
	     nla_put_string(msg, KVPERF_A_RUN_ERROR, run->error)) ||
	    (run->dev[0] && nla_put_string(msg, KVPERF_A_RUN_DEV, run->dev)) ||
	    nla_put_string(msg, KVPERF_A_RUN_KERNEL, run->kernel) ||
	    (run->mtu && nla_put_u32(msg, KVPERF_A_RUN_MTU, run->mtu)) ||
	    nla_put_u64(msg, KVPERF_A_RUN_PROGRESS, run->progress) ||
	    upath_put_results(msg, run)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/**
 * upath_result_live() - the line of one sampling window of a bandwidth run
 * @run: the run, with @run->live set
 * @size: the size being measured
 * @bytes: measured bytes so far
 * @messages: messages completed in the window
 * @ns: its length
 *
 * The same line as the kernel path prints for a progress event with these
 * numbers.
 */
void upath_result_live(const struct upath_run *run, uint32_t size,
		       uint64_t bytes, uint64_t messages, uint64_t ns)
{
	struct nlattr *tb[KVPERF_A_RUN_MAX + 1];
	struct nl_msg *msg = nlmsg_alloc();
	struct genlmsghdr *g;

	if (!msg)
		return;
	if (genlmsg_put(msg, 0, 0, UPATH_MSG_TYPE, 0, 0,
			KVPERF_CMD_RUN_PROGRESS_NTF, KVPERF_FAMILY_VERSION) &&
	    !nla_put_u32(msg, KVPERF_A_RUN_CUR_SIZE, size) &&
	    !nla_put_u64(msg, KVPERF_A_RUN_BYTES, bytes) &&
	    !nla_put_u64(msg, KVPERF_A_RUN_INTERVAL_BYTES, messages * size) &&
	    !nla_put_u64(msg, KVPERF_A_RUN_INTERVAL_MESSAGES, messages) &&
	    !nla_put_u64(msg, KVPERF_A_RUN_INTERVAL_NS, ns)) {
		g = nlmsg_data(nlmsg_hdr(msg));
		if (!attrs_parse(&attrs_run, tb, genlmsg_attrdata(g, 0),
				 genlmsg_attrlen(g, 0), NULL)) {
			run_print_live(run->live, tb,
				       (upath_now_ns() - run->start_ns) /
				       UPATH_NS_PER_MS, run->gbits);
			fflush(run->live);
		}
	}
	nlmsg_free(msg);
}
