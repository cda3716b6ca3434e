// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/cli/cli.c: global options, dispatch with abbreviations,
 * help at every level, usage errors and their exit codes. A fake object
 * table records what ran; the real dev and monitor objects are driven
 * only down paths that end before any netlink socket is opened.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "kvperf.h"
#include "unit.h"
#include "version.h"

static char ran[256];

static int record(const char *what, struct kvperf *kv, struct args *a)
{
	const char *w;

	snprintf(ran, sizeof(ran), "%s%s%s", what, kv->json ? " json" : "",
		 kv->pretty ? " pretty" : "");
	while ((w = args_next(a))) {
		strncat(ran, " ", sizeof(ran) - strlen(ran) - 1);
		strncat(ran, w, sizeof(ran) - strlen(ran) - 1);
	}
	return 42;
}

static int fake_show(struct kvperf *kv, struct args *a)
{
	return record("show", kv, a);
}

static int fake_set(struct kvperf *kv, struct args *a)
{
	return record("set", kv, a);
}

static int fake_hello(struct kvperf *kv, struct args *a)
{
	return record("hello", kv, a);
}

static int fake_srv_run(struct kvperf *kv, struct args *a)
{
	return record("server", kv, a);
}

static const struct kvperf_cmd cmd_show = { .name = "show", .run = fake_show };
static const struct kvperf_cmd cmd_set = { .name = "set", .run = fake_set };
/* a command that starts like "help" must not hide help */
static const struct kvperf_cmd cmd_hello = { .name = "hello",
					     .run = fake_hello };

static const struct kvperf_cmd *const fake_cmds[] = {
	&cmd_show, &cmd_set, &cmd_hello, NULL,
};

static const struct kvperf_cmd fake_dev;

static int fake_dev_run(struct kvperf *kv, struct args *a)
{
	return kvperf_dispatch(kv, a, &fake_dev, fake_cmds);
}

static void fake_dev_help(FILE *f)
{
	fputs("fake dev help\n", f);
}

static const struct kvperf_cmd fake_dev = {
	.name = "dev",
	.summary = "the fake dev",
	.run = fake_dev_run,
	.help = fake_dev_help,
};

static void fake_srv_help(FILE *f)
{
	fputs("fake server help\n", f);
}

static const struct kvperf_cmd fake_server = {
	.name = "server",
	.summary = "the fake server",
	.run = fake_srv_run,
	.help = fake_srv_help,
};

static const struct kvperf_cmd *const fake_objects[] = {
	&fake_dev, &fake_server, NULL,
};

static const struct kvperf_cmd *const real_objects[] = {
	&dev_object, &monitor_object, NULL,
};

struct run {
	int ret;
	struct capture out;
	struct capture err;
};

/* Run a command line, given as words after "kvperf", NULL-terminated. */
static void run_words(struct run *r, const struct kvperf_cmd *const *objs,
		      const char *const *words)
{
	struct kvperf kv = { 0 };
	char *argv[16];
	int argc = 0;

	argv[argc++] = "kvperf";
	while (*words && argc < 15)
		argv[argc++] = (char *)*words++;
	argv[argc] = NULL;
	ran[0] = '\0';
	kv.out = cap_open(&r->out);
	kv.err = cap_open(&r->err);
	r->ret = kvperf_main(&kv, argc, argv, objs);
	cap_str(&r->out);
	cap_str(&r->err);
}

#define RUN(r, objs, ...)						\
	run_words((r), (objs), (const char *const []){ __VA_ARGS__, NULL })

static void run_done(struct run *r)
{
	cap_close(&r->out);
	cap_close(&r->err);
}

static void cli_global_options(void)
{
	struct run r;

	RUN(&r, fake_objects, "-j", "dev");
	CHECK_INT(r.ret, 42);
	CHECK_STR(ran, "show json");
	run_done(&r);

	/* -p means pretty JSON, so it implies -j */
	RUN(&r, fake_objects, "-p", "dev");
	CHECK_STR(ran, "show json pretty");
	run_done(&r);

	RUN(&r, fake_objects, "-jp", "dev", "show", "x");
	CHECK_STR(ran, "show json pretty x");
	run_done(&r);

	RUN(&r, fake_objects, "--json", "--pretty", "dev");
	CHECK_STR(ran, "show json pretty");
	run_done(&r);

	RUN(&r, fake_objects, "dev");
	CHECK_STR(ran, "show");
	CHECK_STR(r.out.buf, "");
	CHECK_STR(r.err.buf, "");
	run_done(&r);
}

