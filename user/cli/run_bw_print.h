/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Printing bandwidth runs: perftest's table, its JSON, and the line of
 * each interval, from the run model.
 */
#ifndef KVPERF_RUN_BW_PRINT_H
#define KVPERF_RUN_BW_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct kv_run;
struct printer;

void run_print_bw(struct printer *p, const struct kv_run *run, bool gbits);
void run_print_live(FILE *f, const struct kv_run *ev, int64_t since_ms,
		    bool gbits);

#endif /* KVPERF_RUN_BW_PRINT_H */
