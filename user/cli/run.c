// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf run: start a run and wait for its end, show, stop and delete
 * runs. The command line becomes a request in two testable steps,
 * run_parse() and run_start_put(); waiting is an event loop.
 */
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <linux/kvperf.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "access.h"
#include "args.h"
#include "attrs.h"
#include "cli.h"
#include "compiler.h"
#include "fmt.h"
#include "keywords.h"
#include "kvperf.h"
#include "nl.h"
#include "print.h"
#include "run.h"
#include "run_bw_print.h"
#include "run_io_print.h"
#include "run_kernel.h"
#include "run_model.h"
#include "run_print.h"
#include "show.h"
#include "signals.h"
#include "upath_run.h"
#include "upath_signal.h"


static const char *const run_keywords[RUN_KW_COUNT] = {
	[RUN_KW_OP]		= "op",
	[RUN_KW_ADDR]		= "addr",
	[RUN_KW_PORT]		= "port",
	[RUN_KW_SIZE]		= "size",
	[RUN_KW_SIZES]		= "sizes",
	[RUN_KW_ITERS]		= "iters",
	[RUN_KW_TIME]		= "time",
	[RUN_KW_WARMUP]		= "warmup",
	[RUN_KW_POLL]		= "poll",
	[RUN_KW_INLINE]		= "inline",
	[RUN_KW_VERIFY]		= "verify",
	[RUN_KW_CPU]		= "cpu",
	[RUN_KW_TIMEOUT]	= "timeout",
	[RUN_KW_NO_WAIT]	= "no-wait",
	[RUN_KW_TX_DEPTH]	= "tx-depth",
	[RUN_KW_QPS]		= "qps",
	[RUN_KW_CPUS]		= "cpus",
	[RUN_KW_POST_LIST]	= "post-list",
	[RUN_KW_SIGNAL_EVERY]	= "signal-every",
	[RUN_KW_BIDIR]		= "bidir",
	[RUN_KW_INTERVAL]	= "interval",
	[RUN_KW_GBITS]		= "gbits",
	[RUN_KW_PATH]		= "path",
	[RUN_KW_STATS]		= "stats",
	[RUN_KW_KEY]		= "key",
	[RUN_KW_KEY_FILE]	= "key-file",
	[RUN_KW_POST_CONTEXT]	= "post-context",
	[RUN_KW_RW]		= "rw",
	[RUN_KW_BS]		= "bs",
	[RUN_KW_QD]		= "qd",
	[RUN_KW_INV]		= "inv",
	[RUN_KW_SEGMENTS]	= "segments",
	[RUN_KW_REG]		= "reg",
	[RUN_KW_QUEUES]		= "queues",
	[RUN_KW_INLINE_DATA]	= "inline-data",
	[RUN_KW_BSS]		= "bss",
};

#define RUN_KW_BIT(kw)	(1ULL << (kw))
/* keywords without a value */
#define RUN_KW_FLAGS	(RUN_KW_BIT(RUN_KW_VERIFY) |			\
			 RUN_KW_BIT(RUN_KW_NO_WAIT) |			\
			 RUN_KW_BIT(RUN_KW_BIDIR) |			\
			 RUN_KW_BIT(RUN_KW_GBITS))
/* keywords of "run bw" alone: tx-depth to gbits */
#define RUN_KW_BW_ONLY	(RUN_KW_BIT(RUN_KW_GBITS + 1) -			\
			 RUN_KW_BIT(RUN_KW_TX_DEPTH))
/* keywords of "run io" alone: rw to the last */
#define RUN_KW_IO_ONLY	(RUN_KW_BIT(RUN_KW_COUNT) - RUN_KW_BIT(RUN_KW_RW))
/* a bit per keyword in a uint64_t */
_Static_assert(RUN_KW_COUNT < 64, "run keywords fit struct run_opts.given");
/* what "run io" says with its own keywords (rw, bs), or not at all */
#define RUN_KW_IO_REFUSED ((RUN_KW_BW_ONLY & ~(RUN_KW_BIT(RUN_KW_INTERVAL) | \
					       RUN_KW_BIT(RUN_KW_CPUS))) | \
			   RUN_KW_BIT(RUN_KW_OP) |			\
			   RUN_KW_BIT(RUN_KW_SIZE) |			\
			   RUN_KW_BIT(RUN_KW_SIZES) |			\
			   RUN_KW_BIT(RUN_KW_INLINE))

/**
 * run_path_parse() - the value of a path keyword
 * @s: "kernel" or "user", or a prefix of one
 *
 * Return: enum run_path, or -1 when @s is neither.
 */
int run_path_parse(const char *s)
{
	return args_value(kv_run_path_names, KV_RUN_PATHS, s);
}

bool run_cpus_valid(const char *s)
{
	unsigned long first, last;
	char *end;

	for (;;) {
		if (!isdigit((unsigned char)*s))
			return false;
		first = strtoul(s, &end, 10);
		last = first;
		if (*end == '-') {
			s = end + 1;
			if (!isdigit((unsigned char)*s))
				return false;
			last = strtoul(s, &end, 10);
		}
		if (last < first)
			return false;
		if (!*end)
			return true;
		if (*end != ',')
			return false;
		s = end + 1;
	}
}

/*
 * The value of @kw, a number or time of attribute @attr, in the range
 * the run model gives it.
 */
static int parse_ranged_hint(struct kvperf *kv, enum run_kw kw, int attr,
			     const char *s, const char *hint, uint32_t *val)
{
	return cli_parse_run_ranged(kv, "run", run_keywords[kw], attr, s,
				    hint, val);
}

static int parse_ranged(struct kvperf *kv, enum run_kw kw, int attr,
			const char *s, uint32_t *val)
{
	return parse_ranged_hint(kv, kw, attr, s, NULL, val);
}

#define RUN_WARMUP_HINT	"a count, or a time such as 2s or 500ms"

/* warmup N | warmup TIME: a count, or with a unit a time */
static int parse_warmup(struct kvperf *kv, const char *s, struct run_opts *o)
{
	size_t len = strlen(s);

	if (!len || s[len - 1] != 's')
		return parse_ranged_hint(kv, RUN_KW_WARMUP, KVPERF_A_RUN_WARMUP,
					 s, RUN_WARMUP_HINT, &o->cfg.warmup);
	return parse_ranged_hint(kv, RUN_KW_WARMUP, KVPERF_A_RUN_WARMUP_MS, s,
				 RUN_WARMUP_HINT, &o->cfg.warmup_ms);
}

