// SPDX-License-Identifier: GPL-2.0
/*
 * Printing bandwidth runs: perftest's table of ib_{send,write,read}_bw,
 * one row per message size, with a row per queue pair and per direction
 * where the run had several; the same as JSON; and the line each interval
 * of a running bandwidth run gets.
 *
 * Bandwidth is in MiB/s (2^20 bytes per second), or in Gb/s (10^9 bits
 * per second) in text when asked; message rates in millions per second.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/kvperf.h>

#include "attrs.h"
#include "compiler.h"
#include "print.h"
#include "run_bw_print.h"
#include "run_model.h"

#define BW_MIB		1048576.0
#define BW_NS_PER_S	1e9
/* snprintf("%.6f") of the largest rate the counters allow, and more */
#define BW_NUM_LEN	48

/*
 * The columns of the table. A cell is as wide as the column's title and
 * the gap after it, less the space that separates cells, so that values
 * start under their titles as in perftest's output.
 */
enum bw_col {
	BW_COL_BYTES,
	BW_COL_ITERS,
	BW_COL_PEAK,
	BW_COL_AVG,
	BW_COL_RATE,
	BW_COL_CPU,
	BW_COL_CPU_MSG,
	BW_COL_MISMATCHES,
	BW_COL_COUNT
};

static const struct bw_column {
	const char *title;
	/* in Gb/s, where it differs */
	const char *gb_title;
	unsigned int gap;
} bw_columns[BW_COL_COUNT] = {
	[BW_COL_BYTES]		= { "#bytes", NULL, 5 },
	[BW_COL_ITERS]		= { "#iterations", NULL, 4 },
	[BW_COL_PEAK]		= { "BW peak[MiB/sec]", "BW peak[Gb/sec]", 4 },
	[BW_COL_AVG]		= { "BW average[MiB/sec]",
				    "BW average[Gb/sec]", 3 },
	[BW_COL_RATE]		= { "MsgRate[Mpps]", NULL, 3 },
	[BW_COL_CPU]		= { "CPU[%]", NULL, 3 },
	[BW_COL_CPU_MSG]	= { "CPU[ns/msg]", NULL, 3 },
	[BW_COL_MISMATCHES]	= { "mismatches", NULL, 3 },
};

/* How one run's table is printed. */
struct bw_table {
	bool gbits;
	/* rows per direction, each labelled after its last cell */
	bool bidir;
	/* #iterations is per queue pair; rows per queue pair when above 1 */
	uint64_t qps;
	/* CPU[ns/msg], or mismatches when the run verified payloads */
	enum bw_col last;
	/* text format of each cell, "%-Ns" */
	char fmt[BW_COL_COUNT][8];
};

/*
 * The rows of a message size: one, or for bidir runs one per direction
 * and their total. The peak was sampled on the way to the server; CPU
 * time and mismatches belong to the whole size.
 */
enum bw_row {
	BW_ROW_ALL,
	BW_ROW_TX,
	BW_ROW_RX,
	BW_ROW_TOTAL,
};

static const struct bw_row_kind {
	/* text, after the last cell */
	const char *label;
	/* JSON keys of the average and the message rate */
	const char *avg_key;
	const char *rate_key;
	bool peak;
	bool whole;
} bw_rows[] = {
	[BW_ROW_ALL]	= { NULL, "bw_avg_mibps", "msg_rate_mpps", true, true },
	[BW_ROW_TX]	= { "tx", "bw_avg_mibps", "msg_rate_mpps", true, false },
	[BW_ROW_RX]	= { "rx", "rx_bw_avg_mibps", "rx_msg_rate_mpps",
			    false, false },
	[BW_ROW_TOTAL]	= { "total", "total_bw_avg_mibps",
			    "total_msg_rate_mpps", false, true },
};

/* A count of the model, which may not be set. */
struct bw_count {
	uint64_t val;
	bool known;
};

