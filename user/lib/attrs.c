// SPDX-License-Identifier: GPL-2.0
/*
 * Attribute sets of the kvperf family, transcribed from
 * Documentation/netlink/specs/kvperf.yaml, and the checking parser.
 */
#include <errno.h>
#include <string.h>
#include <linux/kvperf.h>
#include <linux/kvperf_wire.h>
#include <netlink/genl/genl.h>

#include "attrs.h"
#include "compiler.h"

static const struct attr_spec gid_attrs[KVPERF_A_GID_MAX + 1] = {
	[KVPERF_A_GID_INDEX]	= { "index", ATTR_U32 },
	[KVPERF_A_GID_VALUE]	= { "value", ATTR_BINARY, 16 },
	[KVPERF_A_GID_TYPE]	= { "type", ATTR_U8 },
	[KVPERF_A_GID_NETDEV]	= { "netdev", ATTR_STRING },
};

static const struct attr_spec port_attrs[KVPERF_A_PORT_MAX + 1] = {
	[KVPERF_A_PORT_NUMBER]		= { "number", ATTR_U32 },
	[KVPERF_A_PORT_STATE]		= { "state", ATTR_U8 },
	[KVPERF_A_PORT_PHYS_STATE]	= { "phys-state", ATTR_U8 },
	[KVPERF_A_PORT_LINK_LAYER]	= { "link-layer", ATTR_U8 },
	[KVPERF_A_PORT_ACTIVE_MTU]	= { "active-mtu", ATTR_U32 },
	[KVPERF_A_PORT_MAX_MTU]		= { "max-mtu", ATTR_U32 },
	[KVPERF_A_PORT_WIDTH]		= { "width", ATTR_U8 },
	[KVPERF_A_PORT_SPEED]		= { "speed", ATTR_U8 },
	[KVPERF_A_PORT_RATE_MBPS]	= { "rate-mbps", ATTR_U32 },
	[KVPERF_A_PORT_LID]		= { "lid", ATTR_U32 },
	[KVPERF_A_PORT_SM_LID]		= { "sm-lid", ATTR_U32 },
	[KVPERF_A_PORT_LMC]		= { "lmc", ATTR_U8 },
	[KVPERF_A_PORT_MAX_MSG_SIZE]	= { "max-msg-size", ATTR_U32 },
	[KVPERF_A_PORT_GID_TBL_LEN]	= { "gid-tbl-len", ATTR_U32 },
	[KVPERF_A_PORT_NETDEV]		= { "netdev", ATTR_STRING },
	[KVPERF_A_PORT_GID]		= { "gid", ATTR_NEST, 0, &attrs_gid },
};

static const struct attr_spec dev_attrs[KVPERF_A_DEV_MAX + 1] = {
	[KVPERF_A_DEV_INDEX]		= { "index", ATTR_U32 },
	[KVPERF_A_DEV_NAME]		= { "name", ATTR_STRING },
	[KVPERF_A_DEV_NODE_GUID]	= { "node-guid", ATTR_U64 },
	[KVPERF_A_DEV_SYS_IMAGE_GUID]	= { "sys-image-guid", ATTR_U64 },
	[KVPERF_A_DEV_NODE_TYPE]	= { "node-type", ATTR_U8 },
	[KVPERF_A_DEV_TRANSPORT]	= { "transport", ATTR_U8 },
	[KVPERF_A_DEV_FW_VERSION]	= { "fw-version", ATTR_STRING },
	[KVPERF_A_DEV_PORT_COUNT]	= { "port-count", ATTR_U32 },
	[KVPERF_A_DEV_PORT]		= { "port", ATTR_NEST, 0, &attrs_port },
	[KVPERF_A_DEV_MAX_QP]		= { "max-qp", ATTR_U32 },
	[KVPERF_A_DEV_MAX_QP_WR]	= { "max-qp-wr", ATTR_U32 },
	[KVPERF_A_DEV_MAX_CQ]		= { "max-cq", ATTR_U32 },
	[KVPERF_A_DEV_MAX_CQE]		= { "max-cqe", ATTR_U32 },
	[KVPERF_A_DEV_MAX_MR]		= { "max-mr", ATTR_U32 },
	[KVPERF_A_DEV_MAX_MR_SIZE]	= { "max-mr-size", ATTR_U64 },
	[KVPERF_A_DEV_MAX_PD]		= { "max-pd", ATTR_U32 },
	[KVPERF_A_DEV_MAX_SEND_SGE]	= { "max-send-sge", ATTR_U32 },
	[KVPERF_A_DEV_MAX_RECV_SGE]	= { "max-recv-sge", ATTR_U32 },
	[KVPERF_A_DEV_MAX_SGE_RD]	= { "max-sge-rd", ATTR_U32 },
	[KVPERF_A_DEV_MAX_QP_RD_ATOM]	= { "max-qp-rd-atom", ATTR_U32 },
	[KVPERF_A_DEV_MAX_FAST_REG_PAGES] = { "max-fast-reg-pages", ATTR_U32 },
	[KVPERF_A_DEV_MAX_INLINE]	= { "max-inline", ATTR_U32 },
	[KVPERF_A_DEV_PAD]		= { "pad", ATTR_PAD },
};

