// SPDX-License-Identifier: GPL-2.0
/*
 * A run's configuration: where each attribute of a run-start request
 * lives in struct kv_run_cfg, and the request built from it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "attrs.h"
#include "compiler.h"
#include "parse.h"
#include "run_cfg.h"

#define KV_CFG(kind, member)						\
	{ kind, sizeof(((struct kv_run_cfg *)0)->member),		\
	  offsetof(struct kv_run_cfg, member) }

_Static_assert(offsetof(struct kv_run_cfg, addr_len) ==
	       offsetof(struct kv_run_cfg, addr) + 16, "addr_len after addr");

static const struct kv_field cfg_fields[KVPERF_A_RUN_MAX + 1] = {
	[KVPERF_A_RUN_TYPE]		= KV_CFG(KV_FIELD_UINT, type),
	[KVPERF_A_RUN_OP]		= KV_CFG(KV_FIELD_UINT, op),
	[KVPERF_A_RUN_ADDR]		= KV_CFG(KV_FIELD_ADDR, addr),
	[KVPERF_A_RUN_PORT]		= KV_CFG(KV_FIELD_UINT, port),
	[KVPERF_A_RUN_SIZE]		= KV_CFG(KV_FIELD_UINT, size),
	[KVPERF_A_RUN_SIZE_MAX]		= KV_CFG(KV_FIELD_UINT, size_max),
	[KVPERF_A_RUN_ITERATIONS]	= KV_CFG(KV_FIELD_UINT, iterations),
	[KVPERF_A_RUN_DURATION_MS]	= KV_CFG(KV_FIELD_UINT, duration_ms),
	[KVPERF_A_RUN_WARMUP]		= KV_CFG(KV_FIELD_UINT, warmup),
	[KVPERF_A_RUN_WARMUP_MS]	= KV_CFG(KV_FIELD_UINT, warmup_ms),
	[KVPERF_A_RUN_POLL]		= KV_CFG(KV_FIELD_UINT, poll),
	[KVPERF_A_RUN_INLINE]		= KV_CFG(KV_FIELD_UINT, inline_size),
	[KVPERF_A_RUN_VERIFY]		= KV_CFG(KV_FIELD_FLAG, verify),
	[KVPERF_A_RUN_CPU]		= KV_CFG(KV_FIELD_UINT, cpu),
	[KVPERF_A_RUN_TIMEOUT_MS]	= KV_CFG(KV_FIELD_UINT, timeout_ms),
	[KVPERF_A_RUN_TX_DEPTH]		= KV_CFG(KV_FIELD_UINT, tx_depth),
	[KVPERF_A_RUN_QPS]		= KV_CFG(KV_FIELD_UINT, qps),
	[KVPERF_A_RUN_CPUS]		= KV_CFG(KV_FIELD_STRING, cpus),
	[KVPERF_A_RUN_POST_LIST]	= KV_CFG(KV_FIELD_UINT, post_list),
	[KVPERF_A_RUN_SIGNAL_EVERY]	= KV_CFG(KV_FIELD_UINT, signal_every),
	[KVPERF_A_RUN_BIDIR]		= KV_CFG(KV_FIELD_FLAG, bidir),
	[KVPERF_A_RUN_INTERVAL_MS]	= KV_CFG(KV_FIELD_UINT, interval_ms),
	[KVPERF_A_RUN_STATS]		= KV_CFG(KV_FIELD_UINT, stats),
	[KVPERF_A_RUN_POST_CONTEXT]	= KV_CFG(KV_FIELD_UINT, post_context),
	[KVPERF_A_RUN_QD]		= KV_CFG(KV_FIELD_UINT, qd),
	[KVPERF_A_RUN_INV]		= KV_CFG(KV_FIELD_UINT, inv),
	[KVPERF_A_RUN_SEGMENTS]		= KV_CFG(KV_FIELD_UINT, segments),
	[KVPERF_A_RUN_READ_PCT]		= KV_CFG(KV_FIELD_UINT, read_pct),
	[KVPERF_A_RUN_INLINE_DATA]	= KV_CFG(KV_FIELD_UINT, inline_data),
	[KVPERF_A_RUN_BSS]		= KV_CFG(KV_FIELD_UINT, bss),
	[KVPERF_A_RUN_REG]		= KV_CFG(KV_FIELD_UINT, reg),
};

const struct kv_fields run_cfg_fields = { cfg_fields, KVPERF_A_RUN_MAX };

/**
 * run_cfg_init() - an empty configuration
 * @cfg: set to a run of @type to the default port, nothing else given
 * @type: enum kvperf_run_type
 */
