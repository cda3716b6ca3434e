/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared definitions of the kvperf tool: exit codes, the run context and
 * the descriptor every object and command is dispatched through.
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

struct args;

/* Global options and output streams of one invocation. */
struct kvperf {
	bool json;
	bool pretty;
	FILE *out;
	FILE *err;
};

/*
 * An object (dev, monitor, ...) or one of an object's commands (show, ...).
 * @run gets the arguments that follow the word that selected it and returns
 * an exit code. @help prints the usage and examples to the given stream.
 */
struct kvperf_cmd {
	const char *name;
	const char *summary;
	int (*run)(struct kvperf *kv, struct args *args);
	void (*help)(FILE *f);
};

/* Objects, one per file; main.c lists them. */
extern const struct kvperf_cmd dev_object;
extern const struct kvperf_cmd monitor_object;
extern const struct kvperf_cmd server_object;
extern const struct kvperf_cmd run_object;
extern const struct kvperf_cmd compare_object;

int kvperf_main(struct kvperf *kv, int argc, char **argv,
		const struct kvperf_cmd *const *objects);
int kvperf_dispatch(struct kvperf *kv, struct args *args,
		    const struct kvperf_cmd *obj,
		    const struct kvperf_cmd *const *cmds);
__printf(3, 4)
int kvperf_usage(struct kvperf *kv, const char *obj, const char *fmt, ...);
int kvperf_no_more_args(struct kvperf *kv, struct args *args,
			const char *obj);
__printf(2, 3)
void kvperf_errorf(struct kvperf *kv, const char *fmt, ...);

#endif /* KVPERF_H */
