// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf fabric on each host, as the launcher starts it: probe (what this
 * host is), step (its part of one round) and stop (the fabric's servers,
 * runs and steps on this host, ended). Each prints JSON lines, one
 * object each, with "kvperf_fabric" saying what the line is and "node"
 * the host's name (Slurm's for its node, else this host's).
 *
 * The measurements and servers are kvperf's own commands, run as
 * children of this process (fabric_self_json()): what a step measures is
 * exactly what "kvperf run" measures by hand.
 *
 * A step's pairs measure in two phases: in the first the lower rank of
 * a pair is the client (latency, then bandwidth and I/O towards the
 * other), the higher its server; in the second the roles swap (bandwidth
 * and I/O the other way). A client retries a partner whose server is not
 * listening yet, for FABRIC_CONNECT_MS times the scale; a server serves
 * until its partner's client has made and closed the runs of the phase,
 * or until the step's deadline. A partner that does not answer within
 * that time (as client or server) is taken for gone: the step measures
 * nothing more and ends.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <json-c/json.h>

#include "args.h"
#include "cli.h"
#include "fabric.h"
#include "kvperf.h"
#include "version.h"

/* a kvperf command of a step (server start, show, stop) ends within */
#define HOST_CMD_MS		20000
/* how often a server's counters are read */
#define HOST_POLL_MS		250
/* a stopped step gets this long to end */
#define HOST_STOP_MS		5000

const char *const fabric_test_names[FABRIC_TESTS] = {
	[FABRIC_LAT]	= "lat",
	[FABRIC_BW]	= "bw",
	[FABRIC_IO]	= "io",
};

const char *const fabric_path_names[FABRIC_PATHS] = {
	[FABRIC_KERNEL]	= "kernel",
	[FABRIC_USER]	= "user",
};

/* This host's name for the coordinator: Slurm's, else the host name. */
static const char *host_node(void)
{
	static char name[FABRIC_HOST_LEN + 1];
	const char *s = getenv("SLURMD_NODENAME");

	if (s && *s)
		return s;
	if (gethostname(name, sizeof(name) - 1))
		snprintf(name, sizeof(name), "unknown");
	return name;
}

/* A JSON line, begun: {"kvperf_fabric": WHAT, "node": ...}. */
static struct json_object *host_line(const char *what)
{
	struct json_object *j = json_object_new_object();

	json_object_object_add(j, "kvperf_fabric",
			       json_object_new_string(what));
	json_object_object_add(j, "node", json_object_new_string(host_node()));
	return j;
}

static void host_print(struct kvperf *kv, struct json_object *j)
{
	fprintf(kv->out, "%s\n",
		json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	fflush(kv->out);
	json_object_put(j);
}

/* SIGINT, SIGTERM, SIGHUP and SIGPIPE, taken on a signalfd. */
static int host_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &set, old);
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static bool host_signalled(int sfd)
{
	struct signalfd_siginfo si;

	return sfd >= 0 && read(sfd, &si, sizeof(si)) == sizeof(si);
}

/* The first address of @netdev, IPv4 before IPv6, into @addr. */
static bool host_netdev_addr(const char *netdev, char *addr, size_t len)
{
	struct ifaddrs *ifa, *i;
	bool found = false;
	int fam;

	if (getifaddrs(&ifa))
		return false;
	for (fam = AF_INET; !found; fam = AF_INET6) {
		for (i = ifa; i && !found; i = i->ifa_next) {
			const void *a;

			if (!i->ifa_addr || i->ifa_addr->sa_family != fam ||
			    strcmp(i->ifa_name, netdev))
				continue;
			a = fam == AF_INET ?
			    (const void *)&((struct sockaddr_in *)i->ifa_addr)->sin_addr :
			    (const void *)&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
			if (fam == AF_INET6 &&
			    IN6_IS_ADDR_LINKLOCAL((const struct in6_addr *)a))
				continue;
			found = inet_ntop(fam, a, addr, (socklen_t)len);
		}
		if (fam == AF_INET6)
			break;
	}
	freeifaddrs(ifa);
	return found;
}

