// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of kvperf compare (user/compare/compare.c, and of user/compare/compare_exec.c
 * what runs nothing): command lines and their usage errors, the message
 * sizes, the configuration of the kvperf runs, the median, spread and
 * ratios over rounds, results read from kvperf runs (struct kv_run) and
 * from perftest's output, the TCG guess, and the table and JSON printed.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kvperf.h>

#include "args.h"
#include "compare.h"
#include "cli.h"
#include "kvperf.h"
#include "print.h"
#include "run_cfg.h"
#include "run_model.h"
#include "unit.h"

struct cmp_line {
	int ret;
	struct cmp_opts o;
	char err[512];
};

static void cmp_words(struct cmp_line *l, uint8_t type,
		      const char *const *words)
{
	struct kvperf kv = { 0 };
	struct capture out, err;
	char *argv[40];
	struct args a;
	int argc = 0;

	while (*words && argc < 40)
		argv[argc++] = (char *)*words++;
	a.argc = argc;
	a.argv = argv;
	kv.out = cap_open(&out);
	kv.err = cap_open(&err);
	if (type == KVPERF_RUN_TYPE_IO)
		l->ret = cmp_parse_io(&kv, &a, &l->o);
	else
		l->ret = cmp_parse(&kv, &a, type, &l->o);
	snprintf(l->err, sizeof(l->err), "%s", cap_str(&err));
	CHECK_STR(cap_str(&out), "");
	cap_close(&out);
	cap_close(&err);
}

#define CMP_LINE(l, type, ...)						\
	cmp_words((l), (type), (const char *const []){ __VA_ARGS__, NULL })

#define CMP_ERR(type, want, ...)					\
	do {								\
		struct cmp_line l_;					\
		CMP_LINE(&l_, (type), __VA_ARGS__);			\
		CHECK_INT(l_.ret, KVPERF_EXIT_USAGE);			\
		CHECK_STR(l_.err, "kvperf: " want			\
			  " (try 'kvperf compare help')\n");		\
	} while (0)

#define STARTS(s, prefix)	(!strncmp((s), (prefix), strlen(prefix)))

#define LAT	KVPERF_RUN_TYPE_LAT
#define BW	KVPERF_RUN_TYPE_BW

static void cmp_parse_defaults(void)
{
	struct cmp_line l;

	CMP_LINE(&l, LAT, "op", "send", "addr", "198.18.0.1");
	CHECK_INT(l.ret, 0);
	CHECK_STR(l.err, "");
	CHECK_INT(l.o.type, LAT);
	CHECK_INT(l.o.op, KVPERF_OP_SEND);
	CHECK_STR(l.o.addr, "198.18.0.1");
	CHECK_INT(l.o.addr_len, 4);
	CHECK_INT(l.o.port, 18515);
	CHECK_INT(l.o.rounds, 5);
	CHECK_INT(l.o.poll, KVPERF_POLL_BUSY);
	CHECK_INT(l.o.size, 2);
	CHECK_INT(l.o.size_max, 2);
	CHECK(!l.o.sizes_all);
	CHECK(!l.o.plot);
	CHECK(!cmp_opt(&l.o, CMP_KW_ITERS));

	CMP_LINE(&l, BW, "op", "write", "addr", "fd00::1");
	CHECK_INT(l.ret, 0);
	CHECK_INT(l.o.addr_len, 16);
	CHECK_INT(l.o.size, 65536);
	CHECK_INT(l.o.size_max, 65536);
}

static void cmp_parse_all(void)
{
	struct cmp_line l;

	CMP_LINE(&l, BW, "op", "read", "addr", "198.18.1.1", "port", "20000",
		 "sizes", "4K-1M", "rounds", "3", "iters", "2000", "poll",
		 "softirq", "inline", "64", "plot", "out.PNG", "no-perftest",
		 "remote", "tx-depth", "256", "qps", "4", "signal-every", "50");
	CHECK_INT(l.ret, 0);
	CHECK_STR(l.err, "");
	CHECK_INT(l.o.op, KVPERF_OP_READ);
	CHECK_INT(l.o.port, 20000);
	CHECK_INT(l.o.size, 4096);
	CHECK_INT(l.o.size_max, 1048576);
	CHECK_INT(l.o.rounds, 3);
	CHECK_INT(l.o.iterations, 2000);
	CHECK_INT(l.o.poll, KVPERF_POLL_SOFTIRQ);
	CHECK_INT(l.o.inline_size, 64);
	CHECK_STR(l.o.plot, "out.PNG");
	CHECK(cmp_opt(&l.o, CMP_KW_NO_PERFTEST));
	CHECK(cmp_opt(&l.o, CMP_KW_REMOTE));
	CHECK_INT(l.o.tx_depth, 256);
	CHECK_INT(l.o.qps, 4);
	CHECK_INT(l.o.signal_every, 50);
	CHECK(cmp_opt(&l.o, CMP_KW_SIGNAL_EVERY));

	CMP_LINE(&l, LAT, "op", "write", "addr", "198.18.0.1", "sizes", "all");
	CHECK_INT(l.ret, 0);
	CHECK(l.o.sizes_all);
	CHECK_INT(l.o.size, 2);
	CHECK_INT(l.o.size_max, 8388608);
}

/* s is size, r rounds, p port, i iters, n no-perftest */
static void cmp_parse_abbrev(void)
{
	struct cmp_line l;

	CMP_LINE(&l, LAT, "o", "read", "a", "198.18.0.1", "s", "64", "r", "2",
		 "p", "1000", "i", "10", "n", "pol", "workqueue", "pl", "x.svg", "re");
	CHECK_INT(l.ret, 0);
	CHECK_STR(l.err, "");
	CHECK_INT(l.o.op, KVPERF_OP_READ);
	CHECK_INT(l.o.size, 64);
	CHECK_INT(l.o.rounds, 2);
	CHECK_INT(l.o.port, 1000);
	CHECK_INT(l.o.iterations, 10);
	CHECK(cmp_opt(&l.o, CMP_KW_NO_PERFTEST));
	CHECK_INT(l.o.poll, KVPERF_POLL_WORKQUEUE);
	CHECK_STR(l.o.plot, "x.svg");
	CHECK(cmp_opt(&l.o, CMP_KW_REMOTE));
}

static void cmp_parse_errors(void)
{
	CMP_ERR(LAT, "missing op (send, write or read)", "addr", "198.18.0.1");
	CMP_ERR(LAT, "missing addr", "op", "send");
	CMP_ERR(LAT, "unknown keyword 'bogus'", "op", "send", "bogus");
	CMP_ERR(LAT, "unknown op 'atomic' (send, write or read)", "op",
		"atomic");
	/* keywords abbreviate, values do not */
	CMP_ERR(LAT, "unknown op 'w' (send, write or read)", "op", "w");
	CMP_ERR(LAT, "invalid address 'host' (IPv4 or IPv6)", "addr", "host");
	CMP_ERR(LAT, "missing value after 'rounds'", "op", "send", "rounds");
	CMP_ERR(LAT, "'op' given twice", "op", "send", "op", "read");
	CMP_ERR(LAT, "'tx-depth' is only for compare bw", "op", "send",
		"tx-depth", "4");
	CMP_ERR(LAT, "'qps' is only for compare bw", "qps", "4");
	CMP_ERR(LAT, "'signal-every' is only for compare bw", "signal-every",
		"10");
	CMP_ERR(LAT, "size and sizes exclude each other", "op", "send",
		"addr", "198.18.0.1", "size", "64", "sizes", "all");
	CMP_ERR(LAT, "rounds '0' is out of range (1 to 100)", "rounds", "0");
	CMP_ERR(LAT, "rounds '101' is out of range (1 to 100)", "rounds",
		"101");
	CMP_ERR(LAT, "invalid rounds 'x' (a number)", "rounds", "x");
	CMP_ERR(LAT, "iters '0' is out of range (1 to 4294967295)", "iters",
		"0");
	CMP_ERR(LAT, "invalid port '65534' (1 to 65533: PORT+1 and PORT+2 are used too)",
		"port", "65534");
	CMP_ERR(LAT, "invalid port '0' (1 to 65533: PORT+1 and PORT+2 are used too)",
		"port", "0");
	CMP_ERR(LAT, "size '16M' is out of range (1 to 8M)", "size", "16M");
	CMP_ERR(LAT, "invalid size '1X' (bytes, with an optional K or M suffix)",
		"size", "1X");
	CMP_ERR(LAT, "invalid sizes '64' (all, or MIN-MAX such as 2-64K)",
		"sizes", "64");
	CMP_ERR(LAT, "sizes '8K-4K': MIN is larger than MAX", "sizes",
		"8K-4K");
	CMP_ERR(LAT, "unknown poll mode 'spin' (busy, softirq or workqueue)",
		"poll", "spin");
	CMP_ERR(LAT, "plot 'a.pdf': the file name must end in .svg or .png",
		"plot", "a.pdf");
	CMP_ERR(LAT, "plot '.svg': the file name must end in .svg or .png",
		"plot", ".svg");
	CMP_ERR(BW, "tx-depth '5000' is out of range (1 to 4096)",
		"tx-depth", "5000");
	CMP_ERR(BW, "qps '17' is out of range (1 to 16)", "qps", "17");
	CMP_ERR(BW, "signal-every '0' is out of range (1 to 4096)",
		"signal-every", "0");
	CMP_ERR(BW, "signal-every '4097' is out of range (1 to 4096)",
		"signal-every", "4097");
	CMP_ERR(BW, "signal-every is larger than tx-depth", "op", "write",
		"addr", "198.18.0.1", "signal-every", "129");
	CMP_ERR(BW, "signal-every is larger than tx-depth", "op", "write",
		"addr", "198.18.0.1", "tx-depth", "16", "signal-every", "17");
}

