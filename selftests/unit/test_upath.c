// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the user path that need no RDMA device: the path keyword
 * of "run" and "server start", the wire protocol's layout and encoding
 * (byte for byte what the module sends), the module's defaults and
 * refusals applied to a user-path run, and a user-path run described as a
 * run-get reply and printed by the kernel path's printers.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kvperf.h>
#include <linux/kvperf_wire.h>
#include <netlink/genl/genl.h>
#include <rdma/rdma_cma.h>

#include "args.h"
#include "cli.h"
#include "compiler.h"
#include "kvperf.h"
#include "print.h"
#include "run.h"
#include "run_cfg.h"
#include "run_bw_print.h"
#include "run_model.h"
#include "run_print.h"
#include "run_test.h"
#include "server.h"
#include "unit.h"
#include "upath_cfg.h"
#include "upath_conn.h"
#include "upath_run.h"
#include "upath_stats.h"
#include "upath_wire.h"

/* The layout, checked at build time too. */
_Static_assert(sizeof(struct kvperf_wire_req) == 56, "req");
_Static_assert(sizeof(struct kvperf_wire_rep) == 16, "rep");
_Static_assert(sizeof(struct kvperf_wire_report) == 32, "report");

#define LAT	KVPERF_RUN_TYPE_LAT
#define BW	KVPERF_RUN_TYPE_BW

static void upath_run_path_keyword(void)
{
	struct run_cmdline l;

	RUN_CMDLINE(&l, LAT, "op", "send", "addr", "198.18.0.1");
	CHECK_INT(l.ret, KVPERF_EXIT_OK);
	CHECK_INT(l.o.path, RUN_PATH_KERNEL);

	RUN_CMDLINE(&l, LAT, "op", "send", "addr", "198.18.0.1", "path",
		    "user");
	CHECK_INT(l.ret, KVPERF_EXIT_OK);
	CHECK_INT(l.o.path, RUN_PATH_USER);
	/* the kernel's request does not change: path is the tool's */
	CHECK_STR(l.req, "type=0 op=0 addr=198.18.0.1 port=18515");

	/* prefixes: "pa" is path, "p" still port, "u" user, "k" kernel */
	RUN_CMDLINE(&l, BW, "o", "write", "a", "198.18.0.1", "pa", "user", "p",
		    "20000");
	CHECK_INT(l.ret, KVPERF_EXIT_OK);
	CHECK_INT(l.o.path, RUN_PATH_USER);
	CHECK_INT(l.o.cfg.port, 20000);
	RUN_CMDLINE(&l, BW, "op", "read", "addr", "fd00::1", "path", "kernel");
	CHECK_INT(l.ret, KVPERF_EXIT_OK);
	CHECK_INT(l.o.path, RUN_PATH_KERNEL);

	RUN_ERR(LAT, "unknown path 'frob' (kernel or user)",
		"op", "send", "addr", "198.18.0.1", "path", "frob");
	RUN_ERR(LAT, "missing value after 'path'",
		"op", "send", "addr", "198.18.0.1", "path");
	RUN_ERR(LAT, "'path' given twice",
		"op", "send", "addr", "198.18.0.1", "path", "user", "path",
		"user");
	RUN_ERR(BW, "no-wait applies to the kernel path only",
		"op", "send", "addr", "198.18.0.1", "no-wait", "path", "user");

	CHECK_STR(run_path_name(RUN_PATH_KERNEL), "kernel");
	CHECK_STR(run_path_name(RUN_PATH_USER), "user");
	CHECK_INT(run_path_parse("user"), RUN_PATH_USER);
	/* keywords abbreviate, values do not */
	CHECK_INT(run_path_parse("us"), -1);
	CHECK_INT(run_path_parse(""), -1);
}

struct start_line {
	int ret;
	struct server_opts o;
	char err[256];
};

static void start_words(struct start_line *s, const char *const *words)
{
	struct kvperf kv = { 0 };
	struct capture out, err;
	char *argv[16];
	struct args a;
	int argc = 0;

	while (*words && argc < 16)
		argv[argc++] = (char *)*words++;
	a.argc = argc;
	a.argv = argv;
	kv.out = cap_open(&out);
	kv.err = cap_open(&err);
	s->ret = server_start_parse(&kv, &a, &s->o);
	snprintf(s->err, sizeof(s->err), "%s", cap_str(&err));
	CHECK_STR(cap_str(&out), "");
	cap_close(&out);
	cap_close(&err);
}

#define START(s, ...) \
	start_words((s), (const char *const []){ __VA_ARGS__, NULL })

static void upath_server_path_keyword(void)
{
	struct start_line s;

	START(&s, "addr", "198.18.1.1");
	CHECK_INT(s.ret, KVPERF_EXIT_OK);
	CHECK_INT(s.o.path, RUN_PATH_KERNEL);
	START(&s, "addr", "198.18.1.1", "path", "user", "port", "20000");
	CHECK_INT(s.ret, KVPERF_EXIT_OK);
	CHECK_INT(s.o.path, RUN_PATH_USER);
	CHECK_INT(s.o.cfg.port, 20000);
	/* "p" is still port */
	START(&s, "a", "198.18.1.1", "pa", "user", "p", "1");
	CHECK_INT(s.ret, KVPERF_EXIT_OK);
	CHECK_INT(s.o.path, RUN_PATH_USER);
	CHECK_INT(s.o.cfg.port, 1);
	START(&s, "addr", "198.18.1.1", "path", "both");
	CHECK_INT(s.ret, KVPERF_EXIT_USAGE);
	CHECK_STR(s.err, "kvperf: unknown path 'both' (kernel or user) (try 'kvperf server help')\n");
}

static void upath_wire_layout(void)
{
	CHECK_INT(sizeof(struct kvperf_wire_req), 56);
	CHECK_INT(offsetof(struct kvperf_wire_req, size_max), 4);
	CHECK_INT(offsetof(struct kvperf_wire_req, inline_size), 8);
	CHECK_INT(offsetof(struct kvperf_wire_req, rkey), 12);
	CHECK_INT(offsetof(struct kvperf_wire_req, addr), 16);
	CHECK_INT(offsetof(struct kvperf_wire_req, type), 2);
	CHECK_INT(offsetof(struct kvperf_wire_req, flags), 3);
	CHECK_INT(offsetof(struct kvperf_wire_req, tx_depth), 24);
	CHECK_INT(offsetof(struct kvperf_wire_req, post_list), 26);
	CHECK_INT(offsetof(struct kvperf_wire_req, signal_every), 28);
	CHECK_INT(offsetof(struct kvperf_wire_req, count), 32);
	CHECK_INT(offsetof(struct kvperf_wire_req, warmup), 36);
	CHECK_INT(offsetof(struct kvperf_wire_req, key), 40);
	CHECK_INT(sizeof(struct kvperf_wire_rep), 16);
	CHECK_INT(offsetof(struct kvperf_wire_rep, rkey), 4);
	CHECK_INT(offsetof(struct kvperf_wire_rep, addr), 8);
	CHECK_INT(sizeof(struct kvperf_wire_report), 32);
	CHECK_INT(offsetof(struct kvperf_wire_report, mismatches), 8);
	CHECK_INT(offsetof(struct kvperf_wire_report, tx_messages), 16);
	CHECK_INT(offsetof(struct kvperf_wire_report, tx_elapsed_ns), 24);
	CHECK_INT(sizeof(struct kvperf_wire_io_cmd), 16 + 16 * 16);
	CHECK_INT(offsetof(struct kvperf_wire_io_cmd, seg), 16);
	CHECK_INT(sizeof(struct kvperf_wire_io_rsp), 12);
	CHECK_INT(offsetof(struct kvperf_wire_io_rsp, cpu_ns), 4);

	/* the control messages and the patterns */
	CHECK_U64(KVPERF_CTRL(KVPERF_CTRL_SIZE, 65536), 0x01010000);
	CHECK_U64(KVPERF_CTRL(KVPERF_CTRL_ACK, 0), 0x02000000);
	CHECK_U64(KVPERF_CTRL_OP(0x05000020), KVPERF_CTRL_REPORT);
	CHECK_U64(KVPERF_CTRL_ARG(0x01800000), KVPERF_SIZE_MAX);
	CHECK_INT(kvperf_wire_marker(1), 2);
	CHECK_INT(kvperf_wire_marker(254), 255);
	CHECK_INT(kvperf_wire_marker(255), 1);
	CHECK_INT(kvperf_wire_pattern(0, 0), 0);
	CHECK_INT(kvperf_wire_pattern(1, 0), 31);
	CHECK_INT(kvperf_wire_pattern(64, 300), (uint8_t)(64 * 31 + 2100 + 1));
}

