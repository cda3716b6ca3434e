// SPDX-License-Identifier: GPL-2.0
/*
 * Running a compare. Every measurement is a child process whose output
 * goes to a file in a private temporary directory: this tool itself
 * ("kvperf -j run ... path kernel|user", read back as JSON) or a perftest
 * client (its table read back). The servers are children too, or kvperf
 * servers in the kernel started through the tool. The children run in
 * their own process groups and die with us (PR_SET_PDEATHSIG); SIGINT
 * and SIGTERM are taken synchronously, passed on to the measurement
 * running, and end the compare after cleaning up.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/kvperf.h>

#include "args.h"
#include "compare.h"
#include "compare_exec.h"
#include "jsonread.h"
#include "kvperf.h"
#include "perftest.h"
#include "plot.h"
#include "print.h"

#define CMP_EXE			"/proc/self/exe"
/* a measurement that takes longer than this per size is killed */
#define CMP_TIMEOUT_MS		(600 * 1000)
/* a server or a measurement told to stop gets this long before SIGKILL */
#define CMP_KILL_GRACE_MS	5000
/* how long the user-path server may take to say it listens */
#define CMP_USER_SERVER_MS	5000
/* a perftest server needs a moment before it accepts (up to 2 s on TCG) */
#define CMP_PERFTEST_START_MS	1000
#define CMP_PERFTEST_TRIES	5
#define CMP_PERFTEST_MIN_MS	(60 * 1000)
#define CMP_RETRY_MS		1000

struct cmp_exec {
	struct kvperf *kv;
	const struct cmp_opts *o;
	struct cmp_result *r;
	char dir[PATH_MAX];
	char out[PATH_MAX];
	char err[PATH_MAX];
	char srv_out[PATH_MAX];
	char usrv_out[PATH_MAX];
	sigset_t old_mask;
	sigset_t wait_set;
	bool stop;
	/* a kvperf server this compare started, to stop at the end */
	long kernel_server;
	pid_t user_server;
	char netdev[IF_NAMESIZE];
	char perftest_prog[PATH_MAX];
	/* perftest reaches ADDR, an IPv6 address, with --ipv6-addr */
	bool perftest_ipv6;
	/* the perftest note, when it names perftest's version */
	char perftest_note[160];
	bool progress;
	/* an exit code that ends the compare: the children cannot run */
	int fatal;
	unsigned int failures;
	/* the longest kvperf measurement so far, to bound perftest's */
	int64_t longest_ms;
};

static int64_t cmp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "@a/@b" into @buf; false when it does not fit. */
static bool cmp_join(char *buf, size_t len, const char *a, const char *b)
{
	int n = snprintf(buf, len, "%s/%s", a, b);

	return n > 0 && (size_t)n < len;
}

/* A copy of @src; false when it does not fit. */
static bool cmp_copy(char *buf, size_t len, const char *src)
{
	int n = snprintf(buf, len, "%s", src);

	return n >= 0 && (size_t)n < len;
}

/* Read a whole file, NUL-terminated; NULL on error. */
static char *cmp_slurp(const char *path, size_t *len)
{
	size_t size = 4096, n = 0;
	char *buf = malloc(size), *nb;
	ssize_t got;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (size - n < 2) {
			nb = realloc(buf, size * 2);
			if (!nb)
				break;
			buf = nb;
			size *= 2;
		}
		got = read(fd, buf + n, size - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += got;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* A one-line file such as /sys/class/dmi/id/sys_vendor, without "\n". */
static void cmp_read_line(const char *path, char *buf, size_t len)
{
	char *s = cmp_slurp(path, NULL);

	buf[0] = '\0';
	if (!s)
		return;
	s[strcspn(s, "\n")] = '\0';
	snprintf(buf, len, "%s", s);
	free(s);
}

/**
 * cmp_find_prog() - look a program up in PATH, as execvp() would
 * @name: the program
 * @path: receives where it is
 * @len: room in @path
 *
 * Return: true if found and executable.
 */
bool cmp_find_prog(const char *name, char *path, size_t len)
{
	const char *env = getenv("PATH"), *p, *end;
	size_t n;

	if (!env)
		env = "/usr/local/bin:/usr/bin:/bin";
	for (p = env; *p; p = *end ? end + 1 : end) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		n = end - p;
		if (!n)
			continue;
		snprintf(path, len, "%.*s/%s", (int)n, p, name);
		if (!access(path, X_OK))
			return true;
	}
	return false;
}

/*
 * Start a child with stdin from /dev/null, stdout to @out and stderr to
 * @err (the same file when equal), in its own process group.
 */
static pid_t cmp_spawn(struct cmp_exec *ex, const char *prog,
		       const char *const argv[], const char *out,
		       const char *err)
{
	pid_t parent = getpid(), pid;
	int fd;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		kvperf_errorf(ex->kv, "cannot fork: %s", strerror(errno));
		return -1;
	}
	if (pid)
		return pid;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(127);
	sigprocmask(SIG_SETMASK, &ex->old_mask, NULL);
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0)
		dup2(fd, STDIN_FILENO);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0)
		dup2(fd, STDOUT_FILENO);
	if (strcmp(err, out))
		fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0)
		dup2(fd, STDERR_FILENO);
	execvp(prog, (char *const *)argv);
	fprintf(stderr, "kvperf: cannot run %s: %s\n", argv[0],
		strerror(errno));
	_exit(127);
}

