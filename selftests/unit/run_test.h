/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the unit tests of latency runs (test_run.c) and of bandwidth runs
 * (test_run_bw.c) share: command lines turned into requests, whole
 * command lines through kvperf_main(), run replies printed, and the end
 * of a run.
 */
#ifndef KVPERF_RUN_TEST_H
#define KVPERF_RUN_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include "run.h"
#include "unit.h"

/* "run lat|bw WORDS...", parsed, and the request if that worked */
struct run_cmdline {
	int ret;
	struct run_opts o;
	char err[512];
	/* the request's attributes, when the command line was valid */
	char req[1024];
};

void run_cmdline_words(struct run_cmdline *l, uint8_t type,
		       const char *const *words);

#define RUN_CMDLINE(l, type, ...)					\
	run_cmdline_words((l), (type),					\
			  (const char *const []){ __VA_ARGS__, NULL })

/* A valid command line and the request it makes. */
#define RUN_OK(type, want, ...)						\
	do {								\
		struct run_cmdline l_;					\
		RUN_CMDLINE(&l_, (type), __VA_ARGS__);			\
		CHECK_INT(l_.ret, KVPERF_EXIT_OK);			\
		CHECK_STR(l_.err, "");					\
		CHECK_STR(l_.req, (want));				\
	} while (0)

/* An invalid one and what it says (without the hint). */
#define RUN_ERR(type, want, ...)					\
	do {								\
		struct run_cmdline l_;					\
		RUN_CMDLINE(&l_, (type), __VA_ARGS__);			\
		CHECK_INT(l_.ret, KVPERF_EXIT_USAGE);			\
		CHECK_STR(l_.err, "kvperf: " want			\
			  " (try 'kvperf run help')\n");		\
	} while (0)

/* "kvperf WORDS...", with the objects main.c has */
struct run_cli {
	int ret;
	struct capture out;
	struct capture err;
};

void run_cli_words(struct run_cli *c, const char *const *words);

#define RUN_CLI(c, ...)							\
	run_cli_words((c), (const char *const []){ __VA_ARGS__, NULL })

/* A command line that ends before any socket opens, with a usage error. */
#define RUN_CLI_ERR(want, ...)						\
	do {								\
		struct run_cli c_;					\
		RUN_CLI(&c_, __VA_ARGS__);				\
		CHECK_INT(c_.ret, KVPERF_EXIT_USAGE);			\
		CHECK_STR(c_.out.buf, "");				\
		CHECK_STR(c_.err.buf, want);				\
		cap_close(&c_.out);					\
		cap_close(&c_.err);					\
	} while (0)

struct nl_msg;

/* A u64 as the kernel's nla_put_u64_64bit() lays it out, after a pad. */
void run_put_u64(struct nl_msg *msg, int type, int pad, uint64_t v);

/* A run-get reply or run event of run @id, with its setup and no results. */
struct nl_msg *run_type_msg(uint8_t cmd, uint32_t id, uint8_t type,
			    uint8_t op, uint8_t state);

/* Print one run as "run show" prints each (in Gb/s if @gbits), into @c. */
int run_print_one(struct capture *c, bool json, bool gbits,
		  struct nl_msg *msg, struct capture *err);

/* How a run that ended is printed, and the exit code. */
struct run_finished {
	int ret;
	struct capture out;
	struct capture err;
};

void run_finish_capture(struct run_finished *f, struct nl_msg *msg,
			bool json, bool gbits);
void run_finish_done(struct run_finished *f);

#endif /* KVPERF_RUN_TEST_H */
