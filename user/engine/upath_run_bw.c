// SPDX-License-Identifier: GPL-2.0
/*
 * Bandwidth runs of the user path, organized as kmod/run_bw.c organizes
 * the kernel's: one worker thread per CPU of cpus (one, on cpu when
 * given, by default), bound to it; the queue pairs dealt to the workers
 * in turn; each worker connects its own queue pairs and drives them
 * through every size: SIZE, warm-up and START on its own, then a barrier
 * so that all measure together, END and the server's REPORT. Meanwhile
 * this thread samples the completed messages every window (the interval,
 * or a second) for the peak and the live lines, and adds the queue
 * pairs' numbers up. CPU cost is the workers' CLOCK_THREAD_CPUTIME_ID
 * over their measured phases.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/kvperf.h>
#include <linux/kvperf_wire.h>

#include "upath_bw.h"
#include "upath_client.h"
#include "upath_conn.h"
#include "upath_run.h"
#include "upath_signal.h"

struct upath_bw_run;

/**
 * struct upath_bw_worker - a thread of a bandwidth run
 * @br: the run
 * @cpu: its CPU, or -1
 * @thread: the thread
 * @started: @thread exists
 * @waiter: what it sleeps on
 * @qps: its queue pairs
 * @nqps: how many
 */
struct upath_bw_worker {
	struct upath_bw_run *br;
	int cpu;
	pthread_t thread;
	bool started;
	struct upath_waiter waiter;
	struct upath_bw_qp *qps[UPATH_QPS_MAX];
	unsigned int nqps;
};

/**
 * struct upath_run_qp - a queue pair of a bandwidth run
 * @conn: its connection
 * @bw: its bandwidth state
 * @index: its number in the run
 */
struct upath_run_qp {
	struct upath_conn conn;
	struct upath_bw_qp bw;
	uint32_t index;
};

/**
 * struct upath_bw_run - the threads of a bandwidth run and how they meet
 * @run: the run
 * @qps: the queue pairs
 * @workers: the threads
 * @nworkers: how many
 * @lock: protects what follows, and the run's results and device
 * @cond: signalled whenever a counter moves or the run aborts
 * @connected: workers whose queue pairs are all connected
 * @ready: workers ready to measure, cumulated over the sizes
 * @done: workers done measuring, cumulated over the sizes
 * @next: sizes the workers may begin
 * @go: sizes whose measured phase has begun
 * @go_ns: when the current one began
 * @abort: a thread failed or the run is stopping: all end
 * @err: the first failure
 * @reason: its text
 */
struct upath_bw_run {
	struct upath_run *run;
	struct upath_run_qp *qps;
	struct upath_bw_worker *workers;
	unsigned int nworkers;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int connected;
	unsigned int ready;
	unsigned int done;
	unsigned int next;
	unsigned int go;
	uint64_t go_ns;
	bool abort;
	int err;
	const char *reason;
};

static bool upath_bw_should_stop(void *arg)
{
	struct upath_bw_run *br = arg;

	return upath_run_stopping(br->run) ||
	       __atomic_load_n(&br->abort, __ATOMIC_ACQUIRE);
}

/* The first failure of any thread is the run's; everyone ends. */
static void upath_bw_abort(struct upath_bw_run *br, int err,
			   const char *reason)
{
	pthread_mutex_lock(&br->lock);
	if (!br->err && err != -EINTR) {
		br->err = err;
		br->reason = reason;
	}
	__atomic_store_n(&br->abort, true, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&br->cond);
	pthread_mutex_unlock(&br->lock);
}

/* Wait until *@v reaches @target, up to @until_ns (0: no limit). */
static int upath_bw_wait(struct upath_bw_run *br, const unsigned int *v,
			 unsigned int target, uint64_t until_ns)
{
	struct timespec ts;
	uint64_t t;
	int err = 0;

	pthread_mutex_lock(&br->lock);
	while (*v < target) {
		if (upath_bw_should_stop(br)) {
			err = -EINTR;
			break;
		}
		t = upath_now_ns() + 100 * UPATH_NS_PER_MS;
		if (until_ns && until_ns < t)
			t = until_ns;
		ts.tv_sec = t / UPATH_NS_PER_S;
		ts.tv_nsec = t % UPATH_NS_PER_S;
		pthread_cond_timedwait(&br->cond, &br->lock, &ts);
		if (until_ns && upath_now_ns() >= until_ns) {
			err = *v < target ? -ETIMEDOUT : 0;
			break;
		}
	}
	pthread_mutex_unlock(&br->lock);
	return err;
}

