// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: /sys/kernel/kvperf/runs/<id>/, one value per file (see
 * Documentation/ABI/testing/sysfs-kernel-kvperf). The statistics files
 * show the last message size the run completed, in the same numbers
 * netlink reports.
 *
 * Each directory is a kobject of its own that holds a reference on its
 * run: the run core's refcount frees the run, whoever puts last. The
 * directories come and go with the run's added and removed events.
 */
#include <linux/kobject.h>
#include <linux/kvperf.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "kvperf.h"
#include "run.h"
#include "run_events.h"
#include "sysfs.h"

/**
 * struct kvperf_run_sysfs - /sys/kernel/kvperf/runs/<id> and its qp<N>
 * @kobj: the run's directory; holds a reference on @run
 * @run: the run
 * @nqps: entries in @qps: the queue pairs of a bandwidth run, 0 for a
 *	  latency run
 * @qps: the queue pairs' directories
 */
struct kvperf_run_sysfs {
	struct kobject kobj;
	struct kvperf_run *run;
	u32 nqps;
	struct kobject *qps[];
};

static struct kvperf_run *kvperf_kobj_run(struct kobject *kobj)
{
	return container_of(kobj, struct kvperf_run_sysfs, kobj)->run;
}

static const char * const kvperf_state_names[] = {
	[KVPERF_RUN_STATE_CONNECTING] = "connecting",
	[KVPERF_RUN_STATE_RUNNING] = "running",
	[KVPERF_RUN_STATE_DONE] = "done",
	[KVPERF_RUN_STATE_FAILED] = "failed",
	[KVPERF_RUN_STATE_STOPPED] = "stopped",
};

static const char * const kvperf_post_context_names[] = {
	[KVPERF_POST_CONTEXT_PROCESS] = "process",
	[KVPERF_POST_CONTEXT_BH] = "bh",
};

static const char * const kvperf_op_names[] = {
	[KVPERF_OP_SEND] = "send",
	[KVPERF_OP_WRITE] = "write",
	[KVPERF_OP_READ] = "read",
};

enum kvperf_run_field {
	F_STATE, F_OP, F_SIZE, F_ITERATIONS, F_MIN, F_P50, F_P90, F_P99,
	F_P999, F_P9999, F_MAX, F_MEAN, F_STDEV, F_MISMATCHES, F_ERROR,
	F_DEV, F_TYPE, F_STATS, F_POST_CONTEXT,
	/* bandwidth runs only */
	F_BYTES, F_MESSAGES, F_BW_AVG, F_BW_PEAK, F_MSG_RATE, F_CPU_PER_MSG,
	F_CPU_PERCENT,
	/* I/O runs only */
	F_CPU_PER_IO, F_TARGET_CPU_PER_IO,
};

struct kvperf_run_attr {
	struct attribute attr;
	enum kvperf_run_field field;
};

/* @bytes per second in MiB/s, two decimals */
static ssize_t kvperf_emit_mibps(char *buf, u64 bps)
{
	u64 centi = mul_u64_u64_div_u64(bps, 100, 1 << 20);

	return sysfs_emit(buf, "%llu.%02llu\n", centi / 100, centi % 100);
}

static u64 kvperf_per_sec(u64 n, u64 ns)
{
	return ns ? mul_u64_u64_div_u64(n, NSEC_PER_SEC, ns) : 0;
}

static ssize_t kvperf_run_show_bw(struct kvperf_run *run,
				  enum kvperf_run_field f, char *buf)
{
	const struct kvperf_bw_result *res;
	u64 rate, msgs, wall;

