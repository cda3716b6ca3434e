/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The monitor object: printing the module's multicast events.
 */
#ifndef KVPERF_MONITOR_H
#define KVPERF_MONITOR_H

#include <stdio.h>
#include <linux/netlink.h>

struct printer;

int monitor_print_event(struct printer *p, const struct nlmsghdr *nlh,
			FILE *err);

#endif /* KVPERF_MONITOR_H */
