// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: /sys/kernel/kvperf/, one value per file (see
 * Documentation/ABI/testing/sysfs-kernel-kvperf).
 */
#include <linux/kobject.h>
#include <linux/sysfs.h>

#include "conn.h"
#include "kvperf.h"
#include "run.h"
#include "server.h"
#include "sysfs.h"

static struct kobject *kvperf_kobj;
static struct kobject *kvperf_runs_kobj;

/**
 * kvperf_sysfs_runs() - the directory of the runs
 *
 * Return: the kobject of /sys/kernel/kvperf/runs.
 */
struct kobject *kvperf_sysfs_runs(void)
{
	return kvperf_runs_kobj;
}

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", KVPERF_VERSION);
}

static struct kobj_attribute version_attr = __ATTR_RO(version);

static ssize_t abi_version_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", KVPERF_ABI_VERSION);
}

static struct kobj_attribute abi_version_attr = __ATTR_RO(abi_version);

/* What the module holds right now, for leak checks and monitoring. */
static ssize_t run_count_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", kvperf_run_count());
}

static struct kobj_attribute run_count_attr = __ATTR_RO(run_count);

static ssize_t server_count_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", kvperf_server_count());
}

static struct kobj_attribute server_count_attr = __ATTR_RO(server_count);

static ssize_t connection_count_show(struct kobject *kobj,
				     struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", kvperf_conns_live_count());
}

static struct kobj_attribute connection_count_attr = __ATTR_RO(connection_count);

static ssize_t pinned_bytes_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", kvperf_pinned_bytes());
}

static struct kobj_attribute pinned_bytes_attr = __ATTR_RO(pinned_bytes);

static ssize_t queue_bytes_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", kvperf_queued_bytes());
}

static struct kobj_attribute queue_bytes_attr = __ATTR_RO(queue_bytes);

static ssize_t server_pinned_bytes_show(struct kobject *kobj,
					struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", kvperf_pool_bytes(KVPERF_PIN_SERVERS));
}

static struct kobj_attribute server_pinned_bytes_attr =
	__ATTR_RO(server_pinned_bytes);

static struct attribute *kvperf_attrs[] = {
	&version_attr.attr,
	&abi_version_attr.attr,
	&run_count_attr.attr,
	&server_count_attr.attr,
	&connection_count_attr.attr,
	&pinned_bytes_attr.attr,
	&queue_bytes_attr.attr,
	&server_pinned_bytes_attr.attr,
	NULL,
};

static const struct attribute_group kvperf_attr_group = {
	.attrs = kvperf_attrs,
};

/**
 * kvperf_sysfs_init() - create /sys/kernel/kvperf
 *
 * Return: 0 or a negative errno.
 */
int kvperf_sysfs_init(void)
{
	int err;

	kvperf_kobj = kobject_create_and_add("kvperf", kernel_kobj);
	if (!kvperf_kobj)
		return -ENOMEM;

	err = sysfs_create_group(kvperf_kobj, &kvperf_attr_group);
	if (err)
		goto err_put;

	kvperf_runs_kobj = kobject_create_and_add("runs", kvperf_kobj);
	if (!kvperf_runs_kobj) {
		err = -ENOMEM;
		goto err_group;
	}
	return 0;

err_group:
	sysfs_remove_group(kvperf_kobj, &kvperf_attr_group);
err_put:
	kobject_put(kvperf_kobj);
	kvperf_kobj = NULL;
	return err;
}

/**
 * kvperf_sysfs_exit() - remove /sys/kernel/kvperf
 */
void kvperf_sysfs_exit(void)
{
	kobject_put(kvperf_runs_kobj);
	sysfs_remove_group(kvperf_kobj, &kvperf_attr_group);
	kobject_put(kvperf_kobj);
}
