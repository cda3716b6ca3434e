/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: in-kernel RDMA CM listeners and the connections they serve.
 */
#ifndef _KVPERF_SERVER_H
#define _KVPERF_SERVER_H

#include <linux/atomic.h>
#include <linux/kvperf_wire.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "bw.h"
#include "conn.h"
#include "io.h"
#include "kvperf.h"

/*
 * The spec's constants (<linux/kvperf.h>) bound a listener's options:
 * KVPERF_SERVER_CONNS_MAX, KVPERF_SERVER_ALLOW_MAX and the idle timeout's.
 */
#define KVPERF_SERVERS_MAX	8
/*
 * Local ACK timeout of accepted connections, 4.096 us x 2^18: about 1 s,
 * so that a probe to a vanished client fails after (retry count + 1) s,
 * and congestion on a large fabric is not mistaken for a dead peer.
 */
#define KVPERF_SERVER_ACK_TIMEOUT		18
/*
 * How long a connection that failed at once waits for the client's RTU:
 * on an HCA it comes within microseconds; a slow or busy peer (a loaded
 * virtual machine took over a second) still hears of the failure. A
 * peer that never sends it holds its connection slot this long, half
 * of what the default idle timeout (10 s) lets a silent one hold.
 */
#define KVPERF_SERVER_RTU_WAIT_MS		5000

/**
 * struct kvperf_prefix - an address prefix
 * @alen: 4 (IPv4) or 16 (IPv6)
 * @len: prefix length in bits
 * @addr: the address, bits past @len clear
 */
struct kvperf_prefix {
	u8 alen;
	u8 len;
	u8 addr[16];
};

/**
 * struct kvperf_server_opts - what a listener's owner decided
 * @poll: enum kvperf_poll of every connection
 * @idle_ms: longest silence of a peer, in ms
 * @conns_max: connections at once
 * @peer_conns_max: connections at once from one peer address
 * @nallow: entries in @allow
 * @allow: prefixes peers may connect from
 * @keyed: peers must present @key
 * @key: the shared secret; never reported
 * @srq: receives of the I/O connections' shared receive queue, 0 for none
 * @bidir: serve bidirectional bandwidth runs
 */
struct kvperf_server_opts {
	u8 poll;
	u32 idle_ms;
	u32 conns_max;
	u32 peer_conns_max;
	u32 nallow;
	struct kvperf_prefix allow[KVPERF_SERVER_ALLOW_MAX];
	bool keyed;
	u8 key[KVPERF_WIRE_KEY_LEN];
	u32 srq;
	bool bidir;
};

/**
 * struct kvperf_server_counters - what happened to a listener's peers
 * @accepted: connections accepted
 * @refused_request: malformed, of another version or beyond the limits
 * @refused_address: outside the allow list
 * @refused_key: missing or wrong key
 * @refused_busy: conns_max or peer_conns_max reached
 * @refused_memory: pinned-memory bound or allocation failure
 * @closed_idle: peers silent past the idle timeout
 * @closed_dead: peers that stopped acknowledging keep-alive probes
 */
struct kvperf_server_counters {
	atomic64_t accepted;
	atomic64_t refused_request;
	atomic64_t refused_address;
	atomic64_t refused_key;
	atomic64_t refused_busy;
	atomic64_t refused_memory;
	atomic64_t closed_idle;
	atomic64_t closed_dead;
};

/* First member of the context of every CM id of a server. */
struct kvperf_cm_ctx {
	bool listener;
};

/**
 * struct kvperf_sconn - one connection a listener accepted
 * @ctx: CM id context header
 * @node: entry in the server's list of connections, or of those being
 *	  set up
 * @srv: the server
 * @conn: the connection
 * @task: the thread that answers the client; holds a reference
 * @peer: the client's address
 * @op: operation the client measures
 * @type: enum kvperf_run_type of the client's run
 * @verify: the client verifies payloads
 * @bidir: bandwidth runs, send the same traffic back
 * @bw: bandwidth runs, the connection's bandwidth state
 * @io: I/O runs, the connection's target state
 * @waiter: bandwidth runs, what the thread sleeps on
 * @keepalive: probes a silent peer every idle timeout / 4
 * @established: the connection is up
 * @announced: its thread published it as accepted, so it publishes its
 *	       close
 * @cm_ended: the CM reported the connection's end or failure
 * @finished: the thread has freed the connection's resources
 * @stop: the server wants the thread to end
 * @served: iterations answered
 * @footprint: memory accounted for in the servers' pool
 * @srq: I/O runs with the listener's shared receive queue: a reference
 * @credits: what @srq granted the connection
 */
