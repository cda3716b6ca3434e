// SPDX-License-Identifier: GPL-2.0
/*
 * Printing the result of an I/O run as fio prints a job's: a line with
 * IOPS and bandwidth, then the completion latency and its percentiles;
 * in JSON every number of the result and the rates derived from them.
 */
#include <stdio.h>
#include <linux/kvperf.h>

#include "fmt.h"
#include "print.h"
#include "run_io_print.h"
#include "run_model.h"

/* @num / @den in thousandths, as "123.456"; 0 when @den is */
static char *ratio_milli(char *buf, unsigned __int128 num, uint64_t den)
{
	uint64_t v = den ? (uint64_t)(num * 1000 / den) : 0;

	return fmt_fixed(buf, v, 3, 3);
}

/* @ns as microseconds with 2 decimals in text, ns in JSON */
static void print_usec(struct printer *p, const char *key, const char *fmt,
		       uint64_t ns)
{
	char text[FMT_FIXED_LEN];

	pr_u64_as(p, key, fmt, ns, fmt_fixed(text, ns, 3, 2));
}

/* @ps as ns with 3 decimals in JSON, microseconds with 3 in text */
static void print_ps(struct printer *p, const char *key, const char *fmt,
		     uint64_t ps)
{
	char json[FMT_FIXED_LEN], text[FMT_FIXED_LEN];

	pr_number_as(p, key, fmt, fmt_fixed(json, ps, 3, 3),
		     fmt_fixed(text, ps, 6, 3));
}

/* The direction of a result's I/Os: its own, or the run's. */
static uint8_t io_result_op(const struct kv_run *run,
			    const struct kv_lat_result *res)
{
	return KV_HAS(res, KVPERF_A_RESULT_OP) ? res->op : run->op;
}

/* "read: IOPS=..., BW=...MiB/s (N I/Os of B bytes in T ms)" */
static void print_io_rates(struct printer *p, const struct kv_run *run,
			   const struct kv_lat_result *res)
{
	bool write = io_result_op(run, res) == KVPERF_OP_WRITE;

	unsigned __int128 bytes = (unsigned __int128)res->iterations *
				  res->size;
	char iops[FMT_FIXED_LEN], mibs[FMT_FIXED_LEN], ms[FMT_FIXED_LEN];

	ratio_milli(iops, (unsigned __int128)res->iterations * 1000000000,
		    res->elapsed_ns);
	/* bytes per ns, times 10^9, over 2^20 */
	ratio_milli(mibs, bytes * 1000000000 / (1 << 20), res->elapsed_ns);
	pr_indent(p, 1);
	pr_str(p, "rw", "%s:", write ? "write" : "read");
	pr_number_as(p, "iops", "IOPS=%s,", iops, iops);
	pr_number_as(p, "mib_per_sec", "BW=%sMiB/s", mibs, mibs);
	pr_u64(p, "ios", "(%s I/Os", res->iterations);
	pr_u64(p, "bs", "of %s bytes", res->size);
	pr_u64_as(p, "elapsed_ns", "in %s ms)", res->elapsed_ns,
		  fmt_fixed(ms, res->elapsed_ns, 6, 3));
	pr_eol(p);
}

/*
 * @part_ns, summed over the I/Os, as a percentage of their summed
 * latencies (the mean times the count) with 3 decimals; 0 without any
 */
static char *share_pct(char *buf, const struct kv_lat_result *res,
		       uint64_t part_ns)
{
	unsigned __int128 lat_ps = (unsigned __int128)res->mean_ps *
				   res->iterations;
	/* percent, in thousandths: part_ns * 1000 ps * 100 * 1000 / lat_ps */
	uint64_t v = lat_ps ? (uint64_t)((unsigned __int128)part_ns *
					 100000000 / lat_ps) : 0;

	return fmt_fixed(buf, v, 3, 3);
}

/*
 * "  reg (usec): avg=0.85, 2.125% of clat; inv (usec): avg=3.10,
 * 7.750% of clat": the registration's and the invalidation's part of
 * the I/Os' latency, per I/O and as a share
 */
