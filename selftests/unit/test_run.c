// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the run object (user/cli/run.c, user/cli/run_print.c): command
 * lines of "run lat" turned into KVPERF_CMD_RUN_START requests, compared
 * attribute by attribute; usage errors and their messages; run replies
 * and events built here as the kernel sends them, printed as text and
 * JSON and compared whole; how "run lat" ends (output, stderr, exit code)
 * and what it waits for; the wait itself against a fake kernel on
 * NETLINK_USERSOCK sockets. Also the number, size, time and address
 * helpers the command line uses.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "args.h"
#include "attrs.h"
#include "fmt.h"
#include "cli.h"
#include "kvperf.h"
#include "nl.h"
#include "print.h"
#include "run.h"
#include "run_bw_print.h"
#include "run_kernel.h"
#include "run_model.h"
#include "run_print.h"
#include "run_test.h"
#include "unit.h"

/* The run and result sets describe every attribute of the spec's. */
static void run_attr_sets(void)
{
	const struct attr_set *sets[] = {
		&attrs_run, &attrs_result, &attrs_bw_result, &attrs_bw_qp,
	};
	const unsigned int max[] = {
		KVPERF_A_RUN_MAX, KVPERF_A_RESULT_MAX, KVPERF_A_BW_RESULT_MAX,
		KVPERF_A_BW_QP_MAX,
	};
	unsigned int i, t;

	for (i = 0; i < ARRAY_SIZE(sets); i++) {
		CHECK_INT(sets[i]->max, max[i]);
		for (t = 1; t <= sets[i]->max; t++)
			if (!sets[i]->attrs[t].name ||
			    sets[i]->attrs[t].kind == ATTR_UNKNOWN)
				unit_fail(__FILE__, __LINE__,
					  "%s attribute %u is not described",
					  sets[i]->name, t);
	}
	CHECK(attrs_run.attrs[KVPERF_A_RUN_RESULT].nested == &attrs_result);
	CHECK(attrs_run.attrs[KVPERF_A_RUN_BW_RESULT].nested ==
	      &attrs_bw_result);
	CHECK(attrs_bw_result.attrs[KVPERF_A_BW_RESULT_QP].nested ==
	      &attrs_bw_qp);
	CHECK_STR(attrs_name(&attrs_run, KVPERF_A_RUN_TIMEOUT_MS),
		  "timeout-ms");
	CHECK_STR(attrs_name(&attrs_result, KVPERF_A_RESULT_P9999_NS),
		  "p9999-ns");
	CHECK_INT(attrs_run.attrs[KVPERF_A_RUN_PORT].kind, ATTR_U16);
	CHECK_INT(attrs_run.attrs[KVPERF_A_RUN_VERIFY].kind, ATTR_FLAG);
	CHECK_INT(attrs_run.attrs[KVPERF_A_RUN_ADDR].kind, ATTR_ADDR);
	/* types as the spec has them */
	CHECK_INT(attrs_run.attrs[KVPERF_A_RUN_CPUS].kind, ATTR_STRING);
	CHECK_INT(attrs_run.attrs[KVPERF_A_RUN_BIDIR].kind, ATTR_FLAG);
	CHECK_INT(attrs_run.attrs[KVPERF_A_RUN_TX_DEPTH].kind, ATTR_U32);
	CHECK_INT(attrs_run.attrs[KVPERF_A_RUN_WARMUP_MS].kind, ATTR_U32);
	CHECK_INT(attrs_run.attrs[KVPERF_A_RUN_BYTES].kind, ATTR_U64);
	CHECK_INT(attrs_run.attrs[KVPERF_A_RUN_INTERVAL_NS].kind, ATTR_U64);
	CHECK_INT(attrs_run.attrs[KVPERF_A_RUN_CUR_SIZE].kind, ATTR_U32);
	CHECK_INT(attrs_run.attrs[KVPERF_A_RUN_STATS].kind, ATTR_U8);
	CHECK_STR(attrs_name(&attrs_run, KVPERF_A_RUN_STATS), "stats");
	CHECK_INT(attrs_bw_result.attrs[KVPERF_A_BW_RESULT_SIZE].kind,
		  ATTR_U32);
	CHECK_INT(attrs_bw_result.attrs[KVPERF_A_BW_RESULT_PEAK_BPS].kind,
		  ATTR_U64);
	CHECK_INT(attrs_bw_result.attrs[KVPERF_A_BW_RESULT_PAD].kind,
		  ATTR_PAD);
	CHECK_INT(attrs_bw_qp.attrs[KVPERF_A_BW_QP_INDEX].kind, ATTR_U32);
	CHECK_INT(attrs_bw_qp.attrs[KVPERF_A_BW_QP_CPU].kind, ATTR_S32);
	CHECK_STR(attrs_name(&attrs_bw_qp, KVPERF_A_BW_QP_PEER_MESSAGES),
		  "peer-messages");
}

/* ---- the command line ---- */


#define LAT(l, ...)	RUN_CMDLINE((l), KVPERF_RUN_TYPE_LAT, __VA_ARGS__)
#define LAT_OK(want, ...)	RUN_OK(KVPERF_RUN_TYPE_LAT, want, __VA_ARGS__)
#define LAT_ERR(want, ...)	RUN_ERR(KVPERF_RUN_TYPE_LAT, want, __VA_ARGS__)

static void run_lat_minimal(void)
{
	struct run_cmdline l;

	/* type, op, address and the port: all a run needs */
	LAT(&l, "op", "send", "addr", "198.18.0.1");
	CHECK_INT(l.ret, KVPERF_EXIT_OK);
	CHECK_STR(l.err, "");
	CHECK_STR(l.req, "type=0 op=0 addr=198.18.0.1 port=18515");
	CHECK(!run_opt(&l.o, RUN_KW_NO_WAIT));

	LAT_OK("type=0 op=1 addr=fd00::1 port=18515",
	       "addr", "fd00::1", "op", "write");
	LAT_OK("type=0 op=2 addr=::ffff:198.18.0.1 port=18515",
	       "op", "read", "addr", "::ffff:198.18.0.1");
}

static void run_lat_every_keyword(void)
{
	struct run_cmdline l;

	LAT(&l, "op", "write", "addr", "fd00::1", "port", "20000",
	    "size", "4K", "iters", "5000", "warmup", "100",
	    "poll", "softirq", "inline", "64", "verify", "cpu", "3",
	    "timeout", "100ms", "no-wait");
	CHECK_INT(l.ret, KVPERF_EXIT_OK);
	CHECK_STR(l.err, "");
	CHECK_STR(l.req, "type=0 op=1 addr=fd00::1 port=20000 size=4096 "
		  "iterations=5000 warmup=100 poll=1 inline=64 verify cpu=3 "
		  "timeout-ms=100");
	CHECK(run_opt(&l.o, RUN_KW_NO_WAIT));

	LAT_OK("type=0 op=0 addr=10.0.0.1 port=18515 size=2 "
	       "size-max=8388608 duration-ms=500 poll=2",
	       "op", "send", "addr", "10.0.0.1", "sizes", "all",
	       "time", "0.5", "poll", "workqueue");
	LAT_OK("type=0 op=0 addr=10.0.0.1 port=18515 size=64 "
	       "size-max=65536 poll=0",
	       "op", "send", "addr", "10.0.0.1", "sizes", "64-64K",
	       "poll", "busy");
}

/* Each keyword by its shortest prefix, which table order resolves. */
static void run_lat_abbreviations(void)
{
	struct run_cmdline l;

	/* kvperf r l o s a 1.2.3.4 */
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515",
	       "o", "send", "a", "1.2.3.4");

	LAT(&l, "o", "write", "a", "::1", "p", "9", "s", "1k", "i", "7",
	    "w", "3", "pol", "workqueue", "in", "8", "v", "c", "1", "timeo",
	    "10ms", "n");
	CHECK_INT(l.ret, KVPERF_EXIT_OK);
	CHECK_STR(l.req, "type=0 op=1 addr=::1 port=9 size=1024 "
		  "iterations=7 warmup=3 poll=2 inline=8 verify cpu=1 "
		  "timeout-ms=10");
	CHECK(run_opt(&l.o, RUN_KW_NO_WAIT));

	/* t is time, not timeout; si is size; sizes is sizes */
	LAT_OK("type=0 op=2 addr=1.2.3.4 port=18515 duration-ms=2000",
	       "o", "read", "a", "1.2.3.4", "t", "2");
	LAT_OK("type=0 op=2 addr=1.2.3.4 port=18515 duration-ms=2000",
	       "op", "read", "ad", "1.2.3.4", "tim", "2");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 timeout-ms=2000",
	       "o", "send", "a", "1.2.3.4", "timeou", "2");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 size=8",
	       "o", "send", "a", "1.2.3.4", "si", "8");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 size=8",
	       "o", "send", "a", "1.2.3.4", "size", "8");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 size=2 size-max=8388608",
	       "o", "send", "a", "1.2.3.4", "sizes", "all");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 iterations=9",
	       "o", "send", "a", "1.2.3.4", "it", "9");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 inline=9",
	       "o", "send", "a", "1.2.3.4", "inl", "9");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=7 poll=1",
	       "o", "send", "a", "1.2.3.4", "po", "7", "poll", "softirq");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 poll=0",
	       "o", "send", "a", "1.2.3.4", "pol", "busy");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 warmup=0",
	       "o", "send", "a", "1.2.3.4", "wa", "0");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 cpu=0",
	       "o", "send", "a", "1.2.3.4", "cp", "0");
	LAT(&l, "o", "send", "a", "1.2.3.4", "no");
	CHECK_INT(l.ret, KVPERF_EXIT_OK);
	CHECK(run_opt(&l.o, RUN_KW_NO_WAIT));
	/* numbers in hex, as everywhere */
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 iterations=16",
	       "o", "send", "a", "1.2.3.4", "iters", "0x10");
}