/* Count one more and wake who waits for it. */
static void upath_bw_count(struct upath_bw_run *br, unsigned int *v)
{
	pthread_mutex_lock(&br->lock);
	(*v)++;
	pthread_cond_broadcast(&br->cond);
	pthread_mutex_unlock(&br->lock);
}

static uint64_t upath_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * UPATH_NS_PER_S + ts.tv_nsec;
}

static int upath_bw_worker_connect(struct upath_bw_worker *w)
{
	struct upath_run *run = w->br->run;
	const struct upath_cfg *cfg = &run->cfg;
	struct upath_conn_attr attr = {
		.poll = cfg->poll,
		.size_max = cfg->size_max,
		.inline_size = cfg->inline_size,
		.send_depth = cfg->tx_depth + UPATH_SEND_DEPTH,
		.recv_depth = UPATH_RECV_DEPTH,
		.any_vector = true,
	};
	bool recv_data = cfg->bidir && cfg->op == KVPERF_OP_SEND;
	unsigned int i;
	int err;

	if (recv_data) {
		attr.recv_depth += cfg->tx_depth;
		attr.recv_slack = UPATH_RECV_SLACK;
	}
	for (i = 0; i < w->nqps; i++) {
		struct upath_conn *c = w->qps[i]->c;

		c->count_data = recv_data;
		err = upath_connect(c, cfg, &attr);
		pthread_mutex_lock(&w->br->lock);
		if (c->dev[0])
			snprintf(run->dev, sizeof(run->dev), "%s", c->dev);
		if (c->mtu)
			run->mtu = c->mtu;
		pthread_mutex_unlock(&w->br->lock);
		if (err)
			return err;
	}
	return 0;
}

/* Prepare, warm up and START every queue pair of the worker. */
static int upath_bw_worker_prepare(struct upath_bw_worker *w, uint32_t size)
{
	const struct upath_cfg *cfg = &w->br->run->cfg;
	uint64_t timeout = cfg->timeout_ms * UPATH_NS_PER_MS, deadline = 0;
	unsigned int i;
	int err;

	for (i = 0; i < w->nqps; i++) {
		struct upath_conn *c = w->qps[i]->c;

		c->expect_len = size;
		err = upath_bw_control(c, KVPERF_CTRL_SIZE, size);
		if (err)
			return err;
		if (cfg->verify)
			upath_buf_fill(&c->tx, size, size);
	}
	if (cfg->warmup || cfg->warmup_ms) {
		if (cfg->warmup_ms)
			deadline = upath_now_ns() +
				   cfg->warmup_ms * UPATH_NS_PER_MS;
		for (i = 0; i < w->nqps; i++)
			upath_bw_phase_start(w->qps[i], size, true);
		err = upath_bw_drive(w->qps, w->nqps, &w->waiter, deadline,
				     timeout);
		if (err)
			return err;
	}
	for (i = 0; i < w->nqps; i++) {
		err = upath_bw_control(w->qps[i]->c, KVPERF_CTRL_START, 0);
		if (err)
			return err;
	}
	for (i = 0; i < w->nqps; i++)
		upath_bw_phase_start(w->qps[i], size, false);
	return 0;
}

