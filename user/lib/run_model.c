// SPDX-License-Identifier: GPL-2.0
/*
 * Runs as typed structures: where each attribute of the spec's run, result,
 * io-queue, bw-result and bw-qp sets lives in them, and the decoding of a run-get
 * reply or a run event into them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "attrs.h"
#include "compiler.h"
#include "run_model.h"

/* the address field's length byte follows its 16 bytes */
_Static_assert(offsetof(struct kv_run, addr_len) ==
	       offsetof(struct kv_run, addr) + 16, "addr_len after addr");

#define KV_F(kind, type, member)					\
	{ kind, sizeof(((type *)0)->member), offsetof(type, member) }
#define KV_RUN(kind, member)	KV_F(kind, struct kv_run, member)
#define KV_LAT(member)		KV_F(KV_FIELD_UINT, struct kv_lat_result, member)
#define KV_BW(member)		KV_F(KV_FIELD_UINT, struct kv_bw_result, member)
#define KV_QP(kind, member)	KV_F(kind, struct kv_bw_qp, member)
#define KV_IOQ(kind, member)	KV_F(kind, struct kv_io_queue, member)

static const struct kv_field run_fields[KVPERF_A_RUN_MAX + 1] = {
	[KVPERF_A_RUN_ID]		= KV_RUN(KV_FIELD_UINT, id),
	[KVPERF_A_RUN_TYPE]		= KV_RUN(KV_FIELD_UINT, type),
	[KVPERF_A_RUN_OP]		= KV_RUN(KV_FIELD_UINT, op),
	[KVPERF_A_RUN_ADDR]		= KV_RUN(KV_FIELD_ADDR, addr),
	[KVPERF_A_RUN_PORT]		= KV_RUN(KV_FIELD_UINT, port),
	[KVPERF_A_RUN_DEV]		= KV_RUN(KV_FIELD_STRING, dev),
	[KVPERF_A_RUN_SIZE]		= KV_RUN(KV_FIELD_UINT, size),
	[KVPERF_A_RUN_SIZE_MAX]		= KV_RUN(KV_FIELD_UINT, size_max),
	[KVPERF_A_RUN_ITERATIONS]	= KV_RUN(KV_FIELD_UINT, iterations),
	[KVPERF_A_RUN_DURATION_MS]	= KV_RUN(KV_FIELD_UINT, duration_ms),
	[KVPERF_A_RUN_WARMUP]		= KV_RUN(KV_FIELD_UINT, warmup),
	[KVPERF_A_RUN_POLL]		= KV_RUN(KV_FIELD_UINT, poll),
	[KVPERF_A_RUN_INLINE]		= KV_RUN(KV_FIELD_UINT, inline_size),
	[KVPERF_A_RUN_VERIFY]		= KV_RUN(KV_FIELD_FLAG, verify),
	[KVPERF_A_RUN_CPU]		= KV_RUN(KV_FIELD_UINT, cpu),
	[KVPERF_A_RUN_TIMEOUT_MS]	= KV_RUN(KV_FIELD_UINT, timeout_ms),
	[KVPERF_A_RUN_STATE]		= KV_RUN(KV_FIELD_UINT, state),
	[KVPERF_A_RUN_ERROR]		= KV_RUN(KV_FIELD_STRING, error),
	[KVPERF_A_RUN_KERNEL]		= KV_RUN(KV_FIELD_STRING, kernel),
	[KVPERF_A_RUN_MTU]		= KV_RUN(KV_FIELD_UINT, mtu),
	[KVPERF_A_RUN_PROGRESS]		= KV_RUN(KV_FIELD_UINT, progress),
	[KVPERF_A_RUN_TX_DEPTH]		= KV_RUN(KV_FIELD_UINT, tx_depth),
	[KVPERF_A_RUN_QPS]		= KV_RUN(KV_FIELD_UINT, qps),
	[KVPERF_A_RUN_CPUS]		= KV_RUN(KV_FIELD_STRING, cpus),
	[KVPERF_A_RUN_POST_LIST]	= KV_RUN(KV_FIELD_UINT, post_list),
	[KVPERF_A_RUN_SIGNAL_EVERY]	= KV_RUN(KV_FIELD_UINT, signal_every),
	[KVPERF_A_RUN_BIDIR]		= KV_RUN(KV_FIELD_FLAG, bidir),
	[KVPERF_A_RUN_INTERVAL_MS]	= KV_RUN(KV_FIELD_UINT, interval_ms),
	[KVPERF_A_RUN_WARMUP_MS]	= KV_RUN(KV_FIELD_UINT, warmup_ms),
	[KVPERF_A_RUN_BYTES]		= KV_RUN(KV_FIELD_UINT, bytes),
	[KVPERF_A_RUN_INTERVAL_BYTES]	= KV_RUN(KV_FIELD_UINT, interval_bytes),
	[KVPERF_A_RUN_INTERVAL_MESSAGES] =
		KV_RUN(KV_FIELD_UINT, interval_messages),
	[KVPERF_A_RUN_INTERVAL_NS]	= KV_RUN(KV_FIELD_UINT, interval_ns),
	[KVPERF_A_RUN_CUR_SIZE]		= KV_RUN(KV_FIELD_UINT, cur_size),
	[KVPERF_A_RUN_STATS]		= KV_RUN(KV_FIELD_UINT, stats),
	[KVPERF_A_RUN_POST_CONTEXT]	= KV_RUN(KV_FIELD_UINT, post_context),
	[KVPERF_A_RUN_QD]		= KV_RUN(KV_FIELD_UINT, qd),
	[KVPERF_A_RUN_INV]		= KV_RUN(KV_FIELD_UINT, inv),
	[KVPERF_A_RUN_SEGMENTS]		= KV_RUN(KV_FIELD_UINT, segments),
	[KVPERF_A_RUN_READ_PCT]		= KV_RUN(KV_FIELD_UINT, read_pct),
	[KVPERF_A_RUN_INLINE_DATA]	= KV_RUN(KV_FIELD_UINT, inline_data),
	[KVPERF_A_RUN_BSS]		= KV_RUN(KV_FIELD_UINT, bss),
	[KVPERF_A_RUN_REG]		= KV_RUN(KV_FIELD_UINT, reg),
};

