// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/compare/plot.c: the gnuplot script of a latency compare
 * (one panel, several, only the first of many; log scale when wide),
 * of a bandwidth compare, quoting, and the data files it reads.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kvperf.h>

#include "args.h"
#include "compare.h"
#include "kvperf.h"
#include "plot.h"
#include "unit.h"

/* A result of @type with @sizes, every path active, env filled in. */
static void result(struct cmp_result *r, uint8_t type, const char *sizes,
		   uint32_t rounds)
{
	char nrounds[12], *argv[] = {
		"op", "send", "addr", "198.18.0.1", "sizes", (char *)sizes,
		"rounds", nrounds, NULL,
	};
	struct kvperf kv = { .out = stdout, .err = stdout };
	struct args a = { .argc = 8, .argv = argv };
	struct cmp_opts o;

	snprintf(nrounds, sizeof(nrounds), "%u", rounds);
	CHECK_INT(cmp_parse(&kv, &a, type, &o), 0);
	CHECK_INT(cmp_result_init(r, &o), 0);
	r->active[CMP_KERNEL] = true;
	r->active[CMP_USER] = true;
	r->active[CMP_PERFTEST] = true;
	snprintf(r->env.kernel, sizeof(r->env.kernel), "6.1.0-56-amd64");
	snprintf(r->env.dev, sizeof(r->env.dev), "rxe0");
	r->env.tcg = true;
}

/* Latency round @i of @path at row @row: min at @base, max 100 times it. */
static void lat_round(struct cmp_result *r, size_t row, int path, int i,
		      double base)
{
	static const double f[CMP_PTS] = { 1, 1.5, 2, 10, 50, 100 };
	int k;

	r->rows[row].cell[path].value[i] = base * f[CMP_PT_P50];
	for (k = 0; k < CMP_PTS; k++)
		r->rows[row].cell[path].points[i][k] = base * f[k];
}

static const char *script(const struct cmp_result *r, const char *out)
{
	static char buf[8192];
	struct capture c;

	plot_script(cap_open(&c), r, "/tmp/d", out);
	snprintf(buf, sizeof(buf), "%s", cap_str(&c));
	cap_close(&c);
	return buf;
}

static void plot_lat_one(void)
{
	struct cmp_result r;

	result(&r, KVPERF_RUN_TYPE_LAT, "64-64", 3);
	lat_round(&r, 0, CMP_KERNEL, 0, 10);
	lat_round(&r, 0, CMP_KERNEL, 1, 12);
	lat_round(&r, 0, CMP_KERNEL, 2, 11);
	lat_round(&r, 0, CMP_USER, 1, 20);
	lat_round(&r, 0, CMP_PERFTEST, 0, 30);
	r.rows[0].cell[CMP_PERFTEST].points[0][CMP_PT_P90] = NAN;
	CHECK_STR(script(&r, "lat.svg"),
		  "set terminal svg size 900,600 noenhanced font 'sans,11' background rgb 'white'\n"
		  "set output 'lat.svg'\n"
		  "set title 'kvperf compare: send latency, poll busy, dev rxe0, kernel 6.1.0-56-amd64 (TCG)'\n"
		  "set grid\n"
		  "set label 1 '64 B, median round of 3' at graph 0.02,0.95\n"
		  "set xlabel 'latency [usec]'\n"
		  "set ylabel 'fraction of iterations'\n"
		  "set yrange [0:1.02]\n"
		  "set key bottom right\n"
		  "set logscale x 10\n"
		  "plot '/tmp/d/lat-64-kernel.dat' using 1:2 with linespoints lw 2 title 'kernel', \\\n"
		  "     '/tmp/d/lat-64-user.dat' using 1:2 with linespoints lw 2 title 'user', \\\n"
		  "     '/tmp/d/lat-64-perftest.dat' using 1:2 with linespoints lw 2 title 'perftest'\n");
	cmp_result_free(&r);
}

