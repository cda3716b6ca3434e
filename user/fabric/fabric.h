/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf fabric: every pair of a host list measured, launched on the
 * hosts by a launcher the cluster already runs (pdsh, Slurm's srun).
 *
 * One host, the coordinator, runs "kvperf fabric run". Through the
 * launcher it runs the same command on every host of a step:
 *   kvperf -j fabric probe ...   each host says what it is (discovery)
 *   kvperf -j fabric step ...    each host finds its rank in the round's
 *                                address list, its partner and role, and
 *                                measures (client) or serves (server)
 *   kvperf -j fabric stop ...    each host stops the fabric's servers,
 *                                runs and steps (cleanup, Ctrl-C)
 * Each prints JSON lines, which the coordinator reads (json-c) from the
 * launcher's output. No connection of our own between hosts: the
 * launcher's and the RDMA measurements' only.
 *
 * The files: fabric_cmd.c (the words), fabric_proc.c (children and their
 * output), fabric_launch.c (the launchers' ops), fabric_host.c (probe,
 * step and stop on a host), fabric_coord.c (the coordinator),
 * fabric_report.c (the results folder).
 */
#ifndef KVPERF_FABRIC_H
#define KVPERF_FABRIC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <netinet/in.h>

#include "fabric_hosts.h"
#include "fabric_sched.h"
#include "fabric_verdict.h"

struct args;
struct kvperf;
struct json_object;

/* the tests of a pair */
enum fabric_test {
	FABRIC_LAT,	/* run lat op send */
	FABRIC_BW,	/* run bw op write, each direction */
	FABRIC_IO,	/* run io, each direction */
	FABRIC_TESTS,
};

/* the paths measured */
enum fabric_path {
	FABRIC_KERNEL,
	FABRIC_USER,
	FABRIC_PATHS,
};

#define FABRIC_PORT		18530
#define FABRIC_LAT_SIZE		64
#define FABRIC_BW_SIZE		65536
#define FABRIC_TIME_MS		2000
#define FABRIC_TIME_MAX_MS	(600 * 1000)
/* how long a client retries a partner whose server is not up yet */
#define FABRIC_CONNECT_MS	10000
#define FABRIC_ADDR_LEN		INET6_ADDRSTRLEN
#define FABRIC_WHY_LEN		256

extern const char *const fabric_test_names[FABRIC_TESTS];
extern const char *const fabric_path_names[FABRIC_PATHS];

/* How a launcher starts one command on hosts (fabric_launch.c). */
struct fabric_launcher;

/**
 * struct fabric_opts - what fabric run is asked
 * @launcher: pdsh or slurm
 * @hosts: the hosts, in rank order (pdsh: given; slurm: the job's)
 * @host_list: as given, "" for the job's (slurm)
 * @quick: one round, lower half against upper
 * @pair_file: pairs to measure instead of the schedule, or NULL
 * @tests: bit per enum fabric_test
 * @paths: bit per enum fabric_path
 * @lat_size: latency message size
 * @bw_size: bandwidth message size
 * @io_bs: run io block size
 * @time_ms: each measurement's time
 * @port: the kernel servers' port (the user path's is port + 1)
 * @dev: the RDMA device to use on every host, "" for the first active
 * @tol: the verdict's tolerances
 * @retests: most rounds of re-tests
 * @out_dir: the results folder
 * @command: the kvperf the hosts run
 * @scale: the time allowances' factor (slow hosts, emulators)
 */
struct fabric_opts {
	const struct fabric_launcher *launcher;
	struct fabric_hosts hosts;
	const char *host_list;
	bool quick;
	const char *pair_file;
	unsigned int tests;
	unsigned int paths;
	uint64_t lat_size;
	uint64_t bw_size;
	uint64_t io_bs;
	uint32_t time_ms;
	uint16_t port;
	char dev[64];
	struct fabric_tol tol;
	unsigned int retests;
	const char *out_dir;
	const char *command;
	unsigned int scale;
};

/* A child's stdout, a line at a time; its stderr, the last lines. */
#define FABRIC_ERR_LEN		2048

/**
 * struct fabric_proc - a child process and its output
 * @argv: the program and its arguments
 * @timeout_ms: stopped (SIGTERM, then SIGKILL) after this long
 * @sigfd: a signalfd whose signal stops it, or -1
 * @line: called with each line of its stdout (newline taken off)
 * @arg: @line's
 * @err: the last lines of its stderr
 * @status: its exit status; 128 + N when killed by signal N
 * @timed_out: stopped after @timeout_ms
 * @interrupted: stopped by @sigfd's signal
 */
struct fabric_proc {
	char *const *argv;
	unsigned int timeout_ms;
	int sigfd;
	void (*line)(void *arg, char *line);
	void *arg;
	char err[FABRIC_ERR_LEN];
	int status;
	bool timed_out;
	bool interrupted;
};

int fabric_proc_run(struct fabric_proc *p);

/* Shared readings (fabric_json.c). */
uint64_t fabric_now_ms(void);
const char *fabric_jstr(struct json_object *j, const char *key);
int64_t fabric_jint(struct json_object *j, const char *key, int64_t def);
struct json_object *fabric_self_json(const char *const *args,
				     unsigned int timeout_ms, int sigfd,
				     int *status, char *err, size_t errlen);
const char *fabric_self_exe(void);

/**
 * struct fabric_launcher - a launcher: how it names hosts and runs a step
 * @name: the word that chooses it
 * @prepare: what this process needs before running the launcher (its
 *	     environment), or NULL
 * @hosts: the hosts when none are given (slurm: the job's); fills @o->hosts
 * @argv: the command line running @cmd (@ncmd words) on the @n hosts
 *	  @hosts, at most @timeout_ms; NULL-terminated, malloc()ed, free with
 *	  fabric_argv_free()
 * @host_of: which host printed @j, a whole JSON object whose lines the
 *	     launcher labelled @label (pdsh: the host; srun: the task, the
 *	     object's "node" names the host); the host's rank in @o->hosts,
 *	     or -1
 */
struct fabric_launcher {
	const char *name;
	int (*prepare)(struct kvperf *kv, const struct fabric_opts *o);
	int (*hosts)(struct kvperf *kv, struct fabric_opts *o);
	char **(*argv)(const struct fabric_opts *o, const unsigned int *hosts,
		       unsigned int n, const char *const *cmd,
		       unsigned int timeout_ms);
	int (*host_of)(const struct fabric_opts *o, const char *label,
		       struct json_object *j);
};

extern const struct fabric_launcher fabric_pdsh;
extern const struct fabric_launcher fabric_slurm;
extern const struct fabric_launcher *const fabric_launchers[];

void fabric_argv_free(char **argv);

/* On each host (fabric_host.c). */
int fabric_probe(struct kvperf *kv, struct args *a);
int fabric_step(struct kvperf *kv, struct args *a);
int fabric_stop(struct kvperf *kv, struct args *a);

/* The coordinator (fabric_coord.c). */
int fabric_run(struct kvperf *kv, struct fabric_opts *o);

#endif /* KVPERF_FABRIC_H */
