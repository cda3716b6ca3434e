// SPDX-License-Identifier: GPL-2.0
/*
 * The user path's I/O runs, as kmod/run_io.c: a thread per queue (one
 * connection each, bound to the run's CPUs in turn) connects and sets its
 * host up; when every queue is ready they measure together. The first
 * failure of a queue ends every queue. When all are done their numbers
 * and histograms are added up, keeping each queue's part. A sweep of
 * block sizes does all this once per size, smallest first, each on
 * connections of its own.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/kvperf.h>

#include "run_cfg.h"
#include "upath_client.h"
#include "upath_conn.h"
#include "upath_io_host.h"
#include "upath_run.h"

struct upath_io_run;

/**
 * struct upath_io_worker - one queue and its thread
 * @ir: the run
 * @index: the queue's number
 * @cpu: the CPU its thread is bound to, or -1
 * @conn: its connection
 * @waiter: what its thread sleeps on
 * @host: its host side, NULL until set up
 * @hist: its latencies per direction (stats on)
 * @r: what it measured
 * @thread: its thread
 * @started: @thread exists
 */
struct upath_io_worker {
	struct upath_io_run *ir;
	uint32_t index;
	int cpu;
	struct upath_conn conn;
	struct upath_waiter waiter;
	struct upath_io_host *host;
	struct upath_hist *hist[UPATH_IO_DIRS];
	struct upath_io_result r;
	pthread_t thread;
	bool started;
};

/**
 * struct upath_io_run - an I/O run's queues, for one block size
 * @run: the run
 * @cfg: the run's configuration for this block size: its size and
 *	 size_max are it, as the connect request says
 * @workers: one per queue
 * @lock: protects the rest
 * @cond: signalled when a queue is ready, a queue ends or the run aborts
 * @ready: queues connected and set up, or failed
 * @go: every queue is ready: measure
 * @abort: a queue failed or the run is stopping: all end
 * @err: the first failure
 * @reason: its text
 */
struct upath_io_run {
	struct upath_run *run;
	struct upath_cfg cfg;
	struct upath_io_worker *workers;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint32_t ready;
	/* queues whose thread ended */
	uint32_t done;
	bool go;
	bool abort;
	int err;
	const char *reason;
};

static bool upath_io_should_stop(void *arg)
{
	struct upath_io_run *ir = arg;

	return upath_run_stopping(ir->run) ||
	       __atomic_load_n(&ir->abort, __ATOMIC_ACQUIRE);
}

/* The first failure is the run's; every queue ends. */
static void upath_io_abort(struct upath_io_run *ir, int err,
			   const char *reason)
{
	pthread_mutex_lock(&ir->lock);
	if (!ir->err && err != -EINTR) {
		ir->err = err;
		ir->reason = reason;
	}
	__atomic_store_n(&ir->abort, true, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&ir->cond);
	pthread_mutex_unlock(&ir->lock);
}

static void upath_io_params(const struct upath_io_worker *w,
			    struct upath_io_params *p)
{
	const struct upath_cfg *cfg = &w->ir->cfg;

	*p = (struct upath_io_params) {
		.op = cfg->op,
		.read_pct = cfg->read_pct,
		.bs = cfg->size,
		.qd = cfg->qd,
		.segments = cfg->segments,
		.iterations = cfg->iterations,
		.duration_ns = cfg->duration_ms * UPATH_NS_PER_MS,
		.warmup = cfg->warmup,
		.warmup_ns = cfg->warmup_ms * UPATH_NS_PER_MS,
		.verify = cfg->verify,
		.inline_data = cfg->inline_data,
		.mw = cfg->reg == KVPERF_IO_REG_MW,
		.inv_local = cfg->inv == KVPERF_IO_INV_LOCAL,
		.hist = { w->hist[0], w->hist[1] },
		/* each queue its own draws, the same every run */
		.seed = 0x9e3779b9u * (w->index + 1),
	};
}

/* Connect, set up, and wait until every queue is: 0 to measure. */
static int upath_io_worker_setup(struct upath_io_worker *w,
				 struct upath_io_params *p)
{
	struct upath_io_run *ir = w->ir;
	struct upath_conn_attr attr;
	int err;

	upath_io_params(w, p);
	upath_io_host_conn_attr(p, ir->cfg.poll, &attr);
	err = upath_connect(&w->conn, &ir->cfg, &attr);
	if (!err) {
		w->host = upath_io_host_create(&w->conn, p);
		err = w->host ? upath_io_host_start(w->host) : -ENOMEM;
	}
	pthread_mutex_lock(&ir->lock);
	/* the first queue's device and path MTU are the run's */
	if (!w->index) {
		snprintf(ir->run->dev, sizeof(ir->run->dev), "%s", w->conn.dev);
		ir->run->mtu = w->conn.mtu;
	}
	ir->ready++;
	pthread_cond_broadcast(&ir->cond);
	while (!err && !ir->go && !ir->abort)
		pthread_cond_wait(&ir->cond, &ir->lock);
	pthread_mutex_unlock(&ir->lock);
	if (!err && upath_io_should_stop(ir))
		err = -EINTR;
	return err;
}