/* inline-data N: bytes (K allowed), 0 to the spec's most */
static int parse_inline_data(struct kvperf *kv, const char *s,
			     struct run_opts *o)
{
	uint64_t v;
	int err = parse_size(s, &v);

	if (err == -EINVAL)
		return kvperf_usage(kv, "run",
				    "invalid inline-data '%s' (bytes, with an optional K suffix)",
				    s);
	if (err || v > KVPERF_IO_INLINE_DATA_MAX)
		return kvperf_usage(kv, "run",
				    "inline-data '%s' is out of range (0 to %uK)",
				    s, KVPERF_IO_INLINE_DATA_MAX >> 10);
	o->cfg.inline_data = v;
	return KVPERF_EXIT_OK;
}

/* One block size of a bss list: its bit, or 0 after reporting. */
static uint32_t parse_bss_size(struct kvperf *kv, const char *s, size_t len,
			       const char *all)
{
	char buf[32];
	uint64_t v;

	if (len && len < sizeof(buf)) {
		memcpy(buf, s, len);
		buf[len] = '\0';
		if (!parse_size(buf, &v) && v >= KVPERF_IO_BS_MIN &&
		    v <= KVPERF_IO_BS_MAX && !(v & (v - 1)))
			return (uint32_t)v;
	}
	kvperf_usage(kv, "run",
		     "invalid bss '%s' (powers of two from 512 to %uM: a list such as 512,4K,1M, or a range such as 4K-64K)",
		     all, KVPERF_IO_BS_MAX >> 20);
	return 0;
}

/*
 * bss LIST: a sweep of block sizes, powers of two, as a list of sizes
 * and ranges (4K-64K: every power of two from 4 KiB to 64 KiB)
 */
static int parse_bss(struct kvperf *kv, const char *s, struct run_opts *o)
{
	const char *item = s;
	uint32_t bss = 0;

	for (;;) {
		size_t len = strcspn(item, ",");
		const char *dash = memchr(item, '-', len);
		uint32_t lo, hi;

		lo = parse_bss_size(kv, item, dash ? (size_t)(dash - item) : len,
				    s);
		if (!lo)
			return KVPERF_EXIT_USAGE;
		hi = lo;
		if (dash) {
			hi = parse_bss_size(kv, dash + 1,
					    len - (dash + 1 - item), s);
			if (!hi)
				return KVPERF_EXIT_USAGE;
			if (lo > hi)
				return kvperf_usage(kv, "run",
						    "bss '%s': a range's first size is larger than its last",
						    s);
		}
		for (; lo && lo <= hi; lo <<= 1)
			bss |= lo;
		if (!item[len])
			break;
		item += len + 1;
	}
	o->cfg.bss = bss;
	return KVPERF_EXIT_OK;
}

/*
 * rw read | rw write | rw randmix PCT: the op of an I/O run, or reads
 * mixed with writes, PCT percent of them reads (fio's rwmixread)
 */
static int parse_rw(struct kvperf *kv, const char *s, struct run_opts *o)
{
	static const char *const rw_names[] = {
		[KVPERF_OP_WRITE] = "write",
		[KVPERF_OP_READ] = "read",
		[KVPERF_OP_READ + 1] = "randmix",
	};
	const char *pct;
	uint32_t v;
	int ret;

	ret = cli_parse_name(kv, "run", "rw", rw_names, ARRAY_SIZE(rw_names),
			     s, &o->cfg.op);
	if (ret || o->cfg.op <= KVPERF_OP_READ)
		return ret;
	o->cfg.op = KVPERF_OP_READ;
	pct = args_next(o->args);
	if (!pct)
		return kvperf_usage(kv, "run",
				    "missing value after 'rw randmix' (the percentage of reads, %d to %d)",
				    KVPERF_IO_READ_PCT_MIN,
				    KVPERF_IO_READ_PCT_MAX);
	ret = cli_parse_run_ranged(kv, "run", "rw randmix",
				   KVPERF_A_RUN_READ_PCT, pct,
				   "the percentage of reads", &v);
	if (!ret) {
		o->cfg.read_pct = v;
		KV_SET(&o->cfg, KVPERF_A_RUN_READ_PCT);
	}
	return ret;
}

static int parse_cpus(struct kvperf *kv, const char *s, struct run_opts *o)
{
	if (strlen(s) > RUN_CPUS_LEN_MAX)
		return kvperf_usage(kv, "run",
				    "cpus is too long (at most %d characters)",
				    RUN_CPUS_LEN_MAX);
	if (!run_cpus_valid(s))
		return kvperf_usage(kv, "run",
				    "invalid cpus '%s' (CPU numbers and ranges such as 0-3,6)",
				    s);
	snprintf(o->cfg.cpus, sizeof(o->cfg.cpus), "%s", s);
	return KVPERF_EXIT_OK;
}

static int parse_value(struct kvperf *kv, enum run_kw kw, const char *val,
		       struct run_opts *o)
{
	uint32_t port;
	bool all;
	int i;

