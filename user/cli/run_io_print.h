/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Printing the result of an I/O run, text (as fio) and JSON.
 */
#ifndef KVPERF_RUN_IO_PRINT_H
#define KVPERF_RUN_IO_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct kv_run;
struct printer;

void run_print_io(struct printer *p, const struct kv_run *run);
void run_print_io_live(FILE *f, const struct kv_run *ev, int64_t since_ms,
		       const char *rw, bool bss);

#endif /* KVPERF_RUN_IO_PRINT_H */