static void *upath_io_worker_thread(void *arg)
{
	struct upath_io_worker *w = arg;
	struct upath_io_run *ir = w->ir;
	struct upath_io_params p;
	int err = 0;

	if (w->cpu >= 0 && upath_pin(w->cpu)) {
		w->conn.reason = "cannot bind a queue's thread to its CPU";
		err = -EINVAL;
		pthread_mutex_lock(&ir->lock);
		ir->ready++;
		pthread_mutex_unlock(&ir->lock);
	} else {
		err = upath_io_worker_setup(w, &p);
	}
	if (!err)
		err = upath_io_host_run(w->host, &w->r, &ir->run->progress);
	if (err)
		upath_io_abort(ir, err, w->conn.reason);
	upath_conn_close(&w->conn);
	upath_io_host_free(w->host);
	w->host = NULL;
	upath_waiter_destroy(&w->waiter);
	pthread_mutex_lock(&ir->lock);
	ir->done++;
	pthread_cond_broadcast(&ir->cond);
	pthread_mutex_unlock(&ir->lock);
	return NULL;
}

/*
 * With an interval, the run's thread reports the I/Os completed every
 * interval (warm-up ones too, as the module's events do) until every
 * queue's thread ended: the live lines. Called with @ir->lock held.
 */
static void upath_io_sample(struct upath_io_run *ir, uint32_t started)
{
	struct upath_run *run = ir->run;
	uint64_t window = run->cfg.interval_ms * UPATH_NS_PER_MS;
	uint64_t prev_ns = upath_now_ns(), now, n;
	uint64_t prev = __atomic_load_n(&run->progress, __ATOMIC_RELAXED);
	uint64_t bs = ir->cfg.size, first = prev;
	struct timespec ts;

	if (!window)
		return;
	while (ir->done < started) {
		uint64_t next = prev_ns + window;

		ts.tv_sec = next / UPATH_NS_PER_S;
		ts.tv_nsec = next % UPATH_NS_PER_S;
		/* upath_now_ns() is CLOCK_MONOTONIC, as the condition's */
		if (pthread_cond_timedwait(&ir->cond, &ir->lock, &ts) !=
		    ETIMEDOUT)
			continue;
		now = upath_now_ns();
		n = __atomic_load_n(&run->progress, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&ir->lock);
		upath_run_progress(run, bs, (n - first) * bs, n - prev,
				   now - prev_ns);
		pthread_mutex_lock(&ir->lock);
		prev = n;
		prev_ns = now;
	}
}

static int upath_io_alloc(struct upath_io_run *ir)
{
	const struct upath_cfg *cfg = &ir->run->cfg;
	uint32_t i, d;

	ir->workers = calloc(cfg->qps, sizeof(*ir->workers));
	if (!ir->workers)
		return -ENOMEM;
	for (i = 0; i < cfg->qps; i++) {
		struct upath_io_worker *w = &ir->workers[i];

		w->ir = ir;
		w->index = i;
		w->cpu = cfg->ncpus ? cfg->cpus[i % cfg->ncpus] : cfg->cpu;
		upath_conn_init(&w->conn, cfg->timeout_ms * UPATH_NS_PER_MS,
				upath_io_should_stop, ir, &w->waiter);
		for (d = 0; cfg->stats == KVPERF_STATS_MODE_ON &&
			    d < UPATH_IO_DIRS; d++) {
			w->hist[d] = upath_hist_new(UPATH_HIST_MAX_NS);
			if (!w->hist[d])
				return -ENOMEM;
		}
	}
	return 0;
}

static void upath_io_free(struct upath_io_run *ir)
{
	uint32_t i, d;

	for (i = 0; ir->workers && i < ir->run->cfg.qps; i++)
		for (d = 0; d < UPATH_IO_DIRS; d++)
			upath_hist_free(ir->workers[i].hist[d]);
	free(ir->workers);
}

/*
 * Add the queues' numbers up into the @step-th block size's results (one,
 * or a mix's reads' and writes'), keeping each queue's part. Their time
 * runs from the first queue's first measured submission to the last
 * queue's last measured completion.
 */
