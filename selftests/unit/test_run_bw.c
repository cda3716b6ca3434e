// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of bandwidth runs (user/cli/run.c, user/cli/run_bw_print.c): command
 * lines of "run bw", and the time form of warmup that "run lat" has too,
 * turned into KVPERF_CMD_RUN_START requests or usage errors; bandwidth
 * replies built here as the kernel sends them, printed as perftest's table
 * (per size, per queue pair, per direction, in MiB/s or Gb/s) and as JSON;
 * the live line of each interval and where it goes while "run bw" waits.
 */
#include <errno.h>
#include <string.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "attrs.h"
#include "kvperf.h"
#include "print.h"
#include "run.h"
#include "run_bw_print.h"
#include "run_kernel.h"
#include "run_model.h"
#include "run_print.h"
#include "run_test.h"
#include "unit.h"

#define LAT	KVPERF_RUN_TYPE_LAT
#define BW	KVPERF_RUN_TYPE_BW

#define BW_OK(want, ...)	RUN_OK(BW, want, __VA_ARGS__)
#define BW_ERR(want, ...)	RUN_ERR(BW, want, __VA_ARGS__)

/* ---- the command line ---- */

static void bw_parse_minimal(void)
{
	struct run_cmdline l;

	RUN_CMDLINE(&l, BW, "op", "send", "addr", "198.18.0.1");
	CHECK_INT(l.ret, KVPERF_EXIT_OK);
	CHECK_STR(l.err, "");
	/* the kernel's defaults apply to everything else */
	CHECK_STR(l.req, "type=1 op=0 addr=198.18.0.1 port=18515");
	CHECK_INT(l.o.cfg.type, BW);
	CHECK(!run_opt(&l.o, RUN_KW_GBITS));

	BW_OK("type=1 op=2 addr=fd00::1 port=18515", "op", "read",
	      "addr", "fd00::1");
}

static void bw_parse_every_keyword(void)
{
	struct run_cmdline l;

	RUN_CMDLINE(&l, BW, "op", "write", "addr", "fd00::1", "port", "20000",
		    "size", "64K", "iters", "5000", "warmup", "100",
		    "poll", "softirq", "inline", "64", "verify",
		    "timeout", "100ms", "tx-depth", "256", "qps", "4",
		    "cpus", "0-3,6", "post-list", "8", "signal-every", "32",
		    "bidir", "interval", "0.5", "gbits", "no-wait");
	CHECK_INT(l.ret, KVPERF_EXIT_OK);
	CHECK_STR(l.err, "");
	CHECK_STR(l.req, "type=1 op=1 addr=fd00::1 port=20000 size=65536 "
		  "iterations=5000 warmup=100 poll=1 inline=64 verify "
		  "timeout-ms=100 tx-depth=256 qps=4 cpus=\"0-3,6\" "
		  "post-list=8 signal-every=32 bidir interval-ms=500");
	/* gbits is the tool's: nothing in the request */
	CHECK(run_opt(&l.o, RUN_KW_GBITS));
	CHECK(run_opt(&l.o, RUN_KW_NO_WAIT));
	CHECK_U64(l.o.cfg.tx_depth, 256);
	CHECK_U64(l.o.cfg.qps, 4);
	CHECK_STR(l.o.cfg.cpus, "0-3,6");
	CHECK_U64(l.o.cfg.post_list, 8);
	CHECK_U64(l.o.cfg.signal_every, 32);
	CHECK_U64(l.o.cfg.interval_ms, 500);

	/* a sweep, by time, warming up by time */
	/* cpu and cpus exclude each other, on either path */
	BW_ERR("cpu and cpus exclude each other", "op", "send", "addr", "::1",
	       "cpu", "3", "cpus", "0-3", "qps", "4");
	BW_OK("type=1 op=0 addr=10.0.0.1 port=18515 size=2 size-max=8388608 "
	      "duration-ms=2000 warmup-ms=2000",
	      "op", "send", "addr", "10.0.0.1", "sizes", "all", "time", "2",
	      "warmup", "2s");
}

/* The new keywords by their shortest prefix; the old ones keep theirs. */
static void bw_parse_abbreviations(void)
{
	BW_OK("type=1 op=0 addr=1.2.3.4 port=18515 tx-depth=9",
	      "o", "send", "a", "1.2.3.4", "tx", "9");
	BW_OK("type=1 op=0 addr=1.2.3.4 port=18515 qps=2",
	      "o", "send", "a", "1.2.3.4", "q", "2");
	BW_OK("type=1 op=0 addr=1.2.3.4 port=18515 post-list=2",
	      "o", "send", "a", "1.2.3.4", "pos", "2");
	BW_OK("type=1 op=0 addr=1.2.3.4 port=18515 signal-every=2",
	      "o", "send", "a", "1.2.3.4", "sig", "2");
	BW_OK("type=1 op=0 addr=1.2.3.4 port=18515 interval-ms=20",
	      "o", "send", "a", "1.2.3.4", "int", "20ms");
	BW_OK("type=1 op=0 addr=1.2.3.4 port=18515 bidir",
	      "o", "send", "a", "1.2.3.4", "b");
	BW_OK("type=1 op=0 addr=1.2.3.4 port=18515",
	      "o", "send", "a", "1.2.3.4", "g");
	/* cpus only whole, cpu and its prefixes stay cpu */
	BW_OK("type=1 op=0 addr=1.2.3.4 port=18515 cpus=\"1\"",
	      "o", "send", "a", "1.2.3.4", "cpus", "1");
	BW_OK("type=1 op=0 addr=1.2.3.4 port=18515 cpu=1",
	      "o", "send", "a", "1.2.3.4", "c", "1");
	BW_OK("type=1 op=0 addr=1.2.3.4 port=7 size=1 inline=1",
	      "o", "send", "a", "1.2.3.4", "in", "1", "si", "1", "p", "7");
	BW_OK("type=1 op=0 addr=1.2.3.4 port=18515 poll=0 timeout-ms=10",
	      "o", "send", "a", "1.2.3.4", "pol", "busy", "timeo", "10ms");
}

