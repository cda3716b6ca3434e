/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user path's I/O target: the target side of an I/O run (the data
 * path of a storage protocol, <linux/kvperf_wire.h>), served on
 * libibverbs as kmod/io_target.c serves it with the kernel's rdma_rw API.
 */
#ifndef KVPERF_UPATH_IO_TARGET_H
#define KVPERF_UPATH_IO_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "upath_conn.h"
#include "upath_wire.h"

struct upath_io_target;

void upath_io_target_conn_attr(const struct upath_req *r,
			       struct upath_conn_attr *attr);
struct upath_io_target *upath_io_target_create(struct upath_conn *c,
					       const struct upath_req *r,
					       uint64_t *served);
int upath_io_target_start(struct upath_io_target *t);
int upath_io_target_serve(struct upath_io_target *t);
void upath_io_target_free(struct upath_io_target *t);

#endif /* KVPERF_UPATH_IO_TARGET_H */
