/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: differences between the kernels kvperf builds against (6.1 and
 * later), kept here so the rest of the code reads like current mainline.
 */
#ifndef _KVPERF_COMPAT_H
#define _KVPERF_COMPAT_H

#include <linux/netlink.h>
#include <linux/printk.h>
#include <rdma/ib_verbs.h>

/*
 * IB_SPEED_XDR joined enum ib_port_speed in 6.7; an enum cannot be
 * tested for, so name its value (fixed by the InfiniBand specification).
 */
#define KVPERF_IB_SPEED_XDR	256

/*
 * Formatted extack messages (NL_SET_ERR_MSG_FMT_MOD) arrived in 6.2. Before
 * that the extack can only point at a string that outlives the request, so
 * older kernels get the fixed fallback text.
 */
#ifdef NL_SET_ERR_MSG_FMT_MOD
#define KVPERF_SET_ERR_MSG_FMT(extack, fallback, fmt, args...) do {	\
	(void)(fallback);						\
	NL_SET_ERR_MSG_FMT_MOD(extack, fmt, ##args);			\
} while (0)
#else
#define KVPERF_SET_ERR_MSG_FMT(extack, fallback, fmt, args...) do {	\
	no_printk(fmt, ##args);	/* still type-check the format */	\
	NL_SET_ERR_MSG_MOD(extack, fallback);				\
} while (0)
#endif

#endif /* _KVPERF_COMPAT_H */