/*
 * Wait for a signal in ex->wait_set, at most @ms; SIGINT and SIGTERM set
 * ex->stop.
 */
static void cmp_sigwait(struct cmp_exec *ex, int64_t ms)
{
	struct timespec ts;
	int sig;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	sig = sigtimedwait(&ex->wait_set, NULL, &ts);
	if (sig == SIGINT || sig == SIGTERM)
		ex->stop = true;
}

/* Sleep @ms unless stopped; false when stopped. */
static bool cmp_sleep(struct cmp_exec *ex, int64_t ms)
{
	int64_t end = cmp_now_ms() + ms, left;

	while (!ex->stop && (left = end - cmp_now_ms()) > 0)
		cmp_sigwait(ex, left);
	return !ex->stop;
}

/* Has the child ended? Its wait status goes to @status. */
static bool cmp_reaped(pid_t pid, int *status)
{
	pid_t r;

	do {
		r = waitpid(pid, status, WNOHANG);
	} while (r < 0 && errno == EINTR);
	return r == pid || (r < 0 && errno == ECHILD);
}

/*
 * Wait for a child to end, at most @timeout_ms (negative: no limit). On
 * timeout, or when the compare is stopped and @stoppable, it gets
 * SIGTERM, and SIGKILL if it is still there CMP_KILL_GRACE_MS later.
 *
 * Return: its wait status, or -ETIMEDOUT when it had to be told to end.
 */
static int cmp_wait(struct cmp_exec *ex, pid_t pid, int64_t timeout_ms,
		    bool stoppable)
{
	int64_t deadline = timeout_ms < 0 ? -1 : cmp_now_ms() + timeout_ms;
	int64_t kill_at = -1, now, wait;
	bool timed_out = false, killed = false;
	int status = 0;

	for (;;) {
		if (cmp_reaped(pid, &status))
			return timed_out ? -ETIMEDOUT : status;
		now = cmp_now_ms();
		if (kill_at < 0 && ((stoppable && ex->stop) ||
				    (deadline >= 0 && now >= deadline))) {
			timed_out = !(stoppable && ex->stop);
			kill(pid, SIGTERM);
			kill_at = now + CMP_KILL_GRACE_MS;
		} else if (kill_at >= 0 && !killed && now >= kill_at) {
			kill(pid, SIGKILL);
			killed = true;
		}
		/* SIGCHLD ends the wait; the limit is only a safety net */
		wait = 1000;
		if (kill_at >= 0 && !killed && kill_at - now < wait)
			wait = kill_at - now;
		else if (kill_at < 0 && deadline >= 0 && deadline - now < wait)
			wait = deadline - now;
		cmp_sigwait(ex, wait > 0 ? wait : 1);
	}
}

/* The exit code of a wait status; 128 + signal when killed. */
static int cmp_exit_code(int status)
{
	if (status < 0)
		return 128 + SIGTERM;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 255;
}

/* A child's messages, indented under the line that says what failed. */
static void cmp_show_output(struct cmp_exec *ex, const char *path,
			    unsigned int max_lines)
{
	char *s = cmp_slurp(path, NULL), *line, *save = NULL;
	unsigned int total = 0, skip, i = 0;

	if (!s)
		return;
	for (line = s; *line; line++)
		total += *line == '\n';
	if (s[0] && s[strlen(s) - 1] != '\n')
		total++;
	skip = total > max_lines ? total - max_lines : 0;
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (i++ >= skip && line[strspn(line, " \t")])
			fprintf(ex->kv->err, "  %s\n", line);
	free(s);
}

static void cmp_progress(struct cmp_exec *ex, uint32_t round,
			 const char *what)
{
	if (!ex->progress)
		return;
	fprintf(ex->kv->err, "\r\033[Kcompare: round %u/%u: %s", round + 1,
		ex->o->rounds, what);
	fflush(ex->kv->err);
}