/* What moved in one direction, or on one queue pair, in one size. */
struct bw_flow {
	struct bw_count messages;
	struct bw_count bytes;
	struct bw_count elapsed_ns;
};

/* The field of attribute @attr of @obj, a structure with fields @f. */
static struct bw_count bw_count(const struct kv_fields *f, const void *obj,
				int attr)
{
	struct bw_count c = { 0, false };

	if (attr && (*(const uint64_t *)obj >> attr) & 1) {
		c.val = run_model_uint(f, obj, attr);
		c.known = true;
	}
	return c;
}

static struct bw_flow bw_flow(const struct kv_fields *f, const void *obj,
			      int messages, int bytes, int elapsed_ns)
{
	struct bw_flow fl = {
		bw_count(f, obj, messages), bw_count(f, obj, bytes),
		bw_count(f, obj, elapsed_ns),
	};

	return fl;
}

static struct bw_count bw_sum(struct bw_count a, struct bw_count b)
{
	a.known = a.known && b.known;
	a.val += b.val;
	return a;
}

static struct bw_count bw_max(struct bw_count a, struct bw_count b)
{
	a.known = a.known && b.known;
	if (b.val > a.val)
		a.val = b.val;
	return a;
}

/* @num * @scale / @den in @v, if both are known and @den is not 0. */
static bool bw_ratio(struct bw_count num, struct bw_count den, double scale,
		     double *v)
{
	*v = 0;
	if (!num.known || !den.known || !den.val)
		return false;
	*v = (double)num.val * scale / (double)den.val;
	return true;
}

/* Bytes per second in the unit of the text: MiB/s, or Gb/s. */
static double bw_unit(double bytes_per_s, bool gbits)
{
	return gbits ? bytes_per_s * 8 / 1e9 : bytes_per_s / BW_MIB;
}

static const char *bw_unit_name(bool gbits)
{
	return gbits ? "Gb/s" : "MiB/s";
}

/*
 * A computed cell: @json under @key in JSON, @text in the table, both
 * with @decimals; "-" in the table when it could not be computed.
 */
static void bw_cell(struct printer *p, const char *fmt, const char *key,
		    bool known, double json, double text, int decimals)
{
	char jbuf[BW_NUM_LEN], tbuf[BW_NUM_LEN];

	if (!known) {
		pr_text_field(p, fmt, "-");
		return;
	}
	snprintf(jbuf, sizeof(jbuf), "%.*f", decimals, json);
	snprintf(tbuf, sizeof(tbuf), "%.*f", decimals, text);
	pr_number_as(p, key, fmt, jbuf, tbuf);
}

/* A count in the table only, divided by @div; JSON has the raw one. */
static void bw_text_count(struct printer *p, const char *fmt,
			  struct bw_count c, uint64_t div)
{
	char buf[24];

	if (!c.known) {
		pr_text_field(p, fmt, "-");
		return;
	}
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)(c.val / div));
	pr_text_field(p, fmt, buf);
}

/*
 * JSON: every number of a result that is set, under its attribute's name
 * in the spec with '_' for '-' ("elapsed-ns" is "elapsed_ns").
 */
static void bw_raw(struct printer *p, const struct attr_set *set,
		   const struct kv_fields *f, const void *obj)
{
	uint64_t has = *(const uint64_t *)obj;
	char key[32], num[24];
	unsigned int type;
	char *c;

	for (type = 1; type <= set->max && type <= f->max; type++) {
		if (!((has >> type) & 1))
			continue;
		snprintf(key, sizeof(key), "%s", set->attrs[type].name);
		for (c = key; *c; c++)
			if (*c == '-')
				*c = '_';
		if (f->field[type].kind == KV_FIELD_S32) {
			snprintf(num, sizeof(num), "%lld", (long long)(int64_t)
				 run_model_uint(f, obj, type));
			pr_number_as(p, key, NULL, num, num);
		} else if (f->field[type].kind == KV_FIELD_UINT) {
			pr_u64(p, key, NULL, run_model_uint(f, obj, type));
		}
	}
}

