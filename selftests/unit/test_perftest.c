// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/compare/perftest.c: the tables of ib_*_lat and ib_*_bw read
 * from what perftest 6.06 printed in the VM (client and server side), an
 * "-a" sweep with a warning among the rows, older and newer headers, the
 * version, and the command lines kvperf compare runs.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <linux/kvperf.h>

#include "perftest.h"
#include "unit.h"

#define RULE "---------------------------------------------------------------------------------------\n"

/* ib_send_lat -R -F -s 64 -n 200 -p 18517 198.18.0.1, client side */
static const char lat_client[] =
	RULE
	"                    Send Latency Test\n"
	" Dual-port       : OFF\t\tDevice         : rxe0\n"
	" Number of qps   : 1\t\tTransport type : IB\n"
	" Connection type : RC\t\tUsing SRQ      : OFF\n"
	" PCIe relax order: ON\n"
	" ibv_wr* API     : OFF\n"
	" TX depth        : 1\n"
	" Mtu             : 1024[B]\n"
	" Link type       : Ethernet\n"
	" GID index       : 1\n"
	" Max inline data : 0[B]\n"
	" rdma_cm QPs\t : ON\n"
	" Data ex. method : rdma_cm\n"
	RULE
	" local address: LID 0000 QPN 0x0019 PSN 0x5f4650\n"
	" GID: 00:00:00:00:00:00:00:00:00:00:255:255:198:18:00:01\n"
	" remote address: LID 0000 QPN 0x001a PSN 0x4d1d15\n"
	" GID: 00:00:00:00:00:00:00:00:00:00:255:255:198:18:00:01\n"
	RULE
	" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]\x20\n"
	" 64      200          52.63          1518.13      62.31    \t       100.23      \t137.71 \t\t1351.22 \t\t1518.13\n"
	RULE;

/* the server side of the same: a banner first, the same table */
static const char lat_server[] =
	"\n"
	"************************************\n"
	"* Waiting for client to connect... *\n"
	"************************************\n"
	RULE
	"                    Send Latency Test\n"
	" RX depth        : 200\n"
	RULE
	" Waiting for client rdma_cm QP to connect\n"
	" Please run the same command with the IB/RoCE interface IP\n"
	RULE
	" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]\x20\n"
	" 64      200          52.75          1540.05      61.96    \t       97.99       \t129.39 \t\t1271.60 \t\t1540.05\n"
	RULE;

/* ib_read_lat -a: a warning first, rows for several sizes */
static const char lat_sweep[] =
	RULE
	"Device not recognized to implement inline feature. Disabling it\n"
	RULE
	"                    RDMA_Read Latency Test\n"
	RULE
	" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]\x20\n"
	" 2       1000          31.12          5444.88      104.15   \t       195.90      \t510.44 \t\t4931.85 \t\t5444.88\n"
	" 4       1000          12.34          456.78       17.89               18.01       2.34               25.67                   40.12  \x20\n"
	" 8       1000          12.50          460.00       18.00               18.20       2.40               26.00                   41.00\n"
	RULE;

/* an older perftest: no percentile columns */
static const char lat_old[] =
	" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]\t t_avg[usec]    t_stdev[usec]\n"
	" 2       1000          1.58           3.90         1.62         \t1.64         \t0.09  \x20\n"
	RULE;

/* ib_write_bw -R -F -s 65536 -n 200 -p 18517 198.18.0.1 */
static const char bw_client[] =
	RULE
	"                    RDMA_Write BW Test\n"
	" TX depth        : 128\n"
	" CQ Moderation   : 1\n"
	RULE
	" local address: LID 0000 QPN 0x001d PSN 0xb30355\n"
	RULE
	" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
	" 65536      200              42.32              25.55  \t\t   0.000409\n"
	RULE;