static void cmp_progress_clear(struct cmp_exec *ex)
{
	if (ex->progress)
		fputs("\r\033[K", ex->kv->err);
}

/* Run this tool with @argv; its stdout to ex->out, stderr to ex->err. */
static int cmp_self(struct cmp_exec *ex, const char *const argv[],
		    int64_t timeout_ms, bool stoppable)
{
	pid_t pid = cmp_spawn(ex, CMP_EXE, argv, ex->out, ex->err);

	if (pid < 0)
		return -1;
	return cmp_exit_code(cmp_wait(ex, pid, timeout_ms, stoppable));
}

/* Print a child's stderr after a failure, and what it means for us. */
static int cmp_self_failed(struct cmp_exec *ex, const char *what, int code)
{
	cmp_progress_clear(ex);
	kvperf_errorf(ex->kv, "%s failed (exit status %d):", what, code);
	cmp_show_output(ex, ex->err, 10);
	return code == KVPERF_EXIT_NOMODULE ? KVPERF_EXIT_NOMODULE :
					      KVPERF_EXIT_ERROR;
}

static bool cmp_addr_is(const struct cmp_opts *o, const char *addr)
{
	uint8_t bin[16];
	int len = addr ? parse_addr(addr, bin) : -1;

	return len == o->addr_len && !memcmp(bin, o->addr_bin, len);
}

/*
 * The kernel path needs a kvperf server on ADDR:PORT: use the one that
 * is there, or start one and remember to stop it.
 */
static int cmp_kernel_server(struct cmp_exec *ex)
{
	const char *const show[] = { "kvperf", "-j", "server", "show", NULL };
	char port[8], perr[128], *json;
	const struct jr_value *s;
	const char *const start[] = {
		"kvperf", "-j", "server", "start", "addr", ex->o->addr,
		"port", port, NULL,
	};
	struct jr_value *root;
	uint64_t v;
	size_t i, len;
	int code;

	code = cmp_self(ex, show, CMP_TIMEOUT_MS, false);
	if (code)
		return cmp_self_failed(ex, "kvperf server show", code);
	json = cmp_slurp(ex->out, &len);
	root = json ? jr_parse(json, len, perr, sizeof(perr)) : NULL;
	free(json);
	if (!root) {
		kvperf_errorf(ex->kv, "cannot read the servers: %s",
			      json ? perr : strerror(errno));
		return KVPERF_EXIT_ERROR;
	}
	for (i = 0; i < jr_count(root); i++) {
		s = jr_at(root, i);
		if (cmp_addr_is(ex->o, jr_string(jr_get(s, "addr"))) &&
		    !jr_u64(jr_get(s, "port"), &v) && v == ex->o->port) {
			jr_free(root);
			return KVPERF_EXIT_OK;
		}
	}
	jr_free(root);

	snprintf(port, sizeof(port), "%u", ex->o->port);
	code = cmp_self(ex, start, CMP_TIMEOUT_MS, false);
	if (code)
		return cmp_self_failed(ex, "kvperf server start", code);
	json = cmp_slurp(ex->out, &len);
	root = json ? jr_parse(json, len, NULL, 0) : NULL;
	free(json);
	if (jr_u64(jr_get(root, "id"), &v)) {
		jr_free(root);
		kvperf_errorf(ex->kv, "kvperf server start did not say the server's id");
		return KVPERF_EXIT_ERROR;
	}
	jr_free(root);
	ex->kernel_server = v;
	return KVPERF_EXIT_OK;
}

static void cmp_kernel_server_stop(struct cmp_exec *ex)
{
	char id[24];
	const char *const stop[] = { "kvperf", "server", "stop", id, NULL };
	int code;

	if (ex->kernel_server < 0)
		return;
	snprintf(id, sizeof(id), "%ld", ex->kernel_server);
	code = cmp_self(ex, stop, CMP_TIMEOUT_MS, false);
	if (code)
		cmp_self_failed(ex, "kvperf server stop", code);
	ex->kernel_server = -1;
}

/*
 * The user path's server: this tool serving from user space on PORT+1
 * until SIGTERM. It is ready once it says so on stdout; if it says
 * nothing, the first measurements retry a few times.
 */
