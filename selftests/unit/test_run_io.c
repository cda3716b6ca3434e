// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of I/O runs (user/cli/run.c, user/cli/run_io_print.c):
 * command lines of "run io" turned into KVPERF_CMD_RUN_START requests or
 * usage errors, and replies built here as the kernel sends them, printed
 * as fio's summary, as JSON and as the live line of an interval.
 */
#include <string.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "kvperf.h"
#include "run.h"
#include "run_io_print.h"
#include "run_model.h"
#include "run_test.h"
#include "unit.h"

#define LAT	KVPERF_RUN_TYPE_LAT
#define BW	KVPERF_RUN_TYPE_BW
#define IO	KVPERF_RUN_TYPE_IO

static void io_parse_minimal(void)
{
	/* an I/O run reads unless told otherwise */
	RUN_OK(IO, "type=2 op=2 addr=198.18.0.1 port=18515",
	       "addr", "198.18.0.1");
}

static void io_parse_every_keyword(void)
{
	RUN_OK(IO, "type=2 op=1 addr=198.18.0.1 port=18515 size=131072 iterations=100 poll=1 verify interval-ms=500 qd=16 inv=1 segments=4",
	       "addr", "198.18.0.1", "rw", "write", "bs", "128K", "qd", "16",
	       "inv", "local", "segments", "4", "iters", "100",
	       "poll", "softirq", "verify", "interval", "0.5");
}

static void io_parse_randmix(void)
{
	/* a read run with writes mixed in: op read, read-pct */
	RUN_OK(IO, "type=2 op=2 addr=198.18.0.1 port=18515 qd=16 read-pct=70",
	       "addr", "198.18.0.1", "rw", "randmix", "70", "qd", "16");
	RUN_ERR(IO, "missing value after 'rw randmix' (the percentage of reads, 1 to 99)",
		"addr", "198.18.0.1", "rw", "randmix");
	RUN_ERR(IO, "rw randmix '0' is out of range (1 to 99)",
		"addr", "198.18.0.1", "rw", "randmix", "0");
	RUN_ERR(IO, "rw randmix '100' is out of range (1 to 99)",
		"addr", "198.18.0.1", "rw", "randmix", "100");
	RUN_ERR(IO, "invalid rw randmix 'qd' (the percentage of reads)",
		"addr", "198.18.0.1", "rw", "randmix", "qd", "16");
	RUN_ERR(IO, "'rw' given twice", "addr", "198.18.0.1", "rw", "randmix",
		"50", "rw", "write");
}

/*
 * interval is a time: a bare number is seconds; one out of range that
 * would fit as milliseconds says how to write them, one that would not
 * only the range.
 */
static void io_parse_interval(void)
{
	RUN_OK(IO, "type=2 op=2 addr=198.18.0.1 port=18515 duration-ms=5000 interval-ms=1000",
	       "addr", "198.18.0.1", "time", "5", "interval", "1000ms");
	RUN_ERR(IO, "interval '1000' is out of range (10ms to 60s): a number without a unit is seconds; for milliseconds write 1000ms",
		"addr", "198.18.0.1", "time", "5", "interval", "1000");
	RUN_ERR(IO, "interval '100000' is out of range (10ms to 60s)",
		"addr", "198.18.0.1", "time", "5", "interval", "100000");
	RUN_ERR(IO, "interval '5ms' is out of range (10ms to 60s)",
		"addr", "198.18.0.1", "time", "5", "interval", "5ms");
}

