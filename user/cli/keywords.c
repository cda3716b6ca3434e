// SPDX-License-Identifier: GPL-2.0
/*
 * The one parser of a command's keywords: prefixes, keywords this variant
 * does not take, keywords given twice, missing values, keywords that
 * exclude each other; each value is the command's to parse.
 */
#include <errno.h>
#include <string.h>
#include <linux/kvperf.h>

#include "args.h"
#include "cli.h"
#include "keywords.h"
#include "kvperf.h"
#include "parse.h"
#include "run_cfg.h"

/* "sizes all", as perftest -a: the powers of two from 2 B to 8 MiB */
#define CLI_SIZES_ALL_MIN	2

/**
 * cli_parse_keywords() - the keywords of a command and their values
 * @kv: the invocation
 * @a: the words after the command
 * @k: its keywords
 * @given: receives bit (1 << keyword) of each keyword given
 * @arg: passed to @k->value
 *
 * Stops at the first mistake, reported as a usage error naming the
 * keyword: "unknown keyword 'x'", @k->refused_fmt (or
 * @k->refused_also_fmt), "'x' given twice",
 * "missing value after 'x'", "x and y exclude each other", or whatever
 * @k->value says of a value.
 *
 * Return: KVPERF_EXIT_OK, or an exit code after reporting.
 */
