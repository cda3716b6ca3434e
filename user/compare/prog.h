/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding a program in PATH, for the ones kvperf compare runs (perftest,
 * gnuplot).
 */
#ifndef KVPERF_PROG_H
#define KVPERF_PROG_H

#include <stdbool.h>
#include <stddef.h>

bool prog_find(const char *name, char *path, size_t len);

#endif /* KVPERF_PROG_H */