/* A bandwidth request and its bytes on the wire, big-endian. */
static const struct upath_req bw_req = {
	.op = KVPERF_OP_WRITE, .poll = KVPERF_POLL_SOFTIRQ,
	.flags = KVPERF_WIRE_VERIFY | KVPERF_WIRE_BIDIR,
	.type = KVPERF_RUN_TYPE_BW, .size_max = 65536, .inline_size = 64,
	.rkey = 0x11223344, .addr = 0x0102030405060708ULL,
	.tx_depth = 128, .post_list = 4, .signal_every = 100,
	.iterations = 5000, .duration_ms = 0, .warmup = 0, .warmup_ms = 250,
	.key = { 0xa0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xaf },
};

static const uint8_t bw_req_bytes[56] = {
	8, 1, 1, 3 | 8,		/* version, op, type, flags (warm-up timed) */
	0, 1, 0, 0,		/* size_max */
	0, 0, 0, 64,		/* inline_size */
	0x11, 0x22, 0x33, 0x44,	/* rkey */
	1, 2, 3, 4, 5, 6, 7, 8,	/* addr */
	0, 128, 0, 4,		/* tx_depth, post_list */
	0, 100, 0, 0,		/* signal_every, reserved */
	0, 0, 0x13, 0x88,	/* count: iterations */
	0, 0, 0, 250,		/* warmup: ms */
	0xa0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xaf, /* key */
};

static void upath_wire_encoding(void)
{
	struct kvperf_wire_req w;
	struct kvperf_wire_rep rep;
	struct kvperf_wire_report wr;
	struct upath_report r = {
		.received = 5000, .mismatches = 1,
		.tx_messages = 0x0102, .tx_elapsed_ns = 0x1122334455667788ULL,
	}, back;
	struct upath_req q;
	uint8_t pad[200];
	uint32_t rkey, credits;
	uint64_t addr;

	upath_wire_req_put(&bw_req, &w);
	CHECK(!memcmp(&w, bw_req_bytes, sizeof(w)));
	memset(&q, 0xff, sizeof(q));
	CHECK_INT(upath_wire_req_get(&w, sizeof(w), &q), 0);
	CHECK_INT(q.op, bw_req.op);
	CHECK_INT(q.poll, 0);	/* not on the wire: the server's choice */
	CHECK_INT(q.flags, bw_req.flags | KVPERF_WIRE_WARMUP_TIMED);
	CHECK_INT(q.type, bw_req.type);
	CHECK_U64(q.size_max, bw_req.size_max);
	CHECK_U64(q.inline_size, bw_req.inline_size);
	CHECK_U64(q.rkey, bw_req.rkey);
	CHECK_U64(q.addr, bw_req.addr);
	CHECK_U64(q.tx_depth, bw_req.tx_depth);
	CHECK_U64(q.post_list, bw_req.post_list);
	CHECK_U64(q.signal_every, bw_req.signal_every);
	CHECK_U64(q.iterations, bw_req.iterations);
	CHECK_U64(q.duration_ms, 0);
	CHECK_U64(q.warmup, 0);
	CHECK_U64(q.warmup_ms, 250);
	CHECK(!memcmp(q.key, bw_req.key, sizeof(q.key)));

	/* RoCE pads private data: longer is fine, shorter is not */
	memset(pad, 0, sizeof(pad));
	memcpy(pad, &w, sizeof(w));
	CHECK_INT(upath_wire_req_get(pad, sizeof(pad), &q), 0);
	CHECK_INT(upath_wire_req_get(pad, 55, &q), -EPROTO);
	CHECK_INT(upath_wire_req_get(NULL, 0, &q), -EPROTO);
	pad[0] = 1;
	CHECK_INT(upath_wire_req_get(pad, sizeof(pad), &q), -EPROTO);

	upath_wire_rep_put(0xaabbccdd, 0x1000, 0x0102, &rep);
	CHECK_INT(((uint8_t *)&rep)[0], KVPERF_PROTO_VERSION);
	/* credits, be16 at offset 2 */
	CHECK_INT(((uint8_t *)&rep)[2], 0x01);
	CHECK_INT(((uint8_t *)&rep)[3], 0x02);
	CHECK_INT(((uint8_t *)&rep)[4], 0xaa);
	CHECK_INT(((uint8_t *)&rep)[14], 0x10);
	CHECK_INT(upath_wire_rep_get(&rep, sizeof(rep), &rkey, &addr,
				     &credits), 0);
	CHECK_U64(credits, 0x0102);
	CHECK_U64(rkey, 0xaabbccdd);
	CHECK_U64(addr, 0x1000);
	CHECK_INT(upath_wire_rep_get(&rep, 15, &rkey, &addr, &credits),
		  -EPROTO);

	upath_wire_report_put(&r, &wr);
	CHECK_INT(((uint8_t *)&wr)[6], 0x13);
	CHECK_INT(((uint8_t *)&wr)[7], 0x88);
	CHECK_INT(((uint8_t *)&wr)[15], 1);
	CHECK_INT(((uint8_t *)&wr)[22], 1);
	CHECK_INT(((uint8_t *)&wr)[24], 0x11);
	upath_wire_report_get(&wr, &back);
	CHECK(!memcmp(&back, &r, sizeof(r)));
}

