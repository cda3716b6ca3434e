// SPDX-License-Identifier: GPL-2.0
/*
 * The user-path engine's run: the configuration gets the module's
 * defaults and checks, a latency run measures every size on one
 * connection from this thread (on cpu when given), a bandwidth run is
 * upath_run_bw.c's; the run ends as a struct kv_run, as the kernel path's
 * runs decode into. It prints nothing.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <linux/kvperf.h>

#include "run_cfg.h"
#include "run_model.h"
#include "upath_client.h"
#include "upath_conn.h"
#include "upath_io_host.h"
#include "upath_lat.h"
#include "upath_run.h"
#include "upath_signal.h"

/**
 * upath_pin() - bind the calling thread to a CPU
 * @cpu: the CPU
 *
 * Return: 0 or a negative errno.
 */
int upath_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/**
 * upath_run_stopping() - is the run to stop?
 * @run: the run
 *
 * Return: true after a signal caught by upath_catch_signals(), or when
 * the run's @ops->should_stop says so.
 */
bool upath_run_stopping(const struct upath_run *run)
{
	const struct upath_run_ops *ops = run->ops;

	return upath_signalled() ||
	       (ops && ops->should_stop && ops->should_stop(ops->arg));
}

static bool upath_run_should_stop(void *arg)
{
	return upath_run_stopping(arg);
}

static int upath_run_measure(struct upath_run *run, struct upath_conn *c)
{
	const struct upath_cfg *cfg = &run->cfg;
	uint32_t i;
	int err;

	for (i = 0; i < run->nresults; i++) {
		struct upath_lat_result *res = &run->lat[i];
		struct upath_lat_block b = {
			.size = res->size,
			.iterations = cfg->iterations,
			.duration_ns = cfg->duration_ms * UPATH_NS_PER_MS,
			.warmup = cfg->warmup,
			.warmup_ns = cfg->warmup_ms * UPATH_NS_PER_MS,
			.op = cfg->op,
			.verify = cfg->verify,
			.stats = cfg->stats == KVPERF_STATS_MODE_ON,
			/* half the round trip for send and write */
			.divisor = cfg->op == KVPERF_OP_READ ? 1 : 2,
			.hist = res->hist,
			.progress = &run->progress,
		};

		err = upath_lat_run_block(c, &b);
		if (err)
			return err;
		res->mismatches = b.mismatches;
		res->elapsed_ns = b.elapsed_ns;
		if (b.stats)
			upath_hist_summarize(res->hist, &res->stats);
		else
			upath_stats_from_elapsed(&res->stats, b.count,
						 b.elapsed_ns, b.divisor);
		run->ndone = i + 1;
	}
	return 0;
}

/* A latency run: one connection, one size after the other. */
static int upath_run_lat(struct upath_run *run, const char **reason)
{
	const struct upath_cfg *cfg = &run->cfg;
	struct upath_conn_attr attr = {
		.poll = cfg->poll,
		.size_max = cfg->size_max,
		.inline_size = cfg->inline_size,
		.send_depth = UPATH_SEND_DEPTH,
		.recv_depth = UPATH_RECV_DEPTH,
	};
	struct upath_waiter w = { 0 };
	struct upath_conn c;
	int err;

	upath_conn_init(&c, cfg->timeout_ms * UPATH_NS_PER_MS,
			upath_run_should_stop, run, &w);
	err = upath_connect(&c, cfg, &attr);
	snprintf(run->dev, sizeof(run->dev), "%s", c.dev);
	run->mtu = c.mtu;
	if (!err) {
		run->state = KVPERF_RUN_STATE_RUNNING;
		err = upath_run_measure(run, &c);
	}
	upath_conn_close(&c);
	upath_waiter_destroy(&w);
	*reason = c.reason;
	return err;
}

/*
 * An I/O run's results: per block size one, or a mix's reads' and
 * writes'.
 */
