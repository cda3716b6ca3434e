// SPDX-License-Identifier: GPL-2.0
/*
 * The launchers: how a command reaches the hosts of a step, as an ops
 * table (fabric.h, struct fabric_launcher). Each runs the same kvperf
 * command on every host; the hosts find their roles themselves.
 *
 * pdsh:  pdsh -R ssh -w HOSTS -- COMMAND; its lines come labelled
 *        "HOST: ", the remote shell takes the command as one string (the
 *        words are quoted for it).
 * slurm: srun over the nodes of the step, inside the job's allocation
 *        (salloc, sbatch); one task per node, lines labelled "TASK: ";
 *        which node printed a line is in the line ("node"). srun cuts
 *        long lines into pieces, each labelled: the coordinator joins
 *        them (fabric_coord.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "cli.h"
#include "fabric.h"
#include "kvperf.h"

/* pdsh's connect timeout, seconds (times the scale) */
#define LAUNCH_CONNECT_S	5
/* pdsh's fan-out: how many hosts it reaches at once */
#define LAUNCH_FANOUT		"256"

/**
 * fabric_argv_free() - free a launcher's command line
 * @argv: NULL-terminated, each word and the array malloc()ed
 */
void fabric_argv_free(char **argv)
{
	char **w;

	for (w = argv; w && *w; w++)
		free(*w);
	free(argv);
}

static char **argv_new(size_t n)
{
	return calloc(n + 1, sizeof(char *));
}

/* @words' host names, comma-separated, malloc()ed. */
static char *launch_host_csv(const struct fabric_opts *o,
			     const unsigned int *hosts, unsigned int n)
{
	size_t len = 1, at = 0;
	unsigned int i;
	char *s;

	for (i = 0; i < n; i++)
		len += strlen(o->hosts.name[hosts[i]]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < n; i++)
		at += (size_t)sprintf(s + at, "%s%s", i ? "," : "",
				      o->hosts.name[hosts[i]]);
	return s;
}

/* @w quoted for a POSIX shell when it needs to be, malloc()ed. */
static char *launch_quote(const char *w)
{
	size_t n = 3, i;
	char *q, *p;

	if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,._/:=+-@%") == strlen(w))
		return strdup(w);
	for (i = 0; w[i]; i++)
		n += w[i] == '\'' ? 4 : 1;
	q = malloc(n);
	if (!q)
		return NULL;
	p = q;
	*p++ = '\'';
	for (i = 0; w[i]; i++) {
		if (w[i] == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = w[i];
		}
	}
	*p++ = '\'';
	*p = '\0';
	return q;
}

static char **pdsh_argv(const struct fabric_opts *o, const unsigned int *hosts,
			unsigned int n, const char *const *cmd,
			unsigned int timeout_ms)
{
	char connect[16], limit[16];
	size_t ncmd = 0, i, k = 0;
	char **argv;

	while (cmd[ncmd])
		ncmd++;
	argv = argv_new(12 + ncmd);
	if (!argv)
		return NULL;
	snprintf(connect, sizeof(connect), "%u", LAUNCH_CONNECT_S * o->scale);
	snprintf(limit, sizeof(limit), "%u", timeout_ms / 1000 + 1);
	argv[k++] = strdup("pdsh");
	argv[k++] = strdup("-R");
	argv[k++] = strdup("ssh");
	argv[k++] = strdup("-t");
	argv[k++] = strdup(connect);
	argv[k++] = strdup("-u");
	argv[k++] = strdup(limit);
	argv[k++] = strdup("-f");
	argv[k++] = strdup(LAUNCH_FANOUT);
	argv[k++] = strdup("-w");
	argv[k++] = launch_host_csv(o, hosts, n);
	argv[k++] = strdup("--");
	for (i = 0; i < ncmd; i++)
		argv[k++] = launch_quote(cmd[i]);
	for (i = 0; i < k; i++) {
		if (!argv[i]) {
			fabric_argv_free(argv);
			return NULL;
		}
	}
	return argv;
}

/* pdsh labels a line with the host it ran on */
static int pdsh_host_of(const struct fabric_opts *o, const char *label,
			struct json_object *j)
{
	(void)j;
	return fabric_hosts_find(&o->hosts, label);
}

/*
 * ssh notices a host that died (no FIN, no RST: a crash, a power cut) by
 * its keepalives: within about 3 times 2 seconds, times the scale, not
 * TCP's minutes. On top of what the user's PDSH_SSH_ARGS_APPEND says.
 */
static int pdsh_prepare(struct kvperf *kv, const struct fabric_opts *o)
{
	const char *have = getenv("PDSH_SSH_ARGS_APPEND");
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s%s-o ServerAliveInterval=%u -o ServerAliveCountMax=3",
		 have ? have : "", have && *have ? " " : "", 2 * o->scale);
	if (setenv("PDSH_SSH_ARGS_APPEND", buf, 1)) {
		kvperf_errorf(kv, "setenv: %s", strerror(errno));
		return KVPERF_EXIT_ERROR;
	}
	return 0;
}

