/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runs on the kernel path: start, wait, delete, through the module's
 * netlink family.
 */
#ifndef KVPERF_RUN_KERNEL_H
#define KVPERF_RUN_KERNEL_H

#include <stdint.h>
#include <stdio.h>
#include <linux/netlink.h>

struct knl;
struct kv_run;
struct kv_run_cfg;
struct kvperf;

/**
 * struct run_wait - waiting for a run to end
 * @id: the run
 * @final: the run once it ended, a copy of the message; free() it
 * @progress: called with each progress event of the run, or NULL
 * @quiet: called before the wait writes to @err and when it ends, so
 *	   that a progress line can be taken off a terminal; or NULL
 * @arg: passed to @progress and @quiet
 * @err: where malformed messages are reported
 * @check_ms: how often to ask for the run's state, in case an event was
 *	      lost
 */
struct run_wait {
	uint32_t id;
	struct nlmsghdr *final;
	void (*progress)(void *arg, const struct kv_run *ev);
	void (*quiet)(void *arg);
	void *arg;
	FILE *err;
	unsigned int check_ms;
};

int run_wait_event(struct run_wait *w, const struct nlmsghdr *nlh);
int run_wait_reply(struct run_wait *w, const struct nlmsghdr *nlh);
int run_wait_loop(struct kvperf *kv, struct knl *nl, struct knl *ev,
		  int sfd, struct run_wait *w);
int run_events_open(struct kvperf *kv, struct knl *ev, int family);
int run_kernel_start(struct kvperf *kv, struct knl *nl,
		     const struct kv_run_cfg *cfg, uint32_t *id);
int run_kernel_delete(struct kvperf *kv, uint32_t id);
int run_kernel_exec(struct kvperf *kv, const struct kv_run_cfg *cfg,
		    int sfd, struct run_wait *w, struct kv_run *out);

#endif /* KVPERF_RUN_KERNEL_H */
