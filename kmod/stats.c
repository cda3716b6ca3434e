// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: the latency histogram and its summary; see stats.h for the
 * bucket layout and the error bound. No floating point and no 128-bit
 * division, which the kernel has no libgcc for: the few 128-bit
 * divisions and the square root are done bit by bit here.
 */
#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>
#else
#include "kshim.h"	/* user/upath_stats.c, unit tests */
#endif

#include "stats.h"

#define SUB_BITS	KVPERF_HIST_SUB_BITS
#define SUB		BIT(SUB_BITS)	/* buckets per power of two */
#define PPM		1000000U

/*
 * floor(n / d) and n % d for d != 0. The high half divides with 64-bit
 * arithmetic; its remainder and the low half then go through a 128 by 64
 * bit long division whose quotient fits in 64 bits.
 */
static __uint128_t u128_div_u64(__uint128_t n, u64 d, u64 *rem)
{
	u64 lo = n, q = 0, r;
	u64 qhi = div64_u64_rem(n >> 64, d, &r);
	int i;

	for (i = 63; i >= 0; i--) {
		bool carry = r >> 63;

		r = r << 1 | ((lo >> i) & 1);
		q <<= 1;
		if (carry || r >= d) {
			r -= d;
			q |= 1;
		}
	}
	*rem = r;
	return (__uint128_t)qhi << 64 | q;
}

/* floor(sqrt(x)), one bit of the root per step */
static u64 u128_sqrt(__uint128_t x)
{
	__uint128_t root = 0, bit = (__uint128_t)1 << 126;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= root + bit) {
			x -= root + bit;
			root = (root >> 1) + bit;
		} else {
			root >>= 1;
		}
		bit >>= 2;
	}
	return root;
}

/*
 * floor(m * r / d) for r < d, without the 150-bit product: Horner's rule
 * over the bits of m, keeping q * d + rem == (bits of m so far) * r with
 * rem < d. rem may pass 2^128 before it is reduced, hence the carries.
 */
static u32 u128_mul_frac(u32 m, __uint128_t r, __uint128_t d)
{
	__uint128_t rem = 0;
	u32 q = 0;
	int i;

	for (i = 31; i >= 0; i--) {
		bool carry = rem >> 127;

		q <<= 1;
		rem <<= 1;
		if (carry || rem >= d) {
			rem -= d;
			q++;
		}
		if (m & (1U << i)) {
			rem += r;
			if (rem < r || rem >= d) {
				rem -= d;
				q++;
			}
		}
	}
	return q;
}

/* round(1000 * s1 / n): the mean in picoseconds */
static u64 mean_ps(u64 n, u64 s1)
{
	__uint128_t q;
	u64 rem;

	q = u128_div_u64((__uint128_t)s1 * 1000 + n / 2, n, &rem);
	return q > U64_MAX ? U64_MAX : (u64)q;
}

/*
 * round(sqrt(10^6 * var)) with var = (n * s2 - s1^2) / n^2 in ns^2, the
 * population variance, computed without ever forming n * s2 (192 bits):
 *
 * with s1 = a * n + b, t = sum (x - a)^2 = s2 - a * (s1 + b) fits in 128
 * bits (t <= s2), and n^2 * var = n * t - b^2. With t = t1 * n + t0 that
 * is t1 * n^2 + t0 * n - b^2, so var = t1 + r / n^2 with 0 <= r < n^2
 * after borrowing one from t1 when t0 * n < b^2.
 *
 * The standard deviation rounded to nearest is the largest k with
 * (k - 1/2)^2 <= 10^6 * var, that is 2k - 1 <= sqrt(4 * 10^6 * var): with
 * w = floor(4 * 10^6 * var), k = floor((isqrt(w) + 1) / 2).
 */
