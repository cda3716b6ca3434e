// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf fabric run, the coordinator: discovery, the rounds of the
 * schedule (or of a pair file), the verdict and its re-test rounds, each
 * a launcher step on the hosts it concerns; then the results folder.
 *
 * A host that does not answer discovery, runs another kvperf version,
 * lacks the module or an active port with an address is left out, with
 * the reason. A host of a round that does not say "done" (dead, its
 * launcher connection gone, stopped) is lost: its later pairs are not
 * tried. A step that outlives its deadline is stopped by stopping its
 * launcher. SIGINT, SIGTERM and SIGHUP stop the step running, then
 * "fabric stop" ends what is left on every host, and what was measured is
 * kept and written.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <json-c/json.h>

#include "cli.h"
#include "fabric.h"
#include "fabric_coord.h"
#include "kvperf.h"
#include "version.h"

/* discovery's allowance, besides the launcher's connect time */
#define COORD_PROBE_MS		30000
/* each run's allowance for connecting and setting up, besides its time */
#define COORD_RUN_SETUP_MS	10000
/* the launcher's allowance over a step's deadline */
#define COORD_LAUNCH_MS		30000
/* the longest word a command line takes (MAX_ARG_STRLEN), less room */
#define COORD_WORD_MAX		(128u * 1024 - 256)
/* fabric stop's */
#define COORD_STOP_MS		30000

const char *const coord_kind_names[] = {
	[COORD_FULL]	= "full",
	[COORD_QUICK]	= "quick",
	[COORD_PAIRS]	= "pairs",
	[COORD_RETEST]	= "retest",
};

static const char *coord_name(const struct coord *c, unsigned int rank)
{
	return c->o->hosts.name[rank];
}

/* The launcher's last message naming host @rank, or NULL. */
static const char *coord_launcher_says(const struct coord *c, char *err,
				       unsigned int rank, char *buf,
				       size_t len)
{
	const char *name = coord_name(c, rank);
	char *line, *save, *found = NULL;
	char *copy = strdup(err);

	if (!copy)
		return NULL;
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *at = strstr(line, name);
		size_t n = strlen(name);

		/* the name as a word: not kvc1 inside kvc10 */
		if (!at || (at[n] >= '0' && at[n] <= '9'))
			continue;
		/* the host's own words (ssh's) before pdsh's summary */
		if (!found || strncmp(line, "pdsh@", 5))
			found = line;
		if (strncmp(line, "pdsh@", 5))
			break;
	}
	if (found)
		snprintf(buf, len, "%s", found);
	free(copy);
	return found ? buf : NULL;
}

/*
 * One launcher step: @cmd on @hosts, its objects to @line. A launcher's
 * line is "LABEL: TEXT"; a TEXT that is the start of a JSON object and
 * not all of it waits for the next lines of the same label (srun cuts
 * long lines), up to COORD_PENDING_MAX bytes.
 */
#define COORD_PENDING_MAX	(4u << 20)
#define COORD_LABEL_LEN		64

struct coord_pending {
	char label[COORD_LABEL_LEN];
	char *text;
};

struct coord_step {
	struct coord *c;
	void (*line)(struct coord *c, int rank, struct json_object *j);
	unsigned int bad_lines;
	unsigned int objects;
	struct coord_pending *pend;
	unsigned int npend, cap;
};

static struct coord_pending *coord_pending(struct coord_step *s,
					   const char *label)
{
	struct coord_pending *p;
	unsigned int i;

	for (i = 0; i < s->npend; i++)
		if (!strcmp(s->pend[i].label, label))
			return &s->pend[i];
	if (s->npend == s->cap) {
		unsigned int cap = s->cap ? s->cap * 2 : 16;

		p = realloc(s->pend, cap * sizeof(*p));
		if (!p)
			return NULL;
		s->pend = p;
		s->cap = cap;
	}
	p = &s->pend[s->npend++];
	snprintf(p->label, sizeof(p->label), "%s", label);
	p->text = NULL;
	return p;
}

/*
 * @text parsed: the object, or NULL with @err json_tokener_continue when
 * @text is the start of one (its length given, not its NUL: json-c takes
 * a NUL for the end of the data).
 */
static struct json_object *coord_parse(const char *text,
				       enum json_tokener_error *err)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *j;

	if (!tok) {
		*err = json_tokener_error_parse_eof;
		return NULL;
	}
	j = json_tokener_parse_ex(tok, text, (int)strlen(text));
	*err = json_tokener_get_error(tok);
	if (*err != json_tokener_success) {
		json_object_put(j);
		j = NULL;
	}
	json_tokener_free(tok);
	return j;
}