static void cli_bad_options(void)
{
	struct run r;

	RUN(&r, fake_objects, "-x", "dev");
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	CHECK_STR(r.err.buf,
		  "kvperf: unknown option '-x' (try 'kvperf help')\n");
	CHECK_STR(ran, "");
	run_done(&r);

	RUN(&r, fake_objects, "-jq", "dev");
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	CHECK_STR(r.err.buf,
		  "kvperf: unknown option '-q' (try 'kvperf help')\n");
	run_done(&r);

	/* long options are not abbreviated */
	RUN(&r, fake_objects, "--js", "dev");
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	CHECK_STR(r.err.buf,
		  "kvperf: unknown option '--js' (try 'kvperf help')\n");
	run_done(&r);

	/* "--" ends the options */
	RUN(&r, fake_objects, "--", "-j");
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	CHECK_STR(r.err.buf,
		  "kvperf: unknown object '-j' (try 'kvperf help')\n");
	run_done(&r);

	/* an option after the object: where it goes, the line meant */
	RUN(&r, fake_objects, "dev", "show", "-j", "rxe0");
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	CHECK_STR(ran, "");
	CHECK_STR(r.err.buf,
		  "kvperf: option '-j' after the object: options go before it, "
		  "as in 'kvperf -j dev show rxe0' (try 'kvperf dev help')\n");
	run_done(&r);

	RUN(&r, fake_objects, "-j", "d", "sh", "rxe0", "--pretty", "-jp");
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	CHECK_STR(r.err.buf,
		  "kvperf: option '--pretty' after the object: options go before "
		  "it, as in 'kvperf -j --pretty -jp d sh rxe0' (try 'kvperf dev help')\n");
	run_done(&r);

	/* a word that only looks like one is the object's to judge */
	RUN(&r, fake_objects, "dev", "show", "-1");
	CHECK_STR(ran, "show -1");
	run_done(&r);
}

static void cli_version(void)
{
	char want[160];
	struct run r;

	snprintf(want, sizeof(want), "kvperf %s\n"
		 "built for the kvperf netlink family, version 1\n",
		 KVPERF_VERSION);
	RUN(&r, fake_objects, "-V");
	CHECK_INT(r.ret, KVPERF_EXIT_OK);
	CHECK_STR(r.out.buf, want);
	CHECK_STR(r.err.buf, "");
	run_done(&r);

	/* version wins over an object, which does not run */
	RUN(&r, fake_objects, "--version", "dev");
	CHECK_INT(r.ret, KVPERF_EXIT_OK);
	CHECK_STR(r.out.buf, want);
	CHECK_STR(ran, "");
	run_done(&r);
}

/* The version is the tree's, as user/version.sh says, not a literal. */
static void cli_version_is_the_trees(void)
{
	char exe[PATH_MAX], cmd[PATH_MAX + 96], line[128] = "";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = NULL;

	/* the tree the unit tests were built in: selftests/unit/.. /.. */
	if (n > 0) {
		exe[n] = '\0';
		snprintf(cmd, sizeof(cmd),
			 "\"$(dirname '%s')/../../user/version.sh\" 2>/dev/null",
			 exe);
		f = popen(cmd, "r");
	}
	if (!f || !fgets(line, sizeof(line), f) || !line[0]) {
		if (f)
			pclose(f);
		unit_skip("user/version.sh says no version");
		return;
	}
	pclose(f);
	line[strcspn(line, "\n")] = '\0';
	CHECK_STR(KVPERF_VERSION, line);
}

static void cli_objects_abbreviated(void)
{
	struct run r;

	RUN(&r, fake_objects, "d", "sh", "rxe0");
	CHECK_INT(r.ret, 42);
	CHECK_STR(ran, "show rxe0");
	run_done(&r);

	RUN(&r, fake_objects, "de", "se", "a", "b");
	CHECK_STR(ran, "set a b");
	run_done(&r);

	RUN(&r, fake_objects, "s", "x");
	CHECK_STR(ran, "server x");
	run_done(&r);

	/* "s" is show and set: the first in table order wins */
	RUN(&r, fake_objects, "dev", "s");
	CHECK_STR(ran, "show");
	run_done(&r);

	RUN(&r, fake_objects, "dev", "hel");
	CHECK_STR(ran, "hello");
	run_done(&r);
}

static void cli_unknown_words(void)
{
	struct run r;

	RUN(&r, fake_objects, "foo");
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	CHECK_STR(r.err.buf,
		  "kvperf: unknown object 'foo' (try 'kvperf help')\n");
	CHECK_STR(r.out.buf, "");
	run_done(&r);

	RUN(&r, fake_objects, "devices");
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	run_done(&r);

	RUN(&r, fake_objects, "dev", "frob");
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	CHECK_STR(r.err.buf,
		  "kvperf: unknown dev command 'frob' (try 'kvperf dev help')\n");
	CHECK_STR(ran, "");
	run_done(&r);

	/* no object: the help, on stderr, and a usage error */
	RUN(&r, fake_objects, NULL);
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	CHECK_STR(r.out.buf, "");
	CHECK(strstr(r.err.buf, "Usage: kvperf") != NULL);
	run_done(&r);
}

