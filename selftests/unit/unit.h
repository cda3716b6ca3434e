/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small KTAP test harness for the host unit tests of the kvperf tool:
 * test tables, checks that report what they got, output capture and a
 * JSON checker that runs Python's json module on our output.
 */
#ifndef KVPERF_UNIT_H
#define KVPERF_UNIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "compiler.h"

struct unit_test {
	const char *name;
	void (*fn)(void);
};

#define UNIT(fn)	{ #fn, fn }

/*
 * The tests of one program: each test_*.c file is a program of its own,
 * linked with only what it tests; its table ends with { NULL }.
 */
extern const struct unit_test unit_tests[];

__printf(3, 4)
void unit_fail(const char *file, int line, const char *fmt, ...);
void unit_skip(const char *why);
bool unit_check_str(const char *file, int line, const char *expr,
		    const char *got, const char *want);
bool unit_check_int(const char *file, int line, const char *expr,
		    long long got, long long want);
bool unit_check_u64(const char *file, int line, const char *expr,
		    uint64_t got, uint64_t want);

#define CHECK(cond)							\
	do {								\
		if (!(cond))						\
			unit_fail(__FILE__, __LINE__, "check failed: %s", \
				  #cond);				\
	} while (0)
#define CHECK_STR(got, want)						\
	unit_check_str(__FILE__, __LINE__, #got, (got), (want))
#define CHECK_INT(got, want)						\
	unit_check_int(__FILE__, __LINE__, #got, (got), (want))
#define CHECK_U64(got, want)						\
	unit_check_u64(__FILE__, __LINE__, #got, (got), (want))

/* Output written to a FILE, read back as a string. */
struct capture {
	FILE *f;
	char *buf;
	size_t len;
};

FILE *cap_open(struct capture *c);
const char *cap_str(struct capture *c);
void cap_close(struct capture *c);

/*
 * Run Python's json module on @text: @script is Python run with the parsed
 * document in the variable d (or, with @lines, one document per line in
 * the list d) and must not raise. Marks the test failed, or skipped when
 * there is no /usr/bin/python3.
 */
#define CHECK_JSON(text, script)					\
	unit_check_json(__FILE__, __LINE__, (text), (script), false)
#define CHECK_JSON_LINES(text, script)					\
	unit_check_json(__FILE__, __LINE__, (text), (script), true)
bool unit_check_json(const char *file, int line, const char *text,
		     const char *script, bool lines);

/* A generic netlink message of the kvperf family to fill with attributes. */
struct nl_msg;
struct nl_msg *unit_genl_msg(uint8_t cmd);

/*
 * The top-level attributes of a message as "name=value ..." in message
 * order, named and typed by @set, for comparing requests whole: numbers in
 * decimal, strings quoted, addresses as text, flags as their name alone.
 * Returns a static buffer.
 */
struct attr_set;
const char *unit_attrs_str(struct nl_msg *msg, const struct attr_set *set);

#endif /* KVPERF_UNIT_H */
