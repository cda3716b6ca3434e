// SPDX-License-Identifier: GPL-2.0
/*
 * The results folder of a fabric run:
 *   fabric.json   everything: the run's settings, every host (what
 *                 discovery found, why one was left out or lost, its
 *                 verdict), every round's pairs and every measurement
 *                 with what kvperf run printed for it, the verdict
 *   pairs.csv     a line per measurement
 *   summary.txt   hosts, bad hosts and links with their numbers, the
 *                 worst links, the distribution (also printed)
 *   lat.dat, bw.dat, heatmap.gp: host x host matrices of the kernel
 *                 path's latency (p50, us) and bandwidth (MiB/s, client
 *                 row to server column) and the gnuplot script drawing
 *                 them into lat.svg and bw.svg (drawn when gnuplot is
 *                 installed; its messages in heatmap.log)
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-c/json.h>

#include "fabric.h"
#include "fabric_coord.h"
#include "kvperf.h"
#include "version.h"

/* the worst links the summary lists per test */
#define REPORT_WORST		10

const char *const coord_state_names[] = {
	[COORD_HOST_NONE]	= "not reached",
	[COORD_HOST_OK]		= "measured",
	[COORD_HOST_LEFT_OUT]	= "left out",
	[COORD_HOST_LOST]	= "lost",
};

static const char *const verdict_names[] = {
	[FABRIC_HOST_CLEAN]	= "clean",
	[FABRIC_HOST_LINK]	= "on a bad link",
	[FABRIC_HOST_SUSPECT]	= "suspect",
	[FABRIC_HOST_BAD]	= "bad",
};

static const char *rname(const struct coord *c, unsigned int rank)
{
	return c->o->hosts.name[rank];
}

/* The verdict of host @i, or "" when it has none (not measured). */
static const char *host_verdict(const struct coord *c, unsigned int i)
{
	if (!c->judged || c->h[i].state == COORD_HOST_LEFT_OUT ||
	    c->h[i].state == COORD_HOST_NONE)
		return "";
	return verdict_names[c->state[i]];
}

static FILE *report_open(const struct coord *c, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", c->o->out_dir, name);
	f = fopen(path, "we");
	if (!f)
		kvperf_errorf(c->kv, "cannot write %s: %s", path,
			      strerror(errno));
	return f;
}

static int report_close(const struct coord *c, FILE *f, const char *name)
{
	if (ferror(f) | fclose(f)) {
		kvperf_errorf(c->kv, "cannot write %s/%s", c->o->out_dir, name);
		return -EIO;
	}
	return 0;
}

static void jadd(struct json_object *o, const char *k, struct json_object *v)
{
	json_object_object_add(o, k, v);
}

static struct json_object *jstr(const char *s)
{
	return json_object_new_string(s);
}

static struct json_object *jint(int64_t v)
{
	return json_object_new_int64(v);
}

static struct json_object *report_config(const struct coord *c)
{
	const struct fabric_opts *o = c->o;
	struct json_object *j = json_object_new_object(), *a;
	unsigned int i;

	jadd(j, "launcher", jstr(o->launcher->name));
	jadd(j, "schedule", jstr(o->pair_file ? "pairs" :
				 o->quick ? "quick" : "full"));
	if (o->pair_file)
		jadd(j, "pair_file", jstr(o->pair_file));
	a = json_object_new_array();
	for (i = 0; i < FABRIC_TESTS; i++)
		if (o->tests & (1u << i))
			json_object_array_add(a, jstr(fabric_test_names[i]));
	jadd(j, "tests", a);
	a = json_object_new_array();
	for (i = 0; i < FABRIC_PATHS; i++)
		if (o->paths & (1u << i))
			json_object_array_add(a, jstr(fabric_path_names[i]));
	jadd(j, "paths", a);
	jadd(j, "lat_size", jint((int64_t)o->lat_size));
	jadd(j, "bw_size", jint((int64_t)o->bw_size));
	jadd(j, "io_bs", jint((int64_t)o->io_bs));
	jadd(j, "time_ms", jint(o->time_ms));
	jadd(j, "port", jint(o->port));
	if (o->dev[0])
		jadd(j, "dev", jstr(o->dev));
	jadd(j, "lat_tolerance_x1000", jint(o->tol.lat_x1000));
	jadd(j, "bw_tolerance_pct", jint(o->tol.bw_pct));
	jadd(j, "retests", jint(o->retests));
	jadd(j, "command", jstr(o->command));
	return j;
}

