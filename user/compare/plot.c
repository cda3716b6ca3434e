// SPDX-License-Identifier: GPL-2.0
/*
 * Plots with gnuplot. Latency: an approximate CDF per column, drawn
 * through the points each tool reports (min, p50, p90, p99, p99.9, max)
 * of its median round. Bandwidth: the median against the message size,
 * with the min-max spread as error bars. The script and its data files
 * go to the compare's temporary directory. What failed is named on the
 * plot: a size without a value is a gap in its path's line, and a note
 * says which paths at which sizes failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <linux/kvperf.h>

#include "compare.h"
#include "fmt.h"
#include "kvperf.h"
#include "plot.h"
#include "prog.h"

/**
 * plot_check() - is gnuplot there?
 * @kv: the invocation, for the message
 *
 * Return: KVPERF_EXIT_OK, or KVPERF_EXIT_ERROR after saying what to
 * install.
 */
int plot_check(struct kvperf *kv)
{
	char path[PATH_MAX];

	if (prog_find("gnuplot", path, sizeof(path)))
		return KVPERF_EXIT_OK;
	kvperf_errorf(kv, "plot needs gnuplot, which is not installed (Debian package gnuplot-nox)");
	return KVPERF_EXIT_ERROR;
}

/* How many sizes get a latency panel. */
static size_t plot_lat_panels(const struct cmp_result *r)
{
	return r->count <= PLOT_LAT_PANELS_MAX ? r->count : 1;
}

/* The median round of a cell, or -1 when no round has a value. */
static long plot_median_round(const struct cmp_result *r,
			      const struct cmp_cell *c)
{
	struct cmp_summary s;

	if (!cmp_summarize(c->value, r->rounds, &s))
		return -1;
	return s.median_round;
}

static bool plot_has_lat(const struct cmp_result *r, size_t row, int path)
{
	return r->active[path] &&
	       plot_median_round(r, &r->rows[row].cell[path]) >= 0;
}

static bool plot_has_bw(const struct cmp_result *r, int path)
{
	struct cmp_summary s;
	size_t i;

	if (!r->active[path])
		return false;
	for (i = 0; i < r->count; i++)
		if (cmp_summarize(r->rows[i].cell[path].value, r->rounds, &s))
			return true;
	return false;
}

static FILE *plot_open(const char *dir, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return fopen(path, "w");
}

static int plot_close(FILE *f)
{
	int err = ferror(f);

	return fclose(f) || err ? -EIO : 0;
}

/* lat-SIZE-PATH.dat: "usec fraction" per point the tool reported */
static int plot_write_lat(const struct cmp_result *r, const char *dir)
{
	const struct cmp_cell *c;
	char name[64];
	size_t i, k;
	int path;
	long m;
	FILE *f;

	for (i = 0; i < plot_lat_panels(r); i++) {
		for (path = 0; path < CMP_PATHS; path++) {
			if (!plot_has_lat(r, i, path))
				continue;
			c = &r->rows[i].cell[path];
			m = plot_median_round(r, c);
			snprintf(name, sizeof(name), "lat-%u-%s.dat",
				 r->rows[i].size, cmp_path_names[path]);
			f = plot_open(dir, name);
			if (!f)
				return -errno;
			for (k = 0; k < CMP_PTS; k++)
				if (c->points[m][k] > 0)
					fprintf(f, "%.3f %.3f\n",
						c->points[m][k],
						cmp_point_fraction[k]);
			if (plot_close(f))
				return -EIO;
		}
	}
	return 0;
}

/*
 * bw-PATH.dat: "size median min max" per size with a value; a blank line
 * for a size without, which breaks the line there: a gap
 */
static int plot_write_bw(const struct cmp_result *r, const char *dir)
{
	struct cmp_summary s;
	char name[64];
	size_t i;
	int path;
	FILE *f;

	for (path = 0; path < CMP_PATHS; path++) {
		if (!plot_has_bw(r, path))
			continue;
		snprintf(name, sizeof(name), "bw-%s.dat", cmp_path_names[path]);
		f = plot_open(dir, name);
		if (!f)
			return -errno;
		for (i = 0; i < r->count; i++)
			if (cmp_summarize(r->rows[i].cell[path].value,
					  r->rounds, &s))
				fprintf(f, "%u %.2f %.2f %.2f\n",
					r->rows[i].size, s.median, s.min,
					s.max);
			else
				fputc('\n', f);
		if (plot_close(f))
			return -EIO;
	}
	return 0;
}

