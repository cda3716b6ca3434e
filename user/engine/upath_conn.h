/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user path: one RDMA connection's resources (CM id, PD, CQ, QP, the
 * two registered buffers) and the primitives the loops are built from,
 * as kmod/conn.c has them for the kernel path: posting, reaping the CQ
 * (ibv_poll_cq spinning, or sleeping on a completion channel), waiting
 * for conditions, and the connection's CM events.
 */
#ifndef KVPERF_UPATH_CONN_H
#define KVPERF_UPATH_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define UPATH_RECV_DEPTH	8
/*
 * Receives a data receiver (the target of a SEND bandwidth run) keeps
 * posted beyond the sender's window, where the device has room: the
 * thread that reposts them may run late, and a sender that finds the
 * queue empty waits out an RNR timer (perftest posts 512 by default).
 */
#define UPATH_RECV_SLACK	512
/*
 * What a receiver tells a sender that found no receive posted: retry in
 * 0.64 ms (IBTA RNR timer code 12), as the kernel path does. The CM
 * default, 0, means 655 ms.
 */
#define UPATH_MIN_RNR_TIMER	12
#define UPATH_SEND_DEPTH	8
#define UPATH_NS_PER_MS		1000000ULL
#define UPATH_NS_PER_S		1000000000ULL

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

struct upath_conn;

/*
 * What a work request's completion does: every work request's wr_id
 * points at one, as every kernel work request carries an ib_cqe.
 */
struct upath_cqe {
	void (*done)(struct upath_conn *c, const struct ibv_wc *wc);
};

/**
 * struct upath_buf - a registered buffer
 * @p: its memory, page-aligned and zeroed
 * @len: usable length (at least KVPERF_BUF_MIN)
 * @mr: its memory region
 */
struct upath_buf {
	uint8_t *p;
	size_t len;
	struct ibv_mr *mr;
};

/**
 * struct upath_recv - what a receive completion said
 * @byte_len: payload length
 * @imm: immediate data, host order
 * @has_imm: a control message
 */
struct upath_recv {
	uint32_t byte_len;
	uint32_t imm;
	bool has_imm;
};

/**
 * struct upath_waiter - what a thread sleeps on between completions
 * @ch: the completion channel of its CQs; NULL when it busy-polls
 * @events: signaled bandwidth completions it has seen
 */
struct upath_waiter {
	struct ibv_comp_channel *ch;
	uint64_t events;
};

/**
 * struct upath_conn_attr - the shape of a connection's resources
 * @poll: enum kvperf_poll: busy polls, the others sleep on a channel
 * @size_max: largest message
 * @inline_size: send inline up to this size
 * @send_depth: send work requests in flight at most
 * @recv_depth: receives kept posted; with @srq, the receive completions
 *		the CQ has room for (the QP posts none of its own)
 * @recv_slack: more receives kept posted as far as the device's queue
 *		and completion queue limits leave room
 * @any_vector: spread CQs over the completion vectors (bandwidth)
 * @send_sges: SGEs of a send work request at most, 0 for 1
 * @own_recvs: the connection's user posts its receives itself (I/O runs)
 * @mw: the connection's user binds type 2 memory windows (reg mw): the
 *	device must have them
 * @pd: a protection domain of the server's to use instead of one of the
 *	connection's own (the one @srq is on), or NULL; it outlives the
 *	connection
 * @srq: the QP takes its receives from this shared receive queue, on
 *	 @pd, of the same device, and posts none; or NULL
 */
struct upath_conn_attr {
	uint8_t poll;
	uint32_t size_max;
	uint32_t inline_size;
	uint32_t send_depth;
	uint32_t recv_depth;
	uint32_t recv_slack;
	bool any_vector;
	uint32_t send_sges;
	bool own_recvs;
	bool mw;
	struct ibv_pd *pd;
	struct ibv_srq *srq;
};

/**
 * struct upath_conn - one RC connection, driven by one thread
 * @cm_ch: the CM event channel of @id, its own
 * @id: the CM id
 * @pd: protection domain
 * @shared_pd: @pd is the server's (upath_conn_attr.pd), not freed here
 * @srq: the shared receive queue the QP takes its receives from, or NULL
 * @cq: the one CQ for sends and receives; its context is the connection
 * @waiter: what the driving thread sleeps on (its channel, if any)
 * @armed: @cq is armed for a completion event
 * @spin: the current wait polls memory: never sleep
 * @server: the server side (for CM events' meaning)
 * @established: the CM said so
 * @cm_event: the last connection step the CM reached
 * @tx: what we send or write from
 * @rx: what we receive into, what the peer writes to and reads from
 * @data: an I/O run's data blocks; empty otherwise
 * @size_max: largest message
 * @inline_size: send inline up to this size
 * @recv_depth: receives posted
 * @remote_rkey: rkey of the peer's @rx
 * @remote_addr: address of the peer's @rx
 * @credits: I/O runs, the I/Os the server lets the client keep outstanding
 * @send_cqe: completions of upath_conn_post_send()
 * @recv_cqe: completions of receives
 * @sends_posted: signaled requests of upath_conn_post_send()
 * @sends_done: of which completed
 * @recvs_done: receive completions, consumed through @ring
 * @recvs_seen: of which consumed
 * @ring: the last receive completions
 * @count_data: bandwidth: receives without immediate data are counted
 *		in @data_recvs (the wrong length also in @bad_recvs) and
 *		posted again at once
 * @expect_len: the length of a data message, with @count_data
 * @data_recvs: data messages received
 * @bad_recvs: of which had the wrong length
 * @error: first error (negative errno), 0 while all is well
 * @reason: what went wrong, static text
 * @timeout_ns: longest wait, 0 for none
 * @stop: returns true when the owner wants the loops to end
 * @stop_arg: its argument
 * @cm_next_ns: when busy loops look at CM events next
 * @max_rd_atom: the device's max_qp_rd_atom
 * @max_init_rd_atom: the device's max_qp_init_rd_atom
 * @dev: the device's name
 * @mtu: the path MTU, once connected
 * @why: room for a @reason that names the device
 * @vendor_id: the device's
 * @unbind: called by upath_conn_close() once the QP is disconnected
 *	    (in the error state), before the QP is destroyed and the
 *	    buffers are deregistered, for what is bound to both (memory
 *	    windows), or NULL
 * @unbind_arg: its argument
 * @drain: with @srq, called by upath_conn_close() once the QP is
 *	   destroyed and before the CQ is, with each completion still on
 *	   the CQ (receives of @srq the QP took and nobody reaped), so that
 *	   they go back to their owner; or NULL
 * @ctx: the connection's user's state, for handlers of work requests that
 *	 are not the connection's own (the receives of @srq): the CQ says
 *	 which connection, this what of it
 */
