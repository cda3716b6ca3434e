// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink helpers of unit.h: generic-netlink messages built as the
 * kernel would send them, and their attributes as a string to compare.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include <netlink/genl/genl.h>

#include "attrs.h"
#include "unit.h"

struct nl_msg *unit_genl_msg(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	/* the family id is whatever the kernel assigned; 0x20 will do */
	if (!msg || !genlmsg_put(msg, 0, 0, 0x20, 0, 0, cmd, 1)) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	return msg;
}

const char *unit_attrs_str(struct nl_msg *msg, const struct attr_set *set)
{
	static char buf[2048];
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));
	const struct attr_spec *spec;
	char addr[INET6_ADDRSTRLEN];
	size_t len = 0;
	struct nlattr *nla;
	int rem, type;

	buf[0] = '\0';
	nla_for_each_attr(nla, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0),
			  rem) {
		type = nla_type(nla);
		spec = type > 0 && (unsigned int)type <= set->max ?
		       &set->attrs[type] : NULL;
		if (len)
			len += snprintf(buf + len, sizeof(buf) - len, " ");
		if (!spec || !spec->name) {
			len += snprintf(buf + len, sizeof(buf) - len, "%d?", type);
			continue;
		}
		len += snprintf(buf + len, sizeof(buf) - len, "%s", spec->name);
		switch (spec->kind) {
		case ATTR_U8:
		case ATTR_U16:
		case ATTR_U32:
		case ATTR_U64:
			len += snprintf(buf + len, sizeof(buf) - len,
					"=%" PRIu64, attr_uint(nla));
			break;
		case ATTR_S32:
			len += snprintf(buf + len, sizeof(buf) - len, "=%d",
					(int)nla_get_s32(nla));
			break;
		case ATTR_STRING:
			len += snprintf(buf + len, sizeof(buf) - len, "=\"%.*s\"",
					nla_len(nla), (char *)nla_data(nla));
			break;
		case ATTR_ADDR:
			if (nla_len(nla) != 4 && nla_len(nla) != 16) {
				len += snprintf(buf + len, sizeof(buf) - len,
						"=(%d bytes)", nla_len(nla));
				break;
			}
			inet_ntop(nla_len(nla) == 4 ? AF_INET : AF_INET6,
				  nla_data(nla), addr, sizeof(addr));
			len += snprintf(buf + len, sizeof(buf) - len, "=%s",
					addr);
			break;
		case ATTR_FLAG:
			break;
		default:
			len += snprintf(buf + len, sizeof(buf) - len,
					"=(%d bytes)", nla_len(nla));
			break;
		}
		if (len >= sizeof(buf))
			break;
	}
	return buf;
}