static void cmp_sizes_list(void)
{
	uint32_t s[CMP_SIZES_MAX];
	struct cmp_line l;

	CMP_LINE(&l, LAT, "op", "send", "addr", "198.18.0.1", "sizes",
		 "64-1000");
	CHECK_INT(cmp_sizes(&l.o, s, CMP_SIZES_MAX), 4);
	CHECK_INT(s[0], 64);
	CHECK_INT(s[3], 512);
	CMP_LINE(&l, LAT, "op", "send", "addr", "198.18.0.1", "sizes", "all");
	CHECK_INT(cmp_sizes(&l.o, s, CMP_SIZES_MAX), 23);
	CHECK_INT(s[22], 8388608);
	CHECK_INT(cmp_sizes(&l.o, s, 3), 3);
	CMP_LINE(&l, LAT, "op", "send", "addr", "198.18.0.1", "size", "100");
	CHECK_INT(cmp_sizes(&l.o, s, CMP_SIZES_MAX), 1);
	CHECK_INT(s[0], 100);
}

/* Does @cfg hold @attr, with @val? */
static bool cfg_is(const struct kv_run_cfg *cfg, int attr, uint64_t val)
{
	return KV_HAS(cfg, attr) &&
	       run_model_uint(&run_cfg_fields, cfg, attr) == val;
}

/* The attributes of a kvperf measurement's configuration. */
#define CFG_BIT(attr)	(1ULL << KVPERF_A_RUN_##attr)

static void cmp_run_cfgs(void)
{
	static const uint8_t v6[16] = { 0xfd, [15] = 1 };
	struct kv_run_cfg cfg;
	struct cmp_line l;

	CMP_LINE(&l, LAT, "op", "send", "addr", "198.18.0.1", "size", "64",
		 "rounds", "3");
	cmp_run_cfg(&cfg, &l.o, CMP_KERNEL);
	/* exactly these: the module's defaults for the rest */
	CHECK(cfg.has == (CFG_BIT(TYPE) | CFG_BIT(OP) | CFG_BIT(ADDR) |
			  CFG_BIT(PORT) | CFG_BIT(SIZE) | CFG_BIT(POLL)));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_TYPE, KVPERF_RUN_TYPE_LAT));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_OP, KVPERF_OP_SEND));
	CHECK_INT(cfg.addr_len, 4);
	CHECK(!memcmp(cfg.addr, "\xc6\x12\x00\x01", 4));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_PORT, 18515));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_SIZE, 64));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_POLL, KVPERF_POLL_BUSY));
	run_cfg_clear(&cfg);
	/* the user path on PORT+1, where its own server listens */
	cmp_run_cfg(&cfg, &l.o, CMP_USER);
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_PORT, 18516));
	CHECK(cfg.has == (CFG_BIT(TYPE) | CFG_BIT(OP) | CFG_BIT(ADDR) |
			  CFG_BIT(PORT) | CFG_BIT(SIZE) | CFG_BIT(POLL)));
	run_cfg_clear(&cfg);

	CMP_LINE(&l, BW, "op", "write", "addr", "fd00::1", "port", "2000",
		 "sizes", "4K-64K", "iters", "100", "poll", "softirq",
		 "inline", "0", "tx-depth", "16", "qps", "2", "plot", "a.svg",
		 "no-perftest", "signal-every", "8");
	cmp_run_cfg(&cfg, &l.o, CMP_KERNEL);
	CHECK(cfg.has == (CFG_BIT(TYPE) | CFG_BIT(OP) | CFG_BIT(ADDR) |
			  CFG_BIT(PORT) | CFG_BIT(SIZE) | CFG_BIT(SIZE_MAX) |
			  CFG_BIT(ITERATIONS) | CFG_BIT(POLL) |
			  CFG_BIT(INLINE) | CFG_BIT(TX_DEPTH) | CFG_BIT(QPS) |
			  CFG_BIT(SIGNAL_EVERY)));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_TYPE, KVPERF_RUN_TYPE_BW));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_OP, KVPERF_OP_WRITE));
	CHECK_INT(cfg.addr_len, 16);
	CHECK(!memcmp(cfg.addr, v6, 16));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_PORT, 2000));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_SIZE, 4096));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_SIZE_MAX, 65536));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_ITERATIONS, 100));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_POLL, KVPERF_POLL_SOFTIRQ));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_INLINE, 0));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_TX_DEPTH, 16));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_QPS, 2));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_SIGNAL_EVERY, 8));
	run_cfg_clear(&cfg);

	/* sizes all: 2 B to 8 MiB, as "run ... sizes all" */
	CMP_LINE(&l, BW, "op", "read", "addr", "198.18.0.1", "sizes", "all");
	cmp_run_cfg(&cfg, &l.o, CMP_USER);
	CHECK(cfg.has == (CFG_BIT(TYPE) | CFG_BIT(OP) | CFG_BIT(ADDR) |
			  CFG_BIT(PORT) | CFG_BIT(SIZE) | CFG_BIT(SIZE_MAX) |
			  CFG_BIT(POLL)));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_OP, KVPERF_OP_READ));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_PORT, 18516));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_SIZE, 2));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_SIZE_MAX, 8388608));
	run_cfg_clear(&cfg);
}

/*
 * post-context: process, bh or both, for lat and bw; the kernel column
 * posts as asked (process with both), the kernel-bh column with bh, the
 * user path as it does.
 */
static void cmp_post_context(void)
{
	struct kv_run_cfg cfg;
	struct cmp_line l;

	CMP_LINE(&l, LAT, "op", "send", "addr", "198.18.0.1");
	CHECK_INT(l.o.post_context, CMP_POST_PROCESS);
	cmp_run_cfg(&cfg, &l.o, CMP_KERNEL);
	CHECK(!KV_HAS(&cfg, KVPERF_A_RUN_POST_CONTEXT));

	CMP_LINE(&l, LAT, "op", "send", "addr", "198.18.0.1", "post-context",
		 "both");
	CHECK_INT(l.ret, 0);
	CHECK_STR(l.err, "");
	CHECK_INT(l.o.post_context, CMP_POST_BOTH);
	cmp_run_cfg(&cfg, &l.o, CMP_KERNEL);
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_POST_CONTEXT,
		     KVPERF_POST_CONTEXT_PROCESS));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_PORT, 18515));
	cmp_run_cfg(&cfg, &l.o, CMP_KERNEL_BH);
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_POST_CONTEXT, KVPERF_POST_CONTEXT_BH));
	/* the kernel's server, as the kernel column */
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_PORT, 18515));
	CHECK(cfg.has == (CFG_BIT(TYPE) | CFG_BIT(OP) | CFG_BIT(ADDR) |
			  CFG_BIT(PORT) | CFG_BIT(SIZE) | CFG_BIT(POLL) |
			  CFG_BIT(POST_CONTEXT)));
	cmp_run_cfg(&cfg, &l.o, CMP_USER);
	CHECK(!KV_HAS(&cfg, KVPERF_A_RUN_POST_CONTEXT));

	CMP_LINE(&l, BW, "op", "write", "addr", "198.18.0.1", "post-c", "bh",
		 "qps", "2");
	CHECK_INT(l.ret, 0);
	CHECK_INT(l.o.post_context, CMP_POST_BH);
	cmp_run_cfg(&cfg, &l.o, CMP_KERNEL);
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_POST_CONTEXT, KVPERF_POST_CONTEXT_BH));
	cmp_run_cfg(&cfg, &l.o, CMP_USER);
	CHECK(!KV_HAS(&cfg, KVPERF_A_RUN_POST_CONTEXT));

	CMP_LINE(&l, BW, "op", "write", "addr", "198.18.0.1", "post-context",
		 "process");
	CHECK_INT(l.ret, 0);
	cmp_run_cfg(&cfg, &l.o, CMP_KERNEL);
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_POST_CONTEXT,
		     KVPERF_POST_CONTEXT_PROCESS));

	CMP_ERR(LAT, "unknown post-context 'soft' (process, bh or both)",
		"op", "send", "post-context", "soft");
	CMP_ERR(BW, "unknown post-context 'bo' (process, bh or both)",
		"post-context", "bo");
	CMP_ERR(LAT, "missing value after 'post-context'", "op", "send",
		"post-context");
}

/*
 * timeout: a time in the run model's range, given to every kvperf
 * column's runs (kernel, kernel-bh, user), absent unless given.
 */
static void cmp_timeout(void)
{
	struct kv_run_cfg cfg;
	struct cmp_line l;
	enum cmp_path p;

	CMP_LINE(&l, LAT, "op", "send", "addr", "198.18.0.1");
	cmp_run_cfg(&cfg, &l.o, CMP_KERNEL);
	CHECK(!KV_HAS(&cfg, KVPERF_A_RUN_TIMEOUT_MS));
	run_cfg_clear(&cfg);

	CMP_LINE(&l, BW, "op", "write", "addr", "198.18.0.1", "timeout",
		 "50s", "post-context", "both");
	CHECK_INT(l.ret, 0);
	CHECK_STR(l.err, "");
	for (p = CMP_KERNEL; p <= CMP_USER; p++) {
		cmp_run_cfg(&cfg, &l.o, p);
		CHECK(cfg_is(&cfg, KVPERF_A_RUN_TIMEOUT_MS, 50000));
		run_cfg_clear(&cfg);
	}
	CMP_LINE(&l, LAT, "op", "read", "addr", "198.18.0.1", "timeout",
		 "250ms");
	CHECK_INT(l.ret, 0);
	CHECK_INT(l.o.timeout_ms, 250);

	CMP_ERR(LAT, "timeout '0' is out of range (10ms to 600s)",
		"op", "send", "timeout", "0");
	CMP_ERR(BW, "timeout '601' is out of range (10ms to 600s): a number without a unit is seconds; for milliseconds write 601ms",
		"op", "send", "timeout", "601");
	CMP_ERR(BW, "timeout '600001' is out of range (10ms to 600s)",
		"op", "send", "timeout", "600001");
	CMP_ERR(LAT, "invalid timeout 'soon' (a time such as 10, 0.5, 2s or 500ms; no unit is seconds)",
		"op", "send", "timeout", "soon");
}

/* perftest's -Q is the signal-every the kvperf runs of the compare use. */
static void cmp_perftest_signal_every(void)
{
	struct cmp_line l;

	CMP_LINE(&l, LAT, "op", "send", "addr", "198.18.0.1", "size", "64");
	CHECK_INT(cmp_signal_every(&l.o), 0);
	CMP_LINE(&l, BW, "op", "write", "addr", "198.18.0.1");
	CHECK_INT(cmp_signal_every(&l.o), 100);
	CMP_LINE(&l, BW, "op", "write", "addr", "198.18.0.1", "tx-depth",
		 "16");
	CHECK_INT(cmp_signal_every(&l.o), 16);
	CMP_LINE(&l, BW, "op", "write", "addr", "198.18.0.1", "tx-depth",
		 "256");
	CHECK_INT(cmp_signal_every(&l.o), 100);
	CMP_LINE(&l, BW, "op", "write", "addr", "198.18.0.1", "tx-depth",
		 "16", "signal-every", "8");
	CHECK_INT(cmp_signal_every(&l.o), 8);
}

