/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/kvperf.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_KVPERF_H
#define _UAPI_LINUX_KVPERF_H

#define KVPERF_FAMILY_NAME	"kvperf"
#define KVPERF_FAMILY_VERSION	1

#define KVPERF_SIZE_MIN			1
#define KVPERF_SIZE_MAX			8388608
#define KVPERF_SIZE_DEFAULT		2
#define KVPERF_BW_SIZE_DEFAULT		65536
#define KVPERF_ITERATIONS_MAX		100000000
#define KVPERF_LAT_ITERATIONS_DEFAULT	1000
#define KVPERF_BW_ITERATIONS_DEFAULT	5000
#define KVPERF_DURATION_MS_MAX		3600000
#define KVPERF_WARMUP_MAX		1000000
#define KVPERF_WARMUP_DEFAULT		16
#define KVPERF_WARMUP_MS_MAX		600000
#define KVPERF_INLINE_MAX		4096
#define KVPERF_TIMEOUT_MS_MIN		10
#define KVPERF_TIMEOUT_MS_MAX		600000
#define KVPERF_TIMEOUT_MS_DEFAULT	5000
#define KVPERF_TIMEOUT_BYTES_PER_MS	1024
#define KVPERF_TIMEOUT_MS_DEFAULT_MAX	120000
#define KVPERF_TX_DEPTH_MAX		4096
#define KVPERF_TX_DEPTH_DEFAULT		128
#define KVPERF_QPS_MAX			16
#define KVPERF_POST_LIST_MAX		64
#define KVPERF_SIGNAL_EVERY_DEFAULT	100
#define KVPERF_INTERVAL_MS_MIN		10
#define KVPERF_INTERVAL_MS_MAX		60000
#define KVPERF_CPUS_LEN_MAX		255
#define KVPERF_IO_QD_MIN		1
#define KVPERF_IO_QD_MAX		256
#define KVPERF_IO_QD_DEFAULT		1
#define KVPERF_IO_BS_MIN		512
#define KVPERF_IO_BS_MAX		1048576
#define KVPERF_IO_SEGMENTS_MIN		1
#define KVPERF_IO_SEGMENTS_MAX		16
#define KVPERF_IO_INLINE_DATA_MAX	16384
#define KVPERF_IO_BS_DEFAULT		4096
#define KVPERF_IO_BSS_MASK		2096640
#define KVPERF_IO_READ_PCT_MIN		1
#define KVPERF_IO_READ_PCT_MAX		99
#define KVPERF_KEY_LEN			16
#define KVPERF_DEV_NAME_MAX		63
#define KVPERF_IDLE_TIMEOUT_MS_MIN	1000
#define KVPERF_IDLE_TIMEOUT_MS_MAX	600000
#define KVPERF_IDLE_TIMEOUT_MS_DEFAULT	10000
#define KVPERF_SERVER_CONNS_MAX		16
#define KVPERF_SERVER_ALLOW_MAX		8
#define KVPERF_SERVER_SRQ_MAX		4096
#define KVPERF_IO_REG_KERNEL_MAX	1

/**
 * enum kvperf_node_type - Kind of RDMA node, as ib_core reports it.
 */
enum kvperf_node_type {
	KVPERF_NODE_TYPE_UNKNOWN,
	KVPERF_NODE_TYPE_CA,
	KVPERF_NODE_TYPE_SWITCH,
	KVPERF_NODE_TYPE_ROUTER,
	KVPERF_NODE_TYPE_RNIC,
	KVPERF_NODE_TYPE_USNIC,
	KVPERF_NODE_TYPE_USNIC_UDP,
	KVPERF_NODE_TYPE_UNSPECIFIED,
};

/**
 * enum kvperf_transport - How the device moves RDMA traffic.
 */
enum kvperf_transport {
	KVPERF_TRANSPORT_UNKNOWN,
	KVPERF_TRANSPORT_INFINIBAND,
	KVPERF_TRANSPORT_ROCE,
	KVPERF_TRANSPORT_IWARP,
	KVPERF_TRANSPORT_OTHER,
};