/* key and key-file: KVPERF_A_RUN_KEY, its bytes; messages without it */
static void run_key(void)
{
	struct nlattr *tb[KVPERF_A_RUN_MAX + 1];
	char path[] = "/tmp/kvperf-unit-rkey.XXXXXX";
	struct run_cmdline l;
	struct genlmsghdr *g;
	struct nl_msg *msg;
	int fd;

	LAT_OK("type=0 op=0 addr=198.18.0.1 port=18515 key=(16 bytes)",
	       "op", "send", "addr", "198.18.0.1",
	       "key", "A0a1a2a3a4a5a6a7a8a9aaabacadaeaf");
	RUN_OK(KVPERF_RUN_TYPE_BW,
	       "type=1 op=1 addr=198.18.0.1 port=18515 qps=2 key=(16 bytes)",
	       "op", "write", "addr", "198.18.0.1", "k",
	       "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf", "qps", "2");
	/* no key, no attribute */
	LAT(&l, "op", "send", "addr", "198.18.0.1");
	CHECK(!run_keyed(&l.o));

	LAT(&l, "op", "send", "addr", "198.18.0.1",
	    "key", "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf");
	CHECK(run_keyed(&l.o));
	msg = unit_genl_msg(KVPERF_CMD_RUN_START);
	CHECK_INT(run_cfg_put(msg, &l.o.cfg), 0);
	g = nlmsg_data(nlmsg_hdr(msg));
	CHECK_INT(attrs_parse(&attrs_run, tb, genlmsg_attrdata(g, 0),
			      genlmsg_attrlen(g, 0), NULL), 0);
	CHECK(tb[KVPERF_A_RUN_KEY] && nla_len(tb[KVPERF_A_RUN_KEY]) == 16 &&
	      !memcmp(nla_data(tb[KVPERF_A_RUN_KEY]),
		      (const uint8_t []){ 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5,
					  0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab,
					  0xac, 0xad, 0xae, 0xaf }, 16));
	nlmsg_free(msg);

	/* key-file, read after the rest was found right */
	fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf\n", 33) == 33);
	close(fd);
	chmod(path, 0600);
	LAT_OK("type=0 op=0 addr=198.18.0.1 port=18515 key=(16 bytes)",
	       "op", "send", "addr", "198.18.0.1", "key-file", path);
	LAT_ERR("missing addr", "op", "send", "key-file", "/nonexistent");
	chmod(path, 0604);
	LAT(&l, "op", "send", "addr", "198.18.0.1", "key-file", path);
	CHECK_INT(l.ret, KVPERF_EXIT_ERROR);
	CHECK(strstr(l.err, "': group or others may read or write it (mode 0604; chmod 600 it)\n"));
	unlink(path);

	LAT_ERR("invalid key: not 32 characters long (a key is exactly 32 hex digits, 16 bytes)",
		"op", "send", "addr", "198.18.0.1", "key", "a0a1");
	LAT_ERR("invalid key: not all hex digits (a key is exactly 32 hex digits, 16 bytes)",
		"op", "send", "addr", "198.18.0.1",
		"key", "hunter2hunter2hunter2hunter2hunt");
	LAT_ERR("key and key-file exclude each other", "op", "send",
		"addr", "198.18.0.1", "key", "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf",
		"key-file", "/nonexistent");
	LAT_ERR("missing value after 'key'", "op", "send", "addr", "::1",
		"key");
}

static void run_lat_usage_errors(void)
{
	LAT_ERR("unknown keyword 'frob'", "op", "send", "frob");
	/* keywords abbreviate, values do not */
	LAT_ERR("unknown stats 'o' (on or off)", "op", "send", "addr", "::1",
		"stats", "o");
	LAT_ERR("unknown op 's' (send, write or read)", "op", "s", "addr",
		"::1");
	LAT_ERR("unknown poll mode 'b' (busy, softirq or workqueue)", "op",
		"send", "addr", "::1", "poll", "b");
	LAT_ERR("unknown path 'u' (kernel or user)", "op", "send", "addr",
		"::1", "path", "u");
	LAT_ERR("invalid sizes 'a' (all, or MIN-MAX such as 2-64K)", "op",
		"send", "addr", "::1", "sizes", "a");
	LAT_ERR("unknown keyword 'help'", "help");
	LAT_ERR("unknown keyword 'OP'", "OP", "send");
	LAT_ERR("missing value after 'op'", "op");
	LAT_ERR("missing value after 'addr'", "op", "send", "addr");
	LAT_ERR("'op' given twice", "op", "send", "op", "read");
	LAT_ERR("'verify' given twice", "v", "verify");
	LAT_ERR("'size' given twice", "size", "2", "si", "4");
	LAT_ERR("size and sizes exclude each other",
		"o", "send", "a", "1.2.3.4", "s", "2", "sizes", "all");
	LAT_ERR("iters and time exclude each other",
		"o", "send", "a", "1.2.3.4", "time", "1", "iters", "5");
	LAT_ERR("missing op (send, write or read)", "addr", "1.2.3.4");
	LAT_ERR("missing addr", "op", "send");
	LAT_ERR("missing op (send, write or read)", "verify");
	LAT_ERR("unknown op 'sned' (send, write or read)", "op", "sned");
	LAT_ERR("unknown op '' (send, write or read)", "op", "");
	LAT_ERR("unknown op 'atomic' (send, write or read)", "op", "atomic");
	LAT_ERR("unknown poll mode 'fast' (busy, softirq or workqueue)",
		"poll", "fast");
	LAT_ERR("invalid address '1.2.3' (IPv4 or IPv6)", "addr", "1.2.3");
	LAT_ERR("invalid address 'fe80::1%eth0' (IPv4 or IPv6)",
		"addr", "fe80::1%eth0");
	LAT_ERR("invalid address '[::1]' (IPv4 or IPv6)", "addr", "[::1]");
	LAT_ERR("invalid address 'server' (IPv4 or IPv6)", "addr", "server");
	LAT_ERR("invalid port '0' (1 to 65535)", "port", "0");
	LAT_ERR("invalid port '65536' (1 to 65535)", "port", "65536");
	LAT_ERR("invalid port 'x' (1 to 65535)", "port", "x");
	LAT_ERR("invalid iters 'abc' (a number)", "iters", "abc");
	LAT_ERR("invalid iters '-1' (a number)", "iters", "-1");
	LAT_ERR("iters '4294967296' is out of range (1 to 100000000)", "iters",
		"4294967296");
	LAT_ERR("invalid warmup '1k' (a count, or a time such as 2s or 500ms)",
		"warmup", "1k");
	LAT_ERR("invalid inline ' 8' (a number)", "inline", " 8");
	LAT_ERR("invalid cpu 'all' (a number)", "cpu", "all");
	LAT_ERR("invalid timeout '5x' (a time such as 10, 0.5, 2s or 500ms; no unit is seconds)",
		"timeout", "5x");
}

/* stats {on|off}: the u8 of enum kvperf_stats_mode, sent only when given. */
static void run_lat_stats(void)
{
	struct run_cmdline l;

	LAT(&l, "op", "send", "addr", "198.18.0.1", "stats", "off");
	CHECK_INT(l.ret, KVPERF_EXIT_OK);
	CHECK_STR(l.err, "");
	CHECK_STR(l.req, "type=0 op=0 addr=198.18.0.1 port=18515 stats=1");
	CHECK(run_opt(&l.o, RUN_KW_STATS));
	CHECK_INT(l.o.cfg.stats, KVPERF_STATS_MODE_OFF);

	LAT_OK("type=0 op=0 addr=198.18.0.1 port=18515 stats=0",
	       "op", "send", "addr", "198.18.0.1", "stats", "on");
	/* st is stats (s stays size); of is off */
	LAT_OK("type=0 op=1 addr=1.2.3.4 port=18515 stats=1",
	       "o", "write", "a", "1.2.3.4", "st", "off");
	LAT_OK("type=0 op=2 addr=1.2.3.4 port=18515 size=8 stats=0",
	       "o", "read", "a", "1.2.3.4", "s", "8", "st", "on");
	/* with everything else, and on the user path */
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 size=64 "
	       "duration-ms=1000 verify stats=1",
	       "o", "send", "a", "1.2.3.4", "size", "64", "time", "1",
	       "verify", "stats", "off", "path", "user");

	LAT(&l, "op", "send", "addr", "198.18.0.1");
	CHECK(!run_opt(&l.o, RUN_KW_STATS));
	CHECK(!strstr(l.req, "stats"));

	LAT_ERR("unknown stats 'maybe' (on or off)", "stats", "maybe");
	LAT_ERR("unknown stats '' (on or off)", "stats", "");
	LAT_ERR("unknown stats '1' (on or off)", "stats", "1");
	LAT_ERR("missing value after 'stats'", "op", "send", "stats");
	LAT_ERR("'stats' given twice", "stats", "on", "st", "off");

	/* bandwidth runs take it on either path, as the module does */
	RUN_OK(KVPERF_RUN_TYPE_BW,
	       "type=1 op=1 addr=1.2.3.4 port=18515 stats=0",
	       "op", "write", "addr", "1.2.3.4", "stats", "on");
	RUN_ERR(KVPERF_RUN_TYPE_BW,
		"stats off applies to latency runs only: bandwidth runs take no per-iteration statistics",
		"op", "write", "addr", "1.2.3.4", "stats", "off");
}

static void run_lat_sizes(void)
{
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 size=1",
	       "o", "send", "a", "1.2.3.4", "size", "1");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 size=8388608",
	       "o", "send", "a", "1.2.3.4", "size", "8M");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 size=8388608",
	       "o", "send", "a", "1.2.3.4", "size", "8192k");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 size=8 size-max=8",
	       "o", "send", "a", "1.2.3.4", "sizes", "8-8");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 size=1 size-max=8388608",
	       "o", "send", "a", "1.2.3.4", "sizes", "1-8M");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 size=2 size-max=8388608",
	       "o", "send", "a", "1.2.3.4", "sizes", "all");

	LAT_ERR("size '0' is out of range (1 to 8M)", "size", "0");
	LAT_ERR("size '9M' is out of range (1 to 8M)", "size", "9M");
	LAT_ERR("size '8193K' is out of range (1 to 8M)", "size", "8193K");
	LAT_ERR("size '1G' is out of range (1 to 8M)", "size", "1G");
	LAT_ERR("size '99999999999999999999' is out of range (1 to 8M)",
		"size", "99999999999999999999");
	LAT_ERR("invalid size '1x' (bytes, with an optional K or M suffix)",
		"size", "1x");
	LAT_ERR("invalid size '-1' (bytes, with an optional K or M suffix)",
		"size", "-1");
	LAT_ERR("invalid size '' (bytes, with an optional K or M suffix)",
		"size", "");
	LAT_ERR("sizes '64-2': MIN is larger than MAX", "sizes", "64-2");
	LAT_ERR("sizes '0-4' is out of range (1 to 8M)", "sizes", "0-4");
	LAT_ERR("sizes '2-16M' is out of range (1 to 8M)", "sizes", "2-16M");
	LAT_ERR("invalid sizes 'x' (all, or MIN-MAX such as 2-64K)",
		"sizes", "x");
	LAT_ERR("invalid sizes '64' (all, or MIN-MAX such as 2-64K)",
		"sizes", "64");
	LAT_ERR("invalid sizes '-4' (all, or MIN-MAX such as 2-64K)",
		"sizes", "-4");
	LAT_ERR("invalid sizes '4-' (bytes, with an optional K or M suffix)",
		"sizes", "4-");
	LAT_ERR("invalid sizes '4-8-16' (bytes, with an optional K or M suffix)",
		"sizes", "4-8-16");
	LAT_ERR("invalid sizes 'allx' (all, or MIN-MAX such as 2-64K)",
		"sizes", "allx");
}