static int pdsh_hosts(struct kvperf *kv, struct fabric_opts *o)
{
	if (!o->hosts.n)
		return kvperf_usage(kv, "fabric",
				    "launcher pdsh needs the hosts: hosts LIST or hostfile FILE");
	return 0;
}

const struct fabric_launcher fabric_pdsh = {
	.name = "pdsh",
	.prepare = pdsh_prepare,
	.hosts = pdsh_hosts,
	.argv = pdsh_argv,
	.host_of = pdsh_host_of,
};

static char **slurm_argv(const struct fabric_opts *o, const unsigned int *hosts,
			 unsigned int n, const char *const *cmd,
			 unsigned int timeout_ms)
{
	char nodes[32], tasks[32], limit[32];
	size_t ncmd = 0, i, k = 0;
	char *list, **argv;

	while (cmd[ncmd])
		ncmd++;
	argv = argv_new(12 + ncmd);
	list = launch_host_csv(o, hosts, n);
	if (!argv || !list) {
		free(argv);
		free(list);
		return NULL;
	}
	snprintf(nodes, sizeof(nodes), "--nodes=%u", n);
	snprintf(tasks, sizeof(tasks), "--ntasks=%u", n);
	/* srun's --time is in minutes, at least 1 */
	snprintf(limit, sizeof(limit), "--time=%u",
		 timeout_ms / 60000 + 1);
	argv[k++] = strdup("srun");
	argv[k++] = strdup(nodes);
	argv[k++] = strdup(tasks);
	argv[k++] = strdup("--ntasks-per-node=1");
	argv[k++] = strdup("--kill-on-bad-exit=0");
	argv[k++] = strdup("--label");
	argv[k++] = strdup(limit);
	argv[k++] = strdup("--nodelist");
	argv[k++] = list;
	for (i = 0; i < ncmd; i++)
		argv[k++] = strdup(cmd[i]);
	for (i = 0; i < k; i++) {
		if (!argv[i]) {
			fabric_argv_free(argv);
			return NULL;
		}
	}
	return argv;
}

/* srun labels a line with its task; the line names its node */
static int slurm_host_of(const struct fabric_opts *o, const char *label,
			 struct json_object *j)
{
	struct json_object *v;

	(void)label;
	if (!json_object_object_get_ex(j, "node", &v) ||
	    !json_object_is_type(v, json_type_string))
		return -1;
	return fabric_hosts_find(&o->hosts, json_object_get_string(v));
}

struct slurm_names {
	struct fabric_hosts *h;
	char err[FABRIC_WHY_LEN];
};

static void slurm_name(void *arg, char *line)
{
	struct slurm_names *s = arg;

	if (*line && !s->err[0])
		fabric_hosts_add(s->h, line, s->err, sizeof(s->err));
}

/* The job's nodes, from scontrol show hostnames, in its order. */
static int slurm_hosts(struct kvperf *kv, struct fabric_opts *o)
{
	const char *job = getenv("SLURM_JOB_ID");
	const char *nodes = getenv("SLURM_JOB_NODELIST");
	char *argv[5] = { "scontrol", "show", "hostnames", (char *)nodes, NULL };
	struct slurm_names s = { .h = &o->hosts };
	struct fabric_proc p = {
		.argv = argv, .timeout_ms = 30000, .sigfd = -1,
		.line = slurm_name, .arg = &s,
	};

	if (!job || !*job) {
		kvperf_errorf(kv, "launcher slurm: not inside a Slurm allocation (SLURM_JOB_ID is not set): run kvperf fabric under salloc or sbatch");
		return KVPERF_EXIT_USAGE;
	}
	if (o->hosts.n)
		return 0;
	if (!nodes || !*nodes) {
		kvperf_errorf(kv, "launcher slurm: job %s has no SLURM_JOB_NODELIST", job);
		return KVPERF_EXIT_ERROR;
	}
	if (fabric_proc_run(&p) || p.status) {
		kvperf_errorf(kv, "launcher slurm: scontrol show hostnames %s failed: %s",
			      nodes, p.err[0] ? p.err : "no message");
		return KVPERF_EXIT_ERROR;
	}
	if (s.err[0]) {
		kvperf_errorf(kv, "launcher slurm: the job's nodes: %s", s.err);
		return KVPERF_EXIT_ERROR;
	}
	return 0;
}

const struct fabric_launcher fabric_slurm = {
	.name = "slurm",
	.hosts = slurm_hosts,
	.argv = slurm_argv,
	.host_of = slurm_host_of,
};

const struct fabric_launcher *const fabric_launchers[] = {
	&fabric_pdsh,
	&fabric_slurm,
	NULL,
};