static void plot_lat_panels(void)
{
	struct cmp_result r;
	const char *s;
	int i;

	/* two sizes side by side, png; perftest off; narrow: linear x */
	result(&r, KVPERF_RUN_TYPE_LAT, "64-128", 1);
	r.active[CMP_PERFTEST] = false;
	lat_round(&r, 0, CMP_KERNEL, 0, 10);
	lat_round(&r, 1, CMP_KERNEL, 0, 10);
	lat_round(&r, 1, CMP_USER, 0, 10);
	lat_round(&r, 1, CMP_PERFTEST, 0, 10);
	for (i = CMP_PT_P99; i <= CMP_PT_MAX; i++) {
		r.rows[1].cell[CMP_KERNEL].points[0][i] = 150;
		r.rows[1].cell[CMP_USER].points[0][i] = 150;
	}
	s = script(&r, "it's.PNG");
	CHECK(strstr(s, "set terminal pngcairo size 1200,500 noenhanced font 'sans,10' background rgb 'white'\n"
			"set output 'it''s.PNG'\n"
			"set multiplot layout 1,2 title 'kvperf compare: send latency"));
	CHECK(strstr(s, "set title '64 B, median round of 1'\n"));
	CHECK(strstr(s, "set logscale x 10\n"
			"plot '/tmp/d/lat-64-kernel.dat' using 1:2 with linespoints lw 2 title 'kernel'\n"));
	CHECK(strstr(s, "set title '128 B, median round of 1'\n"));
	CHECK(strstr(s, "unset logscale x\n"
			"plot '/tmp/d/lat-128-kernel.dat' using 1:2 with linespoints lw 2 title 'kernel', \\\n"
			"     '/tmp/d/lat-128-user.dat' using 1:2 with linespoints lw 2 title 'user'\n"
			"unset multiplot\n"));
	CHECK(!strstr(s, "perftest"));
	cmp_result_free(&r);

	/* five sizes: the first alone; nothing measured: an empty panel */
	result(&r, KVPERF_RUN_TYPE_LAT, "2-32", 1);
	CHECK_INT(r.count, 5);
	s = script(&r, "x.svg");
	CHECK(strstr(s, "set terminal svg size 900,600"));
	CHECK(!strstr(s, "multiplot"));
	CHECK(strstr(s, "set label 1 '2 B, median round of 1'"));
	CHECK(!strstr(s, "4 B"));
	CHECK(strstr(s, "unset logscale x\nplot [1:10] NaN title 'no data'\n"));
	cmp_result_free(&r);

	/* four: 2x2 */
	result(&r, KVPERF_RUN_TYPE_LAT, "2-16", 1);
	s = script(&r, "x.svg");
	CHECK(strstr(s, "set terminal svg size 1000,800"));
	CHECK(strstr(s, "set multiplot layout 2,2 title"));
	CHECK(strstr(s, "set title '16 B, median round of 1'"));
	cmp_result_free(&r);
}

static void plot_bw_script(void)
{
	struct cmp_result r;
	const char *s;
	size_t i;

	result(&r, KVPERF_RUN_TYPE_BW, "512-2M", 2);
	CHECK_INT(r.count, 13);
	for (i = 0; i < r.count; i++) {
		r.rows[i].cell[CMP_KERNEL].value[0] = 10 + i;
		r.rows[i].cell[CMP_USER].value[1] = 20 + i;
	}
	r.env.tcg = false;
	r.env.dev[0] = '\0';
	s = script(&r, "bw.svg");
	CHECK_STR(s,
		  "set terminal svg size 900,600 noenhanced font 'sans,11' background rgb 'white'\n"
		  "set output 'bw.svg'\n"
		  "set title 'kvperf compare: send bandwidth, poll busy, kernel 6.1.0-56-amd64'\n"
		  "set grid\n"
		  "set xlabel 'message size [bytes]'\n"
		  "set ylabel 'bandwidth [MiB/s], median and min-max'\n"
		  "set logscale x 2\n"
		  "set xrange [341.333:3.14573e+06]\n"
		  "set xtics ('512' 512, '2K' 2048, '8K' 8192, '32K' 32768, '128K' 131072, '512K' 524288, '2M' 2097152)\n"
		  "set yrange [0:*]\n"
		  "set key top left\n"
		  "plot '/tmp/d/bw-kernel.dat' using 1:2:3:4 with yerrorlines lw 2 title 'kernel', \\\n"
		  "     '/tmp/d/bw-user.dat' using 1:2:3:4 with yerrorlines lw 2 title 'user'\n");
	cmp_result_free(&r);
}

