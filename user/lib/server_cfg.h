/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model of a kvperf server's configuration: what "server start"
 * asks of a listener, typed, whichever path serves. The kernel path
 * encodes it as a server-start request; the user-path server takes it as
 * it is.
 */
#ifndef KVPERF_SERVER_CFG_H
#define KVPERF_SERVER_CFG_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/kvperf.h>
#include <linux/kvperf_wire.h>

#include "access.h"
#include "run_model.h"

struct kvperf;
struct nl_msg;

/**
 * struct kv_server_cfg - what a listener is asked to be
 * @has: bit per attribute of the server set given; the others take the
 *	 module's defaults (the port is always given)
 * @addr: the address to listen on, @addr_len bytes (4 or 16)
 * @addr_len: 4 or 16
 * @port: the port
 * @dev: the RDMA device that must have @addr, "" for any
 * @poll: enum kvperf_poll of every connection
 * @idle_timeout_ms: silence after which a connection is closed
 * @nallow: prefixes in @allow (KVPERF_A_SERVER_ALLOW given when not 0)
 * @allow: the prefixes peers must be in
 * @key: the shared secret peers must send, never printed
 * @conns_max: most connections at once
 * @peer_conns_max: most connections at once from one address
 * @srq: the receives of the shared receive queue of its I/O connections,
 *	 0 for none (each I/O connection posts its own)
 * @bidir: enum kvperf_bidir, whether it serves bidirectional bandwidth runs
 */
struct kv_server_cfg {
	uint64_t has;
	uint8_t addr[16];
	uint8_t addr_len;
	uint16_t port;
	char dev[KV_DEV_LEN];
	uint8_t poll;
	uint32_t idle_timeout_ms;
	unsigned int nallow;
	struct access_prefix allow[ACCESS_ALLOW_MAX];
	uint8_t key[KVPERF_WIRE_KEY_LEN];
	uint32_t conns_max;
	uint32_t peer_conns_max;
	uint32_t srq;
	uint8_t bidir;
};

void server_cfg_init(struct kv_server_cfg *cfg);
int server_cfg_put(struct nl_msg *msg, const struct kv_server_cfg *cfg);
void server_cfg_clear(struct kv_server_cfg *cfg);
int server_kernel_start(struct kvperf *kv, const struct kv_server_cfg *cfg,
			uint32_t *id);
int server_kernel_stop(struct kvperf *kv, uint32_t id);
int server_kernel_find(struct kvperf *kv, const uint8_t *addr,
		       uint8_t addr_len, uint16_t port, bool *found);

#endif /* KVPERF_SERVER_CFG_H */
