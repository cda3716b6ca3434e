// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: the bounds on memory pinned for RDMA: one for this host's runs,
 * one for the connections its servers accept, so that peers can never
 * starve local runs. Each counts buffers and queue entries.
 */
#include <linux/atomic.h>
#include <linux/moduleparam.h>

#include "kvperf.h"

static unsigned int max_pinned_mb = 256;
module_param(max_pinned_mb, uint, 0644);
MODULE_PARM_DESC(max_pinned_mb,
		 "Most memory kvperf's runs pin for RDMA, in MiB (default 256)");

static unsigned int max_server_pinned_mb = 64;
module_param(max_server_pinned_mb, uint, 0644);
MODULE_PARM_DESC(max_server_pinned_mb,
		 "Most memory the connections kvperf's servers accept pin for RDMA, in MiB (default 64)");

/* buffers and queue entries of each pool; and queue entries of both */
static atomic64_t kvperf_pinned[KVPERF_PIN_POOLS];
static atomic64_t kvperf_queued;

static u64 kvperf_pin_limit(enum kvperf_pin_pool pool)
{
	if (pool == KVPERF_PIN_SERVERS)
		return (u64)READ_ONCE(max_server_pinned_mb) << 20;
	return (u64)READ_ONCE(max_pinned_mb) << 20;
}

/**
 * kvperf_pin() - account for memory about to be pinned
 * @pool: whose bound it counts against
 * @f: how much, buffers and queue entries
 *
 * Return: true if both together fit under the pool's bound; then
 * kvperf_unpin() it when it is freed.
 */
bool kvperf_pin(enum kvperf_pin_pool pool, const struct kvperf_footprint *f)
{
	u64 bytes = f->buf_bytes + f->queue_bytes;

	if (atomic64_add_return(bytes, &kvperf_pinned[pool]) >
	    kvperf_pin_limit(pool)) {
		atomic64_sub(bytes, &kvperf_pinned[pool]);
		return false;
	}
	atomic64_add(f->queue_bytes, &kvperf_queued);
	return true;
}

/**
 * kvperf_unpin() - memory accounted by kvperf_pin() was freed
 * @pool: the pool it was counted in
 * @f: what was counted
 */
void kvperf_unpin(enum kvperf_pin_pool pool, const struct kvperf_footprint *f)
{
	atomic64_sub(f->queue_bytes, &kvperf_queued);
	atomic64_sub(f->buf_bytes + f->queue_bytes, &kvperf_pinned[pool]);
}

/**
 * kvperf_pinned_bytes() - buffer memory pinned right now, both pools
 *
 * Return: bytes.
 */
u64 kvperf_pinned_bytes(void)
{
	return atomic64_read(&kvperf_pinned[KVPERF_PIN_RUNS]) +
	       atomic64_read(&kvperf_pinned[KVPERF_PIN_SERVERS]) -
	       atomic64_read(&kvperf_queued);
}

/**
 * kvperf_queued_bytes() - queue and completion queue entries right now,
 *			   both pools
 *
 * Return: bytes, as kvperf_conn_footprint() estimates them.
 */
u64 kvperf_queued_bytes(void)
{
	return atomic64_read(&kvperf_queued);
}

/**
 * kvperf_pool_bytes() - what a pool holds right now
 * @pool: which pool
 *
 * Return: bytes of buffers and queue entries.
 */
u64 kvperf_pool_bytes(enum kvperf_pin_pool pool)
{
	return atomic64_read(&kvperf_pinned[pool]);
}

/**
 * kvperf_pinned_limit() - a pool's bound
 * @pool: which pool
 *
 * Return: its module parameter, in bytes.
 */
u64 kvperf_pinned_limit(enum kvperf_pin_pool pool)
{
	return kvperf_pin_limit(pool);
}
