// SPDX-License-Identifier: GPL-2.0
/*
 * The module's statistics code, compiled into the tool: kmod/stats.c on
 * the kernel API of kshim.h, so that the user path's percentiles, mean
 * and standard deviation come from the very same histogram as the kernel
 * path's. Kernel types stay inside this file.
 */
#include "kshim.h"
#include "../../kmod/stats.c"

#include "upath_stats.h"

struct upath_hist {
	struct kvperf_hist h;
};

/**
 * upath_hist_new() - an empty histogram
 * @max_ns: largest sample the buckets resolve
 *
 * Return: the histogram, or NULL when out of memory.
 */
struct upath_hist *upath_hist_new(uint64_t max_ns)
{
	struct upath_hist *h = calloc(1, sizeof(*h));

	if (h && kvperf_hist_init(&h->h, max_ns)) {
		free(h);
		h = NULL;
	}
	return h;
}

/**
 * upath_hist_free() - free a histogram
 * @h: from upath_hist_new(), or NULL
 */
void upath_hist_free(struct upath_hist *h)
{
	if (!h)
		return;
	kvperf_hist_destroy(&h->h);
	free(h);
}

/**
 * upath_hist_record() - count one sample
 * @h: the histogram
 * @ns: the sample, in nanoseconds
 */
void upath_hist_record(struct upath_hist *h, uint64_t ns)
{
	kvperf_hist_record(&h->h, ns);
}

/**
 * upath_hist_merge() - add one histogram's samples to another's
 * @dst: receives them
 * @src: the samples, of a histogram with the same range
 *
 * As kvperf_hist_merge(): counts bucket by bucket, extremes and exact sums.
 */
void upath_hist_merge(struct upath_hist *dst, const struct upath_hist *src)
{
	kvperf_hist_merge(&dst->h, &src->h);
}

/**
 * upath_hist_summarize() - the summary the kernel path reports
 * @h: the histogram
 * @st: filled in; all 0 for an empty histogram
 */
void upath_hist_summarize(const struct upath_hist *h, struct upath_stats *st)
{
	struct kvperf_stats ks;

	kvperf_hist_summarize(&h->h, &ks);
	st->count = ks.count;
	st->min_ns = ks.min_ns;
	st->max_ns = ks.max_ns;
	st->mean_ps = ks.mean_ps;
	st->stdev_ps = ks.stdev_ps;
	st->p50_ns = ks.p50_ns;
	st->p90_ns = ks.p90_ns;
	st->p99_ns = ks.p99_ns;
	st->p999_ns = ks.p999_ns;
	st->p9999_ns = ks.p9999_ns;
	st->rel_err_ppm = ks.rel_err_ppm;
}

/**
 * upath_stats_from_elapsed() - the summary the kernel path reports for a
 *				size measured with stats off
 * @st: filled in: @count and the mean, everything else 0
 * @count: iterations measured
 * @elapsed_ns: their wall time
 * @divisor: what each round trip would have been divided by
 */
void upath_stats_from_elapsed(struct upath_stats *st, uint64_t count,
			      uint64_t elapsed_ns, uint32_t divisor)
{
	struct kvperf_stats ks;

	kvperf_stats_from_elapsed(&ks, count, elapsed_ns, divisor);
	memset(st, 0, sizeof(*st));
	st->count = ks.count;
	st->mean_ps = ks.mean_ps;
}
