// SPDX-License-Identifier: GPL-2.0
/*
 * Display names of the kvperf enums (the spellings ibv_devinfo and the rdma
 * tool use) and the formatting of GUIDs, GIDs, rates, addresses and
 * fixed-point numbers.
 */
#include <stdio.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/kvperf.h>

#include "compiler.h"
#include "fmt.h"

#define NAME_TABLE(var, ...)						\
	static const char *const var##_names[] = { __VA_ARGS__ };	\
	const struct name_table var = {					\
		.names = var##_names,					\
		.count = ARRAY_SIZE(var##_names),			\
	}

NAME_TABLE(fmt_node_type,
	[KVPERF_NODE_TYPE_UNKNOWN]	= "unknown",
	[KVPERF_NODE_TYPE_CA]		= "CA",
	[KVPERF_NODE_TYPE_SWITCH]	= "switch",
	[KVPERF_NODE_TYPE_ROUTER]	= "router",
	[KVPERF_NODE_TYPE_RNIC]		= "RNIC",
	[KVPERF_NODE_TYPE_USNIC]	= "usNIC",
	[KVPERF_NODE_TYPE_USNIC_UDP]	= "usNIC_UDP",
	[KVPERF_NODE_TYPE_UNSPECIFIED]	= "unspecified",
);

NAME_TABLE(fmt_transport,
	[KVPERF_TRANSPORT_UNKNOWN]	= "unknown",
	[KVPERF_TRANSPORT_INFINIBAND]	= "InfiniBand",
	[KVPERF_TRANSPORT_ROCE]		= "RoCE",
	[KVPERF_TRANSPORT_IWARP]	= "iWARP",
	[KVPERF_TRANSPORT_OTHER]	= "other",
);

NAME_TABLE(fmt_port_state,
	[KVPERF_PORT_STATE_NOP]		= "NOP",
	[KVPERF_PORT_STATE_DOWN]	= "DOWN",
	[KVPERF_PORT_STATE_INIT]	= "INIT",
	[KVPERF_PORT_STATE_ARMED]	= "ARMED",
	[KVPERF_PORT_STATE_ACTIVE]	= "ACTIVE",
	[KVPERF_PORT_STATE_ACTIVE_DEFER] = "ACTIVE_DEFER",
);

NAME_TABLE(fmt_phys_state,
	[KVPERF_PHYS_STATE_UNKNOWN]	= "UNKNOWN",
	[KVPERF_PHYS_STATE_SLEEP]	= "SLEEP",
	[KVPERF_PHYS_STATE_POLLING]	= "POLLING",
	[KVPERF_PHYS_STATE_DISABLED]	= "DISABLED",
	[KVPERF_PHYS_STATE_PORT_CONFIGURATION_TRAINING] =
		"PORT_CONFIGURATION_TRAINING",
	[KVPERF_PHYS_STATE_LINK_UP]	= "LINK_UP",
	[KVPERF_PHYS_STATE_LINK_ERROR_RECOVERY] = "LINK_ERROR_RECOVERY",
	[KVPERF_PHYS_STATE_PHY_TEST]	= "PHY_TEST",
);

NAME_TABLE(fmt_link_layer,
	[KVPERF_LINK_LAYER_UNSPECIFIED]	= "unspecified",
	[KVPERF_LINK_LAYER_INFINIBAND]	= "InfiniBand",
	[KVPERF_LINK_LAYER_ETHERNET]	= "Ethernet",
);

NAME_TABLE(fmt_speed,
	[KVPERF_SPEED_UNKNOWN]	= "unknown",
	[KVPERF_SPEED_SDR]	= "SDR",
	[KVPERF_SPEED_DDR]	= "DDR",
	[KVPERF_SPEED_QDR]	= "QDR",
	[KVPERF_SPEED_FDR10]	= "FDR10",
	[KVPERF_SPEED_FDR]	= "FDR",
	[KVPERF_SPEED_EDR]	= "EDR",
	[KVPERF_SPEED_HDR]	= "HDR",
	[KVPERF_SPEED_NDR]	= "NDR",
	[KVPERF_SPEED_XDR]	= "XDR",
);

NAME_TABLE(fmt_gid_type,
	[KVPERF_GID_TYPE_IB]		= "IB",
	[KVPERF_GID_TYPE_ROCE_V1]	= "RoCEv1",
	[KVPERF_GID_TYPE_ROCE_V2]	= "RoCEv2",
);

/* The run enums: the words the command line takes, too. */
NAME_TABLE(fmt_run_type,
	[KVPERF_RUN_TYPE_LAT]	= "lat",
	[KVPERF_RUN_TYPE_BW]	= "bw",
	[KVPERF_RUN_TYPE_IO]	= "io",
);

NAME_TABLE(fmt_io_inv,
	[KVPERF_IO_INV_REMOTE]	= "remote",
	[KVPERF_IO_INV_LOCAL]	= "local",
);

NAME_TABLE(fmt_io_reg,
	[KVPERF_IO_REG_FRWR]	= "frwr",
	[KVPERF_IO_REG_PRE]	= "pre",
	[KVPERF_IO_REG_MW]	= "mw",
);

NAME_TABLE(fmt_op,
	[KVPERF_OP_SEND]	= "send",
	[KVPERF_OP_WRITE]	= "write",
	[KVPERF_OP_READ]	= "read",
);

NAME_TABLE(fmt_poll,
	[KVPERF_POLL_BUSY]	= "busy",
	[KVPERF_POLL_SOFTIRQ]	= "softirq",
	[KVPERF_POLL_WORKQUEUE]	= "workqueue",
);

NAME_TABLE(fmt_stats_mode,
	[KVPERF_STATS_MODE_ON]	= "on",
	[KVPERF_STATS_MODE_OFF]	= "off",
);

NAME_TABLE(fmt_bidir,
	[KVPERF_BIDIR_OFF]	= "off",
	[KVPERF_BIDIR_ON]	= "on",
);

NAME_TABLE(fmt_post_context,
	[KVPERF_POST_CONTEXT_PROCESS]	= "process",
	[KVPERF_POST_CONTEXT_BH]	= "bh",
);

NAME_TABLE(fmt_run_state,
	[KVPERF_RUN_STATE_CONNECTING]	= "connecting",
	[KVPERF_RUN_STATE_RUNNING]	= "running",
	[KVPERF_RUN_STATE_DONE]		= "done",
	[KVPERF_RUN_STATE_FAILED]	= "failed",
	[KVPERF_RUN_STATE_STOPPED]	= "stopped",
);

/**
 * fmt_name() - display name of an enum value
 * @t: the enum's names
 * @val: the value
 *
 * Return: the name, or NULL for a value this tool does not know (a newer
 * module may send values added to the enum since).
 */
const char *fmt_name(const struct name_table *t, uint64_t val)
{
	return val < t->count ? t->names[val] : NULL;
}

/**
 * fmt_guid() - format a GUID as ibv_devinfo does
 * @buf: FMT_GUID_LEN bytes
 * @guid: the GUID in host byte order, as the family carries it
 *
 * Return: @buf, holding four groups of four hex digits, most significant
 * first, e.g. 5054:00ff:fe12:3456.
 */
char *fmt_guid(char *buf, uint64_t guid)
{
	snprintf(buf, FMT_GUID_LEN, "%04x:%04x:%04x:%04x",
		 (unsigned int)(guid >> 48) & 0xffff,
		 (unsigned int)(guid >> 32) & 0xffff,
		 (unsigned int)(guid >> 16) & 0xffff,
		 (unsigned int)guid & 0xffff);
	return buf;
}

/**
 * fmt_gid() - format a GID as ibv_devinfo does
 * @buf: FMT_GID_LEN bytes
 * @gid: the 16 bytes, network byte order
 *
 * Return: @buf, holding eight groups of four hex digits, without the
 * zero compression of IPv6 notation.
 */
char *fmt_gid(char *buf, const uint8_t gid[16])
{
	char *s = buf;
	int i;

	for (i = 0; i < 16; i += 2)
		s += sprintf(s, "%s%02x%02x", i ? ":" : "", gid[i], gid[i + 1]);
	return buf;
}

/**
 * fmt_size_short() - a size in bytes as the command line writes it
 * @buf: FMT_SIZE_SHORT_LEN bytes
 * @size: the size
 *
 * Return: @buf, e.g. "1M" for 1048576, "4K" for 4096, "1536" for 1536:
 * the largest of M and K that divides it exactly, else bytes.
 */
char *fmt_size_short(char *buf, uint32_t size)
{
	if (size >= 1048576 && !(size % 1048576))
		snprintf(buf, FMT_SIZE_SHORT_LEN, "%uM", size / 1048576);
	else if (size >= 1024 && !(size % 1024))
		snprintf(buf, FMT_SIZE_SHORT_LEN, "%uK", size / 1024);
	else
		snprintf(buf, FMT_SIZE_SHORT_LEN, "%u", size);
	return buf;
}

/**
 * fmt_rate() - format a rate in Mb/s as Gb/s, exactly
 * @buf: FMT_RATE_LEN bytes
 * @mbps: the rate
 *
 * Return: @buf, e.g. "2.5" for 2500, "100" for 100000, "14.062" for 14062.
 */
char *fmt_rate(char *buf, uint32_t mbps)
{
	unsigned int frac = mbps % 1000;
	int n;

	n = snprintf(buf, FMT_RATE_LEN, "%u", mbps / 1000);
	if (frac) {
		n += snprintf(buf + n, FMT_RATE_LEN - n, ".%03u", frac);
		while (buf[n - 1] == '0')
			buf[--n] = '\0';
	}
	return buf;
}

/**
 * fmt_addr() - format an IP address
 * @buf: FMT_ADDR_LEN bytes
 * @addr: the address, network byte order
 * @len: 4 (IPv4) or 16 (IPv6); attrs_parse() checked it
 *
 * Return: @buf, e.g. "198.18.0.1" or "fe80::1".
 */
char *fmt_addr(char *buf, const void *addr, size_t len)
{
	if (!inet_ntop(len == 4 ? AF_INET : AF_INET6, addr, buf, FMT_ADDR_LEN))
		snprintf(buf, FMT_ADDR_LEN, "?");
	return buf;
}

/**
 * fmt_addr_port() - format an IP address and a port as one endpoint
 * @buf: FMT_ADDR_LEN bytes
 * @addr: the address, network byte order
 * @len: 4 (IPv4) or 16 (IPv6)
 * @port: the port
 *
 * Return: @buf, e.g. "198.18.0.1:18515" or "[fe80::1]:18515": an IPv6
 * address is bracketed so that the port cannot be read as part of it.
 */
char *fmt_addr_port(char *buf, const void *addr, size_t len, uint16_t port)
{
	char a[FMT_ADDR_LEN];

	fmt_addr(a, addr, len);
	/* inet_ntop() wrote at most this much: the precision tells gcc */
	snprintf(buf, FMT_ADDR_LEN, len == 4 ? "%.*s:%u" : "[%.*s]:%u",
		 INET6_ADDRSTRLEN - 1, a, (unsigned int)port);
	return buf;
}

/**
 * fmt_sockaddr() - format a socket address: the address, and the endpoint
 * @addr: FMT_ADDR_LEN bytes, receives the address, e.g. "2001:2::1"
 * @text: FMT_ADDR_LEN bytes, receives address and port as fmt_addr_port()
 *        writes them, e.g. "[2001:2::1]:34567"
 * @sa: an AF_INET or AF_INET6 address
 *
 * Return: the port, host byte order; 0, with "?" in both buffers, for
 * another family.
 */
uint16_t fmt_sockaddr(char *addr, char *text, const struct sockaddr *sa)
{
	const struct sockaddr_in6 *sin6 = (const void *)sa;
	const struct sockaddr_in *sin = (const void *)sa;
	uint16_t port;

	switch (sa->sa_family) {
	case AF_INET:
		port = ntohs(sin->sin_port);
		fmt_addr(addr, &sin->sin_addr, 4);
		fmt_addr_port(text, &sin->sin_addr, 4, port);
		return port;
	case AF_INET6:
		port = ntohs(sin6->sin6_port);
		fmt_addr(addr, &sin6->sin6_addr, 16);
		fmt_addr_port(text, &sin6->sin6_addr, 16, port);
		return port;
	}
	snprintf(addr, FMT_ADDR_LEN, "?");
	snprintf(text, FMT_ADDR_LEN, "?");
	return 0;
}

/**
 * fmt_fixed() - format an integer count of small units as a decimal number
 * @buf: FMT_FIXED_LEN bytes
 * @val: the value, in units of 10^-@scale
 * @scale: 0 to 19
 * @decimals: digits after the point, 0 to @scale; the value is rounded to
 *            them, half up
 *
 * Integer arithmetic only, so the digits are exact: fmt_fixed(buf,
 * 25331123, 3, 3) is "25331.123" (picoseconds as nanoseconds), and
 * fmt_fixed(buf, 12345, 3, 2) is "12.35" (nanoseconds as microseconds).
 *
 * Return: @buf.
 */
char *fmt_fixed(char *buf, uint64_t val, unsigned int scale,
		unsigned int decimals)
{
	uint64_t div = 1, unit = 1;
	unsigned int i;

	for (i = decimals; i < scale; i++)
		div *= 10;
	for (i = 0; i < decimals; i++)
		unit *= 10;
	/* val / div rounded, without overflowing near UINT64_MAX */
	val = val / div + (div > 1 && val % div >= div / 2);
	if (decimals)
		snprintf(buf, FMT_FIXED_LEN, "%llu.%0*llu",
			 (unsigned long long)(val / unit), (int)decimals,
			 (unsigned long long)(val % unit));
	else
		snprintf(buf, FMT_FIXED_LEN, "%llu", (unsigned long long)val);
	return buf;
}