static void coord_step_line(void *arg, char *text)
{
	struct coord_step *s = arg;
	enum json_tokener_error jerr;
	struct coord_pending *p;
	struct json_object *j;
	char *colon = strstr(text, ": "), *all;
	size_t have, add;
	int rank;

	if (!colon || colon - text >= COORD_LABEL_LEN) {
		s->bad_lines++;
		return;
	}
	*colon = '\0';
	p = coord_pending(s, text);
	if (!p)
		return;
	have = p->text ? strlen(p->text) : 0;
	add = strlen(colon + 2);
	all = realloc(p->text, have + add + 1);
	if (!all)
		return;
	memcpy(all + have, colon + 2, add + 1);
	p->text = all;
	j = coord_parse(all, &jerr);
	if (!j && jerr == json_tokener_continue &&
	    strlen(all) < COORD_PENDING_MAX)
		return;
	free(p->text);
	p->text = NULL;
	if (!j || !json_object_is_type(j, json_type_object)) {
		s->bad_lines++;
		json_object_put(j);
		return;
	}
	rank = s->c->o->launcher->host_of(s->c->o, text, j);
	if (rank >= 0) {
		s->objects++;
		s->line(s->c, rank, j);
	} else {
		s->bad_lines++;
	}
	json_object_put(j);
}

/*
 * A launcher that failed with no host answering says why on its stderr:
 * its last line, shown (where hosts answered, each host's failure is
 * reported with the host).
 */
static void coord_launcher_failed(struct coord *c, struct fabric_proc *p)
{
	size_t n = strlen(p->err);
	char *last;

	while (n && p->err[n - 1] == '\n')
		p->err[--n] = '\0';
	last = strrchr(p->err, '\n');
	fprintf(c->kv->err, "fabric: %s exited %d%s%s\n", p->argv[0], p->status,
		n ? ": " : "", last ? last + 1 : p->err);
	if (n)
		p->err[n] = '\n';
}

static int coord_launch(struct coord *c, const unsigned int *hosts,
			unsigned int n, const char *const *cmd,
			unsigned int timeout_ms,
			void (*line)(struct coord *c, int rank,
				     struct json_object *j),
			struct fabric_proc *p)
{
	struct coord_step s = { .c = c, .line = line };
	unsigned int i;
	char **argv;
	int ret;

	argv = c->o->launcher->argv(c->o, hosts, n, cmd, timeout_ms);
	if (!argv) {
		kvperf_errorf(c->kv, "out of memory");
		return -ENOMEM;
	}
	*p = (struct fabric_proc){
		.argv = argv,
		.timeout_ms = timeout_ms + COORD_LAUNCH_MS * c->o->scale,
		.sigfd = c->interrupted ? -1 : c->sfd,
		.line = coord_step_line,
		.arg = &s,
	};
	ret = fabric_proc_run(p);
	if (ret)
		kvperf_errorf(c->kv, "launcher %s: %s", c->o->launcher->name,
			      p->err);
	else if (p->status && !p->interrupted && !s.objects)
		coord_launcher_failed(c, p);
	if (p->interrupted)
		c->interrupted = true;
	for (i = 0; i < s.npend; i++)
		free(s.pend[i].text);
	free(s.pend);
	fabric_argv_free(argv);
	return ret;
}

static void coord_probe_line(struct coord *c, int rank, struct json_object *j)
{
	const char *what = fabric_jstr(j, "kvperf_fabric");

	if (!what || strcmp(what, "probe"))
		return;
	json_object_put(c->h[rank].probe);
	c->h[rank].probe = json_object_get(j);
}

__printf(3, 4)
static void coord_left_out(struct coord *c, unsigned int rank,
			   const char *fmt, ...)
{
	va_list ap;

	c->h[rank].state = COORD_HOST_LEFT_OUT;
	va_start(ap, fmt);
	vsnprintf(c->h[rank].why, sizeof(c->h[rank].why), fmt, ap);
	va_end(ap);
}