void run_cfg_init(struct kv_run_cfg *cfg, uint8_t type)
{
	memset(cfg, 0, sizeof(*cfg));
	run_model_set_uint(&run_cfg_fields, cfg, KVPERF_A_RUN_TYPE, type);
	run_model_set_uint(&run_cfg_fields, cfg, KVPERF_A_RUN_PORT,
			   KVPERF_DEFAULT_PORT);
}

static int put_field(struct nl_msg *msg, const struct kv_run_cfg *cfg,
		     int attr)
{
	const struct kv_field *f = &cfg_fields[attr];
	const char *p = (const char *)cfg + f->offset;
	uint64_t v;

	switch (f->kind) {
	case KV_FIELD_FLAG:
		return *(const bool *)p ? nla_put_flag(msg, attr) : 0;
	case KV_FIELD_STRING:
		return nla_put_string(msg, attr, p);
	case KV_FIELD_ADDR:
		return nla_put(msg, attr, cfg->addr_len, cfg->addr);
	case KV_FIELD_UINT:
		v = run_model_uint(&run_cfg_fields, cfg, attr);
		if (f->size == 1)
			return nla_put_u8(msg, attr, v);
		if (f->size == 2)
			return nla_put_u16(msg, attr, v);
		return nla_put_u32(msg, attr, v);
	default:
		return 0;
	}
}

/**
 * run_cfg_put() - the attributes of a KVPERF_CMD_RUN_START request
 * @msg: the request
 * @cfg: the configuration
 *
 * Exactly the attributes given, so that the kernel's defaults apply to
 * the others; the key when given.
 *
 * Return: 0, or -ENOMEM.
 */
int run_cfg_put(struct nl_msg *msg, const struct kv_run_cfg *cfg)
{
	int attr;

	for (attr = 1; attr <= KVPERF_A_RUN_MAX; attr++) {
		if (!KV_HAS(cfg, attr))
			continue;
		if (attr == KVPERF_A_RUN_KEY) {
			if (nla_put(msg, attr, sizeof(cfg->key), cfg->key) < 0)
				return -ENOMEM;
		} else if (put_field(msg, cfg, attr) < 0) {
			return -ENOMEM;
		}
	}
	return 0;
}

/**
 * run_cfg_clear() - forget the key
 * @cfg: the configuration, its key zeroed where the compiler cannot skip it
 */
void run_cfg_clear(struct kv_run_cfg *cfg)
{
	explicit_bzero(cfg->key, sizeof(cfg->key));
}

/**
 * run_io_nsizes() - block sizes an I/O run measures
 * @bss: its sweep, bit n for 2^n bytes; 0 when it has one size
 *
 * Return: how many, at least 1.
 */
uint32_t run_io_nsizes(uint32_t bss)
{
	return bss ? (uint32_t)__builtin_popcount(bss) : 1;
}

/**
 * run_io_size() - one block size of an I/O run, smallest first
 * @bss: its sweep, 0 when it has one size
 * @bs: its one size
 * @step: which, from 0
 *
 * Return: the size in bytes.
 */
uint32_t run_io_size(uint32_t bss, uint32_t bs, uint32_t step)
{
	while (bss && step--)
		bss &= bss - 1;
	return bss ? 1U << __builtin_ctz(bss) : bs;
}

/**
 * run_cfg_rw_name() - what an I/O run does, as fio names it
 * @cfg: the configuration
 *
 * Return: "randmix" with a read-pct, else "write" or "read"; NULL for
 * a run that is not an I/O run.
 */
const char *run_cfg_rw_name(const struct kv_run_cfg *cfg)
{
	if (cfg->type != KVPERF_RUN_TYPE_IO)
		return NULL;
	if (KV_HAS(cfg, KVPERF_A_RUN_READ_PCT))
		return "randmix";
	return cfg->op == KVPERF_OP_WRITE ? "write" : "read";
}