static void run_lat_time(void)
{
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 duration-ms=1000",
	       "o", "send", "a", "1.2.3.4", "time", "1");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 duration-ms=1",
	       "o", "send", "a", "1.2.3.4", "time", "0.001");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 duration-ms=3600000",
	       "o", "send", "a", "1.2.3.4", "time", "3600");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 duration-ms=1250",
	       "o", "send", "a", "1.2.3.4", "time", "1.2500");

	LAT_ERR("time '0' is out of range (1ms to 3600s)",
		"time", "0");
	LAT_ERR("time '0.000' is out of range (1ms to 3600s)",
		"time", "0.000");
	LAT_ERR("time '3600.001' is out of range (1ms to 3600s)",
		"time", "3600.001");
	LAT_ERR("time '99999999999999999999999' is out of range (1ms to 3600s)",
		"time", "99999999999999999999999");
	LAT_ERR("invalid time '0.0005' (a time such as 10, 0.5, 2s or 500ms; no unit is seconds)",
		"time", "0.0005");
	LAT_ERR("invalid time '1e3' (a time such as 10, 0.5, 2s or 500ms; no unit is seconds)",
		"time", "1e3");
	LAT_ERR("invalid time '-1' (a time such as 10, 0.5, 2s or 500ms; no unit is seconds)",
		"time", "-1");
	LAT_ERR("invalid time '1.' (a time such as 10, 0.5, 2s or 500ms; no unit is seconds)",
		"time", "1.");
	LAT_ERR("invalid time '.5' (a time such as 10, 0.5, 2s or 500ms; no unit is seconds)",
		"time", ".5");
	LAT_ERR("invalid time '10m' (a time such as 10, 0.5, 2s or 500ms; no unit is seconds)",
		"time", "10m");
	LAT_ERR("invalid time '1.5ms' (a time such as 10, 0.5, 2s or 500ms; no unit is seconds)",
		"time", "1.5ms");
	/* one grammar for every time */
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 duration-ms=10000",
	       "o", "send", "a", "1.2.3.4", "time", "10s");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 duration-ms=250",
	       "o", "send", "a", "1.2.3.4", "time", "250ms");
}

static void run_parse_time(void)
{
	char buf[PARSE_TIME_LEN];
	uint32_t ms = 7;

	/* no unit is seconds, to the millisecond */
	CHECK_INT(parse_time_ms("0.5", &ms), 0);
	CHECK_U64(ms, 500);
	CHECK_INT(parse_time_ms("12.34", &ms), 0);
	CHECK_U64(ms, 12340);
	CHECK_INT(parse_time_ms("007", &ms), 0);
	CHECK_U64(ms, 7000);
	CHECK_INT(parse_time_ms("0.0010000", &ms), 0);
	CHECK_U64(ms, 1);
	CHECK_INT(parse_time_ms("0", &ms), 0);
	CHECK_U64(ms, 0);
	/* the units */
	CHECK_INT(parse_time_ms("250ms", &ms), 0);
	CHECK_U64(ms, 250);
	CHECK_INT(parse_time_ms("1.25s", &ms), 0);
	CHECK_U64(ms, 1250);
	CHECK_INT(parse_time_ms("2s", &ms), 0);
	CHECK_U64(ms, 2000);
	CHECK_INT(parse_time_ms("4294967295ms", &ms), 0);
	CHECK_U64(ms, 4294967295U);
	ms = 7;
	CHECK_INT(parse_time_ms("", &ms), -EINVAL);
	CHECK_INT(parse_time_ms("s", &ms), -EINVAL);
	CHECK_INT(parse_time_ms("ms", &ms), -EINVAL);
	CHECK_INT(parse_time_ms("0.0001", &ms), -EINVAL);
	CHECK_INT(parse_time_ms("1.5ms", &ms), -EINVAL);
	CHECK_INT(parse_time_ms("1..5", &ms), -EINVAL);
	CHECK_INT(parse_time_ms("1.", &ms), -EINVAL);
	CHECK_INT(parse_time_ms(".5", &ms), -EINVAL);
	CHECK_INT(parse_time_ms("+1", &ms), -EINVAL);
	CHECK_INT(parse_time_ms("-1s", &ms), -EINVAL);
	CHECK_INT(parse_time_ms("0x10", &ms), -EINVAL);
	CHECK_INT(parse_time_ms("2m", &ms), -EINVAL);
	CHECK_INT(parse_time_ms("2 s", &ms), -EINVAL);
	CHECK_INT(parse_time_ms("4294967296ms", &ms), -ERANGE);
	CHECK_INT(parse_time_ms("4294968", &ms), -ERANGE);
	CHECK_INT(parse_time_ms("18446744073709551617", &ms), -ERANGE);
	CHECK_U64(ms, 7);

	/* and back, as the messages show limits */
	CHECK_STR(fmt_time_ms(buf, sizeof(buf), 600000), "600s");
	CHECK_STR(fmt_time_ms(buf, sizeof(buf), 1500), "1.5s");
	CHECK_STR(fmt_time_ms(buf, sizeof(buf), 10), "10ms");
	CHECK_STR(fmt_time_ms(buf, sizeof(buf), 1250), "1250ms");
}

/*
 * The spec's limits are the model's, checked before either path starts:
 * the keyword the user typed names the mistake. Only the host's own
 * limits (the CPUs online) are the kernel's to judge.
 */
static void run_lat_kernel_limits(void)
{
	LAT_ERR("iters '0' is out of range (1 to 100000000)",
		"o", "send", "a", "1.2.3.4", "iters", "0");
	LAT_ERR("iters '4294967295' is out of range (1 to 100000000)",
		"o", "send", "a", "1.2.3.4", "iters", "4294967295");
	LAT_ERR("warmup '2000000' is out of range (0 to 1000000)",
		"o", "send", "a", "1.2.3.4", "warmup", "2000000");
	LAT_ERR("inline '5000' is out of range (0 to 4096)",
		"o", "send", "a", "1.2.3.4", "inline", "5000");
	LAT_ERR("timeout '1ms' is out of range (10ms to 600s)",
		"o", "send", "a", "1.2.3.4", "timeout", "1ms");
	LAT_ERR("timeout '601' is out of range (10ms to 600s): a number without a unit is seconds; for milliseconds write 601ms",
		"o", "send", "a", "1.2.3.4", "timeout", "601");
	LAT_ERR("inline applies to send and write only",
		"o", "read", "a", "1.2.3.4", "inline", "64");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 cpu=4096",
	       "o", "send", "a", "1.2.3.4", "cpu", "4096");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 timeout-ms=10",
	       "o", "send", "a", "1.2.3.4", "timeout", "10ms");
	LAT_OK("type=0 op=0 addr=1.2.3.4 port=18515 timeout-ms=600000",
	       "o", "send", "a", "1.2.3.4", "timeout", "600");
}

static void run_args_helpers(void)
{
	static const char *const kw[] = { "size", "sizes", NULL, "time",
					  "timeout", "t2" };
	uint8_t addr[16] = { 0 };

	CHECK_INT(args_keyword(kw, ARRAY_SIZE(kw), "size"), 0);
	CHECK_INT(args_keyword(kw, ARRAY_SIZE(kw), "sizes"), 1);
	CHECK_INT(args_keyword(kw, ARRAY_SIZE(kw), "s"), 0);
	CHECK_INT(args_keyword(kw, ARRAY_SIZE(kw), "t"), 3);
	CHECK_INT(args_keyword(kw, ARRAY_SIZE(kw), "timeo"), 4);
	CHECK_INT(args_keyword(kw, ARRAY_SIZE(kw), "t2"), 5);
	CHECK_INT(args_keyword(kw, ARRAY_SIZE(kw), "x"), -1);
	CHECK_INT(args_keyword(kw, ARRAY_SIZE(kw), ""), -1);
	CHECK_INT(args_keyword(kw, ARRAY_SIZE(kw), "sizess"), -1);

	CHECK_INT(parse_addr("198.18.0.1", addr), 4);
	CHECK(!memcmp(addr, "\xc6\x12\x00\x01", 4));
	CHECK_INT(parse_addr("fd00::1", addr), 16);
	CHECK(!memcmp(addr, "\xfd\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", 16));
	CHECK_INT(parse_addr("1.2.3", addr), -EINVAL);
	CHECK_INT(parse_addr("1.2.3.4 ", addr), -EINVAL);
	CHECK_INT(parse_addr("256.1.1.1", addr), -EINVAL);
	CHECK_INT(parse_addr("", addr), -EINVAL);
	CHECK_INT(parse_addr("::1::2", addr), -EINVAL);
	/* untouched on error */
	CHECK(!memcmp(addr, "\xfd\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", 16));
}

static void run_fmt_helpers(void)
{
	static const uint8_t v4[4] = { 198, 18, 0, 1 };
	static const uint8_t v6[16] = { 0xfd, 0, [15] = 1 };
	char buf[FMT_FIXED_LEN], a[FMT_ADDR_LEN];

	CHECK_STR(fmt_fixed(buf, 12345, 3, 2), "12.35");
	CHECK_STR(fmt_fixed(buf, 12344, 3, 2), "12.34");
	CHECK_STR(fmt_fixed(buf, 5, 3, 2), "0.01");
	CHECK_STR(fmt_fixed(buf, 4, 3, 2), "0.00");
	CHECK_STR(fmt_fixed(buf, 999995, 3, 2), "1000.00");
	CHECK_STR(fmt_fixed(buf, 25331123, 3, 3), "25331.123");
	CHECK_STR(fmt_fixed(buf, 25331123, 6, 3), "25.331");
	CHECK_STR(fmt_fixed(buf, 25331500, 6, 3), "25.332");
	CHECK_STR(fmt_fixed(buf, 7, 3, 3), "0.007");
	CHECK_STR(fmt_fixed(buf, 0, 3, 3), "0.000");
	CHECK_STR(fmt_fixed(buf, 7, 0, 0), "7");
	CHECK_STR(fmt_fixed(buf, 1500, 3, 0), "2");
	CHECK_STR(fmt_fixed(buf, UINT64_MAX, 3, 3), "18446744073709551.615");
	CHECK_STR(fmt_fixed(buf, UINT64_MAX, 3, 2), "18446744073709551.62");
	CHECK_STR(fmt_fixed(buf, UINT64_MAX, 6, 3), "18446744073709.552");

	CHECK_STR(fmt_addr(a, v4, 4), "198.18.0.1");
	CHECK_STR(fmt_addr(a, v6, 16), "fd00::1");
	CHECK_STR(fmt_addr_port(a, v4, 4, 18515), "198.18.0.1:18515");
	CHECK_STR(fmt_addr_port(a, v6, 16, 65535), "[fd00::1]:65535");

	CHECK_STR(fmt_name(&fmt_run_state, KVPERF_RUN_STATE_STOPPED),
		  "stopped");
	CHECK_STR(fmt_name(&fmt_run_state, KVPERF_RUN_STATE_CONNECTING),
		  "connecting");
	CHECK_STR(fmt_name(&fmt_op, KVPERF_OP_READ), "read");
	CHECK_STR(fmt_name(&fmt_poll, KVPERF_POLL_WORKQUEUE), "workqueue");
	CHECK_STR(fmt_name(&fmt_run_type, KVPERF_RUN_TYPE_BW), "bw");
	CHECK(fmt_name(&fmt_run_state, KVPERF_RUN_STATE_STOPPED + 1) == NULL);
}


