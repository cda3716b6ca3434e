/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running a compare: the servers, the children that measure, round by
 * round, and the environment the results are recorded with.
 */
#ifndef KVPERF_COMPARE_EXEC_H
#define KVPERF_COMPARE_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct cmp_opts;
struct kvperf;

int cmp_execute(struct kvperf *kv, const struct cmp_opts *o);
bool cmp_find_prog(const char *name, char *path, size_t len);

#endif /* KVPERF_COMPARE_EXEC_H */
