// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf compare: the command line, the configuration of its kvperf runs,
 * the results read back from them and from perftest's output, the
 * statistics over rounds and the table. compare_exec.c is the command:
 * it runs the measurements and the servers.
 */
#include <errno.h>
#include <math.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kvperf.h>

#include "args.h"
#include "cli.h"
#include "compare.h"
#include "fmt.h"
#include "json.h"
#include "keywords.h"
#include "kvperf.h"
#include "perftest.h"
#include "print.h"
#include "run.h"
#include "run_cfg.h"
#include "run_model.h"
#include "upath_cfg.h"

const char *const cmp_path_names[CMP_PATHS] = {
	[CMP_KERNEL]	= "kernel",
	[CMP_KERNEL_BH]	= "kernel-bh",
	[CMP_USER]	= "user",
	[CMP_PERFTEST]	= "perftest",
	[CMP_USER_TARGET] = "user-target",
};

/**
 * cmp_col_name() - the name of a column in a compare of @type
 * @type: KVPERF_RUN_TYPE_LAT, _BW or _IO
 * @path: the column
 *
 * Return: cmp_path_names[@path], but "user-host" for the user path's
 * column of a compare io, whose other user column is the target's.
 */
const char *cmp_col_name(uint8_t type, enum cmp_path path)
{
	if (type == KVPERF_RUN_TYPE_IO && path == CMP_USER)
		return "user-host";
	return cmp_path_names[path];
}

/**
 * cmp_path_of_type() - is @path a column a compare of @type can have?
 * @type: KVPERF_RUN_TYPE_LAT, _BW or _IO
 * @path: the column
 *
 * Return: for io kernel, user(-host) and user-target; for lat and bw
 * every column but user-target.
 */
bool cmp_path_of_type(uint8_t type, enum cmp_path path)
{
	if (type == KVPERF_RUN_TYPE_IO)
		return path == CMP_KERNEL || path == CMP_USER ||
		       path == CMP_USER_TARGET;
	return path != CMP_USER_TARGET;
}

const char *const cmp_point_names[CMP_PTS] = {
	[CMP_PT_MIN]	= "min",
	[CMP_PT_P50]	= "p50",
	[CMP_PT_P90]	= "p90",
	[CMP_PT_P99]	= "p99",
	[CMP_PT_P999]	= "p999",
	[CMP_PT_MAX]	= "max",
};

const double cmp_point_fraction[CMP_PTS] = {
	[CMP_PT_MIN]	= 0,
	[CMP_PT_P50]	= 0.5,
	[CMP_PT_P90]	= 0.9,
	[CMP_PT_P99]	= 0.99,
	[CMP_PT_P999]	= 0.999,
	[CMP_PT_MAX]	= 1,
};

const char *const cmp_keywords[CMP_KW_COUNT] = {
	[CMP_KW_OP]		= "op",
	[CMP_KW_ADDR]		= "addr",
	[CMP_KW_PORT]		= "port",
	[CMP_KW_SIZE]		= "size",
	[CMP_KW_SIZES]		= "sizes",
	[CMP_KW_ROUNDS]		= "rounds",
	[CMP_KW_ITERS]		= "iters",
	[CMP_KW_POLL]		= "poll",
	[CMP_KW_INLINE]		= "inline",
	[CMP_KW_PLOT]		= "plot",
	[CMP_KW_NO_PERFTEST]	= "no-perftest",
	[CMP_KW_REMOTE]		= "remote",
	[CMP_KW_TX_DEPTH]	= "tx-depth",
	[CMP_KW_QPS]		= "qps",
	[CMP_KW_SIGNAL_EVERY]	= "signal-every",
	[CMP_KW_POST_CONTEXT]	= "post-context",
	[CMP_KW_TIMEOUT]	= "timeout",
};

const char *const cmp_post_names[CMP_POSTS] = {
	[CMP_POST_PROCESS]	= "process",
	[CMP_POST_BH]		= "bh",
	[CMP_POST_BOTH]		= "both",
};

#define CMP_KW_BIT(kw)	(1ULL << (kw))
#define CMP_KW_FLAGS	(CMP_KW_BIT(CMP_KW_NO_PERFTEST) |		\
			 CMP_KW_BIT(CMP_KW_REMOTE))
/* tx-depth to signal-every */
#define CMP_KW_BW_ONLY	(CMP_KW_BIT(CMP_KW_SIGNAL_EVERY + 1) -		\
			 CMP_KW_BIT(CMP_KW_TX_DEPTH))

#define CMP_PORT_DEFAULT	18515

static int cmp_usage_range(struct kvperf *kv, const char *kw, const char *s,
			   uint32_t min, uint32_t max)
{
	return kvperf_usage(kv, "compare", "%s '%s' is out of range (%u to %u)",
			    kw, s, min, max);
}

static int cmp_number(struct kvperf *kv, const char *kw, const char *s,
		      uint32_t min, uint32_t max, uint32_t *val)
{
	uint32_t v;
	int err;

	err = parse_u32(s, &v);
	if (err == -EINVAL)
		return kvperf_usage(kv, "compare", "invalid %s '%s' (a number)",
				    kw, s);
	if (err || v < min || v > max)
		return cmp_usage_range(kv, kw, s, min, max);
	*val = v;
	return KVPERF_EXIT_OK;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcasecmp(s + n - m, suffix);
}

static int cmp_value(struct kvperf *kv, enum cmp_kw kw, const char *val,
		     struct cmp_opts *o)
{
	uint32_t port;

	switch (kw) {
	case CMP_KW_OP:
		return cli_parse_name(kv, "compare", "op", fmt_op.names,
				      fmt_op.count, val, &o->op);
	case CMP_KW_ADDR:
		o->addr_len = parse_addr(val, o->addr_bin);
		if (o->addr_len < 0)
			return kvperf_usage(kv, "compare",
					    "invalid address '%s' (IPv4 or IPv6)",
					    val);
		o->addr = val;
		return KVPERF_EXIT_OK;
	case CMP_KW_PORT:
		/* the user path and perftest listen on the next two */
		if (parse_u32(val, &port) || !port ||
		    port > 65535 - PERFTEST_PORT_OFFSET)
			return kvperf_usage(kv, "compare",
					    "invalid port '%s' (1 to 65533: PORT+1 and PORT+2 are used too)",
					    val);
		o->port = port;
		return KVPERF_EXIT_OK;
	case CMP_KW_SIZE:
		return cli_parse_size(kv, "compare", "size", val, val,
				      &o->size);
	case CMP_KW_SIZES:
		return cli_parse_sizes(kv, "compare", val, &o->size,
				       &o->size_max, &o->sizes_all);
	case CMP_KW_ROUNDS:
		return cmp_number(kv, "rounds", val, 1, CMP_ROUNDS_MAX,
				  &o->rounds);
	case CMP_KW_ITERS:
		return cmp_number(kv, "iters", val, 1, UINT32_MAX,
				  &o->iterations);
	case CMP_KW_POLL:
		return cli_parse_name(kv, "compare", "poll mode", fmt_poll.names,
				      fmt_poll.count, val, &o->poll);
	case CMP_KW_INLINE:
		return cmp_number(kv, "inline", val, 0, UINT32_MAX,
				  &o->inline_size);
	case CMP_KW_PLOT:
		if (!ends_with(val, ".svg") && !ends_with(val, ".png"))
			return kvperf_usage(kv, "compare",
					    "plot '%s': the file name must end in .svg or .png",
					    val);
		o->plot = val;
		return KVPERF_EXIT_OK;
	case CMP_KW_TX_DEPTH:
		return cmp_number(kv, "tx-depth", val, 1, UPATH_TX_DEPTH_MAX,
				  &o->tx_depth);
	case CMP_KW_QPS:
		return cmp_number(kv, "qps", val, 1, UPATH_QPS_MAX, &o->qps);
	case CMP_KW_SIGNAL_EVERY:
		/* at most tx-depth, so bounded by its maximum */
		return cmp_number(kv, "signal-every", val, 1,
				  UPATH_TX_DEPTH_MAX, &o->signal_every);
	case CMP_KW_POST_CONTEXT:
		return cli_parse_name(kv, "compare", "post-context",
				      cmp_post_names, CMP_POSTS, val,
				      &o->post_context);
	case CMP_KW_TIMEOUT:
		return cli_parse_run_ranged(kv, "compare", "timeout",
					    KVPERF_A_RUN_TIMEOUT_MS, val, NULL,
					    &o->timeout_ms);
	case CMP_KW_NO_PERFTEST:
	case CMP_KW_REMOTE:
	case CMP_KW_COUNT:
		break;
	}
	return KVPERF_EXIT_OK;
}