/* The spec's ranges, checked here with the keyword and range named. */
static void bw_parse_ranges(void)
{
	BW_OK("type=1 op=0 addr=1.2.3.4 port=18515 tx-depth=1 qps=1 "
	      "post-list=1 signal-every=1 interval-ms=10",
	      "o", "send", "a", "1.2.3.4", "tx-depth", "1", "qps", "1",
	      "post-list", "1", "signal-every", "1", "interval", "10ms");
	BW_OK("type=1 op=0 addr=1.2.3.4 port=18515 tx-depth=4096 qps=16 "
	      "post-list=64 signal-every=4096 interval-ms=60000",
	      "o", "send", "a", "1.2.3.4", "tx-depth", "4096", "qps", "16",
	      "post-list", "64", "signal-every", "4096", "interval", "60");
	BW_OK("type=1 op=0 addr=1.2.3.4 port=18515 qps=16",
	      "o", "send", "a", "1.2.3.4", "qps", "0x10");

	BW_ERR("tx-depth '0' is out of range (1 to 4096)", "tx-depth", "0");
	BW_ERR("tx-depth '4097' is out of range (1 to 4096)",
	       "tx-depth", "4097");
	BW_ERR("qps '0' is out of range (1 to 16)", "qps", "0");
	BW_ERR("qps '17' is out of range (1 to 16)", "qps", "17");
	BW_ERR("qps '4294967296' is out of range (1 to 16)",
	       "qps", "4294967296");
	BW_ERR("post-list '0' is out of range (1 to 64)", "post-list", "0");
	BW_ERR("post-list '65' is out of range (1 to 64)", "post-list", "65");
	BW_ERR("signal-every '0' is out of range (1 to 4096)",
	       "signal-every", "0");
	BW_ERR("signal-every '4097' is out of range (1 to 4096)",
	       "signal-every", "4097");
	BW_ERR("interval '9ms' is out of range (10ms to 60s)", "interval",
	       "9ms");
	BW_ERR("interval '60001ms' is out of range (10ms to 60s)",
	       "interval", "60001ms");
	BW_ERR("interval '61' is out of range (10ms to 60s): a number without a unit is seconds; for milliseconds write 61ms",
	       "interval", "61");
	BW_ERR("invalid tx-depth 'deep' (a number)", "tx-depth", "deep");
	BW_ERR("invalid qps '-1' (a number)", "qps", "-1");
	BW_ERR("invalid interval '1x' (a time such as 10, 0.5, 2s or 500ms; no unit is seconds)",
	       "interval", "1x");
	BW_ERR("invalid signal-every '' (a number)", "signal-every", "");
	BW_ERR("missing value after 'qps'", "op", "send", "qps");
	BW_ERR("missing value after 'cpus'", "cpus");
	BW_ERR("'bidir' given twice", "bidir", "b");
	BW_ERR("'qps' given twice", "qps", "2", "q", "3");
	BW_ERR("iters and time exclude each other",
	       "o", "send", "a", "1.2.3.4", "iters", "5", "time", "1");
	BW_ERR("missing op (send, write or read)", "addr", "1.2.3.4", "bidir");
	BW_ERR("missing addr", "op", "write", "gbits");
}

static void bw_parse_cpus(void)
{
	static const char *const good[] = {
		"0", "7", "0-3", "0-3,6", "12,3", "0-0", "1,2,3", "0-1,4-5,8",
		"007", "99999999999999999999999",
	};
	static const char *const bad[] = {
		"", "a", "0-", "-1", "3-1", "0,,1", "0,", ",0", "0-3-5", " 1",
		"0x1", "1 2", "1;2", "0-3,", "all", "+1", "1-+2",
	};
	char list[300];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++)
		if (!run_cpus_valid(good[i]))
			unit_fail(__FILE__, __LINE__, "cpus '%s' refused",
				  good[i]);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (run_cpus_valid(bad[i]))
			unit_fail(__FILE__, __LINE__, "cpus '%s' accepted",
				  bad[i]);

	BW_ERR("invalid cpus '3-1' (CPU numbers and ranges such as 0-3,6)",
	       "cpus", "3-1");
	BW_ERR("invalid cpus '' (CPU numbers and ranges such as 0-3,6)",
	       "cpus", "");
	BW_ERR("invalid cpus '0,,2' (CPU numbers and ranges such as 0-3,6)",
	       "cpus", "0,,2");
	BW_ERR("invalid cpus 'all' (CPU numbers and ranges such as 0-3,6)",
	       "cpus", "all");

	/* the spec's 255 characters, and one more */
	memset(list, '0', 255);
	list[255] = '\0';
	BW_OK("type=1 op=0 addr=1.2.3.4 port=18515 cpus=\"000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\"",
	      "o", "send", "a", "1.2.3.4", "cpus", list);
	strcat(list, "0");
	BW_ERR("cpus is too long (at most 255 characters)", "cpus", list);
}