static const struct attr_spec conn_attrs[KVPERF_A_CONN_MAX + 1] = {
	[KVPERF_A_CONN_PEER_ADDR]	= { "peer-addr", ATTR_ADDR },
	[KVPERF_A_CONN_PEER_PORT]	= { "peer-port", ATTR_U16 },
	[KVPERF_A_CONN_OP]		= { "op", ATTR_U8 },
	[KVPERF_A_CONN_SIZE_MAX]	= { "size-max", ATTR_U32 },
	[KVPERF_A_CONN_ITERATIONS]	= { "iterations", ATTR_U64 },
	[KVPERF_A_CONN_PAD]		= { "pad", ATTR_PAD },
};

static const struct attr_spec prefix_attrs[KVPERF_A_PREFIX_MAX + 1] = {
	[KVPERF_A_PREFIX_ADDR]		= { "addr", ATTR_ADDR },
	[KVPERF_A_PREFIX_LEN]		= { "len", ATTR_U8 },
};

static const struct attr_spec server_attrs[KVPERF_A_SERVER_MAX + 1] = {
	[KVPERF_A_SERVER_ID]		= { "id", ATTR_U32 },
	[KVPERF_A_SERVER_ADDR]		= { "addr", ATTR_ADDR },
	[KVPERF_A_SERVER_PORT]		= { "port", ATTR_U16 },
	[KVPERF_A_SERVER_DEV]		= { "dev", ATTR_STRING },
	[KVPERF_A_SERVER_CONN_COUNT]	= { "conn-count", ATTR_U32 },
	[KVPERF_A_SERVER_CONN]		= { "conn", ATTR_NEST, 0, &attrs_conn },
	[KVPERF_A_SERVER_POLL]		= { "poll", ATTR_U8 },
	[KVPERF_A_SERVER_IDLE_TIMEOUT_MS] = { "idle-timeout-ms", ATTR_U32 },
	[KVPERF_A_SERVER_ALLOW]		= { "allow", ATTR_NEST, 0,
					    &attrs_prefix },
	[KVPERF_A_SERVER_KEY]		= { "key", ATTR_BINARY,
					    KVPERF_WIRE_KEY_LEN },
	[KVPERF_A_SERVER_KEYED]		= { "keyed", ATTR_FLAG },
	[KVPERF_A_SERVER_CONNS_MAX]	= { "conns-max", ATTR_U32 },
	[KVPERF_A_SERVER_PEER_CONNS_MAX] = { "peer-conns-max", ATTR_U32 },
	[KVPERF_A_SERVER_PINNED]	= { "pinned", ATTR_U64 },
	[KVPERF_A_SERVER_ACCEPTED]	= { "accepted", ATTR_U64 },
	[KVPERF_A_SERVER_REFUSED_REQUEST] = { "refused-request", ATTR_U64 },
	[KVPERF_A_SERVER_REFUSED_ADDRESS] = { "refused-address", ATTR_U64 },
	[KVPERF_A_SERVER_REFUSED_KEY]	= { "refused-key", ATTR_U64 },
	[KVPERF_A_SERVER_REFUSED_BUSY]	= { "refused-busy", ATTR_U64 },
	[KVPERF_A_SERVER_REFUSED_MEMORY] = { "refused-memory", ATTR_U64 },
	[KVPERF_A_SERVER_CLOSED_IDLE]	= { "closed-idle", ATTR_U64 },
	[KVPERF_A_SERVER_CLOSED_DEAD]	= { "closed-dead", ATTR_U64 },
	[KVPERF_A_SERVER_PAD]		= { "pad", ATTR_PAD },
	[KVPERF_A_SERVER_SRQ]		= { "srq", ATTR_U32 },
	[KVPERF_A_SERVER_SRQ_GRANTED]	= { "srq-granted", ATTR_U32 },
	[KVPERF_A_SERVER_BIDIR]		= { "bidir", ATTR_U8 },
};

