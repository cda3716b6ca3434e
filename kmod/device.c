// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: the RDMA devices the module knows about.
 *
 * An ib_client keeps a list of every RDMA device as ib_core adds and
 * removes it, and publishes each change to the observers (netlink
 * announces it on the events multicast group).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/kvperf.h>
#include <rdma/ib_verbs.h>

#include "kvperf.h"
#include "run_events.h"

/* Upper end of the inline-size probe; no RC send queue inlines more. */
#define KVPERF_INLINE_PROBE_MAX	4096

static LIST_HEAD(kvperf_devices);
static DEFINE_MUTEX(kvperf_devices_lock);
static struct ib_client kvperf_ib_client;
/* what the module stops on a device before the device goes (main.c) */
static void (*kvperf_device_removing)(struct ib_device *ibdev);

/**
 * kvperf_device_lock() - take the device list lock
 *
 * Devices found through kvperf_device_find() or kvperf_device_list()
 * stay valid until kvperf_device_unlock(): ib_core's remove callback
 * takes the same lock before it frees anything.
 */
void kvperf_device_lock(void)
{
	mutex_lock(&kvperf_devices_lock);
}

/**
 * kvperf_device_unlock() - release the device list lock
 */
void kvperf_device_unlock(void)
{
	mutex_unlock(&kvperf_devices_lock);
}

/**
 * kvperf_device_list() - the list of tracked devices
 *
 * Return: the list head; walk it with the device list lock held.
 */
struct list_head *kvperf_device_list(void)
{
	lockdep_assert_held(&kvperf_devices_lock);
	return &kvperf_devices;
}

/**
 * kvperf_device_find() - look a device up by its ib_core name
 * @name: device name
 *
 * Return: the device, or NULL. Call with the device list lock held.
 */
struct kvperf_device *kvperf_device_find(const char *name)
{
	struct kvperf_device *kdev;

	lockdep_assert_held(&kvperf_devices_lock);
	list_for_each_entry(kdev, &kvperf_devices, node)
		if (!strcmp(dev_name(&kdev->ibdev->dev), name))
			return kdev;
	return NULL;
}

static bool kvperf_inline_fits(struct ib_pd *pd, struct ib_cq *cq, u32 size)
{
	struct ib_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = 1,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = size,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_qp *qp;

	qp = ib_create_qp(pd, &attr);
	if (IS_ERR(qp))
		return false;
	ib_destroy_qp(qp);
	return true;
}

/*
 * No device attribute tells how much a send queue can inline, so find it
 * the way a user would: create small RC QPs and bisect on the size the
 * driver accepts.
 */
static u32 kvperf_probe_max_inline(struct ib_device *ibdev)
{
	u32 lo = 0, hi = KVPERF_INLINE_PROBE_MAX;
	struct ib_pd *pd;
	struct ib_cq *cq;

	/* it creates queue pairs: readers of the device list never wait */
	lockdep_assert_not_held(&kvperf_devices_lock);
	pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(pd))
		return 0;
	cq = ib_alloc_cq(ibdev, NULL, 4, 0, IB_POLL_DIRECT);
	if (IS_ERR(cq))
		goto out_pd;

	if (!kvperf_inline_fits(pd, cq, 0))
		goto out_cq;
	if (kvperf_inline_fits(pd, cq, hi)) {
		lo = hi;
		goto out_cq;
	}
	/* lo fits and hi does not */
	while (hi - lo > 1) {
		u32 mid = lo + (hi - lo) / 2;

		if (kvperf_inline_fits(pd, cq, mid))
			lo = mid;
		else
			hi = mid;
	}
out_cq:
	ib_free_cq(cq);
out_pd:
	ib_dealloc_pd(pd);
	return lo;
}

/**
 * kvperf_device_max_inline() - a device's inline limit, if probed
 * @kdev: the device
 * @max_inline: receives the largest inline size of an RC send queue, 0
 *		where the device inlines nothing
 *
 * Call with the device list lock held. Never probes: the probe creates
 * queue pairs, and kvperf_device_probe_inline() runs it outside the lock.
 *
 * Return: true when the limit is known.
 */
bool kvperf_device_max_inline(struct kvperf_device *kdev, u32 *max_inline)
{
	lockdep_assert_held(&kvperf_devices_lock);
	/* pairs with the prober's release: @max_inline was set before */
	if (!smp_load_acquire(&kdev->inline_probed))
		return false;
	*max_inline = kdev->max_inline;
	return true;
}

/*
 * Probe @kdev, found under the device list lock, which the caller holds
 * and this drops: the probe runs under the device's own lock only, which
 * the remove callback waits for before the device goes.
 */
