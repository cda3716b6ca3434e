// SPDX-License-Identifier: GPL-2.0
/*
 * A user-path run's configuration from the command line: the defaults the
 * module applies to a run-start request (kmod/nl_run.c), the ranges of the
 * netlink spec the command line does not check itself, and the module's
 * refusals, with the module's words where it has them.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kvperf.h>
#include <linux/kvperf_wire.h>

#include "run_cfg.h"
#include "upath_cfg.h"
#include "../../kmod/timeout.h"

/* Is @cpu one this process may run on? */
static bool upath_cpu_ok(unsigned long cpu)
{
	cpu_set_t set;

	if (cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof(set), &set))
		return false;
	return CPU_ISSET(cpu, &set);
}

/* The CPU list (its form checked by run_cpus_valid()), ascending. */
static int upath_cfg_cpus(struct upath_cfg *cfg, const char *list,
			  char *why, size_t len)
{
	unsigned long first, last, cpu;
	const char *s = list;
	cpu_set_t set;
	char *end;

	CPU_ZERO(&set);
	for (;;) {
		first = strtoul(s, &end, 10);
		last = *end == '-' ? strtoul(end + 1, &end, 10) : first;
		for (cpu = first; cpu <= last; cpu++) {
			if (!upath_cpu_ok(cpu)) {
				snprintf(why, len, "cpus names a CPU that is not online (or not allowed to this process)");
				return -EINVAL;
			}
			CPU_SET(cpu, &set);
		}
		if (*end != ',')
			break;
		s = end + 1;
	}
	if ((uint32_t)CPU_COUNT(&set) > cfg->qps) {
		snprintf(why, len, "more cpus than qps: each CPU's thread needs a queue pair");
		return -EINVAL;
	}
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			cfg->cpus[cfg->ncpus++] = cpu;
	snprintf(cfg->cpulist, sizeof(cfg->cpulist), "%s", list);
	return 0;
}

/* The configuration's value of @attr, or @def when not given. */
static uint32_t upath_opt(const struct kv_run_cfg *o, int attr, uint32_t def)
{
	return KV_HAS(o, attr) ? run_model_uint(&run_cfg_fields, o, attr) :
				 def;
}

/**
 * upath_default_signal_every() - the module's signal-every when none is
 *				  given
 * @tx_depth: the run's tx-depth
 *
 * Return: a completion every UPATH_DEFAULT_SIGNAL_EVERY requests, or every
 * @tx_depth ones when the queue is shallower.
 */
uint32_t upath_default_signal_every(uint32_t tx_depth)
{
	return tx_depth < UPATH_DEFAULT_SIGNAL_EVERY ?
	       tx_depth : UPATH_DEFAULT_SIGNAL_EVERY;
}

/* What only bandwidth runs have. */
static int upath_cfg_bw(struct upath_cfg *cfg, const struct kv_run_cfg *o,
			char *why, size_t len)
{
	cfg->tx_depth = upath_opt(o, KVPERF_A_RUN_TX_DEPTH,
				  UPATH_DEFAULT_TX_DEPTH);
	cfg->qps = upath_opt(o, KVPERF_A_RUN_QPS, 1);
	cfg->post_list = upath_opt(o, KVPERF_A_RUN_POST_LIST, 1);
	cfg->signal_every = upath_opt(o, KVPERF_A_RUN_SIGNAL_EVERY,
				      upath_default_signal_every(cfg->tx_depth));
	cfg->bidir = o->bidir;
	cfg->interval_ms = upath_opt(o, KVPERF_A_RUN_INTERVAL_MS, 0);
	if (!KV_HAS(o, KVPERF_A_RUN_CPUS))
		return 0;
	return upath_cfg_cpus(cfg, o->cpus, why, len);
}

/* What only I/O runs have; their queues and CPUs are a bandwidth run's. */
static int upath_cfg_io(struct upath_cfg *cfg, const struct kv_run_cfg *o,
			char *why, size_t len)
{
	cfg->bss = upath_opt(o, KVPERF_A_RUN_BSS, 0);
	cfg->size = run_io_size(cfg->bss, cfg->size, 0);
	cfg->size_max = run_io_size(cfg->bss, cfg->size,
				    run_io_nsizes(cfg->bss) - 1);
	cfg->qd = upath_opt(o, KVPERF_A_RUN_QD, KVPERF_IO_QD_DEFAULT);
	cfg->segments = upath_opt(o, KVPERF_A_RUN_SEGMENTS, 1);
	cfg->read_pct = upath_opt(o, KVPERF_A_RUN_READ_PCT, 0);
	/* no FRWR in user space: every block registered once, or windows */
	cfg->reg = upath_opt(o, KVPERF_A_RUN_REG, KVPERF_IO_REG_PRE);
	cfg->inv = upath_opt(o, KVPERF_A_RUN_INV, KVPERF_IO_INV_REMOTE);
	cfg->inline_data = upath_opt(o, KVPERF_A_RUN_INLINE_DATA, 0);
	cfg->interval_ms = upath_opt(o, KVPERF_A_RUN_INTERVAL_MS, 0);
	cfg->qps = upath_opt(o, KVPERF_A_RUN_QPS, 1);
	if (!KV_HAS(o, KVPERF_A_RUN_CPUS))
		return 0;
	return upath_cfg_cpus(cfg, o->cpus, why, len);
}

