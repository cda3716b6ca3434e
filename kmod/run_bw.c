// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: bandwidth runs. The run's thread starts one worker thread per
 * CPU asked for (one, unbound or on the run's cpu, by default) and deals
 * the queue pairs to them in turn; each worker connects its own queue
 * pairs, with buffers on its CPU's NUMA node and CQs spread over the
 * completion vectors, and drives them through every message size. Per
 * size the workers prepare and warm up on their own, then wait for the
 * run's thread to start the measured phase of all of them at once; while
 * they measure, the run's thread samples the completed messages every
 * window (the run's interval, or a second) for the peak rate, the progress
 * events and the debugfs series, and when all are done it adds their
 * numbers up.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/kthread.h>
#include <linux/kvperf.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <rdma/rdma_cm.h>

#include "kvperf.h"
#include "run.h"
#include "run_events.h"

/**
 * kvperf_run_bw_alloc() - allocate a bandwidth run's results and series
 * @run: the run, @run->nresults set
 *
 * Return: 0 or -ENOMEM; kvperf_run_bw_free() frees what was allocated.
 */
int kvperf_run_bw_alloc(struct kvperf_run *run)
{
	struct kvperf_run_bw *bw = &run->bw;
	u32 i;

	bw->results = kcalloc(run->nresults, sizeof(*bw->results),
			      GFP_KERNEL);
	if (!bw->results)
		return -ENOMEM;
	for (i = 0; i < run->nresults; i++) {
		bw->results[i].size = run->cfg.size << i;
		bw->results[i].qp = kcalloc(run->cfg.qps,
					    sizeof(*bw->results[i].qp),
					    GFP_KERNEL);
		if (!bw->results[i].qp)
			return -ENOMEM;
	}
	bw->series = kvcalloc(KVPERF_BW_SERIES_MAX, sizeof(*bw->series),
			      GFP_KERNEL);
	bw->qps = kcalloc(run->cfg.qps, sizeof(*bw->qps), GFP_KERNEL);
	bw->nworkers = run->cfg.ncpus ?: 1;
	bw->workers = kcalloc(bw->nworkers, sizeof(*bw->workers), GFP_KERNEL);
	if (!bw->series || !bw->qps || !bw->workers)
		return -ENOMEM;
	return 0;
}

/**
 * kvperf_run_bw_free() - free what kvperf_run_bw_alloc() allocated
 * @run: the run, its threads ended
 */
void kvperf_run_bw_free(struct kvperf_run *run)
{
	struct kvperf_run_bw *bw = &run->bw;
	u32 i;

	for (i = 0; bw->results && i < run->nresults; i++)
		kfree(bw->results[i].qp);
	kfree(bw->results);
	kvfree(bw->series);
	kfree(bw->qps);
	kfree(bw->workers);
}

/* The first failure of any thread is the run's; everyone ends. */
static void kvperf_run_bw_abort(struct kvperf_run *run, int err,
				const char *reason)
{
	struct kvperf_run_bw *bw = &run->bw;

	mutex_lock(&run->lock);
	if (!bw->err && err != -EINTR) {
		bw->err = err;
		bw->reason = reason;
	}
	mutex_unlock(&run->lock);
	WRITE_ONCE(bw->abort, true);
	wake_up(&bw->wq);
}

/*
 * Wait until a counter of the run reaches @target; -EINTR when the run is
 * stopping. The acquire pairs with the release of whoever counted, so
 * what they wrote before is seen.
 */
static int kvperf_run_bw_wait(struct kvperf_run *run, const atomic_t *v,
			      int target)
{
	while (atomic_read_acquire(v) < target) {
		if (kvperf_run_should_stop(run))
			return -EINTR;
		wait_event_timeout(run->bw.wq,
				   atomic_read_acquire(v) >= target ||
				   kvperf_run_should_stop(run), HZ / 10);
	}
	return 0;
}

/* Count one more and wake who waits for it (see kvperf_run_bw_wait()). */
static void kvperf_run_bw_count(struct kvperf_run *run, atomic_t *v)
{
	atomic_inc_return_release(v);
	wake_up(&run->bw.wq);
}

static void kvperf_bw_params(const struct kvperf_run_cfg *cfg,
			     struct kvperf_bw_params *p)
{
	p->op = cfg->op;
	p->tx_depth = cfg->tx_depth;
	p->post_list = cfg->post_list;
	p->signal_every = cfg->signal_every;
	p->iterations = cfg->iterations;
	p->duration_ns = (u64)cfg->duration_ms * NSEC_PER_MSEC;
	p->warmup = cfg->warmup;
	p->warmup_ns = (u64)cfg->warmup_ms * NSEC_PER_MSEC;
}

/**
 * kvperf_run_bw_conn_attr() - the shape of a bandwidth run's connections
 * @cfg: the run's configuration
 * @node: NUMA node of the buffers, or NUMA_NO_NODE
 * @attr: receives it
 */
void kvperf_run_bw_conn_attr(const struct kvperf_run_cfg *cfg, int node,
			     struct kvperf_conn_attr *attr)
{
	*attr = (struct kvperf_conn_attr) {
		.poll = cfg->poll,
		.op = cfg->op,
		/* only a bidir run's server writes to or reads from us */
		.local_only = !cfg->bidir,
		.size_max = cfg->size_max,
		.inline_size = cfg->inline_size,
		.send_depth = cfg->tx_depth + KVPERF_SEND_DEPTH,
		.recv_depth = KVPERF_RECV_DEPTH,
		.node = node,
		.any_vector = true,
	};
	if (cfg->bidir && cfg->op == KVPERF_OP_SEND) {
		attr->recv_depth += cfg->tx_depth;
		attr->recv_slack = KVPERF_RECV_SLACK;
	}
}

static int kvperf_bw_worker_connect(struct kvperf_bw_worker *w)
{
	struct kvperf_run *run = w->run;
	const struct kvperf_run_cfg *cfg = &run->cfg;
	bool recv_data = cfg->bidir && cfg->op == KVPERF_OP_SEND;
	struct kvperf_conn_attr attr;
	unsigned int i;
	int err;

	kvperf_run_bw_conn_attr(cfg, w->cpu >= 0 ? cpu_to_node(w->cpu) :
					       NUMA_NO_NODE, &attr);
	for (i = 0; i < w->nqps; i++) {
		struct kvperf_conn *c = w->qps[i]->c;

		c->count_data = recv_data;
		err = kvperf_run_connect(run, c, &attr);
		if (err)
			return err;
	}
	return 0;
}

static int kvperf_bw_worker_phase(struct kvperf_bw_worker *w, u32 size,
				  bool warmup, u64 deadline_ns)
{
	unsigned long timeout = msecs_to_jiffies(w->run->cfg.timeout_ms);
	unsigned int i;

	for (i = 0; i < w->nqps; i++)
		kvperf_bw_phase_start(w->qps[i], size, warmup);
	if (warmup)
		return kvperf_bw_drive(w->qps, w->nqps, &w->waiter,
				       deadline_ns, timeout);
	return 0;
}

/* Prepare, warm up and START every queue pair of the worker. */
static int kvperf_bw_worker_prepare(struct kvperf_bw_worker *w, u32 size)
{
	const struct kvperf_run_cfg *cfg = &w->run->cfg;
	unsigned int i;
	int err;

	for (i = 0; i < w->nqps; i++) {
		struct kvperf_conn *c = w->qps[i]->c;

		WRITE_ONCE(c->expect_len, size);
		err = kvperf_bw_control(c, KVPERF_CTRL_SIZE, size);
		if (err)
			return err;
		if (cfg->verify) {
			kvperf_buf_fill(&c->tx, size, size);
			kvperf_buf_for_device(c, &c->tx, size);
		}
	}
	if (cfg->warmup || cfg->warmup_ms) {
		u64 deadline = cfg->warmup_ms ? ktime_get_ns() +
			(u64)cfg->warmup_ms * NSEC_PER_MSEC : 0;

		err = kvperf_bw_worker_phase(w, size, true, deadline);
		if (err)
			return err;
	}
	for (i = 0; i < w->nqps; i++) {
		err = kvperf_bw_control(w->qps[i]->c, KVPERF_CTRL_START, 0);
		if (err)
			return err;
	}
	return kvperf_bw_worker_phase(w, size, false, 0);
}

/* Collect each queue pair's numbers and the server's report. */
static int kvperf_bw_worker_collect(struct kvperf_bw_worker *w,
				    struct kvperf_bw_result *res, u64 cpu_ns)
{
	struct kvperf_run *run = w->run;
	unsigned int i;
	int err;

	for (i = 0; i < w->nqps; i++) {
		struct kvperf_run_qp *rq =
			container_of(w->qps[i], struct kvperf_run_qp, bw);
		struct kvperf_bw_qp_result *qr = &res->qp[rq->index];
		struct kvperf_bw_block b = {};

		err = kvperf_bw_finish(w->qps[i], &b);
		if (err)
			return err;
		cpu_ns += b.handler_ns;
		mutex_lock(&run->lock);
		qr->cpu = w->cpu;
		qr->messages = b.messages;
		qr->bytes = b.messages * res->size;
		qr->elapsed_ns = b.elapsed_ns;
		qr->start_ns = b.start_ns;
		qr->end_ns = b.end_ns;
		qr->peer_messages = b.report.received;
		res->mismatches += b.report.mismatches;
		res->rx_messages += b.report.tx_messages;
		res->rx_elapsed_ns = max(res->rx_elapsed_ns,
					 b.report.tx_elapsed_ns);
		mutex_unlock(&run->lock);
	}
	mutex_lock(&run->lock);
	res->cpu_ns += cpu_ns;
	mutex_unlock(&run->lock);
	return 0;
}

static int kvperf_bw_worker_size(struct kvperf_bw_worker *w, u32 i)
{
	struct kvperf_run *run = w->run;
	struct kvperf_run_bw *bw = &run->bw;
	struct kvperf_bw_result *res = &bw->results[i];
	u64 deadline = 0, cpu0;
	int err;

	err = kvperf_run_bw_wait(run, &bw->next, i + 1);
	if (!err)
		err = kvperf_bw_worker_prepare(w, res->size);
	if (err)
		return err;
	kvperf_run_bw_count(run, &bw->ready);
	err = kvperf_run_bw_wait(run, &bw->go, i + 1);
	if (err)
		return err;

	if (run->cfg.duration_ms)
		deadline = bw->go_ns + (u64)run->cfg.duration_ms * NSEC_PER_MSEC;
	cpu0 = kvperf_thread_cpu_ns();
	err = kvperf_bw_drive(w->qps, w->nqps, &w->waiter, deadline,
			      msecs_to_jiffies(run->cfg.timeout_ms));
	if (!err)
		err = kvperf_bw_worker_collect(w, res,
					       kvperf_thread_cpu_ns() -
					       cpu0);
	if (err)
		return err;
	kvperf_run_bw_count(run, &bw->done);
	return 0;
}

/* The reason of the first connection of the worker that failed. */
static const char *kvperf_bw_worker_reason(struct kvperf_bw_worker *w)
{
	unsigned int i;

	for (i = 0; i < w->nqps; i++)
		if (READ_ONCE(w->qps[i]->c->error) || w->qps[i]->c->reason)
			return w->qps[i]->c->reason;
	return NULL;
}

static void kvperf_bw_worker_teardown(struct kvperf_bw_worker *w)
{
	unsigned int i;

	for (i = 0; i < w->nqps; i++) {
		struct kvperf_conn *c = w->qps[i]->c;

		if (c->cm_id) {
			rdma_disconnect(c->cm_id);
			kvperf_conn_destroy(c);
			rdma_destroy_id(c->cm_id);
			c->cm_id = NULL;
		}
		kvperf_bw_qp_destroy(w->qps[i]);
	}
}

static int kvperf_bw_worker_thread(void *arg)
{
	struct kvperf_bw_worker *w = arg;
	struct kvperf_run *run = w->run;
	u32 i;
	int err;

	err = kvperf_bw_worker_connect(w);
	if (!err)
		kvperf_run_bw_count(run, &run->bw.connected);
	for (i = 0; !err && i < run->nresults; i++)
		err = kvperf_bw_worker_size(w, i);
	if (err)
		kvperf_run_bw_abort(run, err, kvperf_bw_worker_reason(w));
	kvperf_bw_worker_teardown(w);
	return 0;
}

/* Set the queue pairs up and deal them to the workers. */
static int kvperf_run_bw_setup(struct kvperf_run *run)
{
	const struct kvperf_run_cfg *cfg = &run->cfg;
	struct kvperf_run_bw *bw = &run->bw;
	struct kvperf_bw_params p;
	u32 i;
	int err;

	kvperf_bw_params(cfg, &p);
	for (i = 0; i < bw->nworkers; i++) {
		struct kvperf_bw_worker *w = &bw->workers[i];

		w->run = run;
		w->index = i;
		w->cpu = cfg->ncpus ? cfg->cpus[i] : cfg->cpu;
		kvperf_bw_waiter_init(&w->waiter, NULL);
	}
	for (i = 0; i < cfg->qps; i++) {
		struct kvperf_run_qp *rq = &bw->qps[i];
		struct kvperf_bw_worker *w = &bw->workers[i % bw->nworkers];

		rq->index = i;
		rq->cpu = w->cpu;
		kvperf_conn_init(&rq->conn, msecs_to_jiffies(cfg->timeout_ms),
				 kvperf_run_should_stop, run);
		err = kvperf_bw_qp_init(&rq->bw, &rq->conn, &p, &w->waiter);
		if (err) {
			while (i--)
				kvperf_bw_qp_destroy(&bw->qps[i].bw);
			return err;
		}
		w->qps[w->nqps++] = &rq->bw;
	}
	return 0;
}

static int kvperf_run_bw_spawn(struct kvperf_run *run)
{
	struct kvperf_run_bw *bw = &run->bw;
	int err = 0;
	u32 i;

	for (i = 0; i < bw->nworkers; i++) {
		struct kvperf_bw_worker *w = &bw->workers[i];
		struct task_struct *t;

		t = kthread_create(kvperf_bw_worker_thread, w, "kvperf-run%u/%u",
				   run->id, i);
		if (IS_ERR(t)) {
			err = PTR_ERR(t);
			kvperf_run_bw_abort(run, err,
					    "cannot start the run's threads");
			break;
		}
		get_task_struct(t);
		w->task = t;
		w->waiter.task = t;
	}
	/* even after a failure: each thread frees its own queue pairs */
	cpus_read_lock();
	for (i = 0; i < bw->nworkers && bw->workers[i].task; i++) {
		struct kvperf_bw_worker *w = &bw->workers[i];

		if (w->cpu >= 0 && cpu_online(w->cpu)) {
			kthread_bind(w->task, w->cpu);
		} else if (w->cpu >= 0 && !err) {
			err = -ENODEV;
			kvperf_run_bw_abort(run, err,
					    "a CPU of the run went offline");
		}
		wake_up_process(w->task);
	}
	cpus_read_unlock();
	return err;
}

/* Stop the workers (they tear their queue pairs down) and collect them. */
static void kvperf_run_bw_reap(struct kvperf_run *run)
{
	struct kvperf_run_bw *bw = &run->bw;
	u32 i;

	WRITE_ONCE(bw->abort, true);
	wake_up(&bw->wq);
	for (i = 0; i < bw->nworkers; i++) {
		struct kvperf_bw_worker *w = &bw->workers[i];

		if (!w->task) {
			/* never started: its queue pairs are ours to free */
			kvperf_bw_worker_teardown(w);
			continue;
		}
		wake_up(&w->waiter.wq);
		/*
		 * A thread stopped before it ever ran (the run stopped or
		 * deleted right after it started) never reached its
		 * teardown, and its queue pairs' slots would leak.
		 */
		if (kthread_stop(w->task) == -EINTR)
			kvperf_bw_worker_teardown(w);
		put_task_struct(w->task);
		w->task = NULL;
	}
}

static u64 kvperf_run_bw_completed(struct kvperf_run *run)
{
	u64 n = 0;
	u32 i;

	for (i = 0; i < run->cfg.qps; i++)
		n += atomic64_read(&run->bw.qps[i].bw.completed);
	return n;
}

static u64 kvperf_rate(u64 bytes, u64 ns)
{
	return ns ? mul_u64_u64_div_u64(bytes, NSEC_PER_SEC, ns) : 0;
}

/**
 * struct kvperf_bw_sampler - the run thread's view of a measured phase
 * @size: message size
 * @window_ns: sampling window
 * @prev_ns: end of the last window
 * @prev_msgs: messages completed at its end
 * @base_msgs: messages of the sizes before
 * @nwin: windows sampled
 * @peak_bps: highest rate of a window
 */
struct kvperf_bw_sampler {
	u32 size;
	u64 window_ns;
	u64 prev_ns, prev_msgs;
	u64 base_msgs;
	u32 nwin;
	u64 peak_bps;
};

/* Close a window: peak, series, progress event. */
static void kvperf_run_bw_window(struct kvperf_run *run,
				 struct kvperf_bw_sampler *s, u64 now)
{
	struct kvperf_run_bw *bw = &run->bw;
	u64 msgs = kvperf_run_bw_completed(run);
	struct kvperf_run_bw_progress ev = {
		.size = s->size,
		.bytes = atomic64_read(&bw->bytes) + msgs * s->size,
		.interval_messages = msgs - s->prev_msgs,
		.interval_bytes = (msgs - s->prev_msgs) * s->size,
		.interval_ns = now - s->prev_ns,
	};

	s->peak_bps = max(s->peak_bps,
			  kvperf_rate(ev.interval_bytes, ev.interval_ns));
	mutex_lock(&run->lock);
	if (bw->nseries < KVPERF_BW_SERIES_MAX) {
		struct kvperf_bw_sample *x = &bw->series[bw->nseries++];

		x->size = s->size;
		x->t_ns = now - bw->start_ns;
		x->ns = ev.interval_ns;
		x->messages = ev.interval_messages;
	} else {
		bw->series_dropped++;
	}
	mutex_unlock(&run->lock);
	atomic64_set(&run->progress, s->base_msgs + msgs);
	s->prev_ns = now;
	s->prev_msgs = msgs;
	s->nwin++;
	kvperf_run_publish_progress(run, &ev);
}

/* Sample the measured phase of size @i until every worker is done. */
static int kvperf_run_bw_sample(struct kvperf_run *run, u32 i,
				u64 base_msgs, u64 *peak_bps)
{
	struct kvperf_run_bw *bw = &run->bw;
	int target = bw->nworkers * (i + 1);
	struct kvperf_bw_sampler s = {
		.size = bw->results[i].size,
		.window_ns = (u64)(run->cfg.interval_ms ?: KVPERF_BW_WINDOW_MS) *
			     NSEC_PER_MSEC,
		.prev_ns = bw->go_ns,
		.base_msgs = base_msgs,
	};
	u64 next = bw->go_ns + s.window_ns;

	for (;;) {
		u64 now = ktime_get_ns();

		if (atomic_read_acquire(&bw->done) >= target)
			break;
		if (kvperf_run_should_stop(run))
			return -EINTR;
		if (now < next) {
			wait_event_hrtimeout(bw->wq,
					     atomic_read(&bw->done) >= target ||
					     kvperf_run_should_stop(run),
					     ns_to_ktime(next - now));
			continue;
		}
		kvperf_run_bw_window(run, &s, now);
		next += s.window_ns;
		if (next <= now)
			next = now + s.window_ns;
	}
	*peak_bps = s.nwin ? s.peak_bps : 0;
	return 0;
}

/* Add the queue pairs' numbers of size @i up. */
static void kvperf_run_bw_summarize(struct kvperf_run *run, u32 i,
				    u64 peak_bps)
{
	struct kvperf_bw_result *res = &run->bw.results[i];
	u64 start = U64_MAX, end = 0;
	u32 q;

	mutex_lock(&run->lock);
	for (q = 0; q < run->cfg.qps; q++) {
		const struct kvperf_bw_qp_result *qr = &res->qp[q];

		res->messages += qr->messages;
		res->peer_messages += qr->peer_messages;
		if (qr->start_ns)
			start = min(start, qr->start_ns);
		end = max(end, qr->end_ns);
	}
	res->bytes = res->messages * res->size;
	res->elapsed_ns = end > start ? end - start : 0;
	res->rx_bytes = res->rx_messages * res->size;
	/* windows see completions in bursts: never report below the mean */
	res->peak_bps = max(peak_bps, kvperf_rate(res->bytes, res->elapsed_ns));
	run->ndone = i + 1;
	mutex_unlock(&run->lock);
	atomic64_add(res->bytes, &run->bw.bytes);
}

static int kvperf_run_bw_measure(struct kvperf_run *run)
{
	struct kvperf_run_bw *bw = &run->bw;
	u64 msgs = 0, peak;
	u32 i;
	int err;

	err = kvperf_run_bw_wait(run, &bw->connected, bw->nworkers);
	if (err)
		return err;
	kvperf_run_set_state(run, KVPERF_RUN_STATE_RUNNING);

	for (i = 0; i < run->nresults; i++) {
		kvperf_run_bw_count(run, &bw->next);
		err = kvperf_run_bw_wait(run, &bw->ready,
					 bw->nworkers * (i + 1));
		if (err)
			return err;
		bw->go_ns = ktime_get_ns();
		kvperf_run_bw_count(run, &bw->go);
		err = kvperf_run_bw_sample(run, i, msgs, &peak);
		if (err)
			return err;
		kvperf_run_bw_summarize(run, i, peak);
		msgs += bw->results[i].messages;
		atomic64_set(&run->progress, msgs);
	}
	return 0;
}

/**
 * kvperf_run_bw() - a bandwidth run, from its thread
 * @run: the run
 *
 * Return: 0, -EINTR when stopped, or the first failure (its reason in
 * @run->bw.reason).
 */
int kvperf_run_bw(struct kvperf_run *run)
{
	struct kvperf_run_bw *bw = &run->bw;
	int err;

	bw->start_ns = ktime_get_ns();
	err = kvperf_run_bw_setup(run);
	if (err) {
		bw->reason = "cannot allocate the queue pairs' state";
		return err;
	}
	err = kvperf_run_bw_spawn(run);
	if (!err)
		err = kvperf_run_bw_measure(run);
	kvperf_run_bw_reap(run);
	if (bw->err)
		return bw->err;
	return err;
}
