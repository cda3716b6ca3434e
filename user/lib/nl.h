/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generic netlink side of the tool: the socket, finding the kvperf
 * family, requests and dumps with the kernel's errors reported, and
 * multicast subscriptions.
 */
#ifndef KVPERF_NL_H
#define KVPERF_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <netlink/msg.h>

struct attr_set;
struct kvperf;

struct knl {
	struct nl_sock *sk;
	int family;
};

/*
 * Called for each reply message of a request; returns 0, or a negative
 * errno after printing why it stops the request.
 */
typedef int (*knl_reply_fn)(const struct nlmsghdr *nlh, void *arg);

int knl_open(struct kvperf *kv, struct knl *nl);
void knl_close(struct knl *nl);
struct nl_msg *knl_msg(struct kvperf *kv, struct knl *nl, uint8_t cmd,
		       int flags);
int knl_request(struct kvperf *kv, struct knl *nl, struct nl_msg *msg,
		const struct attr_set *set, knl_reply_fn fn, void *arg);
int knl_subscribe(struct kvperf *kv, struct knl *nl, const char *group);
struct nl_cb *knl_event_cb(struct kvperf *kv);

/* Where knl_get_id() puts the id from the reply of a start command. */
struct knl_reply_id {
	const struct attr_set *set;
	int attr;
	FILE *err;
	uint32_t id;
	bool found;
};

int knl_get_id(const struct nlmsghdr *nlh, void *arg);
struct nl_msg *knl_id_msg(struct kvperf *kv, struct knl *nl, uint8_t cmd,
			  int id_attr, const uint32_t *id);
int knl_request_id(struct kvperf *kv, struct knl *nl, uint8_t cmd,
		   const struct attr_set *set, int id_attr, uint32_t id,
		   int (*fn)(const struct nlmsghdr *nlh, void *arg),
		   void *arg);

#endif /* KVPERF_NL_H */