/* Discovery: every host probed; the ones fit to measure are OK. */
static int coord_discover(struct coord *c)
{
	struct fabric_opts *o = c->o;
	const char *cmd[7] = { o->command, "-j", "fabric", "probe",
			      o->dev[0] ? "dev" : NULL, o->dev, NULL };
	unsigned int *all, i, k;
	struct fabric_proc p;
	char buf[FABRIC_WHY_LEN];
	int ret;

	all = calloc(o->hosts.n, sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (i = 0; i < o->hosts.n; i++)
		all[i] = i;
	ret = coord_launch(c, all, o->hosts.n, cmd,
			   COORD_PROBE_MS * o->scale, coord_probe_line, &p);
	free(all);
	if (ret)
		return ret;
	for (i = 0; i < o->hosts.n; i++) {
		struct coord_host *h = &c->h[i];
		struct json_object *choice;
		const char *v, *said;

		if (!h->probe) {
			said = coord_launcher_says(c, p.err, i, buf, sizeof(buf));
			coord_left_out(c, i, "unreachable: %s", said ? said :
				       p.timed_out ? "no answer before the launcher's deadline" :
				       "no answer");
			continue;
		}
		v = fabric_jstr(h->probe, "version");
		if (!v || strcmp(v, KVPERF_VERSION)) {
			coord_left_out(c, i, "version mismatch: kvperf %s there, %s here",
				       v ? v : "of no version", KVPERF_VERSION);
			continue;
		}
		if (fabric_jstr(h->probe, "error")) {
			coord_left_out(c, i, "%s", fabric_jstr(h->probe, "error"));
			continue;
		}
		if (!json_object_object_get_ex(h->probe, "choice", &choice) ||
		    !fabric_jstr(choice, "addr")) {
			coord_left_out(c, i, "%s", "no address chosen");
			continue;
		}
		snprintf(h->addr, sizeof(h->addr), "%s", fabric_jstr(choice, "addr"));
		for (k = 0; k < i; k++)
			if (c->h[k].state == COORD_HOST_OK &&
			    !strcmp(c->h[k].addr, h->addr))
				break;
		if (k < i) {
			coord_left_out(c, i, "the same address: %s, as %s's",
				       h->addr, coord_name(c, k));
			continue;
		}
		h->state = COORD_HOST_OK;
	}
	return 0;
}

static struct coord_meas *coord_meas_new(struct coord *c)
{
	struct coord_meas *m;

	if (c->nm == c->mcap) {
		size_t cap = c->mcap ? c->mcap * 2 : 64;

		m = realloc(c->m, cap * sizeof(*m));
		if (!m)
			return NULL;
		c->m = m;
		c->mcap = cap;
	}
	m = &c->m[c->nm++];
	memset(m, 0, sizeof(*m));
	return m;
}

static int coord_word(const char *s, const char *const *names, unsigned int n)
{
	unsigned int i;

	for (i = 0; s && i < n; i++)
		if (!strcmp(s, names[i]))
			return (int)i;
	return -1;
}

/* The numbers of a run's first result that the verdict needs. */
static void coord_values(struct coord_meas *m)
{
	struct json_object *res, *r0 = NULL;
	int64_t bytes, ns;

	if (m->run && json_object_object_get_ex(m->run, "results", &res) &&
	    json_object_is_type(res, json_type_array) &&
	    json_object_array_length(res))
		r0 = json_object_array_get_idx(res, 0);
	if (!r0) {
		if (!m->status) {
			m->status = -1;
			snprintf(m->error, sizeof(m->error), "no result in what kvperf run printed");
		}
		return;
	}
	switch (m->test) {
	case FABRIC_LAT:
		m->lat_ns = (uint64_t)fabric_jint(r0, "p50_ns", 0);
		break;
	case FABRIC_BW:
		bytes = fabric_jint(r0, "bytes", 0);
		ns = fabric_jint(r0, "elapsed_ns", 0);
		if (bytes > 0 && ns > 0)
			m->bps = (uint64_t)((__uint128_t)bytes * 1000000000u / (uint64_t)ns);
		break;
	case FABRIC_IO:
		{
			struct json_object *v;

			if (json_object_object_get_ex(r0, "iops", &v))
				m->iops = json_object_get_double(v);
		}
		break;
	}
}

static void coord_step_line_cb(struct coord *c, int rank, struct json_object *j)
{
	const char *what = fabric_jstr(j, "kvperf_fabric");
	struct coord_meas *m;
	struct json_object *run;
	int64_t client, server;
	int t, p;

	if (!what)
		return;
	if (!strcmp(what, "done")) {
		c->h[rank].done = true;
		return;
	}
	if (strcmp(what, "result"))
		return;
	client = fabric_jint(j, "client", -1);
	server = fabric_jint(j, "server", -1);
	t = coord_word(fabric_jstr(j, "test"), fabric_test_names, FABRIC_TESTS);
	p = coord_word(fabric_jstr(j, "path"), fabric_path_names, FABRIC_PATHS);
	/* a host speaks for itself only */
	if (client != rank || server < 0 ||
	    server >= (int64_t)c->o->hosts.n || t < 0 || p < 0)
		return;
	m = coord_meas_new(c);
	if (!m)
		return;
	m->round = c->nr - 1;
	m->client = (uint16_t)client;
	m->server = (uint16_t)server;
	m->test = (uint8_t)t;
	m->path = (uint8_t)p;
	m->phase = (uint8_t)fabric_jint(j, "phase", 0);
	m->status = (int)fabric_jint(j, "status", -1);
	if (fabric_jstr(j, "error"))
		snprintf(m->error, sizeof(m->error), "%s", fabric_jstr(j, "error"));
	if (json_object_object_get_ex(j, "run", &run))
		m->run = json_object_get(run);
	coord_values(m);
}

/* The runs a pair makes: lat once, bw and io each way, per path. */
static unsigned int coord_runs(const struct fabric_opts *o)
{
	unsigned int t, p, n = 0;

	for (t = 0; t < FABRIC_TESTS; t++)
		for (p = 0; p < FABRIC_PATHS; p++)
			if ((o->tests & (1u << t)) && (o->paths & (1u << p)))
				n += t == FABRIC_LAT ? 1 : 2;
	return n;
}

static char *coord_csv_words(unsigned int mask, const char *const *names,
			     unsigned int n, char *buf, size_t len)
{
	unsigned int i;
	size_t at = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		if (mask & (1u << i))
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       at ? "," : "", names[i]);
	return buf;
}