/* The tx-depth the kvperf runs of a compare bw take. */
static int cmp_kw_value(struct kvperf *kv, int kw, const char *val,
			void *arg)
{
	return cmp_value(kv, kw, val, arg);
}

static uint32_t cmp_tx_depth(const struct cmp_opts *o)
{
	return cmp_opt(o, CMP_KW_TX_DEPTH) ? o->tx_depth :
					     UPATH_DEFAULT_TX_DEPTH;
}

/**
 * cmp_parse() - the arguments of "compare lat" or "compare bw"
 * @kv: the invocation
 * @a: the words after "lat" or "bw"
 * @type: KVPERF_RUN_TYPE_LAT or KVPERF_RUN_TYPE_BW
 * @o: filled in: what was given, and the defaults (port 18515, 5 rounds,
 *     poll busy, size 2 for lat and 64K for bw)
 *
 * Return: KVPERF_EXIT_OK, or KVPERF_EXIT_USAGE after reporting.
 */
int cmp_parse(struct kvperf *kv, struct args *a, uint8_t type,
	      struct cmp_opts *o)
{
	static const int exclusive[][2] = {
		{ CMP_KW_SIZE, CMP_KW_SIZES },
		{ -1, -1 },
	};
	const struct cli_keywords k = {
		.obj = "compare", .names = cmp_keywords, .count = CMP_KW_COUNT,
		.flags = CMP_KW_FLAGS,
		.refused = type == KVPERF_RUN_TYPE_BW ? 0 : CMP_KW_BW_ONLY,
		.refused_fmt = "'%s' is only for compare bw",
		.exclusive = exclusive, .value = cmp_kw_value,
	};
	int ret;

	memset(o, 0, sizeof(*o));
	o->type = type;
	o->port = CMP_PORT_DEFAULT;
	o->rounds = CMP_ROUNDS_DEFAULT;
	o->poll = KVPERF_POLL_BUSY;
	/* the sizes kvperf run and perftest default to */
	o->size = type == KVPERF_RUN_TYPE_BW ? KVPERF_BW_SIZE_DEFAULT :
					       KVPERF_SIZE_DEFAULT;
	ret = cli_parse_keywords(kv, a, &k, &o->given, o);
	if (ret)
		return ret;
	if (!cmp_opt(o, CMP_KW_OP))
		return kvperf_usage(kv, "compare",
				    "missing op (send, write or read)");
	if (!cmp_opt(o, CMP_KW_ADDR))
		return kvperf_usage(kv, "compare", "missing addr");
	if (type == KVPERF_RUN_TYPE_BW && cmp_signal_every(o) > cmp_tx_depth(o))
		return kvperf_usage(kv, "compare",
				    "signal-every is larger than tx-depth");
	if (!cmp_opt(o, CMP_KW_SIZES))
		o->size_max = o->size;
	return KVPERF_EXIT_OK;
}

/* compare io's own keywords, given in full among run io's */
enum cmp_io_kw {
	CMP_IO_KW_ROUNDS,
	CMP_IO_KW_REMOTE,
	CMP_IO_KWS
};

/*
 * Take compare io's own words (rounds R, remote) out of @a, the rest
 * into @rest (room for all of @a), in order.
 */
static int cmp_io_split(struct kvperf *kv, struct args *a, struct args *rest,
			struct cmp_opts *o)
{
	const char *w;

	while ((w = args_next(a))) {
		if (!strcmp(w, "remote")) {
			if (cmp_opt(o, CMP_KW_REMOTE))
				return kvperf_usage(kv, "compare",
						    "'remote' given twice");
			o->given |= CMP_KW_BIT(CMP_KW_REMOTE);
			continue;
		}
		if (strcmp(w, "rounds")) {
			rest->argv[rest->argc++] = (char *)w;
			continue;
		}
		if (cmp_opt(o, CMP_KW_ROUNDS))
			return kvperf_usage(kv, "compare",
					    "'rounds' given twice");
		w = args_next(a);
		if (!w)
			return kvperf_usage(kv, "compare",
					    "missing value after 'rounds'");
		if (cmp_number(kv, "rounds", w, 1, CMP_ROUNDS_MAX, &o->rounds))
			return KVPERF_EXIT_USAGE;
		o->given |= CMP_KW_BIT(CMP_KW_ROUNDS);
	}
	return KVPERF_EXIT_OK;
}

/**
 * cmp_io_cfg() - the run io of a compare io's column
 * @cfg: receives it
 * @o: from cmp_parse_io()
 * @path: CMP_KERNEL, CMP_USER (the user host) or CMP_USER_TARGET
 *
 * The kernel and user-target columns run the kernel host with what was
 * given, against the kernel target on PORT and the user target on
 * PORT+1; the user host runs against the kernel target with the same,
 * less reg and inv: it has no FRWR and registers each block once, at
 * connect (reg pre).
 */
void cmp_io_cfg(struct kv_run_cfg *cfg, const struct cmp_opts *o,
		enum cmp_path path)
{
	*cfg = o->io;
	if (path == CMP_USER_TARGET)
		run_model_set_uint(&run_cfg_fields, cfg, KVPERF_A_RUN_PORT,
				   o->port + 1);
	if (path == CMP_USER)
		cfg->has &= ~(1ULL << KVPERF_A_RUN_REG |
			      1ULL << KVPERF_A_RUN_INV);
}

/**
 * cmp_parse_io() - the arguments of "compare io"
 * @kv: the invocation
 * @a: the words after "io"
 * @o: filled in: rounds (default 5), remote, and in @o->io the run io
 *     the words make, parsed and checked by "run io"'s parser
 *
 * Every word but rounds R and remote (given in full) is run io's; of
 * those, path, no-wait, interval, key, key-file and bss are refused:
 * compare runs both paths, waits, prints no live lines, starts its
 * servers, and measures one block size.
 *
 * Return: KVPERF_EXIT_OK, or KVPERF_EXIT_USAGE after reporting.
 */
int cmp_parse_io(struct kvperf *kv, struct args *a, struct cmp_opts *o)
{
	static const enum run_kw refused[] = {
		RUN_KW_PATH, RUN_KW_NO_WAIT, RUN_KW_INTERVAL, RUN_KW_KEY,
		RUN_KW_KEY_FILE, RUN_KW_BSS,
	};
	static const char *const refused_names[] = {
		"path", "no-wait", "interval", "key", "key-file", "bss",
	};
	struct args rest = { 0 };
	struct kv_run_cfg user;
	char **words;
	char why[RUN_CFG_WHY_LEN];
	struct run_opts ro;
	size_t i;
	int ret, attr;

	memset(o, 0, sizeof(*o));
	o->type = KVPERF_RUN_TYPE_IO;
	o->rounds = CMP_ROUNDS_DEFAULT;
	/* run_parse() moves rest.argv along: @words is what to free */
	words = calloc(a->argc + 1, sizeof(*words));
	if (!words) {
		kvperf_errorf(kv, "out of memory");
		return KVPERF_EXIT_ERROR;
	}
	rest.argv = words;
	ret = cmp_io_split(kv, a, &rest, o);
	if (!ret)
		ret = run_parse(kv, &rest, KVPERF_RUN_TYPE_IO, &ro);
	free(words);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(refused); i++)
		if (run_opt(&ro, refused[i]))
			return kvperf_usage(kv, "compare",
					    "'%s' does not apply to compare io",
					    refused_names[i]);
	o->io = ro.cfg;
	o->op = o->io.op;
	o->port = o->io.port;
	if (o->port > 65535 - 1)
		return kvperf_usage(kv, "compare",
				    "invalid port '%u' (1 to 65534: PORT+1 is the user target's)",
				    o->port);
	memcpy(o->addr_bin, o->io.addr, o->io.addr_len);
	o->addr_len = o->io.addr_len;
	inet_ntop(o->addr_len == 16 ? AF_INET6 : AF_INET, o->addr_bin,
		  o->addr_text, sizeof(o->addr_text));
	o->addr = o->addr_text;
	o->poll = KV_HAS(&o->io, KVPERF_A_RUN_POLL) ? o->io.poll :
						      KVPERF_POLL_BUSY;
	o->size = KV_HAS(&o->io, KVPERF_A_RUN_SIZE) ? o->io.size :
						      KVPERF_IO_BS_DEFAULT;
	o->size_max = o->size;
	if (KV_HAS(&o->io, KVPERF_A_RUN_ITERATIONS)) {
		o->iterations = o->io.iterations;
		o->given |= CMP_KW_BIT(CMP_KW_ITERS);
	}
	/* the user host's run: what the user path refuses, said now */
	cmp_io_cfg(&user, o, CMP_USER);
	if (run_cfg_check(&user, RUN_PATH_USER, &attr, why, sizeof(why)))
		return kvperf_usage(kv, "compare", "the user host: %s", why);
	return KVPERF_EXIT_OK;
}