static void cli_help_levels(void)
{
	struct run r;

	RUN(&r, fake_objects, "help");
	CHECK_INT(r.ret, KVPERF_EXIT_OK);
	CHECK(!strncmp(r.out.buf, "Usage: kvperf [OPTIONS] OBJECT", 30));
	/* the objects are listed from the table */
	CHECK(strstr(r.out.buf, "  dev        the fake dev\n") != NULL);
	CHECK(strstr(r.out.buf, "  server     the fake server\n") != NULL);
	/* exit codes are documented */
	CHECK(strstr(r.out.buf, "Exit status:\n"
			       "  0  success\n"
			       "  1  the kernel refused the request, or another runtime error\n"
			       "  2  usage error (unknown object, command, option or argument)\n"
			       "  3  the kvperf module is not loaded\n") != NULL);
	CHECK(strstr(r.out.buf, "Examples:\n") != NULL);
	CHECK_STR(r.err.buf, "");
	run_done(&r);

	RUN(&r, fake_objects, "h");
	CHECK_INT(r.ret, KVPERF_EXIT_OK);
	CHECK(!strncmp(r.out.buf, "Usage: kvperf", 13));
	run_done(&r);

	RUN(&r, fake_objects, "-h");
	CHECK_INT(r.ret, KVPERF_EXIT_OK);
	CHECK(!strncmp(r.out.buf, "Usage: kvperf", 13));
	run_done(&r);

	RUN(&r, fake_objects, "help", "d");
	CHECK_INT(r.ret, KVPERF_EXIT_OK);
	CHECK_STR(r.out.buf, "fake dev help\n");
	run_done(&r);

	RUN(&r, fake_objects, "help", "nosuch");
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	CHECK_STR(r.err.buf,
		  "kvperf: unknown object 'nosuch' (try 'kvperf help')\n");
	run_done(&r);

	RUN(&r, fake_objects, "dev", "help");
	CHECK_INT(r.ret, KVPERF_EXIT_OK);
	CHECK_STR(r.out.buf, "fake dev help\n");
	CHECK_STR(ran, "");
	run_done(&r);

	/* "he" is a prefix of both hello and help: the command wins */
	RUN(&r, fake_objects, "dev", "he");
	CHECK_STR(ran, "hello");
	run_done(&r);

	RUN(&r, fake_objects, "dev", "help", "extra");
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	CHECK_STR(r.err.buf,
		  "kvperf: unexpected argument 'extra' (try 'kvperf dev help')\n");
	CHECK_STR(r.out.buf, "");
	run_done(&r);

	RUN(&r, fake_objects, "help", "dev", "extra");
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	CHECK_STR(r.err.buf,
		  "kvperf: unexpected argument 'extra' (try 'kvperf help')\n");
	CHECK_STR(r.out.buf, "");
	run_done(&r);
}

static void cli_real_objects_usage(void)
{
	struct run r;

	RUN(&r, real_objects, "dev", "show", "rxe0", "rxe1");
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	CHECK_STR(r.err.buf,
		  "kvperf: unexpected argument 'rxe1' (try 'kvperf dev help')\n");
	CHECK_STR(r.out.buf, "");
	run_done(&r);

	RUN(&r, real_objects, "d", "sh",
	    "a123456789b123456789c123456789d123456789e123456789f123456789abcd");
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	CHECK(strstr(r.err.buf, "is longer than 63 characters") != NULL);
	run_done(&r);

	RUN(&r, real_objects, "dev", "show", "");
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	CHECK_STR(r.err.buf,
		  "kvperf: empty device name (try 'kvperf dev help')\n");
	run_done(&r);

	RUN(&r, real_objects, "dev", "list");
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	CHECK_STR(r.err.buf,
		  "kvperf: unknown dev command 'list' (try 'kvperf dev help')\n");
	run_done(&r);

	RUN(&r, real_objects, "monitor", "now");
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	CHECK_STR(r.err.buf,
		  "kvperf: unexpected argument 'now' (want progress or help) "
		  "(try 'kvperf monitor help')\n");
	run_done(&r);

	RUN(&r, real_objects, "monitor", "progress", "now");
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	CHECK_STR(r.err.buf,
		  "kvperf: unexpected argument 'now' (try 'kvperf monitor help')\n");
	CHECK_STR(r.out.buf, "");
	run_done(&r);

	RUN(&r, real_objects, "monitor", "help", "now");
	CHECK_INT(r.ret, KVPERF_EXIT_USAGE);
	CHECK_STR(r.err.buf,
		  "kvperf: unexpected argument 'now' (try 'kvperf monitor help')\n");
	CHECK_STR(r.out.buf, "");
	run_done(&r);
}

