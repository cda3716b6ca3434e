// SPDX-License-Identifier: GPL-2.0
/*
 * The unit test runner: runs the program's tests, prints KTAP, exits
 * non-zero when a test fails. Also the checks and helpers of unit.h but
 * the netlink ones (unit_nl.c), so that a test of something without
 * netlink links no libnl.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

#define PYTHON	"/usr/bin/python3"

static bool failed;
static const char *skipped;

void unit_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("# %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	failed = true;
}

void unit_skip(const char *why)
{
	skipped = why;
}

/* Diagnostics are KTAP comments: one "# " line per line of a value. */
static void print_value(const char *label, const char *s)
{
	printf("#   %s:", label);
	if (!s) {
		printf(" (null)\n");
		return;
	}
	printf("\n#     ");
	for (; *s; s++) {
		if (*s != '\n')
			putchar(*s);
		else if (s[1])
			printf("\\n\n#     ");
		else
			printf("\\n");
	}
	putchar('\n');
}

bool unit_check_str(const char *file, int line, const char *expr,
		    const char *got, const char *want)
{
	if (got && want && !strcmp(got, want))
		return true;
	unit_fail(file, line, "%s differs", expr);
	print_value("got", got);
	print_value("want", want);
	return false;
}

bool unit_check_int(const char *file, int line, const char *expr,
		    long long got, long long want)
{
	if (got == want)
		return true;
	unit_fail(file, line, "%s is %lld, want %lld", expr, got, want);
	return false;
}

bool unit_check_u64(const char *file, int line, const char *expr,
		    uint64_t got, uint64_t want)
{
	if (got == want)
		return true;
	unit_fail(file, line, "%s is %" PRIu64 ", want %" PRIu64, expr, got,
		  want);
	return false;
}

FILE *cap_open(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	if (!c->f) {
		perror("open_memstream");
		exit(1);
	}
	return c->f;
}

const char *cap_str(struct capture *c)
{
	fflush(c->f);
	return c->buf;
}

void cap_close(struct capture *c)
{
	fclose(c->f);
	free(c->buf);
}

static const char json_prog[] =
	"import json, sys\n"
	"text = sys.stdin.buffer.read().decode('utf-8')\n"
	"if sys.argv[1] == 'lines':\n"
	"    assert text.endswith('\\n'), 'no final newline'\n"
	"    d = [json.loads(l) for l in text.splitlines()]\n"
	"else:\n"
	"    d = json.loads(text)\n"
	"exec(sys.argv[2])\n";

/* Python's complaints, as KTAP diagnostics. */
static void print_fd(int fd)
{
	char buf[4096];
	size_t len = 0;
	ssize_t n;

	while (len < sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	if (len)
		print_value("python3 said", buf);
}

bool unit_check_json(const char *file, int line, const char *text,
		     const char *script, bool lines)
{
	int in[2], err[2], status;
	size_t len = strlen(text);
	pid_t pid;

	if (access(PYTHON, X_OK)) {
		unit_skip(PYTHON " not found");
		return true;
	}
	if (pipe(in) || pipe(err)) {
		unit_fail(file, line, "pipe: %s", strerror(errno));
		return false;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		unit_fail(file, line, "fork: %s", strerror(errno));
		return false;
	}
	if (!pid) {
		dup2(in[0], 0);
		dup2(err[1], 1);
		dup2(err[1], 2);
		close(in[0]);
		close(in[1]);
		close(err[0]);
		close(err[1]);
		execl(PYTHON, "python3", "-c", json_prog,
		      lines ? "lines" : "one", script, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(err[1]);
	if (write(in[1], text, len) != (ssize_t)len)
		unit_fail(file, line, "short write to python3");
	close(in[1]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		unit_fail(file, line, "python3 rejected the JSON or the check");
		print_fd(err[0]);
		print_value("check", script);
		print_value("JSON", text);
		close(err[0]);
		return false;
	}
	close(err[0]);
	return true;
}

int main(void)
{
	unsigned int n = 0, i = 0, pass = 0, fail = 0, skip = 0;
	const struct unit_test *t;

	/* a python3 that dies early must not kill us through SIGPIPE */
	signal(SIGPIPE, SIG_IGN);

	for (t = unit_tests; t->name; t++)
		n++;

	printf("TAP version 13\n1..%u\n", n);
	for (t = unit_tests; t->name; t++) {
		failed = false;
		skipped = NULL;
		t->fn();
		i++;
		if (failed) {
			printf("not ok %u - %s\n", i, t->name);
			fail++;
		} else if (skipped) {
			printf("ok %u - %s # SKIP %s\n", i, t->name, skipped);
			skip++;
		} else {
			printf("ok %u - %s\n", i, t->name);
			pass++;
		}
		fflush(stdout);
	}
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0\n",
	       pass, fail, skip);
	return fail ? 1 : 0;
}
