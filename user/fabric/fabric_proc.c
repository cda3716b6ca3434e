// SPDX-License-Identifier: GPL-2.0
/*
 * Children of kvperf fabric: the launcher on the coordinator, kvperf
 * itself on a host. Each runs in a process group of its own (so that
 * stopping it stops what it started, pdsh's ssh, a run's threads), dies
 * with us (PR_SET_PDEATHSIG), reads nothing; its stdout is handed over a
 * line at a time, the last lines of its stderr kept for the messages.
 * A child that outlives its time, or whose caller is told to stop (a
 * signal on the caller's signalfd), gets SIGTERM, then SIGKILL.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <json-c/json.h>

#include "fabric.h"

/* a stopped child gets this long after SIGTERM before SIGKILL */
#define PROC_KILL_GRACE_MS	5000
/* the longest line taken; longer ones are cut there */
#define PROC_LINE_MAX		(4u << 20)

/**
 * fabric_self_exe() - the kvperf program running
 *
 * Return: its path, for running kvperf again on this host.
 */
const char *fabric_self_exe(void)
{
	static char path[4096];
	ssize_t n;

	if (!path[0]) {
		n = readlink("/proc/self/exe", path, sizeof(path) - 1);
		if (n <= 0 || (size_t)n >= sizeof(path) - 1)
			snprintf(path, sizeof(path), "kvperf");
		else
			path[n] = '\0';
	}
	return path;
}

struct proc_buf {
	char *data;
	size_t len, cap;
};

static void proc_buf_free(struct proc_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* Append @n bytes; past PROC_LINE_MAX they are dropped. */
static void proc_buf_put(struct proc_buf *b, const char *s, size_t n)
{
	size_t cap;
	char *p;

	if (b->len + n + 1 > PROC_LINE_MAX)
		n = b->len + 1 < PROC_LINE_MAX ? PROC_LINE_MAX - b->len - 1 : 0;
	if (b->len + n + 1 > b->cap) {
		cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->data, cap);
		if (!p)
			return;
		b->data = p;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

/* Hand over every whole line of @b; @flush: the rest too. */
static void proc_lines(struct fabric_proc *p, struct proc_buf *b, bool flush)
{
	char *s, *nl;
	size_t used;

	if (!b->data)
		return;
	s = b->data;
	while ((nl = memchr(s, '\n', b->len - (size_t)(s - b->data)))) {
		*nl = '\0';
		if (p->line)
			p->line(p->arg, s);
		s = nl + 1;
	}
	used = (size_t)(s - b->data);
	if (flush && used < b->len) {
		if (p->line)
			p->line(p->arg, s);
		used = b->len;
	}
	memmove(b->data, b->data + used, b->len - used);
	b->len -= used;
	b->data[b->len] = '\0';
}

/* Keep the last FABRIC_ERR_LEN - 1 bytes of stderr in @p->err. */
static void proc_err_put(struct fabric_proc *p, const char *s, size_t n)
{
	size_t have = strlen(p->err), room = sizeof(p->err) - 1;

	if (n >= room) {
		memcpy(p->err, s + n - room, room);
		p->err[room] = '\0';
		return;
	}
	if (have + n > room) {
		memmove(p->err, p->err + (have + n - room), room - n);
		have = room - n;
	}
	memcpy(p->err + have, s, n);
	p->err[have + n] = '\0';
}

static pid_t proc_spawn(char *const *argv, int out[2], int err[2])
{
	pid_t parent = getpid(), pid;
	sigset_t all;
	int null;

	pid = fork();
	if (pid)
		return pid;
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(127);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	signal(SIGPIPE, SIG_DFL);
	null = open("/dev/null", O_RDONLY);
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	dup2(out[1], STDOUT_FILENO);
	dup2(err[1], STDERR_FILENO);
	close(out[0]);
	close(err[0]);
	execvp(argv[0], argv);
	dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0],
		strerror(errno));
	_exit(127);
}

static void proc_signal(pid_t pid, int sig)
{
	/* the group, and the child itself if it has not made it yet */
	kill(-pid, sig);
	kill(pid, sig);
}

/**
 * fabric_proc_run() - run a child to its end
 * @p: the child; @p->err, @p->status and the flags are filled in
 *
 * Return: 0 when it ran (whatever its status), -errno when it could not
 * be started (@p->err says why).
 */