static u64 stdev_ps(u64 n, u64 s1, __uint128_t s2)
{
	__uint128_t t, t1, nn, r, bb, ab, w;
	u64 a, b, t0, root;

	a = div64_u64_rem(s1, n, &b);
	ab = (__uint128_t)a * s1;
	if (ab > s2)
		return 0;	/* sums that no samples can give */
	t = s2 - ab;
	ab = (__uint128_t)a * b;
	if (ab > t)
		return 0;
	t -= ab;

	t1 = u128_div_u64(t, n, &t0);
	nn = (__uint128_t)n * n;
	r = (__uint128_t)t0 * n;
	bb = (__uint128_t)b * b;
	if (r >= bb) {
		r -= bb;
	} else {
		if (!t1)
			return 0;
		t1--;
		r = nn - (bb - r);
	}

	/* 4 * 10^6 * t1 + 4 * 10^6 < 2^128 needs t1 < 2^106 */
	if (t1 >> 106)
		return U64_MAX;
	w = t1 * (4 * PPM) + u128_mul_frac(4 * PPM, r, nn);
	root = u128_sqrt(w);
	return (root >> 1) + (root & 1);
}

/* Like kvperf_hist_bucket_index(), without the clamp to the histogram. */
static u32 bucket_of(u64 ns)
{
	u32 shift = max(fls64(ns), SUB_BITS + 1) - (SUB_BITS + 1);

	return (shift << SUB_BITS) + (u32)(ns >> shift);
}

/**
 * kvperf_hist_bucket_index() - the bucket a sample is counted in
 * @h: histogram
 * @ns: sample
 *
 * Return: the index of the bucket holding @ns, the last bucket of @h for a
 * sample above the histogram's range.
 */
u32 kvperf_hist_bucket_index(const struct kvperf_hist *h, u64 ns)
{
	return min(bucket_of(ns), h->nbuckets - 1);
}

/**
 * kvperf_hist_bucket_lower() - smallest value of a bucket
 * @index: bucket index, at most kvperf_hist_bucket_index() of U64_MAX
 *
 * Return: the smallest value counted in bucket @index.
 */
u64 kvperf_hist_bucket_lower(u32 index)
{
	u32 shift;

	if (index < 2 * SUB)
		return index;
	shift = (index >> SUB_BITS) - 1;
	return (u64)((index & (SUB - 1)) | SUB) << shift;
}

/**
 * kvperf_hist_bucket_upper() - largest value of a bucket
 * @index: bucket index, at most kvperf_hist_bucket_index() of U64_MAX
 *
 * Return: the largest value counted in bucket @index (not counting the
 * samples above a histogram's range, which go to its last bucket).
 */
u64 kvperf_hist_bucket_upper(u32 index)
{
	u32 shift;

	if (index < 2 * SUB)
		return index;
	shift = (index >> SUB_BITS) - 1;
	return kvperf_hist_bucket_lower(index) + ((1ULL << shift) - 1);
}

/**
 * kvperf_hist_init() - allocate an empty histogram
 * @h: histogram to set up
 * @max_ns: largest sample the buckets resolve; larger ones are counted in
 *	    the last bucket
 *
 * Context: process context; may sleep.
 * Return: 0, or -ENOMEM.
 */
int kvperf_hist_init(struct kvperf_hist *h, u64 max_ns)
{
	memset(h, 0, sizeof(*h));
	h->nbuckets = bucket_of(max_ns) + 1;
	h->buckets = kvcalloc(h->nbuckets, sizeof(*h->buckets), GFP_KERNEL);
	if (!h->buckets) {
		h->nbuckets = 0;
		return -ENOMEM;
	}
	return 0;
}

/**
 * kvperf_hist_destroy() - free a histogram's buckets
 * @h: histogram set up by kvperf_hist_init(), or zeroed
 */
void kvperf_hist_destroy(struct kvperf_hist *h)
{
	kvfree(h->buckets);
	h->buckets = NULL;
	h->nbuckets = 0;
}

/**
 * kvperf_hist_reset() - forget all samples, keeping the buckets
 * @h: histogram
 */
void kvperf_hist_reset(struct kvperf_hist *h)
{
	memset(h->buckets, 0, h->nbuckets * sizeof(*h->buckets));
	h->count = 0;
	h->min_ns = 0;
	h->max_ns = 0;
	h->sum_ns = 0;
	h->sum_sq = 0;
}

/**
 * kvperf_hist_merge() - add one histogram's samples to another
 * @dst: receives them
 * @src: the samples, recorded over the same range as @dst's
 *
 * The sum is exact: the same buckets, counts, extremes and sums as if
 * every sample had been recorded into @dst.
 */
