// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: configure and read the kvperf in-kernel RDMA benchmark.
 * This file lists the objects; cli.c does the rest.
 */
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "kvperf.h"

/* Adding an object: a new file defining it, and one line here. */
static const struct kvperf_cmd *const objects[] = {
	&dev_object,
	&monitor_object,
	&server_object,
	&run_object,
	&compare_object,
	&fabric_object,
	NULL,
};

int main(int argc, char **argv)
{
	struct kvperf kv = { .out = stdout, .err = stderr };
	int ret;

	ret = kvperf_main(&kv, argc, argv, objects);
	/* a full disk or closed pipe must not look like success */
	if (fflush(stdout) || ferror(stdout)) {
		if (!ret) {
			kvperf_errorf(&kv, "cannot write the output: %s",
				      strerror(errno));
			ret = KVPERF_EXIT_ERROR;
		}
	}
	return ret;
}
