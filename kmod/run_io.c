// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: I/O runs, the client side: one connection whose host keeps qd
 * storage-shaped I/Os outstanding against a kvperf target.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kvperf.h>
#include <rdma/rdma_cm.h>

#include "io.h"
#include "kvperf.h"
#include "run.h"
#include "run_events.h"

/* A progress event; with an interval, the interval's I/Os as messages. */
static void kvperf_run_io_tick(void *arg, const struct kvperf_io_interval *iv)
{
	struct kvperf_run *run = arg;
	struct kvperf_run_bw_progress ev;

	if (!iv) {
		kvperf_run_publish_progress(run, NULL);
		return;
	}
	ev = (struct kvperf_run_bw_progress) {
		.size = run->cfg.size,
		.bytes = iv->measured_bytes,
		.interval_bytes = iv->bytes,
		.interval_messages = iv->ios,
		.interval_ns = iv->ns,
	};
	kvperf_run_publish_progress(run, &ev);
}

static void kvperf_run_io_params(struct kvperf_run *run,
				 struct kvperf_io_params *p)
{
	const struct kvperf_run_cfg *cfg = &run->cfg;

	*p = (struct kvperf_io_params) {
		.op = cfg->op,
		.read_pct = cfg->read_pct,
		.bs = cfg->size,
		.qd = cfg->qd,
		.segments = cfg->segments,
		.iterations = cfg->iterations,
		.duration_ns = (u64)cfg->duration_ms * NSEC_PER_MSEC,
		.warmup = cfg->warmup,
		.warmup_ns = (u64)cfg->warmup_ms * NSEC_PER_MSEC,
		.verify = cfg->verify,
		.inv_local = cfg->inv == KVPERF_IO_INV_LOCAL,
		.reg_pre = cfg->reg == KVPERF_IO_REG_PRE,
		.progress = &run->progress,
		.interval_ns = (u64)cfg->interval_ms * NSEC_PER_MSEC,
		.tick = kvperf_run_io_tick,
		.tick_arg = run,
	};
}

/**
 * kvperf_run_io_footprint() - what an I/O run's connection holds
 * @cfg: the run
 * @f: receives its buffers (capsules and data blocks) and queues
 */
void kvperf_run_io_footprint(const struct kvperf_run_cfg *cfg,
			     struct kvperf_footprint *f)
{
	struct kvperf_io_params p = {
		.bs = cfg->size,
		.qd = cfg->qd,
	};
	struct kvperf_conn_attr attr;

	kvperf_io_host_conn_attr(&p, cfg->poll, &attr);
	kvperf_conn_footprint(&attr, f);
	f->buf_bytes += kvperf_io_host_pinned(&p);
}

/*
 * The run's results (one, or a mixed run's reads' and writes'): their
 * latencies, the run's time and verification.
 */
static void kvperf_run_io_result(struct kvperf_run *run,
				 const struct kvperf_io_result *r)
{
	u32 i;

	mutex_lock(&run->lock);
	for (i = 0; i < run->nresults; i++) {
		struct kvperf_result *res = &run->results[i];

		res->elapsed_ns = r->elapsed_ns;
		res->mismatches = r->mismatches[i];
		res->reg_ns = r->reg_ns[i];
		res->inv_ns = r->inv_ns[i];
		if (run->cfg.stats == KVPERF_STATS_MODE_ON)
			kvperf_hist_summarize(&res->hist, &res->stats);
		else
			kvperf_stats_from_elapsed(&res->stats, r->ios[i],
						  r->elapsed_ns, 1);
	}
	run->ndone = run->nresults;
	mutex_unlock(&run->lock);
}

/**
 * kvperf_run_io() - an I/O run: connect, run the I/Os, tear down
 * @run: the run, its one result allocated
 * @reason: receives why it failed
 *
 * Return: 0, -EINTR when stopped, or why it failed.
 */
int kvperf_run_io(struct kvperf_run *run, const char **reason)
{
	struct kvperf_conn *c = &run->conn;
	struct kvperf_io_host *h = NULL;
	struct kvperf_conn_attr attr;
	struct kvperf_io_params p;
	struct kvperf_io_result r;
	u32 i;
	int err;

	kvperf_run_io_params(run, &p);
	/* stats off: nothing records */
	for (i = 0; i < run->nresults; i++)
		if (run->cfg.stats == KVPERF_STATS_MODE_ON)
			p.hist[i] = &run->results[i].hist;
	kvperf_io_host_conn_attr(&p, run->cfg.poll, &attr);

	err = kvperf_run_connect(run, c, &attr);
	if (!err) {
		h = kvperf_io_host_create(c, &p);
		if (IS_ERR(h)) {
			err = PTR_ERR(h);
			kvperf_conn_fail(c, err, c->reason);
		}
	}
	if (!err)
		err = kvperf_io_host_start(h, c->credits);
	if (!err) {
		kvperf_run_set_state(run, KVPERF_RUN_STATE_RUNNING);
		err = kvperf_io_host_run(h, &r);
	}
	if (!err)
		kvperf_run_io_result(run, &r);

	if (c->cm_id) {
		rdma_disconnect(c->cm_id);
		/* drains, and gives the MRs back to the pool first */
		kvperf_conn_destroy(c);
		kvperf_io_host_free(h);
		rdma_destroy_id(c->cm_id);
	} else {
		kvperf_io_host_free(h);
	}
	*reason = c->reason;
	return err;
}
