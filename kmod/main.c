// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: module init and exit. Init sets the pieces up in order and
 * unwinds in exact reverse on failure; exit is the same reverse order.
 * The netlink family goes last in and first out, so no request can reach
 * a half-built or half-torn-down module.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kvperf.h>
#include <net/genetlink.h>

#include "kvperf.h"
#include "run.h"
#include "server.h"

static int __init kvperf_init(void)
{
	int err;

	err = kvperf_sysfs_init();
	if (err)
		goto out;

	kvperf_debugfs_init();

	err = kvperf_device_init();
	if (err)
		goto err_debugfs;

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
err_debugfs:
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
