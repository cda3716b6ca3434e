/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: the generic netlink family, a front end of the module: its
 * commands call the engine, and the engine's events reach it through
 * the observers below (see run_events.h).
 */
#ifndef _KVPERF_NL_H
#define _KVPERF_NL_H

#include <net/genetlink.h>

#include "run_events.h"

/* nl.c */
extern struct genl_family kvperf_nl_family;
int kvperf_nl_init(void);
void kvperf_nl_exit(void);
void kvperf_nl_notify(struct sk_buff *skb);
struct sk_buff *kvperf_nl_event_alloc(size_t size);
struct sk_buff *kvperf_nl_event_new(u8 cmd, void **hdr);
struct sockaddr_storage;
int kvperf_nl_parse_addr(const struct nlattr *addr, const struct nlattr *port,
			 struct sockaddr_storage *ss,
			 struct netlink_ext_ack *extack);
int kvperf_nl_put_addr(struct sk_buff *skb, int addr_attr, int port_attr,
		       const struct sockaddr_storage *ss);

/* nl_dev.c */
int kvperf_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info);
int kvperf_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
extern struct kvperf_run_observer kvperf_nl_dev_observer;

/* nl_server.c */
int kvperf_nl_server_start_doit(struct sk_buff *skb, struct genl_info *info);
int kvperf_nl_server_get_doit(struct sk_buff *skb, struct genl_info *info);
int kvperf_nl_server_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb);
int kvperf_nl_server_stop_doit(struct sk_buff *skb, struct genl_info *info);
extern struct kvperf_run_observer kvperf_nl_server_observer;

/* nl_run.c */
int kvperf_nl_run_start_doit(struct sk_buff *skb, struct genl_info *info);
int kvperf_nl_run_get_doit(struct sk_buff *skb, struct genl_info *info);
int kvperf_nl_run_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int kvperf_nl_run_stop_doit(struct sk_buff *skb, struct genl_info *info);
int kvperf_nl_run_delete_doit(struct sk_buff *skb, struct genl_info *info);
extern struct kvperf_run_observer kvperf_nl_run_observer;

#endif /* _KVPERF_NL_H */