static const struct attr_spec result_attrs[KVPERF_A_RESULT_MAX + 1] = {
	[KVPERF_A_RESULT_SIZE]		= { "size", ATTR_U32 },
	[KVPERF_A_RESULT_ITERATIONS]	= { "iterations", ATTR_U64 },
	[KVPERF_A_RESULT_MIN_NS]	= { "min-ns", ATTR_U64 },
	[KVPERF_A_RESULT_MAX_NS]	= { "max-ns", ATTR_U64 },
	[KVPERF_A_RESULT_MEAN_PS]	= { "mean-ps", ATTR_U64 },
	[KVPERF_A_RESULT_STDEV_PS]	= { "stdev-ps", ATTR_U64 },
	[KVPERF_A_RESULT_P50_NS]	= { "p50-ns", ATTR_U64 },
	[KVPERF_A_RESULT_P90_NS]	= { "p90-ns", ATTR_U64 },
	[KVPERF_A_RESULT_P99_NS]	= { "p99-ns", ATTR_U64 },
	[KVPERF_A_RESULT_P999_NS]	= { "p999-ns", ATTR_U64 },
	[KVPERF_A_RESULT_P9999_NS]	= { "p9999-ns", ATTR_U64 },
	[KVPERF_A_RESULT_MISMATCHES]	= { "mismatches", ATTR_U64 },
	[KVPERF_A_RESULT_HIST_REL_ERR_PPM] = { "hist-rel-err-ppm", ATTR_U32 },
	[KVPERF_A_RESULT_ELAPSED_NS]	= { "elapsed-ns", ATTR_U64 },
	[KVPERF_A_RESULT_PAD]		= { "pad", ATTR_PAD },
	[KVPERF_A_RESULT_OP]		= { "op", ATTR_U8 },
	[KVPERF_A_RESULT_REG_NS]	= { "reg-ns", ATTR_U64 },
	[KVPERF_A_RESULT_INV_NS]	= { "inv-ns", ATTR_U64 },
	[KVPERF_A_RESULT_QUEUE]		= { "queue", ATTR_NEST, 0,
					    &attrs_io_queue },
	[KVPERF_A_RESULT_CPU_NS]	= { "cpu-ns", ATTR_U64 },
	[KVPERF_A_RESULT_TARGET_CPU_NS]	= { "target-cpu-ns", ATTR_U64 },
};

