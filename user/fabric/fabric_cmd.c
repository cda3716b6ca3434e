// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf fabric: its words. "fabric run" is the user's (the
 * coordinator); "probe", "step" and "stop" are what the launcher runs on
 * each host (fabric_host.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <sys/stat.h>

#include "args.h"
#include "cli.h"
#include "fabric.h"
#include "keywords.h"
#include "kvperf.h"
#include "show.h"

enum fab_kw {
	FKW_LAUNCHER, FKW_HOSTS, FKW_HOSTFILE, FKW_QUICK, FKW_PAIRS,
	FKW_TESTS, FKW_PATH, FKW_LAT_SIZE, FKW_BW_SIZE, FKW_IO_BS, FKW_TIME,
	FKW_PORT, FKW_DEV, FKW_LAT_TOL, FKW_BW_TOL, FKW_RETESTS, FKW_OUT,
	FKW_COMMAND, FKW_COUNT,
};

static const char *const fab_keywords[FKW_COUNT] = {
	[FKW_LAUNCHER]	= "launcher",
	[FKW_HOSTS]	= "hosts",
	[FKW_HOSTFILE]	= "hostfile",
	[FKW_QUICK]	= "quick",
	[FKW_PAIRS]	= "pairs",
	[FKW_TESTS]	= "tests",
	[FKW_PATH]	= "path",
	[FKW_LAT_SIZE]	= "lat-size",
	[FKW_BW_SIZE]	= "bw-size",
	[FKW_IO_BS]	= "io-bs",
	[FKW_TIME]	= "time",
	[FKW_PORT]	= "port",
	[FKW_DEV]	= "dev",
	[FKW_LAT_TOL]	= "lat-tolerance",
	[FKW_BW_TOL]	= "bw-tolerance",
	[FKW_RETESTS]	= "retests",
	[FKW_OUT]	= "out",
	[FKW_COMMAND]	= "command",
};

/* the paths fabric run measures so far */
static const char *const fab_path_names[] = { "kernel" };

#define FAB_SIZE_MAX	(8u << 20)
#define FAB_RETESTS_MAX	16
#define FAB_TIME_MIN_MS	100

static int fab_usage_val(struct kvperf *kv, const char *kw, const char *val,
			 const char *want)
{
	return kvperf_usage(kv, "fabric", "%s '%s': %s", kw, val, want);
}

static int fab_size(struct kvperf *kv, const char *kw, const char *val,
		    uint64_t min, uint64_t *v)
{
	if (parse_size(val, v) || *v < min || *v > FAB_SIZE_MAX)
		return kvperf_usage(kv, "fabric",
				    "%s '%s' is not a size of %llu B to 8M",
				    kw, val, (unsigned long long)min);
	return 0;
}

/* hostfile FILE: its lines, each a host list; '#' starts a comment */
static int fab_hostfile(struct kvperf *kv, struct fabric_opts *o,
			const char *path)
{
	char line[4096], err[FABRIC_WHY_LEN], *hash, *s, *e;
	unsigned int lineno = 0;
	FILE *f = fopen(path, "re");

	if (!f) {
		kvperf_errorf(kv, "hostfile %s: %s", path, strerror(errno));
		return KVPERF_EXIT_USAGE;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		for (s = line; *s == ' ' || *s == '\t'; s++)
			;
		for (e = s + strlen(s); e > s && strchr(" \t\r\n", e[-1]); e--)
			;
		*e = '\0';
		if (!*s)
			continue;
		if (fabric_hosts_add(&o->hosts, s, err, sizeof(err))) {
			fclose(f);
			kvperf_errorf(kv, "hostfile %s line %u: %s", path,
				      lineno, err);
			return KVPERF_EXIT_USAGE;
		}
	}
	fclose(f);
	if (!o->hosts.n) {
		kvperf_errorf(kv, "hostfile %s: no hosts in it", path);
		return KVPERF_EXIT_USAGE;
	}
	return 0;
}

static int fab_list(struct kvperf *kv, const char *kw, const char *val,
		    const char *const *names, unsigned int n,
		    unsigned int *mask)
{
	char buf[128], *tok, *save;
	unsigned int i;

	*mask = 0;
	snprintf(buf, sizeof(buf), "%s", val);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < n && strcmp(tok, names[i]); i++)
			;
		if (i == n)
			return kvperf_usage(kv, "fabric",
					    "%s: unknown '%s' (lat, bw, io, comma-separated)",
					    kw, tok);
		*mask |= 1u << i;
	}
	if (!*mask)
		return fab_usage_val(kv, kw, val, "an empty list");
	return 0;
}