static void cmp_summary_stats(void)
{
	const double odd[] = { 15.1, 13.9, 14.2 };
	const double even[] = { 4, 1, 3, 2 };
	const double gaps[] = { NAN, 7, NAN, 5, 9 };
	const double none[] = { NAN, NAN };
	const double ties[] = { 2, 1, 2, 2 };
	struct cmp_summary s;

	CHECK_INT(cmp_summarize(odd, 3, &s), 3);
	CHECK(s.median == 14.2 && s.min == 13.9 && s.max == 15.1);
	CHECK_INT(s.median_round, 2);
	/* even: the mean of the middle two, the round of the lower one */
	CHECK_INT(cmp_summarize(even, 4, &s), 4);
	CHECK(s.median == 2.5 && s.min == 1 && s.max == 4);
	CHECK_INT(s.median_round, 3);
	/* rounds that failed are left out */
	CHECK_INT(cmp_summarize(gaps, 5, &s), 3);
	CHECK(s.median == 7 && s.min == 5 && s.max == 9);
	CHECK_INT(s.median_round, 1);
	CHECK_INT(cmp_summarize(none, 2, &s), 0);
	CHECK(isnan(s.median) && isnan(s.min) && isnan(s.max));
	CHECK_INT(cmp_summarize(odd, 0, &s), 0);
	/* equal values keep their order: the first of them is the median */
	CHECK_INT(cmp_summarize(ties, 4, &s), 4);
	CHECK(s.median == 2);
	CHECK_INT(s.median_round, 0);

	CHECK(fabs(cmp_ratio(14.2, 17.8) - 0.797752809) < 1e-6);
	CHECK(isnan(cmp_ratio(NAN, 1)));
	CHECK(isnan(cmp_ratio(1, NAN)));
	CHECK(isnan(cmp_ratio(1, 0)));
}

/* A run of @type, done, on rxe0; run_model_free() it. */
static void run_of(struct kv_run *run, uint8_t type)
{
	memset(run, 0, sizeof(*run));
	run_model_set_uint(&run_model_fields, run, KVPERF_A_RUN_TYPE, type);
	run_model_set_uint(&run_model_fields, run, KVPERF_A_RUN_STATE,
			   KVPERF_RUN_STATE_DONE);
	snprintf(run->dev, sizeof(run->dev), "rxe0");
	KV_SET(run, KVPERF_A_RUN_DEV);
}

static struct kv_lat_result *lat_of(struct kv_run *run, uint32_t size)
{
	struct kv_lat_result *res = run_model_add_lat(run);

	CHECK(res);
	run_model_set_uint(&run_model_lat_fields, res, KVPERF_A_RESULT_SIZE,
			   size);
	return res;
}

static void lat_set(struct kv_lat_result *res, int attr, uint64_t ns)
{
	run_model_set_uint(&run_model_lat_fields, res, attr, ns);
}

static struct kv_bw_result *bw_of(struct kv_run *run, uint32_t size,
				  uint64_t bytes, uint64_t elapsed_ns)
{
	struct kv_bw_result *res = run_model_add_bw(run, 0);
	const struct kv_fields *f = &run_model_bw_fields;

	CHECK(res);
	run_model_set_uint(f, res, KVPERF_A_BW_RESULT_SIZE, size);
	run_model_set_uint(f, res, KVPERF_A_BW_RESULT_BYTES, bytes);
	run_model_set_uint(f, res, KVPERF_A_BW_RESULT_ELAPSED_NS, elapsed_ns);
	return res;
}

static void result_for(struct cmp_result *r, uint8_t type,
		       const char *const *words)
{
	struct cmp_line l;

	cmp_words(&l, type, words);
	CHECK_INT(l.ret, 0);
	CHECK_INT(cmp_result_init(r, &l.o), 0);
	r->active[CMP_KERNEL] = true;
	r->active[CMP_USER] = true;
	r->active[CMP_PERFTEST] = true;
}

#define RESULT(r, type, ...)						\
	result_for((r), (type), (const char *const []){ __VA_ARGS__, NULL })

/* The kernel column of round 0 from @run; err is the caller's. */
#define READ_RUN(r, run)						\
	cmp_read_run((r), CMP_KERNEL, 0, (run), err, sizeof(err))

static void cmp_read_kvperf(void)
{
	struct kv_lat_result *res;
	struct cmp_result r;
	struct kv_run run;
	char err[128];
	const double *pt;

	RESULT(&r, LAT, "op", "send", "addr", "198.18.0.1", "size", "64",
	       "rounds", "2");
	/* numbers from the VM (6.12, rxe) */
	run_of(&run, KVPERF_RUN_TYPE_LAT);
	res = lat_of(&run, 64);
	lat_set(res, KVPERF_A_RESULT_MIN_NS, 47520);
	lat_set(res, KVPERF_A_RESULT_MAX_NS, 2633654);
	lat_set(res, KVPERF_A_RESULT_P50_NS, 61055);
	lat_set(res, KVPERF_A_RESULT_P90_NS, 108287);
	lat_set(res, KVPERF_A_RESULT_P99_NS, 1249279);
	lat_set(res, KVPERF_A_RESULT_P999_NS, 2629631);
	lat_set(res, KVPERF_A_RESULT_P9999_NS, 2629631);
	CHECK_INT(cmp_read_run(&r, CMP_USER, 1, &run, err, sizeof(err)), 1);
	CHECK(r.rows[0].cell[CMP_USER].value[1] == 61.055);
	CHECK(isnan(r.rows[0].cell[CMP_USER].value[0]));
	CHECK(isnan(r.rows[0].cell[CMP_KERNEL].value[1]));
	pt = r.rows[0].cell[CMP_USER].points[1];
	CHECK(pt[CMP_PT_MIN] == 47.52);
	CHECK(pt[CMP_PT_P50] == 61.055);
	CHECK(pt[CMP_PT_P90] == 108.287);
	CHECK(pt[CMP_PT_P99] == 1249.279);
	CHECK(pt[CMP_PT_P999] == 2629.631);
	CHECK(pt[CMP_PT_MAX] == 2633.654);
	CHECK_STR(r.env.dev, "rxe0");
	run_model_free(&run);

	/* a point the run did not report is NAN; a known device stays */
	run_of(&run, KVPERF_RUN_TYPE_LAT);
	snprintf(run.dev, sizeof(run.dev), "mlx5_0");
	res = lat_of(&run, 64);
	lat_set(res, KVPERF_A_RESULT_P50_NS, 1500);
	lat_set(res, KVPERF_A_RESULT_MAX_NS, 0);
	CHECK_INT(READ_RUN(&r, &run), 1);
	pt = r.rows[0].cell[CMP_KERNEL].points[0];
	CHECK(r.rows[0].cell[CMP_KERNEL].value[0] == 1.5);
	CHECK(isnan(pt[CMP_PT_MIN]) && isnan(pt[CMP_PT_P90]) &&
	      isnan(pt[CMP_PT_P99]) && isnan(pt[CMP_PT_P999]));
	CHECK(pt[CMP_PT_MAX] == 0);
	CHECK_STR(r.env.dev, "rxe0");
	run_model_free(&run);

	/* the wrong type, no type, no results */
	run_of(&run, KVPERF_RUN_TYPE_BW);
	bw_of(&run, 64, 819200, 34311409);
	CHECK_INT(READ_RUN(&r, &run), -EINVAL);
	CHECK_STR(err, "the run's output is not of this type");
	run_model_free(&run);
	memset(&run, 0, sizeof(run));
	CHECK_INT(READ_RUN(&r, &run), -EINVAL);
	CHECK_STR(err, "the run's output is not of this type");
	run_of(&run, KVPERF_RUN_TYPE_LAT);
	CHECK_INT(READ_RUN(&r, &run), -EINVAL);
	CHECK_STR(err, "the run has no results");
	/* a result without its p50, or without its size */
	res = lat_of(&run, 64);
	lat_set(res, KVPERF_A_RESULT_MIN_NS, 1000);
	CHECK_INT(READ_RUN(&r, &run), -EINVAL);
	CHECK_STR(err, "a result without its numbers");
	run_model_free(&run);
	run_of(&run, KVPERF_RUN_TYPE_LAT);
	CHECK(run_model_add_lat(&run));
	CHECK_INT(READ_RUN(&r, &run), -EINVAL);
	CHECK_STR(err, "a result without its numbers");
	run_model_free(&run);
	/* sizes that are not measured here are passed over */
	run_of(&run, KVPERF_RUN_TYPE_LAT);
	lat_set(lat_of(&run, 65), KVPERF_A_RESULT_P50_NS, 1000);
	CHECK_INT(READ_RUN(&r, &run), -EINVAL);
	CHECK_STR(err, "the run has no results");
	run_model_free(&run);
	cmp_result_free(&r);

	RESULT(&r, BW, "op", "write", "addr", "198.18.0.1", "sizes", "4K-8K",
	       "rounds", "1");
	CHECK_INT(r.count, 2);
	run_of(&run, KVPERF_RUN_TYPE_BW);
	bw_of(&run, 4096, 819200, 34311409);
	bw_of(&run, 8192, 1638400, 69260000);
	bw_of(&run, 16384, 1638400, 1);
	CHECK_INT(READ_RUN(&r, &run), 2);
	/* bytes * 1e9 / elapsed_ns / 2^20, not rounded */
	CHECK(fabs(r.rows[0].cell[CMP_KERNEL].value[0] -
		   819200 * 1e9 / 34311409 / 1048576) < 1e-9);
	CHECK(fabs(r.rows[0].cell[CMP_KERNEL].value[0] - 22.769394) < 1e-6);
	CHECK(fabs(r.rows[1].cell[CMP_KERNEL].value[0] - 22.559919) < 1e-6);
	CHECK_STR(r.env.dev, "rxe0");
	/* no time, a time of 0: no bandwidth */
	r.rows[0].cell[CMP_KERNEL].value[0] = NAN;
	run.bw[0].has &= ~(1ULL << KVPERF_A_BW_RESULT_ELAPSED_NS);
	CHECK_INT(READ_RUN(&r, &run), -EINVAL);
	CHECK_STR(err, "a result without its numbers");
	CHECK(isnan(r.rows[0].cell[CMP_KERNEL].value[0]));
	run_model_set_uint(&run_model_bw_fields, &run.bw[0],
			   KVPERF_A_BW_RESULT_ELAPSED_NS, 0);
	CHECK_INT(READ_RUN(&r, &run), -EINVAL);
	run.bw[0].elapsed_ns = 34311409;
	run.bw[0].has &= ~(1ULL << KVPERF_A_BW_RESULT_BYTES);
	CHECK_INT(READ_RUN(&r, &run), -EINVAL);
	CHECK_STR(err, "a result without its numbers");
	run_model_free(&run);
	cmp_result_free(&r);
}