static const struct kv_field lat_fields[KVPERF_A_RESULT_MAX + 1] = {
	[KVPERF_A_RESULT_SIZE]		= KV_LAT(size),
	[KVPERF_A_RESULT_ITERATIONS]	= KV_LAT(iterations),
	[KVPERF_A_RESULT_MIN_NS]	= KV_LAT(min_ns),
	[KVPERF_A_RESULT_MAX_NS]	= KV_LAT(max_ns),
	[KVPERF_A_RESULT_MEAN_PS]	= KV_LAT(mean_ps),
	[KVPERF_A_RESULT_STDEV_PS]	= KV_LAT(stdev_ps),
	[KVPERF_A_RESULT_P50_NS]	= KV_LAT(p50_ns),
	[KVPERF_A_RESULT_P90_NS]	= KV_LAT(p90_ns),
	[KVPERF_A_RESULT_P99_NS]	= KV_LAT(p99_ns),
	[KVPERF_A_RESULT_P999_NS]	= KV_LAT(p999_ns),
	[KVPERF_A_RESULT_P9999_NS]	= KV_LAT(p9999_ns),
	[KVPERF_A_RESULT_MISMATCHES]	= KV_LAT(mismatches),
	[KVPERF_A_RESULT_HIST_REL_ERR_PPM] = KV_LAT(hist_rel_err_ppm),
	[KVPERF_A_RESULT_ELAPSED_NS]	= KV_LAT(elapsed_ns),
	[KVPERF_A_RESULT_OP]		= KV_LAT(op),
	[KVPERF_A_RESULT_REG_NS]	= KV_LAT(reg_ns),
	[KVPERF_A_RESULT_INV_NS]	= KV_LAT(inv_ns),
	[KVPERF_A_RESULT_CPU_NS]	= KV_LAT(cpu_ns),
	[KVPERF_A_RESULT_TARGET_CPU_NS]	= KV_LAT(target_cpu_ns),
};

static const struct kv_field bw_fields[KVPERF_A_BW_RESULT_MAX + 1] = {
	[KVPERF_A_BW_RESULT_SIZE]	= KV_BW(size),
	[KVPERF_A_BW_RESULT_MESSAGES]	= KV_BW(messages),
	[KVPERF_A_BW_RESULT_BYTES]	= KV_BW(bytes),
	[KVPERF_A_BW_RESULT_ELAPSED_NS]	= KV_BW(elapsed_ns),
	[KVPERF_A_BW_RESULT_PEAK_BPS]	= KV_BW(peak_bps),
	[KVPERF_A_BW_RESULT_CPU_NS]	= KV_BW(cpu_ns),
	[KVPERF_A_BW_RESULT_MISMATCHES]	= KV_BW(mismatches),
	[KVPERF_A_BW_RESULT_PEER_MESSAGES] = KV_BW(peer_messages),
	[KVPERF_A_BW_RESULT_RX_MESSAGES] = KV_BW(rx_messages),
	[KVPERF_A_BW_RESULT_RX_BYTES]	= KV_BW(rx_bytes),
	[KVPERF_A_BW_RESULT_RX_ELAPSED_NS] = KV_BW(rx_elapsed_ns),
};

