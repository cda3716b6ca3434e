/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: latency statistics - a log-linear histogram of nanosecond
 * samples and the summary (min, max, mean, standard deviation,
 * percentiles) reported for a run.
 *
 * Buckets: a value below 2^(KVPERF_HIST_SUB_BITS + 1) has a bucket of its
 * own; above that each power of two [2^e, 2^(e+1)) is split into
 * 2^KVPERF_HIST_SUB_BITS equal buckets of width 2^(e - SUB_BITS). Finding
 * a bucket is one fls64() and a shift, so recording is O(1), takes no lock
 * and allocates nothing. The buckets cover [0, max_ns]; a larger sample
 * is counted in the last bucket.
 *
 * Percentiles use the nearest rank: the p-th percentile of n samples is
 * the ceil(p * n)-th smallest. It is reported as the midpoint of the
 * bucket holding that sample, clamped to [min, max]. A bucket of width
 * w = 2^s (s >= 1) starts at lower >= 2^(SUB_BITS + s), and its samples
 * are at most w / 2 from its midpoint, so the relative error of a
 * percentile is at most w / 2 / lower <= 1 / 2^(SUB_BITS + 1): 1/256 =
 * 0.39% for SUB_BITS 7, reported rounded up as KVPERF_HIST_REL_ERR_PPM
 * (3907 ppm). Values below 2^(SUB_BITS + 1) = 256 ns are exact. The bound
 * does not hold for a percentile that falls among samples above max_ns.
 *
 * Memory: one u64 count per bucket, as many buckets as the index of max_ns
 * plus one. For the 600 s (6e11 ns) a run records: 4236 buckets, 33888
 * bytes.
 *
 * Count, min, max, sum and sum of squares are kept exactly, so mean and
 * standard deviation are exact whatever max_ns is: the mean rounded to the
 * picosecond, the population standard deviation rounded to the picosecond
 * from an exact integer variance (U64_MAX from 2^53 ns, 104 days, up).
 * Sums are exact while the sum of all samples fits in a u64 (584 years).
 *
 * 6.1's linux/types.h has no u128 (6.12's has), so the 128-bit sum is
 * the compiler's __uint128_t, which needs a 64-bit architecture: kvperf
 * builds for 64-bit kernels only (DKMS skips others, BUILD_EXCLUSIVE_CONFIG).
 */
#ifndef _KVPERF_STATS_H
#define _KVPERF_STATS_H

#include <linux/types.h>

/* the compiler has __int128 on 64-bit targets only */
#ifndef __SIZEOF_INT128__
#error "kvperf keeps 128-bit sums for its statistics: it needs a 64-bit target"
#endif

#define KVPERF_HIST_SUB_BITS	7	/* 128 sub-buckets per power of two */

/* ceil(10^6 / 2^(SUB_BITS + 1)): the bound on a percentile's error, ppm */
#define KVPERF_HIST_REL_ERR_PPM \
	((1000000 + (1U << (KVPERF_HIST_SUB_BITS + 1)) - 1) >> \
	 (KVPERF_HIST_SUB_BITS + 1))

/**
 * struct kvperf_hist - a log-linear histogram of nanosecond samples
 * @count: samples recorded
 * @min_ns: smallest sample, 0 when empty
 * @max_ns: largest sample, 0 when empty
 * @sum_ns: sum of the samples
 * @sum_sq: sum of their squares, exact
 * @nbuckets: number of @buckets
 * @buckets: sample count per bucket; kvcalloc'ed
 *
 * The caller serializes access: one writer at a time, and no reader while
 * it records.
 */
struct kvperf_hist {
	u64 count;
	u64 min_ns, max_ns;
	u64 sum_ns;
	__uint128_t sum_sq;
	u32 nbuckets;
	u64 *buckets;
};

/**
 * struct kvperf_stats - the summary of a histogram, all 0 when empty
 * @count: samples
 * @min_ns: smallest sample, exact
 * @max_ns: largest sample, exact
 * @mean_ps: mean in picoseconds, exact (rounded to nearest)
 * @stdev_ps: population standard deviation in picoseconds, exact (rounded)
 * @p50_ns: median
 * @p90_ns: 90th percentile
 * @p99_ns: 99th percentile
 * @p999_ns: 99.9th percentile
 * @p9999_ns: 99.99th percentile
 * @rel_err_ppm: largest relative error of a reported percentile
 */
struct kvperf_stats {
	u64 count, min_ns, max_ns, mean_ps, stdev_ps;
	u64 p50_ns, p90_ns, p99_ns, p999_ns, p9999_ns;
	u32 rel_err_ppm;
};

int kvperf_hist_init(struct kvperf_hist *h, u64 max_ns);
void kvperf_hist_destroy(struct kvperf_hist *h);
void kvperf_hist_reset(struct kvperf_hist *h);
void kvperf_hist_record(struct kvperf_hist *h, u64 ns);
void kvperf_hist_merge(struct kvperf_hist *dst, const struct kvperf_hist *src);
u64 kvperf_hist_percentile(const struct kvperf_hist *h, u32 ppm);
void kvperf_hist_summarize(const struct kvperf_hist *h,
			   struct kvperf_stats *st);
void kvperf_stats_from_elapsed(struct kvperf_stats *st, u64 count,
			       u64 elapsed_ns, u32 divisor);
u32 kvperf_hist_bucket_index(const struct kvperf_hist *h, u64 ns);
u64 kvperf_hist_bucket_lower(u32 index);
u64 kvperf_hist_bucket_upper(u32 index);

#endif /* _KVPERF_STATS_H */
