// SPDX-License-Identifier: GPL-2.0
/*
 * A run's configuration: where each attribute of a run-start request
 * lives in struct kv_run_cfg, and the request built from it.
 */
#include <errno.h>
#include <string.h>
#include <netlink/genl/genl.h>

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