/**
 * plot_write_data() - the data files plot_script() reads
 * @r: the result
 * @dir: where they go
 *
 * Return: 0, or a negative errno.
 */
int plot_write_data(const struct cmp_result *r, const char *dir)
{
	if (r->type == KVPERF_RUN_TYPE_BW)
		return plot_write_bw(r, dir);
	return plot_write_lat(r, dir);
}

/* A gnuplot string: single quotes, in which '' is a quote. */
static void plot_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

static bool plot_is_png(const char *out)
{
	size_t n = strlen(out);

	return n > 4 && !strcasecmp(out + n - 4, ".png");
}

/* Terminal, output and the title of the whole picture. */
static void plot_head(FILE *f, const struct cmp_result *r, const char *out,
		      size_t panels)
{
	const char *size = panels > 2 ? "1000,800" :
			   panels == 2 ? "1200,500" : "900,600";
	bool multi = panels > 1;
	char title[256], dev[80] = "";

	if (plot_is_png(out))
		fprintf(f, "set terminal pngcairo size %s noenhanced font 'sans,10' background rgb 'white'\n",
			size);
	else
		fprintf(f, "set terminal svg size %s noenhanced font 'sans,11' background rgb 'white'\n",
			size);
	fputs("set output ", f);
	plot_quote(f, out);
	fputc('\n', f);
	if (r->env.dev[0])
		snprintf(dev, sizeof(dev), ", dev %s", r->env.dev);
	snprintf(title, sizeof(title),
		 "kvperf compare: %s %s, poll %s%s, kernel %s%s",
		 fmt_name(&fmt_op, r->op),
		 r->type == KVPERF_RUN_TYPE_BW ? "bandwidth" : "latency",
		 fmt_name(&fmt_poll, r->poll), dev, r->env.kernel,
		 r->env.tcg ? " (TCG)" : "");
	if (multi) {
		fprintf(f, "set multiplot layout %s title ",
			panels > 2 ? "2,2" : "1,2");
		plot_quote(f, title);
		fputc('\n', f);
	} else {
		fputs("set title ", f);
		plot_quote(f, title);
		fputc('\n', f);
	}
	fputs("set grid\n", f);
}

