// SPDX-License-Identifier: GPL-2.0
/*
 * Printing runs: a KVPERF_CMD_RUN_GET reply (or the run-finished event,
 * which carries the same) as a header and perftest's latency table (the
 * bandwidth table is run_bw_print.c's), or as one JSON object; and the run
 * events of kvperf monitor.
 */
#include <errno.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "attrs.h"
#include "compiler.h"
#include "fmt.h"
#include "print.h"
#include "run.h"
#include "show.h"

/*
 * perftest's latency columns as ib_send_lat prints them, so that parsers
 * of its output read ours, then our own columns after them.
 */
static const char lat_header[] =
	" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]   t_p90[usec]  t_p99.99[usec]  mismatches";

enum col_unit {
	COL_COUNT,	/* an integer, as it is */
	COL_NS,		/* ns: an integer in JSON, usec with 2 decimals in text */
	COL_PS,		/* ps: ns with 3 decimals in JSON, usec with 3 in text */
};

struct column {
	int type;
	const char *key;
	/* the text cell, padded to where the next column starts */
	const char *fmt;
	enum col_unit unit;
};

/* Text order is the table's; JSON follows it. */
static const struct column lat_columns[] = {
	{ KVPERF_A_RESULT_SIZE,		"size",		"%-7s",  COL_COUNT },
	{ KVPERF_A_RESULT_ITERATIONS,	"iterations",	"%-14s", COL_COUNT },
	{ KVPERF_A_RESULT_MIN_NS,	"min_ns",	"%-14s", COL_NS },
	{ KVPERF_A_RESULT_MAX_NS,	"max_ns",	"%-12s", COL_NS },
	{ KVPERF_A_RESULT_P50_NS,	"p50_ns",	"%-18s", COL_NS },
	{ KVPERF_A_RESULT_MEAN_PS,	"mean_ns",	"%-16s", COL_PS },
	{ KVPERF_A_RESULT_STDEV_PS,	"stdev_ns",	"%-16s", COL_PS },
	{ KVPERF_A_RESULT_P99_NS,	"p99_ns",	"%-22s", COL_NS },
	{ KVPERF_A_RESULT_P999_NS,	"p999_ns",	"%-24s", COL_NS },
	{ KVPERF_A_RESULT_P90_NS,	"p90_ns",	"%-12s", COL_NS },
	{ KVPERF_A_RESULT_P9999_NS,	"p9999_ns",	"%-15s", COL_NS },
	{ KVPERF_A_RESULT_MISMATCHES,	"mismatches",	"%s",    COL_COUNT },
	{ KVPERF_A_RESULT_HIST_REL_ERR_PPM, "hist_rel_err_ppm", NULL, COL_COUNT },
	{ KVPERF_A_RESULT_ELAPSED_NS,	"elapsed_ns",	NULL,    COL_COUNT },
};

static void print_cell(struct printer *p, const struct column *c,
		       const struct nlattr *nla)
{
	char json[FMT_FIXED_LEN], text[FMT_FIXED_LEN];
	uint64_t v;

	if (!nla) {
		/* keep the columns in place */
		if (c->fmt)
			pr_text_field(p, c->fmt, "-");
		return;
	}
	v = attr_uint(nla);
	switch (c->unit) {
	case COL_COUNT:
		pr_u64(p, c->key, c->fmt, v);
		break;
	case COL_NS:
		pr_u64_as(p, c->key, c->fmt, v, fmt_fixed(text, v, 3, 2));
		break;
	case COL_PS:
		/* mean_ps / 1000 '.' mean_ps % 1000, as sysfs prints it */
		pr_number_as(p, c->key, c->fmt, fmt_fixed(json, v, 3, 3),
			     fmt_fixed(text, v, 6, 3));
		break;
	}
}

static void print_lat_result(struct printer *p, struct nlattr *nest,
			     const void *arg)
{
	struct nlattr *tb[KVPERF_A_RESULT_MAX + 1];
	size_t i;

	(void)arg;
	attrs_parse(&attrs_result, tb, nla_data(nest), nla_len(nest), NULL);
	pr_obj_open(p, NULL);
	pr_indent(p, 1);
	for (i = 0; i < ARRAY_SIZE(lat_columns); i++)
		print_cell(p, &lat_columns[i], tb[lat_columns[i].type]);
	pr_eol(p);
	pr_obj_close(p);
}

/* The latency table, or in JSON "results". */
static void print_lat(struct printer *p, const struct nlmsghdr *nlh,
		      struct nlattr **tb)
{
	if (tb[KVPERF_A_RUN_RESULT]) {
		pr_text(p, lat_header);
		pr_eol(p);
	}
	run_print_results(p, nlh, KVPERF_A_RUN_RESULT, print_lat_result, NULL);
}

