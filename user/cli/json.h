/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A streaming JSON writer: objects, arrays, strings and integers, compact
 * or pretty-printed, always producing valid JSON (RFC 8259).
 */
#ifndef KVPERF_JSON_H
#define KVPERF_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	32

struct json_writer {
	FILE *f;
	bool pretty;
	unsigned int depth;
	/* a key was written and its value is due */
	bool after_key;
	/* per nesting level: no member written yet */
	bool empty[JSON_MAX_DEPTH + 1];
};

void json_init(struct json_writer *jw, FILE *f, bool pretty);
void json_obj_open(struct json_writer *jw);
void json_obj_close(struct json_writer *jw);
void json_arr_open(struct json_writer *jw);
void json_arr_close(struct json_writer *jw);
void json_key(struct json_writer *jw, const char *key);
void json_str(struct json_writer *jw, const char *s);
void json_strn(struct json_writer *jw, const char *s, size_t len);
void json_u64(struct json_writer *jw, uint64_t v);
void json_s64(struct json_writer *jw, int64_t v);
void json_number(struct json_writer *jw, const char *num);
void json_bool(struct json_writer *jw, bool v);
void json_null(struct json_writer *jw);
void json_end(struct json_writer *jw);

#endif /* KVPERF_JSON_H */