static const struct attr_spec io_queue_attrs[KVPERF_A_IO_QUEUE_MAX + 1] = {
	[KVPERF_A_IO_QUEUE_INDEX]	= { "index", ATTR_U32 },
	[KVPERF_A_IO_QUEUE_CPU]		= { "cpu", ATTR_S32 },
	[KVPERF_A_IO_QUEUE_ITERATIONS]	= { "iterations", ATTR_U64 },
	[KVPERF_A_IO_QUEUE_ELAPSED_NS]	= { "elapsed-ns", ATTR_U64 },
	[KVPERF_A_IO_QUEUE_MISMATCHES]	= { "mismatches", ATTR_U64 },
	[KVPERF_A_IO_QUEUE_MEAN_PS]	= { "mean-ps", ATTR_U64 },
	[KVPERF_A_IO_QUEUE_MIN_NS]	= { "min-ns", ATTR_U64 },
	[KVPERF_A_IO_QUEUE_P50_NS]	= { "p50-ns", ATTR_U64 },
	[KVPERF_A_IO_QUEUE_P99_NS]	= { "p99-ns", ATTR_U64 },
	[KVPERF_A_IO_QUEUE_MAX_NS]	= { "max-ns", ATTR_U64 },
	[KVPERF_A_IO_QUEUE_PAD]		= { "pad", ATTR_PAD },
	[KVPERF_A_IO_QUEUE_CPU_NS]	= { "cpu-ns", ATTR_U64 },
	[KVPERF_A_IO_QUEUE_TARGET_CPU_NS] = { "target-cpu-ns", ATTR_U64 },
};

static const struct attr_spec bw_qp_attrs[KVPERF_A_BW_QP_MAX + 1] = {
	[KVPERF_A_BW_QP_INDEX]		= { "index", ATTR_U32 },
	[KVPERF_A_BW_QP_CPU]		= { "cpu", ATTR_S32 },
	[KVPERF_A_BW_QP_MESSAGES]	= { "messages", ATTR_U64 },
	[KVPERF_A_BW_QP_BYTES]		= { "bytes", ATTR_U64 },
	[KVPERF_A_BW_QP_ELAPSED_NS]	= { "elapsed-ns", ATTR_U64 },
	[KVPERF_A_BW_QP_PEER_MESSAGES]	= { "peer-messages", ATTR_U64 },
	[KVPERF_A_BW_QP_PAD]		= { "pad", ATTR_PAD },
};

static const struct attr_spec bw_result_attrs[KVPERF_A_BW_RESULT_MAX + 1] = {
	[KVPERF_A_BW_RESULT_SIZE]	= { "size", ATTR_U32 },
	[KVPERF_A_BW_RESULT_MESSAGES]	= { "messages", ATTR_U64 },
	[KVPERF_A_BW_RESULT_BYTES]	= { "bytes", ATTR_U64 },
	[KVPERF_A_BW_RESULT_ELAPSED_NS]	= { "elapsed-ns", ATTR_U64 },
	[KVPERF_A_BW_RESULT_PEAK_BPS]	= { "peak-bps", ATTR_U64 },
	[KVPERF_A_BW_RESULT_CPU_NS]	= { "cpu-ns", ATTR_U64 },
	[KVPERF_A_BW_RESULT_MISMATCHES]	= { "mismatches", ATTR_U64 },
	[KVPERF_A_BW_RESULT_PEER_MESSAGES] = { "peer-messages", ATTR_U64 },
	[KVPERF_A_BW_RESULT_RX_MESSAGES] = { "rx-messages", ATTR_U64 },
	[KVPERF_A_BW_RESULT_RX_BYTES]	= { "rx-bytes", ATTR_U64 },
	[KVPERF_A_BW_RESULT_RX_ELAPSED_NS] = { "rx-elapsed-ns", ATTR_U64 },
	[KVPERF_A_BW_RESULT_QP]		= { "qp", ATTR_NEST, 0, &attrs_bw_qp },
	[KVPERF_A_BW_RESULT_PAD]	= { "pad", ATTR_PAD },
};

