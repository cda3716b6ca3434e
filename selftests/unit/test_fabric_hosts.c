// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/lib/fabric_hosts.c: host lists in pdsh's and
 * Slurm's syntax expanded in order, widths kept; malformed lists refused
 * with the reason; the limits (4096 hosts, a name twice, 255 characters).
 */
#include <stdio.h>
#include <string.h>

#include "fabric_hosts.h"
#include "fabric_sched.h"
#include "unit.h"

/* expand LIST; the names joined by spaces, or "error: REASON" */
static const char *expand(const char *list)
{
	static char out[4096];
	struct fabric_hosts h;
	char err[256];
	size_t at = 0;
	unsigned int i;

	if (fabric_hosts_parse(&h, list, err, sizeof(err))) {
		snprintf(out, sizeof(out), "error: %s", err);
	} else {
		out[0] = '\0';
		for (i = 0; i < h.n && at < sizeof(out) - 1; i++)
			at += (size_t)snprintf(out + at, sizeof(out) - at,
					       "%s%s", i ? " " : "", h.name[i]);
	}
	fabric_hosts_free(&h);
	return out;
}

static void plain_names(void)
{
	CHECK_STR(expand("a"), "a");
	CHECK_STR(expand("n1,gw.example.org,10.0.0.3"),
		  "n1 gw.example.org 10.0.0.3");
}

static void ranges_in_order(void)
{
	CHECK_STR(expand("kvc[0-3]"), "kvc0 kvc1 kvc2 kvc3");
	CHECK_STR(expand("n[08-11]"), "n08 n09 n10 n11");
	CHECK_STR(expand("n[8-11]"), "n8 n9 n10 n11");
	CHECK_STR(expand("n[3,1,7-8]x,z"), "n3x n1x n7x n8x z");
	CHECK_STR(expand("r[1-2]n[1-2]"), "r1n1 r1n2 r2n1 r2n2");
}

static void malformed(void)
{
	CHECK_STR(expand(""), "error: an empty host list");
	CHECK_STR(expand("a,,b"), "error: an empty host name in 'a,,b'");
	CHECK_STR(expand("a["), "error: '[' not closed in 'a['");
	CHECK_STR(expand("a]"), "error: ']' without '[' in 'a]'");
	CHECK_STR(expand("n[3-1]"),
		  "error: range '3-1' in 'n[3-1]' is not NUMBER or NUMBER-NUMBER (low to high)");
	CHECK_STR(expand("n[a-b]"),
		  "error: range 'a-b' in 'n[a-b]' is not NUMBER or NUMBER-NUMBER");
	CHECK_STR(expand("n[]"), "error: an empty range in 'n[]'");
	CHECK_STR(expand("n 1"), "error: character ' ' in host list 'n 1'");
	CHECK_STR(expand("n1,n[1-2]"), "error: host n1 is in the list twice");
}

static void limits(void)
{
	char name[300];
	struct fabric_hosts h;
	char err[256];

	CHECK_INT(fabric_hosts_parse(&h, "h[1-4096]", err, sizeof(err)), 0);
	CHECK_INT(h.n, FABRIC_HOSTS_MAX);
	CHECK_STR(h.name[4095], "h4096");
	CHECK_INT(fabric_hosts_find(&h, "h17"), 16);
	CHECK_INT(fabric_hosts_find(&h, "h0"), -1);
	fabric_hosts_free(&h);
	CHECK_STR(expand("h[1-4097]"), "error: more than 4096 hosts");
	CHECK_STR(expand("h[1-4096],x"), "error: more than 4096 hosts");
	memset(name, 'a', 255);
	name[255] = '\0';
	CHECK_STR(expand(name), name);
	strcat(name, "b");
	CHECK_STR(expand(name),
		  "error: a host name longer than 255 characters");
}

const struct unit_test unit_tests[] = {
	UNIT(plain_names),
	UNIT(ranges_in_order),
	UNIT(malformed),
	UNIT(limits),
	{ NULL, NULL },
};