static void print_io_shares(struct printer *p,
			    const struct kv_lat_result *res)
{
	char pct[FMT_FIXED_LEN];
	uint64_t n = res->iterations ? res->iterations : 1;

	pr_indent(p, 2);
	pr_text(p, "reg (usec):");
	pr_u64(p, "reg_ns", NULL, res->reg_ns);
	print_usec(p, "reg_avg_ns", "avg=%s,", res->reg_ns / n);
	share_pct(pct, res, res->reg_ns);
	pr_number_as(p, "reg_pct", "%s%% of clat;", pct, pct);
	pr_text(p, " inv (usec):");
	pr_u64(p, "inv_ns", NULL, res->inv_ns);
	print_usec(p, "inv_avg_ns", "avg=%s,", res->inv_ns / n);
	share_pct(pct, res, res->inv_ns);
	pr_number_as(p, "inv_pct", "%s%% of clat", pct, pct);
	pr_eol(p);
}

/* Every measured I/O of the run's block size @size, reads and writes. */
static uint64_t io_size_ios(const struct kv_run *run, uint32_t size)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < run->nlat; i++)
		if (run->lat[i].size == size)
			n += run->lat[i].iterations;
	return n;
}

/*
 * "  cpu (usec/IO): host=8.52, target=4.10": the CPU time of the
 * result's block size, the host's (stats on) and the target's, over all
 * its I/Os (a mixed run's reads and writes together: the same line in
 * both blocks)
 */
static void print_io_cpu(struct printer *p, const struct kv_run *run,
			 const struct kv_lat_result *res)
{
	uint64_t n = io_size_ios(run, res->size);

	if (!n)
		n = 1;
	pr_indent(p, 2);
	pr_text(p, "cpu (usec/IO):");
	if (KV_HAS(res, KVPERF_A_RESULT_CPU_NS)) {
		pr_u64(p, "cpu_ns", NULL, res->cpu_ns);
		print_usec(p, "cpu_per_io_ns", "host=%s,", res->cpu_ns / n);
	}
	pr_u64(p, "target_cpu_ns", NULL, res->target_cpu_ns);
	print_usec(p, "target_cpu_per_io_ns", "target=%s",
		   res->target_cpu_ns / n);
	pr_eol(p);
}

/*
 * "    queue 1 (cpu 0): IOPS=2345.678, 11728 I/Os in 5000.012 ms,
 * clat (usec): avg=20.120, min=12.34, 50.00th=[19.90], 99.00th=[41.22],
 * max=567.89": one queue's part of a result (percentiles with stats on)
 */
/* Every measured I/O of queue @index at block size @size, both ways. */
static uint64_t io_queue_ios(const struct kv_run *run, uint32_t index,
			     uint32_t size)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < run->nlat; i++)
		if (index < run->lat[i].nqueues && run->lat[i].size == size)
			n += run->lat[i].queues[index].iterations;
	return n;
}

/* JSON only: the queue's CPU times, over all its I/Os of @size. */
static void print_io_queue_cpu(struct printer *p, const struct kv_run *run,
			       const struct kv_io_queue *q, uint32_t size)
{
	uint64_t n = io_queue_ios(run, q->index, size);

	if (!n)
		n = 1;
	if (KV_HAS(q, KVPERF_A_IO_QUEUE_CPU_NS)) {
		pr_u64(p, "cpu_ns", NULL, q->cpu_ns);
		pr_u64(p, "cpu_per_io_ns", NULL, q->cpu_ns / n);
	}
	if (KV_HAS(q, KVPERF_A_IO_QUEUE_TARGET_CPU_NS)) {
		pr_u64(p, "target_cpu_ns", NULL, q->target_cpu_ns);
		pr_u64(p, "target_cpu_per_io_ns", NULL, q->target_cpu_ns / n);
	}
}