/* Append to @buf (@len bytes), which stays cut at its end if full. */
static void plot_add(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/*
 * What failed in the rows from @from to before @to, for a note on the
 * plot: "failed: kernel at 1M, 2M; user at 512K (1 of 3 rounds)", with
 * @sizes; without (one size), "failed: kernel; user (1 of 3 rounds)".
 * A size without a value is named alone, one with some rounds failed
 * with their count; "" when nothing failed.
 */
static void plot_failed_note(char *buf, size_t len, const struct cmp_result *r,
			     size_t from, size_t to, bool sizes)
{
	const struct cmp_cell *c;
	struct cmp_summary s;
	size_t i, missing, items;
	char label[16];
	int path;

	buf[0] = '\0';
	for (path = 0; path < CMP_PATHS; path++) {
		if (!r->active[path])
			continue;
		missing = 0;
		items = 0;
		for (i = from; i < to; i++) {
			c = &r->rows[i].cell[path];
			if (!c->failed)
				continue;
			items++;
			missing += !cmp_summarize(c->value, r->rounds, &s);
		}
		if (!items)
			continue;
		plot_add(buf, len, "%s%s", buf[0] ? "; " : "failed: ",
			 cmp_path_names[path]);
		if (sizes && missing == to - from && to - from > 1) {
			plot_add(buf, len, " at every size");
			continue;
		}
		for (i = from, items = 0; i < to; i++) {
			c = &r->rows[i].cell[path];
			if (!c->failed)
				continue;
			if (sizes)
				plot_add(buf, len, "%s%s", items++ ? ", " : " at ",
					 fmt_size_short(label, r->rows[i].size));
			if (cmp_summarize(c->value, r->rounds, &s))
				plot_add(buf, len, " (%u of %u rounds)",
					 c->failed, r->rounds);
		}
	}
	if (strlen(buf) + 1 >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
}

/* Did a round of a cell of the row fail? */
static bool plot_failed_in(const struct cmp_result *r, size_t row)
{
	int path;

	for (path = 0; path < CMP_PATHS; path++)
		if (r->active[path] && r->rows[row].cell[path].failed)
			return true;
	return false;
}

/* The note of what failed as label 2 at @where, or no label 2. */
static void plot_note(FILE *f, const char *note, const char *where)
{
	if (!note[0]) {
		fputs("unset label 2\n", f);
		return;
	}
	fputs("set label 2 ", f);
	plot_quote(f, note);
	fprintf(f, " at %s textcolor rgb '#c00000' front\n", where);
}

static void plot_file(FILE *f, const char *dir, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	plot_quote(f, path);
}

/* Log scale when the points span more than a factor of 20. */
static bool plot_lat_wide(const struct cmp_result *r, size_t row)
{
	double lo = INFINITY, hi = 0, v;
	const struct cmp_cell *c;
	int path;
	long m;
	size_t k;

	for (path = 0; path < CMP_PATHS; path++) {
		if (!plot_has_lat(r, row, path))
			continue;
		c = &r->rows[row].cell[path];
		m = plot_median_round(r, c);
		for (k = 0; k < CMP_PTS; k++) {
			v = c->points[m][k];
			if (v > 0 && v < lo)
				lo = v;
			if (v > hi)
				hi = v;
		}
	}
	return hi > 0 && hi / lo > 20;
}

static void plot_lat_panel(FILE *f, const struct cmp_result *r,
			   const char *dir, size_t row, bool multi)
{
	char name[64], title[96], note[256];
	const char *sep = "plot ";
	int path;

	snprintf(title, sizeof(title), "%u B, median round of %u",
		 r->rows[row].size, r->rounds);
	if (multi) {
		fputs("set title ", f);
		plot_quote(f, title);
		fputc('\n', f);
	} else {
		fputs("set label 1 ", f);
		plot_quote(f, title);
		fputs(" at graph 0.02,0.95\n", f);
	}
	fputs("set xlabel 'latency [usec]'\n"
	      "set ylabel 'fraction of iterations'\n"
	      "set yrange [0:1.02]\n"
	      "set key bottom right\n", f);
	fputs(plot_lat_wide(r, row) ? "set logscale x 10\n" :
				      "unset logscale x\n", f);
	/*
	 * Top left, under the title: a CDF's curves run below it. A label
	 * stays for the panels after: the next without a note unsets it.
	 */
	plot_failed_note(note, sizeof(note), r, row, row + 1, false);
	if (note[0])
		plot_note(f, note, multi ? "graph 0.02,0.95" :
					   "graph 0.02,0.89");
	else if (row > 0 && plot_failed_in(r, row - 1))
		plot_note(f, "", NULL);
	for (path = 0; path < CMP_PATHS; path++) {
		if (!plot_has_lat(r, row, path))
			continue;
		snprintf(name, sizeof(name), "lat-%u-%s.dat",
			 r->rows[row].size, cmp_path_names[path]);
		fputs(sep, f);
		plot_file(f, dir, name);
		fprintf(f, " using 1:2 with linespoints lw 2 title '%s'",
			cmp_path_names[path]);
		sep = ", \\\n     ";
	}
	if (!strcmp(sep, "plot "))
		fputs("unset logscale x\nplot [1:10] NaN title 'no data'", f);
	fputc('\n', f);
}

static void plot_bw(FILE *f, const struct cmp_result *r, const char *dir)
{
	const char *sep = "plot ";
	char name[64], label[16], note[384];
	size_t i, step;
	int path;

	fputs("set xlabel 'message size [bytes]'\n"
	      "set ylabel 'bandwidth [MiB/s], median and min-max'\n"
	      "set logscale x 2\n", f);
	fprintf(f, "set xrange [%g:%g]\n", r->rows[0].size / 1.5,
		r->rows[r->count - 1].size * 1.5);
	/* a label at every size, or every other one when they crowd */
	step = r->count > 12 ? 2 : 1;
	fputs("set xtics (", f);
	for (i = 0; i < r->count; i += step) {
		fmt_size_short(label, r->rows[i].size);
		fprintf(f, "%s'%s' %u", i ? ", " : "", label,
			r->rows[i].size);
	}
	fputs(")\n"
	      "set yrange [0:*]\n"
	      "set key top left\n", f);
	/* under the x axis' label, in a margin made for it */
	plot_failed_note(note, sizeof(note), r, 0, r->count, true);
	if (note[0]) {
		fputs("set bmargin 5\n", f);
		plot_note(f, note, "screen 0.01,0.02");
	}
	for (path = 0; path < CMP_PATHS; path++) {
		if (!plot_has_bw(r, path))
			continue;
		snprintf(name, sizeof(name), "bw-%s.dat", cmp_path_names[path]);
		fputs(sep, f);
		plot_file(f, dir, name);
		fprintf(f, " using 1:2:3:4 with yerrorlines lw 2 title '%s'",
			cmp_path_names[path]);
		sep = ", \\\n     ";
	}
	if (!strcmp(sep, "plot "))
		fputs("plot NaN title 'no data'", f);
	fputc('\n', f);
}

/**
 * plot_script() - the gnuplot script of a compare
 * @f: where it goes
 * @r: the result
 * @dir: where plot_write_data() put the data
 * @out: the picture to write: svg, or png when it ends in .png
 *
 * Latency: one panel per size (side by side, or 2x2), or only the first
 * size when there are more than PLOT_LAT_PANELS_MAX; bandwidth: one plot.
 */
void plot_script(FILE *f, const struct cmp_result *r, const char *dir,
		 const char *out)
{
	bool multi;
	size_t i;

	if (r->type == KVPERF_RUN_TYPE_BW) {
		plot_head(f, r, out, 1);
		if (r->count)
			plot_bw(f, r, dir);
		return;
	}
	multi = plot_lat_panels(r) > 1;
	plot_head(f, r, out, plot_lat_panels(r));
	for (i = 0; i < plot_lat_panels(r); i++)
		plot_lat_panel(f, r, dir, i, multi);
	if (multi)
		fputs("unset multiplot\n", f);
}

/* gnuplot SCRIPT, its messages to @err. */
static int plot_run(struct kvperf *kv, const char *script, const char *err)
{
	sigset_t all;
	int status, fd;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		kvperf_errorf(kv, "cannot fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			dup2(fd, STDIN_FILENO);
		fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		fprintf(stderr, "cannot run gnuplot: %s\n", strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void plot_show_errors(struct kvperf *kv, const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (line[strspn(line, " \t\n")])
			fprintf(kv->err, "  %s", line);
	fclose(f);
}

/**
 * plot_draw() - draw a compare's result with gnuplot
 * @kv: the invocation
 * @r: the result
 * @out: the picture, FILE.svg or FILE.png
 * @dir: a private directory for the script and the data
 *
 * Return: KVPERF_EXIT_OK, or KVPERF_EXIT_ERROR after reporting.
 */
int plot_draw(struct kvperf *kv, const struct cmp_result *r,
	      const char *out, const char *dir)
{
	char script[PATH_MAX], err[PATH_MAX];
	FILE *f;
	int ret;

	ret = plot_write_data(r, dir);
	if (ret) {
		kvperf_errorf(kv, "cannot write the plot's data in %s: %s", dir,
			      strerror(-ret));
		return KVPERF_EXIT_ERROR;
	}
	snprintf(script, sizeof(script), "%s/plot.gp", dir);
	snprintf(err, sizeof(err), "%s/gnuplot.out", dir);
	f = fopen(script, "w");
	if (!f) {
		kvperf_errorf(kv, "cannot write %s: %s", script,
			      strerror(errno));
		return KVPERF_EXIT_ERROR;
	}
	plot_script(f, r, dir, out);
	if (plot_close(f)) {
		kvperf_errorf(kv, "cannot write %s", script);
		return KVPERF_EXIT_ERROR;
	}
	ret = plot_run(kv, script, err);
	if (ret) {
		kvperf_errorf(kv, "gnuplot could not draw %s:", out);
		plot_show_errors(kv, err);
		return KVPERF_EXIT_ERROR;
	}
	return KVPERF_EXIT_OK;
}