static const struct kv_field qp_fields[KVPERF_A_BW_QP_MAX + 1] = {
	[KVPERF_A_BW_QP_INDEX]		= KV_QP(KV_FIELD_UINT, index),
	[KVPERF_A_BW_QP_CPU]		= KV_QP(KV_FIELD_S32, cpu),
	[KVPERF_A_BW_QP_MESSAGES]	= KV_QP(KV_FIELD_UINT, messages),
	[KVPERF_A_BW_QP_BYTES]		= KV_QP(KV_FIELD_UINT, bytes),
	[KVPERF_A_BW_QP_ELAPSED_NS]	= KV_QP(KV_FIELD_UINT, elapsed_ns),
	[KVPERF_A_BW_QP_PEER_MESSAGES]	= KV_QP(KV_FIELD_UINT, peer_messages),
};

static const struct kv_field io_queue_fields[KVPERF_A_IO_QUEUE_MAX + 1] = {
	[KVPERF_A_IO_QUEUE_INDEX]	= KV_IOQ(KV_FIELD_UINT, index),
	[KVPERF_A_IO_QUEUE_CPU]		= KV_IOQ(KV_FIELD_S32, cpu),
	[KVPERF_A_IO_QUEUE_ITERATIONS]	= KV_IOQ(KV_FIELD_UINT, iterations),
	[KVPERF_A_IO_QUEUE_ELAPSED_NS]	= KV_IOQ(KV_FIELD_UINT, elapsed_ns),
	[KVPERF_A_IO_QUEUE_MISMATCHES]	= KV_IOQ(KV_FIELD_UINT, mismatches),
	[KVPERF_A_IO_QUEUE_MEAN_PS]	= KV_IOQ(KV_FIELD_UINT, mean_ps),
	[KVPERF_A_IO_QUEUE_MIN_NS]	= KV_IOQ(KV_FIELD_UINT, min_ns),
	[KVPERF_A_IO_QUEUE_P50_NS]	= KV_IOQ(KV_FIELD_UINT, p50_ns),
	[KVPERF_A_IO_QUEUE_P99_NS]	= KV_IOQ(KV_FIELD_UINT, p99_ns),
	[KVPERF_A_IO_QUEUE_MAX_NS]	= KV_IOQ(KV_FIELD_UINT, max_ns),
	[KVPERF_A_IO_QUEUE_CPU_NS]	= KV_IOQ(KV_FIELD_UINT, cpu_ns),
	[KVPERF_A_IO_QUEUE_TARGET_CPU_NS] = KV_IOQ(KV_FIELD_UINT, target_cpu_ns),
};

const char *const kv_run_path_names[KV_RUN_PATHS] = {
	[KV_RUN_PATH_KERNEL]	= "kernel",
	[KV_RUN_PATH_USER]	= "user",
};

const struct kv_fields run_model_fields = { run_fields, KVPERF_A_RUN_MAX };
const struct kv_fields run_model_lat_fields = {
	lat_fields, KVPERF_A_RESULT_MAX
};
const struct kv_fields run_model_bw_fields = {
	bw_fields, KVPERF_A_BW_RESULT_MAX
};
const struct kv_fields run_model_qp_fields = { qp_fields, KVPERF_A_BW_QP_MAX };
const struct kv_fields run_model_io_queue_fields = {
	io_queue_fields, KVPERF_A_IO_QUEUE_MAX
};

static const struct kv_field *field_of(const struct kv_fields *f, int attr)
{
	if (attr <= 0 || (unsigned int)attr > f->max ||
	    f->field[attr].kind == KV_FIELD_NONE)
		return NULL;
	return &f->field[attr];
}

/**
 * run_model_uint() - the value of an integer or flag field, by attribute
 * @f: the structure's fields
 * @obj: the structure
 * @attr: the attribute
 *
 * Return: the value (a flag is 0 or 1, an s32 sign-extended), 0 when the
 * attribute has no integer field.
 */
