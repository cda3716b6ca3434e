// SPDX-License-Identifier: GPL-2.0
/*
 * The one parser of a command's keywords: prefixes, keywords this variant
 * does not take, keywords given twice, missing values, keywords that
 * exclude each other; each value is the command's to parse.
 */
#include "args.h"
#include "cli.h"
#include "keywords.h"
#include "kvperf.h"

/**
 * cli_parse_keywords() - the keywords of a command and their values
 * @kv: the invocation
 * @a: the words after the command
 * @k: its keywords
 * @given: receives bit (1 << keyword) of each keyword given
 * @arg: passed to @k->value
 *
 * Stops at the first mistake, reported as a usage error naming the
 * keyword: "unknown keyword 'x'", @k->refused_fmt, "'x' given twice",
 * "missing value after 'x'", "x and y exclude each other", or whatever
 * @k->value says of a value.
 *
 * Return: KVPERF_EXIT_OK, or an exit code after reporting.
 */
int cli_parse_keywords(struct kvperf *kv, struct args *a,
		       const struct cli_keywords *k, unsigned int *given,
		       void *arg)
{
	const int (*x)[2];
	const char *w, *val;
	unsigned int bit;
	int kw, ret;

	*given = 0;
	while ((w = args_next(a))) {
		kw = args_keyword(k->names, k->count, w);
		if (kw < 0)
			return kvperf_usage(kv, k->obj, "unknown keyword '%s'",
					    w);
		bit = 1U << kw;
		if (bit & k->refused)
			return kvperf_usage(kv, k->obj, k->refused_fmt,
					    k->names[kw]);
		if ((*given & bit) && !(bit & k->repeatable))
			return kvperf_usage(kv, k->obj, "'%s' given twice",
					    k->names[kw]);
		*given |= bit;
		if (bit & k->flags)
			continue;
		val = args_next(a);
		if (!val)
			return kvperf_usage(kv, k->obj,
					    "missing value after '%s'",
					    k->names[kw]);
		ret = k->value(kv, kw, val, arg);
		if (ret)
			return ret;
	}
	for (x = k->exclusive; x && (*x)[0] >= 0; x++)
		if ((*given & (1U << (*x)[0])) && (*given & (1U << (*x)[1])))
			return kvperf_usage(kv, k->obj,
					    "%s and %s exclude each other",
					    k->names[(*x)[0]],
					    k->names[(*x)[1]]);
	return KVPERF_EXIT_OK;
}