/* Collect each queue pair's numbers and the server's report. */
static int upath_bw_worker_collect(struct upath_bw_worker *w,
				   struct upath_bw_result *res,
				   uint64_t cpu_ns)
{
	struct upath_bw_run *br = w->br;
	unsigned int i;
	int err;

	for (i = 0; i < w->nqps; i++) {
		struct upath_run_qp *rq =
			container_of(w->qps[i], struct upath_run_qp, bw);
		struct upath_bw_qp_result *qr = &res->qp[rq->index];
		struct upath_bw_block b;

		memset(&b, 0, sizeof(b));
		err = upath_bw_finish(w->qps[i], &b);
		if (err)
			return err;
		pthread_mutex_lock(&br->lock);
		qr->cpu = w->cpu;
		qr->messages = b.messages;
		qr->bytes = b.messages * res->size;
		qr->elapsed_ns = b.elapsed_ns;
		qr->start_ns = b.start_ns;
		qr->end_ns = b.end_ns;
		qr->peer_messages = b.report.received;
		res->mismatches += b.report.mismatches;
		res->rx_messages += b.report.tx_messages;
		if (b.report.tx_elapsed_ns > res->rx_elapsed_ns)
			res->rx_elapsed_ns = b.report.tx_elapsed_ns;
		pthread_mutex_unlock(&br->lock);
	}
	pthread_mutex_lock(&br->lock);
	res->cpu_ns += cpu_ns;
	pthread_mutex_unlock(&br->lock);
	return 0;
}

static int upath_bw_worker_size(struct upath_bw_worker *w, uint32_t i)
{
	struct upath_bw_run *br = w->br;
	const struct upath_cfg *cfg = &br->run->cfg;
	struct upath_bw_result *res = &br->run->bw[i];
	uint64_t deadline = 0, cpu0;
	int err;

	err = upath_bw_wait(br, &br->next, i + 1, 0);
	if (!err)
		err = upath_bw_worker_prepare(w, res->size);
	if (err)
		return err;
	upath_bw_count(br, &br->ready);
	err = upath_bw_wait(br, &br->go, i + 1, 0);
	if (err)
		return err;

	if (cfg->duration_ms)
		deadline = br->go_ns + cfg->duration_ms * UPATH_NS_PER_MS;
	cpu0 = upath_thread_cpu_ns();
	err = upath_bw_drive(w->qps, w->nqps, &w->waiter, deadline,
			     cfg->timeout_ms * UPATH_NS_PER_MS);
	if (!err)
		err = upath_bw_worker_collect(w, res,
					      upath_thread_cpu_ns() - cpu0);
	if (err)
		return err;
	upath_bw_count(br, &br->done);
	return 0;
}

/* The reason of the first connection of the worker that failed. */
static const char *upath_bw_worker_reason(struct upath_bw_worker *w)
{
	unsigned int i;

	for (i = 0; i < w->nqps; i++)
		if (w->qps[i]->c->error || w->qps[i]->c->reason)
			return w->qps[i]->c->reason;
	return NULL;
}

static void upath_bw_worker_teardown(struct upath_bw_worker *w)
{
	unsigned int i;

	for (i = 0; i < w->nqps; i++) {
		upath_conn_close(w->qps[i]->c);
		upath_bw_qp_destroy(w->qps[i]);
	}
	upath_waiter_destroy(&w->waiter);
}

static void *upath_bw_worker_thread(void *arg)
{
	struct upath_bw_worker *w = arg;
	struct upath_bw_run *br = w->br;
	uint32_t i;
	int err = 0;

	if (w->cpu >= 0 && upath_pin(w->cpu)) {
		upath_bw_abort(br, -EINVAL, "cannot bind a thread to its CPU");
		upath_bw_worker_teardown(w);
		return NULL;
	}
	err = upath_bw_worker_connect(w);
	if (!err)
		upath_bw_count(br, &br->connected);
	for (i = 0; !err && i < br->run->nresults; i++)
		err = upath_bw_worker_size(w, i);
	if (err)
		upath_bw_abort(br, err, upath_bw_worker_reason(w));
	upath_bw_worker_teardown(w);
	return NULL;
}

static void upath_bw_params(const struct upath_cfg *cfg,
			    struct upath_bw_params *p)
{
	p->op = cfg->op;
	p->tx_depth = cfg->tx_depth;
	p->post_list = cfg->post_list;
	p->signal_every = cfg->signal_every;
	p->iterations = cfg->iterations;
	p->duration_ns = cfg->duration_ms * UPATH_NS_PER_MS;
	p->warmup = cfg->warmup;
	p->warmup_ns = cfg->warmup_ms * UPATH_NS_PER_MS;
}

