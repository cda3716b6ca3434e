// SPDX-License-Identifier: GPL-2.0
/*
 * The printer behind every command's output: text lines or JSON from the
 * same calls.
 */
#include <inttypes.h>

#include "fmt.h"
#include "print.h"

/**
 * pr_init() - start printing one result
 * @p: the printer
 * @f: where output goes
 * @json: JSON instead of text
 * @pretty: pretty-print the JSON
 */
void pr_init(struct printer *p, FILE *f, bool json, bool pretty)
{
	p->f = f;
	p->json = json;
	p->indent = 0;
	p->line_open = false;
	json_init(&p->jw, f, pretty);
}

/**
 * pr_finish() - end the result: the final newline of JSON, or of an
 * unfinished text line
 * @p: the printer
 */
void pr_finish(struct printer *p)
{
	if (p->json)
		json_end(&p->jw);
	else
		pr_eol(p);
}

/** pr_obj_open() - JSON: open an object, named @key unless in an array */
void pr_obj_open(struct printer *p, const char *key)
{
	if (!p->json)
		return;
	if (key)
		json_key(&p->jw, key);
	json_obj_open(&p->jw);
}

/** pr_obj_close() - JSON: close the innermost object */
void pr_obj_close(struct printer *p)
{
	if (p->json)
		json_obj_close(&p->jw);
}

/** pr_arr_open() - JSON: open an array, named @key unless in an array */
void pr_arr_open(struct printer *p, const char *key)
{
	if (!p->json)
		return;
	if (key)
		json_key(&p->jw, key);
	json_arr_open(&p->jw);
}

/** pr_arr_close() - JSON: close the innermost array */
void pr_arr_close(struct printer *p)
{
	if (p->json)
		json_arr_close(&p->jw);
}

/* Text is about to go on the line: separate it or indent it. */
static void pr_begin_text(struct printer *p, bool separate)
{
	if (!p->line_open) {
		fprintf(p->f, "%*s", (int)p->indent, "");
		p->line_open = true;
	} else if (separate) {
		fputc(' ', p->f);
	}
}

/** pr_text() - text: write @s as it is, e.g. a label such as "limits:" */
void pr_text(struct printer *p, const char *s)
{
	if (p->json)
		return;
	pr_begin_text(p, false);
	fputs(s, p->f);
}

/**
 * pr_indent() - text: indent the next line by @n spaces
 * @p: the printer
 * @n: the indentation, used once something is printed on the line; a
 *     line that gets nothing stays out of the output
 */
void pr_indent(struct printer *p, unsigned int n)
{
	p->indent = n;
}

/** pr_eol() - text: end the current line, if anything is on it */
void pr_eol(struct printer *p)
{
	if (!p->json && p->line_open)
		fputc('\n', p->f);
	p->line_open = false;
	p->indent = 0;
}

static void pr_field_text(struct printer *p, const char *fmt, const char *s)
{
	if (!fmt)
		return;
	pr_begin_text(p, true);
	fprintf(p->f, fmt, s);
}

/**
 * pr_text_field() - text: a field that JSON does not have, such as the
 * placeholder of a missing value in a table
 * @p: the printer
 * @fmt: text format with one %s
 * @s: the text
 */
void pr_text_field(struct printer *p, const char *fmt, const char *s)
{
	if (!p->json)
		pr_field_text(p, fmt, s);
}

/**
 * pr_str() - a string field
 * @p: the printer
 * @key: JSON key
 * @fmt: text format with one %s, or NULL for JSON only
 * @val: the value
 */
void pr_str(struct printer *p, const char *key, const char *fmt,
	    const char *val)
{
	pr_str_as(p, key, fmt, val, val);
}

/**
 * pr_str_as() - a string field whose text differs from its JSON value
 * @p: the printer
 * @key: JSON key
 * @fmt: text format with one %s, or NULL for JSON only
 * @val: the JSON value
 * @text: what text output shows
 */
void pr_str_as(struct printer *p, const char *key, const char *fmt,
	       const char *val, const char *text)
{
	if (p->json) {
		json_key(&p->jw, key);
		json_str(&p->jw, val);
	} else {
		pr_field_text(p, fmt, text);
	}
}

/**
 * pr_u64_as() - a number in JSON that text shows differently
 * @p: the printer
 * @key: JSON key
 * @fmt: text format with one %s, or NULL for JSON only
 * @val: the JSON value
 * @text: what text output shows, e.g. "2.5" for a rate of 2500 Mb/s
 */
void pr_u64_as(struct printer *p, const char *key, const char *fmt,
	       uint64_t val, const char *text)
{
	if (p->json) {
		json_key(&p->jw, key);
		json_u64(&p->jw, val);
	} else {
		pr_field_text(p, fmt, text);
	}
}

/**
 * pr_u64() - a number field
 * @p: the printer
 * @key: JSON key
 * @fmt: text format with one %s, or NULL for JSON only
 * @val: the value, printed in decimal
 */
void pr_u64(struct printer *p, const char *key, const char *fmt,
	    uint64_t val)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, val);
	pr_u64_as(p, key, fmt, val, buf);
}

/**
 * pr_enum() - a field holding a value of a spec enum
 * @p: the printer
 * @key: JSON key
 * @fmt: text format with one %s, or NULL for JSON only
 * @val: the value
 * @names: display names of the enum's values
 *
 * Known values print as their name (a JSON string); values this tool does
 * not know, from a newer module, print as their number (a JSON number).
 */
void pr_enum(struct printer *p, const char *key, const char *fmt,
	     uint64_t val, const struct name_table *names)
{
	const char *name = fmt_name(names, val);

	if (name)
		pr_str(p, key, fmt, name);
	else
		pr_u64(p, key, fmt, val);
}

/**
 * pr_number_as() - a number with a fraction, exact in JSON
 * @p: the printer
 * @key: JSON key
 * @fmt: text format with one %s, or NULL for JSON only
 * @num: the JSON value, formatted, e.g. "25331.123" (see fmt_fixed())
 * @text: what text output shows, e.g. "25.331" for the same in other units
 */
void pr_number_as(struct printer *p, const char *key, const char *fmt,
		  const char *num, const char *text)
{
	if (p->json) {
		json_key(&p->jw, key);
		json_number(&p->jw, num);
	} else {
		pr_field_text(p, fmt, text);
	}
}

/**
 * pr_flag() - a yes/no field: a JSON boolean, in text a word shown only
 * when set
 * @p: the printer
 * @key: JSON key
 * @text: what text shows when @val is true, e.g. "verify"; NULL for JSON
 *        only
 * @val: the value
 */
void pr_flag(struct printer *p, const char *key, const char *text,
	     bool val)
{
	if (p->json) {
		json_key(&p->jw, key);
		json_bool(&p->jw, val);
	} else if (val && text) {
		pr_field_text(p, "%s", text);
	}
}
