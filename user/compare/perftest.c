// SPDX-License-Identifier: GPL-2.0
/*
 * perftest's command lines and tables. The tables are read by their
 * header line, so the banners, warnings and connection details perftest
 * prints around them do not matter; rows are the lines of numbers that
 * follow a header, up to the next line of dashes.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kvperf.h>

#include "compiler.h"
#include "perftest.h"

/* The most numbers a table row has: a latency row has 9. */
#define PERFTEST_COLS_MAX	12

/* Gb/s (10^9 bits, --report_gbits) in MiB/s */
#define GBITS_TO_MIBPS		(1e9 / 8 / 1048576)

/* The next line of @s, or NULL at the end; @len gets its length. */
static const char *next_line(const char **s, size_t *len)
{
	const char *line = *s, *nl;

	if (!*line)
		return NULL;
	nl = strchr(line, '\n');
	*len = nl ? (size_t)(nl - line) : strlen(line);
	*s = nl ? nl + 1 : line + *len;
	return line;
}

static bool line_has(const char *line, size_t len, const char *word)
{
	size_t n = strlen(word);

	for (; len >= n; line++, len--)
		if (!memcmp(line, word, n))
			return true;
	return false;
}

/* A line of dashes, as perftest draws around its tables. */
static bool line_is_rule(const char *line, size_t len)
{
	while (len && isspace((unsigned char)*line)) {
		line++;
		len--;
	}
	return len >= 3 && !strncmp(line, "---", 3);
}

/*
 * The numbers of a row: the line must start (after blanks) with the
 * message size, an integer, and hold nothing but numbers.
 *
 * Return: how many numbers, or 0 if the line is not a row.
 */
static int parse_row(const char *line, size_t len, double *v, int max)
{
	char buf[512], *p, *end;
	int n = 0;

	if (len >= sizeof(buf))
		return 0;
	memcpy(buf, line, len);
	buf[len] = '\0';
	p = buf;
	while (isspace((unsigned char)*p))
		p++;
	if (!isdigit((unsigned char)*p))
		return 0;
	while (*p) {
		if (n == max)
			return 0;
		v[n] = strtod(p, &end);
		if (end == p || (*end && !isspace((unsigned char)*end)))
			return 0;
		n++;
		p = end;
		while (isspace((unsigned char)*p))
			p++;
	}
	return n;
}

static bool row_size_ok(const double *v)
{
	return v[0] >= 1 && v[0] <= UINT32_MAX && v[0] == floor(v[0]) &&
	       v[1] >= 0;
}

/* Walks the rows of perftest's results tables, a line at a time. */
struct table_walk {
	const char *out;	/* what is left to read */
	const char *lat;	/* a latency header has this word, or NULL */
	const char *bw;		/* a bandwidth header has this word, or NULL */
	bool in_table;
	bool gbits;		/* the table is in Gb/sec */
	size_t rows;		/* rows of the table being read */
	bool closed;		/* a rule ended a table that had rows */
};

/*
 * The next row of a results table, its numbers in @v (at least @min of
 * them, a whole message size first): rows outside a table whose header
 * has @w->lat or @w->bw do not count, nor do rows after the rule under
 * it. @w->closed is set once that rule, a whole line, ends a table with
 * rows.
 *
 * Return: how many numbers, or 0 when @w->out has no more rows.
 */
static int table_next_row(struct table_walk *w, double *v, int min)
{
	const char *line;
	size_t len;
	int n;

	while ((line = next_line(&w->out, &len))) {
		if (line_has(line, len, "#bytes")) {
			w->in_table = (w->lat && line_has(line, len, w->lat)) ||
				      (w->bw && line_has(line, len, w->bw));
			w->gbits = line_has(line, len, "Gb/sec");
			w->rows = 0;
			continue;
		}
		if (!w->in_table)
			continue;
		if (line_is_rule(line, len)) {
			w->in_table = false;
			/* a rule still being printed has not ended the table */
			if (w->rows && line[len] == '\n')
				w->closed = true;
			continue;
		}
		n = parse_row(line, len, v, PERFTEST_COLS_MAX);
		if (n < min || !row_size_ok(v))
			continue;
		w->rows++;
		return n;
	}
	return 0;
}

/**
 * perftest_parse_lat() - the rows of an ib_*_lat table
 * @out: what the client printed
 * @rows: receives the rows
 * @max: room in @rows
 *
 * The header is perftest's "#bytes #iterations t_min[usec] t_max[usec]
 * t_typical[usec] t_avg[usec] t_stdev[usec] 99% percentile[usec] 99.9%
 * percentile[usec]"; versions without the percentiles leave them NAN.
 *
 * Return: the number of rows, or -EINVAL if there is no table or it has
 * no rows, -E2BIG if more rows than @max.
 */