static void io_parse_reg(void)
{
	RUN_OK(IO, "type=2 op=1 addr=198.18.0.1 port=18515 segments=4 reg=1",
	       "addr", "198.18.0.1", "rw", "write", "reg", "pre", "segments",
	       "4");
	RUN_OK(IO, "type=2 op=2 addr=198.18.0.1 port=18515 inv=1 reg=0",
	       "addr", "198.18.0.1", "reg", "frwr", "inv", "local");
	RUN_ERR(IO, "inv applies to reg frwr: a registration made at connect is never invalidated",
		"addr", "198.18.0.1", "reg", "pre", "inv", "remote");
	/* memory windows: the user path's, invalidated by either side */
	RUN_OK(IO, "type=2 op=2 addr=198.18.0.1 port=18515 reg=2",
	       "addr", "198.18.0.1", "reg", "mw", "path", "user");
	RUN_OK(IO, "type=2 op=1 addr=198.18.0.1 port=18515 inv=0 segments=4 reg=2",
	       "addr", "198.18.0.1", "rw", "write", "reg", "mw", "inv",
	       "remote", "segments", "4", "path", "user");
	RUN_OK(IO, "type=2 op=2 addr=198.18.0.1 port=18515 inv=1 reg=2",
	       "addr", "198.18.0.1", "reg", "mw", "inv", "local", "path",
	       "user");
	RUN_ERR(IO, "reg mw is the user path's: the kernel host registers with frwr or pre",
		"addr", "198.18.0.1", "reg", "mw");
	RUN_ERR(IO, "reg mw is the user path's: the kernel host registers with frwr or pre",
		"addr", "198.18.0.1", "reg", "mw", "inv", "local", "path",
		"kernel");
	RUN_ERR(IO, "unknown reg 'fmr' (frwr, pre or mw)", "addr",
		"198.18.0.1", "reg", "fmr");
	RUN_ERR(LAT, "'reg' is only for run io", "op", "send", "addr",
		"198.18.0.1", "reg", "pre");
}

static void io_keywords_refused(void)
{
	RUN_ERR(IO, "'op' does not apply to run io", "addr", "198.18.0.1",
		"op", "read");
	RUN_ERR(IO, "'size' does not apply to run io", "addr", "198.18.0.1",
		"size", "4K");
	RUN_ERR(IO, "'inline' does not apply to run io", "addr", "198.18.0.1",
		"inline", "64");
	RUN_ERR(IO, "'qps' does not apply to run io", "addr", "198.18.0.1",
		"qps", "2");
	RUN_ERR(LAT, "'qd' is only for run io", "op", "send", "addr",
		"198.18.0.1", "qd", "2");
	RUN_ERR(BW, "'segments' is only for run io", "op", "send", "addr",
		"198.18.0.1", "segments", "2");
	/* lat refuses the bandwidth keywords first, as before */
	RUN_ERR(LAT, "'interval' does not apply to run lat", "op", "send", "addr",
		"198.18.0.1", "interval", "1");
	RUN_ERR(IO, "unknown rw 'send' (write, read or randmix)", "addr", "198.18.0.1",
		"rw", "send");
	RUN_ERR(IO, "an I/O run's block size is a multiple of 512 from 512 B to 1 MiB",
		"addr", "198.18.0.1", "bs", "1000");
	RUN_ERR(IO, "the block does not split into that many segments of whole 512-byte units",
		"addr", "198.18.0.1", "bs", "1K", "segments", "4");
	RUN_ERR(IO, "qd '0' is out of range (1 to 256)", "addr", "198.18.0.1",
		"qd", "0");
	/* the user path registers once: no FRWR, nothing to invalidate */
	RUN_ERR(IO, "the user path has no FRWR: it registers each block once, at connect (reg pre)",
		"addr", "198.18.0.1", "reg", "frwr", "path", "user");
	RUN_ERR(IO, "inv applies to reg mw on the user path: otherwise it registers each block once, at connect (reg pre)",
		"addr", "198.18.0.1", "inv", "local", "path", "user");
	RUN_ERR(IO, "inv applies to reg frwr: a registration made at connect is never invalidated",
		"addr", "198.18.0.1", "reg", "pre", "inv", "remote", "path",
		"user");
	/* the user path has interval lines too */
	RUN_OK(IO, "type=2 op=2 addr=198.18.0.1 port=18515 interval-ms=500",
	       "addr", "198.18.0.1", "interval", "0.5", "path", "user");
}

/*
 * One result: @ios I/Os of 4 KiB in 0.3 s, the I/Os' direction @op when
 * not 0, the samples' statistics with @stats.
 */