int cli_parse_keywords(struct kvperf *kv, struct args *a,
		       const struct cli_keywords *k, uint64_t *given,
		       void *arg)
{
	const int (*x)[2];
	const char *w, *val;
	uint64_t bit;
	int kw, ret;

	*given = 0;
	while ((w = args_next(a))) {
		kw = args_keyword(k->names, k->count, w);
		if (kw < 0)
			return kvperf_usage(kv, k->obj, "unknown keyword '%s'",
					    w);
		bit = 1ULL << kw;
		if (bit & k->refused)
			return kvperf_usage(kv, k->obj, k->refused_fmt,
					    k->names[kw]);
		if (bit & k->refused_also)
			return kvperf_usage(kv, k->obj, k->refused_also_fmt,
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
		if ((*given & (1ULL << (*x)[0])) &&
		    (*given & (1ULL << (*x)[1])))
			return kvperf_usage(kv, k->obj,
					    "%s and %s exclude each other",
					    k->names[(*x)[0]],
					    k->names[(*x)[1]]);
	return KVPERF_EXIT_OK;
}

/* What a time looks like, for messages. */
#define CLI_TIME_HINT	"a time such as 10, 0.5, 2s or 500ms; no unit is seconds"

/**
 * cli_parse_run_ranged() - a number or time of a run attribute, in the
 *			    range the run model gives it
 * @kv: told of a bad value
 * @obj: the object the message names ("run", "compare")
 * @kw: the keyword the message names
 * @attr: the run attribute (e.g. KVPERF_A_RUN_TIMEOUT_MS) whose range
 *	  applies
 * @s: the value; a time (10, 0.5, 2s, 500ms) where the attribute is one
 * @hint: what a valid value looks like, or NULL for the usual
 * @val: receives the number, or the time in milliseconds
 *
 * Return: KVPERF_EXIT_OK, or KVPERF_EXIT_USAGE after saying what is wrong
 * and the range.
 */
int cli_parse_run_ranged(struct kvperf *kv, const char *obj, const char *kw,
			 int attr, const char *s, const char *hint,
			 uint32_t *val)
{
	char lo[PARSE_TIME_LEN], hi[PARSE_TIME_LEN];
	const struct kv_range *r = run_cfg_range(attr);
	uint32_t v;
	int err;

	err = r->time ? parse_time_ms(s, &v) : parse_u32(s, &v);
	if (err == -EINVAL)
		return kvperf_usage(kv, obj, "invalid %s '%s' (%s)", kw, s,
				    hint ? hint :
				    r->time ? CLI_TIME_HINT : "a number");
	if (!err && v >= r->min && v <= r->max) {
		*val = v;
		return KVPERF_EXIT_OK;
	}
	/* in range as milliseconds: the grammar before units had them */
	if (r->time && s[0] && strspn(s, "0123456789") == strlen(s) &&
	    !parse_u32(s, &v) && v >= r->min && v <= r->max)
		return kvperf_usage(kv, obj, "%s '%s' is out of range (%s to %s): a number without a unit is seconds; for milliseconds write %sms",
				    kw, s, fmt_time_ms(lo, sizeof(lo), r->min),
				    fmt_time_ms(hi, sizeof(hi), r->max), s);
	if (r->time)
		return kvperf_usage(kv, obj, "%s '%s' is out of range (%s to %s)",
				    kw, s, fmt_time_ms(lo, sizeof(lo), r->min),
				    fmt_time_ms(hi, sizeof(hi), r->max));
	return kvperf_usage(kv, obj, "%s '%s' is out of range (%u to %u)", kw,
			    s, r->min, r->max);
}

/**
 * cli_parse_name() - a keyword's value that is one of a list of names
 * @kv: the invocation
 * @obj: the object, for the usage hint
 * @what: what the value is, for messages ("op", "poll mode")
 * @names: the names (of an enum: the index is the value); NULL entries
 *	   are none
 * @count: how many
 * @s: the value, spelled out (values do not abbreviate: args_value())
 * @val: receives the index of the name
 *
 * Return: KVPERF_EXIT_OK, or KVPERF_EXIT_USAGE after saying "unknown
 * WHAT 'S' (A, B or C)" with every name.
 */
int cli_parse_name(struct kvperf *kv, const char *obj, const char *what,
		   const char *const *names, size_t count, const char *s,
		   uint8_t *val)
{
	int v = args_value(names, count, s);
	size_t i, n = 0, k = 0, len = 0;
	char list[128] = "";

	if (v >= 0) {
		*val = v;
		return KVPERF_EXIT_OK;
	}
	for (i = 0; i < count; i++)
		n += names[i] != NULL;
	/* "a", "a or b", "a, b or c" */
	for (i = 0; i < count && len < sizeof(list); i++) {
		if (!names[i])
			continue;
		len += snprintf(list + len, sizeof(list) - len, "%s%s",
				!k ? "" : k + 1 == n ? " or " : ", ", names[i]);
		k++;
	}
	return kvperf_usage(kv, obj, "unknown %s '%s' (%s)", what, s, list);
}

/**
 * cli_parse_size() - a message size keyword's value
 * @kv: the invocation
 * @obj: the object, for the usage hint
 * @kw: the keyword, for messages
 * @s: the value: bytes, with an optional K or M suffix
 * @all: the whole value, for messages (@s is part of it for sizes)
 * @size: receives it
 *
 * Return: KVPERF_EXIT_OK, or KVPERF_EXIT_USAGE after reporting a value
 * that is no size or is out of the spec's range.
 */
int cli_parse_size(struct kvperf *kv, const char *obj, const char *kw,
		   const char *s, const char *all, uint32_t *size)
{
	uint64_t v;
	int err;

	err = parse_size(s, &v);
	if (err == -EINVAL)
		return kvperf_usage(kv, obj,
				    "invalid %s '%s' (bytes, with an optional K or M suffix)",
				    kw, all);
	if (err || v < KVPERF_SIZE_MIN || v > KVPERF_SIZE_MAX)
		return kvperf_usage(kv, obj,
				    "%s '%s' is out of range (%u to %uM)", kw,
				    all, KVPERF_SIZE_MIN, KVPERF_SIZE_MAX >> 20);
	*size = v;
	return KVPERF_EXIT_OK;
}

/**
 * cli_parse_sizes() - the value of a sizes keyword
 * @kv: the invocation
 * @obj: the object, for the usage hint
 * @s: "all" (the powers of two from 2 B to 8 MiB, as perftest -a), or
 *     MIN-MAX
 * @min: receives the smallest size
 * @max: receives the largest
 * @all: receives whether @s was "all"
 *
 * Return: KVPERF_EXIT_OK, or KVPERF_EXIT_USAGE after reporting.
 */
int cli_parse_sizes(struct kvperf *kv, const char *obj, const char *s,
		    uint32_t *min, uint32_t *max, bool *all)
{
	const char *dash = strchr(s, '-');
	char lo[32];
	int ret;

	*all = !strcmp(s, "all");
	if (*all) {
		*min = CLI_SIZES_ALL_MIN;
		*max = KVPERF_SIZE_MAX;
		return KVPERF_EXIT_OK;
	}
	if (!dash || dash == s || (size_t)(dash - s) >= sizeof(lo))
		return kvperf_usage(kv, obj,
				    "invalid sizes '%s' (all, or MIN-MAX such as 2-64K)",
				    s);
	memcpy(lo, s, dash - s);
	lo[dash - s] = '\0';
	ret = cli_parse_size(kv, obj, "sizes", lo, s, min);
	if (!ret)
		ret = cli_parse_size(kv, obj, "sizes", dash + 1, s, max);
	if (ret)
		return ret;
	if (*min > *max)
		return kvperf_usage(kv, obj,
				    "sizes '%s': MIN is larger than MAX", s);
	return KVPERF_EXIT_OK;
}