/**
 * run_print_results() - the "results" array of a run, one per message size
 * @p: the printer
 * @nlh: the run, checked by attrs_parse_reply()
 * @type: the attribute of the results, KVPERF_A_RUN_RESULT or
 *	  KVPERF_A_RUN_BW_RESULT
 * @fn: prints one, the JSON object and the text rows
 * @arg: passed to @fn
 */
void run_print_results(struct printer *p, const struct nlmsghdr *nlh,
		       int type, run_result_fn fn, const void *arg)
{
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct nlattr *nla;
	int rem;

	pr_arr_open(p, "results");
	nla_for_each_attr(nla, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0),
			  rem)
		if (nla_type(nla) == type)
			fn(p, nla, arg);
	pr_arr_close(p);
}

/*
 * Text: the items of a "# a, b, c" line. Starts the item if the attribute
 * is there, and says whether it is.
 */
static bool item(struct printer *p, const struct nlattr *nla, bool *first)
{
	if (!nla)
		return false;
	pr_text(p, *first ? "#" : ",");
	*first = false;
	return true;
}

/* A flag of the title: JSON true or false, text ", KEY" when set. */
static void print_title_flag(struct printer *p, const struct nlattr *nla,
			     const char *key)
{
	if (nla)
		pr_text(p, ",");
	pr_flag(p, key, key, nla);
}

/*
 * The statistics mode of a latency run: JSON "on" or "off", text ",
 * stats off" only when off (on is the default and every table shows it).
 */
static void print_title_stats(struct printer *p, const struct nlattr *nla)
{
	bool off;

	if (!nla)
		return;
	off = attr_uint(nla) == KVPERF_STATS_MODE_OFF;
	if (off)
		pr_text(p, ",");
	show_enum(p, nla, "stats", off ? "stats %s" : NULL, &fmt_stats_mode);
}

/* A count of the title: in text only while the run is @live. */
static void print_title_count(struct printer *p, const struct nlattr *nla,
			      const char *key, const char *fmt, bool live)
{
	if (nla && live)
		pr_text(p, ",");
	show_uint(p, nla, key, live ? fmt : NULL);
}

/* "# run 3: lat send to 198.18.0.1:18515 dev rxe0, state done" */
static void print_title(struct printer *p, struct nlattr **tb, bool bw)
{
	struct nlattr *state = tb[KVPERF_A_RUN_STATE];
	bool live;

	pr_text(p, "# run");
	show_uint(p, tb[KVPERF_A_RUN_ID], "id", "%s:");
	show_enum(p, tb[KVPERF_A_RUN_TYPE], "type", "%s", &fmt_run_type);
	show_enum(p, tb[KVPERF_A_RUN_OP], "op", "%s", &fmt_op);
	show_endpoint(p, tb[KVPERF_A_RUN_ADDR], tb[KVPERF_A_RUN_PORT],
		      "addr", "port", "to %s");
	show_string(p, tb[KVPERF_A_RUN_DEV], "dev", "dev %s");
	print_title_flag(p, tb[KVPERF_A_RUN_VERIFY], "verify");
	if (bw)
		print_title_flag(p, tb[KVPERF_A_RUN_BIDIR], "bidir");
	else
		print_title_stats(p, tb[KVPERF_A_RUN_STATS]);
	if (state) {
		pr_text(p, ",");
		pr_enum(p, "state", "state %s", attr_uint(state),
			&fmt_run_state);
	}
	/* how far it got matters while it runs; after, the table says */
	live = !state || attr_uint(state) == KVPERF_RUN_STATE_CONNECTING ||
	       attr_uint(state) == KVPERF_RUN_STATE_RUNNING;
	print_title_count(p, tb[KVPERF_A_RUN_PROGRESS], "progress",
			  "progress %s", live);
	print_title_count(p, tb[KVPERF_A_RUN_BYTES], "bytes", "bytes %s",
			  live);
	pr_eol(p);
}

