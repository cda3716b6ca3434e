/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: in-kernel RDMA CM listeners and the connections they serve.
 */
#ifndef _KVPERF_SERVER_H
#define _KVPERF_SERVER_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <rdma/ib_verbs.h>

#include "bw.h"
#include "conn.h"

#define KVPERF_SERVERS_MAX	8
#define KVPERF_SERVER_CONNS_MAX	16

/* First member of the context of every CM id of a server. */
struct kvperf_cm_ctx {
	bool listener;
};

/**
 * struct kvperf_sconn - one connection a listener accepted
 * @ctx: CM id context header
 * @node: entry in the server's list
 * @srv: the server
 * @conn: the connection
 * @task: the thread that answers the client; holds a reference
 * @peer: the client's address
 * @op: operation the client measures
 * @type: enum kvperf_run_type of the client's run
 * @verify: the client verifies payloads
 * @bidir: bandwidth runs, send the same traffic back
 * @bw: bandwidth runs, the connection's bandwidth state
 * @waiter: bandwidth runs, what the thread sleeps on
 * @established: the connection is up
 * @finished: the thread has freed the connection's resources
 * @stop: the server wants the thread to end
 * @served: iterations answered
 * @pinned: bytes of memory accounted for
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
	struct kvperf_bw_waiter waiter;
	bool established;
	bool finished;
	bool stop;
	atomic64_t served;
	size_t pinned;
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
 * @lock: protects @listen_id, @conns, @nconns and @stopping
 * @conns: the connections
 * @nconns: entries in @conns
 * @stopping: the server is being stopped; refuse new connections
 */
struct kvperf_server {
	struct kvperf_cm_ctx ctx;
	struct list_head node;
	u32 id;
	struct rdma_cm_id *listen_id;
	struct sockaddr_storage addr;
	char dev[IB_DEVICE_NAME_MAX];
	u32 max_inline;
	struct mutex lock;	/* see the kernel-doc above */
	struct list_head conns;
	u32 nconns;
	bool stopping;
};

int kvperf_server_start(const struct sockaddr_storage *addr, const char *dev,
			struct netlink_ext_ack *extack, u32 *id);
int kvperf_server_stop(u32 id);
void kvperf_servers_lock(void);
void kvperf_servers_unlock(void);
struct kvperf_server *kvperf_server_find(u32 id);
struct list_head *kvperf_server_list(void);
void kvperf_server_reap(struct kvperf_server *srv);
int kvperf_servers_init(void);
void kvperf_servers_exit(void);
unsigned int kvperf_server_count(void);

#endif /* _KVPERF_SERVER_H */