static const char *bw_title(const struct bw_table *t, enum bw_col c)
{
	const struct bw_column *col = &bw_columns[c];

	return t->gbits && col->gb_title ? col->gb_title : col->title;
}

static void bw_table_init(struct bw_table *t, const struct kv_run *run,
			  bool gbits)
{
	unsigned int c;
	size_t width;

	memset(t, 0, sizeof(*t));
	t->gbits = gbits;
	t->bidir = run->bidir;
	t->qps = KV_HAS(run, KVPERF_A_RUN_QPS) ? run->qps : 1;
	if (!t->qps)
		t->qps = 1;
	t->last = run->verify ? BW_COL_MISMATCHES : BW_COL_CPU_MSG;
	for (c = 0; c <= t->last; c++) {
		width = strlen(bw_title(t, c)) + bw_columns[c].gap - 1;
		/* the last cell is padded only for the label of bidir rows */
		if (c == t->last && !t->bidir)
			snprintf(t->fmt[c], sizeof(t->fmt[c]), "%%s");
		else
			snprintf(t->fmt[c], sizeof(t->fmt[c]), "%%-%zus",
				 width);
	}
}

static void bw_header(struct printer *p, const struct bw_table *t)
{
	unsigned int c;

	pr_indent(p, 1);
	for (c = 0; c <= t->last; c++)
		pr_text_field(p, c == t->last ? "%s" : t->fmt[c],
			      bw_title(t, c));
	pr_eol(p);
}

/* One row of the table: what @f moved in the size @res. */
static void bw_row(struct printer *p, const struct bw_table *t,
		   const struct kv_bw_result *res, enum bw_row row,
		   const struct bw_flow *f)
{
	const struct kv_fields *rf = &run_model_bw_fields;
	const struct bw_row_kind *k = &bw_rows[row];
	struct bw_count cpu = bw_count(rf, res, KVPERF_A_BW_RESULT_CPU_NS);
	double bps = 0, v;
	bool ok;

	pr_indent(p, 1);
	bw_text_count(p, t->fmt[BW_COL_BYTES],
		      bw_count(rf, res, KVPERF_A_BW_RESULT_SIZE), 1);
	bw_text_count(p, t->fmt[BW_COL_ITERS], f->messages, t->qps);
	ok = k->peak && KV_HAS(res, KVPERF_A_BW_RESULT_PEAK_BPS);
	if (ok)
		bps = res->peak_bps;
	bw_cell(p, t->fmt[BW_COL_PEAK], "bw_peak_mibps", ok, bps / BW_MIB,
		bw_unit(bps, t->gbits), 2);
	ok = bw_ratio(f->bytes, f->elapsed_ns, BW_NS_PER_S, &bps);
	bw_cell(p, t->fmt[BW_COL_AVG], k->avg_key, ok, bps / BW_MIB,
		bw_unit(bps, t->gbits), 2);
	ok = bw_ratio(f->messages, f->elapsed_ns, 1e3, &v);
	bw_cell(p, t->fmt[BW_COL_RATE], k->rate_key, ok, v, v, 6);
	ok = k->whole && bw_ratio(cpu, f->elapsed_ns, 100, &v);
	bw_cell(p, t->fmt[BW_COL_CPU], "cpu_percent", ok, v, v, 2);
	ok = k->whole && bw_ratio(cpu, f->messages, 1, &v);
	bw_cell(p, t->fmt[BW_COL_CPU_MSG], "cpu_ns_per_msg", ok, v, v, 2);
	if (t->last == BW_COL_MISMATCHES)
		bw_text_count(p, t->fmt[BW_COL_MISMATCHES],
			      bw_count(rf, res, k->whole ?
				       KVPERF_A_BW_RESULT_MISMATCHES : 0), 1);
	if (k->label)
		pr_text_field(p, "%s", k->label);
	pr_eol(p);
}