void kvperf_hist_merge(struct kvperf_hist *dst, const struct kvperf_hist *src)
{
	u32 i;

	if (WARN_ON_ONCE(dst->nbuckets != src->nbuckets) || !src->count)
		return;
	for (i = 0; i < src->nbuckets; i++)
		dst->buckets[i] += src->buckets[i];
	if (!dst->count || src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	dst->max_ns = max(dst->max_ns, src->max_ns);
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	dst->sum_sq += src->sum_sq;
}

/**
 * kvperf_hist_record() - count one sample
 * @h: histogram
 * @ns: sample, in nanoseconds
 *
 * O(1): no allocation, no lock; the caller serializes writers.
 *
 * Context: any context.
 */
void kvperf_hist_record(struct kvperf_hist *h, u64 ns)
{
	h->buckets[kvperf_hist_bucket_index(h, ns)]++;
	if (!h->count || ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->count++;
	h->sum_ns += ns;
	h->sum_sq += (__uint128_t)ns * ns;
}

/**
 * kvperf_hist_percentile() - a nearest-rank percentile
 * @h: histogram
 * @ppm: the percentile in parts per million (990000 for p99), at most 10^6
 *
 * Finds the bucket holding the ceil(@ppm * count / 10^6)-th smallest sample
 * (the smallest for @ppm 0) and reports its midpoint, clamped to the
 * smallest and largest samples. Within KVPERF_HIST_REL_ERR_PPM of the exact
 * sample for samples up to the histogram's range.
 *
 * Return: the percentile in nanoseconds, 0 for an empty histogram.
 */
u64 kvperf_hist_percentile(const struct kvperf_hist *h, u32 ppm)
{
	u64 rank, seen = 0, lower;
	u32 i, frac;

	if (!h->count)
		return 0;
	ppm = min(ppm, PPM);
	/* ceil(ppm * count / 10^6) without overflowing ppm * count */
	rank = div_u64_rem(h->count, PPM, &frac) * ppm +
	       div_u64((u64)frac * ppm + PPM - 1, PPM);
	rank = max(rank, 1ULL);

	for (i = 0; i < h->nbuckets - 1; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			break;
	}
	lower = kvperf_hist_bucket_lower(i);
	return clamp(lower + (kvperf_hist_bucket_upper(i) - lower) / 2,
		     h->min_ns, h->max_ns);
}

/**
 * kvperf_hist_summarize() - the summary of a histogram
 * @h: histogram
 * @st: filled in; all 0 for an empty histogram
 */
void kvperf_hist_summarize(const struct kvperf_hist *h,
			   struct kvperf_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!h->count)
		return;
	st->count = h->count;
	st->min_ns = h->min_ns;
	st->max_ns = h->max_ns;
	st->mean_ps = mean_ps(h->count, h->sum_ns);
	st->stdev_ps = stdev_ps(h->count, h->sum_ns, h->sum_sq);
	st->p50_ns = kvperf_hist_percentile(h, 500000);
	st->p90_ns = kvperf_hist_percentile(h, 900000);
	st->p99_ns = kvperf_hist_percentile(h, 990000);
	st->p999_ns = kvperf_hist_percentile(h, 999000);
	st->p9999_ns = kvperf_hist_percentile(h, 999900);
	st->rel_err_ppm = KVPERF_HIST_REL_ERR_PPM;
}

/**
 * kvperf_stats_from_elapsed() - the summary of a size measured without
 *				 per-iteration samples (a run with stats off)
 * @st: filled in: @count and the mean, everything else 0
 * @count: iterations measured
 * @elapsed_ns: their wall time, together
 * @divisor: what each round trip would have been divided by as a sample
 *	     (2 for half the round trip)
 *
 * The mean is round(1000 * @elapsed_ns / (@count * @divisor)) picoseconds:
 * unlike a histogram's, it includes the time the loop spends between the
 * iterations.
 */
void kvperf_stats_from_elapsed(struct kvperf_stats *st, u64 count,
			       u64 elapsed_ns, u32 divisor)
{
	memset(st, 0, sizeof(*st));
	if (!count || !divisor)
		return;
	st->count = count;
	st->mean_ps = mean_ps(count * divisor, elapsed_ns);
}