/*
 * Queue @i of @ios I/Os in 0.25 s (0.3 s for the last), bound to CPU 1
 * (queue 0) or unbound; with @stats its latencies' summary.
 */
static void io_put_queue(struct nl_msg *msg, uint32_t i, uint32_t n,
			 uint64_t ios, bool stats)
{
	const int pad = KVPERF_A_IO_QUEUE_PAD;
	struct nlattr *nest = nla_nest_start(msg, KVPERF_A_RESULT_QUEUE);

	nla_put_u32(msg, KVPERF_A_IO_QUEUE_INDEX, i);
	nla_put_s32(msg, KVPERF_A_IO_QUEUE_CPU, i ? -1 : 1);
	run_put_u64(msg, KVPERF_A_IO_QUEUE_ITERATIONS, pad, ios);
	run_put_u64(msg, KVPERF_A_IO_QUEUE_ELAPSED_NS, pad,
		    i + 1 == n ? 300000000 : 250000000);
	run_put_u64(msg, KVPERF_A_IO_QUEUE_MISMATCHES, pad, 0);
	run_put_u64(msg, KVPERF_A_IO_QUEUE_MEAN_PS, pad, 1100000000 + i);
	/* the queue's, both directions: 2 ms on the target, 5 ms a queue */
	run_put_u64(msg, KVPERF_A_IO_QUEUE_TARGET_CPU_NS, pad, 2000000);
	if (stats)
		run_put_u64(msg, KVPERF_A_IO_QUEUE_CPU_NS, pad,
			    5000000 * (i + 1));
	if (stats) {
		run_put_u64(msg, KVPERF_A_IO_QUEUE_MIN_NS, pad, 900000 + i);
		run_put_u64(msg, KVPERF_A_IO_QUEUE_P50_NS, pad, 1150000 + i);
		run_put_u64(msg, KVPERF_A_IO_QUEUE_P99_NS, pad, 2000000 + i);
		run_put_u64(msg, KVPERF_A_IO_QUEUE_MAX_NS, pad, 5123456 - i);
	}
	nla_nest_end(msg, nest);
}

/* How many queues io_msg()'s results have: each its equal part. */
static uint32_t io_nqueues;

/* the block size of the results io_put_result() puts */
static uint32_t io_bs = 4096;

static void io_put_result(struct nl_msg *msg, uint8_t op, uint64_t ios,
			  bool stats)
{
	const int pad = KVPERF_A_RESULT_PAD;
	struct nlattr *nest;
	uint32_t i;

	nest = nla_nest_start(msg, KVPERF_A_RUN_RESULT);
	nla_put_u32(msg, KVPERF_A_RESULT_SIZE, io_bs);
	if (op)
		nla_put_u8(msg, KVPERF_A_RESULT_OP, op);
	run_put_u64(msg, KVPERF_A_RESULT_ITERATIONS, pad, ios);
	run_put_u64(msg, KVPERF_A_RESULT_ELAPSED_NS, pad, 300000000);
	run_put_u64(msg, KVPERF_A_RESULT_MEAN_PS, pad, 1199876543);
	run_put_u64(msg, KVPERF_A_RESULT_MISMATCHES, pad, 0);
	if (stats) {
		run_put_u64(msg, KVPERF_A_RESULT_MIN_NS, pad, 900000);
		run_put_u64(msg, KVPERF_A_RESULT_MAX_NS, pad, 5123456);
		run_put_u64(msg, KVPERF_A_RESULT_STDEV_PS, pad, 210987654);
		run_put_u64(msg, KVPERF_A_RESULT_P50_NS, pad, 1150000);
		run_put_u64(msg, KVPERF_A_RESULT_P90_NS, pad, 1400000);
		run_put_u64(msg, KVPERF_A_RESULT_P99_NS, pad, 2000000);
		run_put_u64(msg, KVPERF_A_RESULT_P999_NS, pad, 5000000);
		run_put_u64(msg, KVPERF_A_RESULT_P9999_NS, pad, 5120000);
		nla_put_u32(msg, KVPERF_A_RESULT_HIST_REL_ERR_PPM, 3907);
		/* 25 us of each 1000 I/Os' registering, 2 us invalidating */
		run_put_u64(msg, KVPERF_A_RESULT_REG_NS, pad, 25000000);
		run_put_u64(msg, KVPERF_A_RESULT_INV_NS, pad, 2000000);
		/* the run's: 8.5 us per I/O on the host, 1000 I/Os in all */
		run_put_u64(msg, KVPERF_A_RESULT_CPU_NS, pad, 8500000);
	}
	/* the target's: 4.1 us per I/O */
	run_put_u64(msg, KVPERF_A_RESULT_TARGET_CPU_NS, pad, 4100000);
	for (i = 0; i < io_nqueues; i++)
		io_put_queue(msg, i, io_nqueues, ios / io_nqueues, stats);
	nla_nest_end(msg, nest);
}