static int upath_run_alloc_io(struct upath_run *run)
{
	uint32_t i, dirs = run->cfg.read_pct ? UPATH_IO_DIRS : 1;

	run->nresults = run_io_nsizes(run->cfg.bss) * dirs;
	run->io = calloc(run->nresults, sizeof(*run->io));
	if (!run->io)
		return -ENOMEM;
	for (i = 0; i < run->nresults; i++) {
		run->io[i].size = run_io_size(run->cfg.bss, run->cfg.size,
					      i / dirs);
		run->io[i].op = i % dirs ? KVPERF_OP_WRITE : run->cfg.op;
		run->io[i].queue = calloc(run->cfg.qps,
					  sizeof(*run->io[i].queue));
		if (!run->io[i].queue)
			return -ENOMEM;
	}
	return 0;
}

static int upath_run_alloc(struct upath_run *run)
{
	uint32_t i;

	if (run->cfg.type == KVPERF_RUN_TYPE_IO)
		return upath_run_alloc_io(run);
	run->nresults = upath_cfg_nsizes(&run->cfg);
	if (run->cfg.type == KVPERF_RUN_TYPE_BW) {
		run->bw = calloc(run->nresults, sizeof(*run->bw));
		if (!run->bw)
			return -ENOMEM;
		for (i = 0; i < run->nresults; i++) {
			run->bw[i].size = run->cfg.size << i;
			run->bw[i].qp = calloc(run->cfg.qps,
					       sizeof(*run->bw[i].qp));
			if (!run->bw[i].qp)
				return -ENOMEM;
		}
		return 0;
	}
	run->lat = calloc(run->nresults, sizeof(*run->lat));
	if (!run->lat)
		return -ENOMEM;
	for (i = 0; i < run->nresults; i++) {
		run->lat[i].size = run->cfg.size << i;
		/* stats off: nothing records, so no histogram */
		if (run->cfg.stats == KVPERF_STATS_MODE_OFF)
			continue;
		run->lat[i].hist = upath_hist_new(UPATH_HIST_MAX_NS);
		if (!run->lat[i].hist)
			return -ENOMEM;
	}
	return 0;
}

static void upath_run_free(struct upath_run *run)
{
	uint32_t i;

	for (i = 0; run->io && i < run->nresults; i++) {
		upath_hist_free(run->io[i].hist);
		free(run->io[i].queue);
	}
	free(run->io);
	for (i = 0; run->bw && i < run->nresults; i++)
		free(run->bw[i].qp);
	free(run->bw);
	for (i = 0; run->lat && i < run->nresults; i++)
		upath_hist_free(run->lat[i].hist);
	free(run->lat);
}

/* How the run ended, and why in the module's words: "REASON (-ERRNO)". */
static void upath_run_end(struct upath_run *run, int err, const char *reason)
{
	const char *name;

	if (!err) {
		run->state = KVPERF_RUN_STATE_DONE;
		return;
	}
	if (err == -EINTR) {
		run->state = KVPERF_RUN_STATE_STOPPED;
		return;
	}
	run->state = KVPERF_RUN_STATE_FAILED;
	if (err == -ETIMEDOUT) {
		snprintf(run->error, sizeof(run->error), "%s (%u ms)",
			 reason ?: "timed out", run->cfg.timeout_ms);
		return;
	}
	name = strerrorname_np(-err);
	if (name)
		snprintf(run->error, sizeof(run->error), "%s (-%s)",
			 reason ?: "failed", name);
	else
		snprintf(run->error, sizeof(run->error), "%s (%d)",
			 reason ?: "failed", err);
}

/**
 * upath_run_progress() - report a bandwidth run's sampling window
 * @run: the run
 * @size: the size being measured
 * @bytes: measured bytes so far
 * @messages: messages completed in the window
 * @ns: its length
 *
 * What the module's progress event of a bandwidth run carries.
 */
