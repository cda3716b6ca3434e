// SPDX-License-Identifier: GPL-2.0
/*
 * Printing runs: a KVPERF_CMD_RUN_GET reply (or the run-finished event,
 * which carries the same) as a header and perftest's latency table, or as
 * one JSON object; and the run events of kvperf monitor.
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

static void print_result(struct printer *p, struct nlattr **tb)
{
	size_t i;

	pr_obj_open(p, NULL);
	pr_indent(p, 1);
	for (i = 0; i < ARRAY_SIZE(lat_columns); i++)
		print_cell(p, &lat_columns[i], tb[lat_columns[i].type]);
	pr_eol(p);
	pr_obj_close(p);
}

static void print_uint(struct printer *p, const struct nlattr *nla,
		       const char *key, const char *fmt)
{
	if (nla)
		pr_u64(p, key, fmt, attr_uint(nla));
}

static void print_enum(struct printer *p, const struct nlattr *nla,
		       const char *key, const char *fmt,
		       const struct name_table *names)
{
	if (nla)
		pr_enum(p, key, fmt, attr_uint(nla), names);
}

static void print_string(struct printer *p, const struct nlattr *nla,
			 const char *key, const char *fmt)
{
	if (nla)
		pr_str(p, key, fmt, nla_data(nla));
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

/* "# run 3: lat send to 198.18.0.1:18515 dev rxe0, state done" */
static void print_title(struct printer *p, struct nlattr **tb)
{
	struct nlattr *state = tb[KVPERF_A_RUN_STATE];
	bool verify = tb[KVPERF_A_RUN_VERIFY];
	bool live;

	pr_text(p, "# run");
	print_uint(p, tb[KVPERF_A_RUN_ID], "id", "%s:");
	print_enum(p, tb[KVPERF_A_RUN_TYPE], "type", "%s", &fmt_run_type);
	print_enum(p, tb[KVPERF_A_RUN_OP], "op", "%s", &fmt_op);
	show_endpoint(p, tb[KVPERF_A_RUN_ADDR], tb[KVPERF_A_RUN_PORT],
		      "addr", "port", "to %s");
	print_string(p, tb[KVPERF_A_RUN_DEV], "dev", "dev %s");
	if (verify)
		pr_text(p, ",");
	pr_flag(p, "verify", "verify", verify);
	if (state) {
		pr_text(p, ",");
		pr_enum(p, "state", "state %s", attr_uint(state),
			&fmt_run_state);
	}
	/* how far it got matters while it runs; after, the table says */
	live = !state || attr_uint(state) == KVPERF_RUN_STATE_CONNECTING ||
	       attr_uint(state) == KVPERF_RUN_STATE_RUNNING;
	if (tb[KVPERF_A_RUN_PROGRESS] && live)
		pr_text(p, ",");
	print_uint(p, tb[KVPERF_A_RUN_PROGRESS], "progress",
		   live ? "progress %s" : NULL);
	pr_eol(p);
}

/* "# poll busy, inline 0, mtu 1024, warmup 16, kernel 6.1.0-56-amd64" */
static void print_setup(struct printer *p, struct nlattr **tb)
{
	bool first = true;

	if (item(p, tb[KVPERF_A_RUN_POLL], &first))
		print_enum(p, tb[KVPERF_A_RUN_POLL], "poll", "poll %s",
			   &fmt_poll);
	if (item(p, tb[KVPERF_A_RUN_INLINE], &first))
		print_uint(p, tb[KVPERF_A_RUN_INLINE], "inline", "inline %s");
	if (item(p, tb[KVPERF_A_RUN_MTU], &first))
		print_uint(p, tb[KVPERF_A_RUN_MTU], "mtu", "mtu %s");
	if (item(p, tb[KVPERF_A_RUN_WARMUP], &first))
		print_uint(p, tb[KVPERF_A_RUN_WARMUP], "warmup", "warmup %s");
	if (item(p, tb[KVPERF_A_RUN_CPU], &first))
		print_uint(p, tb[KVPERF_A_RUN_CPU], "cpu", "cpu %s");
	if (item(p, tb[KVPERF_A_RUN_DURATION_MS], &first))
		print_uint(p, tb[KVPERF_A_RUN_DURATION_MS], "duration_ms",
			   "duration %s ms");
	if (item(p, tb[KVPERF_A_RUN_KERNEL], &first))
		print_string(p, tb[KVPERF_A_RUN_KERNEL], "kernel",
			     "kernel %s");
	pr_eol(p);

	/* the table shows what was measured; JSON also what was asked */
	print_uint(p, tb[KVPERF_A_RUN_SIZE], "size", NULL);
	print_uint(p, tb[KVPERF_A_RUN_SIZE_MAX], "size_max", NULL);
	print_uint(p, tb[KVPERF_A_RUN_ITERATIONS], "iterations", NULL);
	print_uint(p, tb[KVPERF_A_RUN_TIMEOUT_MS], "timeout_ms", NULL);
}