/*
 * A done read run of 4 KiB blocks, qd 4, in 2 segments, as run-get says;
 * with @mixed, 70 % reads: 700 reads and 300 writes.
 */
static struct nl_msg *io_msg(bool stats, bool mixed)
{
	static const uint8_t addr[4] = { 198, 18, 0, 1 };
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_RUN_GET);

	nla_put_u32(msg, KVPERF_A_RUN_ID, 5);
	nla_put_u8(msg, KVPERF_A_RUN_TYPE, KVPERF_RUN_TYPE_IO);
	nla_put_u8(msg, KVPERF_A_RUN_OP, KVPERF_OP_READ);
	nla_put(msg, KVPERF_A_RUN_ADDR, sizeof(addr), addr);
	nla_put_u16(msg, KVPERF_A_RUN_PORT, 18515);
	nla_put_string(msg, KVPERF_A_RUN_DEV, "rxe0");
	nla_put_u32(msg, KVPERF_A_RUN_SIZE, 4096);
	nla_put_u32(msg, KVPERF_A_RUN_SIZE_MAX, 4096);
	nla_put_u32(msg, KVPERF_A_RUN_ITERATIONS, 1000);
	nla_put_u32(msg, KVPERF_A_RUN_WARMUP, 16);
	nla_put_u8(msg, KVPERF_A_RUN_POLL, KVPERF_POLL_BUSY);
	nla_put_u32(msg, KVPERF_A_RUN_TIMEOUT_MS, 5000);
	nla_put_u8(msg, KVPERF_A_RUN_STATE, KVPERF_RUN_STATE_DONE);
	nla_put_string(msg, KVPERF_A_RUN_KERNEL, "6.12.117+deb12-amd64");
	nla_put_u32(msg, KVPERF_A_RUN_MTU, 1024);
	run_put_u64(msg, KVPERF_A_RUN_PROGRESS, KVPERF_A_RUN_PAD, 1016);
	nla_put_u32(msg, KVPERF_A_RUN_QD, 4);
	nla_put_u8(msg, KVPERF_A_RUN_INV, KVPERF_IO_INV_REMOTE);
	nla_put_u32(msg, KVPERF_A_RUN_SEGMENTS, 2);
	nla_put_u8(msg, KVPERF_A_RUN_REG, KVPERF_IO_REG_FRWR);
	nla_put_u8(msg, KVPERF_A_RUN_STATS, stats ? KVPERF_STATS_MODE_ON :
						    KVPERF_STATS_MODE_OFF);
	if (mixed) {
		nla_put_u8(msg, KVPERF_A_RUN_READ_PCT, 70);
		io_put_result(msg, KVPERF_OP_READ, 700, stats);
		io_put_result(msg, KVPERF_OP_WRITE, 300, stats);
	} else {
		/* 1000 I/Os in 0.3 s: 3333.333 IOPS, 13.020 MiB/s */
		io_put_result(msg, 0, 1000, stats);
	}
	return msg;
}

static const char io_head[] =
	"# run 5: io read to 198.18.0.1:18515 dev rxe0, state done\n"
	"# path kernel, poll busy, mtu 1024, warmup 16, qd 4, inv remote, segments 2, reg frwr, kernel 6.12.117+deb12-amd64\n";