/* What the module's server accepts, the user path's accepts. */
static void upath_wire_request_checks(void)
{
	struct upath_req r = bw_req;
	struct upath_req lat = {
		.op = KVPERF_OP_READ, .poll = KVPERF_POLL_BUSY,
		.type = KVPERF_RUN_TYPE_LAT, .size_max = KVPERF_SIZE_MAX,
	};

	CHECK(upath_wire_req_ok(&bw_req));
	CHECK(upath_wire_req_ok(&lat));
	lat.size_max = KVPERF_SIZE_MAX + 1;
	CHECK(!upath_wire_req_ok(&lat));
	lat.size_max = 0;
	CHECK(!upath_wire_req_ok(&lat));
	lat.size_max = 2;
	lat.op = 3;
	CHECK(!upath_wire_req_ok(&lat));
	lat.op = KVPERF_OP_SEND;
	lat.flags = 0x20;	/* no such flag */
	CHECK(!upath_wire_req_ok(&lat));
	lat.flags = KVPERF_WIRE_VERIFY;
	lat.inline_size = 4097;
	CHECK(!upath_wire_req_ok(&lat));
	lat.inline_size = 4096;
	CHECK(upath_wire_req_ok(&lat));
	lat.flags = KVPERF_WIRE_IO_INV_LOCAL;	/* an I/O run's flag */
	CHECK(!upath_wire_req_ok(&lat));
	lat.flags = KVPERF_WIRE_VERIFY;
	/* an I/O run: read or write of whole 512-byte units */
	lat.type = KVPERF_RUN_TYPE_IO;
	CHECK(!upath_wire_req_ok(&lat));
	lat.op = KVPERF_OP_WRITE;
	lat.size_max = 4096;
	lat.tx_depth = KVPERF_IO_QD_MAX;
	lat.post_list = KVPERF_WIRE_IO_SEGS_MAX;
	lat.flags = KVPERF_WIRE_VERIFY | KVPERF_WIRE_IO_INV_LOCAL;
	CHECK(upath_wire_req_ok(&lat));
	lat.size_max = 4097;
	CHECK(!upath_wire_req_ok(&lat));
	lat.size_max = KVPERF_IO_BS_MAX + 512;
	CHECK(!upath_wire_req_ok(&lat));
	lat.size_max = KVPERF_IO_BS_MAX;
	lat.tx_depth = KVPERF_IO_QD_MAX + 1;
	CHECK(!upath_wire_req_ok(&lat));
	lat.tx_depth = 1;
	lat.post_list = KVPERF_WIRE_IO_SEGS_MAX + 1;
	CHECK(!upath_wire_req_ok(&lat));
	lat.post_list = 1;
	lat.flags = KVPERF_WIRE_BIDIR;
	CHECK(!upath_wire_req_ok(&lat));
	/* a mix of reads and writes says read */
	lat.flags = KVPERF_WIRE_IO_MIXED;
	CHECK(!upath_wire_req_ok(&lat));
	lat.op = KVPERF_OP_READ;
	CHECK(upath_wire_req_ok(&lat));
	lat.op = KVPERF_OP_WRITE;
	lat.flags = 0;
	CHECK(upath_wire_req_ok(&lat));
	/* in-capsule data: bounded, and only for runs that write */
	lat.inline_size = KVPERF_IO_INLINE_DATA_MAX;
	CHECK(upath_wire_req_ok(&lat));
	lat.inline_size = KVPERF_IO_INLINE_DATA_MAX + 1;
	CHECK(!upath_wire_req_ok(&lat));
	lat.inline_size = 512;
	lat.op = KVPERF_OP_READ;
	CHECK(!upath_wire_req_ok(&lat));
	lat.flags = KVPERF_WIRE_IO_MIXED;
	CHECK(upath_wire_req_ok(&lat));
	lat.op = KVPERF_OP_WRITE;
	lat.flags = 0;
	lat.op = 3;
	CHECK(!upath_wire_req_ok(&lat));
	lat.op = KVPERF_OP_READ;
	lat.type = KVPERF_RUN_TYPE_IO + 1;
	CHECK(!upath_wire_req_ok(&lat));

	r.tx_depth = 0;
	CHECK(!upath_wire_req_ok(&r));
	r.tx_depth = 4097;
	CHECK(!upath_wire_req_ok(&r));
	r = bw_req;
	r.post_list = 65;
	r.tx_depth = 128;
	CHECK(!upath_wire_req_ok(&r));
	r.post_list = 8;
	r.tx_depth = 4;
	r.signal_every = 4;
	CHECK(!upath_wire_req_ok(&r));
	r.post_list = 4;
	CHECK(upath_wire_req_ok(&r));
	r.signal_every = 5;
	CHECK(!upath_wire_req_ok(&r));
	r.signal_every = 0;
	CHECK(!upath_wire_req_ok(&r));
	r = bw_req;
	r.iterations = 0;
	CHECK(!upath_wire_req_ok(&r));
	r.duration_ms = 1000;
	CHECK(upath_wire_req_ok(&r));
	/* phases within the run's own ranges: an hour, ten minutes */
	r.duration_ms = KVPERF_DURATION_MS_MAX;
	CHECK(upath_wire_req_ok(&r));
	r.duration_ms = KVPERF_DURATION_MS_MAX + 1;
	CHECK(!upath_wire_req_ok(&r));
	r.duration_ms = 0xffffffff;
	CHECK(!upath_wire_req_ok(&r));
	r = bw_req;
	r.iterations = KVPERF_ITERATIONS_MAX;
	CHECK(upath_wire_req_ok(&r));
	r.iterations = KVPERF_ITERATIONS_MAX + 1;
	CHECK(!upath_wire_req_ok(&r));
	r = bw_req;
	r.warmup_ms = KVPERF_WARMUP_MS_MAX;
	CHECK(upath_wire_req_ok(&r));
	r.warmup_ms = KVPERF_WARMUP_MS_MAX + 1;
	CHECK(!upath_wire_req_ok(&r));
	r.warmup_ms = 0;
	r.warmup = KVPERF_WARMUP_MAX;
	CHECK(upath_wire_req_ok(&r));
	r.warmup = KVPERF_WARMUP_MAX + 1;
	CHECK(!upath_wire_req_ok(&r));

	CHECK_STR(upath_wire_reject_reason(UPATH_REJ_CONSUMER_DEFINED,
					   (const uint8_t []){ 2 }, 1),
		  "the server has too many connections");
	CHECK_STR(upath_wire_reject_reason(UPATH_REJ_CONSUMER_DEFINED,
					   (const uint8_t []){ 1 }, 148),
		  "the server refused the run's parameters (or speaks another version)");
	CHECK_STR(upath_wire_reject_reason(UPATH_REJ_CONSUMER_DEFINED,
					   (const uint8_t []){ 3 }, 1),
		  "the server's pinned-memory limit is reached");
	CHECK_STR(upath_wire_reject_reason(UPATH_REJ_CONSUMER_DEFINED,
					   (const uint8_t []){ 4 }, 1),
		  "the server could not allocate the connection");
	CHECK_STR(upath_wire_reject_reason(UPATH_REJ_CONSUMER_DEFINED,
					   (const uint8_t []){ 5 }, 1),
		  "the server does not allow this address (its allow list)");
	CHECK_STR(upath_wire_reject_reason(UPATH_REJ_CONSUMER_DEFINED,
					   (const uint8_t []){ 6 }, 1),
		  "the server requires a key and this one is missing or wrong");
	CHECK_STR(upath_wire_reject_reason(UPATH_REJ_CONSUMER_DEFINED,
					   (const uint8_t []){ 7 }, 1),
		  "the server has too many connections from this address");
	CHECK_STR(upath_wire_reject_reason(8, NULL, 0),
		  "connection rejected (is a kvperf server listening there?)");
}

/* A user-path configuration from a command line; NULL refusal when fine. */
static const char *cfg_of(struct upath_cfg *cfg, uint8_t type,
			  const char *const *words)
{
	static char why[RUN_CFG_WHY_LEN];
	struct run_cmdline l;
	char *end;

	run_cmdline_words(&l, type, words);
	if (l.ret) {
		/* the command line's refusal, before either path: its words */
		CHECK_INT(l.ret, KVPERF_EXIT_USAGE);
		end = strstr(l.err, " (try 'kvperf run help')");
		if (!strncmp(l.err, "kvperf: ", 8) && end)
			*end = '\0';
		snprintf(why, sizeof(why), "%.*s", (int)sizeof(why) - 1,
			 l.err + 8);
		return why;
	}
	if (upath_cfg_init(cfg, &l.o.cfg, why, sizeof(why)))
		return why[0] ? why : "(no reason)";
	return NULL;
}

#define CFG(cfg, type, ...) \
	cfg_of((cfg), (type), (const char *const []){ __VA_ARGS__, NULL })

