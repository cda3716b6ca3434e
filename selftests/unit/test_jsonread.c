// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/jsonread.c: valid texts read into trees (every kind
 * of value, escapes, surrogate pairs, exact 64-bit integers, the tool's
 * own "-j run" output), invalid ones refused with a message saying where,
 * the depth limit, and lookups on values of the wrong kind.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "jsonread.h"
#include "unit.h"

static struct jr_value *parse(const char *s)
{
	char err[128];
	struct jr_value *v = jr_parse(s, strlen(s), err, sizeof(err));

	if (!v)
		unit_fail(__FILE__, __LINE__, "'%s' refused: %s", s, err);
	return v;
}

static void jr_kinds(void)
{
	struct jr_value *v = parse(" {\"a\": [1, -2.5, 3e2, true, false, null],"
				   " \"b\": {\"c\": \"d\"}, \"e\": [], \"f\": {}} ");
	const struct jr_value *a;
	double d;

	if (!v)
		return;
	CHECK_INT(v->type, JR_OBJECT);
	CHECK_INT(jr_count(v), 4);
	a = jr_get(v, "a");
	CHECK_INT(jr_count(a), 6);
	CHECK_INT(jr_double(jr_at(a, 0), &d), 0);
	CHECK(d == 1);
	CHECK_INT(jr_double(jr_at(a, 1), &d), 0);
	CHECK(d == -2.5);
	CHECK_INT(jr_double(jr_at(a, 2), &d), 0);
	CHECK(d == 300);
	CHECK_STR(jr_at(a, 2)->num.text, "3e2");
	CHECK_INT(jr_at(a, 3)->type, JR_BOOL);
	CHECK(jr_at(a, 3)->boolean);
	CHECK(!jr_at(a, 4)->boolean);
	CHECK_INT(jr_at(a, 5)->type, JR_NULL);
	CHECK(!jr_at(a, 6));
	CHECK_STR(jr_string(jr_get(jr_get(v, "b"), "c")), "d");
	CHECK_INT(jr_get(v, "e")->type, JR_ARRAY);
	CHECK_INT(jr_count(jr_get(v, "e")), 0);
	CHECK_INT(jr_get(v, "f")->type, JR_OBJECT);
	CHECK(!jr_get(v, "g"));
	/* members by position too */
	CHECK_STR(jr_at(v, 1)->key, "b");
	jr_free(v);
}

static void jr_scalars_at_top(void)
{
	struct jr_value *v;
	double d;

	v = parse("42");
	CHECK(v && !jr_double(v, &d) && d == 42);
	jr_free(v);
	v = parse("\"x\"\n");
	CHECK_STR(jr_string(v), "x");
	jr_free(v);
	v = parse("null");
	CHECK(v && v->type == JR_NULL);
	jr_free(v);
	v = parse("-0");
	CHECK(v && !jr_double(v, &d) && d == 0);
	jr_free(v);
}

