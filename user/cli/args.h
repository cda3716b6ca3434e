/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line words: a cursor over argv, and matching words against
 * tables with prefix abbreviations; their values are parse.h's.
 */
#ifndef KVPERF_ARGS_H
#define KVPERF_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/kvperf_wire.h>

#include "parse.h"

struct args {
	int argc;
	char **argv;
};

static inline bool args_empty(const struct args *a)
{
	return a->argc <= 0;
}

/* The current word, or NULL when none is left. */
static inline const char *args_peek(const struct args *a)
{
	return a->argc > 0 ? a->argv[0] : (const char *)0;
}

/* Consume and return the current word, or NULL when none is left. */
static inline const char *args_next(struct args *a)
{
	if (a->argc <= 0)
		return (const char *)0;
	a->argc--;
	return *a->argv++;
}

bool args_matches(const char *word, const char *name);
int args_keyword(const char *const *names, size_t count, const char *word);
int args_value(const char *const *names, size_t count, const char *word);


struct kvperf;
/* A key or key-file keyword's value (access_key_parse/file, reported). */
int access_key_arg(struct kvperf *kv, const char *obj, bool file,
		   const char *val, uint8_t key[KVPERF_WIRE_KEY_LEN]);

#endif /* KVPERF_ARGS_H */