void upath_run_progress(const struct upath_run *run, uint32_t size,
			uint64_t bytes, uint64_t messages, uint64_t ns)
{
	const struct kv_fields *f = &run_model_fields;
	struct kv_run ev;

	if (!run->ops || !run->ops->progress)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.path = KV_RUN_PATH_USER;
	run_model_set_uint(f, &ev, KVPERF_A_RUN_PROGRESS, run->progress);
	run_model_set_uint(f, &ev, KVPERF_A_RUN_CUR_SIZE, size);
	run_model_set_uint(f, &ev, KVPERF_A_RUN_BYTES, bytes);
	run_model_set_uint(f, &ev, KVPERF_A_RUN_INTERVAL_BYTES,
			   messages * size);
	run_model_set_uint(f, &ev, KVPERF_A_RUN_INTERVAL_MESSAGES, messages);
	run_model_set_uint(f, &ev, KVPERF_A_RUN_INTERVAL_NS, ns);
	run->ops->progress(run->ops->arg, &ev);
}

/* An I/O run's own settings, as the module reports them. */
static void upath_result_io_cfg(const struct upath_cfg *cfg,
				struct kv_run *out)
{
	const struct kv_fields *f = &run_model_fields;

	/* the module reports no inline threshold for I/O runs */
	out->has &= ~(1ULL << KVPERF_A_RUN_INLINE);
	run_model_set_uint(f, out, KVPERF_A_RUN_QD, cfg->qd);
	run_model_set_uint(f, out, KVPERF_A_RUN_REG, cfg->reg);
	/* as the module's frwr: windows are invalidated, by someone */
	if (cfg->reg == KVPERF_IO_REG_MW)
		run_model_set_uint(f, out, KVPERF_A_RUN_INV, cfg->inv);
	run_model_set_uint(f, out, KVPERF_A_RUN_SEGMENTS, cfg->segments);
	run_model_set_uint(f, out, KVPERF_A_RUN_QPS, cfg->qps);
	if (cfg->ncpus) {
		snprintf(out->cpus, sizeof(out->cpus), "%s", cfg->cpulist);
		KV_SET(out, KVPERF_A_RUN_CPUS);
	}
	if (cfg->read_pct)
		run_model_set_uint(f, out, KVPERF_A_RUN_READ_PCT,
				   cfg->read_pct);
	if (cfg->inline_data)
		run_model_set_uint(f, out, KVPERF_A_RUN_INLINE_DATA,
				   cfg->inline_data);
	if (cfg->bss)
		run_model_set_uint(f, out, KVPERF_A_RUN_BSS, cfg->bss);
	if (cfg->interval_ms)
		run_model_set_uint(f, out, KVPERF_A_RUN_INTERVAL_MS,
				   cfg->interval_ms);
	run_model_set_uint(f, out, KVPERF_A_RUN_STATS, cfg->stats);
}