struct kvperf_sconn {
	struct kvperf_cm_ctx ctx;
	struct list_head node;
	struct kvperf_server *srv;
	struct kvperf_conn conn;
	struct task_struct *task;
	struct sockaddr_storage peer;
	u8 op;
	u8 type;
	bool verify;
	bool bidir;
	struct kvperf_bw_qp *bw;
	struct kvperf_io_target *io;
	struct kvperf_bw_waiter waiter;
	struct delayed_work keepalive;
	bool established;
	bool announced;
	bool cm_ended;
	bool finished;
	bool stop;
	atomic64_t served;
	struct kvperf_footprint footprint;
	struct kvperf_io_srq *srq;
	u32 credits;
};

/**
 * struct kvperf_server - an RDMA CM listener
 * @ctx: CM id context header
 * @node: entry in the server list
 * @id: its id
 * @listen_id: the listening CM id; NULL once gone
 * @addr: the address it listens on
 * @dev: the device the address belongs to
 * @max_inline: the device's largest inline size: a client's inline
 *		threshold is clamped to it
 * @opts: its owner's choices
 * @count: its counters
 * @pinned: bytes its connections hold
 * @reap_work: frees the connections whose threads have ended
 * @remove_work: stops the listener when its device goes away; allocated
 *		 at start, so that teardown never needs memory
 * @lock: protects @listen_id, @conns, @pending, @nconns, @npending,
 *	  @live, @removed, @remove_work and @stopping; held for list and
 *	  counter changes only, never across an allocation or a verb, so
 *	  that server-get and dumps never wait on a connection's setup
 * @conns: the connections
 * @pending: connections being set up (allocated, accepted) under no lock
 * @nconns: entries in @conns and @pending
 * @npending: entries in @pending
 * @settled: woken when a connection leaves @pending
 * @live: started; the device-removal handler owns the id from now on
 * @removed: the device went away while the listener was being started
 * @stopping: the server is being stopped; refuse new connections
 * @srq: with @opts.srq, the I/O connections' shared receive queue; the
 *	 listener's reference, dropped (and NULL) once it stops or its
 *	 device goes; under @lock
 * @srq_footprint: what @srq pins, in the servers' pool
 */
struct kvperf_server {
	struct kvperf_cm_ctx ctx;
	struct list_head node;
	u32 id;
	struct rdma_cm_id *listen_id;
	struct sockaddr_storage addr;
	char dev[IB_DEVICE_NAME_MAX];
	u32 max_inline;
	struct kvperf_server_opts opts;
	struct kvperf_server_counters count;
	atomic64_t pinned;
	struct work_struct reap_work;
	struct kvperf_server_remove *remove_work;
	struct mutex lock;	/* see the kernel-doc above */
	struct list_head conns;
	struct list_head pending;
	u32 nconns;
	u32 npending;
	wait_queue_head_t settled;
	bool live;
	bool removed;
	bool stopping;
	struct kvperf_io_srq *srq;
	struct kvperf_footprint srq_footprint;
};

int kvperf_server_start(const struct sockaddr_storage *addr, const char *dev,
			const struct kvperf_server_opts *opts,
			struct netlink_ext_ack *extack, u32 *id);
int kvperf_server_stop(u32 id);
void kvperf_servers_lock(void);
void kvperf_servers_unlock(void);
struct kvperf_server *kvperf_server_find(u32 id);
struct list_head *kvperf_server_list(void);
int kvperf_servers_init(void);
void kvperf_servers_exit(void);
void kvperf_servers_remove_device(struct ib_device *ibdev);
unsigned int kvperf_server_count(void);

/* server_acl.c */
int kvperf_prefix_set(struct kvperf_prefix *p, const u8 *addr,
		      unsigned int alen, unsigned int len);
bool kvperf_prefix_match(const struct kvperf_prefix *p,
			 const struct sockaddr *sa);
int kvperf_acl_subnet(const struct sockaddr_storage *addr, int ifindex,
		      struct kvperf_prefix *p);
bool kvperf_acl_allows(const struct kvperf_server_opts *opts,
		       const struct sockaddr *peer);
bool kvperf_acl_key_ok(const struct kvperf_server_opts *opts, const u8 *key);
bool kvperf_acl_same_host(const struct sockaddr *a, const struct sockaddr *b);

#endif /* _KVPERF_SERVER_H */