/* "  qp 0 (cpu 2): 1000 messages, 65536000 bytes, 62.50 MiB/s, ..." */
static void bw_qp(struct printer *p, const struct bw_table *t,
		  const struct kv_bw_qp *qp)
{
	const struct kv_fields *qf = &run_model_qp_fields;
	struct bw_flow f = bw_flow(qf, qp, KVPERF_A_BW_QP_MESSAGES,
				   KVPERF_A_BW_QP_BYTES,
				   KVPERF_A_BW_QP_ELAPSED_NS);
	char fmt[16];
	double bps, v;
	bool ok;

	pr_obj_open(p, NULL);
	bw_raw(p, &attrs_bw_qp, qf, qp);
	pr_indent(p, 2);
	pr_text(p, "qp");
	bw_text_count(p, "%s", bw_count(qf, qp, KVPERF_A_BW_QP_INDEX), 1);
	if (KV_HAS(qp, KVPERF_A_BW_QP_CPU) && qp->cpu >= 0)
		bw_text_count(p, "(cpu %s):",
			      bw_count(qf, qp, KVPERF_A_BW_QP_CPU), 1);
	else
		pr_text_field(p, "%s", "(cpu -):");
	bw_text_count(p, "%s messages,", f.messages, 1);
	bw_text_count(p, "%s bytes,", f.bytes, 1);
	snprintf(fmt, sizeof(fmt), "%%s %s,", bw_unit_name(t->gbits));
	ok = bw_ratio(f.bytes, f.elapsed_ns, BW_NS_PER_S, &bps);
	bw_cell(p, fmt, "bw_avg_mibps", ok, bps / BW_MIB,
		bw_unit(bps, t->gbits), 2);
	ok = bw_ratio(f.messages, f.elapsed_ns, 1e3, &v);
	bw_cell(p, "%s Mpps", "msg_rate_mpps", ok, v, v, 6);
	pr_eol(p);
	pr_obj_close(p);
}

/* The queue pairs of a size: all in JSON, in text when there are several. */
static void bw_qps(struct printer *p, const struct bw_table *t,
		   const struct kv_bw_result *res)
{
	uint32_t i;

	if (!p->json && t->qps < 2)
		return;
	pr_arr_open(p, "qps");
	for (i = 0; i < res->nqps; i++)
		bw_qp(p, t, &res->qps[i]);
	pr_arr_close(p);
}

/* One message size: its row or rows, then its queue pairs. */
static void bw_result(struct printer *p, const struct bw_table *t,
		      const struct kv_bw_result *res)
{
	const struct kv_fields *rf = &run_model_bw_fields;
	struct bw_flow tx, rx, total;

	pr_obj_open(p, NULL);
	bw_raw(p, &attrs_bw_result, rf, res);
	tx = bw_flow(rf, res, KVPERF_A_BW_RESULT_MESSAGES,
		     KVPERF_A_BW_RESULT_BYTES, KVPERF_A_BW_RESULT_ELAPSED_NS);
	if (!t->bidir) {
		bw_row(p, t, res, BW_ROW_ALL, &tx);
	} else {
		rx = bw_flow(rf, res, KVPERF_A_BW_RESULT_RX_MESSAGES,
			     KVPERF_A_BW_RESULT_RX_BYTES,
			     KVPERF_A_BW_RESULT_RX_ELAPSED_NS);
		total.messages = bw_sum(tx.messages, rx.messages);
		total.bytes = bw_sum(tx.bytes, rx.bytes);
		total.elapsed_ns = bw_max(tx.elapsed_ns, rx.elapsed_ns);
		bw_row(p, t, res, BW_ROW_TX, &tx);
		bw_row(p, t, res, BW_ROW_RX, &rx);
		bw_row(p, t, res, BW_ROW_TOTAL, &total);
	}
	bw_qps(p, t, res);
	pr_obj_close(p);
}