/* The live line of a round. */
static void coord_live(struct coord *c, const struct coord_round *r,
		       size_t first, unsigned int lost)
{
	uint64_t lo[FABRIC_TESTS] = { UINT64_MAX, UINT64_MAX, UINT64_MAX };
	uint64_t hi[FABRIC_TESTS] = { 0 };
	unsigned int failed = 0;
	size_t i;

	for (i = first; i < c->nm; i++) {
		const struct coord_meas *m = &c->m[i];
		uint64_t v = m->test == FABRIC_LAT ? m->lat_ns :
			     m->test == FABRIC_BW ? m->bps : (uint64_t)m->iops;

		if (m->status) {
			failed++;
			continue;
		}
		lo[m->test] = v < lo[m->test] ? v : lo[m->test];
		hi[m->test] = v > hi[m->test] ? v : hi[m->test];
	}
	fprintf(c->kv->err, "fabric: round %u (%s): %u pairs in %.1f s",
		r->round + 1, coord_kind_names[r->kind], r->npairs,
		r->ms / 1000.0);
	if (hi[FABRIC_LAT])
		fprintf(c->kv->err, ", lat p50 %.2f-%.2f us",
			lo[FABRIC_LAT] / 1000.0, hi[FABRIC_LAT] / 1000.0);
	if (hi[FABRIC_BW])
		fprintf(c->kv->err, ", bw %.0f-%.0f MiB/s",
			lo[FABRIC_BW] / 1048576.0, hi[FABRIC_BW] / 1048576.0);
	if (hi[FABRIC_IO])
		fprintf(c->kv->err, ", io %" PRIu64 "-%" PRIu64 " IOPS",
			lo[FABRIC_IO], hi[FABRIC_IO]);
	fprintf(c->kv->err, ", %u failed", failed);
	if (lost)
		fprintf(c->kv->err, ", %u hosts lost", lost);
	fputc('\n', c->kv->err);
	fflush(c->kv->err);
}

static struct coord_round *coord_round_new(struct coord *c,
					   enum coord_kind kind,
					   unsigned int npairs)
{
	struct coord_round *r;

	if (c->nr == c->rcap) {
		unsigned int cap = c->rcap ? c->rcap * 2 : 16;

		r = realloc(c->r, cap * sizeof(*r));
		if (!r)
			return NULL;
		c->r = r;
		c->rcap = cap;
	}
	r = &c->r[c->nr];
	memset(r, 0, sizeof(*r));
	r->pairs = calloc(npairs ? npairs : 1, sizeof(*r->pairs));
	if (!r->pairs)
		return NULL;
	r->round = c->nr++;
	r->kind = kind;
	return r;
}

/*
 * Measure the pairs of one round (host ranks, @n of them); pairs with a
 * host lost in an earlier round are left out of it.
 */
