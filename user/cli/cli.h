/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line: the descriptor every object and command is
 * dispatched through, the objects, and usage errors.
 */
#ifndef KVPERF_CLI_H
#define KVPERF_CLI_H

#include <stdio.h>

#include "compiler.h"
#include "kvperf.h"

struct args;

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
extern const struct kvperf_cmd fabric_object;

const struct kvperf_cmd *cli_lookup(const struct kvperf_cmd *const *table,
				   const char *word);
int kvperf_main(struct kvperf *kv, int argc, char **argv,
		const struct kvperf_cmd *const *objects);
int kvperf_dispatch(struct kvperf *kv, struct args *args,
		    const struct kvperf_cmd *obj,
		    const struct kvperf_cmd *const *cmds);
__printf(3, 4)
int kvperf_usage(struct kvperf *kv, const char *obj, const char *fmt, ...);
bool cli_terminal(FILE *f);
int kvperf_no_more_args(struct kvperf *kv, struct args *args,
			const char *obj);

#endif /* KVPERF_CLI_H */
