// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: I/O runs, the client side. The run's thread starts one thread
 * per queue (one connection each, bound to the run's CPUs in turn); each
 * connects, sets its host up and waits until every queue is ready, so
 * that all measure together. While they run, the run's thread reports
 * progress from their shared counters: the interval lines when the run
 * asked for them. When all are done it adds their numbers and their
 * histograms up, keeping each queue's part. A sweep of block sizes does
 * all this once per size, smallest first, each on connections of its own:
 * the target admits, and the host pins, one size at a time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/kthread.h>
#include <linux/kvperf.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <rdma/rdma_cm.h>

#include "io.h"
#include "kvperf.h"
#include "run.h"
#include "run_events.h"

/**
 * struct kvperf_io_queue - one queue of an I/O run and its thread
 * @run: the run
 * @index: its number in the run
 * @cpu: CPU its thread is bound to, or -1
 * @conn: its connection
 * @host: its host side, NULL until set up
 * @hist: its latencies, per kvperf_io_dir() (stats on)
 * @r: what it measured
 * @task: its thread
 * @progress: its completed I/Os, warm-up included
 * @measured: its measured ones; the run's thread adds them up, so the
 *	      measured loops never share a counter
 */
struct kvperf_io_queue {
	struct kvperf_run *run;
	u32 index;
	int cpu;
	struct kvperf_conn conn;
	struct kvperf_io_host *host;
	struct kvperf_hist hist[KVPERF_IO_DIRS];
	struct kvperf_io_result r;
	struct task_struct *task;
	atomic64_t progress;
	atomic64_t measured;
};

/* The first failure of a queue is the run's; every queue ends. */
static void kvperf_run_io_abort(struct kvperf_run *run, int err,
				const char *reason)
{
	struct kvperf_run_io *io = &run->io;

	mutex_lock(&run->lock);
	if (!io->err && err != -EINTR) {
		io->err = err;
		io->reason = reason;
	}
	mutex_unlock(&run->lock);
	WRITE_ONCE(io->abort, true);
	wake_up(&io->wq);
}

static bool kvperf_run_io_ending(struct kvperf_run *run)
{
	return kvperf_run_should_stop(run);
}

static void kvperf_run_io_params(struct kvperf_run *run,
				 struct kvperf_io_params *p)
{
	const struct kvperf_run_cfg *cfg = &run->cfg;

	*p = (struct kvperf_io_params) {
		.op = cfg->op,
		.read_pct = cfg->read_pct,
		.bs = run->io.bs,
		.qd = cfg->qd,
		.segments = cfg->segments,
		.iterations = cfg->iterations,
		.duration_ns = (u64)cfg->duration_ms * NSEC_PER_MSEC,
		.warmup = cfg->warmup,
		.warmup_ns = (u64)cfg->warmup_ms * NSEC_PER_MSEC,
		.verify = cfg->verify,
		.inv_local = cfg->inv == KVPERF_IO_INV_LOCAL,
		.reg_pre = cfg->reg == KVPERF_IO_REG_PRE,
		.inline_data = cfg->inline_data,
	};
}

/**
 * kvperf_run_io_footprint() - what an I/O run's connections hold
 * @cfg: the run
 * @f: receives their buffers (capsules and data blocks) and queues, at
 *     the largest block size (a sweep's sizes take turns)
 */
void kvperf_run_io_footprint(const struct kvperf_run_cfg *cfg,
			     struct kvperf_footprint *f)
{
	struct kvperf_io_params p = {
		.bs = cfg->size_max,
		.qd = cfg->qd,
	};
	struct kvperf_conn_attr attr;

	kvperf_io_host_conn_attr(&p, cfg->poll, &attr);
	kvperf_conn_footprint(&attr, f);
	f->buf_bytes += kvperf_io_host_pinned(&p);
	f->buf_bytes *= cfg->qps;
	f->queue_bytes *= cfg->qps;
}

/* Connect the queue and set its host up; 0 when it is ready to run. */
static int kvperf_io_queue_setup(struct kvperf_io_queue *q,
				 struct kvperf_io_params *p)
{
	struct kvperf_run *run = q->run;
	struct kvperf_conn *c = &q->conn;
	struct kvperf_conn_attr attr;
	int err;

	kvperf_io_host_conn_attr(p, run->cfg.poll, &attr);
	/* as nvme-rdma's queues: memory near the CPU, CQs spread out */
	attr.node = q->cpu >= 0 ? cpu_to_node(q->cpu) : NUMA_NO_NODE;
	attr.any_vector = true;
	err = kvperf_run_connect(run, c, &attr);
	if (err)
		return err;
	q->host = kvperf_io_host_create(c, p);
	if (IS_ERR(q->host)) {
		err = PTR_ERR(q->host);
		q->host = NULL;
		kvperf_conn_fail(c, err, c->reason);
		return err;
	}
	return kvperf_io_host_start(q->host, c->credits);
}

static bool kvperf_io_go(struct kvperf_run *run)
{
	return READ_ONCE(run->io.go) || kvperf_run_io_ending(run);
}

static void kvperf_io_queue_teardown(struct kvperf_io_queue *q)
{
	struct kvperf_conn *c = &q->conn;

	if (c->cm_id) {
		rdma_disconnect(c->cm_id);
		/* drains, and gives the MRs back to the pool first */
		kvperf_conn_destroy(c);
		kvperf_io_host_free(q->host);
		rdma_destroy_id(c->cm_id);
		c->cm_id = NULL;
	} else {
		kvperf_io_host_free(q->host);
	}
	q->host = NULL;
}

static int kvperf_io_queue_thread(void *arg)
{
	struct kvperf_io_queue *q = arg;
	struct kvperf_run *run = q->run;
	struct kvperf_run_io *io = &run->io;
	struct kvperf_io_params p;
	u32 i;
	int err;

	kvperf_run_io_params(run, &p);
	p.progress = &q->progress;
	p.measured = &q->measured;
	/* stats off: nothing records */
	for (i = 0; i < kvperf_io_dirs(run->cfg.read_pct); i++)
		if (run->cfg.stats == KVPERF_STATS_MODE_ON)
			p.hist[i] = &q->hist[i];
	err = kvperf_io_queue_setup(q, &p);
	if (!err) {
		atomic_inc(&io->connected);
		wake_up(&io->wq);
		wait_event_idle(io->wq, kvperf_io_go(run));
		/* the run's thread set go after it saw every queue ready */
		err = kvperf_run_io_ending(run) ? -EINTR : 0;
	}
	if (!err)
		err = kvperf_io_host_run(q->host, &q->r);
	if (err)
		kvperf_run_io_abort(run, err, q->conn.reason);
	else
		atomic_inc(&io->done);
	wake_up(&io->wq);
	kvperf_io_queue_teardown(q);
	return 0;
}

/* Every queue, its connection and histograms; 0 or -ENOMEM. */
static int kvperf_run_io_alloc(struct kvperf_run *run)
{
	const struct kvperf_run_cfg *cfg = &run->cfg;
	struct kvperf_run_io *io = &run->io;
	u32 i, d;
	int err;

	io->queues = kcalloc(cfg->qps, sizeof(*io->queues), GFP_KERNEL);
	if (!io->queues)
		return -ENOMEM;
	for (i = 0; i < cfg->qps; i++) {
		struct kvperf_io_queue *q = &io->queues[i];

		q->run = run;
		q->index = i;
		q->cpu = cfg->ncpus ? cfg->cpus[i % cfg->ncpus] : cfg->cpu;
		kvperf_conn_init(&q->conn, msecs_to_jiffies(cfg->timeout_ms),
				 kvperf_run_should_stop, run);
		/* stats off: nothing records, so no buckets */
		if (cfg->stats != KVPERF_STATS_MODE_ON)
			continue;
		for (d = 0; d < kvperf_io_dirs(cfg->read_pct); d++) {
			err = kvperf_hist_init(&q->hist[d], KVPERF_HIST_MAX_NS);
			if (err)
				return err;
		}
	}
	return 0;
}

static void kvperf_run_io_free(struct kvperf_run *run)
{
	struct kvperf_run_io *io = &run->io;
	u32 i, d;

	for (i = 0; io->queues && i < run->cfg.qps; i++)
		for (d = 0; d < KVPERF_IO_DIRS; d++)
			kvperf_hist_destroy(&io->queues[i].hist[d]);
	kfree(io->queues);
	io->queues = NULL;
}

/* Start a thread per queue, each on its CPU when it has one. */
static int kvperf_run_io_spawn(struct kvperf_run *run)
{
	struct kvperf_run_io *io = &run->io;
	int err = 0;
	u32 i;

	for (i = 0; i < run->cfg.qps; i++) {
		struct kvperf_io_queue *q = &io->queues[i];
		struct task_struct *t;

		t = kthread_create(kvperf_io_queue_thread, q, "kvperf-run%u/%u",
				   run->id, i);
		if (IS_ERR(t)) {
			err = PTR_ERR(t);
			kvperf_run_io_abort(run, err,
					    "cannot start the run's threads");
			break;
		}
		get_task_struct(t);
		q->task = t;
	}
	cpus_read_lock();
	for (i = 0; i < run->cfg.qps && io->queues[i].task; i++) {
		struct kvperf_io_queue *q = &io->queues[i];

		if (q->cpu >= 0 && cpu_online(q->cpu)) {
			kthread_bind(q->task, q->cpu);
		} else if (q->cpu >= 0 && !err) {
			err = -ENODEV;
			kvperf_run_io_abort(run, err,
					    "a CPU of the run went offline");
		}
		wake_up_process(q->task);
	}
	cpus_read_unlock();
	return err;
}

/* Stop the queues' threads (they tear their queues down) and reap them. */
static void kvperf_run_io_reap(struct kvperf_run *run)
{
	struct kvperf_run_io *io = &run->io;
	u32 i;

	for (i = 0; i < run->cfg.qps; i++) {
		struct kvperf_io_queue *q = &io->queues[i];

		if (!q->task)
			continue;
		/* a thread stopped before it ran has nothing to tear down */
		kthread_stop(q->task);
		put_task_struct(q->task);
		q->task = NULL;
	}
}

static bool kvperf_run_io_all(struct kvperf_run *run, atomic_t *v)
{
	return atomic_read(v) == run->cfg.qps || kvperf_run_io_ending(run);
}

/* The step's I/Os so far: all of them, or the measured ones. */
static u64 kvperf_run_io_count(struct kvperf_run *run, bool measured)
{
	u64 n = 0;
	u32 i;

	for (i = 0; i < run->cfg.qps; i++)
		n += atomic64_read(measured ? &run->io.queues[i].measured :
					      &run->io.queues[i].progress);
	return n;
}

/*
 * While the queues run: the run's progress from their counters at least
 * once a second, a progress event about once a second, or with an
 * interval, one per interval with its I/Os.
 */
static void kvperf_run_io_report(struct kvperf_run *run)
{
	struct kvperf_run_io *io = &run->io;
	u64 interval_ns = (u64)run->cfg.interval_ms * NSEC_PER_MSEC;
	u64 period = interval_ns ?: NSEC_PER_SEC;
	u64 tick_ns = ktime_get_ns(), now;
	u64 ios0 = kvperf_run_io_count(run, false), ios;

	while (!kvperf_run_io_all(run, &io->done)) {
		now = ktime_get_ns();
		ios = kvperf_run_io_count(run, false);
		atomic64_set(&run->progress, io->ios_before + ios);
		if (now - tick_ns < period) {
			wait_event_timeout(io->wq,
					   kvperf_run_io_all(run, &io->done),
					   min(nsecs_to_jiffies(period -
								(now - tick_ns)) + 1,
					       (unsigned long)HZ));
			continue;
		}
		if (interval_ns) {
			struct kvperf_run_bw_progress ev = {
				.size = io->bs,
				.bytes = kvperf_run_io_count(run, true) * io->bs,
				.interval_bytes = (ios - ios0) * io->bs,
				.interval_messages = ios - ios0,
				.interval_ns = now - tick_ns,
			};

			ios0 = ios;
			kvperf_run_publish_progress(run, &ev);
		} else {
			kvperf_run_publish_progress(run, NULL);
		}
		tick_ns = now;
	}
}

/*
 * Add the queues' numbers up into the step's results (one, or a mixed
 * run's reads' and writes'), keeping each queue's part. The step's time
 * runs from the first queue's first measured submission to the last
 * queue's last measured completion; its CPU times, the host's and the
 * target's, are the step's in each of its results.
 */
static void kvperf_run_io_result(struct kvperf_run *run, u32 step)
{
	bool stats = run->cfg.stats == KVPERF_STATS_MODE_ON;
	u32 dirs = kvperf_io_dirs(run->cfg.read_pct);
	u64 start = U64_MAX, end = 0;
	u32 i, d;

	for (i = 0; i < run->cfg.qps; i++) {
		const struct kvperf_io_result *r = &run->io.queues[i].r;

		if (!r->start_ns)
			continue;
		start = min(start, r->start_ns);
		end = max(end, r->start_ns + r->elapsed_ns);
	}
	mutex_lock(&run->lock);
	for (d = 0; d < dirs; d++) {
		struct kvperf_result *res = &run->results[step * dirs + d];
		u64 ios = 0;

		res->elapsed_ns = end > start ? end - start : 0;
		for (i = 0; i < run->cfg.qps; i++) {
			struct kvperf_io_queue *q = &run->io.queues[i];
			struct kvperf_io_queue_result *qr = &res->queue[i];

			qr->cpu = q->cpu;
			qr->ios = q->r.ios[d];
			qr->elapsed_ns = q->r.elapsed_ns;
			qr->mismatches = q->r.mismatches[d];
			qr->cpu_ns = q->r.cpu_ns;
			qr->target_cpu_ns = q->r.peer_cpu_ns;
			ios += qr->ios;
			res->mismatches += qr->mismatches;
			res->reg_ns += q->r.reg_ns[d];
			res->inv_ns += q->r.inv_ns[d];
			res->cpu_ns += q->r.cpu_ns;
			res->target_cpu_ns += q->r.peer_cpu_ns;
			if (stats) {
				kvperf_hist_summarize(&q->hist[d], &qr->stats);
				kvperf_hist_merge(&res->hist, &q->hist[d]);
			} else {
				kvperf_stats_from_elapsed(&qr->stats, qr->ios,
							  qr->elapsed_ns, 1);
			}
		}
		if (stats)
			kvperf_hist_summarize(&res->hist, &res->stats);
		else
			kvperf_stats_from_elapsed(&res->stats, ios,
						  res->elapsed_ns, 1);
	}
	run->ndone = (step + 1) * dirs;
	mutex_unlock(&run->lock);
}

/*
 * One block size: connect the queues, run their I/Os together, tear them
 * down and keep the results (the @step-th size's).
 */
static int kvperf_run_io_step(struct kvperf_run *run, u32 step)
{
	struct kvperf_run_io *io = &run->io;
	u64 ios;
	int err;

	io->bs = kvperf_io_size(run->cfg.bss, run->cfg.size, step);
	atomic_set(&io->connected, 0);
	atomic_set(&io->done, 0);
	WRITE_ONCE(io->go, false);
	err = kvperf_run_io_alloc(run);
	if (err) {
		io->reason = "cannot allocate the run's queues";
		goto out;
	}
	err = kvperf_run_io_spawn(run);
	if (!err) {
		wait_event_idle(io->wq, kvperf_run_io_all(run, &io->connected));
		if (!kvperf_run_io_ending(run)) {
			if (!step)
				kvperf_run_set_state(run,
						     KVPERF_RUN_STATE_RUNNING);
			WRITE_ONCE(io->go, true);
			wake_up_all(&io->wq);
			kvperf_run_io_report(run);
		}
	}
	/* every queue's thread is past its measurement when this returns */
	kvperf_run_io_reap(run);
	ios = kvperf_run_io_count(run, false);
	atomic64_set(&run->progress, io->ios_before + ios);
	io->ios_before += ios;
	mutex_lock(&run->lock);
	err = io->err;
	mutex_unlock(&run->lock);
	if (!err && kvperf_run_should_stop(run))
		err = -EINTR;
	if (!err)
		kvperf_run_io_result(run, step);
out:
	kvperf_run_io_free(run);
	return err;
}

/**
 * kvperf_run_io() - an I/O run: for each of its block sizes, connect its
 * queues, run their I/Os together, tear them down
 * @run: the run, its results allocated
 *
 * Return: 0, -EINTR when stopped, or why it failed (@run->io.reason
 * says why).
 */
int kvperf_run_io(struct kvperf_run *run)
{
	u32 step, steps = kvperf_io_sizes(run->cfg.bss);
	int err = 0;

	for (step = 0; step < steps && !err; step++)
		err = kvperf_run_io_step(run, step);
	return err;
}