static void upath_cfg_defaults(void)
{
	struct upath_cfg c;

	CHECK(!CFG(&c, LAT, "op", "write", "addr", "198.18.0.1"));
	CHECK_INT(c.type, LAT);
	CHECK_INT(c.op, KVPERF_OP_WRITE);
	CHECK_INT(c.size, 2);
	CHECK_INT(c.size_max, 2);
	CHECK_INT(c.iterations, 1000);
	CHECK_INT(c.duration_ms, 0);
	CHECK_INT(c.warmup, 16);
	CHECK_INT(c.warmup_ms, 0);
	CHECK_INT(c.poll, KVPERF_POLL_BUSY);
	CHECK_INT(c.inline_size, 0);
	CHECK_INT(c.timeout_ms, 5000);
	CHECK_INT(c.cpu, -1);
	CHECK_INT(c.port, 18515);
	CHECK_INT(c.addr_len, 4);
	CHECK_INT(upath_cfg_nsizes(&c), 1);
	CHECK_INT(c.stats, KVPERF_STATS_MODE_ON);
	CHECK(!CFG(&c, LAT, "op", "read", "addr", "198.18.0.1", "stats",
		   "off"));
	CHECK_INT(c.stats, KVPERF_STATS_MODE_OFF);
	CHECK(!CFG(&c, LAT, "op", "read", "addr", "198.18.0.1", "stats",
		   "on"));
	CHECK_INT(c.stats, KVPERF_STATS_MODE_ON);
	/* on is what bandwidth runs do anyway */
	CHECK(!CFG(&c, BW, "op", "send", "addr", "fd00::1", "stats", "on"));

	CHECK(!CFG(&c, BW, "op", "send", "addr", "fd00::1"));
	CHECK_INT(c.iterations, 5000);
	CHECK_INT(c.tx_depth, 128);
	CHECK_INT(c.signal_every, 100);
	CHECK_INT(c.post_list, 1);
	CHECK_INT(c.qps, 1);
	CHECK_INT(c.ncpus, 0);
	CHECK_INT(c.interval_ms, 0);
	CHECK(!c.bidir);
	CHECK_INT(c.addr_len, 16);

	/* signal-every follows a small tx-depth */
	CHECK(!CFG(&c, BW, "op", "send", "addr", "fd00::1", "tx-depth", "16"));
	CHECK_INT(c.signal_every, 16);
	CHECK(!CFG(&c, BW, "op", "write", "addr", "198.18.0.1", "sizes",
		   "all", "time", "0.5", "warmup", "200ms", "qps", "4", "cpus",
		   "0", "bidir", "interval", "100ms", "poll", "workqueue",
		   "verify"));
	CHECK_INT(c.size, 2);
	CHECK_INT(c.size_max, 8 << 20);
	CHECK_INT(upath_cfg_nsizes(&c), 23);
	CHECK_INT(c.duration_ms, 500);
	CHECK_INT(c.warmup, 0);
	CHECK_INT(c.warmup_ms, 200);
	CHECK_INT(c.qps, 4);
	CHECK_INT(c.ncpus, 1);
	CHECK_INT(c.cpus[0], 0);
	CHECK_STR(c.cpulist, "0");
	CHECK(c.bidir && c.verify);
	CHECK_INT(c.interval_ms, 100);
	CHECK_INT(c.poll, KVPERF_POLL_WORKQUEUE);
	CHECK(!CFG(&c, LAT, "op", "send", "addr", "198.18.0.1", "sizes",
		   "3-100"));
	CHECK_INT(upath_cfg_nsizes(&c), 6);	/* 3 .. 96 */
	/* an I/O run's interval too */
	CHECK(!CFG(&c, KVPERF_RUN_TYPE_IO, "addr", "198.18.0.1", "interval",
		   "250ms", "queues", "2"));
	CHECK_INT(c.interval_ms, 250);
	CHECK_INT(c.qps, 2);
	CHECK_INT(c.reg, KVPERF_IO_REG_PRE);
}

/*
 * A run that names no timeout gets 1 ms per KiB it can have in flight
 * (largest message x depth x queue pairs, twice both ways), 5 s to 120 s:
 * the module's rule (kmod/timeout.h), which both paths share. The values
 * below are worked out by hand from that rule.
 */
static void upath_cfg_timeout_default(void)
{
	struct upath_cfg c;

	/* latency: one message of 8 MiB, 8192 KiB: 8192 ms */
	CHECK(!CFG(&c, LAT, "op", "read", "addr", "198.18.0.1", "size", "8M"));
	CHECK_INT(c.timeout_ms, 8192);
	/* a sweep's largest message counts: 4 MiB is below the floor */
	CHECK(!CFG(&c, LAT, "op", "send", "addr", "198.18.0.1", "sizes",
		   "2-4M"));
	CHECK_INT(c.timeout_ms, 5000);
	/* bandwidth at its defaults: 64 KiB x 128 = 8192 KiB */
	CHECK(!CFG(&c, BW, "op", "write", "addr", "198.18.0.1"));
	CHECK_INT(c.timeout_ms, 8192);
	/* 1 MiB x 16 x 1 qp x 2 ways = 32768 KiB */
	CHECK(!CFG(&c, BW, "op", "read", "addr", "198.18.0.1", "size", "1M",
		   "tx-depth", "16", "bidir"));
	CHECK_INT(c.timeout_ms, 32768);
	/* 4 KiB x 128 x 8 qps = 4096 KiB: the floor */
	CHECK(!CFG(&c, BW, "op", "send", "addr", "198.18.0.1", "size", "4K",
		   "qps", "8"));
	CHECK_INT(c.timeout_ms, 5000);
	/* the README's 1 MiB x 128 x 2 ways = 262144 KiB: the cap */
	CHECK(!CFG(&c, BW, "op", "read", "addr", "198.18.0.1", "size", "1M",
		   "time", "5", "bidir"));
	CHECK_INT(c.timeout_ms, 120000);
	/* the largest that could be: 8 MiB x 4096 x 16 x 2, no overflow */
	CHECK(!CFG(&c, BW, "op", "write", "addr", "198.18.0.1", "size", "8M",
		   "tx-depth", "4096", "qps", "16", "bidir"));
	CHECK_INT(c.timeout_ms, 120000);
	/* I/O: 1 MiB blocks (a sweep's largest) x qd 16 x 4 queues */
	CHECK(!CFG(&c, KVPERF_RUN_TYPE_IO, "addr", "198.18.0.1", "bss",
		   "4K-1M", "qd", "16", "queues", "4"));
	CHECK_INT(c.timeout_ms, 65536);
	/* a timeout given stays as given, even below the derived one */
	CHECK(!CFG(&c, BW, "op", "read", "addr", "198.18.0.1", "size", "1M",
		   "bidir", "timeout", "250ms"));
	CHECK_INT(c.timeout_ms, 250);
}

/* The module refuses these; so does the user path, with its words. */
static void upath_cfg_refusals(void)
{
	struct upath_cfg c;

	CHECK_STR(CFG(&c, BW, "op", "send", "addr", "198.18.0.1",
		      "post-list", "8", "tx-depth", "4"),
		  "post-list is larger than tx-depth");
	CHECK_STR(CFG(&c, BW, "op", "send", "addr", "198.18.0.1",
		      "signal-every", "200"),
		  "signal-every is larger than tx-depth");
	CHECK_STR(CFG(&c, BW, "op", "read", "addr", "198.18.0.1", "verify"),
		  "verify applies to send and write bandwidth only");
	CHECK_STR(CFG(&c, BW, "op", "write", "addr", "198.18.0.1", "stats",
		      "off"),
		  "stats off applies to latency runs only: bandwidth runs take no per-iteration statistics");
	CHECK_STR(CFG(&c, LAT, "op", "read", "addr", "198.18.0.1", "inline",
		      "64"),
		  "inline applies to send and write only");
	CHECK_STR(CFG(&c, BW, "op", "send", "addr", "198.18.0.1", "cpu", "0",
		      "cpus", "0"),
		  "cpu and cpus exclude each other");
	CHECK_STR(CFG(&c, BW, "op", "send", "addr", "198.18.0.1", "cpus",
		      "0-1"),
		  "more cpus than qps: each CPU's thread needs a queue pair");
	CHECK_STR(CFG(&c, BW, "op", "send", "addr", "198.18.0.1", "qps", "2",
		      "cpus", "0,100000"),
		  "cpus names a CPU that is not online (or not allowed to this process)");
	CHECK_STR(CFG(&c, LAT, "op", "send", "addr", "198.18.0.1", "cpu",
		      "100000"),
		  "that CPU is not online (or not allowed to this process)");
	CHECK_STR(CFG(&c, LAT, "op", "send", "addr", "198.18.0.1", "iters",
		      "0"),
		  "iters '0' is out of range (1 to 100000000)");
	CHECK_STR(CFG(&c, LAT, "op", "send", "addr", "198.18.0.1", "warmup",
		      "1000001"),
		  "warmup '1000001' is out of range (0 to 1000000)");
	CHECK_STR(CFG(&c, LAT, "op", "send", "addr", "198.18.0.1", "inline",
		      "4097"),
		  "inline '4097' is out of range (0 to 4096)");
	CHECK_STR(CFG(&c, LAT, "op", "send", "addr", "198.18.0.1", "timeout",
		      "9ms"),
		  "timeout '9ms' is out of range (10ms to 600s)");
	CHECK(!CFG(&c, LAT, "op", "send", "addr", "198.18.0.1", "warmup",
		   "0", "iters", "100000000", "timeout", "600", "inline",
		   "4096"));
	CHECK_INT(c.timeout_ms, 600000);
}