int perftest_parse_lat(const char *out, struct perftest_lat *rows,
		       size_t max)
{
	struct table_walk w = { .out = out, .lat = "t_typical" };
	double v[PERFTEST_COLS_MAX];
	size_t count = 0;
	int n;

	while ((n = table_next_row(&w, v, 7))) {
		if (count == max)
			return -E2BIG;
		rows[count] = (struct perftest_lat){
			.size = v[0], .iterations = v[1], .t_min = v[2],
			.t_max = v[3], .t_typical = v[4], .t_avg = v[5],
			.t_stdev = v[6],
			.p99 = n > 7 ? v[7] : NAN,
			.p999 = n > 8 ? v[8] : NAN,
		};
		count++;
	}
	return count ? (int)count : -EINVAL;
}

/**
 * perftest_parse_bw() - the rows of an ib_*_bw table
 * @out: what the client printed
 * @rows: receives the rows, bandwidth in MiB/s
 * @max: room in @rows
 *
 * The header is "#bytes #iterations BW peak[MB/sec] BW average[MB/sec]
 * MsgRate[Mpps]"; perftest's MB is 2^20 bytes (newer versions say MiB).
 * A table in Gb/sec (--report_gbits) is converted.
 *
 * Return: the number of rows, or -EINVAL if there is no table or it has
 * no rows, -E2BIG if more rows than @max.
 */
int perftest_parse_bw(const char *out, struct perftest_bw *rows, size_t max)
{
	struct table_walk w = { .out = out, .bw = "BW average" };
	double v[PERFTEST_COLS_MAX], scale;
	size_t count = 0;

	while (table_next_row(&w, v, 5)) {
		if (count == max)
			return -E2BIG;
		scale = w.gbits ? GBITS_TO_MIBPS : 1;
		rows[count] = (struct perftest_bw){
			.size = v[0], .iterations = v[1],
			.bw_peak = v[2] * scale, .bw_avg = v[3] * scale,
			.msg_rate = v[4],
		};
		count++;
	}
	return count ? (int)count : -EINVAL;
}

/**
 * perftest_report_complete() - whether a client has printed its whole report
 * @out: what it printed so far
 *
 * perftest draws a rule under its results table and only then closes the
 * connection, with a last exchange with its server. A results table (a
 * latency or bandwidth header, at least one row) with the rule under it
 * is the whole report, whatever happens to the client afterwards.
 *
 * Return: true when @out holds a results table and the rule that ends it.
 */
bool perftest_report_complete(const char *out)
{
	struct table_walk w = {
		.out = out, .lat = "t_typical", .bw = "BW average",
	};
	double v[PERFTEST_COLS_MAX];

	while (table_next_row(&w, v, 5))
		;
	return w.closed;
}

/**
 * perftest_bw_avg() - a row's average bandwidth, as finely as it says it
 * @b: the row
 *
 * perftest prints the average in MB/sec with two decimals and the message
 * rate in Mpps with six: for small messages the rate times the size is
 * the finer number (2 bytes at 0.06 MiB/s: 0.0629), for large ones the
 * average (1 MiB at 86.81 MiB/s: 0.000087 Mpps). The one whose last
 * printed digit weighs less wins, if the two agree within their rounding.
 *
 * Return: MiB/s.
 */
double perftest_bw_avg(const struct perftest_bw *b)
{
	/* half a unit of the last digit of each, in MiB/s */
	double avg_step = 0.005, rate_step = 0.5e-6 * 1e6 * b->size / 1048576;
	double rate = b->msg_rate * 1e6 * b->size / 1048576;

	/* only a rate that is the same number, less rounded */
	if (b->msg_rate > 0 && rate_step < avg_step &&
	    fabs(rate - b->bw_avg) <= avg_step + rate_step)
		return rate;
	return b->bw_avg;
}

/**
 * perftest_parse_version() - the version "ib_send_lat --version" prints
 * @out: its output, "Version: 6.06"
 * @ver: receives the version
 * @len: room in @ver
 *
 * Return: 0, or -EINVAL if there is no version in @out.
 */
int perftest_parse_version(const char *out, char *ver, size_t len)
{
	const char *p = strstr(out, "Version:");
	size_t n = 0;

	if (!p || !len)
		return -EINVAL;
	p += strlen("Version:");
	while (*p == ' ' || *p == '\t')
		p++;
	while (p[n] && !isspace((unsigned char)p[n]))
		n++;
	if (!n || n >= len)
		return -EINVAL;
	memcpy(ver, p, n);
	ver[n] = '\0';
	return 0;
}

