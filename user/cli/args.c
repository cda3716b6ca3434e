// SPDX-License-Identifier: GPL-2.0
/*
 * Matching command-line words with prefix abbreviations.
 */
#include <string.h>

#include "args.h"
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
 * args_keyword() - find the keyword a word selects
 * @names: the keywords; NULL entries are skipped
 * @count: how many
 * @word: what the user typed
 *
 * The rules of cli_lookup(): an exact match wins, otherwise the first
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