/* warmup N is a count; with a unit, a time: warmup-ms, lat and bw. */
static void bw_parse_warmup(void)
{
	RUN_OK(LAT, "type=0 op=0 addr=1.2.3.4 port=18515 warmup-ms=500",
	       "o", "send", "a", "1.2.3.4", "warmup", "500ms");
	RUN_OK(LAT, "type=0 op=0 addr=1.2.3.4 port=18515 warmup-ms=2000",
	       "o", "send", "a", "1.2.3.4", "warmup", "2s");
	RUN_OK(LAT, "type=0 op=0 addr=1.2.3.4 port=18515 warmup=100",
	       "o", "send", "a", "1.2.3.4", "warmup", "100");
	BW_OK("type=1 op=0 addr=1.2.3.4 port=18515 warmup-ms=500",
	      "o", "send", "a", "1.2.3.4", "wa", "0.5s");
	BW_OK("type=1 op=0 addr=1.2.3.4 port=18515 warmup-ms=1",
	      "o", "send", "a", "1.2.3.4", "warmup", "1ms");
	BW_OK("type=1 op=0 addr=1.2.3.4 port=18515 warmup-ms=600000",
	      "o", "send", "a", "1.2.3.4", "warmup", "600s");
	BW_OK("type=1 op=0 addr=1.2.3.4 port=18515 warmup-ms=600000",
	      "o", "send", "a", "1.2.3.4", "warmup", "600000ms");
	BW_OK("type=1 op=0 addr=1.2.3.4 port=18515 warmup=0",
	      "o", "send", "a", "1.2.3.4", "warmup", "0");

	RUN_ERR(LAT, "warmup '0ms' is out of range (1ms to 600s)",
		"warmup", "0ms");
	BW_ERR("warmup '0s' is out of range (1ms to 600s)", "warmup", "0s");
	BW_ERR("warmup '600001ms' is out of range (1ms to 600s)",
	       "warmup", "600001ms");
	BW_ERR("warmup '600.001s' is out of range (1ms to 600s)",
	       "warmup", "600.001s");
	BW_ERR("warmup '99999999999999999999ms' is out of range (1ms to 600s)",
	       "warmup", "99999999999999999999ms");
	BW_ERR("warmup '4294967296' is out of range (0 to 1000000)", "warmup",
	       "4294967296");
	BW_ERR("invalid warmup '1.0005s' (a count, or a time such as 2s or 500ms)",
	       "warmup", "1.0005s");
	BW_ERR("invalid warmup 'ms' (a count, or a time such as 2s or 500ms)",
	       "warmup", "ms");
	BW_ERR("invalid warmup 's' (a count, or a time such as 2s or 500ms)",
	       "warmup", "s");
	BW_ERR("invalid warmup '2m' (a count, or a time such as 2s or 500ms)",
	       "warmup", "2m");
	BW_ERR("invalid warmup '-1s' (a count, or a time such as 2s or 500ms)",
	       "warmup", "-1s");
	BW_ERR("invalid warmup '1.5ms' (a count, or a time such as 2s or 500ms)",
	       "warmup", "1.5ms");
	BW_ERR("invalid warmup '0x10ms' (a count, or a time such as 2s or 500ms)",
	       "warmup", "0x10ms");
	BW_ERR("invalid warmup '2 s' (a count, or a time such as 2s or 500ms)",
	       "warmup", "2 s");

}

/* What only bandwidth runs take is a usage error of run lat. */
static void bw_keywords_not_for_lat(void)
{
	RUN_ERR(LAT, "'tx-depth' does not apply to run lat", "tx-depth", "64");
	RUN_ERR(LAT, "'qps' does not apply to run lat",
		"op", "send", "addr", "1.2.3.4", "qps", "2");
	RUN_ERR(LAT, "'qps' does not apply to run lat", "q", "2");
	RUN_ERR(LAT, "'cpus' does not apply to run lat", "cpus", "0-3");
	RUN_ERR(LAT, "'post-list' does not apply to run lat", "post-list", "2");
	RUN_ERR(LAT, "'signal-every' does not apply to run lat",
		"signal-every", "2");
	RUN_ERR(LAT, "'bidir' does not apply to run lat", "bidir");
	RUN_ERR(LAT, "'interval' does not apply to run lat", "interval", "100");
	RUN_ERR(LAT, "'gbits' does not apply to run lat", "gbits");
	/* even without its value */
	RUN_ERR(LAT, "'interval' does not apply to run lat", "inte");
}

/* ---- printing ---- */

struct bw_res {
	uint32_t size;
	uint64_t messages, bytes, elapsed, peak_bps, cpu_ns, mismatches;
	uint64_t peer_messages, rx_messages, rx_bytes, rx_elapsed;
	/* which of the optional ones the kernel sends */
	bool peak, cpu, verify, peer, rx;
};

struct bw_qp {
	uint32_t index;
	int32_t cpu;
	uint64_t messages, bytes, elapsed, peer_messages;
};

static void put_qp(struct nl_msg *msg, const struct bw_qp *q)
{
	struct nlattr *nest = nla_nest_start(msg, KVPERF_A_BW_RESULT_QP);
	const int pad = KVPERF_A_BW_QP_PAD;

	nla_put_u32(msg, KVPERF_A_BW_QP_INDEX, q->index);
	nla_put_s32(msg, KVPERF_A_BW_QP_CPU, q->cpu);
	run_put_u64(msg, KVPERF_A_BW_QP_MESSAGES, pad, q->messages);
	run_put_u64(msg, KVPERF_A_BW_QP_BYTES, pad, q->bytes);
	run_put_u64(msg, KVPERF_A_BW_QP_ELAPSED_NS, pad, q->elapsed);
	run_put_u64(msg, KVPERF_A_BW_QP_PEER_MESSAGES, pad, q->peer_messages);
	nla_nest_end(msg, nest);
}

