/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model of a run's configuration: what a run-start asks for, typed,
 * whichever path runs it. The kernel path encodes it as a run-start
 * request (run_cfg_put()); the user-path engine takes it as it is.
 */
#ifndef KVPERF_RUN_CFG_H
#define KVPERF_RUN_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/kvperf.h>
#include <linux/kvperf_wire.h>

#include "run_model.h"

struct nl_msg;

/**
 * struct kv_run_cfg - what a run is asked to do
 * @has: bit per attribute of the run set given; the others take the
 *	 module's defaults
 *
 * The other fields are the run attribute set's, named as in the spec;
 * @key is the server's shared secret (KVPERF_A_RUN_KEY), never printed.
 */
struct kv_run_cfg {
	uint64_t has;
	uint8_t type;
	uint8_t op;
	uint8_t addr[16];
	uint8_t addr_len;
	uint16_t port;
	uint32_t size;
	uint32_t size_max;
	uint32_t iterations;
	uint32_t duration_ms;
	uint32_t warmup;
	uint32_t warmup_ms;
	uint8_t poll;
	uint32_t inline_size;
	bool verify;
	uint32_t cpu;
	uint32_t timeout_ms;
	uint32_t tx_depth;
	uint32_t qps;
	char cpus[KV_CPUS_LEN];
	uint32_t post_list;
	uint32_t signal_every;
	bool bidir;
	uint32_t interval_ms;
	uint8_t stats;
	uint8_t key[KVPERF_WIRE_KEY_LEN];
	uint8_t post_context;
	uint32_t qd;
	uint8_t inv;
	uint32_t segments;
	uint8_t read_pct;
	uint8_t reg;
	uint32_t inline_data;
	uint32_t bss;
};

extern const struct kv_fields run_cfg_fields;

/**
 * struct kv_range - the spec's range of a number
 * @attr: its attribute
 * @min: smallest value
 * @max: largest value
 * @time: a time in ms (written 10, 0.5, 2s or 500ms), not a count
 */
struct kv_range {
	int attr;
	uint32_t min;
	uint32_t max;
	bool time;
};

/* Room for run_cfg_check()'s reason. */
#define RUN_CFG_WHY_LEN	160

void run_cfg_init(struct kv_run_cfg *cfg, uint8_t type);
int run_cfg_put(struct nl_msg *msg, const struct kv_run_cfg *cfg);
void run_cfg_clear(struct kv_run_cfg *cfg);
const char *run_cfg_rw_name(const struct kv_run_cfg *cfg);
uint32_t run_io_nsizes(uint32_t bss);
uint32_t run_io_size(uint32_t bss, uint32_t bs, uint32_t step);
const struct kv_range *run_cfg_range(int attr);
int run_cfg_check(const struct kv_run_cfg *cfg, uint8_t path, int *attr,
		  char *why, size_t len);

#endif /* KVPERF_RUN_CFG_H */