static void cmp_read_perftest_out(void)
{
	static const char lat[] =
		" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]\x20\n"
		" 64      200          52.63          1518.13      62.31    \t       100.23      \t137.71 \t\t1351.22 \t\t1518.13\n"
		"---------------------------------------------------------------------------------------\n";
	static const char bw[] =
		" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
		" 4096       200              42.32              25.55  \t\t   0.000409\n"
		" 8192       200              42.32              26.55  \t\t   0.000409\n"
		" 16384      200              42.32              27.55  \t\t   0.000409\n";
	struct cmp_result r;
	char err[128];
	const double *pt;

	RESULT(&r, LAT, "op", "send", "addr", "198.18.0.1", "size", "64");
	CHECK_INT(cmp_read_perftest(&r, 4, lat, err, sizeof(err)), 1);
	CHECK(r.rows[0].cell[CMP_PERFTEST].value[4] == 62.31);
	pt = r.rows[0].cell[CMP_PERFTEST].points[4];
	CHECK(pt[CMP_PT_MIN] == 52.63);
	CHECK(isnan(pt[CMP_PT_P90]));
	CHECK(pt[CMP_PT_P99] == 1351.22);
	CHECK(pt[CMP_PT_MAX] == 1518.13);
	CHECK_INT(cmp_read_perftest(&r, 0, bw, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "no table in perftest's output");
	cmp_result_free(&r);

	/* -a prints more sizes than measured: only ours are taken */
	RESULT(&r, BW, "op", "send", "addr", "198.18.0.1", "sizes", "8K-16K");
	CHECK_INT(cmp_read_perftest(&r, 0, bw, err, sizeof(err)), 2);
	CHECK(r.rows[0].cell[CMP_PERFTEST].value[0] == 26.55);
	CHECK(r.rows[1].cell[CMP_PERFTEST].value[0] == 27.55);
	cmp_result_free(&r);
	/* a row of zeros is a failure */
	RESULT(&r, BW, "op", "send", "addr", "198.18.0.1", "size", "8K");
	CHECK_INT(cmp_read_perftest(&r, 0,
				    " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
				    " 8192       500              0.00               0.00                 0.000000\n",
				    err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "perftest reports nothing measured");
	CHECK(isnan(r.rows[0].cell[CMP_PERFTEST].value[0]));
	cmp_result_free(&r);
	/* an infinite time is one too */
	RESULT(&r, LAT, "op", "send", "addr", "198.18.0.1", "size", "64");
	CHECK_INT(cmp_read_perftest(&r, 0,
				    " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]\n"
				    " 64       1000          inf            inf          inf                inf            -nan            inf                    inf\n",
				    err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "perftest reports nothing measured");
	CHECK(isnan(r.rows[0].cell[CMP_PERFTEST].value[0]));
	cmp_result_free(&r);
	RESULT(&r, BW, "op", "send", "addr", "198.18.0.1", "size", "1M");
	CHECK_INT(cmp_read_perftest(&r, 0, bw, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "perftest's table has none of the sizes");
	cmp_result_free(&r);
}

static void cmp_tcg(void)
{
	CHECK(cmp_env_is_tcg("QEMU TCG CPU version 2.5+", "", ""));
	CHECK(cmp_env_is_tcg("AMD EPYC 7763", "QEMU", "tsc acpi_pm "));
	CHECK(!cmp_env_is_tcg("AMD EPYC 7763", "QEMU", "kvm-clock tsc acpi_pm "));
	CHECK(!cmp_env_is_tcg("Intel(R) Xeon(R)", "Dell Inc.", "tsc hpet"));
	CHECK(!cmp_env_is_tcg("", "", ""));
}

/* A result as three rounds of send latency at 64 B would leave it. */
static void fill_lat(struct cmp_result *r)
{
	static const double v[CMP_PATHS][3] = {
		[CMP_KERNEL] = { 15.1, 13.9, 14.2 },
		[CMP_USER] = { 17.8, 19.0, 17.1 },
		[CMP_PERFTEST] = { 18.1, 17.5, 18.3 },
	};
	int p, i, k;

	RESULT(r, LAT, "op", "send", "addr", "198.18.0.1", "size", "64",
	       "rounds", "3");
	snprintf(r->env.kernel, sizeof(r->env.kernel), "6.12.117+deb12-amd64");
	snprintf(r->env.dev, sizeof(r->env.dev), "rxe0");
	snprintf(r->env.cpu, sizeof(r->env.cpu), "QEMU TCG CPU version 2.5+");
	snprintf(r->env.perftest, sizeof(r->env.perftest), "6.06");
	r->env.tcg = true;
	for (p = 0; p < CMP_PATHS; p++)
		for (i = 0; i < 3; i++) {
			r->rows[0].cell[p].value[i] = v[p][i];
			for (k = 0; k < CMP_PTS; k++)
				r->rows[0].cell[p].points[i][k] =
					v[p][i] * (1 + k);
		}
	r->rows[0].cell[CMP_PERFTEST].points[0][CMP_PT_P90] = NAN;
}

static void cmp_print_text(void)
{
	struct cmp_result r;
	struct capture c;
	struct printer p;

	fill_lat(&r);
	pr_init(&p, cap_open(&c), false, false);
	cmp_print(&p, &r);
	CHECK_STR(cap_str(&c),
		  "# compare lat send, 64 B, 3 rounds, poll busy, dev rxe0, kernel 6.12.117+deb12-amd64 (TCG)\n"
		  "# cpu QEMU TCG CPU version 2.5+; perftest 6.06, polling\n"
		  "# median (min-max) over the rounds of the p50 latency (perftest: t_typical)\n"
		  " #bytes     kernel[usec]               user[usec]                 perftest[usec]             kernel/user   kernel/perftest\n"
		  " 64         14.20 (13.90-15.10)        17.80 (17.10-19.00)        18.10 (17.50-18.30)        0.80          0.78\n");
	cap_close(&c);

	/*
	 * perftest not a column; iters; a user round that failed: the cell
	 * keeps the others' numbers and names its note, which says the
	 * column, the size, the round and why
	 */
	r.active[CMP_PERFTEST] = false;
	r.perftest_note = "not installed (Debian package perftest)";
	cmp_cell_fail(&r, &r.rows[0].cell[CMP_USER], 1,
		      "no completion or event within the timeout (5000 ms)");
	CHECK(isnan(r.rows[0].cell[CMP_USER].value[1]));
	CHECK_INT(r.rows[0].cell[CMP_USER].failed, 1);
	r.iterations = 1000;
	pr_init(&p, cap_open(&c), false, false);
	cmp_print(&p, &r);
	CHECK_STR(cap_str(&c),
		  "# compare lat send, 64 B, 3 rounds, poll busy, iters 1000, dev rxe0, kernel 6.12.117+deb12-amd64 (TCG)\n"
		  "# cpu QEMU TCG CPU version 2.5+; perftest not installed (Debian package perftest)\n"
		  "# median (min-max) over the rounds of the p50 latency (perftest: t_typical)\n"
		  " #bytes     kernel[usec]               user[usec]                 kernel/user\n"
		  " 64         14.20 (13.90-15.10)        17.45 (17.10-17.80) [1]    0.81\n"
		  "# [1] user, 64 B, round 2: no completion or event within the timeout (5000 ms)\n");
	cap_close(&c);

	/*
	 * nothing at all from the user path: failed, with a note per
	 * reason, the rounds that failed alike on one line; the kernel
	 * column keeps its numbers
	 */
	cmp_cell_fail(&r, &r.rows[0].cell[CMP_USER], 0, "connection rejected");
	cmp_cell_fail(&r, &r.rows[0].cell[CMP_USER], 2, "connection rejected");
	CHECK_INT(r.rows[0].cell[CMP_USER].failed, 3);
	pr_init(&p, cap_open(&c), false, false);
	cmp_print(&p, &r);
	CHECK(strstr(cap_str(&c),
		     " 64         14.20 (13.90-15.10)        failed [1-2]               -\n"
		     "# [1] user, 64 B, rounds 1, 3: connection rejected\n"
		     "# [2] user, 64 B, round 2: no completion or event within the timeout (5000 ms)\n"));
	cap_close(&c);
	/* a second reason for a round replaces the first; it counts once */
	cmp_cell_fail(&r, &r.rows[0].cell[CMP_USER], 2, "stopped");
	CHECK_INT(r.rows[0].cell[CMP_USER].failed, 3);
	CHECK_STR(cmp_cell_why(&r.rows[0].cell[CMP_USER], 2), "stopped");
	CHECK(!cmp_cell_why(&r.rows[0].cell[CMP_KERNEL], 2));
	cmp_result_free(&r);
}

/*
 * post-context both: a kernel-bh column after the kernel column, in the
 * table and in JSON; the header says so. bh alone: only the header.
 */
static void cmp_print_post_context(void)
{
	static const double bh[3] = { 9.1, 9.9, 9.5 };
	struct cmp_result r;
	struct capture c;
	struct printer p;
	int i;

	fill_lat(&r);
	r.post_context = CMP_POST_BOTH;
	r.active[CMP_KERNEL_BH] = true;
	for (i = 0; i < 3; i++) {
		r.rows[0].cell[CMP_KERNEL_BH].value[i] = bh[i];
		r.rows[0].cell[CMP_KERNEL_BH].points[i][CMP_PT_P50] = bh[i];
	}
	r.rows[0].cell[CMP_KERNEL_BH].failed = 0;
	pr_init(&p, cap_open(&c), false, false);
	cmp_print(&p, &r);
	CHECK_STR(cap_str(&c),
		  "# compare lat send, 64 B, 3 rounds, poll busy, post-context both, dev rxe0, kernel 6.12.117+deb12-amd64 (TCG)\n"
		  "# cpu QEMU TCG CPU version 2.5+; perftest 6.06, polling\n"
		  "# median (min-max) over the rounds of the p50 latency (perftest: t_typical)\n"
		  " #bytes     kernel[usec]               kernel-bh[usec]            user[usec]                 perftest[usec]             kernel/user   kernel/perftest\n"
		  " 64         14.20 (13.90-15.10)        9.50 (9.10-9.90)           17.80 (17.10-19.00)        18.10 (17.50-18.30)        0.80          0.78\n");
	cap_close(&c);

	pr_init(&p, cap_open(&c), true, false);
	cmp_print(&p, &r);
	CHECK_JSON(cap_str(&c),
		   "assert d['post_context'] == 'both'\n"
		   "assert d['paths'] == ['kernel', 'kernel-bh', 'user', 'perftest']\n"
		   "row = d['rows'][0]\n"
		   "b = row['kernel-bh']\n"
		   "assert (b['median'], b['min'], b['max']) == (9.5, 9.1, 9.9), b\n"
		   "assert b['values'] == [9.1, 9.9, 9.5] and b['failed'] == 0\n"
		   "assert b['points'][2]['p50'] == 9.5\n"
		   "assert row['kernel']['median'] == 14.2\n"
		   "assert row['user']['median'] == 17.8\n"
		   "assert row['kernel_user_ratio'] == 0.798\n");
	cap_close(&c);

	/* bh alone: the kernel column is bh, no fourth column */
	r.post_context = CMP_POST_BH;
	r.active[CMP_KERNEL_BH] = false;
	pr_init(&p, cap_open(&c), false, false);
	cmp_print(&p, &r);
	CHECK(STARTS(cap_str(&c), "# compare lat send, 64 B, 3 rounds, poll busy, post-context bh, dev rxe0,"));
	CHECK(!strstr(cap_str(&c), "kernel-bh"));
	cap_close(&c);
	pr_init(&p, cap_open(&c), true, false);
	cmp_print(&p, &r);
	CHECK_JSON(cap_str(&c),
		   "assert d['post_context'] == 'bh'\n"
		   "assert d['paths'] == ['kernel', 'user', 'perftest']\n"
		   "assert d['rows'][0]['kernel-bh'] is None\n");
	cap_close(&c);
	cmp_result_free(&r);
}

/* How perftest waited for completions, on the second line. */
static void cmp_print_perftest_mode(void)
{
	struct cmp_result r;
	struct capture c;
	struct printer p;

	fill_lat(&r);
	r.poll = KVPERF_POLL_SOFTIRQ;
	r.perftest_events = true;
	pr_init(&p, cap_open(&c), false, false);
	cmp_print(&p, &r);
	CHECK(strstr(cap_str(&c), "poll softirq,"));
	CHECK(strstr(cap_str(&c), "; perftest 6.06, events (-e)\n"));
	cap_close(&c);
	r.op = KVPERF_OP_WRITE;
	r.perftest_events = false;
	pr_init(&p, cap_open(&c), false, false);
	cmp_print(&p, &r);
	CHECK(strstr(cap_str(&c), "# compare lat write,"));
	CHECK(strstr(cap_str(&c),
		     "; perftest 6.06, polling (-e is not for write)\n"));
	cap_close(&c);
	cmp_result_free(&r);
}

static void cmp_print_bw_text(void)
{
	struct cmp_result r;
	struct capture c;
	struct printer p;
	int i;

	RESULT(&r, BW, "op", "write", "addr", "198.18.0.1", "sizes",
	       "4K-8K", "rounds", "1", "no-perftest");
	r.active[CMP_PERFTEST] = false;
	r.perftest_note = "off (no-perftest)";
	snprintf(r.env.kernel, sizeof(r.env.kernel), "6.1.0-56-amd64");
	for (i = 0; i < 2; i++) {
		r.rows[i].cell[CMP_KERNEL].value[0] = 20 + i;
		r.rows[i].cell[CMP_USER].value[0] = 22 + i;
	}
	pr_init(&p, cap_open(&c), false, false);
	cmp_print(&p, &r);
	CHECK_STR(cap_str(&c),
		  "# compare bw write, sizes 4096-8192, 1 round, poll busy, kernel 6.1.0-56-amd64\n"
		  "# cpu ?; perftest off (no-perftest)\n"
		  "# median (min-max) over the rounds of the average bandwidth\n"
		  " #bytes     kernel[MiB/sec]            user[MiB/sec]              kernel/user\n"
		  " 4096       20.00 (20.00-20.00)        22.00 (22.00-22.00)        0.91\n"
		  " 8192       21.00 (21.00-21.00)        23.00 (23.00-23.00)        0.91\n");
	cap_close(&c);
	cmp_result_free(&r);
}

static void cmp_print_json(void)
{
	struct cmp_result r;
	struct capture c;
	struct printer p;

	fill_lat(&r);
	cmp_cell_fail(&r, &r.rows[0].cell[CMP_USER], 1, "connection rejected");
	pr_init(&p, cap_open(&c), true, false);
	cmp_print(&p, &r);
	CHECK_JSON(cap_str(&c),
		   "assert d['compare'] == 'lat' and d['op'] == 'send'\n"
		   "assert d['rounds'] == 3 and d['poll'] == 'busy'\n"
		   "assert d['unit'] == 'usec' and 'iterations' not in d\n"
		   "assert d['paths'] == ['kernel', 'user', 'perftest']\n"
		   "assert d['env'] == {'kernel': '6.12.117+deb12-amd64',"
		   " 'dev': 'rxe0', 'cpu': 'QEMU TCG CPU version 2.5+',"
		   " 'tcg': True, 'perftest': '6.06'}, d['env']\n"
		   "row = d['rows'][0]\n"
		   "assert row['size'] == 64\n"
		   "k = row['kernel']\n"
		   "assert (k['median'], k['min'], k['max']) == (14.2, 13.9, 15.1)\n"
		   "assert k['values'] == [15.1, 13.9, 14.2]\n"
		   "assert k['median_round'] == 2 and k['failed'] == 0\n"
		   "assert k['points'][2] == {'min': 14.2, 'p50': 28.4,"
		   " 'p90': 42.6, 'p99': 56.8, 'p999': 71.0, 'max': 85.2}\n"
		   "u = row['user']\n"
		   "assert u['values'] == [17.8, None, 17.1], u\n"
		   "assert u['median'] == 17.45 and u['failed'] == 1\n"
		   "assert u['failures'] == [{'round': 1,"
		   " 'error': 'connection rejected'}], u\n"
		   "assert k['failures'] == []\n"
		   "assert u['median_round'] == 2\n"
		   "assert row['perftest']['points'][0]['p90'] is None\n"
		   "assert row['kernel_user_ratio'] == 0.814\n"
		   "assert row['kernel_perftest_ratio'] == 0.785\n"
		   "assert d['perftest_events'] is False\n"
		   "assert d['post_context'] == 'process'\n"
		   "assert row['kernel-bh'] is None\n");
	cap_close(&c);

	/* perftest off: null, with the reason; bw has no points */
	r.active[CMP_PERFTEST] = false;
	r.perftest_note = "off (no-perftest)";
	r.env.perftest[0] = '\0';
	r.env.dev[0] = '\0';
	r.type = BW;
	pr_init(&p, cap_open(&c), true, false);
	cmp_print(&p, &r);
	CHECK_JSON(cap_str(&c),
		   "assert d['compare'] == 'bw' and d['unit'] == 'MiB/s'\n"
		   "assert d['paths'] == ['kernel', 'user']\n"
		   "assert d['perftest_note'] == 'off (no-perftest)'\n"
		   "assert 'perftest_events' not in d\n"
		   "assert d['env']['perftest'] is None\n"
		   "assert d['env']['dev'] is None\n"
		   "row = d['rows'][0]\n"
		   "assert row['perftest'] is None\n"
		   "assert row['kernel_perftest_ratio'] is None\n"
		   "assert 'points' not in row['kernel']\n"
		   "assert row['kernel']['median'] == 14.2\n");
	cap_close(&c);
	cmp_result_free(&r);
}

/*
 * The case, from a recorded run: a compare bw write over 4K-1M
 * whose kernel-path run printed 4K to 512K, then failed at 1M. The
 * kernel column keeps its eight numbers; the 1M cell says failed, and
 * its note the column, the size, the round and the run's error; JSON
 * carries it in the cell; the exit status says something failed.
 */
static void cmp_failed_size(void)
{
	static const char why[] = "no completion within the timeout (5000 ms)";
	struct cmp_result r;
	struct capture c;
	struct printer p;
	struct kv_run run;
	unsigned int total;
	uint32_t size;
	size_t i;

	RESULT(&r, BW, "op", "write", "addr", "198.18.0.1", "sizes", "4K-1M",
	       "rounds", "1", "no-perftest");
	r.active[CMP_PERFTEST] = false;
	r.perftest_note = "off (no-perftest)";
	snprintf(r.env.kernel, sizeof(r.env.kernel), "6.1.0-56-amd64");
	CHECK_INT(r.count, 9);
	CHECK_INT(cmp_exit_status(&r), KVPERF_EXIT_OK);
	/* 4K to 512K at 20 MiB/s, then the failure */
	run_of(&run, KVPERF_RUN_TYPE_BW);
	run_model_set_uint(&run_model_fields, &run, KVPERF_A_RUN_STATE,
			   KVPERF_RUN_STATE_FAILED);
	snprintf(run.error, sizeof(run.error), "%s", why);
	KV_SET(&run, KVPERF_A_RUN_ERROR);
	for (size = 4096; size <= 512 * 1024; size *= 2)
		bw_of(&run, size, 20 * 1048576, 1000000000);
	CHECK_INT(cmp_run_results(&r, &run), 8);
	CHECK_INT(cmp_read_failed_run(&r, CMP_KERNEL, 0, 0, &run), 8);
	run_model_free(&run);
	/* the last size: nothing after it to run */
	CHECK_INT(cmp_size_failed(&r, CMP_KERNEL, 0, 8, false, why), 9);
	for (i = 0; i < r.count; i++)
		r.rows[i].cell[CMP_USER].value[0] = 22;
	CHECK_INT(cmp_exit_status(&r), KVPERF_EXIT_ERROR);

	pr_init(&p, cap_open(&c), false, false);
	cmp_print(&p, &r);
	CHECK_STR(cap_str(&c),
		  "# compare bw write, sizes 4096-1048576, 1 round, poll busy, dev rxe0, kernel 6.1.0-56-amd64\n"
		  "# cpu ?; perftest off (no-perftest)\n"
		  "# median (min-max) over the rounds of the average bandwidth\n"
		  " #bytes     kernel[MiB/sec]            user[MiB/sec]              kernel/user\n"
		  " 4096       20.00 (20.00-20.00)        22.00 (22.00-22.00)        0.91\n"
		  " 8192       20.00 (20.00-20.00)        22.00 (22.00-22.00)        0.91\n"
		  " 16384      20.00 (20.00-20.00)        22.00 (22.00-22.00)        0.91\n"
		  " 32768      20.00 (20.00-20.00)        22.00 (22.00-22.00)        0.91\n"
		  " 65536      20.00 (20.00-20.00)        22.00 (22.00-22.00)        0.91\n"
		  " 131072     20.00 (20.00-20.00)        22.00 (22.00-22.00)        0.91\n"
		  " 262144     20.00 (20.00-20.00)        22.00 (22.00-22.00)        0.91\n"
		  " 524288     20.00 (20.00-20.00)        22.00 (22.00-22.00)        0.91\n"
		  " 1048576    failed [1]                 22.00 (22.00-22.00)        -\n"
		  "# [1] kernel, 1048576 B, round 1: no completion within the timeout (5000 ms)\n");
	cap_close(&c);

	pr_init(&p, cap_open(&c), true, false);
	cmp_print(&p, &r);
	CHECK_JSON(cap_str(&c),
		   "rows = d['rows']\n"
		   "assert [x['size'] for x in rows] == [4096 << i for i in range(9)]\n"
		   "for x in rows[:8]:\n"
		   "    assert x['kernel']['values'] == [20.0], x\n"
		   "    assert x['kernel']['failed'] == 0 and x['kernel']['failures'] == []\n"
		   "    assert x['kernel_user_ratio'] == 0.909, x\n"
		   "k = rows[8]['kernel']\n"
		   "assert k['values'] == [None] and k['median'] is None, k\n"
		   "assert k['failed'] == 1, k\n"
		   "assert k['failures'] == [{'round': 0, 'error':"
		   " 'no completion within the timeout (5000 ms)'}], k\n"
		   "assert rows[8]['user']['values'] == [22.0]\n"
		   "assert rows[8]['kernel_user_ratio'] is None\n");
	cap_close(&c);
	CHECK_INT(cmp_failures(&r, &total), 1);
	CHECK_INT(total, 18);
	cmp_result_free(&r);
}

/*
 * After a size fails, a new run measures the sizes after it; when that
 * one fails at its first size too, the sizes left are not tried in the
 * round, and say why. Another round is a fresh start.
 */
static void cmp_failed_then(void)
{
	struct cmp_result r;
	struct capture c;
	struct printer p;
	struct kv_run run;
	const struct cmp_cell *k;

	RESULT(&r, LAT, "op", "send", "addr", "198.18.0.1", "sizes", "2-64",
	       "rounds", "2", "no-perftest");
	r.active[CMP_PERFTEST] = false;
	CHECK_INT(r.count, 6);
	/* round 1: 2 and 4 measured, 8 failed; the next run from 16 */
	run_of(&run, KVPERF_RUN_TYPE_LAT);
	run_model_set_uint(&run_model_fields, &run, KVPERF_A_RUN_STATE,
			   KVPERF_RUN_STATE_FAILED);
	lat_set(lat_of(&run, 2), KVPERF_A_RESULT_P50_NS, 20000);
	lat_set(lat_of(&run, 4), KVPERF_A_RESULT_P50_NS, 21000);
	CHECK_INT(cmp_read_failed_run(&r, CMP_KERNEL, 0, 0, &run), 2);
	run_model_free(&run);
	CHECK_INT(cmp_size_failed(&r, CMP_KERNEL, 0, 2, false, "stalled"), 3);
	/* it fails at 32 after 16: not in a row, 64 is next */
	run_of(&run, KVPERF_RUN_TYPE_LAT);
	lat_set(lat_of(&run, 16), KVPERF_A_RESULT_P50_NS, 23000);
	CHECK_INT(cmp_read_failed_run(&r, CMP_KERNEL, 0, 3, &run), 4);
	run_model_free(&run);
	CHECK_INT(cmp_size_failed(&r, CMP_KERNEL, 0, 4, false, "stalled"), 5);
	/* nothing measured, nothing to read: 64 is the last anyway */
	CHECK_INT(cmp_read_failed_run(&r, CMP_KERNEL, 0, 5, NULL), 5);
	CHECK_INT(cmp_size_failed(&r, CMP_KERNEL, 0, 5, true, "gone"), 6);
	/* round 2: 2 measured, 4 failed, and 8 right after: 16 on not tried */
	run_of(&run, KVPERF_RUN_TYPE_LAT);
	lat_set(lat_of(&run, 2), KVPERF_A_RESULT_P50_NS, 19000);
	CHECK_INT(cmp_read_failed_run(&r, CMP_KERNEL, 1, 0, &run), 1);
	run_model_free(&run);
	CHECK_INT(cmp_size_failed(&r, CMP_KERNEL, 1, 1, false,
				  "connection rejected"), 2);
	CHECK_INT(cmp_size_failed(&r, CMP_KERNEL, 1, 2, true,
				  "connection rejected"), 6);
	k = &r.rows[3].cell[CMP_KERNEL];
	CHECK(k->value[0] == 23.0);
	CHECK_STR(cmp_cell_why(k, 1), "not tried: 4 B and 8 B failed before it");
	CHECK_STR(cmp_cell_why(&r.rows[5].cell[CMP_KERNEL], 1),
		  "not tried: 4 B and 8 B failed before it");
	CHECK_INT(r.rows[2].cell[CMP_KERNEL].failed, 2);
	pr_init(&p, cap_open(&c), false, false);
	cmp_print(&p, &r);
	CHECK(strstr(cap_str(&c),
		     " 2          19.50 (19.00-20.00)        -                          -\n"
		     " 4          21.00 (21.00-21.00) [1]    -                          -\n"
		     " 8          failed [2-3]               -                          -\n"
		     " 16         23.00 (23.00-23.00) [4]    -                          -\n"
		     " 32         failed [5-6]               -                          -\n"
		     " 64         failed [7-8]               -                          -\n"
		     "# [1] kernel, 4 B, round 2: connection rejected\n"
		     "# [2] kernel, 8 B, round 1: stalled\n"
		     "# [3] kernel, 8 B, round 2: connection rejected\n"
		     "# [4] kernel, 16 B, round 2: not tried: 4 B and 8 B failed before it\n"
		     "# [5] kernel, 32 B, round 1: stalled\n"
		     "# [6] kernel, 32 B, round 2: not tried: 4 B and 8 B failed before it\n"
		     "# [7] kernel, 64 B, round 1: gone\n"
		     "# [8] kernel, 64 B, round 2: not tried: 4 B and 8 B failed before it\n"));
	cap_close(&c);
	cmp_result_free(&r);
}

static int cli(const char *const *words, const char **out, const char **err)
{
	static char obuf[8192], ebuf[1024];
	struct kvperf kv = { 0 };
	struct capture o, e;
	char *argv[40];
	int argc = 0, ret;
	struct args a;

	while (*words && argc < 40)
		argv[argc++] = (char *)*words++;
	a.argc = argc;
	a.argv = argv;
	kv.out = cap_open(&o);
	kv.err = cap_open(&e);
	ret = compare_object.run(&kv, &a);
	snprintf(obuf, sizeof(obuf), "%s", cap_str(&o));
	snprintf(ebuf, sizeof(ebuf), "%s", cap_str(&e));
	cap_close(&o);
	cap_close(&e);
	*out = obuf;
	*err = ebuf;
	return ret;
}

#define CLI(out, err, ...)						\
	cli((const char *const []){ __VA_ARGS__, NULL }, (out), (err))

static void cmp_cli(void)
{
	const char *out, *err;

	CHECK_INT(cli((const char *const []){ NULL }, &out, &err),
		  KVPERF_EXIT_USAGE);
	CHECK_STR(err, "kvperf: missing lat, bw or io (try 'kvperf compare help')\n");
	CHECK_INT(CLI(&out, &err, "help"), 0);
	CHECK(STARTS(out, "Usage: kvperf [-j [-p]] compare lat op"));
	CHECK(strstr(out, "gnuplot-nox"));
	CHECK_STR(err, "");
	CHECK_INT(CLI(&out, &err, "he"), 0);
	CHECK_INT(CLI(&out, &err, "help", "x"), KVPERF_EXIT_USAGE);
	CHECK_INT(CLI(&out, &err, "lat", "help"), 0);
	CHECK(STARTS(out, "Usage:"));
	CHECK_INT(CLI(&out, &err, "b", "help"), 0);
	CHECK_INT(CLI(&out, &err, "x"), KVPERF_EXIT_USAGE);
	CHECK_STR(err, "kvperf: unknown compare command 'x' (try 'kvperf compare help')\n");
	CHECK_INT(CLI(&out, &err, "lat", "op", "send"), KVPERF_EXIT_USAGE);
	CHECK_STR(err, "kvperf: missing addr (try 'kvperf compare help')\n");
}

/* An address that is not this host's ends it before anything starts. */
static void cmp_not_local(void)
{
	const char *out, *err;

	CHECK_INT(CLI(&out, &err, "lat", "op", "send", "addr", "192.0.2.1",
		      "no-perftest"), KVPERF_EXIT_ERROR);
	CHECK_STR(out, "");
	CHECK(STARTS(err, "kvperf: 192.0.2.1 is not an address of this host: compare starts the servers"));
	CHECK(strstr(err, "kvperf server start addr ADDR port 18516 path user"));
	CHECK(strstr(err, "add 'remote'"));
}

#define IO_LINE(l, ...)	CMP_LINE((l), KVPERF_RUN_TYPE_IO, __VA_ARGS__)

#define IO_ERR(want, obj, ...)						\
	do {								\
		struct cmp_line l_;					\
		IO_LINE(&l_, __VA_ARGS__);				\
		CHECK_INT(l_.ret, KVPERF_EXIT_USAGE);			\
		CHECK_STR(l_.err, "kvperf: " want			\
			  " (try 'kvperf " obj " help')\n");		\
	} while (0)

/*
 * compare io: its own words (rounds, remote) anywhere, everything else
 * run io's, parsed by run io's parser; what compare io cannot do, and
 * what the user host would refuse, refused.
 */
static void cmp_io_parse(void)
{
	struct cmp_line l;

	IO_LINE(&l, "addr", "198.18.0.1");
	CHECK_INT(l.ret, 0);
	CHECK_STR(l.err, "");
	CHECK_INT(l.o.type, KVPERF_RUN_TYPE_IO);
	CHECK_INT(l.o.op, KVPERF_OP_READ);
	CHECK_STR(l.o.addr, "198.18.0.1");
	CHECK_INT(l.o.port, 18515);
	CHECK_INT(l.o.rounds, 5);
	CHECK_INT(l.o.poll, KVPERF_POLL_BUSY);
	CHECK_INT(l.o.size, 4096);
	CHECK(!cmp_opt(&l.o, CMP_KW_REMOTE));
	CHECK(!cmp_opt(&l.o, CMP_KW_ITERS));

	IO_LINE(&l, "rounds", "3", "addr", "fd00::1", "rw", "randmix", "70",
		 "bs", "128K", "remote", "qd", "16", "queues", "2",
		 "segments", "4", "inv", "local", "iters", "500", "port",
		 "20000", "poll", "softirq");
	CHECK_INT(l.ret, 0);
	CHECK_STR(l.err, "");
	CHECK_STR(l.o.addr, "fd00::1");
	CHECK_INT(l.o.addr_len, 16);
	CHECK_INT(l.o.rounds, 3);
	CHECK(cmp_opt(&l.o, CMP_KW_REMOTE));
	CHECK_INT(l.o.port, 20000);
	CHECK_INT(l.o.size, 131072);
	CHECK_INT(l.o.iterations, 500);
	CHECK_INT(l.o.poll, KVPERF_POLL_SOFTIRQ);
	CHECK(cfg_is(&l.o.io, KVPERF_A_RUN_READ_PCT, 70));
	CHECK(cfg_is(&l.o.io, KVPERF_A_RUN_QD, 16));
	CHECK(cfg_is(&l.o.io, KVPERF_A_RUN_QPS, 2));
	CHECK(cfg_is(&l.o.io, KVPERF_A_RUN_SEGMENTS, 4));
	CHECK(cfg_is(&l.o.io, KVPERF_A_RUN_INV, KVPERF_IO_INV_LOCAL));

	IO_ERR("'path' does not apply to compare io", "compare",
	       "addr", "198.18.0.1", "path", "user");
	IO_ERR("'interval' does not apply to compare io", "compare",
	       "addr", "198.18.0.1", "interval", "1s");
	IO_ERR("'no-wait' does not apply to compare io", "compare",
	       "addr", "198.18.0.1", "no-wait");
	IO_ERR("'bss' does not apply to compare io", "compare",
	       "addr", "198.18.0.1", "bss", "4K,8K");
	IO_ERR("'key' does not apply to compare io", "compare",
	       "addr", "198.18.0.1", "key", "00112233445566778899aabbccddeeff");
	IO_ERR("invalid port '65535' (1 to 65534: PORT+1 is the user target's)",
	       "compare", "addr", "198.18.0.1", "port", "65535");
	IO_ERR("rounds '0' is out of range (1 to 100)", "compare",
	       "addr", "198.18.0.1", "rounds", "0");
	IO_ERR("'rounds' given twice", "compare",
	       "rounds", "2", "addr", "198.18.0.1", "rounds", "3");
	IO_ERR("'remote' given twice", "compare",
	       "remote", "addr", "198.18.0.1", "remote");
	IO_ERR("missing value after 'rounds'", "compare",
	       "addr", "198.18.0.1", "rounds");
	/* run io's own words and reasons */
	IO_ERR("missing addr", "run", "rounds", "2");
	IO_ERR("an I/O run's block size is a multiple of 512 from 512 B to 1 MiB",
	       "run", "addr", "198.18.0.1", "bs", "3000");
	IO_ERR("unknown keyword 'plot'", "run",
	       "addr", "198.18.0.1", "plot", "x.svg");
	/* two of the three columns run the kernel host: no windows there */
	IO_ERR("reg mw is the user path's: the kernel host registers with frwr or pre",
	       "run", "addr", "198.18.0.1", "reg", "mw");
}

/*
 * The three columns' runs: the kernel host as given, against PORT and
 * PORT+1; the user host without reg and inv, on PORT.
 */
static void cmp_io_cfgs(void)
{
	struct kv_run_cfg cfg;
	struct cmp_line l;

	IO_LINE(&l, "addr", "198.18.0.1", "rw", "write", "reg", "frwr",
		"inv", "local", "qd", "4", "verify", "rounds", "1");
	CHECK_INT(l.ret, 0);
	cmp_io_cfg(&cfg, &l.o, CMP_KERNEL);
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_TYPE, KVPERF_RUN_TYPE_IO));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_OP, KVPERF_OP_WRITE));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_PORT, 18515));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_REG, KVPERF_IO_REG_FRWR));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_INV, KVPERF_IO_INV_LOCAL));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_QD, 4));
	CHECK(cfg.verify);
	cmp_io_cfg(&cfg, &l.o, CMP_USER_TARGET);
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_PORT, 18516));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_INV, KVPERF_IO_INV_LOCAL));
	cmp_io_cfg(&cfg, &l.o, CMP_USER);
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_PORT, 18515));
	CHECK(!KV_HAS(&cfg, KVPERF_A_RUN_REG));
	CHECK(!KV_HAS(&cfg, KVPERF_A_RUN_INV));
	CHECK(cfg_is(&cfg, KVPERF_A_RUN_QD, 4));
	CHECK(cfg.verify);
	CHECK_STR(cmp_col_name(KVPERF_RUN_TYPE_IO, CMP_USER), "user-host");
	CHECK_STR(cmp_col_name(KVPERF_RUN_TYPE_LAT, CMP_USER), "user");
	CHECK(cmp_path_of_type(KVPERF_RUN_TYPE_IO, CMP_USER_TARGET));
	CHECK(!cmp_path_of_type(KVPERF_RUN_TYPE_IO, CMP_PERFTEST));
	CHECK(!cmp_path_of_type(KVPERF_RUN_TYPE_BW, CMP_USER_TARGET));
}