#define CLI_HELP(...)							\
	do {								\
		struct run_cli c_;						\
		RUN_CLI(&c_, __VA_ARGS__);					\
		CHECK_INT(c_.ret, KVPERF_EXIT_OK);			\
		CHECK(!strncmp(c_.out.buf, "Usage: kvperf [-j [-p]] run lat op", 34)); \
		CHECK_STR(c_.err.buf, "");				\
		cap_close(&c_.out);					\
		cap_close(&c_.err);					\
	} while (0)

static void run_cli_dispatch(void)
{
	/* r is run, l lat: the usage error comes from run lat's parser */
	RUN_CLI_ERR("kvperf: missing addr (try 'kvperf run help')\n",
		"r", "l", "o", "send");
	RUN_CLI_ERR("kvperf: missing op (send, write or read) (try 'kvperf run help')\n",
		"-j", "run", "lat");
	RUN_CLI_ERR("kvperf: unknown keyword 'frob' (try 'kvperf run help')\n",
		"ru", "la", "frob");
	/* b is bw, its usage errors its parser's */
	RUN_CLI_ERR("kvperf: qps '17' is out of range (1 to 16) (try 'kvperf run help')\n",
		    "run", "bw", "op", "send", "addr", "1.2.3.4", "qps", "17");
	RUN_CLI_ERR("kvperf: missing op (send, write or read) (try 'kvperf run help')\n",
		    "r", "b");
	RUN_CLI_ERR("kvperf: 'qps' does not apply to run lat (try 'kvperf run help')\n",
		    "run", "lat", "op", "send", "addr", "1.2.3.4", "qps", "2");
	RUN_CLI_ERR("kvperf: unknown run command 'frob' (try 'kvperf run help')\n",
		"run", "frob");
	RUN_CLI_ERR("kvperf: invalid run ID 'x' (try 'kvperf run help')\n",
		"run", "show", "x");
	RUN_CLI_ERR("kvperf: invalid run ID 'x' (try 'kvperf run help')\n",
		"r", "s", "x");
	RUN_CLI_ERR("kvperf: unexpected argument '2' (try 'kvperf run help')\n",
		"run", "show", "1", "2");
	RUN_CLI_ERR("kvperf: missing run ID (try 'kvperf run help')\n",
		"run", "stop");
	RUN_CLI_ERR("kvperf: missing run ID (try 'kvperf run help')\n",
		"r", "st");
	RUN_CLI_ERR("kvperf: invalid run ID '-1' (try 'kvperf run help')\n",
		"run", "delete", "-1");
	RUN_CLI_ERR("kvperf: missing run ID (try 'kvperf run help')\n",
		"r", "d");
	RUN_CLI_ERR("kvperf: unexpected argument 'now' (try 'kvperf run help')\n",
		"run", "lat", "help", "now");
}

static void run_cli_help(void)
{
	struct run_cli c;

	CLI_HELP("run", "help");
	CLI_HELP("help", "run");
	CLI_HELP("run", "lat", "help");
	CLI_HELP("run", "bw", "help");
	CLI_HELP("r", "b", "h");
	CLI_HELP("r", "l", "h");
	CLI_HELP("run", "show", "help");
	CLI_HELP("run", "stop", "help");
	CLI_HELP("run", "delete", "he");

	RUN_CLI(&c, "run", "help");
	CHECK(strstr(c.out.buf, "Examples:\n") != NULL);
	CHECK(strstr(c.out.buf, "  kvperf r l o send a 198.18.0.1 no-wait\n"));
	CHECK(strstr(c.out.buf, "              [key HEX | key-file PATH]\n"));
	CHECK(strstr(c.out.buf, "  key      the server's shared secret"));
	CHECK(strstr(c.out.buf, "  kvperf run lat op send addr 198.18.0.1 key-file ~/.kvperf.key\n"));
	cap_close(&c.out);
	cap_close(&c.err);

	RUN_CLI(&c, "help");
	CHECK_INT(c.ret, KVPERF_EXIT_OK);
	CHECK(strstr(c.out.buf, "\n  server     ") != NULL);
	CHECK(strstr(c.out.buf, "\n  run        ") != NULL);
	CHECK(strstr(c.out.buf, "  kvperf run lat op send addr 198.18.0.1") !=
	      NULL);
	cap_close(&c.out);
	cap_close(&c.err);
}

/* ---- printing ---- */

struct res {
	uint32_t size;
	uint64_t iters, min, max, p50, mean_ps, stdev_ps, p99, p999, p90;
	uint64_t p9999, mismatches, elapsed;
	uint32_t ppm;
};


static void put_result(struct nl_msg *msg, const struct res *r)
{
	struct nlattr *nest = nla_nest_start(msg, KVPERF_A_RUN_RESULT);
	const int pad = KVPERF_A_RESULT_PAD;

	nla_put_u32(msg, KVPERF_A_RESULT_SIZE, r->size);
	run_put_u64(msg, KVPERF_A_RESULT_ITERATIONS, pad, r->iters);
	run_put_u64(msg, KVPERF_A_RESULT_MIN_NS, pad, r->min);
	run_put_u64(msg, KVPERF_A_RESULT_MAX_NS, pad, r->max);
	run_put_u64(msg, KVPERF_A_RESULT_MEAN_PS, pad, r->mean_ps);
	run_put_u64(msg, KVPERF_A_RESULT_STDEV_PS, pad, r->stdev_ps);
	run_put_u64(msg, KVPERF_A_RESULT_P50_NS, pad, r->p50);
	run_put_u64(msg, KVPERF_A_RESULT_P90_NS, pad, r->p90);
	run_put_u64(msg, KVPERF_A_RESULT_P99_NS, pad, r->p99);
	run_put_u64(msg, KVPERF_A_RESULT_P999_NS, pad, r->p999);
	run_put_u64(msg, KVPERF_A_RESULT_P9999_NS, pad, r->p9999);
	run_put_u64(msg, KVPERF_A_RESULT_MISMATCHES, pad, r->mismatches);
	nla_put_u32(msg, KVPERF_A_RESULT_HIST_REL_ERR_PPM, r->ppm);
	run_put_u64(msg, KVPERF_A_RESULT_ELAPSED_NS, pad, r->elapsed);
	nla_nest_end(msg, nest);
}

static const uint8_t addr6[16] = { 0xfd, 0, [15] = 1 };

/* The run of the perftest-like example: a send run of 64 B, done. */
static const struct res res64 = {
	.size = 64, .iters = 10000, .min = 12340, .max = 5012010,
	.p50 = 20110, .mean_ps = 25331123, .stdev_ps = 51204456,
	.p99 = 30120, .p999 = 4100200, .p90 = 22010, .p9999 = 4900000,
	.mismatches = 0, .elapsed = 253311230, .ppm = 3907,
};


static struct nl_msg *run_msg(uint8_t cmd, uint32_t id, uint8_t op,
			      uint8_t state)
{
	return run_type_msg(cmd, id, KVPERF_RUN_TYPE_LAT, op, state);
}

static const char done_text[] =
	"# run 3: lat send to 198.18.0.1:18515 dev rxe0, state done\n"
	"# path kernel, poll busy, inline 0, mtu 1024, warmup 16, kernel 6.1.0-56-amd64\n"
	" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]   t_p90[usec]  t_p99.99[usec]  mismatches\n"
	" 64      10000          12.34          5012.01      20.11              25.331           51.204           30.12                  4100.20                  22.01        4900.00         0\n";

static const char done_json[] =
	"{\"id\":3,\"type\":\"lat\",\"op\":\"send\",\"addr\":\"198.18.0.1\","
	"\"port\":18515,\"dev\":\"rxe0\",\"verify\":false,\"state\":\"done\","
	"\"progress\":10016,\"path\":\"kernel\",\"poll\":\"busy\",\"inline\":0,\"mtu\":1024,"
	"\"warmup\":16,\"kernel\":\"6.1.0-56-amd64\",\"size\":64,"
	"\"iterations\":10000,\"timeout_ms\":5000,"
	"\"results\":[{\"size\":64,\"iterations\":10000,\"min_ns\":12340,"
	"\"max_ns\":5012010,\"p50_ns\":20110,\"mean_ns\":25331.123,"
	"\"stdev_ns\":51204.456,\"p99_ns\":30120,\"p999_ns\":4100200,"
	"\"p90_ns\":22010,\"p9999_ns\":4900000,\"mismatches\":0,"
	"\"hist_rel_err_ppm\":3907,\"elapsed_ns\":253311230}]}\n";


static int print_one(struct capture *c, bool json, struct nl_msg *msg,
		     struct capture *err)
{
	return run_print_one(c, json, false, msg, err);
}