static int cmp_user_server(struct cmp_exec *ex)
{
	char port[8];
	const char *const argv[] = {
		"kvperf", "server", "start", "addr", ex->o->addr, "port", port,
		"path", "user", NULL,
	};
	int64_t end = cmp_now_ms() + CMP_USER_SERVER_MS;
	struct stat st;
	int status;

	snprintf(port, sizeof(port), "%u", ex->o->port + 1);
	ex->user_server = cmp_spawn(ex, CMP_EXE, argv, ex->usrv_out, ex->err);
	if (ex->user_server < 0)
		return KVPERF_EXIT_ERROR;
	while (cmp_now_ms() < end && !ex->stop) {
		if (cmp_reaped(ex->user_server, &status)) {
			ex->user_server = -1;
			return cmp_self_failed(ex, "the user-path server",
					       cmp_exit_code(status));
		}
		if (!stat(ex->usrv_out, &st) && st.st_size > 0)
			break;
		cmp_sigwait(ex, 100);
	}
	return KVPERF_EXIT_OK;
}

static void cmp_user_server_stop(struct cmp_exec *ex)
{
	int status;

	if (ex->user_server <= 0)
		return;
	kill(ex->user_server, SIGTERM);
	status = cmp_wait(ex, ex->user_server, CMP_KILL_GRACE_MS, false);
	ex->user_server = -1;
	/* it ends on SIGTERM; anything else is worth a word */
	if (status < 0 || (WIFEXITED(status) && WEXITSTATUS(status)) ||
	    (WIFSIGNALED(status) && WTERMSIG(status) != SIGTERM))
		cmp_self_failed(ex, "the user-path server",
				cmp_exit_code(status));
}

static void cmp_mark_failed(struct cmp_exec *ex, enum cmp_path path,
			    uint32_t size)
{
	size_t i;

	ex->failures++;
	for (i = 0; i < ex->r->count; i++)
		if (!size || ex->r->rows[i].size == size)
			ex->r->rows[i].cell[path].failed++;
}

/*
 * A kernel-path run stays in the module until deleted: delete the one
 * whose JSON is in ex->out, finished or failed, so that a compare of
 * many rounds neither piles up runs nor meets the module's run limit.
 */
static void cmp_delete_run(struct cmp_exec *ex)
{
	char id[24];
	const char *const del[] = { "kvperf", "run", "delete", id, NULL };
	struct jr_value *root;
	uint64_t val;
	char *json;
	size_t len;
	int code;

	json = cmp_slurp(ex->out, &len);
	root = json ? jr_parse(json, len, NULL, 0) : NULL;
	free(json);
	if (!root)
		return;
	code = jr_u64(jr_get(root, "id"), &val);
	jr_free(root);
	if (code)
		return;
	snprintf(id, sizeof(id), "%llu", (unsigned long long)val);
	code = cmp_self(ex, del, CMP_TIMEOUT_MS, false);
	if (code)
		cmp_self_failed(ex, "kvperf run delete", code);
}

/* One kvperf measurement: kernel or user path, all sizes. */
static void cmp_measure_kvperf(struct cmp_exec *ex, enum cmp_path path,
			       uint32_t round)
{
	char what[64], err[160], *json;
	struct cmp_argv av;
	unsigned int tries;
	int64_t started;
	int code, n;
	size_t len;

	cmp_run_argv(&av, ex->o, path);
	/* the user path's server may still be starting: retry at first */
	tries = path == CMP_USER && round == 0 ? 3 : 1;
	snprintf(what, sizeof(what), "round %u, %s path", round + 1,
		 cmp_path_names[path]);
	cmp_progress(ex, round, cmp_path_names[path]);
	for (;;) {
		started = cmp_now_ms();
		code = cmp_self(ex, av.argv, CMP_TIMEOUT_MS * ex->r->count,
				true);
		if (!code && cmp_now_ms() - started > ex->longest_ms)
			ex->longest_ms = cmp_now_ms() - started;
		if (ex->stop) {
			if (path == CMP_KERNEL)
				cmp_delete_run(ex);
			return;
		}
		if (!code)
			break;
		if (code == KVPERF_EXIT_USAGE || code == KVPERF_EXIT_NOMODULE) {
			/* every other measurement would fail alike */
			ex->fatal = cmp_self_failed(ex, what, code);
			return;
		}
		if (--tries == 0) {
			cmp_self_failed(ex, what, code);
			if (path == CMP_KERNEL)
				cmp_delete_run(ex);
			cmp_mark_failed(ex, path, 0);
			return;
		}
		if (path == CMP_KERNEL)
			cmp_delete_run(ex);
		if (!cmp_sleep(ex, CMP_RETRY_MS))
			return;
	}
	json = cmp_slurp(ex->out, &len);
	n = json ? cmp_read_run(ex->r, path, round, json, len, err,
				sizeof(err)) : -EINVAL;
	free(json);
	if (path == CMP_KERNEL)
		cmp_delete_run(ex);
	if (n < 0) {
		cmp_progress_clear(ex);
		kvperf_errorf(ex->kv, "%s: %s", what,
			      json ? err : "no output");
		cmp_mark_failed(ex, path, 0);
	}
}