static int coord_round(struct coord *c, enum coord_kind kind,
		       const struct fabric_pair *pairs, unsigned int n)
{
	struct fabric_opts *o = c->o;
	char round[16], time_ms[16], port[16], lat[24], bw[24], io[24];
	char connect[16], deadline[16], tests[32], paths[32];
	char *addrs = NULL, *plist = NULL, buf[FABRIC_WHY_LEN];
	unsigned int *hosts = NULL, nhosts = 0, i, lost = 0;
	uint32_t connect_ms, deadline_ms;
	struct coord_round *r;
	struct fabric_proc p;
	size_t at, first = c->nm;
	uint64_t t0 = fabric_now_ms();
	int ret = -ENOMEM;

	r = coord_round_new(c, kind, n);
	if (!r)
		goto out;
	for (i = 0; i < n; i++)
		if (c->h[pairs[i].a].state == COORD_HOST_OK &&
		    c->h[pairs[i].b].state == COORD_HOST_OK)
			r->pairs[r->npairs++] = pairs[i];
	hosts = calloc(2 * (r->npairs ? r->npairs : 1), sizeof(*hosts));
	addrs = malloc((size_t)o->hosts.n * (FABRIC_ADDR_LEN + 1) + 1);
	plist = malloc((size_t)r->npairs * 12 + 1);
	if (!hosts || !addrs || !plist)
		goto out;
	ret = 0;
	if (!r->npairs)
		goto out;
	for (at = 0, i = 0; i < o->hosts.n; i++)
		at += (size_t)sprintf(addrs + at, "%s%s", i ? "," : "",
				      c->h[i].state == COORD_HOST_OK ?
				      c->h[i].addr : "-");
	/* one word of a command line: the kernel's MAX_ARG_STRLEN */
	if (at >= COORD_WORD_MAX) {
		kvperf_errorf(c->kv, "fabric: the round's address list (%zu bytes) is longer than one word of a command line takes (%u): fewer hosts, or IPv4 addresses",
			      at, COORD_WORD_MAX);
		ret = -EINVAL;
		goto out;
	}
	for (at = 0, i = 0; i < r->npairs; i++) {
		at += (size_t)sprintf(plist + at, "%s%u-%u", i ? "," : "",
				      r->pairs[i].a, r->pairs[i].b);
		hosts[nhosts++] = r->pairs[i].a;
		hosts[nhosts++] = r->pairs[i].b;
		c->h[r->pairs[i].a].done = false;
		c->h[r->pairs[i].b].done = false;
	}
	connect_ms = FABRIC_CONNECT_MS * o->scale;
	deadline_ms = connect_ms + coord_runs(o) *
		      (o->time_ms + COORD_RUN_SETUP_MS * o->scale);
	snprintf(round, sizeof(round), "%u", r->round);
	snprintf(time_ms, sizeof(time_ms), "%u", o->time_ms);
	snprintf(port, sizeof(port), "%u", o->port);
	snprintf(lat, sizeof(lat), "%" PRIu64, o->lat_size);
	snprintf(bw, sizeof(bw), "%" PRIu64, o->bw_size);
	snprintf(io, sizeof(io), "%" PRIu64, o->io_bs);
	snprintf(connect, sizeof(connect), "%u", connect_ms);
	snprintf(deadline, sizeof(deadline), "%u", deadline_ms);
	{
		const char *cmd[32] = {
			o->command, "-j", "fabric", "step", "round", round,
			"addrs", addrs, "pairs", plist,
			"tests", coord_csv_words(o->tests, fabric_test_names,
						 FABRIC_TESTS, tests,
						 sizeof(tests)),
			"paths", coord_csv_words(o->paths, fabric_path_names,
						 FABRIC_PATHS, paths,
						 sizeof(paths)),
			"lat-size", lat, "bw-size", bw, "io-bs", io,
			"time", time_ms, "port", port, "connect", connect,
			"deadline", deadline, NULL,
		};

		ret = coord_launch(c, hosts, nhosts, cmd, deadline_ms,
				   coord_step_line_cb, &p);
	}
	if (ret)
		goto out;
	for (i = 0; i < nhosts; i++) {
		struct coord_host *h = &c->h[hosts[i]];
		const char *said;

		if (h->done || c->interrupted)
			continue;
		said = coord_launcher_says(c, p.err, hosts[i], buf, sizeof(buf));
		h->state = COORD_HOST_LOST;
		h->lost_round = r->round;
		snprintf(h->why, sizeof(h->why), "lost in round %u: %s",
			 r->round + 1, said ? said : p.timed_out ?
			 "its step outlived the deadline" :
			 "it did not finish its step");
		lost++;
	}
	r->ms = fabric_now_ms() - t0;
	coord_live(c, r, first, lost);
out:
	if (ret == -ENOMEM)
		kvperf_errorf(c->kv, "out of memory");
	free(hosts);
	free(addrs);
	free(plist);
	return ret;
}

