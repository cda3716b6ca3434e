// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: the bound on memory pinned for RDMA buffers, by runs and by
 * the connections servers accept together.
 */
#include <linux/atomic.h>
#include <linux/moduleparam.h>

#include "kvperf.h"

static unsigned int max_pinned_mb = 256;
module_param(max_pinned_mb, uint, 0644);
MODULE_PARM_DESC(max_pinned_mb,
		 "Most memory kvperf pins for RDMA buffers, in MiB (default 256)");

static atomic64_t kvperf_pinned = ATOMIC64_INIT(0);

/**
 * kvperf_pin() - account for memory about to be pinned
 * @bytes: how much
 *
 * Return: true if it fits under max_pinned_mb; then kvperf_unpin() it
 * when it is freed.
 */
bool kvperf_pin(size_t bytes)
{
	u64 limit = (u64)READ_ONCE(max_pinned_mb) << 20;

	if (atomic64_add_return(bytes, &kvperf_pinned) > limit) {
		atomic64_sub(bytes, &kvperf_pinned);
		return false;
	}
	return true;
}

/**
 * kvperf_unpin() - memory accounted by kvperf_pin() was freed
 * @bytes: how much
 */
void kvperf_unpin(size_t bytes)
{
	atomic64_sub(bytes, &kvperf_pinned);
}

/**
 * kvperf_pinned_bytes() - memory pinned right now
 *
 * Return: bytes.
 */
u64 kvperf_pinned_bytes(void)
{
	return atomic64_read(&kvperf_pinned);
}

/**
 * kvperf_pinned_limit() - the bound
 *
 * Return: max_pinned_mb in bytes.
 */
u64 kvperf_pinned_limit(void)
{
	return (u64)READ_ONCE(max_pinned_mb) << 20;
}