static struct json_object *report_meas(const struct coord *c,
				       const struct coord_meas *m)
{
	struct json_object *j = json_object_new_object();

	jadd(j, "round", jint(m->round + 1));
	jadd(j, "kind", jstr(coord_kind_names[c->r[m->round].kind]));
	jadd(j, "client", jstr(rname(c, m->client)));
	jadd(j, "server", jstr(rname(c, m->server)));
	jadd(j, "test", jstr(fabric_test_names[m->test]));
	jadd(j, "path", jstr(fabric_path_names[m->path]));
	jadd(j, "status", jint(m->status));
	if (m->error[0])
		jadd(j, "error", jstr(m->error));
	if (!m->status && m->test == FABRIC_LAT)
		jadd(j, "lat_p50_ns", jint((int64_t)m->lat_ns));
	if (!m->status && m->test == FABRIC_BW)
		jadd(j, "bw_bps", jint((int64_t)m->bps));
	if (!m->status && m->test == FABRIC_IO)
		jadd(j, "iops", json_object_new_double(m->iops));
	jadd(j, "bad", json_object_new_boolean(m->bad));
	if (m->run)
		jadd(j, "run", json_object_get(m->run));
	return j;
}

static int report_json(const struct coord *c)
{
	struct json_object *j = json_object_new_object(), *a, *v;
	unsigned int i, k, p;
	char path[4096];
	int ret = 0;

	jadd(j, "kvperf_fabric", jstr("report"));
	jadd(j, "version", jstr(KVPERF_VERSION));
	jadd(j, "started", jstr(c->started));
	jadd(j, "interrupted", json_object_new_boolean(c->interrupted));
	jadd(j, "config", report_config(c));
	a = json_object_new_array();
	for (i = 0; i < c->o->hosts.n; i++) {
		struct json_object *h = json_object_new_object();

		jadd(h, "rank", jint(i));
		jadd(h, "name", jstr(rname(c, i)));
		jadd(h, "state", jstr(coord_state_names[c->h[i].state]));
		if (c->h[i].why[0])
			jadd(h, "why", jstr(c->h[i].why));
		if (c->h[i].addr[0])
			jadd(h, "addr", jstr(c->h[i].addr));
		if (host_verdict(c, i)[0])
			jadd(h, "verdict", jstr(host_verdict(c, i)));
		if (c->h[i].probe)
			jadd(h, "probe", json_object_get(c->h[i].probe));
		json_object_array_add(a, h);
	}
	jadd(j, "hosts", a);
	a = json_object_new_array();
	for (i = 0; i < c->nr; i++) {
		struct json_object *r = json_object_new_object(), *pa;

		jadd(r, "round", jint(i + 1));
		jadd(r, "kind", jstr(coord_kind_names[c->r[i].kind]));
		jadd(r, "ms", jint((int64_t)c->r[i].ms));
		pa = json_object_new_array();
		for (k = 0; k < c->r[i].npairs; k++) {
			struct json_object *pr = json_object_new_array();

			json_object_array_add(pr, jstr(rname(c, c->r[i].pairs[k].a)));
			json_object_array_add(pr, jstr(rname(c, c->r[i].pairs[k].b)));
			json_object_array_add(pa, pr);
		}
		jadd(r, "pairs", pa);
		json_object_array_add(a, r);
	}
	jadd(j, "rounds", a);
	a = json_object_new_array();
	for (i = 0; i < c->nm; i++)
		json_object_array_add(a, report_meas(c, &c->m[i]));
	jadd(j, "measurements", a);
	v = json_object_new_object();
	for (p = 0; p < FABRIC_PATHS; p++) {
		char key[48];

		if (c->min_lat[p] && c->min_lat[p] != UINT64_MAX) {
			snprintf(key, sizeof(key), "lat_min_ns_%s", fabric_path_names[p]);
			jadd(v, key, jint((int64_t)c->min_lat[p]));
		}
		if (c->max_bps[p]) {
			snprintf(key, sizeof(key), "bw_max_bps_%s", fabric_path_names[p]);
			jadd(v, key, jint((int64_t)c->max_bps[p]));
		}
	}
	a = json_object_new_array();
	for (i = 0; c->judged && i < c->o->hosts.n; i++)
		if (c->state[i] == FABRIC_HOST_BAD &&
		    c->h[i].state != COORD_HOST_LEFT_OUT)
			json_object_array_add(a, jstr(rname(c, i)));
	jadd(v, "bad_hosts", a);
	a = json_object_new_array();
	for (i = 0; c->judged && i < c->o->hosts.n; i++)
		if (c->state[i] == FABRIC_HOST_SUSPECT)
			json_object_array_add(a, jstr(rname(c, i)));
	jadd(v, "suspect_hosts", a);
	a = json_object_new_array();
	for (i = 0; c->judged && i < c->nm; i++) {
		const struct coord_meas *m = &c->m[i];
		struct fabric_pair pr = {
			.a = m->client < m->server ? m->client : m->server,
			.b = m->client < m->server ? m->server : m->client,
		};
		struct json_object *l;
		bool seen = false;

		if (!m->bad || !fabric_link_bad(c->state, pr))
			continue;
		for (k = 0; k < i; k++)
			seen |= c->m[k].bad &&
				((c->m[k].client == pr.a && c->m[k].server == pr.b) ||
				 (c->m[k].client == pr.b && c->m[k].server == pr.a));
		if (seen)
			continue;
		l = json_object_new_array();
		json_object_array_add(l, jstr(rname(c, pr.a)));
		json_object_array_add(l, jstr(rname(c, pr.b)));
		json_object_array_add(a, l);
	}
	jadd(v, "bad_links", a);
	jadd(j, "verdict", v);
	snprintf(path, sizeof(path), "%s/fabric.json", c->o->out_dir);
	if (json_object_to_file_ext(path, j, JSON_C_TO_STRING_PRETTY |
				    JSON_C_TO_STRING_NOSLASHESCAPE)) {
		kvperf_errorf(c->kv, "cannot write %s: %s", path,
			      json_util_get_last_err());
		ret = -EIO;
	}
	json_object_put(j);
	return ret;
}