/**
 * enum kvperf_port_state - Logical port state, numbered as in the InfiniBand
 *   specification.
 */
enum kvperf_port_state {
	KVPERF_PORT_STATE_NOP,
	KVPERF_PORT_STATE_DOWN,
	KVPERF_PORT_STATE_INIT,
	KVPERF_PORT_STATE_ARMED,
	KVPERF_PORT_STATE_ACTIVE,
	KVPERF_PORT_STATE_ACTIVE_DEFER,
};

/**
 * enum kvperf_phys_state - Physical port state, numbered as in the InfiniBand
 *   specification.
 */
enum kvperf_phys_state {
	KVPERF_PHYS_STATE_UNKNOWN,
	KVPERF_PHYS_STATE_SLEEP,
	KVPERF_PHYS_STATE_POLLING,
	KVPERF_PHYS_STATE_DISABLED,
	KVPERF_PHYS_STATE_PORT_CONFIGURATION_TRAINING,
	KVPERF_PHYS_STATE_LINK_UP,
	KVPERF_PHYS_STATE_LINK_ERROR_RECOVERY,
	KVPERF_PHYS_STATE_PHY_TEST,
};

/**
 * enum kvperf_link_layer - Link layer of a port.
 */
enum kvperf_link_layer {
	KVPERF_LINK_LAYER_UNSPECIFIED,
	KVPERF_LINK_LAYER_INFINIBAND,
	KVPERF_LINK_LAYER_ETHERNET,
};

/**
 * enum kvperf_speed - Per-lane signalling speed of a port.
 */
enum kvperf_speed {
	KVPERF_SPEED_UNKNOWN,
	KVPERF_SPEED_SDR,
	KVPERF_SPEED_DDR,
	KVPERF_SPEED_QDR,
	KVPERF_SPEED_FDR10,
	KVPERF_SPEED_FDR,
	KVPERF_SPEED_EDR,
	KVPERF_SPEED_HDR,
	KVPERF_SPEED_NDR,
	KVPERF_SPEED_XDR,
};

/**
 * enum kvperf_gid_type - Type of a GID table entry.
 */
enum kvperf_gid_type {
	KVPERF_GID_TYPE_IB,
	KVPERF_GID_TYPE_ROCE_V1,
	KVPERF_GID_TYPE_ROCE_V2,
};

/**
 * enum kvperf_run_type - What a run measures. lat: ping-pong latency; bw:
 *   streaming bandwidth; io: storage-shaped I/Os (a command capsule, the
 *   target moving the data with RDMA READ or WRITE into or out of a buffer the
 *   host registered for that I/O, a response that invalidates it).
 */
enum kvperf_run_type {
	KVPERF_RUN_TYPE_LAT,
	KVPERF_RUN_TYPE_BW,
	KVPERF_RUN_TYPE_IO,
};

/**
 * enum kvperf_io_inv - Who invalidates an I/O run's per-I/O registration.
 *   remote: the target's response is a SEND with invalidate; local: the host
 *   posts its own LOCAL_INV after the response.
 */
enum kvperf_io_inv {
	KVPERF_IO_INV_REMOTE,
	KVPERF_IO_INV_LOCAL,
};

/**
 * enum kvperf_io_reg - How an I/O run's host registers its blocks for the
 *   target. frwr: a fast registration per I/O from an MR pool, invalidated
 *   when the I/O completes (nvme-rdma); pre: one registration per block made
 *   at connect and kept until the connection ends, never invalidated
 *   (user-space targets such as SPDK register their memory once); mw (the user
 *   path's host only): one registration of the blocks made at connect, and per
 *   I/O a type 2 memory window bound over the I/O's block with a fresh key,
 *   invalidated when the I/O completes.
 */
enum kvperf_io_reg {
	KVPERF_IO_REG_FRWR,
	KVPERF_IO_REG_PRE,
	KVPERF_IO_REG_MW,
};