/* One direction of an I/O run: @ios in @ms, latencies from @p50 up. */
static struct kv_lat_result *io_dir(struct kv_run *run, uint8_t op,
				    uint64_t ios, uint64_t ms, uint64_t p50)
{
	struct kv_lat_result *res = lat_of(run, 4096);

	lat_set(res, KVPERF_A_RESULT_OP, op);
	lat_set(res, KVPERF_A_RESULT_ITERATIONS, ios);
	lat_set(res, KVPERF_A_RESULT_ELAPSED_NS, ms * 1000000);
	lat_set(res, KVPERF_A_RESULT_MIN_NS, p50 / 2);
	lat_set(res, KVPERF_A_RESULT_P50_NS, p50);
	lat_set(res, KVPERF_A_RESULT_P90_NS, p50 * 2);
	lat_set(res, KVPERF_A_RESULT_P99_NS, p50 * 3);
	lat_set(res, KVPERF_A_RESULT_P999_NS, p50 * 4);
	lat_set(res, KVPERF_A_RESULT_MAX_NS, p50 * 5);
	/* mean = p50: summed latency ios * p50 */
	lat_set(res, KVPERF_A_RESULT_MEAN_PS, p50 * 1000);
	lat_set(res, KVPERF_A_RESULT_REG_NS, ios * p50 / 10);
	lat_set(res, KVPERF_A_RESULT_INV_NS, ios * p50 / 20);
	return res;
}

