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

struct args;
struct knl;
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
 * The keywords of "run lat" and "run bw", in the order prefixes resolve:
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
	RUN_KW_COUNT
};

/* Who runs the loops: the module (the default), or this process. */
enum run_path {
	RUN_PATH_KERNEL,
	RUN_PATH_USER,
};

/*
 * What "run lat" or "run bw" asks for; @given has bit (1 << RUN_KW_*) per
 * keyword. @warmup_ms is set instead of @warmup when warmup was a time.
 */
struct run_opts {
	unsigned int given;
	uint8_t type;
	uint8_t op;
	uint8_t addr[16];
	int addr_len;
	uint16_t port;
	uint32_t size;
	uint32_t size_max;
	uint32_t iterations;
	uint32_t duration_ms;
	uint32_t warmup;
	uint32_t warmup_ms;
	uint8_t poll;
	uint32_t inline_size;
	uint32_t cpu;
	uint32_t timeout_ms;
	uint32_t tx_depth;
	uint32_t qps;
	const char *cpus;
	uint32_t post_list;
	uint32_t signal_every;
	uint32_t interval_ms;
	uint8_t path;
	uint8_t stats;
	/* key or key-file: the server's shared secret, never printed */
	uint8_t key[KVPERF_WIRE_KEY_LEN];
	const char *key_file;
};

static inline bool run_opt(const struct run_opts *o, enum run_kw kw)
{
	return o->given & (1U << kw);
}

int run_parse(struct kvperf *kv, struct args *a, uint8_t type,
	      struct run_opts *o);
bool run_keyed(const struct run_opts *o);
int run_start_put(struct nl_msg *msg, const struct run_opts *o);
int parse_seconds_ms(const char *s, uint32_t *ms);
int parse_duration_ms(const char *s, uint32_t max_ms, uint32_t *ms);
bool run_cpus_valid(const char *s);
int run_path_parse(const char *s);
const char *run_path_name(uint8_t path);

/* Waiting for a run to end: the state of "run lat" or "run bw" meanwhile. */
struct run_wait {
	uint32_t id;
	/* the run once it ended, a copy of the message; free() it */
	struct nlmsghdr *final;
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
	FILE *err;
	/* how often to ask for the run's state, in case an event was lost */
	unsigned int check_ms;
};

int run_wait_event(struct run_wait *w, const struct nlmsghdr *nlh);
int run_wait_reply(struct run_wait *w, const struct nlmsghdr *nlh);
int run_wait_loop(struct kvperf *kv, struct knl *nl, struct knl *ev,
		  int sfd, struct run_wait *w);
int run_finish(struct kvperf *kv, const struct nlmsghdr *nlh, bool gbits);
void run_print_started(struct printer *p, uint32_t id);

/* run_print.c */
int run_print(struct printer *p, const struct nlmsghdr *nlh, FILE *err);
int run_print_units(struct printer *p, const struct nlmsghdr *nlh,
		    FILE *err, bool gbits);
int run_print_path(struct printer *p, const struct nlmsghdr *nlh,
		   FILE *err, bool gbits, uint8_t path);
int run_print_event(struct printer *p, const struct nlmsghdr *nlh,
		    FILE *err);
typedef void (*run_result_fn)(struct printer *p, struct nlattr *nest,
			      const void *arg);
void run_print_results(struct printer *p, const struct nlmsghdr *nlh,
		       int type, run_result_fn fn, const void *arg);

/* run_bw_print.c */
void run_print_bw(struct printer *p, const struct nlmsghdr *nlh,
		  struct nlattr **tb, bool gbits);
void run_print_live(FILE *f, struct nlattr **tb, int64_t since_ms,
		    bool gbits);

#endif /* KVPERF_RUN_H */