/* The configuration as the module reports a run's (kvperf_fill_run_cfg). */
static void upath_result_cfg(const struct upath_cfg *cfg, struct kv_run *out)
{
	const struct kv_fields *f = &run_model_fields;

	run_model_set_uint(f, out, KVPERF_A_RUN_TYPE, cfg->type);
	run_model_set_uint(f, out, KVPERF_A_RUN_OP, cfg->op);
	memcpy(out->addr, cfg->addr, sizeof(out->addr));
	out->addr_len = cfg->addr_len;
	KV_SET(out, KVPERF_A_RUN_ADDR);
	run_model_set_uint(f, out, KVPERF_A_RUN_PORT, cfg->port);
	run_model_set_uint(f, out, KVPERF_A_RUN_SIZE, cfg->size);
	run_model_set_uint(f, out, KVPERF_A_RUN_SIZE_MAX, cfg->size_max);
	if (cfg->duration_ms)
		run_model_set_uint(f, out, KVPERF_A_RUN_DURATION_MS,
				   cfg->duration_ms);
	else
		run_model_set_uint(f, out, KVPERF_A_RUN_ITERATIONS,
				   cfg->iterations);
	if (cfg->warmup_ms)
		run_model_set_uint(f, out, KVPERF_A_RUN_WARMUP_MS,
				   cfg->warmup_ms);
	else
		run_model_set_uint(f, out, KVPERF_A_RUN_WARMUP, cfg->warmup);
	run_model_set_uint(f, out, KVPERF_A_RUN_POLL, cfg->poll);
	run_model_set_uint(f, out, KVPERF_A_RUN_INLINE, cfg->inline_size);
	if (cfg->verify)
		run_model_set_uint(f, out, KVPERF_A_RUN_VERIFY, 1);
	if (cfg->cpu >= 0)
		run_model_set_uint(f, out, KVPERF_A_RUN_CPU, cfg->cpu);
	run_model_set_uint(f, out, KVPERF_A_RUN_TIMEOUT_MS, cfg->timeout_ms);
	/* this thread posts as it is: bh is the kernel path's alone */
	run_model_set_uint(f, out, KVPERF_A_RUN_POST_CONTEXT,
			   KVPERF_POST_CONTEXT_PROCESS);
	if (cfg->type == KVPERF_RUN_TYPE_IO) {
		upath_result_io_cfg(cfg, out);
		return;
	}
	if (cfg->type != KVPERF_RUN_TYPE_BW) {
		run_model_set_uint(f, out, KVPERF_A_RUN_STATS, cfg->stats);
		return;
	}
	run_model_set_uint(f, out, KVPERF_A_RUN_TX_DEPTH, cfg->tx_depth);
	run_model_set_uint(f, out, KVPERF_A_RUN_QPS, cfg->qps);
	if (cfg->ncpus) {
		snprintf(out->cpus, sizeof(out->cpus), "%s", cfg->cpulist);
		KV_SET(out, KVPERF_A_RUN_CPUS);
	}
	run_model_set_uint(f, out, KVPERF_A_RUN_POST_LIST, cfg->post_list);
	run_model_set_uint(f, out, KVPERF_A_RUN_SIGNAL_EVERY,
			   cfg->signal_every);
	if (cfg->bidir)
		run_model_set_uint(f, out, KVPERF_A_RUN_BIDIR, 1);
	if (cfg->interval_ms)
		run_model_set_uint(f, out, KVPERF_A_RUN_INTERVAL_MS,
				   cfg->interval_ms);
}

static void upath_result_lat(const struct upath_lat_result *res, bool stats,
			     struct kv_lat_result *out)
{
	const struct kv_fields *f = &run_model_lat_fields;
	const struct upath_stats *st = &res->stats;

	run_model_set_uint(f, out, KVPERF_A_RESULT_SIZE, res->size);
	run_model_set_uint(f, out, KVPERF_A_RESULT_ITERATIONS, st->count);
	run_model_set_uint(f, out, KVPERF_A_RESULT_MEAN_PS, st->mean_ps);
	run_model_set_uint(f, out, KVPERF_A_RESULT_MISMATCHES,
			   res->mismatches);
	run_model_set_uint(f, out, KVPERF_A_RESULT_ELAPSED_NS,
			   res->elapsed_ns);
	/* what only per-iteration samples give: none with stats off */
	if (!stats)
		return;
	run_model_set_uint(f, out, KVPERF_A_RESULT_MIN_NS, st->min_ns);
	run_model_set_uint(f, out, KVPERF_A_RESULT_MAX_NS, st->max_ns);
	run_model_set_uint(f, out, KVPERF_A_RESULT_STDEV_PS, st->stdev_ps);
	run_model_set_uint(f, out, KVPERF_A_RESULT_P50_NS, st->p50_ns);
	run_model_set_uint(f, out, KVPERF_A_RESULT_P90_NS, st->p90_ns);
	run_model_set_uint(f, out, KVPERF_A_RESULT_P99_NS, st->p99_ns);
	run_model_set_uint(f, out, KVPERF_A_RESULT_P999_NS, st->p999_ns);
	run_model_set_uint(f, out, KVPERF_A_RESULT_P9999_NS, st->p9999_ns);
	run_model_set_uint(f, out, KVPERF_A_RESULT_HIST_REL_ERR_PPM,
			   st->rel_err_ppm);
}