/**
 * enum kvperf_op - The RDMA operation a run measures. send: SEND/RECV
 *   ping-pong, half the round trip; write: each side RDMA WRITEs into the
 *   peer's buffer and polls its own memory for arrival, half the round trip;
 *   read: RDMA READ, the full round trip. As perftest's ib_*_lat. I/O runs
 *   read (the target writes into the host's blocks) or write (the target reads
 *   them).
 */
enum kvperf_op {
	KVPERF_OP_SEND,
	KVPERF_OP_WRITE,
	KVPERF_OP_READ,
};

/**
 * enum kvperf_poll - How completions are reaped. busy: IB_POLL_DIRECT, polled
 *   by the run's own thread (which yields with cond_resched()); softirq and
 *   workqueue: IB_POLL_SOFTIRQ / IB_POLL_WORKQUEUE completion callbacks that
 *   wake the thread.
 */
enum kvperf_poll {
	KVPERF_POLL_BUSY,
	KVPERF_POLL_SOFTIRQ,
	KVPERF_POLL_WORKQUEUE,
};

/**
 * enum kvperf_run_state - Life cycle of a run.
 */
enum kvperf_run_state {
	KVPERF_RUN_STATE_CONNECTING,
	KVPERF_RUN_STATE_RUNNING,
	KVPERF_RUN_STATE_DONE,
	KVPERF_RUN_STATE_FAILED,
	KVPERF_RUN_STATE_STOPPED,
};

/**
 * enum kvperf_stats_mode - Whether a latency run takes per-iteration
 *   statistics. on: a timestamp before and after every iteration, the sample
 *   of each measured one recorded in a histogram; off: neither, only the wall
 *   time of the measured iterations, so that a result has iterations, mean-ps
 *   (from elapsed-ns), elapsed-ns and mismatches but no min, max, stdev or
 *   percentiles. The two means differ by what the statistics cost.
 */
enum kvperf_stats_mode {
	KVPERF_STATS_MODE_ON,
	KVPERF_STATS_MODE_OFF,
};

/**
 * enum kvperf_bidir - Whether a listener serves bidirectional bandwidth runs,
 *   which make it send the client's traffic back. off: it refuses their
 *   connect requests (reject reason 10); on: it serves them.
 */
enum kvperf_bidir {
	KVPERF_BIDIR_OFF,
	KVPERF_BIDIR_ON,
};

/**
 * enum kvperf_post_context - The context a kernel-path client posts its
 *   data-path work requests from. process: the run's kernel thread calls
 *   ib_post_send() and ib_post_recv() as it is, as the submission paths of
 *   nvme-rdma and xprtrdma do; bh: with bottom halves disabled around each of
 *   those calls (local_bh_disable() / local_bh_enable()), as ULPs that post
 *   from softirq completion handlers do, so that softirq work the post raises
 *   (a software device's tasklet) runs in the posting thread at
 *   local_bh_enable() rather than in ksoftirqd.
 */
enum kvperf_post_context {
	KVPERF_POST_CONTEXT_PROCESS,
	KVPERF_POST_CONTEXT_BH,
};

enum {
	KVPERF_A_GID_INDEX = 1,
	KVPERF_A_GID_VALUE,
	KVPERF_A_GID_TYPE,
	KVPERF_A_GID_NETDEV,

	__KVPERF_A_GID_MAX,
	KVPERF_A_GID_MAX = (__KVPERF_A_GID_MAX - 1)
};

enum {
	KVPERF_A_PORT_NUMBER = 1,
	KVPERF_A_PORT_STATE,
	KVPERF_A_PORT_PHYS_STATE,
	KVPERF_A_PORT_LINK_LAYER,
	KVPERF_A_PORT_ACTIVE_MTU,
	KVPERF_A_PORT_MAX_MTU,
	KVPERF_A_PORT_WIDTH,
	KVPERF_A_PORT_SPEED,
	KVPERF_A_PORT_RATE_MBPS,
	KVPERF_A_PORT_LID,
	KVPERF_A_PORT_SM_LID,
	KVPERF_A_PORT_LMC,
	KVPERF_A_PORT_MAX_MSG_SIZE,
	KVPERF_A_PORT_GID_TBL_LEN,
	KVPERF_A_PORT_NETDEV,
	KVPERF_A_PORT_GID,