/* Set the queue pairs up and deal them to the workers. */
static int upath_bw_setup(struct upath_bw_run *br)
{
	const struct upath_cfg *cfg = &br->run->cfg;
	uint64_t timeout = cfg->timeout_ms * UPATH_NS_PER_MS;
	struct upath_bw_params p;
	uint32_t i;
	int err;

	br->nworkers = cfg->ncpus ? cfg->ncpus : 1;
	br->qps = calloc(cfg->qps, sizeof(*br->qps));
	br->workers = calloc(br->nworkers, sizeof(*br->workers));
	if (!br->qps || !br->workers)
		return -ENOMEM;
	upath_bw_params(cfg, &p);
	for (i = 0; i < br->nworkers; i++) {
		br->workers[i].br = br;
		br->workers[i].cpu = cfg->ncpus ? cfg->cpus[i] : cfg->cpu;
	}
	for (i = 0; i < cfg->qps; i++) {
		struct upath_run_qp *rq = &br->qps[i];
		struct upath_bw_worker *w = &br->workers[i % br->nworkers];

		rq->index = i;
		upath_conn_init(&rq->conn, timeout, upath_bw_should_stop, br,
				&w->waiter);
		err = upath_bw_qp_init(&rq->bw, &rq->conn, &p);
		if (err)
			return err;
		w->qps[w->nqps++] = &rq->bw;
	}
	return 0;
}

static void upath_bw_spawn(struct upath_bw_run *br)
{
	unsigned int i;

	for (i = 0; i < br->nworkers; i++) {
		struct upath_bw_worker *w = &br->workers[i];

		if (pthread_create(&w->thread, NULL, upath_bw_worker_thread, w)) {
			upath_bw_abort(br, -EAGAIN,
				       "cannot start the run's threads");
			break;
		}
		w->started = true;
	}
}

/* Stop the workers (they tear their queue pairs down) and collect them. */
static void upath_bw_reap(struct upath_bw_run *br)
{
	unsigned int i;

	__atomic_store_n(&br->abort, true, __ATOMIC_RELEASE);
	pthread_mutex_lock(&br->lock);
	pthread_cond_broadcast(&br->cond);
	pthread_mutex_unlock(&br->lock);
	for (i = 0; i < br->nworkers; i++) {
		struct upath_bw_worker *w = &br->workers[i];

		if (w->started)
			pthread_join(w->thread, NULL);
		else
			upath_bw_worker_teardown(w);
	}
}

static uint64_t upath_bw_completed_all(struct upath_bw_run *br)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < br->run->cfg.qps; i++)
		n += upath_bw_completed(&br->qps[i].bw);
	return n;
}

static uint64_t upath_rate(uint64_t bytes, uint64_t ns)
{
	return ns ? (uint64_t)((__uint128_t)bytes * UPATH_NS_PER_S / ns) : 0;
}

/**
 * struct upath_bw_sampler - this thread's view of a measured phase
 * @size: message size
 * @window_ns: sampling window
 * @prev_ns: end of the last window
 * @prev_msgs: messages completed at its end
 * @base_msgs: messages of the sizes before
 * @nwin: windows sampled
 * @peak_bps: highest rate of a window
 */
struct upath_bw_sampler {
	uint32_t size;
	uint64_t window_ns;
	uint64_t prev_ns, prev_msgs;
	uint64_t base_msgs;
	uint32_t nwin;
	uint64_t peak_bps;
};

/* Close a window: the peak, the progress and its report. */
static void upath_bw_window(struct upath_bw_run *br,
			    struct upath_bw_sampler *s, uint64_t now)
{
	struct upath_run *run = br->run;
	uint64_t msgs = upath_bw_completed_all(br);
	uint64_t n = msgs - s->prev_msgs, ns = now - s->prev_ns;
	uint64_t rate = upath_rate(n * s->size, ns);

	if (rate > s->peak_bps)
		s->peak_bps = rate;
	run->progress = s->base_msgs + msgs;
	upath_run_progress(run, s->size, run->bytes + msgs * s->size, n, ns);
	s->prev_ns = now;
	s->prev_msgs = msgs;
	s->nwin++;
}