static void run_print_done(void)
{
	struct nl_msg *msg = run_msg(KVPERF_CMD_RUN_GET, 3, KVPERF_OP_SEND,
				     KVPERF_RUN_STATE_DONE);
	struct capture c, err;

	put_result(msg, &res64);
	CHECK_INT(print_one(&c, false, msg, &err), 0);
	CHECK_STR(c.buf, done_text);
	CHECK_STR(err.buf, "");
	cap_close(&c);
	cap_close(&err);

	CHECK_INT(print_one(&c, true, msg, &err), 0);
	CHECK_STR(c.buf, done_json);
	CHECK_STR(err.buf, "");
	CHECK_JSON(c.buf,
		   "assert d['id'] == 3 and d['state'] == 'done'\n"
		   "assert d['type'] == 'lat' and d['op'] == 'send'\n"
		   "assert d['addr'] == '198.18.0.1' and d['port'] == 18515\n"
		   "assert d['verify'] is False\n"
		   "for k in ('cpu', 'error', 'duration_ms', 'size_max'):\n"
		   "    assert k not in d, k\n"
		   "r = d['results']\n"
		   "assert len(r) == 1\n"
		   "r = r[0]\n"
		   "assert r['mean_ns'] == 25331.123\n"
		   "assert r['stdev_ns'] == 51204.456\n"
		   "for k in ('size', 'iterations', 'min_ns', 'max_ns',\n"
		   "          'p50_ns', 'p90_ns', 'p99_ns', 'p999_ns',\n"
		   "          'p9999_ns', 'mismatches', 'hist_rel_err_ppm',\n"
		   "          'elapsed_ns'):\n"
		   "    assert type(r[k]) is int, k\n"
		   "assert r['p9999_ns'] == 4900000\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

/* mean_ns and stdev_ns: exactly 3 decimals, zero-padded, from the ps. */
static void run_print_mean_decimals(void)
{
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_RUN_GET);
	struct res r = { .size = 2, .mean_ps = 1005, .stdev_ps = 7 };
	struct capture c, err;

	put_result(msg, &r);
	r.mean_ps = 123456789012000ULL;
	r.stdev_ps = 0;
	put_result(msg, &r);
	CHECK_INT(print_one(&c, true, msg, &err), 0);
	CHECK(strstr(c.buf, "\"mean_ns\":1.005,\"stdev_ns\":0.007,") != NULL);
	CHECK(strstr(c.buf, "\"mean_ns\":123456789012.000,"
			    "\"stdev_ns\":0.000,") != NULL);
	CHECK_JSON(c.buf,
		   "assert [r['mean_ns'] for r in d['results']] == "
		   "[1.005, 123456789012.0]\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

static void run_print_failed(void)
{
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_RUN_FINISHED_NTF);
	struct capture c, err;

	nla_put_u32(msg, KVPERF_A_RUN_ID, 4);
	nla_put_u8(msg, KVPERF_A_RUN_TYPE, KVPERF_RUN_TYPE_LAT);
	nla_put_u8(msg, KVPERF_A_RUN_OP, KVPERF_OP_WRITE);
	nla_put(msg, KVPERF_A_RUN_ADDR, sizeof(addr6), addr6);
	nla_put_u16(msg, KVPERF_A_RUN_PORT, 20000);
	nla_put_u32(msg, KVPERF_A_RUN_WARMUP, 16);
	nla_put_u8(msg, KVPERF_A_RUN_POLL, KVPERF_POLL_SOFTIRQ);
	nla_put_u32(msg, KVPERF_A_RUN_INLINE, 0);
	nla_put_u8(msg, KVPERF_A_RUN_STATE, KVPERF_RUN_STATE_FAILED);
	nla_put_string(msg, KVPERF_A_RUN_ERROR,
		       "rdma_resolve_route: timed out");
	nla_put_string(msg, KVPERF_A_RUN_KERNEL, "6.1.0-56-amd64");
	run_put_u64(msg, KVPERF_A_RUN_PROGRESS, KVPERF_A_RUN_PAD, 0);

	CHECK_INT(print_one(&c, false, msg, &err), 0);
	CHECK_STR(c.buf,
		  "# run 4: lat write to [fd00::1]:20000, state failed\n"
		  "# path kernel, poll softirq, inline 0, warmup 16, kernel 6.1.0-56-amd64\n"
		  "error: rdma_resolve_route: timed out\n");
	CHECK_STR(err.buf, "");
	cap_close(&c);
	cap_close(&err);

	CHECK_INT(print_one(&c, true, msg, &err), 0);
	CHECK_STR(c.buf,
		  "{\"id\":4,\"type\":\"lat\",\"op\":\"write\","
		  "\"addr\":\"fd00::1\",\"port\":20000,\"verify\":false,"
		  "\"state\":\"failed\",\"progress\":0,\"path\":\"kernel\",\"poll\":\"softirq\","
		  "\"inline\":0,\"warmup\":16,\"kernel\":\"6.1.0-56-amd64\","
		  "\"error\":\"rdma_resolve_route: timed out\","
		  "\"results\":[]}\n");
	CHECK_JSON(c.buf,
		   "assert d['state'] == 'failed'\n"
		   "assert d['error'] == 'rdma_resolve_route: timed out'\n"
		   "assert d['results'] == []\n"
		   "assert 'dev' not in d and 'mtu' not in d\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

/* A sweep with verify, pinned, in duration mode; odd values. */
static void run_print_sweep_verify(void)
{
	static const struct res rows[] = {
		{ .size = 2, .iters = 1000, .min = 1540, .max = 3700,
		  .p50 = 1580, .mean_ps = 1600499, .stdev_ps = 60500,
		  .p99 = 1820, .p999 = 3700, .p90 = 1650, .p9999 = 3700,
		  .elapsed = 1600499, .ppm = 3907 },
		{ .size = 4, .iters = 1000, .min = 1545, .max = 1234567890123,
		  .p50 = 1585, .mean_ps = 1600500, .stdev_ps = 500,
		  .p99 = 1825, .p999 = 3705, .p90 = 1655, .p9999 = 3705,
		  .mismatches = 3, .elapsed = 1, .ppm = 3907 },
		{ .size = 8, .iters = 123456789012, .min = 5, .max = 4,
		  .p50 = 1005, .mean_ps = 999, .stdev_ps = 1499, .p99 = 1,
		  .p999 = 0, .p90 = 9999995, .p9999 = 10000005,
		  .mismatches = UINT64_MAX, .elapsed = 0, .ppm = 0 },
	};
	struct nl_msg *msg = run_msg(KVPERF_CMD_RUN_GET, 5, KVPERF_OP_READ,
				     KVPERF_RUN_STATE_DONE);
	struct capture c, err;
	size_t i;

	nla_put_u32(msg, KVPERF_A_RUN_SIZE_MAX, 8);
	nla_put_u32(msg, KVPERF_A_RUN_DURATION_MS, 500);
	nla_put_flag(msg, KVPERF_A_RUN_VERIFY);
	nla_put_u32(msg, KVPERF_A_RUN_CPU, 5);
	for (i = 0; i < ARRAY_SIZE(rows); i++)
		put_result(msg, &rows[i]);

	CHECK_INT(print_one(&c, false, msg, &err), 0);
	CHECK_STR(c.buf,
		  "# run 5: lat read to 198.18.0.1:18515 dev rxe0, verify, state done\n"
		  "# path kernel, poll busy, inline 0, mtu 1024, warmup 16, cpu 5, duration 500 ms, kernel 6.1.0-56-amd64\n"
		  " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]   t_p90[usec]  t_p99.99[usec]  mismatches\n"
		  " 2       1000           1.54           3.70         1.58               1.600            0.061            1.82                   3.70                     1.65         3.70            0\n"
		  " 4       1000           1.55           1234567890.12 1.59               1.601            0.001            1.83                   3.71                     1.66         3.71            3\n"
		  " 8       123456789012   0.01           0.00         1.01               0.001            0.001            0.00                   0.00                     10000.00     10000.01        18446744073709551615\n");
	CHECK_STR(err.buf, "");
	cap_close(&c);
	cap_close(&err);

	CHECK_INT(print_one(&c, true, msg, &err), 0);
	CHECK_JSON(c.buf,
		   "assert d['verify'] is True and d['cpu'] == 5\n"
		   "assert d['duration_ms'] == 500\n"
		   "assert d['size'] == 64 and d['size_max'] == 8\n"
		   "r = d['results']\n"
		   "assert [x['size'] for x in r] == [2, 4, 8]\n"
		   "assert r[1]['max_ns'] == 1234567890123\n"
		   "assert r[1]['mismatches'] == 3\n"
		   "assert r[2]['mismatches'] == 18446744073709551615\n"
		   "assert r[2]['iterations'] == 123456789012\n"
		   "assert r[0]['mean_ns'] == 1600.499\n"
		   "assert r[2]['mean_ns'] == 0.999\n"
		   "assert r[2]['stdev_ns'] == 1.499\n");
	CHECK(strstr(c.buf, "\"mean_ns\":1600.499,\"stdev_ns\":60.500,"));
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

/* A result of a run with stats off, as kvperf_fill_result() puts it. */
static void put_mean_result(struct nl_msg *msg, uint32_t size, uint64_t iters,
			    uint64_t mean_ps, uint64_t elapsed)
{
	struct nlattr *nest = nla_nest_start(msg, KVPERF_A_RUN_RESULT);
	const int pad = KVPERF_A_RESULT_PAD;

	nla_put_u32(msg, KVPERF_A_RESULT_SIZE, size);
	run_put_u64(msg, KVPERF_A_RESULT_ITERATIONS, pad, iters);
	run_put_u64(msg, KVPERF_A_RESULT_MEAN_PS, pad, mean_ps);
	run_put_u64(msg, KVPERF_A_RESULT_MISMATCHES, pad, 0);
	run_put_u64(msg, KVPERF_A_RESULT_ELAPSED_NS, pad, elapsed);
	nla_nest_end(msg, nest);
}

static const char stats_off_text[] =
	"# run 8: lat write to 198.18.0.1:18515 dev rxe0, stats off, state done\n"
	"# path kernel, poll busy, inline 0, mtu 1024, warmup 16, kernel 6.1.0-56-amd64\n"
	" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]   t_p90[usec]  t_p99.99[usec]  mismatches\n"
	" 64      10000          -              -            -                  25.331           -                -                      -                        -            -               0\n"
	" 128     10000          -              -            -                  1.000            -                -                      -                        -            -               0\n";

/*
 * stats off: "stats off" in the title, the mean and "-" for what needs
 * samples in the table, and in JSON "stats":"off" and results without
 * those keys; stats on: "stats":"on" in JSON only.
 */
static void run_print_stats_off(void)
{
	struct nl_msg *msg = run_msg(KVPERF_CMD_RUN_GET, 8, KVPERF_OP_WRITE,
				     KVPERF_RUN_STATE_DONE);
	struct capture c, err;

	nla_put_u8(msg, KVPERF_A_RUN_STATS, KVPERF_STATS_MODE_OFF);
	put_mean_result(msg, 64, 10000, 25331123, 506622460);
	put_mean_result(msg, 128, 10000, 1000000, 20000000);
	CHECK_INT(print_one(&c, false, msg, &err), 0);
	CHECK_STR(c.buf, stats_off_text);
	CHECK_STR(err.buf, "");
	cap_close(&c);
	cap_close(&err);

	CHECK_INT(print_one(&c, true, msg, &err), 0);
	CHECK_STR(err.buf, "");
	CHECK(strstr(c.buf, "\"verify\":false,\"stats\":\"off\",\"state\":") != NULL);
	CHECK(strstr(c.buf, "\"results\":[{\"size\":64,\"iterations\":10000,"
			    "\"mean_ns\":25331.123,\"mismatches\":0,"
			    "\"elapsed_ns\":506622460},") != NULL);
	CHECK_JSON(c.buf,
		   "assert d['stats'] == 'off'\n"
		   "r = d['results']\n"
		   "assert [x['size'] for x in r] == [64, 128]\n"
		   "for x in r:\n"
		   "    assert sorted(x) == ['elapsed_ns', 'iterations', "
		   "'mean_ns', 'mismatches', 'size'], sorted(x)\n"
		   "assert r[1]['mean_ns'] == 1000.0\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);

	/* on: the default, so text says nothing */
	msg = run_msg(KVPERF_CMD_RUN_GET, 3, KVPERF_OP_SEND,
		      KVPERF_RUN_STATE_DONE);
	nla_put_u8(msg, KVPERF_A_RUN_STATS, KVPERF_STATS_MODE_ON);
	put_result(msg, &res64);
	CHECK_INT(print_one(&c, false, msg, &err), 0);
	CHECK_STR(c.buf, done_text);
	cap_close(&c);
	CHECK_INT(print_one(&c, true, msg, &err), 0);
	CHECK(strstr(c.buf, "\"verify\":false,\"stats\":\"on\",\"state\":") != NULL);
	CHECK_JSON(c.buf,
		   "assert d['stats'] == 'on'\n"
		   "assert d['results'][0]['p99_ns'] == 30120\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

/* While it runs: progress in the title, the sizes done so far. */
static void run_print_running(void)
{
	struct nl_msg *msg = run_msg(KVPERF_CMD_RUN_GET, 6, KVPERF_OP_SEND,
				     KVPERF_RUN_STATE_RUNNING);
	struct capture c, err;

	put_result(msg, &res64);
	CHECK_INT(print_one(&c, false, msg, &err), 0);
	CHECK(!strncmp(c.buf, "# run 6: lat send to 198.18.0.1:18515 dev rxe0, state running, progress 10016\n"
		       "# path kernel, poll busy,", 103));
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);

	/* connecting: no results yet, no table */
	msg = unit_genl_msg(KVPERF_CMD_RUN_GET);
	nla_put_u32(msg, KVPERF_A_RUN_ID, 7);
	nla_put_u8(msg, KVPERF_A_RUN_STATE, KVPERF_RUN_STATE_CONNECTING);
	nla_put_u64(msg, KVPERF_A_RUN_PROGRESS, 0);
	CHECK_INT(print_one(&c, false, msg, &err), 0);
	CHECK_STR(c.buf, "# run 7:, state connecting, progress 0\n"
		  "# path kernel\n");
	cap_close(&c);
	CHECK_INT(print_one(&c, true, msg, &err), 0);
	CHECK_STR(c.buf, "{\"id\":7,\"verify\":false,\"state\":\"connecting\","
		  "\"progress\":0,\"path\":\"kernel\",\"results\":[]}\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

/* A newer module: unknown enums as numbers, unknown attributes ignored. */
static void run_print_forward_compatible(void)
{
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_RUN_GET);
	struct capture c, err;
	struct nlattr *nest;

	nla_put_u32(msg, KVPERF_A_RUN_ID, 9);
	nla_put_u8(msg, KVPERF_A_RUN_TYPE, 7);
	nla_put_u8(msg, KVPERF_A_RUN_OP, 9);
	nla_put_u8(msg, KVPERF_A_RUN_POLL, 5);
	nla_put_u8(msg, KVPERF_A_RUN_STATE, 12);
	nla_put_u16(msg, KVPERF_A_RUN_PORT, 1);
	nla_put_string(msg, KVPERF_A_RUN_MAX + 1, "future");
	nest = nla_nest_start(msg, KVPERF_A_RUN_RESULT);
	nla_put_u32(msg, KVPERF_A_RESULT_SIZE, 2);
	nla_put_u64(msg, KVPERF_A_RESULT_MEAN_PS, 4000);
	nla_put_u16(msg, KVPERF_A_RESULT_MAX + 2, 1);
	nla_nest_end(msg, nest);

	CHECK_INT(print_one(&c, false, msg, &err), 0);
	CHECK_STR(c.buf,
		  "# run 9: 7 9 port 1, state 12\n"
		  "# path kernel, poll 5\n"
		  " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]   t_p90[usec]  t_p99.99[usec]  mismatches\n"
		  " 2       -              -              -            -                  0.004            -                -                      -                        -            -               -\n");
	cap_close(&c);
	CHECK_INT(print_one(&c, true, msg, &err), 0);
	CHECK_STR(c.buf, "{\"id\":9,\"type\":7,\"op\":9,\"port\":1,"
		  "\"verify\":false,\"state\":12,\"path\":\"kernel\",\"poll\":5,"
		  "\"results\":[{\"size\":2,\"mean_ns\":4.000}]}\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

static void run_print_malformed(void)
{
	struct nl_msg *msg = run_msg(KVPERF_CMD_RUN_GET, 3, KVPERF_OP_SEND,
				     KVPERF_RUN_STATE_DONE);
	struct capture c, err;
	struct nlattr *nest;

	/* a good result first: nothing of the run may be printed */
	put_result(msg, &res64);
	nest = nla_nest_start(msg, KVPERF_A_RUN_RESULT);
	nla_put_u32(msg, KVPERF_A_RESULT_MIN_NS, 5);
	nla_nest_end(msg, nest);
	CHECK_INT(print_one(&c, false, msg, &err), -EINVAL);
	CHECK_STR(c.buf, "");
	CHECK_STR(err.buf, "kvperf: malformed reply from the kernel: "
		  "attribute result.min-ns has length 4\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);

	msg = unit_genl_msg(KVPERF_CMD_RUN_GET);
	nla_put(msg, KVPERF_A_RUN_ADDR, 5, "\1\2\3\4\5");
	CHECK_INT(print_one(&c, true, msg, &err), -EINVAL);
	CHECK_STR(c.buf, "\n");
	CHECK_STR(err.buf, "kvperf: malformed reply from the kernel: "
		  "attribute run.addr has length 5\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);

	msg = unit_genl_msg(KVPERF_CMD_RUN_GET);
	nla_put_u8(msg, KVPERF_A_RUN_VERIFY, 1);
	CHECK_INT(print_one(&c, false, msg, &err), -EINVAL);
	CHECK_STR(err.buf, "kvperf: malformed reply from the kernel: "
		  "attribute run.verify has length 1\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);

	msg = unit_genl_msg(KVPERF_CMD_RUN_GET);
	nla_put_u32(msg, KVPERF_A_RUN_PORT, 18515);
	CHECK_INT(print_one(&c, false, msg, &err), -EINVAL);
	CHECK_STR(err.buf, "kvperf: malformed reply from the kernel: "
		  "attribute run.port has length 4\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

/* "run show -j": an array of runs; the text of the runs, one by one. */
static void run_print_array(void)
{
	struct nl_msg *msgs[2] = {
		run_msg(KVPERF_CMD_RUN_GET, 3, KVPERF_OP_SEND,
			KVPERF_RUN_STATE_DONE),
		run_msg(KVPERF_CMD_RUN_GET, 4, KVPERF_OP_WRITE,
			KVPERF_RUN_STATE_STOPPED),
	};
	struct capture c, err;
	struct printer p;
	int i;

	put_result(msgs[0], &res64);
	pr_init(&p, cap_open(&c), true, true);
	cap_open(&err);
	pr_arr_open(&p, NULL);
	for (i = 0; i < 2; i++)
		CHECK_INT(run_print_msg(&p, nlmsg_hdr(msgs[i]), err.f), 0);
	pr_arr_close(&p);
	pr_finish(&p);
	CHECK(!strncmp(cap_str(&c), "[\n    {\n        \"id\": 3,\n", 25));
	CHECK_JSON(c.buf,
		   "assert [r['id'] for r in d] == [3, 4]\n"
		   "assert [r['state'] for r in d] == ['done', 'stopped']\n"
		   "assert len(d[0]['results']) == 1\n"
		   "assert d[1]['results'] == []\n"
		   "assert d[0]['results'][0]['mean_ns'] == 25331.123\n");
	CHECK_STR(cap_str(&err), "");
	cap_close(&c);
	cap_close(&err);
	for (i = 0; i < 2; i++)
		nlmsg_free(msgs[i]);
}

/* ---- how "run lat" ends ---- */



static void run_finish_states(void)
{
	struct nl_msg *msg = run_msg(KVPERF_CMD_RUN_FINISHED_NTF, 3,
				     KVPERF_OP_SEND, KVPERF_RUN_STATE_DONE);
	struct run_finished f;

	put_result(msg, &res64);
	run_finish_capture(&f, msg, false, false);
	CHECK_INT(f.ret, KVPERF_EXIT_OK);
	CHECK_STR(f.out.buf, done_text);
	CHECK_STR(f.err.buf, "");
	run_finish_done(&f);

	/* JSON: the run object itself, not an array */
	run_finish_capture(&f, msg, true, false);
	CHECK_INT(f.ret, KVPERF_EXIT_OK);
	CHECK_STR(f.out.buf, done_json);
	CHECK_JSON(f.out.buf, "assert isinstance(d, dict) and d['id'] == 3\n");
	run_finish_done(&f);
	nlmsg_free(msg);

	/* stopped: what it measured, then the note */
	msg = run_msg(KVPERF_CMD_RUN_FINISHED_NTF, 5, KVPERF_OP_SEND,
		      KVPERF_RUN_STATE_STOPPED);
	put_result(msg, &res64);
	run_finish_capture(&f, msg, false, false);
	CHECK_INT(f.ret, KVPERF_EXIT_ERROR);
	CHECK(strstr(f.out.buf, ", state stopped\n") != NULL);
	CHECK(strstr(f.out.buf, "\n 64      10000 ") != NULL);
	CHECK_STR(f.err.buf, "kvperf: run 5 stopped\n");
	run_finish_done(&f);
	nlmsg_free(msg);

	msg = run_msg(KVPERF_CMD_RUN_FINISHED_NTF, 4, KVPERF_OP_SEND,
		      KVPERF_RUN_STATE_FAILED);
	nla_put_string(msg, KVPERF_A_RUN_ERROR, "connection refused");
	run_finish_capture(&f, msg, true, false);
	CHECK_INT(f.ret, KVPERF_EXIT_ERROR);
	CHECK_JSON(f.out.buf, "assert d['error'] == 'connection refused'\n"
		   "assert d['results'] == []\n");
	CHECK_STR(f.err.buf, "kvperf: run 4 failed: connection refused\n");
	run_finish_done(&f);

	/* text: the error once, on stderr; the run without "error:" */
	run_finish_capture(&f, msg, false, false);
	CHECK_INT(f.ret, KVPERF_EXIT_ERROR);
	CHECK(strstr(f.out.buf, ", state failed\n") != NULL);
	CHECK(strstr(f.out.buf, "connection refused") == NULL);
	CHECK_STR(f.err.buf, "kvperf: run 4 failed: connection refused\n");
	run_finish_done(&f);
	nlmsg_free(msg);

	/* failed without a reason, and a state this tool does not know */
	msg = unit_genl_msg(KVPERF_CMD_RUN_FINISHED_NTF);
	nla_put_u32(msg, KVPERF_A_RUN_ID, 8);
	nla_put_u8(msg, KVPERF_A_RUN_STATE, KVPERF_RUN_STATE_FAILED);
	run_finish_capture(&f, msg, false, false);
	CHECK_INT(f.ret, KVPERF_EXIT_ERROR);
	CHECK_STR(f.err.buf, "kvperf: run 8 failed: no reason given\n");
	run_finish_done(&f);
	nlmsg_free(msg);

	msg = unit_genl_msg(KVPERF_CMD_RUN_FINISHED_NTF);
	nla_put_u32(msg, KVPERF_A_RUN_ID, 8);
	nla_put_u8(msg, KVPERF_A_RUN_STATE, 42);
	run_finish_capture(&f, msg, false, false);
	CHECK_INT(f.ret, KVPERF_EXIT_ERROR);
	CHECK_STR(f.err.buf, "kvperf: run 8 ended in state 42\n");
	run_finish_done(&f);
	nlmsg_free(msg);

	/* malformed: nothing on stdout, exit 1 */
	msg = unit_genl_msg(KVPERF_CMD_RUN_FINISHED_NTF);
	nla_put_u64(msg, KVPERF_A_RUN_STATE, KVPERF_RUN_STATE_DONE);
	run_finish_capture(&f, msg, false, false);
	CHECK_INT(f.ret, KVPERF_EXIT_ERROR);
	CHECK_STR(f.out.buf, "");
	CHECK_STR(f.err.buf, "kvperf: malformed reply from the kernel: "
		  "attribute run.state has length 8\n");
	run_finish_done(&f);
	nlmsg_free(msg);
}

static void run_started_output(void)
{
	struct capture c;
	struct printer p;

	pr_init(&p, cap_open(&c), false, false);
	run_print_started(&p, 7);
	CHECK_STR(cap_str(&c), "run 7 started\n");
	cap_close(&c);

	pr_init(&p, cap_open(&c), true, false);
	run_print_started(&p, 7);
	CHECK_STR(cap_str(&c), "{\"id\":7}\n");
	cap_close(&c);
}

static struct nl_msg *event(uint8_t cmd, uint32_t id, uint8_t state,
			    uint64_t progress)
{
	struct nl_msg *msg = unit_genl_msg(cmd);

	nla_put_u32(msg, KVPERF_A_RUN_ID, id);
	nla_put_u8(msg, KVPERF_A_RUN_STATE, state);
	nla_put_u64(msg, KVPERF_A_RUN_PROGRESS, progress);
	return msg;
}

static void keep_progress(void *arg, const struct kv_run *ev)
{
	uint64_t *last = arg;

	*last = ev->progress;
}

/*
 * Once a run-get said run 3 ended: the progress still queued is shown,
 * the run-finished event keeps the reply that is there.
 */
static void late_events(struct run_wait *w)
{
	struct nlmsghdr *final = w->final;
	struct run_wait late = *w;
	uint64_t last = 0;
	struct nl_msg *msg;

	late.progress = keep_progress;
	late.arg = &last;
	msg = event(KVPERF_CMD_RUN_PROGRESS_NTF, 3,
		    KVPERF_RUN_STATE_RUNNING, 4000);
	CHECK_INT(run_wait_event(&late, nlmsg_hdr(msg)), 0);
	nlmsg_free(msg);
	CHECK_U64(last, 4000);
	msg = event(KVPERF_CMD_RUN_FINISHED_NTF, 3, KVPERF_RUN_STATE_DONE, 9);
	CHECK_INT(run_wait_event(&late, nlmsg_hdr(msg)), 1);
	nlmsg_free(msg);
	CHECK(late.final == final);
}

/* What ends the wait for run 3, and what does not. */
static void run_wait_for_end(void)
{
	struct run_show show = { 0 };
	struct run_wait w = {
		.id = 3, .progress = run_show_event, .quiet = run_show_quiet,
		.arg = &show,
	};
	struct nl_msg *msg;
	struct capture err, tty;

	w.err = cap_open(&err);
	msg = event(KVPERF_CMD_RUN_PROGRESS_NTF, 3,
		    KVPERF_RUN_STATE_RUNNING, 5000);
	CHECK_INT(run_wait_event(&w, nlmsg_hdr(msg)), 0);
	nlmsg_free(msg);
	msg = event(KVPERF_CMD_RUN_FINISHED_NTF, 4, KVPERF_RUN_STATE_DONE, 9);
	CHECK_INT(run_wait_event(&w, nlmsg_hdr(msg)), 0);
	nlmsg_free(msg);
	/* a device event, a malformed one, a run-get reply: not events */
	msg = unit_genl_msg(KVPERF_CMD_DEV_ADD_NTF);
	nla_put_u32(msg, KVPERF_A_DEV_INDEX, 3);
	CHECK_INT(run_wait_event(&w, nlmsg_hdr(msg)), 0);
	nlmsg_free(msg);
	msg = unit_genl_msg(KVPERF_CMD_RUN_FINISHED_NTF);
	nla_put_u64(msg, KVPERF_A_RUN_ID, 3);
	CHECK_INT(run_wait_event(&w, nlmsg_hdr(msg)), 0);
	nlmsg_free(msg);
	msg = event(KVPERF_CMD_RUN_GET, 3, KVPERF_RUN_STATE_DONE, 9);
	CHECK_INT(run_wait_event(&w, nlmsg_hdr(msg)), 0);
	nlmsg_free(msg);
	CHECK(w.final == NULL);

	msg = run_msg(KVPERF_CMD_RUN_FINISHED_NTF, 3, KVPERF_OP_SEND,
		      KVPERF_RUN_STATE_STOPPED);
	CHECK_INT(run_wait_event(&w, nlmsg_hdr(msg)), 1);
	CHECK(w.final != NULL);
	if (w.final)
		CHECK(!memcmp(w.final, nlmsg_hdr(msg),
			      nlmsg_hdr(msg)->nlmsg_len));
	free(w.final);
	nlmsg_free(msg);
	CHECK_STR(cap_str(&err), "kvperf: malformed reply from the kernel: "
		  "attribute run.id has length 8\n");
	cap_close(&err);

	/* the check every 2 s: only an ended run ends the wait */
	w.final = NULL;
	w.err = cap_open(&err);
	msg = event(KVPERF_CMD_RUN_GET, 3, KVPERF_RUN_STATE_RUNNING, 9);
	CHECK_INT(run_wait_reply(&w, nlmsg_hdr(msg)), 0);
	nlmsg_free(msg);
	msg = event(KVPERF_CMD_RUN_GET, 3, KVPERF_RUN_STATE_CONNECTING, 0);
	CHECK_INT(run_wait_reply(&w, nlmsg_hdr(msg)), 0);
	nlmsg_free(msg);
	msg = event(KVPERF_CMD_RUN_GET, 3, KVPERF_RUN_STATE_FAILED, 0);
	CHECK_INT(run_wait_reply(&w, nlmsg_hdr(msg)), 1);
	CHECK(w.final != NULL);
	nlmsg_free(msg);
	late_events(&w);
	free(w.final);
	msg = unit_genl_msg(KVPERF_CMD_RUN_GET);
	nla_put_u32(msg, KVPERF_A_RUN_STATE, KVPERF_RUN_STATE_DONE);
	CHECK_INT(run_wait_reply(&w, nlmsg_hdr(msg)), -EINVAL);
	nlmsg_free(msg);
	CHECK_STR(cap_str(&err), "kvperf: malformed reply from the kernel: "
		  "attribute run.state has length 4\n");
	cap_close(&err);

	/* on a terminal, progress */
	w.final = NULL;
	w.err = cap_open(&err);
	show.tty = cap_open(&tty);
	msg = event(KVPERF_CMD_RUN_PROGRESS_NTF, 3,
		    KVPERF_RUN_STATE_RUNNING, 5000);
	CHECK_INT(run_wait_event(&w, nlmsg_hdr(msg)), 0);
	nlmsg_free(msg);
	msg = event(KVPERF_CMD_RUN_PROGRESS_NTF, 2,
		    KVPERF_RUN_STATE_RUNNING, 7000);
	CHECK_INT(run_wait_event(&w, nlmsg_hdr(msg)), 0);
	nlmsg_free(msg);
	CHECK_STR(cap_str(&tty), "\rrun 3 running: 5000 iterations");
	CHECK(show.progress_shown);
	cap_close(&tty);
	cap_close(&err);
}

/* ---- the wait, against a fake kernel ---- */

/*
 * A thread playing the kernel on a NETLINK_USERSOCK socket: it answers
 * run-get and run-stop on the request socket and sends events to the
 * event socket, as the module would on the events group.
 */
struct fake {
	int fd;
	uint32_t port;
	pthread_t thread;
	struct knl nl, ev;
	/* run-get answers these states in turn, the last one for ever */
	const uint8_t *states;
	int nstates;
	/* or refuses with this errno */
	int get_error;
	/* what it got, read after fake_stop() */
	int gets, stops;
};

#define FAKE_QUIT	0x7f0

static void fake_send(struct fake *k, uint32_t port, struct nl_msg *msg,
		      int flags)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_pid = port };
	struct nlmsghdr *h = nlmsg_hdr(msg);

	sendto(k->fd, h, h->nlmsg_len, flags, (struct sockaddr *)&sa,
	       sizeof(sa));
	nlmsg_free(msg);
}

static void fake_ack(struct fake *k, const struct nlmsghdr *req, int error)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_pid = nl_socket_get_local_port(k->nl.sk) };
	struct {
		struct nlmsghdr h;
		struct nlmsgerr e;
	} m;

	memset(&m, 0, sizeof(m));
	m.h.nlmsg_len = sizeof(m);
	m.h.nlmsg_type = NLMSG_ERROR;
	m.h.nlmsg_flags = NLM_F_CAPPED;
	m.h.nlmsg_seq = req->nlmsg_seq;
	m.e.error = error;
	m.e.msg = *req;
	sendto(k->fd, &m, sizeof(m), 0, (struct sockaddr *)&sa, sizeof(sa));
}

static void *fake_kernel(void *arg)
{
	struct fake *k = arg;
	uint32_t req_port = nl_socket_get_local_port(k->nl.sk);
	uint32_t ev_port = nl_socket_get_local_port(k->ev.sk);
	struct nlmsghdr *h;
	struct nl_msg *msg;
	char buf[4096];
	ssize_t n;
	int i;

	for (;;) {
		n = recv(k->fd, buf, sizeof(buf), 0);
		h = (struct nlmsghdr *)buf;
		if (n < (ssize_t)NLMSG_LENGTH(GENL_HDRLEN) ||
		    h->nlmsg_type == FAKE_QUIT)
			return NULL;
		switch (((struct genlmsghdr *)NLMSG_DATA(h))->cmd) {
		case KVPERF_CMD_RUN_GET:
			i = k->gets++;
			if (k->get_error) {
				fake_ack(k, h, -k->get_error);
				break;
			}
			msg = event(KVPERF_CMD_RUN_GET, 3,
				    k->states[i < k->nstates ? i :
					      k->nstates - 1], 9);
			nlmsg_hdr(msg)->nlmsg_seq = h->nlmsg_seq;
			fake_send(k, req_port, msg, 0);
			fake_ack(k, h, 0);
			break;
		case KVPERF_CMD_RUN_STOP:
			k->stops++;
			fake_ack(k, h, 0);
			fake_send(k, ev_port,
				  event(KVPERF_CMD_RUN_FINISHED_NTF, 3,
					KVPERF_RUN_STATE_STOPPED, 9), 0);
			break;
		default:
			fake_ack(k, h, -EOPNOTSUPP);
			break;
		}
	}
}

static bool fake_socket(struct knl *k, uint32_t peer)
{
	struct timeval tv = { .tv_sec = 5 };

	k->family = 0x20;
	k->sk = nl_socket_alloc();
	if (!k->sk || nl_connect(k->sk, NETLINK_USERSOCK) < 0)
		return false;
	nl_socket_set_peer_port(k->sk, peer);
	nl_socket_enable_msg_peek(k->sk);
	/* a fake kernel that does not answer fails the test, not hangs it */
	setsockopt(nl_socket_get_fd(k->sk), SOL_SOCKET, SO_RCVTIMEO, &tv,
		   sizeof(tv));
	return true;
}

static bool fake_start(struct fake *k)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	socklen_t len = sizeof(sa);

	k->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_USERSOCK);
	if (k->fd < 0 || bind(k->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(k->fd, (struct sockaddr *)&sa, &len)) {
		unit_skip("no NETLINK_USERSOCK sockets");
		if (k->fd >= 0)
			close(k->fd);
		return false;
	}
	k->port = sa.nl_pid;
	if (!fake_socket(&k->nl, k->port) || !fake_socket(&k->ev, k->port)) {
		unit_fail(__FILE__, __LINE__, "cannot open the sockets");
		return false;
	}
	nl_socket_set_nonblocking(k->ev.sk);
	if (pthread_create(&k->thread, NULL, fake_kernel, k)) {
		unit_fail(__FILE__, __LINE__, "cannot start the fake kernel");
		return false;
	}
	return true;
}

static void fake_stop(struct fake *k)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_pid = k->port };
	struct nlmsghdr quit = {
		.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN),
		.nlmsg_type = FAKE_QUIT,
	};
	char buf[NLMSG_LENGTH(GENL_HDRLEN)] = { 0 };

	memcpy(buf, &quit, sizeof(quit));
	sendto(k->fd, buf, sizeof(buf), 0, (struct sockaddr *)&sa,
	       sizeof(sa));
	pthread_join(k->thread, NULL);
	close(k->fd);
	nl_socket_free(k->nl.sk);
	nl_socket_free(k->ev.sk);
}

struct waited {
	int ret;
	int state;	/* of the run that ended, or -1 */
	int64_t ms;	/* how long the wait took */
	struct capture err;
};

/* Wait for run 3; @signals "signals" are pending on a pipe. */
static void wait_run(struct waited *r, struct fake *k, unsigned int check_ms,
		     int signals)
{
	struct kvperf kv = { 0 };
	struct run_wait w = { .id = 3, .check_ms = check_ms };
	struct signalfd_siginfo si = { .ssi_signo = 2 };
	struct nlattr *tb[KVPERF_A_RUN_MAX + 1];
	struct capture out;
	struct timespec t0, t1;
	int sig[2];

	CHECK_INT(pipe(sig), 0);
	while (signals--)
		CHECK_INT(write(sig[1], &si, sizeof(si)), sizeof(si));
	kv.out = cap_open(&out);
	kv.err = cap_open(&r->err);
	w.err = kv.err;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r->ret = run_wait_loop(&kv, &k->nl, &k->ev, sig[0], &w);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->ms = (t1.tv_sec - t0.tv_sec) * 1000 +
		(t1.tv_nsec - t0.tv_nsec) / 1000000;
	r->state = -1;
	if (w.final) {
		struct genlmsghdr *g = nlmsg_data(w.final);

		attrs_parse(&attrs_run, tb, genlmsg_attrdata(g, 0),
			    genlmsg_attrlen(g, 0), NULL);
		if (tb[KVPERF_A_RUN_STATE])
			r->state = attr_uint(tb[KVPERF_A_RUN_STATE]);
		CHECK_U64(attr_uint(tb[KVPERF_A_RUN_ID]), 3);
	}
	CHECK(!r->ret == !!w.final);
	free(w.final);
	cap_str(&r->err);
	CHECK_STR(cap_str(&out), "");
	cap_close(&out);
	close(sig[0]);
	close(sig[1]);
}

static const uint8_t running_then_done[] = {
	KVPERF_RUN_STATE_RUNNING, KVPERF_RUN_STATE_DONE,
};

/* The run-finished event ends the wait; other events do not. */
static void run_wait_loop_event(void)
{
	struct fake k = { .states = running_then_done, .nstates = 2 };
	struct waited r;
	struct nl_msg *dev;
	uint32_t ev;

	if (!fake_start(&k))
		return;
	ev = nl_socket_get_local_port(k.ev.sk);
	dev = unit_genl_msg(KVPERF_CMD_DEV_ADD_NTF);
	nla_put_u32(dev, KVPERF_A_DEV_INDEX, 1);
	fake_send(&k, ev, event(KVPERF_CMD_RUN_PROGRESS_NTF, 3,
				KVPERF_RUN_STATE_RUNNING, 5), 0);
	fake_send(&k, ev, event(KVPERF_CMD_RUN_FINISHED_NTF, 4,
				KVPERF_RUN_STATE_DONE, 5), 0);
	fake_send(&k, ev, dev, 0);
	fake_send(&k, ev, event(KVPERF_CMD_RUN_FINISHED_NTF, 3,
				KVPERF_RUN_STATE_DONE, 5), 0);
	wait_run(&r, &k, 60000, 0);
	fake_stop(&k);
	CHECK_INT(r.ret, KVPERF_EXIT_OK);
	CHECK_INT(r.state, KVPERF_RUN_STATE_DONE);
	CHECK_STR(r.err.buf, "");
	CHECK_INT(k.gets, 0);
	CHECK(r.ms < 5000);
	cap_close(&r.err);
}

/* No event: the periodic run-get finds the run ended. */
static void run_wait_loop_check(void)
{
	struct fake k = { .states = running_then_done, .nstates = 2 };
	struct waited r;

	if (!fake_start(&k))
		return;
	wait_run(&r, &k, 20, 0);
	fake_stop(&k);
	CHECK_INT(r.ret, KVPERF_EXIT_OK);
	CHECK_INT(r.state, KVPERF_RUN_STATE_DONE);
	CHECK_STR(r.err.buf, "");
	CHECK_INT(k.gets, 2);
	cap_close(&r.err);
}

/* ^C: run-stop, then the run-finished event of the stopped run. */
static void run_wait_loop_interrupt(void)
{
	struct fake k = { .states = running_then_done, .nstates = 1 };
	struct waited r;

	if (!fake_start(&k))
		return;
	wait_run(&r, &k, 60000, 1);
	fake_stop(&k);
	CHECK_INT(r.ret, KVPERF_EXIT_OK);
	CHECK_INT(r.state, KVPERF_RUN_STATE_STOPPED);
	CHECK_STR(r.err.buf, "kvperf: stopping run 3\n");
	CHECK_INT(k.stops, 1);
	CHECK_INT(k.gets, 0);
	cap_close(&r.err);

	/* a second ^C gives up waiting */
	if (!fake_start(&k))
		return;
	wait_run(&r, &k, 60000, 2);
	fake_stop(&k);
	CHECK_INT(r.ret, KVPERF_EXIT_ERROR);
	CHECK_STR(r.err.buf, "kvperf: stopping run 3\n"
		  "kvperf: not waiting for run 3 any longer; "
		  "see 'kvperf run show 3'\n");
	cap_close(&r.err);
}

/*
 * The family is gone (rmmod while the tool waits): run-get gets generic
 * netlink's ENOENT, without the module's word; the tool says what
 * happened, exit 1.
 */
static void run_wait_loop_gone(void)
{
	struct fake k = { .get_error = ENOENT };
	struct waited r;

	if (!fake_start(&k))
		return;
	wait_run(&r, &k, 10, 0);
	fake_stop(&k);
	CHECK_INT(r.ret, KVPERF_EXIT_ERROR);
	CHECK_STR(r.err.buf, "kvperf: the kvperf module was unloaded (the "
		  "kernel answered: No such file or directory); load it again "
		  "with 'sudo modprobe kvperf'\n");
	CHECK_INT(k.gets, 1);
	cap_close(&r.err);
}

const struct unit_test unit_tests[] = {
	UNIT(run_attr_sets),
	UNIT(run_lat_minimal),
	UNIT(run_lat_every_keyword),
	UNIT(run_lat_abbreviations),
	UNIT(run_key),
	UNIT(run_lat_usage_errors),
	UNIT(run_lat_stats),
	UNIT(run_lat_sizes),
	UNIT(run_lat_time),
	UNIT(run_parse_time),
	UNIT(run_lat_kernel_limits),
	UNIT(run_args_helpers),
	UNIT(run_fmt_helpers),
	UNIT(run_cli_dispatch),
	UNIT(run_cli_help),
	UNIT(run_print_done),
	UNIT(run_print_mean_decimals),
	UNIT(run_print_failed),
	UNIT(run_print_sweep_verify),
	UNIT(run_print_stats_off),
	UNIT(run_print_running),
	UNIT(run_print_forward_compatible),
	UNIT(run_print_malformed),
	UNIT(run_print_array),
	UNIT(run_finish_states),
	UNIT(run_started_output),
	UNIT(run_wait_for_end),
	UNIT(run_wait_loop_event),
	UNIT(run_wait_loop_check),
	UNIT(run_wait_loop_interrupt),
	UNIT(run_wait_loop_gone),
	{ NULL },
};
