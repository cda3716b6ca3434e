/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Printing the result of an I/O run, text (as fio) and JSON.
 */
#ifndef KVPERF_RUN_IO_PRINT_H
#define KVPERF_RUN_IO_PRINT_H

struct kv_run;
struct printer;

void run_print_io(struct printer *p, const struct kv_run *run);

#endif /* KVPERF_RUN_IO_PRINT_H */