/* The engine checks what it is given with the model, named by the spec. */
static void upath_cfg_model_refusals(void)
{
	char why[RUN_CFG_WHY_LEN];
	struct kv_run_cfg cfg;
	struct upath_cfg c;

	run_cfg_init(&cfg, KVPERF_RUN_TYPE_LAT);
	run_model_set_uint(&run_cfg_fields, &cfg, KVPERF_A_RUN_ITERATIONS, 0);
	CHECK_INT(upath_cfg_init(&c, &cfg, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "iterations is out of range (1 to 100000000)");
	run_cfg_init(&cfg, KVPERF_RUN_TYPE_LAT);
	run_model_set_uint(&run_cfg_fields, &cfg, KVPERF_A_RUN_TIMEOUT_MS, 9);
	CHECK_INT(upath_cfg_init(&c, &cfg, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "timeout-ms is out of range (10ms to 600s)");
	run_cfg_init(&cfg, KVPERF_RUN_TYPE_LAT);
	run_model_set_uint(&run_cfg_fields, &cfg, KVPERF_A_RUN_QPS, 2);
	CHECK_INT(upath_cfg_init(&c, &cfg, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "that attribute applies to bandwidth and I/O runs only");
	run_cfg_init(&cfg, KVPERF_RUN_TYPE_LAT);
	run_model_set_uint(&run_cfg_fields, &cfg, KVPERF_A_RUN_POST_LIST, 2);
	CHECK_INT(upath_cfg_init(&c, &cfg, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "that attribute applies to bandwidth runs only");
	run_cfg_init(&cfg, KVPERF_RUN_TYPE_BW);
	run_model_set_uint(&run_cfg_fields, &cfg, KVPERF_A_RUN_TX_DEPTH, 8);
	run_model_set_uint(&run_cfg_fields, &cfg, KVPERF_A_RUN_POST_LIST, 9);
	CHECK_INT(upath_cfg_init(&c, &cfg, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "post-list is larger than tx-depth");
}

/* The histogram the module records, samples 1 us to 3 us. */
static struct upath_hist *three_samples(void)
{
	struct upath_hist *h = upath_hist_new(UPATH_HIST_MAX_NS);

	CHECK(h != NULL);
	upath_hist_record(h, 1000);
	upath_hist_record(h, 2000);
	upath_hist_record(h, 3000);
	return h;
}

static void run_init(struct upath_run *run, uint8_t type, const char *const *w)
{
	memset(run, 0, sizeof(*run));
	CHECK(!cfg_of(&run->cfg, type, w));
	snprintf(run->kernel, sizeof(run->kernel), "6.12.117+deb12-amd64");
	snprintf(run->dev, sizeof(run->dev), "rxe1");
	run->mtu = 1024;
	run->state = KVPERF_RUN_STATE_DONE;
}

/* Print a user-path run as "kvperf run ... path user" does. */
static int print_run(struct capture *c, const struct upath_run *run,
		     bool json)
{
	struct printer p;
	struct kv_run out;
	int ret;

	ret = upath_run_result(run, &out);
	pr_init(&p, cap_open(c), json, false);
	if (!ret)
		run_print(&p, &out, false);
	pr_finish(&p);
	cap_str(c);
	run_model_free(&out);
	return ret;
}

static const char lat_text[] =
	"# run lat send to 198.18.0.1:18515 dev rxe1, verify, state done\n"
	"# path user, poll busy, inline 0, mtu 1024, warmup 16, kernel 6.12.117+deb12-amd64\n"
	" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]   t_p90[usec]  t_p99.99[usec]  mismatches\n"
	" 64      3              1.00           3.00         2.00               2.000            0.816            3.00                   3.00                     3.00         3.00            0\n";

static void upath_result_lat(void)
{
	struct upath_lat_result res = { .size = 64, .elapsed_ns = 9000 };
	struct upath_run run;
	struct capture c;

	run_init(&run, LAT, (const char *const []){ "op", "send", "addr",
		 "198.18.0.1", "size", "64", "iters", "3", "verify", NULL });
	res.hist = three_samples();
	upath_hist_summarize(res.hist, &res.stats);
	run.lat = &res;
	run.nresults = 1;
	run.ndone = 1;
	run.progress = 19;

	CHECK_INT(print_run(&c, &run, false), 0);
	CHECK_STR(c.buf, lat_text);
	cap_close(&c);
	CHECK_INT(print_run(&c, &run, true), 0);
	CHECK_JSON(c.buf,
		   "assert 'id' not in d\n"
		   "assert d['path'] == 'user' and d['state'] == 'done'\n"
		   "assert d['type'] == 'lat' and d['op'] == 'send'\n"
		   "assert d['dev'] == 'rxe1' and d['verify'] is True\n"
		   "assert d['iterations'] == 3 and d['timeout_ms'] == 5000\n"
		   "assert d['progress'] == 19\n"
		   "r = d['results'][0]\n"
		   "assert r['iterations'] == 3\n"
		   "assert abs(r['p50_ns'] - 2000) <= 2000 / 256\n"
		   "assert r['mean_ns'] == 2000.0 and r['stdev_ns'] == 816.497\n"
		   "assert r['hist_rel_err_ppm'] == 3907\n"
		   "assert r['elapsed_ns'] == 9000 and r['mismatches'] == 0\n");
	cap_close(&c);

	/* a failed run: the error line, no table */
	run.state = KVPERF_RUN_STATE_FAILED;
	run.ndone = 0;
	snprintf(run.error, sizeof(run.error),
		 "the server closed the connection (-ECONNRESET)");
	CHECK_INT(print_run(&c, &run, false), 0);
	CHECK_STR(c.buf,
		  "# run lat send to 198.18.0.1:18515 dev rxe1, verify, state failed\n"
		  "# path user, poll busy, inline 0, mtu 1024, warmup 16, kernel 6.12.117+deb12-amd64\n"
		  "error: the server closed the connection (-ECONNRESET)\n");
	cap_close(&c);
	upath_hist_free(res.hist);
}

static const char lat_off_text[] =
	"# run lat send to 198.18.0.1:18515 dev rxe1, stats off, state done\n"
	"# path user, poll busy, inline 0, mtu 1024, warmup 16, kernel 6.12.117+deb12-amd64\n"
	" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]   t_p90[usec]  t_p99.99[usec]  mismatches\n"
	" 64      3              -              -            -                  1.500            -                -                      -                        -            -               0\n";

/* stats off: no histogram, the mean from the elapsed time, "-" for the rest. */
static void upath_result_lat_stats_off(void)
{
	struct upath_lat_result res = { .size = 64, .elapsed_ns = 9000 };
	struct upath_run run;
	struct capture c;

	run_init(&run, LAT, (const char *const []){ "op", "send", "addr",
		 "198.18.0.1", "size", "64", "iters", "3", "stats", "off",
		 NULL });
	/* 3 round trips in 9 us: 1.5 us each way */
	upath_stats_from_elapsed(&res.stats, 3, res.elapsed_ns, 2);
	run.lat = &res;
	run.nresults = 1;
	run.ndone = 1;

	CHECK_INT(print_run(&c, &run, false), 0);
	CHECK_STR(c.buf, lat_off_text);
	cap_close(&c);
	CHECK_INT(print_run(&c, &run, true), 0);
	CHECK_JSON(c.buf,
		   "assert d['path'] == 'user' and d['stats'] == 'off'\n"
		   "r = d['results'][0]\n"
		   "assert sorted(r) == ['elapsed_ns', 'iterations', 'mean_ns', "
		   "'mismatches', 'size'], sorted(r)\n"
		   "assert r['iterations'] == 3 and r['mean_ns'] == 1500.0\n"
		   "assert r['elapsed_ns'] == 9000\n");
	cap_close(&c);

	/* stats on, the default: said in JSON only */
	run.cfg.stats = KVPERF_STATS_MODE_ON;
	res.hist = three_samples();
	upath_hist_summarize(res.hist, &res.stats);
	CHECK_INT(print_run(&c, &run, true), 0);
	CHECK_JSON(c.buf,
		   "assert d['stats'] == 'on'\n"
		   "assert d['results'][0]['p99_ns'] > 0\n");
	cap_close(&c);
	upath_hist_free(res.hist);
}

static const char bw_text[] =
	"# run bw write to 198.18.1.1:18515 dev rxe1, verify, bidir, state done\n"
	"# path user, poll softirq, inline 0, mtu 1024, warmup 16, cpus 0, qps 2, tx-depth 128, post-list 1, signal-every 100, kernel 6.12.117+deb12-amd64\n"
	" #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]   CPU[%]   CPU[ns/msg]   mismatches\n"
	" 65536      1000           70.00               62.50                 0.001000        -        -             -            tx\n"
	" 65536      500            -                   31.25                 0.000500        -        -             -            rx\n"
	" 65536      1500           -                   93.75                 0.001500        50.00    333333.33     0            total\n"
	"  qp 0 (cpu 0): 1000 messages, 65536000 bytes, 31.25 MiB/s, 0.000500 Mpps\n"
	"  qp 1 (cpu 0): 1000 messages, 65536000 bytes, 62.50 MiB/s, 0.001000 Mpps\n";

static void upath_result_bw(void)
{
	struct upath_bw_qp_result qp[2] = {
		{ .cpu = 0, .messages = 1000, .bytes = 65536000,
		  .elapsed_ns = 2000000000 },
		{ .cpu = 0, .messages = 1000, .bytes = 65536000,
		  .elapsed_ns = 1000000000 },
	};
	struct upath_bw_result res = {
		.size = 65536, .messages = 2000, .bytes = 131072000,
		.elapsed_ns = 2000000000, .peak_bps = 70 * 1048576,
		.cpu_ns = 1000000000, .rx_messages = 1000,
		.rx_bytes = 65536000, .rx_elapsed_ns = 2000000000, .qp = qp,
	};
	struct upath_run run;
	struct capture c;

	run_init(&run, BW, (const char *const []){ "op", "write", "addr",
		 "198.18.1.1", "size", "64K", "iters", "1000", "qps", "2",
		 "cpus", "0", "bidir", "verify", "poll", "softirq", NULL });
	run.bw = &res;
	run.nresults = 1;
	run.ndone = 1;
	run.progress = 2000;
	run.bytes = 131072000;

	CHECK_INT(print_run(&c, &run, false), 0);
	CHECK_STR(c.buf, bw_text);
	cap_close(&c);
	CHECK_INT(print_run(&c, &run, true), 0);
	CHECK_JSON(c.buf,
		   "assert 'id' not in d and d['path'] == 'user'\n"
		   "assert d['bidir'] is True and d['qps'] == 2\n"
		   "assert d['cpus'] == '0' and d['bytes'] == 131072000\n"
		   "r = d['results'][0]\n"
		   "assert r['messages'] == 2000 and r['rx_messages'] == 1000\n"
		   "assert 'peer_messages' not in r\n"
		   "assert r['bw_avg_mibps'] == 62.5\n"
		   "assert [q['cpu'] for q in r['qps']] == [0, 0]\n"
		   "assert [q['index'] for q in r['qps']] == [0, 1]\n");
	cap_close(&c);
}

/* The progress report's line, as "run bw ... path user" prints it. */
struct live_ctx {
	FILE *f;
	bool gbits;
	uint32_t calls;
};

static void live_progress(void *arg, const struct kv_run *ev)
{
	struct live_ctx *l = arg;

	l->calls++;
	CHECK_INT(ev->path, KV_RUN_PATH_USER);
	run_print_live(l->f, ev, 0, l->gbits);
}

static void upath_result_live_line(void)
{
	struct live_ctx l = { 0 };
	struct upath_run_ops ops = { .progress = live_progress, .arg = &l };
	struct upath_run run;
	struct capture c;

	memset(&run, 0, sizeof(run));
	/* no ops: nothing to report to */
	upath_run_progress(&run, 65536, 100 << 20, 1024, 1000000000);
	run.ops = &ops;
	l.f = cap_open(&c);
	/* 64 MiB/s for 1 s, after 100 MiB */
	upath_run_progress(&run, 65536, 100 << 20, 1024, 1000000000);
	CHECK_INT(l.calls, 1);
	CHECK_STR(cap_str(&c),
		  "  [   0.0 s] size 65536  64.00 MiB/s  0.0010 Mpps  (100.00 MiB so far)\n");
	cap_close(&c);

	l.gbits = true;
	l.f = cap_open(&c);
	upath_run_progress(&run, 4096, 512, 0, 1000000);
	CHECK_STR(cap_str(&c),
		  "  [   0.0 s] size 4096  0.00 Gb/s  0.0000 Mpps  (512 B so far)\n");
	cap_close(&c);
}

/* The module's statistics, built into the tool, on the tool's side. */
static void upath_stats_shared(void)
{
	struct upath_hist *h = upath_hist_new(UPATH_HIST_MAX_NS);
	struct upath_stats st;
	uint64_t i;

	CHECK(h != NULL);
	upath_hist_summarize(h, &st);
	CHECK_U64(st.count, 0);
	CHECK_U64(st.p50_ns, 0);
	for (i = 1; i <= 1000; i++)
		upath_hist_record(h, i * 100);
	upath_hist_summarize(h, &st);
	CHECK_U64(st.count, 1000);
	CHECK_U64(st.min_ns, 100);
	CHECK_U64(st.max_ns, 100000);
	CHECK_U64(st.mean_ps, 50050000);
	/* within the histogram's bound of the exact ranks 500 and 990 */
	CHECK(st.p50_ns >= 50000 - 50000 / 256 && st.p50_ns <= 50000 + 50000 / 256);
	CHECK(st.p99_ns >= 99000 - 99000 / 256 && st.p99_ns <= 99000 + 99000 / 256);
	CHECK_U64(st.rel_err_ppm, 3907);
	upath_hist_free(h);
}

static void upath_fault_count(void)
{
	unsigned int n = 7;

	CHECK_INT(upath_fault_parse("3", &n), 0);
	CHECK_INT(n, 3);
	CHECK_INT(upath_fault_parse("0", &n), 0);
	CHECK_INT(n, 0);
	CHECK_INT(upath_fault_parse("4294967295", &n), 0);
	CHECK(n == 4294967295U);
	CHECK_INT(upath_fault_parse("4294967296", &n), -EINVAL);
	CHECK_INT(upath_fault_parse("", &n), -EINVAL);
	CHECK_INT(upath_fault_parse("-1", &n), -EINVAL);
	CHECK_INT(upath_fault_parse(" 2", &n), -EINVAL);
	CHECK_INT(upath_fault_parse("2x", &n), -EINVAL);
	CHECK_INT(upath_fault_parse(NULL, &n), -EINVAL);
}

/*
 * KVPERF_FAULT_CORRUPT_PAYLOADS=4, read at the first check of this
 * process: four checked payloads get one byte flipped (the count left
 * after each is 3, 2, 1, 0: the last, the first, the middle, the last),
 * each then fails its check; the fifth is left alone, and so is an empty
 * payload, which takes nothing.
 */
static void upath_fault_corrupts(void)
{
	static const size_t want_off[] = { 99, 0, 50, 99 };
	uint8_t mem[100];
	struct upath_buf b = { .p = mem, .len = sizeof(mem) };
	unsigned int i;
	size_t j;

	setenv("KVPERF_FAULT_CORRUPT_PAYLOADS", "4", 1);
	CHECK(!upath_buf_fault(&b, 0));
	for (i = 0; i < 4; i++) {
		upath_buf_fill(&b, sizeof(mem), 9);
		CHECK(upath_buf_fault(&b, sizeof(mem)));
		CHECK(!upath_buf_check(&b, sizeof(mem), 9));
		for (j = 0; j < sizeof(mem); j++)
			if (mem[j] != kvperf_wire_pattern(9, j))
				CHECK_INT(j, want_off[i]);
	}
	upath_buf_fill(&b, sizeof(mem), 9);
	CHECK(!upath_buf_fault(&b, sizeof(mem)));
	CHECK(upath_buf_check(&b, sizeof(mem), 9));
	unsetenv("KVPERF_FAULT_CORRUPT_PAYLOADS");
}

/* The user-path server's decisions, in their order. */
static void upath_server_admits(void)
{
	struct access_prefix allow[2];
	static const uint8_t key[16] = { 0xa0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
					 11, 12, 13, 14, 0xaf };
	struct upath_admit a = {
		.allow = allow, .nallow = 2, .key = key,
		.conns = 3, .conns_max = 16, .peer_conns = 1,
		.peer_conns_max = 8, .pinned = 0, .pinned_max = 1 << 20,
	};
	static const uint8_t in4[4] = { 198, 18, 0, 9 };
	static const uint8_t out4[4] = { 198, 19, 0, 9 };
	static const uint8_t in6[16] = { 0xfd, 0, [15] = 9 };
	struct kvperf_wire_req w;
	struct upath_req r, req = bw_req;
	size_t pinned = 0;

	access_prefix_parse("198.18.0.0/24", &allow[0]);
	access_prefix_parse("fd00::/64", &allow[1]);
	upath_wire_req_put(&req, &w);
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned), 0);
	CHECK_U64(pinned, 2 * 65536);
	CHECK_INT(upath_wire_admit(&a, in6, 16, &w, sizeof(w), &r, &pinned),
		  0);
	/* the address first: nothing else is looked at */
	CHECK_INT(upath_wire_admit(&a, out4, 4, "", 0, &r, &pinned),
		  KVPERF_WIRE_REJ_ADDRESS);
	CHECK_INT(upath_wire_admit(&a, in4, 16, &w, sizeof(w), &r, &pinned),
		  KVPERF_WIRE_REJ_ADDRESS);
	CHECK_INT(upath_wire_admit(&a, in4, 0, &w, sizeof(w), &r, &pinned),
		  KVPERF_WIRE_REJ_ADDRESS);
	/* then the request's form and version */
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w) - 1, &r,
				   &pinned), KVPERF_WIRE_REJ_BAD_REQUEST);
	w.version = 2;
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned),
		  KVPERF_WIRE_REJ_BAD_REQUEST);
	/* then the key: wrong in its last byte, missing */
	req.key[15] ^= 1;
	upath_wire_req_put(&req, &w);
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned),
		  KVPERF_WIRE_REJ_KEY);
	memset(req.key, 0, sizeof(req.key));
	req.size_max = 0;	/* bad too, but the key comes first */
	upath_wire_req_put(&req, &w);
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned),
		  KVPERF_WIRE_REJ_KEY);
	/* a server without a key takes any */
	a.key = NULL;
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned),
		  KVPERF_WIRE_REJ_BAD_REQUEST);
	req.size_max = 65536;
	upath_wire_req_put(&req, &w);
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned), 0);
	/* then the room: connections, from this address, memory */
	a.conns = 16;
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned),
		  KVPERF_WIRE_REJ_TOO_MANY);
	a.conns = 15;
	a.peer_conns = 8;
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned),
		  KVPERF_WIRE_REJ_PEER_BUSY);
	a.peer_conns = 7;
	a.pinned = (1 << 20) - 2 * 65536 + 1;
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned),
		  KVPERF_WIRE_REJ_MEMORY);
	a.pinned--;
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned), 0);
	/* an I/O run, its target's buffers and blocks counted */
	req.type = KVPERF_RUN_TYPE_IO;
	req.op = KVPERF_OP_READ;
	/* its flags travel: a mix, answered with plain SENDs */
	req.flags = KVPERF_WIRE_VERIFY | KVPERF_WIRE_IO_INV_LOCAL |
		    KVPERF_WIRE_IO_MIXED;
	req.size_max = 4096;
	req.tx_depth = 16;
	req.post_list = 1;
	req.warmup_ms = 0;	/* a timed warm-up is a bandwidth run's */
	req.inline_size = 0;	/* a read run has no in-capsule data */
	upath_wire_req_put(&req, &w);
	CHECK_INT(upath_wire_req_get(&w, sizeof(w), &r), 0);
	CHECK_INT(r.flags, req.flags);
	CHECK(upath_wire_req_ok(&r));
	a.pinned = 0;
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned), 0);
	/*
	 * 16 + 8 contexts of a block and a response capsule each, 16 + 64
	 * receives of a capsule: two buffers of 80 capsules, 24 blocks
	 */
	CHECK_U64(pinned, 2 * 80 * 512 + 24 * 4096);
	req.size_max = 1 << 20;		/* 24 MiB of blocks: too many */
	upath_wire_req_put(&req, &w);
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned),
		  KVPERF_WIRE_REJ_MEMORY);
	req = bw_req;
	memset(req.key, 0, sizeof(req.key));
	upath_wire_req_put(&req, &w);
	/* no allow list allows nobody */
	a.nallow = 0;
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned),
		  KVPERF_WIRE_REJ_ADDRESS);

	CHECK_U64(upath_wire_pinned(1), 2 * 4096);
	CHECK_U64(upath_wire_pinned(4097), 4 * 4096);
	CHECK_STR(upath_wire_reject_name(KVPERF_WIRE_REJ_ADDRESS),
		  "address not allowed");
	CHECK_STR(upath_wire_reject_name(KVPERF_WIRE_REJ_KEY),
		  "key missing or wrong");
	CHECK_STR(upath_wire_reject_name(KVPERF_WIRE_REJ_PEER_BUSY),
		  "too many connections from this address");
}

