// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: module init and exit. Init sets the pieces up in order and
 * unwinds in exact reverse on failure; exit is the same reverse order.
 * The netlink family goes last in and first out, so no request can reach
 * a half-built or half-torn-down module.
 *
 * The front ends subscribe to the engine's events (run_events.h) after
 * their own directories exist and before the devices are tracked, the
 * first events; they unsubscribe once the last run and device are gone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kvperf.h>
#include <net/genetlink.h>

#include "debugfs.h"
#include "kvperf.h"
#include "nl.h"
#include "run.h"
#include "run_events.h"
#include "server.h"
#include "sysfs.h"

/*
 * The observers, in the order they hear the events: a run's sysfs
 * directory comes before its debugfs one and goes after it, as before
 * the split.
 */
static struct kvperf_run_observer * const kvperf_observers[] = {
	&kvperf_run_sysfs_observer,
	&kvperf_debugfs_observer,
	&kvperf_nl_run_observer,
	&kvperf_nl_dev_observer,
	&kvperf_nl_server_observer,
};

static void kvperf_observers_register(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kvperf_observers); i++)
		kvperf_run_observer_register(kvperf_observers[i]);
}

static void kvperf_observers_unregister(void)
{
	unsigned int i = ARRAY_SIZE(kvperf_observers);

	while (i--)
		kvperf_run_observer_unregister(kvperf_observers[i]);
}

static int __init kvperf_init(void)
{
	int err;

	err = kvperf_sysfs_init();
	if (err)
		goto out;

	kvperf_debugfs_init();
	kvperf_observers_register();

	/* a device's removal stops its listeners (runs: see server.c) */
	err = kvperf_device_init(kvperf_servers_remove_device);
	if (err)
		goto err_observers;

	err = kvperf_servers_init();
	if (err)
		goto err_device;

	err = kvperf_nl_init();
	if (err)
		goto err_servers;

	pr_info("version %s loaded\n", KVPERF_VERSION);
	return 0;

err_servers:
	kvperf_servers_exit();
err_device:
	kvperf_device_exit();
err_observers:
	kvperf_observers_unregister();
	kvperf_debugfs_exit();
	kvperf_sysfs_exit();
out:
	return err;
}

static void __exit kvperf_exit(void)
{
	kvperf_nl_exit();
	/* runs and servers came from netlink requests: none can start now */
	kvperf_runs_exit();
	kvperf_servers_exit();
	kvperf_device_exit();
	kvperf_observers_unregister();
	kvperf_debugfs_exit();
	kvperf_sysfs_exit();
	pr_info("unloaded\n");
}

module_init(kvperf_init);
module_exit(kvperf_exit);

MODULE_AUTHOR("The kvperf developers");
MODULE_DESCRIPTION("In-kernel RDMA latency and bandwidth benchmark");
MODULE_LICENSE("GPL");
MODULE_VERSION(KVPERF_VERSION);
MODULE_ALIAS_GENL_FAMILY(KVPERF_FAMILY_NAME);