/* result_for() a compare io: its three columns active, perftest not */
#define IO_RESULT(r, ...)						\
	do {								\
		RESULT((r), KVPERF_RUN_TYPE_IO, __VA_ARGS__);		\
		(r)->active[CMP_PERFTEST] = false;			\
		(r)->active[CMP_USER_TARGET] = true;			\
	} while (0)

/*
 * An I/O run's directions into their rows: IOPS, the distribution in
 * usec and the reg+inv share; a direction the compare has no row for,
 * or a result without its count, is an error; stats off has no share.
 */
static void cmp_io_read(void)
{
	struct cmp_result r;
	struct kv_run run;
	const double *pt;
	char err[128];

	IO_RESULT(&r, "addr", "198.18.0.1", "rw", "randmix", "70", "rounds",
		  "2");
	CHECK_INT(r.count, 2);
	CHECK_INT(r.rows[0].op, KVPERF_OP_READ);
	CHECK_INT(r.rows[1].op, KVPERF_OP_WRITE);
	CHECK_INT(r.rows[1].size, 4096);
	run_of(&run, KVPERF_RUN_TYPE_IO);
	io_dir(&run, KVPERF_OP_READ, 7000, 1000, 200000);
	io_dir(&run, KVPERF_OP_WRITE, 3000, 1000, 400000);
	CHECK_INT(cmp_read_run(&r, CMP_USER_TARGET, 1, &run, err, sizeof(err)),
		  2);
	CHECK(fabs(r.rows[0].cell[CMP_USER_TARGET].value[1] - 7000) < 1e-9);
	CHECK(fabs(r.rows[1].cell[CMP_USER_TARGET].value[1] - 3000) < 1e-9);
	CHECK(isnan(r.rows[0].cell[CMP_USER_TARGET].value[0]));
	pt = r.rows[1].cell[CMP_USER_TARGET].points[1];
	CHECK(fabs(pt[CMP_PT_MIN] - 200) < 1e-9);
	CHECK(fabs(pt[CMP_PT_P50] - 400) < 1e-9);
	CHECK(fabs(pt[CMP_PT_P99] - 1200) < 1e-9);
	CHECK(fabs(pt[CMP_PT_MAX] - 2000) < 1e-9);
	/* reg a tenth, inv a twentieth of the summed latency */
	CHECK(fabs(r.rows[1].cell[CMP_USER_TARGET].share[1] - 15) < 1e-9);
	run_model_free(&run);

	/* a write run has no row in a read compare */
	run_of(&run, KVPERF_RUN_TYPE_IO);
	io_dir(&run, KVPERF_OP_READ, 7000, 1000, 200000);
	lat_set(io_dir(&run, KVPERF_OP_WRITE, 1, 1, 1), KVPERF_A_RESULT_SIZE,
		8192);
	CHECK_INT(cmp_read_run(&r, CMP_KERNEL, 0, &run, err, sizeof(err)),
		  -EINVAL);
	CHECK_STR(err, "a result without its numbers");
	run_model_free(&run);
	cmp_result_free(&r);

	IO_RESULT(&r, "addr", "198.18.0.1", "stats", "off", "rounds", "1");
	CHECK_INT(r.count, 1);
	run_of(&run, KVPERF_RUN_TYPE_IO);
	io_dir(&run, KVPERF_OP_READ, 500, 250, 1000);
	CHECK_INT(cmp_read_run(&r, CMP_KERNEL, 0, &run, err, sizeof(err)), 1);
	CHECK(fabs(r.rows[0].cell[CMP_KERNEL].value[0] - 2000) < 1e-9);
	CHECK(isnan(r.rows[0].cell[CMP_KERNEL].share[0]));
	run_model_free(&run);
	cmp_result_free(&r);
}