/* Is @addr (text) an address of this host? */
static bool host_addr_local(const char *addr)
{
	unsigned char want[16], have[16];
	struct ifaddrs *ifa, *i;
	bool v6 = strchr(addr, ':'), found = false;

	if (inet_pton(v6 ? AF_INET6 : AF_INET, addr, want) != 1 ||
	    getifaddrs(&ifa))
		return false;
	for (i = ifa; i && !found; i = i->ifa_next) {
		if (!i->ifa_addr ||
		    i->ifa_addr->sa_family != (v6 ? AF_INET6 : AF_INET))
			continue;
		if (v6)
			memcpy(have, &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, 16);
		else
			memcpy(have, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, 4);
		found = !memcmp(want, have, v6 ? 16 : 4);
	}
	freeifaddrs(ifa);
	return found;
}

/*
 * The port probe chooses: on @dev ("" any), the first port ACTIVE with a
 * netdev that has an address. Fills @choice; NULL, or why none.
 */
static const char *host_choose(struct json_object *devs, const char *dev,
			       struct json_object *choice)
{
	const char *why = dev[0] ? "device not found" :
			  "no RDMA device";
	size_t i, k;

	for (i = 0; devs && i < json_object_array_length(devs); i++) {
		struct json_object *d = json_object_array_get_idx(devs, i);
		struct json_object *ports;
		const char *name = fabric_jstr(d, "ifname");

		if (!name || (dev[0] && strcmp(name, dev)))
			continue;
		why = "no ACTIVE port";
		if (!json_object_object_get_ex(d, "ports", &ports))
			continue;
		for (k = 0; k < json_object_array_length(ports); k++) {
			struct json_object *p = json_object_array_get_idx(ports, k);
			const char *state = fabric_jstr(p, "state");
			const char *netdev = fabric_jstr(p, "netdev");
			char addr[FABRIC_ADDR_LEN];

			if (!state || strcasecmp(state, "active"))
				continue;
			why = "no address on the ACTIVE port's netdev";
			if (!netdev || !host_netdev_addr(netdev, addr,
							 sizeof(addr)))
				continue;
			json_object_object_add(choice, "dev",
					       json_object_new_string(name));
			json_object_object_add(choice, "port",
					       json_object_new_int64(fabric_jint(p, "port", -1)));
			json_object_object_add(choice, "netdev",
					       json_object_new_string(netdev));
			json_object_object_add(choice, "addr",
					       json_object_new_string(addr));
			json_object_object_add(choice, "state",
					       json_object_new_string(state));
			json_object_object_add(choice, "active_mtu",
					       json_object_new_int64(fabric_jint(p, "active_mtu", -1)));
			json_object_object_add(choice, "rate_mbps",
					       json_object_new_int64(fabric_jint(p, "rate_mbps", -1)));
			return NULL;
		}
	}
	return why;
}

/* Words of probe, step and stop: KEYWORD VALUE pairs. */
struct host_words {
	const char *round, *addrs, *pairs, *tests, *paths, *lat_size;
	const char *bw_size, *io_bs, *time, *port, *connect, *deadline;
	const char *dev;
};

static int host_parse(struct kvperf *kv, struct args *a, const char *cmd,
		      struct host_words *w, const char *allowed)
{
	static const char *const names[] = {
		"round", "addrs", "pairs", "tests", "paths", "lat-size",
		"bw-size", "io-bs", "time", "port", "connect", "deadline",
		"dev",
	};
	const char **slot = (const char **)w;
	const char *k, *v;
	size_t i;

	memset(w, 0, sizeof(*w));
	while ((k = args_next(a))) {
		for (i = 0; i < ARRAY_SIZE(names); i++)
			if (!strcmp(k, names[i]))
				break;
		if (i == ARRAY_SIZE(names) || !strstr(allowed, names[i]))
			return kvperf_usage(kv, "fabric",
					    "fabric %s: unknown word '%s'",
					    cmd, k);
		v = args_next(a);
		if (!v)
			return kvperf_usage(kv, "fabric",
					    "fabric %s: %s needs a value",
					    cmd, k);
		slot[i] = v;
	}
	return 0;
}