uint64_t run_model_uint(const struct kv_fields *f, const void *obj, int attr)
{
	const struct kv_field *fld = field_of(f, attr);
	const char *p = (const char *)obj;
	int32_t s;

	if (!fld)
		return 0;
	p += fld->offset;
	switch (fld->kind) {
	case KV_FIELD_FLAG:
		return *(const bool *)p;
	case KV_FIELD_S32:
		memcpy(&s, p, sizeof(s));
		return (uint64_t)(int64_t)s;
	case KV_FIELD_UINT:
		switch (fld->size) {
		case 1:
			return *(const uint8_t *)p;
		case 2:
			return *(const uint16_t *)p;
		case 4:
			return *(const uint32_t *)p;
		default:
			return *(const uint64_t *)p;
		}
	default:
		return 0;
	}
}

/**
 * run_model_set_uint() - set an integer or flag field, by attribute
 * @f: the structure's fields
 * @obj: the structure, whose first member is its uint64_t has mask
 * @attr: the attribute
 * @val: the value, truncated to the field's width
 *
 * Marks the field as set. Nothing happens when @attr has no integer field.
 */
void run_model_set_uint(const struct kv_fields *f, void *obj, int attr,
			uint64_t val)
{
	const struct kv_field *fld = field_of(f, attr);
	char *p = (char *)obj;
	uint32_t u32 = val;
	uint16_t u16 = val;
	uint8_t u8 = val;

	if (!fld)
		return;
	p += fld->offset;
	switch (fld->kind) {
	case KV_FIELD_FLAG:
		*(bool *)p = val;
		break;
	case KV_FIELD_S32:
	case KV_FIELD_UINT:
		if (fld->size == 1)
			memcpy(p, &u8, 1);
		else if (fld->size == 2)
			memcpy(p, &u16, 2);
		else if (fld->size == 4)
			memcpy(p, &u32, 4);
		else
			memcpy(p, &val, 8);
		break;
	default:
		return;
	}
	*(uint64_t *)obj |= 1ULL << attr;
}

/* One attribute checked by attrs_parse() into its field, if it has one. */
static void decode_attr(const struct kv_fields *f, void *obj,
			const struct nlattr *nla)
{
	const struct kv_field *fld = field_of(f, nla_type(nla));
	char *p = (char *)obj;
	size_t len;

	if (!fld)
		return;
	switch (fld->kind) {
	case KV_FIELD_STRING:
		p += fld->offset;
		len = nla_len(nla);
		if (len >= fld->size)
			len = fld->size - 1;
		memcpy(p, nla_data(nla), len);
		p[len] = '\0';
		break;
	case KV_FIELD_ADDR:
		p += fld->offset;
		len = nla_len(nla) > 16 ? 16 : nla_len(nla);
		memcpy(p, nla_data(nla), len);
		p[16] = len;
		break;
	case KV_FIELD_FLAG:
		run_model_set_uint(f, obj, nla_type(nla), 1);
		return;
	case KV_FIELD_S32:
		run_model_set_uint(f, obj, nla_type(nla),
				   (uint32_t)nla_get_s32((struct nlattr *)nla));
		return;
	default:
		run_model_set_uint(f, obj, nla_type(nla), attr_uint(nla));
		return;
	}
	*(uint64_t *)obj |= 1ULL << nla_type(nla);
}

static void decode_nest(const struct kv_fields *f, void *obj,
			const struct nlattr *nest)
{
	const struct nlattr *nla;
	int rem;

	nla_for_each_nested(nla, (struct nlattr *)nest, rem)
		decode_attr(f, obj, nla);
}

/**
 * run_model_add_lat() - append a latency result to a run
 * @run: the run
 *
 * Return: the new result, zeroed, or NULL when out of memory.
 */
struct kv_lat_result *run_model_add_lat(struct kv_run *run)
{
	struct kv_lat_result *lat;

	lat = realloc(run->lat, (run->nlat + 1) * sizeof(*lat));
	if (!lat)
		return NULL;
	run->lat = lat;
	lat += run->nlat++;
	memset(lat, 0, sizeof(*lat));
	return lat;
}

/**
 * run_model_add_bw() - append a bandwidth result to a run
 * @run: the run
 * @nqps: room for this many queue pairs, zeroed, with @nqps set
 *
 * Return: the new result, zeroed, or NULL when out of memory.
 */
struct kv_bw_result *run_model_add_bw(struct kv_run *run, uint32_t nqps)
{
	struct kv_bw_result *bw;
	struct kv_bw_qp *qps = NULL;