static int parse_run(const struct nlmsghdr *nlh, struct nlattr **tb,
		     FILE *err)
{
	return attrs_parse_reply(nlh, &attrs_run, tb, KVPERF_A_RUN_RESULT,
				 &attrs_result, err);
}

/**
 * run_print() - print one run with its results
 * @p: the printer; in JSON the run is one object
 * @nlh: a KVPERF_CMD_RUN_GET reply or a KVPERF_CMD_RUN_FINISHED_NTF
 * @err: where to report a malformed message
 *
 * Text, perftest's table after two header lines:
 *
 *   # run 3: lat send to 198.18.0.1:18515 dev rxe0, state done
 *   # poll busy, inline 0, mtu 1024, warmup 16, kernel 6.1.0-56-amd64
 *    #bytes #iterations    t_min[usec] ...
 *    64      10000          12.34 ...
 *
 * with "verify" and, while the run runs, "progress N" in the first line,
 * "cpu N" and "duration N ms" in the second, an "error: TEXT" line when
 * the run failed, and the table only when there are results. JSON: the
 * run's attributes as keys, only those the kernel sent, "verify" always,
 * and "results", an array of one object per message size; mean_ns and
 * stdev_ns have exactly 3 decimals, from the kernel's picoseconds.
 *
 * Return: 0, or -EINVAL after reporting a malformed message; nothing is
 * printed then.
 */
int run_print(struct printer *p, const struct nlmsghdr *nlh, FILE *err)
{
	struct nlattr *rtb[KVPERF_A_RESULT_MAX + 1];
	struct nlattr *tb[KVPERF_A_RUN_MAX + 1];
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct nlattr *nla;
	int rem;

	if (parse_run(nlh, tb, err))
		return -EINVAL;

	pr_obj_open(p, NULL);
	print_title(p, tb);
	print_setup(p, tb);
	print_string(p, tb[KVPERF_A_RUN_ERROR], "error", "error: %s");
	pr_eol(p);
	if (tb[KVPERF_A_RUN_RESULT]) {
		pr_text(p, lat_header);
		pr_eol(p);
	}
	pr_arr_open(p, "results");
	nla_for_each_attr(nla, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0),
			  rem) {
		if (nla_type(nla) != KVPERF_A_RUN_RESULT)
			continue;
		attrs_parse(&attrs_result, rtb, nla_data(nla), nla_len(nla),
			    NULL);
		print_result(p, rtb);
	}
	pr_arr_close(p);
	pr_obj_close(p);
	return 0;
}

/**
 * run_print_event() - print a run event as kvperf monitor does
 * @p: a printer freshly set up for this event
 * @nlh: a KVPERF_CMD_RUN_FINISHED_NTF or KVPERF_CMD_RUN_PROGRESS_NTF
 * @err: where to report a malformed event
 *
 * Text: "run 3 finished: done" ("run 4 finished: failed: ERROR" with the
 * error of a failed run), "run 3 progress 5000". JSON:
 * {"event":"run-finished","id":3,"state":"done"} (and "error"),
 * {"event":"run-progress","id":3,"progress":5000}.
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
	print_uint(p, tb[KVPERF_A_RUN_ID], "id", "%s");
	if (finished) {
		pr_text(p, " finished:");
		print_enum(p, tb[KVPERF_A_RUN_STATE], "state", "%s",
			   &fmt_run_state);
		if (tb[KVPERF_A_RUN_ERROR])
			pr_text(p, ":");
		print_string(p, tb[KVPERF_A_RUN_ERROR], "error", "%s");
	} else {
		print_uint(p, tb[KVPERF_A_RUN_PROGRESS], "progress",
			   "progress %s");
	}
	pr_obj_close(p);
	pr_finish(p);
	return 0;
}