/*
 * A server with a shared receive queue: an I/O run gets the credits left,
 * at most its depth, and is refused with none left or with in-capsule
 * data; other runs are not its business.
 */
static void upath_server_admits_srq(void)
{
	struct access_prefix allow;
	struct upath_admit a = {
		.allow = &allow, .nallow = 1, .conns_max = 16,
		.peer_conns_max = 16, .pinned_max = 1 << 30,
		.srq = 64, .srq_granted = 0,
	};
	static const uint8_t in4[4] = { 198, 18, 0, 9 };
	struct kvperf_wire_req w;
	struct upath_req r, req = bw_req;
	size_t pinned = 0;

	access_prefix_parse("198.18.0.0/24", &allow);
	memset(req.key, 0, sizeof(req.key));
	/* a bandwidth run: no credits taken, its own receives */
	upath_wire_req_put(&req, &w);
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned), 0);
	CHECK(!r.srq);
	CHECK_U64(pinned, 2 * 65536);

	req.type = KVPERF_RUN_TYPE_IO;
	req.op = KVPERF_OP_WRITE;
	req.flags = 0;
	req.size_max = 4096;
	req.tx_depth = 16;
	req.post_list = 1;
	req.warmup_ms = 0;
	req.inline_size = 0;
	upath_wire_req_put(&req, &w);
	/* without a shared queue: its depth, its own receives */
	a.srq = 0;
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned), 0);
	CHECK(!r.srq);
	CHECK_U64(r.credits, 16);
	CHECK_U64(pinned, 2 * 80 * 512 + 24 * 4096);
	/* all it asked for, while there is room */
	a.srq = 64;
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned), 0);
	CHECK(r.srq);
	CHECK_U64(r.credits, 16);
	/* the rest, fewer than it asked for */
	a.srq_granted = 54;
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned), 0);
	CHECK_U64(r.credits, 10);
	CHECK_U64(r.tx_depth, 16);
	/*
	 * 10 + 8 contexts of a block and a response capsule each, no
	 * receives of its own: two buffers of 18 capsules (three pages each)
	 */
	CHECK_U64(pinned, 2 * 3 * 4096 + 18 * 4096);
	a.srq_granted = 63;
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned), 0);
	CHECK_U64(r.credits, 1);
	/* none left */
	a.srq_granted = 64;
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned),
		  KVPERF_WIRE_REJ_SRQ_FULL);
	/* the connection limits come first */
	a.conns = 16;
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned),
		  KVPERF_WIRE_REJ_TOO_MANY);
	a.conns = 0;
	/* in-capsule data: refused, room or not */
	req.inline_size = 4096;
	upath_wire_req_put(&req, &w);
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned),
		  KVPERF_WIRE_REJ_SRQ_INLINE);
	a.srq_granted = 0;
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned),
		  KVPERF_WIRE_REJ_SRQ_INLINE);
	/* which a server without one takes */
	a.srq = 0;
	CHECK_INT(upath_wire_admit(&a, in4, 4, &w, sizeof(w), &r, &pinned), 0);
	CHECK_U64(r.credits, 16);

	CHECK_STR(upath_wire_reject_name(KVPERF_WIRE_REJ_SRQ_FULL),
		  "shared receive queue all granted");
	CHECK_STR(upath_wire_reject_name(KVPERF_WIRE_REJ_SRQ_INLINE),
		  "in-capsule data with a shared receive queue");
	CHECK_STR(kvperf_wire_reject_text(KVPERF_WIRE_REJ_SRQ_FULL),
		  "the server's shared receive queue has no credits left");
}