static void pt_lat_client(void)
{
	struct perftest_lat rows[4];

	CHECK_INT(perftest_parse_lat(lat_client, rows, 4), 1);
	CHECK_INT(rows[0].size, 64);
	CHECK_U64(rows[0].iterations, 200);
	CHECK(rows[0].t_min == 52.63);
	CHECK(rows[0].t_max == 1518.13);
	CHECK(rows[0].t_typical == 62.31);
	CHECK(rows[0].t_avg == 100.23);
	CHECK(rows[0].t_stdev == 137.71);
	CHECK(rows[0].p99 == 1351.22);
	CHECK(rows[0].p999 == 1518.13);
}

static void pt_lat_server(void)
{
	struct perftest_lat rows[4];

	CHECK_INT(perftest_parse_lat(lat_server, rows, 4), 1);
	CHECK(rows[0].t_typical == 61.96);
}

static void pt_lat_sweep(void)
{
	struct perftest_lat rows[4];

	CHECK_INT(perftest_parse_lat(lat_sweep, rows, 4), 3);
	CHECK_INT(rows[0].size, 2);
	CHECK(rows[0].t_typical == 104.15);
	CHECK_INT(rows[1].size, 4);
	CHECK(rows[1].t_typical == 17.89);
	CHECK(rows[1].p999 == 40.12);
	CHECK_INT(rows[2].size, 8);
	CHECK_U64(rows[2].iterations, 1000);
	/* not enough room */
	CHECK_INT(perftest_parse_lat(lat_sweep, rows, 2), -E2BIG);
}

static void pt_lat_old(void)
{
	struct perftest_lat rows[2];

	CHECK_INT(perftest_parse_lat(lat_old, rows, 2), 1);
	CHECK(rows[0].t_typical == 1.62);
	CHECK(isnan(rows[0].p99));
	CHECK(isnan(rows[0].p999));
}

static void pt_no_table(void)
{
	struct perftest_lat lat[2];
	struct perftest_bw bw[2];

	CHECK_INT(perftest_parse_lat("", lat, 2), -EINVAL);
	CHECK_INT(perftest_parse_lat(" Unable to perform rdma_client function\n"
				     " Unable to init the socket connection\n",
				     lat, 2), -EINVAL);
	/* a header and no rows: the client died mid-way */
	CHECK_INT(perftest_parse_lat(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]\n" RULE,
				     lat, 2), -EINVAL);
	/* a bw table is no latency table, and the reverse */
	CHECK_INT(perftest_parse_lat(bw_client, lat, 2), -EINVAL);
	CHECK_INT(perftest_parse_bw(lat_client, bw, 2), -EINVAL);
	/* rows before the header, or after the rule, do not count */
	CHECK_INT(perftest_parse_lat(" 64 200 1 2 3 4 5 6 7\n", lat, 2), -EINVAL);
	CHECK_INT(perftest_parse_lat(" #bytes t_typical\n" RULE
				     " 64 200 1 2 3 4 5 6 7\n", lat, 2),
		  -EINVAL);
	/* nor do rows with words in them, or a fractional size */
	CHECK_INT(perftest_parse_lat(" #bytes t_typical\n"
				     " 64 200 1 2 3 4 x\n"
				     " 6.5 200 1 2 3 4 5\n", lat, 2), -EINVAL);
}

static void pt_bw(void)
{
	struct perftest_bw rows[4];

	CHECK_INT(perftest_parse_bw(bw_client, rows, 4), 1);
	CHECK_INT(rows[0].size, 65536);
	CHECK_U64(rows[0].iterations, 200);
	CHECK(rows[0].bw_peak == 42.32);
	CHECK(rows[0].bw_avg == 25.55);
	CHECK(rows[0].msg_rate == 0.000409);
}

/* The finer of the average and the message rate times the size. */
static void pt_bw_avg(void)
{
	struct perftest_bw b = { .size = 2, .bw_avg = 0.06,
				 .msg_rate = 0.032986 };

	/* 2 bytes: the message rate is the finer number, when it agrees */
	CHECK(fabs(perftest_bw_avg(&b) - 0.062916) < 1e-6);
	b.msg_rate = 0.5;	/* 0.95 MiB/s: not the same number */
	CHECK(perftest_bw_avg(&b) == 0.06);
	/* 1 MiB: the average is the finer */
	b = (struct perftest_bw){ .size = 1048576, .bw_avg = 86.81,
				  .msg_rate = 0.000087 };
	CHECK(perftest_bw_avg(&b) == 86.81);
}