/**
 * cmp_signal_every() - the signal-every both kvperf paths use, for
 *			perftest's -Q
 * @o: from cmp_parse()
 *
 * Return: 0 for latency; the given signal-every, or the default the
 * kvperf runs take for the compare's tx-depth.
 */
uint32_t cmp_signal_every(const struct cmp_opts *o)
{
	if (o->type != KVPERF_RUN_TYPE_BW)
		return 0;
	if (cmp_opt(o, CMP_KW_SIGNAL_EVERY))
		return o->signal_every;
	return upath_default_signal_every(cmp_tx_depth(o));
}

/**
 * cmp_sizes() - the message sizes a compare measures, as kvperf runs do
 * @o: from cmp_parse()
 * @sizes: receives them: the first, doubled while not above the last
 * @max: room in @sizes
 *
 * Return: how many.
 */
size_t cmp_sizes(const struct cmp_opts *o, uint32_t *sizes, size_t max)
{
	uint64_t s;
	size_t n = 0;

	for (s = o->size; s <= o->size_max && n < max; s *= 2)
		sizes[n++] = s;
	return n;
}

/* The post context of a kernel column, when it is given. */
static bool cmp_post_context(const struct cmp_opts *o, enum cmp_path path,
			     uint8_t *ctx)
{
	if (path == CMP_KERNEL_BH)
		*ctx = KVPERF_POST_CONTEXT_BH;
	else if (path == CMP_KERNEL && cmp_opt(o, CMP_KW_POST_CONTEXT))
		*ctx = o->post_context == CMP_POST_BH ?
		       KVPERF_POST_CONTEXT_BH : KVPERF_POST_CONTEXT_PROCESS;
	else
		return false;
	return true;
}

/**
 * cmp_run_cfg() - the configuration of one kvperf measurement
 * @cfg: receives it
 * @o: the compare
 * @path: CMP_KERNEL, CMP_KERNEL_BH or CMP_USER
 *
 * The type, op, address, port, size (with size_max for sizes), the poll
 * mode, and iterations, inline, tx-depth, qps and signal-every when
 * given: the size and poll mode always, so that every column measures
 * the same; the user path on PORT+1, where its own server listens. The
 * kernel column takes post-context when given (process for both), the
 * kernel-bh column bh; the user path none. A timeout given goes to every
 * column's runs.
 */
void cmp_run_cfg(struct kv_run_cfg *cfg, const struct cmp_opts *o,
		 enum cmp_path path)
{
	const struct kv_fields *f = &run_cfg_fields;
	uint8_t ctx;

	run_cfg_init(cfg, o->type);
	run_model_set_uint(f, cfg, KVPERF_A_RUN_OP, o->op);
	memcpy(cfg->addr, o->addr_bin, o->addr_len);
	cfg->addr_len = o->addr_len;
	KV_SET(cfg, KVPERF_A_RUN_ADDR);
	run_model_set_uint(f, cfg, KVPERF_A_RUN_PORT,
			   o->port + (path == CMP_USER ? 1 : 0));
	run_model_set_uint(f, cfg, KVPERF_A_RUN_SIZE, o->size);
	if (o->sizes_all || cmp_opt(o, CMP_KW_SIZES))
		run_model_set_uint(f, cfg, KVPERF_A_RUN_SIZE_MAX, o->size_max);
	if (cmp_opt(o, CMP_KW_ITERS))
		run_model_set_uint(f, cfg, KVPERF_A_RUN_ITERATIONS,
				   o->iterations);
	run_model_set_uint(f, cfg, KVPERF_A_RUN_POLL, o->poll);
	if (cmp_opt(o, CMP_KW_INLINE))
		run_model_set_uint(f, cfg, KVPERF_A_RUN_INLINE, o->inline_size);
	if (cmp_opt(o, CMP_KW_TX_DEPTH))
		run_model_set_uint(f, cfg, KVPERF_A_RUN_TX_DEPTH, o->tx_depth);
	if (cmp_opt(o, CMP_KW_QPS))
		run_model_set_uint(f, cfg, KVPERF_A_RUN_QPS, o->qps);
	if (cmp_opt(o, CMP_KW_SIGNAL_EVERY))
		run_model_set_uint(f, cfg, KVPERF_A_RUN_SIGNAL_EVERY,
				   o->signal_every);
	if (cmp_post_context(o, path, &ctx))
		run_model_set_uint(f, cfg, KVPERF_A_RUN_POST_CONTEXT, ctx);
	if (cmp_opt(o, CMP_KW_TIMEOUT))
		run_model_set_uint(f, cfg, KVPERF_A_RUN_TIMEOUT_MS,
				   o->timeout_ms);
}

/**
 * cmp_result_init() - an empty result: a row per size, NAN everywhere
 * @r: the result
 * @o: the compare
 *
 * Return: 0, or -ENOMEM.
 */
int cmp_result_init(struct cmp_result *r, const struct cmp_opts *o)
{
	uint32_t sizes[CMP_SIZES_MAX];
	size_t i, j, k, p;

	memset(r, 0, sizeof(*r));
	r->type = o->type;
	r->op = o->op;
	r->poll = o->poll;
	r->post_context = o->post_context;
	r->rounds = o->rounds;
	if (cmp_opt(o, CMP_KW_ITERS))
		r->iterations = o->iterations;
	if (o->type == KVPERF_RUN_TYPE_IO) {
		bool mix = KV_HAS(&o->io, KVPERF_A_RUN_READ_PCT);

		/* a row per direction: reads, then writes, as run io prints */
		r->io = o->io;
		r->count = mix ? 2 : 1;
		for (i = 0; i < r->count; i++) {
			r->rows[i].size = o->size;
			r->rows[i].op = mix && i ? KVPERF_OP_WRITE : o->op;
		}
	} else {
		r->count = cmp_sizes(o, sizes, CMP_SIZES_MAX);
		for (i = 0; i < r->count; i++)
			r->rows[i].size = sizes[i];
	}
	for (i = 0; i < r->count; i++) {
		for (p = 0; p < CMP_PATHS; p++) {
			struct cmp_cell *c = &r->rows[i].cell[p];

			c->value = calloc(o->rounds, sizeof(*c->value));
			c->points = calloc(o->rounds, sizeof(*c->points));
			c->share = calloc(o->rounds, sizeof(*c->share));
			if (!c->value || !c->points || !c->share) {
				cmp_result_free(r);
				return -ENOMEM;
			}
			for (j = 0; j < o->rounds; j++) {
				c->value[j] = NAN;
				c->share[j] = NAN;
				for (k = 0; k < CMP_PTS; k++)
					c->points[j][k] = NAN;
			}
		}
	}
	return 0;
}

/** cmp_result_free() - free what cmp_result_init() allocated */
void cmp_result_free(struct cmp_result *r)
{
	size_t i, p;

	for (i = 0; i < r->count; i++) {
		for (p = 0; p < CMP_PATHS; p++) {
			free(r->rows[i].cell[p].value);
			free(r->rows[i].cell[p].points);
			free(r->rows[i].cell[p].share);
			free(r->rows[i].cell[p].why);
			r->rows[i].cell[p].value = NULL;
			r->rows[i].cell[p].points = NULL;
			r->rows[i].cell[p].share = NULL;
			r->rows[i].cell[p].why = NULL;
		}
	}
	r->count = 0;
}

/** cmp_row_find() - the row of a message size, or NULL */
struct cmp_row *cmp_row_find(struct cmp_result *r, uint32_t size)
{
	size_t i;

	for (i = 0; i < r->count; i++)
		if (r->rows[i].size == size)
			return &r->rows[i];
	return NULL;
}

/**
 * cmp_cell_fail() - a round of a cell failed
 * @r: the result the cell is in
 * @c: the cell
 * @round: the round
 * @why: the reason, kept (cut to CMP_WHY_LEN); NULL for none
 *
 * The round's value is dropped and the round counts as failed, once: a
 * second call for the same round replaces its reason only.
 */
void cmp_cell_fail(const struct cmp_result *r, struct cmp_cell *c,
		   uint32_t round, const char *why)
{
	bool again;

	if (round >= r->rounds)
		return;
	again = c->why && c->why[round][0];
	c->value[round] = NAN;
	if (!c->why)
		c->why = calloc(r->rounds, sizeof(*c->why));
	if (c->why)
		snprintf(c->why[round], sizeof(c->why[round]), "%s",
			 why && *why ? why : "no reason given");
	if (!again)
		c->failed++;
}

