/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timeout of a run that names none, derived from what it can have in
 * flight. Plain C on the UAPI's types and constants, so that the kvperf
 * command's user path (user/engine/upath_cfg.c) and its host unit tests
 * derive the very same value as the module.
 */
#ifndef _KVPERF_TIMEOUT_H
#define _KVPERF_TIMEOUT_H

#include <linux/types.h>
#include <linux/kvperf.h>

/**
 * kvperf_timeout_default_ms() - the timeout of a run that names none
 * @type: enum kvperf_run_type
 * @size_max: its largest message (I/O runs: block)
 * @depth: bandwidth runs' tx-depth, I/O runs' qd; latency runs: ignored
 * @qps: bandwidth and I/O runs' queue pairs; latency runs: ignored
 * @bidir: a bandwidth run's traffic goes both ways
 *
 * The longest a run may wait for a completion is how long the bytes it
 * can have in flight take on the slowest link allowed for
 * (KVPERF_TIMEOUT_BYTES_PER_MS): a fixed time that catches a hang soon
 * enough on a small run fails a deep queue of large messages on a slow
 * link. Bounded by KVPERF_TIMEOUT_MS_DEFAULT below (small runs keep it)
 * and KVPERF_TIMEOUT_MS_DEFAULT_MAX above (a silent peer is caught in
 * that time, whatever is in flight).
 *
 * Return: the timeout, in ms.
 */
static inline __u32 kvperf_timeout_default_ms(__u8 type, __u32 size_max,
					      __u32 depth, __u32 qps,
					      bool bidir)
{
	__u64 bytes = size_max;

	if (type != KVPERF_RUN_TYPE_LAT)
		bytes *= (__u64)depth * qps * (bidir ? 2 : 1);
	/* at the bound before dividing: the quotient then fits 32 bits */
	if (bytes >= (__u64)KVPERF_TIMEOUT_MS_DEFAULT_MAX *
		     KVPERF_TIMEOUT_BYTES_PER_MS)
		return KVPERF_TIMEOUT_MS_DEFAULT_MAX;
	if ((__u32)bytes / KVPERF_TIMEOUT_BYTES_PER_MS <
	    KVPERF_TIMEOUT_MS_DEFAULT)
		return KVPERF_TIMEOUT_MS_DEFAULT;
	return (__u32)bytes / KVPERF_TIMEOUT_BYTES_PER_MS;
}

#endif /* _KVPERF_TIMEOUT_H */
