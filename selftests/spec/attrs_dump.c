// SPDX-License-Identifier: GPL-2.0
/*
 * Prints the tool's attribute sets (user/lib/attrs.c), one attribute a
 * line: "SET TYPE NAME KIND LEN NESTED", for spec_attrs.py to hold
 * against the netlink spec.
 */
#include <stdio.h>

#include "attrs.h"
#include "compiler.h"

static const char *const kinds[] = {
	[ATTR_UNKNOWN] = "unknown", [ATTR_U8] = "u8", [ATTR_U16] = "u16",
	[ATTR_U32] = "u32", [ATTR_U64] = "u64", [ATTR_S32] = "s32",
	[ATTR_STRING] = "string", [ATTR_BINARY] = "binary",
	[ATTR_ADDR] = "addr", [ATTR_FLAG] = "flag", [ATTR_NEST] = "nest",
	[ATTR_PAD] = "pad",
};

static const struct attr_set *const sets[] = {
	&attrs_gid, &attrs_port, &attrs_dev, &attrs_conn, &attrs_prefix,
	&attrs_server, &attrs_result, &attrs_bw_qp, &attrs_bw_result,
	&attrs_run,
};

int main(void)
{
	const struct attr_spec *a;
	unsigned int t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sets); i++) {
		for (t = 1; t <= sets[i]->max; t++) {
			a = &sets[i]->attrs[t];
			printf("%s %u %s %s %u %s\n", sets[i]->name, t,
			       a->name ? a->name : "-", kinds[a->kind], a->len,
			       a->nested ? a->nested->name : "-");
		}
	}
	return 0;
}