/* What the second header line shows of the run's setup, in its order. */
static const struct setup_item {
	int type;
	const char *key;
	/* text; NULL for JSON only */
	const char *fmt;
	/* the names of an enum */
	const struct name_table *names;
} setup_items[] = {
	{ KVPERF_A_RUN_POLL, "poll", "poll %s", &fmt_poll },
	{ KVPERF_A_RUN_INLINE, "inline", "inline %s", NULL },
	{ KVPERF_A_RUN_MTU, "mtu", "mtu %s", NULL },
	{ KVPERF_A_RUN_WARMUP, "warmup", "warmup %s", NULL },
	{ KVPERF_A_RUN_WARMUP_MS, "warmup_ms", "warmup %s ms", NULL },
	{ KVPERF_A_RUN_CPU, "cpu", "cpu %s", NULL },
	{ KVPERF_A_RUN_CPUS, "cpus", "cpus %s", NULL },
	{ KVPERF_A_RUN_QPS, "qps", "qps %s", NULL },
	{ KVPERF_A_RUN_TX_DEPTH, "tx_depth", "tx-depth %s", NULL },
	{ KVPERF_A_RUN_POST_LIST, "post_list", "post-list %s", NULL },
	{ KVPERF_A_RUN_SIGNAL_EVERY, "signal_every", "signal-every %s", NULL },
	{ KVPERF_A_RUN_DURATION_MS, "duration_ms", "duration %s ms", NULL },
	{ KVPERF_A_RUN_INTERVAL_MS, "interval_ms", "interval %s ms", NULL },
	{ KVPERF_A_RUN_KERNEL, "kernel", "kernel %s", NULL },
	/* the table shows what was measured; JSON also what was asked */
	{ KVPERF_A_RUN_SIZE, "size", NULL, NULL },
	{ KVPERF_A_RUN_SIZE_MAX, "size_max", NULL, NULL },
	{ KVPERF_A_RUN_ITERATIONS, "iterations", NULL, NULL },
	{ KVPERF_A_RUN_TIMEOUT_MS, "timeout_ms", NULL, NULL },
};

/*
 * "# path kernel, poll busy, inline 0, mtu 1024, warmup 16, kernel
 * 6.1.0-56-amd64"; a warm-up by time hides the count in text.
 */
static void print_setup(struct printer *p, struct nlattr **tb, uint8_t path)
{
	const struct setup_item *it;
	bool warmup_ms = tb[KVPERF_A_RUN_WARMUP_MS];
	const struct nlattr *nla;
	bool first = false;
	const char *fmt;

	/* who ran the loops: not the kernel's to say, so always there */
	pr_text(p, "#");
	pr_str(p, "path", "path %s", run_path_name(path));

	for (it = setup_items; it < setup_items + ARRAY_SIZE(setup_items);
	     it++) {
		nla = tb[it->type];
		fmt = it->fmt;
		if (it->type == KVPERF_A_RUN_WARMUP && warmup_ms)
			fmt = NULL;
		if (!nla || (fmt && !item(p, nla, &first)))
			continue;
		if (it->names)
			show_enum(p, nla, it->key, fmt, it->names);
		else if (attrs_run.attrs[it->type].kind == ATTR_STRING)
			show_string(p, nla, it->key, fmt);
		else
			show_uint(p, nla, it->key, fmt);
	}
	pr_eol(p);
}

static int parse_run(const struct nlmsghdr *nlh, struct nlattr **tb,
		     FILE *err)
{
	return attrs_parse_reply(nlh, &attrs_run, tb, true, err);
}

/**
 * run_print_units() - print one run with its results
 * @p: the printer; in JSON the run is one object
 * @nlh: a KVPERF_CMD_RUN_GET reply or a KVPERF_CMD_RUN_FINISHED_NTF
 * @err: where to report a malformed message
 * @gbits: text shows bandwidth in Gb/s rather than MiB/s
 *
 * Text, perftest's table after two header lines:
 *
 *   # run 3: lat send to 198.18.0.1:18515 dev rxe0, state done
 *   # path kernel, poll busy, inline 0, mtu 1024, warmup 16, kernel 6.1...
 *    #bytes #iterations    t_min[usec] ...
 *    64      10000          12.34 ...
 *
 * with "verify" (for latency runs with stats off "stats off", for
 * bandwidth runs "bidir") and, while the run runs,
 * "progress N" (and "bytes N") in the first line, "path kernel" and the
 * rest of the setup the kernel reports in the second ("cpu N", "duration
 * N ms", "qps N" ...), an "error: TEXT" line when the run failed, and the
 * table only when there are results: the latency table, or for bandwidth
 * runs the bandwidth table (see run_print_bw()). JSON: the run's
 * attributes as keys, only those the kernel sent, "verify" and "path"
 * always (and "bidir" for bandwidth runs, "stats" "on" or "off" for
 * latency runs), and "results", an array of one object per message size;
 * mean_ns and stdev_ns have exactly 3 decimals, from the kernel's
 * picoseconds. A result without an attribute (min, max, stdev and the
 * percentiles of a run with stats off) shows "-" in its table cell and
 * has no key in JSON.
 *
 * Return: 0, or -EINVAL after reporting a malformed message; nothing is
 * printed then.
 */