/**
 * perftest_prog() - the perftest program of a test
 * @buf: receives the name, e.g. "ib_send_lat"
 * @len: room in @buf (16 is enough)
 * @type: KVPERF_RUN_TYPE_LAT or KVPERF_RUN_TYPE_BW
 * @op: KVPERF_OP_SEND, _WRITE or _READ
 *
 * Return: @buf.
 */
const char *perftest_prog(char *buf, size_t len, uint8_t type, uint8_t op)
{
	static const char *const ops[] = {
		[KVPERF_OP_SEND] = "send",
		[KVPERF_OP_WRITE] = "write",
		[KVPERF_OP_READ] = "read",
	};

	snprintf(buf, len, "ib_%s_%s", op < ARRAY_SIZE(ops) ? ops[op] : "send",
		 type == KVPERF_RUN_TYPE_BW ? "bw" : "lat");
	return buf;
}

static void add(struct perftest_cmd *c, const char *arg)
{
	if (c->argc < PERFTEST_ARGV_MAX - 1)
		c->argv[c->argc++] = arg;
}

static void add_num(struct perftest_cmd *c, const char *opt, uint32_t val)
{
	if (c->nums == PERFTEST_NUMS_MAX)
		return;
	snprintf(c->num[c->nums], sizeof(c->num[0]), "%u", val);
	add(c, opt);
	add(c, c->num[c->nums++]);
}

/**
 * perftest_has_option() - whether perftest's usage text lists an option
 * @help: what "ib_send_lat --help" printed
 * @opt: the long option, "--ipv6-addr"
 *
 * The option must stand alone: "--ipv6" is not in a text that has
 * "--ipv6-addr" only.
 *
 * Return: true when @help lists @opt.
 */
bool perftest_has_option(const char *help, const char *opt)
{
	size_t n = strlen(opt);
	const char *p = help;
	char next;

	while ((p = strstr(p, opt))) {
		next = p[n];
		if ((p == help || isspace((unsigned char)p[-1]) ||
		     p[-1] == ',') &&
		    !isalnum((unsigned char)next) && next != '-' &&
		    next != '_')
			return true;
		p += n;
	}
	return false;
}

/**
 * perftest_cmd_build() - the command line of a perftest server or client
 * @c: receives the argv, NULL-terminated
 * @cfg: the measurement; @cfg->addr set makes the client
 *
 * Always RDMA CM (-R, as kvperf connects) and -F (no cpufreq warning);
 * the port, size (or -a) and iterations, and for send and write the
 * inline size, so that perftest's own default (up to 236 bytes inline on
 * some devices) does not differ from kvperf's. For bw the CQ moderation
 * too (-Q): without it perftest asks for every completion of a single
 * size above 8 KiB, and kvperf for one every signal-every requests.
 * With @cfg->ipv6, --ipv6-addr on both sides: without it perftest's
 * RDMA CM server binds and its client resolves the server's name as IPv4
 * only (releases without the option cannot reach IPv6 at all).
 */
void perftest_cmd_build(struct perftest_cmd *c, const struct perftest_cfg *cfg)
{
	memset(c, 0, sizeof(*c));
	add(c, perftest_prog(c->prog, sizeof(c->prog), cfg->type, cfg->op));
	add(c, "-R");
	add(c, "-F");
	if (!cfg->addr && cfg->dev) {
		add(c, "-d");
		add(c, cfg->dev);
	}
	add_num(c, "-p", cfg->port);
	if (cfg->size)
		add_num(c, "-s", cfg->size);
	else
		add(c, "-a");
	if (cfg->iterations)
		add_num(c, "-n", cfg->iterations);
	if (cfg->op != KVPERF_OP_READ)
		add_num(c, "-I", cfg->inline_size);
	if (cfg->type == KVPERF_RUN_TYPE_BW) {
		if (cfg->tx_depth)
			add_num(c, "-t", cfg->tx_depth);
		if (cfg->qps)
			add_num(c, "-q", cfg->qps);
		if (cfg->cq_mod)
			add_num(c, "-Q", cfg->cq_mod);
	}
	if (cfg->events)
		add(c, "-e");
	if (cfg->ipv6)
		add(c, "--ipv6-addr");
	if (cfg->addr)
		add(c, cfg->addr);
	c->argv[c->argc] = NULL;
}