static void upath_result_bw(const struct upath_run *run,
			    const struct upath_bw_result *res,
			    struct kv_bw_result *out)
{
	const struct kv_fields *f = &run_model_bw_fields;
	const struct kv_fields *qf = &run_model_qp_fields;
	const struct upath_cfg *cfg = &run->cfg;
	uint32_t i;

	run_model_set_uint(f, out, KVPERF_A_BW_RESULT_SIZE, res->size);
	run_model_set_uint(f, out, KVPERF_A_BW_RESULT_MESSAGES, res->messages);
	run_model_set_uint(f, out, KVPERF_A_BW_RESULT_BYTES, res->bytes);
	run_model_set_uint(f, out, KVPERF_A_BW_RESULT_ELAPSED_NS,
			   res->elapsed_ns);
	run_model_set_uint(f, out, KVPERF_A_BW_RESULT_PEAK_BPS, res->peak_bps);
	run_model_set_uint(f, out, KVPERF_A_BW_RESULT_CPU_NS, res->cpu_ns);
	run_model_set_uint(f, out, KVPERF_A_BW_RESULT_MISMATCHES,
			   res->mismatches);
	if (cfg->op == KVPERF_OP_SEND)
		run_model_set_uint(f, out, KVPERF_A_BW_RESULT_PEER_MESSAGES,
				   res->peer_messages);
	if (cfg->bidir) {
		run_model_set_uint(f, out, KVPERF_A_BW_RESULT_RX_MESSAGES,
				   res->rx_messages);
		run_model_set_uint(f, out, KVPERF_A_BW_RESULT_RX_BYTES,
				   res->rx_bytes);
		run_model_set_uint(f, out, KVPERF_A_BW_RESULT_RX_ELAPSED_NS,
				   res->rx_elapsed_ns);
	}
	for (i = 0; i < out->nqps; i++) {
		const struct upath_bw_qp_result *qr = &res->qp[i];
		struct kv_bw_qp *q = &out->qps[i];

		run_model_set_uint(qf, q, KVPERF_A_BW_QP_INDEX, i);
		run_model_set_uint(qf, q, KVPERF_A_BW_QP_CPU,
				   (uint32_t)qr->cpu);
		run_model_set_uint(qf, q, KVPERF_A_BW_QP_MESSAGES,
				   qr->messages);
		run_model_set_uint(qf, q, KVPERF_A_BW_QP_BYTES, qr->bytes);
		run_model_set_uint(qf, q, KVPERF_A_BW_QP_ELAPSED_NS,
				   qr->elapsed_ns);
		run_model_set_uint(qf, q, KVPERF_A_BW_QP_PEER_MESSAGES,
				   qr->peer_messages);
	}
}

/* One result of an I/O run and its queues, as the module fills them. */
static int upath_result_io(const struct upath_run *run,
			   const struct upath_io_dir_result *res,
			   struct kv_run *run_out)
{
	bool stats = run->cfg.stats == KVPERF_STATS_MODE_ON;
	const struct kv_fields *f = &run_model_lat_fields;
	const struct kv_fields *qf = &run_model_io_queue_fields;
	struct upath_lat_result lr = {
		.size = res->size,
		.stats = res->stats,
		.mismatches = res->mismatches,
		.elapsed_ns = res->elapsed_ns,
	};
	struct kv_lat_result *out;
	uint32_t i;