static const struct attr_spec run_attrs[KVPERF_A_RUN_MAX + 1] = {
	[KVPERF_A_RUN_ID]		= { "id", ATTR_U32 },
	[KVPERF_A_RUN_TYPE]		= { "type", ATTR_U8 },
	[KVPERF_A_RUN_OP]		= { "op", ATTR_U8 },
	[KVPERF_A_RUN_ADDR]		= { "addr", ATTR_ADDR },
	[KVPERF_A_RUN_PORT]		= { "port", ATTR_U16 },
	[KVPERF_A_RUN_DEV]		= { "dev", ATTR_STRING },
	[KVPERF_A_RUN_SIZE]		= { "size", ATTR_U32 },
	[KVPERF_A_RUN_SIZE_MAX]		= { "size-max", ATTR_U32 },
	[KVPERF_A_RUN_ITERATIONS]	= { "iterations", ATTR_U32 },
	[KVPERF_A_RUN_DURATION_MS]	= { "duration-ms", ATTR_U32 },
	[KVPERF_A_RUN_WARMUP]		= { "warmup", ATTR_U32 },
	[KVPERF_A_RUN_POLL]		= { "poll", ATTR_U8 },
	[KVPERF_A_RUN_INLINE]		= { "inline", ATTR_U32 },
	[KVPERF_A_RUN_VERIFY]		= { "verify", ATTR_FLAG },
	[KVPERF_A_RUN_CPU]		= { "cpu", ATTR_U32 },
	[KVPERF_A_RUN_TIMEOUT_MS]	= { "timeout-ms", ATTR_U32 },
	[KVPERF_A_RUN_STATE]		= { "state", ATTR_U8 },
	[KVPERF_A_RUN_ERROR]		= { "error", ATTR_STRING },
	[KVPERF_A_RUN_RESULT]		= { "result", ATTR_NEST, 0, &attrs_result },
	[KVPERF_A_RUN_KERNEL]		= { "kernel", ATTR_STRING },
	[KVPERF_A_RUN_MTU]		= { "mtu", ATTR_U32 },
	[KVPERF_A_RUN_PROGRESS]		= { "progress", ATTR_U64 },
	[KVPERF_A_RUN_PAD]		= { "pad", ATTR_PAD },
	[KVPERF_A_RUN_TX_DEPTH]		= { "tx-depth", ATTR_U32 },
	[KVPERF_A_RUN_QPS]		= { "qps", ATTR_U32 },
	[KVPERF_A_RUN_CPUS]		= { "cpus", ATTR_STRING },
	[KVPERF_A_RUN_POST_LIST]	= { "post-list", ATTR_U32 },
	[KVPERF_A_RUN_SIGNAL_EVERY]	= { "signal-every", ATTR_U32 },
	[KVPERF_A_RUN_BIDIR]		= { "bidir", ATTR_FLAG },
	[KVPERF_A_RUN_INTERVAL_MS]	= { "interval-ms", ATTR_U32 },
	[KVPERF_A_RUN_WARMUP_MS]	= { "warmup-ms", ATTR_U32 },
	[KVPERF_A_RUN_BW_RESULT]	= { "bw-result", ATTR_NEST, 0,
					    &attrs_bw_result },
	[KVPERF_A_RUN_BYTES]		= { "bytes", ATTR_U64 },
	[KVPERF_A_RUN_INTERVAL_BYTES]	= { "interval-bytes", ATTR_U64 },
	[KVPERF_A_RUN_INTERVAL_MESSAGES] = { "interval-messages", ATTR_U64 },
	[KVPERF_A_RUN_INTERVAL_NS]	= { "interval-ns", ATTR_U64 },
	[KVPERF_A_RUN_CUR_SIZE]		= { "cur-size", ATTR_U32 },
	[KVPERF_A_RUN_STATS]		= { "stats", ATTR_U8 },
	[KVPERF_A_RUN_KEY]		= { "key", ATTR_BINARY,
					    KVPERF_WIRE_KEY_LEN },
	[KVPERF_A_RUN_RESULTS_FROM]	= { "results-from", ATTR_U32 },
	[KVPERF_A_RUN_POST_CONTEXT]	= { "post-context", ATTR_U8 },
	[KVPERF_A_RUN_QD]		= { "qd", ATTR_U32 },
	[KVPERF_A_RUN_INV]		= { "inv", ATTR_U8 },
	[KVPERF_A_RUN_SEGMENTS]		= { "segments", ATTR_U32 },
	[KVPERF_A_RUN_READ_PCT]		= { "read-pct", ATTR_U8 },
	[KVPERF_A_RUN_INLINE_DATA]	= { "inline-data", ATTR_U32 },
	[KVPERF_A_RUN_REG]		= { "reg", ATTR_U8 },
	[KVPERF_A_RUN_BSS]		= { "bss", ATTR_U32 },
};

