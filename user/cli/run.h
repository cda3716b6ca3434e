/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run object: benchmark runs this host's kernel drives as the client
 * of a kvperf server.
 */
#ifndef KVPERF_RUN_H
#define KVPERF_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/kvperf_wire.h>
#include <linux/netlink.h>

#include "run_cfg.h"

struct args;
struct kvperf;
struct nl_msg;
struct nlattr;
struct printer;

/* the spec's limits on message sizes: 1 B to 8 MiB */
#define RUN_SIZE_MIN		KVPERF_SIZE_MIN
#define RUN_SIZE_MAX		KVPERF_SIZE_MAX
/* "sizes all", as perftest -a: the powers of two from 2 B to 8 MiB */
#define RUN_SIZES_ALL_MIN	2
/* the spec's limits on duration-ms: 1 ms to an hour */
#define RUN_DURATION_MS_MAX	KVPERF_DURATION_MS_MAX
/* and on warmup-ms: 1 ms to 10 minutes */
#define RUN_WARMUP_MS_MAX	KVPERF_WARMUP_MS_MAX
/* the longest cpus string the spec allows */
#define RUN_CPUS_LEN_MAX	KVPERF_CPUS_LEN_MAX

/*
 * The keywords of "run lat", "run bw" and "run io", in the order prefixes
 * resolve:
 * the first that a prefix matches wins, so "s" is size, "t" time, "i"
 * iters and "p" port. Entries are only ever appended, so abbreviations
 * keep working.
 */
enum run_kw {
	RUN_KW_OP,
	RUN_KW_ADDR,
	RUN_KW_PORT,
	RUN_KW_SIZE,
	RUN_KW_SIZES,
	RUN_KW_ITERS,
	RUN_KW_TIME,
	RUN_KW_WARMUP,
	RUN_KW_POLL,
	RUN_KW_INLINE,
	RUN_KW_VERIFY,
	RUN_KW_CPU,
	RUN_KW_TIMEOUT,
	RUN_KW_NO_WAIT,
	/* run bw only from here */
	RUN_KW_TX_DEPTH,
	RUN_KW_QPS,
	RUN_KW_CPUS,
	RUN_KW_POST_LIST,
	RUN_KW_SIGNAL_EVERY,
	RUN_KW_BIDIR,
	RUN_KW_INTERVAL,
	RUN_KW_GBITS,
	/* both again */
	RUN_KW_PATH,
	RUN_KW_STATS,
	RUN_KW_KEY,
	RUN_KW_KEY_FILE,
	RUN_KW_POST_CONTEXT,
	/* run io only from here */
	RUN_KW_RW,
	RUN_KW_BS,
	RUN_KW_QD,
	RUN_KW_INV,
	RUN_KW_SEGMENTS,
	RUN_KW_REG,
	RUN_KW_QUEUES,
	RUN_KW_INLINE_DATA,
	RUN_KW_BSS,
	RUN_KW_COUNT
};

/* Who runs the loops: the module (the default), or this process. */
enum run_path {
	RUN_PATH_KERNEL = KV_RUN_PATH_KERNEL,
	RUN_PATH_USER = KV_RUN_PATH_USER,
};

/*
 * What "run lat" or "run bw" asks for: the run's configuration, and what
 * the command alone uses; @given has bit (1 << RUN_KW_*) per keyword.
 */
struct run_opts {
	uint64_t given;
	struct kv_run_cfg cfg;
	uint8_t path;
	/* key-file: read once the command line is known to be right */
	const char *key_file;
	/* the words being parsed: rw randmix takes the next one too */
	struct args *args;
};

static inline bool run_opt(const struct run_opts *o, enum run_kw kw)
{
	return o->given & (1ULL << kw);
}

int run_parse(struct kvperf *kv, struct args *a, uint8_t type,
	      struct run_opts *o);
bool run_keyed(const struct run_opts *o);
bool run_cpus_valid(const char *s);
int run_path_parse(const char *s);

/*
 * What "run lat" or "run bw" shows while it waits: progress on a
 * terminal, a line per interval of a bandwidth run.
 */
struct run_show {
	/* where progress goes (a terminal), or NULL */
	FILE *tty;
	/* what progress counts: "iterations" (the default) or "messages" */
	const char *progress_unit;
	bool progress_shown;
	/* where the lines of a bandwidth run's intervals go, or NULL */
	FILE *live;
	/* CLOCK_MONOTONIC ms when the run started, for those lines */
	int64_t start_ms;
	bool gbits;
	/* an I/O run: its lines are fio's, for @rw ("read", "write" or "randmix") */
	const char *rw;
	/* a sweep of block sizes: each line says its size */
	bool bss;
};

void run_show_event(void *arg, const struct kv_run *ev);
void run_show_quiet(void *arg);
int run_finish(struct kvperf *kv, const struct nlmsghdr *nlh, bool gbits);
int run_report(struct kvperf *kv, const struct kv_run *run, bool gbits);
void run_print_started(struct printer *p, uint32_t id);

#endif /* KVPERF_RUN_H */
