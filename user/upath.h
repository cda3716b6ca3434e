/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user path: the module's latency and bandwidth loops, client and
 * server, run by this process on libibverbs and librdmacm, speaking the
 * module's wire protocol (<linux/kvperf_wire.h>), so that either side can
 * be the kernel's: "kvperf server start ... path user" here, the client's
 * runs in upath_run.h.
 */
#ifndef KVPERF_UPATH_H
#define KVPERF_UPATH_H

struct kvperf;
struct server_opts;

int upath_serve(struct kvperf *kv, const struct server_opts *o);

#endif /* KVPERF_UPATH_H */