/* One perftest measurement of @size (0: all sizes, -a). */
static void cmp_perftest_one(struct cmp_exec *ex, uint32_t round,
			     uint32_t size)
{
	const struct cmp_opts *o = ex->o;
	struct perftest_cfg cfg = {
		.type = o->type, .op = o->op,
		.dev = ex->r->env.dev[0] ? ex->r->env.dev : NULL,
		.port = o->port + PERFTEST_PORT_OFFSET, .size = size,
		.iterations = cmp_opt(o, CMP_KW_ITERS) ? o->iterations : 0,
		.inline_size = o->inline_size, .tx_depth = o->tx_depth,
		.qps = o->qps, .events = ex->r->perftest_events,
		.cq_mod = cmp_signal_every(o), .ipv6 = ex->perftest_ipv6,
	};
	int64_t timeout = (int64_t)CMP_TIMEOUT_MS * (size ? 1 : ex->r->count);
	int64_t bound;
	struct perftest_cmd srv, cli;
	char err[160], what[64], *out;
	pid_t server, client;
	int status, code = 0, tries, n = -1;

	/*
	 * perftest now and then hangs (seen under TCG): once kvperf has
	 * measured the same test, give perftest ten times as long, at least
	 * CMP_PERFTEST_MIN_MS, rather than the full limit.
	 */
	bound = 10 * ex->longest_ms;
	if (bound < CMP_PERFTEST_MIN_MS)
		bound = CMP_PERFTEST_MIN_MS;
	if (ex->longest_ms && timeout > bound)
		timeout = bound;
	perftest_cmd_build(&srv, &cfg);
	cfg.addr = o->addr;
	perftest_cmd_build(&cli, &cfg);
	snprintf(what, sizeof(what), "round %u, %s", round + 1, cli.prog);

	server = cmp_spawn(ex, srv.argv[0], srv.argv, ex->srv_out,
			   ex->srv_out);
	if (server < 0) {
		cmp_mark_failed(ex, CMP_PERFTEST, size);
		return;
	}
	if (!cmp_sleep(ex, CMP_PERFTEST_START_MS))
		goto out;
	for (tries = CMP_PERFTEST_TRIES; tries > 0; tries--) {
		client = cmp_spawn(ex, cli.argv[0], cli.argv, ex->out,
				   ex->out);
		if (client < 0) {
			code = -1;
			break;
		}
		status = cmp_wait(ex, client, timeout, true);
		code = cmp_exit_code(status);
		if (ex->stop)
			goto out;
		/* a client that hung once hangs again: no retry */
		if (!code || status == -ETIMEDOUT)
			break;
		/* a server still waiting has not seen this client */
		if (cmp_reaped(server, &status)) {
			server = -1;
			break;
		}
		if (!cmp_sleep(ex, CMP_RETRY_MS))
			goto out;
	}
	out = code ? NULL : cmp_slurp(ex->out, NULL);
	if (out)
		n = cmp_read_perftest(ex->r, round, out, err, sizeof(err));
	free(out);
	if (n < 0) {
		cmp_progress_clear(ex);
		if (code)
			kvperf_errorf(ex->kv, "%s failed (exit status %d):",
				      what, code);
		else
			kvperf_errorf(ex->kv, "%s: %s:", what, err);
		cmp_show_output(ex, ex->out, 12);
		cmp_mark_failed(ex, CMP_PERFTEST, size);
	}
out:
	/* done with its client, the server ends by itself */
	if (server > 0)
		cmp_wait(ex, server, n < 0 ? 0 : CMP_KILL_GRACE_MS, false);
}

/* perftest runs one size or all; a range is one run per size. */
static void cmp_measure_perftest(struct cmp_exec *ex, uint32_t round)
{
	size_t i;

	cmp_progress(ex, round, "perftest");
	if (ex->o->sizes_all || ex->r->count == 1) {
		cmp_perftest_one(ex, round, ex->o->sizes_all ? 0 :
					    ex->r->rows[0].size);
		return;
	}
	for (i = 0; i < ex->r->count && !ex->stop; i++)
		cmp_perftest_one(ex, round, ex->r->rows[i].size);
}