static int fab_value(struct kvperf *kv, int kw, const char *val, void *arg)
{
	struct fabric_opts *o = arg;
	const char *name = fab_keywords[kw];
	char err[FABRIC_WHY_LEN], *end;
	uint32_t u;
	double x;
	int i;

	switch (kw) {
	case FKW_LAUNCHER:
		for (i = 0; fabric_launchers[i]; i++)
			if (!strcmp(val, fabric_launchers[i]->name))
				o->launcher = fabric_launchers[i];
		if (!o->launcher)
			return kvperf_usage(kv, "fabric",
					    "unknown launcher '%s' (pdsh or slurm)",
					    val);
		return 0;
	case FKW_HOSTS:
		if (!*val || fabric_hosts_add(&o->hosts, val, err, sizeof(err)))
			return kvperf_usage(kv, "fabric", "hosts '%s': %s",
					    val, *val ? err : "an empty host list");
		o->host_list = val;
		return 0;
	case FKW_HOSTFILE:
		return fab_hostfile(kv, o, val);
	case FKW_PAIRS:
		o->pair_file = val;
		return 0;
	case FKW_TESTS:
		return fab_list(kv, name, val, fabric_test_names, FABRIC_TESTS,
				&o->tests);
	case FKW_PATH:
		for (u = 0; u < ARRAY_SIZE(fab_path_names); u++)
			if (!strcmp(val, fab_path_names[u]))
				break;
		if (u < ARRAY_SIZE(fab_path_names))
			return 0;
		if (!strcmp(val, "user") || !strcmp(val, "both"))
			return kvperf_usage(kv, "fabric",
					    "path %s: fabric runs measure the kernel path only so far",
					    val);
		return fab_usage_val(kv, name, val, "kernel");
	case FKW_LAT_SIZE:
		return fab_size(kv, name, val, 1, &o->lat_size);
	case FKW_BW_SIZE:
		return fab_size(kv, name, val, 1, &o->bw_size);
	case FKW_IO_BS:
		return fab_size(kv, name, val, 512, &o->io_bs);
	case FKW_TIME:
		if (parse_time_ms(val, &u) || u < FAB_TIME_MIN_MS ||
		    u > FABRIC_TIME_MAX_MS)
			return fab_usage_val(kv, name, val,
					     "not a time of 100ms to 600s");
		o->time_ms = u;
		return 0;
	case FKW_PORT:
		if (parse_u32(val, &u) || !u || u > 65534)
			return fab_usage_val(kv, name, val,
					     "not a port of 1 to 65534 (the user path's is PORT+1)");
		o->port = (uint16_t)u;
		return 0;
	case FKW_DEV:
		if (!*val || strlen(val) >= sizeof(o->dev))
			return fab_usage_val(kv, name, val, "not a device name");
		snprintf(o->dev, sizeof(o->dev), "%s", val);
		return 0;
	case FKW_LAT_TOL:
		errno = 0;
		x = strtod(val, &end);
		if (errno || *end || end == val || !isfinite(x) ||
		    x < 1.001 || x > 1000)
			return fab_usage_val(kv, name, val,
					     "not a factor of 1.001 to 1000");
		o->tol.lat_x1000 = (uint32_t)lround(x * 1000);
		return 0;
	case FKW_BW_TOL:
		if (parse_u32(val, &u) || !u || u > 99)
			return fab_usage_val(kv, name, val,
					     "not a percentage of 1 to 99");
		o->tol.bw_pct = u;
		return 0;
	case FKW_RETESTS:
		if (parse_u32(val, &u) || u > FAB_RETESTS_MAX)
			return fab_usage_val(kv, name, val,
					     "not a count of 0 to 16");
		o->retests = u;
		return 0;
	case FKW_OUT:
		if (!*val)
			return fab_usage_val(kv, name, val, "an empty path");
		o->out_dir = val;
		return 0;
	case FKW_COMMAND:
		if (!*val)
			return fab_usage_val(kv, name, val, "an empty path");
		o->command = val;
		return 0;
	}
	return KVPERF_EXIT_USAGE;
}

static const int fab_exclusive[][2] = {
	{ FKW_QUICK, FKW_PAIRS },
	{ -1, -1 },
};

static const struct cli_keywords fab_kw = {
	.obj = "fabric",
	.names = fab_keywords,
	.count = FKW_COUNT,
	.flags = 1ull << FKW_QUICK,
	.repeatable = 1ull << FKW_HOSTS | 1ull << FKW_HOSTFILE,
	.exclusive = fab_exclusive,
	.value = fab_value,
};

