/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The server object: in-kernel RDMA CM listeners that serve runs.
 */
#ifndef KVPERF_SERVER_H
#define KVPERF_SERVER_H

#include <stdint.h>
#include <stdio.h>
#include <linux/kvperf_wire.h>
#include <linux/netlink.h>

struct args;
struct kvperf;
struct nl_msg;
struct printer;

/* the spec's max-len of device names */
#define KVPERF_DEV_NAME_MAX	63

/* What "server start" asks for. */
struct server_opts {
	uint8_t addr[16];
	int addr_len;		/* 4 or 16 */
	uint16_t port;
	const char *dev;	/* NULL: whichever device has the address */
	uint8_t path;		/* enum run_path */
};

int server_start_parse(struct kvperf *kv, struct args *a,
		       struct server_opts *o);
int server_start_put(struct nl_msg *msg, const struct server_opts *o);
void server_print_started(struct printer *p, uint32_t id,
			  const struct server_opts *o);
int server_print(struct printer *p, const struct nlmsghdr *nlh, FILE *err);

#endif /* KVPERF_SERVER_H */