static void cli_real_objects_help(void)
{
	struct run r;

	RUN(&r, real_objects, "help");
	CHECK_INT(r.ret, KVPERF_EXIT_OK);
	CHECK(strstr(r.out.buf, "\n  dev        ") != NULL);
	CHECK(strstr(r.out.buf, "\n  monitor    ") != NULL);
	run_done(&r);

	RUN(&r, real_objects, "dev", "help");
	CHECK_INT(r.ret, KVPERF_EXIT_OK);
	CHECK(!strncmp(r.out.buf, "Usage: kvperf [-j [-p]] dev [show [DEV]]\n",
		       41));
	CHECK(strstr(r.out.buf, "  kvperf d sh rxe0\n") != NULL);
	run_done(&r);

	RUN(&r, real_objects, "m", "help");
	CHECK_INT(r.ret, KVPERF_EXIT_OK);
	CHECK(!strncmp(r.out.buf, "Usage: kvperf [-j [-p]] monitor [progress]\n",
		       43));
	/* the keys monitor_print_event() prints */
	CHECK(strstr(r.out.buf, "{\"event\":\"dev-add\",\"ifindex\":3,\"ifname\":\"rxe2\"}") != NULL);
	CHECK(strstr(r.out.buf, "  kvperf monitor progress\n") != NULL);
	run_done(&r);

	RUN(&r, real_objects, "help", "monitor");
	CHECK_INT(r.ret, KVPERF_EXIT_OK);
	CHECK(!strncmp(r.out.buf, "Usage: kvperf [-j [-p]] monitor [progress]\n",
		       43));
	run_done(&r);
}

/*
 * Progress lines ("\r", "\033[K") only on a terminal that takes them: a
 * pty with TERM set; never a file or a pipe, nor TERM=dumb or no TERM.
 */
static void cli_terminal_only(void)
{
	const char *saved = getenv("TERM");
	char *term = saved ? strdup(saved) : NULL;
	FILE *file = tmpfile(), *pipe_w, *tty = NULL;
	int fds[2], master;

	CHECK(file != NULL);
	CHECK(pipe(fds) == 0);
	pipe_w = fdopen(fds[1], "w");
	setenv("TERM", "xterm", 1);
	CHECK(!cli_terminal(file));
	CHECK(!cli_terminal(pipe_w));
	CHECK(!cli_terminal(NULL));

	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master >= 0 && !grantpt(master) && !unlockpt(master))
		tty = fopen(ptsname(master), "w");
	if (!tty) {
		unit_skip("no pseudo-terminal");
		goto out;
	}
	CHECK(cli_terminal(tty));
	setenv("TERM", "dumb", 1);
	CHECK(!cli_terminal(tty));
	unsetenv("TERM");
	CHECK(!cli_terminal(tty));
	setenv("TERM", "", 1);
	CHECK(!cli_terminal(tty));
out:
	if (tty)
		fclose(tty);
	if (master >= 0)
		close(master);
	fclose(pipe_w);
	close(fds[0]);
	fclose(file);
	if (term)
		setenv("TERM", term, 1);
	else
		unsetenv("TERM");
	free(term);
}

/*
 * No kvperf family on this host (no module, as on a build machine): the
 * tool says the module is not loaded and how to load it, exit 3.
 */
static void cli_module_not_loaded(void)
{
	struct run r;

	RUN(&r, real_objects, "dev", "show");
	if (r.ret != KVPERF_EXIT_NOMODULE && r.ret != KVPERF_EXIT_ERROR) {
		/* a host with the module: nothing to see here */
		run_done(&r);
		unit_skip("the kvperf module is loaded here");
		return;
	}
	if (strstr(r.err.buf, "cannot open a generic netlink socket")) {
		run_done(&r);
		unit_skip("no generic netlink here");
		return;
	}
	CHECK_INT(r.ret, KVPERF_EXIT_NOMODULE);
	CHECK_STR(r.err.buf, "kvperf: the kvperf module is not loaded "
		  "(try: sudo modprobe kvperf, or insmod kmod/kvperf.ko)\n");
	CHECK_STR(r.out.buf, "");
	run_done(&r);
}

const struct unit_test unit_tests[] = {
	UNIT(cli_global_options),
	UNIT(cli_bad_options),
	UNIT(cli_version),
	UNIT(cli_version_is_the_trees),
	UNIT(cli_objects_abbreviated),
	UNIT(cli_unknown_words),
	UNIT(cli_help_levels),
	UNIT(cli_real_objects_usage),
	UNIT(cli_real_objects_help),
	UNIT(cli_terminal_only),
	UNIT(cli_module_not_loaded),
	{ NULL },
};