	switch (kw) {
	case RUN_KW_OP:
		return cli_parse_name(kv, "run", "op", fmt_op.names,
				      fmt_op.count, val, &o->cfg.op);
	case RUN_KW_ADDR:
		i = parse_addr(val, o->cfg.addr);
		if (i < 0)
			return kvperf_usage(kv, "run",
					    "invalid address '%s' (IPv4 or IPv6)",
					    val);
		o->cfg.addr_len = i;
		return KVPERF_EXIT_OK;
	case RUN_KW_PORT:
		if (parse_u32(val, &port) || !port || port > 65535)
			return kvperf_usage(kv, "run",
					    "invalid port '%s' (1 to 65535)",
					    val);
		o->cfg.port = port;
		return KVPERF_EXIT_OK;
	case RUN_KW_PATH:
		return cli_parse_name(kv, "run", "path", kv_run_path_names,
				      KV_RUN_PATHS, val, &o->path);
	case RUN_KW_STATS:
		return cli_parse_name(kv, "run", "stats", fmt_stats_mode.names,
				      fmt_stats_mode.count, val, &o->cfg.stats);
	case RUN_KW_POST_CONTEXT:
		return cli_parse_name(kv, "run", "post-context",
				      fmt_post_context.names,
				      fmt_post_context.count, val,
				      &o->cfg.post_context);
	case RUN_KW_KEY:
		return access_key_arg(kv, "run", false, val, o->cfg.key);
	case RUN_KW_KEY_FILE:
		/* read once the command line is known to be right */
		o->key_file = val;
		return KVPERF_EXIT_OK;
	case RUN_KW_SIZE:
		return cli_parse_size(kv, "run", "size", val, val, &o->cfg.size);
	case RUN_KW_SIZES:
		return cli_parse_sizes(kv, "run", val, &o->cfg.size,
				       &o->cfg.size_max, &all);
	case RUN_KW_ITERS:
		return parse_ranged(kv, kw, KVPERF_A_RUN_ITERATIONS, val,
				    &o->cfg.iterations);
	case RUN_KW_TIME:
		return parse_ranged(kv, kw, KVPERF_A_RUN_DURATION_MS, val,
				    &o->cfg.duration_ms);
	case RUN_KW_WARMUP:
		return parse_warmup(kv, val, o);
	case RUN_KW_POLL:
		return cli_parse_name(kv, "run", "poll mode", fmt_poll.names,
				      fmt_poll.count, val, &o->cfg.poll);
	case RUN_KW_INLINE:
		return parse_ranged(kv, kw, KVPERF_A_RUN_INLINE, val,
				    &o->cfg.inline_size);
	case RUN_KW_CPU:
		if (parse_u32(val, &o->cfg.cpu))
			return kvperf_usage(kv, "run",
					    "invalid cpu '%s' (a number)", val);
		return KVPERF_EXIT_OK;
	case RUN_KW_TIMEOUT:
		return parse_ranged(kv, kw, KVPERF_A_RUN_TIMEOUT_MS, val,
				    &o->cfg.timeout_ms);
	case RUN_KW_CPUS:
		return parse_cpus(kv, val, o);
	case RUN_KW_TX_DEPTH:
		return parse_ranged(kv, kw, KVPERF_A_RUN_TX_DEPTH, val,
				    &o->cfg.tx_depth);
	case RUN_KW_QPS:
		return parse_ranged(kv, kw, KVPERF_A_RUN_QPS, val, &o->cfg.qps);
	case RUN_KW_POST_LIST:
		return parse_ranged(kv, kw, KVPERF_A_RUN_POST_LIST, val,
				    &o->cfg.post_list);
	case RUN_KW_SIGNAL_EVERY:
		return parse_ranged(kv, kw, KVPERF_A_RUN_SIGNAL_EVERY, val,
				    &o->cfg.signal_every);
	case RUN_KW_INTERVAL:
		return parse_ranged(kv, kw, KVPERF_A_RUN_INTERVAL_MS, val,
				    &o->cfg.interval_ms);
	case RUN_KW_RW:
		return parse_rw(kv, val, o);
	case RUN_KW_BS:
		return cli_parse_size(kv, "run", "bs", val, val, &o->cfg.size);
	case RUN_KW_QD:
		return parse_ranged(kv, kw, KVPERF_A_RUN_QD, val, &o->cfg.qd);
	case RUN_KW_INV:
		return cli_parse_name(kv, "run", "inv", fmt_io_inv.names,
				      fmt_io_inv.count, val, &o->cfg.inv);
	case RUN_KW_REG:
		return cli_parse_name(kv, "run", "reg", fmt_io_reg.names,
				      fmt_io_reg.count, val, &o->cfg.reg);
	case RUN_KW_SEGMENTS:
		return parse_ranged(kv, kw, KVPERF_A_RUN_SEGMENTS, val,
				    &o->cfg.segments);
	case RUN_KW_QUEUES:
		return parse_ranged(kv, kw, KVPERF_A_RUN_QPS, val, &o->cfg.qps);
	case RUN_KW_INLINE_DATA:
		return parse_inline_data(kv, val, o);
	case RUN_KW_BSS:
		return parse_bss(kv, val, o);
	case RUN_KW_VERIFY:
	case RUN_KW_NO_WAIT:
	case RUN_KW_BIDIR:
	case RUN_KW_GBITS:
	case RUN_KW_COUNT:
		break;
	}
	return KVPERF_EXIT_OK;
}

/* The attribute each keyword sets; 0 for those of the command alone. */
static const uint8_t run_kw_attr[RUN_KW_COUNT] = {
	[RUN_KW_OP]		= KVPERF_A_RUN_OP,
	[RUN_KW_ADDR]		= KVPERF_A_RUN_ADDR,
	[RUN_KW_PORT]		= KVPERF_A_RUN_PORT,
	[RUN_KW_SIZE]		= KVPERF_A_RUN_SIZE,
	[RUN_KW_SIZES]		= KVPERF_A_RUN_SIZE,
	[RUN_KW_ITERS]		= KVPERF_A_RUN_ITERATIONS,
	[RUN_KW_TIME]		= KVPERF_A_RUN_DURATION_MS,
	[RUN_KW_WARMUP]		= KVPERF_A_RUN_WARMUP,
	[RUN_KW_POLL]		= KVPERF_A_RUN_POLL,
	[RUN_KW_INLINE]		= KVPERF_A_RUN_INLINE,
	[RUN_KW_VERIFY]		= KVPERF_A_RUN_VERIFY,
	[RUN_KW_CPU]		= KVPERF_A_RUN_CPU,
	[RUN_KW_TIMEOUT]	= KVPERF_A_RUN_TIMEOUT_MS,
	[RUN_KW_TX_DEPTH]	= KVPERF_A_RUN_TX_DEPTH,
	[RUN_KW_QPS]		= KVPERF_A_RUN_QPS,
	[RUN_KW_CPUS]		= KVPERF_A_RUN_CPUS,
	[RUN_KW_POST_LIST]	= KVPERF_A_RUN_POST_LIST,
	[RUN_KW_SIGNAL_EVERY]	= KVPERF_A_RUN_SIGNAL_EVERY,
	[RUN_KW_BIDIR]		= KVPERF_A_RUN_BIDIR,
	[RUN_KW_INTERVAL]	= KVPERF_A_RUN_INTERVAL_MS,
	[RUN_KW_STATS]		= KVPERF_A_RUN_STATS,
	[RUN_KW_KEY]		= KVPERF_A_RUN_KEY,
	[RUN_KW_KEY_FILE]	= KVPERF_A_RUN_KEY,
	[RUN_KW_POST_CONTEXT]	= KVPERF_A_RUN_POST_CONTEXT,
	[RUN_KW_RW]		= KVPERF_A_RUN_OP,
	[RUN_KW_BS]		= KVPERF_A_RUN_SIZE,
	[RUN_KW_QD]		= KVPERF_A_RUN_QD,
	[RUN_KW_INV]		= KVPERF_A_RUN_INV,
	[RUN_KW_SEGMENTS]	= KVPERF_A_RUN_SEGMENTS,
	[RUN_KW_REG]		= KVPERF_A_RUN_REG,
	[RUN_KW_QUEUES]		= KVPERF_A_RUN_QPS,
	[RUN_KW_INLINE_DATA]	= KVPERF_A_RUN_INLINE_DATA,
	[RUN_KW_BSS]		= KVPERF_A_RUN_BSS,
};