/* A measurement's host pair, lower rank first. */
static struct fabric_pair coord_pair(const struct coord_meas *m)
{
	struct fabric_pair p = {
		.a = m->client < m->server ? m->client : m->server,
		.b = m->client < m->server ? m->server : m->client,
	};

	return p;
}

/*
 * The pairs measured, one entry per pair and round (bad when any of its
 * measurements is), in the order of the rounds, into @fm (room for
 * c->nm). A failed measurement with a lost host says nothing of the
 * link and is left out.
 */
static unsigned int coord_fold(const struct coord *c, struct fabric_meas *fm,
			       uint32_t *round)
{
	unsigned int nfm = 0, k;
	size_t i;

	for (i = 0; i < c->nm; i++) {
		const struct coord_meas *m = &c->m[i];
		struct fabric_pair pr = coord_pair(m);

		if (m->status && (c->h[pr.a].state == COORD_HOST_LOST ||
				  c->h[pr.b].state == COORD_HOST_LOST))
			continue;
		for (k = nfm; k-- > 0 && round[k] == m->round; )
			if (fm[k].pair.a == pr.a && fm[k].pair.b == pr.b)
				break;
		if (k != UINT32_MAX && round[k] == m->round) {
			fm[k].bad |= m->bad;
			continue;
		}
		fm[nfm].pair = pr;
		fm[nfm].bad = m->bad;
		round[nfm++] = m->round;
	}
	return nfm;
}

/*
 * The verdict: references (the lowest latency, the highest bandwidth,
 * per path), each measurement bad or not, each host judged. A failed
 * measurement of two hosts that were not lost is bad.
 */
static int coord_judge(struct coord *c)
{
	struct fabric_meas *fm;
	unsigned int nfm, p;
	uint32_t *round;
	size_t i;

	for (p = 0; p < FABRIC_PATHS; p++) {
		c->min_lat[p] = UINT64_MAX;
		c->max_bps[p] = 0;
	}
	for (i = 0; i < c->nm; i++) {
		const struct coord_meas *m = &c->m[i];

		if (m->status)
			continue;
		if (m->test == FABRIC_LAT && m->lat_ns &&
		    m->lat_ns < c->min_lat[m->path])
			c->min_lat[m->path] = m->lat_ns;
		if (m->test == FABRIC_BW && m->bps > c->max_bps[m->path])
			c->max_bps[m->path] = m->bps;
	}
	for (i = 0; i < c->nm; i++) {
		struct coord_meas *m = &c->m[i];

		if (m->status)
			m->bad = true;
		else if (m->test == FABRIC_LAT)
			m->bad = fabric_lat_bad(&c->o->tol, m->lat_ns,
						c->min_lat[m->path]);
		else if (m->test == FABRIC_BW)
			m->bad = fabric_bw_bad(&c->o->tol, m->bps,
					       c->max_bps[m->path]);
	}
	fm = calloc(c->nm ? c->nm : 1, sizeof(*fm));
	round = calloc(c->nm ? c->nm : 1, sizeof(*round));
	free(c->state);
	c->state = calloc(c->o->hosts.n, sizeof(*c->state));
	c->judged = false;
	if (fm && round && c->state) {
		nfm = coord_fold(c, fm, round);
		c->judged = fabric_judge(c->o->hosts.n, fm, nfm, c->state);
	}
	free(fm);
	free(round);
	return c->judged ? 0 : -ENOMEM;
}

/* The re-test round's pairs, or 0 when none can be made. */
static unsigned int coord_retest_pairs(struct coord *c,
				       struct fabric_pair *out)
{
	struct fabric_meas *fm;
	unsigned int nfm, n = 0, i;
	uint32_t *round;

	fm = calloc(c->nm ? c->nm : 1, sizeof(*fm));
	round = calloc(c->nm ? c->nm : 1, sizeof(*round));
	if (fm && round) {
		nfm = coord_fold(c, fm, round);
		n = fabric_retest(c->o->hosts.n, fm, nfm, out);
	}
	free(fm);
	free(round);
	/* a host not measured (left out, lost) is not re-tested */
	for (i = 0; i < n; i++) {
		if (c->h[out[i].a].state != COORD_HOST_OK ||
		    c->h[out[i].b].state != COORD_HOST_OK)
			out[i--] = out[--n];
	}
	return n;
}