/* Sample the measured phase of size @i until every worker is done. */
static int upath_bw_sample(struct upath_bw_run *br, uint32_t i,
			   uint64_t base_msgs, uint64_t *peak_bps)
{
	const struct upath_cfg *cfg = &br->run->cfg;
	unsigned int target = br->nworkers * (i + 1);
	struct upath_bw_sampler s = {
		.size = br->run->bw[i].size,
		.window_ns = (cfg->interval_ms ?: UPATH_WINDOW_MS) *
			     UPATH_NS_PER_MS,
		.prev_ns = br->go_ns,
		.base_msgs = base_msgs,
	};
	uint64_t next = br->go_ns + s.window_ns, now;
	int err;

	for (;;) {
		err = upath_bw_wait(br, &br->done, target, next);
		if (!err)
			break;
		if (err != -ETIMEDOUT)
			return err;
		now = upath_now_ns();
		upath_bw_window(br, &s, now);
		next += s.window_ns;
		if (next <= now)
			next = now + s.window_ns;
	}
	*peak_bps = s.nwin ? s.peak_bps : 0;
	return 0;
}

/* Add the queue pairs' numbers of size @i up. */
static void upath_bw_summarize(struct upath_bw_run *br, uint32_t i,
			       uint64_t peak_bps)
{
	struct upath_run *run = br->run;
	struct upath_bw_result *res = &run->bw[i];
	uint64_t start = UINT64_MAX, end = 0, avg;
	uint32_t q;

	pthread_mutex_lock(&br->lock);
	for (q = 0; q < run->cfg.qps; q++) {
		const struct upath_bw_qp_result *qr = &res->qp[q];

		res->messages += qr->messages;
		res->peer_messages += qr->peer_messages;
		if (qr->start_ns && qr->start_ns < start)
			start = qr->start_ns;
		if (qr->end_ns > end)
			end = qr->end_ns;
	}
	res->bytes = res->messages * res->size;
	res->elapsed_ns = end > start ? end - start : 0;
	res->rx_bytes = res->rx_messages * res->size;
	/* windows see completions in bursts: never report below the mean */
	avg = upath_rate(res->bytes, res->elapsed_ns);
	res->peak_bps = peak_bps > avg ? peak_bps : avg;
	run->ndone = i + 1;
	run->bytes += res->bytes;
	pthread_mutex_unlock(&br->lock);
}

static int upath_bw_measure(struct upath_bw_run *br)
{
	struct upath_run *run = br->run;
	uint64_t msgs = 0, peak;
	uint32_t i;
	int err;

	err = upath_bw_wait(br, &br->connected, br->nworkers, 0);
	if (err)
		return err;
	run->state = KVPERF_RUN_STATE_RUNNING;

	for (i = 0; i < run->nresults; i++) {
		upath_bw_count(br, &br->next);
		err = upath_bw_wait(br, &br->ready, br->nworkers * (i + 1), 0);
		if (err)
			return err;
		pthread_mutex_lock(&br->lock);
		br->go_ns = upath_now_ns();
		br->go++;
		pthread_cond_broadcast(&br->cond);
		pthread_mutex_unlock(&br->lock);
		err = upath_bw_sample(br, i, msgs, &peak);
		if (err)
			return err;
		upath_bw_summarize(br, i, peak);
		msgs += run->bw[i].messages;
		run->progress = msgs;
	}
	return 0;
}

/**
 * upath_run_bw() - a bandwidth run of the user path
 * @run: the run, its results allocated
 * @reason: receives the reason of a failure, static text
 *
 * Return: 0, -EINTR when stopped, or the first failure.
 */
int upath_run_bw(struct upath_run *run, const char **reason)
{
	struct upath_bw_run br;
	pthread_condattr_t ca;
	uint32_t i;
	int err;

	memset(&br, 0, sizeof(br));
	br.run = run;
	pthread_mutex_init(&br.lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&br.cond, &ca);
	pthread_condattr_destroy(&ca);

	err = upath_bw_setup(&br);
	if (err) {
		*reason = "cannot allocate the queue pairs' state";
		for (i = 0; br.qps && i < run->cfg.qps; i++)
			upath_bw_qp_destroy(&br.qps[i].bw);
	} else {
		upath_bw_spawn(&br);
		err = upath_bw_measure(&br);
		upath_bw_reap(&br);
		if (br.err) {
			err = br.err;
			*reason = br.reason;
		}
	}
	free(br.qps);
	free(br.workers);
	pthread_cond_destroy(&br.cond);
	pthread_mutex_destroy(&br.lock);
	return err;
}
