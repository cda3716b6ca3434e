/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one output path for text and JSON: a command emits each field once,
 * with its JSON key and its text format, and the printer renders whichever
 * the user asked for.
 */
#ifndef KVPERF_PRINT_H
#define KVPERF_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"

struct name_table;

struct printer {
	FILE *f;
	bool json;
	struct json_writer jw;
	/* text: indentation of the current line */
	unsigned int indent;
	/* text: something is on the current line */
	bool line_open;
};

void pr_init(struct printer *p, FILE *f, bool json, bool pretty);
void pr_finish(struct printer *p);

/* Structure: JSON only. @key is NULL for array elements. */
void pr_obj_open(struct printer *p, const char *key);
void pr_obj_close(struct printer *p);
void pr_arr_open(struct printer *p, const char *key);
void pr_arr_close(struct printer *p);

/* Layout: text only. */
void pr_text(struct printer *p, const char *s);
void pr_indent(struct printer *p, unsigned int n);
void pr_eol(struct printer *p);
void pr_text_field(struct printer *p, const char *fmt, const char *s);

/*
 * Fields. @fmt is the text rendering: a printf format with exactly one %s,
 * which receives the value as a string; NULL leaves the field out of text.
 * In text, fields on one line are separated by one space.
 */
void pr_str(struct printer *p, const char *key, const char *fmt,
	    const char *val);
void pr_u64(struct printer *p, const char *key, const char *fmt,
	    uint64_t val);
void pr_u64_as(struct printer *p, const char *key, const char *fmt,
	       uint64_t val, const char *text);
void pr_str_as(struct printer *p, const char *key, const char *fmt,
	       const char *val, const char *text);
void pr_enum(struct printer *p, const char *key, const char *fmt,
	     uint64_t val, const struct name_table *names);
void pr_number_as(struct printer *p, const char *key, const char *fmt,
		  const char *num, const char *text);
void pr_flag(struct printer *p, const char *key, const char *text,
	     bool val);

#endif /* KVPERF_PRINT_H */