/* The interface that has ADDR, or false when no local one has it. */
static bool cmp_local_netdev(const struct cmp_opts *o, char *name,
			     size_t len)
{
	struct ifaddrs *ifa, *i;
	const void *a;
	bool found = false;

	if (getifaddrs(&ifa))
		return false;
	for (i = ifa; i && !found; i = i->ifa_next) {
		if (!i->ifa_addr)
			continue;
		if (i->ifa_addr->sa_family == AF_INET && o->addr_len == 4)
			a = &((struct sockaddr_in *)i->ifa_addr)->sin_addr;
		else if (i->ifa_addr->sa_family == AF_INET6 &&
			 o->addr_len == 16)
			a = &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
		else
			continue;
		if (!memcmp(a, o->addr_bin, o->addr_len)) {
			snprintf(name, len, "%s", i->ifa_name);
			found = true;
		}
	}
	freeifaddrs(ifa);
	return found;
}

/* Does a GID of this port belong to @netdev? (RoCE, Soft-RoCE, iWARP) */
static bool cmp_port_has_netdev(const char *port_dir, const char *netdev)
{
	char dir[PATH_MAX], path[PATH_MAX], name[IF_NAMESIZE + 2];
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (!cmp_join(dir, sizeof(dir), port_dir, "gid_attrs/ndevs"))
		return false;
	d = opendir(dir);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    !cmp_join(path, sizeof(path), dir, de->d_name))
			continue;
		cmp_read_line(path, name, sizeof(name));
		found = !strcmp(name, netdev);
	}
	closedir(d);
	return found;
}

/* The RDMA device @netdev belongs to, for perftest's -d. */
static bool cmp_rdma_dev(const char *netdev, char *dev, size_t len)
{
	char path[PATH_MAX], ports[PATH_MAX], port[PATH_MAX];
	struct dirent *de, *pe;
	bool found = false;
	DIR *d, *pd;

	/* a device's own netdev (a NIC's, or IPoIB's) */
	if (!cmp_join(ports, sizeof(ports), "/sys/class/net", netdev) ||
	    !cmp_join(path, sizeof(path), ports, "device/infiniband"))
		return false;
	d = opendir(path);
	if (d) {
		while (!found && (de = readdir(d)))
			found = de->d_name[0] != '.' &&
				cmp_copy(dev, len, de->d_name);
		closedir(d);
		if (found)
			return true;
	}
	/* a device on top of a netdev: rxe, siw, and RoCE on VLANs */
	d = opendir("/sys/class/infiniband");
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    !cmp_join(path, sizeof(path), "/sys/class/infiniband",
			      de->d_name) ||
		    !cmp_join(ports, sizeof(ports), path, "ports"))
			continue;
		pd = opendir(ports);
		if (!pd)
			continue;
		while (!found && (pe = readdir(pd)))
			found = pe->d_name[0] != '.' &&
				cmp_join(port, sizeof(port), ports,
					 pe->d_name) &&
				cmp_port_has_netdev(port, netdev);
		closedir(pd);
		if (found)
			found = cmp_copy(dev, len, de->d_name);
	}
	closedir(d);
	return found;
}

static void cmp_env_read(struct cmp_env *env)
{
	char vendor[64], clocks[256], *cpu, *m, *nl;
	struct utsname u;

	if (!uname(&u))
		snprintf(env->kernel, sizeof(env->kernel), "%s", u.release);
	cpu = cmp_slurp("/proc/cpuinfo", NULL);
	m = cpu ? strstr(cpu, "model name") : NULL;
	if (m)
		m = strchr(m, ':');
	if (m) {
		m += strspn(m, ": \t");
		nl = strchr(m, '\n');
		snprintf(env->cpu, sizeof(env->cpu), "%.*s",
			 (int)(nl ? nl - m : (long)strlen(m)), m);
	}
	free(cpu);
	cmp_read_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor));
	cmp_read_line("/sys/devices/system/clocksource/clocksource0/available_clocksource",
		      clocks, sizeof(clocks));
	env->tcg = cmp_env_is_tcg(env->cpu, vendor, clocks);
}

/* perftest's version, from "ib_send_lat --version" (which exits 1). */
static void cmp_perftest_version(struct cmp_exec *ex)
{
	const char *const argv[] = { ex->perftest_prog, "--version", NULL };
	char *out;
	pid_t pid;

	pid = cmp_spawn(ex, argv[0], argv, ex->out, ex->out);
	if (pid < 0)
		return;
	cmp_wait(ex, pid, CMP_KILL_GRACE_MS, false);
	out = cmp_slurp(ex->out, NULL);
	if (!out || perftest_parse_version(out, ex->r->env.perftest,
					   sizeof(ex->r->env.perftest)))
		snprintf(ex->r->env.perftest, sizeof(ex->r->env.perftest),
			 "unknown");
	free(out);
}

