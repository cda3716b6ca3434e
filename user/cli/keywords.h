/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The keywords of a command (run lat, server start, compare bw): one
 * table-driven parser for all of them, and the values they share (names
 * of an enum, message sizes), so that every command says the same
 * mistake the same way.
 */
#ifndef KVPERF_KEYWORDS_H
#define KVPERF_KEYWORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct args;
struct kvperf;

/**
 * struct cli_keywords - the keywords of a command
 * @obj: the object, for usage hints ("run", "server", "compare")
 * @names: the keywords, in the order prefixes resolve
 * @count: how many
 * @flags: bit (1 << keyword) of each keyword that takes no value
 * @repeatable: bit of each keyword that may be given more than once
 * @refused: bit of each keyword this variant of the command does not
 *	     take, said with @refused_fmt ("'%s' does not apply to run lat")
 * @refused_fmt: printf format with one %s, the keyword
 * @refused_also: more keywords this variant does not take, said with
 *		  @refused_also_fmt ("'%s' is only for run io")
 * @refused_also_fmt: the same for them
 * @exclusive: pairs of keywords that say the same thing two ways, ended
 *	       by a pair of -1
 * @value: parses the value of a keyword (not called for @flags): returns
 *	   KVPERF_EXIT_OK or an exit code after reporting
 */
struct cli_keywords {
	const char *obj;
	const char *const *names;
	size_t count;
	uint64_t flags;
	uint64_t repeatable;
	uint64_t refused;
	const char *refused_fmt;
	uint64_t refused_also;
	const char *refused_also_fmt;
	const int (*exclusive)[2];
	int (*value)(struct kvperf *kv, int kw, const char *val, void *arg);
};

int cli_parse_keywords(struct kvperf *kv, struct args *a,
		       const struct cli_keywords *k, uint64_t *given,
		       void *arg);

int cli_parse_run_ranged(struct kvperf *kv, const char *obj, const char *kw,
			 int attr, const char *s, const char *hint,
			 uint32_t *val);
int cli_parse_name(struct kvperf *kv, const char *obj, const char *what,
		   const char *const *names, size_t count, const char *s,
		   uint8_t *val);
int cli_parse_size(struct kvperf *kv, const char *obj, const char *kw,
		   const char *s, const char *all, uint32_t *size);
int cli_parse_sizes(struct kvperf *kv, const char *obj, const char *s,
		    uint32_t *min, uint32_t *max, bool *all);

#endif /* KVPERF_KEYWORDS_H */