/**
 * cmp_cell_why() - why a round of a cell failed
 * @c: the cell
 * @round: the round, below the result's rounds
 *
 * Return: the reason, or NULL when the round did not fail (or its
 * reason could not be kept).
 */
const char *cmp_cell_why(const struct cmp_cell *c, uint32_t round)
{
	return c->why && c->why[round][0] ? c->why[round] : NULL;
}

/**
 * cmp_failures() - how many measurements failed
 * @r: the result
 * @total: receives how many there are, a round of a cell of an active
 *	   column each; may be NULL
 *
 * Return: the rounds of the cells of active columns that failed.
 */
unsigned int cmp_failures(const struct cmp_result *r, unsigned int *total)
{
	unsigned int n = 0, all = 0;
	size_t i, k;

	for (i = 0; i < r->count; i++)
		for (k = 0; k < CMP_PATHS; k++) {
			if (!r->active[k])
				continue;
			all += r->rounds;
			n += r->rows[i].cell[k].failed;
		}
	if (total)
		*total = all;
	return n;
}

/**
 * cmp_exit_status() - the exit status of a compare that printed @r
 * @r: the result
 *
 * Return: KVPERF_EXIT_ERROR when a measurement failed, else
 * KVPERF_EXIT_OK.
 */
int cmp_exit_status(const struct cmp_result *r)
{
	return cmp_failures(r, NULL) ? KVPERF_EXIT_ERROR : KVPERF_EXIT_OK;
}

/**
 * cmp_run_results() - how many results a kvperf run holds
 * @r: the result it is for, of its type
 * @run: the run
 *
 * Return: its bandwidth results for bw, its latency results else.
 */
uint32_t cmp_run_results(const struct cmp_result *r, const struct kv_run *run)
{
	return r->type == KVPERF_RUN_TYPE_BW ? run->nbw : run->nlat;
}

/**
 * cmp_read_failed_run() - what a kvperf run that ended early measured
 * @r: the result to fill in
 * @path: the column
 * @round: the round
 * @from: the row of the run's first size
 * @run: the run, failed or stopped, with the results of the sizes it
 *	 completed; NULL when it was read already, or has nothing to read
 *
 * A run measures its sizes in order, so it failed at the first size
 * from @from it has no value for. A result that cannot be read is
 * passed over: the run's own reason is the one to give.
 *
 * Return: the row of that size, or r->count when every size from @from
 * has a value.
 */
size_t cmp_read_failed_run(struct cmp_result *r, enum cmp_path path,
			   uint32_t round, size_t from, const struct kv_run *run)
{
	if (run && cmp_run_results(r, run))
		cmp_read_run(r, path, round, run, NULL, 0);
	while (from < r->count && !isnan(r->rows[from].cell[path].value[round]))
		from++;
	return from;
}

/**
 * cmp_not_tried() - sizes of a path a round does not measure
 * @r: the result
 * @path: the column
 * @round: the round
 * @from: the row of the first of them; the rest follow
 * @why: why not; their reason
 */
void cmp_not_tried(struct cmp_result *r, enum cmp_path path, uint32_t round,
		   size_t from, const char *why)
{
	for (; from < r->count; from++)
		cmp_cell_fail(r, &r->rows[from].cell[path], round, why);
}

/**
 * cmp_size_failed() - a kvperf run of a path failed at a size: what next
 * @r: the result
 * @path: the column
 * @round: the round
 * @at: the row of the size it failed at
 * @in_a_row: the run started right after the size before @at failed, and
 *	      failed at its first size
 * @why: the run's reason
 *
 * The size fails with @why. The sizes after it do not depend on it: a
 * new run measures them, from the next size on. When two sizes in a row
 * failed, the cause is not a size (a peer, a device or a path gone):
 * the sizes left are not tried in this round and fail, saying so.
 *
 * Return: the row the next run starts at; r->count when none is to run.
 */
size_t cmp_size_failed(struct cmp_result *r, enum cmp_path path,
		       uint32_t round, size_t at, bool in_a_row,
		       const char *why)
{
	char note[CMP_WHY_LEN];

	cmp_cell_fail(r, &r->rows[at].cell[path], round, why);
	if (!in_a_row || !at || at + 1 >= r->count)
		return at + 1;
	snprintf(note, sizeof(note), "not tried: %u B and %u B failed before it",
		 r->rows[at - 1].size, r->rows[at].size);
	cmp_not_tried(r, path, round, at + 1, note);
	return r->count;
}

/**
 * cmp_summarize() - median, minimum and maximum over the rounds
 * @v: a value per round; NAN for rounds without one
 * @n: how many rounds
 * @s: receives the summary; NAN when no round has a value
 *
 * The median of an even count is the mean of the middle two;
 * @s->median_round is then the round of the lower one.
 *
 * Return: the number of rounds with a value.
 */
