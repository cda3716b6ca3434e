/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: what the client and the server say to each other. The wire
 * format is <linux/kvperf_wire.h>, shared with the user-space client and
 * server of the kvperf command, which describes the protocol; this file
 * only checks its layout for the module.
 */
#ifndef _KVPERF_PROTO_H
#define _KVPERF_PROTO_H

#include <linux/build_bug.h>
#include <linux/limits.h>
#include <linux/kvperf_wire.h>
#include <linux/stddef.h>

/* The layout both sides rely on: 56 bytes fill a connect request. */
static_assert(sizeof(struct kvperf_wire_req) == 56);
static_assert(offsetof(struct kvperf_wire_req, addr) == 16);
static_assert(offsetof(struct kvperf_wire_req, tx_depth) == 24);
static_assert(offsetof(struct kvperf_wire_req, key) == 40);
static_assert(sizeof(struct kvperf_wire_rep) == 16);
static_assert(sizeof(struct kvperf_wire_report) == 32);
static_assert(sizeof(struct kvperf_wire_io_rsp) == 12);
/* The spec's limits fit the wire: sizes in 24 bits, depths in 16. */
static_assert(KVPERF_SIZE_MAX < 1 << 24);
static_assert(KVPERF_TX_DEPTH_MAX <= U16_MAX);
static_assert(KVPERF_POST_LIST_MAX <= KVPERF_TX_DEPTH_MAX);

#endif /* _KVPERF_PROTO_H */
