// SPDX-License-Identifier: GPL-2.0
/*
 * Matching command-line words with prefix abbreviations.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "kvperf.h"

/**
 * args_matches() - does @word select @name?
 * @word: what the user typed
 * @name: a table entry
 *
 * Return: true if @word is a non-empty prefix of @name (or equal to it).
 */
bool args_matches(const char *word, const char *name)
{
	size_t len = strlen(word);

	return len && !strncmp(word, name, len);
}

/**
 * args_lookup() - find the table entry a word selects
 * @table: NULL-terminated table of objects or commands
 * @word: what the user typed
 *
 * An exact match wins; otherwise the first entry in table order that @word
 * is a prefix of. Resolving in table order rather than refusing ambiguous
 * prefixes keeps every abbreviation that works today working when entries
 * are appended later, which is what scripts need.
 *
 * Return: the entry, or NULL if none matches.
 */
const struct kvperf_cmd *args_lookup(const struct kvperf_cmd *const *table,
				     const char *word)
{
	const struct kvperf_cmd *const *c;

	for (c = table; *c; c++)
		if (!strcmp(word, (*c)->name))
			return *c;
	for (c = table; *c; c++)
		if (args_matches(word, (*c)->name))
			return *c;
	return NULL;
}

/**
 * args_keyword() - find the keyword a word selects
 * @names: the keywords; NULL entries are skipped
 * @count: how many
 * @word: what the user typed
 *
 * The rules of args_lookup(): an exact match wins, otherwise the first
 * keyword in table order that @word is a prefix of.
 *
 * Return: the keyword's index in @names, or -1 if none matches.
 */
int args_keyword(const char *const *names, size_t count, const char *word)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (names[i] && !strcmp(word, names[i]))
			return i;
	for (i = 0; i < count; i++)
		if (names[i] && args_matches(word, names[i]))
			return i;
	return -1;
}

/**
 * args_value() - which of a keyword's values a word is
 * @names: the values; NULL entries are skipped
 * @count: how many
 * @word: what the user typed
 *
 * Keywords abbreviate; values do not: "stats o" is neither on nor off,
 * and a value that might one day gain a sibling with the same prefix
 * keeps its meaning.
 *
 * Return: the value's index in @names, or -1 unless @word is one exactly.
 */
int args_value(const char *const *names, size_t count, const char *word)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (names[i] && !strcmp(word, names[i]))
			return i;
	return -1;
}