static char *slurp(const char *path)
{
	static char buf[4096];
	size_t n;
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return buf;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void plot_data(void)
{
	char dir[] = "/tmp/kvperf-unit.XXXXXX", path[64];
	struct cmp_result r;

	if (!mkdtemp(dir)) {
		unit_fail(__FILE__, __LINE__, "mkdtemp failed");
		return;
	}
	/* latency: the median round's points; perftest's p90 left out */
	result(&r, KVPERF_RUN_TYPE_LAT, "64-64", 3);
	lat_round(&r, 0, CMP_KERNEL, 0, 10);
	lat_round(&r, 0, CMP_KERNEL, 1, 12);
	lat_round(&r, 0, CMP_KERNEL, 2, 11);
	lat_round(&r, 0, CMP_PERFTEST, 2, 30);
	r.rows[0].cell[CMP_PERFTEST].points[2][CMP_PT_P90] = NAN;
	CHECK_INT(plot_write_data(&r, dir), 0);
	snprintf(path, sizeof(path), "%s/lat-64-kernel.dat", dir);
	CHECK_STR(slurp(path),
		  "11.000 0.000\n16.500 0.500\n22.000 0.900\n110.000 0.990\n"
		  "550.000 0.999\n1100.000 1.000\n");
	unlink(path);
	snprintf(path, sizeof(path), "%s/lat-64-perftest.dat", dir);
	CHECK_STR(slurp(path),
		  "30.000 0.000\n45.000 0.500\n300.000 0.990\n"
		  "1500.000 0.999\n3000.000 1.000\n");
	unlink(path);
	snprintf(path, sizeof(path), "%s/lat-64-user.dat", dir);
	CHECK(access(path, F_OK));
	cmp_result_free(&r);

	/* bandwidth: median, min and max per size measured */
	result(&r, KVPERF_RUN_TYPE_BW, "4K-8K", 3);
	r.rows[0].cell[CMP_USER].value[0] = 30;
	r.rows[0].cell[CMP_USER].value[1] = 10;
	r.rows[0].cell[CMP_USER].value[2] = 20;
	r.rows[1].cell[CMP_USER].value[2] = 25.125;
	CHECK_INT(plot_write_data(&r, dir), 0);
	snprintf(path, sizeof(path), "%s/bw-user.dat", dir);
	CHECK_STR(slurp(path),
		  "4096 20.00 10.00 30.00\n8192 25.12 25.12 25.12\n");
	unlink(path);
	snprintf(path, sizeof(path), "%s/bw-kernel.dat", dir);
	CHECK(access(path, F_OK));
	cmp_result_free(&r);
	CHECK_INT(rmdir(dir), 0);
}

/*
 * What failed is on the plot. bw: a size without a value is a gap in
 * its path's line (a blank line in its data), and a note under the x
 * axis names the paths and sizes; a path that failed at every size has
 * no curve, and is named so. lat: a panel names the paths that failed
 * at its size; the panel after unsets the note.
 */
static void plot_failed(void)
{
	char dir[] = "/tmp/kvperf-unit.XXXXXX", path[64];
	struct cmp_result r;
	const char *s;
	size_t i;

	if (!mkdtemp(dir)) {
		unit_fail(__FILE__, __LINE__, "mkdtemp failed");
		return;
	}
	result(&r, KVPERF_RUN_TYPE_BW, "512K-2M", 2);
	r.active[CMP_KERNEL_BH] = true;
	for (i = 0; i < r.count; i++) {
		r.rows[i].cell[CMP_KERNEL].value[0] = 10 + i;
		r.rows[i].cell[CMP_USER].value[0] = 20 + i;
		r.rows[i].cell[CMP_USER].value[1] = 20 + i;
		cmp_cell_fail(&r, &r.rows[i].cell[CMP_KERNEL_BH], 0,
			      "connection rejected");
	}
	cmp_cell_fail(&r, &r.rows[1].cell[CMP_KERNEL], 0,
		      "no completion within the timeout (5000 ms)");
	cmp_cell_fail(&r, &r.rows[2].cell[CMP_USER], 1, "stalled");
	s = script(&r, "bw.svg");
	CHECK(strstr(s, "set key top left\n"
			"set bmargin 5\n"
			"set label 2 'failed: kernel at 1M; kernel-bh at every size; user at 2M (1 of 2 rounds)' at screen 0.01,0.02 textcolor rgb '#c00000' front\n"
			"plot '/tmp/d/bw-kernel.dat' using 1:2:3:4 with yerrorlines lw 2 title 'kernel', \\\n"
			"     '/tmp/d/bw-user.dat' using 1:2:3:4 with yerrorlines lw 2 title 'user'\n"));
	CHECK(!strstr(s, "bw-kernel-bh.dat"));
	CHECK_INT(plot_write_data(&r, dir), 0);
	snprintf(path, sizeof(path), "%s/bw-kernel.dat", dir);
	CHECK_STR(slurp(path), "524288 10.00 10.00 10.00\n\n2097152 12.00 12.00 12.00\n");
	unlink(path);
	snprintf(path, sizeof(path), "%s/bw-user.dat", dir);
	CHECK_STR(slurp(path), "524288 20.00 20.00 20.00\n1048576 21.00 21.00 21.00\n"
			       "2097152 22.00 22.00 22.00\n");
	unlink(path);
	snprintf(path, sizeof(path), "%s/bw-kernel-bh.dat", dir);
	CHECK(access(path, F_OK));
	cmp_result_free(&r);
	CHECK_INT(rmdir(dir), 0);

	/* nothing failed: no note, no margin */
	result(&r, KVPERF_RUN_TYPE_BW, "512K-1M", 1);
	r.rows[0].cell[CMP_KERNEL].value[0] = 10;
	s = script(&r, "bw.svg");
	CHECK(!strstr(s, "label 2") && !strstr(s, "bmargin"));
	cmp_result_free(&r);

	/* lat, panels 64 to 512: the kernel failed at 128 */
	result(&r, KVPERF_RUN_TYPE_LAT, "64-512", 1);
	for (i = 0; i < r.count; i++) {
		lat_round(&r, i, CMP_KERNEL, 0, 10);
		lat_round(&r, i, CMP_USER, 0, 20);
	}
	cmp_cell_fail(&r, &r.rows[1].cell[CMP_KERNEL], 0, "stalled");
	s = script(&r, "lat.svg");
	CHECK(strstr(s, "set title '128 B, median round of 1'\n"));
	CHECK(strstr(s, "set logscale x 10\n"
			"set label 2 'failed: kernel' at graph 0.02,0.95 textcolor rgb '#c00000' front\n"
			"plot '/tmp/d/lat-128-user.dat' using 1:2 with linespoints lw 2 title 'user'\n"
			"set title '256 B, median round of 1'\n"));
	CHECK(strstr(s, "set logscale x 10\n"
			"unset label 2\n"
			"plot '/tmp/d/lat-256-kernel.dat'"));
	/* once: the panel of 512 has no label to unset */
	CHECK(!strstr(strstr(s, "unset label 2") + 1, "unset label 2"));
	cmp_result_free(&r);
}

const struct unit_test unit_tests[] = {
	UNIT(plot_lat_one),
	UNIT(plot_lat_panels),
	UNIT(plot_bw_script),
	UNIT(plot_data),
	UNIT(plot_failed),
	{ NULL },
};