/* A bw-result nest, with @n queue pairs in it. */
static void put_bw_result(struct nl_msg *msg, const struct bw_res *r,
			  const struct bw_qp *qps, size_t n)
{
	struct nlattr *nest = nla_nest_start(msg, KVPERF_A_RUN_BW_RESULT);
	const int pad = KVPERF_A_BW_RESULT_PAD;
	size_t i;

	nla_put_u32(msg, KVPERF_A_BW_RESULT_SIZE, r->size);
	run_put_u64(msg, KVPERF_A_BW_RESULT_MESSAGES, pad, r->messages);
	run_put_u64(msg, KVPERF_A_BW_RESULT_BYTES, pad, r->bytes);
	run_put_u64(msg, KVPERF_A_BW_RESULT_ELAPSED_NS, pad, r->elapsed);
	if (r->peak)
		run_put_u64(msg, KVPERF_A_BW_RESULT_PEAK_BPS, pad,
			    r->peak_bps);
	if (r->cpu)
		run_put_u64(msg, KVPERF_A_BW_RESULT_CPU_NS, pad, r->cpu_ns);
	if (r->verify)
		run_put_u64(msg, KVPERF_A_BW_RESULT_MISMATCHES, pad,
			    r->mismatches);
	if (r->peer)
		run_put_u64(msg, KVPERF_A_BW_RESULT_PEER_MESSAGES, pad,
			    r->peer_messages);
	if (r->rx) {
		run_put_u64(msg, KVPERF_A_BW_RESULT_RX_MESSAGES, pad,
			    r->rx_messages);
		run_put_u64(msg, KVPERF_A_BW_RESULT_RX_BYTES, pad,
			    r->rx_bytes);
		run_put_u64(msg, KVPERF_A_BW_RESULT_RX_ELAPSED_NS, pad,
			    r->rx_elapsed);
	}
	for (i = 0; i < n; i++)
		put_qp(msg, &qps[i]);
	nla_nest_end(msg, nest);
}

/* A bandwidth run of writes, as run-get replies with it. */
static struct nl_msg *bw_msg(uint8_t cmd, uint32_t id, uint8_t state,
			     uint32_t qps)
{
	struct nl_msg *msg = run_type_msg(cmd, id, KVPERF_RUN_TYPE_BW,
					  KVPERF_OP_WRITE, state);

	nla_put_u32(msg, KVPERF_A_RUN_TX_DEPTH, 128);
	nla_put_u32(msg, KVPERF_A_RUN_QPS, qps);
	nla_put_u32(msg, KVPERF_A_RUN_POST_LIST, 1);
	nla_put_u32(msg, KVPERF_A_RUN_SIGNAL_EVERY, 100);
	run_put_u64(msg, KVPERF_A_RUN_BYTES, KVPERF_A_RUN_PAD, 65536000);
	return msg;
}

/* 64 KiB, 1000 messages in 1 s: 62.50 MiB/s, 0.001 Mpps, 25% CPU */
static const struct bw_res res64k = {
	.size = 65536, .messages = 1000, .bytes = 65536000,
	.elapsed = 1000000000, .peak_bps = 73400320, .cpu_ns = 250000000,
	.peer_messages = 1000, .peak = true, .cpu = true, .peer = true,
};

static const struct bw_qp qp64k = {
	.index = 0, .cpu = 2, .messages = 1000, .bytes = 65536000,
	.elapsed = 1000000000, .peer_messages = 1000,
};

static const char bw_head[] =
	"# run 3: bw write to 198.18.0.1:18515 dev rxe0, state done\n"
	"# path kernel, poll busy, inline 0, mtu 1024, warmup 16, qps 1, tx-depth 128, post-list 1, signal-every 100, kernel 6.1.0-56-amd64\n";

static const char bw_header_mib[] =
	" #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]   CPU[%]   CPU[ns/msg]\n";