const struct attr_set attrs_gid = {
	.name = "gid", .attrs = gid_attrs, .max = ARRAY_SIZE(gid_attrs) - 1,
};

const struct attr_set attrs_port = {
	.name = "port", .attrs = port_attrs, .max = ARRAY_SIZE(port_attrs) - 1,
};

const struct attr_set attrs_dev = {
	.name = "dev", .attrs = dev_attrs, .max = ARRAY_SIZE(dev_attrs) - 1,
};

const struct attr_set attrs_conn = {
	.name = "conn", .attrs = conn_attrs, .max = ARRAY_SIZE(conn_attrs) - 1,
};

const struct attr_set attrs_prefix = {
	.name = "prefix", .attrs = prefix_attrs,
	.max = ARRAY_SIZE(prefix_attrs) - 1,
};

const struct attr_set attrs_server = {
	.name = "server", .attrs = server_attrs,
	.max = ARRAY_SIZE(server_attrs) - 1,
};

const struct attr_set attrs_result = {
	.name = "result", .attrs = result_attrs,
	.max = ARRAY_SIZE(result_attrs) - 1,
};

const struct attr_set attrs_io_queue = {
	.name = "io-queue", .attrs = io_queue_attrs,
	.max = ARRAY_SIZE(io_queue_attrs) - 1,
};

const struct attr_set attrs_bw_qp = {
	.name = "bw-qp", .attrs = bw_qp_attrs,
	.max = ARRAY_SIZE(bw_qp_attrs) - 1,
};

const struct attr_set attrs_bw_result = {
	.name = "bw-result", .attrs = bw_result_attrs,
	.max = ARRAY_SIZE(bw_result_attrs) - 1,
};

const struct attr_set attrs_run = {
	.name = "run", .attrs = run_attrs, .max = ARRAY_SIZE(run_attrs) - 1,
};

/**
 * attrs_name() - the spec's name of an attribute
 * @set: the attribute set
 * @type: the attribute type
 *
 * Return: the name, or NULL if this tool does not know the attribute.
 */
const char *attrs_name(const struct attr_set *set, int type)
{
	if (type <= 0 || (unsigned int)type > set->max)
		return NULL;
	return set->attrs[type].name;
}

static int attr_valid(const struct attr_spec *spec, const struct nlattr *nla)
{
	const char *s = nla_data(nla);
	int len = nla_len(nla);

	switch (spec->kind) {
	case ATTR_U8:
		return len == 1;
	case ATTR_U16:
		return len == 2;
	case ATTR_U32:
	case ATTR_S32:
		return len == 4;
	case ATTR_U64:
		return len == 8;
	case ATTR_STRING:
		return len >= 1 && memchr(s, '\0', len);
	case ATTR_BINARY:
		return !spec->len || len == spec->len;
	case ATTR_ADDR:
		return len == 4 || len == 16;
	case ATTR_FLAG:
		return len == 0;
	case ATTR_NEST:
	case ATTR_PAD:
	case ATTR_UNKNOWN:
		break;
	}
	return 1;
}

/**
 * attrs_parse() - index and check a stream of attributes
 * @set: the attribute set they belong to
 * @tb: @set->max + 1 entries; tb[type] is set to the last attribute of
 *      each known type, NULL where there is none
 * @head: the first attribute
 * @len: length of the stream in bytes
 * @err: filled in with the offending attribute on error; may be NULL
 *
 * Attributes this tool does not know (types above @set->max, from a newer
 * module) are skipped, so that old tools keep working. Known ones must
 * have the length their type implies, so readers can trust tb[].
 *
 * Return: 0, or -EINVAL if an attribute is malformed.
 */