	if (!run->ndone)
		return f == F_SIZE ? sysfs_emit(buf, "%u\n", run->cfg.size) :
				     sysfs_emit(buf, "\n");
	res = &run->bw.results[run->ndone - 1];
	switch (f) {
	case F_SIZE:
		return sysfs_emit(buf, "%u\n", res->size);
	case F_BYTES:
		return sysfs_emit(buf, "%llu\n", res->bytes);
	case F_MESSAGES:
		return sysfs_emit(buf, "%llu\n", res->messages);
	case F_BW_AVG:
		return kvperf_emit_mibps(buf, kvperf_per_sec(res->bytes,
							     res->elapsed_ns));
	case F_BW_PEAK:
		return kvperf_emit_mibps(buf, res->peak_bps);
	case F_MSG_RATE:
		rate = kvperf_per_sec(res->messages, res->elapsed_ns);
		return sysfs_emit(buf, "%llu.%06llu\n", rate / 1000000,
				  rate % 1000000);
	case F_CPU_PER_MSG:
		msgs = res->messages + res->rx_messages;
		return sysfs_emit(buf, "%llu\n", msgs ?
				  div64_u64(res->cpu_ns, msgs) : 0);
	case F_CPU_PERCENT:
		wall = max(res->elapsed_ns, res->rx_elapsed_ns);
		return sysfs_emit(buf, "%llu\n", wall ?
				  mul_u64_u64_div_u64(res->cpu_ns, 100, wall) :
				  0);
	case F_MISMATCHES:
		return sysfs_emit(buf, "%llu\n", res->mismatches);
	default:
		return -EINVAL;
	}
}

/*
 * An I/O run's CPU time, the host's or the target's, per I/O of the block
 * size of @res (a mixed run's reads and writes together).
 */
static ssize_t kvperf_run_show_io_cpu(struct kvperf_run *run,
				      const struct kvperf_result *res,
				      u64 cpu_ns, char *buf)
{
	u64 ios = 0;
	u32 i;

	for (i = 0; i < run->ndone; i++)
		if (run->results[i].size == res->size)
			ios += run->results[i].stats.count;
	return sysfs_emit(buf, "%llu\n", ios ? div64_u64(cpu_ns, ios) : 0);
}

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
	case F_CPU_PER_IO:
		return kvperf_run_show_io_cpu(run, res, res->cpu_ns, buf);
	case F_TARGET_CPU_PER_IO:
		return kvperf_run_show_io_cpu(run, res, res->target_cpu_ns,
					      buf);
	default:
		return -EINVAL;
	}
}

static ssize_t kvperf_run_attr_show(struct kobject *kobj,
				    struct attribute *attr, char *buf)
{
	struct kvperf_run *run = kvperf_kobj_run(kobj);
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
	case F_TYPE:
		ret = sysfs_emit(buf, "%s\n",
				 run->cfg.type == KVPERF_RUN_TYPE_BW ? "bw" :
				 run->cfg.type == KVPERF_RUN_TYPE_IO ? "io" :
				 "lat");
		break;
	case F_STATS:
		ret = sysfs_emit(buf, "%s\n",
				 run->cfg.stats == KVPERF_STATS_MODE_ON ? "on" : "off");
		break;
	case F_POST_CONTEXT:
		ret = sysfs_emit(buf, "%s\n",
				 kvperf_post_context_names[run->cfg.post_context]);
		break;
	default:
		if (run->cfg.type == KVPERF_RUN_TYPE_BW)
			ret = kvperf_run_show_bw(run, ra->field, buf);
		else
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
KVPERF_RUN_ATTR(type, F_TYPE);
KVPERF_RUN_ATTR(stats, F_STATS);
KVPERF_RUN_ATTR(post_context, F_POST_CONTEXT);
KVPERF_RUN_ATTR(bytes, F_BYTES);
KVPERF_RUN_ATTR(messages, F_MESSAGES);
KVPERF_RUN_ATTR(bw_avg_mibps, F_BW_AVG);
KVPERF_RUN_ATTR(bw_peak_mibps, F_BW_PEAK);
KVPERF_RUN_ATTR(msg_rate, F_MSG_RATE);
KVPERF_RUN_ATTR(cpu_ns_per_msg, F_CPU_PER_MSG);
KVPERF_RUN_ATTR(cpu_percent, F_CPU_PERCENT);
KVPERF_RUN_ATTR(cpu_ns_per_io, F_CPU_PER_IO);
KVPERF_RUN_ATTR(target_cpu_ns_per_io, F_TARGET_CPU_PER_IO);

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
	&kvperf_run_attr_type.attr,
	&kvperf_run_attr_stats.attr,
	&kvperf_run_attr_post_context.attr,
	&kvperf_run_attr_bytes.attr,
	&kvperf_run_attr_messages.attr,
	&kvperf_run_attr_bw_avg_mibps.attr,
	&kvperf_run_attr_bw_peak_mibps.attr,
	&kvperf_run_attr_msg_rate.attr,
	&kvperf_run_attr_cpu_ns_per_msg.attr,
	&kvperf_run_attr_cpu_percent.attr,
	&kvperf_run_attr_cpu_ns_per_io.attr,
	&kvperf_run_attr_target_cpu_ns_per_io.attr,
	NULL,
};