	__KVPERF_A_PORT_MAX,
	KVPERF_A_PORT_MAX = (__KVPERF_A_PORT_MAX - 1)
};

enum {
	KVPERF_A_DEV_INDEX = 1,
	KVPERF_A_DEV_NAME,
	KVPERF_A_DEV_NODE_GUID,
	KVPERF_A_DEV_SYS_IMAGE_GUID,
	KVPERF_A_DEV_NODE_TYPE,
	KVPERF_A_DEV_TRANSPORT,
	KVPERF_A_DEV_FW_VERSION,
	KVPERF_A_DEV_PORT_COUNT,
	KVPERF_A_DEV_PORT,
	KVPERF_A_DEV_MAX_QP,
	KVPERF_A_DEV_MAX_QP_WR,
	KVPERF_A_DEV_MAX_CQ,
	KVPERF_A_DEV_MAX_CQE,
	KVPERF_A_DEV_MAX_MR,
	KVPERF_A_DEV_MAX_MR_SIZE,
	KVPERF_A_DEV_MAX_PD,
	KVPERF_A_DEV_MAX_SEND_SGE,
	KVPERF_A_DEV_MAX_RECV_SGE,
	KVPERF_A_DEV_MAX_SGE_RD,
	KVPERF_A_DEV_MAX_QP_RD_ATOM,
	KVPERF_A_DEV_MAX_FAST_REG_PAGES,
	KVPERF_A_DEV_MAX_INLINE,
	KVPERF_A_DEV_PAD,

	__KVPERF_A_DEV_MAX,
	KVPERF_A_DEV_MAX = (__KVPERF_A_DEV_MAX - 1)
};

enum {
	KVPERF_A_CONN_PEER_ADDR = 1,
	KVPERF_A_CONN_PEER_PORT,
	KVPERF_A_CONN_OP,
	KVPERF_A_CONN_SIZE_MAX,
	KVPERF_A_CONN_ITERATIONS,
	KVPERF_A_CONN_PAD,

	__KVPERF_A_CONN_MAX,
	KVPERF_A_CONN_MAX = (__KVPERF_A_CONN_MAX - 1)
};

enum {
	KVPERF_A_PREFIX_ADDR = 1,
	KVPERF_A_PREFIX_LEN,

	__KVPERF_A_PREFIX_MAX,
	KVPERF_A_PREFIX_MAX = (__KVPERF_A_PREFIX_MAX - 1)
};

enum {
	KVPERF_A_SERVER_ID = 1,
	KVPERF_A_SERVER_ADDR,
	KVPERF_A_SERVER_PORT,
	KVPERF_A_SERVER_DEV,
	KVPERF_A_SERVER_CONN_COUNT,
	KVPERF_A_SERVER_CONN,
	KVPERF_A_SERVER_POLL,
	KVPERF_A_SERVER_IDLE_TIMEOUT_MS,
	KVPERF_A_SERVER_ALLOW,
	KVPERF_A_SERVER_KEY,
	KVPERF_A_SERVER_KEYED,
	KVPERF_A_SERVER_CONNS_MAX,
	KVPERF_A_SERVER_PEER_CONNS_MAX,
	KVPERF_A_SERVER_PINNED,
	KVPERF_A_SERVER_ACCEPTED,
	KVPERF_A_SERVER_REFUSED_REQUEST,
	KVPERF_A_SERVER_REFUSED_ADDRESS,
	KVPERF_A_SERVER_REFUSED_KEY,
	KVPERF_A_SERVER_REFUSED_BUSY,
	KVPERF_A_SERVER_REFUSED_MEMORY,
	KVPERF_A_SERVER_CLOSED_IDLE,
	KVPERF_A_SERVER_CLOSED_DEAD,
	KVPERF_A_SERVER_PAD,
	KVPERF_A_SERVER_SRQ,
	KVPERF_A_SERVER_SRQ_GRANTED,
	KVPERF_A_SERVER_BIDIR,