/* A CSV cell: quoted, with quotes doubled, when it needs it. */
static void csv_cell(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
	fputc('"', f);
}

static int report_csv(const struct coord *c)
{
	FILE *f = report_open(c, "pairs.csv");
	size_t i;

	if (!f)
		return -EIO;
	fputs("round,kind,client,server,test,path,status,lat_p50_ns,bw_bps,iops,bad,error\n", f);
	for (i = 0; i < c->nm; i++) {
		const struct coord_meas *m = &c->m[i];

		fprintf(f, "%u,%s,", m->round + 1,
			coord_kind_names[c->r[m->round].kind]);
		csv_cell(f, rname(c, m->client));
		fputc(',', f);
		csv_cell(f, rname(c, m->server));
		fprintf(f, ",%s,%s,%d,", fabric_test_names[m->test],
			fabric_path_names[m->path], m->status);
		if (!m->status && m->test == FABRIC_LAT)
			fprintf(f, "%" PRIu64, m->lat_ns);
		fputc(',', f);
		if (!m->status && m->test == FABRIC_BW)
			fprintf(f, "%" PRIu64, m->bps);
		fputc(',', f);
		if (!m->status && m->test == FABRIC_IO)
			fprintf(f, "%.0f", m->iops);
		fprintf(f, ",%d,", m->bad);
		csv_cell(f, m->error);
		fputc('\n', f);
	}
	return report_close(c, f, "pairs.csv");
}

