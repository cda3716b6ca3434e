/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The context of one invocation of the tool, which the library, the
 * engines and the front ends share: its output streams and options, its
 * exit codes, and how an error is said.
 */
#ifndef KVPERF_H
#define KVPERF_H

#include <stdbool.h>
#include <stdio.h>

#include "compiler.h"

/*
 * Exit codes. Scripts depend on them, so a code never changes meaning and
 * new ones are only ever added:
 *
 *   0  success
 *   1  the kernel refused the request, or another runtime error
 *   2  usage error: unknown object, command, option or argument
 *   3  the kvperf module is not loaded (no "kvperf" generic netlink family)
 */
enum kvperf_exit {
	KVPERF_EXIT_OK		= 0,
	KVPERF_EXIT_ERROR	= 1,
	KVPERF_EXIT_USAGE	= 2,
	KVPERF_EXIT_NOMODULE	= 3,
};

/* Global options and output streams of one invocation. */
struct kvperf {
	bool json;
	bool pretty;
	FILE *out;
	FILE *err;
};

__printf(2, 3)
void kvperf_errorf(struct kvperf *kv, const char *fmt, ...);

#endif /* KVPERF_H */
