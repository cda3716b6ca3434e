// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/cli/json.c: layout, escaping, UTF-8 handling and exact
 * integers, checked byte for byte and by Python's json module.
 */
#include <stdint.h>
#include <string.h>

#include "json.h"
#include "unit.h"

static void json_empty_containers(void)
{
	struct json_writer jw;
	struct capture c;

	json_init(&jw, cap_open(&c), false);
	json_arr_open(&jw);
	json_obj_open(&jw);
	json_obj_close(&jw);
	json_arr_open(&jw);
	json_arr_close(&jw);
	json_arr_close(&jw);
	json_end(&jw);
	CHECK_STR(cap_str(&c), "[{},[]]\n");
	cap_close(&c);

	json_init(&jw, cap_open(&c), true);
	json_obj_open(&jw);
	json_key(&jw, "a");
	json_arr_open(&jw);
	json_arr_close(&jw);
	json_key(&jw, "o");
	json_obj_open(&jw);
	json_obj_close(&jw);
	json_obj_close(&jw);
	json_end(&jw);
	CHECK_STR(cap_str(&c), "{\n    \"a\": [],\n    \"o\": {}\n}\n");
	cap_close(&c);
}

static void write_nested(struct json_writer *jw)
{
	json_obj_open(jw);
	json_key(jw, "a");
	json_u64(jw, 1);
	json_key(jw, "b");
	json_arr_open(jw);
	json_u64(jw, 1);
	json_s64(jw, -2);
	json_obj_open(jw);
	json_key(jw, "c");
	json_str(jw, "d");
	json_obj_close(jw);
	json_arr_close(jw);
	json_key(jw, "t");
	json_bool(jw, true);
	json_key(jw, "f");
	json_bool(jw, false);
	json_key(jw, "n");
	json_null(jw);
	json_obj_close(jw);
	json_end(jw);
}

static void json_compact_layout(void)
{
	struct json_writer jw;
	struct capture c;

	json_init(&jw, cap_open(&c), false);
	write_nested(&jw);
	CHECK_STR(cap_str(&c),
		  "{\"a\":1,\"b\":[1,-2,{\"c\":\"d\"}],\"t\":true,\"f\":false,\"n\":null}\n");
	CHECK_JSON(c.buf, "assert d == {'a': 1, 'b': [1, -2, {'c': 'd'}], "
		   "'t': True, 'f': False, 'n': None}, d");
	cap_close(&c);
}

static void json_pretty_layout(void)
{
	struct json_writer jw;
	struct capture c;

	json_init(&jw, cap_open(&c), true);
	write_nested(&jw);
	CHECK_STR(cap_str(&c),
		  "{\n"
		  "    \"a\": 1,\n"
		  "    \"b\": [\n"
		  "        1,\n"
		  "        -2,\n"
		  "        {\n"
		  "            \"c\": \"d\"\n"
		  "        }\n"
		  "    ],\n"
		  "    \"t\": true,\n"
		  "    \"f\": false,\n"
		  "    \"n\": null\n"
		  "}\n");
	CHECK_JSON(c.buf, "assert d['b'][2]['c'] == 'd' and d['n'] is None");
	cap_close(&c);
}

static const char *str_json(const char *s, size_t len)
{
	static char out[512];
	struct json_writer jw;
	struct capture c;

	json_init(&jw, cap_open(&c), false);
	json_strn(&jw, s, len);
	snprintf(out, sizeof(out), "%s", cap_str(&c));
	cap_close(&c);
	return out;
}

#define STR_JSON(lit)	str_json(lit, sizeof(lit) - 1)