/**
 * upath_cfg_init() - a user-path run's configuration
 * @cfg: filled in
 * @o: what the run is asked to do
 * @why: receives the reason of a refusal
 * @len: room in @why
 *
 * The run model's checks (run_cfg_check()) and what only this process
 * can judge: whether its CPUs are online and allowed to it.
 *
 * Return: 0, or -EINVAL with @why set: what the module would refuse.
 */
int upath_cfg_init(struct upath_cfg *cfg, const struct kv_run_cfg *o,
		   char *why, size_t len)
{
	bool bw = o->type == KVPERF_RUN_TYPE_BW;
	bool io = o->type == KVPERF_RUN_TYPE_IO;
	int err, attr;

	memset(cfg, 0, sizeof(*cfg));
	err = run_cfg_check(o, KV_RUN_PATH_USER, &attr, why, len);
	if (err)
		return err;
	cfg->type = o->type;
	cfg->op = o->op;
	memcpy(cfg->addr, o->addr, sizeof(cfg->addr));
	cfg->addr_len = o->addr_len;
	cfg->port = o->port;
	cfg->size = upath_opt(o, KVPERF_A_RUN_SIZE,
			      bw ? KVPERF_BW_SIZE_DEFAULT :
			      io ? KVPERF_IO_BS_DEFAULT : KVPERF_SIZE_DEFAULT);
	cfg->size_max = upath_opt(o, KVPERF_A_RUN_SIZE_MAX, cfg->size);
	cfg->duration_ms = upath_opt(o, KVPERF_A_RUN_DURATION_MS, 0);
	cfg->iterations = upath_opt(o, KVPERF_A_RUN_ITERATIONS,
				    bw ? UPATH_DEFAULT_BW_ITERATIONS :
					 UPATH_DEFAULT_ITERATIONS);
	cfg->warmup_ms = upath_opt(o, KVPERF_A_RUN_WARMUP_MS, 0);
	cfg->warmup = cfg->warmup_ms ? 0 :
		      upath_opt(o, KVPERF_A_RUN_WARMUP, UPATH_DEFAULT_WARMUP);
	cfg->poll = upath_opt(o, KVPERF_A_RUN_POLL, KVPERF_POLL_BUSY);
	cfg->inline_size = upath_opt(o, KVPERF_A_RUN_INLINE, 0);
	cfg->verify = o->verify;
	memcpy(cfg->key, o->key, sizeof(cfg->key));
	cfg->stats = upath_opt(o, KVPERF_A_RUN_STATS, KVPERF_STATS_MODE_ON);
	cfg->cpu = -1;
	if (KV_HAS(o, KVPERF_A_RUN_CPU)) {
		if (!upath_cpu_ok(o->cpu)) {
			snprintf(why, len, "that CPU is not online (or not allowed to this process)");
			return -EINVAL;
		}
		cfg->cpu = o->cpu;
	}
	if (io)
		err = upath_cfg_io(cfg, o, why, len);
	else if (bw)
		err = upath_cfg_bw(cfg, o, why, len);
	if (err)
		return err;
	/* the module's rule (kmod/timeout.h), from the type's settings */
	cfg->timeout_ms = KV_HAS(o, KVPERF_A_RUN_TIMEOUT_MS) ? o->timeout_ms :
			  kvperf_timeout_default_ms(cfg->type, cfg->size_max,
						    io ? cfg->qd : cfg->tx_depth,
						    cfg->qps, cfg->bidir);
	return 0;
}

/**
 * upath_cfg_nsizes() - the message sizes of a run
 * @cfg: the run
 *
 * Return: how many: @cfg->size doubled while at most @cfg->size_max.
 */
uint32_t upath_cfg_nsizes(const struct upath_cfg *cfg)
{
	uint32_t size, n = 0;

	for (size = cfg->size; size <= cfg->size_max; size *= 2) {
		n++;
		if (size > KVPERF_SIZE_MAX / 2)
			break;
	}
	return n;
}
