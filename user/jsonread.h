/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON reader (RFC 8259): a whole text parsed into a tree, and
 * lookups by key and index. For reading the JSON the tool itself prints,
 * e.g. the "-j run" output of the children of "kvperf compare".
 */
#ifndef KVPERF_JSONREAD_H
#define KVPERF_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Nesting deeper than this is refused rather than recursed into. */
#define JR_MAX_DEPTH	64

enum jr_type {
	JR_NULL,
	JR_BOOL,
	JR_NUMBER,
	JR_STRING,
	JR_ARRAY,
	JR_OBJECT,
};

/*
 * One value. @key is its member name when it is in an object. A number
 * keeps its text, so that integers beyond 2^53 are read exactly; a
 * string is decoded UTF-8, NUL-terminated, and may hold NULs (\u0000)
 * before @len.
 */
struct jr_value {
	enum jr_type type;
	char *key;
	union {
		bool boolean;
		struct {
			char *text;
			double val;
		} num;
		struct {
			char *s;
			size_t len;
		} str;
		struct {
			struct jr_value **items;
			size_t count;
		} list;
	};
};

struct jr_value *jr_parse(const char *text, size_t len, char *err,
			  size_t errlen);
void jr_free(struct jr_value *v);

const struct jr_value *jr_get(const struct jr_value *obj, const char *key);
const struct jr_value *jr_at(const struct jr_value *arr, size_t i);
size_t jr_count(const struct jr_value *v);
int jr_double(const struct jr_value *v, double *val);
int jr_u64(const struct jr_value *v, uint64_t *val);
const char *jr_string(const struct jr_value *v);
bool jr_get_double(const struct jr_value *obj, const char *key,
		   double *val);

#endif /* KVPERF_JSONREAD_H */