int attrs_parse(const struct attr_set *set, struct nlattr **tb,
		struct nlattr *head, int len, struct attr_error *err)
{
	struct nlattr *nla;
	int rem, type;

	memset(tb, 0, (set->max + 1) * sizeof(*tb));
	nla_for_each_attr(nla, head, len, rem) {
		type = nla_type(nla);
		if (type <= 0 || (unsigned int)type > set->max)
			continue;
		if (!attr_valid(&set->attrs[type], nla)) {
			if (err) {
				err->set = set;
				err->type = type;
				err->len = nla_len(nla);
			}
			return -EINVAL;
		}
		tb[type] = nla;
	}
	return 0;
}

/**
 * attrs_report() - tell the user about a malformed attribute from the kernel
 * @f: where to write
 * @err: what attrs_parse() found
 */
void attrs_report(FILE *f, const struct attr_error *err)
{
	fprintf(f, "kvperf: malformed reply from the kernel: attribute %s.%s has length %d\n",
		err->set->name, attrs_name(err->set, err->type), err->len);
}

/*
 * Check the attributes inside every nest of a stream that @set describes,
 * and inside the nests in those, as deep as the spec goes.
 */
static int attrs_check_nests(const struct attr_set *set, struct nlattr *head,
			     int len, struct attr_error *aerr, FILE *err)
{
	struct nlattr *tb[ATTRS_MAX_TYPE + 1];
	const struct attr_set *nested;
	struct nlattr *nla;
	int rem, type;

	nla_for_each_attr(nla, head, len, rem) {
		type = nla_type(nla);
		if (type <= 0 || (unsigned int)type > set->max ||
		    set->attrs[type].kind != ATTR_NEST)
			continue;
		nested = set->attrs[type].nested;
		if (nested->max > ATTRS_MAX_TYPE) {
			fprintf(err, "kvperf: internal error: set %s too large\n",
				nested->name);
			return -EINVAL;
		}
		if (attrs_parse(nested, tb, nla_data(nla), nla_len(nla),
				aerr)) {
			attrs_report(err, aerr);
			return -EINVAL;
		}
		if (attrs_check_nests(nested, nla_data(nla), nla_len(nla),
				      aerr, err))
			return -EINVAL;
	}
	return 0;
}

/**
 * attrs_parse_reply() - index and check a genetlink reply before printing
 * @nlh: the message
 * @set: the set of its top-level attributes
 * @tb: receives them, indexed by type (@set->max + 1 entries)
 * @nests: check every instance of every nest too, and the nests in them,
 *	   so that printing can parse them without checking
 * @err: where to report a malformed message
 *
 * Return: 0, or -EINVAL after reporting; nothing should be printed then.
 */
int attrs_parse_reply(const struct nlmsghdr *nlh, const struct attr_set *set,
		      struct nlattr **tb, bool nests, FILE *err)
{
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct attr_error aerr;

	if (!genlmsg_valid_hdr((struct nlmsghdr *)nlh, 0)) {
		fprintf(err, "kvperf: malformed reply from the kernel: message too short\n");
		return -EINVAL;
	}
	if (attrs_parse(set, tb, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0),
			&aerr)) {
		attrs_report(err, &aerr);
		return -EINVAL;
	}
	if (!nests)
		return 0;
	return attrs_check_nests(set, genlmsg_attrdata(g, 0),
				 genlmsg_attrlen(g, 0), &aerr, err);
}

/**
 * attr_uint() - value of an unsigned integer attribute checked by
 * attrs_parse()
 * @nla: a u8, u16, u32 or u64 attribute
 *
 * Return: the value, whatever the attribute's width.
 */
uint64_t attr_uint(const struct nlattr *nla)
{
	switch (nla_len(nla)) {
	case 1:
		return nla_get_u8(nla);
	case 2:
		return nla_get_u16(nla);
	case 4:
		return nla_get_u32(nla);
	default:
		return nla_get_u64(nla);
	}
}