static int host_u32(struct kvperf *kv, const char *cmd, const char *name,
		    const char *s, uint32_t min, uint32_t max, uint32_t *v)
{
	if (!s)
		return kvperf_usage(kv, "fabric", "fabric %s: %s missing",
				    cmd, name);
	if (parse_u32(s, v) || *v < min || *v > max)
		return kvperf_usage(kv, "fabric",
				    "fabric %s: %s '%s' is not %u to %u",
				    cmd, name, s, min, max);
	return 0;
}

/**
 * fabric_probe() - kvperf fabric probe [dev NAME]: what this host is
 * @kv: the invocation
 * @a: the words after probe
 *
 * Prints one line: the tool's version, the kernel's release, whether the
 * module is loaded, the devices it sees (as kvperf -j dev prints them),
 * and the port chosen ("choice": device, port, netdev, address, MTU,
 * rate), or "error" saying why there is none.
 *
 * Return: 0; 2 on a usage error.
 */
int fabric_probe(struct kvperf *kv, struct args *a)
{
	static const char *const dev_args[] = { "dev", NULL };
	struct json_object *j = host_line("probe"), *devs, *choice;
	struct host_words w;
	struct utsname u;
	char err[FABRIC_WHY_LEN];
	const char *why;
	struct stat st;
	int ret, status;

	ret = host_parse(kv, a, "probe", &w, "dev");
	if (ret) {
		json_object_put(j);
		return ret;
	}
	json_object_object_add(j, "version",
			       json_object_new_string(KVPERF_VERSION));
	if (!uname(&u))
		json_object_object_add(j, "kernel",
				       json_object_new_string(u.release));
	json_object_object_add(j, "module",
			       json_object_new_boolean(!stat("/sys/module/kvperf",
							     &st)));
	devs = fabric_self_json(dev_args, HOST_CMD_MS, -1, &status, err,
				sizeof(err));
	if (!devs || status) {
		json_object_object_add(j, "error", json_object_new_string(
			status == KVPERF_EXIT_NOMODULE ?
			"the kvperf module is not loaded" : err));
		json_object_put(devs);
		host_print(kv, j);
		return 0;
	}
	json_object_object_add(j, "devices", devs);
	choice = json_object_new_object();
	why = host_choose(devs, w.dev ? w.dev : "", choice);
	if (why) {
		json_object_put(choice);
		snprintf(err, sizeof(err), "%s%s%s", why,
			 w.dev ? " on " : "", w.dev ? w.dev : "");
		json_object_object_add(j, "error",
				       json_object_new_string(err));
	} else {
		json_object_object_add(j, "choice", choice);
	}
	host_print(kv, j);
	return 0;
}

/* One step, parsed. */
struct host_step {
	uint32_t round;
	unsigned int naddrs;
	char (*addrs)[FABRIC_ADDR_LEN];
	unsigned int self;
	int partner;		/* -1: this host sits the round out */
	unsigned int tests, paths;
	uint32_t lat_size, bw_size, io_bs, time_ms, port;
	uint32_t connect_ms, deadline_ms;
	uint64_t start_ms;
	int sfd;
	bool stopped;
	bool partner_gone;	/* its client or server never answered */
};

/* "lat,bw" against @names into a bit mask; 0 for a word unknown. */
static unsigned int host_mask(const char *list, const char *const *names,
			      unsigned int n)
{
	char buf[128], *tok, *save;
	unsigned int mask = 0, i;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < n && strcmp(tok, names[i]); i++)
			;
		if (i == n)
			return 0;
		mask |= 1u << i;
	}
	return mask;
}

