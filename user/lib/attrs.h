/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The attribute sets of the kvperf family as the tool needs them: each
 * attribute's name and type from the YAML spec, and a parser that checks
 * the kernel's attributes against them before anything reads a value.
 */
#ifndef KVPERF_ATTRS_H
#define KVPERF_ATTRS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <netlink/attr.h>

enum attr_kind {
	ATTR_UNKNOWN,	/* no such attribute in the spec: never checked */
	ATTR_U8,
	ATTR_U16,
	ATTR_U32,
	ATTR_U64,
	ATTR_S32,
	ATTR_STRING,	/* NUL-terminated */
	ATTR_BINARY,	/* @len bytes exactly, or any length if 0 */
	ATTR_ADDR,	/* an IP address: 4 (IPv4) or 16 (IPv6) bytes */
	ATTR_FLAG,	/* no payload */
	ATTR_NEST,
	ATTR_PAD,
};

struct attr_set;

struct attr_spec {
	const char *name;
	enum attr_kind kind;
	uint16_t len;
	/* ATTR_NEST: the set of the attributes inside */
	const struct attr_set *nested;
};

struct attr_set {
	const char *name;
	const struct attr_spec *attrs;
	unsigned int max;
};

extern const struct attr_set attrs_dev;
extern const struct attr_set attrs_port;
extern const struct attr_set attrs_gid;
extern const struct attr_set attrs_conn;
extern const struct attr_set attrs_prefix;
extern const struct attr_set attrs_server;
extern const struct attr_set attrs_result;
extern const struct attr_set attrs_bw_qp;
extern const struct attr_set attrs_io_queue;
extern const struct attr_set attrs_bw_result;
extern const struct attr_set attrs_run;

struct attr_error {
	const struct attr_set *set;
	int type;
	int len;
};

int attrs_parse(const struct attr_set *set, struct nlattr **tb,
		struct nlattr *head, int len, struct attr_error *err);
const char *attrs_name(const struct attr_set *set, int type);
void attrs_report(FILE *f, const struct attr_error *err);
/* Largest attribute type of a set attrs_parse_reply() checks nests of. */
#define ATTRS_MAX_TYPE	63

int attrs_parse_reply(const struct nlmsghdr *nlh, const struct attr_set *set,
		      struct nlattr **tb, bool nests, FILE *err);
uint64_t attr_uint(const struct nlattr *nla);

#endif /* KVPERF_ATTRS_H */