static void io_print_done(void)
{
	struct nl_msg *msg = io_msg(true, false);
	struct capture c, err;
	char want[1024];

	CHECK_INT(run_print_one(&c, false, false, msg, &err), 0);
	snprintf(want, sizeof(want), "%s%s", io_head,
		 " read: IOPS=3333.333, BW=13.020MiB/s (1000 I/Os of 4096 bytes in 300.000 ms)\n"
		 "  clat (usec): min=900.00, max=5123.46, avg=1199.877, stdev=210.988\n"
		 "  clat percentiles (usec): 50.00th=[1150.00], 90.00th=[1400.00], 99.00th=[2000.00], 99.90th=[5000.00], 99.99th=[5120.00]\n"
		 "  reg (usec): avg=25.00, 2.083% of clat; inv (usec): avg=2.00, 0.166% of clat\n"
		 "  cpu (usec/IO): host=8.50, target=4.10\n");
	CHECK_STR(c.buf, want);
	CHECK_STR(err.buf, "");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

static void io_print_json(void)
{
	struct nl_msg *msg = io_msg(true, false);
	struct capture c, err;

	CHECK_INT(run_print_one(&c, true, false, msg, &err), 0);
	CHECK_STR(err.buf, "");
	CHECK(strstr(c.buf, "\"iops\":3333.333,") != NULL);
	CHECK(strstr(c.buf, "\"mean_ns\":1199876.543,") != NULL);
	CHECK_JSON(c.buf,
		   "assert d['id'] == 5 and d['type'] == 'io'\n"
		   "assert d['op'] == 'read' and d['state'] == 'done'\n"
		   "assert d['qd'] == 4 and d['inv'] == 'remote'\n"
		   "assert d['reg'] == 'frwr'\n"
		   "assert d['segments'] == 2 and d['size'] == 4096\n"
		   "assert 'inline' not in d\n"
		   "r = d['results']\n"
		   "assert len(r) == 1\n"
		   "r = r[0]\n"
		   "assert r['rw'] == 'read'\n"
		   "assert r['iops'] == 3333.333 and r['mib_per_sec'] == 13.02\n"
		   "assert r['ios'] == 1000 and r['bs'] == 4096\n"
		   "assert r['elapsed_ns'] == 300000000\n"
		   "assert r['min_ns'] == 900000 and r['max_ns'] == 5123456\n"
		   "assert r['stdev_ns'] == 210987.654\n"
		   "assert r['p50_ns'] == 1150000 and r['p90_ns'] == 1400000\n"
		   "assert r['p99_ns'] == 2000000 and r['p999_ns'] == 5000000\n"
		   "assert r['p9999_ns'] == 5120000\n"
		   "assert r['hist_rel_err_ppm'] == 3907\n"
		   "assert r['reg_ns'] == 25000000 and r['reg_avg_ns'] == 25000\n"
		   "assert r['reg_pct'] == 2.083\n"
		   "assert r['inv_ns'] == 2000000 and r['inv_avg_ns'] == 2000\n"
		   "assert r['inv_pct'] == 0.166\n"
		   "assert r['cpu_ns'] == 8500000 and r['cpu_per_io_ns'] == 8500\n"
		   "assert r['target_cpu_ns'] == 4100000\n"
		   "assert r['target_cpu_per_io_ns'] == 4100\n"
		   "assert r['mismatches'] == 0\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

/* stats off: the mean alone, and no key that needs samples */
static void io_print_stats_off(void)
{
	struct nl_msg *msg = io_msg(false, false);
	struct capture c, err;

	CHECK_INT(run_print_one(&c, false, false, msg, &err), 0);
	CHECK(strstr(c.buf, "\n  clat (usec), stats off: avg=1199.877\n") !=
	      NULL);
	CHECK(strstr(c.buf, "percentiles") == NULL);
	CHECK(strstr(c.buf, "reg (usec)") == NULL);
	/* no host CPU without clocks, the target's as it reported it */
	CHECK(strstr(c.buf, "\n  cpu (usec/IO): target=4.10\n") != NULL);
	cap_close(&c);
	cap_close(&err);
	CHECK_INT(run_print_one(&c, true, false, msg, &err), 0);
	CHECK_JSON(c.buf,
		   "r = d['results'][0]\n"
		   "for k in ('min_ns', 'max_ns', 'stdev_ns', 'p50_ns',\n"
		   "          'hist_rel_err_ppm', 'reg_ns', 'inv_pct',\n"
		   "          'cpu_ns', 'cpu_per_io_ns'):\n"
		   "    assert k not in r, k\n"
		   "assert r['mean_ns'] == 1199876.543\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

/* a mixed run: a block per direction, each its I/Os over the run's time */
static void io_print_randmix(void)
{
	struct nl_msg *msg = io_msg(true, true);
	struct capture c, err;
	const char *w;

	CHECK_INT(run_print_one(&c, false, false, msg, &err), 0);
	CHECK(strstr(c.buf, ", segments 2, read-pct 70, reg frwr, kernel ") !=
	      NULL);
	w = strstr(c.buf, "\n write: IOPS=1000.000, BW=3.906MiB/s (300 I/Os of 4096 bytes in 300.000 ms)\n");
	CHECK(w != NULL);
	CHECK(strstr(c.buf, "\n read: IOPS=2333.333, BW=9.114MiB/s (700 I/Os of 4096 bytes in 300.000 ms)\n") <
	      w);
	CHECK_STR(err.buf, "");
	cap_close(&c);
	cap_close(&err);
	CHECK_INT(run_print_one(&c, true, false, msg, &err), 0);
	CHECK_JSON(c.buf,
		   "assert d['op'] == 'read' and d['read_pct'] == 70\n"
		   "r = d['results']\n"
		   "assert [x['rw'] for x in r] == ['read', 'write']\n"
		   "assert [x['ios'] for x in r] == [700, 300]\n"
		   "assert [x['iops'] for x in r] == [2333.333, 1000.0]\n"
		   "assert r[1]['p99_ns'] == 2000000\n"
		   "assert [x['cpu_per_io_ns'] for x in r] == [8500, 8500]\n"
		   "assert [x['target_cpu_per_io_ns'] for x in r] == [4100] * 2\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

/*
 * Two queues: a line under each block per queue, text and JSON; the
 * unbound one's CPU is "-" in text, -1 in JSON. One queue: no line in
 * text, its part in JSON.
 */
static void io_print_queues(void)
{
	struct capture c, err;
	struct nl_msg *msg;
	const char *w, *q;

	io_nqueues = 2;
	msg = io_msg(true, true);
	CHECK_INT(run_print_one(&c, false, false, msg, &err), 0);
	w = strstr(c.buf, "\n write: IOPS=");
	CHECK(w != NULL);
	q = strstr(c.buf, "\n  queue 0 (cpu 1): IOPS=1400.000, 350 I/Os in 250.000 ms, clat (usec): avg=1100.000, min=900.00, 50.00th=[1150.00], 99.00th=[2000.00], max=5123.46\n  queue 1 (cpu -): IOPS=1166.666, 350 I/Os in 300.000 ms, clat (usec): avg=1100.000, min=900.00, 50.00th=[1150.00], 99.00th=[2000.00], max=5123.46\n");
	CHECK(q != NULL && q < w);
	CHECK(w && strstr(w, "\n  queue 1 (cpu -): IOPS=500.000, 150 I/Os in 300.000 ms,") != NULL);
	CHECK_STR(err.buf, "");
	cap_close(&c);
	cap_close(&err);
	CHECK_INT(run_print_one(&c, true, false, msg, &err), 0);
	CHECK_JSON(c.buf,
		   "q = [x['queues'] for x in d['results']]\n"
		   "assert [[y['ios'] for y in x] for x in q] == [[350, 350], [150, 150]]\n"
		   "y = q[0][1]\n"
		   "assert y['index'] == 1 and y['cpu'] == -1\n"
		   "assert y['iops'] == 1166.666 and y['elapsed_ns'] == 300000000\n"
		   "assert y['mean_ns'] == 1100000.001 and y['min_ns'] == 900001\n"
		   "assert y['p50_ns'] == 1150001 and y['p99_ns'] == 2000001\n"
		   "assert y['max_ns'] == 5123455 and y['mismatches'] == 0\n"
		   "assert q[0][0]['cpu'] == 1\n"
		   "# per I/O over the queue's reads and writes: 500 each\n"
		   "assert [[y['cpu_per_io_ns'] for y in x] for x in q] == [[10000, 20000]] * 2\n"
		   "assert [[y['cpu_ns'] for y in x] for x in q] == [[5000000, 10000000]] * 2\n"
		   "assert {y['target_cpu_per_io_ns'] for x in q for y in x} == {4000}\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);

	io_nqueues = 1;
	msg = io_msg(false, false);
	CHECK_INT(run_print_one(&c, false, false, msg, &err), 0);
	CHECK(strstr(c.buf, "queue") == NULL);
	cap_close(&c);
	cap_close(&err);
	CHECK_INT(run_print_one(&c, true, false, msg, &err), 0);
	CHECK_JSON(c.buf,
		   "y = d['results'][0]['queues']\n"
		   "assert len(y) == 1 and y[0]['ios'] == 1000\n"
		   "assert y[0]['mean_ns'] == 1100000.0 and 'p50_ns' not in y[0]\n"
		   "assert 'cpu_ns' not in y[0] and y[0]['target_cpu_per_io_ns'] == 2000\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
	io_nqueues = 0;
}

static void io_parse_queues(void)
{
	RUN_OK(IO, "type=2 op=2 addr=198.18.0.1 port=18515 qps=4 cpus=\"0-1\"",
	       "addr", "198.18.0.1", "queues", "4", "cpus", "0-1");
	RUN_ERR(IO, "queues '17' is out of range (1 to 16)", "addr",
		"198.18.0.1", "queues", "17");
	RUN_ERR(IO, "cpu and cpus exclude each other", "addr", "198.18.0.1",
		"queues", "2", "cpu", "0", "cpus", "0-1");
	RUN_ERR(BW, "'queues' is only for run io", "op", "send", "addr",
		"198.18.0.1", "queues", "2");
}

/* bss: lists and ranges of powers of two, one sweep attribute */
static void io_parse_bss(void)
{
	/* 512 + 4K + 8K + 16K + 1M */
	RUN_OK(IO, "type=2 op=2 addr=198.18.0.1 port=18515 bss=1077760",
	       "addr", "198.18.0.1", "bss", "512,4K-16K,1M");
	RUN_OK(IO, "type=2 op=1 addr=198.18.0.1 port=18515 segments=4 bss=2048",
	       "addr", "198.18.0.1", "rw", "write", "bss", "2K", "segments",
	       "4");
	RUN_ERR(IO, "bs and bss exclude each other", "addr", "198.18.0.1",
		"bs", "4K", "bss", "4K");
	RUN_ERR(IO, "invalid bss '4K,3K' (powers of two from 512 to 1M: a list such as 512,4K,1M, or a range such as 4K-64K)",
		"addr", "198.18.0.1", "bss", "4K,3K");
	RUN_ERR(IO, "invalid bss '256' (powers of two from 512 to 1M: a list such as 512,4K,1M, or a range such as 4K-64K)",
		"addr", "198.18.0.1", "bss", "256");
	RUN_ERR(IO, "invalid bss '4K,,8K' (powers of two from 512 to 1M: a list such as 512,4K,1M, or a range such as 4K-64K)",
		"addr", "198.18.0.1", "bss", "4K,,8K");
	RUN_ERR(IO, "bss '64K-4K': a range's first size is larger than its last",
		"addr", "198.18.0.1", "bss", "64K-4K");
	/* the smallest block must split into the segments */
	RUN_ERR(IO, "the block does not split into that many segments of whole 512-byte units",
		"addr", "198.18.0.1", "bss", "1K,1M", "segments", "4");
	RUN_ERR(LAT, "'bss' is only for run io", "op", "send", "addr",
		"198.18.0.1", "bss", "4K");
}

/*
 * A sweep of 4 KiB and 1 MiB: the header lists it, a block per size,
 * each size's CPU per I/O over its own I/Os.
 */
static void io_print_bss(void)
{
	struct nl_msg *msg = io_msg(true, false);
	struct capture c, err;
	const char *a, *b;

	nla_put_u32(msg, KVPERF_A_RUN_BSS, 4096 | 1048576);
	io_bs = 1048576;
	io_put_result(msg, 0, 500, true);
	io_bs = 4096;
	CHECK_INT(run_print_one(&c, false, false, msg, &err), 0);
	CHECK(strstr(c.buf, ", reg frwr, bss 4K,1M, kernel ") != NULL);
	a = strstr(c.buf, "\n read: IOPS=3333.333, BW=13.020MiB/s (1000 I/Os of 4096 bytes in 300.000 ms)\n");
	b = strstr(c.buf, "\n read: IOPS=1666.666, BW=1666.666MiB/s (500 I/Os of 1048576 bytes in 300.000 ms)\n");
	CHECK(a != NULL && b != NULL && a < b);
	CHECK(a && strstr(a, "  cpu (usec/IO): host=8.50, target=4.10\n") < b);
	CHECK(b && strstr(b, "  cpu (usec/IO): host=17.00, target=8.20\n"));
	CHECK_STR(err.buf, "");
	cap_close(&c);
	cap_close(&err);
	CHECK_INT(run_print_one(&c, true, false, msg, &err), 0);
	CHECK_JSON(c.buf,
		   "assert d['bss'] == [4096, 1048576]\n"
		   "r = d['results']\n"
		   "assert [x['bs'] for x in r] == [4096, 1048576]\n"
		   "assert [x['ios'] for x in r] == [1000, 500]\n"
		   "assert [x['cpu_per_io_ns'] for x in r] == [8500, 17000]\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

static void io_live_line(void)
{
	struct kv_run ev = { 0 };
	struct capture c;

	KV_SET(&ev, KVPERF_A_RUN_INTERVAL_MESSAGES);
	KV_SET(&ev, KVPERF_A_RUN_INTERVAL_BYTES);
	KV_SET(&ev, KVPERF_A_RUN_INTERVAL_NS);
	/* 2000 I/Os of 4 KiB in 0.5 s */
	ev.interval_messages = 2000;
	ev.interval_bytes = 2000 * 4096;
	ev.interval_ns = 500000000;
	run_print_io_live(cap_open(&c), &ev, 2000, "write", false);
	CHECK_STR(cap_str(&c),
		  "  [   2.0 s] write: IOPS=4000.000, BW=15.625MiB/s\n");
	cap_close(&c);
	/* a sweep's line says its block size */
	KV_SET(&ev, KVPERF_A_RUN_CUR_SIZE);
	ev.cur_size = 4096;
	run_print_io_live(cap_open(&c), &ev, 2000, "write", true);
	CHECK_STR(cap_str(&c),
		  "  [   2.0 s] write: IOPS=4000.000, BW=15.625MiB/s (bs 4096)\n");
	cap_close(&c);
	/* an event without an interval prints nothing */
	ev.has = 0;
	run_print_io_live(cap_open(&c), &ev, 3000, "write", true);
	CHECK_STR(cap_str(&c), "");
	cap_close(&c);
}

const struct unit_test unit_tests[] = {
	UNIT(io_parse_minimal),
	UNIT(io_parse_every_keyword),
	UNIT(io_parse_randmix),
	UNIT(io_parse_interval),
	UNIT(io_parse_reg),
	UNIT(io_keywords_refused),
	UNIT(io_print_done),
	UNIT(io_print_json),
	UNIT(io_print_stats_off),
	UNIT(io_print_randmix),
	UNIT(io_print_queues),
	UNIT(io_parse_queues),
	UNIT(io_parse_bss),
	UNIT(io_print_bss),
	UNIT(io_live_line),
	{ NULL },
};
