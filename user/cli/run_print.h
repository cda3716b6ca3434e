/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Printing runs and run events, text and JSON, from the run model.
 */
#ifndef KVPERF_RUN_PRINT_H
#define KVPERF_RUN_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/netlink.h>

struct kv_run;
struct printer;

void run_print(struct printer *p, const struct kv_run *run, bool gbits);
int run_print_msg(struct printer *p, const struct nlmsghdr *nlh, FILE *err);
void run_print_event(struct printer *p, bool finished,
		     const struct kv_run *ev);
const char *run_path_name(uint8_t path);

#endif /* KVPERF_RUN_PRINT_H */