/* A key given to a user-path run goes into its wire request. */
static void upath_cfg_key(void)
{
	static const uint8_t zero[16];
	struct upath_cfg c;

	CHECK(!CFG(&c, LAT, "op", "send", "addr", "198.18.0.1", "key",
		   "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"));
	CHECK_INT(c.key[0], 0xa0);
	CHECK_INT(c.key[15], 0xaf);
	CHECK(!CFG(&c, LAT, "op", "send", "addr", "198.18.0.1"));
	CHECK(!memcmp(c.key, zero, 16));
}

/*
 * A SEND bandwidth receiver's slack: all of it where the device has room,
 * what fits its max_qp_wr and max_cqe where not, none beyond them.
 */
static void upath_conn_recv_slack(void)
{
	/* tx-depth 128: 8 control receives and the sender's window */
	static const struct {
		int max_qp_wr, max_cqe;
		uint32_t slack, room;
	} cases[] = {
		{ 16384, 32767, UPATH_RECV_SLACK, 512 },
		/* 136 receives + 1 for the drain: 463 left */
		{ 600, 32767, UPATH_RECV_SLACK, 463 },
		/* 8 sends + 136 receives + 2 drain slots: 254 left */
		{ 16384, 400, UPATH_RECV_SLACK, 254 },
		{ 16384, 146, UPATH_RECV_SLACK, 0 },
		{ 16384, 100, UPATH_RECV_SLACK, 0 },
		{ 100, 32767, UPATH_RECV_SLACK, 0 },
		{ 16384, 32767, 0, 0 },
	};
	size_t i;

	CHECK_INT(UPATH_RECV_SLACK, 512);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct ibv_device_attr d = {
			.max_qp_wr = cases[i].max_qp_wr,
			.max_cqe = cases[i].max_cqe,
		};
		struct upath_conn_attr a = {
			.send_depth = UPATH_SEND_DEPTH, .recv_depth = 8 + 128,
			.recv_slack = cases[i].slack,
		};

		CHECK_INT(upath_conn_recv_room(&d, &a), cases[i].room);
	}
}

