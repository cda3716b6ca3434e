// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: /sys/kernel/debug/kvperf/, tables for people and scripts
 * (see Documentation/ABI/testing/debugfs-kvperf).
 */
#include <linux/debugfs.h>
#include <linux/kvperf.h>
#include <linux/math64.h>
#include <linux/seq_file.h>
#include <rdma/ib_verbs.h>

#include "debugfs.h"
#include "faults.h"
#include "kvperf.h"
#include "lat.h"
#include "run.h"
#include "run_events.h"

static struct dentry *kvperf_debugfs_dir;
static struct dentry *kvperf_debugfs_runs;

static const char *kvperf_port_state_name(enum ib_port_state state)
{
	static const char * const names[] = {
		[IB_PORT_NOP] = "NOP",
		[IB_PORT_DOWN] = "DOWN",
		[IB_PORT_INIT] = "INIT",
		[IB_PORT_ARMED] = "ARMED",
		[IB_PORT_ACTIVE] = "ACTIVE",
		[IB_PORT_ACTIVE_DEFER] = "ACTIVE_DEFER",
	};

	if (state < ARRAY_SIZE(names) && names[state])
		return names[state];
	return "UNKNOWN";
}

/* One row per device: index, name, ports and the state of each port. */
static int kvperf_devices_show(struct seq_file *m, void *v)
{
	struct kvperf_device *kdev;

	seq_puts(m, "index name             ports states\n");
	kvperf_device_lock();
	list_for_each_entry(kdev, kvperf_device_list(), node) {
		struct ib_device *ibdev = kdev->ibdev;
		struct ib_port_attr pa;
		u32 port;

		seq_printf(m, "%5u %-16s %5u ", ibdev->index,
			   dev_name(&ibdev->dev), ibdev->phys_port_cnt);
		rdma_for_each_port(ibdev, port) {
			if (ib_query_port(ibdev, port, &pa))
				seq_printf(m, "%s%u:?", port > 1 ? "," : "",
					   port);
			else
				seq_printf(m, "%s%u:%s", port > 1 ? "," : "",
					   port, kvperf_port_state_name(pa.state));
		}
		seq_putc(m, '\n');
	}
	kvperf_device_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kvperf_devices);

/*
 * Every non-empty histogram bucket of every size the run completed, in
 * the run's latency (half the round trip for send and write); an I/O
 * run's lines start with the direction of their I/Os.
 */
static int kvperf_histogram_show(struct seq_file *m, void *v)
{
	struct kvperf_run *run = m->private;
	bool io = run->cfg.type == KVPERF_RUN_TYPE_IO;
	u32 i, b;

	seq_printf(m, "# %ssize bucket lower_ns upper_ns count\n",
		   io ? "op " : "");
	mutex_lock(&run->lock);
	for (i = 0; i < run->ndone; i++) {
		const struct kvperf_result *res = &run->results[i];

		for (b = 0; b < res->hist.nbuckets; b++) {
			if (!res->hist.buckets[b])
				continue;
			if (io)
				seq_printf(m, "%s ", res->op == KVPERF_OP_READ ?
					   "read" : "write");
			seq_printf(m, "%u %u %llu %llu %llu\n", res->size, b,
				   kvperf_hist_bucket_lower(b),
				   kvperf_hist_bucket_upper(b),
				   res->hist.buckets[b]);
		}
	}
	mutex_unlock(&run->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kvperf_histogram);

/*
 * Every sampling window of a bandwidth run: message size, end of the
 * window since the run started, its length, the messages and bytes
 * completed in it and their rate.
 */
static int kvperf_series_show(struct seq_file *m, void *v)
{
	struct kvperf_run *run = m->private;
	u32 i;

	seq_puts(m, "# size t_ms window_ns messages bytes mib_per_s\n");
	mutex_lock(&run->lock);
	for (i = 0; i < run->bw.nseries; i++) {
		const struct kvperf_bw_sample *x = &run->bw.series[i];
		u64 bytes = x->messages * x->size;
		u64 centi = x->ns ? mul_u64_u64_div_u64(bytes, 100 * NSEC_PER_SEC,
						       x->ns) >> 20 : 0;

		seq_printf(m, "%u %llu %llu %llu %llu %llu.%02llu\n", x->size,
			   div_u64(x->t_ns, NSEC_PER_MSEC), x->ns, x->messages,
			   bytes, centi / 100, centi % 100);
	}
	if (run->bw.series_dropped)
		seq_printf(m, "# %llu later windows dropped (at most %u kept)\n",
			   run->bw.series_dropped, KVPERF_BW_SERIES_MAX);
	mutex_unlock(&run->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kvperf_series);

/* Added: create /sys/kernel/debug/kvperf/runs/<id>; never fails. */
static int kvperf_debugfs_run_added(struct kvperf_run *run)
{
	char name[16];

	snprintf(name, sizeof(name), "%u", run->id);
	run->debugfs = debugfs_create_dir(name, kvperf_debugfs_runs);
	if (run->cfg.type == KVPERF_RUN_TYPE_BW)
		debugfs_create_file("series", 0444, run->debugfs, run,
				    &kvperf_series_fops);
	else
		debugfs_create_file("histogram", 0444, run->debugfs, run,
				    &kvperf_histogram_fops);
	return 0;
}

/*
 * Removed: remove the run's directory. Returns once no reader is left in
 * its files, which use the run without a reference of their own.
 */
static void kvperf_debugfs_run_removed(struct kvperf_run *run)
{
	debugfs_remove_recursive(run->debugfs);
	run->debugfs = NULL;
}

/* The runs' directories; registered by module init. */
struct kvperf_run_observer kvperf_debugfs_observer = {
	.name = "debugfs",
	.run_added = kvperf_debugfs_run_added,
	.run_removed = kvperf_debugfs_run_removed,
};

/**
 * kvperf_debugfs_init() - create /sys/kernel/debug/kvperf
 *
 * debugfs is a debugging aid: the module works without it, so failures
 * here are not errors.
 */
void kvperf_debugfs_init(void)
{
	kvperf_debugfs_dir = debugfs_create_dir("kvperf", NULL);
	debugfs_create_file("devices", 0444, kvperf_debugfs_dir, NULL,
			    &kvperf_devices_fops);
	kvperf_debugfs_runs = debugfs_create_dir("runs", kvperf_debugfs_dir);
	kvperf_faults_debugfs_init(kvperf_debugfs_dir);
}

/**
 * kvperf_debugfs_exit() - remove /sys/kernel/debug/kvperf
 *
 * Returns once no reader is left in the files.
 */
void kvperf_debugfs_exit(void)
{
	debugfs_remove_recursive(kvperf_debugfs_dir);
}
