/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perftest (linux-rdma/perftest) as the third column of "kvperf compare":
 * the command lines of ib_{send,write,read}_{lat,bw} that match a kvperf
 * run, and the tables they print, read back.
 */
#ifndef KVPERF_PERFTEST_H
#define KVPERF_PERFTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One row of a latency table; times in usec. */
struct perftest_lat {
	uint32_t size;
	uint64_t iterations;
	double t_min;
	double t_max;
	double t_typical;	/* the median */
	double t_avg;
	double t_stdev;
	double p99;		/* NAN when the table has no percentiles */
	double p999;
};

/* One row of a bandwidth table; MiB/s (perftest's MB is 2^20 bytes). */
struct perftest_bw {
	uint32_t size;
	uint64_t iterations;
	double bw_peak;
	double bw_avg;
	double msg_rate;	/* Mpps */
};

int perftest_parse_lat(const char *out, struct perftest_lat *rows,
		       size_t max);
int perftest_parse_bw(const char *out, struct perftest_bw *rows,
		      size_t max);
double perftest_bw_avg(const struct perftest_bw *b);
bool perftest_report_complete(const char *out);
int perftest_parse_version(const char *out, char *ver, size_t len);
bool perftest_has_option(const char *help, const char *opt);

/* perftest's port when kvperf compare runs on kvperf's port P: P + 2 */
#define PERFTEST_PORT_OFFSET	2

/*
 * One perftest measurement. The server gets @dev and no @addr, the
 * client @addr. Zero for @size means all sizes (-a), zero for the
 * numbers perftest's default; @inline_size goes to send and write only,
 * as perftest refuses -I for read.
 */
struct perftest_cfg {
	uint8_t type;		/* KVPERF_RUN_TYPE_LAT or _BW */
	uint8_t op;		/* KVPERF_OP_* */
	const char *dev;
	const char *addr;
	uint16_t port;
	uint32_t size;
	uint32_t iterations;
	uint32_t inline_size;
	uint32_t tx_depth;
	uint32_t qps;
	uint32_t cq_mod;	/* bw: -Q, a completion every N requests */
	bool events;		/* -e: completion events instead of polling */
	bool ipv6;		/* --ipv6-addr: RDMA CM to an IPv6 address */
};

#define PERFTEST_ARGV_MAX	32
#define PERFTEST_NUMS_MAX	8

/* An argv for execvp(); the numbers live in @num. */
struct perftest_cmd {
	char prog[16];
	const char *argv[PERFTEST_ARGV_MAX];
	int argc;
	char num[PERFTEST_NUMS_MAX][16];
	int nums;
};

const char *perftest_prog(char *buf, size_t len, uint8_t type, uint8_t op);
void perftest_cmd_build(struct perftest_cmd *c, const struct perftest_cfg *cfg);

#endif /* KVPERF_PERFTEST_H */