static void print_io_queue(struct printer *p, const struct kv_run *run,
			   const struct kv_lat_result *res,
			   const struct kv_io_queue *q)
{
	char iops[FMT_FIXED_LEN], ms[FMT_FIXED_LEN], cpu[16];

	pr_obj_open(p, NULL);
	pr_indent(p, 2);
	pr_u64(p, "index", "queue %s", q->index);
	/* an unbound queue's thread: -1 in JSON, "-" in text */
	snprintf(cpu, sizeof(cpu), "%d", q->cpu);
	pr_number_as(p, "cpu", "(cpu %s):", cpu, q->cpu >= 0 ? cpu : "-");
	ratio_milli(iops, (unsigned __int128)q->iterations * 1000000000,
		    q->elapsed_ns);
	pr_number_as(p, "iops", "IOPS=%s,", iops, iops);
	pr_u64(p, "ios", "%s I/Os", q->iterations);
	pr_u64_as(p, "elapsed_ns", "in %s ms,", q->elapsed_ns,
		  fmt_fixed(ms, q->elapsed_ns, 6, 3));
	pr_text(p, " clat (usec):");
	if (KV_HAS(q, KVPERF_A_IO_QUEUE_P50_NS)) {
		print_ps(p, "mean_ns", "avg=%s,", q->mean_ps);
		print_usec(p, "min_ns", "min=%s,", q->min_ns);
		print_usec(p, "p50_ns", "50.00th=[%s],", q->p50_ns);
		print_usec(p, "p99_ns", "99.00th=[%s],", q->p99_ns);
		print_usec(p, "max_ns", "max=%s", q->max_ns);
	} else {
		print_ps(p, "mean_ns", "avg=%s", q->mean_ps);
	}
	pr_u64(p, "mismatches", NULL, q->mismatches);
	print_io_queue_cpu(p, run, q, res->size);
	pr_eol(p);
	pr_obj_close(p);
}

/* A result's queues: all in JSON, in text when there are several. */
static void print_io_queues(struct printer *p, const struct kv_run *run,
			    const struct kv_lat_result *res)
{
	uint32_t i;

	if (!p->json && res->nqueues < 2)
		return;
	pr_arr_open(p, "queues");
	for (i = 0; i < res->nqueues; i++)
		print_io_queue(p, run, res, &res->queues[i]);
	pr_arr_close(p);
}

static void print_io_result(struct printer *p, const struct kv_run *run,
			    const struct kv_lat_result *res)
{
	pr_obj_open(p, NULL);
	print_io_rates(p, run, res);
	pr_indent(p, 2);
	if (KV_HAS(res, KVPERF_A_RESULT_P50_NS)) {
		pr_text(p, "clat (usec):");
		print_usec(p, "min_ns", "min=%s,", res->min_ns);
		print_usec(p, "max_ns", "max=%s,", res->max_ns);
		print_ps(p, "mean_ns", "avg=%s,", res->mean_ps);
		print_ps(p, "stdev_ns", "stdev=%s", res->stdev_ps);
		pr_eol(p);
		pr_indent(p, 2);
		pr_text(p, "clat percentiles (usec):");
		print_usec(p, "p50_ns", "50.00th=[%s],", res->p50_ns);
		print_usec(p, "p90_ns", "90.00th=[%s],", res->p90_ns);
		print_usec(p, "p99_ns", "99.00th=[%s],", res->p99_ns);
		print_usec(p, "p999_ns", "99.90th=[%s],", res->p999_ns);
		print_usec(p, "p9999_ns", "99.99th=[%s]", res->p9999_ns);
		pr_u64(p, "hist_rel_err_ppm", NULL, res->hist_rel_err_ppm);
	} else {
		pr_text(p, "clat (usec), stats off:");
		print_ps(p, "mean_ns", "avg=%s", res->mean_ps);
	}
	pr_eol(p);
	if (KV_HAS(res, KVPERF_A_RESULT_REG_NS))
		print_io_shares(p, res);
	if (KV_HAS(res, KVPERF_A_RESULT_TARGET_CPU_NS))
		print_io_cpu(p, run, res);
	pr_indent(p, 2);
	pr_u64(p, "mismatches", run->verify ? "verify: %s I/Os with wrong data" :
	       NULL, res->mismatches);
	pr_eol(p);
	print_io_queues(p, run, res);
	pr_obj_close(p);
}

