// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/lib/fmt.c: GUIDs, GIDs, rates, addresses and enum names.
 */
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/kvperf.h>

#include "fmt.h"
#include "unit.h"

static void fmt_guids(void)
{
	char buf[FMT_GUID_LEN];

	CHECK_STR(fmt_guid(buf, 0x505400fffe123456ULL), "5054:00ff:fe12:3456");
	CHECK_STR(fmt_guid(buf, 0), "0000:0000:0000:0000");
	CHECK_STR(fmt_guid(buf, UINT64_MAX), "ffff:ffff:ffff:ffff");
	CHECK_STR(fmt_guid(buf, 0x0002c90300a1b2c3ULL), "0002:c903:00a1:b2c3");
}

static void fmt_gids(void)
{
	static const uint8_t link_local[16] = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56,
	};
	static const uint8_t v4_mapped[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 1,
	};
	static const uint8_t ones[16] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	char buf[FMT_GID_LEN];

	CHECK_STR(fmt_gid(buf, link_local),
		  "fe80:0000:0000:0000:5054:00ff:fe12:3456");
	CHECK_STR(fmt_gid(buf, v4_mapped),
		  "0000:0000:0000:0000:0000:ffff:c612:0001");
	CHECK_STR(fmt_gid(buf, ones),
		  "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
}

static void fmt_rates(void)
{
	char buf[FMT_RATE_LEN];

	CHECK_STR(fmt_rate(buf, 2500), "2.5");
	CHECK_STR(fmt_rate(buf, 10000), "10");
	CHECK_STR(fmt_rate(buf, 14062), "14.062");
	CHECK_STR(fmt_rate(buf, 25781), "25.781");
	CHECK_STR(fmt_rate(buf, 100), "0.1");
	CHECK_STR(fmt_rate(buf, 1), "0.001");
	CHECK_STR(fmt_rate(buf, 0), "0");
	CHECK_STR(fmt_rate(buf, 400000), "400");
	CHECK_STR(fmt_rate(buf, UINT32_MAX), "4294967.295");
}

/* sizes as the command line writes them: M, K or bytes, exactly */
static void fmt_sizes_short(void)
{
	char buf[FMT_SIZE_SHORT_LEN];

	CHECK_STR(fmt_size_short(buf, 512), "512");
	CHECK_STR(fmt_size_short(buf, 4096), "4K");
	CHECK_STR(fmt_size_short(buf, 1536), "1536");
	CHECK_STR(fmt_size_short(buf, 1048576), "1M");
	CHECK_STR(fmt_size_short(buf, 1572864), "1536K");
	CHECK_STR(fmt_size_short(buf, UINT32_MAX), "4294967295");
}

static void fmt_addrs(void)
{
	static const uint8_t v4[4] = { 198, 18, 0, 1 };
	static const uint8_t bench6[16] = {
		0x20, 0x01, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1,
	};
	static const uint8_t mapped[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 1,
	};
	/* the longest text of each family */
	static const uint8_t v4_long[4] = { 255, 255, 255, 255 };
	static const uint8_t v6_long[16] = {
		0xff, 0xff, 0xff, 0xf0, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
	};
	static const uint8_t v6_mapped_long[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 255, 255, 255, 255,
	};
	char buf[FMT_ADDR_LEN];

	CHECK_STR(fmt_addr(buf, v4, 4), "198.18.0.1");
	CHECK_STR(fmt_addr(buf, bench6, 16), "2001:2:0:1::1");
	CHECK_STR(fmt_addr(buf, mapped, 16), "::ffff:198.18.0.1");
	CHECK_STR(fmt_addr_port(buf, v4, 4, 18515), "198.18.0.1:18515");
	/* brackets: the port is not one more group of the address */
	CHECK_STR(fmt_addr_port(buf, bench6, 16, 18515),
		  "[2001:2:0:1::1]:18515");
	CHECK_STR(fmt_addr_port(buf, mapped, 16, 1), "[::ffff:198.18.0.1]:1");
	CHECK_STR(fmt_addr_port(buf, v4_long, 4, 65535),
		  "255.255.255.255:65535");
	CHECK_STR(fmt_addr_port(buf, v6_long, 16, 65535),
		  "[ffff:fff0:ffff:ffff:ffff:ffff:ffff:fffe]:65535");
	CHECK_STR(fmt_addr_port(buf, v6_mapped_long, 16, 65535),
		  "[::ffff:255.255.255.255]:65535");
}

