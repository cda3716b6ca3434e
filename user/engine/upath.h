/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user path's server: the module's latency and bandwidth loops,
 * server side, run by this process on libibverbs and librdmacm, speaking
 * the module's wire protocol (<linux/kvperf_wire.h>), so that either side
 * can be the kernel's. It prints nothing: what happens is reported
 * through struct upath_server_ops. The client's runs are upath_run.h's.
 */
#ifndef KVPERF_UPATH_H
#define KVPERF_UPATH_H

#include <stdbool.h>
#include <stdint.h>

#include "fmt.h"

struct access_prefix;
struct kv_server_cfg;

/**
 * struct upath_server_info - a server that listens, as it is set up
 * @cfg: what it was asked for
 * @dev: the RDMA device of its address
 * @poll: enum kvperf_poll of every connection
 * @allow: the prefixes in force (the default: the address's subnet)
 * @nallow: how many
 * @conns_max: most connections at once
 * @peer_conns_max: most from one address
 * @keyed: connect requests must carry the key
 * @srq: the receives of the I/O connections' shared receive queue, 0 for
 *	 none
 */
struct upath_server_info {
	const struct kv_server_cfg *cfg;
	const char *dev;
	uint8_t poll;
	const struct access_prefix *allow;
	unsigned int nallow;
	unsigned int conns_max;
	unsigned int peer_conns_max;
	bool keyed;
	uint32_t srq;
};

/**
 * struct upath_server_conn - a connection the server accepted
 * @id: its number, from 1
 * @peer_addr: the client's address, "198.18.0.1"
 * @peer: with its port, "198.18.0.1:34567", "[2001:2::1]:34567"
 * @peer_port: the client's port
 * @type: enum kvperf_run_type of its run
 * @op: enum kvperf_op
 * @poll: enum kvperf_poll, the server's
 * @size_max: its largest message
 * @verify: payloads are checked
 * @bidir: the server sends back
 */
struct upath_server_conn {
	unsigned int id;
	char peer_addr[FMT_ADDR_LEN];
	char peer[FMT_ADDR_LEN];
	uint16_t peer_port;
	uint8_t type;
	uint8_t op;
	uint8_t poll;
	uint32_t size_max;
	bool verify;
	bool bidir;
};

/**
 * struct upath_server_refusal - a connect request the server refused
 * @peer_addr: the client's address
 * @peer: with its port
 * @peer_port: the client's port
 * @why: enum kvperf_wire_reject
 */
struct upath_server_refusal {
	char peer_addr[FMT_ADDR_LEN];
	char peer[FMT_ADDR_LEN];
	uint16_t peer_port;
	uint8_t why;
};

/* The counters, as the module's listeners keep them (but the idle ones). */
struct upath_server_counts {
	uint64_t accepted;
	uint64_t refused_request;
	uint64_t refused_address;
	uint64_t refused_key;
	uint64_t refused_busy;
	uint64_t refused_memory;
};

/**
 * struct upath_server_ops - what the user-path server reports
 * @listening: it listens; called once, before any connection
 * @conn: it accepted a connection
 * @refused: it refused a connect request
 * @stopped: it stopped, with its counters
 * @error: a line for stderr: a connection that ended in error, a
 *	   listener that cannot start
 * @should_stop: polled every 200 ms; true stops the server (a signal
 *		 caught by upath_catch_signals() does too); may be NULL
 * @arg: passed to all of them
 *
 * Each may be NULL. They are called one at a time, from the server's
 * thread or a connection's.
 */
struct upath_server_ops {
	void (*listening)(void *arg, const struct upath_server_info *info);
	void (*conn)(void *arg, const struct upath_server_conn *c);
	void (*refused)(void *arg, const struct upath_server_refusal *r);
	void (*stopped)(void *arg, const struct upath_server_counts *n);
	void (*error)(void *arg, const char *msg);
	bool (*should_stop)(void *arg);
	void *arg;
};

int upath_serve(const struct kv_server_cfg *o,
		const struct upath_server_ops *ops);

#endif /* KVPERF_UPATH_H */