/**
 * run_print_io_live() - the line of one interval of an I/O run
 * @f: where it goes
 * @ev: the run's progress event: the interval's I/Os, bytes and length
 * @since_ms: how long ago the run started
 * @rw: "read", "write" or "randmix"
 * @bss: the run sweeps block sizes: the line ends with the event's
 *
 * "  [   2.0 s] read: IOPS=4123.456, BW=16.107MiB/s", the interval's
 * rates truncated to thousandths, and in a sweep " (bs 4096)"; an event
 * without an interval prints nothing.
 */
void run_print_io_live(FILE *f, const struct kv_run *ev, int64_t since_ms,
		       const char *rw, bool bss)
{
	char iops[FMT_FIXED_LEN], mibs[FMT_FIXED_LEN];

	if (!KV_HAS(ev, KVPERF_A_RUN_INTERVAL_NS) ||
	    !KV_HAS(ev, KVPERF_A_RUN_INTERVAL_MESSAGES) ||
	    !KV_HAS(ev, KVPERF_A_RUN_INTERVAL_BYTES))
		return;
	ratio_milli(iops, (unsigned __int128)ev->interval_messages * 1000000000,
		    ev->interval_ns);
	ratio_milli(mibs, (unsigned __int128)ev->interval_bytes * 1000000000 /
		    (1 << 20), ev->interval_ns);
	fprintf(f, "  [%6.1f s] %s: IOPS=%s, BW=%sMiB/s",
		since_ms > 0 ? since_ms / 1000.0 : 0.0, rw, iops, mibs);
	if (bss && KV_HAS(ev, KVPERF_A_RUN_CUR_SIZE))
		fprintf(f, " (bs %u)", ev->cur_size);
	fputc('\n', f);
}

/**
 * run_print_io() - the result of an I/O run
 * @p: the printer
 * @run: the run
 *
 * Text, as fio's job summary (times in microseconds):
 *
 *    read: IOPS=45678.123, BW=178.430MiB/s (456780 I/Os of 4096 bytes in 10000.000 ms)
 *     clat (usec): min=12.34, max=567.89, avg=20.120, stdev=3.450
 *     clat percentiles (usec): 50.00th=[19.90], 90.00th=[...], ...
 *
 * A run with a read-pct has two such blocks, "read:" then "write:", each
 * with the rates of its own I/Os over the run's time. A run of several
 * queues follows each block with a line per queue. A sweep (bss) has
 * such blocks for each block size, smallest first; CPU per I/O is over
 * the I/Os of the block size.
 *
 * JSON: "results", an object per direction with rw ("read" or "write"),
 * iops and mib_per_sec (3 decimals),
 * bs, ios, bytes, elapsed_ns, min_ns, max_ns, mean_ns, stdev_ns, the
 * percentiles in ns, hist_rel_err_ppm and mismatches, the run's
 * target_cpu_ns and target_cpu_per_io_ns (and with stats on the host's
 * cpu_ns and cpu_per_io_ns: over all the run's I/Os), and "queues", an
 * object per queue with index, cpu, iops, ios, elapsed_ns, mean_ns,
 * mismatches, target_cpu_ns and target_cpu_per_io_ns (over the queue's
 * I/Os of both directions) and with stats on min_ns, p50_ns, p99_ns,
 * max_ns, cpu_ns and cpu_per_io_ns.
 */
void run_print_io(struct printer *p, const struct kv_run *run)
{
	uint32_t i;

	pr_arr_open(p, "results");
	for (i = 0; i < run->nlat; i++)
		print_io_result(p, run, &run->lat[i]);
	pr_arr_close(p);
}