static void pt_bw_units(void)
{
	struct perftest_bw rows[4];

	/* newer perftest says MiB */
	CHECK_INT(perftest_parse_bw(" #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]\n"
				    " 4096       5000             2000.00            1900.50              0.486528\n"
				    " 8192       5000             2100.00            2000.25              0.256032\n",
				    rows, 4), 2);
	CHECK(rows[1].bw_avg == 2000.25);
	/* --report_gbits: converted to MiB/s */
	CHECK_INT(perftest_parse_bw(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
				    " 65536      5000             100.00             8.388608             0.016\n",
				    rows, 4), 1);
	CHECK(fabs(rows[0].bw_avg - 1000) < 1e-9);
}

static void pt_version(void)
{
	char ver[16];

	CHECK_INT(perftest_parse_version("Version: 6.06\n", ver, sizeof(ver)), 0);
	CHECK_STR(ver, "6.06");
	CHECK_INT(perftest_parse_version("junk\nVersion:\t5.93-0.1\n", ver,
					 sizeof(ver)), 0);
	CHECK_STR(ver, "5.93-0.1");
	CHECK_INT(perftest_parse_version("ib_send_lat: invalid option\n", ver,
					 sizeof(ver)), -EINVAL);
	CHECK_INT(perftest_parse_version("Version:\x20\n", ver, sizeof(ver)),
		  -EINVAL);
	CHECK_INT(perftest_parse_version("Version: 1.2.3.4.5.6.7.8.9\n", ver, 8),
		  -EINVAL);
}

static const char *cmd_str(const struct perftest_cfg *cfg)
{
	static char buf[256];
	struct perftest_cmd c;
	int i;

	perftest_cmd_build(&c, cfg);
	buf[0] = '\0';
	for (i = 0; i < c.argc; i++) {
		if (i)
			strcat(buf, " ");
		strcat(buf, c.argv[i]);
	}
	CHECK(!c.argv[c.argc]);
	return buf;
}

static void pt_cmd(void)
{
	struct perftest_cfg cfg = {
		.type = KVPERF_RUN_TYPE_LAT, .op = KVPERF_OP_SEND,
		.dev = "rxe0", .port = 18517, .size = 64, .iterations = 1000,
	};
	char prog[16];

	CHECK_STR(cmd_str(&cfg), "ib_send_lat -R -F -d rxe0 -p 18517 -s 64 -n 1000 -I 0");
	cfg.addr = "198.18.0.1";
	CHECK_STR(cmd_str(&cfg), "ib_send_lat -R -F -p 18517 -s 64 -n 1000 -I 0 198.18.0.1");
	/* read: perftest refuses -I; all sizes; perftest's iterations */
	cfg.op = KVPERF_OP_READ;
	cfg.size = 0;
	cfg.iterations = 0;
	cfg.events = true;
	CHECK_STR(cmd_str(&cfg), "ib_read_lat -R -F -p 18517 -a -e 198.18.0.1");
	/* bw with its own options */
	cfg = (struct perftest_cfg){
		.type = KVPERF_RUN_TYPE_BW, .op = KVPERF_OP_WRITE,
		.dev = "mlx5_0", .port = 20002, .size = 65536,
		.inline_size = 64, .tx_depth = 256, .qps = 4, .cq_mod = 100,
	};
	CHECK_STR(cmd_str(&cfg), "ib_write_bw -R -F -d mlx5_0 -p 20002 -s 65536 -I 64 -t 256 -q 4 -Q 100");
	/* tx-depth, qps and CQ moderation are bw options only */
	cfg.type = KVPERF_RUN_TYPE_LAT;
	cfg.dev = NULL;
	CHECK_STR(cmd_str(&cfg), "ib_write_lat -R -F -p 20002 -s 65536 -I 64");
	CHECK_STR(perftest_prog(prog, sizeof(prog), KVPERF_RUN_TYPE_BW,
				KVPERF_OP_READ), "ib_read_bw");
	/* IPv6: --ipv6-addr for the server and the client */
	cfg = (struct perftest_cfg){
		.type = KVPERF_RUN_TYPE_BW, .op = KVPERF_OP_SEND,
		.dev = "rxe0", .port = 18517, .size = 4096, .ipv6 = true,
	};
	CHECK_STR(cmd_str(&cfg), "ib_send_bw -R -F -d rxe0 -p 18517 -s 4096 -I 0 --ipv6-addr");
	cfg.addr = "2001:2::1";
	CHECK_STR(cmd_str(&cfg), "ib_send_bw -R -F -p 18517 -s 4096 -I 0 --ipv6-addr 2001:2::1");
}