	if (nqps) {
		qps = calloc(nqps, sizeof(*qps));
		if (!qps)
			return NULL;
	}
	bw = realloc(run->bw, (run->nbw + 1) * sizeof(*bw));
	if (!bw) {
		free(qps);
		return NULL;
	}
	run->bw = bw;
	bw += run->nbw++;
	memset(bw, 0, sizeof(*bw));
	bw->nqps = nqps;
	bw->qps = qps;
	return bw;
}

/* A result: its own attributes, and an I/O run's queues. */
static int decode_lat(struct kv_run *run, const struct nlattr *nest)
{
	struct kv_lat_result *lat = run_model_add_lat(run);
	const struct nlattr *nla;
	uint32_t n = 0, i = 0;
	int rem;

	if (!lat)
		return -ENOMEM;
	nla_for_each_nested(nla, (struct nlattr *)nest, rem)
		if (nla_type(nla) == KVPERF_A_RESULT_QUEUE)
			n++;
	if (n) {
		lat->queues = calloc(n, sizeof(*lat->queues));
		if (!lat->queues)
			return -ENOMEM;
		lat->nqueues = n;
	}
	nla_for_each_nested(nla, (struct nlattr *)nest, rem) {
		if (nla_type(nla) == KVPERF_A_RESULT_QUEUE)
			decode_nest(&run_model_io_queue_fields,
				    &lat->queues[i++], nla);
		else
			decode_attr(&run_model_lat_fields, lat, nla);
	}
	return 0;
}

static int decode_bw(struct kv_run *run, const struct nlattr *nest)
{
	const struct nlattr *nla;
	struct kv_bw_result *bw;
	uint32_t nqps = 0, i = 0;
	int rem;

	nla_for_each_nested(nla, (struct nlattr *)nest, rem)
		if (nla_type(nla) == KVPERF_A_BW_RESULT_QP)
			nqps++;
	bw = run_model_add_bw(run, nqps);
	if (!bw)
		return -ENOMEM;
	nla_for_each_nested(nla, (struct nlattr *)nest, rem) {
		if (nla_type(nla) == KVPERF_A_BW_RESULT_QP)
			decode_nest(&run_model_qp_fields, &bw->qps[i++], nla);
		else
			decode_attr(&run_model_bw_fields, bw, nla);
	}
	return 0;
}

/**
 * run_model_decode() - a run-get reply or a run event as a struct kv_run
 * @run: receives the run, path kernel; run_model_free() it, also on error
 * @nlh: the message
 * @err: where to report a malformed message
 *
 * The message is checked against the spec's attribute sets first,
 * nests included; every attribute the spec has goes to its field, results
 * are appended in the order of the message.
 *
 * Return: 0, -EINVAL after reporting a malformed message, -ENOMEM.
 */
int run_model_decode(struct kv_run *run, const struct nlmsghdr *nlh,
		     FILE *err)
{
	struct nlattr *tb[KVPERF_A_RUN_MAX + 1];
	struct genlmsghdr *g;
	struct nlattr *nla;
	int rem;

	memset(run, 0, sizeof(*run));
	run->path = KV_RUN_PATH_KERNEL;
	if (attrs_parse_reply(nlh, &attrs_run, tb, true, err))
		return -EINVAL;
	g = nlmsg_data(nlh);
	nla_for_each_attr(nla, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0),
			  rem) {
		switch (nla_type(nla)) {
		case KVPERF_A_RUN_RESULT:
			if (decode_lat(run, nla))
				return -ENOMEM;
			break;
		case KVPERF_A_RUN_BW_RESULT:
			if (decode_bw(run, nla))
				return -ENOMEM;
			break;
		default:
			decode_attr(&run_model_fields, run, nla);
			break;
		}
	}
	return 0;
}

/**
 * run_model_free() - free a run's results
 * @run: the run; left with none
 */
void run_model_free(struct kv_run *run)
{
	uint32_t i;

	for (i = 0; i < run->nbw; i++)
		free(run->bw[i].qps);
	for (i = 0; i < run->nlat; i++)
		free(run->lat[i].queues);
	free(run->bw);
	free(run->lat);
	run->bw = NULL;
	run->lat = NULL;
	run->nbw = 0;
	run->nlat = 0;
}

/**
 * run_model_ended() - is the run over?
 * @run: the run
 *
 * Return: true when its state is done, failed or stopped.
 */
bool run_model_ended(const struct kv_run *run)
{
	if (!KV_HAS(run, KVPERF_A_RUN_STATE))
		return false;
	return run->state == KVPERF_RUN_STATE_DONE ||
	       run->state == KVPERF_RUN_STATE_FAILED ||
	       run->state == KVPERF_RUN_STATE_STOPPED;
}