static int host_step_parse(struct kvperf *kv, struct args *a,
			   struct host_step *s)
{
	struct host_words w;
	char *list, *tok, *save;
	unsigned int i;
	int ret;

	ret = host_parse(kv, a, "step", &w,
			 "round addrs pairs tests paths lat-size bw-size io-bs time port connect deadline");
	if (ret)
		return ret;
	ret = host_u32(kv, "step", "round", w.round, 0, 1000000, &s->round) ?:
	      host_u32(kv, "step", "lat-size", w.lat_size, 1, 1 << 30, &s->lat_size) ?:
	      host_u32(kv, "step", "bw-size", w.bw_size, 1, 1 << 30, &s->bw_size) ?:
	      host_u32(kv, "step", "io-bs", w.io_bs, 512, 1 << 30, &s->io_bs) ?:
	      host_u32(kv, "step", "time", w.time, 1, FABRIC_TIME_MAX_MS, &s->time_ms) ?:
	      host_u32(kv, "step", "port", w.port, 1, 65534, &s->port) ?:
	      host_u32(kv, "step", "connect", w.connect, 1, 3600000, &s->connect_ms) ?:
	      host_u32(kv, "step", "deadline", w.deadline, 1, 86400000, &s->deadline_ms);
	if (ret)
		return ret;
	s->tests = w.tests ? host_mask(w.tests, fabric_test_names, FABRIC_TESTS) : 0;
	if (!s->tests)
		return kvperf_usage(kv, "fabric", "fabric step: tests '%s' is not a list of lat, bw, io",
				    w.tests ? w.tests : "");
	s->paths = w.paths ? host_mask(w.paths, fabric_path_names, FABRIC_PATHS) : 0;
	if (!s->paths)
		return kvperf_usage(kv, "fabric", "fabric step: paths '%s' is not a list of kernel, user",
				    w.paths ? w.paths : "");
	if (!w.addrs || !w.pairs)
		return kvperf_usage(kv, "fabric", "fabric step: addrs and pairs are needed");
	/* the addresses, in rank order ("-" for a host not measured) */
	list = strdup(w.addrs);
	if (!list)
		return KVPERF_EXIT_ERROR;
	s->addrs = calloc(FABRIC_HOSTS_MAX, sizeof(*s->addrs));
	s->naddrs = 0;
	s->self = UINT32_MAX;
	for (tok = strtok_r(list, ",", &save); s->addrs && tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (s->naddrs == FABRIC_HOSTS_MAX || strlen(tok) >= FABRIC_ADDR_LEN) {
			free(list);
			return kvperf_usage(kv, "fabric", "fabric step: addrs: more than %d or one too long",
					    FABRIC_HOSTS_MAX);
		}
		snprintf(s->addrs[s->naddrs], FABRIC_ADDR_LEN, "%s", tok);
		if (strcmp(tok, "-") && host_addr_local(tok)) {
			if (s->self != UINT32_MAX) {
				free(list);
				return kvperf_usage(kv, "fabric", "fabric step: two of the addresses are this host's (%s, %s)",
						    s->addrs[s->self], tok);
			}
			s->self = s->naddrs;
		}
		s->naddrs++;
	}
	free(list);
	if (!s->addrs)
		return KVPERF_EXIT_ERROR;
	if (s->self == UINT32_MAX) {
		kvperf_errorf(kv, "fabric step: none of the round's addresses is this host's (%s)",
			      host_node());
		return KVPERF_EXIT_ERROR;
	}
	/* the pairs: RANK-RANK, comma-separated */
	s->partner = -1;
	list = strdup(w.pairs);
	if (!list)
		return KVPERF_EXIT_ERROR;
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned int x, y;
		char extra;

		if (sscanf(tok, "%u-%u%c", &x, &y, &extra) != 2 ||
		    x >= s->naddrs || y >= s->naddrs || x == y) {
			free(list);
			return kvperf_usage(kv, "fabric", "fabric step: pair '%s' is not RANK-RANK of two of the %u addresses",
					    tok, s->naddrs);
		}
		for (i = 0; i < 2; i++) {
			unsigned int me = i ? y : x, other = i ? x : y;

			if (me == s->self)
				s->partner = (int)other;
		}
	}
	free(list);
	return 0;
}