/* The configuration's attributes, from the keywords given. */
static void run_given(struct run_opts *o)
{
	int kw;

	for (kw = 0; kw < RUN_KW_COUNT; kw++) {
		if (!run_opt(o, kw) || !run_kw_attr[kw])
			continue;
		KV_SET(&o->cfg, run_kw_attr[kw]);
		/* a keyword without a value sets its flag */
		if (run_cfg_fields.field[run_kw_attr[kw]].kind == KV_FIELD_FLAG)
			run_model_set_uint(&run_cfg_fields, &o->cfg,
					   run_kw_attr[kw], 1);
	}
	if (run_opt(o, RUN_KW_SIZES))
		KV_SET(&o->cfg, KVPERF_A_RUN_SIZE_MAX);
	/* a warmup with a unit is a time */
	if (o->cfg.warmup_ms) {
		o->cfg.has &= ~(1ULL << KVPERF_A_RUN_WARMUP);
		KV_SET(&o->cfg, KVPERF_A_RUN_WARMUP_MS);
	}
}

/* pairs of keywords that say the same thing two ways */
static const int run_exclusive[][2] = {
	{ RUN_KW_SIZE, RUN_KW_SIZES },
	{ RUN_KW_BS, RUN_KW_BSS },
	{ RUN_KW_ITERS, RUN_KW_TIME },
	{ RUN_KW_KEY, RUN_KW_KEY_FILE },
	{ -1, -1 },
};

static int run_value(struct kvperf *kv, int kw, const char *val, void *arg)
{
	return parse_value(kv, kw, val, arg);
}

/**
 * run_parse() - the arguments of "run lat" or "run bw"
 * @kv: the invocation
 * @a: the words after "lat" or "bw"
 * @type: KVPERF_RUN_TYPE_LAT or KVPERF_RUN_TYPE_BW
 * @o: filled in: @type, port 18515 unless given, and what was given
 *
 * Everything the command line alone can judge is checked here (unknown
 * keywords, keywords of bandwidth runs in a latency run, numbers, sizes,
 * times, the spec's ranges of the bandwidth run's numbers, the form of
 * the CPU list, missing op or addr, the key); other limits are the
 * kernel's, which says what is wrong. A key file is read last, once the
 * rest is known to be right.
 *
 * Return: KVPERF_EXIT_OK, KVPERF_EXIT_USAGE after reporting, or
 * KVPERF_EXIT_ERROR for a key file that cannot be used.
 */
int run_parse(struct kvperf *kv, struct args *a, uint8_t type,
	      struct run_opts *o)
{
	bool io = type == KVPERF_RUN_TYPE_IO;
	struct cli_keywords k = {
		.obj = "run", .names = run_keywords, .count = RUN_KW_COUNT,
		.flags = RUN_KW_FLAGS,
		.refused = type == KVPERF_RUN_TYPE_LAT ? RUN_KW_BW_ONLY : 0,
		.refused_fmt = "'%s' does not apply to run lat",
		.refused_also = io ? RUN_KW_IO_REFUSED : RUN_KW_IO_ONLY,
		.refused_also_fmt = io ? "'%s' does not apply to run io" :
				    "'%s' is only for run io",
		.exclusive = run_exclusive, .value = run_value,
	};
	char why[RUN_CFG_WHY_LEN];
	int ret, attr;

	memset(o, 0, sizeof(*o));
	o->args = a;
	run_cfg_init(&o->cfg, type);
	ret = cli_parse_keywords(kv, a, &k, &o->given, o);
	if (ret)
		return ret;
	/* an I/O run reads unless told otherwise, as fio */
	if (io && !run_opt(o, RUN_KW_RW)) {
		o->cfg.op = KVPERF_OP_READ;
		o->given |= RUN_KW_BIT(RUN_KW_RW);
	}
	if (!run_opt(o, RUN_KW_OP) && !io)
		return kvperf_usage(kv, "run",
				    "missing op (send, write or read)");
	if (!run_opt(o, RUN_KW_ADDR))
		return kvperf_usage(kv, "run", "missing addr");
	if (o->path == RUN_PATH_USER && run_opt(o, RUN_KW_NO_WAIT))
		return kvperf_usage(kv, "run",
				    "no-wait applies to the kernel path only");
	run_given(o);
	/* what the module would refuse: the same answer on either path */
	if (run_cfg_check(&o->cfg, o->path, &attr, why, sizeof(why)))
		return kvperf_usage(kv, "run", "%s", why);
	if (o->key_file)
		return access_key_arg(kv, "run", true, o->key_file, o->cfg.key);
	return KVPERF_EXIT_OK;
}

/**
 * run_keyed() - does the run send a key?
 * @o: from run_parse()
 *
 * Return: true when key or key-file was given.
 */
bool run_keyed(const struct run_opts *o)
{
	return run_opt(o, RUN_KW_KEY) || run_opt(o, RUN_KW_KEY_FILE);
}

/**
 * run_print_started() - what "run lat ... no-wait" prints
 * @p: the printer
 * @id: the run's id
 *
 * Text: "run 7 started"; JSON: {"id":7}.
 */