static const struct kv_range run_ranges[] = {
	{ KVPERF_A_RUN_SIZE, KVPERF_SIZE_MIN, KVPERF_SIZE_MAX, false },
	{ KVPERF_A_RUN_SIZE_MAX, KVPERF_SIZE_MIN, KVPERF_SIZE_MAX, false },
	{ KVPERF_A_RUN_ITERATIONS, 1, KVPERF_ITERATIONS_MAX, false },
	{ KVPERF_A_RUN_DURATION_MS, 1, KVPERF_DURATION_MS_MAX, true },
	{ KVPERF_A_RUN_WARMUP, 0, KVPERF_WARMUP_MAX, false },
	{ KVPERF_A_RUN_WARMUP_MS, 1, KVPERF_WARMUP_MS_MAX, true },
	{ KVPERF_A_RUN_INLINE, 0, KVPERF_INLINE_MAX, false },
	{ KVPERF_A_RUN_TIMEOUT_MS, KVPERF_TIMEOUT_MS_MIN,
	  KVPERF_TIMEOUT_MS_MAX, true },
	{ KVPERF_A_RUN_TX_DEPTH, 1, KVPERF_TX_DEPTH_MAX, false },
	{ KVPERF_A_RUN_QPS, 1, KVPERF_QPS_MAX, false },
	{ KVPERF_A_RUN_POST_LIST, 1, KVPERF_POST_LIST_MAX, false },
	{ KVPERF_A_RUN_SIGNAL_EVERY, 1, KVPERF_TX_DEPTH_MAX, false },
	{ KVPERF_A_RUN_INTERVAL_MS, KVPERF_INTERVAL_MS_MIN,
	  KVPERF_INTERVAL_MS_MAX, true },
	{ KVPERF_A_RUN_QD, KVPERF_IO_QD_MIN, KVPERF_IO_QD_MAX, false },
	{ KVPERF_A_RUN_SEGMENTS, KVPERF_IO_SEGMENTS_MIN, KVPERF_IO_SEGMENTS_MAX,
	  false },
	{ KVPERF_A_RUN_READ_PCT, KVPERF_IO_READ_PCT_MIN, KVPERF_IO_READ_PCT_MAX,
	  false },
	{ KVPERF_A_RUN_INLINE_DATA, 0, KVPERF_IO_INLINE_DATA_MAX, false },
	{ KVPERF_A_RUN_BSS, 0, KVPERF_IO_BSS_MASK, false },
};

/**
 * run_cfg_range() - the spec's range of a run's number
 * @attr: an attribute of the run set
 *
 * Return: its range, or NULL when the attribute has none.
 */
const struct kv_range *run_cfg_range(int attr)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(run_ranges); i++)
		if (run_ranges[i].attr == attr)
			return &run_ranges[i];
	return NULL;
}

/* The attributes only bandwidth runs take. */
static const uint8_t run_bw_only[] = {
	KVPERF_A_RUN_TX_DEPTH, KVPERF_A_RUN_QPS, KVPERF_A_RUN_CPUS,
	KVPERF_A_RUN_POST_LIST, KVPERF_A_RUN_SIGNAL_EVERY,
	KVPERF_A_RUN_BIDIR, KVPERF_A_RUN_INTERVAL_MS,
};

/* The attributes only I/O runs take. */
static const uint8_t run_io_only[] = {
	KVPERF_A_RUN_QD, KVPERF_A_RUN_INV, KVPERF_A_RUN_SEGMENTS,
	KVPERF_A_RUN_READ_PCT, KVPERF_A_RUN_REG, KVPERF_A_RUN_INLINE_DATA,
	KVPERF_A_RUN_BSS,
};

/* The attributes I/O runs refuse, besides the bandwidth runs' own. */
static const uint8_t run_io_refuses[] = {
	KVPERF_A_RUN_SIZE_MAX, KVPERF_A_RUN_INLINE,
};