static void jr_strings(void)
{
	struct jr_value *v;

	v = parse("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"");
	CHECK_STR(jr_string(v), "a\"b\\c/d\b\f\n\r\t");
	jr_free(v);
	/* two, three and four bytes of UTF-8, from escapes and as they are */
	v = parse("\"\\u00e9\\u20ac\\ud83d\\ude00 \xc3\xa9\xe2\x82\xac\"");
	CHECK_STR(jr_string(v),
		  "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \xc3\xa9\xe2\x82\xac");
	jr_free(v);
	/* a NUL inside: the length says where the string ends */
	v = parse("\"a\\u0000b\"");
	if (v) {
		CHECK_INT(v->str.len, 3);
		CHECK(!memcmp(v->str.s, "a\0b", 4));
	}
	jr_free(v);
	/* keys are decoded too */
	v = parse("{\"k\\u0041\":1}");
	CHECK(jr_get(v, "kA"));
	jr_free(v);
}

static void jr_u64s(void)
{
	struct jr_value *v = parse("[0, 18446744073709551615, "
				   "18446744073709551616, 1.5, -1, 1e3, "
				   "9007199254740993, \"7\"]");
	uint64_t u = 77;

	if (!v)
		return;
	CHECK_INT(jr_u64(jr_at(v, 0), &u), 0);
	CHECK_U64(u, 0);
	CHECK_INT(jr_u64(jr_at(v, 1), &u), 0);
	CHECK_U64(u, UINT64_MAX);
	u = 77;
	CHECK_INT(jr_u64(jr_at(v, 2), &u), -ERANGE);
	CHECK_INT(jr_u64(jr_at(v, 3), &u), -EINVAL);
	CHECK_INT(jr_u64(jr_at(v, 4), &u), -EINVAL);
	CHECK_INT(jr_u64(jr_at(v, 5), &u), -EINVAL);
	CHECK_U64(u, 77);
	/* beyond 2^53: exact, where a double would round */
	CHECK_INT(jr_u64(jr_at(v, 6), &u), 0);
	CHECK_U64(u, 9007199254740993ULL);
	CHECK_INT(jr_u64(jr_at(v, 7), &u), -EINVAL);
	CHECK_INT(jr_u64(NULL, &u), -EINVAL);
	jr_free(v);
}

static void jr_duplicates(void)
{
	struct jr_value *v = parse("{\"a\":1,\"a\":2}");
	double d = 0;

	CHECK(jr_get_double(v, "a", &d));
	CHECK(d == 2);
	jr_free(v);
}

static void jr_wrong_kinds(void)
{
	struct jr_value *v = parse("{\"s\":\"1\",\"a\":[1]}");
	double d = 5;

	CHECK(!jr_get(jr_get(v, "a"), "x"));
	CHECK(!jr_at(jr_get(v, "s"), 0));
	CHECK_INT(jr_count(jr_get(v, "s")), 0);
	CHECK(!jr_string(jr_get(v, "a")));
	CHECK_INT(jr_double(jr_get(v, "s"), &d), -EINVAL);
	CHECK(!jr_get_double(v, "s", &d));
	CHECK(!jr_get_double(v, "missing", &d));
	CHECK(d == 5);
	CHECK(!jr_get(NULL, "s"));
	CHECK_INT(jr_count(NULL), 0);
	jr_free(v);
	jr_free(NULL);
}

/* Each is refused, and the message says where and why. */
static void jr_invalid(void)
{
	static const struct {
		const char *text;
		const char *err;
	} cases[] = {
		{ "", "at byte 0: unexpected end, expected a value" },
		{ "  ", "at byte 2: unexpected end, expected a value" },
		{ "{", "at byte 1: unexpected end, expected a member name" },
		{ "[1,]", "at byte 3: unexpected ']', expected a value" },
		{ "{\"a\":1,}", "at byte 7: unexpected '}', expected a member name" },
		{ "{\"a\" 1}", "at byte 5: unexpected '1', expected ':'" },
		{ "{1:2}", "at byte 1: unexpected '1', expected a member name" },
		{ "[1 2]", "at byte 3: unexpected '2', expected ',' or ']'" },
		{ "{\"a\":1 \"b\":2}", "at byte 7: unexpected '\"', expected ',' or '}'" },
		{ "[]]", "at byte 2: unexpected ']', expected the end of the text" },
		{ "1 2", "at byte 2: unexpected '2', expected the end of the text" },
		{ "01", "at byte 1: leading zero in a number" },
		{ "1.", "at byte 2: unexpected end, expected a digit" },
		{ ".5", "at byte 0: unexpected '.', expected a value" },
		{ "-", "at byte 1: unexpected end, expected a digit" },
		{ "+1", "at byte 0: unexpected '+', expected a value" },
		{ "1e", "at byte 2: unexpected end, expected a digit" },
		{ "1e+", "at byte 3: unexpected end, expected a digit" },
		{ "tru", "at byte 0: unexpected 't', expected a value" },
		{ "nul", "at byte 0: unexpected 'n', expected a value" },
		{ "True", "at byte 0: unexpected 'T', expected a value" },
		{ "\"abc", "at byte 4: unterminated string" },
		{ "\"a\x01\"", "at byte 2: control character 0x01 in a string" },
		{ "\"a\nb\"", "at byte 2: control character 0x0a in a string" },
		{ "\"\\x\"", "at byte 2: unexpected 'x', expected an escape (\" \\ / b f n r t u)" },
		{ "\"\\u12\"", "at byte 5: unexpected '\"', expected a hex digit" },
		{ "\"\\ud800\"", "at byte 7: high surrogate \\ud800 without its low half" },
		{ "\"\\ud800\\u0041\"", "at byte 13: high surrogate \\ud800 without its low half" },
		{ "\"\\udc00\"", "at byte 7: lone low surrogate \\udc00" },
		{ "\"\xff\"", "at byte 1: invalid UTF-8 in a string" },
		{ "\"\xc0\xaf\"", "at byte 1: invalid UTF-8 in a string" },
		{ "\"\xed\xa0\x80\"", "at byte 1: invalid UTF-8 in a string" },
		{ "\"\xe2\x82\"", "at byte 1: invalid UTF-8 in a string" },
		{ "// c\n1", "at byte 0: unexpected '/', expected a value" },
		{ "[1,2", "at byte 4: unexpected end, expected ',' or ']'" },
		{ "\xef\xbb\xbf{}", "at byte 0: unexpected byte 0xef, expected a value" },
	};
	struct jr_value *v;
	char err[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(err, sizeof(err), "untouched");
		v = jr_parse(cases[i].text, strlen(cases[i].text), err,
			     sizeof(err));
		if (v) {
			unit_fail(__FILE__, __LINE__, "'%s' was accepted",
				  cases[i].text);
			jr_free(v);
			continue;
		}
		CHECK_STR(err, cases[i].err);
	}
	/* the length counts, not a NUL: a NUL after the value is garbage */
	v = jr_parse("[1]\0", 4, err, sizeof(err));
	CHECK(!v);
	CHECK_STR(err, "at byte 3: unexpected byte 0x00, expected the end of the text");
	/* and a text cut short by its length */
	v = jr_parse("[1]", 2, NULL, 0);
	CHECK(!v);
}

static void jr_depth(void)
{
	char text[2 * (JR_MAX_DEPTH + 1) + 1], err[128];
	struct jr_value *v;
	int i;

	for (i = 0; i < JR_MAX_DEPTH; i++) {
		text[i] = '[';
		text[2 * JR_MAX_DEPTH - 1 - i] = ']';
	}
	text[2 * JR_MAX_DEPTH] = '\0';
	v = jr_parse(text, strlen(text), err, sizeof(err));
	CHECK(v);
	jr_free(v);

	for (i = 0; i < JR_MAX_DEPTH + 1; i++) {
		text[i] = '[';
		text[2 * JR_MAX_DEPTH + 1 - i] = ']';
	}
	text[2 * JR_MAX_DEPTH + 2] = '\0';
	v = jr_parse(text, strlen(text), err, sizeof(err));
	CHECK(!v);
	CHECK_STR(err, "at byte 64: nested deeper than 64");
}

/* What "kvperf -j run lat" printed in the VM (6.12, rxe). */
static const char run_lat_json[] =
	"{\"id\":1,\"type\":\"lat\",\"op\":\"send\",\"addr\":\"198.18.0.1\","
	"\"port\":18515,\"dev\":\"rxe0\",\"verify\":false,\"state\":\"done\","
	"\"progress\":216,\"poll\":\"busy\",\"inline\":0,\"mtu\":1024,"
	"\"warmup\":16,\"kernel\":\"6.12.117+deb12-amd64\",\"size\":64,"
	"\"size_max\":64,\"iterations\":200,\"timeout_ms\":5000,"
	"\"results\":[{\"size\":64,\"iterations\":200,\"min_ns\":47520,"
	"\"max_ns\":2633654,\"p50_ns\":61055,\"mean_ns\":110502.785,"
	"\"stdev_ns\":248725.561,\"p99_ns\":1249279,\"p999_ns\":2629631,"
	"\"p90_ns\":108287,\"p9999_ns\":2629631,\"mismatches\":0,"
	"\"hist_rel_err_ppm\":3907,\"elapsed_ns\":44605818}]}\n";

static void jr_run_output(void)
{
	struct jr_value *v = parse(run_lat_json);
	const struct jr_value *res;
	uint64_t u;
	double d;

	if (!v)
		return;
	CHECK_STR(jr_string(jr_get(v, "type")), "lat");
	CHECK_STR(jr_string(jr_get(v, "dev")), "rxe0");
	res = jr_at(jr_get(v, "results"), 0);
	CHECK_INT(jr_u64(jr_get(res, "size"), &u), 0);
	CHECK_U64(u, 64);
	CHECK(jr_get_double(res, "p50_ns", &d));
	CHECK(d == 61055);
	CHECK(jr_get_double(res, "mean_ns", &d));
	CHECK(fabs(d - 110502.785) < 1e-6);
	CHECK_INT(jr_get(v, "verify")->type, JR_BOOL);
	jr_free(v);
}

const struct unit_test jsonread_tests[] = {
	UNIT(jr_kinds),
	UNIT(jr_scalars_at_top),
	UNIT(jr_strings),
	UNIT(jr_u64s),
	UNIT(jr_duplicates),
	UNIT(jr_wrong_kinds),
	UNIT(jr_invalid),
	UNIT(jr_depth),
	UNIT(jr_run_output),
	{ NULL },
};
