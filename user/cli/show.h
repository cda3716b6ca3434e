/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the dev, server and run objects share: the object id argument,
 * requests that name one object by id, show commands (a get, do or dump,
 * whose output reaches stdout only when the whole request succeeded), and
 * the printing of attributes: numbers, strings, enums, address and port.
 */
#ifndef KVPERF_SHOW_H
#define KVPERF_SHOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/netlink.h>

struct args;
struct attr_set;
struct nlattr;
struct kvperf;
struct kvperf_cmd;
struct printer;

/* Prints one reply message; 0, or -EINVAL after reporting to @err. */
typedef int (*show_print_fn)(struct printer *p, const struct nlmsghdr *nlh,
			     FILE *err);

struct show_req {
	const struct kvperf_cmd *obj;	/* for help and usage hints */
	uint8_t cmd;			/* the get command */
	const struct attr_set *set;	/* its attribute set */
	int id_attr;			/* the id attribute in @set */
	show_print_fn print;
	bool blank_line;		/* text: an empty line between objects */
	/*
	 * Dumps: a message with this attribute continues the object of the
	 * one before it (the kernel splits an object that outgrows a
	 * message); its @merge attributes are appended to that one's, and
	 * the object is printed once. 0: every message is an object.
	 */
	int continued_attr;
	int merge[2];
};

int show_cmd_help(struct kvperf *kv, struct args *a,
		  const struct kvperf_cmd *obj, const char *const *keywords,
		  size_t count);
int show_id_arg(struct kvperf *kv, struct args *a, const char *obj,
		uint32_t *id, bool *given);
int show_run(struct kvperf *kv, struct args *a, const struct show_req *req);
int show_buffered(struct kvperf *kv,
		  int (*fill)(struct kvperf *kv, struct printer *p, void *arg),
		  void *arg);
void show_endpoint(struct printer *p, const struct nlattr *addr,
		   const struct nlattr *port, const char *addr_key,
		   const char *port_key, const char *fmt);
void show_uint(struct printer *p, const struct nlattr *nla, const char *key,
	       const char *fmt);
void show_string(struct printer *p, const struct nlattr *nla,
		 const char *key, const char *fmt);
struct name_table;
void show_enum(struct printer *p, const struct nlattr *nla, const char *key,
	       const char *fmt, const struct name_table *names);
int show_id_request(struct kvperf *kv, struct args *a,
		    const struct kvperf_cmd *obj, uint8_t cmd,
		    const struct attr_set *set, int id_attr);

#endif /* KVPERF_SHOW_H */