/*
 * Latency statistics for latency and I/O runs (with stats off, only those
 * that need no per-iteration sample), rates for bandwidth runs, CPU per
 * I/O for I/O runs (the host's with stats on only).
 */
static umode_t kvperf_run_attr_visible(struct kobject *kobj,
				       struct attribute *attr, int n)
{
	struct kvperf_run *run = kvperf_kobj_run(kobj);
	struct kvperf_run_attr *ra = container_of(attr, struct kvperf_run_attr,
						  attr);
	bool bw = run->cfg.type == KVPERF_RUN_TYPE_BW;
	bool stats = run->cfg.stats == KVPERF_STATS_MODE_ON;

	if (ra->field >= F_CPU_PER_IO)
		return run->cfg.type == KVPERF_RUN_TYPE_IO &&
		       (stats || ra->field != F_CPU_PER_IO) ? attr->mode : 0;
	if (ra->field >= F_BYTES)
		return bw ? attr->mode : 0;
	if (bw && ((ra->field >= F_ITERATIONS && ra->field <= F_STDEV) ||
		   ra->field == F_STATS))
		return 0;
	if (!stats && ra->field >= F_MIN && ra->field <= F_STDEV &&
	    ra->field != F_MEAN)
		return 0;
	return attr->mode;
}

static const struct attribute_group kvperf_run_group = {
	.attrs = kvperf_run_attrs,
	.is_visible = kvperf_run_attr_visible,
};

static const struct attribute_group *kvperf_run_groups[] = {
	&kvperf_run_group,
	NULL,
};

static const struct sysfs_ops kvperf_run_sysfs_ops = {
	.show = kvperf_run_attr_show,
};

static void kvperf_run_sysfs_release(struct kobject *kobj)
{
	struct kvperf_run_sysfs *rs = container_of(kobj, struct kvperf_run_sysfs,
						   kobj);

	kvperf_run_put(rs->run);
	kfree(rs);
}

static const struct kobj_type kvperf_run_ktype = {
	.release = kvperf_run_sysfs_release,
	.sysfs_ops = &kvperf_run_sysfs_ops,
	.default_groups = kvperf_run_groups,
};

/**
 * struct kvperf_qp_kobj - /sys/kernel/kvperf/runs/<id>/qp<N>
 * @kobj: its kobject; holds a reference on the run's directory
 * @run: the run
 * @index: the queue pair
 */
struct kvperf_qp_kobj {
	struct kobject kobj;
	struct kvperf_run *run;
	u32 index;
};

enum kvperf_qp_field { Q_CPU, Q_MESSAGES, Q_BYTES, Q_BW_AVG };

static ssize_t kvperf_qp_attr_show(struct kobject *kobj,
				   struct attribute *attr, char *buf)
{
	struct kvperf_qp_kobj *qk = container_of(kobj, struct kvperf_qp_kobj,
						 kobj);
	struct kvperf_run_attr *ra = container_of(attr, struct kvperf_run_attr,
						  attr);
	struct kvperf_run *run = qk->run;
	const struct kvperf_bw_qp_result *qr;
	ssize_t ret;

	mutex_lock(&run->lock);
	if (!run->ndone) {
		mutex_unlock(&run->lock);
		return sysfs_emit(buf, "\n");
	}
	qr = &run->bw.results[run->ndone - 1].qp[qk->index];
	switch ((enum kvperf_qp_field)ra->field) {
	case Q_CPU:
		ret = sysfs_emit(buf, "%d\n", qr->cpu);
		break;
	case Q_MESSAGES:
		ret = sysfs_emit(buf, "%llu\n", qr->messages);
		break;
	case Q_BYTES:
		ret = sysfs_emit(buf, "%llu\n", qr->bytes);
		break;
	default:
		ret = kvperf_emit_mibps(buf, kvperf_per_sec(qr->bytes,
							    qr->elapsed_ns));
		break;
	}
	mutex_unlock(&run->lock);
	return ret;
}

