// SPDX-License-Identifier: GPL-2.0
/*
 * "kvperf run lat|bw ... path user": the run in this process. The
 * configuration gets the module's defaults and checks, a latency run
 * measures every size on one connection from this thread (on cpu when
 * given), a bandwidth run is upath_run_bw.c's; the run is then printed
 * as the kernel path prints its runs, with "path user".
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "kvperf.h"
#include "print.h"
#include "run.h"
#include "upath.h"
#include "upath_client.h"
#include "upath_conn.h"
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

static bool upath_run_should_stop(void *arg)
{
	(void)arg;
	return upath_signalled();
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

static int upath_run_alloc(struct upath_run *run)
{
	uint32_t i;

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

/* Print the run as "kvperf run" prints the kernel's, and say how it ended. */
static int upath_run_finish(struct kvperf *kv, const struct upath_run *run)
{
	struct nl_msg *msg = upath_result_msg(run);
	struct printer p;
	int err;

	if (!msg) {
		kvperf_errorf(kv, "out of memory");
		return KVPERF_EXIT_ERROR;
	}
	pr_init(&p, kv->out, kv->json, kv->pretty);
	err = run_print_path(&p, nlmsg_hdr(msg), kv->err, run->gbits,
			     RUN_PATH_USER);
	nlmsg_free(msg);
	if (err)
		return KVPERF_EXIT_ERROR;
	pr_finish(&p);
	switch (run->state) {
	case KVPERF_RUN_STATE_DONE:
		return KVPERF_EXIT_OK;
	case KVPERF_RUN_STATE_STOPPED:
		kvperf_errorf(kv, "run stopped");
		break;
	default:
		kvperf_errorf(kv, "run failed: %s", run->error);
		break;
	}
	return KVPERF_EXIT_ERROR;
}

/**
 * upath_run() - "kvperf run lat|bw ... path user"
 * @kv: the invocation
 * @o: the command line, from run_parse()
 *
 * Runs the client side of the module's loops in this process against any
 * kvperf server, kernel or user path, and prints the run as the kernel
 * path does. SIGINT or SIGTERM stops it; it ends as stopped with what it
 * measured.
 *
 * Return: KVPERF_EXIT_OK when the run is done, KVPERF_EXIT_ERROR when it
 * was refused, failed or was stopped.
 */
int upath_run(struct kvperf *kv, const struct run_opts *o)
{
	const char *why = NULL, *reason = NULL;
	struct upath_run run;
	struct utsname uts;
	int err, ret;

	memset(&run, 0, sizeof(run));
	if (upath_cfg_init(&run.cfg, o, &why)) {
		kvperf_errorf(kv, "%s", why);
		return KVPERF_EXIT_ERROR;
	}
	run.gbits = run_opt(o, RUN_KW_GBITS);
	/* JSON is one document: the intervals stay out of it */
	run.live = kv->json ? NULL : kv->out;
	run.start_ns = upath_now_ns();
	if (!uname(&uts))
		snprintf(run.kernel, sizeof(run.kernel), "%s", uts.release);
	if (upath_run_alloc(&run)) {
		upath_run_free(&run);
		kvperf_errorf(kv, "cannot allocate the run");
		return KVPERF_EXIT_ERROR;
	}
	err = upath_catch_signals();
	if (!err && run.cfg.cpu >= 0)
		err = upath_pin(run.cfg.cpu);
	if (err) {
		reason = "cannot set the run's thread up";
	} else {
		run.state = KVPERF_RUN_STATE_CONNECTING;
		if (run.cfg.type == KVPERF_RUN_TYPE_BW)
			err = upath_run_bw(&run, &reason);
		else
			err = upath_run_lat(&run, &reason);
	}
	upath_run_end(&run, err, reason);
	ret = upath_run_finish(kv, &run);
	upath_run_free(&run);
	return ret;
}