/*
 * The whole report: a table, a row, the rule under it (what perftest
 * prints before its last exchange with the server, where a client can
 * hang), and nothing less.
 */
static void pt_report_complete(void)
{
	char partial[sizeof(bw_client)];
	size_t n = strlen(bw_client) - strlen(RULE);

	CHECK(perftest_report_complete(bw_client));
	CHECK(perftest_report_complete(lat_client));
	CHECK(perftest_report_complete(lat_server));
	CHECK(perftest_report_complete(lat_sweep));
	CHECK(perftest_report_complete(lat_old));
	/* the rows without the rule: a sweep may have more to come */
	memcpy(partial, bw_client, n);
	partial[n] = '\0';
	CHECK(!perftest_report_complete(partial));
	/* the rule started, its line not ended */
	memcpy(partial, bw_client, n + 3);
	partial[n + 3] = '\0';
	CHECK(!perftest_report_complete(partial));
	CHECK(!perftest_report_complete(""));
	/* the rules above the table, and a table without rows */
	CHECK(!perftest_report_complete(RULE "                    Send BW Test\n" RULE));
	CHECK(!perftest_report_complete(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n" RULE));
	/* a table that is neither latency nor bandwidth */
	CHECK(!perftest_report_complete(" #bytes #iterations\n 64 200 1 2 3 4 5\n" RULE));
}

/* Usage lines as perftest prints them (6.06, and a later release). */
static const char help_606[] =
	"  -x, --gid-index=<index>  Test uses GID with GID index (Default : IB - no gid . ETH - 0)\n"
	"      --ipv6  Use IPv6 GID. Default is IPv4\n"
	"      --source_ip  Source IP of the interface used for connection establishment. By default taken from routing table.\n";
static const char help_later[] =
	"      --ipv6  Use IPv6 GID. Default is IPv4\n"
	"      --ipv6-addr=<IPv6>  Use IPv6 address for parameters negotiation. Default is IPv4\n";

static void pt_has_option(void)
{
	CHECK(perftest_has_option(help_606, "--ipv6"));
	CHECK(!perftest_has_option(help_606, "--ipv6-addr"));
	CHECK(perftest_has_option(help_later, "--ipv6-addr"));
	CHECK(perftest_has_option(help_later, "--ipv6"));
	CHECK(perftest_has_option(help_606, "--source_ip"));
	CHECK(perftest_has_option(help_606, "-x"));
	/* a prefix of a longer option, or inside a word, is not it */
	CHECK(!perftest_has_option(help_606, "--source"));
	CHECK(!perftest_has_option(help_606, "--gid"));
	CHECK(!perftest_has_option("a--ipv6-addr b", "--ipv6-addr"));
	CHECK(perftest_has_option("--ipv6-addr", "--ipv6-addr"));
	CHECK(!perftest_has_option("", "--ipv6-addr"));
}

const struct unit_test unit_tests[] = {
	UNIT(pt_lat_client),
	UNIT(pt_lat_server),
	UNIT(pt_lat_sweep),
	UNIT(pt_lat_old),
	UNIT(pt_no_table),
	UNIT(pt_bw),
	UNIT(pt_bw_avg),
	UNIT(pt_bw_units),
	UNIT(pt_report_complete),
	UNIT(pt_version),
	UNIT(pt_cmd),
	UNIT(pt_has_option),
	{ NULL },
};