static int upath_io_results(struct upath_io_run *ir, uint32_t step)
{
	struct upath_run *run = ir->run;
	bool stats = run->cfg.stats == KVPERF_STATS_MODE_ON;
	uint32_t dirs = run->cfg.read_pct ? UPATH_IO_DIRS : 1;
	uint64_t start = UINT64_MAX, end = 0;
	uint32_t i, d;

	for (i = 0; i < run->cfg.qps; i++) {
		const struct upath_io_result *r = &ir->workers[i].r;

		if (!r->start_ns)
			continue;
		if (r->start_ns < start)
			start = r->start_ns;
		if (r->start_ns + r->elapsed_ns > end)
			end = r->start_ns + r->elapsed_ns;
	}
	for (d = 0; d < dirs; d++) {
		struct upath_io_dir_result *res = &run->io[step * dirs + d];
		uint64_t ios = 0;

		res->elapsed_ns = end > start ? end - start : 0;
		if (stats) {
			res->hist = upath_hist_new(UPATH_HIST_MAX_NS);
			if (!res->hist)
				return -ENOMEM;
		}
		for (i = 0; i < run->cfg.qps; i++) {
			struct upath_io_worker *w = &ir->workers[i];
			struct upath_io_queue_result *qr = &res->queue[i];

			qr->cpu = w->cpu;
			qr->ios = w->r.ios[d];
			qr->elapsed_ns = w->r.elapsed_ns;
			qr->mismatches = w->r.mismatches[d];
			qr->cpu_ns = w->r.cpu_ns;
			qr->target_cpu_ns = w->r.peer_cpu_ns;
			ios += qr->ios;
			res->mismatches += qr->mismatches;
			res->cpu_ns += w->r.cpu_ns;
			res->reg_ns += w->r.reg_ns[d];
			res->inv_ns += w->r.inv_ns[d];
			res->target_cpu_ns += w->r.peer_cpu_ns;
			if (stats) {
				upath_hist_summarize(w->hist[d], &qr->stats);
				upath_hist_merge(res->hist, w->hist[d]);
			} else {
				upath_stats_from_elapsed(&qr->stats, qr->ios,
							 qr->elapsed_ns, 1);
			}
		}
		if (stats)
			upath_hist_summarize(res->hist, &res->stats);
		else
			upath_stats_from_elapsed(&res->stats, ios,
						 res->elapsed_ns, 1);
	}
	run->ndone = (step + 1) * dirs;
	return 0;
}

/*
 * One block size, the @step-th: connect the queues, run their I/Os
 * together, tear them down and keep their results.
 */
static int upath_run_io_step(struct upath_run *run, uint32_t step,
			     const char **reason)
{
	struct upath_io_run ir = { .run = run, .cfg = run->cfg };
	uint32_t i, started = 0;
	pthread_condattr_t ca;
	int err;

	ir.cfg.size = run_io_size(run->cfg.bss, run->cfg.size, step);
	ir.cfg.size_max = ir.cfg.size;
	pthread_mutex_init(&ir.lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ir.cond, &ca);
	pthread_condattr_destroy(&ca);
	err = upath_io_alloc(&ir);
	if (err) {
		*reason = "cannot allocate the run's queues";
		goto out;
	}
	for (i = 0; i < run->cfg.qps; i++) {
		struct upath_io_worker *w = &ir.workers[i];

		if (pthread_create(&w->thread, NULL, upath_io_worker_thread,
				   w)) {
			upath_io_abort(&ir, -EAGAIN,
				       "cannot start a queue's thread");
			break;
		}
		w->started = true;
		started++;
	}
	pthread_mutex_lock(&ir.lock);
	while (ir.ready < started && !ir.abort)
		pthread_cond_wait(&ir.cond, &ir.lock);
	if (!ir.abort && started == run->cfg.qps) {
		if (!step)
			run->state = KVPERF_RUN_STATE_RUNNING;
		ir.go = true;
		pthread_cond_broadcast(&ir.cond);
		upath_io_sample(&ir, started);
	}
	pthread_mutex_unlock(&ir.lock);
	for (i = 0; i < run->cfg.qps; i++)
		if (ir.workers[i].started)
			pthread_join(ir.workers[i].thread, NULL);
	err = ir.err;
	/* a queue's reason may be its connection's text: keep a copy */
	if (ir.reason) {
		snprintf(run->reason, sizeof(run->reason), "%s", ir.reason);
		*reason = run->reason;
	}
	if (!err && upath_run_stopping(run))
		err = -EINTR;
	if (!err && upath_io_results(&ir, step)) {
		err = -ENOMEM;
		*reason = "cannot add the queues' results up";
	}
out:
	upath_io_free(&ir);
	pthread_cond_destroy(&ir.cond);
	pthread_mutex_destroy(&ir.lock);
	/* the copy of the configuration holds the server's key */
	explicit_bzero(ir.cfg.key, sizeof(ir.cfg.key));
	return err;
}

/**
 * upath_run_io() - an I/O run: for each of its block sizes, connect its
 *		    queues, run their I/Os together, tear them down
 * @run: the run, its results allocated
 * @reason: receives why it failed
 *
 * Return: 0, -EINTR when stopped, or why it failed.
 */
int upath_run_io(struct upath_run *run, const char **reason)
{
	uint32_t step, steps = run_io_nsizes(run->cfg.bss);
	int err = 0;

	for (step = 0; step < steps && !err; step++)
		err = upath_run_io_step(run, step, reason);
	return err;
}