/*
 * "path user" on a host without RDMA: the CM event channel cannot be
 * created. The reason says what that means, and the run's failure is said
 * once (stderr), not again as the run's "error:" line on stdout.
 */
static void upath_no_rdma_said_once(void)
{
	static const char why[] = "cannot create an RDMA CM event channel: "
		"no RDMA device on this host, or the rdma_ucm module is not "
		"loaded";
	static const struct kvperf_cmd *const objects[] = {
		&run_object, NULL,
	};
	static char *const words[] = {
		"kvperf", "run", "lat", "op", "send", "addr", "198.18.0.1",
		"iters", "1", "path", "user",
	};
	char *argv[ARRAY_SIZE(words)];
	struct rdma_event_channel *ch;
	struct kvperf kv = { 0 };
	struct capture out, err;
	char want[256];
	int ret, e;

	CHECK_STR(upath_cm_channel_why(-ENODEV), why);
	CHECK_STR(upath_cm_channel_why(-ENOENT), why);
	CHECK_STR(upath_cm_channel_why(-EIO),
		  "cannot create an RDMA CM event channel");

	ch = rdma_create_event_channel();
	e = errno;
	if (ch) {
		rdma_destroy_event_channel(ch);
		unit_skip("this host has RDMA: the channel is created");
		return;
	}
	if (e != ENODEV && e != ENOENT) {
		unit_skip("the channel fails otherwise here");
		return;
	}
	memcpy(argv, words, sizeof(words));
	kv.out = cap_open(&out);
	kv.err = cap_open(&err);
	ret = kvperf_main(&kv, ARRAY_SIZE(argv), argv, objects);
	CHECK_INT(ret, KVPERF_EXIT_ERROR);
	snprintf(want, sizeof(want), "kvperf: run failed: %s (-%s)\n", why,
		 e == ENODEV ? "ENODEV" : "ENOENT");
	CHECK_STR(cap_str(&err), want);
	CHECK(strstr(cap_str(&out), "state failed\n") != NULL);
	CHECK(strstr(cap_str(&out), "RDMA CM") == NULL);
	cap_close(&out);
	cap_close(&err);
}

const struct unit_test unit_tests[] = {
	UNIT(upath_conn_recv_slack),
	UNIT(upath_server_admits),
	UNIT(upath_server_admits_srq),
	UNIT(upath_cfg_key),
	UNIT(upath_run_path_keyword),
	UNIT(upath_server_path_keyword),
	UNIT(upath_wire_layout),
	UNIT(upath_wire_encoding),
	UNIT(upath_wire_request_checks),
	UNIT(upath_cfg_defaults),
	UNIT(upath_cfg_timeout_default),
	UNIT(upath_cfg_refusals),
	UNIT(upath_cfg_model_refusals),
	UNIT(upath_result_lat),
	UNIT(upath_result_lat_stats_off),
	UNIT(upath_result_bw),
	UNIT(upath_result_live_line),
	UNIT(upath_stats_shared),
	UNIT(upath_fault_count),
	UNIT(upath_fault_corrupts),
	UNIT(upath_no_rdma_said_once),
	{ NULL },
};