static void fab_defaults(struct fabric_opts *o)
{
	const char *scale = getenv("KVPERF_TIME_SCALE");

	memset(o, 0, sizeof(*o));
	o->tests = 1u << FABRIC_LAT | 1u << FABRIC_BW;
	o->paths = 1u << FABRIC_KERNEL;
	o->lat_size = FABRIC_LAT_SIZE;
	o->bw_size = FABRIC_BW_SIZE;
	o->io_bs = 4096;
	o->time_ms = FABRIC_TIME_MS;
	o->port = FABRIC_PORT;
	o->tol.lat_x1000 = FABRIC_TOL_LAT_X1000;
	o->tol.bw_pct = FABRIC_TOL_BW_PCT;
	o->retests = 3;
	o->command = fabric_self_exe();
	o->scale = 1;
	if (scale && atoi(scale) >= 1 && atoi(scale) <= 100)
		o->scale = (unsigned int)atoi(scale);
}

/* The results folder: made, or an empty one taken. */
static int fab_out_dir(struct kvperf *kv, struct fabric_opts *o,
		       char *buf, size_t len)
{
	struct dirent *de;
	DIR *d;

	if (!o->out_dir) {
		time_t now = time(NULL);

		strftime(buf, len, "kvperf-fabric-%Y%m%d-%H%M%S",
			 localtime(&now));
		o->out_dir = buf;
	}
	if (!mkdir(o->out_dir, 0755))
		return 0;
	if (errno != EEXIST) {
		kvperf_errorf(kv, "out %s: %s", o->out_dir, strerror(errno));
		return KVPERF_EXIT_ERROR;
	}
	d = opendir(o->out_dir);
	if (!d) {
		kvperf_errorf(kv, "out %s: %s", o->out_dir, strerror(errno));
		return KVPERF_EXIT_ERROR;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			break;
	closedir(d);
	if (de) {
		kvperf_errorf(kv, "out %s: the folder is not empty (results are never written over)",
			      o->out_dir);
		return KVPERF_EXIT_ERROR;
	}
	return 0;
}

static int fab_run(struct kvperf *kv, struct args *a)
{
	struct fabric_opts o;
	char dir[64];
	uint64_t given = 0;
	int ret;

	ret = show_cmd_help(kv, a, &fabric_object, fab_keywords, FKW_COUNT);
	if (ret >= 0)
		return ret;
	fab_defaults(&o);
	ret = cli_parse_keywords(kv, a, &fab_kw, &given, &o);
	if (ret)
		goto out;
	o.quick = given & 1ull << FKW_QUICK;
	if (!o.launcher) {
		ret = kvperf_usage(kv, "fabric", "missing launcher pdsh or launcher slurm");
		goto out;
	}
	ret = o.launcher->hosts(kv, &o);
	if (ret)
		goto out;
	if (!fabric_hosts_ok(o.hosts.n)) {
		ret = kvperf_usage(kv, "fabric", "%u hosts: a fabric run takes 2 to %d",
				   o.hosts.n, FABRIC_HOSTS_MAX);
		goto out;
	}
	if (o.launcher->prepare) {
		ret = o.launcher->prepare(kv, &o);
		if (ret)
			goto out;
	}
	ret = fab_out_dir(kv, &o, dir, sizeof(dir));
	if (!ret)
		ret = fabric_run(kv, &o);
out:
	fabric_hosts_free(&o.hosts);
	return ret;
}

static const struct kvperf_cmd fab_run_cmd = {
	.name = "run",
	.summary = "measure every pair of hosts",
	.run = fab_run,
};

static const struct kvperf_cmd fab_probe_cmd = {
	.name = "probe",
	.summary = "(on each host) say what this host is",
	.run = fabric_probe,
};

static const struct kvperf_cmd fab_step_cmd = {
	.name = "step",
	.summary = "(on each host) this host's part of a round",
	.run = fabric_step,
};

static const struct kvperf_cmd fab_stop_cmd = {
	.name = "stop",
	.summary = "(on each host) end a fabric run's steps, servers, runs",
	.run = fabric_stop,
};

static const struct kvperf_cmd *const fab_cmds[] = {
	&fab_run_cmd,
	&fab_probe_cmd,
	&fab_step_cmd,
	&fab_stop_cmd,
	NULL,
};

/* the first command, run, is the default: "kvperf fabric" asks for its words */
static int fab_dispatch(struct kvperf *kv, struct args *a)
{
	return kvperf_dispatch(kv, a, &fabric_object, fab_cmds);
}

static void fab_help(FILE *f)
{
	fputs("Usage: kvperf fabric run launcher {pdsh|slurm} [hosts LIST] [hostfile FILE]\n"
	      "              [quick] [pairs FILE] [tests LIST] [path {kernel}]\n"
	      "              [lat-size N] [bw-size N] [io-bs N] [time TIME] [port PORT]\n"
	      "              [dev NAME] [lat-tolerance X] [bw-tolerance PCT]\n"
	      "              [retests N] [out DIR] [command PATH]\n"
	      "       kvperf -j fabric probe [dev NAME]\n"
	      "       kvperf -j fabric step round R addrs LIST pairs LIST tests LIST\n"
	      "              paths LIST lat-size N bw-size N io-bs N time MS port PORT\n"
	      "              connect MS deadline MS\n"
	      "       kvperf -j fabric stop port PORT\n"
	      "       kvperf fabric help\n"
	      "\n"
	      "Measure every pair of a list of hosts on the kernel path, from this\n"
	      "host, and name the bad links and hosts. The launcher runs kvperf on\n"
	      "the hosts (each finds its role in the list itself): pdsh over ssh\n"
	      "(pdsh -R ssh), or Slurm's srun inside an allocation (salloc, sbatch).\n"
	      "\n"
	      "First discovery: each host's kvperf version, kernel, module, devices,\n"
	      "and the port it will use (ACTIVE, with an address on its netdev);\n"
	      "hosts unreachable, of another version, without the module or such a\n"
	      "port are left out, saying why. Then the rounds: every pair once, in\n"
	      "n-1 rounds of n/2 pairs at once (the circle method; an odd count sits\n"
	      "one host out a round); quick, one round, the lower half of the list\n"
	      "against the upper; pairs FILE, the pairs of the file (\"HOST HOST\" a\n"
	      "line). Each pair measures latency (run lat op send, lat-size, default\n"
	      "64 B; the p50), bandwidth each way (run bw op write, bw-size, default\n"
	      "64 KiB) and, with tests io, run io each way, each for time (default\n"
	      "2s). A live line per round goes to stderr.\n"
	      "\n"
	      "Verdict (ClusterKit's tolerances): a latency above lat-tolerance\n"
	      "(default 2.1) times the lowest measured, a bandwidth below\n"
	      "bw-tolerance (default 93) percent of the highest, or a failed\n"
	      "measurement, makes its pair bad. A host whose partners (two or more)\n"
	      "were all bad is bad; a bad pair between hosts that are not is a bad\n"
	      "link; a host with one partner, bad, is suspect and re-tested with a\n"
	      "partner known good, up to retests rounds (default 3). A host that\n"
	      "stops answering is lost, its later pairs not tried.\n"
	      "\n"
	      "Results in out DIR (default kvperf-fabric-DATE-TIME; it must be new or\n"
	      "empty): fabric.json (everything), pairs.csv, summary.txt (also printed),\n"
	      "lat.dat, bw.dat and heatmap.gp, drawn into lat.svg and bw.svg when\n"
	      "gnuplot is installed. Ctrl-C stops every host's steps, servers and\n"
	      "runs (fabric stop) and keeps what was measured.\n"
	      "\n"
	      "  launcher      pdsh or slurm\n"
	      "  tests         what each pair measures, of lat, bw and io,\n"
	      "                comma-separated (default lat,bw)\n"
	      "  path          kernel (the only one so far)\n"
	      "  hosts         host list, pdsh's and Slurm's syntax: n[01-16],gw1\n"
	      "                (slurm: default the job's nodes)\n"
	      "  hostfile      a file of host lists, one a line ('#' comments)\n"
	      "  dev           the RDMA device on every host (default: the first\n"
	      "                with an ACTIVE port whose netdev has an address)\n"
	      "  port          the servers' port (default 18530)\n"
	      "  command       kvperf's path on the hosts (default this one's)\n"
	      "\n"
	      "probe, step and stop are what the launcher runs on each host (JSON\n"
	      "lines, read by fabric run): what the host is; its part of one round\n"
	      "(its rank the place of its address in addrs, its partner from pairs);\n"
	      "ending the steps, servers and runs of a fabric run on port PORT.\n"
	      "\n"
	      "Exit status 0 when every pair was measured within tolerance; 1 when a\n"
	      "host or link is bad, a host was left out or lost, a measurement\n"
	      "failed, or on an interruption; 2 on a usage error. The environment's\n"
	      "KVPERF_TIME_SCALE (1 to 100) stretches the allowances for slow hosts.\n"
	      "\n"
	      "Examples:\n"
	      "  salloc -N 16 kvperf fabric run launcher slurm\n"
	      "  kvperf fabric run launcher pdsh hosts 'n[01-16]' quick\n"
	      "  kvperf fabric run launcher pdsh hostfile hosts.txt tests lat,bw,io out results\n", f);
}

const struct kvperf_cmd fabric_object = {
	.name = "fabric",
	.summary = "every pair of a cluster's hosts, bad links and hosts named",
	.run = fab_dispatch,
	.help = fab_help,
};
