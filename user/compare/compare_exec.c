// SPDX-License-Identifier: GPL-2.0
/*
 * The compare command: running a compare. The kvperf measurements run in
 * this process: the kernel path's through the module (run_kernel.c),
 * against a kvperf server in the kernel on ADDR:PORT (the one there, or
 * one started and stopped at the end); the user path's on this process's
 * threads (upath_run.c), against a user-path server on PORT+1 that a
 * thread of this process runs (upath_serve()). perftest is the only
 * child: a client per measurement against its own server, in their own
 * process groups, dying with us (PR_SET_PDEATHSIG), their output in files
 * of a private temporary directory. SIGINT and SIGTERM stay blocked and
 * are taken by a thread of their own, which stops the measurement
 * running and so ends the compare after cleaning up.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/kvperf.h>

#include "args.h"
#include "cli.h"
#include "compare.h"
#include "kvperf.h"
#include "perftest.h"
#include "plot.h"
#include "print.h"
#include "prog.h"
#include "run_cfg.h"
#include "run_kernel.h"
#include "run_model.h"
#include "server_cfg.h"
#include "show.h"
#include "upath.h"
#include "upath_run.h"

/* a measurement that takes longer than this per size is stopped */
#define CMP_TIMEOUT_MS		(600 * 1000)
/* a perftest process told to stop gets this long before SIGKILL */
#define CMP_KILL_GRACE_MS	5000
/* how long the user-path server may take to say it listens */
#define CMP_USER_SERVER_MS	5000
/* a perftest server needs a moment before it accepts (up to 2 s on TCG) */
#define CMP_PERFTEST_START_MS	1000
#define CMP_PERFTEST_TRIES	5
#define CMP_PERFTEST_MIN_MS	(60 * 1000)
/*
 * A perftest client that printed its whole report but has not ended this
 * long after is stopped, its result kept: see cmp_wait_report()
 */
#define CMP_PERFTEST_CLOSE_MS	5000
/* cmp_wait_report(): the child was stopped after its whole report */
#define CMP_WAIT_REPORTED	(-EALREADY)
#define CMP_RETRY_MS		1000
/* the longest the threads sleep before they look at the stop flags */
#define CMP_POLL_MS		200
/* the last lines of a failure's messages that are shown */
#define CMP_REASON_LINES	10
/* what the user-path server said last, shown if it fails */
#define CMP_SERVER_LINES	10
#define CMP_SERVER_LINE_LEN	256

struct cmp_exec;

/* The user path's server, on a thread of this process. */
struct cmp_user_server {
	struct cmp_exec *ex;
	struct kv_server_cfg cfg;
	pthread_t thread;
	bool running;
	/* set by the server's threads, read by the compare's */
	bool listening;
	bool done;
	/* set by the compare: the server is to stop */
	bool quit;
	int ret;
	/* its error lines, the last CMP_SERVER_LINES of them */
	char line[CMP_SERVER_LINES][CMP_SERVER_LINE_LEN];
	unsigned int nlines;
};

struct cmp_exec {
	struct kvperf *kv;
	const struct cmp_opts *o;
	struct cmp_result *r;
	char dir[PATH_MAX];
	char out[PATH_MAX];
	char srv_out[PATH_MAX];
	sigset_t old_mask;
	/* SIGCHLD, which the main thread waits for */
	sigset_t wait_set;
	/* SIGINT and SIGTERM, which the signal thread waits for */
	sigset_t stop_set;
	/* SIGINT or SIGTERM arrived: the compare ends (atomic) */
	bool stop;
	/* the measurement running is to stop (atomic) */
	bool run_stop;
	/*
	 * The signal thread: it takes SIGINT and SIGTERM and watches the
	 * time limit of the measurement running; when that is to stop, it
	 * sets @run_stop and writes a struct signalfd_siginfo to @pipe[1],
	 * which a kernel-path run's wait reads from @pipe[0]. @lock orders
	 * that with the start and end of each measurement.
	 */
	pthread_t sig_thread;
	bool sig_running;
	bool sig_quit;
	int pipe[2];
	pthread_mutex_t lock;
	int64_t deadline_ms;
	bool timed_out;
	/* a kvperf server this compare started, to stop at the end */
	long kernel_server;
	struct cmp_user_server usrv;
	char netdev[IF_NAMESIZE];
	char perftest_prog[PATH_MAX];
	/* coreutils' stdbuf, to line-buffer the perftest client's report */
	char stdbuf_prog[PATH_MAX];
	/* perftest reaches ADDR, an IPv6 address, with --ipv6-addr */
	bool perftest_ipv6;
	/* the perftest note, when it names perftest's version */
	char perftest_note[160];
	bool progress;
	/* an exit code that ends the compare: nothing can be measured */
	int fatal;
	/* the longest kvperf measurement so far, to bound perftest's */
	int64_t longest_ms;
};

/*
 * What the library functions say while a measurement runs goes to a
 * buffer, shown only when the measurement failed.
 */
struct cmp_capture {
	struct kvperf kv;
	char *buf;
	size_t len;
};

static int64_t cmp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool cmp_stopped(struct cmp_exec *ex)
{
	return __atomic_load_n(&ex->stop, __ATOMIC_ACQUIRE);
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

/*
 * The last line of @s that is not blank, without the blanks around it
 * and without a leading "kvperf: ", into @buf; "" when there is none.
 */
static void cmp_last_line(const char *s, char *buf, size_t len)
{
	const char *end, *start;

	buf[0] = '\0';
	if (!s)
		return;
	end = s + strlen(s);
	for (;;) {
		while (end > s && strchr(" \t\r\n", end[-1]))
			end--;
		if (end == s)
			return;
		start = end;
		while (start > s && start[-1] != '\n')
			start--;
		start += strspn(start, " \t");
		if (start < end)
			break;
		end = start;
	}
	if ((size_t)(end - start) > 8 && !strncmp(start, "kvperf: ", 8))
		start += 8;
	snprintf(buf, len, "%.*s", (int)(end - start), start);
}

/*
 * Start a child with stdin from /dev/null, stdout to @out and stderr to
 * @err (the same file when equal), in its own process group. The files
 * are emptied before this returns, so what is in them afterwards is the
 * child's.
 */
static pid_t cmp_spawn(struct cmp_exec *ex, const char *prog,
		       const char *const argv[], const char *out,
		       const char *err)
{
	pid_t parent = getpid(), pid;
	int fd, out_fd, err_fd;

	out_fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	err_fd = strcmp(err, out) ?
		 open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) :
		 out_fd;
	if (out_fd < 0 || err_fd < 0) {
		kvperf_errorf(ex->kv, "cannot create %s: %s",
			      out_fd < 0 ? out : err, strerror(errno));
		pid = -1;
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		kvperf_errorf(ex->kv, "cannot fork: %s", strerror(errno));
		goto out;
	}
	if (pid)
		goto out;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(127);
	sigprocmask(SIG_SETMASK, &ex->old_mask, NULL);
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0)
		dup2(fd, STDIN_FILENO);
	/* dup2() clears O_CLOEXEC on the copies */
	dup2(out_fd, STDOUT_FILENO);
	dup2(err_fd, STDERR_FILENO);
	execvp(prog, (char *const *)argv);
	/* not stdio: another thread may have held its lock at fork() */
	dprintf(STDERR_FILENO, "kvperf: cannot run %s: %s\n", argv[0],
		strerror(errno));
	_exit(127);