static void json_escapes(void)
{
	CHECK_STR(STR_JSON(""), "\"\"");
	CHECK_STR(STR_JSON("plain"), "\"plain\"");
	CHECK_STR(STR_JSON("a\"b"), "\"a\\\"b\"");
	CHECK_STR(STR_JSON("a\\b"), "\"a\\\\b\"");
	CHECK_STR(STR_JSON("\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\"");
	CHECK_STR(STR_JSON("\x01\x1f"), "\"\\u0001\\u001f\"");
	/* DEL and '/' need no escape */
	CHECK_STR(STR_JSON("\x7f/"), "\"\x7f/\"");
	/* an embedded NUL is data too */
	CHECK_STR(STR_JSON("a\0b"), "\"a\\u0000b\"");
}

static void json_utf8(void)
{
	/* well-formed sequences of every length pass through */
	CHECK_STR(STR_JSON("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
	CHECK_STR(STR_JSON("\xe2\x82\xac"), "\"\xe2\x82\xac\"");
	CHECK_STR(STR_JSON("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\"");
	CHECK_STR(STR_JSON("\xf4\x8f\xbf\xbf"), "\"\xf4\x8f\xbf\xbf\"");
	/* anything else becomes U+FFFD, one per byte that starts nothing */
	CHECK_STR(STR_JSON("\xff"), "\"\\ufffd\"");
	CHECK_STR(STR_JSON("a\x80z"), "\"a\\ufffdz\"");
	/* truncated */
	CHECK_STR(STR_JSON("\xe2\x82"), "\"\\ufffd\\ufffd\"");
	/* overlong '/' */
	CHECK_STR(STR_JSON("\xc0\xaf"), "\"\\ufffd\\ufffd\"");
	CHECK_STR(STR_JSON("\xe0\x80\xaf"), "\"\\ufffd\\ufffd\\ufffd\"");
	/* a UTF-16 surrogate */
	CHECK_STR(STR_JSON("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");
	/* above U+10FFFF */
	CHECK_STR(STR_JSON("\xf4\x90\x80\x80"),
		  "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	/* a lead byte followed by ASCII keeps the ASCII */
	CHECK_STR(STR_JSON("\xc3("), "\"\\ufffd(\"");
}

static void json_integers_exact(void)
{
	struct json_writer jw;
	struct capture c;

	json_init(&jw, cap_open(&c), false);
	json_arr_open(&jw);
	json_u64(&jw, 0);
	json_u64(&jw, UINT64_MAX);
	json_u64(&jw, 1ULL << 53 | 1);
	json_s64(&jw, INT64_MIN);
	json_s64(&jw, INT64_MAX);
	json_arr_close(&jw);
	json_end(&jw);
	CHECK_STR(cap_str(&c),
		  "[0,18446744073709551615,9007199254740993,"
		  "-9223372036854775808,9223372036854775807]\n");
	CHECK_JSON(c.buf, "assert d == [0, 2**64 - 1, 2**53 + 1, -2**63, "
		   "2**63 - 1], d");
	cap_close(&c);
}

/* Tricky strings as keys and values, and what Python must read back. */
static void json_tricky_strings_parse(void)
{
	static const struct {
		const char *s;
		size_t len;
	} v[] = {
#define V(lit)	{ lit, sizeof(lit) - 1 }
		V("quote\" backslash\\ slash/"),
		V("ctl \x01\x02\x1b\x1f\x7f end"),
		V("\n\r\t\b\f"),
		V("nul\0inside"),
		V("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
		V("bad \xff\xfe \xc0\xaf \xed\xa0\x80 \xe2\x82"),
		V("\\u0041 is not an escape"),
		V("</script><!--"),
		V(""),
#undef V
	};
	struct json_writer jw;
	struct capture c;
	size_t i;

	for (i = 0; i < 2; i++) {
		size_t j;

		json_init(&jw, cap_open(&c), i);
		json_obj_open(&jw);
		json_key(&jw, "weird \"key\"\n\x01");
		json_arr_open(&jw);
		for (j = 0; j < ARRAY_SIZE(v); j++)
			json_strn(&jw, v[j].s, v[j].len);
		json_arr_close(&jw);
		json_obj_close(&jw);
		json_end(&jw);
		CHECK_JSON(cap_str(&c),
			   "a = d['weird \"key\"\\n\\x01']\n"
			   "assert a[0] == 'quote\" backslash\\\\ slash/', a[0]\n"
			   "assert a[1] == 'ctl \\x01\\x02\\x1b\\x1f\\x7f end'\n"
			   "assert a[2] == '\\n\\r\\t\\b\\f'\n"
			   "assert a[3] == 'nul\\x00inside'\n"
			   "assert a[4] == 'caf\\u00e9 \\u20ac \\U0001f600'\n"
			   "assert a[5] == 'bad ' + '\\ufffd' * 2 + ' ' + "
			   "'\\ufffd' * 2 + ' ' + '\\ufffd' * 3 + ' ' + "
			   "'\\ufffd' * 2, a[5]\n"
			   "assert a[6] == '\\\\u0041 is not an escape'\n"
			   "assert a[7] == '</script><!--'\n"
			   "assert a[8] == ''\n"
			   "assert len(a) == 9\n");
		cap_close(&c);
	}
}

const struct unit_test unit_tests[] = {
	UNIT(json_empty_containers),
	UNIT(json_compact_layout),
	UNIT(json_pretty_layout),
	UNIT(json_escapes),
	UNIT(json_utf8),
	UNIT(json_integers_exact),
	UNIT(json_tricky_strings_parse),
	{ NULL },
};