/* Whether "PROG --help" lists the long option @opt. */
static bool cmp_perftest_has(struct cmp_exec *ex, const char *opt)
{
	const char *const argv[] = { ex->perftest_prog, "--help", NULL };
	bool has = false;
	char *out;
	pid_t pid;

	pid = cmp_spawn(ex, argv[0], argv, ex->out, ex->out);
	if (pid < 0)
		return false;
	cmp_wait(ex, pid, CMP_KILL_GRACE_MS, false);
	out = cmp_slurp(ex->out, NULL);
	if (out)
		has = perftest_has_option(out, opt);
	free(out);
	return has;
}

/*
 * perftest's RDMA CM client resolves the server's name as IPv4 unless
 * given --ipv6-addr (and its server binds an IPv4 address); releases
 * without that option cannot measure over IPv6 at all ("Address family
 * for hostname not supported").
 */
static bool cmp_perftest_ipv6(struct cmp_exec *ex, const char *prog)
{
	if (cmp_perftest_has(ex, "--ipv6-addr")) {
		ex->perftest_ipv6 = true;
		return true;
	}
	cmp_perftest_version(ex);
	snprintf(ex->perftest_note, sizeof(ex->perftest_note),
		 "off (%s %s reaches an RDMA CM server over IPv4 only: it has no --ipv6-addr)",
		 prog, ex->r->env.perftest);
	ex->r->env.perftest[0] = '\0';
	ex->r->perftest_note = ex->perftest_note;
	return false;
}

/* Where perftest stands: a column, or a note saying why not. */
static void cmp_perftest_setup(struct cmp_exec *ex)
{
	char prog[16];

	if (cmp_opt(ex->o, CMP_KW_NO_PERFTEST)) {
		ex->r->perftest_note = "off (no-perftest)";
		return;
	}
	if (cmp_opt(ex->o, CMP_KW_REMOTE)) {
		ex->r->perftest_note = "off (remote: its server serves one measurement)";
		return;
	}
	perftest_prog(prog, sizeof(prog), ex->o->type, ex->o->op);
	if (!cmp_find_prog(prog, ex->perftest_prog,
			   sizeof(ex->perftest_prog))) {
		ex->r->perftest_note = "not installed (Debian package perftest)";
		return;
	}
	/* the nearest to softirq and workqueue; perftest refuses it for write */
	ex->r->perftest_events = ex->o->poll != KVPERF_POLL_BUSY &&
				 ex->o->op != KVPERF_OP_WRITE;
	/*
	 * ib_send_lat -e lets its completion queue overflow (rxe logs
	 * "rxe_cq_post: queue full") and then waits forever.
	 */
	if (ex->r->perftest_events && ex->o->type == KVPERF_RUN_TYPE_LAT &&
	    ex->o->op == KVPERF_OP_SEND) {
		ex->r->perftest_note = "off (ib_send_lat -e, its mode for softirq and workqueue polling, overflows its completion queue and hangs)";
		return;
	}
	if (ex->o->addr_len == 16 && !cmp_perftest_ipv6(ex, prog))
		return;
	ex->r->active[CMP_PERFTEST] = true;
	cmp_perftest_version(ex);
}

static int cmp_tmpdir(struct cmp_exec *ex)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (!cmp_join(ex->dir, sizeof(ex->dir), tmp, "kvperf-compare.XXXXXX")) {
		kvperf_errorf(ex->kv, "TMPDIR is too long");
		ex->dir[0] = '\0';
		return KVPERF_EXIT_ERROR;
	}
	if (!mkdtemp(ex->dir)) {
		kvperf_errorf(ex->kv, "cannot make a directory in %s: %s", tmp,
			      strerror(errno));
		ex->dir[0] = '\0';
		return KVPERF_EXIT_ERROR;
	}
	/* the names are short, and the directory's name fits in PATH_MAX */
	if (!cmp_join(ex->out, sizeof(ex->out), ex->dir, "out") ||
	    !cmp_join(ex->err, sizeof(ex->err), ex->dir, "err") ||
	    !cmp_join(ex->srv_out, sizeof(ex->srv_out), ex->dir, "server") ||
	    !cmp_join(ex->usrv_out, sizeof(ex->usrv_out), ex->dir,
		      "user-server")) {
		kvperf_errorf(ex->kv, "TMPDIR is too long");
		return KVPERF_EXIT_ERROR;
	}
	return KVPERF_EXIT_OK;
}

static void cmp_tmpdir_remove(struct cmp_exec *ex)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if (!ex->dir[0])
		return;
	d = opendir(ex->dir);
	if (d) {
		while ((de = readdir(d)))
			if (de->d_name[0] != '.' &&
			    cmp_join(path, sizeof(path), ex->dir, de->d_name))
				unlink(path);
		closedir(d);
	}
	rmdir(ex->dir);
}