out:
	if (err_fd >= 0 && err_fd != out_fd)
		close(err_fd);
	if (out_fd >= 0)
		close(out_fd);
	return pid;
}

/* Wait for SIGCHLD, at most @ms and at most CMP_POLL_MS. */
static void cmp_sigwait(struct cmp_exec *ex, int64_t ms)
{
	struct timespec ts;

	if (ms > CMP_POLL_MS)
		ms = CMP_POLL_MS;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	sigtimedwait(&ex->wait_set, NULL, &ts);
}

/* Sleep @ms unless stopped; false when stopped. */
static bool cmp_sleep(struct cmp_exec *ex, int64_t ms)
{
	int64_t end = cmp_now_ms() + ms, left;

	while (!cmp_stopped(ex) && (left = end - cmp_now_ms()) > 0)
		cmp_sigwait(ex, left);
	return !cmp_stopped(ex);
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

/* Has the perftest client whose output is @path printed its report? */
static bool cmp_report_complete(const char *path)
{
	char *out = cmp_slurp(path, NULL);
	bool done = out && perftest_report_complete(out);

	free(out);
	return done;
}

/*
 * Wait for a child to end, at most @timeout_ms (negative: no limit). On
 * timeout, or when the compare is stopped and @stoppable, it gets
 * SIGTERM, and SIGKILL if it is still there CMP_KILL_GRACE_MS later.
 *
 * With @report, the file a perftest client writes its output to, line by
 * line: once its whole report is there (perftest_report_complete()), the
 * client gets CMP_PERFTEST_CLOSE_MS more to end. After its report it has
 * a last exchange with its server, and a server that hangs (seen under
 * TCG) holds it there: stopped at the time limit, it would take its
 * result with it.
 *
 * Return: its wait status, -ETIMEDOUT when it had to be told to end, or
 * CMP_WAIT_REPORTED when it was told to end after its whole report.
 */
static int cmp_wait_report(struct cmp_exec *ex, pid_t pid, int64_t timeout_ms,
			   bool stoppable, const char *report)
{
	int64_t deadline = timeout_ms < 0 ? -1 : cmp_now_ms() + timeout_ms;
	int64_t kill_at = -1, now, wait;
	bool timed_out = false, killed = false, reported = false, cut = false;
	int status = 0;

	for (;;) {
		if (cmp_reaped(pid, &status)) {
			if (cut)
				return CMP_WAIT_REPORTED;
			return timed_out ? -ETIMEDOUT : status;
		}
		now = cmp_now_ms();
		if (report && !reported && kill_at < 0 &&
		    cmp_report_complete(report)) {
			reported = true;
			if (deadline < 0 ||
			    deadline > now + CMP_PERFTEST_CLOSE_MS)
				deadline = now + CMP_PERFTEST_CLOSE_MS;
		}
		if (kill_at < 0 && ((stoppable && cmp_stopped(ex)) ||
				    (deadline >= 0 && now >= deadline))) {
			timed_out = !(stoppable && cmp_stopped(ex));
			cut = reported && timed_out;
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

/* cmp_wait_report() of a child whose output is not watched. */
static int cmp_wait(struct cmp_exec *ex, pid_t pid, int64_t timeout_ms,
		    bool stoppable)
{
	return cmp_wait_report(ex, pid, timeout_ms, stoppable, NULL);
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

/* Messages, the last @max_lines of @s, indented under what failed. */
static void cmp_show_text(struct cmp_exec *ex, char *s, unsigned int max_lines)
{
	unsigned int total = 0, skip, i = 0;
	char *line, *save = NULL;

	for (line = s; *line; line++)
		total += *line == '\n';
	if (s[0] && s[strlen(s) - 1] != '\n')
		total++;
	skip = total > max_lines ? total - max_lines : 0;
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (i++ >= skip && line[strspn(line, " \t")])
			fprintf(ex->kv->err, "  %s\n", line);
}

/* A child's messages, indented under the line that says what failed. */
static void cmp_show_output(struct cmp_exec *ex, const char *path,
			    unsigned int max_lines)
{
	char *s = cmp_slurp(path, NULL);

	if (!s)
		return;
	cmp_show_text(ex, s, max_lines);
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

/* An invocation like ours whose messages go to @c's buffer. */
static struct kvperf *cmp_capture_open(struct cmp_exec *ex,
				       struct cmp_capture *c)
{
	c->kv = *ex->kv;
	c->buf = NULL;
	c->len = 0;
	c->kv.err = open_memstream(&c->buf, &c->len);
	/* without memory, the messages go where they would anyway */
	if (!c->kv.err)
		c->kv.err = ex->kv->err;
	return &c->kv;
}

/* The last message said to @c so far, into @buf. */
static void cmp_capture_last(struct cmp_capture *c, char *buf, size_t len)
{
	buf[0] = '\0';
	if (fflush(c->kv.err) || !c->buf)
		return;
	cmp_last_line(c->buf, buf, len);
}

/* Done with @c: its messages, @what's failure, shown when @failed. */
static void cmp_capture_close(struct cmp_exec *ex, struct cmp_capture *c,
			      const char *what, bool failed)
{
	if (c->kv.err != ex->kv->err)
		fclose(c->kv.err);
	c->kv.err = ex->kv->err;
	if (failed) {
		cmp_progress_clear(ex);
		kvperf_errorf(ex->kv, "%s failed:", what);
		if (c->buf)
			cmp_show_text(ex, c->buf, CMP_REASON_LINES);
	}
	free(c->buf);
	c->buf = NULL;
}

/* Set when the measurement running is to stop; @ex->lock held. */
static void cmp_stop_run(struct cmp_exec *ex, int sig)
{
	struct signalfd_siginfo si = { .ssi_signo = sig };
	ssize_t n;

	__atomic_store_n(&ex->run_stop, true, __ATOMIC_RELEASE);
	/* non-blocking: a full pipe already says it */
	do {
		n = write(ex->pipe[1], &si, sizeof(si));
	} while (n < 0 && errno == EINTR);
}

/*
 * The signal thread: SIGINT and SIGTERM stop the compare and the
 * measurement running, as does the measurement's time limit (that one
 * not the compare). The first signal stops a kernel-path run, which
 * then ends as stopped; a second gives up waiting for it.
 */
static void *cmp_signal_thread(void *arg)
{
	const struct timespec ts = { 0, CMP_POLL_MS * 1000000L };
	struct cmp_exec *ex = arg;
	int sig;

	while (!__atomic_load_n(&ex->sig_quit, __ATOMIC_ACQUIRE)) {
		sig = sigtimedwait(&ex->stop_set, NULL, &ts);
		pthread_mutex_lock(&ex->lock);
		if (sig == SIGINT || sig == SIGTERM) {
			__atomic_store_n(&ex->stop, true, __ATOMIC_RELEASE);
			cmp_stop_run(ex, sig);
		} else if (ex->deadline_ms >= 0 &&
			   cmp_now_ms() >= ex->deadline_ms) {
			ex->deadline_ms = -1;
			ex->timed_out = true;
			cmp_stop_run(ex, SIGTERM);
		}
		pthread_mutex_unlock(&ex->lock);
	}
	return NULL;
}

static int cmp_signals_start(struct cmp_exec *ex)
{
	int err;

	if (pipe2(ex->pipe, O_CLOEXEC | O_NONBLOCK)) {
		kvperf_errorf(ex->kv, "cannot make a pipe: %s",
			      strerror(errno));
		return KVPERF_EXIT_ERROR;
	}
	err = pthread_create(&ex->sig_thread, NULL, cmp_signal_thread, ex);
	if (err) {
		kvperf_errorf(ex->kv, "cannot start a thread: %s",
			      strerror(err));
		return KVPERF_EXIT_ERROR;
	}
	ex->sig_running = true;
	return KVPERF_EXIT_OK;
}

static void cmp_signals_stop(struct cmp_exec *ex)
{
	if (ex->sig_running) {
		__atomic_store_n(&ex->sig_quit, true, __ATOMIC_RELEASE);
		pthread_join(ex->sig_thread, NULL);
		ex->sig_running = false;
	}
	if (ex->pipe[0] >= 0)
		close(ex->pipe[0]);
	if (ex->pipe[1] >= 0)
		close(ex->pipe[1]);
	ex->pipe[0] = -1;
	ex->pipe[1] = -1;
}

/*
 * A measurement starts, to be stopped after @limit_ms: what stopped the
 * one before is forgotten, unless the compare is stopped.
 */
static void cmp_run_begin(struct cmp_exec *ex, int64_t limit_ms)
{
	struct signalfd_siginfo si;

	pthread_mutex_lock(&ex->lock);
	while (read(ex->pipe[0], &si, sizeof(si)) > 0)
		;
	ex->timed_out = false;
	ex->deadline_ms = cmp_now_ms() + limit_ms;
	__atomic_store_n(&ex->run_stop, cmp_stopped(ex), __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ex->lock);
}

/* The measurement ended; true if its time limit stopped it. */
static bool cmp_run_end(struct cmp_exec *ex)
{
	bool timed_out;

	pthread_mutex_lock(&ex->lock);
	ex->deadline_ms = -1;
	timed_out = ex->timed_out;
	pthread_mutex_unlock(&ex->lock);
	return timed_out;
}

/* The user path's runs poll this from their threads. */
static bool cmp_run_should_stop(void *arg)
{
	struct cmp_exec *ex = arg;

	return __atomic_load_n(&ex->run_stop, __ATOMIC_RELAXED);
}

/*
 * The kernel path needs a kvperf server on ADDR:PORT: use the one that
 * is there, or start one and remember to stop it.
 */
static int cmp_kernel_server(struct cmp_exec *ex)
{
	const struct cmp_opts *o = ex->o;
	struct kv_server_cfg cfg;
	struct cmp_capture cap;
	struct kvperf *kv;
	bool found = false;
	uint32_t id;
	int ret;

	kv = cmp_capture_open(ex, &cap);
	ret = server_kernel_find(kv, o->addr_bin, o->addr_len, o->port,
				 &found);
	cmp_capture_close(ex, &cap, "looking for the kvperf server", ret);
	if (ret || found)
		return ret;

	server_cfg_init(&cfg);
	memcpy(cfg.addr, o->addr_bin, o->addr_len);
	cfg.addr_len = o->addr_len;
	cfg.port = o->port;
	KV_SET(&cfg, KVPERF_A_SERVER_ADDR);
	/* the servers reap completions as the clients do, as perftest's */
	cfg.poll = o->poll;
	KV_SET(&cfg, KVPERF_A_SERVER_POLL);
	kv = cmp_capture_open(ex, &cap);
	ret = server_kernel_start(kv, &cfg, &id);
	cmp_capture_close(ex, &cap, "starting the kvperf server", ret);
	server_cfg_clear(&cfg);
	if (!ret)
		ex->kernel_server = id;
	return ret;
}

static void cmp_kernel_server_stop(struct cmp_exec *ex)
{
	struct cmp_capture cap;
	struct kvperf *kv;
	char what[64];
	int ret;

	if (ex->kernel_server < 0)
		return;
	snprintf(what, sizeof(what), "stopping kvperf server %ld",
		 ex->kernel_server);
	kv = cmp_capture_open(ex, &cap);
	ret = server_kernel_stop(kv, ex->kernel_server);
	cmp_capture_close(ex, &cap, what, ret);
	ex->kernel_server = -1;
}

static void cmp_user_server_listening(void *arg,
				      const struct upath_server_info *info)
{
	struct cmp_user_server *s = arg;

	(void)info;
	__atomic_store_n(&s->listening, true, __ATOMIC_RELEASE);
}

/* Kept, and shown if the server fails. */
static void cmp_user_server_error(void *arg, const char *msg)
{
	struct cmp_user_server *s = arg;

	snprintf(s->line[s->nlines++ % CMP_SERVER_LINES],
		 sizeof(s->line[0]), "%s", msg);
}

static bool cmp_user_server_should_stop(void *arg)
{
	struct cmp_user_server *s = arg;

	return __atomic_load_n(&s->quit, __ATOMIC_ACQUIRE);
}

static void *cmp_user_server_thread(void *arg)
{
	struct cmp_user_server *s = arg;
	const struct upath_server_ops ops = {
		.listening = cmp_user_server_listening,
		.error = cmp_user_server_error,
		.should_stop = cmp_user_server_should_stop,
		.arg = s,
	};

	s->ret = upath_serve(&s->cfg, &ops);
	__atomic_store_n(&s->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* The server's thread ended: what it said, if it failed. */
static int cmp_user_server_join(struct cmp_exec *ex)
{
	struct cmp_user_server *s = &ex->usrv;
	unsigned int i;

	pthread_join(s->thread, NULL);
	s->running = false;
	server_cfg_clear(&s->cfg);
	if (!s->ret)
		return KVPERF_EXIT_OK;
	cmp_progress_clear(ex);
	kvperf_errorf(ex->kv, "the user-path server failed:");
	i = s->nlines > CMP_SERVER_LINES ? s->nlines - CMP_SERVER_LINES : 0;
	for (; i < s->nlines; i++)
		fprintf(ex->kv->err, "  kvperf: %s\n",
			s->line[i % CMP_SERVER_LINES]);
	return KVPERF_EXIT_ERROR;
}

/*
 * The user path's server: upath_serve() on a thread of this process, on
 * PORT+1, until the end of the compare. It is ready once it listens; if
 * it does not say so in time, the first measurements retry a few times.
 */
static int cmp_user_server(struct cmp_exec *ex)
{
	struct cmp_user_server *s = &ex->usrv;
	int64_t end = cmp_now_ms() + CMP_USER_SERVER_MS;
	int err;

	s->ex = ex;
	server_cfg_init(&s->cfg);
	memcpy(s->cfg.addr, ex->o->addr_bin, ex->o->addr_len);
	s->cfg.addr_len = ex->o->addr_len;
	s->cfg.port = ex->o->port + 1;
	KV_SET(&s->cfg, KVPERF_A_SERVER_ADDR);
	s->cfg.poll = ex->o->poll;
	KV_SET(&s->cfg, KVPERF_A_SERVER_POLL);
	err = pthread_create(&s->thread, NULL, cmp_user_server_thread, s);
	if (err) {
		kvperf_errorf(ex->kv, "cannot start the user-path server: %s",
			      strerror(err));
		return KVPERF_EXIT_ERROR;
	}
	s->running = true;
	while (cmp_now_ms() < end && !cmp_stopped(ex) &&
	       !__atomic_load_n(&s->listening, __ATOMIC_ACQUIRE)) {
		if (__atomic_load_n(&s->done, __ATOMIC_ACQUIRE))
			return cmp_user_server_join(ex) ?: KVPERF_EXIT_ERROR;
		cmp_sigwait(ex, 100);
	}
	return KVPERF_EXIT_OK;
}

static void cmp_user_server_stop(struct cmp_exec *ex)
{
	if (!ex->usrv.running)
		return;
	__atomic_store_n(&ex->usrv.quit, true, __ATOMIC_RELEASE);
	cmp_user_server_join(ex);
}

/*
 * Why a run that ended is no measurement: for @kv, as "kvperf run" says
 * it, and for the cell, into @why: the run's error, or how it ended.
 */
static void cmp_run_reason(struct kvperf *kv, const struct kv_run *run,
			   bool timed_out, int64_t limit_ms, char *why,
			   size_t len)
{
	bool failed = !timed_out && KV_HAS(run, KVPERF_A_RUN_STATE) &&
		      run->state == KVPERF_RUN_STATE_FAILED;
	char id[16] = "";

	/* a user-path run is no kernel object and has no id */
	if (KV_HAS(run, KVPERF_A_RUN_ID))
		snprintf(id, sizeof(id), " %u", run->id);
	if (timed_out)
		snprintf(why, len, "stopped at the time limit (%lld s)",
			 (long long)(limit_ms / 1000));
	else if (!KV_HAS(run, KVPERF_A_RUN_STATE))
		snprintf(why, len, "ended without a state");
	else if (failed)
		snprintf(why, len, "%s", KV_HAS(run, KVPERF_A_RUN_ERROR) ?
			 run->error : "no reason given");
	else if (run->state == KVPERF_RUN_STATE_STOPPED)
		snprintf(why, len, "stopped");
	else
		snprintf(why, len, "ended in state %d", run->state);
	kvperf_errorf(kv, "run%s %s%s", id, failed ? "failed: " : "", why);
}

/*
 * One run of a kvperf path, in this process, stopped after @limit_ms.
 * A kernel-path run stays in the module until deleted: it is deleted
 * here, finished, failed or stopped, so that a compare of many rounds
 * neither piles up runs nor meets the module's run limit.
 *
 * Return: KVPERF_EXIT_OK when the run is done, with @run set (free it
 * either way); else an exit code, what went wrong said to @kv.
 */
static int cmp_run_one(struct cmp_exec *ex, struct kvperf *kv,
		       enum cmp_path path, const struct kv_run_cfg *cfg,
		       struct kv_run *run, int64_t limit_ms, char *why,
		       size_t whylen)
{
	const struct upath_run_ops ops = {
		.should_stop = cmp_run_should_stop, .arg = ex,
	};
	struct run_wait w = { 0 };
	const char *refused = NULL;
	bool timed_out;
	int ret;

	why[0] = '\0';
	memset(run, 0, sizeof(*run));
	cmp_run_begin(ex, limit_ms);
	if (cmp_stopped(ex)) {
		ret = KVPERF_EXIT_ERROR;
	} else if (path != CMP_USER) {
		ret = run_kernel_exec(kv, cfg, ex->pipe[0], &w, run);
	} else if (upath_run_exec(cfg, &ops, run, &refused)) {
		kvperf_errorf(kv, "%s", refused);
		snprintf(why, whylen, "%s", refused);
		ret = KVPERF_EXIT_ERROR;
	} else {
		ret = KVPERF_EXIT_OK;
	}
	timed_out = cmp_run_end(ex);
	if (!ret && (!KV_HAS(run, KVPERF_A_RUN_STATE) ||
		     run->state != KVPERF_RUN_STATE_DONE)) {
		cmp_run_reason(kv, run, timed_out, limit_ms, why, whylen);
		ret = KVPERF_EXIT_ERROR;
	}
	if (w.id) {
		struct cmp_capture cap;
		char what[48];
		int del;

		snprintf(what, sizeof(what), "deleting run %u", w.id);
		del = run_kernel_delete(cmp_capture_open(ex, &cap), w.id);
		cmp_capture_close(ex, &cap, what, del && !cmp_stopped(ex));
	}
	return ret;
}

/*
 * One kvperf run of a path in a round, of the sizes from the @from-th
 * row on, stopped after @limit ms. What it measured goes into the
 * result, a run that failed included (it measured up to the size it
 * failed at).
 *
 * Return: the row of the size it failed at, its reason in @why; r->count
 * when it measured every size (a compare io's run fails its directions
 * itself: it has one size); -1 when the compare is stopped, or it cannot
 * go on (@ex->fatal).
 */
static long cmp_measure_sizes(struct cmp_exec *ex, enum cmp_path path,
			      uint32_t round, size_t from, int64_t limit,
			      char *why, size_t whylen)
{
	struct cmp_result *r = ex->r;
	bool io = r->type == KVPERF_RUN_TYPE_IO;
	struct kv_run_cfg cfg;
	struct cmp_capture cap;
	char what[96], err[160];
	struct kv_run run;
	unsigned int tries;
	int64_t started;
	long at = -1;
	size_t i;
	int code, n;

	if (io) {
		cmp_io_cfg(&cfg, ex->o, path);
	} else {
		cmp_run_cfg(&cfg, ex->o, path);
		run_model_set_uint(&run_cfg_fields, &cfg, KVPERF_A_RUN_SIZE,
				   r->rows[from].size);
	}
	/* the user path's server may still be starting: retry at first */
	tries = round == 0 && from == 0 &&
		(io ? path == CMP_USER_TARGET : path == CMP_USER) ? 3 : 1;
	snprintf(what, sizeof(what), "round %u, %s%s", round + 1,
		 cmp_col_name(r->type, path), io ? "" : " path");
	for (;;) {
		started = cmp_now_ms();
		code = cmp_run_one(ex, cmp_capture_open(ex, &cap), path, &cfg,
				   &run, limit, why, whylen);
		if (!code && cmp_now_ms() - started > ex->longest_ms)
			ex->longest_ms = cmp_now_ms() - started;
		if (cmp_stopped(ex)) {
			cmp_capture_close(ex, &cap, what, false);
			goto out;
		}
		if (!code)
			break;
		if (code == KVPERF_EXIT_USAGE || code == KVPERF_EXIT_NOMODULE) {
			/* every other measurement would fail alike */
			cmp_capture_close(ex, &cap, what, true);
			ex->fatal = code;
			goto out;
		}
		/* a run that measured something failed at a size: no retry */
		if (--tries == 0 || cmp_run_results(r, &run))
			break;
		cmp_capture_close(ex, &cap, what, false);
		run_model_free(&run);
		if (!cmp_sleep(ex, CMP_RETRY_MS))
			goto out_cfg;
	}
	if (code && !why[0])
		cmp_capture_last(&cap, why, whylen);
	if (!code) {
		n = cmp_read_run(r, path, round, &run, err, sizeof(err));
		/* a bad result is a failure too */
		if (n < 0) {
			snprintf(why, whylen, "%s", err);
			kvperf_errorf(&cap.kv, "%s", err);
			code = KVPERF_EXIT_ERROR;
		}
	}
	/* what it measured before it failed holds */
	at = cmp_read_failed_run(r, path, round, from, code ? &run : NULL);
	if (code && io) {
		/* one block size: what it did not measure failed with it */
		for (i = from; i < r->count; i++)
			if (isnan(r->rows[i].cell[path].value[round]))
				cmp_cell_fail(r, &r->rows[i].cell[path], round,
					      why);
		cmp_capture_close(ex, &cap, what, true);
		at = r->count;
		goto out;
	}
	if (!code && at < (long)r->count) {
		snprintf(why, whylen, "the run has no result for this size");
		kvperf_errorf(&cap.kv, "%s", why);
		code = KVPERF_EXIT_ERROR;
	}
	if (code && at < (long)r->count)
		snprintf(what + strlen(what), sizeof(what) - strlen(what),
			 ", %u B", r->rows[at].size);
	cmp_capture_close(ex, &cap, what, code && at < (long)r->count);
out:
	run_model_free(&run);
out_cfg:
	run_cfg_clear(&cfg);
	return at;
}

/*
 * One kvperf measurement of a path in a round, every size, as
 * cmp_size_failed() says: a run that fails at a size keeps the sizes it
 * measured, and a new run measures the sizes after it. The runs share
 * the measurement's time limit, CMP_TIMEOUT_MS per size; the sizes left
 * at the limit are not tried, and say so.
 */
static void cmp_measure_kvperf(struct cmp_exec *ex, enum cmp_path path,
			       uint32_t round)
{
	int64_t limit = (int64_t)CMP_TIMEOUT_MS * ex->r->count;
	int64_t deadline = cmp_now_ms() + limit, left;
	char why[CMP_WHY_LEN];
	bool follows = false;
	size_t from = 0;
	long at;

	cmp_progress(ex, round, cmp_col_name(ex->o->type, path));
	while (from < ex->r->count) {
		left = deadline - cmp_now_ms();
		if (left <= 0) {
			snprintf(why, sizeof(why),
				 "not tried: the measurement's time limit (%lld s) was reached",
				 (long long)(limit / 1000));
			cmp_not_tried(ex->r, path, round, from, why);
			return;
		}
		at = cmp_measure_sizes(ex, path, round, from, left, why,
				       sizeof(why));
		if (at < 0 || at >= (long)ex->r->count)
			return;
		follows = follows && (size_t)at == from;
		from = cmp_size_failed(ex->r, path, round, at, follows, why);
		follows = true;
	}
}

/*
 * The client's command line behind "stdbuf -oL" when coreutils' stdbuf
 * is there: perftest's output to a file is block-buffered, so a client
 * stopped after its report would take the report with it, and one that
 * hangs earlier would not show how far it came.
 *
 * Return: true when @argv is line-buffered.
 */
static bool cmp_line_buffered(struct cmp_exec *ex,
			      const struct perftest_cmd *cli,
			      const char *argv[PERFTEST_ARGV_MAX + 2])
{
	int i = 0, j;

	if (ex->stdbuf_prog[0]) {
		argv[i++] = ex->stdbuf_prog;
		argv[i++] = "-oL";
	}
	for (j = 0; j <= cli->argc; j++)
		argv[i++] = cli->argv[j];
	return ex->stdbuf_prog[0];
}

/*
 * perftest failed in @round at @size, or, for 0, at every size it has no
 * value for: -a measures them in one process, which may have printed
 * some before it failed.
 */
static void cmp_perftest_fail(struct cmp_exec *ex, uint32_t round,
			      uint32_t size, const char *why)
{
	struct cmp_cell *c;
	size_t i;

	for (i = 0; i < ex->r->count; i++) {
		c = &ex->r->rows[i].cell[CMP_PERFTEST];
		if (size ? ex->r->rows[i].size == size : isnan(c->value[round]))
			cmp_cell_fail(ex->r, c, round, why);
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
	const char *cli_argv[PERFTEST_ARGV_MAX + 2], *report = NULL;
	struct perftest_cmd srv, cli;
	char err[160], what[64], why[CMP_WHY_LEN], last[CMP_WHY_LEN], *out;
	pid_t server, client;
	int status = 0, code = 0, tries, n = -1;
	bool cut = false;

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
	if (cmp_line_buffered(ex, &cli, cli_argv))
		report = ex->out;

	server = cmp_spawn(ex, srv.argv[0], srv.argv, ex->srv_out,
			   ex->srv_out);
	if (server < 0) {
		cmp_perftest_fail(ex, round, size, "cannot start its server");
		return;
	}
	if (!cmp_sleep(ex, CMP_PERFTEST_START_MS))
		goto out;
	for (tries = CMP_PERFTEST_TRIES; tries > 0; tries--) {
		client = cmp_spawn(ex, cli_argv[0], cli_argv, ex->out,
				   ex->out);
		if (client < 0) {
			code = -1;
			break;
		}
		status = cmp_wait_report(ex, client, timeout, true, report);
		cut = status == CMP_WAIT_REPORTED;
		code = cut ? 0 : cmp_exit_code(status);
		if (cmp_stopped(ex))
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
	out = client < 0 ? NULL : cmp_slurp(ex->out, NULL);
	/* -a prints each size as it goes: what it printed holds */
	if (out && (!code || !size))
		n = cmp_read_perftest(ex->r, round, out, err, sizeof(err));
	cmp_last_line(out, last, sizeof(last));
	free(out);
	if (n < 0 || code) {
		cmp_progress_clear(ex);
		if (code)
			kvperf_errorf(ex->kv, "%s failed (exit status %d):",
				      what, code);
		else
			kvperf_errorf(ex->kv, "%s: %s:", what, err);
		cmp_show_output(ex, ex->out, 12);
		if (client < 0)
			snprintf(why, sizeof(why), "cannot start %s", cli.prog);
		else if (status == -ETIMEDOUT)
			snprintf(why, sizeof(why),
				 "%s stopped at the time limit (%lld s)",
				 cli.prog, (long long)(timeout / 1000));
		else if (code)
			snprintf(why, sizeof(why), "%s exit status %d%s%.200s",
				 cli.prog, code, last[0] ? ": " : "", last);
		else
			snprintf(why, sizeof(why), "%s: %s", cli.prog, err);
		cmp_perftest_fail(ex, round, size, why);
	} else if (cut) {
		cmp_progress_clear(ex);
		kvperf_errorf(ex->kv,
			      "%s printed its result but had not ended %d s later (its closing exchange with its server): stopped, the result kept",
			      what, CMP_PERFTEST_CLOSE_MS / 1000);
	}
out:
	/* done with its client, the server ends by itself, unless it hung */
	if (server > 0)
		cmp_wait(ex, server, n < 0 || code || cut ? 0 :
				     CMP_KILL_GRACE_MS,
			 false);
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
	for (i = 0; i < ex->r->count && !cmp_stopped(ex); i++)
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
	if (!prog_find(prog, ex->perftest_prog,
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
	if (!prog_find("stdbuf", ex->stdbuf_prog, sizeof(ex->stdbuf_prog)))
		ex->stdbuf_prog[0] = '\0';
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
	    !cmp_join(ex->srv_out, sizeof(ex->srv_out), ex->dir, "server")) {
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
	if (o->type == KVPERF_RUN_TYPE_IO) {
		/* perftest has no I/O runs */
		ex->r->active[CMP_USER] = true;
		ex->r->active[CMP_USER_TARGET] = true;
		return KVPERF_EXIT_OK;
	}
	ex->r->active[CMP_KERNEL_BH] = o->post_context == CMP_POST_BOTH;
	ex->r->active[CMP_USER] = true;
	cmp_perftest_setup(ex);
	return KVPERF_EXIT_OK;
}

/* A round of a compare io: its three columns, one after the other. */
static void cmp_measure_io(struct cmp_exec *ex, uint32_t round)
{
	static const enum cmp_path cols[] = {
		CMP_KERNEL, CMP_USER, CMP_USER_TARGET,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cols); i++) {
		if (cmp_stopped(ex) || ex->fatal)
			return;
		cmp_measure_kvperf(ex, cols[i], round);
	}
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
		if (ex->o->type == KVPERF_RUN_TYPE_IO) {
			cmp_measure_io(ex, round);
			if (cmp_stopped(ex) || ex->fatal)
				break;
			continue;
		}
		cmp_measure_kvperf(ex, CMP_KERNEL, round);
		if (cmp_stopped(ex) || ex->fatal)
			break;
		if (ex->r->active[CMP_KERNEL_BH])
			cmp_measure_kvperf(ex, CMP_KERNEL_BH, round);
		if (cmp_stopped(ex) || ex->fatal)
			break;
		cmp_measure_kvperf(ex, CMP_USER, round);
		if (cmp_stopped(ex) || ex->fatal)
			break;
		if (ex->r->active[CMP_PERFTEST])
			cmp_measure_perftest(ex, round);
		if (cmp_stopped(ex))
			break;
	}
	cmp_progress_clear(ex);
	return ex->fatal;
}

/*
 * Run a compare and print it: KVPERF_EXIT_OK; KVPERF_EXIT_ERROR when a
 * measurement failed (the table still shows the others), on SIGINT or
 * SIGTERM, or when nothing could be measured; KVPERF_EXIT_NOMODULE
 * without the module.
 */
static int cmp_execute(struct kvperf *kv, const struct cmp_opts *o)
{
	struct cmp_exec ex = {
		.kv = kv, .o = o, .kernel_server = -1, .pipe = { -1, -1 },
		.deadline_ms = -1, .lock = PTHREAD_MUTEX_INITIALIZER,
	};
	struct cmp_result *r;
	struct printer p;
	sigset_t all;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r || cmp_result_init(r, o)) {
		free(r);
		kvperf_errorf(kv, "out of memory");
		return KVPERF_EXIT_ERROR;
	}
	ex.r = r;
	/* "\r" and "\033[K" only where a terminal shows them */
	ex.progress = cli_terminal(kv->err);
	sigemptyset(&ex.wait_set);
	sigaddset(&ex.wait_set, SIGCHLD);
	sigemptyset(&ex.stop_set);
	sigaddset(&ex.stop_set, SIGINT);
	sigaddset(&ex.stop_set, SIGTERM);
	/*
	 * Blocked before any thread starts, so blocked in all of them:
	 * SIGCHLD is taken with sigtimedwait() by this thread, so that
	 * waiting for perftest costs no CPU, SIGINT and SIGTERM by the
	 * signal thread.
	 */
	sigemptyset(&all);
	sigaddset(&all, SIGCHLD);
	sigaddset(&all, SIGINT);
	sigaddset(&all, SIGTERM);
	sigprocmask(SIG_BLOCK, &all, &ex.old_mask);

	ret = cmp_signals_start(&ex);
	if (!ret)
		ret = cmp_tmpdir(&ex);
	if (!ret)
		ret = cmp_prepare(&ex);
	if (!ret)
		ret = cmp_rounds(&ex);
	cmp_user_server_stop(&ex);
	cmp_kernel_server_stop(&ex);
	cmp_signals_stop(&ex);

	if (!ret && cmp_stopped(&ex)) {
		kvperf_errorf(kv, "interrupted");
		ret = KVPERF_EXIT_ERROR;
	}
	if (!ret) {
		pr_init(&p, kv->out, kv->json, kv->pretty);
		cmp_print(&p, r);
		if (o->plot)
			ret = plot_draw(kv, r, o->plot, ex.dir);
		if (!ret && cmp_exit_status(r)) {
			unsigned int total, failed = cmp_failures(r, &total);

			kvperf_errorf(kv, "%u of %u measurements failed%s",
				      failed, total, kv->json ?
				      " (their cells' failures say where and why)" :
				      " (the notes under the table say where and why)");
			ret = cmp_exit_status(r);
		}
	}
	cmp_tmpdir_remove(&ex);
	sigprocmask(SIG_SETMASK, &ex.old_mask, NULL);
	cmp_result_free(r);
	free(r);
	return ret;
}

static int cmp_measure(struct kvperf *kv, struct args *a, uint8_t type)
{
	struct cmp_opts o;
	int ret;

	ret = show_cmd_help(kv, a, &compare_object, cmp_keywords,
			    CMP_KW_COUNT);
	if (ret >= 0)
		return ret;
	ret = cmp_parse(kv, a, type, &o);
	if (ret)
		return ret;
	return cmp_execute(kv, &o);
}

static int cmp_io(struct kvperf *kv, struct args *a)
{
	struct cmp_opts o;
	int ret;

	ret = show_cmd_help(kv, a, &compare_object, NULL, 0);
	if (ret >= 0)
		return ret;
	ret = cmp_parse_io(kv, a, &o);
	if (!ret)
		ret = cmp_execute(kv, &o);
	run_cfg_clear(&o.io);
	return ret;
}

static int cmp_lat(struct kvperf *kv, struct args *a)
{
	return cmp_measure(kv, a, KVPERF_RUN_TYPE_LAT);
}

static int cmp_bw(struct kvperf *kv, struct args *a)
{
	return cmp_measure(kv, a, KVPERF_RUN_TYPE_BW);
}

static const struct kvperf_cmd cmp_lat_cmd = {
	.name = "lat",
	.summary = "compare latency",
	.run = cmp_lat,
};

static const struct kvperf_cmd cmp_bw_cmd = {
	.name = "bw",
	.summary = "compare bandwidth",
	.run = cmp_bw,
};

static const struct kvperf_cmd cmp_io_cmd = {
	.name = "io",
	.summary = "compare storage-shaped I/O: hosts and targets",
	.run = cmp_io,
};

static const struct kvperf_cmd *const cmp_cmds[] = {
	&cmp_lat_cmd,
	&cmp_bw_cmd,
	&cmp_io_cmd,
	NULL,
};

static int cmp_run(struct kvperf *kv, struct args *a)
{
	const struct kvperf_cmd *cmd;
	const char *w = args_next(a);

	if (!w)
		return kvperf_usage(kv, "compare", "missing lat, bw or io");
	cmd = strcmp(w, "help") ? cli_lookup(cmp_cmds, w) : NULL;
	if (cmd)
		return cmd->run(kv, a);
	if (args_matches(w, "help")) {
		if (!args_empty(a))
			return kvperf_no_more_args(kv, a, "compare");
		compare_object.help(kv->out);
		return KVPERF_EXIT_OK;
	}
	return kvperf_usage(kv, "compare", "unknown compare command '%s'", w);
}

static void cmp_help(FILE *f)
{
	fputs("Usage: kvperf [-j [-p]] compare lat op {send|write|read} addr ADDR [port PORT]\n"
	      "              [size N | sizes all | sizes MIN-MAX] [rounds R] [iters N]\n"
	      "              [poll {busy|softirq|workqueue}] [inline N]\n"
	      "              [plot FILE.svg|FILE.png] [no-perftest] [remote]\n"
	      "              [post-context {process|bh|both}] [timeout TIME]\n"
	      "       kvperf [-j [-p]] compare bw op {send|write|read} addr ADDR [port PORT]\n"
	      "              [size N | sizes all | sizes MIN-MAX] [rounds R] [iters N]\n"
	      "              [poll {busy|softirq|workqueue}] [inline N]\n"
	      "              [plot FILE.svg|FILE.png] [no-perftest] [remote]\n"
	      "              [tx-depth N] [qps N] [signal-every N]\n"
	      "              [post-context {process|bh|both}] [timeout TIME]\n"
	      "       kvperf [-j [-p]] compare io addr ADDR [RUN-IO-KEYWORDS...]\n"
	      "              [rounds R] [remote]\n"
	      "       kvperf compare help\n"
	      "\n"
	      "Run the same test on the kernel path (kvperf run ... path kernel), the\n"
	      "user path (kvperf run ... path user) and, where perftest is installed,\n"
	      "with the matching ib_{send,write,read}_{lat,bw}, one after the other in\n"
	      "each of R rounds, so that drift hits all alike. Then print, per message\n"
	      "size, each column's median over the rounds with the min-max spread and\n"
	      "the ratios kernel/user and kernel/perftest of the medians: for lat the\n"
	      "p50 latency (perftest's t_typical) in usec, below 1 when the kernel path\n"
	      "is faster; for bw the average bandwidth in MiB/s, above 1 when it is.\n"
	      "\n"
	      "ADDR must be an address of this host: compare starts what it measures\n"
	      "against. The kernel path uses the kvperf server on ADDR:PORT (started,\n"
	      "and stopped at the end, when kvperf server show has none), the user path\n"
	      "a user-path server it runs on PORT+1, perftest a server per measurement\n"
	      "on PORT+2, on the RDMA device that owns ADDR; the servers it starts\n"
	      "reap completions with its poll. With remote, ADDR is\n"
	      "another host's, where these are started by hand:\n"
	      "  kvperf server start addr ADDR port PORT\n"
	      "  kvperf server start addr ADDR port PORT+1 path user\n"
	      "and perftest is left out (its server serves one measurement only).\n"
	      "\n"
	      "  op           send, write or read\n"
	      "  addr         a local IPv4 or IPv6 address on an RDMA device\n"
	      "  port         the kernel path's server port (default 18515)\n"
	      "  size         message size, K and M suffixes (default 2; bw 64K)\n"
	      "  sizes        all: 2 B to 8 MiB; MIN-MAX: MIN doubled until MAX\n"
	      "  rounds       rounds, 1 to 100 (default 5)\n"
	      "  iters        iterations per size (lat, default 1000), or messages\n"
	      "               per queue pair (bw, default 5000), for every column\n"
	      "  poll         completion handling of kvperf (default busy), of\n"
	      "               its clients and of the servers compare starts;\n"
	      "               perftest polls for busy, waits for events (-e) else\n"
	      "  inline       send inline up to N bytes (send and write; perftest\n"
	      "               gets -I 0 unless given, as kvperf's default)\n"
	      "  plot         draw with gnuplot (Debian package gnuplot-nox): lat,\n"
	      "               the latency CDF of each column's median round, one\n"
	      "               panel per size (the first size when more than 4);\n"
	      "               bw, bandwidth against message size\n"
	      "  no-perftest  leave perftest out (it is left out by itself where it\n"
	      "               cannot run the test, e.g. an IPv6 ADDR with a perftest\n"
	      "               that has no --ipv6-addr; the header says why)\n"
	      "  remote       ADDR is another host's, with the servers started there\n"
	      "  tx-depth     bw: work requests in flight per queue pair (perftest -t)\n"
	      "  qps          bw: queue pairs (perftest -q)\n"
	      "  signal-every bw: a completion at least every N work requests, 1 to\n"
	      "               tx-depth (default 100, or tx-depth when smaller); perftest\n"
	      "               always gets it as -Q, since on its own it asks for\n"
	      "               every completion above 8 KiB\n"
	      "  post-context how the kernel path posts (kvperf run ... post-context):\n"
	      "               process (default) or bh for the kernel column; both\n"
	      "               adds a column kernel-bh, measured with bh right after\n"
	      "               the kernel column (process) in every round. The user\n"
	      "               path and perftest are unchanged\n"
	      "  timeout      the kvperf runs' timeout (kvperf run ... timeout): a\n"
	      "               run fails after this long without a completion or\n"
	      "               event (default: each run's own, as kvperf run\n"
	      "               derives it from what is in flight, 5s to 120s);\n"
	      "               perftest has none\n"
	      "\n"
	      "compare io takes every keyword of kvperf run io (rw, bs, qd, queues,\n"
	      "cpus, segments, reg, inv, inline-data, iters or time, warmup, verify,\n"
	      "poll, stats, port, timeout) but path, no-wait, interval, key, key-file\n"
	      "and bss (one block size), and measures three columns each round:\n"
	      "kernel, the kernel host against the kernel target on PORT; user-host,\n"
	      "the user host against the same target (with reg pre: user space has no\n"
	      "FRWR, it registers each block once, at connect); user-target, the\n"
	      "kernel host against the user target on PORT+1. Rounds and remote are\n"
	      "given in full. Per direction (read, write, or both for randmix) it\n"
	      "prints the median (min-max) of each column's IOPS, p50 and p99\n"
	      "completion latency, the ratios kernel/user-host and kernel/user-target\n"
	      "of the medians (IOPS above 1, latency below 1: the kernel side is\n"
	      "faster), and registration and invalidation as a share of the summed\n"
	      "latency.\n"
	      "\n"
	      "The kvperf measurements run in this process (the user path's server\n"
	      "too, on a thread of its own); perftest's are a client process against\n"
	      "its own server (-R -F -p PORT+2), the only programs compare runs.\n"
	      "\n"
	      "What failed is said where it failed, and the rest is kept. A kvperf\n"
	      "run that fails at a size keeps the sizes it measured; that size fails\n"
	      "and a new run measures the sizes after it (after two sizes in a row\n"
	      "fail, the rest of that round's sizes of that column are not tried).\n"
	      "perftest runs a size at a time (sizes all: what it printed holds). A\n"
	      "cell whose rounds all failed reads \"failed [N]\", one with some\n"
	      "failed its numbers and [N]; note N under the table says the column,\n"
	      "the size, the rounds and the error. -j gives each cell its failures\n"
	      "(round, an index into values, and error); a plot leaves a gap and\n"
	      "names the paths and sizes that failed. The exit status is then 1.\n"
	      "\n"
	      "-j prints every round's value, for lat also each round's min, p50,\n"
	      "p90, p99, p99.9 and max (perftest has no p90: null), and the\n"
	      "environment: kernel, device, CPU model, TCG (an emulated guest, where\n"
	      "numbers are low and noisy), perftest's version. Needs CAP_NET_ADMIN,\n"
	      "as kvperf run does.\n"
	      "\n"
	      "Examples:\n"
	      "  kvperf compare lat op send addr 198.18.0.1 size 64 rounds 3\n"
	      "  kvperf compare lat op write addr 198.18.0.1 sizes 2-4K plot lat.svg\n"
	      "  kvperf compare bw op write addr 198.18.0.1 sizes 4K-1M iters 2000 plot bw.png\n"
	      "  kvperf -j -p compare lat op read addr 198.18.0.1 poll softirq no-perftest\n"
	      "  kvperf compare lat op send addr 198.18.0.1 size 64 post-context both\n"
	      "  kvperf compare lat op send addr 192.0.2.7 remote\n"
	      "  kvperf compare io addr 198.18.0.1 rw randmix 70 bs 4K qd 16 time 5 rounds 3\n", f);
}

const struct kvperf_cmd compare_object = {
	.name = "compare",
	.summary = "kernel path, user path and perftest side by side",
	.run = cmp_run,
	.help = cmp_help,
};
