/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Extended acknowledgements: what the kernel says when it refuses a
 * request (NETLINK_EXT_ACK), and turning that into a message for the user.
 */
#ifndef KVPERF_EXTACK_H
#define KVPERF_EXTACK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/netlink.h>

struct attr_set;

struct extack {
	/* 0 or a negative errno */
	int error;
	/* the kernel's message, pointing into the parsed message */
	const char *msg;
	bool has_offs;
	uint32_t offs;
	bool has_miss_type;
	uint32_t miss_type;
	bool has_miss_nest;
	uint32_t miss_nest;
};

int extack_parse(const struct nlmsghdr *nlh, struct extack *ext);
struct attr_spec;

bool extack_attr_path(const struct nlmsghdr *req, unsigned int hdrlen,
		      const struct attr_set *set, uint32_t offs,
		      char *buf, size_t size, const struct attr_spec **spec);
void extack_report(FILE *f, const struct extack *ext,
		   const struct nlmsghdr *req, unsigned int hdrlen,
		   const struct attr_set *set);

#endif /* KVPERF_EXTACK_H */
