/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf compare: the same test on the kernel path, the user path and
 * perftest, interleaved round by round, summarized side by side.
 */
#ifndef KVPERF_COMPARE_H
#define KVPERF_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/kvperf.h>

#include "run_cfg.h"

struct args;
struct kvperf;
struct kv_run;
struct kv_run_cfg;
struct kvperf_cmd;
struct printer;

/*
 * The columns, in the order each round measures them; kernel-bh (the
 * kernel path with post-context bh) only with post-context both. In a
 * compare io, kernel is the kernel host against the kernel target, user
 * the user host against the kernel target ("user-host"), user-target the
 * kernel host against the user target; perftest has no I/O runs.
 */
enum cmp_path {
	CMP_KERNEL,
	CMP_KERNEL_BH,
	CMP_USER,
	CMP_PERFTEST,
	CMP_USER_TARGET,
	CMP_PATHS
};

extern const char *const cmp_path_names[CMP_PATHS];
const char *cmp_col_name(uint8_t type, enum cmp_path path);
bool cmp_path_of_type(uint8_t type, enum cmp_path path);

/* The points of a latency distribution each tool reports, in usec. */
enum cmp_point {
	CMP_PT_MIN,
	CMP_PT_P50,
	CMP_PT_P90,
	CMP_PT_P99,
	CMP_PT_P999,
	CMP_PT_MAX,
	CMP_PTS
};

extern const char *const cmp_point_names[CMP_PTS];
/* the fraction of iterations at or below each point */
extern const double cmp_point_fraction[CMP_PTS];

#define CMP_ROUNDS_DEFAULT	5
#define CMP_ROUNDS_MAX		100
/* sizes all: 2 B to 8 MiB, 23 sizes */
#define CMP_SIZES_MAX		24

/*
 * The keywords of "compare lat" and "compare bw", in the order prefixes
 * resolve (s is size, r rounds, p port, i iters). Only ever appended.
 */
enum cmp_kw {
	CMP_KW_OP,
	CMP_KW_ADDR,
	CMP_KW_PORT,
	CMP_KW_SIZE,
	CMP_KW_SIZES,
	CMP_KW_ROUNDS,
	CMP_KW_ITERS,
	CMP_KW_POLL,
	CMP_KW_INLINE,
	CMP_KW_PLOT,
	CMP_KW_NO_PERFTEST,
	CMP_KW_REMOTE,
	/* compare bw only from here */
	CMP_KW_TX_DEPTH,
	CMP_KW_QPS,
	CMP_KW_SIGNAL_EVERY,
	/* both again */
	CMP_KW_POST_CONTEXT,
	CMP_KW_TIMEOUT,
	CMP_KW_COUNT
};

/*
 * What post-context asks of the kernel path: its kernel column posts in
 * process context or with bottom halves disabled, or both, a column each.
 */
enum cmp_post {
	CMP_POST_PROCESS = KVPERF_POST_CONTEXT_PROCESS,
	CMP_POST_BH = KVPERF_POST_CONTEXT_BH,
	CMP_POST_BOTH,
	CMP_POSTS
};

extern const char *const cmp_post_names[CMP_POSTS];

extern const char *const cmp_keywords[CMP_KW_COUNT];

/* What "compare lat" or "compare bw" asks for; @given: bit per keyword. */
struct cmp_opts {
	uint64_t given;
	uint8_t type;
	uint8_t op;
	const char *addr;
	uint8_t addr_bin[16];
	int addr_len;
	uint16_t port;
	uint32_t size;
	uint32_t size_max;
	bool sizes_all;
	uint32_t rounds;
	uint32_t iterations;
	uint8_t poll;
	uint32_t inline_size;
	const char *plot;
	uint32_t tx_depth;
	uint32_t qps;
	uint32_t signal_every;
	uint8_t post_context;
	uint32_t timeout_ms;
	/* compare io: the run io of the kernel column, as "run io" parsed it */
	struct kv_run_cfg io;
	/* compare io: ADDR as text, for messages */
	char addr_text[48];
};

static inline bool cmp_opt(const struct cmp_opts *o, enum cmp_kw kw)
{
	return o->given & (1ULL << kw);
}

