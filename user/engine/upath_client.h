/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user path's client side of a connection: resolve the server,
 * create the resources, connect with the run in the private data.
 */
#ifndef KVPERF_UPATH_CLIENT_H
#define KVPERF_UPATH_CLIENT_H

struct upath_cfg;
struct upath_conn;
struct upath_conn_attr;

int upath_connect(struct upath_conn *c, const struct upath_cfg *cfg,
		  const struct upath_conn_attr *attr);

#endif /* KVPERF_UPATH_CLIENT_H */