	out = run_model_add_lat(run_out);
	if (!out)
		return -ENOMEM;
	out->queues = calloc(run->cfg.qps, sizeof(*out->queues));
	if (!out->queues)
		return -ENOMEM;
	out->nqueues = run->cfg.qps;
	upath_result_lat(&lr, stats, out);
	run_model_set_uint(f, out, KVPERF_A_RESULT_OP, res->op);
	if (stats) {
		/* reg pre: no time registering or invalidating */
		run_model_set_uint(f, out, KVPERF_A_RESULT_REG_NS, res->reg_ns);
		run_model_set_uint(f, out, KVPERF_A_RESULT_INV_NS, res->inv_ns);
		run_model_set_uint(f, out, KVPERF_A_RESULT_CPU_NS, res->cpu_ns);
	}
	run_model_set_uint(f, out, KVPERF_A_RESULT_TARGET_CPU_NS,
			   res->target_cpu_ns);
	for (i = 0; i < out->nqueues; i++) {
		const struct upath_io_queue_result *qr = &res->queue[i];
		struct kv_io_queue *q = &out->queues[i];

		run_model_set_uint(qf, q, KVPERF_A_IO_QUEUE_INDEX, i);
		run_model_set_uint(qf, q, KVPERF_A_IO_QUEUE_CPU,
				   (uint32_t)qr->cpu);
		run_model_set_uint(qf, q, KVPERF_A_IO_QUEUE_ITERATIONS, qr->ios);
		run_model_set_uint(qf, q, KVPERF_A_IO_QUEUE_ELAPSED_NS,
				   qr->elapsed_ns);
		run_model_set_uint(qf, q, KVPERF_A_IO_QUEUE_MISMATCHES,
				   qr->mismatches);
		run_model_set_uint(qf, q, KVPERF_A_IO_QUEUE_MEAN_PS,
				   qr->stats.mean_ps);
		run_model_set_uint(qf, q, KVPERF_A_IO_QUEUE_TARGET_CPU_NS,
				   qr->target_cpu_ns);
		if (!stats)
			continue;
		run_model_set_uint(qf, q, KVPERF_A_IO_QUEUE_CPU_NS, qr->cpu_ns);
		run_model_set_uint(qf, q, KVPERF_A_IO_QUEUE_MIN_NS,
				   qr->stats.min_ns);
		run_model_set_uint(qf, q, KVPERF_A_IO_QUEUE_P50_NS,
				   qr->stats.p50_ns);
		run_model_set_uint(qf, q, KVPERF_A_IO_QUEUE_P99_NS,
				   qr->stats.p99_ns);
		run_model_set_uint(qf, q, KVPERF_A_IO_QUEUE_MAX_NS,
				   qr->stats.max_ns);
	}
	return 0;
}

/**
 * upath_run_result() - a user-path run as the run model has runs
 * @run: the run, once it ended
 * @out: receives it, path user, with the results of the sizes done;
 *	 run_model_free() it, also on error
 *
 * The fields the module's run-get reply has (kvperf_fill_run()), but the
 * id: a run of the user path is no kernel object and has none.
 *
 * Return: 0, or -ENOMEM.
 */