int run_print_units(struct printer *p, const struct nlmsghdr *nlh,
		    FILE *err, bool gbits)
{
	return run_print_path(p, nlh, err, gbits, RUN_PATH_KERNEL);
}

/**
 * run_print_path() - print one run with its results, saying who ran it
 * @p: the printer; in JSON the run is one object
 * @nlh: a run-get reply, a run-finished event, or a user-path run
 *	 described as one
 * @err: where to report a malformed message
 * @gbits: text shows bandwidth in Gb/s rather than MiB/s
 * @path: enum run_path: "path kernel" or "path user" leads the second
 *	  header line, and is "path" in JSON
 *
 * Return: 0, or -EINVAL after reporting a malformed message.
 */
int run_print_path(struct printer *p, const struct nlmsghdr *nlh,
		   FILE *err, bool gbits, uint8_t path)
{
	struct nlattr *tb[KVPERF_A_RUN_MAX + 1];
	bool bw;

	if (parse_run(nlh, tb, err))
		return -EINVAL;
	bw = tb[KVPERF_A_RUN_TYPE] &&
	     attr_uint(tb[KVPERF_A_RUN_TYPE]) == KVPERF_RUN_TYPE_BW;

	pr_obj_open(p, NULL);
	print_title(p, tb, bw);
	print_setup(p, tb, path);
	show_string(p, tb[KVPERF_A_RUN_ERROR], "error", "error: %s");
	pr_eol(p);
	if (bw)
		run_print_bw(p, nlh, tb, gbits);
	else
		print_lat(p, nlh, tb);
	pr_obj_close(p);
	return 0;
}

/**
 * run_print() - print one run as "run show" does: run_print_units() in
 * MiB/s
 * @p: the printer
 * @nlh: the run
 * @err: where to report a malformed message
 *
 * Return: 0, or -EINVAL after reporting a malformed message.
 */
int run_print(struct printer *p, const struct nlmsghdr *nlh, FILE *err)
{
	return run_print_units(p, nlh, err, false);
}

/**
 * run_print_event() - print a run event as kvperf monitor does
 * @p: a printer freshly set up for this event
 * @nlh: a KVPERF_CMD_RUN_FINISHED_NTF or KVPERF_CMD_RUN_PROGRESS_NTF
 * @err: where to report a malformed event
 *
 * Text: "run 3 finished: done" ("run 4 finished: failed: ERROR" with the
 * error of a failed run), "run 3 progress 5000" (bandwidth runs add
 * "size S bytes B interval-bytes B interval-messages M interval-ns T").
 * JSON: {"event":"run-finished","id":3,"state":"done"} (and "error"),
 * {"event":"run-progress","id":3,"progress":5000} (and "size", "bytes",
 * "interval_bytes", "interval_messages", "interval_ns").
 *
 * Return: 0, or -EINVAL after reporting a malformed event.
 */
int run_print_event(struct printer *p, const struct nlmsghdr *nlh,
		    FILE *err)
{
	struct nlattr *tb[KVPERF_A_RUN_MAX + 1];
	struct genlmsghdr *g = nlmsg_data(nlh);
	bool finished;

	if (parse_run(nlh, tb, err))
		return -EINVAL;
	finished = g->cmd == KVPERF_CMD_RUN_FINISHED_NTF;

	pr_obj_open(p, NULL);
	pr_str(p, "event", NULL, finished ? "run-finished" : "run-progress");
	pr_text(p, "run");
	show_uint(p, tb[KVPERF_A_RUN_ID], "id", "%s");
	if (finished) {
		pr_text(p, " finished:");
		show_enum(p, tb[KVPERF_A_RUN_STATE], "state", "%s",
			  &fmt_run_state);
		if (tb[KVPERF_A_RUN_ERROR])
			pr_text(p, ":");
		show_string(p, tb[KVPERF_A_RUN_ERROR], "error", "%s");
	} else {
		show_uint(p, tb[KVPERF_A_RUN_PROGRESS], "progress",
			  "progress %s");
		/* bandwidth runs: the size and the last interval */
		show_uint(p, tb[KVPERF_A_RUN_CUR_SIZE], "size", "size %s");
		show_uint(p, tb[KVPERF_A_RUN_BYTES], "bytes", "bytes %s");
		show_uint(p, tb[KVPERF_A_RUN_INTERVAL_BYTES], "interval_bytes",
			  "interval-bytes %s");
		show_uint(p, tb[KVPERF_A_RUN_INTERVAL_MESSAGES],
			  "interval_messages", "interval-messages %s");
		show_uint(p, tb[KVPERF_A_RUN_INTERVAL_NS], "interval_ns",
			  "interval-ns %s");
	}
	pr_obj_close(p);
	pr_finish(p);
	return 0;
}