/* The run command of @test towards the partner, for @path. */
static void host_run_args(const struct host_step *s, enum fabric_test test,
			  enum fabric_path path, const char **argv,
			  char bufs[4][32])
{
	unsigned int n = 0;

	snprintf(bufs[0], sizeof(bufs[0]), "%u",
		 s->port + (path == FABRIC_USER));
	snprintf(bufs[1], sizeof(bufs[1]), "%u",
		 test == FABRIC_LAT ? s->lat_size :
		 test == FABRIC_BW ? s->bw_size : s->io_bs);
	snprintf(bufs[2], sizeof(bufs[2]), "%ums", s->time_ms);
	argv[n++] = "run";
	argv[n++] = fabric_test_names[test];
	if (test != FABRIC_IO) {
		argv[n++] = "op";
		argv[n++] = test == FABRIC_LAT ? "send" : "write";
		argv[n++] = "size";
	} else {
		argv[n++] = "bs";
	}
	argv[n++] = bufs[1];
	argv[n++] = "addr";
	argv[n++] = s->addrs[s->partner];
	argv[n++] = "port";
	argv[n++] = bufs[0];
	argv[n++] = "time";
	argv[n++] = bufs[2];
	argv[n++] = "path";
	argv[n++] = fabric_path_names[path];
	argv[n] = NULL;
}