int upath_run_result(const struct upath_run *run, struct kv_run *out)
{
	const struct kv_fields *f = &run_model_fields;
	struct kv_lat_result *lat;
	struct kv_bw_result *bw;
	uint32_t i;

	memset(out, 0, sizeof(*out));
	out->path = KV_RUN_PATH_USER;
	upath_result_cfg(&run->cfg, out);
	run_model_set_uint(f, out, KVPERF_A_RUN_STATE, run->state);
	if (run->error[0]) {
		snprintf(out->error, sizeof(out->error), "%s", run->error);
		KV_SET(out, KVPERF_A_RUN_ERROR);
	}
	if (run->dev[0]) {
		snprintf(out->dev, sizeof(out->dev), "%s", run->dev);
		KV_SET(out, KVPERF_A_RUN_DEV);
	}
	snprintf(out->kernel, sizeof(out->kernel), "%s", run->kernel);
	KV_SET(out, KVPERF_A_RUN_KERNEL);
	if (run->mtu)
		run_model_set_uint(f, out, KVPERF_A_RUN_MTU, run->mtu);
	run_model_set_uint(f, out, KVPERF_A_RUN_PROGRESS, run->progress);
	for (i = 0; run->cfg.type == KVPERF_RUN_TYPE_IO && i < run->ndone; i++)
		if (upath_result_io(run, &run->io[i], out))
			return -ENOMEM;
	if (run->cfg.type == KVPERF_RUN_TYPE_IO)
		return 0;
	if (run->cfg.type == KVPERF_RUN_TYPE_BW) {
		run_model_set_uint(f, out, KVPERF_A_RUN_BYTES, run->bytes);
		for (i = 0; i < run->ndone; i++) {
			bw = run_model_add_bw(out, run->cfg.qps);
			if (!bw)
				return -ENOMEM;
			upath_result_bw(run, &run->bw[i], bw);
		}
		return 0;
	}
	for (i = 0; i < run->ndone; i++) {
		lat = run_model_add_lat(out);
		if (!lat)
			return -ENOMEM;
		upath_result_lat(&run->lat[i],
				 run->cfg.stats == KVPERF_STATS_MODE_ON, lat);
	}
	return 0;
}

/**
 * upath_run_exec() - run the client side of a run in this process
 * @cfg: what the run is asked to do
 * @ops: its reports while it runs, or NULL
 * @out: the run once it ended, done, failed or stopped, with its results;
 *	 run_model_free() it
 * @why: the reason of a refusal: static text, or this thread's until
 *	 its next call
 *
 * Runs the client side of the module's loops against any kvperf server,
 * kernel or user path, with the module's defaults and checks. A latency
 * run measures every size on one connection from this thread (on cpu when
 * given), a bandwidth run is upath_run_bw()'s. A signal caught by
 * upath_catch_signals() or @ops->should_stop stops it; it ends as stopped
 * with what it measured.
 *
 * Return: 0 with @out set, -EINVAL with @why when the configuration is
 * refused, -ENOMEM with @why when the run cannot be set up.
 */
int upath_run_exec(const struct kv_run_cfg *cfg,
		   const struct upath_run_ops *ops, struct kv_run *out,
		   const char **why)
{
	static __thread char refusal[RUN_CFG_WHY_LEN];
	const char *reason = NULL;
	struct upath_run run;
	struct utsname uts;
	int err;

	memset(out, 0, sizeof(*out));
	memset(&run, 0, sizeof(run));
	if (upath_cfg_init(&run.cfg, cfg, refusal, sizeof(refusal))) {
		*why = refusal;
		return -EINVAL;
	}
	run.ops = ops;
	run.start_ns = upath_now_ns();
	if (!uname(&uts))
		snprintf(run.kernel, sizeof(run.kernel), "%s", uts.release);
	if (upath_run_alloc(&run)) {
		upath_run_free(&run);
		*why = "cannot allocate the run";
		return -ENOMEM;
	}
	err = run.cfg.cpu >= 0 ? upath_pin(run.cfg.cpu) : 0;
	if (err) {
		reason = "cannot set the run's thread up";
	} else {
		run.state = KVPERF_RUN_STATE_CONNECTING;
		if (run.cfg.type == KVPERF_RUN_TYPE_IO)
			err = upath_run_io(&run, &reason);
		else if (run.cfg.type == KVPERF_RUN_TYPE_BW)
			err = upath_run_bw(&run, &reason);
		else
			err = upath_run_lat(&run, &reason);
	}
	upath_run_end(&run, err, reason);
	err = upath_run_result(&run, out);
	upath_run_free(&run);
	explicit_bzero(run.cfg.key, sizeof(run.cfg.key));
	if (err) {
		run_model_free(out);
		*why = "out of memory";
	}
	return err;
}