size_t cmp_summarize(const double *v, size_t n, struct cmp_summary *s)
{
	size_t idx[CMP_ROUNDS_MAX], m = 0, i, j, t;

	*s = (struct cmp_summary){ .median = NAN, .min = NAN, .max = NAN };
	for (i = 0; i < n && i < CMP_ROUNDS_MAX; i++)
		if (!isnan(v[i]))
			idx[m++] = i;
	if (!m)
		return 0;
	/* insertion sort of the round numbers by value; stable */
	for (i = 1; i < m; i++)
		for (j = i; j > 0 && v[idx[j - 1]] > v[idx[j]]; j--) {
			t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	s->n = m;
	s->min = v[idx[0]];
	s->max = v[idx[m - 1]];
	s->median_round = idx[(m - 1) / 2];
	if (m % 2)
		s->median = v[idx[m / 2]];
	else
		s->median = (v[idx[m / 2 - 1]] + v[idx[m / 2]]) / 2;
	return m;
}

/** cmp_ratio() - @a / @b, or NAN when either is missing or @b is not > 0 */
double cmp_ratio(double a, double b)
{
	if (isnan(a) || isnan(b) || b <= 0)
		return NAN;
	return a / b;
}

static void cmp_err(char *err, size_t len, const char *msg, const char *what)
{
	if (err && len)
		snprintf(err, len, "%s%s%s", msg, what ? ": " : "",
			 what ? what : "");
}

/* A latency field in usec, NAN when the run did not report it. */
static double cmp_ns_to_us(const struct kv_lat_result *res, int attr)
{
	if (!KV_HAS(res, attr))
		return NAN;
	return run_model_uint(&run_model_lat_fields, res, attr) / 1000.0;
}

/* A latency result's distribution in usec; -EINVAL without its p50. */
static int cmp_read_lat_points(double *points,
			       const struct kv_lat_result *res)
{
	static const int attrs[CMP_PTS] = {
		[CMP_PT_MIN] = KVPERF_A_RESULT_MIN_NS,
		[CMP_PT_P50] = KVPERF_A_RESULT_P50_NS,
		[CMP_PT_P90] = KVPERF_A_RESULT_P90_NS,
		[CMP_PT_P99] = KVPERF_A_RESULT_P99_NS,
		[CMP_PT_P999] = KVPERF_A_RESULT_P999_NS,
		[CMP_PT_MAX] = KVPERF_A_RESULT_MAX_NS,
	};
	int k;

	for (k = 0; k < CMP_PTS; k++)
		points[k] = cmp_ns_to_us(res, attrs[k]);
	return isnan(points[CMP_PT_P50]) ? -EINVAL : 0;
}

/* One latency result of a run into its row. */
static int cmp_read_lat(struct cmp_result *r, enum cmp_path path,
			uint32_t round, const struct kv_lat_result *res)
{
	struct cmp_row *row;
	struct cmp_cell *c;

	if (!KV_HAS(res, KVPERF_A_RESULT_SIZE))
		return -EINVAL;
	row = cmp_row_find(r, res->size);
	if (!row)
		return 0;
	c = &row->cell[path];
	if (cmp_read_lat_points(c->points[round], res))
		return -EINVAL;
	c->value[round] = c->points[round][CMP_PT_P50];
	return 1;
}

/* One bandwidth result of a run into its row: its average MiB/s. */
static int cmp_read_bw(struct cmp_result *r, enum cmp_path path,
		       uint32_t round, const struct kv_bw_result *res)
{
	struct cmp_row *row;

	if (!KV_HAS(res, KVPERF_A_BW_RESULT_SIZE))
		return -EINVAL;
	row = cmp_row_find(r, res->size);
	if (!row)
		return 0;
	if (!KV_HAS(res, KVPERF_A_BW_RESULT_BYTES) ||
	    !KV_HAS(res, KVPERF_A_BW_RESULT_ELAPSED_NS) || !res->elapsed_ns)
		return -EINVAL;
	row->cell[path].value[round] = (double)res->bytes * 1e9 /
				       (double)res->elapsed_ns / 1048576.0;
	return 1;
}

/*
 * One direction of an I/O run into its row: IOPS, the completion
 * latency's distribution, and registration and invalidation as a share
 * of the summed latencies (NAN with stats off, which sums none).
 */
static int cmp_read_io(struct cmp_result *r, enum cmp_path path,
		       uint32_t round, const struct kv_run *run,
		       const struct kv_lat_result *res)
{
	uint8_t op = KV_HAS(res, KVPERF_A_RESULT_OP) ? res->op : run->op;
	struct cmp_cell *c = NULL;
	double lat_ns;
	size_t i;

	for (i = 0; i < r->count && !c; i++)
		if (r->rows[i].op == op && KV_HAS(res, KVPERF_A_RESULT_SIZE) &&
		    r->rows[i].size == res->size)
			c = &r->rows[i].cell[path];
	if (!c)
		return -EINVAL;
	if (!KV_HAS(res, KVPERF_A_RESULT_ITERATIONS) ||
	    !KV_HAS(res, KVPERF_A_RESULT_ELAPSED_NS) || !res->elapsed_ns)
		return -EINVAL;
	c->value[round] = (double)res->iterations * 1e9 /
			  (double)res->elapsed_ns;
	/* with stats off there is no distribution: only IOPS */
	cmp_read_lat_points(c->points[round], res);
	/* stats off times no registration: no share, rather than 0 */
	if (KV_HAS(&r->io, KVPERF_A_RUN_STATS) &&
	    r->io.stats == KVPERF_STATS_MODE_OFF)
		return 1;
	lat_ns = KV_HAS(res, KVPERF_A_RESULT_MEAN_PS) ?
		 (double)res->mean_ps / 1000.0 * (double)res->iterations : 0;
	if (lat_ns > 0)
		c->share[round] = (double)(res->reg_ns + res->inv_ns) * 100.0 /
				  lat_ns;
	return 1;
}

/**
 * cmp_read_run() - the results of one kvperf measurement
 * @r: the result to fill in
 * @path: the column
 * @round: the round
 * @run: the run, of either path, once it ended
 * @err: receives why it could not be read
 * @errlen: the size of @err
 *
 * Latency: each size's p50 (and its distribution: min, p50, p90, p99,
 * p99.9, max, NAN where not reported) in usec; bandwidth: the average
 * MiB/s, bytes over elapsed time. A run's device fills in the
 * environment's when it is not known yet. Sizes the compare does not
 * measure are passed over.
 *
 * Return: the number of sizes read, or -EINVAL.
 */
int cmp_read_run(struct cmp_result *r, enum cmp_path path, uint32_t round,
		 const struct kv_run *run, char *err, size_t errlen)
{
	bool bw = r->type == KVPERF_RUN_TYPE_BW;
	uint32_t i, count = bw ? run->nbw : run->nlat;
	int n = 0, ret;

	if (!KV_HAS(run, KVPERF_A_RUN_TYPE) || run->type != r->type) {
		cmp_err(err, errlen, "the run's output is not of this type",
			NULL);
		return -EINVAL;
	}
	if (!r->env.dev[0] && KV_HAS(run, KVPERF_A_RUN_DEV))
		snprintf(r->env.dev, sizeof(r->env.dev), "%s", run->dev);
	for (i = 0; i < count; i++) {
		if (r->type == KVPERF_RUN_TYPE_IO)
			ret = cmp_read_io(r, path, round, run, &run->lat[i]);
		else if (bw)
			ret = cmp_read_bw(r, path, round, &run->bw[i]);
		else
			ret = cmp_read_lat(r, path, round, &run->lat[i]);
		if (ret < 0) {
			cmp_err(err, errlen, "a result without its numbers",
				NULL);
			return ret;
		}
		n += ret;
	}
	if (!n) {
		cmp_err(err, errlen, "the run has no results", NULL);
		return -EINVAL;
	}
	return n;
}

/**
 * cmp_read_perftest() - the results of one perftest measurement
 * @r: the result to fill in, column CMP_PERFTEST
 * @round: the round
 * @out: what the perftest client printed
 * @err: receives why it could not be read
 * @errlen: the size of @err
 *
 * Latency: t_typical (perftest's median) and the distribution from
 * t_min, the percentiles and t_max (perftest has no p90); bandwidth: BW
 * average.
 *
 * Return: the number of sizes read, or -EINVAL.
 */
int cmp_read_perftest(struct cmp_result *r, uint32_t round, const char *out,
		      char *err, size_t errlen)
{
	struct perftest_lat lat[CMP_SIZES_MAX];
	struct perftest_bw bw[CMP_SIZES_MAX];
	struct cmp_row *row;
	double *pt, v;
	int n, i, found = 0;

	if (r->type == KVPERF_RUN_TYPE_BW)
		n = perftest_parse_bw(out, bw, CMP_SIZES_MAX);
	else
		n = perftest_parse_lat(out, lat, CMP_SIZES_MAX);
	if (n < 0) {
		cmp_err(err, errlen, "no table in perftest's output", NULL);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		row = cmp_row_find(r, r->type == KVPERF_RUN_TYPE_BW ?
				   bw[i].size : lat[i].size);
		if (!row)
			continue;
		/*
		 * Nothing measured is a failure, not a number to compare: a
		 * row of zeros, or "inf" when perftest's clock calibration
		 * came out as 0 MHz (seen under TCG).
		 */
		v = r->type == KVPERF_RUN_TYPE_BW ? bw[i].bw_avg :
						    lat[i].t_typical;
		if (!(v > 0) || !isfinite(v)) {
			cmp_err(err, errlen, "perftest reports nothing measured",
				NULL);
			return -EINVAL;
		}
		found++;
		if (r->type == KVPERF_RUN_TYPE_BW) {
			row->cell[CMP_PERFTEST].value[round] =
				perftest_bw_avg(&bw[i]);
			continue;
		}
		pt = row->cell[CMP_PERFTEST].points[round];
		pt[CMP_PT_MIN] = lat[i].t_min;
		pt[CMP_PT_P50] = lat[i].t_typical;
		pt[CMP_PT_P90] = NAN;
		pt[CMP_PT_P99] = lat[i].p99;
		pt[CMP_PT_P999] = lat[i].p999;
		pt[CMP_PT_MAX] = lat[i].t_max;
		row->cell[CMP_PERFTEST].value[round] = lat[i].t_typical;
	}
	if (!found) {
		cmp_err(err, errlen, "perftest's table has none of the sizes",
			NULL);
		return -EINVAL;
	}
	return found;
}

/**
 * cmp_env_is_tcg() - does this run in a QEMU guest without acceleration?
 * @cpu_model: "model name" of /proc/cpuinfo ("QEMU TCG CPU version 2.5+")
 * @sys_vendor: /sys/class/dmi/id/sys_vendor, or ""
 * @clocksources: available_clocksource, which a KVM guest has kvm-clock in
 *
 * Return: true when the CPU says TCG, or the machine is QEMU's and has no
 * kvm-clock.
 */
bool cmp_env_is_tcg(const char *cpu_model, const char *sys_vendor,
		    const char *clocksources)
{
	if (strstr(cpu_model, "QEMU TCG"))
		return true;
	return !strncmp(sys_vendor, "QEMU", 4) &&
	       !strstr(clocksources, "kvm-clock");
}

/*
 * Numbers: usec to the ns, MiB/s to two decimals in the table and four in
 * JSON (where a 2-byte message's bandwidth is a few hundredths and a
 * benchmark compares runs to 1 %), ratios to three.
 */
static const char *cmp_fmt(char *buf, size_t len, double v,
			   unsigned int decimals)
{
	snprintf(buf, len, "%.*f", decimals, v);
	return buf;
}

static unsigned int cmp_decimals(const struct cmp_result *r)
{
	return r->type == KVPERF_RUN_TYPE_BW ? 2 : 3;
}

static void cmp_json_num(struct json_writer *jw, double v,
			 unsigned int decimals)
{
	char buf[64];

	if (isnan(v) || isinf(v))
		json_null(jw);
	else
		json_number(jw, cmp_fmt(buf, sizeof(buf), v, decimals));
}

static void cmp_json_key_num(struct json_writer *jw, const char *key,
			     double v, unsigned int decimals)
{
	json_key(jw, key);
	cmp_json_num(jw, v, decimals);
}

static void cmp_json_cell(struct json_writer *jw, const struct cmp_result *r,
			  const struct cmp_cell *c)
{
	unsigned int d = r->type == KVPERF_RUN_TYPE_BW ? 4 : cmp_decimals(r);
	/* the points of an I/O run are latencies in usec, as lat's */
	unsigned int dp = r->type == KVPERF_RUN_TYPE_IO ? 3 : d;
	struct cmp_summary s;
	size_t i, k;

	cmp_summarize(c->value, r->rounds, &s);
	json_obj_open(jw);
	cmp_json_key_num(jw, "median", s.median, d);
	cmp_json_key_num(jw, "min", s.min, d);
	cmp_json_key_num(jw, "max", s.max, d);
	json_key(jw, "values");
	json_arr_open(jw);
	for (i = 0; i < r->rounds; i++)
		cmp_json_num(jw, c->value[i], d);
	json_arr_close(jw);
	json_key(jw, "failed");
	json_u64(jw, c->failed);
	json_key(jw, "failures");
	json_arr_open(jw);
	for (i = 0; i < r->rounds; i++) {
		if (!cmp_cell_why(c, i))
			continue;
		json_obj_open(jw);
		json_key(jw, "round");
		json_u64(jw, i);
		json_key(jw, "error");
		json_str(jw, cmp_cell_why(c, i));
		json_obj_close(jw);
	}
	json_arr_close(jw);
	if (r->type == KVPERF_RUN_TYPE_IO) {
		json_key(jw, "reg_inv_pct");
		json_arr_open(jw);
		for (i = 0; i < r->rounds; i++)
			cmp_json_num(jw, c->share[i], 3);
		json_arr_close(jw);
	}
	if (r->type != KVPERF_RUN_TYPE_BW) {
		json_key(jw, "median_round");
		if (s.n)
			json_u64(jw, s.median_round);
		else
			json_null(jw);
		json_key(jw, "points");
		json_arr_open(jw);
		for (i = 0; i < r->rounds; i++) {
			json_obj_open(jw);
			for (k = 0; k < CMP_PTS; k++)
				cmp_json_key_num(jw, cmp_point_names[k],
						 c->points[i][k], dp);
			json_obj_close(jw);
		}
		json_arr_close(jw);
	}
	json_obj_close(jw);
}

static double cmp_median(const struct cmp_result *r, const struct cmp_row *row,
			 enum cmp_path path)
{
	struct cmp_summary s;

	if (!r->active[path])
		return NAN;
	cmp_summarize(row->cell[path].value, r->rounds, &s);
	return s.median;
}

/* The run io's number @attr, or @def when not given. */
static uint32_t cmp_io_num(const struct cmp_result *r, int attr, uint32_t def)
{
	return KV_HAS(&r->io, attr) ?
	       (uint32_t)run_model_uint(&run_cfg_fields, &r->io, attr) : def;
}

static const char *cmp_type_name(uint8_t type)
{
	if (type == KVPERF_RUN_TYPE_IO)
		return "io";
	return type == KVPERF_RUN_TYPE_BW ? "bw" : "lat";
}

/* A statistic of each round (a point, or the share) over the rounds. */
static void cmp_io_point(const struct cmp_result *r, const struct cmp_cell *c,
			 int point, struct cmp_summary *s)
{
	double v[CMP_ROUNDS_MAX];
	size_t i;

	for (i = 0; i < r->rounds && i < CMP_ROUNDS_MAX; i++)
		v[i] = point < 0 ? c->share[i] : c->points[i][point];
	cmp_summarize(v, r->rounds, s);
}

static double cmp_io_median(const struct cmp_result *r,
			    const struct cmp_row *row, enum cmp_path path,
			    int point)
{
	struct cmp_summary s;

	if (!r->active[path])
		return NAN;
	cmp_io_point(r, &row->cell[path], point, &s);
	return s.median;
}

/* compare io's settings in its JSON: the run io, defaults filled in */
static void cmp_json_io(struct json_writer *jw, const struct cmp_result *r)
{
	json_key(jw, "rw");
	json_str(jw, run_cfg_rw_name(&r->io));
	if (KV_HAS(&r->io, KVPERF_A_RUN_READ_PCT)) {
		json_key(jw, "read_pct");
		json_u64(jw, r->io.read_pct);
	}
	json_key(jw, "bs");
	json_u64(jw, cmp_io_num(r, KVPERF_A_RUN_SIZE, KVPERF_IO_BS_DEFAULT));
	json_key(jw, "qd");
	json_u64(jw, cmp_io_num(r, KVPERF_A_RUN_QD, KVPERF_IO_QD_DEFAULT));
	json_key(jw, "queues");
	json_u64(jw, cmp_io_num(r, KVPERF_A_RUN_QPS, 1));
	json_key(jw, "segments");
	json_u64(jw, cmp_io_num(r, KVPERF_A_RUN_SEGMENTS, 1));
	json_key(jw, "reg");
	json_str(jw, fmt_name(&fmt_io_reg, cmp_io_num(r, KVPERF_A_RUN_REG,
						      KVPERF_IO_REG_FRWR)));
	json_key(jw, "inv");
	json_str(jw, fmt_name(&fmt_io_inv, cmp_io_num(r, KVPERF_A_RUN_INV,
						      KVPERF_IO_INV_REMOTE)));
	json_key(jw, "inline_data");
	json_u64(jw, cmp_io_num(r, KVPERF_A_RUN_INLINE_DATA, 0));
	json_key(jw, "user_host_reg");
	json_str(jw, fmt_name(&fmt_io_reg, KVPERF_IO_REG_PRE));
}

/*
 * A compare io's ratios of the medians: kernel over each user column, of
 * the IOPS (above 1: the kernel side is faster) and of the p50 and p99
 * completion latency (below 1: it is faster).
 */
static void cmp_json_io_ratios(struct json_writer *jw,
			       const struct cmp_result *r,
			       const struct cmp_row *row)
{
	static const enum cmp_path cols[] = { CMP_USER, CMP_USER_TARGET };
	static const char *const keys[][3] = {
		{ "kernel_user_host_ratio", "kernel_user_host_p50_ratio",
		  "kernel_user_host_p99_ratio" },
		{ "kernel_user_target_ratio", "kernel_user_target_p50_ratio",
		  "kernel_user_target_p99_ratio" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cols); i++) {
		cmp_json_key_num(jw, keys[i][0],
				 cmp_ratio(cmp_median(r, row, CMP_KERNEL),
					   cmp_median(r, row, cols[i])), 3);
		cmp_json_key_num(jw, keys[i][1],
				 cmp_ratio(cmp_io_median(r, row, CMP_KERNEL,
							 CMP_PT_P50),
					   cmp_io_median(r, row, cols[i],
							 CMP_PT_P50)), 3);
		cmp_json_key_num(jw, keys[i][2],
				 cmp_ratio(cmp_io_median(r, row, CMP_KERNEL,
							 CMP_PT_P99),
					   cmp_io_median(r, row, cols[i],
							 CMP_PT_P99)), 3);
	}
}

static void cmp_print_json(struct printer *p, const struct cmp_result *r)
{
	struct json_writer *jw = &p->jw;
	const struct cmp_row *row;
	size_t i, k;

	json_obj_open(jw);
	json_key(jw, "compare");
	json_str(jw, cmp_type_name(r->type));
	if (r->type == KVPERF_RUN_TYPE_IO) {
		cmp_json_io(jw, r);
	} else {
		json_key(jw, "op");
		json_str(jw, fmt_name(&fmt_op, r->op));
	}
	json_key(jw, "rounds");
	json_u64(jw, r->rounds);
	json_key(jw, "poll");
	json_str(jw, fmt_name(&fmt_poll, r->poll));
	if (r->type != KVPERF_RUN_TYPE_IO) {
		json_key(jw, "post_context");
		json_str(jw, cmp_post_names[r->post_context]);
	}
	if (r->iterations) {
		json_key(jw, "iterations");
		json_u64(jw, r->iterations);
	}
	json_key(jw, "unit");
	json_str(jw, r->type == KVPERF_RUN_TYPE_IO ? "IOPS" :
		 r->type == KVPERF_RUN_TYPE_BW ? "MiB/s" : "usec");
	json_key(jw, "paths");
	json_arr_open(jw);
	for (k = 0; k < CMP_PATHS; k++)
		if (r->active[k])
			json_str(jw, cmp_col_name(r->type, k));
	json_arr_close(jw);
	if (r->perftest_note) {
		json_key(jw, "perftest_note");
		json_str(jw, r->perftest_note);
	}
	if (r->active[CMP_PERFTEST]) {
		json_key(jw, "perftest_events");
		json_bool(jw, r->perftest_events);
	}
	json_key(jw, "env");
	json_obj_open(jw);
	json_key(jw, "kernel");
	json_str(jw, r->env.kernel);
	json_key(jw, "dev");
	if (r->env.dev[0])
		json_str(jw, r->env.dev);
	else
		json_null(jw);
	json_key(jw, "cpu");
	json_str(jw, r->env.cpu);
	json_key(jw, "tcg");
	json_bool(jw, r->env.tcg);
	json_key(jw, "perftest");
	if (r->env.perftest[0])
		json_str(jw, r->env.perftest);
	else
		json_null(jw);
	json_obj_close(jw);
	json_key(jw, "rows");
	json_arr_open(jw);
	for (i = 0; i < r->count; i++) {
		row = &r->rows[i];
		json_obj_open(jw);
		json_key(jw, "size");
		json_u64(jw, row->size);
		if (r->type == KVPERF_RUN_TYPE_IO) {
			json_key(jw, "rw");
			json_str(jw, fmt_name(&fmt_op, row->op));
		}
		for (k = 0; k < CMP_PATHS; k++) {
			if (!cmp_path_of_type(r->type, k))
				continue;
			json_key(jw, cmp_col_name(r->type, k));
			if (r->active[k])
				cmp_json_cell(jw, r, &row->cell[k]);
			else
				json_null(jw);
		}
		if (r->type == KVPERF_RUN_TYPE_IO) {
			cmp_json_io_ratios(jw, r, row);
			json_obj_close(jw);
			continue;
		}
		cmp_json_key_num(jw, "kernel_user_ratio",
				 cmp_ratio(cmp_median(r, row, CMP_KERNEL),
					   cmp_median(r, row, CMP_USER)), 3);
		cmp_json_key_num(jw, "kernel_perftest_ratio",
				 cmp_ratio(cmp_median(r, row, CMP_KERNEL),
					   cmp_median(r, row, CMP_PERFTEST)),
				 3);
		json_obj_close(jw);
	}
	json_arr_close(jw);
	json_obj_close(jw);
}

/*
 * The notes under a table: a line per reason a cell's rounds failed (the
 * rounds that failed alike on one line), numbered in the order of the
 * rows and the columns. A cell names its notes: [2], or [2-3].
 */
struct cmp_notes {
	unsigned int first[CMP_SIZES_MAX][CMP_PATHS];
	unsigned int count[CMP_SIZES_MAX][CMP_PATHS];
};

/* Is @round the first round of @c that failed for its reason? */
static bool cmp_why_first(const struct cmp_cell *c, uint32_t round)
{
	const char *why = cmp_cell_why(c, round);
	uint32_t j;

	if (!why)
		return false;
	for (j = 0; j < round; j++)
		if (cmp_cell_why(c, j) && !strcmp(cmp_cell_why(c, j), why))
			return false;
	return true;
}

static void cmp_notes_build(const struct cmp_result *r, struct cmp_notes *n)
{
	unsigned int next = 1, cnt;
	const struct cmp_cell *c;
	size_t i, k;
	uint32_t j;

	memset(n, 0, sizeof(*n));
	for (i = 0; i < r->count; i++)
		for (k = 0; k < CMP_PATHS; k++) {
			if (!r->active[k])
				continue;
			c = &r->rows[i].cell[k];
			cnt = 0;
			for (j = 0; j < r->rounds; j++)
				cnt += cmp_why_first(c, j);
			/* failed, its reasons not kept (out of memory) */
			if (c->failed && !cnt)
				cnt = 1;
			if (!cnt)
				continue;
			n->first[i][k] = next;
			n->count[i][k] = cnt;
			next += cnt;
		}
}

/* " [2]" or " [2-3]": the notes of a cell; "" when it has none */
static const char *cmp_mark(char *buf, size_t len, const struct cmp_notes *n,
			    size_t row, size_t path)
{
	unsigned int first = n->first[row][path], cnt = n->count[row][path];

	if (!cnt)
		snprintf(buf, len, "%s", "");
	else if (cnt == 1)
		snprintf(buf, len, " [%u]", first);
	else
		snprintf(buf, len, " [%u-%u]", first, first + cnt - 1);
	return buf;
}

/*
 * "# [1] kernel, 1048576 B, round 1: no completion within the timeout"
 * per note; a compare io names the direction (its rows) instead.
 */
static void cmp_print_notes(FILE *f, const struct cmp_result *r,
			    const struct cmp_notes *n)
{
	unsigned int num;
	const struct cmp_cell *c;
	const char *why;
	char where[64];
	size_t i, k;
	uint32_t j, m, rounds;

	for (i = 0; i < r->count; i++)
		for (k = 0; k < CMP_PATHS; k++) {
			if (!n->count[i][k])
				continue;
			c = &r->rows[i].cell[k];
			num = n->first[i][k];
			if (r->type == KVPERF_RUN_TYPE_IO)
				snprintf(where, sizeof(where), "%s, %s",
					 cmp_col_name(r->type, k),
					 fmt_name(&fmt_op, r->rows[i].op));
			else
				snprintf(where, sizeof(where), "%s, %u B",
					 cmp_col_name(r->type, k),
					 r->rows[i].size);
			for (j = 0; j < r->rounds; j++) {
				if (!cmp_why_first(c, j))
					continue;
				why = cmp_cell_why(c, j);
				for (rounds = 0, m = j; m < r->rounds; m++)
					rounds += cmp_cell_why(c, m) &&
						  !strcmp(cmp_cell_why(c, m), why);
				fprintf(f, "# [%u] %s, round%s %u", num++, where,
					rounds > 1 ? "s" : "", j + 1);
				for (m = j + 1; m < r->rounds; m++)
					if (cmp_cell_why(c, m) &&
					    !strcmp(cmp_cell_why(c, m), why))
						fprintf(f, ", %u", m + 1);
				fprintf(f, ": %s\n", why);
			}
			if (num == n->first[i][k])
				fprintf(f, "# [%u] %s: %u of %u rounds failed (no reason kept)\n",
					num, where, c->failed, r->rounds);
		}
}

/*
 * "14.20 (13.90-15.10)" and the cell's notes; "failed [1]" when no round
 * has a value and one failed, "-" when none did either.
 */
static const char *cmp_cell_text(char *buf, size_t len,
				 const struct cmp_result *r,
				 const struct cmp_cell *c, const char *mark)
{
	struct cmp_summary s;

	if (cmp_summarize(c->value, r->rounds, &s))
		snprintf(buf, len, "%.2f (%.2f-%.2f)%s", s.median, s.min,
			 s.max, mark);
	else if (c->failed)
		snprintf(buf, len, "failed%s", mark);
	else
		snprintf(buf, len, "-");
	return buf;
}

static const char *cmp_ratio_text(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", v);
	return buf;
}

static void cmp_print_sizes(FILE *f, const struct cmp_result *r)
{
	if (r->count == 1)
		fprintf(f, "%u B", r->rows[0].size);
	else if (r->count > 1)
		fprintf(f, "sizes %u-%u", r->rows[0].size,
			r->rows[r->count - 1].size);
}

static void cmp_print_text(FILE *f, const struct cmp_result *r)
{
	const char *unit = r->type == KVPERF_RUN_TYPE_BW ? "MiB/sec" : "usec";
	bool perftest = r->active[CMP_PERFTEST];
	char head[32], buf[80], mark[24];
	const struct cmp_row *row;
	struct cmp_notes n;
	size_t i, k;

	cmp_notes_build(r, &n);
	fprintf(f, "# compare %s %s, ",
		r->type == KVPERF_RUN_TYPE_BW ? "bw" : "lat",
		fmt_name(&fmt_op, r->op));
	cmp_print_sizes(f, r);
	fprintf(f, ", %u round%s, poll %s", r->rounds, r->rounds == 1 ? "" : "s",
		fmt_name(&fmt_poll, r->poll));
	if (r->post_context != CMP_POST_PROCESS)
		fprintf(f, ", post-context %s", cmp_post_names[r->post_context]);
	if (r->iterations)
		fprintf(f, ", iters %u", r->iterations);
	if (r->env.dev[0])
		fprintf(f, ", dev %s", r->env.dev);
	fprintf(f, ", kernel %s%s\n", r->env.kernel, r->env.tcg ? " (TCG)" : "");
	fprintf(f, "# cpu %s; perftest %s%s\n", r->env.cpu[0] ? r->env.cpu : "?",
		perftest ? r->env.perftest :
		(r->perftest_note ? r->perftest_note : "off"),
		!perftest ? "" : r->perftest_events ? ", events (-e)" :
		r->poll == KVPERF_POLL_BUSY ? ", polling" :
		", polling (-e is not for write)");
	fprintf(f, "# median (min-max) over the rounds of %s\n",
		r->type == KVPERF_RUN_TYPE_BW ? "the average bandwidth" :
		"the p50 latency (perftest: t_typical)");

	fprintf(f, " %-10s", "#bytes");
	for (k = 0; k < CMP_PATHS; k++) {
		if (!r->active[k])
			continue;
		snprintf(head, sizeof(head), "%s[%s]", cmp_path_names[k], unit);
		fprintf(f, " %-26s", head);
	}
	/* no trailing blanks: the last column is not padded */
	if (perftest)
		fprintf(f, " %-13s %s\n", "kernel/user", "kernel/perftest");
	else
		fprintf(f, " %s\n", "kernel/user");

	for (i = 0; i < r->count; i++) {
		row = &r->rows[i];
		fprintf(f, " %-10u", row->size);
		for (k = 0; k < CMP_PATHS; k++)
			if (r->active[k])
				fprintf(f, " %-26s",
					cmp_cell_text(buf, sizeof(buf), r,
						      &row->cell[k],
						      cmp_mark(mark, sizeof(mark),
							       &n, i, k)));
		fprintf(f, perftest ? " %-13s" : " %s",
			cmp_ratio_text(buf, sizeof(buf),
				       cmp_ratio(cmp_median(r, row, CMP_KERNEL),
						 cmp_median(r, row, CMP_USER))));
		if (perftest)
			fprintf(f, " %s", cmp_ratio_text(buf, sizeof(buf),
				cmp_ratio(cmp_median(r, row, CMP_KERNEL),
					  cmp_median(r, row, CMP_PERFTEST))));
		fputc('\n', f);
	}
	cmp_print_notes(f, r, &n);
}

/*
 * "1234.56 (1200.00-1300.00)" of a statistic over the rounds and the
 * cell's notes; "failed [1]" when no round has a value and one failed,
 * else "-" when none has the statistic.
 */
static const char *cmp_io_cell_text(char *buf, size_t len,
				    const struct cmp_result *r,
				    const struct cmp_cell *c, int point,
				    const char *mark)
{
	struct cmp_summary s;

	if (point == CMP_PTS)
		cmp_summarize(c->value, r->rounds, &s);
	else
		cmp_io_point(r, c, point, &s);
	if (s.n)
		snprintf(buf, len, "%.2f (%.2f-%.2f)%s", s.median, s.min,
			 s.max, mark);
	else if (c->failed && !cmp_summarize(c->value, r->rounds, &s))
		snprintf(buf, len, "failed%s", mark);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* One block of a compare io's table: IOPS (CMP_PTS), a point, the share. */
static void cmp_print_io_block(FILE *f, const struct cmp_result *r,
			       const struct cmp_notes *n, int point,
			       const char *unit)
{
	static const enum cmp_path ratio_cols[] = { CMP_USER, CMP_USER_TARGET };
	char head[48], buf[80], mark[24];
	const struct cmp_row *row;
	size_t i, k, last = 0;

	for (k = 0; k < CMP_PATHS; k++)
		if (r->active[k])
			last = k;
	fprintf(f, " %-10s", "#rw");
	for (k = 0; k < CMP_PATHS; k++) {
		if (!r->active[k])
			continue;
		snprintf(head, sizeof(head), "%s[%s]", cmp_col_name(r->type, k),
			 unit);
		fprintf(f, point < 0 && k == last ? " %s" : " %-28s", head);
	}
	if (point < 0) {
		fputc('\n', f);
	} else {
		fprintf(f, " %-18s %s\n", "kernel/user-host",
			"kernel/user-target");
	}
	for (i = 0; i < r->count; i++) {
		row = &r->rows[i];
		fprintf(f, " %-10s", fmt_name(&fmt_op, row->op));
		/* no trailing blanks: a last column is not padded */
		for (k = 0; k < CMP_PATHS; k++)
			if (r->active[k])
				fprintf(f, point < 0 && k == last ? " %s" :
					" %-28s",
					cmp_io_cell_text(buf, sizeof(buf), r,
							 &row->cell[k], point,
							 cmp_mark(mark,
								  sizeof(mark),
								  n, i, k)));
		for (k = 0; point >= 0 && k < ARRAY_SIZE(ratio_cols); k++) {
			double v = point == CMP_PTS ?
				   cmp_ratio(cmp_median(r, row, CMP_KERNEL),
					     cmp_median(r, row, ratio_cols[k])) :
				   cmp_ratio(cmp_io_median(r, row, CMP_KERNEL,
							   point),
					     cmp_io_median(r, row, ratio_cols[k],
							   point));

			fprintf(f, k ? " %s" : " %-18s",
				cmp_ratio_text(buf, sizeof(buf), v));
		}
		fputc('\n', f);
	}
}

static void cmp_print_io_text(FILE *f, const struct cmp_result *r)
{
	struct cmp_notes n;

	cmp_notes_build(r, &n);
	fprintf(f, "# compare io %s", run_cfg_rw_name(&r->io));
	if (KV_HAS(&r->io, KVPERF_A_RUN_READ_PCT))
		fprintf(f, " %u", r->io.read_pct);
	fprintf(f, ", bs %u, qd %u, queues %u, segments %u, reg %s, inv %s",
		cmp_io_num(r, KVPERF_A_RUN_SIZE, KVPERF_IO_BS_DEFAULT),
		cmp_io_num(r, KVPERF_A_RUN_QD, KVPERF_IO_QD_DEFAULT),
		cmp_io_num(r, KVPERF_A_RUN_QPS, 1),
		cmp_io_num(r, KVPERF_A_RUN_SEGMENTS, 1),
		fmt_name(&fmt_io_reg, cmp_io_num(r, KVPERF_A_RUN_REG,
						 KVPERF_IO_REG_FRWR)),
		fmt_name(&fmt_io_inv, cmp_io_num(r, KVPERF_A_RUN_INV,
						 KVPERF_IO_INV_REMOTE)));
	if (KV_HAS(&r->io, KVPERF_A_RUN_INLINE_DATA))
		fprintf(f, ", inline-data %u", r->io.inline_data);
	fprintf(f, ", %u round%s, poll %s", r->rounds, r->rounds == 1 ? "" : "s",
		fmt_name(&fmt_poll, r->poll));
	if (r->iterations)
		fprintf(f, ", iters %u", r->iterations);
	if (r->env.dev[0])
		fprintf(f, ", dev %s", r->env.dev);
	fprintf(f, ", kernel %s%s\n", r->env.kernel, r->env.tcg ? " (TCG)" : "");
	fprintf(f, "# cpu %s\n", r->env.cpu[0] ? r->env.cpu : "?");
	fprintf(f, "# kernel: kernel host, kernel target; user-host: user host (reg pre: no FRWR in user space), kernel target; user-target: kernel host, user target\n");
	fprintf(f, "# median (min-max) over the rounds of IOPS, then of the p50 and the p99 completion latency\n");
	cmp_print_io_block(f, r, &n, CMP_PTS, "IOPS");
	cmp_print_io_block(f, r, &n, CMP_PT_P50, "p50 usec");
	cmp_print_io_block(f, r, &n, CMP_PT_P99, "p99 usec");
	fprintf(f, "# registration and invalidation, %% of the summed completion latency\n");
	cmp_print_io_block(f, r, &n, -1, "reg+inv %");
	cmp_print_notes(f, r, &n);
}

/**
 * cmp_print() - the comparison, as a table or JSON
 * @p: the printer
 * @r: the result
 *
 * Text: a header with the environment, then per size each column's
 * median over the rounds with the min-max spread, and the kernel/user
 * and kernel/perftest ratios of the medians; a cell with rounds that
 * failed names its notes, printed under the table: the column, the size,
 * the rounds and the reason. JSON: everything, with each round's value
 * and, for latency, each round's distribution, and each cell's failures.
 */
void cmp_print(struct printer *p, const struct cmp_result *r)
{
	if (p->json)
		cmp_print_json(p, r);
	else if (r->type == KVPERF_RUN_TYPE_IO)
		cmp_print_io_text(p->f, r);
	else
		cmp_print_text(p->f, r);
	pr_finish(p);
}
