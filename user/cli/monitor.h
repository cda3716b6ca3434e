/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The monitor object: printing the module's multicast events.
 */
#ifndef KVPERF_MONITOR_H
#define KVPERF_MONITOR_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/netlink.h>

struct printer;

bool monitor_shows(const struct nlmsghdr *nlh, bool progress);
int monitor_print_event(struct printer *p, const struct nlmsghdr *nlh,
			FILE *err);

#endif /* KVPERF_MONITOR_H */