#define KVPERF_QP_ATTR(_name, _field)					\
	static struct kvperf_run_attr kvperf_qp_attr_##_name = {	\
		.attr = { .name = __stringify(_name), .mode = 0444 },	\
		.field = (enum kvperf_run_field)_field,			\
	}

KVPERF_QP_ATTR(cpu, Q_CPU);
KVPERF_QP_ATTR(messages, Q_MESSAGES);
KVPERF_QP_ATTR(bytes, Q_BYTES);
KVPERF_QP_ATTR(bw_avg_mibps, Q_BW_AVG);

static struct attribute *kvperf_qp_attrs[] = {
	&kvperf_qp_attr_cpu.attr,
	&kvperf_qp_attr_messages.attr,
	&kvperf_qp_attr_bytes.attr,
	&kvperf_qp_attr_bw_avg_mibps.attr,
	NULL,
};
ATTRIBUTE_GROUPS(kvperf_qp);

static const struct sysfs_ops kvperf_qp_sysfs_ops = {
	.show = kvperf_qp_attr_show,
};

static void kvperf_qp_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct kvperf_qp_kobj, kobj));
}

static const struct kobj_type kvperf_qp_ktype = {
	.release = kvperf_qp_release,
	.sysfs_ops = &kvperf_qp_sysfs_ops,
	.default_groups = kvperf_qp_groups,
};

static int kvperf_run_sysfs_add_qps(struct kvperf_run_sysfs *rs)
{
	u32 i;
	int err;

	for (i = 0; i < rs->nqps; i++) {
		struct kvperf_qp_kobj *qk = kzalloc(sizeof(*qk), GFP_KERNEL);

		if (!qk)
			return -ENOMEM;
		qk->run = rs->run;
		qk->index = i;
		kobject_init(&qk->kobj, &kvperf_qp_ktype);
		err = kobject_add(&qk->kobj, &rs->kobj, "qp%u", i);
		if (err) {
			kobject_put(&qk->kobj);
			return err;
		}
		rs->qps[i] = &qk->kobj;
	}
	return 0;
}

/*
 * Removed: delete the run's directories. Returns once no reader is left
 * in their files; the run stays until its kobject's last reference.
 */
static void kvperf_run_sysfs_removed(struct kvperf_run *run)
{
	struct kvperf_run_sysfs *rs = run->sysfs;
	u32 i;

	if (!rs)
		return;
	for (i = 0; i < rs->nqps; i++) {
		if (!rs->qps[i])
			continue;
		kobject_del(rs->qps[i]);
		kobject_put(rs->qps[i]);
		rs->qps[i] = NULL;
	}
	if (rs->kobj.state_in_sysfs)
		kobject_del(&rs->kobj);
	run->sysfs = NULL;
	kobject_put(&rs->kobj);
}

/*
 * Added: create /sys/kernel/kvperf/runs/<id>, and a qp<N> directory per
 * queue pair of bandwidth runs. Undoes its work on failure.
 */
static int kvperf_run_sysfs_added(struct kvperf_run *run)
{
	u32 nqps = run->cfg.type == KVPERF_RUN_TYPE_BW ? run->cfg.qps : 0;
	struct kvperf_run_sysfs *rs;
	int err;

	rs = kzalloc(struct_size(rs, qps, nqps), GFP_KERNEL);
	if (!rs)
		return -ENOMEM;
	rs->run = kvperf_run_hold(run);
	rs->nqps = nqps;
	kobject_init(&rs->kobj, &kvperf_run_ktype);
	run->sysfs = rs;
	err = kobject_add(&rs->kobj, kvperf_sysfs_runs(), "%u", run->id);
	if (!err && nqps)
		err = kvperf_run_sysfs_add_qps(rs);
	if (err)
		kvperf_run_sysfs_removed(run);
	return err;
}

/* The runs' directories; registered by module init. */
struct kvperf_run_observer kvperf_run_sysfs_observer = {
	.name = "sysfs",
	.run_added = kvperf_run_sysfs_added,
	.run_removed = kvperf_run_sysfs_removed,
};
