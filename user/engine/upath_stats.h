/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user path's latency statistics: the module's own histogram and
 * summary (kmod/stats.c, built into the tool by upath_stats.c), behind
 * types the rest of the tool can use next to libnl's.
 */
#ifndef KVPERF_UPATH_STATS_H
#define KVPERF_UPATH_STATS_H

#include <stdint.h>

struct upath_hist;

/* struct kvperf_stats, field for field */
struct upath_stats {
	uint64_t count, min_ns, max_ns, mean_ps, stdev_ps;
	uint64_t p50_ns, p90_ns, p99_ns, p999_ns, p9999_ns;
	uint32_t rel_err_ppm;
};

/* Samples up to ten minutes resolve, as a kernel run's histograms. */
#define UPATH_HIST_MAX_NS	(600ULL * 1000000000ULL)

struct upath_hist *upath_hist_new(uint64_t max_ns);
void upath_hist_free(struct upath_hist *h);
void upath_hist_record(struct upath_hist *h, uint64_t ns);
void upath_hist_merge(struct upath_hist *dst, const struct upath_hist *src);
void upath_hist_summarize(const struct upath_hist *h, struct upath_stats *st);
void upath_stats_from_elapsed(struct upath_stats *st, uint64_t count,
			      uint64_t elapsed_ns, uint32_t divisor);

#endif /* KVPERF_UPATH_STATS_H */