/* Is @err a failure to reach a server not listening yet? */
static bool host_not_up(const char *err)
{
	static const char *const words[] = {
		"reject", "unreachable", "refused", "resolv", "route",
		"timed out connecting",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (strcasestr(err, words[i]))
			return true;
	return false;
}

static bool host_late(const struct host_step *s)
{
	return fabric_now_ms() - s->start_ms >= s->deadline_ms;
}

static unsigned int host_left_ms(const struct host_step *s)
{
	uint64_t used = fabric_now_ms() - s->start_ms;

	return used >= s->deadline_ms ? 1 : (unsigned int)(s->deadline_ms - used);
}

/*
 * A kernel run, read, is deleted: the module keeps a bounded number of
 * runs, and a fabric run makes many.
 */
static void host_delete_run(struct json_object *run)
{
	const char *argv[4] = { "run", "delete", NULL, NULL };
	char id[24], err[FABRIC_WHY_LEN];
	const char *path = fabric_jstr(run, "path");
	int status;

	if (fabric_jint(run, "id", -1) <= 0 || !path || strcmp(path, "kernel"))
		return;
	snprintf(id, sizeof(id), "%lld", (long long)fabric_jint(run, "id", -1));
	argv[2] = id;
	json_object_put(fabric_self_json(argv, HOST_CMD_MS, -1, &status, err,
					 sizeof(err)));
}

/* The client's part of a phase: each test on each path, a line each. */
static void host_client(struct kvperf *kv, struct host_step *s,
			unsigned int phase)
{
	unsigned int t, p;

	for (t = 0; t < FABRIC_TESTS && !s->stopped && !s->partner_gone; t++) {
		if (!(s->tests & (1u << t)) || (phase && t == FABRIC_LAT))
			continue;
		for (p = 0; p < FABRIC_PATHS && !s->stopped && !s->partner_gone;
		     p++) {
			struct json_object *line, *run = NULL;
			const char *argv[24];
			char bufs[4][32], err[FABRIC_WHY_LEN] = "";
			uint64_t first = fabric_now_ms();
			unsigned int tries = 0;
			int status = -1;

			if (!(s->paths & (1u << p)))
				continue;
			host_run_args(s, t, p, argv, bufs);
			for (;;) {
				tries++;
				host_delete_run(run);
				json_object_put(run);
				run = fabric_self_json(argv, host_left_ms(s),
						       s->sfd, &status, err,
						       sizeof(err));
				if (!status && run)
					break;
				if (!strcmp(err, "interrupted")) {
					s->stopped = true;
					break;
				}
				if (!host_not_up(err) || host_late(s))
					break;
				if (fabric_now_ms() - first >= s->connect_ms) {
					s->partner_gone = true;
					break;
				}
				usleep(HOST_POLL_MS * 1000);
			}
			host_delete_run(run);
			line = host_line("result");
			json_object_object_add(line, "round", json_object_new_int64(s->round));
			json_object_object_add(line, "phase", json_object_new_int64(phase));
			json_object_object_add(line, "client", json_object_new_int64(s->self));
			json_object_object_add(line, "server", json_object_new_int64(s->partner));
			json_object_object_add(line, "test", json_object_new_string(fabric_test_names[t]));
			json_object_object_add(line, "path", json_object_new_string(fabric_path_names[p]));
			json_object_object_add(line, "status", json_object_new_int64(status));
			json_object_object_add(line, "tries", json_object_new_int64(tries));
			if (status || !run)
				json_object_object_add(line, "error",
						       json_object_new_string(err[0] ? err : "failed"));
			if (run)
				json_object_object_add(line, "run", run);
			host_print(kv, line);
		}
	}
}

/* The runs a client makes in @phase: one connection each. */
static unsigned int host_expected(const struct host_step *s, unsigned int phase,
				  enum fabric_path path)
{
	unsigned int t, n = 0;

	if (!(s->paths & (1u << path)))
		return 0;
	for (t = 0; t < FABRIC_TESTS; t++)
		if ((s->tests & (1u << t)) && !(phase && t == FABRIC_LAT))
			n++;
	return n;
}

/* server show ID: its accepted count and open connections, or false. */
static bool host_server_counts(struct host_step *s, const char *id,
			       int64_t *accepted, int64_t *conns)
{
	const char *argv[4] = { "server", "show", id, NULL };
	char err[FABRIC_WHY_LEN];
	struct json_object *j, *srv;
	int status;

	j = fabric_self_json(argv, HOST_CMD_MS, s->sfd, &status, err,
			     sizeof(err));
	if (!strcmp(err, "interrupted"))
		s->stopped = true;
	srv = j && json_object_is_type(j, json_type_array) &&
	      json_object_array_length(j) ? json_object_array_get_idx(j, 0) : j;
	*accepted = fabric_jint(srv, "accepted", -1);
	*conns = fabric_jint(srv, "conn_count", -1);
	json_object_put(j);
	return !status && *accepted >= 0 && *conns >= 0;
}

/*
 * The server's part of a phase: a kernel listener on this host's address
 * that admits the partner only, until the partner's client has made its
 * runs and closed them.
 */
static void host_server(struct kvperf *kv, struct host_step *s,
			unsigned int phase)
{
	char port[16], allow[FABRIC_ADDR_LEN + 8], id[24] = "";
	const char *argv[16];
	char err[FABRIC_WHY_LEN] = "";
	unsigned int want = host_expected(s, phase, FABRIC_KERNEL);
	int64_t accepted = 0, conns = 0;
	struct json_object *j, *line;
	uint64_t begin = fabric_now_ms();
	bool complete = false, absent = false;
	int status;

	if (!want)
		return;
	snprintf(port, sizeof(port), "%u", s->port);
	snprintf(allow, sizeof(allow), "%s/%d", s->addrs[s->partner],
		 strchr(s->addrs[s->partner], ':') ? 128 : 32);
	argv[0] = "server";
	argv[1] = "start";
	argv[2] = "addr";
	argv[3] = s->addrs[s->self];
	argv[4] = "port";
	argv[5] = port;
	argv[6] = "allow";
	argv[7] = allow;
	argv[8] = NULL;
	j = fabric_self_json(argv, HOST_CMD_MS, s->sfd, &status, err,
			     sizeof(err));
	if (!status && fabric_jint(j, "id", -1) > 0)
		snprintf(id, sizeof(id), "%lld", (long long)fabric_jint(j, "id", -1));
	json_object_put(j);
	if (!strcmp(err, "interrupted"))
		s->stopped = true;
	while (id[0] && !s->stopped && !host_late(s)) {
		if (host_server_counts(s, id, &accepted, &conns) &&
		    accepted >= want && !conns) {
			complete = true;
			break;
		}
		/* a partner that never comes (gone, stopped) is not waited for */
		if (!accepted && fabric_now_ms() - begin >= s->connect_ms) {
			absent = true;
			s->partner_gone = true;
			break;
		}
		if (host_signalled(s->sfd))
			s->stopped = true;
		else
			usleep(HOST_POLL_MS * 1000);
	}
	if (id[0]) {
		const char *stop[4] = { "server", "stop", id, NULL };
		char serr[FABRIC_WHY_LEN];
		int sstatus;

		json_object_put(fabric_self_json(stop, HOST_CMD_MS, -1, &sstatus,
						 serr, sizeof(serr)));
	}
	line = host_line("served");
	json_object_object_add(line, "round", json_object_new_int64(s->round));
	json_object_object_add(line, "phase", json_object_new_int64(phase));
	json_object_object_add(line, "server", json_object_new_int64(s->self));
	json_object_object_add(line, "client", json_object_new_int64(s->partner));
	json_object_object_add(line, "accepted", json_object_new_int64(accepted));
	json_object_object_add(line, "expected", json_object_new_int64(want));
	json_object_object_add(line, "complete", json_object_new_boolean(complete));
	if (!id[0])
		json_object_object_add(line, "error", json_object_new_string(
			err[0] ? err : "the server did not start"));
	else if (!complete)
		json_object_object_add(line, "error", json_object_new_string(
			s->stopped ? "stopped" : absent ?
			"the partner's client did not connect" :
			"the partner's runs did not all come before the deadline"));
	host_print(kv, line);
}

/**
 * fabric_step() - one host's part of a round
 * @kv: the invocation
 * @a: round R addrs A0,A1,... pairs I-J,... tests LIST paths LIST
 *     lat-size N bw-size N io-bs N time MS port P connect MS deadline MS
 *
 * Finds this host's rank (the place of its address in addrs) and its
 * partner in pairs, then measures or serves, phase by phase; one line per
 * measurement ("result") and per served phase ("served"), and at the end
 * one "done". A host in no pair prints only "done" (partner -1).
 *
 * Return: 0, 1 when stopped by a signal or on an error, 2 on a usage
 * error.
 */
int fabric_step(struct kvperf *kv, struct args *a)
{
	struct host_step s = { 0 };
	struct json_object *line;
	sigset_t old;
	unsigned int phase;
	int ret;

	ret = host_step_parse(kv, a, &s);
	if (ret) {
		free(s.addrs);
		return ret;
	}
	s.start_ms = fabric_now_ms();
	s.sfd = host_signals(&old);
	for (phase = 0; s.partner >= 0 && phase < 2 && !s.stopped &&
	     !s.partner_gone; phase++) {
		bool client = (s.self < (unsigned int)s.partner) == !phase;

		if (phase && !(s.tests & ~(1u << FABRIC_LAT)))
			break;
		if (client)
			host_client(kv, &s, phase);
		else
			host_server(kv, &s, phase);
	}
	line = host_line("done");
	json_object_object_add(line, "round", json_object_new_int64(s.round));
	json_object_object_add(line, "rank", json_object_new_int64(s.self));
	json_object_object_add(line, "partner", json_object_new_int64(s.partner));
	json_object_object_add(line, "stopped", json_object_new_boolean(s.stopped));
	json_object_object_add(line, "partner_gone",
			       json_object_new_boolean(s.partner_gone));
	host_print(kv, line);
	if (s.sfd >= 0)
		close(s.sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(s.addrs);
	return s.stopped ? KVPERF_EXIT_ERROR : KVPERF_EXIT_OK;
}

/*
 * Is process @pid a kvperf fabric step on @port (its arguments), of this
 * user (a root's stop does not reach another user's steps)?
 */
static bool host_is_step(pid_t pid, const char *port)
{
	char path[64], buf[8192];
	bool step = false, fabric = false, on_port = false;
	const char *w, *prev = "";
	struct stat st;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st) || st.st_uid != getuid())
		return false;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (w = buf; w < buf + n; w += strlen(w) + 1) {
		fabric |= !strcmp(w, "fabric");
		step |= fabric && !strcmp(w, "step");
		on_port |= !strcmp(prev, "port") && !strcmp(w, port);
		prev = w;
	}
	return fabric && step && on_port;
}

