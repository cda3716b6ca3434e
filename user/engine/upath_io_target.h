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
struct upath_io_trx;

/**
 * struct upath_io_srq - a server's shared receive queue for I/O runs
 * @pd: its protection domain, which the QPs that use it share
 * @srq: the queue
 * @buf: its receives' capsules, one buffer
 * @depth: its receives
 * @rx: the receives
 *
 * Its receives are posted to @srq, or held by the one connection whose
 * QP took them until that connection posts them back.
 */
struct upath_io_srq {
	struct ibv_pd *pd;
	struct ibv_srq *srq;
	struct upath_buf buf;
	uint32_t depth;
	struct upath_io_trx *rx;
};

int upath_io_srq_create(struct ibv_context *ctx, uint32_t depth,
			struct upath_io_srq **srqp, char *why, size_t why_len);
void upath_io_srq_free(struct upath_io_srq *q);

void upath_io_target_conn_attr(const struct upath_req *r,
			       const struct upath_io_srq *srq,
			       struct upath_conn_attr *attr);
struct upath_io_target *upath_io_target_create(struct upath_conn *c,
					       const struct upath_req *r,
					       struct upath_io_srq *srq,
					       uint64_t *served);
int upath_io_target_start(struct upath_io_target *t);
int upath_io_target_serve(struct upath_io_target *t);
void upath_io_target_free(struct upath_io_target *t);

#endif /* KVPERF_UPATH_IO_TARGET_H */
