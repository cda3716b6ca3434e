/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: definitions shared by the module's files.
 */
#ifndef _KVPERF_H
#define _KVPERF_H

#include <linux/kvperf.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#define KVPERF_VERSION		"0.1.0"
/* Version of the netlink, sysfs and debugfs interface as a whole. */
#define KVPERF_ABI_VERSION	1

/**
 * struct kvperf_device - an RDMA device kvperf tracks
 * @node: entry in the device list, protected by the device list lock
 * @ibdev: the ib_core device; valid until its ib_client remove callback
 * @max_inline: largest RC inline size, probed on first use
 * @inline_probed: @max_inline holds the probe's result (read it after
 *		   this, with acquire ordering)
 * @probe_lock: held across the probe, which creates queue pairs, so that
 *		the device list lock is not; the remove callback takes it
 *		before it frees the device
 */
struct kvperf_device {
	struct list_head node;
	struct ib_device *ibdev;
	u32 max_inline;
	bool inline_probed;
	struct mutex probe_lock;	/* see the kernel-doc above */
};

/* device.c */
int kvperf_device_init(void (*removing)(struct ib_device *ibdev));
void kvperf_device_exit(void);
void kvperf_device_lock(void);
void kvperf_device_unlock(void);
struct kvperf_device *kvperf_device_find(const char *name);
struct list_head *kvperf_device_list(void);
bool kvperf_device_max_inline(struct kvperf_device *kdev, u32 *max_inline);
int kvperf_device_probe_inline(const char *name, const struct net *net,
			       u32 *max_inline);
void kvperf_devices_probe_inline(const struct net *net);

/* pin.c */
enum kvperf_pin_pool {
	KVPERF_PIN_RUNS,
	KVPERF_PIN_SERVERS,
	KVPERF_PIN_POOLS,
};

/**
 * struct kvperf_footprint - what connections hold, as pin.c counts it
 * @buf_bytes: message buffers
 * @queue_bytes: send and receive queue entries and completion queue
 *		 entries, as kvperf_conn_footprint() estimates them
 */
struct kvperf_footprint {
	u64 buf_bytes;
	u64 queue_bytes;
};

bool kvperf_pin(enum kvperf_pin_pool pool, const struct kvperf_footprint *f);
void kvperf_unpin(enum kvperf_pin_pool pool, const struct kvperf_footprint *f);
u64 kvperf_pinned_bytes(void);
u64 kvperf_queued_bytes(void);
u64 kvperf_pool_bytes(enum kvperf_pin_pool pool);
u64 kvperf_pinned_limit(enum kvperf_pin_pool pool);

#endif /* _KVPERF_H */