static int coord_signals(struct coord *c, sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, old);
	c->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return c->sfd < 0 ? -errno : 0;
}

static void coord_stop_line(struct coord *c, int rank, struct json_object *j)
{
	(void)c;
	(void)rank;
	(void)j;
}

/* fabric stop on every host that was measured. */
static void coord_stop_all(struct coord *c)
{
	const struct fabric_opts *o = c->o;
	char port[16];
	const char *cmd[7] = { o->command, "-j", "fabric", "stop", "port", port,
			      NULL };
	unsigned int *hosts, n = 0, i;
	struct fabric_proc p;

	hosts = calloc(o->hosts.n, sizeof(*hosts));
	if (!hosts)
		return;
	for (i = 0; i < o->hosts.n; i++)
		if (c->h[i].state == COORD_HOST_OK)
			hosts[n++] = i;
	snprintf(port, sizeof(port), "%u", o->port);
	if (n) {
		fprintf(c->kv->err, "fabric: stopping what is left on %u hosts\n", n);
		coord_launch(c, hosts, n, cmd, COORD_STOP_MS * o->scale,
			     coord_stop_line, &p);
	}
	free(hosts);
}

/*
 * The pairs of the pair file, as rounds: each pair in the first round
 * where neither of its hosts is yet.
 */
