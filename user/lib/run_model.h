/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model of a run: its configuration, state and results as typed C
 * structures, whichever path ran it. The kernel path decodes the module's
 * replies and events into them (run_model_decode()); the user-path engine
 * fills them itself; the printers and compare read only them.
 *
 * A field's identity is the spec's attribute (of the run, result,
 * io-queue, bw-result or bw-qp set): @has has bit N set when attribute N's field holds
 * a value, so that what the kernel did not report stays distinguishable
 * from a zero.
 */
#ifndef KVPERF_RUN_MODEL_H
#define KVPERF_RUN_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/kvperf.h>
#include <linux/netlink.h>

/* Does @obj hold the field of attribute @attr? */
#define KV_HAS(obj, attr)	((((obj)->has) >> (attr)) & 1)
#define KV_SET(obj, attr)	((obj)->has |= 1ULL << (attr))

/* Longest strings the spec lets the kernel send, with their NUL. */
#define KV_DEV_LEN	64
#define KV_ERROR_LEN	256
#define KV_KERNEL_LEN	65
#define KV_CPUS_LEN	256

/* One queue of an I/O run, in one of its results (io-queue). */
struct kv_io_queue {
	uint64_t has;
	uint32_t index;
	int32_t cpu;
	uint64_t iterations;
	uint64_t elapsed_ns;
	uint64_t mismatches;
	uint64_t mean_ps;
	uint64_t min_ns;
	uint64_t p50_ns;
	uint64_t p99_ns;
	uint64_t max_ns;
	uint64_t cpu_ns;
	uint64_t target_cpu_ns;
};

/*
 * One message size of a latency run, or one direction of an I/O run (the
 * spec's result set); an I/O run's has its @nqueues queues.
 */
struct kv_lat_result {
	uint64_t has;
	uint32_t size;
	uint64_t iterations;
	uint64_t min_ns;
	uint64_t max_ns;
	uint64_t mean_ps;
	uint64_t stdev_ps;
	uint64_t p50_ns;
	uint64_t p90_ns;
	uint64_t p99_ns;
	uint64_t p999_ns;
	uint64_t p9999_ns;
	uint64_t mismatches;
	uint32_t hist_rel_err_ppm;
	uint64_t elapsed_ns;
	uint8_t op;
	uint64_t reg_ns;
	uint64_t inv_ns;
	uint64_t cpu_ns;
	uint64_t target_cpu_ns;
	uint32_t nqueues;
	struct kv_io_queue *queues;
};

/* One queue pair in one size of a bandwidth run (bw-qp). */
struct kv_bw_qp {
	uint64_t has;
	uint32_t index;
	int32_t cpu;
	uint64_t messages;
	uint64_t bytes;
	uint64_t elapsed_ns;
	uint64_t peer_messages;
};

/* One message size of a bandwidth run (bw-result). */
struct kv_bw_result {
	uint64_t has;
	uint32_t size;
	uint64_t messages;
	uint64_t bytes;
	uint64_t elapsed_ns;
	uint64_t peak_bps;
	uint64_t cpu_ns;
	uint64_t mismatches;
	uint64_t peer_messages;
	uint64_t rx_messages;
	uint64_t rx_bytes;
	uint64_t rx_elapsed_ns;
	uint32_t nqps;
	struct kv_bw_qp *qps;
};

/* Who ran a run's loops. */
enum kv_run_path {
	KV_RUN_PATH_KERNEL,
	KV_RUN_PATH_USER,
	KV_RUN_PATHS
};

/* "kernel", "user" */
extern const char *const kv_run_path_names[KV_RUN_PATHS];

/**
 * struct kv_run - a run, or a progress report of one
 * @has: bit per attribute of the run set whose field is set
 * @path: enum kv_run_path; not the kernel's to say, so always set
 *
 * The other fields are the run attribute set's, named as in the spec.
 * @lat and @bw are arrays of @nlat and @nbw results, owned by the run:
 * run_model_free() frees them.
 */
struct kv_run {
	uint64_t has;
	uint8_t path;
	uint32_t id;
	uint8_t type;
	uint8_t op;
	uint8_t addr[16];
	uint8_t addr_len;
	uint16_t port;
	char dev[KV_DEV_LEN];
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
	uint8_t state;
	char error[KV_ERROR_LEN];
	char kernel[KV_KERNEL_LEN];
	uint32_t mtu;
	uint64_t progress;
	uint32_t tx_depth;
	uint32_t qps;
	char cpus[KV_CPUS_LEN];
	uint32_t post_list;
	uint32_t signal_every;
	bool bidir;
	uint32_t interval_ms;
	uint64_t bytes;
	uint64_t interval_bytes;
	uint64_t interval_messages;
	uint64_t interval_ns;
	uint32_t cur_size;
	uint8_t stats;
	uint8_t post_context;
	uint32_t qd;
	uint8_t inv;
	uint32_t segments;
	uint8_t read_pct;
	uint8_t reg;
	uint32_t inline_data;
	uint32_t bss;
	uint32_t nlat;
	struct kv_lat_result *lat;
	uint32_t nbw;
	struct kv_bw_result *bw;
};

/* Where a field of a model structure is, by its attribute. */
enum kv_field_kind {
	KV_FIELD_NONE,		/* the attribute has no field */
	KV_FIELD_UINT,		/* unsigned, 1, 2, 4 or 8 bytes */
	KV_FIELD_S32,
	KV_FIELD_FLAG,		/* bool */
	KV_FIELD_STRING,	/* char array, NUL-terminated */
	KV_FIELD_ADDR,		/* 16 bytes and a length byte after them */
};

struct kv_field {
	uint8_t kind;
	uint16_t size;
	uint16_t offset;
};

/* The fields of one structure, indexed by attribute. */
struct kv_fields {
	const struct kv_field *field;
	unsigned int max;
};

extern const struct kv_fields run_model_fields;
extern const struct kv_fields run_model_lat_fields;
extern const struct kv_fields run_model_bw_fields;
extern const struct kv_fields run_model_qp_fields;
extern const struct kv_fields run_model_io_queue_fields;

uint64_t run_model_uint(const struct kv_fields *f, const void *obj, int attr);
void run_model_set_uint(const struct kv_fields *f, void *obj, int attr,
			uint64_t val);
int run_model_decode(struct kv_run *run, const struct nlmsghdr *nlh,
		     FILE *err);
void run_model_free(struct kv_run *run);
bool run_model_ended(const struct kv_run *run);
struct kv_lat_result *run_model_add_lat(struct kv_run *run);
struct kv_bw_result *run_model_add_bw(struct kv_run *run, uint32_t nqps);

#endif /* KVPERF_RUN_MODEL_H */