/* What the module refuses of an I/O run's settings. */
static const char *run_cfg_check_io(const struct kv_run_cfg *cfg, int *attr)
{
	uint32_t bs = KV_HAS(cfg, KVPERF_A_RUN_SIZE) ? cfg->size :
		      KV_HAS(cfg, KVPERF_A_RUN_BSS) ?
		      run_io_size(cfg->bss, 0, 0) : KVPERF_IO_BS_DEFAULT;
	uint32_t segments = KV_HAS(cfg, KVPERF_A_RUN_SEGMENTS) ?
			    cfg->segments : 1;
	size_t i;

	for (i = 0; i < sizeof(run_io_refuses); i++) {
		*attr = run_io_refuses[i];
		if (KV_HAS(cfg, run_io_refuses[i]))
			return "that attribute does not apply to I/O runs";
	}
	*attr = KVPERF_A_RUN_OP;
	if (cfg->op == KVPERF_OP_SEND)
		return "an I/O run reads or writes: op read or write";
	*attr = KVPERF_A_RUN_BSS;
	if (KV_HAS(cfg, KVPERF_A_RUN_BSS) && KV_HAS(cfg, KVPERF_A_RUN_SIZE))
		return "bss and size exclude each other: a sweep names its block sizes";
	if (KV_HAS(cfg, KVPERF_A_RUN_BSS) &&
	    (!cfg->bss || (cfg->bss & ~KVPERF_IO_BSS_MASK)))
		return "a sweep's block sizes are powers of two from 512 B to 1 MiB";
	*attr = KVPERF_A_RUN_SIZE;
	if (bs < KVPERF_IO_BS_MIN || bs > KVPERF_IO_BS_MAX ||
	    bs % KVPERF_IO_BS_MIN)
		return "an I/O run's block size is a multiple of 512 from 512 B to 1 MiB";
	*attr = KVPERF_A_RUN_SEGMENTS;
	if (bs % (KVPERF_IO_BS_MIN * segments))
		return "the block does not split into that many segments of whole 512-byte units";
	*attr = KVPERF_A_RUN_READ_PCT;
	if (KV_HAS(cfg, KVPERF_A_RUN_READ_PCT) && cfg->op != KVPERF_OP_READ)
		return "read-pct mixes writes into a read run: it goes with op read";
	*attr = KVPERF_A_RUN_INV;
	if (KV_HAS(cfg, KVPERF_A_RUN_INV) && KV_HAS(cfg, KVPERF_A_RUN_REG) &&
	    cfg->reg == KVPERF_IO_REG_PRE)
		return "inv applies to reg frwr: a registration made at connect is never invalidated";
	*attr = KVPERF_A_RUN_INLINE_DATA;
	if (KV_HAS(cfg, KVPERF_A_RUN_INLINE_DATA) && cfg->inline_data &&
	    cfg->op == KVPERF_OP_READ && !KV_HAS(cfg, KVPERF_A_RUN_READ_PCT))
		return "inline-data carries writes: a read run has none";
	*attr = KVPERF_A_RUN_CPUS;
	if (KV_HAS(cfg, KVPERF_A_RUN_CPUS) && KV_HAS(cfg, KVPERF_A_RUN_CPU))
		return "cpu and cpus exclude each other";
	return NULL;
}

/* Attributes of one kind of run given to another: the first, and why. */
static const char *run_cfg_check_kind(const struct kv_run_cfg *cfg, int *attr)
{
	size_t i;

	for (i = 0; cfg->type != KVPERF_RUN_TYPE_BW && i < sizeof(run_bw_only);
	     i++) {
		/* an I/O run takes queue pairs, CPUs and an interval too */
		bool io_too = run_bw_only[i] == KVPERF_A_RUN_QPS ||
			      run_bw_only[i] == KVPERF_A_RUN_CPUS ||
			      run_bw_only[i] == KVPERF_A_RUN_INTERVAL_MS;

		*attr = run_bw_only[i];
		if (cfg->type == KVPERF_RUN_TYPE_IO && io_too)
			continue;
		if (KV_HAS(cfg, run_bw_only[i]))
			return io_too ?
			       "that attribute applies to bandwidth and I/O runs only" :
			       "that attribute applies to bandwidth runs only";
	}
	for (i = 0; cfg->type != KVPERF_RUN_TYPE_IO && i < sizeof(run_io_only);
	     i++) {
		*attr = run_io_only[i];
		if (KV_HAS(cfg, run_io_only[i]))
			return "that attribute applies to I/O runs only";
	}
	return NULL;
}

/* What the module refuses of a bandwidth run's settings together. */
static const char *run_cfg_check_bw(const struct kv_run_cfg *cfg, int *attr)
{
	uint32_t tx_depth = KV_HAS(cfg, KVPERF_A_RUN_TX_DEPTH) ?
			    cfg->tx_depth : KVPERF_TX_DEPTH_DEFAULT;

	*attr = KVPERF_A_RUN_POST_LIST;
	if (KV_HAS(cfg, KVPERF_A_RUN_POST_LIST) && cfg->post_list > tx_depth)
		return "post-list is larger than tx-depth";
	*attr = KVPERF_A_RUN_SIGNAL_EVERY;
	if (KV_HAS(cfg, KVPERF_A_RUN_SIGNAL_EVERY) &&
	    cfg->signal_every > tx_depth)
		return "signal-every is larger than tx-depth";
	*attr = KVPERF_A_RUN_VERIFY;
	if (cfg->verify && cfg->op == KVPERF_OP_READ)
		return "verify applies to send and write bandwidth only";
	*attr = KVPERF_A_RUN_STATS;
	if (KV_HAS(cfg, KVPERF_A_RUN_STATS) &&
	    cfg->stats == KVPERF_STATS_MODE_OFF)
		return "stats off applies to latency runs only: bandwidth runs take no per-iteration statistics";
	*attr = KVPERF_A_RUN_CPUS;
	if (KV_HAS(cfg, KVPERF_A_RUN_CPUS) && KV_HAS(cfg, KVPERF_A_RUN_CPU))
		return "cpu and cpus exclude each other";
	return NULL;
}