/**
 * run_print_bw() - the results of a bandwidth run
 * @p: the printer, inside the run's object
 * @run: the run
 * @gbits: text in Gb/s rather than MiB/s
 *
 * Text, perftest's table when there are results, its columns
 *
 *    #bytes  #iterations  BW peak[MiB/sec]  BW average[MiB/sec]
 *    MsgRate[Mpps]  CPU[%]  CPU[ns/msg]
 *
 * on one line, each value starting under its title. #iterations is the
 * messages of the size per queue pair; CPU[%] the CPU time of the run
 * over the wall time (above 100 with several threads).
 * A mismatches column when the run verified payloads; for bidir runs rows
 * "tx" (client to server), "rx" (back) and "total" instead of one; when
 * the run had several queue pairs, a line for each after its size,
 * "  qp 0 (cpu 2): 1000 messages, 65536000 bytes, 62.50 MiB/s, ...".
 *
 * JSON: "results", an object per size with every number it has
 * (size, messages, bytes, elapsed_ns, peak_bps, cpu_ns, peer_messages,
 * rx_* ...), the computed bw_avg_mibps, bw_peak_mibps, msg_rate_mpps,
 * cpu_percent and cpu_ns_per_msg (rx_ and total_ averages and rates for
 * bidir runs), and "qps", an object per queue pair with its numbers,
 * bw_avg_mibps and msg_rate_mpps. JSON is in MiB/s whatever @gbits.
 */
void run_print_bw(struct printer *p, const struct kv_run *run, bool gbits)
{
	struct bw_table t;
	uint32_t i;

	bw_table_init(&t, run, gbits);
	if (run->nbw)
		bw_header(p, &t);
	pr_arr_open(p, "results");
	for (i = 0; i < run->nbw; i++)
		bw_result(p, &t, &run->bw[i]);
	pr_arr_close(p);
}

/* "1.20 GiB", or "512 B" below 1 KiB */
static char *bw_bytes_str(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = {
		"KiB", "MiB", "GiB", "TiB", "PiB", "EiB",
	};
	double v = bytes;
	size_t i = 0;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
		return buf;
	}
	for (v /= 1024; v >= 1024 && i + 1 < ARRAY_SIZE(units); i++)
		v /= 1024;
	snprintf(buf, len, "%.2f %s", v, units[i]);
	return buf;
}

/**
 * run_print_live() - the line of one interval of a bandwidth run
 * @f: where it goes
 * @ev: the run's progress: the interval's fields, the size, the bytes
 * @since_ms: how long ago the run started
 * @gbits: the rate in Gb/s rather than MiB/s
 *
 * "  [   3.0 s] size 65536  412.34 MiB/s  0.0066 Mpps  (1.20 GiB so far)":
 * the rate and message rate of the interval, the bytes of the run so far;
 * what the event lacks is left out.
 */
void run_print_live(FILE *f, const struct kv_run *ev, int64_t since_ms,
		    bool gbits)
{
	struct bw_flow fl = bw_flow(&run_model_fields, ev,
				    KVPERF_A_RUN_INTERVAL_MESSAGES,
				    KVPERF_A_RUN_INTERVAL_BYTES,
				    KVPERF_A_RUN_INTERVAL_NS);
	char buf[32];
	double v;

	fprintf(f, "  [%6.1f s]", since_ms > 0 ? since_ms / 1000.0 : 0.0);
	if (KV_HAS(ev, KVPERF_A_RUN_CUR_SIZE))
		fprintf(f, " size %llu", (unsigned long long)ev->cur_size);
	if (bw_ratio(fl.bytes, fl.elapsed_ns, BW_NS_PER_S, &v))
		fprintf(f, "  %.2f %s", bw_unit(v, gbits),
			bw_unit_name(gbits));
	if (bw_ratio(fl.messages, fl.elapsed_ns, 1e3, &v))
		fprintf(f, "  %.4f Mpps", v);
	if (KV_HAS(ev, KVPERF_A_RUN_BYTES))
		fprintf(f, "  (%s so far)",
			bw_bytes_str(buf, sizeof(buf), ev->bytes));
	fputc('\n', f);
}
