// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: /sys/kernel/kvperf/runs/<id>/, one value per file (see
 * Documentation/ABI/testing/sysfs-kernel-kvperf). The statistics files
 * show the last message size the run completed, in the same numbers
 * netlink reports.
 */
#include <linux/kobject.h>
#include <linux/kvperf.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "kvperf.h"
#include "run.h"

static const char * const kvperf_state_names[] = {
	[KVPERF_RUN_STATE_CONNECTING] = "connecting",
	[KVPERF_RUN_STATE_RUNNING] = "running",
	[KVPERF_RUN_STATE_DONE] = "done",
	[KVPERF_RUN_STATE_FAILED] = "failed",
	[KVPERF_RUN_STATE_STOPPED] = "stopped",
};

static const char * const kvperf_op_names[] = {
	[KVPERF_OP_SEND] = "send",
	[KVPERF_OP_WRITE] = "write",
	[KVPERF_OP_READ] = "read",
};

enum kvperf_run_field {
	F_STATE, F_OP, F_SIZE, F_ITERATIONS, F_MIN, F_P50, F_P90, F_P99,
	F_P999, F_P9999, F_MAX, F_MEAN, F_STDEV, F_MISMATCHES, F_ERROR,
	F_DEV,
};

struct kvperf_run_attr {
	struct attribute attr;
	enum kvperf_run_field field;
};

static ssize_t kvperf_run_show_stat(struct kvperf_run *run,
				    enum kvperf_run_field f, char *buf)
{
	const struct kvperf_result *res;
	const struct kvperf_stats *st;

	if (!run->ndone)
		return f == F_SIZE ? sysfs_emit(buf, "%u\n", run->cfg.size) :
				     sysfs_emit(buf, "\n");
	res = &run->results[run->ndone - 1];
	st = &res->stats;
	switch (f) {
	case F_SIZE:
		return sysfs_emit(buf, "%u\n", res->size);
	case F_ITERATIONS:
		return sysfs_emit(buf, "%llu\n", st->count);
	case F_MIN:
		return sysfs_emit(buf, "%llu\n", st->min_ns);
	case F_P50:
		return sysfs_emit(buf, "%llu\n", st->p50_ns);
	case F_P90:
		return sysfs_emit(buf, "%llu\n", st->p90_ns);
	case F_P99:
		return sysfs_emit(buf, "%llu\n", st->p99_ns);
	case F_P999:
		return sysfs_emit(buf, "%llu\n", st->p999_ns);
	case F_P9999:
		return sysfs_emit(buf, "%llu\n", st->p9999_ns);
	case F_MAX:
		return sysfs_emit(buf, "%llu\n", st->max_ns);
	case F_MEAN:
		return sysfs_emit(buf, "%llu.%03llu\n", st->mean_ps / 1000,
				  st->mean_ps % 1000);
	case F_STDEV:
		return sysfs_emit(buf, "%llu.%03llu\n", st->stdev_ps / 1000,
				  st->stdev_ps % 1000);
	case F_MISMATCHES:
		return sysfs_emit(buf, "%llu\n", res->mismatches);
	default:
		return -EINVAL;
	}
}

static ssize_t kvperf_run_attr_show(struct kobject *kobj,
				    struct attribute *attr, char *buf)
{
	struct kvperf_run *run = container_of(kobj, struct kvperf_run, kobj);
	struct kvperf_run_attr *ra = container_of(attr, struct kvperf_run_attr,
						  attr);
	ssize_t ret;

	mutex_lock(&run->lock);
	switch (ra->field) {
	case F_STATE:
		ret = sysfs_emit(buf, "%s\n", kvperf_state_names[run->state]);
		break;
	case F_OP:
		ret = sysfs_emit(buf, "%s\n", kvperf_op_names[run->cfg.op]);
		break;
	case F_ERROR:
		ret = sysfs_emit(buf, "%s\n", run->error);
		break;
	case F_DEV:
		ret = sysfs_emit(buf, "%s\n", run->dev);
		break;
	default:
		ret = kvperf_run_show_stat(run, ra->field, buf);
		break;
	}
	mutex_unlock(&run->lock);
	return ret;
}

#define KVPERF_RUN_ATTR(_name, _field)					\
	static struct kvperf_run_attr kvperf_run_attr_##_name = {	\
		.attr = { .name = __stringify(_name), .mode = 0444 },	\
		.field = _field,					\
	}

KVPERF_RUN_ATTR(state, F_STATE);
KVPERF_RUN_ATTR(op, F_OP);
KVPERF_RUN_ATTR(size, F_SIZE);
KVPERF_RUN_ATTR(iterations, F_ITERATIONS);
KVPERF_RUN_ATTR(min_ns, F_MIN);
KVPERF_RUN_ATTR(p50_ns, F_P50);
KVPERF_RUN_ATTR(p90_ns, F_P90);
KVPERF_RUN_ATTR(p99_ns, F_P99);
KVPERF_RUN_ATTR(p999_ns, F_P999);
KVPERF_RUN_ATTR(p9999_ns, F_P9999);
KVPERF_RUN_ATTR(max_ns, F_MAX);
KVPERF_RUN_ATTR(mean_ns, F_MEAN);
KVPERF_RUN_ATTR(stdev_ns, F_STDEV);
KVPERF_RUN_ATTR(mismatches, F_MISMATCHES);
KVPERF_RUN_ATTR(error, F_ERROR);
KVPERF_RUN_ATTR(dev, F_DEV);

static struct attribute *kvperf_run_attrs[] = {
	&kvperf_run_attr_state.attr,
	&kvperf_run_attr_op.attr,
	&kvperf_run_attr_size.attr,
	&kvperf_run_attr_iterations.attr,
	&kvperf_run_attr_min_ns.attr,
	&kvperf_run_attr_p50_ns.attr,
	&kvperf_run_attr_p90_ns.attr,
	&kvperf_run_attr_p99_ns.attr,
	&kvperf_run_attr_p999_ns.attr,
	&kvperf_run_attr_p9999_ns.attr,
	&kvperf_run_attr_max_ns.attr,
	&kvperf_run_attr_mean_ns.attr,
	&kvperf_run_attr_stdev_ns.attr,
	&kvperf_run_attr_mismatches.attr,
	&kvperf_run_attr_error.attr,
	&kvperf_run_attr_dev.attr,
	NULL,
};
ATTRIBUTE_GROUPS(kvperf_run);

static const struct sysfs_ops kvperf_run_sysfs_ops = {
	.show = kvperf_run_attr_show,
};

static void kvperf_run_release(struct kobject *kobj)
{
	struct kvperf_run *run = container_of(kobj, struct kvperf_run, kobj);
	u32 i;

	for (i = 0; i < run->nresults; i++)
		kvperf_hist_destroy(&run->results[i].hist);
	kfree(run->results);
	if (run->task)
		put_task_struct(run->task);
	kvperf_unpin(run->pinned);
	kfree(run);
}

const struct kobj_type kvperf_run_ktype = {
	.release = kvperf_run_release,
	.sysfs_ops = &kvperf_run_sysfs_ops,
	.default_groups = kvperf_run_groups,
};

/**
 * kvperf_run_sysfs_add() - create /sys/kernel/kvperf/runs/<id>
 * @run: the run, its kobject initialized
 *
 * Return: 0 or a negative errno.
 */
int kvperf_run_sysfs_add(struct kvperf_run *run)
{
	return kobject_add(&run->kobj, kvperf_sysfs_runs(), "%u", run->id);
}
