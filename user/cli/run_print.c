// SPDX-License-Identifier: GPL-2.0
/*
 * Printing runs of either path (struct kv_run) as a header and perftest's
 * latency table (the bandwidth table is run_bw_print.c's), or as one JSON
 * object; and the run events of kvperf monitor.
 */
#include <errno.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "compiler.h"
#include "fmt.h"
#include "print.h"
#include "run_bw_print.h"
#include "run_io_print.h"
#include "run_model.h"
#include "run_print.h"

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
		       const struct kv_lat_result *res)
{
	char json[FMT_FIXED_LEN], text[FMT_FIXED_LEN];
	uint64_t v;

	if (!KV_HAS(res, c->type)) {
		/* keep the columns in place */
		if (c->fmt)
			pr_text_field(p, c->fmt, "-");
		return;
	}
	v = run_model_uint(&run_model_lat_fields, res, c->type);
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

static void print_lat_result(struct printer *p,
			     const struct kv_lat_result *res)
{
	size_t i;

	pr_obj_open(p, NULL);
	pr_indent(p, 1);
	for (i = 0; i < ARRAY_SIZE(lat_columns); i++)
		print_cell(p, &lat_columns[i], res);
	pr_eol(p);
	pr_obj_close(p);
}

/* The latency table, or in JSON "results", one object per size. */
static void print_lat(struct printer *p, const struct kv_run *run)
{
	uint32_t i;

	if (run->nlat) {
		pr_text(p, lat_header);
		pr_eol(p);
	}
	pr_arr_open(p, "results");
	for (i = 0; i < run->nlat; i++)
		print_lat_result(p, &run->lat[i]);
	pr_arr_close(p);
}

/* Helpers over the run's fields, by attribute, printing only what is set. */
static bool has(const struct kv_run *run, int attr)
{
	return KV_HAS(run, attr);
}

static uint64_t uval(const struct kv_run *run, int attr)
{
	return run_model_uint(&run_model_fields, run, attr);
}

static void print_uint(struct printer *p, const struct kv_run *run, int attr,
		       const char *key, const char *fmt)
{
	if (has(run, attr))
		pr_u64(p, key, fmt, uval(run, attr));
}

static void print_enum(struct printer *p, const struct kv_run *run, int attr,
		       const char *key, const char *fmt,
		       const struct name_table *names)
{
	if (has(run, attr))
		pr_enum(p, key, fmt, uval(run, attr), names);
}

static void print_string(struct printer *p, const struct kv_run *run,
			 int attr, const char *key, const char *fmt)
{
	const struct kv_field *f = &run_model_fields.field[attr];

	if (has(run, attr))
		pr_str(p, key, fmt, (const char *)run + f->offset);
}

/* "198.18.0.1:18515" in text, "addr" and "port" in JSON */
static void print_endpoint(struct printer *p, const struct kv_run *run,
			   const char *fmt)
{
	char a[FMT_ADDR_LEN], text[FMT_ADDR_LEN];
	bool addr = has(run, KVPERF_A_RUN_ADDR);
	bool port = has(run, KVPERF_A_RUN_PORT);

	if (addr) {
		fmt_addr(a, run->addr, run->addr_len);
		if (port)
			fmt_addr_port(text, run->addr, run->addr_len,
				      run->port);
		pr_str_as(p, "addr", fmt, a, port ? text : a);
	}
	/* text shows the port with the address, or alone without one */
	if (port)
		pr_u64(p, "port", addr ? NULL : "port %s", run->port);
}

/*
 * Text: the items of a "# a, b, c" line. Starts the item if the field is
 * set, and says whether it is.
 */
static bool item(struct printer *p, bool set, bool *first)
{
	if (!set)
		return false;
	pr_text(p, *first ? "#" : ",");
	*first = false;
	return true;
}

/* A flag of the title: JSON true or false, text ", KEY" when set. */
static void print_title_flag(struct printer *p, bool val, const char *key)
{
	if (val)
		pr_text(p, ",");
	pr_flag(p, key, key, val);
}

/*
 * A mode of the title: JSON its name, text ", FMT" only when it is not
 * the default @dflt (such as "stats off", "post-context bh").
 */
static void print_title_mode(struct printer *p, const struct kv_run *run,
			     int attr, const char *key, const char *fmt,
			     const struct name_table *names, uint64_t dflt)
{
	bool shown;

	if (!has(run, attr))
		return;
	shown = uval(run, attr) != dflt;
	if (shown)
		pr_text(p, ",");
	pr_enum(p, key, shown ? fmt : NULL, uval(run, attr), names);
}

/* A count of the title: in text only while the run is @live. */
static void print_title_count(struct printer *p, const struct kv_run *run,
			      int attr, const char *key, const char *fmt,
			      bool live)
{
	if (has(run, attr) && live)
		pr_text(p, ",");
	print_uint(p, run, attr, key, live ? fmt : NULL);
}

/* "# run 3: lat send to 198.18.0.1:18515 dev rxe0, state done" */
static void print_title(struct printer *p, const struct kv_run *run, bool bw)
{
	bool state = has(run, KVPERF_A_RUN_STATE);
	bool live;

	pr_text(p, "# run");
	print_uint(p, run, KVPERF_A_RUN_ID, "id", "%s:");
	print_enum(p, run, KVPERF_A_RUN_TYPE, "type", "%s", &fmt_run_type);
	print_enum(p, run, KVPERF_A_RUN_OP, "op", "%s", &fmt_op);
	print_endpoint(p, run, "to %s");
	print_string(p, run, KVPERF_A_RUN_DEV, "dev", "dev %s");
	print_title_flag(p, run->verify, "verify");
	if (bw)
		print_title_flag(p, run->bidir, "bidir");
	else
		print_title_mode(p, run, KVPERF_A_RUN_STATS, "stats",
				 "stats %s", &fmt_stats_mode,
				 KVPERF_STATS_MODE_ON);
	print_title_mode(p, run, KVPERF_A_RUN_POST_CONTEXT, "post_context",
			 "post-context %s", &fmt_post_context,
			 KVPERF_POST_CONTEXT_PROCESS);
	if (state) {
		pr_text(p, ",");
		pr_enum(p, "state", "state %s", run->state, &fmt_run_state);
	}
	/* how far it got matters while it runs; after, the table says */
	live = !state || run->state == KVPERF_RUN_STATE_CONNECTING ||
	       run->state == KVPERF_RUN_STATE_RUNNING;
	print_title_count(p, run, KVPERF_A_RUN_PROGRESS, "progress",
			  "progress %s", live);
	print_title_count(p, run, KVPERF_A_RUN_BYTES, "bytes", "bytes %s",
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
	{ KVPERF_A_RUN_QD, "qd", "qd %s", NULL },
	{ KVPERF_A_RUN_INV, "inv", "inv %s", &fmt_io_inv },
	{ KVPERF_A_RUN_SEGMENTS, "segments", "segments %s", NULL },
	{ KVPERF_A_RUN_READ_PCT, "read_pct", "read-pct %s", NULL },
	{ KVPERF_A_RUN_REG, "reg", "reg %s", &fmt_io_reg },
	{ KVPERF_A_RUN_INLINE_DATA, "inline_data", "inline-data %s", NULL },
	{ KVPERF_A_RUN_BSS, "bss", "bss %s", NULL },
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

/**
 * run_path_name() - the name of a path
 * @path: enum kv_run_path
 *
 * Return: "kernel" or "user".
 */
const char *run_path_name(uint8_t path)
{
	return kv_run_path_names[path == KV_RUN_PATH_USER ? KV_RUN_PATH_USER :
						KV_RUN_PATH_KERNEL];
}

/*
 * An I/O run's sweep: "bss 512,4K,1M" in text, its sizes in bytes in a
 * JSON array.
 */
static void print_bss(struct printer *p, const struct kv_run *run,
		      const char *key, const char *fmt)
{
	char text[128] = "", size[FMT_SIZE_SHORT_LEN];
	size_t n = 0;
	uint32_t b;

	pr_arr_open(p, key);
	for (b = 0; b < 32; b++) {
		uint32_t v = 1U << b;

		if (!(run->bss & v))
			continue;
		if (p->json)
			json_u64(&p->jw, v);
		n += snprintf(text + n, sizeof(text) - n, "%s%s", n ? "," : "",
			      fmt_size_short(size, v));
	}
	pr_arr_close(p);
	pr_text_field(p, fmt, text);
}

/*
 * "# path kernel, poll busy, inline 0, mtu 1024, warmup 16, kernel
 * 6.1.0-56-amd64"; a warm-up by time hides the count in text.
 */
static void print_setup(struct printer *p, const struct kv_run *run)
{
	bool warmup_ms = has(run, KVPERF_A_RUN_WARMUP_MS);
	const struct setup_item *it;
	bool first = false;
	const char *fmt;

	/* who ran the loops: not the kernel's to say, so always there */
	pr_text(p, "#");
	pr_str(p, "path", "path %s", run_path_name(run->path));

	for (it = setup_items; it < setup_items + ARRAY_SIZE(setup_items);
	     it++) {
		fmt = it->fmt;
		if (it->type == KVPERF_A_RUN_WARMUP && warmup_ms)
			fmt = NULL;
		/* an I/O run's queue pairs are its queues, as asked */
		if (it->type == KVPERF_A_RUN_QPS &&
		    run->type == KVPERF_RUN_TYPE_IO)
			fmt = "queues %s";
		if (!has(run, it->type) ||
		    (fmt && !item(p, true, &first)))
			continue;
		if (it->type == KVPERF_A_RUN_BSS)
			print_bss(p, run, it->key, fmt);
		else if (it->names)
			print_enum(p, run, it->type, it->key, fmt, it->names);
		else if (run_model_fields.field[it->type].kind ==
			 KV_FIELD_STRING)
			print_string(p, run, it->type, it->key, fmt);
		else
			print_uint(p, run, it->type, it->key, fmt);
	}
	pr_eol(p);
}

/**
 * run_print() - print one run with its results
 * @p: the printer; in JSON the run is one object
 * @run: the run, of either path
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
 * bandwidth runs "bidir", with post-context bh "post-context bh") and,
 * while the run runs,
 * "progress N" (and "bytes N") in the first line, "path kernel" (or
 * "path user") and the rest of the setup in the second ("cpu N",
 * "duration N ms", "qps N" ...), an "error: TEXT" line when the run
 * failed, and the table only when there are results: the latency table,
 * or for bandwidth runs the bandwidth table (see run_print_bw()), for
 * I/O runs fio's summary (see run_print_io()). JSON:
 * the run's fields that are set as keys, "verify" and "path" always (and
 * "bidir" for bandwidth runs, "stats" "on" or "off" for latency runs,
 * "post_context" "process" or "bh" where the run reports it),
 * and "results", an array of one object per message size; mean_ns and
 * stdev_ns have exactly 3 decimals, from picoseconds. A result without a
 * field (min, max, stdev and the percentiles of a run with stats off)
 * shows "-" in its table cell and has no key in JSON.
 */
void run_print(struct printer *p, const struct kv_run *run, bool gbits)
{
	bool bw = has(run, KVPERF_A_RUN_TYPE) &&
		  run->type == KVPERF_RUN_TYPE_BW;
	bool io = has(run, KVPERF_A_RUN_TYPE) &&
		  run->type == KVPERF_RUN_TYPE_IO;

	pr_obj_open(p, NULL);
	print_title(p, run, bw);
	print_setup(p, run);
	print_string(p, run, KVPERF_A_RUN_ERROR, "error", "error: %s");
	pr_eol(p);
	if (bw)
		run_print_bw(p, run, gbits);
	else if (io)
		run_print_io(p, run);
	else
		print_lat(p, run);
	pr_obj_close(p);
}

/**
 * run_print_msg() - print a run-get reply as "run show" does, in MiB/s
 * @p: the printer
 * @nlh: the run
 * @err: where to report a malformed message
 *
 * Return: 0, -EINVAL after reporting a malformed message, -ENOMEM.
 */
int run_print_msg(struct printer *p, const struct nlmsghdr *nlh, FILE *err)
{
	struct kv_run run;
	int ret;

	ret = run_model_decode(&run, nlh, err);
	if (!ret)
		run_print(p, &run, false);
	else if (ret == -ENOMEM)
		fprintf(err, "kvperf: out of memory\n");
	run_model_free(&run);
	return ret;
}

/**
 * run_print_event() - print a run event as kvperf monitor does
 * @p: a printer freshly set up for this event
 * @finished: a run-finished event, else a run-progress one
 * @ev: the event's fields
 *
 * Text: "run 3 finished: done" ("run 4 finished: failed: ERROR" with the
 * error of a failed run), "run 3 progress 5000" (bandwidth runs add
 * "size S bytes B interval-bytes B interval-messages M interval-ns T").
 * JSON: {"event":"run-finished","id":3,"state":"done"} (and "error"),
 * {"event":"run-progress","id":3,"progress":5000} (and "size", "bytes",
 * "interval_bytes", "interval_messages", "interval_ns").
 */
void run_print_event(struct printer *p, bool finished,
		     const struct kv_run *ev)
{
	pr_obj_open(p, NULL);
	pr_str(p, "event", NULL, finished ? "run-finished" : "run-progress");
	pr_text(p, "run");
	print_uint(p, ev, KVPERF_A_RUN_ID, "id", "%s");
	if (finished) {
		pr_text(p, " finished:");
		print_enum(p, ev, KVPERF_A_RUN_STATE, "state", "%s",
			   &fmt_run_state);
		if (has(ev, KVPERF_A_RUN_ERROR))
			pr_text(p, ":");
		print_string(p, ev, KVPERF_A_RUN_ERROR, "error", "%s");
	} else {
		print_uint(p, ev, KVPERF_A_RUN_PROGRESS, "progress",
			   "progress %s");
		/* bandwidth runs: the size and the last interval */
		print_uint(p, ev, KVPERF_A_RUN_CUR_SIZE, "size", "size %s");
		print_uint(p, ev, KVPERF_A_RUN_BYTES, "bytes", "bytes %s");
		print_uint(p, ev, KVPERF_A_RUN_INTERVAL_BYTES,
			   "interval_bytes", "interval-bytes %s");
		print_uint(p, ev, KVPERF_A_RUN_INTERVAL_MESSAGES,
			   "interval_messages", "interval-messages %s");
		print_uint(p, ev, KVPERF_A_RUN_INTERVAL_NS, "interval_ns",
			   "interval-ns %s");
	}
	pr_obj_close(p);
	pr_finish(p);
}