struct upath_conn {
	struct rdma_event_channel *cm_ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	bool shared_pd;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct upath_waiter *waiter;
	bool armed;
	bool spin;
	bool server;
	bool established;
	int cm_event;
	struct upath_buf tx;
	struct upath_buf rx;
	struct upath_buf data;
	uint32_t size_max;
	uint32_t inline_size;
	uint32_t recv_depth;
	uint32_t remote_rkey;
	uint64_t remote_addr;
	uint32_t credits;
	struct upath_cqe send_cqe;
	struct upath_cqe recv_cqe;
	uint32_t sends_posted;
	uint32_t sends_done;
	uint32_t recvs_done;
	uint32_t recvs_seen;
	struct upath_recv ring[UPATH_RECV_DEPTH];
	bool count_data;
	uint32_t expect_len;
	uint64_t data_recvs;
	uint64_t bad_recvs;
	int error;
	const char *reason;
	uint64_t timeout_ns;
	bool (*stop)(void *arg);
	void *stop_arg;
	uint64_t cm_next_ns;
	uint32_t max_rd_atom;
	uint32_t max_init_rd_atom;
	char dev[64];
	uint32_t mtu;
	char why[128];
	uint32_t vendor_id;
	void (*unbind)(struct upath_conn *c, void *arg);
	void *unbind_arg;
	void (*drain)(struct upath_conn *c, const struct ibv_wc *wc);
	void *ctx;
};

uint64_t upath_now_ns(void);
void upath_nap(void);

void upath_conn_init(struct upath_conn *c, uint64_t timeout_ns,
		     bool (*stop)(void *arg), void *stop_arg,
		     struct upath_waiter *w);
void upath_conn_fail(struct upath_conn *c, int err, const char *reason);
const char *upath_cm_channel_why(int err);
uint32_t upath_conn_recv_room(const struct ibv_device_attr *dattr,
			      const struct upath_conn_attr *attr);
int upath_conn_create(struct upath_conn *c, const struct upath_conn_attr *attr);
int upath_conn_post_recvs(struct upath_conn *c);
int upath_conn_alloc_data(struct upath_conn *c, size_t len, int access);
int upath_buf_reg(struct ibv_pd *pd, struct upath_buf *b, size_t len,
		  int access, const char **why);
void upath_buf_free(struct upath_buf *b);
int upath_conn_set_rnr_timer(struct upath_conn *c);
int upath_conn_own_channel(struct upath_conn *c);
int upath_conn_accept(struct upath_conn *c, uint16_t credits, uint8_t resp,
		      uint8_t init);
void upath_conn_close(struct upath_conn *c);
int upath_conn_post_recv(struct upath_conn *c);
int upath_conn_post_send(struct upath_conn *c, enum ibv_wr_opcode opcode,
			 uint32_t len, uint32_t imm);
int upath_conn_poll(struct upath_conn *c, int budget);
void upath_conn_cm_poll(struct upath_conn *c);
int upath_conn_wait(struct upath_conn *c,
		    bool (*cond)(struct upath_conn *c, void *arg), void *arg);
int upath_conn_wait_sends(struct upath_conn *c);
bool upath_conn_recv_pending(const struct upath_conn *c);
int upath_conn_wait_recv(struct upath_conn *c, struct upath_recv *r);
int upath_conn_wait_marker(struct upath_conn *c, uint32_t off, uint8_t marker,
			   bool or_recv);
void upath_waiter_sleep(struct upath_waiter *w, struct upath_conn **cs,
			unsigned int n);
void upath_waiter_destroy(struct upath_waiter *w);

void upath_buf_fill(struct upath_buf *b, size_t len, uint32_t seed);
bool upath_buf_check(const struct upath_buf *b, size_t len, uint32_t seed);
void upath_buf_clear(struct upath_buf *b, size_t len);
int upath_fault_parse(const char *s, unsigned int *n);
bool upath_buf_fault(struct upath_buf *b, size_t len);

#endif /* KVPERF_UPATH_CONN_H */