	__KVPERF_A_SERVER_MAX,
	KVPERF_A_SERVER_MAX = (__KVPERF_A_SERVER_MAX - 1)
};

enum {
	KVPERF_A_IO_QUEUE_INDEX = 1,
	KVPERF_A_IO_QUEUE_CPU,
	KVPERF_A_IO_QUEUE_ITERATIONS,
	KVPERF_A_IO_QUEUE_ELAPSED_NS,
	KVPERF_A_IO_QUEUE_MISMATCHES,
	KVPERF_A_IO_QUEUE_MEAN_PS,
	KVPERF_A_IO_QUEUE_MIN_NS,
	KVPERF_A_IO_QUEUE_P50_NS,
	KVPERF_A_IO_QUEUE_P99_NS,
	KVPERF_A_IO_QUEUE_MAX_NS,
	KVPERF_A_IO_QUEUE_PAD,
	KVPERF_A_IO_QUEUE_CPU_NS,
	KVPERF_A_IO_QUEUE_TARGET_CPU_NS,

	__KVPERF_A_IO_QUEUE_MAX,
	KVPERF_A_IO_QUEUE_MAX = (__KVPERF_A_IO_QUEUE_MAX - 1)
};

enum {
	KVPERF_A_RESULT_SIZE = 1,
	KVPERF_A_RESULT_ITERATIONS,
	KVPERF_A_RESULT_MIN_NS,
	KVPERF_A_RESULT_MAX_NS,
	KVPERF_A_RESULT_MEAN_PS,
	KVPERF_A_RESULT_STDEV_PS,
	KVPERF_A_RESULT_P50_NS,
	KVPERF_A_RESULT_P90_NS,
	KVPERF_A_RESULT_P99_NS,
	KVPERF_A_RESULT_P999_NS,
	KVPERF_A_RESULT_P9999_NS,
	KVPERF_A_RESULT_MISMATCHES,
	KVPERF_A_RESULT_HIST_REL_ERR_PPM,
	KVPERF_A_RESULT_ELAPSED_NS,
	KVPERF_A_RESULT_PAD,
	KVPERF_A_RESULT_OP,
	KVPERF_A_RESULT_REG_NS,
	KVPERF_A_RESULT_INV_NS,
	KVPERF_A_RESULT_QUEUE,
	KVPERF_A_RESULT_CPU_NS,
	KVPERF_A_RESULT_TARGET_CPU_NS,

	__KVPERF_A_RESULT_MAX,
	KVPERF_A_RESULT_MAX = (__KVPERF_A_RESULT_MAX - 1)
};

enum {
	KVPERF_A_BW_QP_INDEX = 1,
	KVPERF_A_BW_QP_CPU,
	KVPERF_A_BW_QP_MESSAGES,
	KVPERF_A_BW_QP_BYTES,
	KVPERF_A_BW_QP_ELAPSED_NS,
	KVPERF_A_BW_QP_PEER_MESSAGES,
	KVPERF_A_BW_QP_PAD,

	__KVPERF_A_BW_QP_MAX,
	KVPERF_A_BW_QP_MAX = (__KVPERF_A_BW_QP_MAX - 1)
};

enum {
	KVPERF_A_BW_RESULT_SIZE = 1,
	KVPERF_A_BW_RESULT_MESSAGES,
	KVPERF_A_BW_RESULT_BYTES,
	KVPERF_A_BW_RESULT_ELAPSED_NS,
	KVPERF_A_BW_RESULT_PEAK_BPS,
	KVPERF_A_BW_RESULT_CPU_NS,
	KVPERF_A_BW_RESULT_MISMATCHES,
	KVPERF_A_BW_RESULT_PEER_MESSAGES,
	KVPERF_A_BW_RESULT_RX_MESSAGES,
	KVPERF_A_BW_RESULT_RX_BYTES,
	KVPERF_A_BW_RESULT_RX_ELAPSED_NS,
	KVPERF_A_BW_RESULT_QP,
	KVPERF_A_BW_RESULT_PAD,