/* SIGTERM the steps on @port, wait for them; how many there were. */
static unsigned int host_stop_steps(const char *port)
{
	pid_t pids[256];
	unsigned int n = 0, i, left;
	struct dirent *de;
	uint64_t until;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < ARRAY_SIZE(pids)) {
		pid_t pid = (pid_t)atoi(de->d_name);

		if (pid > 0 && pid != getpid() && host_is_step(pid, port))
			pids[n++] = pid;
	}
	closedir(d);
	for (i = 0; i < n; i++)
		kill(pids[i], SIGTERM);
	until = fabric_now_ms() + HOST_STOP_MS;
	do {
		for (left = 0, i = 0; i < n; i++)
			left += !kill(pids[i], 0) && host_is_step(pids[i], port);
		if (left)
			usleep(100 * 1000);
	} while (left && fabric_now_ms() < until);
	for (i = 0; left && i < n; i++)
		if (host_is_step(pids[i], port))
			kill(pids[i], SIGKILL);
	return n;
}

/* Stop (server) or delete (run) each of @what whose port is @port. */
static unsigned int host_stop_kernel(const char *what, const char *verb,
				     uint32_t port)
{
	const char *show[3] = { what, "show", NULL };
	char err[FABRIC_WHY_LEN], id[24];
	struct json_object *j;
	unsigned int n = 0;
	size_t i;
	int status;

	j = fabric_self_json(show, HOST_CMD_MS, -1, &status, err, sizeof(err));
	for (i = 0; j && json_object_is_type(j, json_type_array) &&
	     i < json_object_array_length(j); i++) {
		struct json_object *o = json_object_array_get_idx(j, i);
		int64_t p = fabric_jint(o, "port", -1);
		const char *cmd[4] = { what, verb, id, NULL };

		if (p != port && p != port + 1)
			continue;
		snprintf(id, sizeof(id), "%lld", (long long)fabric_jint(o, "id", -1));
		json_object_put(fabric_self_json(cmd, HOST_CMD_MS, -1, &status,
						 err, sizeof(err)));
		n += !status;
	}
	json_object_put(j);
	return n;
}

/**
 * fabric_stop() - end what a fabric run left on this host
 * @kv: the invocation
 * @a: port P: the fabric's port
 *
 * Stops the steps on port P (SIGTERM; SIGKILL after HOST_STOP_MS), then
 * the kernel's servers on P and P + 1 and its runs towards them. One line
 * says how many of each.
 *
 * Return: 0, 2 on a usage error.
 */
int fabric_stop(struct kvperf *kv, struct args *a)
{
	struct json_object *line;
	struct host_words w;
	uint32_t port;
	int ret;

	ret = host_parse(kv, a, "stop", &w, "port");
	if (!ret)
		ret = host_u32(kv, "stop", "port", w.port, 1, 65534, &port);
	if (ret)
		return ret;
	line = host_line("stopped");
	json_object_object_add(line, "steps",
			       json_object_new_int64(host_stop_steps(w.port)));
	json_object_object_add(line, "servers",
			       json_object_new_int64(host_stop_kernel("server", "stop", port)));
	json_object_object_add(line, "runs",
			       json_object_new_int64(host_stop_kernel("run", "delete", port)));
	host_print(kv, line);
	return 0;
}