void run_print_started(struct printer *p, uint32_t id)
{
	pr_obj_open(p, NULL);
	pr_u64(p, "id", "run %s started", id);
	pr_obj_close(p);
	pr_finish(p);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void run_show_progress(struct run_show *w, const struct kv_run *ev)
{
	const char *state = NULL;

	if (!w->tty || !KV_HAS(ev, KVPERF_A_RUN_PROGRESS))
		return;
	if (KV_HAS(ev, KVPERF_A_RUN_STATE))
		state = fmt_name(&fmt_run_state, ev->state);
	fprintf(w->tty, "\rrun %u %s: %llu %s", ev->id,
		state ? state : "running", (unsigned long long)ev->progress,
		w->progress_unit ? w->progress_unit : "iterations");
	fflush(w->tty);
	w->progress_shown = true;
}

/**
 * run_show_quiet() - take the progress line off the terminal
 * @arg: the struct run_show
 */
void run_show_quiet(void *arg)
{
	struct run_show *w = arg;

	if (w->progress_shown)
		fputs("\r\033[K", w->tty);
	w->progress_shown = false;
}

/**
 * run_show_event() - show a progress event of the run waited for
 * @arg: the struct run_show
 * @ev: the event
 *
 * One that reports an interval (bandwidth runs) is a line on @w->live,
 * when set; others are shown on @w->tty, when set, as
 * "\rrun 3 running: 5000 iterations".
 */
void run_show_event(void *arg, const struct kv_run *ev)
{
	struct run_show *w = arg;

	if (!w->live || !KV_HAS(ev, KVPERF_A_RUN_INTERVAL_NS)) {
		run_show_progress(w, ev);
		return;
	}
	run_show_quiet(w);
	if (w->rw)
		run_print_io_live(w->live, ev, now_ms() - w->start_ms, w->rw,
				  w->bss);
	else
		run_print_live(w->live, ev, now_ms() - w->start_ms, w->gbits);
	fflush(w->live);
}

/**
 * run_finish() - print a run that ended, and say how it ended
 * @kv: the invocation
 * @nlh: the run, from its run-finished event or a run-get
 * @gbits: a bandwidth table in Gb/s rather than MiB/s
 *
 * Prints the run to stdout (JSON: the run object, not an array) whatever
 * its state; a failed run adds "kvperf: run N failed: ERROR" to stderr
 * (text leaves the run's "error:" line out: the error is said once), a
 * stopped one "kvperf: run N stopped".
 *
 * Return: KVPERF_EXIT_OK if the run is done, KVPERF_EXIT_ERROR otherwise.
 */
int run_finish(struct kvperf *kv, const struct nlmsghdr *nlh, bool gbits)
{
	struct kv_run run;
	int ret;

	ret = run_model_decode(&run, nlh, kv->err);
	if (ret == -ENOMEM)
		kvperf_errorf(kv, "out of memory");
	if (!ret)
		ret = run_report(kv, &run, gbits);
	else
		ret = KVPERF_EXIT_ERROR;
	run_model_free(&run);
	return ret;
}

/**
 * run_report() - print a run that ended, of either path, and say how it
 *		  ended
 * @kv: the invocation
 * @run: the run
 * @gbits: a bandwidth table in Gb/s rather than MiB/s
 *
 * As run_finish().
 *
 * Return: KVPERF_EXIT_OK if the run is done, KVPERF_EXIT_ERROR otherwise.
 */
int run_report(struct kvperf *kv, const struct kv_run *run, bool gbits)
{
	const char *error = "no reason given";
	struct kv_run shown = *run;
	struct printer p;
	char id[16] = "";
	int state = -1;

	/*
	 * One line per failure: the text says the error once, on stderr
	 * below, not also as run_print()'s "error:" line. JSON keeps it: a
	 * program reads the document, not stderr.
	 */
	if (!kv->json)
		shown.has &= ~(1ULL << KVPERF_A_RUN_ERROR);
	pr_init(&p, kv->out, kv->json, kv->pretty);
	run_print(&p, &shown, gbits);
	pr_finish(&p);

	/* a user-path run is no kernel object and has no id */
	if (KV_HAS(run, KVPERF_A_RUN_ID))
		snprintf(id, sizeof(id), " %u", run->id);
	if (KV_HAS(run, KVPERF_A_RUN_STATE))
		state = run->state;
	if (KV_HAS(run, KVPERF_A_RUN_ERROR))
		error = run->error;
	switch (state) {
	case KVPERF_RUN_STATE_DONE:
		return KVPERF_EXIT_OK;
	case KVPERF_RUN_STATE_FAILED:
		kvperf_errorf(kv, "run%s failed: %s", id, error);
		break;
	case KVPERF_RUN_STATE_STOPPED:
		kvperf_errorf(kv, "run%s stopped", id);
		break;
	default:
		kvperf_errorf(kv, "run%s ended in state %d", id, state);
		break;
	}
	return KVPERF_EXIT_ERROR;
}

/* Start the run, and unless no-wait, wait for it and print its results. */
static int run_start(struct kvperf *kv, const struct run_opts *o)
{
	struct run_show show = {
		.gbits = run_opt(o, RUN_KW_GBITS),
		/* JSON is one document: the intervals stay out of it */
		.live = kv->json ? NULL : kv->out,
		.progress_unit = o->cfg.type == KVPERF_RUN_TYPE_BW ?
				 "messages" :
				 o->cfg.type == KVPERF_RUN_TYPE_IO ? "I/Os" :
				 "iterations",
		/* "\r" and "\033[K" only where a terminal shows them */
		.tty = cli_terminal(kv->err) ? kv->err : NULL,
		.rw = run_cfg_rw_name(&o->cfg),
		.bss = KV_HAS(&o->cfg, KVPERF_A_RUN_BSS),
	};
	struct run_wait w = {
		.progress = run_show_event, .quiet = run_show_quiet,
		.arg = &show,
	};
	struct kv_run run;
	struct printer p;
	struct knl nl;
	uint32_t id;
	int ret, sfd;

	if (run_opt(o, RUN_KW_NO_WAIT)) {
		ret = knl_open(kv, &nl);
		if (ret)
			return ret;
		ret = run_kernel_start(kv, &nl, &o->cfg, &id);
		knl_close(&nl);
		if (!ret) {
			pr_init(&p, kv->out, kv->json, kv->pretty);
			run_print_started(&p, id);
		}
		return ret;
	}
	/* block the signals now, so that an early ^C still stops the run */
	sfd = cli_signalfd(kv);
	if (sfd < 0)
		return KVPERF_EXIT_ERROR;
	show.start_ms = now_ms();
	ret = run_kernel_exec(kv, &o->cfg, sfd, &w, &run);
	if (!ret)
		ret = run_report(kv, &run, show.gbits);
	run_model_free(&run);
	close(sfd);
	return ret;
}

/* Where the user path's progress reports go. */
struct run_user_live {
	FILE *f;
	bool gbits;
	int64_t start_ms;
	/* an I/O run: its lines are fio's, for @rw */
	const char *rw;
	/* a sweep of block sizes: each line says its size */
	bool bss;
};

static void run_user_progress(void *arg, const struct kv_run *ev)
{
	struct run_user_live *l = arg;

	if (l->rw)
		run_print_io_live(l->f, ev, now_ms() - l->start_ms, l->rw,
				  l->bss);
	else
		run_print_live(l->f, ev, now_ms() - l->start_ms, l->gbits);
	fflush(l->f);
}

/* path user: the run in this process, printed as the kernel path's. */
static int run_user(struct kvperf *kv, const struct run_opts *o)
{
	struct run_user_live live = {
		.f = kv->out, .gbits = run_opt(o, RUN_KW_GBITS),
		.start_ms = now_ms(), .rw = run_cfg_rw_name(&o->cfg),
		.bss = KV_HAS(&o->cfg, KVPERF_A_RUN_BSS),
	};
	/* JSON is one document: the intervals stay out of it */
	struct upath_run_ops ops = {
		.progress = kv->json ? NULL : run_user_progress,
		.arg = &live,
	};
	const char *why = NULL;
	struct kv_run run;
	int ret;

	ret = upath_catch_signals();
	if (ret) {
		kvperf_errorf(kv, "cannot catch signals: %s", strerror(-ret));
		return KVPERF_EXIT_ERROR;
	}
	if (upath_run_exec(&o->cfg, &ops, &run, &why)) {
		kvperf_errorf(kv, "%s", why);
		return KVPERF_EXIT_ERROR;
	}
	ret = run_report(kv, &run, live.gbits);
	run_model_free(&run);
	return ret;
}

/* run lat ... and run bw ...: parse, start, wait and print. */
static int run_measure(struct kvperf *kv, struct args *a, uint8_t type)
{
	struct run_opts o;
	int ret;

	ret = show_cmd_help(kv, a, &run_object, run_keywords, RUN_KW_COUNT);
	if (ret >= 0)
		return ret;
	ret = run_parse(kv, a, type, &o);
	if (!ret && o.path == RUN_PATH_USER)
		ret = run_user(kv, &o);
	else if (!ret)
		ret = run_start(kv, &o);
	run_cfg_clear(&o.cfg);
	return ret;
}

static int run_lat(struct kvperf *kv, struct args *a)
{
	return run_measure(kv, a, KVPERF_RUN_TYPE_LAT);
}

static int run_bw(struct kvperf *kv, struct args *a)
{
	return run_measure(kv, a, KVPERF_RUN_TYPE_BW);
}

static int run_io(struct kvperf *kv, struct args *a)
{
	return run_measure(kv, a, KVPERF_RUN_TYPE_IO);
}

static int run_show(struct kvperf *kv, struct args *a)
{
	static const struct show_req req = {
		.obj = &run_object,
		.cmd = KVPERF_CMD_RUN_GET,
		.set = &attrs_run,
		.id_attr = KVPERF_A_RUN_ID,
		.print = run_print_msg,
		.blank_line = true,
		.continued_attr = KVPERF_A_RUN_RESULTS_FROM,
		.merge = { KVPERF_A_RUN_RESULT, KVPERF_A_RUN_BW_RESULT },
	};

	return show_run(kv, a, &req);
}

static int run_stop(struct kvperf *kv, struct args *a)
{
	return show_id_request(kv, a, &run_object, KVPERF_CMD_RUN_STOP,
			       &attrs_run, KVPERF_A_RUN_ID);
}

static int run_delete(struct kvperf *kv, struct args *a)
{
	return show_id_request(kv, a, &run_object, KVPERF_CMD_RUN_DELETE,
			       &attrs_run, KVPERF_A_RUN_ID);
}

static const struct kvperf_cmd run_show_cmd = {
	.name = "show",
	.summary = "show all runs, or the one given",
	.run = run_show,
};

static const struct kvperf_cmd run_lat_cmd = {
	.name = "lat",
	.summary = "measure latency",
	.run = run_lat,
};

static const struct kvperf_cmd run_bw_cmd = {
	.name = "bw",
	.summary = "measure bandwidth",
	.run = run_bw,
};

static const struct kvperf_cmd run_io_cmd = {
	.name = "io",
	.summary = "measure storage-shaped I/Os",
	.run = run_io,
};

static const struct kvperf_cmd run_stop_cmd = {
	.name = "stop",
	.summary = "stop a run",
	.run = run_stop,
};

static const struct kvperf_cmd run_delete_cmd = {
	.name = "delete",
	.summary = "delete a run, stopping it first",
	.run = run_delete,
};

static const struct kvperf_cmd *const run_cmds[] = {
	&run_show_cmd,		/* the default */
	&run_lat_cmd,
	&run_bw_cmd,
	&run_io_cmd,
	&run_stop_cmd,
	&run_delete_cmd,
	NULL,
};

static int run_run(struct kvperf *kv, struct args *a)
{
	return kvperf_dispatch(kv, a, &run_object, run_cmds);
}

static void run_help(FILE *f)
{
	fputs("Usage: kvperf [-j [-p]] run lat op {send|write|read} addr ADDR [port PORT]\n"
	      "              [size N | sizes all | sizes MIN-MAX] [iters N | time TIME]\n"
	      "              [warmup N | warmup TIME] [poll {busy|softirq|workqueue}]\n"
	      "              [inline N] [verify] [cpu N] [timeout TIME] [no-wait]\n"
	      "              [path {kernel|user}] [stats {on|off}]\n"
	      "              [post-context {process|bh}] [key HEX | key-file PATH]\n"
	      "       kvperf [-j [-p]] run bw op {send|write|read} addr ADDR [port PORT]\n"
	      "              [size N | sizes all | sizes MIN-MAX] [iters N | time TIME]\n"
	      "              [warmup N | warmup TIME] [poll {busy|softirq|workqueue}]\n"
	      "              [inline N] [verify] [cpu N] [timeout TIME] [no-wait]\n"
	      "              [tx-depth N] [qps N] [cpus LIST] [post-list N]\n"
	      "              [signal-every N] [bidir] [interval TIME] [gbits]\n"
	      "              [path {kernel|user}] [post-context {process|bh}]\n"
	      "              [key HEX | key-file PATH]\n"
	      "       kvperf [-j [-p]] run io addr ADDR [port PORT]\n"
	      "              [rw {read|write|randmix PCT}]\n"
	      "              [bs N | bss LIST] [qd N] [reg {frwr|pre|mw}]\n"
	      "              [inv {remote|local}]\n"
	      "              [segments N] [inline-data N] [queues N] [cpus LIST]\n"
	      "              [iters N | time TIME]\n"
	      "              [warmup N | warmup TIME] [poll {busy|softirq|workqueue}]\n"
	      "              [verify] [cpu N] [timeout TIME] [no-wait] [stats {on|off}]\n"
	      "              [interval TIME]\n"
	      "              [post-context {process|bh}] [key HEX | key-file PATH]\n"
	      "       kvperf [-j [-p]] run [show [ID]]\n"
	      "       kvperf run {stop|delete} ID\n"
	      "       kvperf run help\n"
	      "\n"
	      "Benchmark runs this host's kernel drives against a kvperf server\n"
	      "(kvperf server start on the other host), or with path user the\n"
	      "same loops run by this command on libibverbs.\n"
	      "\n"
	      "  lat     measure latency as perftest's ib_{send,write,read}_lat:\n"
	      "          wait for the end and print perftest's table, one row\n"
	      "          per message size. ^C stops the run and prints what it\n"
	      "          measured. Exit status 0 when the run is done, 1 when it\n"
	      "          failed or was stopped.\n"
	      "  bw      measure bandwidth as perftest's ib_{send,write,read}_bw:\n"
	      "          a line per interval while it runs (not with -j), then\n"
	      "          perftest's table, one row per message size; ^C and the\n"
	      "          exit status as for lat.\n"
	      "  io      measure storage-shaped I/Os, as nvme-rdma drives a queue\n"
	      "          and nvmet-rdma serves it: per I/O the host registers\n"
	      "          its block (FRWR, REG_MR chained before the command\n"
	      "          SEND), the target moves the data with rdma_rw (RDMA\n"
	      "          WRITE for reads, READ for writes) and answers with a\n"
	      "          response that invalidates the registration. Prints\n"
	      "          IOPS, MiB/s and the completion latency as fio does.\n"
	      "          path user registers every block once (reg pre), or\n"
	      "          binds a memory window per I/O (reg mw).\n"
	      "  show    runs with their results; show is the default command.\n"
	      "  stop    stop a run; it ends as stopped and keeps its results.\n"
	      "  delete  forget a run, stopping it first if it still runs.\n"
	      "\n"
	      "  op       send, write or read\n"
	      "  addr     the server's IPv4 or IPv6 address\n"
	      "  port     the server's port (default 18515)\n"
	      "  size     message size in bytes, K and M suffixes (default 2;\n"
	      "           bw: 64K, as perftest's bandwidth tests)\n"
	      "  sizes    all: the powers of two from 2 B to 8 MiB (perftest -a);\n"
	      "           MIN-MAX: MIN, doubled until MAX, e.g. 64-64K\n"
	      "  iters    measured iterations per size (default 1000); bw:\n"
	      "           messages per queue pair (default 5000)\n"
	      "  time     measure each size for TIME instead, 1ms to 3600s\n"
	      "  warmup   unmeasured iterations before each size (default 16;\n"
	      "           bw: messages per queue pair), or with a unit a time,\n"
	      "           1ms to 600s: 2s, 0.5s, 500ms\n"
	      "  poll     completion handling on this side (default busy); the\n"
	      "           server chooses its own\n"
	      "  inline   send inline up to N bytes (default 0)\n"
	      "  verify   check the payload of every message\n"
	      "  cpu      run the measuring thread on this CPU\n"
	      "  timeout  fail when nothing completes for TIME, 10ms to 600s\n"
	      "           (default: 1 ms per KiB that can be in flight, 5s to\n"
	      "           120s; see kvperf(8))\n"
	      "  no-wait  print the run's id and return at once (kernel path)\n"
	      "  path     kernel (default): the kvperf module runs the loops;\n"
	      "           user: this process runs them, with libibverbs and\n"
	      "           librdmacm, speaking the same protocol, so either side\n"
	      "           may be the kernel's. Same options, statistics and\n"
	      "           output (\"path user\" in the header, no run id); poll\n"
	      "           busy spins on ibv_poll_cq, softirq and workqueue both\n"
	      "           sleep on a completion channel; no kvperf module needed\n"
	      "  stats    lat: on (default) times every iteration for min, max,\n"
	      "           stdev and percentiles; off reads no clock per iteration\n"
	      "           and keeps no histogram: the table has #iterations and\n"
	      "           t_avg (the measured time over the iterations) and \"-\"\n"
	      "           for the rest, JSON leaves those keys out. The difference\n"
	      "           of the two t_avg is what the statistics cost. bw runs\n"
	      "           take no per-iteration statistics and refuse off\n"
	      "  post-context\n"
	      "           kernel path: process (default) has the run's kernel\n"
	      "           thread post the loops' work requests as it is, as\n"
	      "           nvme-rdma and xprtrdma submit; bh posts them with bottom\n"
	      "           halves disabled, as ULPs posting from softirq completion\n"
	      "           handlers do (on Soft-RoCE the device's tasklet then runs\n"
	      "           in the posting thread). path user refuses bh\n"
	      "  key      the server's shared secret (server start ... key),\n"
	      "           exactly 32 hex digits, sent in the connect request;\n"
	      "           never printed\n"
	      "  key-file read the key from PATH (32 hex digits; the file must\n"
	      "           be readable by its owner only, chmod 600)\n"
	      "\n"
	      "Only for bw:\n"
	      "  tx-depth      work requests in flight per queue pair, 1 to 4096\n"
	      "                (default 128)\n"
	      "  qps           queue pairs, one connection each, 1 to 16 (default 1)\n"
	      "  cpus          one thread on each CPU of LIST, e.g. 0-3,6; the queue\n"
	      "                pairs are dealt to them in turn (default: one thread,\n"
	      "                on cpu when given)\n"
	      "  post-list     work requests per post call, 1 to 64 (default 1)\n"
	      "  signal-every  ask for a completion at least every N work requests,\n"
	      "                1 to 4096 (default 100, or tx-depth when smaller)\n"
	      "  bidir         the server sends the same traffic back meanwhile\n"
	      "  interval      a line every TIME, 10ms to 60s (default: about\n"
	      "                every second)\n"
	      "  gbits         bandwidth in Gb/s (10^9 bits) instead of MiB/s in\n"
	      "                the text; JSON has MiB/s either way\n"
	      "\n"
	      "Only for io:\n"
	      "  rw            read (default: the target writes into the host's\n"
	      "                block), write (the target reads it), or randmix PCT:\n"
	      "                each I/O reads with a chance of PCT percent (1 to\n"
	      "                99) and writes otherwise; reads and writes get a\n"
	      "                result each\n"
	      "  bs            block size, a multiple of 512 from 512 to 1M (default\n"
	      "                4K)\n"
	      "  bss           a sweep of block sizes, powers of two from 512 to\n"
	      "                1M: a list of sizes and ranges (512,4K-16K,1M is\n"
	      "                512, 4K, 8K, 16K and 1M); each is measured in turn,\n"
	      "                smallest first, on new connections, with its own\n"
	      "                results; iters, time and warmup are per size\n"
	      "  qd            I/Os kept outstanding, 1 to 256 (default 1), at most\n"
	      "                what the target grants\n"
	      "  reg           frwr (default): each I/O registers its block from\n"
	      "                an MR pool (REG_MR before the command) and\n"
	      "                invalidates it; pre: each block is registered once\n"
	      "                at connect and kept (no inv); mw (path user only,\n"
	      "                and path user's default is pre): the blocks are\n"
	      "                registered once and each I/O binds a type 2 memory\n"
	      "                window over its block (BIND_MW before the command)\n"
	      "                and invalidates it\n"
	      "  inv           remote (default): the target's response is a SEND\n"
	      "                with invalidate; local: the host posts its own\n"
	      "                LOCAL_INV after the response\n"
	      "  segments      keyed segments per command, 1 to 16 (default 1): the\n"
	      "                block in that many equal parts of whole 512-byte\n"
	      "                units, under the I/O's one registration\n"
	      "  inline-data   in-capsule data, 0 to 16K bytes (default 0): writes\n"
	      "                of at most this size go inside the command's SEND,\n"
	      "                with no registration and no RDMA READ\n"
	      "  queues        connections, 1 to 16 (default 1), each with its\n"
	      "                own thread, MR pool and qd I/Os; a line per queue\n"
	      "                under each result\n"
	      "  cpus          CPU list: the queues' threads bound to its CPUs in\n"
	      "                turn (no more CPUs than queues)\n"
	      "  iters, time, warmup and verify count and check I/Os, per queue\n"
	      "  (verify: every byte of every I/O, a pattern per I/O); interval\n"
	      "  prints a line per TIME (not with -j) with the interval's IOPS\n"
	      "  and BW. op, size, sizes, inline, qps and the other bw keywords\n"
	      "  do not apply.\n"
	      "\n"
	      "TIME is a number with an optional unit, as every time of the tool:\n"
	      "10, 0.5 and 2s are seconds (at most 3 decimals), 500ms milliseconds.\n"
	      "A warmup without a unit is a count. Refused settings (out of the\n"
	      "spec's range, or excluding each other) are usage errors, the same\n"
	      "on either path, before anything starts.\n"
	      "\n"
	      "Latency times are in microseconds in text, as perftest prints them,\n"
	      "and in nanoseconds in JSON. Bandwidth is in MiB/s (2^20 bytes per\n"
	      "second); #iterations is messages per queue pair, as perftest counts\n"
	      "them; CPU[%] is the CPU time of the run's threads over the wall time\n"
	      "(above 100 with several threads; on the user path, the worker\n"
	      "threads' CLOCK_THREAD_CPUTIME_ID). Keywords and commands may be\n"
	      "abbreviated to any prefix; the first in the order above wins (s is\n"
	      "size, t time, pa path). Values are spelled out: stats off, not\n"
	      "stats o.\n"
	      "\n"
	      "Examples:\n"
	      "  kvperf run lat op send addr 198.18.0.1\n"
	      "  kvperf run lat op write addr 198.18.0.1 sizes all iters 10000\n"
	      "  kvperf run lat op read addr fd00::1 size 4K time 0.5 poll softirq\n"
	      "  kvperf -j run lat op send addr 198.18.0.1 size 64 verify\n"
	      "  kvperf run lat op send addr 198.18.0.1 warmup 500ms\n"
	      "  kvperf run bw op write addr 198.18.0.1 size 64K time 10\n"
	      "  kvperf run bw op send addr 198.18.0.1 sizes all qps 4 cpus 0-3\n"
	      "  kvperf run bw op write addr 198.18.0.1 bidir interval 0.5 gbits\n"
	      "  kvperf run lat op send addr 198.18.0.1 size 64 path user\n"
	      "  kvperf run lat op send addr 198.18.0.1 size 64 stats off\n"
	      "  kvperf run lat op send addr 198.18.0.1 size 64 post-context bh\n"
	      "  kvperf run bw op read addr 198.18.0.1 size 64K qps 2 path user\n"
	      "  kvperf run lat op send addr 198.18.0.1 key-file ~/.kvperf.key\n"
	      "  kvperf run io addr 198.18.0.1 rw write bs 128K qd 16 time 10\n"
	      "  kvperf run io addr 198.18.0.1 bs 4K qd 1 inv local verify\n"
	      "  kvperf r l o send a 198.18.0.1 no-wait\n"
	      "  kvperf run\n"
	      "  kvperf -j -p run show 7\n"
	      "  kvperf run stop 7\n"
	      "  kvperf run delete 7\n", f);
}

const struct kvperf_cmd run_object = {
	.name = "run",
	.summary = "benchmark runs: start, wait, results",
	.run = run_run,
	.help = run_help,
};