	__KVPERF_A_BW_RESULT_MAX,
	KVPERF_A_BW_RESULT_MAX = (__KVPERF_A_BW_RESULT_MAX - 1)
};

enum {
	KVPERF_A_RUN_ID = 1,
	KVPERF_A_RUN_TYPE,
	KVPERF_A_RUN_OP,
	KVPERF_A_RUN_ADDR,
	KVPERF_A_RUN_PORT,
	KVPERF_A_RUN_DEV,
	KVPERF_A_RUN_SIZE,
	KVPERF_A_RUN_SIZE_MAX,
	KVPERF_A_RUN_ITERATIONS,
	KVPERF_A_RUN_DURATION_MS,
	KVPERF_A_RUN_WARMUP,
	KVPERF_A_RUN_POLL,
	KVPERF_A_RUN_INLINE,
	KVPERF_A_RUN_VERIFY,
	KVPERF_A_RUN_CPU,
	KVPERF_A_RUN_TIMEOUT_MS,
	KVPERF_A_RUN_STATE,
	KVPERF_A_RUN_ERROR,
	KVPERF_A_RUN_RESULT,
	KVPERF_A_RUN_KERNEL,
	KVPERF_A_RUN_MTU,
	KVPERF_A_RUN_PROGRESS,
	KVPERF_A_RUN_PAD,
	KVPERF_A_RUN_TX_DEPTH,
	KVPERF_A_RUN_QPS,
	KVPERF_A_RUN_CPUS,
	KVPERF_A_RUN_POST_LIST,
	KVPERF_A_RUN_SIGNAL_EVERY,
	KVPERF_A_RUN_BIDIR,
	KVPERF_A_RUN_INTERVAL_MS,
	KVPERF_A_RUN_WARMUP_MS,
	KVPERF_A_RUN_BW_RESULT,
	KVPERF_A_RUN_BYTES,
	KVPERF_A_RUN_INTERVAL_BYTES,
	KVPERF_A_RUN_INTERVAL_MESSAGES,
	KVPERF_A_RUN_INTERVAL_NS,
	KVPERF_A_RUN_CUR_SIZE,
	KVPERF_A_RUN_STATS,
	KVPERF_A_RUN_KEY,
	KVPERF_A_RUN_RESULTS_FROM,
	KVPERF_A_RUN_POST_CONTEXT,
	KVPERF_A_RUN_QD,
	KVPERF_A_RUN_INV,
	KVPERF_A_RUN_SEGMENTS,
	KVPERF_A_RUN_READ_PCT,
	KVPERF_A_RUN_REG,
	KVPERF_A_RUN_INLINE_DATA,
	KVPERF_A_RUN_BSS,

	__KVPERF_A_RUN_MAX,
	KVPERF_A_RUN_MAX = (__KVPERF_A_RUN_MAX - 1)
};

enum {
	KVPERF_CMD_DEV_GET = 1,
	KVPERF_CMD_DEV_ADD_NTF,
	KVPERF_CMD_DEV_DEL_NTF,
	KVPERF_CMD_SERVER_START,
	KVPERF_CMD_SERVER_GET,
	KVPERF_CMD_SERVER_STOP,
	KVPERF_CMD_RUN_START,
	KVPERF_CMD_RUN_GET,
	KVPERF_CMD_RUN_STOP,
	KVPERF_CMD_RUN_DELETE,
	KVPERF_CMD_RUN_FINISHED_NTF,
	KVPERF_CMD_RUN_PROGRESS_NTF,
	KVPERF_CMD_SERVER_STARTED_NTF,
	KVPERF_CMD_SERVER_STOPPED_NTF,
	KVPERF_CMD_CONN_ACCEPTED_NTF,
	KVPERF_CMD_CONN_CLOSED_NTF,

	__KVPERF_CMD_MAX,
	KVPERF_CMD_MAX = (__KVPERF_CMD_MAX - 1)
};

#define KVPERF_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_KVPERF_H */