int cmp_parse(struct kvperf *kv, struct args *a, uint8_t type,
	      struct cmp_opts *o);
int cmp_parse_io(struct kvperf *kv, struct args *a, struct cmp_opts *o);
size_t cmp_sizes(const struct cmp_opts *o, uint32_t *sizes, size_t max);
uint32_t cmp_signal_every(const struct cmp_opts *o);

/* The configuration of one kvperf measurement, kernel or user path. */
void cmp_run_cfg(struct kv_run_cfg *cfg, const struct cmp_opts *o,
		 enum cmp_path path);
void cmp_io_cfg(struct kv_run_cfg *cfg, const struct cmp_opts *o,
		enum cmp_path path);

/* the longest reason kept for a failed round of a cell */
#define CMP_WHY_LEN		256

/*
 * One path at one size: a value per round, NAN where it failed. A round
 * that failed counts in @failed and has its reason in @why (allocated at
 * its first failure; "" where a round did not fail).
 */
struct cmp_cell {
	double *value;
	/* lat, io: the distribution per round, NAN where not reported */
	double (*points)[CMP_PTS];
	/* io: registration and invalidation, % of the summed latencies */
	double *share;
	unsigned int failed;
	char (*why)[CMP_WHY_LEN];
};

/* A message size; in a compare io, a direction (@op) of the block size. */
struct cmp_row {
	uint32_t size;
	uint8_t op;
	struct cmp_cell cell[CMP_PATHS];
};

struct cmp_env {
	char kernel[65];
	char dev[64];
	char cpu[128];
	bool tcg;
	char perftest[32];	/* its version, "" when not used */
};

struct cmp_result {
	uint8_t type;
	uint8_t op;
	/* compare io: its run io (the kernel column's) */
	struct kv_run_cfg io;
	uint8_t poll;
	uint8_t post_context;	/* enum cmp_post */
	uint32_t rounds;
	uint32_t iterations;	/* 0: the tools' defaults */
	bool active[CMP_PATHS];
	/* why perftest is not a column, when it is not */
	const char *perftest_note;
	/* perftest waits for completion events (-e) rather than polls */
	bool perftest_events;
	struct cmp_env env;
	size_t count;
	struct cmp_row rows[CMP_SIZES_MAX];
};

int cmp_result_init(struct cmp_result *r, const struct cmp_opts *o);
void cmp_result_free(struct cmp_result *r);
struct cmp_row *cmp_row_find(struct cmp_result *r, uint32_t size);
void cmp_cell_fail(const struct cmp_result *r, struct cmp_cell *c,
		   uint32_t round, const char *why);
const char *cmp_cell_why(const struct cmp_cell *c, uint32_t round);
unsigned int cmp_failures(const struct cmp_result *r, unsigned int *total);
int cmp_exit_status(const struct cmp_result *r);

/* Median and spread of the rounds that produced a value. */
struct cmp_summary {
	size_t n;
	double median;
	double min;
	double max;
	/* the round whose value is the median (the lower one of two) */
	size_t median_round;
};

size_t cmp_summarize(const double *v, size_t n, struct cmp_summary *s);
double cmp_ratio(double a, double b);

int cmp_read_run(struct cmp_result *r, enum cmp_path path, uint32_t round,
		 const struct kv_run *run, char *err, size_t errlen);
int cmp_read_perftest(struct cmp_result *r, uint32_t round, const char *out,
		      char *err, size_t errlen);
uint32_t cmp_run_results(const struct cmp_result *r, const struct kv_run *run);
size_t cmp_read_failed_run(struct cmp_result *r, enum cmp_path path,
			   uint32_t round, size_t from, const struct kv_run *run);
void cmp_not_tried(struct cmp_result *r, enum cmp_path path, uint32_t round,
		   size_t from, const char *why);
size_t cmp_size_failed(struct cmp_result *r, enum cmp_path path,
		       uint32_t round, size_t at, bool in_a_row,
		       const char *why);

bool cmp_env_is_tcg(const char *cpu_model, const char *sys_vendor,
		    const char *clocksources);
void cmp_print(struct printer *p, const struct cmp_result *r);

#endif /* KVPERF_COMPARE_H */