static u32 kvperf_device_probe_unlock(struct kvperf_device *kdev)
{
	u32 max_inline;

	mutex_lock(&kdev->probe_lock);
	mutex_unlock(&kvperf_devices_lock);
	if (!kdev->inline_probed) {
		kdev->max_inline = kvperf_probe_max_inline(kdev->ibdev);
		/* readers under the list lock only: @max_inline first */
		smp_store_release(&kdev->inline_probed, true);
	}
	max_inline = kdev->max_inline;
	mutex_unlock(&kdev->probe_lock);
	return max_inline;
}

/**
 * kvperf_device_probe_inline() - probe a device's inline limit, once
 * @name: the device's name
 * @net: the caller's network namespace; a device it cannot see is none
 * @max_inline: receives the largest inline size of an RC send queue, 0
 *		where the device inlines nothing; may be NULL
 *
 * Probed once per device and cached. Call without the device list lock:
 * the probe creates queue pairs, and readers of the list do not wait for
 * it.
 *
 * Return: 0, or -ENODEV when there is no such device.
 */
int kvperf_device_probe_inline(const char *name, const struct net *net,
			       u32 *max_inline)
{
	struct kvperf_device *kdev;
	u32 n;

	mutex_lock(&kvperf_devices_lock);
	kdev = kvperf_device_find(name);
	if (!kdev || !rdma_dev_access_netns(kdev->ibdev, net)) {
		mutex_unlock(&kvperf_devices_lock);
		return -ENODEV;
	}
	n = kvperf_device_probe_unlock(kdev);
	if (max_inline)
		*max_inline = n;
	return 0;
}

/**
 * kvperf_devices_probe_inline() - probe every device a namespace sees
 * @net: the caller's network namespace
 *
 * One device at a time, each once; call without the device list lock.
 */
void kvperf_devices_probe_inline(const struct net *net)
{
	struct kvperf_device *kdev, *next;

	for (;;) {
		next = NULL;
		mutex_lock(&kvperf_devices_lock);
		list_for_each_entry(kdev, &kvperf_devices, node) {
			/* unprobed: the flag as the prober released it */
			if (!smp_load_acquire(&kdev->inline_probed) &&
			    rdma_dev_access_netns(kdev->ibdev, net)) {
				next = kdev;
				break;
			}
		}
		if (!next) {
			mutex_unlock(&kvperf_devices_lock);
			return;
		}
		kvperf_device_probe_unlock(next);
	}
}

static int kvperf_ib_add(struct ib_device *ibdev)
{
	struct kvperf_device *kdev;

	kdev = kzalloc(sizeof(*kdev), GFP_KERNEL);
	if (!kdev)
		return -ENOMEM;
	kdev->ibdev = ibdev;
	mutex_init(&kdev->probe_lock);

	mutex_lock(&kvperf_devices_lock);
	list_add_tail(&kdev->node, &kvperf_devices);
	ib_set_client_data(ibdev, &kvperf_ib_client, kdev);
	kvperf_dev_publish_added(kdev);
	mutex_unlock(&kvperf_devices_lock);

	pr_debug("tracking %s\n", dev_name(&ibdev->dev));
	return 0;
}

static void kvperf_ib_remove(struct ib_device *ibdev, void *client_data)
{
	struct kvperf_device *kdev = client_data;

	/*
	 * ib_core calls the clients' remove callbacks in the reverse order
	 * of registration, so this one before the RDMA CM's: what the
	 * module built on the device is stopped and freed here, before its
	 * CM ids hear of the removal.
	 */
	kvperf_device_removing(ibdev);
	mutex_lock(&kvperf_devices_lock);
	list_del(&kdev->node);
	kvperf_dev_publish_removed(kdev);
	mutex_unlock(&kvperf_devices_lock);
	/* a probe that found it before it left the list ends first */
	mutex_lock(&kdev->probe_lock);
	mutex_unlock(&kdev->probe_lock);
	mutex_destroy(&kdev->probe_lock);

	pr_debug("released %s\n", dev_name(&ibdev->dev));
	kfree(kdev);
}

static struct ib_client kvperf_ib_client = {
	.name = "kvperf",
	.add = kvperf_ib_add,
	.remove = kvperf_ib_remove,
};

/**
 * kvperf_device_init() - start tracking RDMA devices
 * @removing: called first when a device goes away, from its ib_client
 *	      remove callback: stops and frees everything built on it,
 *	      before it returns
 *
 * ib_core calls the add callback for every device already registered
 * before this returns.
 *
 * Return: 0 or a negative errno.
 */
int kvperf_device_init(void (*removing)(struct ib_device *ibdev))
{
	kvperf_device_removing = removing;
	return ib_register_client(&kvperf_ib_client);
}

/**
 * kvperf_device_exit() - stop tracking RDMA devices
 *
 * ib_core calls the remove callback for every device, which empties the
 * list.
 */
void kvperf_device_exit(void)
{
	ib_unregister_client(&kvperf_ib_client);
	WARN_ON_ONCE(!list_empty(&kvperf_devices));
}