/* A randmix compare io of two rounds, every column filled in. */
static void fill_io(struct cmp_result *r)
{
	static const double iops[CMP_PATHS][2] = {
		[CMP_KERNEL] = { 7000, 8000 },
		[CMP_USER] = { 6000, 6000 },
		[CMP_USER_TARGET] = { 7500, 7700 },
	};
	static const enum cmp_path cols[] = {
		CMP_KERNEL, CMP_USER, CMP_USER_TARGET,
	};
	size_t c, row, i, k;

	IO_RESULT(r, "addr", "198.18.0.1", "rw", "randmix", "70", "qd", "16",
		  "queues", "2", "time", "5", "rounds", "2");
	snprintf(r->env.kernel, sizeof(r->env.kernel), "6.12.117+deb12-amd64");
	snprintf(r->env.dev, sizeof(r->env.dev), "rxe0");
	snprintf(r->env.cpu, sizeof(r->env.cpu), "QEMU TCG CPU version 2.5+");
	r->env.tcg = true;
	for (c = 0; c < ARRAY_SIZE(cols); c++)
		for (row = 0; row < 2; row++)
			for (i = 0; i < 2; i++) {
				struct cmp_cell *cell = &r->rows[row].cell[cols[c]];

				cell->value[i] = iops[cols[c]][i] / (row + 1);
				for (k = 0; k < CMP_PTS; k++)
					cell->points[i][k] = 100.0 * (k + 1) *
							     (row + 1) * (c + 1);
				cell->share[i] = cols[c] == CMP_USER ? 0 :
						 2.5 + i;
			}
}