int fabric_proc_run(struct fabric_proc *p)
{
	struct proc_buf out = { 0 };
	struct pollfd fds[3];
	uint64_t start = fabric_now_ms(), kill_at = 0;
	int opipe[2], epipe[2], wstatus = 0, open_fds = 2;
	bool term_sent = false, reaped = false;
	char buf[65536];
	ssize_t n;
	pid_t pid;

	p->err[0] = '\0';
	p->status = -1;
	p->timed_out = p->interrupted = false;
	if (pipe2(opipe, O_CLOEXEC))
		goto fail;
	if (pipe2(epipe, O_CLOEXEC)) {
		close(opipe[0]);
		close(opipe[1]);
		goto fail;
	}
	pid = proc_spawn(p->argv, opipe, epipe);
	close(opipe[1]);
	close(epipe[1]);
	if (pid < 0) {
		close(opipe[0]);
		close(epipe[0]);
		goto fail;
	}
	fds[0] = (struct pollfd){ .fd = opipe[0], .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = epipe[0], .events = POLLIN };
	fds[2] = (struct pollfd){ .fd = p->sigfd, .events = POLLIN };
	while (open_fds || !reaped) {
		uint64_t now = fabric_now_ms();
		int wait_ms = 200;

		if (!term_sent && p->timeout_ms &&
		    now - start >= p->timeout_ms) {
			p->timed_out = true;
			term_sent = true;
		}
		if (term_sent && !kill_at) {
			proc_signal(pid, SIGTERM);
			kill_at = now + PROC_KILL_GRACE_MS;
		}
		if (kill_at && now >= kill_at) {
			proc_signal(pid, SIGKILL);
			kill_at = UINT64_MAX;
		}
		if (!reaped && waitpid(pid, &wstatus, WNOHANG) == pid) {
			reaped = true;
			/* what it left running in its group goes with it */
			kill(-pid, SIGKILL);
		}
		if (!open_fds) {
			if (!reaped)
				poll(NULL, 0, 50);
			continue;
		}
		if (poll(fds, p->sigfd >= 0 ? 3 : 2, wait_ms) < 0 &&
		    errno != EINTR) {
			/* nothing more can be read: the child is not waited for */
			snprintf(p->err, sizeof(p->err), "poll: %s",
				 strerror(errno));
			proc_signal(pid, SIGKILL);
			break;
		}
		if (p->sigfd >= 0 && (fds[2].revents & POLLIN)) {
			struct signalfd_siginfo si;

			if (read(p->sigfd, &si, sizeof(si)) > 0) {
				p->interrupted = true;
				term_sent = true;
			}
		}
		if (fds[0].fd >= 0 && fds[0].revents) {
			n = read(fds[0].fd, buf, sizeof(buf));
			if (n > 0) {
				proc_buf_put(&out, buf, (size_t)n);
				proc_lines(p, &out, false);
			} else if (n == 0 || errno != EINTR) {
				close(fds[0].fd);
				fds[0].fd = -1;
				open_fds--;
			}
		}
		if (fds[1].fd >= 0 && fds[1].revents) {
			n = read(fds[1].fd, buf, sizeof(buf));
			if (n > 0) {
				proc_err_put(p, buf, (size_t)n);
			} else if (n == 0 || errno != EINTR) {
				close(fds[1].fd);
				fds[1].fd = -1;
				open_fds--;
			}
		}
		/* a grandchild may hold the pipes after the child ended */
		if (reaped && open_fds && !kill_at)
			kill_at = fabric_now_ms() + PROC_KILL_GRACE_MS;
	}
	if (fds[0].fd >= 0)
		close(fds[0].fd);
	if (fds[1].fd >= 0)
		close(fds[1].fd);
	proc_lines(p, &out, true);
	proc_buf_free(&out);
	if (!reaped)
		waitpid(pid, &wstatus, 0);
	p->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) :
		    128 + WTERMSIG(wstatus);
	return 0;

fail:
	snprintf(p->err, sizeof(p->err), "cannot start %s: %s", p->argv[0],
		 strerror(errno));
	return -errno;
}

struct self_out {
	struct proc_buf buf;
};

static void self_line(void *arg, char *line)
{
	struct self_out *o = arg;

	proc_buf_put(&o->buf, line, strlen(line));
	proc_buf_put(&o->buf, "\n", 1);
}

/* The last non-empty line of @s, for a message. */
static const char *last_line(char *s)
{
	size_t n = strlen(s);
	char *nl;

	while (n && s[n - 1] == '\n')
		s[--n] = '\0';
	nl = strrchr(s, '\n');
	return nl ? nl + 1 : s;
}

/**
 * fabric_self_json() - run this kvperf with -j and read what it prints
 * @args: its arguments after -j, NULL-terminated
 * @timeout_ms: stopped after this long
 * @sigfd: a signal on it stops the child, or -1
 * @status: its exit status
 * @err: the reason when it failed or printed no JSON: its last line of
 *	 stderr, or what went wrong
 * @errlen: room in @err
 *
 * Return: what it printed, parsed (json_object_put() it); NULL when it
 * printed nothing that parses (its status may still be 0).
 */
struct json_object *fabric_self_json(const char *const *args,
				     unsigned int timeout_ms, int sigfd,
				     int *status, char *err, size_t errlen)
{
	const char *argv[64];
	struct self_out o = { 0 };
	struct fabric_proc p = {
		.argv = (char *const *)argv,
		.timeout_ms = timeout_ms,
		.sigfd = sigfd,
		.line = self_line,
		.arg = &o,
	};
	struct json_object *j = NULL;
	unsigned int n = 0;

	argv[n++] = fabric_self_exe();
	argv[n++] = "-j";
	while (*args && n < 63)
		argv[n++] = *args++;
	argv[n] = NULL;
	err[0] = '\0';
	if (fabric_proc_run(&p)) {
		snprintf(err, errlen, "%s", p.err);
		*status = -1;
		return NULL;
	}
	*status = p.status;
	if (o.buf.data)
		j = json_tokener_parse(o.buf.data);
	if (p.timed_out)
		snprintf(err, errlen, "did not end within %u ms", timeout_ms);
	else if (p.interrupted)
		snprintf(err, errlen, "interrupted");
	else if (p.status)
		snprintf(err, errlen, "%s", p.err[0] ? last_line(p.err) :
			 "failed with no message");
	else if (!j)
		snprintf(err, errlen, "printed no JSON");
	proc_buf_free(&o.buf);
	return j;
}
