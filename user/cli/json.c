// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON writer. Strings are escaped so that any input, including
 * control characters and bytes that are not UTF-8, yields valid JSON.
 */
#include <inttypes.h>
#include <string.h>

#include "json.h"

#define JSON_INDENT	4

/**
 * json_init() - start writing one JSON text
 * @jw: the writer
 * @f: where the text goes
 * @pretty: one member per line, indented, instead of compact output
 */
void json_init(struct json_writer *jw, FILE *f, bool pretty)
{
	unsigned int i;

	jw->f = f;
	jw->pretty = pretty;
	jw->depth = 0;
	jw->after_key = false;
	for (i = 0; i <= JSON_MAX_DEPTH; i++)
		jw->empty[i] = true;
}

/*
 * Nesting deeper than JSON_MAX_DEPTH would be a bug in the caller; the
 * levels beyond share a slot, so brackets still balance.
 */
static bool *json_empty(struct json_writer *jw)
{
	return &jw->empty[jw->depth < JSON_MAX_DEPTH ? jw->depth :
			  JSON_MAX_DEPTH];
}

static void json_newline(struct json_writer *jw)
{
	if (jw->pretty)
		fprintf(jw->f, "\n%*s", jw->depth * JSON_INDENT, "");
}

/* Separator and layout before a value or a key. */
static void json_begin_item(struct json_writer *jw)
{
	if (jw->after_key) {
		jw->after_key = false;
		return;
	}
	if (!jw->depth)
		return;
	if (!*json_empty(jw))
		fputc(',', jw->f);
	*json_empty(jw) = false;
	json_newline(jw);
}

static void json_open(struct json_writer *jw, char c)
{
	json_begin_item(jw);
	fputc(c, jw->f);
	jw->depth++;
	*json_empty(jw) = true;
}

static void json_close(struct json_writer *jw, char c)
{
	bool empty = *json_empty(jw);

	if (jw->depth)
		jw->depth--;
	if (!empty)
		json_newline(jw);
	fputc(c, jw->f);
}

/** json_obj_open() - start an object, as a value or as an array element */
void json_obj_open(struct json_writer *jw)
{
	json_open(jw, '{');
}

/** json_obj_close() - end the innermost object */
void json_obj_close(struct json_writer *jw)
{
	json_close(jw, '}');
}

/** json_arr_open() - start an array, as a value or as an array element */
void json_arr_open(struct json_writer *jw)
{
	json_open(jw, '[');
}

/** json_arr_close() - end the innermost array */
void json_arr_close(struct json_writer *jw)
{
	json_close(jw, ']');
}

/*
 * Length of the well-formed UTF-8 sequence at @s (at most @len bytes), or 0
 * if it is not one: overlong forms, surrogates and code points above
 * U+10FFFF are refused, as RFC 3629 requires.
 */
static size_t utf8_seq_len(const unsigned char *s, size_t len)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;
		else if (s[0] == 0xed)
			hi = 0x9f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	/* only the second byte has the tightened range */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

static void json_escape(FILE *f, const unsigned char *s, size_t len)
{
	size_t i = 0, n;

	fputc('"', f);
	while (i < len) {
		unsigned char c = s[i];

		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (c < 0x20) {
				fprintf(f, "\\u%04x", c);
			} else if (c < 0x80) {
				fputc(c, f);
			} else {
				n = utf8_seq_len(s + i, len - i);
				if (!n) {
					/* not UTF-8: the replacement character */
					fputs("\\ufffd", f);
					break;
				}
				fwrite(s + i, 1, n, f);
				i += n;
				continue;
			}
		}
		i++;
	}
	fputc('"', f);
}

/**
 * json_key() - write the key of the next object member
 * @jw: the writer
 * @key: the member's name
 */
void json_key(struct json_writer *jw, const char *key)
{
	json_begin_item(jw);
	json_escape(jw->f, (const unsigned char *)key, strlen(key));
	fputs(jw->pretty ? ": " : ":", jw->f);
	jw->after_key = true;
}

/**
 * json_strn() - write a string value of known length
 * @jw: the writer
 * @s: the bytes; NUL bytes are written as \u0000
 * @len: how many
 */
void json_strn(struct json_writer *jw, const char *s, size_t len)
{
	json_begin_item(jw);
	json_escape(jw->f, (const unsigned char *)s, len);
}

/** json_str() - write a NUL-terminated string value */
void json_str(struct json_writer *jw, const char *s)
{
	json_strn(jw, s, strlen(s));
}

/** json_u64() - write an unsigned integer value, exactly */
void json_u64(struct json_writer *jw, uint64_t v)
{
	json_begin_item(jw);
	fprintf(jw->f, "%" PRIu64, v);
}

/** json_s64() - write a signed integer value, exactly */
void json_s64(struct json_writer *jw, int64_t v)
{
	json_begin_item(jw);
	fprintf(jw->f, "%" PRId64, v);
}

/**
 * json_number() - write a number the caller has formatted
 * @jw: the writer
 * @num: digits with an optional fraction, e.g. "25331.123"; written as it
 *       is, so it must be a valid JSON number
 *
 * For values that have an exact decimal form, such as fixed-point
 * integers from the kernel, which a double would round.
 */
void json_number(struct json_writer *jw, const char *num)
{
	json_begin_item(jw);
	fputs(num, jw->f);
}

/** json_bool() - write true or false */
void json_bool(struct json_writer *jw, bool v)
{
	json_begin_item(jw);
	fputs(v ? "true" : "false", jw->f);
}

/** json_null() - write null */
void json_null(struct json_writer *jw)
{
	json_begin_item(jw);
	fputs("null", jw->f);
}

/**
 * json_end() - finish the JSON text
 * @jw: the writer, back at the top level
 *
 * Ends the line, so that a stream of texts is one per line (JSON Lines).
 */
void json_end(struct json_writer *jw)
{
	fputc('\n', jw->f);
}