/* A measurement's value as text, with its unit. */
static const char *meas_text(char *buf, size_t len, const struct coord_meas *m)
{
	if (m->status)
		snprintf(buf, len, "failed: %s", m->error);
	else if (m->test == FABRIC_LAT)
		snprintf(buf, len, "%.2f us", m->lat_ns / 1000.0);
	else if (m->test == FABRIC_BW)
		snprintf(buf, len, "%.1f MiB/s", m->bps / 1048576.0);
	else
		snprintf(buf, len, "%.0f IOPS", m->iops);
	return buf;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Worst first: the highest latency, the lowest bandwidth. */
static const struct coord *sort_c;
static int cmp_worst(const void *a, const void *b)
{
	const struct coord_meas *x = &sort_c->m[*(const size_t *)a];
	const struct coord_meas *y = &sort_c->m[*(const size_t *)b];

	if (x->test == FABRIC_LAT)
		return x->lat_ns > y->lat_ns ? -1 : x->lat_ns < y->lat_ns;
	return x->bps < y->bps ? -1 : x->bps > y->bps;
}

static void report_distribution(const struct coord *c, FILE *f)
{
	unsigned int t, p;
	uint64_t *v;
	size_t i, n;

	v = calloc(c->nm ? c->nm : 1, sizeof(*v));
	if (!v)
		return;
	fprintf(f, "\nDistribution (min / p50 / max over the pairs):\n");
	for (t = 0; t < FABRIC_IO; t++) {
		for (p = 0; p < FABRIC_PATHS; p++) {
			for (n = 0, i = 0; i < c->nm; i++)
				if (!c->m[i].status && c->m[i].test == t &&
				    c->m[i].path == p)
					v[n++] = t == FABRIC_LAT ?
						 c->m[i].lat_ns : c->m[i].bps;
			if (!n)
				continue;
			qsort(v, n, sizeof(*v), cmp_u64);
			if (t == FABRIC_LAT)
				fprintf(f, "  lat %-6s %zu: %.2f / %.2f / %.2f us (p50)\n",
					fabric_path_names[p], n, v[0] / 1000.0,
					v[(n - 1) / 2] / 1000.0, v[n - 1] / 1000.0);
			else
				fprintf(f, "  bw  %-6s %zu: %.1f / %.1f / %.1f MiB/s\n",
					fabric_path_names[p], n, v[0] / 1048576.0,
					v[(n - 1) / 2] / 1048576.0,
					v[n - 1] / 1048576.0);
		}
	}
	free(v);
}

static void report_worst(const struct coord *c, FILE *f)
{
	size_t *idx, n, i;
	unsigned int t;
	char buf[FABRIC_WHY_LEN + 32];

	idx = calloc(c->nm ? c->nm : 1, sizeof(*idx));
	if (!idx)
		return;
	for (t = 0; t < FABRIC_IO; t++) {
		for (n = 0, i = 0; i < c->nm; i++)
			if (!c->m[i].status && c->m[i].test == t &&
			    c->m[i].path == FABRIC_KERNEL)
				idx[n++] = i;
		if (!n)
			continue;
		sort_c = c;
		qsort(idx, n, sizeof(*idx), cmp_worst);
		fprintf(f, "\nWorst links, %s (kernel path):\n",
			t == FABRIC_LAT ? "latency" : "bandwidth");
		for (i = 0; i < n && i < REPORT_WORST; i++) {
			const struct coord_meas *m = &c->m[idx[i]];

			fprintf(f, "  %s -> %s: %s%s (round %u)\n",
				rname(c, m->client), rname(c, m->server),
				meas_text(buf, sizeof(buf), m),
				m->bad ? " BAD" : "", m->round + 1);
		}
	}
	free(idx);
}

/* The bad measurements of host @i, on lines, as the numbers. */
static void report_host_numbers(const struct coord *c, FILE *f,
				unsigned int i)
{
	char buf[FABRIC_WHY_LEN + 32];
	size_t k;

	for (k = 0; k < c->nm; k++) {
		const struct coord_meas *m = &c->m[k];

		if (!m->bad || (m->client != i && m->server != i))
			continue;
		fprintf(f, "      %s %s %s -> %s: %s (round %u)\n",
			fabric_test_names[m->test], fabric_path_names[m->path],
			rname(c, m->client), rname(c, m->server),
			meas_text(buf, sizeof(buf), m), m->round + 1);
	}
}

static void report_summary_to(const struct coord *c, FILE *f)
{
	unsigned int i, bad = 0, links = 0, p;
	size_t k;

	fprintf(f, "kvperf fabric: %u hosts, %u measured, %u rounds, %zu measurements (%s)\n",
		c->o->hosts.n, c->measured, c->nr, c->nm,
		c->interrupted ? "interrupted" : "complete");
	for (i = 0; i < c->o->hosts.n; i++)
		if (c->h[i].state != COORD_HOST_OK)
			fprintf(f, "  %s: %s: %s\n", rname(c, i),
				coord_state_names[c->h[i].state], c->h[i].why);
	for (p = 0; p < FABRIC_PATHS; p++) {
		if (c->min_lat[p] && c->min_lat[p] != UINT64_MAX)
			fprintf(f, "Latency reference (%s path): lowest p50 %.2f us; bad above %.2f us (x%u.%03u)\n",
				fabric_path_names[p], c->min_lat[p] / 1000.0,
				c->min_lat[p] * (c->o->tol.lat_x1000 / 1000.0) / 1000.0,
				c->o->tol.lat_x1000 / 1000, c->o->tol.lat_x1000 % 1000);
		if (c->max_bps[p])
			fprintf(f, "Bandwidth reference (%s path): highest %.1f MiB/s; bad below %.1f MiB/s (%u %%)\n",
				fabric_path_names[p], c->max_bps[p] / 1048576.0,
				c->max_bps[p] / 1048576.0 * c->o->tol.bw_pct / 100.0,
				c->o->tol.bw_pct);
	}
	for (i = 0; c->judged && i < c->o->hosts.n; i++) {
		if (c->h[i].state == COORD_HOST_LEFT_OUT ||
		    (c->state[i] != FABRIC_HOST_BAD &&
		     c->state[i] != FABRIC_HOST_SUSPECT))
			continue;
		if (!bad++ && !links)
			fprintf(f, "\nBad hosts:\n");
		fprintf(f, "  %s: %s\n", rname(c, i), verdict_names[c->state[i]]);
		report_host_numbers(c, f, i);
	}
	for (k = 0; c->judged && k < c->nm; k++) {
		const struct coord_meas *m = &c->m[k];
		struct fabric_pair pr = {
			.a = m->client < m->server ? m->client : m->server,
			.b = m->client < m->server ? m->server : m->client,
		};
		char buf[FABRIC_WHY_LEN + 32];

		if (!m->bad || !fabric_link_bad(c->state, pr))
			continue;
		if (!links++)
			fprintf(f, "\nBad links:\n");
		fprintf(f, "  %s %s %s -> %s: %s (round %u)\n",
			fabric_test_names[m->test], fabric_path_names[m->path],
			rname(c, m->client), rname(c, m->server),
			meas_text(buf, sizeof(buf), m), m->round + 1);
	}
	if (c->judged && !bad && !links)
		fprintf(f, "\nNo bad host and no bad link.\n");
	report_worst(c, f);
	report_distribution(c, f);
	fprintf(f, "\nResults: %s/ (fabric.json, pairs.csv, summary.txt, lat.svg, bw.svg)\n",
		c->o->out_dir);
}

/* host x host: @test's kernel-path value, client row, server column. */
static int report_matrix(const struct coord *c, enum fabric_test test,
			 const char *name)
{
	unsigned int n = c->o->hosts.n, i, k;
	double *v;
	size_t m;
	FILE *f;

	v = malloc((size_t)n * n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (m = 0; m < (size_t)n * n; m++)
		v[m] = -1;
	for (m = 0; m < c->nm; m++) {
		const struct coord_meas *x = &c->m[m];

		if (x->status || x->test != test || x->path != FABRIC_KERNEL)
			continue;
		/* latency is the pair's: both cells */
		if (test == FABRIC_LAT) {
			v[(size_t)x->client * n + x->server] = x->lat_ns / 1000.0;
			v[(size_t)x->server * n + x->client] = x->lat_ns / 1000.0;
		} else {
			v[(size_t)x->client * n + x->server] = x->bps / 1048576.0;
		}
	}
	f = report_open(c, name);
	if (!f) {
		free(v);
		return -EIO;
	}
	fprintf(f, "# %s, kernel path: row client, column server; nan not measured\n",
		test == FABRIC_LAT ? "latency p50 us" : "bandwidth MiB/s");
	fputs("host", f);
	for (k = 0; k < n; k++)
		fprintf(f, "\t%s", rname(c, k));
	fputc('\n', f);
	for (i = 0; i < n; i++) {
		fputs(rname(c, i), f);
		for (k = 0; k < n; k++) {
			if (v[(size_t)i * n + k] < 0)
				fputs("\tnan", f);
			else
				fprintf(f, "\t%.3f", v[(size_t)i * n + k]);
		}
		fputc('\n', f);
	}
	free(v);
	return report_close(c, f, name);
}

/*
 * gnuplot heatmap.gp in DIR, its messages in DIR/heatmap.log (it warns of
 * every matrix with cells not measured, which are meant): the wait
 * status, 127 when it could not be started.
 */
static int report_gnuplot(const char *dir)
{
	int st = 127 << 8, log;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return st;
	if (!pid) {
		if (chdir(dir))
			_exit(126);
		log = open("heatmap.log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			   0644);
		if (log >= 0) {
			dup2(log, STDOUT_FILENO);
			dup2(log, STDERR_FILENO);
		}
		execlp("gnuplot", "gnuplot", "heatmap.gp", (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

static int report_plots(const struct coord *c)
{
	FILE *f = report_open(c, "heatmap.gp");
	int ret, st;

	if (!f)
		return -EIO;
	fputs("# kvperf fabric heat maps: gnuplot heatmap.gp (in this folder)\n"
	      "set terminal svg size 900,800 dynamic\n"
	      "set datafile missing 'nan'\n"
	      "set datafile separator tab\n"
	      "set view map\n"
	      "set xtics rotate by 90 offset 0,-1\n"
	      "set xlabel 'server'\n"
	      "set ylabel 'client'\n"
	      "set yrange [] reverse\n"
	      "set palette defined (0 '#1a9850', 0.5 '#fee08b', 1 '#d73027')\n"
	      "set output 'lat.svg'\n"
	      "set title 'kvperf fabric: latency p50 (us), kernel path'\n"
	      "set cblabel 'us'\n"
	      "plot 'lat.dat' matrix rowheaders columnheaders using 1:2:3 with image notitle\n"
	      "set output 'bw.svg'\n"
	      "set title 'kvperf fabric: bandwidth (MiB/s), kernel path, client to server'\n"
	      "set cblabel 'MiB/s'\n"
	      "set palette negative\n"
	      "plot 'bw.dat' matrix rowheaders columnheaders using 1:2:3 with image notitle\n",
	      f);
	ret = report_close(c, f, "heatmap.gp");
	if (ret)
		return ret;
	st = report_gnuplot(c->o->out_dir);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		fprintf(c->kv->err, "fabric: gnuplot is not installed: heatmap.gp not drawn\n");
	else if (st)
		fprintf(c->kv->err, "fabric: gnuplot failed on %s/heatmap.gp (its messages: heatmap.log)\n",
			c->o->out_dir);
	return 0;
}

/**
 * fabric_report() - write the results folder, print the summary
 * @c: the run
 *
 * Return: 0, or -errno when a file could not be written (said).
 */
int fabric_report(struct coord *c)
{
	FILE *f;
	int ret;

	ret = report_json(c);
	ret = report_csv(c) ?: ret;
	ret = report_matrix(c, FABRIC_LAT, "lat.dat") ?: ret;
	ret = report_matrix(c, FABRIC_BW, "bw.dat") ?: ret;
	if (!ret)
		ret = report_plots(c);
	f = report_open(c, "summary.txt");
	if (f) {
		report_summary_to(c, f);
		ret = report_close(c, f, "summary.txt") ?: ret;
	} else {
		ret = -EIO;
	}
	report_summary_to(c, c->kv->out);
	return ret;
}
