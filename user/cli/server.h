/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The server object: in-kernel RDMA CM listeners that serve runs.
 */
#ifndef KVPERF_SERVER_H
#define KVPERF_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/kvperf_wire.h>
#include <linux/netlink.h>

#include "server_cfg.h"

struct args;
struct kvperf;
struct printer;

/* the spec's limits of a listener's options (and KVPERF_DEV_NAME_MAX) */
#define SERVER_IDLE_TIMEOUT_MIN	KVPERF_IDLE_TIMEOUT_MS_MIN
#define SERVER_IDLE_TIMEOUT_MAX	KVPERF_IDLE_TIMEOUT_MS_MAX
#define SERVER_CONNS_MAX	KVPERF_SERVER_CONNS_MAX
#define SERVER_SRQ_MAX		KVPERF_SERVER_SRQ_MAX

/* The keywords of "server start", in the order prefixes resolve. */
enum server_kw {
	SKW_DEV,
	SKW_ADDR,
	SKW_PORT,
	SKW_PATH,
	SKW_POLL,
	SKW_IDLE_TIMEOUT,
	SKW_ALLOW,
	SKW_KEY,
	SKW_KEY_FILE,
	SKW_CONNS_MAX,
	SKW_PEER_CONNS_MAX,
	SKW_SRQ,
	SKW_BIDIR,
	SKW_COUNT
};

/*
 * What "server start" asks for: the listener's configuration, and what
 * the command alone uses; @given has bit (1 << SKW_*) per keyword.
 */
struct server_opts {
	uint64_t given;
	struct kv_server_cfg cfg;
	uint8_t path;		/* enum kv_run_path */
	/* key-file: read once the command line is known to be right */
	const char *key_file;
};

static inline bool server_opt(const struct server_opts *o, enum server_kw kw)
{
	return o->given & (1ULL << kw);
}

int server_start_parse(struct kvperf *kv, struct args *a,
		       struct server_opts *o);
void server_print_started(struct printer *p, uint32_t id,
			  const struct server_opts *o);
int server_print(struct printer *p, const struct nlmsghdr *nlh, FILE *err);

#endif /* KVPERF_SERVER_H */