static void fmt_sockaddrs(void)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sockaddr_storage other = { .ss_family = AF_UNIX };
	char addr[FMT_ADDR_LEN], text[FMT_ADDR_LEN];

	sin.sin_port = htons(34567);
	inet_pton(AF_INET, "198.18.1.1", &sin.sin_addr);
	CHECK_INT(fmt_sockaddr(addr, text, (struct sockaddr *)&sin), 34567);
	CHECK_STR(addr, "198.18.1.1");
	CHECK_STR(text, "198.18.1.1:34567");

	sin6.sin6_port = htons(18516);
	inet_pton(AF_INET6, "2001:2:0:1::1", &sin6.sin6_addr);
	CHECK_INT(fmt_sockaddr(addr, text, (struct sockaddr *)&sin6), 18516);
	CHECK_STR(addr, "2001:2:0:1::1");
	CHECK_STR(text, "[2001:2:0:1::1]:18516");

	CHECK_INT(fmt_sockaddr(addr, text, (struct sockaddr *)&other), 0);
	CHECK_STR(addr, "?");
	CHECK_STR(text, "?");
}

static void fmt_enum_names(void)
{
	const struct name_table *const all[] = {
		&fmt_node_type, &fmt_transport, &fmt_port_state,
		&fmt_phys_state, &fmt_link_layer, &fmt_speed, &fmt_gid_type,
	};
	size_t i, v;

	/* every value of every enum in the UAPI header has a name */
	CHECK_INT(fmt_node_type.count, KVPERF_NODE_TYPE_UNSPECIFIED + 1);
	CHECK_INT(fmt_transport.count, KVPERF_TRANSPORT_OTHER + 1);
	CHECK_INT(fmt_port_state.count, KVPERF_PORT_STATE_ACTIVE_DEFER + 1);
	CHECK_INT(fmt_phys_state.count, KVPERF_PHYS_STATE_PHY_TEST + 1);
	CHECK_INT(fmt_link_layer.count, KVPERF_LINK_LAYER_ETHERNET + 1);
	CHECK_INT(fmt_speed.count, KVPERF_SPEED_XDR + 1);
	CHECK_INT(fmt_gid_type.count, KVPERF_GID_TYPE_ROCE_V2 + 1);
	for (i = 0; i < ARRAY_SIZE(all); i++)
		for (v = 0; v < all[i]->count; v++)
			if (!fmt_name(all[i], v) || !fmt_name(all[i], v)[0])
				unit_fail(__FILE__, __LINE__,
					  "table %zu value %zu has no name",
					  i, v);

	CHECK_STR(fmt_name(&fmt_node_type, KVPERF_NODE_TYPE_RNIC), "RNIC");
	CHECK_STR(fmt_name(&fmt_node_type, KVPERF_NODE_TYPE_USNIC_UDP),
		  "usNIC_UDP");
	CHECK_STR(fmt_name(&fmt_transport, KVPERF_TRANSPORT_ROCE), "RoCE");
	CHECK_STR(fmt_name(&fmt_transport, KVPERF_TRANSPORT_IWARP), "iWARP");
	CHECK_STR(fmt_name(&fmt_port_state, KVPERF_PORT_STATE_ACTIVE_DEFER),
		  "ACTIVE_DEFER");
	CHECK_STR(fmt_name(&fmt_phys_state,
			   KVPERF_PHYS_STATE_PORT_CONFIGURATION_TRAINING),
		  "PORT_CONFIGURATION_TRAINING");
	CHECK_STR(fmt_name(&fmt_phys_state, KVPERF_PHYS_STATE_LINK_UP),
		  "LINK_UP");
	CHECK_STR(fmt_name(&fmt_link_layer, KVPERF_LINK_LAYER_ETHERNET),
		  "Ethernet");
	CHECK_STR(fmt_name(&fmt_speed, KVPERF_SPEED_FDR10), "FDR10");
	CHECK_STR(fmt_name(&fmt_speed, KVPERF_SPEED_XDR), "XDR");
	CHECK_STR(fmt_name(&fmt_gid_type, KVPERF_GID_TYPE_ROCE_V1), "RoCEv1");
	CHECK_STR(fmt_name(&fmt_gid_type, KVPERF_GID_TYPE_IB), "IB");
	/* values from a newer module have no name */
	CHECK(fmt_name(&fmt_speed, KVPERF_SPEED_XDR + 1) == NULL);
	CHECK(fmt_name(&fmt_gid_type, 255) == NULL);
	CHECK(fmt_name(&fmt_node_type, UINT64_MAX) == NULL);
}

const struct unit_test unit_tests[] = {
	UNIT(fmt_guids),
	UNIT(fmt_gids),
	UNIT(fmt_rates),
	UNIT(fmt_sizes_short),
	UNIT(fmt_addrs),
	UNIT(fmt_sockaddrs),
	UNIT(fmt_enum_names),
	{ NULL },
};
