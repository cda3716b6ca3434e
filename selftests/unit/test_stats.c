// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of kmod/stats.c, built for the host on user/engine/kshim.h: percentiles
 * against the exact nearest rank of the same samples sorted, mean and
 * standard deviation against long double, the 128-bit helpers against
 * known values, the bucket layout at every boundary. A program of its own
 * (kernel types and libnl's do not mix) printing KTAP like kvperf_unit.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "../../user/engine/kshim.h"
#include "../../kmod/stats.c"	/* the static helpers are tested too */

#define NS_PER_S	1000000000ULL
#define RUN_MAX_NS	(600 * NS_PER_S)	/* what a run records */

#define U128(hi, lo)	((__uint128_t)(hi) << 64 | (lo))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static bool failed;

static void fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("# %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	failed = true;
}

#define CHECK(cond)							\
	do {								\
		if (!(cond))						\
			fail(__FILE__, __LINE__, "check failed: %s", #cond); \
	} while (0)

#define CHECK_U64(got, want)						\
	do {								\
		u64 _got = (got), _want = (want);			\
									\
		if (_got != _want)					\
			fail(__FILE__, __LINE__,			\
			     "%s is %" PRIu64 ", want %" PRIu64,	\
			     #got, _got, _want);			\
	} while (0)

/* xorshift64*: the same samples on every run */
static u64 rng_state;

static void rng_seed(u64 seed)
{
	rng_state = seed;
}

static u64 rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* uniform in (0, 1] */
static long double rng_unit(void)
{
	return ((rng() >> 11) + 1) / 9007199254740992.0L;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static const u32 pct_ppm[] = {
	0, 1, 100000, 250000, 500000, 750000, 900000, 950000, 990000,
	999000, 999900, 999990, 1000000,
};

/*
 * Record @n samples in a histogram of range @max_ns and check everything
 * kvperf_hist_summarize() says against the samples themselves.
 */
static void check_samples(const u64 *samples, size_t n, u64 max_ns)
{
	long double sum = 0, sq = 0, mean, want_mean, want_sd, tol;
	u64 *sorted = malloc(n * sizeof(*sorted) + 1);
	u64 last_lower, last_upper, sum_buckets = 0;
	struct kvperf_stats st;
	struct kvperf_hist h;
	size_t i;

	CHECK(sorted);
	CHECK_U64(kvperf_hist_init(&h, max_ns), 0);
	if (!sorted || !h.buckets)
		return;
	for (i = 0; i < n; i++)
		kvperf_hist_record(&h, samples[i]);
	memcpy(sorted, samples, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	kvperf_hist_summarize(&h, &st);

	for (i = 0; i < h.nbuckets; i++)
		sum_buckets += h.buckets[i];
	CHECK_U64(sum_buckets, n);
	CHECK_U64(st.count, n);
	CHECK_U64(st.min_ns, sorted[0]);
	CHECK_U64(st.max_ns, sorted[n - 1]);
	CHECK_U64(st.rel_err_ppm, 3907);

	last_lower = kvperf_hist_bucket_lower(h.nbuckets - 1);
	last_upper = kvperf_hist_bucket_upper(h.nbuckets - 1);
	for (i = 0; i < ARRAY_SIZE(pct_ppm); i++) {
		u32 ppm = pct_ppm[i];
		u64 rank = ((u64)ppm * n + 999999) / 1000000;
		u64 want = sorted[(rank ? rank : 1) - 1];
		u64 got = kvperf_hist_percentile(&h, ppm);
		u64 err = got > want ? got - want : want - got;

		if (want > last_upper) {
			/* beyond the buckets: the last one's midpoint */
			u64 mid = last_lower + (last_upper - last_lower) / 2;

			CHECK_U64(got, clamp(mid, sorted[0], sorted[n - 1]));
			continue;
		}
		/* |got - want| / want <= 1 / 2^(SUB_BITS + 1), and in ppm */
		if ((__uint128_t)err << (KVPERF_HIST_SUB_BITS + 1) > want ||
		    (__uint128_t)err * 1000000 >
		    (__uint128_t)want * st.rel_err_ppm)
			fail(__FILE__, __LINE__,
			     "p%u ppm: got %" PRIu64 ", exact %" PRIu64,
			     ppm, got, want);
		CHECK(got >= sorted[0] && got <= sorted[n - 1]);
	}
	CHECK_U64(st.p50_ns, kvperf_hist_percentile(&h, 500000));
	CHECK_U64(st.p90_ns, kvperf_hist_percentile(&h, 900000));
	CHECK_U64(st.p99_ns, kvperf_hist_percentile(&h, 990000));
	CHECK_U64(st.p999_ns, kvperf_hist_percentile(&h, 999000));
	CHECK_U64(st.p9999_ns, kvperf_hist_percentile(&h, 999900));

	/* two passes in long double (64-bit mantissa) */
	for (i = 0; i < n; i++)
		sum += samples[i];
	mean = sum / n;
	for (i = 0; i < n; i++)
		sq += (samples[i] - mean) * (samples[i] - mean);
	want_mean = mean * 1000;
	want_sd = sqrtl(sq / n) * 1000;
	/* both are exact, then rounded: half a picosecond off at most */
	tol = 0.5L + want_mean * 1e-12L;
	if (fabsl(st.mean_ps - want_mean) > tol)
		fail(__FILE__, __LINE__, "mean_ps %" PRIu64 ", want %.3Lf",
		     st.mean_ps, want_mean);
	tol = 0.5L + want_sd * 1e-12L;
	if (fabsl(st.stdev_ps - want_sd) > tol)
		fail(__FILE__, __LINE__, "stdev_ps %" PRIu64 ", want %.3Lf",
		     st.stdev_ps, want_sd);

	kvperf_hist_destroy(&h);
	free(sorted);
}

static void test_u128_div(void)
{
	static const struct {
		__uint128_t n;
		u64 d;
		__uint128_t q;
		u64 r;
	} t[] = {
		{ 0, 1, 0, 0 },
		{ 7, 7, 1, 0 },
		{ U128(1, 0), 1, U128(1, 0), 0 },
		{ U128(1, 0), U64_MAX, 1, 1 },
		{ ~(__uint128_t)0, U64_MAX, U128(1, 1), 0 },
		{ ~(__uint128_t)0, 1, ~(__uint128_t)0, 0 },
		{ U128(1ULL << 63, 0), 3,
		  U128(0x2aaaaaaaaaaaaaaaULL, 0xaaaaaaaaaaaaaaaaULL), 2 },
		{ U128(1ULL << 63, 12345), 1000000000,
		  U128(0x225c17d04ULL, 0xdad2965cc5a02a23ULL), 884118073 },
		{ U128((1ULL << 63) - 1, U64_MAX), U64_MAX - 58,
		  0x800000000000001dULL, 9223372036854777518ULL },
		/* 10^38 / 10^19 */
		{ U128(0x4b3b4ca85a86c47aULL, 0x098a224000000000ULL),
		  10000000000000000000ULL, 10000000000000000000ULL, 0 },
	};
	size_t i;
	u64 r;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		__uint128_t q = u128_div_u64(t[i].n, t[i].d, &r);

		CHECK_U64(q >> 64, t[i].q >> 64);
		CHECK_U64((u64)q, (u64)t[i].q);
		CHECK_U64(r, t[i].r);
	}

	/* n == q * d + r, r < d on a spread of sizes */
	rng_seed(42);
	for (i = 0; i < 100000; i++) {
		__uint128_t n = U128(rng(), rng()) >> (rng() % 128);
		u64 d = (rng() >> (rng() % 64)) | 1;
		__uint128_t q = u128_div_u64(n, d, &r);

		if (q * d + r != n || r >= d) {
			fail(__FILE__, __LINE__, "division by %" PRIu64, d);
			break;
		}
	}
}

static void test_u128_sqrt(void)
{
	static const struct {
		__uint128_t x;
		u64 root;
	} t[] = {
		{ 0, 0 }, { 1, 1 }, { 2, 1 }, { 3, 1 }, { 4, 2 }, { 8, 2 },
		{ 9, 3 },
		{ U128(0, U64_MAX), 4294967295ULL },
		{ U128(1, 0), 1ULL << 32 },
		{ U128(1ULL << 62, 0), 1ULL << 63 },
		{ U128(1ULL << 62, 0) - 1, (1ULL << 63) - 1 },
		/* 2^127: sqrt(2) * 2^63 */
		{ U128(1ULL << 63, 0), 13043817825332782212ULL },
		{ U128(1ULL << 63, 0) - 1, 13043817825332782212ULL },
		/* (2^64 - 1)^2 = 2^128 - 2^65 + 1, and around it */
		{ U128(U64_MAX - 1, 1), U64_MAX },
		{ U128(U64_MAX - 1, 0), U64_MAX - 1 },
		{ ~(__uint128_t)0, U64_MAX },
		/* 10^36 and 10^36 - 1 */
		{ U128(0xc097ce7bc90715ULL, 0xb34b9f1000000000ULL),
		  1000000000000000000ULL },
		{ U128(0xc097ce7bc90715ULL, 0xb34b9f0fffffffffULL),
		  999999999999999999ULL },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		CHECK_U64(u128_sqrt(t[i].x), t[i].root);

	/* root^2 <= x < (root + 1)^2 = root^2 + 2 * root + 1 */
	rng_seed(7);
	for (i = 0; i < 100000; i++) {
		__uint128_t x = U128(rng(), rng()) >> (rng() % 128);
		u64 root = u128_sqrt(x);
		__uint128_t sq = (__uint128_t)root * root;

		if (sq > x || x - sq > 2 * (__uint128_t)root) {
			fail(__FILE__, __LINE__, "sqrt gave %" PRIu64, root);
			break;
		}
	}
}

static void test_u128_mul_frac(void)
{
	CHECK_U64(u128_mul_frac(4000000, 1, 3), 1333333);
	CHECK_U64(u128_mul_frac(4000000, 2, 3), 2666666);
	CHECK_U64(u128_mul_frac(0, 5, 7), 0);
	CHECK_U64(u128_mul_frac(UINT32_MAX, 0, 7), 0);
	CHECK_U64(u128_mul_frac(UINT32_MAX, 6, 7), 3681400538ULL);
	/* 2^127 / (2^128 - 1) is just over 1/2 */
	CHECK_U64(u128_mul_frac(4000000, U128(1ULL << 63, 0),
				~(__uint128_t)0), 2000000);
	CHECK_U64(u128_mul_frac(4000000, ~(__uint128_t)0 - 1,
				~(__uint128_t)0), 3999999);
	CHECK_U64(u128_mul_frac(UINT32_MAX, ~(__uint128_t)0 - 1,
				~(__uint128_t)0), UINT32_MAX - 1);
}

static void test_bucket_layout(void)
{
	struct kvperf_hist h;
	u32 i, last;

	CHECK_U64(kvperf_hist_init(&h, U64_MAX), 0);
	last = h.nbuckets - 1;
	CHECK_U64(last, (64 - KVPERF_HIST_SUB_BITS - 1) <<
		  KVPERF_HIST_SUB_BITS | ((2 << KVPERF_HIST_SUB_BITS) - 1));
	CHECK_U64(kvperf_hist_bucket_lower(0), 0);
	CHECK_U64(kvperf_hist_bucket_upper(last), U64_MAX);
	for (i = 0; i <= last; i++) {
		u64 lo = kvperf_hist_bucket_lower(i);
		u64 hi = kvperf_hist_bucket_upper(i);
		u64 width = hi - lo + 1;

		if (lo > hi || (width & (width - 1)) ||
		    (i < 2 << KVPERF_HIST_SUB_BITS && (lo != i || hi != i)) ||
		    (width > 1 && (width / 2) << (KVPERF_HIST_SUB_BITS + 1) >
		     lo) ||
		    kvperf_hist_bucket_index(&h, lo) != i ||
		    kvperf_hist_bucket_index(&h, hi) != i ||
		    kvperf_hist_bucket_index(&h, lo + width / 2) != i ||
		    (i < last && kvperf_hist_bucket_lower(i + 1) != hi + 1)) {
			fail(__FILE__, __LINE__,
			     "bucket %u: [%" PRIu64 ", %" PRIu64 "]", i, lo,
			     hi);
			break;
		}
	}
	kvperf_hist_destroy(&h);
	CHECK(!h.buckets);

	/* a smaller range: everything above goes to the last bucket */
	CHECK_U64(kvperf_hist_init(&h, 1000), 0);
	CHECK_U64(h.nbuckets, 1000 / 4 + 256 + 1);
	CHECK_U64(kvperf_hist_bucket_index(&h, 1000), h.nbuckets - 1);
	CHECK_U64(kvperf_hist_bucket_index(&h, 1001), h.nbuckets - 1);
	CHECK_U64(kvperf_hist_bucket_index(&h, U64_MAX), h.nbuckets - 1);
	CHECK_U64(kvperf_hist_bucket_upper(h.nbuckets - 1), 1003);
	kvperf_hist_destroy(&h);

	CHECK_U64(kvperf_hist_init(&h, 0), 0);
	CHECK_U64(h.nbuckets, 1);
	CHECK_U64(kvperf_hist_bucket_index(&h, 12345), 0);
	kvperf_hist_destroy(&h);
}

/* What a run's histogram costs: stated in stats.h. */
static void test_memory(void)
{
	struct kvperf_hist h;

	CHECK_U64(kvperf_hist_init(&h, RUN_MAX_NS), 0);
	CHECK_U64(h.nbuckets, 4236);
	CHECK_U64(h.nbuckets * sizeof(*h.buckets), 33888);
	CHECK_U64(kvperf_hist_bucket_upper(h.nbuckets - 1) >= RUN_MAX_NS, 1);
	CHECK_U64(kvperf_hist_bucket_lower(h.nbuckets - 1) <= RUN_MAX_NS, 1);
	kvperf_hist_destroy(&h);
}

static void test_rel_err_bound(void)
{
	/* ceil(10^6 / 256), from SUB_BITS */
	CHECK_U64(KVPERF_HIST_REL_ERR_PPM, 3907);
	CHECK_U64(KVPERF_HIST_REL_ERR_PPM,
		  (1000000 + (2 << KVPERF_HIST_SUB_BITS) - 1) /
		  (2 << KVPERF_HIST_SUB_BITS));
}

static void test_empty(void)
{
	struct kvperf_stats st;
	struct kvperf_hist h;

	CHECK_U64(kvperf_hist_init(&h, RUN_MAX_NS), 0);
	memset(&st, 0xff, sizeof(st));
	kvperf_hist_summarize(&h, &st);
	CHECK_U64(st.count, 0);
	CHECK_U64(st.min_ns, 0);
	CHECK_U64(st.max_ns, 0);
	CHECK_U64(st.mean_ps, 0);
	CHECK_U64(st.stdev_ps, 0);
	CHECK_U64(st.p50_ns, 0);
	CHECK_U64(st.p9999_ns, 0);
	CHECK_U64(st.rel_err_ppm, 0);
	CHECK_U64(kvperf_hist_percentile(&h, 500000), 0);
	CHECK_U64(kvperf_hist_percentile(&h, 1000000), 0);
	kvperf_hist_destroy(&h);
}

static void test_single(void)
{
	static const u64 one[] = { 777777 };
	struct kvperf_stats st;
	struct kvperf_hist h;

	check_samples(one, 1, RUN_MAX_NS);

	CHECK_U64(kvperf_hist_init(&h, RUN_MAX_NS), 0);
	kvperf_hist_record(&h, 777777);
	kvperf_hist_summarize(&h, &st);
	CHECK_U64(st.min_ns, 777777);
	CHECK_U64(st.max_ns, 777777);
	CHECK_U64(st.mean_ps, 777777000);
	CHECK_U64(st.stdev_ps, 0);
	/* the bucket's midpoint, clamped to the only sample */
	CHECK_U64(st.p50_ns, 777777);
	CHECK_U64(st.p9999_ns, 777777);
	CHECK_U64(kvperf_hist_percentile(&h, 0), 777777);
	kvperf_hist_destroy(&h);
}

static void test_constant(void)
{
	enum { N = 100000 };
	u64 *s = malloc(N * sizeof(*s));
	struct kvperf_stats st;
	struct kvperf_hist h;
	size_t i;

	CHECK(s);
	if (!s)
		return;
	for (i = 0; i < N; i++)
		s[i] = 12345;
	check_samples(s, N, RUN_MAX_NS);

	CHECK_U64(kvperf_hist_init(&h, RUN_MAX_NS), 0);
	for (i = 0; i < N; i++)
		kvperf_hist_record(&h, s[i]);
	kvperf_hist_summarize(&h, &st);
	CHECK_U64(st.mean_ps, 12345000);
	CHECK_U64(st.stdev_ps, 0);
	CHECK_U64(st.p50_ns, 12345);
	CHECK_U64(st.p99_ns, 12345);
	CHECK_U64(st.p9999_ns, 12345);
	kvperf_hist_destroy(&h);
	free(s);
}

/* 1..N once each: p = ceil(p * N) exactly, stdev sqrt((N^2 - 1) / 12) */
static void test_uniform(void)
{
	enum { N = 100000 };
	u64 *s = malloc(N * sizeof(*s));
	struct kvperf_stats st;
	struct kvperf_hist h;
	size_t i;

	CHECK(s);
	if (!s)
		return;
	for (i = 0; i < N; i++)
		s[i] = N - i;
	check_samples(s, N, RUN_MAX_NS);

	CHECK_U64(kvperf_hist_init(&h, RUN_MAX_NS), 0);
	for (i = 0; i < N; i++)
		kvperf_hist_record(&h, s[i]);
	kvperf_hist_summarize(&h, &st);
	CHECK_U64(st.min_ns, 1);
	CHECK_U64(st.max_ns, N);
	CHECK_U64(st.mean_ps, 50000500);
	CHECK_U64(st.stdev_ps, 28867513);	/* 28867513.458 */
	/* 50000 lies in [49920, 50175], midpoint 50047 */
	CHECK_U64(st.p50_ns, 50047);
	CHECK_U64(st.p99_ns, 99071);		/* 99000 in [98816, 99327] */
	kvperf_hist_destroy(&h);
	free(s);
}

/* Values with a bucket each are reported exactly. */
static void test_exact_small(void)
{
	u64 s[2 << KVPERF_HIST_SUB_BITS];
	struct kvperf_hist h;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(s); i++)
		s[i] = i;
	check_samples(s, ARRAY_SIZE(s), RUN_MAX_NS);

	CHECK_U64(kvperf_hist_init(&h, RUN_MAX_NS), 0);
	for (i = 0; i < ARRAY_SIZE(s); i++)
		kvperf_hist_record(&h, s[i]);
	CHECK_U64(kvperf_hist_percentile(&h, 500000), 127);
	CHECK_U64(kvperf_hist_percentile(&h, 900000), 230);
	CHECK_U64(kvperf_hist_percentile(&h, 1000000), 255);
	CHECK_U64(kvperf_hist_percentile(&h, 1), 0);
	kvperf_hist_destroy(&h);
}

/* 1 us plus an exponential of mean 50 us */
static void test_exponential(void)
{
	enum { N = 200000 };
	u64 *s = malloc(N * sizeof(*s));
	size_t i;

	CHECK(s);
	if (!s)
		return;
	rng_seed(0x6b7670657266ULL);
	for (i = 0; i < N; i++)
		s[i] = 1000 + (u64)(-logl(rng_unit()) * 50000);
	check_samples(s, N, RUN_MAX_NS);
	free(s);
}

/* Like TCG latencies: 95% around 20 us, 5% around 5 ms. */
static void test_bimodal(void)
{
	enum { N = 200000 };
	u64 *s = malloc(N * sizeof(*s));
	struct kvperf_stats st;
	struct kvperf_hist h;
	size_t i;

	CHECK(s);
	if (!s)
		return;
	rng_seed(20);
	for (i = 0; i < N; i++) {
		if (rng() % 100 < 95)
			s[i] = 18000 + rng() % 4001;
		else
			s[i] = 4500000 + rng() % 1000001;
	}
	check_samples(s, N, RUN_MAX_NS);

	CHECK_U64(kvperf_hist_init(&h, RUN_MAX_NS), 0);
	for (i = 0; i < N; i++)
		kvperf_hist_record(&h, s[i]);
	kvperf_hist_summarize(&h, &st);
	CHECK(st.p50_ns >= 18000 && st.p50_ns <= 22000);
	CHECK(st.p90_ns >= 18000 && st.p90_ns <= 22000);
	CHECK(st.p99_ns >= 4500000 && st.p99_ns <= 5500000);
	CHECK(st.p9999_ns >= 4500000 && st.p9999_ns <= 5500000);
	kvperf_hist_destroy(&h);
	free(s);
}

/*
 * Samples above max_ns land in the last bucket; min, max, mean and
 * standard deviation stay exact.
 */
static void test_above_max(void)
{
	enum { N = 100000, MAX_NS = 1000000 };
	u64 *s = malloc(N * sizeof(*s));
	struct kvperf_stats st;
	struct kvperf_hist h;
	size_t i;

	CHECK(s);
	if (!s)
		return;
	rng_seed(99);
	for (i = 0; i < N; i++)
		s[i] = i % 100 ? 1 + rng() % 100000 :
				 5000000 + rng() % 5000000;
	s[N / 2] = 1ULL << 50;
	check_samples(s, N, MAX_NS);

	CHECK_U64(kvperf_hist_init(&h, MAX_NS), 0);
	for (i = 0; i < N; i++)
		kvperf_hist_record(&h, s[i]);
	kvperf_hist_summarize(&h, &st);
	CHECK_U64(h.buckets[h.nbuckets - 1], N / 100);
	CHECK_U64(st.max_ns, 1ULL << 50);
	CHECK(st.p99_ns <= 100000 + 100000 / 256);
	CHECK(st.p999_ns >= MAX_NS);
	kvperf_hist_destroy(&h);

	/* one huge pair: mean and stdev 2^49 ns exactly */
	s[0] = 0;
	s[1] = 1ULL << 50;
	check_samples(s, 2, RUN_MAX_NS);
	CHECK_U64(kvperf_hist_init(&h, RUN_MAX_NS), 0);
	kvperf_hist_record(&h, 0);
	kvperf_hist_record(&h, 1ULL << 50);
	kvperf_hist_summarize(&h, &st);
	CHECK_U64(st.mean_ps, (1ULL << 49) * 1000);
	CHECK_U64(st.stdev_ps, (1ULL << 49) * 1000);
	/* the largest standard deviation computed: 2^53 - 1 ns */
	kvperf_hist_reset(&h);
	kvperf_hist_record(&h, 0);
	kvperf_hist_record(&h, (1ULL << 54) - 2);
	kvperf_hist_summarize(&h, &st);
	CHECK_U64(st.mean_ps, ((1ULL << 53) - 1) * 1000);
	CHECK_U64(st.stdev_ps, ((1ULL << 53) - 1) * 1000);
	/* above it, U64_MAX: here 2^53.25 ns */
	kvperf_hist_reset(&h);
	kvperf_hist_record(&h, 0);
	kvperf_hist_record(&h, 21419752525963216ULL);
	kvperf_hist_summarize(&h, &st);
	CHECK_U64(st.mean_ps, 10709876262981608000ULL);
	CHECK_U64(st.stdev_ps, U64_MAX);
	/* 2^62 ns is too big in picoseconds for a u64: saturate */
	kvperf_hist_reset(&h);
	kvperf_hist_record(&h, 0);
	kvperf_hist_record(&h, 1ULL << 63);
	kvperf_hist_summarize(&h, &st);
	CHECK_U64(st.max_ns, 1ULL << 63);
	CHECK_U64(st.mean_ps, U64_MAX);
	CHECK_U64(st.stdev_ps, U64_MAX);
	kvperf_hist_destroy(&h);
	free(s);
}

/* Sub-nanosecond means and deviations, rounded to the picosecond. */
static void test_rounding(void)
{
	static const struct {
		u64 s[5];
		size_t n;
		u64 mean_ps, stdev_ps;
	} t[] = {
		{ { 1, 2 }, 2, 1500, 500 },
		{ { 0, 1 }, 2, 500, 500 },
		{ { 1, 2, 3, 4 }, 4, 2500, 1118 },	/* 1118.034 */
		{ { 0, 0, 1 }, 3, 333, 471 },		/* 333.3, 471.4 */
		{ { 0, 1, 1 }, 3, 667, 471 },		/* 666.7 */
		{ { 1000, 1001, 1001 }, 3, 1000667, 471 },
		{ { 3, 3, 3, 4 }, 4, 3250, 433 },	/* 433.013 */
		{ { 0, 0, 1, 1, 1 }, 5, 600, 490 },	/* 489.898 */
		{ { 0, 2, 2 }, 3, 1333, 943 },		/* 1333.3, 942.809 */
	};
	struct kvperf_stats st;
	struct kvperf_hist h;
	size_t i, j;

	CHECK_U64(kvperf_hist_init(&h, RUN_MAX_NS), 0);
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		kvperf_hist_reset(&h);
		for (j = 0; j < t[i].n; j++)
			kvperf_hist_record(&h, t[i].s[j]);
		kvperf_hist_summarize(&h, &st);
		CHECK_U64(st.mean_ps, t[i].mean_ps);
		CHECK_U64(st.stdev_ps, t[i].stdev_ps);
		check_samples(t[i].s, t[i].n, RUN_MAX_NS);
	}

	/* 1999 zeros and a one: 0.5 ps rounds up */
	kvperf_hist_reset(&h);
	for (i = 0; i < 1999; i++)
		kvperf_hist_record(&h, 0);
	kvperf_hist_record(&h, 1);
	kvperf_hist_summarize(&h, &st);
	CHECK_U64(st.mean_ps, 1);
	CHECK_U64(st.stdev_ps, 22);		/* 22.355 */
	kvperf_hist_destroy(&h);
}

/*
 * Two histograms merged are the histogram of all their samples: every
 * bucket, the extremes, the sums and so every statistic; an empty one
 * adds nothing.
 */
static void test_merge(void)
{
	struct kvperf_hist a, b, all, none;
	struct kvperf_stats sm, sa;
	u32 i;

	CHECK_U64(kvperf_hist_init(&a, RUN_MAX_NS), 0);
	CHECK_U64(kvperf_hist_init(&b, RUN_MAX_NS), 0);
	CHECK_U64(kvperf_hist_init(&all, RUN_MAX_NS), 0);
	CHECK_U64(kvperf_hist_init(&none, RUN_MAX_NS), 0);
	rng_state = 7;
	for (i = 0; i < 5000; i++) {
		/* a's samples are the larger, b's hold the smallest */
		u64 x = 1000 + rng() % 100000, y = 10 + rng() % 5000;

		kvperf_hist_record(&a, x);
		kvperf_hist_record(&all, x);
		if (i % 2) {
			kvperf_hist_record(&b, y);
			kvperf_hist_record(&all, y);
		}
	}
	kvperf_hist_merge(&a, &none);
	/* the second brings the larger maximum */
	kvperf_hist_merge(&none, &b);
	kvperf_hist_merge(&none, &a);
	kvperf_hist_summarize(&none, &sm);
	kvperf_hist_summarize(&all, &sa);
	CHECK_U64(sm.max_ns, sa.max_ns);
	/* the second brings the smaller minimum */
	kvperf_hist_merge(&a, &b);
	kvperf_hist_summarize(&a, &sm);
	CHECK_U64(sm.count, 7500);
	CHECK_U64(sm.min_ns, sa.min_ns);
	CHECK_U64(sm.max_ns, sa.max_ns);
	CHECK_U64(sm.mean_ps, sa.mean_ps);
	CHECK_U64(sm.stdev_ps, sa.stdev_ps);
	CHECK_U64(sm.p50_ns, sa.p50_ns);
	CHECK_U64(sm.p9999_ns, sa.p9999_ns);
	for (i = 0; i < all.nbuckets; i++)
		if (none.buckets[i] != all.buckets[i] ||
		    a.buckets[i] != all.buckets[i])
			break;
	CHECK_U64(i, all.nbuckets);
	kvperf_hist_destroy(&a);
	kvperf_hist_destroy(&b);
	kvperf_hist_destroy(&all);
	kvperf_hist_destroy(&none);
}

static void test_reset(void)
{
	struct kvperf_stats st;
	struct kvperf_hist h;
	u32 i;

	CHECK_U64(kvperf_hist_init(&h, RUN_MAX_NS), 0);
	kvperf_hist_record(&h, 5);
	kvperf_hist_record(&h, 5000000);
	kvperf_hist_reset(&h);
	kvperf_hist_summarize(&h, &st);
	CHECK_U64(st.count, 0);
	CHECK_U64(st.max_ns, 0);
	for (i = 0; i < h.nbuckets; i++)
		if (h.buckets[i])
			break;
	CHECK_U64(i, h.nbuckets);

	/* min is the first sample again, not what came before the reset */
	kvperf_hist_record(&h, 700);
	kvperf_hist_summarize(&h, &st);
	CHECK_U64(st.min_ns, 700);
	CHECK_U64(st.max_ns, 700);
	CHECK_U64(st.p50_ns, 700);
	kvperf_hist_destroy(&h);
}

/* stats off: count and mean from the wall time, nothing else. */
static void test_from_elapsed(void)
{
	struct kvperf_stats st;

	memset(&st, 0xff, sizeof(st));
	/* 1000 round trips in 2 ms, half of each: 1 us */
	kvperf_stats_from_elapsed(&st, 1000, 2000000, 2);
	CHECK_U64(st.count, 1000);
	CHECK_U64(st.mean_ps, 1000000);
	CHECK_U64(st.min_ns, 0);
	CHECK_U64(st.max_ns, 0);
	CHECK_U64(st.stdev_ps, 0);
	CHECK_U64(st.p50_ns, 0);
	CHECK_U64(st.p90_ns, 0);
	CHECK_U64(st.p99_ns, 0);
	CHECK_U64(st.p999_ns, 0);
	CHECK_U64(st.p9999_ns, 0);
	CHECK_U64(st.rel_err_ppm, 0);

	/* read: the full round trip; rounded to the nearest picosecond */
	kvperf_stats_from_elapsed(&st, 3, 1000, 1);
	CHECK_U64(st.mean_ps, 333333);
	kvperf_stats_from_elapsed(&st, 3, 2000, 1);
	CHECK_U64(st.mean_ps, 666667);
	kvperf_stats_from_elapsed(&st, 7, 1, 2);
	CHECK_U64(st.mean_ps, 71);		/* 71.43 */
	kvperf_stats_from_elapsed(&st, 8, 1, 2);
	CHECK_U64(st.mean_ps, 63);		/* 62.5 rounds up */

	/* an hour of 1 ns iterations: no overflow */
	kvperf_stats_from_elapsed(&st, 3600ULL * NS_PER_S, 3600ULL * NS_PER_S,
				  1);
	CHECK_U64(st.mean_ps, 1000);
	kvperf_stats_from_elapsed(&st, 1, U64_MAX, 1);
	CHECK_U64(st.mean_ps, U64_MAX);

	/* nothing measured: all 0, no division by zero */
	memset(&st, 0xff, sizeof(st));
	kvperf_stats_from_elapsed(&st, 0, 12345, 2);
	CHECK_U64(st.count, 0);
	CHECK_U64(st.mean_ps, 0);
	CHECK_U64(st.max_ns, 0);
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
#define T(fn)	{ #fn, fn }
	T(test_u128_div),
	T(test_u128_sqrt),
	T(test_u128_mul_frac),
	T(test_bucket_layout),
	T(test_memory),
	T(test_rel_err_bound),
	T(test_empty),
	T(test_single),
	T(test_constant),
	T(test_uniform),
	T(test_exact_small),
	T(test_exponential),
	T(test_bimodal),
	T(test_above_max),
	T(test_rounding),
	T(test_reset),
	T(test_merge),
	T(test_from_elapsed),
#undef T
};

int main(void)
{
	unsigned int pass = 0, fail_n = 0;
	size_t i;

	printf("TAP version 13\n1..%zu\n", ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		failed = false;
		tests[i].fn();
		printf("%sok %zu - %s\n", failed ? "not " : "", i + 1,
		       tests[i].name);
		if (failed)
			fail_n++;
		else
			pass++;
		fflush(stdout);
	}
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:0 error:0\n",
	       pass, fail_n);
	return fail_n ? 1 : 0;
}
