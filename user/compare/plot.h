/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plots of "kvperf compare ... plot FILE": gnuplot input (a script
 * and data files) written from a compare's result, and gnuplot run on it.
 */
#ifndef KVPERF_PLOT_H
#define KVPERF_PLOT_H

#include <stdbool.h>
#include <stdio.h>

struct cmp_result;
struct kvperf;

/* latency: one panel per size, up to this many; else the first size */
#define PLOT_LAT_PANELS_MAX	4

int plot_check(struct kvperf *kv);
int plot_write_data(const struct cmp_result *r, const char *dir);
void plot_script(FILE *f, const struct cmp_result *r, const char *dir,
		 const char *out);
int plot_draw(struct kvperf *kv, const struct cmp_result *r,
	      const char *out, const char *dir);

#endif /* KVPERF_PLOT_H */