static void bw_print_done(void)
{
	struct nl_msg *msg = bw_msg(KVPERF_CMD_RUN_GET, 3,
				    KVPERF_RUN_STATE_DONE, 1);
	struct capture c, err;
	char want[1024];

	put_bw_result(msg, &res64k, &qp64k, 1);
	CHECK_INT(run_print_one(&c, false, false, msg, &err), 0);
	/* one queue pair: no line of its own */
	snprintf(want, sizeof(want), "%s%s%s", bw_head, bw_header_mib,
		 " 65536      1000           70.00               62.50                 0.001000        25.00    250000.00\n");
	CHECK_STR(c.buf, want);
	CHECK_STR(err.buf, "");
	cap_close(&c);
	cap_close(&err);

	/* the same in Gb/s: 65536000 B/s is 0.524288 Gb/s */
	CHECK_INT(run_print_one(&c, false, true, msg, &err), 0);
	snprintf(want, sizeof(want), "%s%s%s", bw_head,
		 " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]   CPU[%]   CPU[ns/msg]\n",
		 " 65536      1000           0.59               0.52                 0.001000        25.00    250000.00\n");
	CHECK_STR(c.buf, want);
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

static void bw_print_json(void)
{
	struct nl_msg *msg = bw_msg(KVPERF_CMD_RUN_GET, 3,
				    KVPERF_RUN_STATE_DONE, 1);
	struct capture c, err, g;

	put_bw_result(msg, &res64k, &qp64k, 1);
	CHECK_INT(run_print_one(&c, true, false, msg, &err), 0);
	CHECK_STR(err.buf, "");
	CHECK(strstr(c.buf, "\"bw_avg_mibps\":62.50,") != NULL);
	CHECK_JSON(c.buf,
		   "assert d['id'] == 3 and d['type'] == 'bw'\n"
		   "assert d['op'] == 'write' and d['state'] == 'done'\n"
		   "assert d['verify'] is False and d['bidir'] is False\n"
		   "assert d['qps'] == 1 and d['tx_depth'] == 128\n"
		   "assert d['post_list'] == 1 and d['signal_every'] == 100\n"
		   "assert d['bytes'] == 65536000 and d['progress'] == 10016\n"
		   "assert d['size'] == 64 and d['iterations'] == 10000\n"
		   "for k in ('cpus', 'interval_ms', 'warmup_ms', 'error'):\n"
		   "    assert k not in d, k\n"
		   "r = d['results']\n"
		   "assert len(r) == 1\n"
		   "r = r[0]\n"
		   "assert r['size'] == 65536 and r['messages'] == 1000\n"
		   "assert r['bytes'] == 65536000\n"
		   "assert r['elapsed_ns'] == 1000000000\n"
		   "assert r['peak_bps'] == 73400320\n"
		   "assert r['cpu_ns'] == 250000000\n"
		   "assert r['peer_messages'] == 1000\n"
		   "assert 'mismatches' not in r and 'rx_bytes' not in r\n"
		   "assert r['bw_avg_mibps'] == 62.5\n"
		   "assert r['bw_peak_mibps'] == 70.0\n"
		   "assert r['msg_rate_mpps'] == 0.001\n"
		   "assert r['cpu_percent'] == 25.0\n"
		   "assert r['cpu_ns_per_msg'] == 250000.0\n"
		   "q = r['qps']\n"
		   "assert len(q) == 1\n"
		   "assert q[0] == {'index': 0, 'cpu': 2, 'messages': 1000,\n"
		   "                'bytes': 65536000,\n"
		   "                'elapsed_ns': 1000000000,\n"
		   "                'peer_messages': 1000,\n"
		   "                'bw_avg_mibps': 62.5,\n"
		   "                'msg_rate_mpps': 0.001}, q[0]\n");

	/* JSON keeps MiB/s with gbits */
	CHECK_INT(run_print_one(&g, true, true, msg, &err), 0);
	CHECK_STR(g.buf, c.buf);
	cap_close(&g);
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

/* Two queue pairs, two sizes, verify: per-QP lines, mismatches. */
static void bw_print_qps_verify(void)
{
	static const struct bw_res rows[] = {
		{ .size = 4096, .messages = 2000, .bytes = 8192000,
		  .elapsed = 400000000, .peak_bps = 20971520,
		  .cpu_ns = 800000000, .peak = true, .cpu = true,
		  .verify = true },
		{ .size = 8192, .messages = 2000, .bytes = 16384000,
		  .elapsed = 400000000, .mismatches = 3, .verify = true },
	};
	static const struct bw_qp qps[] = {
		{ .index = 0, .cpu = 0, .messages = 1000, .bytes = 4096000,
		  .elapsed = 400000000 },
		{ .index = 1, .cpu = -1, .messages = 1000, .bytes = 4096000,
		  .elapsed = 390000000 },
	};
	struct nl_msg *msg = bw_msg(KVPERF_CMD_RUN_FINISHED_NTF, 5,
				    KVPERF_RUN_STATE_DONE, 2);
	struct capture c, err;

	nla_put_flag(msg, KVPERF_A_RUN_VERIFY);
	nla_put_string(msg, KVPERF_A_RUN_CPUS, "0-1");
	nla_put_u32(msg, KVPERF_A_RUN_INTERVAL_MS, 500);
	nla_put_u32(msg, KVPERF_A_RUN_WARMUP_MS, 250);
	put_bw_result(msg, &rows[0], qps, 2);
	put_bw_result(msg, &rows[1], NULL, 0);

	CHECK_INT(run_print_one(&c, false, false, msg, &err), 0);
	CHECK_STR(c.buf,
		  "# run 5: bw write to 198.18.0.1:18515 dev rxe0, verify, state done\n"
		  "# path kernel, poll busy, inline 0, mtu 1024, warmup 250 ms, cpus 0-1, qps 2, tx-depth 128, post-list 1, signal-every 100, interval 500 ms, kernel 6.1.0-56-amd64\n"
		  " #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]   CPU[%]   CPU[ns/msg]   mismatches\n"
		  " 4096       1000           20.00               19.53                 0.005000        200.00   400000.00     0\n"
		  "  qp 0 (cpu 0): 1000 messages, 4096000 bytes, 9.77 MiB/s, 0.002500 Mpps\n"
		  "  qp 1 (cpu -): 1000 messages, 4096000 bytes, 10.02 MiB/s, 0.002564 Mpps\n"
		  " 8192       1000           -                   39.06                 0.005000        -        -             3\n");
	CHECK_STR(err.buf, "");
	cap_close(&c);

	CHECK_INT(run_print_one(&c, true, false, msg, &err), 0);
	CHECK_JSON(c.buf,
		   "assert d['verify'] is True and d['cpus'] == '0-1'\n"
		   "assert d['interval_ms'] == 500 and d['warmup_ms'] == 250\n"
		   "assert d['warmup'] == 16 and d['qps'] == 2\n"
		   "r = d['results']\n"
		   "assert [x['size'] for x in r] == [4096, 8192]\n"
		   "assert r[0]['cpu_percent'] == 200.0\n"
		   "assert r[0]['bw_avg_mibps'] == 19.53\n"
		   "assert r[0]['mismatches'] == 0\n"
		   "assert r[1]['mismatches'] == 3\n"
		   "assert 'bw_peak_mibps' not in r[1]\n"
		   "assert 'cpu_percent' not in r[1]\n"
		   "assert [q['cpu'] for q in r[0]['qps']] == [0, -1]\n"
		   "assert r[0]['qps'][1]['bw_avg_mibps'] == 10.02\n"
		   "assert r[1]['qps'] == []\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

/* bidir: a row per direction and their total, labelled. */
static void bw_print_bidir(void)
{
	static const struct bw_res r = {
		.size = 65536, .messages = 1000, .bytes = 65536000,
		.elapsed = 1000000000, .peak_bps = 73400320,
		.cpu_ns = 500000000, .rx_messages = 500, .rx_bytes = 32768000,
		.rx_elapsed = 800000000, .peak = true, .cpu = true,
		.rx = true,
	};
	struct nl_msg *msg = bw_msg(KVPERF_CMD_RUN_GET, 6,
				    KVPERF_RUN_STATE_STOPPED, 1);
	struct capture c, err;

	nla_put_flag(msg, KVPERF_A_RUN_BIDIR);
	put_bw_result(msg, &r, &qp64k, 1);

	CHECK_INT(run_print_one(&c, false, false, msg, &err), 0);
	CHECK(strstr(c.buf, "dev rxe0, bidir, state stopped\n") != NULL);
	CHECK(strstr(c.buf, bw_header_mib) != NULL);
	CHECK(strstr(c.buf, "CPU[ns/msg]\n"
		     " 65536      1000           70.00               62.50                 0.001000        -        -             tx\n"
		     " 65536      500            -                   39.06                 0.000625        -        -             rx\n"
		     " 65536      1500           -                   93.75                 0.001500        50.00    333333.33     total\n") != NULL);
	cap_close(&c);

	/* gbits: the columns move with the titles */
	CHECK_INT(run_print_one(&c, false, true, msg, &err), 0);
	CHECK(strstr(c.buf, "CPU[ns/msg]\n"
		     " 65536      1000           0.59               0.52                 0.001000        -        -             tx\n"
		     " 65536      500            -                  0.33                 0.000625        -        -             rx\n"
		     " 65536      1500           -                  0.79                 0.001500        50.00    333333.33     total\n") != NULL);
	cap_close(&c);

	CHECK_INT(run_print_one(&c, true, false, msg, &err), 0);
	CHECK_JSON(c.buf,
		   "assert d['bidir'] is True and d['state'] == 'stopped'\n"
		   "r = d['results'][0]\n"
		   "assert r['rx_messages'] == 500 and r['rx_bytes'] == 32768000\n"
		   "assert r['rx_elapsed_ns'] == 800000000\n"
		   "assert r['bw_avg_mibps'] == 62.5\n"
		   "assert r['rx_bw_avg_mibps'] == 39.06\n"
		   "assert r['rx_msg_rate_mpps'] == 0.000625\n"
		   "assert r['total_bw_avg_mibps'] == 93.75\n"
		   "assert r['total_msg_rate_mpps'] == 0.0015\n"
		   "assert r['cpu_percent'] == 50.0\n"
		   "assert r['cpu_ns_per_msg'] == 333333.33\n"
		   "assert r['bw_peak_mibps'] == 70.0\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

/* What the kernel did not send, or zero times: "-", nothing in JSON. */
static void bw_print_missing(void)
{
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_RUN_GET);
	struct capture c, err;
	struct nlattr *nest;

	nla_put_u32(msg, KVPERF_A_RUN_ID, 9);
	nla_put_u8(msg, KVPERF_A_RUN_TYPE, KVPERF_RUN_TYPE_BW);
	nla_put_u8(msg, KVPERF_A_RUN_STATE, KVPERF_RUN_STATE_RUNNING);
	run_put_u64(msg, KVPERF_A_RUN_PROGRESS, KVPERF_A_RUN_PAD, 5000);
	run_put_u64(msg, KVPERF_A_RUN_BYTES, KVPERF_A_RUN_PAD, 10000);
	nest = nla_nest_start(msg, KVPERF_A_RUN_BW_RESULT);
	nla_put_u32(msg, KVPERF_A_BW_RESULT_SIZE, 2);
	nla_put_u64(msg, KVPERF_A_BW_RESULT_MESSAGES, 5);
	nla_put_u64(msg, KVPERF_A_BW_RESULT_BYTES, 10);
	nla_put_u64(msg, KVPERF_A_BW_RESULT_ELAPSED_NS, 0);
	nla_put_u64(msg, KVPERF_A_BW_RESULT_CPU_NS, 7);
	nla_nest_end(msg, nest);

	CHECK_INT(run_print_one(&c, false, false, msg, &err), 0);
	CHECK_STR(c.buf,
		  "# run 9: bw, state running, progress 5000, bytes 10000\n"
		  "# path kernel\n"
		  " #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]   CPU[%]   CPU[ns/msg]\n"
		  " 2          5              -                   -                     -               -        1.40\n");
	cap_close(&c);
	CHECK_INT(run_print_one(&c, true, false, msg, &err), 0);
	CHECK_STR(c.buf,
		  "{\"id\":9,\"type\":\"bw\",\"verify\":false,\"bidir\":false,"
		  "\"state\":\"running\",\"progress\":5000,\"bytes\":10000,"
		  "\"path\":\"kernel\",\"results\":[{\"size\":2,\"messages\":5,\"bytes\":10,"
		  "\"elapsed_ns\":0,\"cpu_ns\":7,\"cpu_ns_per_msg\":1.40,"
		  "\"qps\":[]}]}\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);

	/* no results yet: no table */
	msg = bw_msg(KVPERF_CMD_RUN_GET, 3, KVPERF_RUN_STATE_CONNECTING, 1);
	CHECK_INT(run_print_one(&c, false, false, msg, &err), 0);
	CHECK(strstr(c.buf, "#bytes") == NULL);
	CHECK(strstr(c.buf, "state connecting, progress 10016, "
			    "bytes 65536000\n") != NULL);
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

/* A malformed queue pair deep in a result: nothing printed. */
static void bw_print_malformed(void)
{
	struct nl_msg *msg = bw_msg(KVPERF_CMD_RUN_GET, 3,
				    KVPERF_RUN_STATE_DONE, 1);
	struct nlattr *nest, *qp;
	struct capture c, err;

	put_bw_result(msg, &res64k, &qp64k, 1);
	nest = nla_nest_start(msg, KVPERF_A_RUN_BW_RESULT);
	nla_put_u32(msg, KVPERF_A_BW_RESULT_SIZE, 2);
	qp = nla_nest_start(msg, KVPERF_A_BW_RESULT_QP);
	nla_put_u64(msg, KVPERF_A_BW_QP_CPU, 1);
	nla_nest_end(msg, qp);
	nla_nest_end(msg, nest);
	CHECK_INT(run_print_one(&c, false, false, msg, &err), -EINVAL);
	CHECK_STR(c.buf, "");
	CHECK_STR(err.buf, "kvperf: malformed reply from the kernel: "
		  "attribute bw-qp.cpu has length 8\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);

	msg = bw_msg(KVPERF_CMD_RUN_GET, 3, KVPERF_RUN_STATE_DONE, 1);
	nest = nla_nest_start(msg, KVPERF_A_RUN_BW_RESULT);
	nla_put_u32(msg, KVPERF_A_BW_RESULT_BYTES, 2);
	nla_nest_end(msg, nest);
	CHECK_INT(run_print_one(&c, true, false, msg, &err), -EINVAL);
	CHECK_STR(err.buf, "kvperf: malformed reply from the kernel: "
		  "attribute bw-result.bytes has length 4\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);

	msg = unit_genl_msg(KVPERF_CMD_RUN_GET);
	nla_put_u64(msg, KVPERF_A_RUN_QPS, 2);
	CHECK_INT(run_print_one(&c, false, false, msg, &err), -EINVAL);
	CHECK_STR(err.buf, "kvperf: malformed reply from the kernel: "
		  "attribute run.qps has length 8\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

/* "run show -j": latency and bandwidth runs side by side. */
static void bw_print_array(void)
{
	struct nl_msg *lat = unit_genl_msg(KVPERF_CMD_RUN_GET);
	struct nl_msg *bw = bw_msg(KVPERF_CMD_RUN_GET, 3,
				   KVPERF_RUN_STATE_DONE, 1);
	struct capture c, err;
	struct printer p;

	nla_put_u32(lat, KVPERF_A_RUN_ID, 2);
	nla_put_u8(lat, KVPERF_A_RUN_TYPE, KVPERF_RUN_TYPE_LAT);
	put_bw_result(bw, &res64k, &qp64k, 1);
	pr_init(&p, cap_open(&c), true, true);
	cap_open(&err);
	pr_arr_open(&p, NULL);
	CHECK_INT(run_print_msg(&p, nlmsg_hdr(lat), err.f), 0);
	CHECK_INT(run_print_msg(&p, nlmsg_hdr(bw), err.f), 0);
	pr_arr_close(&p);
	pr_finish(&p);
	CHECK_JSON(cap_str(&c),
		   "assert [r['type'] for r in d] == ['lat', 'bw']\n"
		   "assert d[0]['results'] == [] and 'bidir' not in d[0]\n"
		   "assert d[1]['results'][0]['bw_avg_mibps'] == 62.5\n");
	CHECK_STR(cap_str(&err), "");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(lat);
	nlmsg_free(bw);
}

/* How "run bw" ends: the table in the unit asked for, the exit code. */
static void bw_finish(void)
{
	struct nl_msg *msg = bw_msg(KVPERF_CMD_RUN_FINISHED_NTF, 3,
				    KVPERF_RUN_STATE_DONE, 1);
	struct run_finished f;

	put_bw_result(msg, &res64k, &qp64k, 1);
	run_finish_capture(&f, msg, false, true);
	CHECK_INT(f.ret, KVPERF_EXIT_OK);
	CHECK(strstr(f.out.buf, "BW average[Gb/sec]") != NULL);
	CHECK(strstr(f.out.buf, "\n 65536      1000           0.59 ") != NULL);
	CHECK_STR(f.err.buf, "");
	run_finish_done(&f);

	run_finish_capture(&f, msg, true, true);
	CHECK_INT(f.ret, KVPERF_EXIT_OK);
	CHECK_JSON(f.out.buf,
		   "assert d['results'][0]['bw_avg_mibps'] == 62.5\n");
	run_finish_done(&f);
	nlmsg_free(msg);

	msg = bw_msg(KVPERF_CMD_RUN_FINISHED_NTF, 4,
		     KVPERF_RUN_STATE_STOPPED, 1);
	run_finish_capture(&f, msg, false, false);
	CHECK_INT(f.ret, KVPERF_EXIT_ERROR);
	CHECK_STR(f.err.buf, "kvperf: run 4 stopped\n");
	run_finish_done(&f);
	nlmsg_free(msg);
}

/* ---- the live line ---- */

/* A progress event of run 3 with an interval of 1 s. */
static struct nl_msg *progress(uint64_t bytes, uint64_t messages,
			       uint64_t ns)
{
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_RUN_PROGRESS_NTF);

	nla_put_u32(msg, KVPERF_A_RUN_ID, 3);
	nla_put_u8(msg, KVPERF_A_RUN_STATE, KVPERF_RUN_STATE_RUNNING);
	nla_put_u64(msg, KVPERF_A_RUN_PROGRESS, 20000);
	nla_put_u32(msg, KVPERF_A_RUN_CUR_SIZE, 65536);
	nla_put_u64(msg, KVPERF_A_RUN_BYTES, 1288490189);
	nla_put_u64(msg, KVPERF_A_RUN_INTERVAL_BYTES, bytes);
	nla_put_u64(msg, KVPERF_A_RUN_INTERVAL_MESSAGES, messages);
	nla_put_u64(msg, KVPERF_A_RUN_INTERVAL_NS, ns);
	return msg;
}

static const char *live_line(struct nl_msg *msg, int64_t since_ms,
			     bool gbits, struct capture *c)
{
	struct kv_run ev;

	CHECK_INT(run_model_decode(&ev, nlmsg_hdr(msg), stderr), 0);
	run_print_live(cap_open(c), &ev, since_ms, gbits);
	run_model_free(&ev);
	return cap_str(c);
}

static void bw_live_line(void)
{
	/* 412.34 MiB/s of 64 KiB messages: 6597 a second */
	struct nl_msg *msg = progress(432372449, 6597, 1000000000);
	struct capture c;

	CHECK_STR(live_line(msg, 3000, false, &c),
		  "  [   3.0 s] size 65536  412.34 MiB/s  0.0066 Mpps  "
		  "(1.20 GiB so far)\n");
	cap_close(&c);
	CHECK_STR(live_line(msg, 12345, true, &c),
		  "  [  12.3 s] size 65536  3.46 Gb/s  0.0066 Mpps  "
		  "(1.20 GiB so far)\n");
	cap_close(&c);
	nlmsg_free(msg);

	/* half a second, 62.50 MiB/s */
	msg = progress(32768000, 500, 500000000);
	CHECK_STR(live_line(msg, -5, false, &c),
		  "  [   0.0 s] size 65536  62.50 MiB/s  0.0010 Mpps  "
		  "(1.20 GiB so far)\n");
	cap_close(&c);
	nlmsg_free(msg);

	/* an empty interval, and what an event may lack */
	msg = unit_genl_msg(KVPERF_CMD_RUN_PROGRESS_NTF);
	nla_put_u64(msg, KVPERF_A_RUN_INTERVAL_NS, 0);
	nla_put_u64(msg, KVPERF_A_RUN_BYTES, 1000);
	CHECK_STR(live_line(msg, 1000, false, &c),
		  "  [   1.0 s]  (1000 B so far)\n");
	cap_close(&c);
	nlmsg_free(msg);
}

/* While "run bw" waits: intervals on stdout; other progress on the tty. */
static void bw_wait_live(void)
{
	struct run_show show = { .progress_unit = "messages" };
	struct run_wait w = {
		.id = 3, .progress = run_show_event, .quiet = run_show_quiet,
		.arg = &show,
	};
	struct capture err, tty, live;
	struct nl_msg *msg;
	size_t len;

	w.err = cap_open(&err);
	show.tty = cap_open(&tty);
	show.live = cap_open(&live);

	/* a progress event without an interval: the tty's counter */
	msg = unit_genl_msg(KVPERF_CMD_RUN_PROGRESS_NTF);
	nla_put_u32(msg, KVPERF_A_RUN_ID, 3);
	nla_put_u8(msg, KVPERF_A_RUN_STATE, KVPERF_RUN_STATE_CONNECTING);
	nla_put_u64(msg, KVPERF_A_RUN_PROGRESS, 0);
	CHECK_INT(run_wait_event(&w, nlmsg_hdr(msg)), 0);
	nlmsg_free(msg);
	CHECK_STR(cap_str(&tty), "\rrun 3 connecting: 0 messages");
	CHECK(show.progress_shown);

	/* an interval: the counter goes, the line comes */
	msg = progress(65536000, 1000, 1000000000);
	CHECK_INT(run_wait_event(&w, nlmsg_hdr(msg)), 0);
	CHECK(!show.progress_shown);
	CHECK_STR(cap_str(&tty), "\rrun 3 connecting: 0 messages\r\033[K");
	CHECK(strstr(cap_str(&live), " s] size 65536  62.50 MiB/s  "
		     "0.0010 Mpps  (1.20 GiB so far)\n") != NULL);
	CHECK(!strncmp(live.buf, "  [", 3));
	len = strlen(live.buf);
	/* another run's: nothing */
	nla_put_u32(msg, KVPERF_A_RUN_ID, 4);
	CHECK_INT(run_wait_event(&w, nlmsg_hdr(msg)), 0);
	CHECK_INT(strlen(cap_str(&live)), len);
	nlmsg_free(msg);
	cap_close(&live);

	/* -j: no live lines; the tty counter instead */
	show.live = NULL;
	msg = progress(65536000, 1000, 1000000000);
	CHECK_INT(run_wait_event(&w, nlmsg_hdr(msg)), 0);
	nlmsg_free(msg);
	CHECK(strstr(cap_str(&tty), "\rrun 3 running: 20000 messages") !=
	      NULL);
	CHECK_STR(cap_str(&err), "");
	cap_close(&tty);
	cap_close(&err);
}

const struct unit_test unit_tests[] = {
	UNIT(bw_parse_minimal),
	UNIT(bw_parse_every_keyword),
	UNIT(bw_parse_abbreviations),
	UNIT(bw_parse_ranges),
	UNIT(bw_parse_cpus),
	UNIT(bw_parse_warmup),
	UNIT(bw_keywords_not_for_lat),
	UNIT(bw_print_done),
	UNIT(bw_print_json),
	UNIT(bw_print_qps_verify),
	UNIT(bw_print_bidir),
	UNIT(bw_print_missing),
	UNIT(bw_print_malformed),
	UNIT(bw_print_array),
	UNIT(bw_finish),
	UNIT(bw_wait_live),
	UNIT(bw_live_line),
	{ NULL },
};