/* What must hold before anything starts: a local address, gnuplot. */
static int cmp_prepare(struct cmp_exec *ex)
{
	const struct cmp_opts *o = ex->o;
	bool remote = cmp_opt(o, CMP_KW_REMOTE);
	int ret;

	if (o->plot) {
		ret = plot_check(ex->kv);
		if (ret)
			return ret;
	}
	if (!cmp_local_netdev(o, ex->netdev, sizeof(ex->netdev))) {
		if (!remote) {
			kvperf_errorf(ex->kv,
				      "%s is not an address of this host: compare starts the servers it measures against, so ADDR must be local; for another host, start them there (kvperf server start addr ADDR port %u; kvperf server start addr ADDR port %u path user) and add 'remote'",
				      o->addr, o->port, o->port + 1);
			return KVPERF_EXIT_ERROR;
		}
	} else if (!cmp_rdma_dev(ex->netdev, ex->r->env.dev,
				 sizeof(ex->r->env.dev)) && !remote) {
		kvperf_errorf(ex->kv, "%s is on %s, which no RDMA device uses",
			      o->addr, ex->netdev);
		return KVPERF_EXIT_ERROR;
	}
	cmp_env_read(&ex->r->env);
	ex->r->active[CMP_KERNEL] = true;
	ex->r->active[CMP_USER] = true;
	cmp_perftest_setup(ex);
	return KVPERF_EXIT_OK;
}

static int cmp_rounds(struct cmp_exec *ex)
{
	uint32_t round;
	int ret;

	if (!cmp_opt(ex->o, CMP_KW_REMOTE)) {
		ret = cmp_kernel_server(ex);
		if (!ret)
			ret = cmp_user_server(ex);
		if (ret)
			return ret;
	}
	for (round = 0; round < ex->o->rounds; round++) {
		cmp_measure_kvperf(ex, CMP_KERNEL, round);
		if (ex->stop || ex->fatal)
			break;
		cmp_measure_kvperf(ex, CMP_USER, round);
		if (ex->stop || ex->fatal)
			break;
		if (ex->r->active[CMP_PERFTEST])
			cmp_measure_perftest(ex, round);
		if (ex->stop)
			break;
	}
	cmp_progress_clear(ex);
	return ex->fatal;
}

/**
 * cmp_execute() - run a compare and print it
 * @kv: the invocation
 * @o: from cmp_parse()
 *
 * Return: KVPERF_EXIT_OK; KVPERF_EXIT_ERROR when a measurement failed
 * (the table still shows the others), on SIGINT or SIGTERM, or when
 * nothing could be measured; KVPERF_EXIT_NOMODULE without the module.
 */
int cmp_execute(struct kvperf *kv, const struct cmp_opts *o)
{
	struct cmp_exec ex = {
		.kv = kv, .o = o, .kernel_server = -1, .user_server = -1,
	};
	struct cmp_result *r;
	struct printer p;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r || cmp_result_init(r, o)) {
		free(r);
		kvperf_errorf(kv, "out of memory");
		return KVPERF_EXIT_ERROR;
	}
	ex.r = r;
	ex.progress = isatty(fileno(kv->err));
	sigemptyset(&ex.wait_set);
	sigaddset(&ex.wait_set, SIGINT);
	sigaddset(&ex.wait_set, SIGTERM);
	sigaddset(&ex.wait_set, SIGCHLD);
	/* taken with sigtimedwait(), so that waiting costs no CPU */
	sigprocmask(SIG_BLOCK, &ex.wait_set, &ex.old_mask);

	ret = cmp_tmpdir(&ex);
	if (!ret)
		ret = cmp_prepare(&ex);
	if (!ret)
		ret = cmp_rounds(&ex);
	cmp_user_server_stop(&ex);
	cmp_kernel_server_stop(&ex);

	if (!ret && ex.stop) {
		kvperf_errorf(kv, "interrupted");
		ret = KVPERF_EXIT_ERROR;
	}
	if (!ret) {
		pr_init(&p, kv->out, kv->json, kv->pretty);
		cmp_print(&p, r);
		if (o->plot)
			ret = plot_draw(kv, r, o->plot, ex.dir);
		if (!ret && ex.failures) {
			kvperf_errorf(kv, "%u measurement%s failed",
				      ex.failures, ex.failures == 1 ? "" : "s");
			ret = KVPERF_EXIT_ERROR;
		}
	}
	cmp_tmpdir_remove(&ex);
	sigprocmask(SIG_SETMASK, &ex.old_mask, NULL);
	cmp_result_free(r);
	free(r);
	return ret;
}
