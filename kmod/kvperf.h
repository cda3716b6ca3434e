/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: definitions shared by the module's files.
 */
#ifndef _KVPERF_H
#define _KVPERF_H

#include <linux/kvperf.h>
#include <linux/list.h>
#include <linux/types.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>

#define KVPERF_VERSION		"0.1.0"
/* Version of the netlink, sysfs and debugfs interface as a whole. */
#define KVPERF_ABI_VERSION	1

/**
 * struct kvperf_device - an RDMA device kvperf tracks
 * @node: entry in the device list, protected by the device list lock
 * @ibdev: the ib_core device; valid until its ib_client remove callback
 * @max_inline: largest RC inline size, probed on first use
 * @inline_probed: @max_inline holds the probe's result
 */
struct kvperf_device {
	struct list_head node;
	struct ib_device *ibdev;
	u32 max_inline;
	bool inline_probed;
};

/* device.c */
int kvperf_device_init(void);
void kvperf_device_exit(void);
void kvperf_device_lock(void);
void kvperf_device_unlock(void);
struct kvperf_device *kvperf_device_find(const char *name);
struct list_head *kvperf_device_list(void);
u32 kvperf_device_max_inline(struct kvperf_device *kdev);

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
void kvperf_nl_dev_notify(struct kvperf_device *kdev, u8 cmd);

/* nl_server.c, nl_run.c */
int kvperf_nl_server_start_doit(struct sk_buff *skb, struct genl_info *info);
int kvperf_nl_server_get_doit(struct sk_buff *skb, struct genl_info *info);
int kvperf_nl_server_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb);
int kvperf_nl_server_stop_doit(struct sk_buff *skb, struct genl_info *info);
int kvperf_nl_run_start_doit(struct sk_buff *skb, struct genl_info *info);
int kvperf_nl_run_get_doit(struct sk_buff *skb, struct genl_info *info);
int kvperf_nl_run_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int kvperf_nl_run_stop_doit(struct sk_buff *skb, struct genl_info *info);
int kvperf_nl_run_delete_doit(struct sk_buff *skb, struct genl_info *info);
struct kvperf_run;
void kvperf_nl_run_finished(struct kvperf_run *run);

/**
 * struct kvperf_nl_bw_progress - a progress event of a bandwidth run
 * @size: message size being measured
 * @bytes: measured bytes so far, all sizes
 * @interval_bytes: bytes completed in the interval
 * @interval_messages: messages completed in the interval
 * @interval_ns: its length
 */
struct kvperf_nl_bw_progress {
	u32 size;
	u64 bytes;
	u64 interval_bytes;
	u64 interval_messages;
	u64 interval_ns;
};

void kvperf_nl_run_progress(struct kvperf_run *run,
			    const struct kvperf_nl_bw_progress *bw);

/* pin.c */
enum kvperf_pin_pool {
	KVPERF_PIN_RUNS,
	KVPERF_PIN_SERVERS,
	KVPERF_PIN_POOLS,
};

/**
 * struct kvperf_footprint - what connections hold, as pin.c counts it
 * @buf_bytes: message buffers
 * @queue_bytes: send and receive queue entries and completion queue
 *		 entries, as kvperf_conn_footprint() estimates them
 */
struct kvperf_footprint {
	u64 buf_bytes;
	u64 queue_bytes;
};

bool kvperf_pin(enum kvperf_pin_pool pool, const struct kvperf_footprint *f);
void kvperf_unpin(enum kvperf_pin_pool pool, const struct kvperf_footprint *f);
u64 kvperf_pinned_bytes(void);
u64 kvperf_queued_bytes(void);
u64 kvperf_pool_bytes(enum kvperf_pin_pool pool);
u64 kvperf_pinned_limit(enum kvperf_pin_pool pool);

/* sysfs.c */
int kvperf_sysfs_init(void);
void kvperf_sysfs_exit(void);
struct kobject *kvperf_sysfs_runs(void);

/* debugfs.c */
void kvperf_debugfs_init(void);
void kvperf_debugfs_exit(void);
void kvperf_debugfs_run_add(struct kvperf_run *run);
void kvperf_debugfs_run_remove(struct kvperf_run *run);

#endif /* _KVPERF_H */