static void cmp_io_print_text(void)
{
	struct cmp_result r;
	struct capture c;
	struct printer p;

	fill_io(&r);
	pr_init(&p, cap_open(&c), false, false);
	cmp_print(&p, &r);
	CHECK_STR(cap_str(&c),
		  "# compare io randmix 70, bs 4096, qd 16, queues 2, segments 1, reg frwr, inv remote, 2 rounds, poll busy, dev rxe0, kernel 6.12.117+deb12-amd64 (TCG)\n"
		  "# cpu QEMU TCG CPU version 2.5+\n"
		  "# kernel: kernel host, kernel target; user-host: user host (reg pre: no FRWR in user space), kernel target; user-target: kernel host, user target\n"
		  "# median (min-max) over the rounds of IOPS, then of the p50 and the p99 completion latency\n"
		  " #rw        kernel[IOPS]                 user-host[IOPS]              user-target[IOPS]            kernel/user-host   kernel/user-target\n"
		  " read       7500.00 (7000.00-8000.00)    6000.00 (6000.00-6000.00)    7600.00 (7500.00-7700.00)    1.25               0.99\n"
		  " write      3750.00 (3500.00-4000.00)    3000.00 (3000.00-3000.00)    3800.00 (3750.00-3850.00)    1.25               0.99\n"
		  " #rw        kernel[p50 usec]             user-host[p50 usec]          user-target[p50 usec]        kernel/user-host   kernel/user-target\n"
		  " read       200.00 (200.00-200.00)       400.00 (400.00-400.00)       600.00 (600.00-600.00)       0.50               0.33\n"
		  " write      400.00 (400.00-400.00)       800.00 (800.00-800.00)       1200.00 (1200.00-1200.00)    0.50               0.33\n"
		  " #rw        kernel[p99 usec]             user-host[p99 usec]          user-target[p99 usec]        kernel/user-host   kernel/user-target\n"
		  " read       400.00 (400.00-400.00)       800.00 (800.00-800.00)       1200.00 (1200.00-1200.00)    0.50               0.33\n"
		  " write      800.00 (800.00-800.00)       1600.00 (1600.00-1600.00)    2400.00 (2400.00-2400.00)    0.50               0.33\n"
		  "# registration and invalidation, % of the summed completion latency\n"
		  " #rw        kernel[reg+inv %]            user-host[reg+inv %]         user-target[reg+inv %]\n"
		  " read       3.00 (2.50-3.50)             0.00 (0.00-0.00)             3.00 (2.50-3.50)\n"
		  " write      3.00 (2.50-3.50)             0.00 (0.00-0.00)             3.00 (2.50-3.50)\n");
	cap_close(&c);

	/*
	 * a round of the user host failed, both directions of its run: each
	 * cell of every block names its note; the notes say the direction
	 */
	cmp_cell_fail(&r, &r.rows[0].cell[CMP_USER], 1, "connection rejected");
	cmp_cell_fail(&r, &r.rows[1].cell[CMP_USER], 1, "connection rejected");
	pr_init(&p, cap_open(&c), false, false);
	cmp_print(&p, &r);
	CHECK(strstr(cap_str(&c), "\n read       7500.00 (7000.00-8000.00)    6000.00 (6000.00-6000.00) [1] "));
	CHECK(strstr(cap_str(&c), "\n read       3.00 (2.50-3.50)             0.00 (0.00-0.00) [1]         3.00 (2.50-3.50)\n"));
	CHECK(strstr(cap_str(&c), "\n# [1] user-host, read, round 2: connection rejected\n"
				  "# [2] user-host, write, round 2: connection rejected\n"));
	CHECK_INT(cmp_exit_status(&r), KVPERF_EXIT_ERROR);
	cap_close(&c);
	cmp_result_free(&r);
}

static void cmp_io_print_json(void)
{
	struct cmp_result r;
	struct capture c;
	struct printer p;
	const char *s;

	fill_io(&r);
	pr_init(&p, cap_open(&c), true, false);
	cmp_print(&p, &r);
	s = cap_str(&c);
	CHECK(STARTS(s, "{\"compare\":\"io\",\"rw\":\"randmix\",\"read_pct\":70,\"bs\":4096,\"qd\":16,\"queues\":2,\"segments\":1,\"reg\":\"frwr\",\"inv\":\"remote\",\"inline_data\":0,\"user_host_reg\":\"pre\",\"rounds\":2,\"poll\":\"busy\",\"unit\":\"IOPS\",\"paths\":[\"kernel\",\"user-host\",\"user-target\"],"));
	CHECK(!strstr(s, "perftest\":{"));
	CHECK(!strstr(s, "post_context"));
	CHECK(strstr(s, "\"rows\":[{\"size\":4096,\"rw\":\"read\",\"kernel\":{\"median\":7500.000,\"min\":7000.000,\"max\":8000.000,\"values\":[7000.000,8000.000],\"failed\":0,\"failures\":[],\"reg_inv_pct\":[2.500,3.500],\"median_round\":0,\"points\":[{\"min\":100.000,\"p50\":200.000,"));
	CHECK(strstr(s, "\"kernel_user_host_ratio\":1.250,\"kernel_user_host_p50_ratio\":0.500,\"kernel_user_host_p99_ratio\":0.500,\"kernel_user_target_ratio\":0.987,\"kernel_user_target_p50_ratio\":0.333,\"kernel_user_target_p99_ratio\":0.333}"));
	CHECK(strstr(s, "{\"size\":4096,\"rw\":\"write\",\"kernel\":{\"median\":3750.000,"));
	cap_close(&c);
	cmp_result_free(&r);
}

const struct unit_test unit_tests[] = {
	UNIT(cmp_parse_defaults),
	UNIT(cmp_parse_all),
	UNIT(cmp_parse_abbrev),
	UNIT(cmp_parse_errors),
	UNIT(cmp_sizes_list),
	UNIT(cmp_run_cfgs),
	UNIT(cmp_post_context),
	UNIT(cmp_timeout),
	UNIT(cmp_perftest_signal_every),
	UNIT(cmp_summary_stats),
	UNIT(cmp_read_kvperf),
	UNIT(cmp_read_perftest_out),
	UNIT(cmp_tcg),
	UNIT(cmp_print_text),
	UNIT(cmp_print_perftest_mode),
	UNIT(cmp_print_post_context),
	UNIT(cmp_print_bw_text),
	UNIT(cmp_print_json),
	UNIT(cmp_failed_size),
	UNIT(cmp_failed_then),
	UNIT(cmp_cli),
	UNIT(cmp_not_local),
	UNIT(cmp_io_parse),
	UNIT(cmp_io_cfgs),
	UNIT(cmp_io_read),
	UNIT(cmp_io_print_text),
	UNIT(cmp_io_print_json),
	{ NULL },
};
