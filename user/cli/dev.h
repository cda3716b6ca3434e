/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dev object: listing the RDMA devices the module sees.
 */
#ifndef KVPERF_DEV_H
#define KVPERF_DEV_H

#include <stdio.h>
#include <linux/netlink.h>

struct printer;

int dev_print(struct printer *p, const struct nlmsghdr *nlh, FILE *err);

#endif /* KVPERF_DEV_H */