/* What the path that runs the loops cannot do. */
static const char *run_cfg_check_path(const struct kv_run_cfg *cfg,
				      uint8_t path, int *attr)
{
	/*
	 * no FRWR in user space: the user path registers each block once
	 * (reg pre, its default) ...
	 */
	*attr = KVPERF_A_RUN_REG;
	if (path == KV_RUN_PATH_USER && KV_HAS(cfg, KVPERF_A_RUN_REG) &&
	    cfg->reg == KVPERF_IO_REG_FRWR)
		return "the user path has no FRWR: it registers each block once, at connect (reg pre)";
	/* ... but binds memory windows, which are invalidated */
	*attr = KVPERF_A_RUN_INV;
	if (path == KV_RUN_PATH_USER && KV_HAS(cfg, KVPERF_A_RUN_INV) &&
	    !(KV_HAS(cfg, KVPERF_A_RUN_REG) && cfg->reg == KVPERF_IO_REG_MW))
		return "inv applies to reg mw on the user path: otherwise it registers each block once, at connect (reg pre)";
	/* memory windows are bound from user space */
	*attr = KVPERF_A_RUN_REG;
	if (path != KV_RUN_PATH_USER && KV_HAS(cfg, KVPERF_A_RUN_REG) &&
	    cfg->reg == KVPERF_IO_REG_MW)
		return "reg mw is the user path's: the kernel host registers with frwr or pre";
	*attr = KVPERF_A_RUN_POST_CONTEXT;
	if (path == KV_RUN_PATH_USER &&
	    KV_HAS(cfg, KVPERF_A_RUN_POST_CONTEXT) &&
	    cfg->post_context == KVPERF_POST_CONTEXT_BH)
		return "post-context bh applies to the kernel path only: the user path posts from its own thread";
	return NULL;
}

/**
 * run_cfg_check() - what the module would refuse, checked before any path
 * @cfg: the configuration
 * @path: enum kv_run_path: who is to run the loops
 * @attr: receives the attribute at fault
 * @why: receives why, in the module's words
 * @len: room in @why
 *
 * The spec's range of every number given, and the settings that exclude
 * each other, so that the same mistake gets the same answer on the
 * kernel path and the user path; and what only the kernel path does
 * (post-context bh). What only the host can judge (which CPUs are
 * online, whether a server answers) is left to the path.
 *
 * Return: 0, or -EINVAL with @attr and @why set.
 */
int run_cfg_check(const struct kv_run_cfg *cfg, uint8_t path, int *attr,
		  char *why, size_t len)
{
	char lo[PARSE_TIME_LEN], hi[PARSE_TIME_LEN];
	const struct kv_range *r;
	const char *msg = NULL;
	uint64_t v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(run_ranges); i++) {
		r = &run_ranges[i];
		if (!KV_HAS(cfg, r->attr))
			continue;
		v = run_model_uint(&run_cfg_fields, cfg, r->attr);
		if (v >= r->min && v <= r->max)
			continue;
		*attr = r->attr;
		if (r->time)
			snprintf(why, len, "%s is out of range (%s to %s)",
				 attrs_name(&attrs_run, r->attr),
				 fmt_time_ms(lo, sizeof(lo), r->min),
				 fmt_time_ms(hi, sizeof(hi), r->max));
		else
			snprintf(why, len, "%s is out of range (%u to %u)",
				 attrs_name(&attrs_run, r->attr), r->min,
				 r->max);
		return -EINVAL;
	}
	/* as the module: attributes of another kind of run first */
	msg = run_cfg_check_kind(cfg, attr);
	if (msg)
		goto out;
	if (KV_HAS(cfg, KVPERF_A_RUN_SIZE_MAX) && cfg->size_max < cfg->size) {
		*attr = KVPERF_A_RUN_SIZE_MAX;
		msg = "size-max is smaller than size";
	} else if (KV_HAS(cfg, KVPERF_A_RUN_INLINE) && cfg->inline_size &&
		   cfg->op == KVPERF_OP_READ) {
		*attr = KVPERF_A_RUN_INLINE;
		msg = "inline applies to send and write only";
	} else if (cfg->type == KVPERF_RUN_TYPE_BW) {
		msg = run_cfg_check_bw(cfg, attr);
	} else if (cfg->type == KVPERF_RUN_TYPE_IO) {
		msg = run_cfg_check_io(cfg, attr);
	}
	if (!msg)
		msg = run_cfg_check_path(cfg, path, attr);
out:
	if (!msg)
		return 0;
	snprintf(why, len, "%s", msg);
	return -EINVAL;
}