static int coord_pair_file(struct coord *c)
{
	struct fabric_opts *o = c->o;
	char line[2 * FABRIC_HOST_LEN + 64], x[FABRIC_HOST_LEN + 1];
	char y[FABRIC_HOST_LEN + 1];
	struct fabric_pair *all = NULL, *round;
	unsigned int nall = 0, cap = 0, lineno = 0, i, n, left;
	unsigned char *used, *done;
	FILE *f;
	int ret = 0, a, b;

	f = fopen(o->pair_file, "re");
	if (!f) {
		kvperf_errorf(c->kv, "pairs %s: %s", o->pair_file, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#'), extra[2];
		int k;

		lineno++;
		if (hash)
			*hash = '\0';
		k = sscanf(line, "%255s %255s %1s", x, y, extra);
		if (k <= 0)
			continue;
		a = fabric_hosts_find(&o->hosts, x);
		b = k >= 2 ? fabric_hosts_find(&o->hosts, y) : -1;
		if (k != 2 || a < 0 || b < 0 || a == b) {
			kvperf_errorf(c->kv, "pairs %s line %u: not two different hosts of the list",
				      o->pair_file, lineno);
			ret = -EINVAL;
			break;
		}
		if (nall == cap) {
			void *p = realloc(all, (cap ? cap * 2 : 64) * sizeof(*all));

			if (!p) {
				ret = -ENOMEM;
				break;
			}
			all = p;
			cap = cap ? cap * 2 : 64;
		}
		all[nall].a = (uint16_t)(a < b ? a : b);
		all[nall++].b = (uint16_t)(a < b ? b : a);
	}
	fclose(f);
	if (!ret && !nall) {
		kvperf_errorf(c->kv, "pairs %s: no pairs in it", o->pair_file);
		ret = -EINVAL;
	}
	used = calloc(o->hosts.n, 1);
	done = calloc(nall ? nall : 1, 1);
	round = calloc(nall ? nall : 1, sizeof(*round));
	if (!ret && (!used || !done || !round))
		ret = -ENOMEM;
	for (left = nall; !ret && left && !c->interrupted; ) {
		memset(used, 0, o->hosts.n);
		for (n = 0, i = 0; i < nall; i++) {
			if (done[i] || used[all[i].a] || used[all[i].b])
				continue;
			used[all[i].a] = used[all[i].b] = 1;
			done[i] = 1;
			round[n++] = all[i];
			left--;
		}
		ret = coord_round(c, COORD_PAIRS, round, n);
	}
	free(used);
	free(done);
	free(round);
	free(all);
	return ret;
}

/* The schedule's rounds over the hosts discovery kept. */
static int coord_schedule(struct coord *c)
{
	struct fabric_opts *o = c->o;
	unsigned int *rank, n = 0, rounds, r, k, np;
	struct fabric_pair *pairs;
	int ret = 0;

	if (o->pair_file)
		return coord_pair_file(c);
	rank = calloc(o->hosts.n, sizeof(*rank));
	pairs = calloc(o->hosts.n / 2 + 1, sizeof(*pairs));
	if (!rank || !pairs) {
		free(rank);
		free(pairs);
		return -ENOMEM;
	}
	for (k = 0; k < o->hosts.n; k++)
		if (c->h[k].state == COORD_HOST_OK)
			rank[n++] = k;
	rounds = fabric_rounds(n, o->quick);
	for (r = 0; !ret && r < rounds && !c->interrupted; r++) {
		np = fabric_round(n, o->quick, r, pairs);
		for (k = 0; k < np; k++) {
			pairs[k].a = (uint16_t)rank[pairs[k].a];
			pairs[k].b = (uint16_t)rank[pairs[k].b];
		}
		ret = coord_round(c, o->quick ? COORD_QUICK : COORD_FULL,
				  pairs, np);
	}
	free(rank);
	free(pairs);
	return ret;
}

/**
 * fabric_run() - the coordinator of kvperf fabric run
 * @kv: the invocation
 * @o: what to run, its hosts expanded
 *
 * Return: 0 when every pair measured within tolerance; 1 when a host or
 * link was found bad, a host was left out or lost, a measurement failed,
 * or on an interruption or error (the results folder is written in each
 * case it can be).
 */
int fabric_run(struct kvperf *kv, struct fabric_opts *o)
{
	struct coord c = { .kv = kv, .o = o, .sfd = -1 };
	struct fabric_pair *pairs = NULL;
	unsigned int i, n, retest;
	bool problems = false;
	sigset_t old;
	time_t now = time(NULL);
	int ret;

	c.h = calloc(o->hosts.n, sizeof(*c.h));
	if (!c.h) {
		kvperf_errorf(kv, "out of memory");
		return KVPERF_EXIT_ERROR;
	}
	strftime(c.started, sizeof(c.started), "%Y-%m-%dT%H:%M:%S%z",
		 localtime(&now));
	c.start_ms = fabric_now_ms();
	if (coord_signals(&c, &old)) {
		kvperf_errorf(kv, "signalfd: %s", strerror(errno));
		free(c.h);
		return KVPERF_EXIT_ERROR;
	}
	fprintf(kv->err, "fabric: discovery on %u hosts by %s\n", o->hosts.n,
		o->launcher->name);
	ret = coord_discover(&c);
	for (i = 0; !ret && i < o->hosts.n; i++) {
		if (c.h[i].state == COORD_HOST_OK) {
			c.measured++;
			continue;
		}
		fprintf(kv->err, "fabric: %s left out: %s\n",
			coord_name(&c, i), c.h[i].why);
		problems = true;
	}
	if (!ret && c.measured < 2 && !c.interrupted) {
		kvperf_errorf(kv, "fabric: %u of the %u hosts can be measured: at least 2 are needed",
			      c.measured, o->hosts.n);
		ret = -EINVAL;
	}
	if (!ret && !c.interrupted)
		ret = coord_schedule(&c);
	pairs = calloc(o->hosts.n / 2 + 1, sizeof(*pairs));
	for (retest = 0; !ret && pairs && !c.interrupted; retest++) {
		ret = coord_judge(&c);
		if (ret || retest >= o->retests)
			break;
		n = coord_retest_pairs(&c, pairs);
		if (!n)
			break;
		fprintf(kv->err, "fabric: re-testing %u suspect pairs with new partners\n", n);
		ret = coord_round(&c, COORD_RETEST, pairs, n);
	}
	free(pairs);
	for (i = 0; i < o->hosts.n; i++)
		problems |= c.h[i].state == COORD_HOST_LOST;
	for (i = 0; i < c.nm; i++)
		problems |= c.m[i].bad || c.m[i].status;
	if (c.interrupted || problems)
		coord_stop_all(&c);
	if (c.interrupted)
		kvperf_errorf(kv, "fabric: interrupted; what was measured is kept");
	if (!c.judged && c.nm)
		coord_judge(&c);
	if (fabric_report(&c) && !ret)
		ret = -EIO;
	for (i = 0; i < o->hosts.n; i++)
		json_object_put(c.h[i].probe);
	for (i = 0; i < c.nm; i++)
		json_object_put(c.m[i].run);
	for (i = 0; i < c.nr; i++)
		free(c.r[i].pairs);
	free(c.r);
	free(c.m);
	free(c.h);
	free(c.state);
	close(c.sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (ret == -EINVAL && !c.nm)
		return KVPERF_EXIT_ERROR;
	return ret || problems || c.interrupted ? KVPERF_EXIT_ERROR :
	       KVPERF_EXIT_OK;
}
